// Dracula: the companion is the game master. The TV is the forum (dracula-table.js draws it); the
// phones are the secret forms and the inboxes; the host console runs the clock and, for a person
// game master, shows the whole grimoire.
//
// No tells: every phone, human or vampire, shows the same screens with the same number of steps at
// the same moments. A night is two screens (the room, then the action; on the first night a third,
// where everyone confirms their room while Dracula chooses his), each sending one request. A choice
// the rules refuse is never drawn disabled (a neighbour would see Dracula's "do nothing" greyed
// out): it says why once its own player picks it. Everything private (the role, the object, the
// night's news, the rooms seen early, the letters) sits behind hold-to-peek, and nothing rings.
"use strict";
(function (C) {
  const { el, ui, fill } = C;
  const GAME = "dracula";
  const nameOf = C.seatName;
  const mine = C.mySeat;
  const listed = new Intl.ListFormat(C.lang, { type: "conjunction" });
  const names = (g, seats) => listed.format((seats || []).map((s) => nameOf(g, s)));
  const find = (game, name, test) => game.actions.find((a) => a.name === name && (!test || test(a.args)));
  const all = (game, name) => game.actions.filter((a) => a.name === name);
  const same = (a, b) => JSON.stringify(a, Object.keys(a).sort()) === JSON.stringify(b, Object.keys(b).sort());

  // -- words ------------------------------------------------------------------------------------------
  const roomName = (room) => ui[`dracula_room_${room}`] || room;
  const objectName = (kind) => ui[`dracula_object_${kind}`] || kind;
  const phaseName = (phase) => ui[`dracula_phase_${phase}`] || phase;
  const number = new Intl.NumberFormat(C.lang, { maximumFractionDigits: 1 });
  const num = (n) => number.format(n);
  const points = (n) => fill(ui.dracula_points_n, { n, shown: num(n) });
  const natureName = (nature) => (nature === "vampire" ? ui.dracula_nature_vampire : ui.dracula_nature_human);

  function newsText(g, n) {
    const name = n.target !== undefined && n.target !== null ? nameOf(g, n.target) : "";
    switch (n.kind) {
      case "bite": return fill(ui[`dracula_news_bite_${n.result}`] || ui.dracula_news_bite_failure, { name });
      case "bitten": return ui.dracula_news_bitten;
      case "garlic_saved": return fill(ui.dracula_news_garlic_saved, { n: n.bites });
      case "converted": return ui.dracula_news_converted;
      case "map_result": return fill(n.vampirised ? ui.dracula_news_map_yes : ui.dracula_news_map_no, { name });
      case "waltz": return fill(ui.dracula_news_waltz, { name: nameOf(g, n.partner) });
      case "boudoir": return fill(ui.dracula_news_boudoir, { n: n.vampires });
      case "caged": return fill(ui.dracula_news_caged, { name });
      case "torture": return fill(ui.dracula_news_torture, { name, nature: natureName(n.nature) });
      case "tortured": return ui.dracula_news_tortured;
      case "treasure": return fill(ui.dracula_news_treasure, { room: roomName(n.room) });
      case "candle": return fill(ui.dracula_news_candle, { room: roomName(n.room) });
      default: return n.kind;
    }
  }

  // What a candle showed: its room's night, in order.
  function candleLine(g, e) {
    switch (e.kind) {
      case "present": return fill(ui.dracula_candle_present, { names: names(g, e.seats) });
      case "snoop": return e.target === null || e.target === undefined
        ? fill(ui.dracula_candle_snoop_boudoir, { name: nameOf(g, e.by) })
        : fill(ui.dracula_candle_snoop, { name: nameOf(g, e.by), target: nameOf(g, e.target) });
      case "waltz": return fill(ui.dracula_candle_waltz, { names: names(g, e.seats) });
      case "caged": return fill(ui.dracula_candle_caged, { name: nameOf(g, e.seat) });
      case "tortured": return fill(ui.dracula_candle_tortured, { name: nameOf(g, e.seat), nature: natureName(e.nature) });
      case "bite": return fill(e.result === "success" ? ui.dracula_candle_bite_success : ui.dracula_candle_bite,
        { name: nameOf(g, e.by), target: nameOf(g, e.target) });
      case "treasure": return fill(e.found ? ui.dracula_candle_treasure_found : ui.dracula_candle_treasure,
        { name: nameOf(g, e.seat) });
      default: return e.kind;
    }
  }

  const letterTitle = (x) => (x.kind === "message" ? x.title : ui[`dracula_${x.kind}_title`]);

  // -- shared parts -----------------------------------------------------------------------------------
  // The round, the night, the phase and its clock: the same line on every phone and the console.
  function status(g, ended) {
    const c = g.clock;
    let clock = null;
    if (!ended && c && c.running) clock = C.countdown(c.ends_us - c.full_us, c.ends_us, ui.dracula_clock_left);
    else if (!ended && c) {
      const s = Math.ceil(c.left_us / 1e6);
      clock = el("span", { class: "d-paused" }, fill(ui.dracula_clock_paused, { m: Math.floor(s / 60), ss: String(s % 60).padStart(2, "0") }));
    }
    return el("div", { class: "d-status", id: "dracula-status", "data-phase": g.phase },
      el("span", { class: "d-round" }, fill(ui.dracula_round, { n: g.round, of: g.rounds })),
      g.phase === "over" ? null : el("span", { class: "d-night" }, fill(ui.dracula_night, { n: g.night })),
      el("strong", { class: "d-phase" }, phaseName(g.phase)), clock,
      g.small_table ? el("span", { class: "hint d-variant" }, ui.dracula_small_table) : null);
  }

  // "Step 1 of 2": the night's screens, counted the same on every phone.
  function nightSteps(g) { return g.night === 1 ? 3 : 2; }
  function stepLine(g, step, title) {
    return el("p", { class: "d-step", "data-step": String(step), "data-steps": String(nightSteps(g)) },
      el("span", { class: "d-step-count" }, fill(ui.dracula_step, { n: step, of: nightSteps(g) })), " ",
      el("strong", {}, title));
  }

  function waiting(text) { return el("p", { class: "d-wait", role: "status" }, text); }

  // A choice that stays looking like its neighbours: pressed or not, never disabled.
  function option(label, pressed, onpick, attrs) {
    return el("button", { type: "button", class: "d-option", "aria-pressed": String(pressed), onclick: onpick, ...(attrs || {}) }, label);
  }

  // The one request of a screen. `problem`: why not (a reason {code, params}, or a ui sentence).
  // Until its player touches the screen it looks the same on every phone: a refusal of what the
  // screen proposes at first (Dracula's own room on the first night, with nobody to bite) is said
  // when the button is tapped, not greyed out for a neighbour to see.
  let reasons = 0;
  function confirm(name, args, label, problem, id) {
    const text = !problem ? "" : typeof problem === "string" ? problem : C.reasonText(problem);
    if (text && !Object.keys(picks).length) {
      return el("div", { class: "d-confirm" }, el("button", { type: "button", class: "primary", id, "data-name": name,
        "data-args": JSON.stringify(args), onclick: () => C.showError(text) }, label));
    }
    const reasonId = text ? `d-why-${++reasons}` : null;
    return el("div", { class: "d-confirm" },
      el("button", { type: "button", class: "primary", id, disabled: !!problem, "data-name": name,
        "data-args": JSON.stringify(args), "aria-describedby": reasonId,
        onclick: () => C.send("me", name, args) }, label),
      reasonId ? el("span", { class: "hint reason", id: reasonId }, text) : null);
  }

  // -- the phone's local picks (kept across redraws, forgotten at each new phase) ---------------------
  let picks = {};
  let pickStep = null;
  let redraw = () => {};
  function pick(key, value) { picks[key] = value; redraw(); }

  // -- the room: dusk, the human maps, and the first night's confirmation ------------------------------
  function roomButtons(g, chosen, onpick) {
    return el("div", { class: "d-rooms", role: "group", "aria-label": ui.dracula_rooms },
      g.rooms.map((room) => option(roomName(room), chosen === room, () => onpick(room),
        { "data-room": room, class: `d-option d-room${(g.treasure_rooms || []).includes(room) ? " treasure" : ""}` })));
  }

  function treasureLine(g) {
    if (!g.treasure_rooms || !g.treasure_rooms.length) return null;
    return el("p", { class: "hint d-treasure" }, fill(ui.dracula_treasure_rooms, { rooms: listed.format(g.treasure_rooms.map(roomName)) }));
  }

  // Whether this phase takes this phone's answer now; else why not (the clock paused, answered).
  function closed(game, name) {
    const actions = all(game, name);
    if (!actions.length) return { code: "nothing_asked_of_you" };
    const refused = actions.find((a) => !a.allowed && a.reason && ["clock_paused", "already_answered"].includes(a.reason.code));
    return refused ? refused.reason : null;
  }

  function duskScreen(game, g, me) {
    const body = [stepLine(g, 1, ui.dracula_step_room), treasureLine(g)];
    if (me.choice) return [...body, waiting(me.choice.room ? fill(ui.dracula_room_sent, { room: roomName(me.choice.room) }) : ui.dracula_map_sent)];
    const room = picks.room || null;
    const use = !!picks.use;
    const obj = me.object ? me.object.kind : null;
    const humanMap = use && obj === "map" && me.role === "human";
    const vampireMap = use && obj === "map" && me.role === "vampire";
    body.push(humanMap ? el("p", { class: "hint d-map-later" }, ui.dracula_map_later)
      : roomButtons(g, room, (r) => pick("room", r)));
    // From the third night every phone offers its object (all but Dracula hold one, and a phone
    // without this line would say so); which object it is stays behind the peek above.
    let problem = null;
    if (g.night >= 3) {
      body.push(el("div", { class: "d-object-line" }, option(ui.dracula_use_object, use, () => pick("use", !use), { id: "dracula-use" })));
      if (use && !obj) problem = { code: "no_object" };
    }
    const args = humanMap ? { room: null, use: true } : { room, use };
    if (vampireMap) {
      const others = g.players.filter((p) => p.seat !== me.seat);
      body.push(el("div", { class: "d-curse" }, el("p", {}, ui.dracula_curse_help),
        el("div", { class: "d-targets", role: "group", "aria-label": ui.dracula_curse_who },
          others.map((p) => option(p.name || nameOf(g, p.seat), picks.curse === p.seat, () => pick("curse", p.seat), { "data-seat": String(p.seat) }))),
        el("p", {}, ui.dracula_curse_room),
        el("div", { class: "d-rooms", role: "group", "aria-label": ui.dracula_curse_room },
          g.rooms.map((r) => option(roomName(r), picks.curseRoom === r, () => pick("curseRoom", r), { "data-curse-room": r })))));
      Object.assign(args, { curse_target: picks.curse, curse_room: picks.curseRoom });
      if (!problem && (picks.curse === undefined || picks.curse === null)) problem = { code: "curse_needs_a_player" };
      if (!problem && !picks.curseRoom) problem = { code: "curse_needs_a_room" };
    }
    if (!problem && !humanMap && !room) problem = ui.dracula_pick_room;
    if (!problem) problem = closed(game, "choose_room");
    body.push(confirm("choose_room", args, ui.dracula_send_room, problem, "dracula-send-room"));
    return body;
  }

  // Rooms seen before the positions (a human map, Dracula's first night): behind the peek.
  function sightList(g, sight) {
    return el("ul", { class: "d-sight" }, sight.map((s) => el("li", { "data-seat": String(s.seat), "data-room": s.room },
      fill(ui.dracula_sight_line, { name: nameOf(g, s.seat),
        room: s.room === "unknown" ? ui.dracula_room_unknown : s.room === null ? ui.dracula_sight_sanctuary : roomName(s.room) }))));
  }

  function mapsScreen(game, g, me) {
    const body = [stepLine(g, 1, ui.dracula_step_room)];
    if (!me.sight || me.room) {
      return [...body, waiting(me.choice && me.choice.room ? fill(ui.dracula_room_sent, { room: roomName(me.choice.room) }) : ui.dracula_wait_maps)];
    }
    const room = picks.room || null;
    body.push(C.peek({ id: "dracula-sight", label: ui.dracula_hold_sight, content: () => sightList(g, me.sight) }),
      roomButtons(g, room, (r) => pick("room", r)),
      confirm("choose_room", { room }, ui.dracula_send_room, room ? closed(game, "choose_room") : ui.dracula_pick_room, "dracula-send-room"));
    return body;
  }

  // The first night: Dracula sees everyone's room and picks his; everyone else confirms their own,
  // on the same screen (the sight's control is on every phone; the rooms too) with the same request.
  function draculaScreen(game, g, me) {
    const body = [stepLine(g, 2, ui.dracula_step_confirm)];
    if (me.ready) return [...body, waiting(fill(ui.dracula_room_confirmed, { room: roomName(me.room) }))];
    const room = picks.room || me.room;
    const action = find(game, "choose_room", (a) => a.room === room);
    body.push(C.peek({ id: "dracula-sight", label: ui.dracula_hold_sight,
      content: () => (me.sight ? [el("p", {}, ui.dracula_sight_dracula), sightList(g, me.sight)]
        : el("p", {}, fill(ui.dracula_sight_none, { room: roomName(me.room) }))) }),
    roomButtons(g, room, (r) => pick("room", r)),
    confirm("choose_room", { room }, ui.dracula_confirm_room, action ? (action.allowed ? null : action.reason) : { code: "nothing_asked_of_you" },
      "dracula-send-room"));
    return body;
  }

  // -- the action: the same slots on every phone (a vampire's bite where a human's treasure is) -------
  const KIND_ORDER = ["pass", "snoop", "treasure", "bite", "bite_snoop"];
  function actionsScreen(game, g, me) {
    const body = [stepLine(g, nightSteps(g), ui.dracula_step_action),
      el("p", { class: "hint d-here" }, fill(ui.dracula_you_are_in, { room: roomName(me.room) }))];
    if (me.action) return [...body, waiting(ui.dracula_action_sent)];
    const choices = me.choices || [];
    const kinds = KIND_ORDER.filter((k) => choices.some((c) => c.kind === k));
    const kind = picks.kind || null;
    body.push(el("div", { class: "d-kinds", role: "group", "aria-label": ui.dracula_action_kinds },
      kinds.map((k) => option(ui[`dracula_kind_${k}`] || k, kind === k, () => { picks.bite = null; picks.target = null; pick("kind", k); },
        { "data-kind": k }))));
    const ofKind = choices.filter((c) => c.kind === kind);
    const bites = [...new Set(ofKind.map((c) => c.args.bite).filter((s) => s !== undefined))];
    const targets = [...new Set(ofKind.map((c) => c.args.target).filter((s) => s !== undefined))];
    const picker = (label, seats, key) => el("div", { class: "d-pick" }, el("p", {}, label),
      el("div", { class: "d-targets", role: "group", "aria-label": label },
        seats.map((s) => option(nameOf(g, s), picks[key] === s, () => pick(key, s), { "data-seat": String(s), "data-for": key }))));
    if (bites.length) body.push(picker(ui.dracula_whom_bite, bites, "bite"));
    if (targets.length) body.push(picker(ui.dracula_whom_snoop, targets, "target"));
    if (kind === "snoop" && !targets.length && me.room === "boudoir") body.push(el("p", { class: "hint" }, ui.dracula_boudoir_snoop));
    const chosen = ofKind.find((c) => (!bites.length || c.args.bite === picks.bite) && (!targets.length || c.args.target === picks.target));
    let problem = !kind ? ui.dracula_pick_action : !chosen ? ui.dracula_pick_target : chosen.refused ? { code: chosen.refused } : null;
    if (!problem) problem = closed(game, "act");
    body.push(confirm("act", chosen ? chosen.args : {}, ui.dracula_send_action, problem, "dracula-send-action"));
    return body;
  }

  // -- the day: talk, and from the second day the sanctuary vote ---------------------------------------
  function dayScreen(game, g, me) {
    const body = [];
    if (!g.vote_today) {
      body.push(el("p", {}, g.night === 1 ? ui.dracula_day_one : ui.dracula_day_talk));
    } else {
      body.push(el("p", {}, fill(ui.dracula_vote_help, { n: g.capacity })));
      if (me.vote !== null && me.vote !== undefined) body.push(waiting(fill(ui.dracula_you_voted, { name: nameOf(g, me.vote) })));
      else {
        const votes = all(game, "vote");
        body.push(el("div", { class: "d-targets d-vote", role: "group", "aria-label": ui.dracula_vote_for },
          votes.map((a) => C.actionButton(a, nameOf(g, a.args.candidate), { "data-seat": String(a.args.candidate), class: "d-candidate" }, "d-act", true))));
        const why = votes.find((a) => !a.allowed);
        if (why && votes.every((a) => !a.allowed)) body.push(el("p", { class: "hint" }, C.reasonText(why.reason)));
      }
      body.push(ballots(g));
    }
    const ready = find(game, "ready");
    if (ready && ready.allowed) body.push(C.actionButton(ready, g.vote_today ? ui.dracula_no_vote : ui.dracula_done_talking, { id: "dracula-ready" }, "d-act"));
    else if (me.ready) body.push(waiting(ui.dracula_ready_wait));
    return body;
  }

  // The day's votes as they arrive (public: the forum's bold votes), with their times once counted.
  function ballots(g) {
    if (!g.ballots.length) return el("p", { class: "hint d-ballots" }, ui.dracula_no_votes_yet);
    return el("ol", { class: "d-ballots" }, g.ballots.map((b) => el("li", { "data-voter": String(b.voter) },
      fill(ui.dracula_ballot, { voter: nameOf(g, b.voter), name: nameOf(g, b.candidate) }))));
  }

  // Tonight's sanctuary guests, from the count of the vote until the night is over.
  function sanctuaryLine(g) {
    if (!g.sanctuary.length || !["dusk", "maps", "dracula", "actions", "torture", "confirm"].includes(g.phase)) return null;
    return el("p", { class: "d-sanctuary" }, fill(ui.dracula_sanctuary, { names: names(g, g.sanctuary) }));
  }

  // -- dawn: the night's news, behind the peek on every phone (with news or none) ----------------------
  function newsBox(g, me) {
    const content = () => {
      const items = me.news.map((n) => el("li", { "data-kind": n.kind, "data-token": n.token }, newsText(g, n),
        n.kind === "candle" ? el("ul", { class: "d-candle" }, (n.events || []).map((e) => el("li", {}, candleLine(g, e)))) : null));
      if (g.night === 2 && g.phase === "dawn" && me.object) items.push(el("li", { "data-kind": "object" }, fill(ui.dracula_news_object, { object: objectName(me.object.kind) })));
      return items.length ? el("ul", { class: "d-news" }, items) : el("p", { class: "d-news-none" }, ui.dracula_news_none);
    };
    return el("section", { class: "d-news-box", id: "dracula-news" }, el("h3", {}, ui.dracula_news_title),
      C.peek({ id: "dracula-news", label: ui.dracula_hold_news, content }));
  }

  function dawnScreen(game, g, me) {
    const body = [newsBox(g, me)];
    const ready = find(game, "ready");
    if (ready && ready.allowed) body.push(C.actionButton(ready, ui.dracula_news_read, { id: "dracula-ready" }, "d-act"));
    else body.push(waiting(ui.dracula_ready_wait));
    return body;
  }

  // -- the final phase (roles are public now) ---------------------------------------------------------
  function finalScreen(game, g, me) {
    const vampires = g.players.filter((p) => p.role === "vampire");
    const body = [el("p", {}, fill(ui.dracula_final_vampires, { names: names(g, vampires.map((p) => p.seat)) }))];
    if (g.phase === "final_choice") {
      const acts = all(game, "stance");
      if (acts.length && me.stance === null && acts.some((a) => a.allowed)) {
        body.push(el("p", {}, ui.dracula_stance_help), el("div", { class: "d-targets" },
          acts.map((a) => C.actionButton(a, ui[`dracula_stance_${a.args.stance}`], { id: `dracula-${a.args.stance}` }, "d-act"))));
      } else body.push(waiting(me.stance ? ui[`dracula_your_stance_${me.stance}`] || ui.dracula_ready_wait : ui.dracula_wait_humans));
    } else {
      const acts = all(game, "name_vampire");
      if (acts.length && acts.some((a) => a.allowed)) {
        body.push(el("p", {}, ui.dracula_name_help), el("div", { class: "d-targets" },
          acts.map((a) => C.actionButton(a, nameOf(g, a.args.vampire), { "data-seat": String(a.args.vampire) }, "d-act"))));
      } else body.push(waiting(me.named ? fill(ui.dracula_you_named, { name: nameOf(g, me.named.seat) }) : ui.dracula_wait_fighters));
    }
    body.push(el("ul", { class: "d-stances" }, g.players.filter((p) => p.role === "human" && p.alive).map((p) =>
      el("li", { "data-seat": String(p.seat) }, fill(ui[`dracula_stance_of_${p.stance || "none"}`] || ui.dracula_stance_of_none, { name: nameOf(g, p.seat) })))));
    return body;
  }

  // -- the round's end and the series' -----------------------------------------------------------------
  function roundEnd(g) {
    const last = g.rounds_done[g.rounds_done.length - 1];
    if (!last) return null;
    const final = g.final;
    const rows = g.players.map((p) => {
      const halves = (last.halves || {})[String(p.seat)] || 0;
      return el("tr", { "data-seat": String(p.seat) }, el("th", {}, nameOf(g, p.seat)),
        el("td", {}, p.role ? natureName(p.role) : ""), el("td", {}, (last.dead || []).includes(p.seat) ? ui.dracula_dead : ""),
        el("td", {}, num(halves / 2)), el("td", {}, num(p.total)));
    });
    return el("section", { class: "d-round-end", id: "dracula-round-end" },
      el("p", { class: "d-revealed" }, fill(ui.dracula_was_dracula, { name: nameOf(g, last.dracula), round: last.round })),
      final && final.burned && final.burned.length ? el("p", {}, fill(ui.dracula_burned, { names: names(g, final.burned) })) : null,
      el("table", { class: "d-points" }, el("thead", {}, el("tr", {}, el("th", {}, ui.dracula_player), el("th", {}, ui.dracula_role),
        el("th", {}, ui.dracula_fate), el("th", {}, ui.dracula_round_points), el("th", {}, ui.dracula_total))),
      el("tbody", {}, rows)),
      el("p", { class: "hint d-seal" }, fill(ui.dracula_seal, { commitment: String(last.commitment || "").slice(0, 16), salt: String(last.salt || "").slice(0, 16) })));
  }

  function podium(g) {
    const ranked = [...g.players].sort((a, b) => b.total - a.total);
    const places = ranked.map((p) => 1 + ranked.filter((o) => o.total > p.total).length);
    return el("section", { class: "d-podium", id: "dracula-podium" }, el("h3", {}, ui.dracula_podium),
      el("ul", { class: "d-places" }, ranked.map((p, i) => el("li", { "data-place": String(places[i]) },
        fill(ui.dracula_place, { place: places[i], name: nameOf(g, p.seat), points: points(p.total) })))),
      el("ul", { class: "d-draculas" }, g.rounds_done.map((r) => el("li", {}, fill(ui.dracula_was_dracula, { name: nameOf(g, r.dracula), round: r.round })))));
  }

  // -- messages: on every phone in the same place, the letters behind a peek ---------------------------
  const draft = { to: "", title: "", text: "" };
  let messagesOpen = false;
  function messages(g, me) {
    const letters = me.letters || [];
    const box = el("details", { class: "d-messages", id: "dracula-messages", open: messagesOpen,
      ontoggle: (e) => { messagesOpen = e.target.open; } },
    // The tap says at once whether the box is wanted open: the `toggle` event comes a moment later,
    // and a new view redrawing the page in between would shut the box under the player's finger.
    el("summary", { onclick: (e) => { messagesOpen = !e.currentTarget.parentElement.open; } }, ui.dracula_messages),
    C.peek({ id: "dracula-letters", label: ui.dracula_hold_letters, content: () => (letters.length
      ? el("ol", { class: "d-letters" }, letters.map((x) => el("li", { class: x.from === me.seat ? "sent" : "received", "data-kind": x.kind },
        el("p", { class: "d-letter-head" }, fill(x.from === me.seat ? ui.dracula_letter_to : ui.dracula_letter_from,
          { name: nameOf(g, x.from === me.seat ? x.to : x.from), day: x.day })),
        letterTitle(x) ? el("strong", { class: "d-letter-title" }, letterTitle(x)) : null,
        el("p", { class: "d-letter-text" }, x.text))))
      : el("p", {}, ui.dracula_no_letters)) }),
    writeForm(g, me));
    return box;
  }

  function writeForm(g, me) {
    const may = me.may_write || [];
    if (!may.length) return el("p", { class: "hint d-no-write" }, ui.dracula_cannot_write);
    const key = (w) => `${w.to}:${w.kind}`;
    if (!may.some((w) => key(w) === draft.to)) draft.to = key(may[0]);
    const kind = draft.to.split(":")[1];
    const locked = kind !== "message";
    const send = async (e) => {
      e.preventDefault();
      const [to, k] = draft.to.split(":");
      const sent = await C.send("me", "write", { to: Number(to), kind: k, title: locked ? "" : draft.title, text: draft.text });
      if (sent.ok) { draft.title = ""; draft.text = ""; redraw(); }
    };
    return el("form", { class: "d-write", id: "dracula-write", onsubmit: send },
      el("label", { for: "dracula-to" }, ui.dracula_write_to),
      el("select", { id: "dracula-to", onchange: (e) => { draft.to = e.target.value; redraw(); } },
        may.map((w) => el("option", { value: key(w), selected: key(w) === draft.to },
          w.kind === "message" ? nameOf(g, w.to) : `${nameOf(g, w.to)} · ${ui[`dracula_${w.kind}_title`]}`))),
      el("label", { for: "dracula-title" }, ui.dracula_write_title),
      locked ? el("input", { id: "dracula-title", value: ui[`dracula_${kind}_title`], readonly: true })
        : el("input", { id: "dracula-title", maxlength: "60", value: draft.title, oninput: (e) => { draft.title = e.target.value; } }),
      el("label", { for: "dracula-text" }, ui.dracula_write_text),
      el("textarea", { id: "dracula-text", maxlength: "500", rows: "4", oninput: (e) => { draft.text = e.target.value; } }, draft.text),
      el("button", { type: "submit", class: "primary", id: "dracula-send-letter", "data-name": "write" }, ui.dracula_send_letter));
  }

  // -- the phone -------------------------------------------------------------------------------------
  function phaseScreen(game, g, me) {
    const sheltered = g.sanctuary.includes(me.seat) && ["dusk", "maps", "dracula", "actions"].includes(g.phase);
    if (sheltered) return [waiting(ui.dracula_in_sanctuary)];
    switch (g.phase) {
      case "roles": {
        const ready = find(game, "ready");
        return [el("p", {}, ui.dracula_roles_help), ready && ready.allowed
          ? C.actionButton(ready, ui.dracula_role_read, { id: "dracula-ready" }, "d-act") : waiting(ui.dracula_ready_wait)];
      }
      case "day": return dayScreen(game, g, me);
      case "dusk": return duskScreen(game, g, me);
      case "maps": return mapsScreen(game, g, me);
      case "dracula": return draculaScreen(game, g, me);
      case "actions": return actionsScreen(game, g, me);
      case "torture": {
        // Every phone alike: the same words, the same hold-to-peek, the same two answers (an
        // untortured player's answer changes nothing): what the night asks is read only while held.
        const answers = all(game, "disguise").filter((a) => a.allowed);
        const question = () => el("p", { class: "d-torture" }, me.torture ? ui.dracula_torture_help : ui.dracula_torture_none);
        return [waiting(ui.dracula_resolving), C.peek({ id: "dracula-torture", label: ui.dracula_hold_torture, content: question }),
          answers.length && !me.answered_torture
            ? el("div", { class: "d-targets" }, answers.map((a) => C.actionButton(a, a.args.human ? ui.dracula_pass_human : ui.dracula_show_truth,
              { id: `dracula-disguise-${a.args.human}` }, "d-act")))
            : waiting(ui.dracula_ready_wait)];
      }
      case "confirm": return [waiting(ui.dracula_resolving)];
      case "dawn": return dawnScreen(game, g, me);
      case "final_choice": case "final_target": return finalScreen(game, g, me);
      case "round_over": return [roundEnd(g), waiting(g.round < g.rounds ? ui.dracula_next_round_wait : ui.dracula_series_end_wait)];
      case "over": return [roundEnd(g), podium(g)];
      default: return [];
    }
  }

  // Keeps the field being typed in (a new view redraws the screen while the player writes).
  function keepFocus(container, draw) {
    const active = document.activeElement;
    const id = active && container.contains(active) && active.id ? active.id : null;
    const at = id && "selectionStart" in active ? [active.selectionStart, active.selectionEnd] : null;
    draw();
    const again = id ? document.getElementById(id) : null;
    if (again && again !== document.activeElement) {
      again.focus({ preventScroll: true });
      if (at && again.setSelectionRange) { try { again.setSelectionRange(at[0], at[1]); } catch (err) { /* not a text field */ } }
    }
  }

  // -- the host console -------------------------------------------------------------------------------
  const HOST_LABELS = { pause_clock: "dracula_pause", resume_clock: "dracula_resume", extend_clock: "dracula_extend",
    end_phase: "dracula_end_phase", confirm_night: "dracula_confirm_night", next_round: "dracula_next_round" };

  function hostControls(game, g) {
    const buttons = Object.keys(HOST_LABELS).map((name) => find(game, name)).filter(Boolean).map((a) =>
      C.actionButton(a, fill(ui[HOST_LABELS[a.name]], { s: (a.args || {}).seconds }), { id: `dracula-${a.name}`,
        class: ["confirm_night", "next_round"].includes(a.name) ? "primary" : "" }, "d-act", false, "host"));
    return el("div", { class: "d-host-controls button-row" }, buttons);
  }

  // Who has answered the phase, and who it still waits on (nobody is waited on while paused).
  function answered(g) {
    const asked = g.players.filter((p) => p.answered !== null && p.answered !== undefined);
    if (!asked.length || (g.clock && !g.clock.running)) return null;
    const late = asked.filter((p) => !p.answered);
    return el("p", { class: "d-answered" }, fill(ui.dracula_host_answered, { n: asked.length - late.length, of: asked.length }),
      late.length ? ` ${fill(ui.dracula_host_waiting, { names: names(g, late.map((p) => p.seat)) })}` : "");
  }

  function actionWords(g, a) {
    if (!a) return "";
    if (a.bite !== null && a.bite !== undefined && a.snoop) return fill(ui.dracula_g_bite_snoop, { name: nameOf(g, a.bite), target: a.snoop_target ? nameOf(g, a.snoop_target) : roomName("boudoir") });
    if (a.bite !== null && a.bite !== undefined) return fill(ui.dracula_g_bite, { name: nameOf(g, a.bite) });
    if (a.snoop) return a.snoop_target ? fill(ui.dracula_g_snoop, { name: nameOf(g, a.snoop_target) }) : ui.dracula_g_snoop_boudoir;
    if (a.treasure) return ui.dracula_kind_treasure;
    return ui.dracula_kind_pass;
  }

  // A person game master sees it all: roles, objects, rooms, actions, news, letters, and the night
  // waiting for their confirmation.
  function grimoire(g) {
    const x = g.grimoire;
    if (!x) return null;
    const pending = x.pending;
    return el("section", { class: "d-grimoire", id: "dracula-grimoire" }, el("h3", {}, ui.dracula_grimoire),
      el("table", {}, el("thead", {}, el("tr", {}, [ui.dracula_player, ui.dracula_role, ui.dracula_object, ui.dracula_room_col,
        ui.dracula_action, ui.dracula_news_title, ui.dracula_round_points].map((h) => el("th", {}, h)))),
      el("tbody", {}, x.players.map((p) => el("tr", { "data-seat": String(p.seat), class: p.dracula ? "dracula" : "" },
        el("th", {}, nameOf(g, p.seat)),
        el("td", {}, p.dracula ? ui.dracula_is_dracula : natureName(p.role)),
        el("td", {}, p.used ? fill(ui.dracula_g_used, { object: objectName(p.used) }) : p.object ? objectName(p.object) : ""),
        el("td", {}, p.room ? roomName(p.room) : p.choice && p.choice.room ? roomName(p.choice.room) : ""),
        el("td", {}, actionWords(g, p.action)),
        el("td", {}, p.news.map((n) => newsText(g, n)).join(" · ")),
        el("td", {}, num(p.halves / 2)))))),
      pending ? el("div", { class: "d-pending", id: "dracula-pending" }, el("h4", {}, fill(ui.dracula_pending, { n: pending.night })),
        el("p", {}, pending.converted.length ? fill(ui.dracula_g_converted, { names: names(g, pending.converted) }) : ui.dracula_g_nobody_converted),
        el("ul", {}, Object.entries(pending.notices || {}).map(([seat, told]) => el("li", {},
          `${nameOf(g, Number(seat))}: ${told.map((n) => newsText(g, n)).join(" · ")}`)))) : null,
      x.letters.length ? el("details", { class: "d-g-letters" }, el("summary", {}, fill(ui.dracula_g_letters, { n: x.letters.length })),
        el("ol", {}, x.letters.map((l) => el("li", {}, fill(ui.dracula_g_letter, { from: nameOf(g, l.from), to: nameOf(g, l.to) }), " ",
          letterTitle(l) ? el("strong", {}, letterTitle(l)) : null, " ", l.text)))) : null);
  }

  function fallbackTable(container, game, view) {
    const g = game.view;
    container.replaceChildren(el("div", { class: `dracula dracula-table phase-${g.phase}`, "data-position": String(view.position) },
      status(g, game.ended), el("ul", {}, g.players.map((p) => el("li", {}, p.name || nameOf(g, p.seat))))));
  }

  C.games[GAME] = {
    announcesEnd: (game) => game.view.phase === "over",
    undo: false,  // every answer is final (a vote, a room, an action): nothing to take back
    table(container, game, view) {
      if (C.draculaTable) C.draculaTable(container, game, view);
      else fallbackTable(container, game, view);
    },
    seat(container, game, view) {
      redraw = () => C.games[GAME].seat(container, game, view);
      const g = game.view;
      const me = g.me;
      const stepKey = `${g.round}:${g.step}:${me ? me.seat : ""}`;
      if (pickStep !== stepKey) { pickStep = stepKey; picks = {}; }
      keepFocus(container, () => container.replaceChildren(el("div", { class: `dracula dracula-phone phase-${g.phase}`,
        "data-position": String(view.position), "data-step": String(g.step) },
      status(g, game.ended), sanctuaryLine(g),
      // The series' end ends the game, and its last round and podium stay; a game the host ended
      // early asks nothing more.
      me && (!game.ended || g.phase === "over") ? el("section", { class: "d-screen", id: "dracula-screen", "data-phase": g.phase },
        phaseScreen(game, g, me)) : null,
      me && !game.ended && g.phase === "day" ? newsBox(g, me) : null,
      me ? messages(g, me) : null)));
    },
    // The role and the object, behind the page's hold-to-peek control.
    private(game) {
      const me = game.view.me;
      if (!me) return null;
      return el("div", { class: "d-private", id: "dracula-role" },
        el("p", { class: "d-role", "data-role": me.role }, me.role === "vampire" ? ui.dracula_you_vampire : ui.dracula_you_human),
        me.dracula ? el("p", { class: "d-is-dracula" }, ui.dracula_you_dracula) : null,
        el("p", { class: "d-object" }, me.object ? fill(ui.dracula_your_object, { object: objectName(me.object.kind) })
          : me.used ? fill(ui.dracula_object_used, { object: objectName(me.used.kind) }) : ui.dracula_no_object));
    },
    host(container, game, view) {
      const g = game.view;
      const timedOut = g.timed_out || [];
      container.replaceChildren(el("div", { class: `dracula dracula-host phase-${g.phase}`, "data-position": String(view.position) },
        status(g, game.ended), g.phase === "confirm" && !game.ended ? el("p", { class: "hint" }, ui.dracula_host_confirm_help) : null,
        game.ended ? null : hostControls(game, g), answered(g),
        timedOut.length ? el("p", { class: "d-timed-out", id: "dracula-timed-out" }, fill(ui.dracula_host_timed_out, { names: names(g, timedOut) })) : null,
        g.gm === "person" ? grimoire(g) : el("p", { class: "hint" }, ui.dracula_host_companion_gm),
        g.phase === "round_over" || g.phase === "over" ? roundEnd(g) : null,
        g.phase === "over" ? podium(g) : null));
    },
  };
})(window.Companion);
