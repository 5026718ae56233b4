"""Board ticks onto the host timeline, with an error bound that holds.

The host sends SYNC at host time t1 and gets the SYNC_REPLY at t4; the board read its ticks at
some moment between the two. So every round trip is a pair of certain facts about the mapping
`h(ticks)`: `t1 <= h(ticks) <= t4`.

The board's clock is not a line. A ceramic resonator runs up to ~0.5 % off (a crystal tens of ppm)
and its drift moves while it warms up, by up to ~100 ppm a minute. What does hold is a bound on
how fast the drift changes (`MAX_DRIFT_CHANGE_PPM_PER_MIN`, twice that), and with it Taylor's: d
seconds from any moment, the clock is within `bend_us(rate, d) = rate * d**2 / 2` of its tangent
line at that moment. So the fit is the tangent at the newest round trip. The (offset, drift) pairs
of the lines that respect every kept round trip, each loosened by the bend at its distance, form a
convex polygon, and that polygon *is* the fit: the estimate of a press's host time is the middle
of the values the polygon's lines give for its ticks, and their half-width plus the bend at the
press is the error bound. The bound is not a statistic: it covers the real error whenever the
round trips told the truth (t1 stamped before the write, t4 after the read), the board's tick and
interrupt stayed within `slack_us`, and the drift changed no faster than the prior.

Why this model, measured on the simulated USB link of tests/test_clocksync.py (0-1 ms each way,
2 % stalls of 1-30 ms, eight runs of 90 s per board):
* A line fitted over the last 15-30 s is off by about rate * W**2 / 8 inside its window W (47 us
  for 15 s at 100 ppm a minute) and more extrapolated to now: at 100 ppm a minute its bound missed
  two presses in three, and the error's p99 was 110 us.
* A shorter window only shrinks the curvature: at 5 s the bound still missed 4-5 % of the presses;
  at 2.5 s it missed none, but nothing promised it, and the error's p99 rose to 160-180 us.
* A model with the drift's rate of change in it (offset, drift, rate) gives bounds ~25 % tighter,
  but only if that rate is constant, and a warming resonator's is not (its drift settles like an
  exponential): the bound would rest on a shape no board promises.
* The tangent with its bend assumes only the bound on the rate, and the tightest bound under that
  same assumption (a linear program over the round trips) is only ~10 % narrower. The price is
  paid when the drift does not move: the bound's median is ~60 us instead of a line's ~20 us, far
  below what sets two human presses apart.
Old round trips count for less by themselves (their bend grows with the square of their age), so
the window (`window_s`) only caps the work: every `refit_s` the tangent is moved to the newest
round trip, and the polygon is rebuilt from the window's round trips (0.6 ms every 2 s on the
development machine). A round trip that no line fits any more (the drift changed faster than the
prior, or a round trip lied) refits at once, from the longest recent run that still fits.

Round trips far slower than the fastest recent ones (NTP/PX4 style min-RTT filtering) are dropped
first: they would add only loose constraints, and each kept one costs a little work.

Everything here is pure: no clock is read, no I/O.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import deque
from dataclasses import dataclass

from companion.buzzers.protocol import TICK_HZ

WARMUP_SYNCS = 16
"""Round trips sent right after the hello, 10 ms apart, so presses can be delivered within tens of ms."""
WARMUP_INTERVAL_S = 0.010
RAMP_S = 5.0
RAMP_INTERVAL_S = 0.025
"""Then 40 a second for the first seconds: the drift is known only once round trips span some time."""
STEADY_INTERVAL_S = 0.100
"""Then ten a second: each costs 9 bytes out and 13 back on a 1 Mbaud line."""
MIN_SAMPLES = 4
"""Round trips kept before the fit counts as synced (the drift is still bounded by the prior)."""
MAX_DRIFT_CHANGE_PPM_PER_MIN = 200.0
"""The prior on how fast the drift changes: twice the 100 ppm a minute of a resonator warming up."""


def sync_interval_s(sent: int, since_first_s: float) -> float:
    """The delay before the next round trip, after `sent` of them, the first `since_first_s` ago."""
    if sent < WARMUP_SYNCS:
        return WARMUP_INTERVAL_S
    if since_first_s < RAMP_S:
        return RAMP_INTERVAL_S
    return STEADY_INTERVAL_S

Point = tuple[float, float]
Sample = tuple[int, int, int]
"""(t1_us, ticks, t4_us): sent, read by the board (unwrapped ticks), answer received."""


@dataclass(frozen=True, slots=True)
class Mapped:
    """A board time on the host timeline: `t_us`, certainly within `bound_us` of the truth."""

    t_us: int
    bound_us: int


class TickUnwrapper:
    """Extends the board's 32-bit ticks (268 s at 16 MHz) to 64 bits.

    Each value is taken as the one nearest to the latest seen, so it is right as long as frames
    come less than half a wrap apart (heartbeats come every 100 ms) and values that arrive a little
    out of order (an event's ticks are older than the heartbeat before it) unwrap correctly.
    """

    def __init__(self, bits: int = 32) -> None:
        self._mask = (1 << bits) - 1
        self._half = 1 << (bits - 1)
        self._span = 1 << bits
        self.latest: int | None = None

    def peek(self, raw: int) -> int:
        """The unwrapped value, without moving the reference."""
        raw &= self._mask
        if self.latest is None:
            return raw
        diff = (raw - self.latest) & self._mask
        if diff >= self._half:
            diff -= self._span
        return self.latest + diff

    def unwrap(self, raw: int) -> int:
        value = self.peek(raw)
        if self.latest is None or value > self.latest:
            self.latest = value
        return value


def _clip(poly: list[Point], a: float, b: float, c: float) -> list[Point]:
    """The part of a convex polygon where a*u + b*e <= c (Sutherland-Hodgman, one edge)."""
    out: list[Point] = []
    n = len(poly)
    for k in range(n):
        p, q = poly[k], poly[(k + 1) % n]
        fp = a * p[0] + b * p[1] - c
        fq = a * q[0] + b * q[1] - c
        if fp <= 0:
            out.append(p)
        if (fp <= 0) != (fq <= 0):
            t = fp / (fp - fq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    deduped: list[Point] = []
    for point in out:
        if not deduped or abs(point[0] - deduped[-1][0]) > 1e-9 or abs(point[1] - deduped[-1][1]) > 1e-9:
            deduped.append(point)
    if len(deduped) > 1 and abs(deduped[0][0] - deduped[-1][0]) <= 1e-9 \
            and abs(deduped[0][1] - deduped[-1][1]) <= 1e-9:
        deduped.pop()
    return deduped


def bend_us(rate_ppm_per_s: float, dx_s: float) -> float:
    """How far a clock whose drift changes by at most `rate_ppm_per_s` can stray, `dx_s` away, from
    its tangent line there (Taylor: half the largest second derivative times the distance squared)."""
    return rate_ppm_per_s * dx_s * dx_s / 2


class _Region:
    """The (offset u in us, drift e in ppm) pairs of the lines that may be the board's clock's tangent
    at the round trip the region was started from.

    The mapping is `h(ticks) = host0 + dx_us + u + e * dx_s`, plus at most `bend_us(rate, dx_s)` either way,
    with dx measured from the first round trip's ticks at the nominal tick rate (ppm times seconds is
    microseconds). Every round trip added narrows it by its t1 <= h <= t4, loosened by that bend.
    """

    def __init__(self, sample: Sample, tick_hz: int, max_ppm: float, slack_us: float,
                 rate_ppm_per_s: float) -> None:
        t1_us, ticks, t4_us = sample
        self.tick_hz = tick_hz
        self.slack_us = slack_us
        self.rate_ppm_per_s = rate_ppm_per_s
        self.ticks0 = ticks
        self.host0 = t1_us
        self.samples = 1
        lo, hi = -slack_us, (t4_us - t1_us) + slack_us
        self.poly: list[Point] = [(lo, -max_ppm), (hi, -max_ppm), (hi, max_ppm), (lo, max_ppm)]

    def age_s(self, ticks: int) -> float:
        """How far these ticks are from the tangent's point, in seconds."""
        return abs(ticks - self.ticks0) / self.tick_hz

    def _dx(self, ticks: int) -> tuple[float, float]:
        dticks = ticks - self.ticks0
        return dticks * 1_000_000 / self.tick_hz, dticks / self.tick_hz

    def add(self, sample: Sample) -> bool:
        """Narrow the region by one round trip; False (and unchanged) when no line fits it too."""
        t1_us, ticks, t4_us = sample
        dx_us, dx_s = self._dx(ticks)
        slack = self.slack_us + bend_us(self.rate_ppm_per_s, dx_s)
        lo = t1_us - self.host0 - dx_us - slack
        hi = t4_us - self.host0 - dx_us + slack
        poly = _clip(self.poly, 1.0, dx_s, hi)
        poly = _clip(poly, -1.0, -dx_s, -lo) if poly else poly
        if not poly:
            return False
        self.poly = poly
        self.samples += 1
        return True

    def interval(self, ticks: int) -> tuple[float, float]:
        """The earliest and latest host time (us) the clock can give these ticks."""
        dx_us, dx_s = self._dx(ticks)
        values = [u + e * dx_s for u, e in self.poly]
        base = self.host0 + dx_us
        bend = bend_us(self.rate_ppm_per_s, dx_s)
        return base + min(values) - bend, base + max(values) + bend

    def drift_ppm(self) -> tuple[float, float]:
        drifts = [e for _, e in self.poly]
        return min(drifts), max(drifts)


@dataclass(frozen=True, slots=True)
class SyncStats:
    accepted: int
    rejected: int
    """Round trips dropped by the min-RTT filter (or impossible: t4 before t1)."""
    restarts: int
    """Times a refit left older round trips out because no line fitted them with the newer ones (the
    drift changed faster than the prior, or a round trip lied)."""
    min_rtt_us: int
    drift_ppm: float


class ClockSync:
    """Offset and drift of one board's clock from round trips, with an honest error bound.

    The fit is the clock's tangent at its newest round trip, moved there again every `refit_s`, from
    the kept round trips of the last `window_s` seconds; the drift may change by up to
    `max_drift_change_ppm_per_min` meanwhile (see the module's docstring for why).
    """

    def __init__(self, tick_hz: int = TICK_HZ, *, max_drift_ppm: float = 10_000,
                 max_drift_change_ppm_per_min: float = MAX_DRIFT_CHANGE_PPM_PER_MIN, window_s: float = 15.0,
                 refit_s: float = 2.0, slack_us: float = 2.0, rtt_cap_us: int = 50_000, rtt_factor: float = 3.0,
                 rtt_margin_us: int = 1_500, min_samples: int = MIN_SAMPLES) -> None:
        if tick_hz <= 0:
            raise ValueError("tick_hz must be positive")
        self.tick_hz = tick_hz
        self.max_drift_ppm = max_drift_ppm
        """The prior: a ceramic resonator is within 0.5 %, so 1 % is safe."""
        self.drift_rate_ppm_per_s = max_drift_change_ppm_per_min / 60
        self.window_s = window_s
        self.refit_s = refit_s
        """How far the tangent's round trip may fall behind before the fit moves to the newest: the
        bend of the presses after it grows with the square of their distance to it."""
        self.slack_us = slack_us
        """Covers the board's tick quantisation and its receive interrupt's latency."""
        self.rtt_cap_us = rtt_cap_us
        """Round trips slower than this are never kept (PX4 uses 10 ms; an FTDI adapter left at
        its 16 ms latency timer needs more, and only widens the bound)."""
        self.rtt_factor = rtt_factor
        self.rtt_margin_us = rtt_margin_us
        self.min_samples = min_samples
        self._recent_rtts: deque[int] = deque(maxlen=32)
        self._samples: deque[Sample] = deque()
        self._region: _Region | None = None
        self.accepted = 0
        self.rejected = 0
        self.restarts = 0

    @property
    def synced(self) -> bool:
        return self._region is not None and self._region.samples >= self.min_samples

    def stats(self) -> SyncStats:
        low, high = self._region.drift_ppm() if self._region else (0.0, 0.0)
        return SyncStats(self.accepted, self.rejected, self.restarts, min(self._recent_rtts, default=0),
                         (low + high) / 2)

    def add(self, t1_us: int, ticks: int, t4_us: int) -> bool:
        """One round trip: sent at host time t1, read by the board at `ticks` (unwrapped), answer
        received at t4. True when it was kept."""
        rtt = t4_us - t1_us
        if rtt < 0:
            self.rejected += 1
            return False
        self._recent_rtts.append(rtt)
        if rtt > self.rtt_cap_us or rtt > self.rtt_factor * min(self._recent_rtts) + self.rtt_margin_us:
            self.rejected += 1
            return False
        self.accepted += 1
        sample = (t1_us, ticks, t4_us)
        self._samples.append(sample)
        horizon = ticks - int(self.window_s * self.tick_hz)
        while self._samples and self._samples[0][1] < horizon:
            self._samples.popleft()
        if self._region is None:
            self._region = self._new_region(sample)
        elif self._region.age_s(ticks) >= self.refit_s or not self._region.add(sample):
            # Time to move the tangent to now, or no line fits any more (the drift changed faster
            # than the prior allows, or a round trip lied): refit from the newest round trip.
            self._region = self._refit()
        return True

    def _new_region(self, sample: Sample) -> _Region:
        return _Region(sample, self.tick_hz, self.max_drift_ppm, self.slack_us, self.drift_rate_ppm_per_s)

    def _refit(self) -> _Region:
        """A region from the newest round trip back over the window, stopping at the first older
        one that no longer fits (a restart: it and what came before it are forgotten)."""
        newest = self._samples[-1]
        region = self._new_region(newest)
        for sample in reversed(list(self._samples)[:-1]):
            if not region.add(sample):
                self.restarts += 1
                while len(self._samples) > region.samples:
                    self._samples.popleft()
                break
        return region

    def interval(self, ticks: int) -> tuple[float, float] | None:
        """The earliest and latest host time these ticks can map to, or None before any round trip."""
        return self._region.interval(ticks) if self._region is not None else None

    def estimate(self, ticks: int) -> tuple[float, float] | None:
        """(host time, error bound) in us, unrounded."""
        span = self.interval(ticks)
        if span is None:
            return None
        lo, hi = span
        return (lo + hi) / 2, (hi - lo) / 2

    def map(self, ticks: int) -> Mapped | None:
        """These ticks on the host timeline, rounded to the microsecond (the bound includes the rounding)."""
        estimate = self.estimate(ticks)
        if estimate is None:
            return None
        center, half = estimate
        t_us = round(center)
        return Mapped(t_us, math.ceil(half + abs(center - t_us)))

    def newest_bound_us(self) -> int | None:
        """The bound at the newest round trip kept: how precisely the clock is mapped now."""
        return self.bound_us(self._samples[-1][1]) if self._samples and self._region is not None else None

    def bound_us(self, ticks: int) -> int | None:
        mapped = self.map(ticks)
        return mapped.bound_us if mapped else None


class MonotonicMapper:
    """Maps one board's ticks so that a later tick never lands before an earlier one, even when the
    fit moves between the two (ties stay ties: equal ticks map to the same time).

    It remembers the last `memory` mapped points and clamps a new one between its neighbours;
    the bound grows by however far the clamp moved the estimate, so it stays honest.
    """

    def __init__(self, sync: ClockSync, memory: int = 256) -> None:
        self.sync = sync
        self.memory = memory
        self._ticks: list[int] = []
        self._times: list[int] = []

    def map(self, ticks: int) -> Mapped | None:
        estimate = self.sync.estimate(ticks)
        if estimate is None:
            return None
        center, half = estimate
        k = bisect_left(self._ticks, ticks)
        if k < len(self._ticks) and self._ticks[k] == ticks:
            t_us = self._times[k]
            return Mapped(t_us, math.ceil(half + abs(center - t_us)))
        t_us = round(center)
        if k > 0:
            t_us = max(t_us, self._times[k - 1])
        if k < len(self._times):
            t_us = min(t_us, self._times[k])
        self._ticks.insert(k, ticks)
        self._times.insert(k, t_us)
        if len(self._ticks) > self.memory:
            del self._ticks[0], self._times[0]
        return Mapped(t_us, math.ceil(half + abs(center - t_us)))
