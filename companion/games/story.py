"""How a game's `decide` tells the events of one command: each applied as soon as it is told, so
every consequence is decided on the state the previous event left, exactly as a replay sees it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from companion.fairness.rng import RandomSource
from companion.games.base import Event

S = TypeVar("S")


class Story(Generic[S]):
    def __init__(self, state: S, at_us: int, rng: RandomSource, evolve: Callable[[S, Event], S]) -> None:
        self.state = state
        self.at_us = at_us
        """When the command reached the table (the host timeline)."""
        self.rng = rng
        self.events: list[Event] = []
        self._evolve = evolve

    def tell(self, kind: str, data: Mapping[str, Any], reveals: bool = False) -> None:
        event = Event(kind, dict(data), reveals)
        self.events.append(event)
        self.state = self._evolve(self.state, event)
