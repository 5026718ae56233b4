"""A one-shot alarm on the host timeline, and the scheduler seam it (and the GPIO source) wakes by.

The table's timekeeper and the buzzers' round keeper both need the same thing: "ring once at time
T; a new time supersedes the old one; cancel". A scheduler only promises to call back after a
delay, and a timer thread may wake a little early (or the clock in a test may not have got there
yet), so an alarm woken before its time sleeps again for the rest instead of ringing. A superseded
or cancelled alarm's timer still fires, and wakes nobody: timers are never stopped, only outdated.
A ring runs with no lock held, so a `set` may cross it: `due_us` is then set again, which the code
that rings can read to leave the ring to the newer time.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from companion.clock import Clock

log = logging.getLogger(__name__)

Scheduler = Callable[[float, Callable[[], None]], Any]
"""Calls a function after a delay in seconds (a TimerThread in the service; a fake in tests)."""


WAKE_EARLY_S = 0.0005
"""A thread the kernel wakes at a time runs 0.15-0.3 ms after it on the machine we develop on (a
virtual one; an idle core's way back to work): the timer thread wakes this much earlier and waits
out the rest awake, so a round's decision leaves at its time. Measured there, 300 timers of 3 ms:
0.25 ms late (p50) without, 0.13 ms with."""


class TimerThread:
    """A scheduler whose timers one thread keeps: it sleeps until the soonest, then runs it.

    Alarms are set many times a second (every round armed, every press, every deadline), and a
    superseded timer is left to fire for nothing. `threading.Timer` starts a thread for each: the
    soak counted some 8,000 an evening's half hour, each with its stack and its own caches in the
    allocator, whose memory crept. Actions run one after the other on this thread, so they must
    be short (an alarm's ring is one command to the table).
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._changed = threading.Condition()
        self._timers: list[tuple[float, int, Callable[[], None]]] = []
        self._order = itertools.count()
        """Timers due at the same moment run in the order they were set."""
        self._thread: threading.Thread | None = None

    def __call__(self, delay_s: float, action: Callable[[], None]) -> None:
        with self._changed:
            heapq.heappush(self._timers, (time.monotonic() + delay_s, next(self._order), action))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
            self._changed.notify()

    def __len__(self) -> int:
        """Timers not run yet."""
        with self._changed:
            return len(self._timers)

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._timers or self._timers[0][0] - WAKE_EARLY_S > time.monotonic():
                    self._changed.wait(self._timers[0][0] - WAKE_EARLY_S - time.monotonic() if self._timers else None)
                when, _, action = heapq.heappop(self._timers)
            while time.monotonic() < when:
                time.sleep(0)  # the rest, a few hundred microseconds, with Python's lock let go each turn
            try:
                action()
            except Exception:  # one failing action must not stop the others' timers
                log.exception("a timer's action failed")


def handed_over(scheduler: Scheduler, make: Callable[[Callable[[], None]], None]) -> Scheduler:
    """`scheduler`, whose actions `make` runs when their time comes (it may take them to another
    thread: the table's changes go where its pages are kept, Broadcaster.make_change)."""
    return lambda delay_s, action: scheduler(delay_s, lambda: make(action))


timer_scheduler = TimerThread("timers")
"""The service's alarms (the table's deadlines, its clock marks, the round keeper)."""


class Alarm:
    """Calls `ring` once when `clock` reaches the time last `set`, from the scheduler's thread.

    Every method may be called from any thread; `ring` is called with no lock of the alarm held,
    so it may set the alarm again.
    """

    def __init__(self, clock: Clock, scheduler: Scheduler, ring: Callable[[], None]) -> None:
        self._clock = clock
        self._schedule = scheduler
        self._ring = ring
        self._lock = threading.Lock()
        self._token: object = None
        self._due_us: int | None = None

    @property
    def due_us(self) -> int | None:
        """When it will ring, or None when it is not set."""
        with self._lock:
            return self._due_us

    def set(self, at_us: int) -> None:
        """Ring at `at_us` (at once if that has passed), instead of any time set before."""
        self._arm(at_us, only_sooner=False)

    def bring_forward(self, at_us: int) -> None:
        """Ring at `at_us` if that is sooner than the time set (or none is): one timer at a
        time, however many callers each want it by their own time."""
        self._arm(at_us, only_sooner=True)

    def _arm(self, at_us: int, only_sooner: bool) -> None:
        with self._lock:
            if only_sooner and self._due_us is not None and self._due_us <= at_us:
                return
            token = self._token = object()
            self._due_us = at_us
        self._sleep(token, at_us)

    def cancel(self) -> None:
        with self._lock:
            self._token, self._due_us = None, None

    def _sleep(self, token: object, at_us: int) -> None:
        self._schedule(max(0.0, (at_us - self._clock.now_us()) / 1_000_000), lambda: self._woken(token))

    def _woken(self, token: object) -> None:
        with self._lock:
            if token is not self._token:
                return  # superseded or cancelled: another timer (or none) is in charge
            due = self._due_us
            assert due is not None, "a current token always has its time"
            early = self._clock.now_us() < due
            if not early:
                self._token, self._due_us = None, None
        if early:
            self._sleep(token, due)  # woken before the clock got there: sleep for the rest
            return
        self._ring()
