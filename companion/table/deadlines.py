"""The timekeeper: sends the command a game waits for when a player lets a choice run out.

Rules are pure, so they cannot start a timer: a game says what is due and when (its `deadline`),
and this I/O-side component sends that command as the system once the time has come. The game
checks the command like any other (a stale one, for a wait already over, is refused and changes
nothing), so a timer that fires late or twice is harmless. After a restart the wait is picked up
from the log; after a reboot the host timeline starts again, and the wait is then given in full.
"""

from __future__ import annotations

import logging
import threading

from companion.alarm import Alarm, Scheduler
from companion.clock import Clock
from companion.games.base import SYSTEM, Deadline
from companion.store import RecordedEvent
from companion.table.session import Table

log = logging.getLogger(__name__)


def due_us(deadline: Deadline, now_us: int) -> int:
    """When the deadline falls on today's timeline (a reboot restarts the monotonic clock)."""
    return deadline.at_us if deadline.since_us <= now_us else full_wait_from(deadline, now_us)


def full_wait_from(deadline: Deadline, now_us: int) -> int:
    """The deadline with its whole wait given again from now (after a reboot, or a pause)."""
    return now_us + max(0, deadline.at_us - deadline.since_us)


class Timekeeper:
    def __init__(self, table: Table, clock: Clock, scheduler: Scheduler) -> None:
        self.table = table
        self.clock = clock
        self._alarm = Alarm(clock, scheduler, self._ring)
        self._lock = threading.Lock()
        self.pending: Deadline | None = None
        self._held = False
        table.observers.append(self.on_events)

    def resume(self) -> None:
        """At start: the current game may have been waiting when the service stopped."""
        self.on_events(())

    def on_events(self, events: tuple[RecordedEvent, ...]) -> None:
        run = self.table.run
        deadline = None if run is None or run.ended else run.definition.deadline(run.state)
        now = self.clock.now_us()
        resumed = any(e.type == "table_resumed" for e in events)
        with self._lock:
            if deadline == self.pending and not (resumed and self._held):
                return
            self.pending = deadline
            if deadline is None:
                self._alarm.cancel()
            elif resumed and self._held:
                # A choice cannot run out while the table is paused: the wait starts again.
                self._alarm.set(full_wait_from(deadline, now))
            else:
                self._alarm.set(due_us(deadline, now))
            self._held = False

    def _ring(self) -> None:
        with self._lock:
            if self._alarm.due_us is not None:
                return  # set again as it rang: the game moved on, the new wait is in charge
            deadline = self.pending
        if deadline is None:
            return  # the game moved on before the time ran out
        if self.table.state.paused:
            with self._lock:
                self._held = True  # taken up again when the table resumes
            return
        outcome = self.table.handle(SYSTEM, deadline.command)
        if not outcome.ok:
            log.info("deadline %s not applied: %s", deadline.command.name, outcome.rejection)
