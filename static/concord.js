// Keyboard-first labeling: digits choose, Enter saves, s skips, Backspace undoes, o opens the report.
(function () {
  "use strict";

  function form() { return document.getElementById("label-form"); }

  function isTyping(el) {
    return el && (el.tagName === "TEXTAREA" || el.isContentEditable ||
      (el.tagName === "INPUT" && !["radio", "checkbox", "button", "submit"].includes(el.type)));
  }

  // The list a digit acts on: the first level with nothing chosen, else the deepest one.
  function activeFieldset(f) {
    const sets = Array.from(f.querySelectorAll("fieldset[data-level]"));
    return sets.find((s) => !s.querySelector("input:checked")) || sets[sets.length - 1];
  }

  function choose(f, digit) {
    const set = activeFieldset(f);
    if (!set) return false;
    const index = digit === 0 ? 9 : digit - 1;
    const radio = set.querySelectorAll("input[type=radio]")[index];
    if (!radio) return false;
    radio.checked = true;
    // A key pressed right after a swap can beat htmx's own processing of the new radios.
    if (window.htmx) window.htmx.process(radio);
    radio.dispatchEvent(new Event("change", { bubbles: true }));
    return true;
  }

  function undo(f) {
    const checked = Array.from(f.querySelectorAll("fieldset[data-level] input:checked"));
    const last = checked[checked.length - 1];
    if (!last) return;
    last.checked = false;
    const set = last.closest("fieldset");
    let next = set.nextElementSibling;
    while (next && next.matches("fieldset[data-level]")) {
      const drop = next;
      next = next.nextElementSibling;
      drop.remove();
    }
  }

  function click(f, action) {
    const button = f.querySelector(`[data-action="${action}"]`);
    if (button) button.click();
  }

  document.addEventListener("keydown", function (event) {
    const f = form();
    const dialog = document.getElementById("shortcuts");
    if (event.key === "?" && !isTyping(event.target)) {
      if (dialog) dialog.open ? dialog.close() : dialog.showModal();
      event.preventDefault();
      return;
    }
    if (dialog && dialog.open) return;
    if (!f) {
      keyButtons(event);
      return;
    }
    if (isTyping(event.target)) {
      if (event.key === "Escape") event.target.blur();
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); click(f, "submit"); }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (/^[0-9]$/.test(event.key)) {
      if (choose(f, Number(event.key))) event.preventDefault();
    } else if (event.key === "Enter") {
      event.preventDefault();
      click(f, "submit");
    } else if (event.key === "s") {
      event.preventDefault();
      click(f, "skip");
    } else if (event.key === "Backspace") {
      event.preventDefault();
      undo(f);
    } else if (event.key === "o") {
      const details = document.getElementById("full-report");
      if (details) details.open = !details.open;
    } else if (event.key === "n") {
      event.preventDefault();
      f.querySelector("textarea[name=note]").focus();
    }
  });

  // Pages other than labeling mark their buttons with data-key: that key presses the button,
  // "o" opens the full report and "m" moves to the note.
  function keyButtons(event) {
    if (isTyping(event.target)) {
      if (event.key === "Escape") event.target.blur();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "o") {
      const details = document.getElementById("full-report");
      if (details) details.open = !details.open;
      return;
    }
    if (event.key === "m") {
      const note = document.querySelector("textarea[name=note]");
      if (note) { event.preventDefault(); note.focus(); }
      return;
    }
    const button = document.querySelector(`button[data-key="${CSS.escape(event.key)}"]`);
    if (button) { event.preventDefault(); button.click(); }
  }

  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-action=help]")) {
      const dialog = document.getElementById("shortcuts");
      if (dialog) dialog.showModal();
    }
  });
})();
