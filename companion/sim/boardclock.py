"""A buzzer box's clock and its USB link, simulated for the clock sync's tests and bench.

A ceramic resonator runs up to ~0.5 % off and its drift moves while it warms up; a USB serial link
adds up to a millisecond each way and now and then stalls. Both are written once here so that the
tests and bench/report.py measure the same boards over the same link.
"""

from __future__ import annotations

import math
import random

TICKS_PER_US = 16
"""The board's 16 MHz Timer1."""


def drifting_ticks(tick0: int, drift_ppm: float, ramp_ppm_per_min: float, since_us: float) -> int:
    """A board's ticks `since_us` after it read `tick0`, its drift `drift_ppm` then and moving by
    `ramp_ppm_per_min` (the drift integrated: the ticks bend)."""
    ramp_ppm_per_us = ramp_ppm_per_min / 60e6
    return tick0 + math.floor(TICKS_PER_US * (since_us + 1e-6 * (drift_ppm * since_us
                                                                 + ramp_ppm_per_us * since_us**2 / 2)))


def usb_delay(rng: random.Random) -> float:
    """One way over USB, in us: 0-1 ms of jitter, and 2 % of the time a stall of 1-30 ms."""
    delay = rng.uniform(0, 1000)
    if rng.random() < 0.02:
        delay += rng.uniform(1000, 30_000)
    return delay
