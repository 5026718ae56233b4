"""The one host timeline: every press, arm, roll and vote is a point on it.

Rules never read a clock; the table stamps events with `now_us()` from an injected clock so
tests can drive time from outside.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def now_us(self) -> int:
        """Microseconds on a monotonic timeline (never goes back, unrelated to wall time)."""
        ...

    def wall_ms(self) -> int:
        """Milliseconds since the Unix epoch, for humans reading logs; never used for ordering."""
        ...


class MonotonicClock:
    """The host's CLOCK_MONOTONIC, the same timeline gpiozero's lgpio ticks are on."""

    def now_us(self) -> int:
        return time.monotonic_ns() // 1000

    def wall_ms(self) -> int:
        return time.time_ns() // 1_000_000
