"""The round keeper: between the press sources and the table.

It watches the log for an armed round, referees every press that arrives (mapped to a seat),
and when the decision is due it settles the round with one command carrying the referee's whole
decision. Presses shortly before the arm are kept, so a false start is caught even when it came
before the round opened on this side. A press that comes after the decision but inside the round's
window is no part of the decision; a game that lists every press of a round (one with a
`late_press` move) is sent it, with its time after the signal and behind the first press.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from companion.alarm import Alarm, Scheduler
from companion.buzzers import referee
from companion.buzzers.referee import RoundSpec, RoundState, TimedPress
from companion.buzzers.sources import Press
from companion.clock import Clock
from companion.games.base import SYSTEM, Command
from companion.games.reactions import ROUND_ARMED, ROUND_CANCELLED, ROUND_SETTLED
from companion.store import RecordedEvent
from companion.table.session import Table

log = logging.getLogger(__name__)

EARLY_WINDOW_US = 3_000_000
"""How far before an arm a press still counts as that round's false start."""
LATE_WINDOW_US = 1_000_000
"""Presses this soon after a round ended are late answers to it, not false starts of the next."""
LATE_PRESS = "late_press"
"""The command a game takes a press after its round's decision with (if it has such a move)."""


@dataclass(slots=True)
class Decided:
    """A race decided while its window is still open: who is listed already, and the times a later
    press is measured from."""

    round: int
    armed_at_us: int
    ends_us: int
    first_us: int
    listed: set[str]

    def row(self, press: TimedPress) -> dict[str, Any] | None:
        """The late press's row as the round's order has them, or None when it is no late press
        of this round (outside the window, or its contestant listed already)."""
        if press.who in self.listed or not self.armed_at_us <= press.t_us <= self.ends_us:
            return None
        return {**press.to_json(), "after_arm_us": press.t_us - self.armed_at_us,
                "gap_us": press.t_us - self.first_us}


class RoundKeeper:
    def __init__(self, table: Table, clock: Clock, scheduler: Scheduler,
                 extra_grace_us: Callable[[], int] = lambda: 0,
                 report_delay_us: Callable[[], int] = lambda: 0) -> None:
        self.table = table
        self.clock = clock
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
        self._decided: Decided | None = None
        """The last race, decided while its window is open: later presses are listed with it."""
        self._settling: RoundState | None = None
        """The round whose decision is being sent (the keeper lets go of it before the table hears)."""
        self._alarm = Alarm(clock, scheduler, self.settle_if_due)
        """One timer at a time: a press per contestant must not start a timer thread each."""
        table.observers.append(self.on_events)

    def resume(self) -> None:
        """After a restart, pick up a round that was armed and never settled: its presses before
        the stop are gone, so it ends as the referee finds it (usually "no reaction")."""
        run = self.table.run
        if run is None or run.ended:
            return
        open_round: Mapping[str, Any] | None = None
        for record in self.table.store.read(run.game_id):
            if record.type == ROUND_ARMED:
                open_round = record.data
            elif record.type in (ROUND_SETTLED, ROUND_CANCELLED):
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
            if event.type == ROUND_ARMED:
                self._open(event.data)
            elif event.type in (ROUND_SETTLED, ROUND_CANCELLED, "game_ended"):
                with self._lock:
                    self._decided = self._decided_from(event.data) if event.type == ROUND_SETTLED else None
                    self._settling = None
                    self.round, self.state = None, None
                    self._late_until_us = self.clock.now_us() + LATE_WINDOW_US

    def _decided_from(self, settled: Mapping[str, Any]) -> Decided | None:
        """What a late press of this settled race is measured against (None: no press may join it)."""
        run = self.table.run
        state = self.state or self._settling
        if state is None or run is None or LATE_PRESS not in run.definition.moves:
            return None
        spec = state.spec
        order = settled.get("decision", {}).get("order") or []
        if spec.mode != "race" or not order:
            return None
        listed = {str(row["who"]) for row in order}
        if spec.penalty == "lockout_round":
            listed |= {p.who for p in state.false_starts}
        return Decided(int(settled["round"]), spec.armed_at_us, spec.armed_at_us + spec.window_us,
                       min(int(row["t_us"]) for row in order), listed)

    def _open(self, data: Mapping[str, Any], wake: bool = True) -> None:
        grace = max(int(data["grace_us"]) + self.report_delay_us(), self.extra_grace_us())
        spec = RoundSpec(data["mode"], int(data["at_us"]), int(data["window_us"]), grace,
                         data["penalty"], int(data["lockout_us"]))
        with self._lock:
            state = referee.arm(spec)
            self._alarm.cancel()  # an old round's timer wakes nobody
            since = max(spec.armed_at_us - EARLY_WINDOW_US, self._late_until_us)
            for early in self._recent:
                if since <= early.t_us:
                    state = referee.press(state, early)
            self.round, self.state = int(data["round"]), state
            self._decided = None
        if wake:
            self._alarm.bring_forward(referee.due_at_us(state))

    def on_press(self, press: Press, seat: int) -> None:
        """A press of `seat`'s button (any thread)."""
        timed = TimedPress(f"seat:{seat}", press.t_us, press.uncertainty_us, press.source, press.clock,
                           press.local_ns)
        due: int | None = None
        late: tuple[int, dict[str, Any]] | None = None
        with self._lock:
            self._recent.append(timed)
            if self.state is None:
                late = self._late_row(timed)
            else:
                self.state = referee.press(self.state, timed)
                due = referee.due_at_us(self.state)
        if due is not None:
            self._alarm.bring_forward(due)  # a new timer only when the decision became due sooner
        elif late is not None:
            number, row = late
            outcome = self.table.handle(SYSTEM, Command(LATE_PRESS, {"round": number, "press": row}))
            if not outcome.ok:
                log.info("late press of round %s not listed: %s", number, outcome.rejection)

    def _late_row(self, timed: TimedPress) -> tuple[int, dict[str, Any]] | None:
        """A press after the last race's decision, within its window: its round and row (under the lock)."""
        if self._decided is None:
            return None
        row = self._decided.row(timed)
        if row is None:
            return None
        self._decided.listed.add(timed.who)
        return self._decided.round, row

    def settle_if_due(self, force: bool = False) -> None:
        with self._lock:
            if self.state is None or self.round is None:
                return
            now = referee.due_at_us(self.state) if force else self.clock.now_us()
            decision = referee.decide(self.state, now)
            if decision is None:
                # Not due yet (asked before the clock got there): try again when it is.
                due = referee.due_at_us(self.state)
            else:
                grace = self.state.spec.grace_us
                self._settling = self.state
                number, self.round, self.state = self.round, None, None
        if decision is None:
            self._alarm.bring_forward(due)
            return
        outcome = self.table.handle(SYSTEM, Command("settle", {
            "round": number, "decision": {**decision.to_json(), "grace_us": grace}}))
        if not outcome.ok:
            log.warning("round %s could not be settled: %s", number, outcome.rejection)
