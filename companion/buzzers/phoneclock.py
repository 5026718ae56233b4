"""A phone's word about when it was tapped: its own clock mapped onto the host timeline, and what
the time of a tap means for a round, whose signal is on each phone or on the table.

Timing a buzz by when its request reaches the server puts every jitter and stall of that one
request into the press's time, and the stated uncertainty must then be wide enough to cover them:
on real Wi-Fi most rounds were ties and one stall made a confident wrong winner. So the page stamps
the tap itself (`performance.now()`, first thing in its pointerdown handler) and the frame in which
it showed the signal (`requestAnimationFrame`'s timestamp), and the buzz carries both. A stall
then delays the request, never the time.

The phone's clock is mapped onto the host's from the pings its stream already carries, as the
buzzer box's is (clocksync.py): the page answers each ping with its own `performance.now()`, so
every round trip says `sent <= h(phone time) <= echo arrival`. Min-round-trip filtering keeps the
tight ones, a pair of pings wakes a sleeping radio before the one that measures, and the fit's
bound covers the phone's clock resolution (1 ms in some browsers) and a drift of up to
`MAX_DRIFT_PPM` changing at most `MAX_DRIFT_CHANGE_PPM_PER_MIN`.

What a tap's time means depends on where the signal was:
* On each phone (the quiz): the reaction measured on the phone, tap minus shown, is one clock and no
  network, and it is fair even when one phone got the signal 80 ms after another. The press is put
  on the host timeline at the round's signal plus that reaction, give or take
  `REACTION_UNCERTAINTY_US`.
* On the table or the TV (the garlic dice): the mapped tap instant, against the instant the TV
  showed the signal, give or take the mapping's bound.

A phone's time is a claim. One that physics rules out (a tap after its own arrival or earlier than
its arrival minus the phone's worst uplink and a stall, a signal shown before the server sent it)
is refused and logged, the phone's clock is distrusted until pings map it again, and the press is
timed by its arrival instead, with the wider bound that method has.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from companion.buzzers.clocksync import ClockSync, Mapped

PHONE_TICK_HZ = 1_000_000
"""Pages send milliseconds with decimals; the server keeps microseconds."""
MAX_DRIFT_PPM = 2_000.0
"""A phone's clock is a crystal (tens of ppm off) that NTP slews by up to 500 ppm: 2000 is safe."""
MAX_DRIFT_CHANGE_PPM_PER_MIN = 600.0
"""How fast that drift may change (a slew starting or stopping): beyond it, the fit restarts and
the phone is timed by arrival until pings map its clock again."""
STAMP_SLACK_US = 1_000
"""A page's clock resolution: 0.1 ms in Chromium, 1 ms in Firefox and Safari."""
SYNC_WINDOW_S = 20.0
"""Round trips older than this no longer narrow the fit (with a pair every two seconds, ~20 kept)."""
SYNC_RTT_CAP_US = 1_000_000
MIN_SYNC_SAMPLES = 4
"""Round trips with a phone stamp kept before its taps are trusted (a burst takes ~0.2 s)."""
TAP_LATENCY_US = 2_000
"""How long after the touch the page's pointerdown handler may take its stamp (a busy page): a
tap's time is never later than its stamp, and at most this much earlier."""
REACTION_UNCERTAINTY_US = TAP_LATENCY_US // 2 + STAMP_SLACK_US
"""A reaction measured on the phone (taken as its stamps' difference less half the tap's latency),
give or take: half that latency and the clock's resolution. Each phone's own touch and display
latency (the same every round) is part of its reaction, as with any screen."""
STALL_ALLOWANCE_US = 250_000
"""Beyond the slowest recent round trip, how late a phone's request may still come (a Wi-Fi
retransmission, a power-saving radio): it sets how long a decision waits for a phone, and how old a
tap a buzz may claim."""
MAX_WAIT_US = 1_000_000
"""The longest a decision waits for one phone: a phone on a bad link must not hold every round
(wired ones included) for seconds. What it sends later is still listed, marked late."""
UNMEASURED_WAIT_US = 400_000
"""How long a decision waits for a phone with no round trip measured yet."""

Method = Literal["reaction", "mapped", "arrival", "before_signal"]
Signal = Literal["phones", "table"]


def phone_us(value: object) -> int | None:
    """A page's `performance.now()` (ms, with decimals) in µs, or None when it is no such number."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    if not 0 <= value < 1e11:  # a page's clock starts at 0 when it loads: three years is plenty
        return None
    return round(value * 1000)


def phone_sync() -> ClockSync:
    """A fit for one phone's clock (see the module docstring for its prior)."""
    return ClockSync(PHONE_TICK_HZ, max_drift_ppm=MAX_DRIFT_PPM,
                     max_drift_change_ppm_per_min=MAX_DRIFT_CHANGE_PPM_PER_MIN, window_s=SYNC_WINDOW_S,
                     refit_s=2.0, slack_us=STAMP_SLACK_US, rtt_cap_us=SYNC_RTT_CAP_US, rtt_factor=3.0,
                     rtt_margin_us=20_000, min_samples=MIN_SYNC_SAMPLES)


@dataclass(frozen=True, slots=True)
class Claim:
    """What a buzz says of itself, on the phone's clock (µs): the tap, and the signal it answers."""

    tap_us: int
    round: int | None = None
    shown_us: int | None = None
    """The frame in which the phone showed round `round`'s signal; None: not shown before the tap."""

    @classmethod
    def from_json(cls, body: dict[str, Any] | None) -> Claim | None:
        """The claim a buzz's body makes, or None for an empty body (a page timed by arrival)."""
        if not body or "tap" not in body:
            return None
        tap = phone_us(body.get("tap"))
        if tap is None:
            raise ValueError("tap")
        number = body.get("round")
        if number is not None and (isinstance(number, bool) or not isinstance(number, int) or number < 0):
            raise ValueError("round")
        shown = None
        if body.get("shown") is not None:
            shown = phone_us(body["shown"])
            if shown is None or number is None:
                raise ValueError("shown")
        return cls(tap, number, shown)


@dataclass(frozen=True, slots=True)
class PhoneTap:
    """How the server timed one buzz: the tap on the host timeline (in the `Press` that carries
    this), and what a round needs to time it by its signal instead."""

    seat: int
    arrived_us: int
    method: Literal["mapped", "arrival"]
    arrival_t_us: int
    """The arrival method's time (arrival less the link's delay), kept for a fallback."""
    arrival_uncertainty_us: int
    round: int | None = None
    reaction_us: int | None = None
    """Tap minus shown, on the phone's clock, when the phone showed round `round`'s signal first."""
    shown: Mapped | None = None
    """That shown frame on the host timeline."""
    refused: str = ""
    """Why the phone's claim was not used ("" when it was, or the buzz made none)."""


@dataclass(frozen=True, slots=True)
class Timed:
    t_us: int
    uncertainty_us: int
    method: Method


def timed_for_signal(tap: PhoneTap, mapped_t_us: int, mapped_bound_us: int, signal: Signal, number: int,
                     sent_us: int, armed_at_us: int) -> Timed:
    """A phone's press on the host timeline as round `number` ranks it: its signal was sent at
    `sent_us` and shown (on the TV, when it said so) at `armed_at_us`.

    `mapped_t_us` and its bound: the press as timed for a signal on the table (the mapped tap, or
    its arrival time when the claim was not used).
    """
    if signal == "table" or tap.method == "arrival":
        # An arrival-timed press is its tap's instant whatever the signal: a phone that got the
        # signal late is late by up to its one-way delay, which its bound is at least.
        return Timed(mapped_t_us, mapped_bound_us, tap.method)
    if tap.round == number and tap.reaction_us is not None and tap.shown is not None:
        if tap.shown.t_us + tap.shown.bound_us >= sent_us:
            # The phone's clock may run up to MAX_DRIFT_PPM off: a reaction is that much vaguer too.
            drift_us = math.ceil(abs(tap.reaction_us) * MAX_DRIFT_PPM / 1e6)
            return Timed(armed_at_us + tap.reaction_us - TAP_LATENCY_US // 2, REACTION_UNCERTAINTY_US + drift_us,
                         "reaction")
        # Shown before the server sent the signal: no frame of this round. Its arrival time.
        return Timed(tap.arrival_t_us, tap.arrival_uncertainty_us, "arrival")
    if mapped_t_us + mapped_bound_us < armed_at_us:
        return Timed(mapped_t_us, mapped_bound_us, "mapped")  # before the signal was sent at all
    # Tapped before its screen showed the signal: early, by how much the phone cannot say.
    return Timed(armed_at_us - 1, 0, "before_signal")
