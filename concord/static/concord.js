// Keyboard-first labeling: digits choose, Enter saves, s skips, p goes back, Backspace undoes, o opens the
// report. Choices and notes are kept in localStorage until saved, so a reload or a lost connection loses
// nothing.
(function () {
  "use strict";

  // Django's JavaScript catalogue (loaded before this file) translates; without it the English stands.
  const _ = window.gettext || ((text) => text);
  const fill = (text, values) => (window.interpolate ? window.interpolate(text, values, true)
    : text.replace(/%\((\w+)\)s/g, (all, name) => String(values[name])));

  function form() { return document.getElementById("label-form"); }
  function workspace() { return document.getElementById("workspace"); }

  function isTyping(el) {
    return el && (el.tagName === "TEXTAREA" || el.tagName === "SELECT" || el.isContentEditable ||
      (el.tagName === "INPUT" && !["radio", "checkbox", "button", "submit"].includes(el.type)));
  }

  function say(text, isError) {
    const status = document.getElementById("status");
    if (!status) return;
    status.textContent = "";
    const span = document.createElement("span");
    if (isError) span.className = "error";
    span.textContent = text;
    status.appendChild(span);
  }

  // ---- the choice tree: a theme list shows under its chosen type, a sub-theme list under its theme ----
  function visibleSets(f) {
    return Array.from(f.querySelectorAll("fieldset[data-level]")).filter((s) => !s.hidden);
  }

  function sync(f) {
    const show = (level, chosen) => {
      f.querySelectorAll(`fieldset[data-level=${level}]`).forEach((set) => {
        set.hidden = !chosen || set.dataset.parent !== chosen.value;
        // A hidden list must not send a choice: changing the type clears the theme below it, and so on.
        if (set.hidden) set.querySelectorAll("input:checked").forEach((input) => { input.checked = false; });
      });
    };
    show("theme", f.querySelector("input[name=type]:checked"));
    show("sub_theme", f.querySelector("input[name=theme]:checked"));
    showChosen(f);
  }

  // What a radio stands for, as the lists show it: "C.9 Code Quality" ("Bug" for a type).
  function nameOf(radio) {
    const label = radio.closest("label");
    const name = label && label.querySelector(".name");
    const code = radio.name === "type" ? "" : (radio.dataset.code || "");
    return [code, name ? name.textContent.trim() : ""].filter(Boolean).join(" ");
  }

  // The sticky line under the lists: the path chosen so far, beside Save, so neither scrolls out of view.
  function showChosen(f) {
    const line = f.querySelector("[data-chosen]");
    if (!line) return;
    const path = ["type", "theme", "sub_theme"].map((n) => f.querySelector(`input[name=${n}]:checked`))
      .filter(Boolean).map(nameOf);
    const waiting = pendingIn(f);
    f.querySelectorAll("fieldset[data-pending]").forEach((set) => { delete set.dataset.pending; });
    if (waiting) {
      waiting.set.dataset.pending = waiting.digits;
      path.push(`${waiting.digits}${"_".repeat(keyWidth(waiting.set) - waiting.digits.length)} ${_("(type the next digit)")}`);
    }
    line.textContent = path.length ? path.join(" › ") : _("Nothing chosen yet");
  }

  function pick(radio) {
    radio.checked = true;
    radio.dispatchEvent(new Event("change", { bubbles: true }));
  }

  // Keys come from codes (C.11 is 11, C.9.ii is 2), so they stay put when the codebook grows or shrinks. In a
  // list of ten or more every key has the same number of digits (01 … 11), and a choice is made when its last
  // digit is typed: no timer, so no typing speed changes what a sequence of keys means. A first digit waits,
  // shown beside the chosen path, for the next one; Backspace or Esc drops it, and Enter does not save past it.
  let pending = null;  // { set, digits }

  function keyed(set, key) { return set.querySelector(`input[type=radio][data-key="${key}"]`); }

  function keyWidth(set) {
    const first = set.querySelector("input[type=radio][data-key]");
    return first ? first.dataset.key.length : 1;
  }

  function pendingIn(f) {
    if (pending && (!pending.set.isConnected || pending.set.hidden || !f.contains(pending.set))) pending = null;
    return pending;
  }

  function dropPending(f) {
    const had = Boolean(pendingIn(f));
    pending = null;
    showChosen(f);
    return had;
  }

  function choose(f, digit) {
    let set;
    let digits;
    if (pendingIn(f)) {
      set = pending.set;
      digits = pending.digits + digit;
    } else {
      const sets = visibleSets(f);
      set = f.dataset.given ? null : sets.find((s) => !s.querySelector("input:checked"));
      if (!set && sets.length) {
        // The form shows a label given before, or every level is chosen: a digit starts the path again at the
        // type, so "3 0 2 1" on a labeled report means what it means on a new one. Backspace (or a click)
        // changes the label given before a level at a time instead.
        delete f.dataset.given;
        sets.forEach((s) => s.querySelectorAll("input:checked").forEach((input) => { input.checked = false; }));
        sync(f);
        set = visibleSets(f)[0];
      }
      if (!set) return false;
      digits = String(digit);
    }
    pending = digits.length < keyWidth(set) ? { set, digits } : null;
    if (!pending) {
      const radio = keyed(set, digits);
      if (radio) pick(radio);
      else say(fill(_("No choice numbered %(digits)s in “%(list)s”."),
        { digits, list: set.querySelector("legend").textContent.trim() }), true);
    }
    showChosen(f);
    return true;
  }

  // ---- find a category by code or name, as command palettes do: "/" opens it, Enter picks the whole path ----
  function choicePaths(f) {
    return Array.from(f.querySelectorAll("#choices input[type=radio]")).map((radio) => {
      const chain = [radio];
      let set = radio.closest("fieldset");
      while (set && set.dataset.parent) {
        const above = set.dataset.level === "theme" ? "type" : "theme";
        const parent = f.querySelector(`input[name=${above}][value="${CSS.escape(set.dataset.parent)}"]`);
        if (!parent) break;
        chain.unshift(parent);
        set = parent.closest("fieldset");
      }
      const text = chain.map(nameOf).join(" › ");
      // A codebook with a second language is found by either name; the list shows the reader's.
      const others = chain.map((r) => r.dataset.other || "").join(" ");
      return { chain, code: (radio.dataset.code || "").toLowerCase(), text, seek: `${text} ${others}`.toLowerCase() };
    });
  }

  function matches(f, query) {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    if (!words.length) return [];
    const rank = (p) => (p.code === words[0] ? 0 : p.code.startsWith(words[0]) ? 1 : 2);
    return choicePaths(f).filter((p) => words.every((w) => p.seek.includes(w) || p.code.startsWith(w)))
      .sort((a, b) => rank(a) - rank(b)).slice(0, 12);
  }

  function palette() { return document.getElementById("palette"); }

  function openPalette(f) {
    const box = palette();
    if (!box) return;
    box.hidden = false;
    const input = box.querySelector("input");
    input.value = "";
    listMatches(f, "");
    input.focus();
  }

  function closePalette() {
    const box = palette();
    if (box) box.hidden = true;
  }

  let found = [];
  let active = 0;

  function listMatches(f, query) {
    const list = document.getElementById("palette-list");
    found = matches(f, query);
    active = 0;
    list.textContent = "";
    found.forEach((p, i) => {
      const item = document.createElement("li");
      item.id = `palette-${i}`;
      item.setAttribute("role", "option");
      item.textContent = p.text;
      item.dataset.index = String(i);
      list.appendChild(item);
    });
    markActive();
  }

  function markActive() {
    const input = palette().querySelector("input");
    document.querySelectorAll("#palette-list [role=option]").forEach((item, i) => {
      item.setAttribute("aria-selected", String(i === active));
      if (i === active) input.setAttribute("aria-activedescendant", item.id);
    });
  }

  function pickPath(f, path) {
    path.chain.forEach(pick);
    closePalette();
    if (document.activeElement) document.activeElement.blur();
  }

  document.addEventListener("focusout", (event) => {
    const box = palette();
    if (box && event.target.id === "palette-input" && !box.contains(event.relatedTarget)) closePalette();
  });

  document.addEventListener("input", (event) => {
    if (event.target.id === "palette-input") listMatches(form(), event.target.value);
  });
  document.addEventListener("mousedown", (event) => {
    const item = event.target.closest("#palette-list [role=option]");
    if (!item) return;
    event.preventDefault();
    pickPath(form(), found[Number(item.dataset.index)]);
  });
  document.addEventListener("keydown", (event) => {
    if (event.target.id !== "palette-input") return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (found.length) active = (active + (event.key === "ArrowDown" ? 1 : found.length - 1)) % found.length;
      markActive();
    } else if (event.key === "Enter") {
      event.preventDefault();  // not the label form's submit: Enter here picks
      event.stopImmediatePropagation();
      if (found[active]) pickPath(form(), found[active]);
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopImmediatePropagation();
      closePalette();
      event.target.blur();
    }
  }, true);

  function undo(f) {
    delete f.dataset.given;
    const checked = visibleSets(f).map((s) => s.querySelector("input:checked")).filter(Boolean);
    const last = checked[checked.length - 1];
    if (!last) return;
    last.checked = false;
    last.dispatchEvent(new Event("change", { bubbles: true }));
  }

  // ---- drafts ----
  function draftKey() { const w = workspace(); return w && w.dataset.draftKey; }

  // A draft is written under the key of the report its own form shows, and only while that form is on the page
  // and not being saved: a note's late change event, fired as the next report replaces it, must not become the
  // next report's draft.
  function saveDraft(f) {
    if (!f.isConnected || saving) return;
    const holder = f.closest("[data-draft-key]");
    const key = holder && holder.dataset.draftKey;
    if (!key) return;
    const value = (name) => { const el = f.querySelector(`input[name=${name}]:checked`); return el ? el.value : ""; };
    // `base` is the stored label the screen was drawn from (the version the form will say it was shown).
    const draft = { type: value("type"), theme: value("theme"), sub_theme: value("sub_theme"),
      note: (f.querySelector("textarea[name=note]") || {}).value || "", base: shownVersion(f) };
    try { localStorage.setItem(key, JSON.stringify(draft)); } catch (e) { /* storage full or disabled */ }
  }

  function restoreDraft(f) {
    const w = workspace();
    const key = draftKey();
    if (!key || w.dataset.hasError) return;
    let draft = null;
    try { draft = JSON.parse(localStorage.getItem(key) || "null"); } catch (e) { draft = null; }
    if (!draft) return;
    // A label saved since the draft began (in another tab, say) wins over the draft. Versions are compared, not
    // clocks: a draft begun in the same second as a save, or on a machine whose clock is off, is judged alike.
    if (draft.base !== shownVersion(f)) { localStorage.removeItem(key); return; }
    // The draft is the whole screen as it was: a level it leaves empty is emptied here too, or the stored label's
    // choice there would show beside the draft's note, a mix that was never on screen (and Enter would save it).
    for (const name of ["type", "theme", "sub_theme"]) {
      const input = draft[name] && f.querySelector(`input[name=${name}][value="${CSS.escape(draft[name])}"]`);
      if (input) input.checked = true;
      else for (const chosen of f.querySelectorAll(`input[name=${name}]:checked`)) chosen.checked = false;
      sync(f);
    }
    f.querySelector("textarea[name=note]").value = draft.note || "";
    const notice = document.getElementById("draft-notice");
    if (notice) notice.hidden = false;
  }

  function shownVersion(f) { const v = f.querySelector("input[name=version]"); return v ? v.value : ""; }

  function clearDraft(key) { if (key) try { localStorage.removeItem(key); } catch (e) { /* ignore */ } }

  function setUp() {
    const f = form();
    if (!f || f.dataset.wired) return;
    f.dataset.wired = "1";
    sync(f);
    // A label given before (the server's choices, not a draft being resumed): the first digit starts a new path.
    if (f.querySelector("input[type=radio]:checked")) f.dataset.given = "1";
    restoreDraft(f);
    const notice = document.getElementById("draft-notice");
    if (notice && !notice.hidden) delete f.dataset.given;
    f.addEventListener("change", (event) => {
      if (event.isTrusted) {  // a click decides; a digit waiting for its pair is dropped
        pending = null;
        delete f.dataset.given;
      }
      sync(f);
      saveDraft(f);
      // The list a choice opens may sit below the fold of the form's own scroll area: bring it into view.
      const opened = event.target.checked && f.querySelector(`fieldset[data-parent="${CSS.escape(event.target.value)}"]`);
      if (opened) opened.scrollIntoView({ block: "nearest" });
    });
    f.addEventListener("input", () => saveDraft(f));
  }

  document.addEventListener("DOMContentLoaded", () => {
    setUp();
    // A report opened as a whole page (p, a link, a reload) reads out its title first, as after a save.
    const title = form() && document.querySelector("#workspace h1");
    if (title && (!document.activeElement || document.activeElement === document.body)) {
      title.focus({ preventScroll: true });
    }
  });
  // "ready" once htmx has processed the form too: before that, Enter would post the page the old way.
  document.addEventListener("htmx:load", () => {
    setUp();
    const f = form();
    if (f) f.dataset.ready = "1";
  });

  // A save under way: from the label's or the skip's request until the workspace is replaced (by the next report,
  // or by the form with its message) or the request fails. Meanwhile the form is inert and keys do nothing, so a
  // second Enter cannot send it again and nothing can change on screen that would not be what is stored.
  let saving = null;
  const SAVING_FORMS = ["label-form", "skip-form"];

  function startSaving(f) {
    saving = f;
    const card = f.closest(".label-form") || f;
    card.inert = true;
  }

  function endSaving() {
    if (!saving) return;
    const card = saving.closest(".label-form") || saving;
    card.inert = false;
    saving = null;
  }

  // A whole-page visit under way (p, or any link to another of Concord's pages): the report on screen is being
  // left. A key typed before the next page arrives would still reach this one, and change it unseen (its draft
  // would bring the change back when the report is opened again) or save it: such keys do nothing, as while
  // saving. Links elsewhere (a report's own links, which may be downloads that leave the page where it is) and
  // links to a new tab do not count; a page brought back from the browser's history cache is live again.
  let leaving = false;

  function labelCard() {
    const f = form();
    return f && (f.closest(".label-form") || f);
  }

  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest("a[href]");
    if (!link || !form() || event.defaultPrevented || event.button !== 0) return;
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;  // a new tab or window
    if ((link.target && link.target !== "_self") || link.hasAttribute("download")) return;
    if (link.origin !== location.origin || (link.hash && link.pathname === location.pathname)) return;
    leaving = true;
    labelCard().inert = true;
  });
  window.addEventListener("pageshow", (event) => {
    if (!event.persisted || !leaving) return;
    leaving = false;
    if (labelCard()) labelCard().inert = false;
  });

  // Saved: the draft goes; the next report's title takes the focus, so a screen reader reads it out, and
  // "Saved." stays on the next report until the next action there.
  let savingKey = null;
  let saved = false;
  document.addEventListener("htmx:beforeRequest", (event) => {
    if (!SAVING_FORMS.includes(event.target.id)) return;
    if (saving) { event.preventDefault(); return; }
    if (event.target.id === "label-form") savingKey = draftKey();
    startSaving(event.target);
  });
  // The next report is fetched here, not by htmx's own handling of HX-Location, whose request nobody waits on: a
  // connection lost between the save and the next report then surfaced only as an uncaught error, and the page
  // said "Not saved" of a label that was. Now it says what happened, and Enter fetches the next report again.
  let next = null;  // HX-Location's { path, target, swap }, once the label is saved or the report skipped
  let stranded = false;  // saved, but the next report did not arrive

  function savedAnswer(event) {
    const xhr = event.detail.xhr;
    return SAVING_FORMS.includes(event.target.id) && xhr && xhr.status < 400 && xhr.getResponseHeader("HX-Location");
  }

  document.addEventListener("htmx:beforeOnLoad", (event) => {
    const location = savedAnswer(event);
    if (!location) return;
    event.preventDefault();
    next = location.startsWith("{") ? JSON.parse(location) : { path: location };
  });

  function fetchNext() {
    stranded = false;
    // As htmx would have sent it: HX-Location's context, the address pushed unless the answer says otherwise.
    const { path, ...context } = next;
    htmx.ajax("GET", path, { push: "true", ...context }).catch(() => { /* said by the error handlers below */ });
  }

  document.addEventListener("htmx:afterRequest", (event) => {
    // A saved label answers with HX-Location (htmx leaves detail.successful unset for such answers).
    const moving = savedAnswer(event);
    if (event.target.id === "label-form" && moving) {
      clearDraft(savingKey);
      saved = true;
      say(_("Saved."));
    } else if (event.target.id === "skip-form" && moving) {
      saved = _("Skipped.");
    }
    if (moving) fetchNext();
    if (saving && event.target === saving && !moving && !event.detail.successful) endSaving();
  });
  document.addEventListener("htmx:afterSwap", (event) => {
    if (event.target.id !== "workspace" && !(event.detail.target && event.detail.target.id === "workspace")) return;
    next = null;
    endSaving();
    if (saved && !document.querySelector("#status .error")) say(saved === true ? _("Saved.") : saved);
    saved = false;
    const title = document.querySelector("#workspace h1");
    if (title) title.focus({ preventScroll: true });
  });

  function clearSaved() {
    const status = document.getElementById("status");
    if (status && !status.querySelector(".error") && status.textContent === _("Saved.")) status.textContent = "";
  }

  // Enter pressed just as the next report arrives, before htmx has taken over its form, would post it the old
  // way (a whole page, at the form's address): such a submit waits until htmx is ready for the form.
  document.addEventListener("submit", (event) => {
    const f = event.target;
    if (f.id !== "label-form" || f.dataset.ready) return;
    event.preventDefault();
    document.addEventListener("htmx:load", () => { if (f.isConnected && f.dataset.ready) f.requestSubmit(); },
      { once: true });
  }, true);
  // A lost connection or a server error leaves the form as it was, the draft in place, and says so.
  // The label was saved (or the report skipped) but the next report did not arrive: the report stays on screen,
  // inert, since what it shows is stored; Enter fetches the next one again.
  function nextFailed(why) {
    if (!next || !saving) return false;
    stranded = true;
    say(fill(saved === true ? _("Saved, but the next report did not arrive: %(why)s. Press Enter to fetch it.")
      : _("Skipped, but the next report did not arrive: %(why)s. Press Enter to fetch it."), { why }), true);
    return true;
  }

  document.addEventListener("htmx:sendError", () => {
    if (nextFailed(_("the connection was lost"))) return;
    endSaving();
    say(_("Not saved: the connection was lost. Your choices are kept here; press Enter to try again."), true);
  });
  document.addEventListener("htmx:timeout", () => {
    if (nextFailed(_("the server did not answer in time"))) return;
    endSaving();
    say(_("Not saved: the server did not answer in time. Your choices are kept here; press Enter to try again."), true);
  });
  document.addEventListener("htmx:responseError", (event) => {
    if (nextFailed(fill(_("the server answered %(status)s"), { status: event.detail.xhr.status }))) return;
    endSaving();
    say(fill(_("Not saved: the server answered %(status)s. Your choices are kept here; try again."),
      { status: event.detail.xhr.status }), true);
  });

  // Enter never saves past a digit still waiting for its pair: what is on screen is not a choice yet.
  function refusePending(f) {
    const waiting = pendingIn(f);
    if (!waiting) return false;
    say(fill(_("Type the next digit of %(digits)s_, or Backspace to drop it; nothing was saved."),
      { digits: waiting.digits }), true);
    return true;
  }

  function click(selector) {
    const el = document.querySelector(selector);
    if (el) el.click();
    return Boolean(el);
  }

  function toggle(id) {
    const dialog = document.getElementById(id);
    if (!dialog) return false;
    if (dialog.open) dialog.close(); else if (!document.querySelector("dialog[open]")) dialog.showModal();
    return true;
  }

  document.addEventListener("keydown", function (event) {
    const f = form();
    if ((event.key === "?" || event.key === "i") && !isTyping(event.target) && !event.ctrlKey && !event.metaKey) {
      if (toggle(event.key === "?" ? "shortcuts" : "instructions")) {
        event.preventDefault();
        return;
      }
      if (event.key === "?") return;
    }
    if (document.querySelector("dialog[open]")) return;
    if (stranded && event.key === "Enter") {
      event.preventDefault();
      fetchNext();
      return;
    }
    if (saving || leaving) {
      // The report on screen is being saved, or left: no key may change it or send it again.
      if (!["Tab", "Shift", "Control", "Alt", "Meta"].includes(event.key)) event.preventDefault();
      return;
    }
    if (!f) {
      keyButtons(event);
      return;
    }
    if (isTyping(event.target)) {
      if (event.key === "Escape") event.target.blur();
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && f.contains(event.target)) {
        event.preventDefault();
        if (!refusePending(f)) click("#label-form [data-action=submit]");
      } else if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && event.target.matches("[data-comment-box]")) {
        event.preventDefault();
        // Focus goes back to the labeling form before the post (htmx would give it back to the new box, which
        // has the old one's id): the next Enter saves the label, as it does after any other shortcut.
        const box = event.target;
        box.blur();
        box.form.requestSubmit();
      }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key;
    if (key !== "Enter" && key !== "?") clearSaved();
    if (/^[0-9]$/.test(key)) {
      if (choose(f, Number(key))) event.preventDefault();
    } else if (key === "Escape") {
      dropPending(f);
    } else if (key === "/") {
      event.preventDefault();
      openPalette(f);
    } else if (key === "Enter") {
      if (event.target.tagName === "BUTTON" || event.target.tagName === "A") return;  // their own Enter
      event.preventDefault();
      if (!refusePending(f)) click("#label-form [data-action=submit]");
    } else if (key === "s") {
      event.preventDefault();
      const reason = document.getElementById("skip-reason");
      if (reason) reason.focus();
    } else if (key === "p") {
      event.preventDefault();
      click("#label-form [data-action=previous]");
    } else if (key === "Backspace") {
      event.preventDefault();
      if (!dropPending(f)) undo(f);
    } else if (key === "o") {
      const details = document.getElementById("full-report");
      if (details) details.open = !details.open;
    } else if (key === "u") {
      click("#original-link");
    } else if (key === "n") {
      event.preventDefault();
      const note = f.querySelector("[data-note]");
      if (note) note.focus();
    } else if (key === "c") {
      const box = document.querySelector("[data-comment-box]");
      if (box) { event.preventDefault(); box.focus(); }
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
    if (event.key === "p" && click("[data-action=previous]")) {
      // The queue's end: back to its last report, as p goes back from any report.
      event.preventDefault();
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
    if (event.target.closest("[data-action=help]")) toggle("shortcuts");
    if (event.target.closest("[data-action=instructions]")) toggle("instructions");
  });

  // New instructions open by themselves; "I have read them" records it and closes them.
  document.addEventListener("DOMContentLoaded", () => {
    const dialog = document.querySelector("dialog[data-open-on-load]");
    if (dialog) dialog.showModal();
  });
  document.addEventListener("htmx:afterRequest", (event) => {
    const closing = event.target.closest && event.target.closest("form[data-closes-dialog]");
    if (closing && event.detail.successful) closing.closest("dialog").close();
  });

  // A button marked data-copy copies the text of the element it names (an invitation link, say).
  document.addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-copy]");
    if (!button) return;
    const source = document.getElementById(button.dataset.copy);
    if (!source) return;
    const text = source.textContent.trim();
    try {
      await navigator.clipboard.writeText(text);
    } catch (e) {
      // Outside a secure context (plain http on a network address) the clipboard API is missing: select it.
      const range = document.createRange();
      range.selectNodeContents(source);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      document.execCommand("copy");
    }
    const said = button.parentElement.querySelector("[data-copied]");
    if (said) said.hidden = false;
  });

  // A long multiple choice (sources, keywords, annotators) marked data-picker: a search box above it keeps the
  // options that match, a click chooses or unchooses an option without Ctrl, and a line says what is chosen.
  function picker(select) {
    if (select.dataset.pickerReady) return;
    select.dataset.pickerReady = "1";
    const search = document.createElement("input");
    search.type = "search";
    search.placeholder = _("Type to narrow the list");
    search.setAttribute("aria-label", fill(_("Search %(list)s"),
      { list: select.labels[0] ? select.labels[0].textContent.trim() : _("the list") }));
    search.setAttribute("aria-controls", select.id);
    const chosen = document.createElement("p");
    chosen.className = "muted picker-chosen";
    chosen.setAttribute("aria-live", "polite");
    select.before(search);
    select.after(chosen);
    const said = () => {
      const names = Array.from(select.selectedOptions).map((o) => o.textContent.trim());
      chosen.textContent = names.length ? fill(_("%(n)s chosen: %(names)s"), { n: names.length, names: names.join(", ") })
        : _("None chosen.");
    };
    search.addEventListener("input", () => {
      const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
      select.querySelectorAll("option").forEach((option) => {
        const group = option.parentElement.tagName === "OPTGROUP" ? option.parentElement.label : "";
        const text = `${group} ${option.textContent}`.toLowerCase();
        option.hidden = !words.every((w) => text.includes(w));
      });
      select.querySelectorAll("optgroup").forEach((group) => {
        group.hidden = !group.querySelector("option:not([hidden])");
      });
    });
    search.addEventListener("keydown", (event) => {
      if (event.key === "Enter") event.preventDefault();  // not the whole form's submit
    });
    select.addEventListener("mousedown", (event) => {
      const option = event.target.closest("option");
      if (!option) return;
      event.preventDefault();
      option.selected = !option.selected;
      select.focus();
      select.dispatchEvent(new Event("change", { bubbles: true }));
    });
    select.addEventListener("change", said);
    said();
  }
  document.addEventListener("DOMContentLoaded", () => document.querySelectorAll("select[multiple][data-picker]")
    .forEach(picker));

  // A select marked data-submit-on-change sends its form when changed (no inline handlers: the CSP forbids them).
  document.addEventListener("change", function (event) {
    const select = event.target.closest("select[data-submit-on-change]");
    if (select && select.form) select.form.submit();
  });
})();
