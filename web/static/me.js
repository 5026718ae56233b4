// A player's private screen: this seat's view only, secrets behind a hold-to-peek control.
"use strict";
(function (C) {
  const { $, el, ui } = C;
  let current = C.boot.view;

  // The game's secrets for this seat (a hand), behind hold-to-peek (peek.js): one control for the
  // page's life, so a finger or a key holding it is not lost when a new view arrives.
  let secret = () => null;
  $("private-box").append(C.peek({ id: "private", content: () => secret() || el("p", { class: "muted" }, ui.nothing_private) }));
  function renderPrivate() {
    const game = current.game;
    const shown = current;
    const screens = game && C.games[game.game];
    // A game with nothing private (the quiz) has no peek control at all.
    document.querySelector(".private").hidden = !!(game && screens && !screens.private);
    secret = () => (screens && screens.private ? screens.private(game, shown) : null);
    C.redrawPeeks();
  }

  function render(view) {
    current = view;
    C.renderTitle(view);
    const you = view.you;
    $("who").replaceChildren(el("strong", {}, you.name || `${ui.seat} ${you.seat}`),
      el("span", { class: "muted" }, ` · ${ui.seat} ${you.seat}`));
    if (document.activeElement !== $("rename-input")) $("rename-input").value = you.name || "";
    const game = view.game;
    const container = $("game");
    if (!game) container.replaceChildren(el("p", { class: "notice" }, ui.no_game));
    else {
      const screens = C.games[game.game];
      if (screens) screens.seat(container, game, view);
      if (game.ended) container.prepend(el("p", { class: "notice" }, ui.game_over));
      if (game.undo && !(screens && screens.undo === false)) {
        container.append(el("div", { class: "undo-line" },
          el("button", { type: "button", disabled: !game.undo.allowed, "aria-describedby": "undo-why",
            onclick: () => C.send("me", "undo") }, ui.undo_mine),
          el("span", { id: "undo-why", class: "hint" }, game.undo.allowed ? "" : C.errorText(game.undo.reason))));
      }
    }
    $("button-panel").replaceChildren(...[C.buttons.phonePanel(view)].filter(Boolean));
    renderPrivate();
    contribute(view);
  }

  // This phone's own randomness for the game: commit to 32 bytes first, reveal them afterwards.
  const contributed = new Set();
  async function contribute(view) {
    const game = view.game;
    if (!game || game.ended || !game.entropy || !window.crypto || !crypto.getRandomValues) return;
    const seat = view.you.seat;
    const key = `entropy:${game.id}:${seat}`;
    const stage = key;
    if (contributed.has(stage)) return;
    contributed.add(stage);
    let stored = null;
    try { stored = JSON.parse(localStorage.getItem(key) || "null"); } catch (err) { stored = null; }
    if (!game.entropy.committed.includes(seat)) {
      const bytes = new Uint8Array(32);
      crypto.getRandomValues(bytes);
      const value = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
      const commitment = window.CompanionSha256(`${game.id}:${seat}:${value}`);
      localStorage.setItem(key, JSON.stringify({ value }));
      const sent = await C.post("/api/commands", { as: "me", name: "commit_entropy", args: { commitment } });
      if (!sent.ok) { contributed.delete(stage); return; }
      stored = { value };
    }
    if (stored && !game.entropy.revealed.includes(seat)) {
      await C.post("/api/commands", { as: "me", name: "reveal_entropy", args: { value: stored.value } });
    }
  }

  $("rename-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    await C.send("me", "name_seat", { seat: current.you.seat, name: $("rename-input").value });
  });
  $("leave").addEventListener("click", async () => {
    if (!window.confirm(ui.leave_confirm)) return;
    const body = await C.post("/api/leave", {});
    if (body.ok) window.location.replace("/join");
    else C.showError(body.message);
  });

  function revoked() {
    document.querySelector("main").replaceChildren(el("section", { class: "card" },
      el("h2", {}, ui.seat_moved_title), el("p", {}, ui.seat_moved),
      el("a", { class: "button", href: "/join" }, ui.go_join)));
  }

  // Each cell of a table in the game names its column (data-label): on a screen too narrow for the
  // table, the rows stack and every value says whose it is (companion.css). Games redraw parts of
  // themselves, so the labels follow every change.
  function labelCells(root) {
    for (const table of root.querySelectorAll("table")) {
      const head = table.tHead && table.tHead.rows[table.tHead.rows.length - 1];
      if (!head) continue;
      const names = [...head.cells].map((c) => c.textContent.trim());
      for (const body of [...table.tBodies, table.tFoot].filter(Boolean)) {
        for (const row of body.rows) {
          let column = 0;
          for (const cell of row.cells) {
            if (cell.tagName === "TD" && cell.colSpan === 1 && names[column]) cell.dataset.label = names[column];
            column += cell.colSpan;
          }
        }
      }
    }
  }
  new MutationObserver(() => labelCells($("game"))).observe($("game"), { childList: true, subtree: true });

  render(current);
  C.follow("me", render, revoked);
})(window.Companion);
