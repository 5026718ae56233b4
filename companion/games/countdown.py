"""A game's countdown that runs in real time (La chasse's sand glass, Dracula's phase clock): the
time it had left at a moment, and the data of pausing, resuming it and holding it across an
outage of the service. Pure: the moment comes from the command."""

from __future__ import annotations

from typing import Any


class Counting:
    """Mixed into a frozen dataclass with `left_us`, `since_us` and `running`: while it runs, the
    time left at `since_us` runs out at `ends_us`."""

    __slots__ = ()
    left_us: int
    since_us: int
    running: bool

    @property
    def ends_us(self) -> int | None:
        return self.since_us + self.left_us if self.running else None

    def left_at(self, now_us: int) -> int:
        if not self.running:
            return self.left_us
        return max(0, self.left_us - max(0, now_us - self.since_us))


def paused(countdown: Counting, at_us: int) -> dict[str, Any]:
    """A pause's event data: the time left now, kept still from now."""
    return {"left_us": countdown.left_at(at_us), "since_us": at_us}


def resumed(countdown: Counting, at_us: int) -> dict[str, Any]:
    """A resumption's event data: the time it was paused with, running from now."""
    return {"left_us": countdown.left_us, "since_us": at_us}


def held(countdown: Counting, at_us: int, stopped_us: int) -> dict[str, Any]:
    """After the service was down from `stopped_us` (its last mark): the countdown ran until then,
    and runs on from now with what it had left, neither restarted full nor eating the outage."""
    left = countdown.left_at(max(countdown.since_us, stopped_us))
    return {"left_us": left, "since_us": at_us, "stopped_us": stopped_us}
