// Dracula on the TV: the forum of the original. The TV has only the public picture (views.py
// `_build_picture`), so it can show nothing private; it shows what the forum showed: the phase and
// its countdown, who has answered, the day's votes as they arrive and the count with its times,
// the sanctuary, the posted positions and the treasure rooms, the round's seal, the final phase
// (roles public from then on), the round's end with Dracula revealed and the seal checked, and
// after the last round a podium. During the night's hidden steps (Dracula tortured, a person GM
// confirming) the TV shows one and the same "the night is being resolved" screen with no clock: no
// countdown of Dracula's answer, no word of torture.
//
// `C.draculaTable(container, game, view)` draws it; dracula.js registers it as the game's table.
"use strict";
(function (C) {
  const { el, ui, fill } = C;
  const nameOf = C.seatName;
  const listed = new Intl.ListFormat(C.lang, { type: "conjunction" });
  const names = (g, seats) => listed.format((seats || []).map((s) => nameOf(g, Number(s))));
  const NIGHT_STEPS = ["torture", "confirm"];
  // From the count to the dawn: who spends the night in the sanctuary is the night's news.
  const NIGHT_PHASES = ["dusk", "maps", "dracula", "actions", "torture", "confirm", "dawn"];
  const TREASURE_FOR = ["day", "dusk", "maps", "dracula", "actions", "torture", "confirm"];
  const SEAL_SHOWN = 12;  // hex digits of the seal the TV shows: enough to compare by eye

  // -- words ------------------------------------------------------------------------------------------
  const roomName = (room) => ui[`dracula_tv_room_${room}`] || room;
  const rooms = (list) => listed.format((list || []).map(roomName));
  const points = (n) => fill(ui.dracula_tv_points, { n: Number(n).toLocaleString(C.lang) });
  const short = (hex) => String(hex || "").slice(0, SEAL_SHOWN);
  const seconds = (us) => (us / 1e6).toLocaleString(C.lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const millis = (us) => Math.round(us / 1000).toLocaleString(C.lang);

  // The phase's title and what it asks of the table. Torture and a person GM's confirmation read
  // alike: the table must not learn which one holds the night up.
  function phaseWords(g) {
    const n = { n: g.night, round: g.round, rounds: g.rounds, capacity: g.capacity };
    switch (g.phase) {
      case "roles": return [fill(ui.dracula_tv_title_roles, n), ui.dracula_tv_do_roles];
      case "day": return g.vote_today ? [fill(ui.dracula_tv_title_vote, n), fill(ui.dracula_tv_do_vote, n)]
        : [fill(ui.dracula_tv_title_day, n), g.night === 1 ? ui.dracula_tv_do_day_first : ui.dracula_tv_do_day];
      case "dusk": return [fill(ui.dracula_tv_title_dusk, n), ui.dracula_tv_do_dusk];
      case "maps": return [fill(ui.dracula_tv_title_dusk, n), ui.dracula_tv_do_settling];
      case "dracula": return [fill(ui.dracula_tv_title_night, n), ui.dracula_tv_do_confirm_room];
      case "actions": return [fill(ui.dracula_tv_title_actions, n), ui.dracula_tv_do_actions];
      case "torture": case "confirm": return [fill(ui.dracula_tv_title_night, n), ui.dracula_tv_do_resolving];
      case "dawn": return [fill(ui.dracula_tv_title_dawn, n), ui.dracula_tv_do_dawn];
      case "final_choice": return [ui.dracula_tv_title_final, ui.dracula_tv_do_final_choice];
      case "final_target": return [ui.dracula_tv_title_fight, ui.dracula_tv_do_final_target];
      case "round_over": return [fill(ui.dracula_tv_title_round_over, n), g.round < g.rounds
        ? fill(ui.dracula_tv_do_next_round, { round: g.round + 1 }) : ui.dracula_tv_do_last_round];
      case "over": return [ui.dracula_tv_title_over, ""];
      default: return [g.phase, ""];
    }
  }
  const phaseName = (phase) => ui[`dracula_tv_phase_${phase}`] || phase;

  // The night each happening belongs to, newest first: a new day's start names its night, the
  // ones before it belong to the night before; before a round's deal, to an earlier round (none).
  function nightsOf(g) {
    const nights = new Map();
    let night = g.night;
    for (const h of g.happenings) {
      if (h.kind === "phase_begun" && h.night) { nights.set(h, h.night); night = h.night - 1; continue; }
      nights.set(h, night);
      if (h.kind === "round_dealt") night = null;
    }
    return nights;
  }

  function happeningText(g, h, night = nightsOf(g).get(h)) {
    switch (h.kind) {
      case "round_dealt": return fill(ui.dracula_tv_h_round_dealt, { round: h.round, seal: short(h.commitment) });
      case "phase_begun": return night ? fill(ui[`dracula_tv_hp_${h.phase}`] || phaseName(h.phase), { n: night })
        : phaseName(h.phase);
      case "voted": return fill(ui.dracula_tv_h_voted, { voter: nameOf(g, h.voter), candidate: nameOf(g, h.candidate) });
      case "sanctuary_chosen": return h.chosen && h.chosen.length
        ? fill(ui.dracula_tv_h_sanctuary, { names: names(g, h.chosen) }) : ui.dracula_tv_h_sanctuary_empty;
      case "positions_posted": return ui.dracula_tv_h_positions;
      case "night_resolved": return h.treasure_rooms && h.treasure_rooms.length
        ? fill(ui.dracula_tv_h_night_over_treasure, { n: h.night, rooms: rooms(h.treasure_rooms) })
        : fill(ui.dracula_tv_h_night_over, { n: h.night });
      case "stance_taken": return fill(ui[`dracula_tv_h_stance_${h.stance}`] || ui.dracula_tv_h_stance_none, { name: nameOf(g, h.seat) });
      case "final_resolved": return !(h.burned || []).length ? ui.dracula_tv_h_nobody_burned
        : fill(h.dracula_burned ? ui.dracula_tv_h_burned_dracula : ui.dracula_tv_h_burned, { names: names(g, h.burned) });
      case "round_ended": return fill(ui.dracula_tv_h_round_ended, { round: h.round, name: nameOf(g, h.dracula) });
      case "clock_paused": return ui.dracula_tv_h_paused;
      case "clock_resumed": return ui.dracula_tv_h_resumed;
      case "clock_extended": return fill(ui.dracula_tv_h_extended, { s: Math.round((h.by_us || 0) / 1e6) });
      case "phase_timed_out": return fill(ui.dracula_tv_h_timed_out, { phase: phaseName(h.phase) });
      default: return h.kind;
    }
  }
  // The latest thing that happened, worth its line: a phase's start is already the title.
  const lastHappening = (g) => g.happenings.find((h) => h.kind !== "phase_begun") || g.happenings[0];

  // -- the clock ----------------------------------------------------------------------------------------
  // The phase's time left as minutes and seconds, counted against the server's now (countdown.js's
  // C.clock), so the TV and every phone read the same; a paused clock says so and stands still.
  function clockText(us) {
    const s = Math.max(0, Math.ceil(us / 1e6));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  }
  function tick(box) {
    const since = Number(box.dataset.sinceUs);
    const ends = Number(box.dataset.endsUs);
    const full = Number(box.dataset.fullUs);
    const left = C.clock ? C.clock.leftUs(since, ends) : ends - since;
    const text = clockText(left);
    const time = box.querySelector(".dt-time");
    if (time.textContent !== text) time.textContent = text;
    box.classList.toggle("low", left <= 10e6);
    box.querySelector(".dt-bar > span").style.transform = `scaleX(${Math.min(1, Math.max(0, left / full)).toFixed(3)})`;
  }
  setInterval(() => document.querySelectorAll(".dt-clock[data-ends-us]").forEach(tick), 250);

  function clock(g) {
    const c = g.clock;
    if (!c || NIGHT_STEPS.includes(g.phase)) return null;
    const running = c.running && c.ends_us !== null;
    const box = el("div", { class: `dt-clock${running ? "" : " paused"}`, id: "dracula-clock", role: "timer", "aria-live": "off",
      "data-since-us": running ? String(c.since_us) : null, "data-ends-us": running ? String(c.ends_us) : null,
      "data-full-us": String(c.full_us) },
    el("span", { class: "dt-time" }, clockText(c.left_us)),
    running ? null : el("span", { class: "dt-paused" }, ui.dracula_tv_paused),
    el("span", { class: "dt-bar", "aria-hidden": "true" },
      el("span", { style: `transform: scaleX(${(c.full_us ? c.left_us / c.full_us : 0).toFixed(3)})` })));
    if (running) tick(box);
    return box;
  }

  // -- the head: phase, what it asks, who answered, the seal, the last happening ---------------------
  function answeredLine(g) {
    const asked = g.players.filter((p) => p.answered !== null && p.answered !== undefined);
    if (!asked.length) return null;
    const done = asked.filter((p) => p.answered).length;
    return el("span", { class: "dt-answered", id: "dracula-answered", "data-done": String(done), "data-asked": String(asked.length) },
      fill(ui.dracula_tv_answered, { n: done, of: asked.length }));
  }

  // `stopped`: the host ended the game mid-round; nothing is asked of anyone, no clock runs.
  function head(g, stopped) {
    const [title, asked] = phaseWords(g);
    const what = stopped ? "" : asked;
    const last = lastHappening(g);
    return el("div", { class: "dt-head" },
      el("div", { class: "dt-now", role: "status" },
        el("p", { class: "dt-title" }, el("strong", { id: "dracula-phase", "data-phase": g.phase }, title),
          g.phase === "over" ? null : el("span", { class: "dt-round" }, fill(ui.dracula_tv_round, { round: g.round, rounds: g.rounds })),
          g.commitment && g.phase !== "over" ? el("span", { class: "dt-seal", id: "dracula-seal", title: g.commitment },
            fill(ui.dracula_tv_seal, { seal: short(g.commitment) })) : null),
        what ? el("p", { class: "dt-what" }, what, " ", answeredLine(g)) : null,
        last ? el("p", { class: "last-action dt-last", id: "dracula-last" }, happeningText(g, last)) : null),
      stopped ? null : clock(g));
  }

  // -- the players: who answered, the sanctuary, the burned and the dead, the series' points ----------
  // One line each, thirteen of them beside the main panel (the roles and stances of the final
  // phase are the main panel's).
  function playerRow(g, p, stopped) {
    const final = g.final || {};
    const burned = (final.burned || []).includes(p.seat);
    const answered = stopped ? null : p.answered;
    const mark = answered === true ? "✓" : answered === false ? "…" : "";
    const state = answered === true ? "answered" : answered === false ? "waiting" : "idle";
    return el("li", { class: `dt-player ${state}${p.alive ? "" : " dead"}${p.role ? ` ${p.role}` : ""}`, "data-seat": String(p.seat),
      "data-answered": String(answered), "data-role": p.role || null },
    el("span", { class: "dt-mark", role: mark ? "img" : null, "aria-label": mark ? ui[`dracula_tv_mark_${state}`] : null }, mark),
    el("span", { class: "dt-name" }, p.name || nameOf(g, p.seat)),
    p.in_sanctuary && NIGHT_PHASES.includes(g.phase) ? el("span", { class: "dt-tag sanctuary" }, ui.dracula_tv_in_sanctuary) : null,
    burned ? el("span", { class: "dt-tag burned" }, ui.dracula_tv_burned) : null,
    p.alive ? null : el("span", { class: "dt-tag dead" }, ui.dracula_tv_dead),
    g.rounds_done.length ? el("span", { class: "dt-total" }, points(p.total)) : null);
  }
  function playersList(g, stopped) {
    return el("section", { class: "dt-players", id: "dracula-players", "aria-label": ui.dracula_tv_players },
      el("ul", {}, g.players.map((p) => playerRow(g, p, stopped))));
  }

  // -- the day's vote: each candidate and who voted for them, as the votes arrive ----------------------
  function votes(g) {
    const last = g.ballots.length ? g.ballots[g.ballots.length - 1] : null;
    const voted = new Set(g.ballots.map((b) => b.candidate));
    const shown = [...g.eligible, ...[...voted].filter((c) => !g.eligible.includes(c))];
    const count = (seat) => g.ballots.filter((b) => b.candidate === seat).length;
    shown.sort((a, b) => count(b) - count(a) || a - b);
    return el("section", { class: "dt-votes", id: "dracula-votes", "data-ballots": String(g.ballots.length) },
      el("h3", {}, fill(ui.dracula_tv_votes_title, { n: g.ballots.length, capacity: g.capacity })),
      el("ul", { class: "dt-candidates" }, shown.map((seat) => {
        const from = g.ballots.filter((b) => b.candidate === seat);
        return el("li", { class: `dt-candidate${from.length ? " voted" : ""}${last && last.candidate === seat ? " latest" : ""}`,
          "data-seat": String(seat), "data-votes": String(from.length) },
        el("span", { class: "dt-name" }, nameOf(g, seat)),
        el("strong", { class: "dt-count" }, String(from.length)),
        from.length ? el("span", { class: "dt-voters" }, names(g, from.map((b) => b.voter))) : null);
      })),
      last ? el("p", { class: "dt-latest", id: "dracula-latest-vote" },
        fill(ui.dracula_tv_latest_vote, { voter: nameOf(g, last.voter), candidate: nameOf(g, last.candidate) })) : null);
  }

  // -- the count: the sanctuary trio, each candidate's time and its uncertainty, the drawn ties -------
  function tally(g) {
    const t = g.tally;
    if (!t) return null;
    const first = Math.min(...g.ballots.map((b) => b.sent_us));
    const rows = t.ranking.map((r) => {
      const tie = (r.tied_with || []).length ? fill(r.drawn ? ui.dracula_tv_tie_drawn : ui.dracula_tv_tie, { names: names(g, r.tied_with) })
        : r.drawn ? ui.dracula_tv_drawn : "";
      return el("tr", { class: `${r.chosen ? "chosen" : ""}${r.drawn ? " drawn" : ""}`, "data-seat": String(r.candidate),
        "data-drawn": String(!!r.drawn) },
      el("td", { class: "dt-place" }, String(r.place)),
      el("td", { class: "dt-name" }, nameOf(g, r.candidate), r.chosen ? el("span", { class: "dt-in" }, ` ${ui.dracula_tv_stays}`) : null),
      el("td", { class: "dt-num" }, fill(ui.dracula_tv_votes_n, { n: r.votes })),
      el("td", { class: "dt-num dt-time-at" }, fill(ui.dracula_tv_reached, { s: seconds(r.reached_us - first), ms: millis(r.uncertainty_us) })),
      el("td", { class: "dt-tie" }, tie));
    });
    return el("section", { class: "dt-tally", id: "dracula-tally" },
      el("h3", {}, t.chosen.length ? fill(ui.dracula_tv_sanctuary, { names: names(g, t.chosen) }) : ui.dracula_tv_sanctuary_empty),
      rows.length ? el("div", { class: "dt-table-box", "data-fit-box": "" },
        el("table", {}, el("thead", {}, el("tr", {},
          el("th", {}, "#"), el("th", {}, ui.dracula_tv_col_name), el("th", {}, ui.dracula_tv_col_votes),
          el("th", {}, ui.dracula_tv_col_reached), el("th", {}, ui.dracula_tv_col_tie))),
        el("tbody", { "data-fit": "trim" }, rows))) : null,
      rows.length ? el("p", { class: "hint" }, ui.dracula_tv_tally_hint) : null);
  }

  // -- the night: the positions per room once posted, the sanctuary, the treasure rooms ---------------
  function treasure(g) {
    if (!g.treasure_rooms.length || !(TREASURE_FOR.includes(g.phase) || g.phase === "dawn")) return null;
    const template = g.phase === "dawn" ? ui.dracula_tv_treasure_next : ui.dracula_tv_treasure_tonight;
    return el("p", { class: "dt-treasure", id: "dracula-treasure" }, fill(template, { rooms: rooms(g.treasure_rooms) }));
  }

  function positions(g) {
    if (!g.positions) return null;
    const marked = TREASURE_FOR.includes(g.phase) ? g.treasure_rooms : [];
    const inRoom = (room) => Object.keys(g.positions).filter((s) => g.positions[s] === room).map(Number);
    const box = (room, seats, cls) => el("li", { class: `dt-room ${cls}${marked.includes(room) ? " treasure" : ""}`, "data-room": room,
      "data-count": String(seats.length) },
    el("h4", {}, cls === "sanctuary" ? ui.dracula_tv_room_sanctuary : roomName(room),
      marked.includes(room) ? el("span", { class: "dt-tag treasure" }, ui.dracula_tv_treasure_mark) : null),
    el("ul", {}, seats.map((s) => el("li", { "data-seat": String(s) }, nameOf(g, s)))));
    return el("section", { class: "dt-positions", id: "dracula-positions" },
      el("h3", {}, fill(g.phase === "dawn" ? ui.dracula_tv_positions_last : ui.dracula_tv_positions, { n: g.night })),
      el("ul", { class: "dt-rooms" }, g.rooms.map((room) => box(room, inRoom(room), "night-room")),
        g.sanctuary.length ? box("sanctuary", g.sanctuary, "sanctuary") : null));
  }

  // -- the final phase: everyone's role (not who is Dracula), the humans' stances, the fight -----------
  function finalPanel(g) {
    const vampires = g.players.filter((p) => p.role === "vampire");
    const humans = g.players.filter((p) => p.role === "human");
    const stance = (p) => (p.stance ? ui[`dracula_tv_stance_${p.stance}`] : p.alive ? ui.dracula_tv_stance_pending : "");
    const col = (id, title, list, words) => el("div", { class: `dt-side-col ${id}` }, el("h3", {}, fill(title, { n: list.length })),
      el("ul", {}, list.map((p) => el("li", { "data-seat": String(p.seat), class: p.alive ? "" : "dead" },
        el("span", { class: "dt-name" }, nameOf(g, p.seat)),
        words(p) ? el("span", { class: `dt-tag${p.stance ? ` stance-${p.stance}` : ""}` }, words(p)) : null))));
    return el("section", { class: "dt-final", id: "dracula-final" },
      el("div", { class: "dt-sides" },
        col("vampires", ui.dracula_tv_vampires, vampires, (p) => (p.alive ? "" : ui.dracula_tv_dead)),
        col("humans", ui.dracula_tv_humans, humans, stance)));
  }

  // -- the round's end: Dracula revealed, the seal opened and checked, the points --------------------
  // The check is made here, with the TV's own SHA-256 (sha256.js): the salt and the revealed seat
  // give back the seal shown since the deal, or the TV says they do not.
  function sealCheck(done) {
    const text = `table-companion/sealed/v1:dracula:dracula_round_${done.round}:${done.salt}:${done.dracula}`;
    const hash = window.CompanionSha256 ? window.CompanionSha256(text) : "";
    return { ok: hash === done.commitment, hash };
  }

  // How the final phase ended: nobody fought, the fighters burned nobody, missed Dracula or got him.
  function outcome(g, final) {
    if (final.burned === undefined) return ui.dracula_tv_no_final;
    const fought = g.players.some((p) => p.stance === "fight");
    if (!final.burned.length) return fought ? ui.dracula_tv_nobody_named : ui.dracula_tv_nobody_burned;
    // Dracula burned: every vampire dies, the burned and the others (D-F4).
    return final.dracula_burned ? fill(ui.dracula_tv_dracula_burned, { names: names(g, final.dead || final.burned) })
      : fill(ui.dracula_tv_dracula_missed, { names: names(g, final.burned) });
  }

  function roundEnd(g) {
    const done = g.rounds_done[g.rounds_done.length - 1];
    if (!done) return null;
    const check = sealCheck(done);
    const final = g.final || {};
    const awards = final.awards || {};
    const awardWords = (seat) => (awards[String(seat)] || []).map((a) => {
      const [reason, pts] = Array.isArray(a) ? a : [a.reason, a.points];
      return fill(ui[`dracula_tv_award_${reason}`] || reason, { n: Number(pts).toLocaleString(C.lang) });
    }).join(", ");
    const halves = done.halves || {};
    const order = [...g.players].sort((a, b) => (halves[b.seat] || 0) - (halves[a.seat] || 0) || a.seat - b.seat);
    return el("section", { class: "dt-round-end", id: "dracula-round-end", "data-round": String(done.round) },
      el("p", { class: "dt-reveal", id: "dracula-revealed", "data-seat": String(done.dracula) },
        fill(ui.dracula_tv_dracula_was, { name: nameOf(g, done.dracula), round: done.round })),
      el("p", { class: "dt-outcome" }, outcome(g, final)),
      el("div", { class: "dt-check", id: "dracula-check", "data-ok": String(check.ok) },
        el("p", {}, fill(ui.dracula_tv_salt, { salt: done.salt })),
        el("p", {}, fill(ui.dracula_tv_check, { round: done.round, seat: done.dracula, hash: short(check.hash) }),
          " ", el("strong", { class: check.ok ? "good" : "bad" }, check.ok ? ui.dracula_tv_check_ok : ui.dracula_tv_check_bad))),
      el("h3", {}, fill(ui.dracula_tv_round_points, { round: done.round })),
      el("ul", { class: "dt-points", "data-fit": "trim" }, order.map((p) => {
        const dead = (done.dead || []).includes(p.seat);
        const why = awardWords(p.seat);
        return el("li", { "data-seat": String(p.seat), class: dead ? "dead" : "" },
          el("span", { class: "dt-name" }, nameOf(g, p.seat)),
          el("strong", { class: "dt-num" }, points((halves[p.seat] || 0) / 2)),
          dead ? el("span", { class: "dt-tag dead" }, ui.dracula_tv_dead_lost) : null,
          why ? el("span", { class: "dt-why" }, why) : null);
      })));
  }

  // -- the series' end: a podium with shared places, each round's Dracula ------------------------------
  // Equal totals share a place and the next place is skipped (6.8 item 17: 1, 1, 3).
  function podiumPlaces(players, places = 3) {
    const totals = [...new Set(players.map((p) => p.total))].sort((a, b) => b - a);
    const out = [];
    let ranked = 0;
    for (const total of totals) {
      const place = ranked + 1;
      if (place > places) break;
      const seats = players.filter((p) => p.total === total).map((p) => p.seat);
      out.push({ place, seats, total });
      ranked += seats.length;
    }
    return out;
  }

  function podium(g) {
    const steps = podiumPlaces(g.players);
    return el("section", { class: "dt-podium", id: "dracula-podium" },
      g.phase === "over" ? null : el("h3", {}, fill(ui.dracula_tv_standings, { round: g.rounds_done.length })),
      el("ol", { class: "dt-steps" }, steps.map((s, i) => el("li", { class: `dt-step place-${s.place} rank-${i + 1}`,
        "data-place": String(s.place), "data-seats": s.seats.join(",") },
      el("span", { class: "dt-place-n" }, fill(ui.dracula_tv_place, { n: s.place })),
      el("strong", { class: `dt-names${s.seats.length > 3 ? " many" : ""}` }, names(g, s.seats)),
      el("span", { class: "dt-num" }, points(s.total))))),
      // Its own section: a screen with no room for a line of it hides this list, not the podium.
      el("section", { class: "dt-draculas-box" }, el("h3", {}, ui.dracula_tv_each_dracula),
        el("ul", { class: "dt-draculas", id: "dracula-draculas", "data-fit": "trim" }, g.rounds_done.map((r) => el("li", { "data-round": String(r.round) },
          fill(ui.dracula_tv_round_dracula, { round: r.round, name: nameOf(g, r.dracula) }),
          " ", el("span", { class: "dt-why" }, (r.dead || []).includes(r.dracula) ? ui.dracula_tv_was_burned : ui.dracula_tv_survived))))));
  }

  // -- the whole screen ----------------------------------------------------------------------------------
  function mainPanel(g) {
    switch (g.phase) {
      case "roles": return g.rounds_done.length ? [intro(g), podium(g)] : [intro(g), roomsGuide(g)];
      case "day": return g.vote_today ? [votes(g), treasure(g)] : [intro(g), treasure(g), roomsGuide(g)];
      case "dusk": case "maps": case "dracula": return [tally(g), treasure(g), positions(g) || roomsGuide(g)];
      case "actions": case "torture": case "confirm": return [positions(g), treasure(g)];
      case "dawn": return [treasure(g), positions(g)];
      case "final_choice": case "final_target": return [finalPanel(g)];
      case "round_over": return [roundEnd(g)];
      case "over": return [podium(g)];
      default: return [];
    }
  }

  // What each room does (D-S), while the table chooses where to spend the night: it lies below the
  // phase's own panel and shows as many rooms as the screen leaves room for.
  function roomsGuide(g) {
    const entry = (name, text) => el("li", {}, el("strong", {}, name), " ", text);
    return el("section", { class: "dt-guide", id: "dracula-guide" }, el("h3", {}, ui.dracula_tv_guide_title),
      el("ul", { "data-fit": "trim" },
        g.night === 1 ? el("li", { class: "dt-first" }, ui.dracula_tv_guide_night1) : null,
        g.rooms.map((room) => entry(roomName(room), ui[`dracula_tv_guide_${room}`])),
        g.capacity ? entry(ui.dracula_tv_room_sanctuary, fill(ui.dracula_tv_guide_sanctuary, { capacity: g.capacity })) : null,
        g.night <= 2 ? el("li", {}, ui.dracula_tv_guide_objects) : null));
  }

  // What the table needs to know before a round: the deal is sealed, the variant if any.
  function intro(g) {
    return el("section", { class: "dt-intro" },
      g.commitment ? el("p", {}, fill(ui.dracula_tv_sealed, { round: g.round, seal: short(g.commitment) })) : null,
      g.small_table ? el("p", { class: "dt-variant" }, fill(ui.dracula_tv_small_table, { n: g.players.length, capacity: g.capacity })) : null,
      g.gm === "person" ? el("p", {}, ui.dracula_tv_person_gm) : null,
      g.unverified.length ? el("p", { class: "hint" }, ui.dracula_tv_unverified) : null);
  }

  function happenings(g) {
    const last = lastHappening(g);
    const lines = g.happenings.filter((h) => h !== last);
    const nights = nightsOf(g);
    if (!lines.length) return null;
    return el("section", { class: "dt-happenings" }, el("h3", {}, ui.dracula_tv_lately),
      el("ol", { "data-fit": "trim" }, lines.map((h) => el("li", {}, happeningText(g, h, nights.get(h))))));
  }

  C.draculaTable = function draculaTable(container, game, view) {
    const g = game.view;
    const stopped = game.ended && g.phase !== "over";
    const main = el("div", { class: "dt-main", "data-fit-steps": "2" }, mainPanel(g));
    container.replaceChildren(el("div", { class: `dracula-table phase-${g.phase}`, "data-position": String(view.position),
      "data-phase": g.phase },
    head(g, stopped),
    el("div", { class: "dt-grid" }, main, el("div", { class: "dt-aside" }, playersList(g, stopped), happenings(g)))));
  };
  C.draculaTable.podiumPlaces = podiumPlaces;

  // Until the phone's script (dracula.js, loaded after this one) registers the game's screens.
  if (!C.games.dracula) {
    C.games.dracula = {
      announcesEnd: (game) => game.view.phase === "over",
      table: (container, game, view) => C.draculaTable(container, game, view),
      seat: (container) => container.replaceChildren(),
      host: (container) => container.replaceChildren(),
    };
  }
})(window.Companion);
