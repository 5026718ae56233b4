"""The commands a game's screens offer, each made once.

`actions(state, viewer)` lists every command a viewer might send now, and the table (or a random
player) checks each one. Most are the same from one state to the next ("take card 12", "stop 2
spaces further on"), and making a frozen dataclass costs more than looking one up: a random game
of la nuit des vampires built some ten thousand of them. Commands are values, so one instance
serves every state and every game that offers it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from companion.games.base import Command

OFFERS_KEPT = 4096
"""Distinct offers remembered: every game's cards, seats, places and rooms fit many times over,
and a long-running service never keeps more."""


@lru_cache(maxsize=OFFERS_KEPT, typed=True)
def offered(name: str, **args: Any) -> Command:
    """The command `name` with `args` (hashable values only: numbers, names, None), in the order
    given. Typed: `True` and `1` are different arguments."""
    return Command(name, args)
