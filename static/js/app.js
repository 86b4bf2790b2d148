// Small behaviours of the dashboard, served from our origin so the CSP needs no inline script:
// toasts and flash messages close on their button, and toasts close by themselves after a while.
(function () {
  "use strict";
  function arm(root) {
    root.querySelectorAll("[data-dismissable]:not([data-armed])").forEach(function (el) {
      el.setAttribute("data-armed", "");
      var close = function () { el.remove(); };
      var button = el.querySelector("[data-dismiss]");
      if (button) button.addEventListener("click", close);
      if (el.hasAttribute("data-autoclose")) setTimeout(close, 8000);
    });
  }
  document.addEventListener("DOMContentLoaded", function () { arm(document); });
  document.addEventListener("htmx:load", function (e) { arm(e.target.parentElement || document); });
})();
