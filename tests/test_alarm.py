"""The one-shot alarm (companion/alarm.py) on a clock the test moves and a scheduler whose timers
fire when the test says, early ones included: it rings once at its time, a new time supersedes the
old, a timer that wakes too early sleeps again, and a cancelled alarm stays quiet. And the one
thread that keeps the service's timers."""

from __future__ import annotations

import threading
from collections.abc import Callable

from companion.alarm import Alarm, TimerThread
from tests.conftest import Later, ManualClock


def delays(timers: Later) -> list[float]:
    """The delays of the timers asked for and not fired yet."""
    return [delay for delay, _ in timers.pending]


class Bench:
    def __init__(self) -> None:
        self.clock = ManualClock(start_us=1_000_000)
        self.timers = Later()
        self.rings: list[int] = []
        self.alarm = Alarm(self.clock, self.timers, lambda: self.rings.append(self.clock.now_us()))

    def at(self, t_us: int) -> None:
        """The clock reaches `t_us`, then every pending timer fires."""
        self.clock.advance(t_us - self.clock.now_us())
        self.timers.run()  # every timer fires now, as early as it can be


def test_it_rings_once_at_its_time() -> None:
    bench = Bench()
    bench.alarm.set(1_500_000)
    assert delays(bench.timers) == [0.5] and bench.alarm.due_us == 1_500_000
    bench.at(1_500_000)
    assert bench.rings == [1_500_000] and bench.alarm.due_us is None
    bench.at(2_000_000)
    assert bench.rings == [1_500_000], "once"


def test_woken_early_it_sleeps_for_the_rest() -> None:
    bench = Bench()
    bench.alarm.set(1_500_000)
    bench.at(1_200_000)
    assert bench.rings == [] and delays(bench.timers) == [0.3]
    bench.at(1_499_999)
    assert bench.rings == [] and delays(bench.timers) == [0.000001]
    bench.at(1_500_000)
    assert bench.rings == [1_500_000]


def test_a_new_time_supersedes_the_old_one_sooner_or_later() -> None:
    bench = Bench()
    bench.alarm.set(1_500_000)
    bench.alarm.set(3_000_000)
    bench.at(1_500_000)
    assert bench.rings == [], "the first timer wakes nobody"
    assert delays(bench.timers) == [1.5], "the second one still sleeps (it woke early)"
    bench.alarm.set(2_000_000)
    bench.at(2_000_000)
    assert bench.rings == [2_000_000]
    bench.at(3_000_000)
    assert bench.rings == [2_000_000], "the superseded 3 s timer wakes nobody"


def test_bring_forward_moves_it_only_sooner() -> None:
    bench = Bench()
    bench.alarm.bring_forward(2_000_000)
    bench.alarm.bring_forward(2_500_000)
    bench.alarm.bring_forward(2_000_000)
    assert delays(bench.timers) == [1.0], "one timer for the same or a later time"
    bench.alarm.bring_forward(1_400_000)
    assert delays(bench.timers) == [1.0, 0.4] and bench.alarm.due_us == 1_400_000
    bench.at(1_400_000)
    assert bench.rings == [1_400_000]
    bench.at(2_000_000)
    assert bench.rings == [1_400_000]
    bench.alarm.bring_forward(2_500_000)
    assert bench.alarm.due_us == 2_500_000, "after it rang, any time sets it"


def test_cancelled_it_stays_quiet() -> None:
    bench = Bench()
    bench.alarm.set(1_500_000)
    bench.alarm.cancel()
    assert bench.alarm.due_us is None
    bench.at(1_500_000)
    bench.at(1_500_000)
    assert bench.rings == [] and bench.timers.pending == []


def test_a_time_already_past_rings_at_once_and_the_ring_may_set_it_again() -> None:
    bench = Bench()
    bench.alarm = Alarm(bench.clock, bench.timers, lambda: (bench.rings.append(bench.clock.now_us()),
                                                            bench.alarm.set(bench.clock.now_us() + 100_000)))
    bench.alarm.set(500_000)
    assert delays(bench.timers) == [0.0]
    bench.timers.run()
    assert bench.rings == [1_000_000] and bench.alarm.due_us == 1_100_000
    bench.at(1_100_000)
    assert bench.rings == [1_000_000, 1_100_000]


def test_the_timer_thread_runs_every_timer_in_time_order_on_one_thread() -> None:
    """The service's timers: one thread however many are set, each action once, soonest first, and
    a failing action does not stop the next."""
    timers = TimerThread("test-timers")
    ran: list[tuple[str, str]] = []
    done = threading.Event()
    before = threading.active_count()

    def note(name: str) -> Callable[[], None]:
        return lambda: ran.append((name, threading.current_thread().name))

    def fail() -> None:
        raise RuntimeError("a broken action")

    # The thread starts with the first timer; the times below are then set a few microseconds
    # apart, and 0.2 s between them keeps their order whatever else the machine does meanwhile.
    timers(0.0, lambda: None)
    timers(0.6, note("third"))
    timers(0.2, note("first"))
    timers(0.4, fail)
    timers(0.4, note("second"))
    for _ in range(200):
        timers(0.01, lambda: None)  # superseded alarms' timers, firing for nothing
    timers(0.8, done.set)
    assert threading.active_count() <= before + 1
    assert done.wait(5)
    assert ran == [("first", "test-timers"), ("second", "test-timers"), ("third", "test-timers")]
    assert len(timers) == 0
