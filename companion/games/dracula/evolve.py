"""How each event of Dracula changes the state: never random, never failing on an event the moves
decided. The story (story.py) decides; this only records.

Each event makes one copy of the state (a series tells hundreds of events): its handler returns
the fields it changes, the public happening among them, and a player is copied only when the
event changes something of theirs. The new state's cache starts empty but for what the event
cannot have changed: the message rules' post, the players' offers, the night the actions are
checked against, each handed on by the events that leave it true.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from companion.games.base import Event
from companion.games.dracula.state import (
    RECENT,
    Action,
    Ballot,
    Choice,
    Clock,
    DraculaState,
    Letter,
    Player,
)
from companion.games.states import changed, with_changes

PUBLIC_HAPPENINGS = frozenset({"round_dealt", "phase_begun", "voted", "sanctuary_chosen", "positions_posted",
                               "night_resolved", "stance_taken", "final_resolved", "round_ended", "clock_paused",
                               "clock_resumed", "clock_extended", "phase_timed_out"})
"""The events the screens list (their public part only: see `_public_part`)."""
_SHOWN: dict[str, tuple[str, ...]] = {
    "round_dealt": ("round", "commitment"),
    "phase_begun": ("phase", "night"),
    "voted": ("voter", "candidate"),
    "sanctuary_chosen": ("chosen",),
    "positions_posted": (),
    "night_resolved": ("night", "treasure_rooms"),
    "stance_taken": ("seat", "stance"),
    "final_resolved": ("burned", "dead", "dracula_burned"),
    "round_ended": ("round", "dracula"),
    "clock_extended": ("by_us",),
    "phase_timed_out": ("phase",),
}
"""What each happening shows of its event's data."""

POST_UNCHANGED = frozenset({"ready", "voted", "sanctuary_chosen", "room_chosen", "rooms_settled", "room_settled",
                            "positions_posted", "action_chosen", "torture_asked", "disguise_chosen", "night_prepared",
                            "objects_dealt", "clock_paused", "clock_resumed", "clock_extended", "clock_held",
                            "phase_timed_out", "vampire_named"})
"""The events that change nothing the message rules read (the phase, the night, the roles, who
lives or fled, last night's waltzes and boudoir, the letters): the post and whom each player may
write to stay those of the state before, so they are handed on rather than worked out again."""
OFFERS_UNCHANGED = frozenset({"ready", "voted", "room_chosen", "action_chosen", "disguise_chosen", "clock_paused",
                              "clock_resumed", "clock_extended", "clock_held", "phase_timed_out", "vampire_named"})
"""The answers and clock events of a phase, which leave every player's offers as they were (the
phase, the candidates, the rooms, the natures and objects, the post): views.actions hands them on."""
POSITIONS_UNCHANGED = frozenset({"action_chosen", "clock_paused", "clock_resumed", "clock_extended", "clock_held",
                                 "phase_timed_out"})
"""The events of the actions phase that move nobody and change no nature, object or snooped room:
the night the actions are checked against (story.positions_of) is handed on."""
_HANDED_ON: dict[str, tuple[str, ...]] = {
    kind: tuple(key for key, kept in (("post", POST_UNCHANGED), ("writers", POST_UNCHANGED),
                                      ("offers", OFFERS_UNCHANGED), ("positions", POSITIONS_UNCHANGED))
                if kind in kept)
    for kind in POST_UNCHANGED | OFFERS_UNCHANGED | POSITIONS_UNCHANGED}
"""For each event, the entries of the state's cache (`wall`) still true after it."""

Changes = dict[str, Any]
"""The fields an event changes, with their new values."""
Data = Mapping[str, Any]


def _player(state: DraculaState, seat: int, **changes: Any) -> tuple[Player, ...]:
    """The players, one of them changed."""
    return tuple([changed(p, **changes) if p.seat == seat else p for p in state.players])


def _everyone(state: DraculaState, change: Callable[[Player], Player]) -> tuple[Player, ...]:
    return tuple([change(p) for p in state.players])


def _public_part(kind: str, data: Data) -> dict[str, Any]:
    """What a happening may show: never the event's secrets (the deal's seat and salt, a night's
    private outcome)."""
    part = {"kind": kind}
    for key in _SHOWN.get(kind, ()):
        if key in data:
            part[key] = data[key]
    return part


def _round_dealt(state: DraculaState, data: Data) -> Changes:
    """D-R2: every round variable reset; the drawn seat is Dracula, the only vampire."""
    dracula = int(data["dracula"])

    def fresh(p: Player) -> Player:
        return Player(p.seat, p.name, vampire=p.seat == dracula, dracula=p.seat == dracula,
                      total_halves=p.total_halves)

    return dict(players=_everyone(state, fresh), round=int(data["round"]), night=1, phase="roles",
                step=state.step + 1, clock=None, commitment=str(data["commitment"]),
                salt=str(data["salt"]), ballots=(), tally=None, sanctuary=(), treasure_rooms=(), waltzes=(),
                boudoir=frozenset(), tortured=(), torture_answers=frozenset(), disguised=None, pending=None,
                room_log={},
                positions=None, timed_out=(), final=None)


def _phase_begun(state: DraculaState, data: Data) -> Changes:
    full = data.get("full_us")
    clock = Clock(int(full), int(full), int(data["since_us"])) if full is not None else None
    changes = dict(phase=data["phase"], night=int(data.get("night", state.night)), step=state.step + 1,
                   clock=clock, timed_out=_still_late(state))
    if data["phase"] == "day":
        # A new day: last night's rooms are remembered (the default room), tonight's are unknown.
        changes.update(players=_everyone(state, _new_day), ballots=(), tally=None, sanctuary=(), positions=None,
                       tortured=(), torture_answers=frozenset(), disguised=None)
    else:
        changes["players"] = _unready(state.players)
    return changes


def _unready(players: tuple[Player, ...]) -> tuple[Player, ...]:
    """Nobody has answered a phase that begins (a player who was not ready stays as is)."""
    return tuple([changed(p, ready=False) if p.ready else p for p in players])


def _new_day(p: Player) -> Player:
    return changed(p, ready=False, last_room=p.room or p.last_room, room=None, choice=None, action=None, used=None)


def _still_late(state: DraculaState) -> tuple[int, ...]:
    """As a phase ends: who let its time run out (the host is told), none if it ended in time."""
    return state.timed_out if state.timed_out_step == state.step else ()


def _clock(state: DraculaState, data: Data, running: bool) -> Changes:
    assert state.clock is not None
    return dict(clock=changed(state.clock, left_us=int(data["left_us"]), since_us=int(data["since_us"]),
                              running=running))


def _clock_paused(state: DraculaState, data: Data) -> Changes:
    return _clock(state, data, running=False)


def _clock_resumed(state: DraculaState, data: Data) -> Changes:
    return _clock(state, data, running=True)


def _clock_kept(state: DraculaState, data: Data) -> Changes:
    """Extended, or held across an outage: the clock runs as it ran."""
    return _clock(state, data, running=state.clock is not None and state.clock.running)


def _phase_timed_out(state: DraculaState, data: Data) -> Changes:
    return dict(timed_out=tuple(int(s) for s in data["seats"]), timed_out_step=state.step)


def _ready(state: DraculaState, data: Data) -> Changes:
    return dict(players=_player(state, int(data["seat"]), ready=True))


def _voted(state: DraculaState, data: Data) -> Changes:
    ballot = Ballot(int(data["voter"]), int(data["candidate"]), int(data["at_us"]), int(data["sent_us"]),
                    int(data["uncertainty_us"]))
    return dict(ballots=(*state.ballots, ballot))


def _sanctuary_chosen(state: DraculaState, data: Data) -> Changes:
    chosen = tuple(int(s) for s in data["chosen"])
    players = tuple(changed(p, sanctuary_nights=p.sanctuary_nights + 1) if p.seat in chosen else p
                    for p in state.players)
    return dict(players=players, sanctuary=chosen, tally=dict(data["tally"]))


def _room_chosen(state: DraculaState, data: Data) -> Changes:
    curse = data.get("curse")
    choice = Choice(data["room"], bool(data.get("use")), (int(curse[0]), str(curse[1])) if curse else None)
    return dict(players=_player(state, int(data["seat"]), choice=choice, ready=True))


def _rooms_settled(state: DraculaState, data: Data) -> Changes:
    rooms = {int(seat): room for seat, room in data["rooms"].items()}
    return dict(players=_everyone(state, lambda p: changed(p, room=rooms[p.seat]) if p.seat in rooms else p))


def _room_settled(state: DraculaState, data: Data) -> Changes:
    return dict(players=_player(state, int(data["seat"]), room=data["room"], ready=True))


def _positions_posted(state: DraculaState, data: Data) -> Changes:
    rooms = {int(seat): room for seat, room in data["rooms"].items()}

    def placed(p: Player) -> Player:
        used = p.obj if p.choice is not None and p.choice.use and p.seat in rooms else None
        return changed(p, room=rooms.get(p.seat), used=used, obj=None if used else p.obj)

    return dict(players=_everyone(state, placed), positions={str(s): r for s, r in sorted(rooms.items())})


def _action_chosen(state: DraculaState, data: Data) -> Changes:
    action = Action(data.get("bite"), bool(data.get("snoop")), data.get("snoop_target"), bool(data.get("treasure")))
    return dict(players=_player(state, int(data["seat"]), action=action, ready=True))


def _torture_asked(state: DraculaState, data: Data) -> Changes:
    return dict(tortured=tuple(int(s) for s in data["seats"]), torture_answers=frozenset())


def _disguise_chosen(state: DraculaState, data: Data) -> Changes:
    answered = int(data["seat"])
    changes: Changes = dict(torture_answers=state.torture_answers | {answered})
    if answered == state.dracula:
        changes["disguised"] = bool(data["human"])
    return changes


def _night_prepared(state: DraculaState, data: Data) -> Changes:
    return dict(pending=dict(data))


def _night_resolved(state: DraculaState, data: Data) -> Changes:
    converted = {int(s) for s in data["converted"]}
    halves = {int(s): int(h) for s, h in data["halves"].items()}
    snooped = {int(s): room for s, room in data["snooped"].items()}
    news = {int(s): tuple(n) for s, n in data["notices"].items()}

    def dawn(p: Player) -> Player:
        return changed(p, vampire=p.vampire or p.seat in converted, halves=halves.get(p.seat, p.halves),
                       snooped=(p.snooped | {snooped[p.seat]}) if p.seat in snooped else p.snooped,
                       news=news.get(p.seat, ()))

    return dict(players=_everyone(state, dawn), waltzes=tuple((int(a), int(b)) for a, b in data["waltzes"]),
                boudoir=frozenset(int(s) for s in data["boudoir"]), room_log=dict(data["room_log"]),
                treasure_rooms=tuple(data["treasure_rooms"]), pending=None)


def _objects_dealt(state: DraculaState, data: Data) -> Changes:
    objects = {int(s): kind for s, kind in data["objects"].items()}
    return dict(players=_everyone(state, lambda p: changed(p, obj=objects[p.seat]) if p.seat in objects else p))


def _letter_sent(state: DraculaState, data: Data) -> Changes:
    letter = Letter(int(data["number"]), int(data["sender"]), int(data["recipient"]), str(data["kind"]),
                    str(data["title"]), str(data["text"]), int(data["day"]), int(data["round"]), str(data["phase"]))
    return dict(letters=(*state.letters, letter))


def _stance_taken(state: DraculaState, data: Data) -> Changes:
    return dict(players=_player(state, int(data["seat"]), stance=str(data["stance"]), ready=True))


def _vampire_named(state: DraculaState, data: Data) -> Changes:
    named = data.get("named")
    return dict(players=_player(state, int(data["seat"]), named=None if named is None else int(named), named_done=True))


def _final_resolved(state: DraculaState, data: Data) -> Changes:
    dead = {int(s) for s in data["dead"]}
    halves = {int(s): int(h) for s, h in data["halves"].items()}
    players = _everyone(state, lambda p: changed(p, alive=p.seat not in dead, halves=halves.get(p.seat, p.halves)))
    return dict(players=players, final=dict(data))


def _round_ended(state: DraculaState, data: Data) -> Changes:
    return dict(players=_everyone(state, lambda p: changed(p, total_halves=p.total_halves + p.halves)),
                phase="round_over", step=state.step + 1, clock=None, timed_out=_still_late(state),
                rounds_done=(*state.rounds_done, dict(data)))


def _series_ended(state: DraculaState, data: Data) -> Changes:
    return dict(phase="over", clock=None)


_HANDLERS: dict[str, Callable[[DraculaState, Data], Changes]] = {
    "round_dealt": _round_dealt,
    "phase_begun": _phase_begun,
    "clock_paused": _clock_paused,
    "clock_resumed": _clock_resumed,
    "clock_extended": _clock_kept,
    "clock_held": _clock_kept,
    "phase_timed_out": _phase_timed_out,
    "ready": _ready,
    "voted": _voted,
    "sanctuary_chosen": _sanctuary_chosen,
    "room_chosen": _room_chosen,
    "rooms_settled": _rooms_settled,
    "room_settled": _room_settled,
    "positions_posted": _positions_posted,
    "action_chosen": _action_chosen,
    "torture_asked": _torture_asked,
    "disguise_chosen": _disguise_chosen,
    "night_prepared": _night_prepared,
    "night_resolved": _night_resolved,
    "objects_dealt": _objects_dealt,
    "letter_sent": _letter_sent,
    "stance_taken": _stance_taken,
    "vampire_named": _vampire_named,
    "final_resolved": _final_resolved,
    "round_ended": _round_ended,
    "series_ended": _series_ended,
}


def evolve(state: DraculaState, event: Event) -> DraculaState:
    handler = _HANDLERS.get(event.type)
    if handler is None:
        raise ValueError(f"unknown Dracula event {event.type!r}")
    changes = handler(state, event.data)
    if event.type in PUBLIC_HAPPENINGS:
        changes["happenings"] = (_public_part(event.type, event.data), *state.happenings)[:RECENT]
    after = with_changes(state, changes)
    for key in _HANDED_ON.get(event.type, ()):
        if key in state.wall:
            after.wall[key] = state.wall[key]
    return after


def is_over(state: DraculaState) -> bool:
    return state.phase == "over"
