"""Random complete series of Dracula, played on the pure rules (no table, no store): the property
tests' engine, the browser tests' source of real positions, and the rules' speed in the benchmarks.

Every command a player, the host or the system might send is taken from the game's own `actions`
(the screens' choices), checked by `validate` and decided; time passes between commands, and a
phase's deadline is sent by the system when it falls, as the service's timer would. The host
confirms nights (a person GM) and starts each next round.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from companion.fairness.rng import Draw
from companion.games.base import HOST, SYSTEM, Command, Event, SeatInfo, Viewer, seat
from companion.games.dracula import DRACULA as GAME
from companion.games.dracula.options import normalize_options
from companion.games.dracula.state import DraculaState
from companion.games.dracula.story import waiting_for

NAMES = ("Ada", "Ben", "Cyd", "Dee", "Eve", "Fox", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lou", "Max")
T0 = 1_000_000_000
T = TypeVar("T")


class Dice(random.Random):
    """A seeded generator with lean draws: `between` and `one_of` give what `randint` and `choice`
    give on the same seed, as they make them (the fewest bits that hold the bound, drawn again
    until below it), without their layers of argument checks: a series draws some two thousand
    times."""

    def below(self, bound: int) -> int:
        bits = bound.bit_length()
        value = self.getrandbits(bits)
        while value >= bound:
            value = self.getrandbits(bits)
        return value

    def between(self, low: int, high: int) -> int:
        return low + self.below(high - low + 1)

    def one_of(self, seq: Sequence[T]) -> T:
        if not seq:
            raise IndexError("Cannot choose from an empty sequence")
        return seq[self.below(len(seq))]


class Draws:
    """A RandomSource from a seeded generator that records its draws (a replay feeds them back)."""

    def __init__(self, rnd: random.Random) -> None:
        self.rnd = rnd
        self.draws: list[Draw] = []

    def randbelow(self, bound: int, purpose: str) -> int:
        value = self.rnd.randrange(bound)
        self.draws.append(Draw(purpose, bound, value))
        return value


def seats(players: int) -> list[SeatInfo]:
    return [SeatInfo(n, NAMES[n - 1]) for n in range(1, players + 1)]


def new_series(players: int = 13, rnd: random.Random | None = None, draws: Draws | None = None,
               **options: Any) -> DraculaState:
    return GAME.setup(normalize_options(options), seats(players), draws or Draws(rnd or random.Random(0)))


Turn = tuple[Viewer, Command, list[Draw], list[Event]]
Watch = Callable[[DraculaState, DraculaState, Event], None]


@dataclass
class Played:
    state: DraculaState
    options: dict[str, Any] = field(default_factory=dict)
    seats: list[SeatInfo] = field(default_factory=list)
    setup_draws: list[Draw] = field(default_factory=list)
    commands: int = 0
    accepted: int = 0
    events: list[Event] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    refused: dict[str, int] = field(default_factory=dict)


def send(state: DraculaState, actor: Viewer, command: Command, rnd: random.Random,
         watch: Watch | None = None) -> tuple[DraculaState, Turn | None, str | None]:
    refusal = GAME.validate(state, actor, command)
    if refusal is not None:
        return state, None, refusal.code
    draws = Draws(rnd)
    decision = GAME.decide(state, actor, command, draws)
    if watch is not None:
        before = state
        for event, after in zip(decision.events, decision.states, strict=True):
            watch(before, after, event)
            before = after
    return decision.states[-1], (actor, command, draws.draws, decision.events), None


def pick(rnd: Dice, choices: list[Command]) -> Command:
    """A choice as a curious table makes it: rooms crowd (the torture room often), snoops are
    frequent, so cages, waltzes and tortures happen."""
    snoops = [c for c in choices if c.name == "act" and c.args.get("snoop")]
    if snoops and rnd.random() < 0.6:
        return rnd.one_of(snoops)
    crowded = [c for c in choices if c.name == "choose_room" and c.args.get("room") == "torture"]
    if crowded and rnd.random() < 0.4:
        return rnd.one_of(crowded)
    return rnd.one_of(choices)


def play_series(players: int, seed: int, watch: Watch | None = None, max_commands: int = 20_000,
                patience: float = 0.3, **options: Any) -> Played:
    """Play until the series is over. `patience`: the chance a player still to answer lets the time
    run out rather than answer (so every default is taken too)."""
    rnd = Dice(seed)
    setup_draws = Draws(rnd)
    state = new_series(players, draws=setup_draws, **options)
    played = Played(state, normalize_options(options), seats(players), setup_draws.draws)
    viewers = {p.seat: seat(p.seat) for p in state.players}
    now = T0
    while not GAME.is_over(state) and played.commands < max_commands:
        now += rnd.between(1, 300_000 if state.phase == "day" else 5_000_000)
        actor, choices, now = _next(state, rnd, patience, now, viewers)
        if not choices:
            continue
        command = pick(rnd, choices)
        delay = rnd.between(0, 80_000) if actor.kind == "seat" else 0
        command = Command(command.name, command.args, now, delay, rnd.between(0, 150_000) if delay else 0)
        played.commands += 1
        state, turn, refused = send(state, actor, command, rnd, watch)
        if turn is None:
            played.refused[str(refused)] = played.refused.get(str(refused), 0) + 1
        else:
            played.accepted += 1
            played.events += turn[3]
            played.turns.append(turn)
    played.state = state
    return played


def _next(state: DraculaState, rnd: Dice, patience: float, now: int,
          viewers: dict[int, Viewer]) -> tuple[Viewer, list[Command], int]:
    """Who acts next, what they might send, and the time: the host while the game waits on them; a
    player the phase awaits, unless they let the time run out; then the system when the phase's
    time is up (the clock jumps to it); else anyone. Each question is asked only when it decides."""
    if state.phase in ("confirm", "round_over"):
        return HOST, GAME.actions(state, HOST), now
    awaited = sorted(waiting_for(state))
    if awaited and rnd.random() > patience / max(1, len(awaited)):
        actor = viewers[rnd.one_of(awaited)]
        return actor, GAME.actions(state, actor), now
    deadline = GAME.deadline(state)
    if deadline is not None:
        return SYSTEM, [deadline.command], max(now, deadline.at_us)
    actor = rnd.one_of([HOST, *(viewers[p.seat] for p in state.players)])
    return actor, GAME.actions(state, actor), now
