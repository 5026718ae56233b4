"""Random complete games of La chasse au vampire, played on the pure rules (no table, no store):
the property tests' engine.

Time passes as at a table: each command comes a few seconds after the one before, and when the
sand glass runs out before it, the system turns the glass over first (as the service's timekeeper
does). Each step a seat the game waits for plays one of its allowed actions, now and then a
traveller offers blood; travellers drift toward the crypt, the chapel and the Doctor's House, and
vampires bite when they can, so games end.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.fairness.drbg import SeededRandomSource
from companion.fairness.rng import Draw
from companion.games.base import SYSTEM, Command, Event, SeatInfo, Viewer, seat
from companion.games.chasse import CHASSE_AU_VAMPIRE as GAME
from companion.games.chasse.options import normalize_options
from companion.games.chasse.rules import board_of
from companion.games.chasse.state import ChasseState
from companion.games.chasse.views import waiting_for
from companion.sim.players import draw_allowed
from companion.sim.players.garlic import Turn, told
from companion.sim.players.nuit import seats_for

Check = Callable[[ChasseState, ChasseState, Event], None]
BUDGET = 4_000
"""Commands a game may take before it counts as never ending."""
TRAVELLERS_GO = {"crypt": 6.0, "chapel": 3.0, "doctor": 2.0, "circle": 1.5}
"""How much a traveller prefers each place (the crypt wins the game)."""


@dataclass
class Played:
    state: ChasseState
    options: Mapping[str, Any]
    seats: tuple[SeatInfo, ...]
    setup_draws: tuple[Draw, ...] = ()
    turns: list[Turn] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


def _goals(state: ChasseState, seat: int) -> dict[str, float]:
    """Where a traveller wants to go: the Doctor's House above all while a transfusion needs it."""
    needed = any(seat in (t.victim, t.donor) and t.donor is not None and seat not in t.reached
                 for t in state.transfusions)
    return {**TRAVELLERS_GO, "doctor": 20.0} if needed else TRAVELLERS_GO


def _weight(state: ChasseState, actor: Viewer, command: Command) -> float:
    if command.args.get("bite") is not None:
        return 8.0
    pawn = state.player(actor.seat or 0)
    if command.name == "stop":
        return 1.0 if pawn.vampire else _goals(state, pawn.seat).get(command.args["place"], 1.0)
    if command.name == "move":
        board = board_of(state)
        if board is None or pawn.vampire:
            return 1.0
        goals = _goals(state, pawn.seat)
        to = (command.args["to"][0], command.args["to"][1])

        def far(place: str) -> int:
            return max(abs(board.places[place][0] - to[0]), abs(board.places[place][1] - to[1]))

        return max(weight / (1 + far(place)) ** 2 for place, weight in goals.items())
    return 1.0


def play_game(players: int, options: Mapping[str, Any], key: bytes, rnd: random.Random,
              check: Check | None = None, limit: int = BUDGET) -> Played:
    rng = SeededRandomSource(key)
    seats = seats_for(players)
    normalized = normalize_options(options)
    state = GAME.setup(normalized, seats, rng)
    played = Played(state, normalized, seats, tuple(rng.draws))
    now = 1_000_000
    for _ in range(limit):
        if state.phase == "over":
            break
        now += rnd.randint(1, 8) * 1_000_000
        due = GAME.deadline(state)
        if due is not None and due.at_us <= now:
            state = _play(played, state, SYSTEM, Command(due.command.name, due.command.args, due.at_us), rng, check)
            continue
        waiting = waiting_for(state)
        anyone = rnd.random() < 0.1 or not waiting  # now and then a traveller offers blood
        actor = seat(rnd.randint(1, players) if anyone else rnd.choice(waiting))
        offers = GAME.actions(state, actor)
        command = draw_allowed(rnd, GAME, state, actor, offers, [_weight(state, actor, c) for c in offers])
        if command is None:
            continue
        state = _play(played, state, actor, Command(command.name, command.args, now), rng, check)
    played.state = state
    return played


def _play(played: Played, state: ChasseState, actor: Viewer, command: Command, rng: SeededRandomSource,
          check: Check | None) -> ChasseState:
    state, turn = told(GAME, state, actor, command, rng, check)
    played.turns.append(turn)
    played.events += turn.events
    return state
