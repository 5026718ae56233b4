// Simulated slap buttons: each acts like a wired one (stamped when the press reaches the server).
"use strict";
(function (C) {
  const { $, el, ui } = C;
  let drawn = "";

  const press = (button) => C.post("/api/buttons/press", { button }).then((body) => C.showError(body.ok ? "" : body.message));

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
      const button = el("button", { type: "button", class: "virtual", "data-button": String(n) },
        el("span", { class: "num" }, String(n)), el("span", { class: "lamp-name" }, seat && seat.name ? seat.name : `${ui.seat} ${n}`));
      button.addEventListener("pointerdown", (e) => { e.preventDefault(); press(n); });
      button.addEventListener("keydown", (e) => { if ((e.key === " " || e.key === "Enter") && !e.repeat) { e.preventDefault(); press(n); } });
      return button;
    }));
  }

  document.addEventListener("keydown", (event) => {
    if (event.target !== document.body || event.repeat || !/^[0-9]$/.test(event.key)) return;
    press(event.key === "0" ? 10 : Number(event.key));
  });
  render(C.boot.view);
  C.follow("table", render);
})(window.Companion);
