"""A game clock that runs in real time survives a restart: the sand glass of La chasse au vampire.

Rules are pure, so a game's glass is its log: when it was set running and with how much sand.
What the log cannot hold is when the service stopped (a crash, a power cut leaves no last word).
While a game's clock runs (`GameDefinition.runs_in_real_time`), this keeper marks the time every
half second in a small file of the data folder; at start, if the game still runs, it tells the
game when the service was last alive (the system command `clock_outage`, `stopped_us`) so the
clock runs on from now with the time it had left then, never a fresh full glass and never time
eaten by the outage. The mark is on the timeline of the boot that wrote it, like the log's times:
the game compares it with its own, so a reboot (a new timeline) changes nothing.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from companion.alarm import Alarm, Scheduler
from companion.clock import Clock
from companion.games.base import SYSTEM, Command
from companion.table.session import Table

log = logging.getLogger(__name__)

MARK_NAME = "clock-mark.json"
EVERY_US = 500_000
"""How often the mark is written while a clock runs: at most this much of a run is given back."""


class RealTimeKeeper:
    def __init__(self, table: Table, clock: Clock, scheduler: Scheduler, data_dir: Path) -> None:
        self.table = table
        self.clock = clock
        self.path = data_dir / MARK_NAME
        self._alarm = Alarm(clock, scheduler, self._mark)
        table.observers.append(self.on_events)

    def resume(self) -> None:
        """At start, before any deadline is taken up: the outage, told to the game; then the marks."""
        mark = self._read()
        run = self.table.run
        if mark is not None and run is not None and not run.ended and mark["game"] == run.game_id \
                and run.definition.runs_in_real_time(run.state):
            outcome = self.table.handle(SYSTEM, Command("clock_outage", {"stopped_us": mark["at_us"]}))
            if not outcome.ok:
                log.warning("the game's clock was not told of the outage: %s", outcome.rejection)
        self.on_events(())

    def on_events(self, events: object) -> None:
        """A clock set running starts the marks (they stop by themselves once it stops)."""
        if self._alarm.due_us is None and self._running() is not None:
            self._mark()

    def _running(self) -> str | None:
        """The game whose clock runs now, if one does."""
        run = self.table.run
        if run is not None and not run.ended and run.definition.runs_in_real_time(run.state):
            return run.game_id
        return None

    def _mark(self) -> None:
        game = self._running()
        if game is None:
            return
        now = self.clock.now_us()
        self._write({"game": game, "at_us": now})
        self._alarm.set(now + EVERY_US)

    def _read(self) -> dict[str, object] | None:
        try:
            mark = json.loads(self.path.read_text("utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as err:
            log.warning("the clock mark %s is unreadable, ignored: %s", self.path, err)
            return None
        if not isinstance(mark, dict) or not isinstance(mark.get("game"), str) \
                or not isinstance(mark.get("at_us"), int):
            log.warning("the clock mark %s is malformed, ignored", self.path)
            return None
        return mark

    def _write(self, mark: dict[str, object]) -> None:
        """Written aside and renamed over the old one: a crash mid-write leaves the previous mark."""
        temporary = self.path.with_suffix(".tmp")
        try:
            temporary.write_text(json.dumps(mark), "utf-8")
            os.replace(temporary, self.path)
        except OSError as err:
            log.warning("the clock mark could not be written: %s", err)
