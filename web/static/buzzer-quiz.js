// The buzzer quiz's screens: lamps, the winner, the order with gaps, false starts, the board
// (what it shares with the garlic game is in reactions.js).
"use strict";
(function (C) {
  const { el, ui, fill } = C;
  const R = C.reactions;
  const ms = R.ms;
  let heardRound = null;
  let heardArmed = null;
  let heardAny = false;

  // Sound once per change, on the first screen that sees it (not on a page load).
  function cue(quiz) {
    const armed = quiz.armed ? quiz.armed.round : null;
    const last = quiz.results[0];
    const settled = last ? last.round : null;
    // The first view this page gets (both may well be null: a quiz with no round yet, whose first
    // arm must sound like every other one).
    if (!heardAny) { heardAny = true; heardRound = settled; heardArmed = armed; return; }
    if (armed !== null && armed !== heardArmed) R.play(quiz.armed.mode === "hands_off" ? "handsOff" : "arm");
    else if (settled !== null && settled !== heardRound) {
      const outcome = last.decision.outcome;
      R.play({ winner: "win", tie: "tie", faults: "fault", clean: "quiet", no_reaction: "quiet" }[outcome] || "quiet");
    }
    heardRound = settled;
    heardArmed = armed;
  }

  // -- what a round said ------------------------------------------------------------------------
  function headline(result, view) {
    const d = result.decision;
    const names = (list) => list.map((w) => C.byWho(w, view)).join(", ");
    if (result.mode === "hands_off") {
      return d.order.length
        ? el("p", { class: "headline fault" }, fill(ui.hands_off_faults, { names: names(d.order.map((p) => p.who)) }))
        : el("p", { class: "headline" }, ui.hands_off_clean);
    }
    if (d.outcome === "no_reaction") return el("p", { class: "headline" }, ui.no_reaction);
    // The winner's own time (after a draw, not necessarily the first press's).
    const first = d.order.find((p) => p.who === result.winner) || d.order[0];
    const parts = [];
    if (d.outcome === "tie") {
      parts.push(el("p", { class: "headline tie" }, fill(ui.tie_between, { names: names(d.tied_first) })));
      if (result.winner) parts.push(el("p", { class: "winner drawn" }, fill(ui.tie_drawn, { name: C.byWho(result.winner, view) })));
      else parts.push(el("p", { class: "headline" }, ui.tie_rearm));
    } else {
      parts.push(el("p", { class: "winner" }, fill(ui.winner_is, { name: C.byWho(result.winner, view) })));
    }
    if (first) parts.push(el("p", { class: "reaction" }, fill(ui.after_signal, { ms: ms(first.after_arm_us) })));
    return el("div", {}, ...parts);
  }

  // A lamp per seat: lit in press order, the winner in gold, false starts and faults in red.
  function lamps(game, view) {
    const quiz = game.view;
    const last = quiz.armed ? null : quiz.results[0];
    const order = last ? last.decision.order.map((p) => p.who) : [];
    const early = new Set(last ? (last.decision.false_starts || []).map((p) => p.who) : []);
    const seats = view.table.seats.filter((s) => s.name);
    return el("ol", { class: "lamps" + (quiz.armed ? ` armed ${quiz.armed.mode}` : "") }, seats.map((s) => {
      const who = `seat:${s.number}`;
      const place = order.indexOf(who);
      let state = "off";
      if (last && last.mode === "hands_off" && place >= 0) state = "fault";
      else if (last && who === last.winner) state = "win";
      else if (place >= 0) state = "lit";
      if (early.has(who)) state = "early";
      return el("li", { class: `lamp ${state}`, "data-seat": String(s.number) },
        el("span", { class: "bulb", "aria-hidden": "true" }, place >= 0 ? String(place + 1) : ""),
        el("span", { class: "lamp-name" }, s.name));
    }));
  }

  function status(game) {
    const armed = game.view.armed;
    if (!armed) return el("p", { class: "quiz-status idle" }, ui.quiz_idle);
    // The round's window, counted to the server's deadline (a page opened mid-round shows what is left).
    const timer = armed.ends_us ? C.countdown(armed.at_us, armed.ends_us, ui.countdown_left) : null;
    if (armed.mode === "hands_off") {
      return el("div", { class: "quiz-status hands-off", role: "status" }, el("strong", {}, ui.quiz_hands_off),
        el("span", {}, ui.quiz_hands_off_help), timer);
    }
    return el("div", { class: "quiz-status go", role: "status" }, el("strong", {}, ui.quiz_go), timer);
  }

  function lastResult(game, view, big) {
    const result = game.view.results[0];
    if (!result || game.view.armed) return null;
    const d = result.decision;
    return el("section", { class: "round-result" + (big ? " big" : ""), "aria-live": "polite" },
      el("h3", {}, fill(ui.round_n, { n: result.round })),
      headline(result, view), R.orderTable(d.order, result.winner, d.tied_first, view, null, result.late, d.signal),
      R.falseStarts(d.false_starts, view));
  }

  function controls(game, role) {
    const labels = { race: ui.arm_race, hands_off: ui.arm_hands_off };
    const buttons = game.actions.map((a) => el("button", {
      type: "button", class: a.name === "arm" && a.args.mode === "race" ? "primary" : "",
      id: a.name === "arm" ? `arm-${a.args.mode}-${role}` : `cancel-${role}`,
      disabled: !a.allowed, title: a.allowed ? null : C.reasonText(a.reason),
      onclick: () => C.send(role, a.name, a.args) }, a.name === "arm" ? labels[a.args.mode] : ui.cancel_round));
    return el("div", { class: "button-row quiz-controls" }, buttons);
  }

  function buzzer(game, view) {
    const armed = game.view.armed;
    return R.buzzer(armed ? armed.mode : "idle", view);
  }

  function mine(game, view) {
    const result = game.view.results[0];
    if (!result || game.view.armed) return null;
    const d = result.decision;
    return R.mine(d.order, d.false_starts, result.winner, view, null,
      { tied: d.outcome === "tie" ? d.tied_first : [], late: result.late || [], behind: result.mode === "race" });
  }

  C.games["buzzer-quiz"] = {
    // The TV: one screen, never scrolled. What happens now, a lamp per player, the last round in
    // one line and the controls on the left; the last round's order and the game's reaction
    // board on the right (the board's slowest rows give way when the screen is full).
    table(container, game, view) {
      const result = game.view.results[0];
      const armed = game.view.armed;
      let last = null;
      // A round armed after the last result and no longer armed was cancelled: that is the news.
      const cancelled = !armed && game.view.round > (result ? result.round : 0) ? game.view.round : null;
      if (cancelled) {
        last = el("p", { class: "last-action" }, fill(ui.quiz_cancelled, { n: cancelled }));
      } else if (result) {
        last = el("p", { class: "last-action" }, fill(ui.round_n, { n: result.round }), " · ",
          [...headline(result, view).querySelectorAll("p")].map((p) => p.textContent).join(" · ") ||
            headline(result, view).textContent);
      } else if (armed) {  // the first round, armed: that is what happened last
        last = el("p", { class: "last-action" },
          fill(armed.mode === "hands_off" ? ui.quiz_armed_hands_off : ui.quiz_armed_race, { n: armed.round }));
      }
      const board = R.board(game.view.board, view, true);
      board.dataset.fitBox = "";
      const rows = board.querySelector("tbody");
      if (rows) rows.dataset.fit = "trim";
      container.replaceChildren(...[C.buttons.pairingBanner(view), el("div", { class: "quiz-table" },
        el("div", { class: "quiz-main" }, status(game), lamps(game, view), last,
          el("div", { class: "button-row" }, controls(game, "table"), R.soundToggle()),
          view.buttons && view.buttons.simulated ? el("p", { class: "hint" }, ui.keys_hint) : null),
        el("div", { class: "quiz-side" }, lastResult(game, view, true), board))].filter(Boolean));
      cue(game.view);  // after drawing: starting the audio can take a while, the screen must not wait
    },
    seat(container, game, view) {
      container.replaceChildren(...[status(game), buzzer(game, view), mine(game, view),
        lastResult(game, view, false)].filter(Boolean));
    },
    undo: false,  // a round is the referee's decision: nothing for a player to take back
    host(container, game, view) {
      container.replaceChildren(...[status(game), controls(game, "host"), lamps(game, view),
        lastResult(game, view, false), R.board(game.view.board, view, false)].filter(Boolean));
    },
  };
})(window.Companion);
