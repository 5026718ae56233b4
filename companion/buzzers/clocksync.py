"""Board ticks onto the host timeline, with an error bound that holds.

The host sends SYNC at host time t1 and gets the SYNC_REPLY at t4; the board read its ticks at
some moment between the two. So every round trip is a pair of certain facts about the mapping
`h(ticks)`: `t1 <= h(ticks) <= t4`. Over a short stretch the board's clock is a line
(an offset and a drift: a ceramic resonator runs up to ~0.33 % off, a crystal tens of ppm), so the
lines that respect every kept round trip form a convex polygon in (offset, drift) space. That
polygon *is* the fit: the estimate of a press's host time is the middle of the values the
polygon's lines give for its ticks, and the half-width of those values is the error bound. The
bound is not a statistic: it covers the real error whenever the round trips told the truth
(t1 stamped before the write, t4 after the read) and the drift stayed constant within `slack_us`.

Round trips far slower than the fastest recent ones (NTP/PX4 style min-RTT filtering) are dropped
first: they would add only loose constraints, and each kept one costs a little work. The fit
covers a rolling window (between `window_s` and twice that; rebuilt from the last `window_s` of
round trips when it reaches twice), so a slowly changing drift (a warming resonator) never leaves
an outdated line in charge; a round trip that no line fits any more restarts it from the longest
recent run that still fits.

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


class _Region:
    """The (offset u in us, drift e in ppm) pairs consistent with every round trip added to it.

    The mapping is `h(ticks) = host0 + dx_us + u + e * dx_s`, with dx measured from the first
    round trip's ticks at the nominal tick rate (ppm times seconds is microseconds).
    """

    def __init__(self, sample: Sample, tick_hz: int, max_ppm: float, slack_us: float) -> None:
        t1_us, ticks, t4_us = sample
        self.tick_hz = tick_hz
        self.slack_us = slack_us
        self.ticks0 = ticks
        self.host0 = t1_us
        self.first_ticks = self.last_ticks = ticks
        self.samples = 1
        lo, hi = -slack_us, (t4_us - t1_us) + slack_us
        self.poly: list[Point] = [(lo, -max_ppm), (hi, -max_ppm), (hi, max_ppm), (lo, max_ppm)]

    def span_s(self) -> float:
        return (self.last_ticks - self.first_ticks) / self.tick_hz

    def _dx(self, ticks: int) -> tuple[float, float]:
        dticks = ticks - self.ticks0
        return dticks * 1_000_000 / self.tick_hz, dticks / self.tick_hz

    def add(self, sample: Sample) -> bool:
        """Narrow the region by one round trip; False (and unchanged) when no line fits it too."""
        t1_us, ticks, t4_us = sample
        dx_us, dx_s = self._dx(ticks)
        lo = t1_us - self.host0 - dx_us - self.slack_us
        hi = t4_us - self.host0 - dx_us + self.slack_us
        poly = _clip(self.poly, 1.0, dx_s, hi)
        poly = _clip(poly, -1.0, -dx_s, -lo) if poly else poly
        if not poly:
            return False
        self.poly = poly
        self.samples += 1
        self.first_ticks = min(self.first_ticks, ticks)
        self.last_ticks = max(self.last_ticks, ticks)
        return True

    def interval(self, ticks: int) -> tuple[float, float]:
        """The earliest and latest host time (us) any consistent line gives these ticks."""
        dx_us, dx_s = self._dx(ticks)
        values = [u + e * dx_s for u, e in self.poly]
        base = self.host0 + dx_us
        return base + min(values), base + max(values)

    def drift_ppm(self) -> tuple[float, float]:
        drifts = [e for _, e in self.poly]
        return min(drifts), max(drifts)


@dataclass(frozen=True, slots=True)
class SyncStats:
    accepted: int
    rejected: int
    """Round trips dropped by the min-RTT filter (or impossible: t4 before t1)."""
    restarts: int
    """Times no line fitted the round trips any more (the drift changed) and the fit restarted."""
    min_rtt_us: int
    drift_ppm: float


class ClockSync:
    """Offset and drift of one board's clock from round trips, with an honest error bound.

    The fit uses the kept round trips of the last `window_s` to `2 * window_s` seconds: when it
    spans twice the window it is rebuilt from the last window's round trips alone.
    """

    def __init__(self, tick_hz: int = TICK_HZ, *, max_drift_ppm: float = 10_000, window_s: float = 15.0,
                 slack_us: float = 2.0, rtt_cap_us: int = 50_000, rtt_factor: float = 3.0,
                 rtt_margin_us: int = 1_500, min_samples: int = MIN_SAMPLES) -> None:
        if tick_hz <= 0:
            raise ValueError("tick_hz must be positive")
        self.tick_hz = tick_hz
        self.max_drift_ppm = max_drift_ppm
        """The prior: a ceramic resonator is within 0.5 %, so 1 % is safe."""
        self.window_s = window_s
        self.slack_us = slack_us
        """Covers the board's tick quantisation, its receive interrupt's latency and small drift changes."""
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
        horizon = ticks - int(2 * self.window_s * self.tick_hz)
        while self._samples and self._samples[0][1] < horizon:
            self._samples.popleft()
        if self._region is None:
            self._region = self._new_region(sample)
        elif not self._region.add(sample):
            # No line fits any more: the drift moved by more than the slack. Keep the longest
            # run of recent round trips that still fits.
            self.restarts += 1
            self._region = self._rebuild(2 * self.window_s)
        elif self._region.span_s() >= 2 * self.window_s:
            self._region = self._rebuild(self.window_s)
        return True

    def _new_region(self, sample: Sample) -> _Region:
        return _Region(sample, self.tick_hz, self.max_drift_ppm, self.slack_us)

    def _rebuild(self, span_s: float) -> _Region:
        """A region from the newest round trip back, over `span_s` at most, stopping at the
        first older one that no longer fits."""
        newest = self._samples[-1]
        region = self._new_region(newest)
        oldest = newest[1] - int(span_s * self.tick_hz)
        for sample in reversed(list(self._samples)[:-1]):
            if sample[1] < oldest or not region.add(sample):
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
