// Joining: pick a free seat, give a name, get the seat's cookie, land on the private screen.
"use strict";
(function (C) {
  const { $, el, ui } = C;
  const form = $("join-form");
  if (!form) return;
  let chosen = C.boot.offered || null;

  function render(view) {
    C.renderTitle(view);
    $("locked").hidden = !view.table.joining_locked;
    $("join-button").disabled = view.table.joining_locked;
    const free = view.table.seats.filter((s) => !s.name);
    if (chosen && !free.some((s) => s.number === chosen)) chosen = null;
    if (!chosen && free.length) chosen = free[0].number;
    $("seat-choices").replaceChildren(...(free.length ? free.map((s) => el("label", { class: "seat-choice" },
      el("input", { type: "radio", name: "seat", value: String(s.number), checked: s.number === chosen,
        onchange: () => { chosen = s.number; } }),
      el("span", {}, `${ui.seat} ${s.number}`))) : [el("p", { class: "muted" }, ui.no_free_seat)]));
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = $("name-input").value;
    if (!chosen) { C.showError(ui.no_free_seat); return; }
    const body = await C.post("/api/join", { code: C.boot.code, seat: chosen, name });
    if (body.ok) { window.location.replace(body.next); return; }
    C.showError(body.message);
    if (body.error === "name_taken" || body.error === "bad_name") $("name-input").focus();
  });
  render(C.boot.view);
  C.follow("table", render);
})(window.Companion);
