// Small behaviours of the dashboard, served from our origin so the CSP needs no inline script:
// toasts and flash messages close on their button, toasts close by themselves after a while, and
// copy buttons copy links, a part of a form shows only for the choices it belongs to, and "/"
// focuses the search.
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
  // [data-show-for] (space-separated values) shows only while the form's field named by
  // data-show-with holds one of them. Without script it always shows, labelled for its choice.
  function armShowFor(root) {
    root.querySelectorAll("[data-show-for]:not([data-armed])").forEach(function (el) {
      var form = el.closest("form");
      var field = form && form.querySelector('[name="' + el.getAttribute("data-show-with") + '"]');
      if (!field) return;
      el.setAttribute("data-armed", "");
      var values = el.getAttribute("data-show-for").split(" ");
      var update = function () { el.hidden = values.indexOf(field.value) < 0; };
      field.addEventListener("change", update);
      update();
    });
  }
  // Times the server wrote in UTC ([data-local]) read in the browser's zone, and filter forms
  // send that zone (tz) so that their dates are the operator's days.
  var zone = "";
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { zone = ""; }
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function armTimes(root) {
    root.querySelectorAll("time[data-local]:not([data-armed])").forEach(function (el) {
      el.setAttribute("data-armed", "");
      var d = new Date(el.getAttribute("datetime"));
      if (isNaN(d.getTime()) || !zone) return;
      el.textContent = d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " +
        pad(d.getHours()) + ":" + pad(d.getMinutes()) + " " + zone;
    });
    root.querySelectorAll("input[data-timezone]").forEach(function (el) { if (!el.value) el.value = zone; });
  }
  // A user search box: typing forgets the user picked before; picking a suggestion sets the
  // hidden user_id and the box's text, and submits the filter.
  function armUserSearch(root) {
    root.querySelectorAll("[data-user-search]:not([data-armed])").forEach(function (box) {
      box.setAttribute("data-armed", "");
      var input = box.querySelector("input[type=search]");
      var hidden = box.querySelector("input[data-user-id]");
      input.addEventListener("input", function () { hidden.value = ""; });
      box.addEventListener("click", function (e) {
        var option = e.target.closest("[data-user-label]");
        if (!option) return;
        hidden.value = option.getAttribute("data-user-id");
        input.value = option.getAttribute("data-user-label");
        var list = box.querySelector("#user-suggestions");
        if (list) list.classList.add("hidden");
        input.form.requestSubmit();
      });
    });
  }
  // "/" anywhere outside a field focuses the header's search, as on many sites; typed in a field
  // it stays a slash. Its keypress is swallowed too: browsers drop it after a prevented keydown,
  // but input sent as separate key and character events (automation, some IMEs) would still type
  // the slash into the search it just focused.
  var swallowSlash = false;
  document.addEventListener("keydown", function (e) {
    swallowSlash = false;
    if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
    var target = e.target;
    if (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return;
    var field = document.getElementById("global-search");
    if (!field) return;
    e.preventDefault();
    swallowSlash = true;
    field.focus();
    field.select();
  });
  document.addEventListener("keypress", function (e) {
    if (swallowSlash && e.key === "/") e.preventDefault();
    swallowSlash = false;
  }, true);
  function armAll(root) { arm(root); armCopy(root); armShowFor(root); armTimes(root); armUserSearch(root); }
  document.addEventListener("DOMContentLoaded", function () { armAll(document); });
  document.addEventListener("htmx:load", function (e) { armAll(e.target.parentElement || document); });
})();
