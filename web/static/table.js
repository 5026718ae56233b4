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
    // A game whose own screen announces its end (a winner) needs no second notice.
    const announced = screens && screens.announcesEnd && screens.announcesEnd(game);
    if (game.ended && !announced) container.prepend(el("p", { class: "notice" }, ui.game_over));
  }

  // The table's keyboard: Space or Enter does the game's main thing (roll, arm a race); with
  // simulated buttons, 1-9 and 0 press buttons 1-10 as if they were wired.
  let current = C.boot.view;
  document.addEventListener("keydown", (event) => {
    if (event.target !== document.body || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === " " || event.key === "Enter") {
      const main = $("roll-table") || $("arm-race-table");
      if (main && !main.disabled) { event.preventDefault(); main.click(); }
      return;
    }
    const button = C.buttons.simulatedKey(event);
    if (button !== null && current.buttons && button <= current.buttons.simulated) {
      event.preventDefault();
      C.buttons.pressSimulated(button);
    }
  });
  render(current);
  C.follow("table", (view) => { current = view; render(view); });
})(window.Companion);
