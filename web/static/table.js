// The table display: public view only, made to be read from across the room. A TV in kiosk mode
// cannot scroll, so the page is laid out for the screen it has (see the TV section of
// companion.css): once a game is on, the join QR code and the seat list step aside to a corner; a
// tap on them, or a phone joining, brings the QR code back large for a while (until a new game starts).
"use strict";
(function (C) {
  const { $, el, ui } = C;
  const LARGE_QR_MS = 30000;
  let largeUntil = 0;
  let largeTimer = null;
  let seatedBefore = null;
  let gameBefore;  // the game shown last (undefined before the first view)

  function seated(view) { return view.table.seats.filter((s) => s.name).length; }

  // The QR code large for a while (a tap, or a phone that just joined), then back in its corner.
  function showLargeQr(on) {
    clearTimeout(largeTimer);
    largeUntil = on ? Date.now() + LARGE_QR_MS : 0;
    if (on) largeTimer = setTimeout(() => showLargeQr(false), LARGE_QR_MS);
    document.body.classList.toggle("qr-large", on);
  }

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
    const running = !!game && !game.ended;
    // The QR code in its corner once a game is on and someone has joined (before, it is the
    // screen's first use).
    document.body.classList.toggle("in-game", !!game && seated(view) > 0);
    document.body.classList.toggle("playing", running);
    document.body.dataset.game = game ? game.game : "";
    const count = seated(view);
    const id = game ? game.id : null;
    // A new game needs the whole screen at once: the large QR code goes back to its corner.
    if (gameBefore !== undefined && id !== gameBefore) showLargeQr(false);
    else if (game && seatedBefore !== null && count > seatedBefore) showLargeQr(true);
    seatedBefore = count;
    gameBefore = id;
    const container = $("game");
    if (!game) { container.replaceChildren(el("p", { class: "notice" }, ui.no_game)); fit(); return; }
    const screens = C.games[game.game];
    if (screens) screens.table(container, game, view);
    else container.replaceChildren(el("p", { class: "notice" }, C.text(game.title)));
    // A game whose own screen announces its end (a winner) needs no second notice.
    const announced = screens && screens.announcesEnd && screens.announcesEnd(game);
    if (game.ended && !announced) container.prepend(el("p", { class: "notice" }, ui.game_over));
    // A finished game (the host may end one mid-turn) says nobody's turn, and nobody is waited for.
    if (game.ended) {
      container.querySelectorAll(".whose-turn").forEach((node) => node.remove());
      container.querySelectorAll(".current, .roller, .slapper").forEach((node) => node.classList.remove("current", "roller", "slapper"));
    }
    fit();
  }

  // A box marked data-fit-steps="N" has shorter forms for a crowded screen, each leaving out more
  // (the game's CSS says what .fit-1 to .fit-N leave out): the first form that fits its box is shown.
  // Lists marked data-fit="trim" (a history, the earlier rolls, a ranking) keep their first
  // entries, as many as their box on this screen holds (the list itself, or the enclosing
  // [data-fit-box] for a table's rows): the oldest or the last give way, never the page. A list
  // with no room for one entry is not shown (its section with it).
  function fit() {
    for (const box of document.querySelectorAll("#game [data-fit-steps]")) {
      const steps = Number(box.dataset.fitSteps);
      for (let step = 1; step <= steps && box.scrollHeight > box.clientHeight + 1; step += 1) box.classList.add(`fit-${step}`);
    }
    for (const list of document.querySelectorAll("#game [data-fit='trim']")) {
      const box = list.closest("[data-fit-box]") || list;
      while (list.children.length && box.scrollHeight > box.clientHeight + 1) list.lastElementChild.remove();
      if (!list.children.length) (list.closest("section") || list).hidden = true;
    }
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
  $("side").addEventListener("click", () => {
    if (document.body.classList.contains("in-game")) showLargeQr(Date.now() >= largeUntil);
  });
  let resized = null;
  window.addEventListener("resize", () => {
    cancelAnimationFrame(resized);
    resized = requestAnimationFrame(() => render(current));
  });
  const show = (view) => { current = view; render(view); };
  render(current);
  C.follow("table", show);
  // A view drawn as if the stream had brought it, fitted to the screen like every other: the way
  // in for a picture made elsewhere (the layout tests draw the busiest moments of the pure rules).
  C.showTable = show;
})(window.Companion);
