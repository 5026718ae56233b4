"""Dracula's setup and the round's deal (D-R1, D-R2, 6.6), as pure functions.

Dracula is drawn like any card: nobody chooses him, the host included, and the draw is checked
with the game's seed at the end. The round's Dracula is also sealed (a salted hash shown on the
TV from the deal), so the table can check him the moment the round ends, before the series does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.fairness.rng import RandomSource, shuffled
from companion.fairness.sealed import SealedFact, opens, seal
from companion.games.base import Event, SeatInfo
from companion.games.dracula.evolve import evolve
from companion.games.dracula.options import GAME_ID, OBJECTS, ROOMS, RULE_PLAYERS
from companion.games.dracula.state import DraculaState, Player

SALT_WORDS = 4
"""The seal's salt: 4 draws of 32 bits (16 bytes, as companion/fairness/sealed.py)."""


def seal_name(round_number: int) -> str:
    return f"dracula_round_{round_number}"


def setup(options: Mapping[str, Any], seats: Sequence[SeatInfo], rng: RandomSource) -> DraculaState:
    """The first round dealt: each player reads their role, then the first day begins."""
    players = tuple(Player(info.number, info.name) for info in sorted(seats, key=lambda s: s.number))
    table = DraculaState(dict(options), players, phase="roles")
    return evolve(table, Event("round_dealt", deal(table, 1, rng)))


def deal(state: DraculaState, round_number: int, rng: RandomSource) -> dict[str, Any]:
    """D-R1: Dracula drawn among the players, and the seal of the draw (the event's data)."""
    seats = [p.seat for p in state.players]
    dracula = seats[rng.randbelow(len(seats), f"round {round_number}: Dracula")]
    words = [rng.randbelow(1 << 32, f"round {round_number}: Dracula seal salt #{i}") for i in range(SALT_WORDS)]
    fact, salt = seal(GAME_ID, seal_name(round_number), str(dracula),
                      b"".join(w.to_bytes(4, "big") for w in words))
    return {"round": round_number, "dracula": dracula, "commitment": fact.commitment, "salt": salt}


def seal_opens(round_number: int, commitment: str, dracula: int, salt: str) -> bool:
    """Whether a round's revealed Dracula is the one sealed at its deal."""
    return opens(GAME_ID, SealedFact(seal_name(round_number), commitment), str(dracula), salt)


def hand_out(state: DraculaState, rng: RandomSource) -> dict[int, str]:
    """D-O: at the end of night 2, one object at random to every player but Dracula, from the 12
    (a smaller table takes the first ones of the shuffled pile)."""
    pile = [kind for kind, count in OBJECTS.items() for _ in range(count)]
    pile = shuffled(rng, pile, f"round {state.round}: the objects")
    takers = [p.seat for p in state.players if not p.dracula]
    return dict(zip(takers, pile, strict=False))


def default_room(state: DraculaState, seat: int, rng: RandomSource) -> str:
    """A room for a player who let the time run out: last night's room, as the rules' default
    gives nobody an edge; on the first night there is none, so the room is drawn."""
    last = state.player(seat).last_room
    if last is not None:
        return last
    return ROOMS[rng.randbelow(len(ROOMS), f"night {state.night}: a room for seat {seat}, out of time")]


def eligible(state: DraculaState) -> list[int]:
    """D-1: who may be voted into the sanctuary: not a player who already spent a night there."""
    return [p.seat for p in state.players if p.sanctuary_nights == 0]


def human_map_users(state: DraculaState) -> frozenset[int]:
    """D-O3: humans who use their map choose after everyone else."""
    return frozenset(p.seat for p in state.in_rooms()
                     if not p.vampire and p.choice is not None and p.choice.use and p.obj == "map")


def small_table(state: DraculaState) -> bool:
    return len(state.players) != RULE_PLAYERS
