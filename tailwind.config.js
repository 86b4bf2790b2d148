/** Tailwind scans every templ file (and the Go view models beside them, which name classes too), dashboard and hosted pages alike, so one built CSS serves both. Dark mode follows the system setting (prefers-color-scheme): there is no switch to keep. */
module.exports = {
  content: ["./views/**/*.templ", "./views/**/*.go", "./static/js/app.js"],
  darkMode: "media",
  theme: {
    extend: {},
  },
  plugins: [],
};
