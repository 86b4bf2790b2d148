/** Tailwind scans every templ file (and the Go view models beside them, which name classes too), dashboard and hosted pages alike, so one built CSS serves both. */
module.exports = {
  content: ["./views/**/*.templ", "./views/**/*.go", "./static/js/app.js"],
  theme: {
    extend: {},
  },
  plugins: [],
};
