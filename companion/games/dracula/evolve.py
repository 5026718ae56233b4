"""How each event of Dracula changes the state: never random, never failing on an event the moves
decided. The story (story.py) decides; this only records."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from companion.games.base import Event
from companion.games.dracula.state import RECENT, Action, Ballot, Choice, Clock, DraculaState, Letter, Player
from companion.games.frozen import changed

PUBLIC_HAPPENINGS = ("round_dealt", "phase_begun", "voted", "sanctuary_chosen", "positions_posted",
                     "night_resolved", "stance_taken", "final_resolved", "round_ended", "clock_paused",
                     "clock_resumed", "clock_extended", "phase_timed_out")
"""The events the screens list (their public part only: see `_public_part`)."""


def _player(state: DraculaState, seat: int, **changes: Any) -> DraculaState:
    return changed(state, players=tuple(changed(p, **changes) if p.seat == seat else p for p in state.players))


def _everyone(state: DraculaState, change: Callable[[Player], Player]) -> DraculaState:
    return changed(state, players=tuple(change(p) for p in state.players))


def _public_part(kind: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """What a happening may show: never the event's secrets (the deal's seat and salt, a night's
    private outcome)."""
    keep = {
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
    }.get(kind, ())
    return {"kind": kind, **{k: data[k] for k in keep if k in data}}


def _happened(state: DraculaState, event: Event) -> DraculaState:
    if event.type not in PUBLIC_HAPPENINGS:
        return state
    return changed(state, happenings=(_public_part(event.type, event.data), *state.happenings)[:RECENT])


def _round_dealt(state: DraculaState, data: Mapping[str, Any]) -> DraculaState:
    """D-R2: every round variable reset; the drawn seat is Dracula, the only vampire."""
    dracula = int(data["dracula"])

    def fresh(p: Player) -> Player:
        return Player(p.seat, p.name, vampire=p.seat == dracula, dracula=p.seat == dracula,
                      total_halves=p.total_halves)

    state = _everyone(state, fresh)
    return changed(state, round=int(data["round"]), night=1, phase="roles", step=state.step + 1, clock=None,
                   commitment=str(data["commitment"]),
                   salt=str(data["salt"]), ballots=(), tally=None, sanctuary=(), treasure_rooms=(), waltzes=(),
                   boudoir=frozenset(), tortured=(), torture_answers=frozenset(), disguised=None, pending=None,
                   room_log={},
                   positions=None, timed_out=(), final=None)


def _phase_begun(state: DraculaState, data: Mapping[str, Any]) -> DraculaState:
    full = data.get("full_us")
    clock = Clock(int(full), int(full), int(data["since_us"])) if full is not None else None
    state = changed(state, phase=data["phase"], night=int(data.get("night", state.night)), step=state.step + 1,
                    clock=clock, timed_out=_still_late(state))
    state = _everyone(state, lambda p: changed(p, ready=False))
    if data["phase"] == "day":
        # A new day: last night's rooms are remembered (the default room), tonight's are unknown.
        state = _everyone(state, lambda p: changed(p, last_room=p.room or p.last_room, room=None, choice=None,
                                                   action=None, used=None))
        state = changed(state, ballots=(), tally=None, sanctuary=(), positions=None, tortured=(),
                        torture_answers=frozenset(), disguised=None)
    return state


def _still_late(state: DraculaState) -> tuple[int, ...]:
    """As a phase ends: who let its time run out (the host is told), none if it ended in time."""
    return state.timed_out if state.timed_out_step == state.step else ()


def _clock(state: DraculaState, data: Mapping[str, Any], running: bool) -> DraculaState:
    assert state.clock is not None
    return changed(state, clock=changed(state.clock, left_us=int(data["left_us"]), since_us=int(data["since_us"]),
                                        running=running))


def _voted(state: DraculaState, data: Mapping[str, Any]) -> DraculaState:
    ballot = Ballot(int(data["voter"]), int(data["candidate"]), int(data["at_us"]), int(data["sent_us"]),
                    int(data["uncertainty_us"]))
    return changed(state, ballots=(*state.ballots, ballot))


def _sanctuary_chosen(state: DraculaState, data: Mapping[str, Any]) -> DraculaState:
    chosen = tuple(int(s) for s in data["chosen"])
    state = _everyone(state, lambda p: changed(p, sanctuary_nights=p.sanctuary_nights + (p.seat in chosen)))
    return changed(state, sanctuary=chosen, tally=dict(data["tally"]))


def _room_chosen(state: DraculaState, data: Mapping[str, Any]) -> DraculaState:
    curse = data.get("curse")
    choice = Choice(data["room"], bool(data.get("use")), (int(curse[0]), str(curse[1])) if curse else None)
    return _player(state, int(data["seat"]), choice=choice, ready=True)


def _positions_posted(state: DraculaState, data: Mapping[str, Any]) -> DraculaState:
    rooms = {int(seat): room for seat, room in data["rooms"].items()}

    def placed(p: Player) -> Player:
        used = p.obj if p.choice is not None and p.choice.use and p.seat in rooms else None
        return changed(p, room=rooms.get(p.seat), used=used, obj=None if used else p.obj)

    return changed(_everyone(state, placed), positions={str(s): r for s, r in sorted(rooms.items())})


def _action_chosen(state: DraculaState, data: Mapping[str, Any]) -> DraculaState:
    action = Action(data.get("bite"), bool(data.get("snoop")), data.get("snoop_target"), bool(data.get("treasure")))
    return _player(state, int(data["seat"]), action=action, ready=True)


def _night_resolved(state: DraculaState, data: Mapping[str, Any]) -> DraculaState:
    converted = {int(s) for s in data["converted"]}
    halves = {int(s): int(h) for s, h in data["halves"].items()}
    snooped = {int(s): room for s, room in data["snooped"].items()}
    news = {int(s): tuple(n) for s, n in data["notices"].items()}

    def dawn(p: Player) -> Player:
        return changed(p, vampire=p.vampire or p.seat in converted, halves=halves.get(p.seat, p.halves),
                       snooped=p.snooped | ({snooped[p.seat]} if p.seat in snooped else set()),
                       news=news.get(p.seat, ()))

    state = _everyone(state, dawn)
    return changed(state, waltzes=tuple((int(a), int(b)) for a, b in data["waltzes"]),
                   boudoir=frozenset(int(s) for s in data["boudoir"]), room_log=dict(data["room_log"]),
                   treasure_rooms=tuple(data["treasure_rooms"]), pending=None)


def _objects_dealt(state: DraculaState, data: Mapping[str, Any]) -> DraculaState:
    objects = {int(s): kind for s, kind in data["objects"].items()}
    return _everyone(state, lambda p: changed(p, obj=objects.get(p.seat, p.obj)))


def _letter_sent(state: DraculaState, data: Mapping[str, Any]) -> DraculaState:
    letter = Letter(int(data["number"]), int(data["sender"]), int(data["recipient"]), str(data["kind"]),
                    str(data["title"]), str(data["text"]), int(data["day"]), int(data["round"]), str(data["phase"]))
    return changed(state, letters=(*state.letters, letter))


def _final_resolved(state: DraculaState, data: Mapping[str, Any]) -> DraculaState:
    dead = {int(s) for s in data["dead"]}
    halves = {int(s): int(h) for s, h in data["halves"].items()}
    state = _everyone(state, lambda p: changed(p, alive=p.seat not in dead, halves=halves.get(p.seat, p.halves)))
    return changed(state, final=dict(data))


def _round_ended(state: DraculaState, data: Mapping[str, Any]) -> DraculaState:
    state = _everyone(state, lambda p: changed(p, total_halves=p.total_halves + p.halves))
    return changed(state, phase="round_over", step=state.step + 1, clock=None, timed_out=_still_late(state),
                   rounds_done=(*state.rounds_done, dict(data)))


def _apply(state: DraculaState, event: Event) -> DraculaState:
    data = event.data
    kind = event.type
    if kind == "round_dealt":
        return _round_dealt(state, data)
    if kind == "phase_begun":
        return _phase_begun(state, data)
    if kind == "clock_paused":
        return _clock(state, data, running=False)
    if kind in ("clock_resumed", "clock_extended", "clock_held"):
        return _clock(state, data, running=(state.clock is not None and state.clock.running) or kind == "clock_resumed")
    if kind == "phase_timed_out":
        return changed(state, timed_out=tuple(int(s) for s in data["seats"]), timed_out_step=state.step)
    if kind == "ready":
        return _player(state, int(data["seat"]), ready=True)
    if kind == "voted":
        return _voted(state, data)
    if kind == "sanctuary_chosen":
        return _sanctuary_chosen(state, data)
    if kind == "room_chosen":
        return _room_chosen(state, data)
    if kind == "rooms_settled":
        rooms = {int(seat): room for seat, room in data["rooms"].items()}
        return _everyone(state, lambda p: changed(p, room=rooms[p.seat]) if p.seat in rooms else p)
    if kind == "room_settled":
        return _player(state, int(data["seat"]), room=data["room"], ready=True)
    if kind == "positions_posted":
        return _positions_posted(state, data)
    if kind == "action_chosen":
        return _action_chosen(state, data)
    if kind == "torture_asked":
        return changed(state, tortured=tuple(int(s) for s in data["seats"]), torture_answers=frozenset())
    if kind == "disguise_chosen":
        answered = int(data["seat"])
        state = changed(state, torture_answers=state.torture_answers | {answered})
        return changed(state, disguised=bool(data["human"])) if answered == state.dracula else state
    if kind == "night_prepared":
        return changed(state, pending=dict(data))
    if kind == "night_resolved":
        return _night_resolved(state, data)
    if kind == "objects_dealt":
        return _objects_dealt(state, data)
    if kind == "letter_sent":
        return _letter_sent(state, data)
    if kind == "stance_taken":
        return _player(state, int(data["seat"]), stance=str(data["stance"]), ready=True)
    if kind == "vampire_named":
        named = data.get("named")
        return _player(state, int(data["seat"]), named=None if named is None else int(named), named_done=True)
    if kind == "final_resolved":
        return _final_resolved(state, data)
    if kind == "round_ended":
        return _round_ended(state, data)
    if kind == "series_ended":
        return changed(state, phase="over", clock=None)
    raise ValueError(f"unknown Dracula event {kind!r}")


def evolve(state: DraculaState, event: Event) -> DraculaState:
    return _happened(_apply(state, event), event)


def is_over(state: DraculaState) -> bool:
    return state.phase == "over"
