// Small behaviours of the dashboard, served from our origin so the CSP needs no inline script:
// toasts and flash messages close on their button, toasts close by themselves after a while, and
// copy buttons copy links.
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
  // Copy buttons ([data-copy] naming the element whose text to copy) are hidden in the page and
  // shown only where the clipboard can be written: without script the link is there to select.
  function armCopy(root) {
    if (!navigator.clipboard || !window.isSecureContext) return;
    root.querySelectorAll("[data-copy]:not([data-armed])").forEach(function (button) {
      button.setAttribute("data-armed", "");
      button.hidden = false;
      var label = button.textContent;
      button.addEventListener("click", function () {
        var source = document.querySelector(button.getAttribute("data-copy"));
        if (!source) return;
        navigator.clipboard.writeText((source.value || source.textContent).trim()).then(function () {
          button.textContent = "Copied";
          setTimeout(function () { button.textContent = label; }, 2000);
        }, function () {
          button.textContent = "Copy failed: select the link";
        });
      });
    });
  }
  document.addEventListener("DOMContentLoaded", function () { arm(document); armCopy(document); });
  document.addEventListener("htmx:load", function (e) {
    var root = e.target.parentElement || document;
    arm(root);
    armCopy(root);
  });
})();
