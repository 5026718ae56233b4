// The buzzer quiz's screens: lamps, the winner, the order with gaps, false starts, the board.
"use strict";
(function (C) {
  const { el, ui, fill } = C;
  let heardRound = null;
  let heardArmed = null;
  let heardAny = false;

  // Milliseconds in the reader's own number format (391,5 in French).
  const ms = (us, digits) => {
    const d = digits === undefined ? 1 : digits;
    return (us / 1000).toLocaleString(C.lang, { minimumFractionDigits: d, maximumFractionDigits: d, useGrouping: false });
  };
  // Gaps below a millisecond are what wired buttons are for: show them to the microsecond.
  const gapText = (us) => (us === 0 ? "—" : `+${Math.abs(us) < 1000 ? ms(us, 3) : ms(us)} ms`);
  const precision = (us) => (us < 1000 ? `±${us} µs` : `±${ms(us)} ms`);
  const sourceText = (source) => ui[`source_${source}`] || source;

  // -- sound: made here (no files), so it works offline; the table display has a switch --------
  let audio = null;
  const soundOn = () => localStorage.getItem("quiz-sound") !== "0";
  function tone(freq, start, length, type) {
    if (!audio) return;
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = type || "sine";
    osc.frequency.value = freq;
    const t = audio.currentTime + start;
    gain.gain.setValueAtTime(0.0001, t);
    gain.gain.exponentialRampToValueAtTime(0.3, t + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + length);
    osc.connect(gain).connect(audio.destination);
    osc.start(t);
    osc.stop(t + length + 0.02);
  }
  const cues = {
    arm: () => tone(880, 0, 0.15),
    handsOff: () => { tone(220, 0, 0.25, "square"); tone(220, 0.3, 0.25, "square"); },
    win: () => { tone(660, 0, 0.12); tone(990, 0.12, 0.3); },
    tie: () => { tone(740, 0, 0.1); tone(740, 0.15, 0.1); tone(740, 0.3, 0.1); },
    fault: () => tone(140, 0, 0.45, "sawtooth"),
    quiet: () => tone(330, 0, 0.2),
  };
  function play(name) {
    if (!soundOn()) return;
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      if (audio.state === "suspended") audio.resume();
      cues[name]();
    } catch (err) { /* no audio device: the screen still says it all */ }
  }
  function soundToggle() {
    const button = el("button", { type: "button", class: "toggle sound", "aria-pressed": String(soundOn()),
      onclick: () => {
        localStorage.setItem("quiz-sound", soundOn() ? "0" : "1");
        button.textContent = soundOn() ? ui.sound_on : ui.sound_off;
        button.setAttribute("aria-pressed", String(soundOn()));
        if (soundOn()) play("arm");
      } }, soundOn() ? ui.sound_on : ui.sound_off);
    return button;
  }

  // Sound once per change, on the first screen that sees it (not on a page load).
  function cue(quiz) {
    const armed = quiz.armed ? quiz.armed.round : null;
    const last = quiz.results[0];
    const settled = last ? last.round : null;
    // The first view this page gets (both may well be null: a quiz with no round yet, whose first
    // arm must sound like every other one).
    if (!heardAny) { heardAny = true; heardRound = settled; heardArmed = armed; return; }
    if (armed !== null && armed !== heardArmed) play(quiz.armed.mode === "hands_off" ? "handsOff" : "arm");
    else if (settled !== null && settled !== heardRound) {
      const outcome = last.decision.outcome;
      play({ winner: "win", tie: "tie", faults: "fault", clean: "quiet", no_reaction: "quiet" }[outcome] || "quiet");
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
    const first = d.order[0];
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

  function orderTable(result, view) {
    const d = result.decision;
    if (!d.order.length) return null;
    const tied = new Set(d.tied_first);
    return el("table", { class: "order" },
      el("caption", {}, ui.order),
      el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, ui.col_player), el("th", {}, ui.col_time),
        el("th", {}, ui.col_gap), el("th", {}, ui.col_precision), el("th", {}, ui.col_source))),
      el("tbody", {}, d.order.map((p, i) => el("tr", { class: (p.who === result.winner ? "first" : "") + (tied.has(p.who) ? " tied" : "") },
        el("td", {}, String(i + 1)), el("td", {}, C.byWho(p.who, view)), el("td", {}, `${ms(p.after_arm_us)} ms`),
        el("td", {}, gapText(p.gap_us)), el("td", {}, precision(p.uncertainty_us)), el("td", {}, sourceText(p.source))))));
  }

  function falseStarts(result, view) {
    const list = result.decision.false_starts || [];
    if (!list.length) return null;
    return el("div", { class: "false-starts" }, el("h3", {}, ui.false_starts),
      el("ul", {}, list.map((p) => el("li", {}, el("strong", {}, C.byWho(p.who, view)), " ",
        fill(ui.early_by, { ms: ms(p.early_us) })))));
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

  function status(game, view) {
    const armed = game.view.armed;
    if (!armed) return el("p", { class: "quiz-status idle" }, ui.quiz_idle);
    if (armed.mode === "hands_off") {
      return el("div", { class: "quiz-status hands-off", role: "status" }, el("strong", {}, ui.quiz_hands_off),
        el("span", {}, ui.quiz_hands_off_help));
    }
    return el("p", { class: "quiz-status go", role: "status" }, el("strong", {}, ui.quiz_go));
  }

  // Every player's race reaction times as dots on one scale, the median marked.
  function board(game, view, wide) {
    const entries = Object.entries(game.view.board).sort((a, b) => a[1].best_us - b[1].best_us);
    const box = el("section", { class: "board" }, el("h3", {}, ui.reaction_board));
    if (!entries.length) { box.append(el("p", { class: "hint" }, ui.board_empty)); return box; }
    const top = Math.max(...entries.flatMap(([, b]) => b.samples)) || 1;
    const scale = Math.max(500, Math.ceil(top / 1000 / 500) * 500);  // ms, a round number
    const width = wide ? 320 : 200;
    const svgNS = "http://www.w3.org/2000/svg";
    const rows = entries.map(([who, b]) => {
      const svg = document.createElementNS(svgNS, "svg");
      svg.setAttribute("viewBox", `0 0 ${width} 18`);
      svg.setAttribute("class", "dots");
      svg.setAttribute("role", "img");
      svg.setAttribute("aria-label", `${C.byWho(who, view)}: ${b.samples.map((s) => ms(s, 0)).join(", ")} ms`);
      const axis = document.createElementNS(svgNS, "line");
      for (const [k, v] of Object.entries({ x1: 0, x2: width, y1: 9, y2: 9, class: "axis" })) axis.setAttribute(k, v);
      svg.append(axis);
      // The median first: drawn over the dots, it hid the sample it sits on (every dot of one round).
      const median = document.createElementNS(svgNS, "line");
      const mx = String(3 + (b.median_us / 1000 / scale) * (width - 6));
      for (const [k, v] of Object.entries({ x1: mx, x2: mx, y1: 1, y2: 17, class: "median" })) median.setAttribute(k, v);
      svg.append(median);
      for (const sample of b.samples) {
        const dot = document.createElementNS(svgNS, "circle");
        dot.setAttribute("cx", String(Math.min(width - 4, 4 + (sample / 1000 / scale) * (width - 8))));
        dot.setAttribute("cy", "9");
        dot.setAttribute("r", "4");
        svg.append(dot);
      }
      return el("tr", {}, el("th", {}, C.byWho(who, view)), el("td", {}, `${ms(b.best_us, 0)}`), el("td", {}, `${ms(b.median_us, 0)}`),
        el("td", {}, String(b.count)), el("td", { class: "plot" }, svg));
    });
    box.append(el("table", { class: "board-table" },
      el("thead", {}, el("tr", {}, el("th", {}, ui.col_player), el("th", {}, `${ui.board_best} (ms)`),
        el("th", {}, `${ui.board_median} (ms)`), el("th", {}, ui.board_rounds), el("th", {}, `0 – ${scale} ms`))),
      el("tbody", {}, rows)));
    return box;
  }

  function lastResult(game, view, big) {
    const result = game.view.results[0];
    if (!result || game.view.armed) return null;
    return el("section", { class: "round-result" + (big ? " big" : ""), "aria-live": "polite" },
      el("h3", {}, fill(ui.round_n, { n: result.round })),
      headline(result, view), orderTable(result, view), falseStarts(result, view));
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

  // -- the phone's buzzer -----------------------------------------------------------------------
  let lastBuzz = 0;
  async function buzz(button) {
    const now = performance.now();
    if (now - lastBuzz < 150) return;
    lastBuzz = now;
    if (navigator.vibrate) navigator.vibrate(30);
    button.classList.add("pressed");
    setTimeout(() => button.classList.remove("pressed"), 250);
    const body = await C.post("/api/buzz", {});
    if (!body.ok) C.showError(body.message || C.errorText(body.error));
  }

  function buzzer(game, view) {
    const armed = game.view.armed;
    const mode = armed ? armed.mode : "idle";
    const label = { idle: ui.buzz_wait, race: ui.buzz, hands_off: ui.quiz_hands_off }[mode];
    const button = el("button", { type: "button", id: "buzzer", class: `buzzer ${mode}`, "aria-label": ui.buzz }, label);
    C.buttons.onPress(button, () => buzz(button));
    const you = view.buttons && view.buttons.you;
    const note = you && you.phone_uncertainty_us !== null
      ? fill(ui.phone_precision, { ms: ms(you.phone_uncertainty_us) }) : ui.phone_precision_unknown;
    return el("div", { class: "buzzer-box" }, button, el("p", { class: "hint" }, note),
      you && you.buttons.length ? el("p", { class: "hint" }, fill(ui.wired_preferred, { buttons: you.buttons.join(", ") })) : null);
  }

  function mine(game, view) {
    const result = game.view.results[0];
    if (!result || game.view.armed) return null;
    const me = `seat:${view.you.seat}`;
    const early = (result.decision.false_starts || []).find((p) => p.who === me);
    if (early) return el("p", { class: "mine early" }, fill(ui.your_false_start, { ms: ms(early.early_us) }));
    const place = result.decision.order.findIndex((p) => p.who === me);
    if (place < 0) return null;
    return el("p", { class: "mine" + (result.winner === me ? " first" : "") },
      fill(ui.your_place, { place: place + 1, ms: ms(result.decision.order[place].after_arm_us) }));
  }

  C.games["buzzer-quiz"] = {
    table(container, game, view) {
      container.replaceChildren(...[
        C.buttons.pairingBanner(view), status(game, view), lamps(game, view), lastResult(game, view, true),
        el("div", { class: "button-row" }, controls(game, "table"), soundToggle()),
        view.buttons && view.buttons.simulated ? el("p", { class: "hint" }, ui.keys_hint) : null,
        board(game, view, true)].filter(Boolean));
      cue(game.view);  // after drawing: starting the audio can take a while, the screen must not wait
    },
    seat(container, game, view) {
      container.replaceChildren(...[status(game, view), buzzer(game, view), mine(game, view),
        lastResult(game, view, false)].filter(Boolean));
    },
    undo: false,  // a round is the referee's decision: nothing for a player to take back
    host(container, game, view) {
      container.replaceChildren(...[status(game, view), controls(game, "host"), lamps(game, view),
        lastResult(game, view, false), board(game, view, false)].filter(Boolean));
    },
  };
})(window.Companion);
