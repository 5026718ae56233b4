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
from companion.buzzers.sources import Press
from companion.clock import Clock
from companion.games.base import SYSTEM, Command
from companion.store import RecordedEvent
from companion.table.session import Table

log = logging.getLogger(__name__)

EARLY_WINDOW_US = 3_000_000
"""How far before an arm a press still counts as that round's false start."""

Scheduler = Callable[[float, Callable[[], None]], Any]


class RoundKeeper:
    def __init__(self, table: Table, clock: Clock, scheduler: Scheduler,
                 seat_for_button: Callable[[str], int | None]) -> None:
        self.table = table
        self.clock = clock
        self.schedule = scheduler
        self.seat_for_button = seat_for_button
        self._lock = threading.RLock()
        self.round: int | None = None
        self.state: RoundState | None = None
        self._recent: deque[TimedPress] = deque(maxlen=256)
        self.unmapped: deque[Press] = deque(maxlen=32)
        """Presses of buttons that belong to no seat (shown to the host for pairing)."""
        table.observers.append(self.on_events)

    def on_events(self, events: tuple[RecordedEvent, ...]) -> None:
        for event in events:
            if event.type == "round_armed":
                self._open(event.data)
            elif event.type in ("round_settled", "round_cancelled", "game_ended"):
                with self._lock:
                    self.round, self.state = None, None

    def _open(self, data: Mapping[str, Any]) -> None:
        spec = RoundSpec(data["mode"], int(data["at_us"]), int(data["window_us"]), int(data["grace_us"]),
                         data["penalty"], int(data["lockout_us"]))
        with self._lock:
            state = referee.arm(spec)
            for early in self._recent:
                if spec.armed_at_us - EARLY_WINDOW_US <= early.t_us:
                    state = referee.press(state, early)
            self.round, self.state = int(data["round"]), state
        self._wake_at(referee.due_at_us(state))

    def on_press(self, press: Press) -> None:
        """A source's press (any thread)."""
        seat = self.seat_for_button(press.button)
        if seat is None:
            self.unmapped.append(press)
            log.info("press of unpaired button %s", press.button)
            return
        timed = TimedPress(f"seat:{seat}", press.t_us, press.uncertainty_us, press.source)
        with self._lock:
            self._recent.append(timed)
            if self.state is None:
                return
            self.state = referee.press(self.state, timed)
            due = referee.due_at_us(self.state)
        self._wake_at(due)

    def _wake_at(self, due_us: int) -> None:
        self.schedule(max(0.0, (due_us - self.clock.now_us()) / 1_000_000), self.settle_if_due)

    def settle_if_due(self) -> None:
        with self._lock:
            if self.state is None or self.round is None:
                return
            decision = referee.decide(self.state, self.clock.now_us())
            if decision is None:
                # Woken early (a timer fired before the clock got there): try again when due.
                due = referee.due_at_us(self.state)
            else:
                number, self.round, self.state = self.round, None, None
        if decision is None:
            self._wake_at(due)
            return
        outcome = self.table.handle(SYSTEM, Command("settle", {"round": number, "decision": decision.to_json()}))
        if not outcome.ok:
            log.warning("round %s could not be settled: %s", number, outcome.rejection)
