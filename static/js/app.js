// Small behaviours of the dashboard, served from our origin so the CSP needs no inline script:
// toasts and flash messages close on their button, toasts close by themselves after a while, and
// copy buttons copy links, a part of a form shows only for the choices it belongs to, menus
// close on Escape and outside them, and "/" focuses the search.
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
  // A combobox ([data-combobox]: a payee picker, the header's search) follows the WAI-ARIA
  // pattern: its input (role=combobox) controls a listbox that htmx fills as the operator types;
  // ArrowDown and ArrowUp move through the options (aria-activedescendant), Enter chooses one,
  // Escape closes the list, and Enter with no option active submits the form with what was
  // typed, which the server resolves. Choosing an option with data-href opens it; otherwise it
  // sets the hidden [data-combobox-value] and the text, and, with data-submit-on-choose, submits.
  function armComboboxes(root) {
    root.querySelectorAll("[data-combobox]:not([data-armed])").forEach(function (box) {
      box.setAttribute("data-armed", "");
      var input = box.querySelector('[role="combobox"]');
      var hidden = box.querySelector("[data-combobox-value]");
      if (!input) return;
      var listID = input.getAttribute("aria-controls");
      var active = -1;
      // The header's list comes with each answer, so it is looked up each time.
      var list = function () { return document.getElementById(listID); };
      var options = function () {
        var l = list();
        return l ? Array.prototype.slice.call(l.querySelectorAll('[role="option"]')) : [];
      };
      var isOpen = function () { return input.getAttribute("aria-expanded") === "true"; };
      var setActive = function (i) {
        var all = options();
        active = i;
        all.forEach(function (o, j) { o.setAttribute("aria-selected", j === i ? "true" : "false"); });
        if (i >= 0 && all[i]) {
          input.setAttribute("aria-activedescendant", all[i].id);
          all[i].scrollIntoView({ block: "nearest" });
        } else {
          input.removeAttribute("aria-activedescendant");
        }
      };
      // The popup ([data-combobox-popup]) shows while open and holding something: options, or
      // the header's "Nothing matches".
      var popup = box.querySelector("[data-combobox-popup]");
      var show = function (open) {
        input.setAttribute("aria-expanded", open && options().length > 0 ? "true" : "false");
        if (popup) popup.hidden = !open || popup.textContent.trim() === "";
        if (!open) setActive(-1);
      };
      var choose = function (option) {
        var href = option.getAttribute("data-href");
        if (href) {
          window.location.assign(href);
          return;
        }
        if (hidden) hidden.value = option.getAttribute("data-value");
        input.value = option.getAttribute("data-label");
        show(false);
        if (box.hasAttribute("data-submit-on-choose") && input.form) input.form.requestSubmit();
      };
      input.addEventListener("input", function () { if (hidden) hidden.value = ""; });
      input.addEventListener("keydown", function (e) {
        var all = options();
        swallowEnter = false;
        switch (e.key) {
          case "ArrowDown":
          case "ArrowUp":
            if (!all.length) return;
            e.preventDefault();
            var down = e.key === "ArrowDown";
            if (!isOpen()) {
              show(true);
              setActive(down ? 0 : all.length - 1);
            } else {
              setActive(down ? (active + 1) % all.length : (active <= 0 ? all.length : active) - 1);
            }
            return;
          case "Enter":
            if (isOpen() && all[active]) {
              e.preventDefault();
              swallowEnter = true;
              choose(all[active]);
            }
            return;
          case "Escape":
            if (isOpen()) {
              e.preventDefault();
              show(false);
            }
            return;
        }
      });
      // Enter sent as a separate character event (automation, some IMEs) would still submit the
      // form after the keydown that chose an option was prevented.
      var swallowEnter = false;
      input.addEventListener("keypress", function (e) {
        if (swallowEnter && e.key === "Enter") e.preventDefault();
        swallowEnter = false;
      });
      input.addEventListener("blur", function () { show(false); });
      input.addEventListener("focus", function () { show(true); });
      // Pressing an option must not take the focus from the input, which would close the list.
      box.addEventListener("mousedown", function (e) {
        if (e.target.closest('[role="option"]')) e.preventDefault();
      });
      box.addEventListener("click", function (e) {
        var option = e.target.closest('[role="option"]');
        if (option) choose(option);
      });
      // New options: give each an id for aria-activedescendant, and open the list while the
      // operator is still in the field.
      document.addEventListener("htmx:afterSwap", function (e) {
        if (!e.detail || !box.contains(e.detail.target)) return;
        options().forEach(function (o, i) { o.id = listID + "-" + i; });
        show(document.activeElement === input);
      });
    });
  }
  // A menu ([data-menu]: a <details> of the navigation, its More on a laptop, whose list opens
  // over the page, and its Menu on a phone, which holds all of it) closes as a menu does: Escape
  // closes it and gives the focus back to its button, and a click or the focus anywhere outside
  // closes it. The <summary> is the button, and the browser tells assistive technology whether it
  // is expanded from the details' open state, so no aria-expanded is set on it (ARIA in HTML
  // forbids that on a details' summary). Without script the menu still opens and closes on its
  // button.
  function closeMenus(outsideOf) {
    document.querySelectorAll("details[data-menu][open]").forEach(function (menu) {
      if (!menu.contains(outsideOf)) menu.open = false;
    });
  }
  document.addEventListener("click", function (e) { closeMenus(e.target); });
  document.addEventListener("focusin", function (e) { closeMenus(e.target); });
  document.addEventListener("keydown", function (e) {
    // A combobox's Escape, which closes its own list, is not the menu's.
    if (e.key !== "Escape" || e.defaultPrevented) return;
    document.querySelectorAll("details[data-menu][open]").forEach(function (menu) {
      menu.open = false;
      menu.querySelector("summary").focus();
    });
  });
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
  function armAll(root) { arm(root); armCopy(root); armShowFor(root); armTimes(root); armComboboxes(root); }
  document.addEventListener("DOMContentLoaded", function () { armAll(document); });
  document.addEventListener("htmx:load", function (e) { armAll(e.target.parentElement || document); });
})();
