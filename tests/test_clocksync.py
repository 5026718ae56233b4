"""Board ticks onto the host timeline: a simulated USB link with jitter, outliers, and a drift that
may move (a resonator warming up)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.buzzers.clocksync import (
    MAX_DRIFT_CHANGE_PPM_PER_MIN,
    ClockSync,
    Mapped,
    MonotonicMapper,
    TickUnwrapper,
    sync_interval_s,
)
from companion.sim.boardclock import drifting_ticks, usb_delay
from companion.sim.presses import percentile

TICK_HZ = 16_000_000
HOST0_US = 7_000_000_000  # a Pi up for two hours


@dataclass
class Board:
    """A board clock: 16 MHz nominal, off by `drift_ppm` at HOST0_US and by `ramp_ppm_per_min` more
    every minute after (a resonator warming up), whose 32-bit ticks wrap `wrap_after_s` into the run."""

    drift_ppm: float
    wrap_after_s: float = 30.0
    ramp_ppm_per_min: float = 0.0
    tick0: int = field(init=False)

    def __post_init__(self) -> None:
        self.tick0 = (1 << 32) - int(self.wrap_after_s * TICK_HZ)

    def ticks(self, host_us: float) -> int:
        """The unwrapped tick count at a host time (what the 32-bit field is the low bits of): 16 per
        us, times 1 + the drift, which is integrated (it changes linearly with time)."""
        return drifting_ticks(self.tick0, self.drift_ppm, self.ramp_ppm_per_min, host_us - HOST0_US)


def sync_times(duration_s: float) -> list[float]:
    """The source's schedule: a warm-up burst, a faster pace for a few seconds, then ten a second."""
    times = [float(HOST0_US)]
    while times[-1] < HOST0_US + duration_s * 1e6:
        times.append(times[-1] + sync_interval_s(len(times), (times[-1] - HOST0_US) / 1e6) * 1e6)
    return times


@dataclass(frozen=True)
class Outcome:
    true_us: float
    mapped: Mapped

    @property
    def error(self) -> float:
        return abs(self.mapped.t_us - self.true_us)

    @property
    def covered(self) -> bool:
        return self.error <= self.mapped.bound_us


def simulate(drift_ppm: float, seed: int, duration_s: float = 90.0, ramp_ppm_per_min: float = 0.0) -> list[Outcome]:
    """Round trips and presses as the source sees them, in the order their answers arrive. A press
    reaches the host 5 ms (confirmation) plus a USB delay after its edge; presses seen before the
    fit exists wait for it, as the source keeps them."""
    rng = random.Random(seed)
    board = Board(drift_ppm, ramp_ppm_per_min=ramp_ppm_per_min)
    arrivals: list[tuple[float, str, tuple[float, ...]]] = []
    for t1 in sync_times(duration_s):
        t1 = float(round(t1 + rng.uniform(0, 200)))  # the host's timer is not exact either
        read_at = t1 + usb_delay(rng)
        t4 = float(math.ceil(read_at + usb_delay(rng)))
        arrivals.append((t4, "sync", (t1, board.ticks(read_at), t4)))
    edge = HOST0_US - 50_000.0  # the first press comes before the first round trip
    while edge < HOST0_US + duration_s * 1e6:
        arrivals.append((edge + 5_000 + usb_delay(rng), "press", (edge, board.ticks(edge))))
        edge += rng.uniform(20_000, 400_000)
    arrivals.sort(key=lambda a: a[0])
    sync = ClockSync(TICK_HZ)
    mapper = MonotonicMapper(sync)
    unwrap = TickUnwrapper()
    waiting: list[tuple[float, int]] = []
    outcomes: list[Outcome] = []
    for _, kind, data in arrivals:
        if kind == "sync":
            t1, ticks, t4 = data
            sync.add(int(t1), unwrap.unwrap(int(ticks) & 0xFFFF_FFFF), int(t4))
        else:
            waiting.append((data[0], unwrap.unwrap(int(data[1]) & 0xFFFF_FFFF)))
        if sync.synced:
            for true_us, ticks in waiting:
                mapped = mapper.map(ticks)
                assert mapped is not None
                outcomes.append(Outcome(true_us, mapped))
            waiting = []
    return outcomes


def test_sync_error_and_its_bound_over_a_jittery_usb_link() -> None:
    warm_up_us = HOST0_US + 1_000_000
    print()
    print(f"{'drift ppm':>10} {'presses':>8} {'err p50':>8} {'err p99':>8} {'err max':>8} "
          f"{'bound p50':>9} {'bound p99':>9} {'covered':>8}")
    for drift in (-3300, -40, 0, 40, 3300):
        outcomes = simulate(drift, seed=int(drift) + 10_000)
        after = [o for o in outcomes if o.true_us >= warm_up_us]
        errors = [o.error for o in after]
        bounds = [float(o.mapped.bound_us) for o in after]
        covered = sum(o.covered for o in outcomes) / len(outcomes)
        print(f"{drift:>10} {len(outcomes):>8} {percentile(errors, 50):>8.1f} {percentile(errors, 99):>8.1f} "
              f"{max(errors):>8.1f} {percentile(bounds, 50):>9.0f} {percentile(bounds, 99):>9.0f} "
              f"{covered:>8.2%}")
        assert percentile(errors, 99) <= 100, f"p99 error at {drift} ppm"
        assert covered >= 0.99, f"the bound must cover the error at {drift} ppm"
        times = [o.mapped.t_us for o in sorted(outcomes, key=lambda o: o.true_us)]
        assert times == sorted(times), "later presses never map earlier"


@dataclass(frozen=True)
class Figures:
    """One condition's presses: the error after the first second, the bound, the presses it missed."""

    presses: int
    err_p50: float
    err_p99: float
    err_max: float
    bound_p50: float
    bound_p99: float
    uncovered: int

    def row(self, label: str) -> str:
        return (f"{label:>22} {self.presses:>8} {self.err_p50:>8.1f} {self.err_p99:>8.1f} {self.err_max:>8.1f} "
                f"{self.bound_p50:>9.0f} {self.bound_p99:>9.0f} {self.uncovered:>9}")


FIGURES_HEAD = (f"{'board clock':>22} {'presses':>8} {'err p50':>8} {'err p99':>8} {'err max':>8} "
                f"{'bound p50':>9} {'bound p99':>9} {'uncovered':>9}")


def figures(outcomes: list[Outcome]) -> Figures:
    after = [o for o in outcomes if o.true_us >= HOST0_US + 1_000_000]
    errors = [o.error for o in after]
    bounds = [float(o.mapped.bound_us) for o in after]
    return Figures(len(outcomes), percentile(errors, 50), percentile(errors, 99), max(errors),
                   percentile(bounds, 50), percentile(bounds, 99), sum(not o.covered for o in outcomes))


SEEDS_PER_CONDITION = 8


def pooled(drift_ppm: float, ramp_ppm_per_min: float = 0.0, duration_s: float = 90.0) -> list[Outcome]:
    """The presses of several seeded runs of one board clock, each checked for order on the way."""
    outcomes: list[Outcome] = []
    for k in range(SEEDS_PER_CONDITION):
        run = simulate(drift_ppm, seed=20_000 + 97 * k + int(drift_ppm) + int(ramp_ppm_per_min),
                       duration_s=duration_s, ramp_ppm_per_min=ramp_ppm_per_min)
        times = [o.mapped.t_us for o in sorted(run, key=lambda o: o.true_us)]
        assert times == sorted(times), f"later presses never map earlier ({drift_ppm} ppm, seed {k})"
        outcomes += run
    return outcomes


def check_every_press(conditions: dict[str, list[Outcome]]) -> None:
    """Prints each condition's figures, then holds every one to the issue's terms: the stated bound
    covers the true error of every press (warm-up included), and the error's p99 is 100 us at most."""
    print()
    print(FIGURES_HEAD)
    found = {label: figures(outcomes) for label, outcomes in conditions.items()}
    for label, f in found.items():
        print(f.row(label))
    for label, f in found.items():
        assert f.uncovered == 0, f"{label}: the bound missed the true error of {f.uncovered} of {f.presses} presses"
        assert f.err_p99 <= 100, f"{label}: p99 error {f.err_p99:.1f} us"


def test_a_resonator_off_by_half_a_percent_is_mapped_within_its_bound_every_time() -> None:
    check_every_press({f"{drift:+d} ppm": pooled(drift) for drift in (-5000, -1000, 0, 1000, 5000)})


def test_a_resonator_warming_up_at_100_ppm_a_minute_is_mapped_within_its_bound_every_time() -> None:
    check_every_press({f"{drift:+d} ppm {ramp:+d}/min": pooled(drift, ramp)
                       for drift, ramp in ((3000, 100), (3000, -100), (-5000, -100), (0, 100))})


def test_the_fit_follows_a_warming_board_without_forgetting_a_round_trip() -> None:
    """A drift moving within the prior never breaks the fit (no restart), and the drift it reports
    is the board's of the last seconds, not of the window's start."""
    for drift, ramp in ((3000, 100), (-5000, -100)):
        rng = random.Random(drift + ramp)
        board = Board(drift, ramp_ppm_per_min=ramp)
        sync = ClockSync(TICK_HZ)
        for t1 in sync_times(120.0):
            read = t1 + usb_delay(rng)
            sync.add(int(t1), board.ticks(read), math.ceil(read + usb_delay(rng)))
            if t1 >= HOST0_US + 10_000_000:
                now = (drift + ramp * (t1 - HOST0_US) / 60e6) * 1e-6
                # h(ticks) runs 1 / (1 + drift) host seconds per nominal board second
                assert abs(sync.stats().drift_ppm + now / (1 + now) * 1e6) <= 25, f"{drift} ppm {ramp:+}/min"
        assert sync.stats().restarts == 0


def test_the_press_seen_before_the_first_round_trip_is_kept_and_mapped_honestly() -> None:
    outcomes = simulate(3300, seed=3, duration_s=2.0)
    first = min(outcomes, key=lambda o: o.true_us)
    assert first.true_us < HOST0_US and first.covered


@settings(max_examples=200, deadline=None)
@given(drift=st.floats(-9000, 9000), offset=st.integers(0, 2**40), seed=st.integers(0, 2**32),
       count=st.integers(1, 60), spacing_ms=st.floats(1, 2000))
def test_the_bound_holds_whatever_the_delays(drift: float, offset: int, seed: int, count: int,
                                            spacing_ms: float) -> None:
    """Every round trip tells the truth (t1 <= read <= t4), so the truth is always inside the fit."""
    rng = random.Random(seed)
    sync = ClockSync(TICK_HZ, rtt_cap_us=10**9, rtt_margin_us=10**9)  # keep everything: only the bound is tested

    def ticks_at(host_us: float) -> int:
        return offset + math.floor((host_us - HOST0_US) * 16 * (1 + drift * 1e-6))

    t = float(HOST0_US)
    for _ in range(count):
        t1 = t
        read = t1 + rng.expovariate(1 / 500)
        t4 = math.ceil(read + rng.expovariate(1 / 500))
        sync.add(int(t1), ticks_at(read), t4)
        t = t4 + spacing_ms * 1000
    for host_us in (HOST0_US - 1e6, HOST0_US, t / 2 + HOST0_US / 2, t, t + 3e6):
        span = sync.interval(ticks_at(host_us))
        assert span is not None
        assert span[0] - 1 <= host_us <= span[1] + 1  # 1 us: a tick is 62.5 ns, floor()ed


@settings(max_examples=200, deadline=None)
@given(drift=st.floats(-9000, 9000),
       ramp=st.floats(-MAX_DRIFT_CHANGE_PPM_PER_MIN, MAX_DRIFT_CHANGE_PPM_PER_MIN), seed=st.integers(0, 2**32),
       count=st.integers(1, 400), spacing_ms=st.floats(1, 1000), query_s=st.floats(-5, 5))
def test_the_bound_holds_whatever_the_delays_while_the_drift_changes_as_fast_as_the_prior_allows(
        drift: float, ramp: float, seed: int, count: int, spacing_ms: float, query_s: float) -> None:
    """How fast the drift may change is part of the prior: within it, the truth stays inside the
    fit, at the round trips, between them, long before them and seconds after them."""
    rng = random.Random(seed)
    sync = ClockSync(TICK_HZ, rtt_cap_us=10**9, rtt_margin_us=10**9)
    board = Board(drift, ramp_ppm_per_min=ramp)
    t = float(HOST0_US)
    for _ in range(count):
        t1 = t
        read = t1 + rng.expovariate(1 / 300)
        t4 = math.ceil(read + rng.expovariate(1 / 300))
        sync.add(int(t1), board.ticks(read), t4)
        t = t4 + spacing_ms * 1000
    for host_us in (HOST0_US, (t + HOST0_US) / 2, t - 500_000, t, t + query_s * 1e6):
        span = sync.interval(board.ticks(host_us))
        assert span is not None
        assert span[0] - 1 <= host_us <= span[1] + 1  # 1 us: a tick is 62.5 ns, floor()ed


def test_slow_round_trips_are_dropped_by_the_min_rtt_filter() -> None:
    sync = ClockSync(TICK_HZ)
    assert sync.add(1_000, 0, 1_100)
    assert not sync.add(2_000_000, 16_000_000 * 2, 2_000_000 + 5_000), "50 times slower than the best"
    assert not sync.add(3_000_000, 16_000_000 * 3, 3_000_000 - 1), "an answer before the question"
    assert sync.stats().accepted == 1 and sync.stats().rejected == 2


def test_a_changed_drift_restarts_the_fit_instead_of_trusting_an_old_line() -> None:
    sync = ClockSync(TICK_HZ, slack_us=1)
    for k in range(50):  # 5 s at exactly 16 MHz
        host = HOST0_US + k * 100_000
        sync.add(host, k * 1_600_000, host + 20)
    # then the board suddenly runs 500 ppm fast: 5 s on, it is 2.5 ms ahead of the old line
    for k in range(1, 30):
        host = HOST0_US + 5_000_000 + k * 100_000
        sync.add(host, 80_000_000 + round(k * 1_600_000 * 1.0005), host + 20)
    assert sync.stats().restarts >= 1
    mapped = sync.map(80_000_000 + round(30 * 1_600_000 * 1.0005))
    assert mapped is not None and abs(mapped.t_us - (HOST0_US + 8_000_000)) <= mapped.bound_us


def test_unwrapping_crosses_the_32_bit_wrap_and_takes_older_values_in_stride() -> None:
    unwrap = TickUnwrapper()
    assert unwrap.unwrap(0xFFFF_FF00) == 0xFFFF_FF00
    assert unwrap.unwrap(0x0000_0100) == 0x1_0000_0100, "wrapped forwards"
    assert unwrap.unwrap(0xFFFF_FFF0) == 0xFFFF_FFF0, "an event's older ticks, from before the wrap"
    assert unwrap.latest == 0x1_0000_0100
    assert unwrap.unwrap(0x8000_0000) == 0x1_8000_0000
    assert unwrap.unwrap(0xF000_0000) == 0x1_F000_0000
    assert unwrap.unwrap(0x0000_0010) == 0x2_0000_0010


def test_a_refit_between_two_presses_never_maps_the_later_one_earlier() -> None:
    sync = ClockSync(TICK_HZ)
    for k in range(5):  # loose round trips: the fit is wide
        sync.add(HOST0_US + k * 10_000, k * 160_000 + 8_000, HOST0_US + k * 10_000 + 1_000)
    mapper = MonotonicMapper(sync)
    first = mapper.map(1_000_000)
    assert first is not None
    # A tight round trip says the board runs later than the middle of the wide fit thought.
    sync.add(HOST0_US + 62_400, 1_000_000, HOST0_US + 62_410)
    direct = sync.map(1_000_001)
    later = mapper.map(1_000_001)
    assert direct is not None and later is not None
    assert later.t_us >= first.t_us
    tie = mapper.map(1_000_000)
    assert tie is not None and tie.t_us == first.t_us, "equal ticks map to the same time"
    assert later.bound_us >= direct.bound_us + abs(direct.t_us - later.t_us) - 1
