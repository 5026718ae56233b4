"""The randomness seam.

Rules receive a `RandomSource` and only ever ask it for an integer below a bound, naming the purpose
of the draw. Every draw is recorded next to the events it produced, so a log can be replayed without
calling any random generator and, later, checked against a committed seed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from companion.errors import ReplayMismatch


class RandomSource(Protocol):
    def randbelow(self, bound: int, purpose: str) -> int:
        """A uniform integer in [0, bound); `purpose` says what it is for ("roll d6 #1")."""
        ...


@dataclass(frozen=True, slots=True)
class Draw:
    """One integer drawn for one purpose, as stored with the event it produced."""

    purpose: str
    bound: int
    value: int
    counter: int | None = None
    """The draw's number in its game, when it came from the game's seed (see drbg)."""
    epoch: int | None = None

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"purpose": self.purpose, "bound": self.bound, "value": self.value}
        if self.counter is not None:
            data["counter"] = self.counter
            data["epoch"] = self.epoch
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Draw:
        purpose, bound, value = data.get("purpose"), data.get("bound"), data.get("value")
        counter, epoch = data.get("counter"), data.get("epoch")
        if not isinstance(purpose, str) or not isinstance(bound, int) or not isinstance(value, int):
            raise ReplayMismatch(f"malformed recorded draw: {data!r}")
        if (counter is not None and not isinstance(counter, int)) or (epoch is not None and not isinstance(epoch, int)):
            raise ReplayMismatch(f"malformed recorded draw: {data!r}")
        return cls(purpose, bound, value, counter, epoch)


class ReplayRandomSource:
    """Feeds back recorded draws; refuses any draw that differs from the record."""

    def __init__(self, draws: Iterable[Draw]) -> None:
        self._draws = list(draws)
        self._next = 0

    def randbelow(self, bound: int, purpose: str) -> int:
        if self._next >= len(self._draws):
            raise ReplayMismatch(f"replay asked for an unrecorded draw ({purpose}, below {bound})")
        draw = self._draws[self._next]
        if draw.bound != bound or draw.purpose != purpose or not 0 <= draw.value < bound:
            raise ReplayMismatch(
                f"recorded draw {draw.purpose!r} below {draw.bound} does not fit"
                f" the draw {purpose!r} below {bound} the rules ask for"
            )
        self._next += 1
        return draw.value

    def finished(self) -> bool:
        return self._next == len(self._draws)


def shuffled(rng: RandomSource, items: list, purpose: str) -> list:
    """A Fisher-Yates shuffle of a copy of `items`; one draw per position, from the top down."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = rng.randbelow(i + 1, f"{purpose} #{i}")
        out[i], out[j] = out[j], out[i]
    return out
