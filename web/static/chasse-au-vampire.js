// La chasse au vampire (Miro Meccano 1982): the sand glass that turns day into night mid-turn, and
// card stacks nobody may see. The companion keeps the stacks and the chapel pile on the server: no
// screen ever shows a card of them, only how many each holds, until the rules turn one face up (a
// riposte, a crypt deposit), which every screen then shows at once. The TV shows who is what (the
// pawns' colours are public), where each pawn stands, the glass, the crypt toward the trio, the
// transfusions under way and, on the companion's board, the map with the pawns; a phone shows its
// player's role, place and face-down pile, and only the moves the rules allow now, with the reason
// for a disabled one.
"use strict";
(function (C) {
  const { el, svg, ui, fill } = C;
  const GAME = "chasse-au-vampire";
  const PLACES = ["inn", "chapel", "crypt", "cemetery", "doctor", "circle", "elsewhere"];
  const WEAPONS = ["garlic", "water", "cross", "stake"];
  const TRIO = ["garlic", "water", "cross"];
  const nameOf = C.seatName;
  const me = C.mySeat;
  const listed = new Intl.ListFormat(C.lang, { type: "conjunction" });
  const names = (g, seats) => listed.format((seats || []).map((s) => nameOf(g, s)));
  const find = (game, name, test) => game.actions.find((a) => a.name === name && (!test || test(a.args)));
  const all = (game, name, test) => game.actions.filter((a) => a.name === name && (!test || test(a.args)));
  const player = (g, seat) => g.players.find((p) => p.seat === seat);
  const vampire = (p) => !!p && p.role !== "traveller";

  // -- drawing: inline SVG only --------------------------------------------------------------------
  // A pawn in its public colour: travellers white, disciples black, the master vampire black with a
  // red cape (the role is also written beside it: never the colour alone).
  function pawnArt(role) {
    return svg("svg", { viewBox: "0 0 24 32", class: `c-pawn ${role}`, "aria-hidden": "true", focusable: "false" },
      role === "master" ? svg("path", { d: "M3 30L7 14H17L21 30Z", class: "cape" }) : null,
      svg("circle", { cx: 12, cy: 8, r: 6, class: "body" }),
      svg("path", { d: "M6 30C6 21 8 15 12 15C16 15 18 21 18 30Z", class: "body" }));
  }
  // A face-down pile: as many backs as cards (up to four drawn), nothing on their faces.
  function pileArt(n) {
    const shown = Math.min(Math.max(n, 1), 4);
    const backs = [];
    for (let i = shown - 1; i >= 0; i -= 1) {
      backs.push(svg("rect", { x: 2 + i * 3, y: 2 + (shown - 1 - i) * 3, width: 18, height: 26, rx: 2.5,
        class: n ? "back" : "none" }));
    }
    return svg("svg", { viewBox: "0 0 32 40", class: "c-pile-art", "aria-hidden": "true", focusable: "false" }, backs);
  }

  // -- words ----------------------------------------------------------------------------------------
  const roleName = (role) => ui[`chasse_role_${role}`] || role;
  const placeName = (place) => ui[`chasse_place_${place}`] || place;
  const atPlace = (place) => ui[`chasse_at_${place}`] || placeName(place);
  const cardName = (kind, group) => fill(ui[`chasse_card_${kind}`] || kind, { group: group || "" });
  const aCard = (kind, group) => fill(ui[`chasse_a_card_${kind}`] || kind, { group: group || "" });
  const cardsN = (n) => fill(ui.chasse_cards_n, { n });
  const column = (n) => String.fromCharCode(65 + n);
  const squareName = (sq) => (sq ? `${column(sq[0])}${sq[1] + 1}` : "");
  const sameSquare = (a, b) => !!a && !!b && a[0] === b[0] && a[1] === b[1];


  function happeningText(g, h) {
    const kind = h.kind;  // its event's; the card a bite or a deposit showed is `card_kind`
    const name = nameOf(g, h.seat);
    switch (kind) {
      case "start_rolled": return fill(ui.chasse_h_start_rolled, { name, roll: h.roll });
      case "start_tied": return fill(ui.chasse_h_start_tied, { names: names(g, h.seats), roll: h.roll });
      case "master_chosen": return fill(ui.chasse_h_master_chosen, { name, roll: h.roll });
      case "cards_dealt": return ui.chasse_h_cards_dealt;
      case "glass_turned": return h.side === "night" ? ui.chasse_h_glass_night : ui.chasse_h_glass_day;
      case "glass_paused": return ui.chasse_h_glass_paused;
      case "glass_resumed": return ui.chasse_h_glass_resumed;
      case "glass_held": return ui.chasse_h_glass_held;
      case "turn_begun": return fill(ui.chasse_h_turn_begun, { name });
      case "turn_rolled": return fill(h.doubled ? ui[`chasse_h_rolled_${h.side}`] : ui.chasse_h_rolled,
        { name, roll: h.roll, n: h.allowance });
      case "pawn_moved": return fill(ui.chasse_h_moved, { name, at: atPlace(h.place) });
      case "pawn_blocked": return fill(ui.chasse_h_blocked, { name });
      case "bite_answered": return h.card_kind ? fill(ui.chasse_h_bitten, { biter: nameOf(g, h.biter),
        victim: nameOf(g, h.victim), card: aCard(h.card_kind, h.group) })
        : fill(ui.chasse_h_bit, { biter: nameOf(g, h.biter), victim: nameOf(g, h.victim) });
      case "bite_unanswered": return fill(ui.chasse_h_bitten_bare, { biter: nameOf(g, h.biter), victim: nameOf(g, h.victim) });
      case "vampire_sent": {
        const line = fill(h.why === "circle" ? ui.chasse_h_sent_circle : ui.chasse_h_sent, { names: names(g, h.seats) });
        return h.freed && h.freed.length ? `${line} ${fill(ui.chasse_h_freed, { names: names(g, h.freed) })}` : line;
      }
      case "converted": return fill(ui.chasse_h_converted, { name, why: ui[`chasse_why_${h.why}`] || h.why });
      case "transfusion_needed": return fill(ui.chasse_h_needs, { name: nameOf(g, h.victim), group: h.group });
      case "donor_lost": return fill(ui.chasse_h_donor_lost, { donor: nameOf(g, h.donor), victim: nameOf(g, h.victim) });
      case "blood_offered": return fill(h.compatible ? ui.chasse_h_offered_yes : ui.chasse_h_offered_no,
        { donor: nameOf(g, h.donor), victim: nameOf(g, h.victim) });
      case "doctor_reached": return h.seat === h.victim ? fill(ui.chasse_h_doctor_self, { name })
        : fill(ui.chasse_h_doctor, { name, victim: nameOf(g, h.victim) });
      case "transfusion_done": return fill(ui.chasse_h_saved, { donor: nameOf(g, h.donor), victim: nameOf(g, h.victim) });
      case "transfusion_failed": return fill(ui.chasse_h_too_late, { name: nameOf(g, h.victim) });
      case "card_drawn": return fill(ui.chasse_h_drew, { name });
      case "chapel_empty": return ui.chasse_h_chapel_empty;
      case "card_deposited": return h.card_kind ? fill(ui.chasse_h_deposited, { name, card: aCard(h.card_kind, h.group) })
        : fill(ui.chasse_h_laid, { name });
      case "nothing_to_deposit": return fill(ui.chasse_h_nothing, { name });
      case "circle_used": return fill(ui.chasse_h_circle, { name });
      case "building_closed": return fill(h.place === "chapel" ? ui.chasse_h_closed_chapel : ui.chasse_h_closed_inn,
        { names: names(g, h.seats), n: h.seats.length });
      case "game_won": return h.winner === "master" ? fill(ui.chasse_master_wins, { name: nameOf(g, (h.winners || [])[0]) })
        : fill(ui.chasse_travellers_win, { names: names(g, h.winners) });
      default: return kind;
    }
  }
  // What the table lists: every happening but the turn's hand-over (the status says whose turn).
  const told = (g) => g.happenings.filter((h) => h.kind !== "turn_begun");

  // -- the glass ------------------------------------------------------------------------------------
  // The sand glass (sandglass.js): tall on the TV, which rings at a turn-over; a badge on a phone and
  // the host's console, which stay quiet (the TV rings it for the room). A won game's glass stopped
  // for good: it is not shown as paused.
  function glass(g, size) {
    if (!g.glass || g.phase === "over") return null;
    return el("div", { class: `c-glass ${size}`, id: size === "tv" ? "chasse-glass" : null },
      C.sandglass(g.glass, { size, sound: size === "tv" }));
  }

  // -- shared parts ---------------------------------------------------------------------------------
  // The roll and the allowance it fixed (5.8 item 4), and why it is doubled when it is (C-M2).
  function rolledWords(g) {
    if (g.roll === null || g.roll === undefined) return "";
    const h = g.happenings.find((x) => x.kind === "turn_rolled" && x.seat === g.current);
    const doubled = h ? h.doubled : g.allowance !== g.roll;
    const side = h ? h.side : (g.glass || {}).side;
    const line = fill(ui.chasse_allowance, { roll: g.roll, n: g.allowance });
    return doubled ? `${line} (${ui[`chasse_doubled_${side === "night" ? "night" : "day"}`]})` : line;
  }

  // Whose turn and what it waits for; the winner once over. `ended`: the host ended the game.
  function status(g, view, role, ended) {
    if (g.phase === "over") {
      const line = g.winner === "master" ? fill(ui.chasse_master_wins, { name: nameOf(g, g.winners[0]) })
        : fill(ui.chasse_travellers_win, { names: names(g, g.winners) });
      const how = (g.happenings.find((h) => h.kind === "game_won") || {}).how;
      return el("div", { class: `c-status over ${g.winner}`, id: "chasse-status", role: "status", "data-phase": "over" },
        el("p", { class: "c-big c-winner", id: "chasse-winner" }, line),
        how ? el("p", { class: "c-how" }, ui[`chasse_how_${how}`] || "") : null);
    }
    if (ended) return el("div", { class: "c-status", id: "chasse-status", "data-phase": g.phase });
    const you = me(view);
    if (g.phase === "start_roll") {
      const waiting = g.start.waiting || [];
      const mine = role === "me" && waiting.includes(you);
      return el("div", { class: `c-status${mine ? " my-turn" : ""}`, id: "chasse-status", role: "status", "data-phase": g.phase },
        el("p", { class: "c-big" }, ui.chasse_start_title),
        el("p", { class: "c-what whose-turn" }, mine ? ui.chasse_w_start_you : fill(ui.chasse_w_start, { names: names(g, waiting) })));
    }
    const mine = role === "me" && g.current === you;
    const paused = g.glass && !g.glass.running;
    const head = mine ? ui.chasse_your_turn : fill(ui.chasse_turn_of, { name: nameOf(g, g.current) });
    const what = paused ? ui.chasse_w_paused : g.stage === "roll" ? (mine ? ui.chasse_w_roll_you : ui.chasse_w_roll) : rolledWords(g);
    return el("div", { class: `c-status${mine ? " my-turn" : ""}`, id: "chasse-status", role: "status", "data-phase": g.phase,
      "data-stage": g.stage || "" },
    el("p", { class: "c-big whose-turn" }, head), el("p", { class: "c-what whose-turn", id: "chasse-allowance" }, what));
  }

  function roleTag(p) {
    return el("span", { class: `c-role ${p.role}` }, pawnArt(p.role), el("span", {}, roleName(p.role)));
  }
  // A traveller's stack: its size only, never a card.
  function stackTag(p) {
    if (p.role !== "traveller") return null;
    return el("span", { class: "c-stack", "data-cards": String(p.cards), title: fill(ui.chasse_stack, { n: p.cards }) },
      pileArt(p.cards), el("span", {}, cardsN(p.cards)));
  }

  // What a transfusion under way still waits for: the nightfall it must beat, a donor, who has
  // reached the Doctor's House.
  function transfusionParts(g, t) {
    const turns = g.glass ? g.glass.turns : 0;
    return [el("span", { class: "c-deadline" }, t.deadline_turns - turns <= 1 ? ui.chasse_deadline_tonight : ui.chasse_deadline_next),
      el("span", { class: "c-donor" }, t.donor === null ? ui.chasse_no_donor_yet : fill(ui.chasse_donor, { name: nameOf(g, t.donor) })),
      t.reached.length ? el("span", { class: "c-reached" }, fill(ui.chasse_reached_doctor, { names: names(g, t.reached) })) : null];
  }

  const transfusionData = (t) => ({ "data-victim": String(t.victim), "data-donor": t.donor === null ? "" : String(t.donor) });

  // A transfusion under way, said where its victim is listed (the TV's list, with no section of its
  // own to push the list off the screen).
  const transfusionLine = (g, t) => el("span", { class: "c-transfusion", ...transfusionData(t) },
    el("span", { class: "c-badge bitten" }, fill(ui.chasse_badge_bitten, { group: t.group })), transfusionParts(g, t));

  function playersList(g, view, size, turnOn, withTransfusions = false) {
    return el("section", { class: `c-players ${size}`, "aria-label": ui.chasse_players },
      el("ul", {}, g.players.map((p) => {
        const current = turnOn && g.phase === "play" && g.current === p.seat;
        const pending = (g.transfusions || []).find((t) => t.victim === p.seat);
        return el("li", { class: `c-player ${p.role}${current ? " current" : ""}`, "data-seat": String(p.seat), "data-role": p.role,
          "data-place": p.place, "data-cards": String(p.cards) },
        p.square ? el("span", { class: `c-dot ${p.role}`, "aria-hidden": "true" }, mark(g, p)) : null,
        el("strong", { class: "c-name" }, p.name || nameOf(g, p.seat)),
        view.you && view.you.seat === p.seat ? el("span", { class: "c-you" }, ui.chasse_you) : null,
        roleTag(p),
        el("span", { class: "c-place" }, g.phase === "start_roll" ? "" : placeName(p.place)),
        stackTag(p),
        pending && withTransfusions ? transfusionLine(g, pending)
          : pending ? el("span", { class: "c-badge bitten" }, fill(ui.chasse_badge_bitten, { group: pending.group })) : null,
        p.transfused ? el("span", { class: "c-badge" }, ui.chasse_transfused) : null);
      })));
  }

  // The chapel pile, the crypt toward the trio, and the magic circle of this day or night.
  function pieces(g) {
    const side = (g.glass || {}).side === "night" ? "night" : "day";
    const crypt = g.crypt || {};
    return el("section", { class: "c-pieces", id: "chasse-pieces" },
      el("p", { class: "c-chapel", "data-cards": String(g.chapel_pile) }, pileArt(g.chapel_pile),
        el("span", {}, fill(ui.chasse_chapel_pile, { n: g.chapel_pile }))),
      el("div", { class: "c-crypt", id: "chasse-crypt", "aria-label": ui.chasse_crypt, role: "group" },
        el("strong", {}, ui.chasse_crypt),
        TRIO.map((k) => el("span", { class: `c-slot${crypt[k] ? " filled" : ""}`, "data-kind": k, "data-count": String(crypt[k] || 0) },
          crypt[k] ? "✓ " : "", cardName(k), crypt[k] > 1 ? ` ×${crypt[k]}` : "")),
        el("span", { class: "c-trio hint" }, ui.chasse_trio_hint)),
      el("p", { class: `c-circle${g.circle_used ? " used" : ""}`, id: "chasse-circle" },
        ui[`chasse_circle_${g.circle_used ? "used" : "free"}_${side}`]));
  }

  // Who needs blood, of which group, before which nightfall, who gives, who reached the Doctor's House.
  function transfusions(g) {
    const list = g.transfusions || [];
    if (!list.length || g.phase === "over") return null;
    return el("section", { class: "c-transfusions", id: "chasse-transfusions" }, el("h3", {}, ui.chasse_transfusions),
      el("ul", {}, list.map((t) => el("li", transfusionData(t),
        el("strong", {}, fill(ui.chasse_needs, { name: nameOf(g, t.victim), group: t.group })), " ", transfusionParts(g, t)))));
  }

  function offerButton(game, g, victim) {
    const a = find(game, "offer_blood", (args) => args.victim === victim);
    if (!a) return null;
    return C.actionButton(a, fill(ui.chasse_offer, { name: nameOf(g, victim) }), { class: "primary c-offer",
      "data-victim": String(victim) }, "c-act");
  }

  // The latest card the rules turned face up, and what it did (the rules say: `effect`): the biter
  // repelled or freed, the victim made a disciple or waiting for blood; in the crypt, kept, void or won.
  function revealedEffect(g, r) {
    const name = nameOf(g, ["repelled", "freed"].includes(r.effect) ? r.by : r.seat);
    return fill(ui[`chasse_effect_${r.effect}`] || "", { name });
  }
  function revealed(g, size) {
    const r = g.revealed;
    if (!r) return null;
    const title = r.why === "crypt" ? fill(ui.chasse_revealed_crypt, { name: nameOf(g, r.seat) })
      : fill(ui.chasse_revealed_bite, { biter: nameOf(g, r.by), victim: nameOf(g, r.seat) });
    return el("section", { class: `c-revealed ${size} k-${r.kind}`, id: "chasse-revealed", "aria-live": "polite",
      "data-kind": r.kind, "data-seat": String(r.seat), "data-why": r.why },
    el("span", { class: "c-face", "data-kind": r.kind }, cardName(r.kind, r.group)),
    el("div", { class: "c-revealed-words" }, el("p", { class: "c-revealed-title" }, title),
      el("p", { class: "c-effect" }, revealedEffect(g, r))));
  }

  function startRolls(g) {
    const s = g.start;
    const rows = g.players.map((p) => {
      const r = s.rolls[String(p.seat)];
      const before = (s.last || {})[String(p.seat)];
      const out = !s.contenders.includes(p.seat);
      return el("li", { class: `${out ? "out" : ""}${(s.waiting || []).includes(p.seat) ? " waiting" : ""}`, "data-seat": String(p.seat) },
        el("strong", {}, p.name || nameOf(g, p.seat)),
        r !== undefined ? el("span", { class: "c-die" }, String(r))
          : el("span", { class: "muted" }, out ? fill(ui.chasse_start_out, { roll: before || "" }) : ui.chasse_start_waiting),
        before !== undefined && !out && r === undefined ? el("span", { class: "hint" }, fill(ui.chasse_start_before, { roll: before })) : null);
    });
    const tie = g.happenings.find((h) => h.kind === "start_tied");
    return el("section", { class: "c-start", id: "chasse-start" },
      el("h3", {}, fill(ui.chasse_start_round, { n: s.round || 1 })),
      s.round > 1 && tie ? el("p", { class: "c-tie" }, fill(ui.chasse_h_start_tied, { names: names(g, tie.seats), roll: tie.roll })) : null,
      el("ol", {}, rows));
  }

  function happenings(g, count, trim) {
    const lines = told(g).slice(1, count + 1);
    if (!lines.length) return null;
    return el("section", { class: "c-happenings" }, el("h3", {}, ui.chasse_lately),
      el("ol", trim ? { "data-fit": "trim" } : {}, lines.map((h) => el("li", { "data-kind": h.kind }, happeningText(g, h)))));
  }
  function lastAction(g) {
    const h = told(g)[0];
    return h ? el("p", { class: "c-last last-action", id: "chasse-last", "aria-live": "polite", "data-kind": h.kind },
      happeningText(g, h)) : null;
  }

  function unverified(g) {
    if (!g.unverified || !g.unverified.length) return null;
    return el("p", { class: "c-unverified hint" }, fill(ui.chasse_unverified,
      { list: g.unverified.map((k) => ui[`chasse_opt_${k}`] || k).join(", ") }));
  }

  // A pawn's mark on the board: its player's initial, or the seat's number when two names share it.
  function mark(g, p) {
    const initial = (name) => Array.from(name || "")[0] || "";
    const mine = initial(p.name).toUpperCase();
    const shared = g.players.filter((o) => initial(o.name).toUpperCase() === mine).length > 1;
    return mine && !shared ? mine : String(p.seat);
  }

  // -- the companion's board ------------------------------------------------------------------------
  // A square grid from the view's map: the chapel zone, the Torrent du Diable, blocked squares, the
  // named places and the pawns on their squares. `reach` (a phone's move) lights the squares it may
  // end on; a tap picks one (`onPick`).
  const CELL = 10;
  function boardArt(g, opts) {
    const b = g.board;
    const o = opts || {};
    const key = (sq) => `${sq[0]},${sq[1]}`;
    const sets = { zone: new Set(b.chapel_zone.map(key)), torrent: new Set(b.torrent.map(key)), blocked: new Set((b.blocked || []).map(key)) };
    const reach = new Map((o.reach || []).map((r) => [key(r.to), r]));
    const cells = [];
    for (let r = 0; r < b.height; r += 1) {
      for (let c = 0; c < b.width; c += 1) {
        const k = `${c},${r}`;
        const type = sets.blocked.has(k) ? "blocked" : sets.torrent.has(k) ? "torrent" : sets.zone.has(k) ? "zone" : "ground";
        cells.push(svg("rect", { x: c * CELL, y: r * CELL, width: CELL, height: CELL, class: `cell ${type}` }));
      }
    }
    const places = Object.entries(b.places).map(([name, sq]) => svg("g", { class: `place p-${name}` },
      svg("rect", { x: sq[0] * CELL + 0.6, y: sq[1] * CELL + 0.6, width: CELL - 1.2, height: CELL - 1.2, rx: 1.5 }),
      svg("text", { x: sq[0] * CELL + CELL / 2, y: sq[1] * CELL + (sq[1] === 0 ? CELL + 3.4 : -1), "text-anchor": "middle" },
        document.createTextNode(placeName(name)))));
    const lit = [...reach.values()].map((r) => {
      const picked = sameSquare(o.picked, r.to);
      const node = svg("rect", { x: r.to[0] * CELL + 0.8, y: r.to[1] * CELL + 0.8, width: CELL - 1.6, height: CELL - 1.6, rx: 1.5,
        class: `reach${picked ? " picked" : ""}${r.bites.length ? " bites" : ""}`, "data-square": squareName(r.to),
        "data-to": JSON.stringify(r.to) });
      if (o.onPick) node.addEventListener("click", () => o.onPick(r.to));
      return node;
    });
    // Pawns on a shared square (the inn, the cemetery) side by side.
    const bySquare = new Map();
    for (const p of g.players) if (p.square) bySquare.set(key(p.square), [...(bySquare.get(key(p.square)) || []), p]);
    const pawns = [];
    for (const group of bySquare.values()) {
      // One pawn fills its square; several share it in a small grid (2 x 2, then 3 x 2).
      const across = Math.ceil(Math.sqrt(group.length));
      const rows = Math.ceil(group.length / across);
      const step = CELL / across;
      const r = group.length > 1 ? step / 2 - 0.25 : 3.4;
      group.forEach((p, i) => {
        const cx = group.length > 1 ? p.square[0] * CELL + step * (i % across + 0.5) : p.square[0] * CELL + CELL / 2;
        const cy = group.length > 1 ? p.square[1] * CELL + CELL / 2 + step * (Math.floor(i / across) - (rows - 1) / 2)
          : p.square[1] * CELL + CELL / 2;
        const current = g.phase === "play" && g.current === p.seat;
        pawns.push(svg("g", { class: `pawn ${p.role}${current ? " current" : ""}`, "data-seat": String(p.seat) },
          svg("circle", { cx, cy, r }),
          svg("text", { x: cx, y: cy + r * 0.42, "text-anchor": "middle", "font-size": (r * 1.2).toFixed(2) },
            document.createTextNode(mark(g, p)))));
      });
    }
    const label = fill(ui.chasse_board_label, { name: b.name || "" });
    return svg("svg", { viewBox: `-1 -1 ${b.width * CELL + 2} ${b.height * CELL + 2}`, class: "c-board-art",
      role: "img", "aria-label": label, preserveAspectRatio: "xMidYMin meet" },
    svg("g", { class: "cells" }, cells), svg("g", { class: "places" }, places), svg("g", { class: "lit" }, lit),
    svg("g", { class: "pawns" }, pawns));
  }
  // Who stands where on the board, in words (the picture's names are its first letters).
  function boardKey(g) {
    return el("ul", { class: "c-board-key" }, g.players.filter((p) => p.square).map((p) => el("li", { class: p.role, "data-seat": String(p.seat) },
      el("span", { class: `c-dot ${p.role}`, "aria-hidden": "true" }, mark(g, p)),
      `${p.name || nameOf(g, p.seat)} · ${squareName(p.square)}`)));
  }

  // -- the phone's choices --------------------------------------------------------------------------
  let bite = null;        // the traveller a vampire says it bit on the way (own board)
  let picked = null;      // the square tapped (companion's board)
  let turnKey = "";
  let redraw = () => {};

  function button(action, label, attrs) {
    return C.actionButton(action, label, attrs, "c-act");
  }

  function biteChoice(g, view) {
    const seats = g.bites || [];
    if (!seats.length) return null;
    const option = (seat) => el("button", { type: "button", class: `c-bite${bite === seat ? " chosen" : ""}`,
      "aria-pressed": String(bite === seat), "data-bite": seat === null ? "" : String(seat),
      onclick: () => { bite = seat; redraw(); } },
    seat === null ? ui.chasse_no_bite : fill(ui.chasse_bit, { name: nameOf(g, seat) }));
    return el("div", { class: "c-group", id: "chasse-bite" }, el("h4", {}, ui.chasse_bite_q),
      el("div", { class: "c-row" }, option(null), seats.map(option)));
  }

  function ownBoardMove(game, g, view) {
    const mine = player(g, me(view));
    if (bite !== null && !(g.bites || []).includes(bite)) bite = null;
    const stops = all(game, "stop", (args) => (args.bite === undefined || args.bite === null ? null : args.bite) === bite);
    return [vampire(mine) ? biteChoice(g, view) : null,
      el("div", { class: "c-group", id: "chasse-where" }, el("h4", {}, ui.chasse_where),
        el("div", { class: "c-places" }, PLACES.map((place) => {
          const a = stops.find((x) => x.args.place === place);
          return a ? button(a, placeName(place), { class: `c-place-btn big p-${place}`, "data-place": place }) : null;
        })))];
  }

  function companionMove(game, g) {
    const reach = g.reach || [];
    const stay = find(game, "stay");
    if (!reach.length) return el("div", { class: "c-group" }, stay ? button(stay, ui.chasse_stay, { class: "primary big", id: "chasse-stay" }) : null);
    if (picked && !reach.some((r) => sameSquare(r.to, picked))) picked = null;
    const choose = el("select", { id: "chasse-square", "aria-label": ui.chasse_square,
      onchange: (e) => { picked = e.target.value ? JSON.parse(e.target.value) : null; redraw(); } },
    el("option", { value: "" }, ui.chasse_pick_square),
    reach.map((r) => {
      const at = placeName(placeAt(g, r.to));
      return el("option", { value: JSON.stringify(r.to), selected: sameSquare(r.to, picked) },
        at ? `${squareName(r.to)} · ${at}` : squareName(r.to));
    }));
    const moves = picked ? all(game, "move", (args) => sameSquare(args.to, picked)) : [];
    return el("div", { class: "c-group", id: "chasse-moves" },
      el("p", { class: "hint" }, ui.chasse_tap_hint),
      el("label", { class: "c-square-line" }, el("span", {}, ui.chasse_square), choose),
      el("div", { class: "c-row" }, moves.map((a) => button(a, a.args.bite === null || a.args.bite === undefined
        ? fill(ui.chasse_move_to, { square: squareName(a.args.to) })
        : fill(ui.chasse_move_bite, { square: squareName(a.args.to), name: nameOf(g, a.args.bite) }),
      { class: `primary big c-move${a.args.bite ? " bite" : ""}`, "data-bite": a.args.bite ? String(a.args.bite) : "" }))));
  }
  function placeAt(g, sq) {
    const found = Object.entries(g.board.places).find(([, s]) => sameSquare(s, sq));
    return found ? found[0] : "";
  }

  function choices(game, g, view) {
    const you = me(view);
    if (game.ended) return null;
    const parts = [];
    const roll = find(game, "roll");
    if (roll && (g.phase === "start_roll" ? (g.start.waiting || []).includes(you) : g.current === you)) {
      parts.push(button(roll, ui.chasse_roll, { class: "primary big", id: "chasse-roll" }));
    }
    if (g.phase === "play" && g.current === you && g.stage === "move") {
      parts.push(...[].concat(g.board_mode === "companion" ? companionMove(game, g) : ownBoardMove(game, g, view)));
    }
    for (const t of g.transfusions || []) {
      const offer = offerButton(game, g, t.victim);
      if (offer) parts.push(el("div", { class: "c-group" }, el("h4", {}, fill(ui.chasse_needs, { name: nameOf(g, t.victim), group: t.group })), offer));
    }
    return parts.length ? el("section", { class: "c-choose", id: "chasse-choose", "data-stage": g.stage || g.phase }, parts) : null;
  }

  function mine(g, view) {
    const p = player(g, me(view));
    if (!p) return null;
    return el("section", { class: `c-mine ${p.role}`, id: "chasse-mine", "data-role": p.role, "data-cards": String(p.cards) },
      el("p", { class: "c-me-role" }, pawnArt(p.role), el("strong", {}, fill(ui.chasse_you_are, { role: roleName(p.role) }))),
      g.phase === "start_roll" ? null : el("p", { class: "c-me-place" }, fill(ui.chasse_your_place, { at: atPlace(p.place) }),
        p.square ? ` (${squareName(p.square)})` : ""),
      // C-M4: the building closed around this traveller (by day the inn, by night the chapel).
      p.role === "traveller" && g.phase === "play" && g.glass && p.place === (g.glass.side === "day" ? "inn" : "chapel")
        ? el("p", { class: "c-me-leave", id: "chasse-leave", role: "status" },
          ui[`chasse_leave_${p.place}`]) : null,
      p.role === "traveller" && g.phase !== "start_roll" ? el("p", { class: "c-me-stack", id: "chasse-my-stack" }, pileArt(p.cards),
        el("span", {}, fill(ui.chasse_stack, { n: p.cards }))) : null);
  }

  // -- the table's sound: a card turned face up ------------------------------------------------------
  // The first view a page draws is where it came in: no sound for a card turned up before. A reveal
  // is known by its happening and the one before it (a chapel draw or a move later changes neither);
  // only a reveal among the newest happenings rings, not one that slides out of the list.
  let revealKey;
  function ring(g) {
    const r = g.revealed;
    const at = r ? g.happenings.findIndex((h) => ["bite_answered", "card_deposited"].includes(h.kind)) : -1;
    const key = at >= 0 ? JSON.stringify([r, g.happenings[at], g.happenings[at + 1] || null]) : "";
    if (revealKey !== undefined && key && key !== revealKey && at <= 4 && C.reactions) {
      C.reactions.play(WEAPONS.includes(r.kind) ? "fault" : "fanfare");
    }
    revealKey = key;
  }

  C.games[GAME] = {
    announcesEnd: (game) => game.view.phase === "over",
    undo: false,  // dice and hidden stacks: nothing for a player to take back
    // The TV: one screen, never scrolled. On top whose turn it is with the roll and the last thing
    // that happened; beside the glass. Then the latest card turned face up, every player (role,
    // place, stack size, a transfusion under way) or the board and the transfusions, the card and
    // then the lines smaller when they would not fit; on the side the chapel pile, the crypt, the
    // magic circle and the earlier happenings (as many as the screen holds).
    table(container, game, view) {
      const g = game.view;
      ring(g);
      const companion = g.board_mode === "companion" && g.board && g.phase !== "start_roll";
      const rollTable = find(game, "roll");
      const rollButton = rollTable && !game.ended && g.phase !== "over" ? el("button", { type: "button", id: "roll-table", class: "roll primary whose-turn",
        disabled: !rollTable.allowed, "data-name": "roll", "data-args": "{}", onclick: () => C.send("table", "roll") },
      g.phase === "start_roll" ? fill(ui.chasse_roll_all, { names: names(g, g.start.waiting) }) : fill(ui.chasse_roll_for, { name: nameOf(g, g.current) })) : null;
      const lately = happenings(g, 9, true);
      const main = g.phase === "start_roll" ? [startRolls(g)]
        : companion ? [el("div", { class: "c-board tv", id: "chasse-board" }, boardArt(g, {})), revealed(g, "small"),
          transfusions(g)]
          : [revealed(g, "big"), playersList(g, view, "big", !game.ended, g.phase !== "over")];
      const side = g.phase === "start_roll" ? [glass(g, "tv"), playersList(g, view, "big", false), unverified(g)]
        : companion ? [playersList(g, view, "small", !game.ended), pieces(g), lately, unverified(g)]
          : [glass(g, "tv"), pieces(g), lately, unverified(g)];
      container.replaceChildren(el("div", { class: `chasse chasse-table phase-${g.phase} board-${companion ? "companion" : "own"}`,
        "data-position": String(view.position), "data-side": (g.glass || {}).side || "" },
      el("div", { class: "c-head" }, el("div", { class: "c-now" }, status(g, view, "table", game.ended), lastAction(g)),
        rollButton, companion ? glass(g, "tv") : null),
      el("div", { class: "c-grid" }, el("div", { class: "c-main", "data-fit-steps": "2" }, main), el("div", { class: "c-side" }, side))));
    },
    seat(container, game, view) {
      redraw = () => C.games[GAME].seat(container, game, view);
      const g = game.view;
      const key = `${g.current}:${g.roll}:${(g.glass || {}).turns}:${g.happenings.length}:${JSON.stringify(g.happenings[0] || {})}`;
      if (key !== turnKey) { turnKey = key; bite = null; picked = null; }
      const moving = g.board_mode === "companion" && g.board && g.phase !== "start_roll";
      const reach = g.reach || [];
      container.replaceChildren(el("div", { class: `chasse chasse-phone phase-${g.phase}`, "data-position": String(view.position),
        "data-side": (g.glass || {}).side || "" },
      el("div", { class: "c-phone-top" }, status(g, view, "me", game.ended), glass(g, "phone")),
      mine(g, view),
      choices(game, g, view),
      moving ? el("section", { class: "c-board phone", id: "chasse-board" }, boardArt(g, { reach, picked,
        onPick: reach.length ? (sq) => { picked = sq; redraw(); } : null }), boardKey(g)) : null,
      revealed(g, "small"),
      g.phase === "start_roll" ? startRolls(g) : null,
      transfusions(g),
      lastAction(g),
      playersList(g, view, "small", !game.ended),
      g.phase === "start_roll" ? null : pieces(g),
      happenings(g, 4, false)));
    },
    host(container, game, view) {
      const g = game.view;
      const controls = ["pause_glass", "resume_glass"].map((name) => find(game, name)).filter(Boolean)
        .map((a) => C.actionButton(a, a.name === "pause_glass" ? ui.chasse_pause : ui.chasse_resume,
          { id: `chasse-${a.name}`, class: a.name === "resume_glass" ? "primary" : "" }, "c-act", false, "host"));
      const roll = find(game, "roll");
      if (roll && g.phase === "start_roll") {
        controls.push(C.actionButton(roll, fill(ui.chasse_roll_all, { names: names(g, g.start.waiting) }), { id: "chasse-roll-host" }, "c-act", false, "host"));
      }
      container.replaceChildren(el("div", { class: `chasse chasse-host phase-${g.phase}`, "data-position": String(view.position) },
        el("div", { class: "c-phone-top" }, status(g, view, "host", game.ended), glass(g, "phone")),
        game.ended ? null : el("div", { class: "c-row" }, controls),
        lastAction(g), revealed(g, "small"),
        g.phase === "start_roll" ? startRolls(g) : null,
        playersList(g, view, "small", !game.ended), transfusions(g),
        g.phase === "start_roll" ? null : pieces(g), happenings(g, 5, false), unverified(g)));
    },
  };
})(window.Companion);
