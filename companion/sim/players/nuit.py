"""Random complete games of la nuit des vampires, played on the pure rules (no table, no store):
the property tests' engine, and a quick way to reach every corner of the turn.

Each step a random player among those the turn waits for (or anyone, now and then, to cash an
elixir) sends one of its allowed actions; the castle is tried more and more often as the game goes
on, so every game ends with the tomato found.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.fairness.drbg import SeededRandomSource
from companion.fairness.rng import Draw
from companion.games.base import Command, Event, SeatInfo, seat
from companion.games.nuit import NUIT_DES_VAMPIRES as GAME
from companion.games.nuit.options import normalize_options
from companion.games.nuit.state import NuitState
from companion.games.nuit.turn import waiting_for
from companion.sim.players import draw_allowed
from companion.sim.players.garlic import Turn, told

Check = Callable[[NuitState, NuitState, Event], None]


@dataclass
class Played:
    state: NuitState
    setup_draws: tuple[Draw, ...] = ()
    turns: list[Turn] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


def seats_for(players: int) -> tuple[SeatInfo, ...]:
    return tuple(SeatInfo(n, f"Player {n}") for n in range(1, players + 1))


def _weight(state: NuitState, command: Command) -> float:
    """Moves to the castle grow likelier with the turns, so games end; the rest is even."""
    if command.name == "stop" and command.args.get("at") == "courtyard":
        return 0.2 + state.turns / 20
    if command.name == "cash":
        return 0.3
    return 1.0


def play_game(players: int, options: Mapping[str, Any], key: bytes, rnd: random.Random,
              check: Check | None = None, limit: int = 3000) -> Played:
    rng = SeededRandomSource(key)
    state = GAME.setup(normalize_options(options), seats_for(players), rng)
    played = Played(state, tuple(rng.draws))
    viewers = {n: seat(n) for n in range(1, players + 1)}
    for _ in range(limit):
        if state.phase == "over":
            break
        waiting = waiting_for(state)
        who = rnd.choice(waiting) if waiting and rnd.random() < 0.9 else rnd.randint(1, players)
        viewer = viewers[who]
        offers = GAME.actions(state, viewer)
        command = draw_allowed(rnd, GAME, state, viewer, offers, [_weight(state, c) for c in offers])
        if command is None:
            continue
        state, turn = told(GAME, state, viewer, command, rng, check)
        played.turns.append(turn)
        played.events += turn.events
    played.state = state
    return played
