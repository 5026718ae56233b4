"""Scripted situations of Dracula for its rule-by-rule tests (tests/test_dracula_flow.py,
tests/test_dracula_views.py).

A series starts with `new_series`, whose deal names the Dracula the test wants (a `Rigged` random
source answers the deal's "Dracula" draw with that seat, and every other draw from a seeded
generator). Commands go through the game's own `validate` and `decide` (`send`), so a test sees
exactly what a phone, the host or the service's timer would: the new state, or the Rejection.
The helpers walk a phase quickly (everyone ready, a dusk with the rooms the test names, a night's
actions); whoever a helper is not told about takes the plainest answer (the boudoir, no action).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from companion.games.base import HOST, SYSTEM, Command, Event, Rejection, SeatInfo, Viewer, seat
from companion.games.dracula import DRACULA as GAME
from companion.games.dracula.options import normalize_options
from companion.games.dracula.state import DraculaState

NAMES = ("Ada", "Ben", "Cyd", "Dee", "Eve", "Fox", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lou", "Max")
T0 = 1_000_000_000
"""The host timeline's start (µs)."""
FAST = {"day_s": 600, "dusk_s": 180, "actions_s": 180, "dawn_s": 60, "final_s": 180, "torture_s": 60}

Outcome = DraculaState | Rejection
Watch = Callable[[DraculaState, DraculaState, Event], None]
WATCHES: list[Watch] = []
"""Called with every event `send` decides and the states around it (the leak test's `SecretWatch`):
see `watching`."""
RoomSpec = str | Mapping[str, Any]
"""A dusk answer: a room, or the `choose_room` arguments (room, use, curse_target, curse_room)."""


class Rigged:
    """A RandomSource: each round's "Dracula" draw gives the seat the test chose (by round; the
    last one named for later rounds); a draw whose purpose starts with a key of `answers` gives
    that answer; every other draw comes from a seeded generator. `asked` keeps every draw's
    purpose, so a test sees which draws were made."""

    def __init__(self, dracula: int | Mapping[int, int], seed: int = 0,
                 answers: Mapping[str, int] | None = None) -> None:
        self.dracula = {1: dracula} if isinstance(dracula, int) else dict(dracula)
        self.rnd = random.Random(seed)
        self.answers = dict(answers or {})
        self.asked: list[str] = []

    def randbelow(self, bound: int, purpose: str) -> int:
        self.asked.append(purpose)
        for start, answer in self.answers.items():
            if purpose.startswith(start):
                return answer
        if purpose.endswith(": Dracula") and purpose.startswith("round "):
            number = int(purpose.split()[1].rstrip(":"))
            chosen = self.dracula.get(number, self.dracula[max(r for r in self.dracula if r <= number)]
                                      if any(r <= number for r in self.dracula) else 1)
            assert 1 <= chosen <= bound, f"no seat {chosen} at a table of {bound}"
            return chosen - 1
        return self.rnd.randrange(bound)


def seats(players: int) -> list[SeatInfo]:
    return [SeatInfo(n, NAMES[n - 1]) for n in range(1, players + 1)]


def new_series(players: int = 13, dracula: int = 1, rng: Rigged | None = None, **options: Any) -> DraculaState:
    """A series dealt at `players` seats with `dracula` as the first round's Dracula; the first
    phase is "roles" (everyone reads their role)."""
    return GAME.setup(normalize_options({**FAST, **options}), seats(players), rng or Rigged(dracula))


def moment(state: DraculaState) -> int:
    """When a command arrives unless a test says otherwise: one second into the running phase."""
    if state.clock is not None:
        return state.clock.since_us + 1_000_000
    return T0 + state.step * 1_000_000


def send(state: DraculaState, actor: Viewer, command: Command | str, args: Mapping[str, Any] | None = None,
         *, at_us: int | None = None, delay_us: int = 0, uncertainty_us: int = 0,
         rng: Rigged | None = None) -> Outcome:
    """The state after `actor` sent `command`, or the Rejection it met (nothing changed then)."""
    if isinstance(command, str):
        command = Command(command, dict(args or {}))
    stamp = at_us if at_us is not None else (command.at_us or moment(state))
    command = Command(command.name, command.args, stamp, delay_us or command.delay_us,
                      uncertainty_us or command.uncertainty_us)
    refused = GAME.validate(state, actor, command)
    if refused is not None:
        return refused
    decision = GAME.decide(state, actor, command, rng or Rigged(state.dracula, seed=state.step))
    before = state
    for event, after in zip(decision.events, decision.states, strict=True):
        for watch in WATCHES:
            watch(before, after, event)
        before = after
    return decision.states[-1]


@contextmanager
def watching(watch: Watch) -> Iterator[Watch]:
    """Every event sent inside the block is shown to `watch`."""
    WATCHES.append(watch)
    try:
        yield watch
    finally:
        WATCHES.remove(watch)


def events_of(state: DraculaState, actor: Viewer, command: str, args: Mapping[str, Any] | None = None,
              **stamps: Any) -> list[Event]:
    """The events a command tells (it must be allowed)."""
    cmd = Command(command, dict(args or {}), stamps.get("at_us") or moment(state))
    assert GAME.validate(state, actor, cmd) is None
    return GAME.decide(state, actor, cmd, Rigged(state.dracula, seed=state.step)).events


def ok(outcome: Outcome) -> DraculaState:
    """The state a command led to; a refusal fails the test with its code."""
    assert not isinstance(outcome, Rejection), f"refused: {outcome.code} {dict(outcome.params)}"
    return outcome


def refused(outcome: Outcome) -> str:
    assert isinstance(outcome, Rejection), f"accepted in phase {outcome.phase}"
    return outcome.code


def play(state: DraculaState, who: int | Viewer, command: str, **args: Any) -> DraculaState:
    """A command that must be allowed, by a seat number or a viewer."""
    actor = seat(who) if isinstance(who, int) else who
    return ok(send(state, actor, command, args))


def time_up(state: DraculaState) -> DraculaState:
    """The service's timer: the phase's time ran out."""
    assert state.clock is not None
    return ok(send(state, SYSTEM, "time_up", {"step": state.step}, at_us=state.clock.since_us + state.clock.left_us))


def all_ready(state: DraculaState, but: Iterable[int] = ()) -> DraculaState:
    """Everyone the phase waits on says "ready" (the role read, day 1's talk, the dawn's news)."""
    skip = set(but)
    for s in sorted(GAME.awaited(state)):
        if s not in skip:
            state = play(state, s, "ready")
    return state


def through_day(state: DraculaState, votes: Mapping[int, int] | None = None) -> DraculaState:
    """The day: the given votes (voter: candidate) one second apart, then everyone else is done
    (a voter with no vote to cast says "ready"; the others let the vote go: the host ends it)."""
    assert state.phase == "day", state.phase
    start = moment(state)
    for i, (voter, candidate) in enumerate((votes or {}).items()):
        state = ok(send(state, seat(voter), "vote", {"candidate": candidate}, at_us=start + i * 1_000_000))
    if state.phase == "day":
        for s in sorted(GAME.awaited(state)):
            outcome = send(state, seat(s), "ready")
            if isinstance(outcome, Rejection):
                break
            state = outcome
    if state.phase == "day":
        state = play(state, HOST, "end_phase")
    return state


def dusk(state: DraculaState, rooms: Mapping[int, RoomSpec] | None = None, others: str = "boudoir") -> DraculaState:
    """Dusk: each named seat's answer, everyone else in `others`."""
    assert state.phase == "dusk", state.phase
    rooms = rooms or {}
    for s in sorted(GAME.awaited(state)):
        spec = rooms.get(s, others)
        args = {"room": spec} if isinstance(spec, str) else dict(spec)
        state = ok(send(state, seat(s), "choose_room", args))
    return state


def dracula_step(state: DraculaState, room: str | None = None) -> DraculaState:
    """Night 1's extra step: Dracula picks his room (by default, the room he chose at dusk), everyone
    else's phone confirms its own."""
    assert state.phase == "dracula", state.phase
    for s in sorted(GAME.awaited(state)):
        mine = state.player(s).room
        chosen = room if s == state.dracula and room is not None else mine
        state = ok(send(state, seat(s), "choose_room", {"room": chosen}))
    return state


def actions(state: DraculaState, acts: Mapping[int, Mapping[str, Any]] | None = None) -> DraculaState:
    """The night's actions: the named seats' `act` arguments, nothing for everyone else (Dracula on
    night 1 bites the last seat in his room if the test names no bite: seat 13 in a quiet round)."""
    assert state.phase == "actions", state.phase
    acts = acts or {}
    for s in sorted(GAME.awaited(state)):
        args = dict(acts.get(s, {}))
        if not args and state.night == 1 and s == state.dracula:
            mate = max((p.seat for p in state.players if p.seat != s and p.room == state.player(s).room), default=None)
            args = {"bite": mate} if mate is not None else {}
        state = ok(send(state, seat(s), "act", args))
    return state


def night(state: DraculaState, rooms: Mapping[int, RoomSpec] | None = None,
          acts: Mapping[int, Mapping[str, Any]] | None = None, others: str = "boudoir",
          disguise: bool | None = None, dracula_room: str | None = None) -> DraculaState:
    """From dusk to dawn: rooms, Dracula's step on night 1, actions, his torture answer if asked,
    the person GM's confirmation."""
    state = dusk(state, rooms, others)
    assert state.phase != "maps", "human map users: settle their rooms in the test"
    if state.phase == "dracula":
        state = dracula_step(state, dracula_room)
    state = actions(state, acts)
    if state.phase == "torture":
        state = play(state, state.dracula, "disguise", human=bool(disguise))
    if state.phase == "confirm":
        state = play(state, HOST, "confirm_night")
    return state


def to_phase(state: DraculaState, phase: str, night_number: int | None = None,
             step: Callable[[DraculaState], DraculaState] | None = None) -> DraculaState:
    """Walk a quiet round (everyone in the boudoir, no votes, no actions but Dracula's bites on
    night 1) until `phase` of `night_number` begins."""
    for _ in range(200):
        if state.phase == phase and (night_number is None or state.night == night_number):
            return state
        state = (step or quiet)(state)
    raise AssertionError(f"never reached {phase} of night {night_number}")


def quiet(state: DraculaState) -> DraculaState:
    """One quiet phase further."""
    if state.phase in ("roles", "dawn"):
        return all_ready(state)
    if state.phase == "day":
        return through_day(state)
    if state.phase == "dusk":
        return dusk(state)
    if state.phase == "dracula":
        return dracula_step(state)
    if state.phase == "actions":
        return actions(state)
    if state.phase == "torture":
        return play(state, state.dracula, "disguise", human=False)
    if state.phase == "confirm":
        return play(state, HOST, "confirm_night")
    if state.phase == "round_over":
        return play(state, HOST, "next_round")
    if state.clock is not None:
        return time_up(state)
    raise AssertionError(f"nothing quiet to do in {state.phase}")


def give(state: DraculaState, objects: Mapping[int, str | None]) -> DraculaState:
    """Hand chosen objects (the game's own `objects_dealt` event, as after night 2's shuffle): a
    situation the test needs without scripting the shuffle."""
    state = GAME.evolve(state, Event("objects_dealt", {"objects": {str(s): k for s, k in objects.items() if k}}))
    none = {s for s, k in objects.items() if k is None}
    return replace(state, players=tuple(replace(p, obj=None) if p.seat in none else p for p in state.players))


def view(state: DraculaState, who: int | Viewer) -> dict[str, Any]:
    return GAME.view(state, seat(who) if isinstance(who, int) else who)


def me(state: DraculaState, who: int) -> dict[str, Any]:
    """A player's own sheet, as their phone gets it."""
    sheet: dict[str, Any] = view(state, who)["me"]
    return sheet


def news(state: DraculaState, who: int) -> list[dict[str, Any]]:
    """A player's dawn notices (without their leak-test tokens)."""
    return [{k: v for k, v in n.items() if k != "token"} for n in me(state, who)["news"]]


def kinds(state: DraculaState, who: int) -> list[str]:
    return [n["kind"] for n in news(state, who)]
