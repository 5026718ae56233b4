"""What each screen of Dracula may show (the 6.5 matrix), its secrets, its log lines and actions.

Public (the forum): the phase and its clock, the players and who has answered, the day's votes as
they arrive (their times and uncertainties once counted), the sanctuary, the positions once
posted (D-3), the treasure rooms, the round's seal; from the final phase who is a vampire (D-F1);
at the round's end the points, the deaths and the round's Dracula with the seal's salt.

Private, each on its own phone only: the role (a converted human learns it at dawn), being
Dracula, the object, the dusk choice and the night action, the dawn's news (6.5, as the night's
rules address it), the rooms a human map user sees early and Dracula sees on night 1, the torture
prompt, and the messages one sent or received. A person game master sees it all (the grimoire);
the companion as game master leaves the host no more than the table.

Every secret shows as a token of its own (`role-1-3-vampire`): the generic leak test looks for it
in every view sent to anyone else. A token never ends with a seat or a number, so none is a part
of another (seat 1's `choice-1-3-1-dusk` is not in seat 10's `choice-1-3-10-dusk`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.games.base import Command, Deadline, Event, Secret, Viewer
from companion.games.dracula import letters as letter_rules
from companion.games.dracula import night as night_rules
from companion.games.dracula.moves import action_problem, post_of, post_phase
from companion.games.dracula.options import ROOMS, unverified
from companion.games.dracula.rules import eligible, human_map_users, small_table
from companion.games.dracula.state import CLOCKED, DraculaState, Player
from companion.games.dracula.story import awaits, votes_today, waiting_for
from companion.games.lines import log_line
from companion.games.offers import offered
from companion.games.picture import shared_picture

PUBLIC_ROLES = ("final_choice", "final_target", "round_over", "over")
"""D-F1: from the final phase everyone knows who is a vampire (not who is Dracula)."""
ANSWERS_SHOWN = ("roles", "day", "dusk", "actions", "dawn", "final_choice", "final_target")
"""Phases in which the table sees who has answered. Not the human maps' step (who is waited on
would say who is a human with a map), nor Dracula's on night 1, nor the torture's (who is
tortured): whose answer the game awaits there is itself the secret."""


def _role(p: Player) -> str:
    return "vampire" if p.vampire else "human"


def role_token(state: DraculaState, p: Player) -> str:
    return f"role-{state.round:02d}-{p.seat:02d}-{_role(p)}"


def dracula_token(state: DraculaState) -> str:
    return f"dracula-{state.round}-{state.dracula}-is-dracula"


def object_token(state: DraculaState, p: Player) -> str:
    return f"object-{state.round:02d}-{p.seat:02d}-{p.obj or p.used}"


def room_token(state: DraculaState, seat: int, room: str | None) -> str:
    return f"room-{state.round:02d}-{state.night}-{seat:02d}-{room}"


def choice_token(state: DraculaState, seat: int) -> str:
    return f"choice-{state.round}-{state.night}-{seat}-dusk"


def action_token(state: DraculaState, seat: int) -> str:
    return f"action-{state.round}-{state.night}-{seat}-night"


def news_token(state: DraculaState, seat: int, index: int) -> str:
    return f"news-{state.round}-{state.night}-{seat}-{index}-notice"


def named_token(state: DraculaState, seat: int) -> str:
    return f"named-{state.round}-{seat}-burn"


def letter_token(number: int) -> str:
    return f"letter-{number}-sealed"


def torture_token(state: DraculaState, seat: int) -> str:
    return f"torture-{state.round}-{state.night}-{seat}-asked"


def _answered(state: DraculaState, p: Player, waiting: list[int]) -> bool | None:
    if state.phase not in ANSWERS_SHOWN:
        return None
    if state.phase in ("dusk", "actions") and p.seat in state.sanctuary:
        return None
    if state.phase == "final_choice" and (p.vampire or not p.alive):
        return None
    if state.phase == "final_target" and p.stance != "fight":
        return None
    return p.seat not in waiting


def _player_json(state: DraculaState, p: Player, waiting: list[int]) -> dict[str, Any]:
    shown: dict[str, Any] = {"seat": p.seat, "name": p.name, "alive": p.alive, "total": p.total_halves / 2,
                             "answered": _answered(state, p, waiting), "in_sanctuary": p.seat in state.sanctuary}
    if state.phase in PUBLIC_ROLES:
        shown["role"] = _role(p)
        shown["stance"] = p.stance
    return shown


def _picture(state: DraculaState) -> dict[str, Any]:
    return shared_picture(state.wall, lambda: _build_picture(state))


def _build_picture(state: DraculaState) -> dict[str, Any]:
    waiting = waiting_for(state)
    counted = state.tally is not None
    return {
        "phase": state.phase,
        "round": state.round,
        "rounds": state.options["rounds"],
        "night": state.night,
        "step": state.step,
        "clock": state.clock.to_json() if state.clock else None,
        "gm": state.options["gm"],
        "small_table": small_table(state),
        "capacity": state.options["sanctuary_capacity"],
        "vote_today": votes_today(state),
        "players": [_player_json(state, p, waiting) for p in state.players],
        "ballots": [b.to_json() if counted else {"voter": b.voter, "candidate": b.candidate} for b in state.ballots],
        "eligible": eligible(state) if votes_today(state) else [],
        "tally": dict(state.tally) if state.tally else None,
        "sanctuary": list(state.sanctuary),
        "treasure_rooms": list(state.treasure_rooms),
        "positions": dict(state.positions) if state.positions is not None else None,
        "commitment": state.commitment,
        "final": _final_json(state),
        "rounds_done": [dict(r) for r in state.rounds_done],
        "happenings": [dict(h) for h in state.happenings],
        "rooms": list(ROOMS),
        "options": dict(state.options),
        "unverified": unverified(state.options),
    }


def _final_json(state: DraculaState) -> dict[str, Any] | None:
    if state.final is None:
        return None
    return {k: state.final[k] for k in ("burned", "dead", "dracula_burned", "awards")}


def _is_gm(state: DraculaState, viewer: Viewer) -> bool:
    return viewer.kind == "host" and state.options["gm"] == "person"


def view(state: DraculaState, viewer: Viewer) -> dict[str, Any]:
    picture = _picture(state)
    if _is_gm(state, viewer):
        return {**picture, "grimoire": grimoire(state), "timed_out": list(state.timed_out)}
    if viewer.kind == "host":
        return {**picture, "timed_out": list(state.timed_out)}
    if viewer.kind != "seat" or viewer.seat is None or not state.seated(viewer.seat):
        return picture
    return {**picture, "me": sheet(state, state.player(viewer.seat))}


def _news_json(state: DraculaState, p: Player) -> list[dict[str, Any]]:
    return [{**n, "token": news_token(state, p.seat, i)} for i, n in enumerate(p.news)]


def _letters_of(state: DraculaState, seat: int | None) -> list[dict[str, Any]]:
    return [{**x.to_json(), "token": letter_token(x.number)} for x in state.letters
            if seat is None or seat in (x.sender, x.recipient)]


def sheet(state: DraculaState, p: Player) -> dict[str, Any]:
    """A player's own secret sheet: everything 6.5 tells them, and the choices their phone offers."""
    me: dict[str, Any] = {
        "seat": p.seat,
        "role": _role(p),
        "role_token": role_token(state, p),
        "dracula": p.dracula,
        "object": {"kind": p.obj, "token": object_token(state, p)} if p.obj else None,
        "used": {"kind": p.used, "token": object_token(state, p)} if p.used else None,
        "snooped": sorted(p.snooped),
        "news": _news_json(state, p),
        "choice": {**p.choice.to_json(), "token": choice_token(state, p.seat)} if p.choice else None,
        "room": p.room,
        "action": {**p.action.to_json(), "token": action_token(state, p.seat)} if p.action else None,
        "ready": p.ready,
        "vote": next((b.candidate for b in state.ballots if b.voter == p.seat), None),
        "letters": _letters_of(state, p.seat),
        "may_write": [{"to": to, "kind": kind} for to, kind in may_write(state, p.seat)],
        "awaited": awaits(state, p.seat),
        "stance": p.stance,
    }
    if p.dracula:
        me["dracula_token"] = dracula_token(state)
    if p.named_done:
        me["named"] = {"seat": p.named, "token": named_token(state, p.seat)}
    if state.phase == "maps" and p.seat in human_map_users(state):
        me["sight"] = _sight(state, night_rules.map_sight(_rooms(state), human_map_users(state), p.seat))
    if state.phase == "dracula" and p.dracula:
        me["sight"] = _sight(state, {o.seat: o.room for o in state.players if o.seat != p.seat})
    if state.phase == "torture" and p.seat in state.tortured:
        me["torture"] = {"token": torture_token(state, p.seat)}
    if state.phase == "torture":
        me["answered_torture"] = p.seat in state.torture_answers
    if state.phase == "actions" and p.seat not in state.sanctuary:
        me["choices"] = _action_choices(state, p)
    return me


def may_write(state: DraculaState, seat: int) -> list[tuple[int, str]]:
    """Whom this player may write to now, and what (the phone's form and the actions both ask)."""
    if not letter_rules.writing_time(post_phase(state)):
        return []  # nobody writes from dusk to dawn: the night's phases need no look at the post
    writers: dict[int, list[tuple[int, str]]] | None = state.wall.get("writers")
    if writers is None:
        writers = state.wall["writers"] = {}
    if seat not in writers:
        writers[seat] = letter_rules.recipients(post_of(state), seat)
    return writers[seat]


def _rooms(state: DraculaState) -> dict[int, str | None]:
    return {p.seat: None if p.seat in state.sanctuary else p.room for p in state.players}


def _sight(state: DraculaState, rooms: dict[int, Any]) -> list[dict[str, Any]]:
    """Other players' rooms seen before the positions: each a secret of its own."""
    return [{"seat": seat, "room": room, "token": room_token(state, seat, room)}
            for seat, room in sorted(rooms.items()) if room != "unknown"] + \
        [{"seat": seat, "room": "unknown"} for seat, room in sorted(rooms.items()) if room == "unknown"]


def _action_choices(state: DraculaState, p: Player) -> list[dict[str, Any]]:
    """What this player's action screen offers: the same screen for a human and a vampire, one list
    of choices (a vampire's bites where a human's treasure is), each allowed or with its reason."""
    options: list[dict[str, Any]] = []
    for kind, args in _action_candidates(state, p):
        problem = action_problem(state, p.seat, args.get("bite"), bool(args.get("snoop")), args.get("target"),
                                 bool(args.get("treasure")))
        options.append({"kind": kind, "args": args, "refused": problem})
    return options


def _action_candidates(state: DraculaState, p: Player) -> list[tuple[str, dict[str, Any]]]:
    """The actions this player's screen lists (each kind with its arguments), allowed or not: the
    offered commands need no reasons, so they are made from these alone."""
    same_room = [o.seat for o in state.players if o.seat != p.seat and o.room == p.room
                 and o.seat not in state.sanctuary]
    candidates: list[tuple[str, dict[str, Any]]] = [("pass", {})]
    if p.vampire:
        candidates += [("bite", {"bite": t}) for t in same_room]
    candidates += [("snoop", {"snoop": True, "target": t}) for t in same_room] if p.room != "boudoir" else \
        [("snoop", {"snoop": True})]
    if not p.vampire:
        candidates.append(("treasure", {"treasure": True}))
    if p.vampire and p.used == "candle":
        candidates += [("bite_snoop", {"bite": b, "snoop": True, **({"target": t} if p.room != "boudoir" else {})})
                       for b in same_room for t in (same_room if p.room != "boudoir" else [None])]
    return candidates


def grimoire(state: DraculaState) -> dict[str, Any]:
    """A person game master's screen: every secret of the round (6.9: the GM knows everything)."""
    return {
        "players": [{"seat": p.seat, "name": p.name, "role": _role(p), "role_token": role_token(state, p),
                     "dracula": p.dracula, "object": p.obj, "used": p.used, "halves": p.halves,
                     "choice": p.choice.to_json() if p.choice else None, "room": p.room,
                     "action": p.action.to_json() if p.action else None, "news": _news_json(state, p),
                     "named": p.named, "sanctuary_nights": p.sanctuary_nights, "snooped": sorted(p.snooped)}
                    for p in state.players],
        "dracula_token": dracula_token(state),
        "letters": _letters_of(state, None),
        "pending": dict(state.pending) if state.pending else None,
        "room_log": dict(state.room_log),
        "tortured": list(state.tortured),
        "disguised": state.disguised,
    }


# -- secrets (the leak test) ---------------------------------------------------------------------------

def _only(*seats: int | None, gm: bool = True, everyone: bool = False,
          state: DraculaState | None = None) -> Callable[[Viewer], bool]:
    allowed = {s for s in seats if s is not None}
    person_gm = state is not None and state.options["gm"] == "person" and gm

    def visible(viewer: Viewer) -> bool:
        if everyone:
            return True
        if viewer.kind == "host":
            return person_gm
        return viewer.kind == "seat" and viewer.seat in allowed

    return visible


def secrets(state: DraculaState) -> list[Secret]:
    roles_public = state.phase in PUBLIC_ROLES
    posted = state.positions is not None
    hidden: list[Secret] = []
    for p in state.players:
        def own(token: str, what: str, *also: int, seat: int = p.seat) -> Secret:
            return Secret(token, _only(seat, *also, state=state), f"seat {seat}'s {what}")

        hidden.append(Secret(role_token(state, p), _only(p.seat, state=state, everyone=roles_public),
                             f"seat {p.seat}'s role"))
        if p.obj or p.used:
            hidden.append(own(object_token(state, p), "object"))
        if p.choice is not None:
            hidden.append(own(choice_token(state, p.seat), "dusk choice"))
        if p.room is not None and not posted:
            # D-O3: human map users see the others' rooms early, not each other's; Dracula sees
            # everyone's on the first night (D-3).
            mappers = human_map_users(state)
            seers = sorted(mappers) if state.phase == "maps" and p.seat not in mappers else []
            if state.phase == "dracula":
                seers.append(state.dracula)
            hidden.append(own(room_token(state, p.seat, p.room), "room before the positions", *seers))
        if p.action is not None:
            hidden.append(own(action_token(state, p.seat), "action"))
        hidden += [own(news_token(state, p.seat, i), "news") for i in range(len(p.news))]
        if p.named_done:
            hidden.append(own(named_token(state, p.seat), "named vampire"))
    if state.phase not in ("round_over", "over"):
        hidden.append(Secret(dracula_token(state), _only(state.dracula, state=state), "who is Dracula"))
        hidden.append(Secret(state.salt, _only(state=state, gm=False), "the Dracula seal's salt"))
    if state.phase == "torture":
        hidden += [Secret(torture_token(state, s), _only(s, state=state), f"seat {s} is tortured")
                   for s in state.tortured]
    for x in state.letters:
        hidden.append(Secret(letter_token(x.number), _only(x.sender, x.recipient, state=state), f"letter {x.number}"))
        hidden.append(Secret(x.text, _only(x.sender, x.recipient, state=state), f"letter {x.number}'s text"))
    return hidden


# -- the clock, the awaited, the actions ---------------------------------------------------------------

def deadline(state: DraculaState) -> Deadline | None:
    """The phase's time runs out: the system ends it with the defaults."""
    clock = state.clock
    if state.phase not in CLOCKED or clock is None or clock.ends_us is None:
        return None
    return Deadline(clock.ends_us, clock.since_us, offered("time_up", step=state.step))


def runs_in_real_time(state: DraculaState) -> bool:
    return state.clock is not None and state.clock.running


def times_phones(state: DraculaState) -> bool:
    """The vote's tie-break needs each phone's send time (6.7)."""
    return state.phase == "day" and votes_today(state)


def actions(state: DraculaState, viewer: Viewer) -> list[Command]:
    """Everything this viewer might do now; the table marks each allowed or not, with the reason."""
    if viewer.kind == "system":
        return [offered("time_up", step=state.step)] if runs_in_real_time(state) else []
    if viewer.kind == "host":
        return _host_actions(state)
    me = viewer.seat
    if viewer.kind != "seat" or me is None or not state.seated(me):
        return []
    offers: dict[int, list[Command]] | None = state.wall.get("offers")
    if offers is None:
        offers = state.wall["offers"] = {}
    if me not in offers:
        offers[me] = _seat_actions(state, me)
    return list(offers[me])


def _seat_actions(state: DraculaState, me: int) -> list[Command]:
    """A player's offers, made once per state and handed on by the events that change none of them
    (evolve.OFFERS_UNCHANGED): most answers of a phase leave the others' screens as they were."""
    commands = _phase_actions(state, state.player(me))
    for to, kind in may_write(state, me):
        commands.append(offered("write", to=to, kind=kind, title="",
                                text=f"whisper {me} to {to} ({state.round}.{state.night} {state.phase})"))
    return commands


def _host_actions(state: DraculaState) -> list[Command]:
    if state.phase == "confirm":
        return [offered("confirm_night")]
    if state.phase == "round_over":
        return [offered("next_round")]
    if state.phase == "roles":
        return [offered("end_phase")]
    if state.clock is None:
        return []
    return [offered("resume_clock" if state.paused() else "pause_clock"), offered("extend_clock", seconds=60),
            offered("end_phase")]


def _phase_actions(state: DraculaState, p: Player) -> list[Command]:
    phase = state.phase
    if phase in ("roles", "dawn") or (phase == "day" and not votes_today(state)):
        return [offered("ready")]
    if phase == "day":
        return [offered("vote", candidate=c) for c in eligible(state)] + [offered("ready")]
    if phase == "dusk":
        commands = _room_choices()
        if p.obj == "map" and not p.vampire:
            commands.append(offered("choose_room", room=None, use=True))
        elif p.obj == "map":
            commands += [offered("choose_room", room=ROOMS[0], use=True, curse_target=o.seat, curse_room=ROOMS[1])
                         for o in state.players if o.seat != p.seat]
        elif p.obj:
            commands += [offered("choose_room", room=room, use=True) for room in ROOMS]
        return commands
    if phase in ("maps", "dracula"):
        return _room_choices()
    if phase == "actions" and p.seat not in state.sanctuary:
        return [offered("act", **args) for _, args in _action_candidates(state, p)]
    if phase == "torture":
        return [offered("disguise", human=True), offered("disguise", human=False)]
    if phase == "final_choice":
        return [offered("stance", stance="flee"), offered("stance", stance="fight")]
    if phase == "final_target":
        return [offered("name_vampire", vampire=o.seat) for o in state.players if o.vampire]
    return []


def _room_choices() -> list[Command]:
    return [offered("choose_room", room=room) for room in ROOMS]


# -- log lines -----------------------------------------------------------------------------------------

_WORDS = {
    "en": {
        "round_dealt": "round {round}: Dracula dealt and sealed ({short})",
        "phase_begun": "{phase} (night {night})",
        "ready": "seat {seat} is ready",
        "voted": "seat {voter} voted for seat {candidate}",
        "sanctuary_chosen": "the sanctuary: seats {chosen}",
        "room_chosen": "seat {seat} chose a room",
        "rooms_settled": "the rooms are settled",
        "room_settled": "seat {seat} settled a room",
        "positions_posted": "the positions are posted",
        "action_chosen": "seat {seat} chose an action",
        "torture_asked": "the tortured are asked whether to pass for human",
        "disguise_chosen": "seat {seat} answered the torturers",
        "night_prepared": "night {night} resolved, for the game master to confirm",
        "night_resolved": "night {night} is over",
        "objects_dealt": "the objects are handed out",
        "letter_sent": "seat {sender} wrote to seat {recipient}",
        "stance_taken": "seat {seat}: {stance}",
        "vampire_named": "seat {seat} named a vampire",
        "final_resolved": "burned: seats {burned}",
        "round_ended": "round {round} is over: Dracula was seat {dracula}",
        "series_ended": "the series is over",
        "clock_paused": "the clock paused", "clock_resumed": "the clock runs again",
        "clock_extended": "the clock was extended", "clock_held": "the clock resumed after the service stopped",
        "phase_timed_out": "time ran out for seats {seats}",
    },
    "fr": {
        "round_dealt": "manche {round} : Dracula distribué et scellé ({short})",
        "phase_begun": "{phase} (nuit {night})",
        "ready": "la place {seat} est prête",
        "voted": "la place {voter} a voté pour la place {candidate}",
        "sanctuary_chosen": "le sanctuaire : places {chosen}",
        "room_chosen": "la place {seat} a choisi une salle",
        "rooms_settled": "les salles sont fixées",
        "room_settled": "la place {seat} a fixé sa salle",
        "positions_posted": "les positions sont publiées",
        "action_chosen": "la place {seat} a choisi une action",
        "torture_asked": "on demande aux torturés s'ils se font passer pour humains",
        "disguise_chosen": "la place {seat} a répondu aux tortionnaires",
        "night_prepared": "nuit {night} résolue, à confirmer par le maître du jeu",
        "night_resolved": "la nuit {night} est finie",
        "objects_dealt": "les objets sont distribués",
        "letter_sent": "la place {sender} a écrit à la place {recipient}",
        "stance_taken": "place {seat} : {stance}",
        "vampire_named": "la place {seat} a désigné un vampire",
        "final_resolved": "brûlés : places {burned}",
        "round_ended": "la manche {round} est finie : Dracula était la place {dracula}",
        "series_ended": "la série est finie",
        "clock_paused": "chrono en pause", "clock_resumed": "le chrono repart",
        "clock_extended": "le chrono est prolongé", "clock_held": "le chrono repart après l'arrêt du service",
        "phase_timed_out": "temps écoulé pour les places {seats}",
    },
}


def describe(event: Event, lang: str) -> str:
    """One line for logs and `companion replay`: never a secret (no deal's seat before the round's
    end, no room, action, notice or message text)."""
    params: dict[str, Any] = {k: v for k, v in event.data.items() if k not in ("text", "notices", "room_log")}
    if event.type == "round_dealt":
        params["short"] = str(event.data.get("commitment", ""))[:12]
    for key in ("seats", "chosen", "burned"):
        if key in params:
            params[key] = ", ".join(str(s) for s in params[key]) or "-"
    params.setdefault("night", "")
    return log_line(_WORDS, lang, event.type, params, event.type)
