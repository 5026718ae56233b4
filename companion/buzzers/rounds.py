"""The round keeper: between the press sources and the table.

It watches the log for an armed round, referees every press that arrives (mapped to a seat),
and when the decision is due it settles the round with one command carrying the referee's whole
decision. Presses shortly before the arm are kept, so a false start is caught even when it came
before the round opened on this side.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from companion.buzzers import referee
from companion.buzzers.referee import RoundSpec, RoundState, TimedPress
from companion.buzzers.sources import Press, Scheduler
from companion.clock import Clock
from companion.games.base import SYSTEM, Command
from companion.store import RecordedEvent
from companion.table.session import Table

log = logging.getLogger(__name__)

EARLY_WINDOW_US = 3_000_000
"""How far before an arm a press still counts as that round's false start."""
LATE_WINDOW_US = 1_000_000
"""Presses this soon after a round ended are late answers to it, not false starts of the next."""


class RoundKeeper:
    def __init__(self, table: Table, clock: Clock, scheduler: Scheduler,
                 extra_grace_us: Callable[[], int] = lambda: 0,
                 report_delay_us: Callable[[], int] = lambda: 0) -> None:
        self.table = table
        self.clock = clock
        self.schedule = scheduler
        self.extra_grace_us = extra_grace_us
        """How long a press may still be in flight when the round opens (the slowest phone)."""
        self.report_delay_us = report_delay_us
        """How long after its edge a wired press may reach the keeper (a source reports a press
        once the button stayed down): added to the game's grace, which counts from the edges."""
        self._lock = threading.RLock()
        self.round: int | None = None
        self.state: RoundState | None = None
        self._recent: deque[TimedPress] = deque(maxlen=256)
        self._late_until_us = 0
        self._wake_due_us: int | None = None
        self._wake_token: object = None
        table.observers.append(self.on_events)

    def resume(self) -> None:
        """After a restart, pick up a round that was armed and never settled: its presses before
        the stop are gone, so it ends as the referee finds it (usually "no reaction")."""
        run = self.table.run
        if run is None or run.ended:
            return
        open_round: Mapping[str, Any] | None = None
        for record in self.table.store.read(run.game_id):
            if record.type == "round_armed":
                open_round = record.data
            elif record.type in ("round_settled", "round_cancelled"):
                open_round = None
        if open_round is None:
            return
        log.info("resuming round %s armed before the restart", open_round["round"])
        start = int(open_round["at_us"])
        if not start <= self.clock.now_us() <= start + int(open_round["window_us"]):
            # Its window is over, or the machine rebooted (a new monotonic timeline): settle
            # now as the referee saw it when it was due.
            self._open(open_round, wake=False)
            self.settle_if_due(force=True)
        else:
            self._open(open_round)

    def on_events(self, events: tuple[RecordedEvent, ...]) -> None:
        for event in events:
            if event.type == "round_armed":
                self._open(event.data)
            elif event.type in ("round_settled", "round_cancelled", "game_ended"):
                with self._lock:
                    self.round, self.state = None, None
                    self._late_until_us = self.clock.now_us() + LATE_WINDOW_US

    def _open(self, data: Mapping[str, Any], wake: bool = True) -> None:
        grace = max(int(data["grace_us"]) + self.report_delay_us(), self.extra_grace_us())
        spec = RoundSpec(data["mode"], int(data["at_us"]), int(data["window_us"]), grace,
                         data["penalty"], int(data["lockout_us"]))
        with self._lock:
            state = referee.arm(spec)
            self._wake_due_us, self._wake_token = None, None  # an old round's timer wakes nobody
            since = max(spec.armed_at_us - EARLY_WINDOW_US, self._late_until_us)
            for early in self._recent:
                if since <= early.t_us:
                    state = referee.press(state, early)
            self.round, self.state = int(data["round"]), state
        if wake:
            self._wake_at(referee.due_at_us(state))

    def on_press(self, press: Press, seat: int) -> None:
        """A press of `seat`'s button (any thread)."""
        timed = TimedPress(f"seat:{seat}", press.t_us, press.uncertainty_us, press.source, press.clock,
                           press.local_ns)
        with self._lock:
            self._recent.append(timed)
            if self.state is None:
                return
            self.state = referee.press(self.state, timed)
            due = referee.due_at_us(self.state)
        self._wake_at(due)

    def _wake_at(self, due_us: int) -> None:
        """One timer at a time: a new one only when the decision became due sooner (each timer is
        a thread; a press per contestant must not start one each)."""
        with self._lock:
            if self._wake_due_us is not None and self._wake_due_us <= due_us:
                return
            self._wake_due_us = due_us
            token = self._wake_token = object()
        self.schedule(max(0.0, (due_us - self.clock.now_us()) / 1_000_000), lambda: self._woken(token))

    def _woken(self, token: object) -> None:
        with self._lock:
            if token is not self._wake_token:
                return  # superseded by a sooner timer, or by the next round's
            self._wake_due_us = None
        self.settle_if_due()

    def settle_if_due(self, force: bool = False) -> None:
        with self._lock:
            if self.state is None or self.round is None:
                return
            now = referee.due_at_us(self.state) if force else self.clock.now_us()
            decision = referee.decide(self.state, now)
            if decision is None:
                # Woken early (a timer fired before the clock got there): try again when due.
                due = referee.due_at_us(self.state)
            else:
                grace = self.state.spec.grace_us
                number, self.round, self.state = self.round, None, None
        if decision is None:
            self._wake_at(due)
            return
        outcome = self.table.handle(SYSTEM, Command("settle", {
            "round": number, "decision": {**decision.to_json(), "grace_us": grace}}))
        if not outcome.ok:
            log.warning("round %s could not be settled: %s", number, outcome.rejection)
