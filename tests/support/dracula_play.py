"""Random complete series of Dracula on the pure rules, for the property tests.

Every command a player, the host or the system might send is taken from the game's own `actions`
(the screens' choices), checked by `validate` and decided; time passes between commands, and a
phase's deadline is sent by the system when it falls, as the service's timer would. The host
confirms nights (a person GM) and starts each next round.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.games.base import HOST, SYSTEM, Command, Event, SeatInfo, Viewer, seat
from companion.games.dracula import DRACULA as GAME
from companion.games.dracula.options import normalize_options
from companion.games.dracula.state import DraculaState

NAMES = ("Ada", "Ben", "Cyd", "Dee", "Eve", "Fox", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lou", "Max")
T0 = 1_000_000_000


class Draws:
    """A RandomSource from a seeded generator."""

    def __init__(self, rnd: random.Random) -> None:
        self.rnd = rnd

    def randbelow(self, bound: int, purpose: str) -> int:
        return self.rnd.randrange(bound)


def seats(players: int) -> list[SeatInfo]:
    return [SeatInfo(n, NAMES[n - 1]) for n in range(1, players + 1)]


def new_series(players: int = 13, rnd: random.Random | None = None, **options: Any) -> DraculaState:
    return GAME.setup(normalize_options(options), seats(players), Draws(rnd or random.Random(0)))


Watch = Callable[[DraculaState, DraculaState, Event], None]


@dataclass
class Played:
    state: DraculaState
    commands: int = 0
    accepted: int = 0
    events: list[Event] = field(default_factory=list)
    refused: dict[str, int] = field(default_factory=dict)


def send(state: DraculaState, actor: Viewer, command: Command, rnd: random.Random,
         watch: Watch | None = None) -> tuple[DraculaState, list[Event], str | None]:
    refusal = GAME.validate(state, actor, command)
    if refusal is not None:
        return state, [], refusal.code
    decision = GAME.decide(state, actor, command, Draws(rnd))
    before = state
    for event, after in zip(decision.events, decision.states, strict=True):
        if watch is not None:
            watch(before, after, event)
        before = after
    return decision.states[-1], decision.events, None


def play_series(players: int, seed: int, watch: Watch | None = None, max_commands: int = 20_000,
                patience: float = 0.3, **options: Any) -> Played:
    """Play until the series is over. `patience`: the chance a player still to answer lets the time
    run out rather than answer (so every default is taken too)."""
    rnd = random.Random(seed)
    state = new_series(players, rnd, **options)
    played = Played(state)
    now = T0
    while not GAME.is_over(state) and played.commands < max_commands:
        now += rnd.randint(1, 5_000_000)
        awaited = sorted(GAME.awaited(state))
        deadline = GAME.deadline(state)
        if state.phase in ("confirm", "round_over"):
            actor, choices = HOST, GAME.actions(state, HOST)
        elif awaited and rnd.random() > patience / max(1, len(awaited)):
            actor = seat(rnd.choice(awaited))
            choices = GAME.actions(state, actor)
        elif deadline is not None:
            now = max(now, deadline.at_us)
            actor, choices = SYSTEM, [deadline.command]
        else:
            actor = rnd.choice([HOST, *(seat(p.seat) for p in state.players)])
            choices = GAME.actions(state, actor)
        if not choices:
            continue
        command = rnd.choice(choices)
        command = Command(command.name, command.args, now)
        played.commands += 1
        state, events, refused = send(state, actor, command, rnd, watch)
        if refused:
            played.refused[refused] = played.refused.get(refused, 0) + 1
        else:
            played.accepted += 1
            played.events += events
    played.state = state
    return played
