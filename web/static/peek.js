// Hold to peek: what only this seat may know (a peek, a look, a hand) is drawn only while the
// player holds the control down (finger, mouse, or Space/Enter), and is gone again at release,
// when the finger leaves it, and when the page goes to the background: a glance at a phone lying
// on the table shows nothing. The content is not in the page at all while hidden (not merely
// invisible), so neither a neighbour nor a screen reader meets it by accident.
"use strict";
(function (C) {
  const { el, ui } = C;
  const draws = new WeakMap();   // each live box: its drawing function
  let held = null;                // the id of the peek held now
  let holder = null;              // the pointer holding it, or "key"
  let downAt = null;              // where that pointer went down

  function redrawAll() {
    for (const box of document.querySelectorAll(".peek-box")) {
      const draw = draws.get(box);
      if (draw) draw();
    }
  }
  const SLIDE_PX = 12;            // a finger that moved less than this is still where it was
  function hold(id, by) { held = id; holder = by; redrawAll(); }
  function release() { if (held !== null) { held = null; holder = null; redrawAll(); } }

  // A box: the control and, while held, `content()` (called at each drawing: a redraw of the page
  // while it is held shows the newest state). `id` names the secret, so that a box drawn anew while
  // the finger is down stays open. `label` is the control's text.
  function peek({ id, content, label }) {
    const region = `peek-${id}`;
    const button = el("button", { type: "button", class: "peek", "aria-controls": region, "aria-expanded": "false",
      "data-peek": id }, label || ui.hold_to_peek);
    // Read out as it appears, for a player with a screen reader (and headphones) holding it.
    const shown = el("div", { id: region, class: "private-content", "aria-live": "polite", hidden: true });
    const box = el("div", { class: "peek-box", "data-peek": id }, button, shown);
    draws.set(box, () => {
      const open = held === id;
      button.classList.toggle("active", open);
      button.setAttribute("aria-expanded", String(open));
      shown.replaceChildren(...(open ? [content()].flat().filter(Boolean) : []));
      shown.hidden = !open;
    });
    button.addEventListener("pointerdown", (e) => {
      if (e.button > 0) return;   // a right click is not a hold
      e.preventDefault();         // no text selection, no long-press menu
      // A finger is captured by what it touched: let go, so that sliding off the control hides it.
      if (button.hasPointerCapture(e.pointerId)) button.releasePointerCapture(e.pointerId);
      downAt = [e.clientX, e.clientY];
      hold(id, e.pointerId);
    });
    // Sliding off hides it; the page moving under a still finger (another player's move redraws
    // the screen) does not: the browser then reports a leave at the very point it went down.
    button.addEventListener("pointerleave", (e) => {
      if (holder !== e.pointerId) return;
      if (downAt && Math.hypot(e.clientX - downAt[0], e.clientY - downAt[1]) < SLIDE_PX) return;
      release();
    });
    button.addEventListener("keydown", (e) => {
      if ((e.key === " " || e.key === "Enter") && !e.repeat) { e.preventDefault(); hold(id, "key"); }
    });
    button.addEventListener("click", (e) => e.preventDefault());
    button.addEventListener("contextmenu", (e) => e.preventDefault());
    draws.get(box)();
    return box;
  }

  // The release, wherever the finger is by then (the box may have been drawn anew meanwhile).
  for (const type of ["pointerup", "pointercancel"]) {
    document.addEventListener(type, (e) => { if (holder === e.pointerId) release(); }, true);
  }
  // A key held: released by its keyup, or by any other key (Tab away), wherever the focus went.
  const holdKey = (e) => e.key === " " || e.key === "Enter";
  document.addEventListener("keyup", (e) => { if (holder === "key" && holdKey(e)) release(); }, true);
  document.addEventListener("keydown", (e) => { if (holder === "key" && !holdKey(e)) release(); }, true);
  document.addEventListener("visibilitychange", () => { if (document.hidden) release(); });
  window.addEventListener("pagehide", release);
  window.addEventListener("blur", release);

  // Calls `hide` when the page goes to the background (a phone put away or switched off).
  function onBackground(hide) {
    document.addEventListener("visibilitychange", () => { if (document.hidden) hide(); });
    window.addEventListener("pagehide", hide);
  }

  C.peek = peek;
  C.redrawPeeks = redrawAll;
  C.onBackground = onBackground;
})(window.Companion);
