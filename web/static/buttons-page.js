// Simulated slap buttons: each acts like a wired one (stamped when the press reaches the server).
"use strict";
(function (C) {
  const { $, el, ui } = C;
  let drawn = "";


  function render(view) {
    C.renderTitle(view);
    const count = view.buttons ? view.buttons.simulated : 0;
    const key = JSON.stringify([count, view.table.seats]);
    if (key === drawn) return;  // redraw only when the buttons or names change, never under a finger
    drawn = key;
    if (!count) {
      $("virtual-help").textContent = ui.virtual_buttons_off;
      $("virtual-buttons").replaceChildren();
      return;
    }
    $("virtual-help").textContent = ui.virtual_buttons_help;
    $("virtual-buttons").replaceChildren(...Array.from({ length: count }, (_, i) => {
      const n = i + 1;
      const seat = view.table.seats.find((s) => s.number === n);
      return C.buttons.onPress(el("button", { type: "button", class: "virtual", "data-button": String(n) },
        el("span", { class: "num" }, String(n)), el("span", { class: "lamp-name" }, seat && seat.name ? seat.name : `${ui.seat} ${n}`)),
      () => C.buttons.pressSimulated(n));
    }));
  }

  document.addEventListener("keydown", (event) => {
    const button = event.target === document.body ? C.buttons.simulatedKey(event) : null;
    if (button !== null) C.buttons.pressSimulated(button);
  });
  render(C.boot.view);
  C.follow("table", render);
})(window.Companion);
