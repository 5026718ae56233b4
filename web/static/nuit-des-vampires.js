// La nuit des vampires (Jagd der Vampire): the ledger of a physical board game. The pawns stay on
// the real board; the companion keeps the bottles, the magic cards, the fate stacks, the hidden
// tomato, the dice and the duels. The TV shows every public fact; a phone shows its player's
// ledger and the choice the turn waits for; a Flying Vampire's peek is drawn on the peeker's phone
// alone (the server sends it to nobody else), and there only while its player holds it.
"use strict";
(function (C) {
  const { el, svg, ui, fill } = C;
  const GAME = "nuit-des-vampires";

  // -- drawing: inline SVG only ---------------------------------------------------------------------
  const art = (cls, viewBox, ...parts) => svg("svg", { viewBox, class: `n-icon ${cls}`, "aria-hidden": "true", focusable: "false" }, parts);

  // A ketchup bottle (full, or an empty outline for the room left under the limit).
  function bottle(full) {
    return art(`n-bottle${full ? " full" : ""}`, "0 0 16 32",
      svg("path", { d: "M6 1H10V8C10 9.5 13 10.5 13 13.5V29C13 30.2 12.2 31 11 31H5C3.8 31 3 30.2 3 29V13.5C3 10.5 6 9.5 6 8Z" }),
      full ? svg("rect", { x: 4.5, y: 17, width: 7, height: 7, rx: 1, class: "label" }) : null);
  }
  function onion() {
    return art("n-onion", "0 0 32 32",
      svg("path", { d: "M16 3C16 8 27 12 27 21A11 9 0 0 1 5 21C5 12 16 8 16 3Z", class: "bulb" }),
      svg("path", { d: "M16 8C13 13 12 19 13 29M16 8C19 13 20 19 19 29", class: "vein" }));
  }
  function tomato() {
    return art("n-tomato", "0 0 32 32",
      svg("circle", { cx: 16, cy: 18, r: 12, class: "fruit" }),
      svg("path", { d: "M16 6L13 3M16 6L19 3M16 6L10 8M16 6L22 8", class: "stem" }));
  }
  function towerArt(state) {
    return art(`n-tower-art ${state}`, "0 0 40 64",
      svg("polygon", { points: "20,1 37,22 3,22", class: "roof" }),
      svg("rect", { x: 6, y: 22, width: 28, height: 40, rx: 2, class: "wall" }),
      svg("rect", { x: 15, y: 40, width: 10, height: 22, rx: 5, class: "door" }));
  }
  function dieArt(colour, face) {
    const pips = { 1: [[16, 16]], 2: [[9, 9], [23, 23]], 3: [[9, 9], [16, 16], [23, 23]],
      4: [[9, 9], [23, 9], [9, 23], [23, 23]], 5: [[9, 9], [23, 9], [16, 16], [9, 23], [23, 23]],
      6: [[9, 8], [23, 8], [9, 16], [23, 16], [9, 24], [23, 24]] }[face] || [];
    return art(`n-die-art ${colour}`, "0 0 32 32", svg("rect", { x: 1.5, y: 1.5, width: 29, height: 29, rx: 6, class: "body" }),
      pips.map(([x, y]) => svg("circle", { cx: x, cy: y, r: 3, class: "pip" })),
      face > 6 ? svg("text", { x: 16, y: 21, "text-anchor": "middle", class: "num" }, document.createTextNode(String(face))) : null);
  }
  // Magic card families: a small mark each.
  const MARKS = {
    elixir: "M12 3H20V9L26 21A5 5 0 0 1 21.5 28H10.5A5 5 0 0 1 6 21L12 9Z",
    glove: "M9 29V14C9 12 12 12 12 14V6C12 4 15 4 15 6V13V4C15 2 18 2 18 4V13V6C18 4 21 4 21 6V15L23 12C24.5 10 27 11.5 26 13.5L21 24V29Z",
    tempo: "M3 16L13 8V13H21V8L31 16L21 24V19H13V24Z",
    bridge: "M2 12H30V16C25 16 22 20 22 26H19C19 21 18 19 16 19C14 19 13 21 13 26H10C10 20 7 16 2 16Z",
    duel: "M5 3L9 3L22 16L24 14L26 16L23 19L27 23L24 26L20 22L17 25L15 23L17 21L4 8Z",
  };
  const family = (kind) => (kind.startsWith("elixir") ? "elixir" : kind.startsWith("duel") ? "duel" : kind);
  const mark = (kind) => art(`n-mark ${family(kind)}`, "0 0 32 32", svg("path", { d: MARKS[family(kind)] || MARKS.tempo }));

  // -- words ------------------------------------------------------------------------------------------
  const token = (n) => `magic-${String(n).padStart(2, "0")}`;
  const nameOf = C.seatName;
  const me = C.mySeat;
  function colourName(name) {
    const m = /^fate-(\d)$/.exec(name || "");
    return m ? fill(ui.nuit_colour_n, { n: m[1] }) : name;
  }
  const colourIndex = (g, name) => g.colours.indexOf(name);
  function placeName(name) {
    if (name === "start" || name === "courtyard" || name === "oubliettes") return ui[`nuit_place_${name}`];
    return colourName(name);
  }
  function magicWords(card) {
    if (!card) return ui.nuit_card_unknown;
    const k = card.kind;
    if (k.startsWith("elixir")) return fill(ui.nuit_card_elixir, { n: card.value });
    if (k.startsWith("duel")) return fill(ui.nuit_card_duel, { n: card.value });
    return ui[`nuit_card_${k}`] || k;
  }
  function kindWords(kind) {
    if (kind.startsWith("elixir")) return ui.nuit_kind_elixir;
    if (kind.startsWith("duel")) return fill(ui.nuit_card_duel, { n: kind.slice(-1) });
    return ui[`nuit_card_${kind}`] || kind;
  }
  function fateWords(card) {
    if (!card) return "";
    return fill(ui[`nuit_fate_${card.kind}`] || card.kind, { n: card.n });
  }
  const isBad = (card) => card && card.kind.startsWith("lose_");
  const causeWords = (cause) => ui[`nuit_cause_${cause}`] || cause;
  // Every magic card any screen can name now (hands, display), by its number.
  function cardIndex(g) {
    const all = {};
    for (const p of g.players) for (const c of p.hand) all[c.card] = c;
    for (const c of g.display) all[c.card] = c;
    return all;
  }
  const cardByNumber = (g, n) => cardIndex(g)[token(n)] || null;
  const dieWords = (colour) => (colour === "red" ? ui.nuit_die_red : ui.nuit_die_black);

  function happeningText(g, h) {
    const name = nameOf(g, h.seat);
    const k = h.kind;
    if (k === "magic_played") {
      const c = h.card_kind;
      const card = { kind: c, value: c.startsWith("duel") ? Number(c.slice(-1)) : 0 };
      if (c === "tempo" && h.spaces) return fill(ui.nuit_h_tempo, { name, n: h.spaces });
      if (c === "bridge") return fill(h.use === "move" ? ui.nuit_h_bridge_move : h.use === "escape" ? ui.nuit_h_bridge_escape : ui.nuit_h_bridge_place, { name });
      if (c === "glove") return fill(ui.nuit_h_glove, { name, other: nameOf(g, h.from) });
      if (c.startsWith("elixir")) return fill(ui.nuit_h_cashed, { name });
      return fill(ui.nuit_h_played, { name, card: magicWords(card) });
    }
    switch (k) {
      case "start_tied": return fill(ui.nuit_h_start_tied, { names: h.seats.map((s) => nameOf(g, s)).join(", ") });
      case "starts": return fill(ui.nuit_h_starts, { name, total: h.total });
      case "bottles_taken": return fill(ui.nuit_h_bottles_taken, { name, n: h.taken, cause: causeWords(h.cause) });
      case "bottles_paid": return fill(ui.nuit_h_bottles_paid, { name, n: h.paid, cause: causeWords(h.cause) });
      case "magic_taken": {
        const card = cardByNumber(g, h.card);
        return fill(ui.nuit_h_magic_taken, { name, card: card ? magicWords(card) : ui.nuit_card_a, cause: causeWords(h.cause) });
      }
      case "magic_returned": return fill(ui.nuit_h_magic_returned, { name, n: h.cards.length });
      case "fate_drawn": {
        const last = g.last_fate && g.last_fate.card === `fatecard-${String(h.card).padStart(2, "0")}` ? g.last_fate : null;
        const seen = last || (g.fate_history || []).find((c) => c.card === `fatecard-${String(h.card).padStart(2, "0")}`);
        return fill(ui.nuit_h_fate_drawn, { name, colour: colourName(h.colour), card: seen ? fateWords(seen) : "" }).replace(/\s*:\s*$/, "");
      }
      case "tower_peeked": return fill(ui.nuit_h_tower_peeked, { name, tower: h.tower });
      case "tower_opened": return fill(h.content === "tomato" ? ui.nuit_h_opened_tomato : h.content === "onion" ? ui.nuit_h_opened_onion : ui.nuit_h_opened_empty, { name, tower: h.tower });
      case "moved": return fill(ui[`nuit_h_moved_${h.cause}`] || ui.nuit_h_moved_move, { name, place: placeName(h.to) });
      case "flew": return fill(ui.nuit_h_flew, { name, place: placeName(h.to) });
      case "won": return fill(ui.nuit_h_won, { name, tower: h.tower });
      case "move_begun": return fill(ui.nuit_h_move_begun, { name });
      case "magic_stolen": return fill(ui.nuit_h_stolen, { name, other: nameOf(g, h.from) });
      case "dice_rolled": return fill(ui.nuit_h_rolled, { name, red: h.red, black: h.black, total: h.total, purpose: ui[`nuit_purpose_${h.purpose}`] || h.purpose });
      case "duel_begun": return fill(ui.nuit_h_duel_begun, { a: nameOf(g, h.attacker), b: nameOf(g, h.defender) });
      case "duel_rolled": return fill(ui.nuit_h_duel_rolled, { round: h.round,
        totals: Object.entries(h.rolls).map(([s, r]) => `${nameOf(g, s)} ${r.total}`).join(" · ") });
      case "duel_won": return fill(ui.nuit_h_duel_won, { a: nameOf(g, h.winner), b: nameOf(g, h.loser) });
      case "oubliettes_left": return fill(ui[`nuit_h_left_${h.way}`] || ui.nuit_h_left_bribe, { name, n: h.paid });
      case "escape_failed": return fill(ui.nuit_h_escape_failed, { name, n: h.needed });
      case "tax_unpaid": return fill(ui.nuit_h_tax_unpaid, { name, n: h.tax });
      default: return k;
    }
  }

  // What the turn waits for, in one sentence (`mine`: said to the player who must answer).
  function waitWords(g, view, mine) {
    const t = g.turn || {};
    const who = nameOf(g, t.seat);
    const you = me(view);
    if (g.phase === "start_roll") {
      const waiting = g.start.waiting || [];
      if (mine && waiting.includes(you)) return ui.nuit_w_start_you;
      return fill(ui.nuit_w_start, { names: waiting.map((s) => nameOf(g, s)).join(", ") });
    }
    if (g.phase === "over") return "";
    if (t.stage === "duel") {
      const d = g.duel;
      if (mine && g.waiting.includes(you)) return ui.nuit_w_duel_you;
      const waiting = g.waiting.map((s) => nameOf(g, s)).join(", ");
      return fill(ui.nuit_w_duel, { a: nameOf(g, d.attacker), b: nameOf(g, d.defender), names: waiting });
    }
    const key = `nuit_w_${t.stage}${mine && t.seat === you ? "_you" : ""}`;
    const params = { name: who, n: t.count || t.amount || t.pips || 0, place: placeName(t.at),
      loser: t.loser ? nameOf(g, t.loser) : "", why: t.why ? ui[`nuit_purpose_${t.why}`] : "" };
    return fill(ui[key] || ui[`nuit_w_${t.stage}`] || t.stage, params);
  }

  // -- pieces -------------------------------------------------------------------------------------------
  function bottles(g, p, size) {
    const max = g.options.max_bottles;
    const glyphs = [];
    for (let i = 0; i < Math.max(max, p.bottles); i++) glyphs.push(bottle(i < p.bottles));
    return el("span", { class: `n-bottles ${size || ""}`, role: "img", "aria-label": fill(ui.nuit_bottles_n, { n: p.bottles, max }) },
      el("strong", { class: "n-count", "aria-hidden": "true" }, String(p.bottles)),
      el("span", { class: "n-glyphs", "aria-hidden": "true" }, glyphs));
  }
  function onions(p) {
    if (!p.onions) return null;
    return el("span", { class: "n-onions", role: "img", "aria-label": fill(ui.nuit_onions_n, { n: p.onions }) },
      Array.from({ length: p.onions }, onion), el("span", { "aria-hidden": "true" }, fill(ui.nuit_onions_n, { n: p.onions })));
  }
  function magicCard(card, attrs) {
    const fam = card ? family(card.kind) : "none";
    return el("span", { class: `n-card k-${fam}`, "data-card": card ? card.card : null, "data-kind": card ? card.kind : null, ...(attrs || {}) },
      card ? mark(card.kind) : null, el("span", { class: "n-card-words" }, magicWords(card)));
  }
  function hand(p, empty) {
    return el("div", { class: "n-hand" }, p.hand.length ? p.hand.map((c) => magicCard(c)) : el("span", { class: "muted" }, empty || ui.nuit_no_cards));
  }
  function location(g, p) {
    const i = colourIndex(g, p.location);
    return el("span", { class: `n-place${i >= 0 ? ` c${i}` : ` p-${p.location}`}` }, placeName(p.location));
  }
  function fateCard(g, card, big) {
    if (!card) return el("div", { class: "n-fate none" }, el("span", { class: "muted" }, ui.nuit_no_fate_yet));
    const i = colourIndex(g, card.colour);
    return el("div", { class: `n-fate c${i}${big ? " big" : ""}${isBad(card) ? " bad" : " good"}`, "data-card": card.card, "data-kind": card.kind },
      el("span", { class: "n-fate-colour" }, colourName(card.colour)),
      card.kind === "flying_vampire" ? el("span", { class: "n-bat" }, art("n-bat-art", "0 0 64 40",
        svg("path", { d: "M2 10C10 5 18 5 24 11L27 4L29.5 8.5H34.5L37 4L40 11C46 5 54 5 62 10C56 14 54 20 54 27C50 22 45 22 42 27C40 22 36 21 32 27C28 21 24 22 22 27C19 22 14 22 10 27C10 20 8 14 2 10Z" }))) : null,
      el("strong", { class: "n-fate-words" }, fateWords(card)),
      el("span", { class: "n-fate-tag" }, isBad(card) ? ui.nuit_fate_bad : ui.nuit_fate_good));
  }
  function towerNode(t, g) {
    const over = g.phase === "over";
    let cls = "closed";
    let words = ui.nuit_tower_closed;
    let inside = null;
    if (t.opened) {
      cls = `opened found-${t.found}${t.empty ? " empty" : ""}`;
      inside = t.found;
      words = t.found === "tomato" ? ui.nuit_tower_tomato : t.found === "onion" ? (t.empty ? ui.nuit_tower_onion_taken : ui.nuit_tower_onion) : ui.nuit_tower_opened;
    } else if (over && t.content) {
      cls = `shown holds-${t.content}`;
      inside = t.content;
      words = t.content === "tomato" ? ui.nuit_tower_tomato : ui.nuit_tower_onion;
    }
    const label = fill(ui.nuit_tower_n, { n: t.tower });
    return el("figure", { class: `n-tower ${cls}`, "data-tower": String(t.tower), role: "img", "aria-label": `${label}: ${words}` },
      towerArt(inside === "tomato" ? "tomato" : t.opened ? "opened" : "closed"),
      inside === "tomato" ? tomato() : inside === "onion" ? onion() : null,
      el("figcaption", { "aria-hidden": "true" }, el("strong", {}, label), el("span", {}, words)));
  }
  function towers(g) {
    return el("section", { class: "n-towers" }, el("h3", {}, ui.nuit_towers),
      el("div", { class: "n-tower-row" }, g.towers.map((t) => towerNode(t, g))));
  }
  function seal(g) {
    const s = g.seal;
    if (!s) return null;
    const short = s.commitment.slice(0, 12).match(/.{4}/g).join(" ");
    return el("section", { class: "n-seal" },
      el("p", {}, el("strong", {}, ui.nuit_seal), " ", el("code", { class: "fingerprint", title: s.commitment }, short)),
      s.salt ? el("p", { class: "n-seal-open" }, fill(ui.nuit_seal_open, { tower: s.tomato }), " ",
        el("span", { class: "hint" }, `${ui.nuit_salt} `, el("code", {}, s.salt))) : el("p", { class: "hint" }, ui.nuit_seal_help));
  }
  function lastRoll(g) {
    const r = g.last_roll;
    if (!r) return null;
    return el("section", { class: "n-roll", "data-purpose": r.purpose },
      el("h3", {}, fill(ui.nuit_last_roll, { name: nameOf(g, r.seat), purpose: ui[`nuit_purpose_${r.purpose}`] || r.purpose })),
      el("div", { class: "n-dice" }, dieArt("red", r.red), dieArt("black", r.black), el("strong", {}, `= ${r.total}`)));
  }
  function display(g, size) {
    return el("section", { class: `n-display ${size || ""}` },
      el("h3", {}, ui.nuit_display), el("div", { class: "n-hand" }, g.display.map((c) => magicCard(c))),
      el("p", { class: "hint" }, fill(ui.nuit_deck_n, { n: g.deck })));
  }
  function stacks(g) {
    return el("section", { class: "n-stacks" }, el("h3", {}, ui.nuit_fate_stacks),
      el("div", { class: "n-stack-row" }, g.fate_stacks.map((s, i) => el("span", { class: `n-stack c${i}` },
        el("strong", {}, colourName(s.colour)), el("span", {}, fill(ui.nuit_cards_n, { n: s.cards }))))));
  }
  function history(g) {
    if (!g.fate_history) return null;
    return el("section", { class: "n-history" }, el("h3", {}, ui.nuit_assist),
      g.fate_history.length ? el("ol", { start: String(Math.max(1, g.fate_history.length - 7)) }, g.fate_history.slice(-8).map((c) => el("li", { class: `c${colourIndex(g, c.colour)}` },
        fill(ui.nuit_history_line, { colour: colourName(c.colour), card: fateWords(c) })))) : el("p", { class: "hint" }, ui.nuit_assist_empty));
  }
  function happenings(g, count) {
    if (!g.happenings.length) return null;
    return el("section", { class: "n-happenings", "aria-live": "polite" }, el("h3", {}, ui.nuit_latest),
      el("ol", {}, g.happenings.slice(0, count).map((h) => el("li", { "data-kind": h.kind }, happeningText(g, h)))));
  }
  function unverified(g) {
    if (!g.unverified || !g.unverified.length) return null;
    return el("p", { class: "n-unverified hint" }, el("strong", {}, ui.nuit_unverified_title), " ",
      g.unverified.map((k) => ui[`nuit_opt_${k}`] || k).join(", "));
  }
  function startRolls(g) {
    const s = g.start;
    const rows = g.players.map((p) => {
      const r = s.rolls[String(p.seat)];
      const out = !s.contenders.includes(p.seat);
      return el("li", { class: out ? "out" : "" }, el("span", {}, p.name),
        r ? el("span", { class: "n-dice" }, dieArt("red", r.red), dieArt("black", r.black), el("strong", {}, `= ${r.total}`))
          : el("span", { class: "muted" }, out ? ui.nuit_start_out : ui.nuit_start_waiting));
    });
    return el("section", { class: "n-start" }, el("h3", {}, fill(ui.nuit_start_round, { n: s.round || 1 })), el("ol", {}, rows));
  }

  // The duel: the attacker's red die against the defender's black one, the cards, the totals.
  function duel(g, view) {
    const d = g.duel;
    if (!d) return null;
    // After a tie the new round has not rolled yet: each side shows the tied round's total.
    const waiting = !d.rolls && d.tied;
    const side = (seat) => {
      const key = String(seat);
      const colour = d.dice[key];
      const roll = d.rolls ? d.rolls[key] : null;
      const before = waiting && d.tied[key] ? d.tied[key] : null;
      const ready = d.ready.includes(seat);
      const plays = (d.played[key] || []).length;
      return el("div", { class: `n-side ${colour}${d.winner === seat ? " won" : ""}${d.loser === seat ? " lost" : ""}`, "data-seat": key },
        el("strong", { class: "n-side-name" }, nameOf(g, seat), seat === me(view) ? ` (${ui.nuit_you})` : ""),
        el("span", { class: "n-side-die" }, roll ? dieArt(colour, roll.face) : dieArt(colour, 0), dieWords(colour)),
        plays ? el("span", { class: "n-side-cards" }, fill(ui.nuit_duel_cards_n, { n: plays })) : null,
        roll ? el("span", { class: "n-side-total" }, roll.bonus ? `${roll.face} + ${roll.bonus} = ${roll.total}` : `${roll.total}`)
          : el("span", { class: "n-side-ready" }, ready ? ui.nuit_duel_ready : ui.nuit_duel_choosing),
        before ? el("span", { class: "n-side-before" }, fill(ui.nuit_duel_before, { round: d.round - 1, total: before.total })) : null);
    };
    const tiedRolls = d.tied ? Object.values(d.tied) : [];
    return el("section", { class: `n-duel${d.winner ? " over" : ""}`, "data-round": String(d.round), "aria-live": "polite" },
      el("h3", {}, fill(ui.nuit_duel_title, { place: placeName(d.at), round: d.round })),
      el("div", { class: "n-duel-row" }, side(d.attacker), el("span", { class: "n-vs" }, ui.nuit_vs), side(d.defender)),
      tiedRolls.length ? el("p", { class: "n-tied" }, fill(waiting ? ui.nuit_duel_tied : ui.nuit_duel_was_tied,
        { total: tiedRolls[0].total, round: d.round - 1 })) : null,
      d.winner ? el("p", { class: "n-duel-winner" }, fill(ui.nuit_duel_won, { a: nameOf(g, d.winner), b: nameOf(g, d.loser) })) : null);
  }

  function badges(g, p, view) {
    const list = [];
    if (g.winner === p.seat) list.push(el("span", { class: "n-badge win" }, ui.nuit_winner));
    if (g.phase === "turn" && g.current === p.seat) list.push(el("span", { class: "n-badge turn whose-turn" }, ui.nuit_turn_badge));
    if (g.phase !== "over" && g.waiting.includes(p.seat) && !(g.phase === "turn" && g.current === p.seat)) {
      list.push(el("span", { class: "n-badge wait whose-turn" }, ui.nuit_waiting_badge));
    }
    if (view.you && view.you.seat === p.seat) list.push(el("span", { class: "n-badge you" }, ui.nuit_you));
    return list;
  }
  function playerZone(g, p, view, size) {
    const cls = ["n-player", size];
    if (g.phase === "turn" && g.current === p.seat) cls.push("current");
    if (g.winner === p.seat) cls.push("n-won");
    return el("section", { class: cls.join(" "), "data-seat": String(p.seat), "aria-label": p.name },
      el("header", {}, el("h3", { class: "n-name" }, p.name), el("span", { class: "n-badges" }, badges(g, p, view))),
      el("div", { class: "n-line" }, bottles(g, p, size), onions(p), location(g, p)),
      hand(p));
  }
  function players(g, view, size, except) {
    return el("div", { class: `n-players ${size}` }, g.players.filter((p) => p.seat !== except).map((p) => playerZone(g, p, view, size)));
  }

  function status(g, view, role) {
    const over = g.phase === "over";
    if (over) {
      const line = g.winner === null || g.winner === undefined ? ui.nuit_ended
        : role === "me" && g.winner === me(view) ? ui.nuit_you_win : fill(ui.nuit_wins, { name: nameOf(g, g.winner) });
      const t = g.seal && g.seal.tomato;
      return el("div", { class: "n-status over", role: "status" },
        g.winner ? tomato() : null, el("p", { class: "n-big" }, line),
        t ? el("p", { class: "n-line-small" }, fill(ui.nuit_tomato_was, { tower: t })) : null);
    }
    const mine = role === "me" && g.waiting.includes(me(view));
    const head = g.phase === "turn" ? (g.current === me(view) && role === "me" ? ui.nuit_your_turn : fill(ui.nuit_turn_of, { name: nameOf(g, g.current) })) : ui.nuit_start_title;
    return el("div", { class: `n-status whose-turn${mine ? " mine" : ""}${g.turn && g.turn.stage === "duel" ? " duel" : ""}`, role: "status", "data-stage": g.phase === "turn" ? g.turn.stage : g.phase },
      el("p", { class: "n-big" }, head), el("p", { class: "n-what" }, waitWords(g, view, role === "me")));
  }

  // -- the phone's choices ----------------------------------------------------------------------------
  // Every nuit button is an n-btn; `showReason: false` keeps a refusal to the button's tooltip.
  function actionButton(action, label, attrs) {
    const { showReason, ...a } = attrs || {};
    return C.actionButton(action, label, { ...a, class: `n-btn${a.class ? ` ${a.class}` : ""}` }, "n-act", showReason === false);
  }
  const find = (game, name, test) => game.actions.find((a) => a.name === name && (!test || test(a.args)));
  const all = (game, name, test) => game.actions.filter((a) => a.name === name && (!test || test(a.args)));
  const group = (title, ...body) => el("div", { class: "n-group" }, title ? el("h4", {}, title) : null, body.flat(Infinity));
  const row = (...items) => el("div", { class: "n-choices" }, items.flat(Infinity));

  // The stop form: how many spaces (their cost), then where the pawn stopped.
  const stopPick = { key: null, spaces: 1, give: [] };
  let redraw = null;
  function stopForm(game, g) {
    const key = `${game.id}:${g.turns}`;
    if (stopPick.key !== key) { stopPick.key = key; stopPick.spaces = 1; stopPick.give = []; }
    const stops = all(game, "stop");
    if (!stops.length) return null;
    const tempo = (g.move && g.move.tempo) || 0;
    const spaces = [1, 2, 3].map((n) => {
      const any = stops.filter((a) => a.args.spaces === n);
      const allowed = any.some((a) => a.allowed);
      const cost = n - 1;
      const reason = !allowed && any.length ? C.reasonText(any[0].reason) : "";
      return el("button", { type: "button", class: `n-btn n-spaces${stopPick.spaces === n ? " chosen" : ""}`, "data-spaces": String(n),
        "aria-pressed": String(stopPick.spaces === n), disabled: !allowed, title: reason || null,
        onclick: () => { stopPick.spaces = n; if (redraw) redraw(); } },
      el("strong", {}, fill(ui.nuit_spaces_n, { n })),
      el("span", { class: "n-cost" }, cost ? fill(ui.nuit_cost_bottles, { n: cost }) : ui.nuit_cost_free));
    });
    const reasons = [1, 2, 3].map((n) => stops.find((a) => a.args.spaces === n && !a.allowed)).filter(Boolean);
    const chosen = stops.filter((a) => a.args.spaces === stopPick.spaces);
    const places = chosen.map((a) => {
      const i = colourIndex(g, a.args.at);
      return actionButton(a, placeName(a.args.at), { class: `n-place-btn ${i >= 0 ? `c${i}` : "courtyard"}`, "data-at": a.args.at, showReason: false });
    });
    const blocked = reasons.find((a) => a.args.spaces === 3) || reasons[0];
    return group(ui.nuit_stop_title,
      tempo ? el("p", { class: "hint" }, fill(ui.nuit_tempo_extra, { n: tempo })) : null,
      el("div", { class: "n-choices spaces" }, spaces),
      blocked ? el("p", { class: "hint reason" }, `${fill(ui.nuit_spaces_n, { n: blocked.args.spaces })}: ${C.reasonText(blocked.reason)}`) : null,
      el("p", { class: "n-sub" }, ui.nuit_stop_where),
      el("div", { class: "n-choices places" }, places),
      el("p", { class: "hint" }, ui.nuit_courtyard_help));
  }

  function magicPlays(game, g, view) {
    const plays = all(game, "play");
    if (!plays.length) return null;
    const mine = g.players.find((p) => p.seat === me(view));
    const byCard = {};
    for (const a of plays) (byCard[a.args.card] = byCard[a.args.card] || []).push(a);
    const lines = Object.entries(byCard).map(([n, acts]) => {
      const card = mine.hand.find((c) => c.card === token(n)) || { kind: "tempo", value: 0, card: token(n) };
      let buttons;
      if (card.kind === "tempo") {
        buttons = acts.map((a) => actionButton(a, fill(ui.nuit_tempo_n, { n: a.args.spaces }), { showReason: false }));
      } else if (card.kind === "bridge") {
        buttons = acts.map((a) => actionButton(a, a.args.use === "move" ? ui.nuit_bridge_move : ui.nuit_bridge_place, { showReason: false }));
      } else {
        buttons = acts.map((a) => actionButton(a, fill(ui.nuit_glove_take, { card: magicWords(cardByNumber(g, a.args.take)), name: nameOf(g, a.args.from) }), { showReason: false }));
      }
      const blocked = acts.find((a) => !a.allowed);
      return el("div", { class: "n-play" }, magicCard(card), el("div", { class: "n-choices" }, buttons),
        blocked && !acts.some((a) => a.allowed) ? el("p", { class: "hint reason" }, C.reasonText(blocked.reason)) : null);
    });
    return group(fill(ui.nuit_play_title, { n: g.move.played || 0, max: g.options.max_magic_per_move }), lines);
  }

  function takeButtons(game, g) {
    return all(game, "take").map((a) => actionButton(a, magicWords(cardByNumber(g, a.args.card)), { class: "n-take", "data-card": token(a.args.card) }));
  }
  function skipButton(game, label, cls) {
    const a = find(game, "skip");
    return a ? actionButton(a, label, { class: cls || "", id: "nuit-skip" }) : null;
  }

  // Give back: choose the cards, then confirm the one matching action.
  function giveBack(game, g, view) {
    const t = g.turn;
    const mine = g.players.find((p) => p.seat === me(view));
    const need = Math.min(t.count, mine.hand.length);
    const key = `${game.id}:${g.turns}:give`;
    if (stopPick.key !== key) { stopPick.key = key; stopPick.give = []; }
    const chosen = stopPick.give;
    const toggle = (n) => {
      stopPick.give = chosen.includes(n) ? chosen.filter((x) => x !== n) : [...chosen, n].slice(-need);
      if (redraw) redraw();
    };
    const numberOf = (c) => Number(c.card.slice(6));
    const cards = mine.hand.map((c) => {
      const n = numberOf(c);
      const on = chosen.includes(n);
      return el("button", { type: "button", class: `n-pick${on ? " chosen" : ""}`, "aria-pressed": String(on), "data-card": c.card, onclick: () => toggle(n) }, magicCard(c));
    });
    const same = (args) => args.cards.length === chosen.length && args.cards.every((x) => chosen.includes(x));
    const match = chosen.length === need ? find(game, "give_back", same) : null;
    return group(fill(ui.nuit_give_back_title, { n: need }), el("div", { class: "n-choices" }, cards),
      el("p", { class: "hint" }, fill(ui.nuit_chosen_n, { n: chosen.length, need })),
      match ? actionButton(match, ui.nuit_give_back_confirm, { class: "primary", id: "nuit-give-back" })
        : el("button", { type: "button", class: "n-btn primary", disabled: true, id: "nuit-give-back" }, ui.nuit_give_back_confirm));
  }

  function choice(game, g, view) {
    const t = g.turn || {};
    const you = me(view);
    if (g.phase === "start_roll") {
      const roll = find(game, "roll");
      return roll ? group(null, actionButton(roll, ui.nuit_roll_start, { class: "primary big", id: "nuit-roll" })) : null;
    }
    if (g.phase === "turn" && t.stage === "meet" && !g.waiting.includes(you)) {
      // N-T2: standing on the space the mover stopped on, this player may call the duel.
      const call = find(game, "duel", (args) => args.seat === you);
      return call ? group(fill(ui.nuit_meet_called_title, { name: nameOf(g, t.seat), place: placeName(t.at) }),
        row(actionButton(call, ui.nuit_call_duel, { class: "primary big", id: "nuit-call-duel" })),
        el("p", { class: "hint" }, fill(ui.nuit_call_duel_help, { name: nameOf(g, t.seat) }))) : null;
    }
    if (g.phase !== "turn" || !g.waiting.includes(you)) return null;
    const mine = g.players.find((p) => p.seat === you);
    switch (t.stage) {
      case "choose": {
        const buttons = [];
        for (const a of all(game, "move")) {
          const way = a.args.way;
          const label = !way ? ui.nuit_move : way === "bribe" ? fill(ui.nuit_escape_bribe, { n: g.options.oubliette_bribe })
            : way === "roll" ? ui.nuit_escape_roll : ui.nuit_escape_bridge;
          buttons.push(actionButton(a, label, { class: way ? "" : "primary big", "data-way": way || null }));
        }
        const rep = find(game, "replenish");
        if (rep) buttons.push(actionButton(rep, ui.nuit_replenish, { class: "big" }));
        return group(mine.location === "oubliettes" ? ui.nuit_in_oubliettes : null, row(buttons),
          el("p", { class: "hint" }, ui.nuit_choose_help));
      }
      case "moving": {
        const bonus = g.move.bonus > 0 ? group(fill(ui.nuit_onion_bonus, { n: g.move.bonus }), row(takeButtons(game, g))) : null;
        return [bonus, stopForm(game, g), magicPlays(game, g, view)];
      }
      case "meet":
        return group(fill(ui.nuit_meet_title, { place: placeName(t.at) }),
          row(all(game, "duel").map((a) => actionButton(a, fill(ui.nuit_duel_with, { name: nameOf(g, a.args.seat) }), { class: "primary", "data-seat": String(a.args.seat) })),
            skipButton(game, ui.nuit_nobody_here)));
      case "duel": {
        const d = g.duel;
        const colour = d.dice[String(you)];
        const ready = find(game, "ready");
        const cards = all(game, "duel_card").map((a) => actionButton(a, fill(ui.nuit_play_card, { card: magicWords(cardByNumber(g, a.args.card)) }), { class: "n-duel-card" }));
        const faces = g.options[`${colour}_die`] || [];
        return el("section", { class: `n-duel-prompt ${colour}`, id: "nuit-duel-prompt" },
          el("h4", {}, fill(ui.nuit_duel_prompt, { name: nameOf(g, you === d.attacker ? d.defender : d.attacker) })),
          el("p", { class: "n-side-die" }, dieArt(colour, 0), fill(ui.nuit_you_roll, { die: dieWords(colour), faces: faces.join(" ") })),
          d.tied ? el("p", { class: "n-tied" }, ui.nuit_duel_swapped) : null,
          cards.length ? row(cards) : el("p", { class: "hint" }, ui.nuit_no_duel_cards),
          ready ? row(actionButton(ready, ui.nuit_ready, { class: "primary big", id: "nuit-ready" })) : null);
      }
      case "reward":
        return group(ui.nuit_reward_title, row(takeButtons(game, g), skipButton(game, ui.nuit_no_thanks)));
      case "push":
        return group(fill(ui.nuit_push_title, { name: nameOf(g, t.loser) }), el("p", { class: "hint" }, ui.nuit_push_help),
          row(all(game, "push").map((a) => actionButton(a, placeName(a.args.to), { class: `n-place-btn c${colourIndex(g, a.args.to)}`, "data-at": a.args.to })),
            skipButton(game, ui.nuit_push_skip)));
      case "give_back": return giveBack(game, g, view);
      case "pick": return group(ui.nuit_pick_title, row(takeButtons(game, g), skipButton(game, ui.nuit_no_thanks)));
      case "flying": {
        const here = placeName(mine.location);
        return [group(ui.nuit_fly_title, el("p", { class: "hint" }, g.options.flying_vampire_target === "any_space" ? ui.nuit_fly_any : fill(ui.nuit_fly_same, { place: here })),
          row(all(game, "fly").map((a) => actionButton(a, fill(ui.nuit_fly_to, { place: placeName(a.args.to) }), { class: `n-place-btn c${colourIndex(g, a.args.to)}`, "data-at": a.args.to })))),
        group(ui.nuit_peek_title, el("p", { class: "hint" }, ui.nuit_peek_help),
          row(all(game, "peek").map((a) => actionButton(a, fill(ui.nuit_tower_n, { n: a.args.tower }), { class: "n-tower-btn", "data-tower": String(a.args.tower) })))),
        row(skipButton(game, ui.nuit_no_thanks))];
      }
      case "split":
        return group(fill(ui.nuit_split_title, { n: t.pips }), el("p", { class: "hint" }, ui.nuit_split_help),
          row(takeButtons(game, g)), row(skipButton(game, fill(ui.nuit_rest_bottles, { n: t.pips }), "primary")));
      case "fate": {
        const draw = find(game, "draw_fate");
        return group(fill(ui.nuit_fate_title, { place: placeName(mine.location) }),
          row(draw ? actionButton(draw, ui.nuit_draw_fate, { class: "primary" }) : null, skipButton(game, ui.nuit_no_thanks)));
      }
      case "debt": {
        const pay = find(game, "pay");
        return group(fill(t.why === "escape" ? ui.nuit_debt_escape : ui.nuit_debt_tax, { n: t.amount }),
          el("p", { class: "hint" }, ui.nuit_debt_help),
          row(pay ? actionButton(pay, fill(ui.nuit_pay_n, { n: t.amount }), { class: "primary" }) : null,
            skipButton(game, t.why === "escape" ? ui.nuit_give_up_escape : ui.nuit_give_up_tax, "danger")));
      }
      case "tower": {
        const opens = all(game, "open");
        const physical = opens.some((a) => a.args.found);
        return group(ui.nuit_tower_title, el("p", { class: "hint" }, physical ? ui.nuit_tower_physical : ui.nuit_tower_help),
          row(opens.map((a) => actionButton(a, physical ? fill(ui[`nuit_found_${a.args.found}`], { n: a.args.tower }) : fill(ui.nuit_open_n, { n: a.args.tower }),
            { class: "n-tower-btn big", "data-tower": String(a.args.tower), "data-found": a.args.found || null }))));
      }
      default: return null;
    }
  }

  // The peek: what this seat alone saw in a tower (the server sends it to this phone only), drawn
  // only while the player holds it (peek.js): a glance at the phone on the table tells nothing.
  function peeked(g) {
    const list = (g.peeked || []);
    if (!list.length) return null;
    return el("section", { class: "n-secret", id: "nuit-peeked" }, el("h3", {}, ui.nuit_peek_secret),
      C.peek({ id: "nuit-peeked", content: () => el("ul", {}, list.map((t) => el("li", { "data-tower": String(t.tower), "data-content": t.content },
        t.content === "tomato" ? tomato() : onion(),
        fill(t.content === "tomato" ? ui.nuit_peek_tomato : ui.nuit_peek_onion, { n: t.tower })))) }),
      el("p", { class: "hint" }, ui.nuit_peek_private));
  }

  function myLedger(game, g, view) {
    const mine = g.players.find((p) => p.seat === me(view));
    if (!mine) return null;
    const cash = game.actions.filter((a) => a.name === "cash");
    const cards = mine.hand.map((c) => {
      const action = cash.find((a) => token(a.args.card) === c.card);
      if (!action) return magicCard(c);
      return el("span", { class: "n-cashable" }, magicCard(c),
        actionButton(action, fill(ui.nuit_cash, { n: c.value }), { class: "n-cash", showReason: false }));
    });
    return el("section", { class: "n-mine", "data-seat": String(mine.seat) },
      el("div", { class: "n-line" }, bottles(g, mine, "big"), onions(mine), location(g, mine)),
      el("div", { class: "n-hand" }, cards.length ? cards : el("span", { class: "muted" }, ui.nuit_no_cards)),
      el("p", { class: "hint" }, fill(ui.nuit_limits, { bottles: g.options.max_bottles, cards: g.options.max_magic })));
  }

  function compactOthers(g, view) {
    const others = g.players.filter((p) => p.seat !== me(view));
    return el("section", { class: "n-others" }, el("h3", {}, ui.nuit_others),
      el("ul", {}, others.map((p) => el("li", { "data-seat": String(p.seat), class: g.current === p.seat ? "current" : "" },
        el("strong", {}, p.name), " ", el("span", { class: "n-mini" }, fill(ui.nuit_mini, { n: p.bottles })), " ", location(g, p),
        p.onions ? onions(p) : null,
        el("div", { class: "n-hand small" }, p.hand.map((c) => magicCard(c)))))));
  }

  function board(g, size) {
    return el("div", { class: `n-board ${size}` }, display(g, size), stacks(g),
      el("section", { class: "n-last-fate" }, el("h3", {}, ui.nuit_last_fate), fateCard(g, g.last_fate, size === "big")));
  }

  C.games[GAME] = {
    announcesEnd: (game) => game.view.phase === "over",
    // The TV: one screen, never scrolled. On top whose turn it is, the last thing that happened
    // (and a duel, beside them); every player's panel; then the board: the magic cards, the fate
    // stacks and the last fate card, the last roll, the towers and the earlier happenings (as
    // many as the screen holds).
    table(container, game, view) {
      const g = game.view;
      const over = g.phase === "over";
      const rollAll = g.phase === "start_roll" ? find(game, "roll") : null;
      const [latest, ...earlier] = g.happenings;
      // The latest happening is the first of the list of happenings, shown apart.
      const last = latest ? el("section", { class: "n-happenings last-action", "aria-live": "polite" },
        el("ol", {}, el("li", { "data-kind": latest.kind }, happeningText(g, latest)))) : null;
      const lately = earlier.length ? el("section", { class: "n-happenings" }, el("h3", {}, ui.nuit_latest),
        el("ol", { "data-fit": "trim" }, earlier.slice(0, 8).map((h) => el("li", { "data-kind": h.kind }, happeningText(g, h))))) : null;
      const told = history(g);
      if (told && told.querySelector("ol")) told.querySelector("ol").dataset.fit = "trim";
      const fight = duel(g, view);
      const note = unverified(g);
      // Five or six panels to a screen: each says its bottles by their number, without the row of them.
      const crowd = players(g, view, "big");
      if (g.players.length >= 5) crowd.dataset.many = "";
      const body = el("div", { class: `nuit nuit-table phase-${g.phase}${fight ? " in-duel" : ""}`, "data-position": String(view.position) },
        // A duel's band is taller than whose turn and the last action: the note on the defaults
        // fills the room beside it, instead of a line of its own at the foot.
        el("div", { class: "n-top" }, el("div", { class: "n-now" }, status(g, view, "table"), last, fight ? note : null,
          rollAll ? el("div", { class: "n-choices" }, el("button", { type: "button", id: "roll-table", class: "roll primary",
            disabled: !rollAll.allowed, "data-name": "roll", onclick: () => C.send("table", "roll") }, ui.nuit_roll_all)) : null),
        fight),
        g.phase === "start_roll" ? startRolls(g) : null,
        crowd,
        el("div", { class: "n-grid" },
          // Once over, the towers and the seal that proves where the tomato was come first.
          el("div", { class: "n-col" }, over ? towers(g) : [display(g, "big"), stacks(g)]),
          // A crowded screen leaves out the seal's explanation first, then draws the fate card smaller.
          el("div", { class: "n-col", "data-fit-steps": "2" }, el("section", { class: "n-last-fate" }, el("h3", {}, ui.nuit_last_fate),
            fateCard(g, g.last_fate, true)), over ? null : seal(g), lately),
          // A crowded screen draws the dice and towers smaller, then leaves out the towers' words
          // (the picture says the same: an open tower shows the onion taken from it).
          el("div", { class: "n-col", "data-fit-steps": "2" }, lastRoll(g), over ? null : towers(g), told)),
        // Once over, the seal (opened: the tomato's tower and the salt that proves it) across the foot.
        el("div", { class: "n-foot" }, over ? seal(g) : null, fight ? null : note));
      container.replaceChildren(body);
    },
    seat(container, game, view) {
      redraw = () => C.games[GAME].seat(container, game, view);
      const g = game.view;
      const over = g.phase === "over";
      const picked = choice(game, g, view);
      container.replaceChildren(el("div", { class: `nuit nuit-phone phase-${g.phase}`, "data-position": String(view.position) },
        status(g, view, "me"),
        myLedger(game, g, view),
        peeked(g),
        picked ? el("section", { class: "n-choose", id: "nuit-choose", "data-stage": g.phase === "turn" ? g.turn.stage : g.phase }, picked) : null,
        duel(g, view),
        over ? towers(g) : null,
        compactOthers(g, view),
        el("details", { class: "n-more" }, el("summary", {}, ui.nuit_more),
          display(g, "small"), stacks(g),
          over ? null : towers(g), lastRoll(g), history(g)),
        g.last_fate && !over ? el("section", { class: "n-last-fate small" }, el("h3", {}, ui.nuit_last_fate), fateCard(g, g.last_fate, false)) : null,
        happenings(g, 3)));
    },
    undo: false,  // dice, fate cards and towers are random or secret: nothing for a player to take back
    host(container, game, view) {
      const g = game.view;
      const rollAll = g.phase === "start_roll" ? find(game, "roll") : null;
      container.replaceChildren(el("div", { class: `nuit nuit-host phase-${g.phase}`, "data-position": String(view.position) },
        status(g, view, "host"),
        rollAll ? el("div", { class: "n-choices" }, el("button", { type: "button", id: "roll-host", class: "roll primary",
          disabled: !rollAll.allowed, title: rollAll.allowed ? null : C.reasonText(rollAll.reason),
          "data-name": "roll", onclick: () => C.send("host", "roll") }, ui.nuit_roll_all)) : null,
        g.phase === "start_roll" ? startRolls(g) : null,
        duel(g, view), players(g, view, "small"),
        el("div", { class: "n-cols" }, board(g, "small"), towers(g)),
        lastRoll(g), happenings(g, 5), seal(g), unverified(g)));
    },
  };
})(window.Companion);
