// Vampir (Knizia): the companion is the deck. The TV shows the six location piles, every hunt, the
// hand sizes, the draw pile and the scoring colour by colour; a phone shows its own hand (behind
// hold-to-peek, and opened by its player to play on their turn, closing by itself when the turn
// ends, the phone sleeps or lies untouched) and offers only the moves the rules allow now,
// with the reason when one is not. With the real cards, each phone enters its hunts at the end.
// Every card shows its colour's name and its location's icon as well as the colour: the printed
// colours are hard to tell apart in dim light.
"use strict";
(function (C) {
  const { el, svg, ui, fill } = C;
  const GAME = "vampir";
  const COLOURS = ["green", "grey", "orange", "violet", "yellow", "red"];
  const MIN_HUNT = 3;
  const nameOf = C.seatName;
  const me = C.mySeat;

  // -- drawing: one icon per location, and the "Somewhere" coach wheel for a joker ------------------
  const ICONS = {
    castle: ["M4 29V9H9V13H13V9H19V13H23V9H28V29Z", "M13 29V22A3 3 0 0 1 19 22V29"],
    graveyard: ["M8 29V14A8 8 0 0 1 24 14V29Z", "M16 12V22M12 16H20"],
    madhouse: ["M4 15L16 4L28 15V29H4Z", "M11 17H21V25H11ZM14 17V25M18 17V25"],
    docks: ["M16 8V28M9 13H23M6 20C6 26 11 28 16 28C21 28 26 26 26 20", "M16 3A2.5 2.5 0 1 1 16 8A2.5 2.5 0 1 1 16 3"],
    church: ["M9 29V16L16 10L23 16V29Z", "M16 2V9M13 5H19M14 29V23H18V29"],
    pub: ["M7 9H21V28H7Z", "M21 13H26V23H21M10 13V24M14 13V24M18 13V24"],
    joker: ["M16 4A12 12 0 1 1 16 28A12 12 0 1 1 16 4", "M16 4V28M4 16H28M7.5 7.5L24.5 24.5M24.5 7.5L7.5 24.5"],
  };
  function icon(name) {
    const [body, detail] = ICONS[name] || ICONS.joker;
    return svg("svg", { viewBox: "0 0 32 32", class: `v-icon v-icon-${name}`, "aria-hidden": "true", focusable: "false" },
      svg("path", { d: body, class: "body" }), svg("path", { d: detail, class: "detail" }));
  }

  // -- words ------------------------------------------------------------------------------------------
  const colourName = (colour) => (colour ? ui[`vampir_colour_${colour}`] || colour : ui.vampir_joker);
  // The colour inside a sentence, agreeing with "card" and "hunt" (feminine in French: "une chasse verte").
  const colourWord = (colour) => ui[`vampir_colour_of_${colour}`] || colourName(colour);
  // "a card" and "a hunt" of a colour, article included ("an orange hunt", "une chasse verte").
  const aCard = (colour) => ui[`vampir_a_card_${colour}`] || colourWord(colour);
  const aHunt = (colour) => ui[`vampir_a_hunt_${colour}`] || colourWord(colour);
  const locationOf = (g, colour) => (g.options.locations || {})[colour];
  const locationName = (g, colour) => ui[`vampir_location_${locationOf(g, colour)}`] || locationOf(g, colour) || colour;
  const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
  const heads = (n) => fill(ui.vampir_heads_n, { n });
  const cardsN = (n) => fill(ui.vampir_cards_n, { n });
  const listed = new Intl.ListFormat(C.lang, { type: "conjunction" });
  const names = (g, seats) => listed.format(seats.map((s) => nameOf(g, s)));

  // A card: its colour, its location's icon, its colour's name and its heads as a number.
  function card(g, c, attrs) {
    const where = c.colour ? locationOf(g, c.colour) : "joker";
    return el("span", { class: `v-card c-${c.colour || "joker"}`, "data-card": c.card, "data-colour": c.colour || "joker",
      "data-heads": String(c.heads), ...(attrs || {}) },
    icon(where), el("span", { class: "v-card-name" }, colourName(c.colour)),
    el("span", { class: "v-card-heads", title: heads(c.heads) }, String(c.heads)));
  }
  // A hunt on display: its colour, cards and heads (counts only when the real cards are played).
  function hunt(g, h) {
    return el("span", { class: `v-hunt c-${h.colour}`, "data-colour": h.colour, "data-heads": String(h.heads) },
      icon(locationOf(g, h.colour)), el("span", { class: "v-hunt-name" }, colourName(h.colour)),
      el("strong", { class: "v-hunt-heads" }, heads(h.heads)), el("span", { class: "v-hunt-size" }, cardsN(h.size)));
  }

  function happeningText(g, h) {
    const name = nameOf(g, h.seat);
    switch (h.kind) {
      case "starts": return fill(ui[`vampir_h_starts_${h.how}`] || ui.vampir_h_starts_random, { name, round: h.round });
      case "drew": return fill(h.count === 1 ? ui.vampir_h_drew_one : ui.vampir_h_drew, { name, left: h.left });
      case "discarded": return fill(h.colour ? ui.vampir_h_discarded : ui.vampir_h_discarded_joker,
        { name, a_card: aCard(h.colour), n: h.heads, location: locationName(g, h.location) });
      case "hunted": {
        const params = { name, a_hunt: aHunt(h.colour), cards: h.size, heads: h.hunt_heads };
        let line = h.taken
          ? fill(ui.vampir_h_took, { ...params, location: locationName(g, h.taken.location), taken: h.taken.cards, taken_heads: h.taken.heads })
          : fill(ui.vampir_h_hunted, params);
        if (h.replaced) line += ` ${fill(ui.vampir_h_replaced, { heads: h.replaced.heads })}`;
        return line;
      }
      case "round_ended": return fill(ui[`vampir_h_end_${h.reason}`] || ui.vampir_h_end_table, { name, round: h.round });
      case "entered": return fill(ui.vampir_h_entered, { name });
      case "scored": return fill(ui.vampir_h_scored, { round: h.round });
      default: return h.kind;
    }
  }

  function stageText(g, seat) {
    if (g.phase === "starter") return ui.vampir_wait_starter;
    if (g.phase === "playing") return ui.vampir_wait_playing;
    if (g.phase === "entering") return ui.vampir_wait_entering;
    if (g.phase === "scored") return fill(ui.vampir_wait_next, { round: g.round + 1 });
    if (g.phase === "over") return "";
    const who = g.current === seat ? ui.vampir_you : nameOf(g, g.current);
    return fill(ui[`vampir_stage_${g.stage}`] || "", { name: who });
  }

  // -- shared parts ---------------------------------------------------------------------------------
  // `ended`: the host ended the game; nobody's turn is shown any more.
  function status(g, view, role, ended = false) {
    const mine = !ended && role === "me" && g.current === me(view);
    const turn = !ended && (g.phase === "turn" || g.phase === "playing");
    return el("div", { class: `v-status${mine ? " my-turn" : ""}`, id: "vampir-status", "data-phase": g.phase,
      "data-stage": g.stage || "" },
    el("span", { class: "v-round" }, fill(ui.vampir_round, { n: g.round, of: g.rounds })),
    turn && g.current !== null ? el("strong", { class: "v-turn whose-turn" },
      mine ? ui.vampir_your_turn : fill(g.phase === "playing" ? ui.vampir_starts : ui.vampir_turn_of, { name: nameOf(g, g.current) })) : null,
    el("span", { class: "v-wait whose-turn" }, ended ? "" : stageText(g, me(view))),
    g.cards === "digital" && g.phase === "turn" ? drawPile(g) : null);
  }

  function drawPile(g) {
    const warn = g.warning;
    return el("span", { class: `v-draw${warn ? ` warn-${warn}` : ""}`, id: "vampir-draw", "data-count": String(g.draw_pile) },
      el("span", { class: "v-back", "aria-hidden": "true" }), fill(ui.vampir_draw_pile, { n: g.draw_pile }),
      warn ? el("strong", { class: "v-warn", role: "status" }, warn === "last_draw" ? ui.vampir_warn_last : ui.vampir_warn_soon) : null);
  }

  function lastAction(g) {
    const h = g.happenings[0];
    return h ? el("p", { class: "v-last", id: "vampir-last" }, happeningText(g, h)) : null;
  }

  function happenings(g, count) {
    const lines = g.happenings.slice(1, count);
    if (!lines.length) return null;
    return el("section", { class: "v-happenings" }, el("h3", {}, ui.vampir_lately),
      el("ol", {}, lines.map((h) => el("li", {}, happeningText(g, h)))));
  }

  function locations(g, size) {
    if (!g.locations.length) return null;
    return el("section", { class: `v-locations ${size}`, id: "vampir-locations" },
      g.locations.map((l) => el("div", { class: `v-location c-${l.colour}`, "data-colour": l.colour, "data-cards": String(l.pile.length),
        "data-heads": String(l.heads) },
      el("div", { class: "v-location-head" }, icon(l.location),
        el("span", { class: "v-location-name" }, locationName(g, l.colour)),
        el("span", { class: "v-location-colour" }, colourName(l.colour))),
      el("div", { class: "v-pile" }, l.pile.map((c) => card(g, c, { class: `v-card small c-${c.colour || "joker"}` }))),
      el("p", { class: "v-location-count" }, l.pile.length ? `${cardsN(l.pile.length)} · ${heads(l.heads)}` : ui.vampir_empty))));
  }

  function players(g, size) {
    return el("section", { class: `v-players ${size}` }, el("h3", {}, ui.vampir_players),
      el("ul", {}, g.players.map((p) => el("li", { class: `v-player${g.current === p.seat && g.phase === "turn" ? " current" : ""}`,
        "data-seat": String(p.seat), "data-hand": String(p.hand) },
      el("div", { class: "v-player-head" }, el("strong", {}, p.name || nameOf(g, p.seat)),
        g.cards === "digital" ? el("span", { class: "v-hand-size", title: ui.vampir_hand_size },
          el("span", { class: "v-back", "aria-hidden": "true" }), fill(ui.vampir_in_hand, { n: p.hand })) : null,
        g.phase === "entering" ? el("span", { class: `v-entered${p.entered ? " done" : ""}` }, p.entered ? ui.vampir_entered : ui.vampir_not_entered) : null,
        el("span", { class: "v-player-heads" }, fill(ui.vampir_on_display, { n: p.heads })),
        g.scores.length ? el("span", { class: "v-player-total" }, fill(ui.vampir_total, { n: g.totals[String(p.seat)] })) : null),
      el("div", { class: "v-hunts" }, p.hunts.length ? p.hunts.map((h) => hunt(g, h)) : el("span", { class: "muted" }, ui.vampir_no_hunt))))));
  }

  // `short`: the TV's one line per colour, where the row's zeros show who has no hunt.
  function reasonWords(g, c, short) {
    const low = { n: c.lowest, names: names(g, c.discard) };
    switch (c.reason) {
      case "someone_has_none": return short ? ui.vampir_reason_none_short : fill(ui.vampir_reason_none, { names: names(g, c.without) });
      case "all_tied": return fill(ui.vampir_reason_all_tied, low);
      case "all_tied_kept": return fill(ui.vampir_reason_all_kept, low);
      default: return fill(c.discard.length > 1 ? ui.vampir_reason_lowest_many : ui.vampir_reason_lowest, low);
    }
  }

  // The scoring, colour by colour: each player's heads (struck out when discarded) and why; on a
  // phone the reason goes under its colour's row, the screen is too narrow for a column of it.
  function scoring(g, score, title, id, compact, short) {
    const seats = g.players.map((p) => p.seat);
    const width = seats.length + 2;
    return el("section", { class: `v-scoring${compact ? " compact" : ""}`, id },
      el("h3", {}, title),
      el("table", {},
        el("thead", {}, el("tr", {}, el("th", {}, ui.vampir_colour), seats.map((s) => el("th", {}, nameOf(g, s))),
          compact ? null : el("th", {}, ui.vampir_why))),
        el("tbody", {}, score.colours.flatMap((c) => [el("tr", { "data-colour": c.colour, "data-reason": c.reason },
          el("th", { class: `c-${c.colour}` }, icon(locationOf(g, c.colour)), " ", colourName(c.colour)),
          seats.map((s) => {
            const n = c.heads[String(s)];
            const gone = c.discard.includes(s);
            return el("td", { class: gone ? "discarded" : n ? "" : "none", "data-seat": String(s) },
              gone ? el("s", { title: ui.vampir_discarded }, String(n)) : String(n));
          }),
          compact ? null : el("td", { class: "v-why" }, reasonWords(g, c, short))),
        compact ? el("tr", { class: "v-why-row" }, el("td", { class: "v-why", colspan: String(width - 1) }, reasonWords(g, c))) : null])),
        score.points ? el("tfoot", {}, el("tr", { class: "v-points" }, el("th", {}, ui.vampir_points),
          seats.map((s) => el("td", { "data-seat": String(s) }, String(score.points[String(s)]))), compact ? null : el("td", {}))) : null));
  }

  function roundsTable(g) {
    if (!g.scores.length) return null;
    const seats = g.players.map((p) => p.seat);
    return el("section", { class: "v-rounds", id: "vampir-rounds" }, el("h3", {}, ui.vampir_rounds),
      el("table", {},
        el("thead", {}, el("tr", {}, el("th", {}, ui.vampir_round_col), seats.map((s) => el("th", {}, nameOf(g, s))))),
        el("tbody", {}, g.scores.map((s) => el("tr", {}, el("th", {}, String(s.round)),
          seats.map((seat) => el("td", {}, String(s.points[String(seat)])))))),
        el("tfoot", {}, el("tr", {}, el("th", {}, ui.vampir_total_col),
          seats.map((s) => el("td", { class: g.winners.includes(s) ? "winner" : "", "data-seat": String(s) }, String(g.totals[String(s)])))))));
  }

  function result(g, compact, short) {
    if (g.phase !== "scored" && g.phase !== "over") return null;
    const last = g.scores[g.scores.length - 1];
    const title = fill(ui.vampir_scoring_title, { round: last.round });
    const ending = g.ending ? el("p", { class: "v-ending" }, ui[`vampir_ended_${g.ending}`] || "") : null;
    const won = g.phase === "over" && g.winners.length ? el("p", { class: "v-winner", id: "vampir-winner" },
      fill(g.winners.length > 1 ? ui.vampir_winners : ui.vampir_winner, { names: names(g, g.winners), n: g.totals[String(g.winners[0])] })) : null;
    return el("div", { class: "v-result" }, won, ending, scoring(g, last, title, "vampir-scoring", compact, short));
  }

  // Open on the table (nobody clicks a TV), folded on a phone.
  function projection(g, open) {
    if (!g.projection) return null;
    return el("details", { class: "v-projection", open }, el("summary", {}, ui.vampir_projection),
      scoring(g, { colours: g.projection.colours, points: g.projection.points }, ui.vampir_projection_title, "vampir-projection"));
  }

  function supply(g) {
    if (!g.supply || !g.supply.length) return null;
    return el("div", { class: "v-supply error", role: "alert", id: "vampir-supply" }, g.supply.map((p) => el("p", {},
      fill(ui.vampir_supply_problem, { what: capital(p.kind === "jokers" ? ui.vampir_jokers : fill(ui[`vampir_kind_${p.kind}`], { colour: colourName(p.colour) })),
        count: p.count, limit: p.limit }))));
  }

  function unverified(g) {
    if (!g.unverified.includes("locations")) return null;
    return el("p", { class: "hint v-unverified" }, ui.vampir_unverified);
  }

  const find = (game, name) => game.actions.find((a) => a.name === name);
  const button = (action, label, attrs) => C.actionButton(action, label, attrs, "v-act");

  // -- the phone: the hand, the card picker and the moves ----------------------------------------------
  let picked = new Set();
  let open = false;
  let turnKey = "";
  let autoOpened = false;
  let redraw = () => {};

  // The hand opened to play is the player's own choice, on their turn only, and it closes by itself:
  // at the end of the turn, when the phone goes to the background, and after a while untouched (a
  // phone put down on the table mid-turn). Picks go with it: the move buttons name the picked cards.
  const IDLE_HIDE_MS = 30000;
  let idleTimer = null;
  function closeHand() {
    clearTimeout(idleTimer);
    idleTimer = null;
    if (!open) return;
    open = false;
    picked.clear();
    redraw();
  }
  function armIdle() {
    clearTimeout(idleTimer);
    idleTimer = open ? setTimeout(closeHand, IDLE_HIDE_MS) : null;
  }
  C.onBackground(closeHand);
  for (const type of ["pointerdown", "keydown"]) document.addEventListener(type, () => { if (open) armIdle(); }, true);

  function handCards(g, hand, selectable) {
    if (!hand.length) return el("p", { class: "muted" }, ui.vampir_empty_hand);
    const groups = [...COLOURS, null].map((colour) => hand.filter((c) => c.colour === colour)).filter((x) => x.length);
    const drawn = new Set(g.drawn || []);
    return el("div", { class: "v-hand" }, groups.map((cards) => el("div", { class: "v-group" }, cards.map((c) => {
      const attrs = { class: `v-card c-${c.colour || "joker"}${drawn.has(c.card) ? " new" : ""}${picked.has(c.card) ? " picked" : ""}` };
      if (!selectable) return card(g, c, attrs);
      return el("button", { type: "button", class: "v-pick", "aria-pressed": String(picked.has(c.card)), "data-card": c.card,
        onclick: () => { if (picked.has(c.card)) picked.delete(c.card); else picked.add(c.card); redraw(); } }, card(g, c, attrs));
    }))));
  }

  // The rules' hunt check (V-H1, ambiguity 5), as the server makes it, to say at once why not.
  function huntProblem(chosen, colour, takenCount) {
    const colours = new Set(chosen.filter((c) => c.colour).map((c) => c.colour));
    if (colours.size > 1) return { code: "hunt_mixed_colours" };
    if (colour && colours.size && !colours.has(colour)) return { code: "hunt_wrong_colour", params: { colour } };
    const size = chosen.length + takenCount;
    if (size < MIN_HUNT) return { code: "hunt_too_small", params: { min: MIN_HUNT, size } };
    if (!colours.size && !takenCount) return { code: "hunt_only_jokers" };
    return null;
  }

  function move(name, args, label, problem, attrs) {
    const allowed = !problem;
    return C.actionButton({ name, args, allowed, reason: problem }, label, attrs, "v-act");
  }

  function huntButton(g, mine, chosen, takenFrom, taken) {
    const colour = takenFrom || (chosen.find((c) => c.colour) || {}).colour || null;
    const problem = huntProblem(chosen, takenFrom, taken ? taken.pile.length : 0);
    const old = colour ? mine.hunts.find((h) => h.colour === colour) : null;
    const args = takenFrom ? { location: takenFrom, cards: chosen.map((c) => c.card) } : { cards: chosen.map((c) => c.card) };
    if (old) args.replace = true;
    const total = chosen.reduce((n, c) => n + c.heads, 0) + (taken ? taken.heads : 0);
    const size = chosen.length + (taken ? taken.pile.length : 0);
    const params = { colour: colourWord(colour), a_hunt: aHunt(colour), cards: size, heads: total,
      location: takenFrom ? locationName(g, takenFrom) : "",
      old: old ? old.heads : 0 };
    const label = takenFrom
      ? fill(old ? ui.vampir_take_replace : ui.vampir_take, params)
      : fill(old ? ui.vampir_hunt_replace : ui.vampir_hunt, params);
    return move(takenFrom ? "take" : "hunt", args, label, problem, { class: `v-move${old ? " replaces" : ""}`, id: takenFrom ? `take-${takenFrom}` : "lay-hunt" });
  }

  function picker(g) {
    if (!open) {
      return el("div", { class: "v-open-line" }, el("button", { type: "button", id: "show-hand", class: "primary",
        onclick: () => { open = true; armIdle(); redraw(); } }, ui.vampir_show_hand), el("p", { class: "hint" }, ui.vampir_show_hint));
    }
    return el("div", { class: "v-picker" },
      el("p", { class: "hint" }, g.stage === "choose" ? ui.vampir_pick_take : ui.vampir_pick_hint),
      handCards(g, g.hand, true),
      el("button", { type: "button", class: "v-hide", onclick: closeHand }, ui.vampir_hide_hand));
  }

  function turnChoices(game, g, view) {
    const mine = g.players.find((p) => p.seat === me(view));
    const chosen = g.hand.filter((c) => picked.has(c.card));
    const parts = [];
    if (g.stage === "choose") {
      const draw = find(game, "draw");
      if (draw) parts.push(button(draw, fill(ui.vampir_draw, { n: Math.min(2, g.draw_pile) }), { id: "draw", class: "primary" }));
      parts.push(picker(g));
      parts.push(el("div", { class: "v-takes" }, el("h4", {}, ui.vampir_take_title), g.locations.map((l) => {
        if (!l.pile.length) return move("take", { location: l.colour, cards: [] }, fill(ui.vampir_take_empty, { location: locationName(g, l.colour) }),
          { code: "location_empty" }, { class: "v-move", id: `take-${l.colour}` });
        return huntButton(g, mine, chosen, l.colour, { pile: l.pile, heads: l.heads });
      })));
    } else if (g.stage === "drawn" || g.stage === "hunting") {
      parts.push(picker(g));
      if (open) {
        if (g.stage === "drawn") parts.push(discardButtons(g, chosen));
        parts.push(chosen.length ? huntButton(g, mine, chosen, null, null) : el("p", { class: "hint" }, ui.vampir_hunt_pick));
      }
    }
    const end = find(game, "end_turn");
    if (end && (g.stage === "hunting" || g.stage === "done")) parts.push(button(end, ui.vampir_end_turn, { id: "end-turn" }));
    return el("section", { class: "v-choose", id: "vampir-choose", "data-stage": g.stage }, parts);
  }

  function discardButtons(g, chosen) {
    if (chosen.length !== 1) return el("p", { class: "hint", id: "discard-hint" }, ui.vampir_discard_pick);
    const c = chosen[0];
    if (c.colour) {
      return move("discard", { card: c.card }, fill(ui.vampir_discard, { location: locationName(g, c.colour), colour: colourWord(c.colour) }),
        null, { class: "v-move", id: "discard" });
    }
    return el("div", { class: "v-joker-places" }, el("p", {}, ui.vampir_joker_where), COLOURS.map((colour) =>
      move("discard", { card: c.card, location: colour }, fill(ui.vampir_discard_joker, { location: locationName(g, colour) }), null,
        { class: "v-move", "data-location": colour })));
  }

  // With the real cards: each player enters their hunts, colour by colour (one-head, two-head, jokers).
  const entries = {};
  function entryForm(g, seat, as) {
    const player = g.players.find((p) => p.seat === seat);
    const key = `${g.round}:${seat}`;
    if (!entries[key]) {
      entries[key] = {};
      for (const colour of COLOURS) {
        const h = player.hunts.find((x) => x.colour === colour);
        entries[key][colour] = { one: h ? h.one : 0, two: h ? h.two : 0, jokers: h ? h.jokers : 0 };
      }
    }
    const values = entries[key];
    const field = (colour, kind) => el("input", { type: "number", min: "0", max: kind === "jokers" ? "10" : kind === "one" ? "11" : "5",
      inputmode: "numeric", value: String(values[colour][kind]), "data-colour": colour, "data-kind": kind,
      "aria-label": `${colourName(colour)}: ${ui[`vampir_entry_${kind}`]}`,
      oninput: (e) => { values[colour][kind] = Math.max(0, Number(e.target.value) || 0); } });
    const send = () => {
      const hunts = COLOURS.filter((colour) => values[colour].one + values[colour].two + values[colour].jokers > 0)
        .map((colour) => ({ colour, ...values[colour] }));
      const args = as === "host" ? { seat, hunts } : { hunts };
      C.send(as, "enter_hunts", args);
    };
    return el("form", { class: "v-entry", id: `vampir-entry-${seat}`, onsubmit: (e) => { e.preventDefault(); send(); } },
      el("table", {},
        el("thead", {}, el("tr", {}, el("th", {}, ui.vampir_colour), el("th", {}, ui.vampir_entry_one), el("th", {}, ui.vampir_entry_two),
          el("th", {}, ui.vampir_entry_jokers))),
        el("tbody", {}, COLOURS.map((colour) => el("tr", {},
          el("th", { class: `c-${colour}` }, icon(locationOf(g, colour)), " ", colourName(colour)),
          el("td", {}, field(colour, "one")), el("td", {}, field(colour, "two")), el("td", {}, field(colour, "jokers")))))),
      el("p", { class: "hint" }, ui.vampir_entry_hint),
      el("button", { type: "submit", class: "primary", "data-name": "enter_hunts" }, player.entered ? ui.vampir_entry_again : ui.vampir_entry_send));
  }

  function phoneChoices(game, g, view) {
    if (g.phase === "turn" && g.current === me(view)) return turnChoices(game, g, view);
    const next = find(game, "next_round");
    if (next) return el("section", { class: "v-choose" }, button(next, fill(ui.vampir_next_round, { round: g.round + 1 }), { id: "next-round", class: "primary" }));
    const over = find(game, "round_over");
    if (over) return el("section", { class: "v-choose" }, el("p", { class: "hint" }, ui.vampir_round_over_hint),
      button(over, ui.vampir_round_over, { id: "round-over" }));
    if (g.phase === "entering") return el("section", { class: "v-choose" }, el("h4", {}, ui.vampir_entry_title), entryForm(g, me(view), "me"));
    return null;
  }

  C.games[GAME] = {
    announcesEnd: (game) => game.view.phase === "over",
    // The TV: one screen, never scrolled. The turn and the last action on top, the locations, the
    // players beside the rounds and the latest happenings (as many as the screen holds), and the
    // scoring as it would be now (or the round's scoring), each colour's reason on its row.
    table(container, game, view) {
      const g = game.view;
      const last = lastAction(g);
      if (last) last.classList.add("last-action");
      const scored = g.phase === "scored" || g.phase === "over";
      const now = g.phase === "turn" && g.projection ? el("section", { class: "v-projection" },
        scoring(g, { colours: g.projection.colours, points: g.projection.points }, ui.vampir_projection_title,
          "vampir-projection", false, true)) : null;
      const lately = happenings(g, 12);
      if (lately) lately.querySelector("ol").dataset.fit = "trim";
      const below = scored ? result(g, false, true) : now;
      // A crowded screen drops the colours' names from the hunts (their icon and border stay), then
      // the hunts themselves when the table below has every player's heads in every colour.
      const everyone = players(g, "big");
      everyone.dataset.fitSteps = below ? "2" : "1";
      container.replaceChildren(el("div", { class: `vampir vampir-table phase-${g.phase}`, "data-position": String(view.position) },
        status(g, view, "table"), last, supply(g),
        scored ? null : locations(g, "big"),
        el("div", { class: "v-grid" }, everyone,
          el("div", { class: "v-side" }, roundsTable(g), lately, unverified(g)), below)));
    },
    seat(container, game, view) {
      redraw = () => C.games[GAME].seat(container, game, view);
      const g = game.view;
      const key = `${g.round}:${g.turns}:${g.current}`;
      if (key !== turnKey) { turnKey = key; picked = new Set(); open = false; autoOpened = false; }
      if (g.phase !== "turn" || g.current !== me(view)) open = false;
      if (g.stage === "drawn" && g.current === me(view) && !autoOpened) {
        // This player just drew (with a tap on this phone): their hand opens by itself, the new cards marked.
        open = true; autoOpened = true;
      }
      if (open !== (idleTimer !== null)) armIdle();
      for (const token of [...picked]) if (!g.hand.some((c) => c.card === token)) picked.delete(token);
      const mine = g.players.find((p) => p.seat === me(view));
      container.replaceChildren(el("div", { class: `vampir vampir-phone phase-${g.phase}`, "data-position": String(view.position) },
        status(g, view, "me", game.ended), lastAction(g), result(g, true), supply(g),
        phoneChoices(game, g, view),
        mine ? el("section", { class: "v-mine" }, el("h3", {}, ui.vampir_my_hunts),
          el("div", { class: "v-hunts" }, mine.hunts.length ? mine.hunts.map((h) => hunt(g, h)) : el("span", { class: "muted" }, ui.vampir_no_hunt))) : null,
        locations(g, "small"),
        players(g, "small"), roundsTable(g)));
    },
    // The hand, behind the page's hold-to-peek control.
    private(game, view) {
      const g = game.view;
      if (g.cards !== "digital") return el("p", { class: "muted" }, ui.vampir_real_cards);
      return el("div", { class: "vampir v-private", id: "vampir-hand" }, handCards(g, g.hand || [], false),
        el("p", { class: "hint" }, fill(ui.vampir_hand_count, { n: (g.hand || []).length })));
    },
    host(container, game, view) {
      const g = game.view;
      const starters = game.actions.filter((a) => a.name === "choose_starter");
      const next = find(game, "next_round");
      const over = find(game, "round_over");
      const missing = g.phase === "entering" ? g.players.filter((p) => !p.entered) : [];
      container.replaceChildren(el("div", { class: `vampir vampir-host phase-${g.phase}`, "data-position": String(view.position) },
        status(g, view, "host", game.ended), lastAction(g),
        starters.length ? el("div", { class: "v-choose" }, el("p", {}, ui.vampir_host_starter),
          starters.map((a) => C.actionButton(a, nameOf(g, a.args.seat), { "data-seat": String(a.args.seat) }, "v-act", false, "host"))) : null,
        next ? C.actionButton(next, fill(ui.vampir_next_round, { round: g.round + 1 }), { id: "next-round-host" }, "v-act", false, "host") : null,
        over ? C.actionButton(over, ui.vampir_round_over, { id: "round-over-host" }, "v-act", false, "host") : null,
        missing.length ? el("details", { class: "v-host-entry" }, el("summary", {}, ui.vampir_host_enter),
          missing.map((p) => el("div", {}, el("h4", {}, nameOf(g, p.seat)), entryForm(g, p.seat, "host")))) : null,
        result(g, true), supply(g), locations(g, "small"), players(g, "small"), roundsTable(g), unverified(g)));
    },
  };
})(window.Companion);
