// The table display: public view only, made to be read from across the room.
"use strict";
(function (C) {
  const { $, el, ui } = C;

  function render(view) {
    C.renderTitle(view);
    $("join-code").textContent = view.table.join_code;
    $("locked").hidden = !view.table.joining_locked;
    $("join-box").classList.toggle("dim", view.table.joining_locked);
    $("seats").replaceChildren(...view.table.seats.map((s) => el("li", { class: s.name ? "taken" : "free" },
      el("span", { class: "num" }, String(s.number)),
      s.name ? el("span", { class: "name" }, s.name) : el("span", { class: "free" }, ui.free_seat),
      s.name ? el("span", { class: "presence " + (s.connected ? "on" : "off") },
        s.connected ? `● ${ui.online}` : `○ ${ui.away}`) : null)));
    $("fairness").replaceChildren(...[C.fairness(view)].filter(Boolean));
    const game = view.game;
    const container = $("game");
    if (!game) { container.replaceChildren(el("p", { class: "notice" }, ui.no_game)); return; }
    const screens = C.games[game.game];
    if (screens) screens.table(container, game, view);
    else container.replaceChildren(el("p", { class: "notice" }, C.text(game.title)));
    if (game.ended) container.prepend(el("p", { class: "notice" }, ui.game_over));
  }

  document.addEventListener("keydown", (event) => {
    if ((event.key === " " || event.key === "Enter") && event.target === document.body) {
      const roll = $("roll-table");
      if (roll && !roll.disabled) { event.preventDefault(); roll.click(); }
    }
  });
  render(C.boot.view);
  C.follow("table", render);
})(window.Companion);
