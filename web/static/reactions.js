// What the games that race share: sound cues, the phone's buzzer, reaction times in the reader's
// number format, a round's order table, its false starts and the reaction board of a whole game.
"use strict";
(function (C) {
  const { el, ui, fill } = C;

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
  const SOUND_KEY = "quiz-sound";  // the quiz's name for it, kept so a table's choice survives
  const soundOn = () => localStorage.getItem(SOUND_KEY) !== "0";
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
    fanfare: () => { tone(523, 0, 0.15); tone(659, 0.15, 0.15); tone(784, 0.3, 0.15); tone(1047, 0.45, 0.5); },
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
        localStorage.setItem(SOUND_KEY, soundOn() ? "0" : "1");
        button.textContent = soundOn() ? ui.sound_on : ui.sound_off;
        button.setAttribute("aria-pressed", String(soundOn()));
        if (soundOn()) play("arm");
      } }, soundOn() ? ui.sound_on : ui.sound_off);
    return button;
  }

  // -- what a round said ------------------------------------------------------------------------
  // The referee's order (rows with who, after_arm_us, gap_us, uncertainty_us, source); `winner`
  // and `tied` are "seat:N" names.
  // `timeLabel`: what the times count from ("After the signal", "After the dice"). `late`: presses
  // that came after the decision, in rows of the same shape, listed below the order.
  // `signal`: where the round's signal was ("phones": each phone timed its player's reaction;
  // "table": phones' taps on the host's clock), said in the caption; each phone's row says how it
  // was timed (a phone timed by its request's arrival shows its wider bound beside it).
  function orderTable(order, winner, tied, view, timeLabel, late, signal) {
    if (!order.length) return null;
    const close = new Set(tied || []);
    const how = (p) => (p.method && ui[`timed_${p.method}`]) || sourceText(p.source);
    const row = (p, place, cls) => el("tr", { class: cls },
      el("td", {}, String(place)), el("td", {}, C.byWho(p.who, view)), el("td", {}, `${ms(p.after_arm_us)} ms`),
      el("td", {}, gapText(p.gap_us)), el("td", {}, precision(p.uncertainty_us)), el("td", {}, how(p)));
    const after = late || [];
    const phones = [...order, ...after].some((p) => p.method);
    return el("table", { class: "order" },
      el("caption", {}, el("span", { class: "order-title" }, ui.order),
        phones && ui[`signal_${signal}`] ? el("span", { class: "signal-note" }, ui[`signal_${signal}`]) : null),
      el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, ui.col_player), el("th", {}, timeLabel || ui.col_time),
        el("th", {}, ui.col_gap), el("th", {}, ui.col_precision), el("th", {}, ui.col_source))),
      el("tbody", {}, order.map((p, i) => row(p, i + 1, (p.who === winner ? "first" : "") + (close.has(p.who) ? " tied" : "")))),
      after.length ? el("tbody", { class: "late" },
        el("tr", {}, el("th", { colspan: "6", scope: "rowgroup" }, ui.after_decision)),
        after.map((p, i) => row(p, order.length + i + 1, "late"))) : null);
  }

  function falseStarts(list, view) {
    if (!list || !list.length) return null;
    return el("div", { class: "false-starts" }, el("h3", {}, ui.false_starts),
      el("ul", {}, list.map((p) => el("li", {}, el("strong", {}, C.byWho(p.who, view)), " ",
        fill(ui.early_by, { ms: ms(p.early_us) })))));
  }

  // Every player's race reaction times as dots on one scale, the median marked.
  function board(entriesByWho, view, wide) {
    const entries = Object.entries(entriesByWho || {}).sort((a, b) => a[1].best_us - b[1].best_us);
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

  // -- the phone's buzzer -----------------------------------------------------------------------
  let lastBuzz = 0;
  async function buzz(button, tap) {
    if (tap - lastBuzz < 150) return;
    lastBuzz = tap;
    const claim = C.tapClaim(tap);  // before anything that takes time
    if (navigator.vibrate) navigator.vibrate(30);
    button.classList.add("pressed");
    setTimeout(() => button.classList.remove("pressed"), 250);
    const body = await C.post("/api/buzz", claim);
    if (!body.ok) C.showError(body.message || C.errorText(body.error));
  }

  // `mode`: "idle", "race" or "hands_off"; `words` names the button in each mode and as a whole
  // (the quiz's BUZZ by default). A press counts in any mode: before the signal it is a false
  // start, in a hands-off round a fault, as the referee decides. Its accessible name is what it
  // shows now ("Hands off!"); only in a race does the whole name ("Slap the garlic") say more.
  function buzzer(mode, view, words) {
    const w = { idle: ui.buzz_wait, race: ui.buzz, hands_off: ui.quiz_hands_off, name: ui.buzz, ...(words || {}) };
    const button = el("button", { type: "button", id: "buzzer", class: `buzzer ${mode}`, "aria-label": mode === "race" ? w.name : null,
      "data-mode": mode }, w[mode]);
    C.buttons.onPress(button, (tap) => buzz(button, tap));
    const you = view.buttons && view.buttons.you;
    const note = you && you.phone_uncertainty_us !== null
      ? fill(ui.phone_precision, { ms: ms(you.phone_uncertainty_us) }) : ui.phone_precision_unknown;
    return el("div", { class: `buzzer-box ${mode}` }, button, el("p", { class: "hint" }, note),
      you && you.buttons.length ? el("p", { class: "hint" }, fill(ui.wired_preferred, { buttons: you.buttons.join(", ") })) : null);
  }

  // This phone's own line about a round: its place and time, or its false start.
  // `words.place` / `words.first`: templates with {place}, {ms} and {gap} (the quiz's by default).
  // `round` (optional): `tied`, the contestants too close to call, `late`, the presses after the
  // decision, and `behind`: say how far behind the winner (or the first press) this phone pressed
  // rather than its place. A tied phone says so and what the draw decided (never "#1": the first of
  // a tie won nothing by being first).
  function mine(order, early, winner, view, words, round) {
    const me = `seat:${view.you.seat}`;
    const mineEarly = (early || []).find((p) => p.who === me);
    if (mineEarly) return el("p", { class: "mine early" }, fill(ui.your_false_start, { ms: ms(mineEarly.early_us) }));
    const r = round || {};
    const rows = [...order, ...(r.late || [])];
    const place = rows.findIndex((p) => p.who === me);
    if (place < 0) return null;
    const row = rows[place];
    const tied = r.tied || [];
    if (tied.includes(me)) {
      const others = tied.filter((w) => w !== me).map((w) => C.byWho(w, view)).join(", ");
      let drawn = ui.tie_rearm;
      if (winner === me) drawn = ui.your_tie_won;
      else if (winner) drawn = fill(ui.your_tie_lost, { name: C.byWho(winner, view) });
      return el("div", { class: "mine tied" + (winner === me ? " first" : "") },
        el("p", {}, fill(ui.your_tied, { names: others, ms: ms(row.after_arm_us) })), el("p", {}, drawn));
    }
    const w = { place: ui.your_place, first: ui.your_place, ...(words || {}) };
    const params = { place: place + 1, ms: ms(row.after_arm_us), gap: ms(row.gap_us) };
    if (winner === me || !r.behind) {
      return el("p", { class: "mine" + (winner === me ? " first" : "") }, fill(winner === me ? w.first : w.place, params));
    }
    const ahead = rows.find((p) => p.who === winner);
    const behind = ahead ? row.after_arm_us - ahead.after_arm_us : row.gap_us;
    const text = fill(ahead ? ui.your_after_winner : ui.your_after_first, { gap: ms(behind), ms: ms(row.after_arm_us),
      name: ahead ? C.byWho(winner, view) : "", precision: precision(row.uncertainty_us) });
    return el("p", { class: "mine behind" + (r.late && r.late.includes(row) ? " late" : "") }, text);
  }

  C.reactions = { ms, gapText, precision, sourceText, play, soundOn, soundToggle, orderTable, falseStarts, board,
                  buzzer, mine };
})(window.Companion);
