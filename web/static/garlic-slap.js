// Clearing Coffins (Chasse-cercueils, the garlic slap): the dice, every player's cards, the first
// slapper's choices, penalties, the round's reaction times and the win, for the TV, a phone and
// the host. A coffin is drawn as a coffin for everyone, its owner too (S-S10): the view never
// says which card it is, and neither does any screen, except a check (everyone), a moon look
// (the slapper's phone only) and the end of the game.
"use strict";
(function (C) {
  const { el, svg, ui, fill } = C;
  const R = C.reactions;

  // -- drawing: inline SVG only (no image files, no emoji) -------------------------------------
  // Symbols on a 64 × 64 grid.
  const SYMBOLS = {
    bat: "M2 26C10 21 18 21 24 27L27 20L29.5 24.5H34.5L37 20L40 27C46 21 54 21 62 26C56 30 54 36 54 43"
      + "C50 38 45 38 42 43C40 38 36 37 32 43C28 37 24 38 22 43C19 38 14 38 10 43C10 36 8 30 2 26Z",
    moon: "M31.1 10A22 22 0 1 0 52 41.3A19 19 0 0 1 31.1 10Z",
    skull: "M32 7C18.5 7 10 16.5 10 29C10 37 14 42.5 20 45.5V53C20 55.5 22 57 24 57H40C42 57 44 55.5 44 53V45.5"
      + "C50 42.5 54 37 54 29C54 16.5 45.5 7 32 7ZM23.5 23A6.5 6.5 0 1 1 23.5 36A6.5 6.5 0 1 1 23.5 23Z"
      + "M40.5 23A6.5 6.5 0 1 1 40.5 36A6.5 6.5 0 1 1 40.5 23ZM32 37L36 44H28ZM27 49H29.5V55H27ZM34.5 49H37V55H34.5Z",
  };
  const COFFIN = "18,1 42,1 59,21 48,83 12,83 1,21";
  const LID = "19.6,5 40.4,5 55,22.2 44.8,79 15.2,79 5,22.2";

  function symbolPath(symbol, x, y, size, cls) {
    return svg("path", { d: SYMBOLS[symbol], class: cls || "sym", "fill-rule": "evenodd",
      transform: `translate(${x} ${y}) scale(${size / 64})` });
  }

  // A card's picture: its face (a vampire's coloured circle and symbol), or a closed coffin.
  function cardArt(face) {
    const parts = [];
    if (face && face.colour) {
      parts.push(svg("polygon", { points: COFFIN, class: "face" }),
        svg("circle", { cx: 30, cy: 37, r: 18, class: `disc ${face.colour}` }),
        symbolPath(face.symbol, 16, 23, 28, `sym on-${face.colour}`));
    } else if (face) {
      // A real card the companion does not see (physical cards): face up, identity on the table.
      parts.push(svg("polygon", { points: COFFIN, class: "face" }), svg("circle", { cx: 30, cy: 37, r: 18, class: "disc unknown" }));
    } else {
      parts.push(svg("polygon", { points: COFFIN, class: "wood" }), svg("polygon", { points: LID, class: "lid" }),
        svg("rect", { x: 27, y: 18, width: 6, height: 42, rx: 1, class: "cross" }),
        svg("rect", { x: 18, y: 29, width: 24, height: 6, rx: 1, class: "cross" }));
    }
    return svg("svg", { viewBox: "0 0 60 84", class: "g-art", "aria-hidden": "true", focusable: "false" }, parts);
  }

  const cardWords = (colour, symbol) => ui[`card_${colour}_${symbol}`] || `${colour} ${symbol}`;

  // What a slot shows and says: {face, words, state}.
  function slotLook(slot) {
    if (slot.up) return { face: slot.colour ? slot : {}, words: slot.colour ? cardWords(slot.colour, slot.symbol) : ui.garlic_face_up_card, state: "up" };
    if (slot.shown) return { face: slot.shown, words: cardWords(slot.shown.colour, slot.shown.symbol), state: "shown" };
    if (slot.revealed) return { face: slot.revealed, words: cardWords(slot.revealed.colour, slot.revealed.symbol), state: "revealed" };
    return { face: null, words: ui.garlic_coffin, state: "down" };
  }

  // One card, as a picture with its words under it. Options: `button` (the attributes of a button
  // it becomes), `label` (what it says to a screen reader), `selected` and `pressed`, `short`
  // (the TV, where up to six players' cards share one screen in letters big enough for the
  // sofa: the card's colour in words, which a colour-blind eye needs, while the symbol's shape
  // and a closed coffin's wood and cross are drawn large enough to need none).
  function cardNode(slot, options) {
    const o = options || {};
    const look = slotLook(slot);
    if (o.short) look.words = look.face && look.face.colour ? ui[`colour_${look.face.colour}`] || look.face.colour : "";
    const colour = look.face && look.face.colour ? ` ${look.face.colour}` : "";
    const mark = look.state === "shown" ? el("span", { class: "g-mark" }, `✓ ${ui.garlic_checked}`)
      : look.state === "revealed" ? el("span", { class: "g-mark" }, ui.garlic_revealed) : null;
    const cls = `g-card ${look.state}${colour}${o.selected ? " selected" : ""}`;
    const said = slotLook(slot).words;
    const label = o.label || (mark ? `${said} (${mark.textContent})` : said);
    const content = [cardArt(look.face), el("span", { class: "g-words", "aria-hidden": "true" }, look.words), mark];
    if (o.button) {
      return el("button", { type: "button", class: `${cls} pick`, "aria-label": label, "aria-pressed": o.pressed, ...o.button }, content);
    }
    return el("span", { class: cls, role: "img", "aria-label": label }, content);
  }

  // The dice: a colour (yellow, violet, both, or "!") and a symbol, each with its words.
  function dieNode(kind, face) {
    const body = svg("rect", { x: 2, y: 2, width: 60, height: 60, rx: 11, class: "body" });
    let inner;
    let words;
    if (kind === "colour") {
      if (face === "!") {
        inner = [svg("rect", { x: 27, y: 10, width: 10, height: 31, rx: 4, class: "bang" }),
          svg("circle", { cx: 32, cy: 51, r: 5.5, class: "bang" })];
        words = ui.colour_effect;
      } else if (face === "both") {
        inner = [svg("path", { d: "M32 12A20 20 0 0 0 32 52Z", class: "disc yellow" }),
          svg("path", { d: "M32 12A20 20 0 0 1 32 52Z", class: "disc violet" })];
        words = ui.colour_both;
      } else {
        inner = [svg("circle", { cx: 32, cy: 32, r: 20, class: `disc ${face}` })];
        words = ui[`colour_${face}`] || face;
      }
    } else {
      inner = [symbolPath(face, 9, 9, 46, "sym")];
      words = ui[`symbol_${face}`] || face;
    }
    const name = kind === "colour" ? ui.die_colour : ui.die_symbol;
    return el("figure", { class: `g-die ${kind} face-${face === "!" ? "effect" : face}`,
      role: "img", "aria-label": `${name}: ${words}` },
    svg("svg", { viewBox: "0 0 64 64", "aria-hidden": "true", focusable: "false" }, body, inner),
    el("figcaption", { "aria-hidden": "true" }, words));
  }

  // A small drawing beside words that say the same (so hidden from screen readers).
  function icon(kind) {
    let art;
    if (kind === "ccw" || kind === "cw") {
      art = svg("svg", { viewBox: "0 0 32 32", class: `g-icon ${kind}`, "aria-hidden": "true", focusable: "false" },
        svg("g", { transform: kind === "cw" ? "translate(32 0) scale(-1 1)" : null },
          svg("path", { d: "M21.5 6.5A11 11 0 1 0 27 16", class: "stroke" }),
          svg("polygon", { points: "21.5,17 32.5,17 27,9.5", class: "fill" })));
    } else if (kind === "die") {
      art = svg("svg", { viewBox: "0 0 32 32", class: "g-icon pips", "aria-hidden": "true", focusable: "false" },
        svg("rect", { x: 3, y: 3, width: 26, height: 26, rx: 6, class: "stroke" }),
        [[10, 10], [22, 10], [16, 16], [10, 22], [22, 22]].map(([x, y]) => svg("circle", { cx: x, cy: y, r: 2.6, class: "fill" })));
    } else {
      art = svg("svg", { viewBox: "0 0 60 84", class: `g-icon coffin ${kind}`, "aria-hidden": "true", focusable: "false" },
        svg("polygon", { points: COFFIN }));
    }
    return art;
  }

  // -- words ----------------------------------------------------------------------------------
  const nameOf = C.seatName;
  const namesOf = (g, seats) => seats.map((s) => nameOf(g, s)).join(", ");
  const me = C.mySeat;

  function target(dice) {
    if (!dice) return "";
    if (dice.colour === "!") return ui[`garlic_effect_${dice.symbol}`];
    return cardWords(dice.colour, dice.symbol);
  }
  function claimWords(g, claim) {
    if (!claim) return "";
    if (claim.kind === "other_down") return fill(ui.garlic_claim_other_down, { name: nameOf(g, claim.target) });
    return ui[`garlic_claim_${claim.kind}`] || claim.kind;
  }
  const judgeWords = (by) => (by === "majority" ? ui.garlic_judge_majority : ui.garlic_judge_host);
  const reasonWords = (reason) => ui[`garlic_reason_${reason}`] || reason;

  const CLAIM_KINDS = ["own_up", "own_down", "other_down"];
  const TURN_PHASES = ["claim", "bat", "moon", "moon_look", "confirm"];
  // A line for each recent happening, names not seat numbers.
  function happeningText(g, h) {
    const name = nameOf(g, h.seat);
    const goal = g.options.coffins_to_win;
    const kind = h.kind;
    const claimKind = CLAIM_KINDS.includes(h.claim) ? h.claim : "own_up";
    switch (kind) {
      case "claim": return fill(ui[`garlic_h_claim_${claimKind}`] || ui.garlic_h_claim_own_up, { name, target: nameOf(g, h.target) });
      case "checked": {
        const own = h.by === h.seat;
        return fill(ui[`garlic_h_checked_${own ? "own" : "other"}_${h.right ? "right" : "wrong"}`],
          { name, by: nameOf(g, h.by) });
      }
      case "judged": return fill(h.right ? ui.garlic_h_judged_right : ui.garlic_h_judged_wrong, { name, by: judgeWords(h.by) });
      case "no_claim": return fill(ui[`garlic_h_no_claim_${h.cause}`] || ui.garlic_h_no_claim_no_claim, { name });
      case "turned_down": return fill(ui[`garlic_h_turned_down_${h.cause}`] || ui.garlic_h_turned_down_claim, { name });
      case "turned_up": return fill(ui[`garlic_h_turned_up_${h.cause}`] || ui.garlic_h_turned_up_penalty, { name });
      case "cleared": return fill(h.checked ? ui.garlic_h_cleared_checked : ui.garlic_h_cleared_bat, { name, count: h.count, goal });
      case "drew": return fill(h.cause === "penalty" ? ui.garlic_h_drew_penalty : ui.garlic_h_drew_refill, { name });
      case "swapped": {
        const face = h.face === "up" ? "up" : "down";
        if (!h.a) return fill(ui[`garlic_h_swapped_${face}_real`], { name });
        if (h.a[0] === h.b[0]) return fill(ui[`garlic_h_swapped_${face}_one`], { name, owner: nameOf(g, h.a[0]) });
        return fill(ui[`garlic_h_swapped_${face}_two`], { name, a: nameOf(g, h.a[0]), b: nameOf(g, h.b[0]) });
      }
      case "looked": return fill(ui.garlic_h_looked, { name });
      case "passed": return fill(ui[`garlic_h_passed_${h.cause}`] || ui.garlic_h_passed_declined, { name });
      case "penalty": return fill(ui.garlic_h_penalty, { name, reason: reasonWords(h.reason), how: ui[`garlic_how_${h.how}`] || h.how });
      case "tie": return fill(ui.garlic_h_tie, { name });
      case "won": return fill(ui.garlic_wins, { name });
      default: return h.kind;
    }
  }

  // -- time left: counted to the server's deadline (countdown.js) ------------------------------
  function turnTimer(game) {
    const t = game.view.turn;
    return t.timeout_s && t.ends_us ? C.countdown(t.since_us, t.ends_us, ui.garlic_time_left) : null;
  }
  function penaltyTimer(game, seat) {
    const due = game.view.penalties.find((p) => p.seat === seat);
    return due && due.ends_us ? C.countdown(due.since_us, due.ends_us, ui.garlic_random_in) : null;
  }

  // -- sound and motion, once per change, on the table display ----------------------------------
  let heard = null;
  function cue(game) {
    const g = game.view;
    const now = { id: game.id, round: g.round, settled: g.result ? g.result.round : null, over: g.phase === "over" };
    const before = heard;
    heard = now;
    if (!before) return;  // a page load: nothing new happened
    if (now.over && !(before.over && before.id === now.id)) R.play("fanfare");
    else if (g.phase === "reaction" && (now.round !== before.round || now.id !== before.id)) {
      R.play(g.turn.mode === "hands_off" ? "handsOff" : "arm");
    } else if (now.settled !== null && (now.settled !== before.settled || now.id !== before.id)) {
      R.play({ winner: "win", drawn: "win", tie: "tie", faults: "fault" }[g.result.outcome] || "quiet");
    }
  }
  const drawnRound = {};
  function dice(game, role, size) {
    const g = game.view;
    const d = g.dice;
    if (!d) return el("div", { class: `g-dice ${size} none` }, el("p", { class: "muted" }, ui.no_roll_yet));
    const fresh = !["roll", "penalties", "over"].includes(g.phase);
    const box = el("div", { class: `g-dice ${size}${fresh ? "" : " old"}${d.colour === "!" && d.symbol === "skull" ? " skull" : ""}`,
      "data-round": String(d.round), "data-colour": d.colour, "data-symbol": d.symbol, "aria-live": "polite" },
    dieNode("colour", d.colour), dieNode("symbol", d.symbol));
    const key = `${game.id}:${role}`;
    if (drawnRound[key] !== undefined && drawnRound[key] !== d.round) box.classList.add("rolling");
    drawnRound[key] = d.round;
    return box;
  }

  // -- what the table waits for now -------------------------------------------------------------
  function rollButton(game, role, label) {
    const action = game.actions.find((a) => a.name === "roll");
    if (!action) return null;
    const reasonId = `roll-reason-${role}`;
    return el("div", { class: "g-roll" },
      el("button", { type: "button", id: `roll-${role}`, class: "roll primary", disabled: !action.allowed,
        "aria-describedby": action.allowed ? null : reasonId, onclick: () => C.send(role, "roll") }, icon("die"), label),
      action.allowed ? null : el("p", { id: reasonId, class: "hint reason" }, C.reasonText(action.reason)));
  }

  function direction(g) {
    const ccw = g.options.dice_pass_direction !== "clockwise";
    return el("span", { class: "g-direction" }, icon(ccw ? "ccw" : "cw"), " ",
      ccw ? ui.garlic_direction_ccw : ui.garlic_direction_cw);
  }

  // The banner: what happens now, in the biggest words of the screen.
  function status(game, view, role) {
    const g = game.view;
    // A game the host ended mid-round: nobody is to roll or slap now (the page says the game is over).
    if (game.ended && g.phase !== "over" && role !== "table") return null;
    const mine = me(view);
    // Everything but the winner says whose turn it is: a game the host ended shows none of it.
    const box = (cls, ...parts) => el("div", { class: `g-status ${cls}${g.phase === "over" ? "" : " whose-turn"}`, role: "status" }, ...parts);
    const line = (text, cls) => el("p", { class: cls || "g-line" }, text);
    const slapper = g.turn.seat;
    switch (g.phase) {
      case "roll": {
        if (g.roller === null) {
          if (role === "me") return box("idle", line(ui.garlic_youngest_first, "g-line small"), rollButton(game, "me", ui.garlic_youngest_roll));
          return box("idle", line(ui.garlic_youngest_first, "g-big"));
        }
        const then = line([direction(g), " · ", fill(ui.garlic_next_roller, { name: nameOf(g, g.next_roller) })], "g-line small");
        if (role === "me") {
          if (g.roller === mine) return box("idle mine", line(ui.garlic_your_roll, "g-big"), rollButton(game, "me", ui.garlic_roll_mine));
          return box("idle", line(fill(ui.garlic_rolls_now, { name: nameOf(g, g.roller) }), "g-big"), then);
        }
        return box("idle", rollButton(game, role, fill(ui.garlic_roll_for, { name: nameOf(g, g.roller) })), then);
      }
      case "reaction": {
        const timer = g.turn.ends_us ? C.countdown(g.turn.since_us, g.turn.ends_us,
          g.turn.mode === "hands_off" || role === "me" ? ui.garlic_seconds : ui.garlic_dice_pass_in) : null;
        if (g.turn.mode === "hands_off") {
          return box("hands-off", line(ui.garlic_hands_off, "g-big"), line(ui.garlic_hands_off_help, "g-line g-help"), timer);
        }
        const d = g.dice;
        const words = d.colour === "!" ? ui[`garlic_go_${d.symbol}`] : fill(ui.garlic_go_target, { card: target(d) });
        const help = d.colour === "!" ? ui[`garlic_effect_${d.symbol}`] : ui.garlic_target_help;
        return box("go", line(words, "g-big"), line(help, "g-line g-help"), timer);
      }
      case "claim": case "bat": case "moon": case "moon_look": {
        const name = nameOf(g, slapper);
        const what = {
          claim: fill(ui.garlic_must_claim, { name, card: target(g.dice) }),
          bat: fill(ui.garlic_must_bat, { name }), moon: fill(ui.garlic_must_moon, { name }),
          moon_look: fill(ui.garlic_looking, { name }),
        }[g.phase];
        const first = slapper === mine ? ui.garlic_you_first : fill(ui.garlic_slapped_first, { name });
        return box("turn", line(first, "g-big"), line(what), turnTimer(game));
      }
      case "confirm": {
        const name = nameOf(g, slapper);
        if (role === "me" && slapper === mine) return box("turn", line(ui.garlic_your_claim_judged, "g-big"));
        const votes = Object.values(g.turn.votes || {});
        const needed = Math.floor((g.players.length - 1) / 2) + 1;
        return box("turn", line(fill(ui.garlic_claims, { name, claim: claimWords(g, g.turn.claim) }), "g-big"),
          line(fill(g.turn.judge === "majority" ? ui.garlic_confirm_majority : ui.garlic_confirm_host,
            { right: votes.filter(Boolean).length, wrong: votes.filter((v) => !v).length, needed })));
      }
      case "penalties": {
        const seats = g.penalties.map((p) => p.seat);
        return box("turn", line(fill(ui.garlic_penalty_for, { names: namesOf(g, seats) }), "g-big"),
          line(ui.garlic_penalties_wait), seats.length ? penaltyTimer(game, seats[0]) : null);
      }
      case "over":
        return box("over", line(g.winner === mine ? ui.garlic_you_win : fill(ui.garlic_wins, { name: nameOf(g, g.winner) }), "g-big"),
          line(ui.garlic_all_revealed));
      default:
        return box("idle", line(g.phase));
    }
  }

  // -- the round's reaction times ---------------------------------------------------------------
  function headline(g, r, view, named) {
    const who = (s) => `seat:${s}`;
    const parts = [];
    if (r.outcome === "winner" || r.outcome === "drawn") {
      if (r.outcome === "drawn") {
        parts.push(el("p", { class: "headline tie" }, fill(ui.tie_between, { names: namesOf(g, r.drawn_from || r.tied) })));
        parts.push(el("p", { class: "winner drawn" }, fill(ui.tie_drawn, { name: nameOf(g, r.winner) })));
      } else if (!named) {
        parts.push(el("p", { class: "winner" }, fill(ui.garlic_slapped_first, { name: nameOf(g, r.winner) })));
      }
      const first = r.order.find((row) => row.who === who(r.winner)) || r.order[0];
      const next = r.order.find((row) => row.who !== who(r.winner));
      if (first) {
        parts.push(el("p", { class: "reaction" }, next
          ? fill(ui.garlic_first_by, { ms: R.ms(first.after_arm_us), gap: R.ms(next.after_arm_us - first.after_arm_us), name: C.byWho(next.who, view) })
          : fill(ui.garlic_first_alone, { ms: R.ms(first.after_arm_us) })));
      }
    } else if (r.outcome === "tie") {
      parts.push(el("p", { class: "headline tie" }, fill(ui.tie_between, { names: namesOf(g, r.tied) })),
        el("p", { class: "headline" }, fill(ui.garlic_rolls_again, { name: nameOf(g, g.roller) })));
    } else if (r.outcome === "faults") {
      const seats = [...new Set(r.order.map((row) => Number(row.who.slice(5))))];
      parts.push(el("p", { class: "headline fault" }, fill(ui.garlic_faults, { names: namesOf(g, seats) })));
    } else if (r.outcome === "clean") {
      parts.push(el("p", { class: "headline" }, ui.garlic_clean));
    } else {
      parts.push(el("p", { class: "headline" }, ui.garlic_nobody));
    }
    return parts;
  }

  function result(game, view, size) {
    const g = game.view;
    const r = g.result;
    if (!r || g.phase === "reaction") return null;
    const winner = r.winner === null || r.winner === undefined ? null : `seat:${r.winner}`;
    const tied = (r.tied || []).map((s) => `seat:${s}`);
    // While the first slapper acts, the banner already names them.
    const named = TURN_PHASES.includes(g.phase);
    return el("section", { class: `round-result g-result ${size}`, "aria-live": "polite" },
      el("h3", {}, fill(ui.round_n, { n: r.round })), headline(g, r, view, named),
      size === "small" ? null : R.orderTable(r.order, winner, tied, view, ui.garlic_col_time, r.late, r.signal),
      R.falseStarts(r.false_starts, view));
  }

  function myLine(game, view) {
    const r = game.view.result;
    if (!r || game.view.phase === "reaction") return null;
    return R.mine(r.order, r.false_starts, r.winner === null ? null : `seat:${r.winner}`, view,
      { first: ui.garlic_your_first, place: ui.garlic_your_place }, { tied: (r.tied || []).map((s) => `seat:${s}`) });
  }

  // -- players' displays --------------------------------------------------------------------------
  function cleared(g, p) {
    const goal = g.options.coffins_to_win;
    const count = p.cleared.length;
    const icons = [];
    for (let i = 0; i < Math.max(goal, count); i++) icons.push(icon(i < count ? "filled" : "empty"));
    return el("div", { class: "g-cleared", role: "img", "aria-label": fill(ui.garlic_cleared_n, { n: count, goal }) },
      el("span", { class: "g-coffins", "aria-hidden": "true" }, icons),
      el("span", { class: "g-count", "aria-hidden": "true" }, `${count}/${goal}`));
  }

  function badges(g, p, view) {
    const list = [];
    const over = g.phase === "over";
    if (over && g.winner === p.seat) list.push(el("span", { class: "g-badge win" }, ui.garlic_winner));
    if (!over && g.roller === p.seat && g.phase === "roll") list.push(el("span", { class: "g-badge roller whose-turn" }, icon("die"), ui.garlic_rolls));
    else if (!over && g.roller === p.seat) list.push(el("span", { class: "g-badge roller dim" }, icon("die"), ui.garlic_rolled));
    if (!over && g.next_roller === p.seat && g.roller !== p.seat) {
      list.push(el("span", { class: "g-badge next whose-turn" }, icon(g.options.dice_pass_direction === "clockwise" ? "cw" : "ccw"), ui.garlic_next));
    }
    if (!over && g.turn.seat === p.seat && TURN_PHASES.includes(g.phase)) {
      list.push(el("span", { class: "g-badge slapper whose-turn" }, ui.garlic_first_badge));
    }
    for (const pen of g.penalties.filter((x) => x.seat === p.seat)) {
      list.push(el("span", { class: "g-badge penalty" }, fill(ui.garlic_penalty_due, { reason: reasonWords(pen.reason) })));
    }
    if (view.you && view.you.seat === p.seat) list.push(el("span", { class: "g-badge you" }, ui.garlic_you));
    return list;
  }

  function zone(g, p, view, size) {
    const short = size === "tv";
    const cls = ["g-zone", size];
    if (g.phase !== "over" && g.roller === p.seat) cls.push("roller");
    if (g.turn.seat === p.seat) cls.push("slapper");
    if (g.winner === p.seat) cls.push("winner");
    return el("section", { class: cls.join(" "), "data-seat": String(p.seat), "aria-label": p.name },
      el("header", {}, el("h3", { class: "g-name" }, p.name), el("span", { class: "g-badges" }, badges(g, p, view))),
      el("div", { class: "g-cards" }, p.slots.length ? p.slots.map((slot) => cardNode(slot, { short })) : el("span", { class: "muted" }, ui.garlic_no_cards)),
      cleared(g, p));
  }

  // On the TV, a player with more cards than a half-width zone holds puts every zone on a row of its own.
  function zones(g, view, size) {
    const rows = size === "tv" && g.players.some((p) => p.slots.length > 5) ? " rows" : "";
    // The TV sizes the cards' pictures from the rows of zones its height must hold.
    const lines = rows ? g.players.length : Math.ceil(g.players.length / 2);
    return el("div", { class: `g-zones ${size}${rows}`, "data-players": String(g.players.length), style: `--lines: ${lines}` },
      g.players.map((p) => zone(g, p, view, size)));
  }

  function happenings(game, count) {
    const g = game.view;
    if (!g.happenings.length) return null;
    return el("section", { class: "g-happenings", "aria-live": "polite" }, el("h3", {}, ui.garlic_latest),
      el("ol", {}, g.happenings.slice(0, count).map((h) => el("li", { "data-kind": h.kind }, happeningText(g, h)))));
  }

  // `short`: the TV says what is unverified; what to do about it is for the host console.
  function notes(game, withPile, short) {
    const g = game.view;
    const list = [];
    if (withPile) {
      list.push(g.pile > 0 ? el("p", { class: "g-pile" }, fill(ui.garlic_pile, { n: g.pile }))
        : el("p", { class: "g-pile empty", role: "status" }, ui.garlic_pile_empty));
    }
    if (g.mode === "physical") {
      list.push(el("p", { class: "g-note mode" },
        g.options.confirm_by === "majority" ? ui.garlic_mode_physical_majority : ui.garlic_mode_physical_host));
    }
    if (g.unverified && g.unverified.length) {
      const what = [];
      if (g.unverified.includes("colour_die") || g.unverified.includes("symbol_die")) what.push(ui.garlic_unverified_dice);
      if (g.unverified.includes("deck")) what.push(ui.garlic_unverified_deck);
      list.push(el("p", { class: "g-note unverified" }, el("strong", {}, ui.garlic_unverified_title), " ",
        short ? `${what.join(ui.garlic_and).replace(/^./, (c) => c.toUpperCase())}.` : fill(ui.garlic_unverified, { what: what.join(ui.garlic_and) })));
    }
    return list.length ? el("div", { class: "g-notes" }, list) : null;
  }

  // -- the phone's choices ------------------------------------------------------------------------
  const same = (a, b) => a && b && a[0] === b[0] && a[1] === b[1];
  const sendMe = (action) => C.send("me", action.name, action.args);
  const actionButton = (action, label, attrs) => C.actionButton(action, label, attrs, "g-act");

  // A player's cards where some are choices: each card an action names is a button.
  function pickRow(player, actionFor, labelFor) {
    return el("div", { class: "g-cards pickable" }, player.slots.map((slot, index) => {
      const action = actionFor(player.seat, index, slot);
      if (!action) return cardNode(slot);
      return cardNode(slot, { label: labelFor(player, index, slot), button: {
        disabled: !action.allowed, title: action.allowed ? null : C.reasonText(action.reason),
        "data-name": action.name, "data-kind": action.args.kind || null, "data-seat": String(player.seat), "data-slot": String(index),
        onclick: () => sendMe(action) } });
    }));
  }

  function position(g, seat, index) {
    return fill(ui.garlic_position, { name: nameOf(g, seat), n: index + 1 });
  }

  // The top of the first slapper's choice: they slapped first (and how fast), what to choose, the time left.
  function chooserHead(game, view, what) {
    const r = game.view.result;
    const row = r ? r.order.find((x) => x.who === `seat:${me(view)}`) : null;
    return [el("h3", {}, ui.garlic_you_first, row ? el("span", { class: "g-ms" }, ` · ${R.ms(row.after_arm_us)} ms`) : null),
      el("p", { class: "g-what" }, what), turnTimer(game)];
  }

  // The first slapper's claim (S-S5), or the bat's three choices (S-S6): the same three places.
  function cardChooser(game, view, name) {
    const g = game.view;
    const mine = me(view);
    const myself = g.players.find((p) => p.seat === mine);
    const others = g.players.filter((p) => p.seat !== mine);
    const kinds = name === "claim" ? { up: "own_up", down: "own_down", other: "other_down" }
      : { up: "turn_down", down: "clear", other: "turn_up" };
    const actions = game.actions.filter((a) => a.name === name);
    const find = (kind, seat, slot) => actions.find((a) => a.args.kind === kind && a.args.slot === slot
      && (kind === kinds.other ? a.args.seat === seat : true));
    const label = (action) => (p, index, slot) => `${ui[`garlic_pick_${name}_${action}`]}: ${position(g, p.seat, index)}, ${slotLook(slot).words}`;
    const group = (title, body, empty) => el("div", { class: "g-group" }, el("h4", {}, title),
      empty ? el("p", { class: "hint" }, empty) : body);
    const upRow = pickRow(myself, (seat, index, slot) => (slot.up ? find(kinds.up, seat, index) : null), label("up"));
    const downRow = pickRow(myself, (seat, index, slot) => (!slot.up ? find(kinds.down, seat, index) : null), label("down"));
    const hasUp = actions.some((a) => a.args.kind === kinds.up);
    const hasDown = actions.some((a) => a.args.kind === kinds.down);
    const hasOther = actions.some((a) => a.args.kind === kinds.other);
    const otherRows = el("div", { class: "g-others" }, others.map((p) => el("div", { class: "g-other" },
      el("span", { class: "g-other-name" }, p.name),
      pickRow(p, (seat, index, slot) => (!slot.up ? find(kinds.other, seat, index) : null), label("other")))));
    const title = name === "claim" ? fill(ui.garlic_choose_claim, { card: target(g.dice) }) : ui.garlic_choose_bat;
    const out = game.actions.find((a) => a.name === (name === "claim" ? "no_claim" : "pass"));
    return el("section", { class: "g-choose", id: "garlic-choose", "data-phase": g.phase },
      chooserHead(game, view, title),
      group(ui[`garlic_group_${name}_up`], upRow, hasUp ? null : ui.garlic_none_up),
      group(ui[`garlic_group_${name}_down`], downRow, hasDown ? null : ui.garlic_none_down),
      group(ui[`garlic_group_${name}_other`], otherRows, hasOther ? null : ui.garlic_none_other),
      out ? el("div", { class: "g-out" }, actionButton(out, name === "claim" ? ui.garlic_no_claim : ui.garlic_pass,
        { id: name === "claim" ? "garlic-no-claim" : "garlic-pass", class: name === "claim" ? "danger" : "" }),
      name === "claim" ? el("p", { class: "hint" }, ui.garlic_no_claim_help) : null) : null);
  }

  // Real cards: the claim names whose card it is; the table sees which.
  function physicalChooser(game, view, name) {
    const g = game.view;
    const actions = game.actions.filter((a) => a.name === name);
    const label = (a) => {
      if (name === "moon") return a.args.face === "up" ? ui.garlic_moon_real_up : ui.garlic_moon_real_down;
      const kind = a.args.kind;
      const who = a.args.seat ? nameOf(g, a.args.seat) : "";
      return fill(ui[`garlic_real_${kind}`] || kind, { name: who });
    };
    const title = name === "claim" ? fill(ui.garlic_choose_claim, { card: target(g.dice) })
      : name === "bat" ? ui.garlic_choose_bat : ui.garlic_choose_moon_real;
    const out = game.actions.find((a) => a.name === (name === "claim" ? "no_claim" : "pass"));
    return el("section", { class: "g-choose physical", id: "garlic-choose", "data-phase": g.phase },
      chooserHead(game, view, title), el("p", { class: "hint" }, ui.garlic_real_help),
      el("div", { class: "g-choices" }, actions.map((a) => actionButton(a, label(a),
        { class: "g-choice", "data-kind": a.args.kind || a.args.face, "data-seat": a.args.seat ? String(a.args.seat) : null }))),
      out ? el("div", { class: "g-out" }, actionButton(out, name === "claim" ? ui.garlic_no_claim : ui.garlic_pass,
        { id: name === "claim" ? "garlic-no-claim" : "garlic-pass", class: name === "claim" ? "danger" : "" })) : null);
  }

  // The moon (S-S7): pick two cards anywhere, then look first or swap blind.
  const moonPick = { key: null, cards: [] };
  let redraw = null;
  function moonChooser(game, view) {
    const g = game.view;
    const key = `${game.id}:${g.round}`;
    if (moonPick.key !== key) { moonPick.key = key; moonPick.cards = []; }
    const moves = game.actions.filter((a) => a.name === "moon" && a.allowed);
    const pickable = (seat, index) => moves.some((a) => same(a.args.a, [seat, index]) || same(a.args.b, [seat, index]));
    const chosen = moonPick.cards;
    const isChosen = (seat, index) => chosen.some((c) => same(c, [seat, index]));
    const toggle = (seat, index) => {
      if (isChosen(seat, index)) moonPick.cards = chosen.filter((c) => !same(c, [seat, index]));
      else if (chosen.length < 2) moonPick.cards = [...chosen, [seat, index]];
      else moonPick.cards = [chosen[1], [seat, index]];
      if (redraw) redraw();
    };
    const rows = g.players.map((p) => el("div", { class: "g-other" },
      el("span", { class: "g-other-name" }, p.seat === me(view) ? `${p.name} (${ui.garlic_you})` : p.name),
      el("div", { class: "g-cards pickable" }, p.slots.map((slot, index) => {
        if (!pickable(p.seat, index)) return cardNode(slot);
        const on = isChosen(p.seat, index);
        return cardNode(slot, { selected: on, pressed: String(on), label: `${position(g, p.seat, index)}, ${slotLook(slot).words}`,
          button: { "data-seat": String(p.seat), "data-slot": String(index), onclick: () => toggle(p.seat, index) } });
      }))));
    const pair = chosen.length === 2 ? chosen : null;
    const matching = pair ? moves.filter((a) => (same(a.args.a, pair[0]) && same(a.args.b, pair[1]))
      || (same(a.args.a, pair[1]) && same(a.args.b, pair[0]))) : [];
    const look = matching.find((a) => a.args.look === true);
    const blind = matching.find((a) => a.args.look === false) || matching.find((a) => a.args.look === undefined);
    const pass = game.actions.find((a) => a.name === "pass");
    const buttons = [];
    if (look) buttons.push(actionButton(look, ui.garlic_look_first, { id: "garlic-look", class: "primary" }));
    if (blind) buttons.push(actionButton(blind, look ? ui.garlic_swap_blind : ui.garlic_swap, { id: "garlic-swap" }));
    if (pair && !matching.length) buttons.push(el("p", { class: "hint" }, ui.garlic_moon_not_pair));
    return el("section", { class: "g-choose moon", id: "garlic-choose", "data-phase": g.phase },
      chooserHead(game, view, g.moon_face_up_allowed ? ui.garlic_choose_moon_any : ui.garlic_choose_moon),
      g.moon_face_up_allowed ? el("p", { class: "hint" }, ui.garlic_moon_face_up) : null,
      el("p", { class: "g-picked" }, fill(ui.garlic_moon_chosen, { n: chosen.length })),
      el("div", { class: "g-others" }, rows),
      el("div", { class: "button-row" }, buttons,
        chosen.length ? el("button", { type: "button", onclick: () => { moonPick.cards = []; if (redraw) redraw(); } }, ui.garlic_start_again) : null),
      pass ? el("div", { class: "g-out" }, actionButton(pass, ui.garlic_pass, { id: "garlic-pass" })) : null);
  }

  // The two cards only this phone is shown (S-S7), while held (peek.js), then swap (or keep them in place, if allowed).
  function moonLook(game, view) {
    const g = game.view;
    const looking = g.looking || [];
    const where = [g.turn.a, g.turn.b];
    const swap = game.actions.find((a) => a.name === "swap");
    const keep = game.actions.find((a) => a.name === "keep");
    return el("section", { class: "g-choose look", id: "garlic-choose", "data-phase": g.phase },
      el("h3", {}, ui.garlic_look_title), turnTimer(game),
      el("div", { class: "g-secret" }, el("p", { class: "g-secret-note" }, ui.garlic_look_private),
        C.peek({ id: "garlic-look", content: () => el("div", { class: "g-cards" }, looking.map((card, i) => el("figure", { class: "g-looked" },
          cardNode({ up: true, ...card }), el("figcaption", {}, where[i] ? position(g, where[i][0], where[i][1]) : "")))) })),
      el("div", { class: "button-row" }, swap ? actionButton(swap, ui.garlic_swap, { id: "garlic-swap", class: "primary" }) : null,
        keep ? actionButton(keep, ui.garlic_keep, { id: "garlic-keep" }) : null));
  }

  // A penalty (S-S9): which of my coffins goes face up again.
  function penaltyChooser(game, view) {
    const g = game.view;
    const mine = me(view);
    const due = g.penalties.find((p) => p.seat === mine);
    const reopen = game.actions.filter((a) => a.name === "reopen");
    if (!due || !reopen.length) return null;
    const myself = g.players.find((p) => p.seat === mine);
    return el("section", { class: "g-choose penalty", id: "garlic-penalty" },
      el("h3", {}, fill(ui.garlic_penalty_title, { reason: reasonWords(due.reason) })), penaltyTimer(game, mine),
      pickRow(myself, (seat, index) => reopen.find((a) => a.args.slot === index),
        (p, index) => `${ui.garlic_reopen}: ${position(g, p.seat, index)}`));
  }

  // Real cards, judged by the other players: this phone's vote.
  function voteChooser(game, view) {
    const g = game.view;
    const votes = game.actions.filter((a) => a.name === "judge");
    if (g.phase !== "confirm" || !votes.length) return null;
    const right = votes.find((a) => a.args.right === true);
    const wrong = votes.find((a) => a.args.right === false);
    const voted = g.turn.votes && String(me(view)) in g.turn.votes;
    return el("section", { class: "g-choose vote", id: "garlic-vote" },
      el("h3", {}, ui.garlic_vote_title),
      voted ? el("p", { class: "hint" }, ui.garlic_voted) : null,
      el("div", { class: "button-row" }, right ? actionButton(right, ui.garlic_right, { id: "vote-right", class: "ok" }) : null,
        wrong ? actionButton(wrong, ui.garlic_wrong, { id: "vote-wrong", class: "danger" }) : null));
  }

  function chooser(game, view) {
    const g = game.view;
    const mine = me(view);
    if (g.turn.seat === mine) {
      if (g.phase === "claim" || g.phase === "bat") return g.mode === "physical" ? physicalChooser(game, view, g.phase) : cardChooser(game, view, g.phase);
      if (g.phase === "moon") return g.mode === "physical" ? physicalChooser(game, view, "moon") : moonChooser(game, view);
      if (g.phase === "moon_look") return moonLook(game, view);
    }
    return null;
  }

  function myCards(game, view) {
    const g = game.view;
    const myself = g.players.find((p) => p.seat === me(view));
    if (!myself) return null;
    return el("section", { class: "g-mine" },
      el("div", { class: "g-mine-head" }, el("h3", {}, ui.garlic_your_cards), cleared(g, myself)),
      el("div", { class: "g-cards" }, myself.slots.length ? myself.slots.map((slot) => cardNode(slot)) : el("span", { class: "muted" }, ui.garlic_no_cards)),
      g.phase === "over" ? null : el("p", { class: "hint" }, ui.garlic_memory_rule));
  }

  // -- the host's judgement (real cards) ----------------------------------------------------------
  function hostJudge(game) {
    const g = game.view;
    const votes = game.actions.filter((a) => a.name === "judge");
    if (g.phase !== "confirm" || !votes.length) return null;
    const right = votes.find((a) => a.args.right === true);
    const wrong = votes.find((a) => a.args.right === false);
    const send = (a) => C.send("host", a.name, a.args);
    return el("div", { class: "g-judge" },
      el("p", {}, ui.garlic_judge_host_title),
      el("div", { class: "button-row" },
        right ? el("button", { type: "button", id: "judge-right-host", class: "ok", disabled: !right.allowed,
          title: right.allowed ? null : C.reasonText(right.reason), onclick: () => send(right) }, ui.garlic_right) : null,
        wrong ? el("button", { type: "button", id: "judge-wrong-host", class: "danger", disabled: !wrong.allowed,
          title: wrong.allowed ? null : C.reasonText(wrong.reason), onclick: () => send(wrong) }, ui.garlic_wrong) : null));
  }

  C.games["garlic-slap"] = {
    announcesEnd: (game) => game.view.winner !== null,
    // The TV: one screen, never scrolled. On the left what happens now and every player's cards;
    // on the right the dice, the last thing that happened and why, the round's result, the
    // happenings before it (as many as the screen holds) and the notes.
    table(container, game, view) {
      const g = game.view;
      const over = g.phase === "over";
      const [latest, ...earlier] = g.happenings;
      const last = latest ? el("p", { class: "last-action g-last", "aria-live": "polite" }, happeningText(g, latest)) : null;
      const lately = earlier.length ? el("section", { class: "g-happenings" }, el("h3", {}, ui.garlic_latest),
        el("ol", { "data-fit": "trim" }, earlier.slice(0, 8).map((h) => el("li", { "data-kind": h.kind }, happeningText(g, h))))) : null;
      const body = el("div", { class: `garlic garlic-table phase-${g.phase}` },
        el("div", { class: "g-main" }, el("div", { class: "g-top" }, over ? null : dice(game, "table", "big"),
          status(game, view, "table")), zones(g, view, "tv")),
        el("div", { class: "g-aside" }, last, result(game, view, "big"),
          over ? R.board(g.board, view, true) : null, lately, notes(game, !over, true),
          el("div", { class: "button-row" }, R.soundToggle(),
            view.buttons && view.buttons.simulated ? el("p", { class: "hint" }, ui.garlic_keys_hint) : null)));
      container.replaceChildren(...[C.buttons.pairingBanner(view), body].filter(Boolean));
      cue(game);  // after drawing: starting the audio can take a while, the screen must not wait
    },
    seat(container, game, view) {
      redraw = () => C.games["garlic-slap"].seat(container, game, view);
      const g = game.view;
      const over = g.phase === "over";
      const choosing = chooser(game, view);
      let parts;
      if (choosing) {
        // The first slapper's turn: the dice (the target) and the choice, nothing else to read.
        parts = [dice(game, "me", "medium"), choosing];
      } else {
        const penalty = penaltyChooser(game, view);
        const vote = voteChooser(game, view);
        const mode = g.phase === "reaction" ? (g.turn.mode === "hands_off" ? "hands_off" : "race") : "idle";
        const buzzer = penalty || vote || over ? null : R.buzzer(mode, view,
          { race: ui.garlic_slap, idle: ui.garlic_buzz_wait, hands_off: ui.garlic_hands_off, name: ui.garlic_slap_name });
        // A penalty to choose says it all itself: no banner repeating it above.
        parts = [penalty ? null : status(game, view, "me"), dice(game, "me", "medium"), penalty, vote, buzzer, myLine(game, view),
          myCards(game, view), happenings(game, 3), over ? R.board(g.board, view, false) : null];
      }
      container.replaceChildren(el("div", { class: `garlic garlic-phone phase-${g.phase}` },
        parts, notes(game, false)));
    },
    undo: false,  // a roll is random and a claim shows a card: nothing for a player to take back
    host(container, game, view) {
      const g = game.view;
      container.replaceChildren(el("div", { class: `garlic garlic-host phase-${g.phase}` },
        status(game, view, "host"), hostJudge(game), dice(game, "host", "medium"), result(game, view, "medium"),
        zones(g, view, "small"), happenings(game, 5), notes(game, true), R.board(g.board, view, false)));
    },
  };
})(window.Companion);
