/** Tailwind scans every templ file, dashboard and hosted pages alike, so one built CSS serves both. */
module.exports = {
  content: ["./views/**/*.templ", "./static/js/app.js"],
  theme: {
    extend: {},
  },
  plugins: [],
};
