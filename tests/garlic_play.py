"""Random complete garlic games, played on the pure rules (no table, no store): the property
tests' engine, and a quick way to reach every corner of the rules."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.fairness.drbg import SeededRandomSource
from companion.games.base import HOST, SYSTEM, TABLE, Command, Event, SeatInfo, Viewer, seat
from companion.games.garlic import GARLIC_SLAP
from companion.games.garlic.options import normalize_options
from companion.games.garlic.state import GarlicState

Check = Callable[[GarlicState, Event | None], None]


@dataclass
class Played:
    state: GarlicState
    commands: int = 0
    events: list[Event] = field(default_factory=list)


def new_game(players: int, options: Mapping[str, Any], key: bytes) -> tuple[GarlicState, SeededRandomSource]:
    rng = SeededRandomSource(key)
    seats = [SeatInfo(n, f"Player {n}") for n in range(1, players + 1)]
    return GARLIC_SLAP.setup(normalize_options(options), seats, rng), rng


def right_claim(state: GarlicState, command: Command) -> bool:
    """A claim that the cards bear out (what a player with a good memory would make)."""
    if command.name != "claim" or state.dice is None or state.physical:
        return False
    owner = command.args.get("seat", state.turn.get("seat"))
    card = state.card(state.player(owner).slots[command.args["slot"]].card)
    return card is not None and state.dice.matches(card)


def holds_target(state: GarlicState, command: Command) -> bool:
    winner = command.args["decision"].get("winner")
    if state.dice is None or not isinstance(winner, str) or state.physical:
        return False
    player = state.player(int(winner.removeprefix("seat:")))
    cards = [state.card(slot.card) for slot in player.slots]
    return any(card is not None and state.dice.matches(card) for card in cards)


def play_game(players: int, options: Mapping[str, Any], seed: int, check: Check | None = None,
              max_commands: int = 20_000, memory: float = 0.7) -> Played:
    """Random legal commands from random viewers until someone wins (or the budget runs out).

    A slapper who can make a right claim makes one with probability `memory`; everything else
    (who slaps, the dice, bat and moon choices, penalties, judgements) is random.
    """
    rnd = random.Random(seed)
    state, rng = new_game(players, options, seed.to_bytes(8, "big") * 4)
    played = Played(state)
    if check:
        check(state, None)
    viewers: list[Viewer] = [TABLE, HOST, SYSTEM, *(seat(n) for n in range(1, players + 1))]
    clock = 1_000_000
    while state.phase != "over" and played.commands < max_commands:
        clock += rnd.randint(1_000, 400_000)
        options_now = [(v, c) for v in viewers for c in GARLIC_SLAP.actions(state, v)
                       if GARLIC_SLAP.validate(state, v, c) is None]
        if not options_now:
            raise AssertionError(f"stuck in phase {state.phase}: nobody can do anything")
        actor, command = rnd.choice(options_now)
        if command.name == "timeout" and len(options_now) > 1 and rnd.random() < memory:
            # Players mostly act before their time runs out.
            actor, command = rnd.choice([(v, c) for v, c in options_now if c.name != "timeout"])
        if command.name in ("claim", "no_claim") and rnd.random() < memory:
            right = [c for v, c in options_now if v == actor and right_claim(state, c)]
            command = rnd.choice(right) if right else command
        elif command.name == "judge" and rnd.random() < memory:
            command = Command("judge", {"right": True})  # real cards: the slapper mostly knew
        elif command.name == "settle" and rnd.random() < memory:
            # The players who hold the target are the likelier to slap first.
            keen = [c for v, c in options_now if c.name == "settle" and holds_target(state, c)]
            command = rnd.choice(keen) if keen else command
        command = Command(command.name, command.args, clock)
        events = GARLIC_SLAP.decide(state, actor, command, rng)
        assert events, f"{command.name} was allowed but decided nothing"
        for event in events:
            state = GARLIC_SLAP.evolve(state, event)
            played.events.append(event)
            if check:
                check(state, event)
        played.commands += 1
    played.state = state
    return played
