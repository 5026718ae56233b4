"""The round keeper: between the press sources and the table.

It watches the log for an armed round, referees every press that arrives (mapped to a seat),
and when the decision is due it settles the round with one command carrying the referee's whole
decision. Presses shortly before the arm are kept, so a false start is caught even when it came
before the round opened on this side. A press that comes after the decision but inside the round's
window is no part of the decision; a game that lists every press of a round (one with a
`late_press` move) is sent it, with its time after the signal and behind the first press.

A round's signal is where the players see it (`signal` in its arm): on each phone (the quiz) or on
the table and the TV (the garlic dice). Phones' presses are timed for it (phoneclock.py), and when a
display reports the frame in which it showed the signal, that instant is the round's arm. The
decision waits for every phone that may still be sending a press that would come first: how long
each may take is measured from its own round trips (and, when the signal is on the phones, from
the moment that phone reports it showed it), never longer than `MAX_WAIT_US`.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from companion.alarm import Alarm, Scheduler
from companion.buzzers import referee
from companion.buzzers.clocksync import Mapped
from companion.buzzers.phoneclock import MAX_WAIT_US, Signal, timed_for_signal
from companion.buzzers.referee import RoundSpec, RoundState, TimedPress
from companion.buzzers.sources import Press
from companion.clock import Clock
from companion.games.base import SYSTEM, Command, Viewer
from companion.games.reactions import ROUND_ARMED, ROUND_CANCELLED, ROUND_SETTLED
from companion.store import EventStore, RecordedEvent
from companion.table.gamerun import GameRun
from companion.table.session import Outcome

log = logging.getLogger(__name__)

EARLY_WINDOW_US = 3_000_000
"""How far before an arm a press still counts as that round's false start."""
LATE_WINDOW_US = 1_000_000
"""Presses this soon after a round ended are late answers to it, not false starts of the next."""
LATE_PRESS = "late_press"
"""The command a game takes a press after its round's decision with (if it has such a move)."""

class RefereedTable(Protocol):
    """What the keeper needs of the table (companion.table.session.Table): its log's observers,
    the running game, its store (a round is read back after a restart) and its door for commands.
    A simulation of the referee alone (companion/sim/wifi.py) stands in for it."""

    observers: list[Callable[[tuple[RecordedEvent, ...]], None]]
    view_changing_events: set[str]
    run: GameRun | None
    store: EventStore

    def handle(self, actor: Viewer, command: Command) -> Outcome: ...


PhonesWaiting = Callable[[], dict[int, int]]
"""The seats whose phones may still buzz, each with how long its requests may take at worst."""


@dataclass(slots=True)
class OpenRound:
    """A round being refereed: its arm as logged, where its signal is, every press it was given
    (as the sources timed them) and what the screens reported of its signal."""

    number: int
    spec: RoundSpec
    """As armed: `armed_at_us` is when the signal was sent."""
    signal: Signal
    presses: list[tuple[Press, int]] = field(default_factory=list)
    shown_table: Mapped | None = None
    """The frame in which a display showed the signal, on the host timeline: the round's arm."""
    shown_phones: dict[int, Mapped] = field(default_factory=dict)
    state: RoundState | None = None

    @property
    def armed_at_us(self) -> int:
        return self.spec.armed_at_us if self.shown_table is None else self.shown_table.t_us

    def timed(self, press: Press, seat: int) -> TimedPress:
        """The press as this round ranks it: a phone's timed for the round's signal."""
        who = f"seat:{seat}"
        if press.phone is None:
            return TimedPress(who, press.t_us, press.uncertainty_us, press.source, press.clock, press.local_ns)
        timed = timed_for_signal(press.phone, press.t_us, press.uncertainty_us, self.signal, self.number,
                                 self.spec.armed_at_us, self.armed_at_us)
        return TimedPress(who, timed.t_us, timed.uncertainty_us, press.source, method=timed.method)

    def referee(self) -> RoundState:
        """The referee's state from scratch (the arm moved: every press is timed again)."""
        state = referee.arm(replace(self.spec, armed_at_us=self.armed_at_us))
        for press, seat in self.presses:
            state = referee.press(state, self.timed(press, seat))
        self.state = state
        return state

    def add(self, press: Press, seat: int) -> RoundState:
        self.presses.append((press, seat))
        assert self.state is not None
        self.state = referee.press(self.state, self.timed(press, seat))
        return self.state


@dataclass(slots=True)
class Decided:
    """A race decided while its window is still open: who is listed already, and the times a later
    press is measured from."""

    round: OpenRound
    ends_us: int
    first_us: int
    listed: set[str]

    def row(self, press: Press, seat: int) -> dict[str, Any] | None:
        """The late press's row as the round's order has them, or None when it is no late press
        of this round (outside the window, or its contestant listed already)."""
        timed = self.round.timed(press, seat)
        armed_at = self.round.armed_at_us
        if timed.who in self.listed or not armed_at <= timed.t_us <= self.ends_us:
            return None
        return {**timed.to_json(), "after_arm_us": timed.t_us - armed_at, "gap_us": timed.t_us - self.first_us,
                "late": True}


class RoundKeeper:
    def __init__(self, table: RefereedTable, clock: Clock, scheduler: Scheduler,
                 phones_waiting: PhonesWaiting = dict,
                 report_delay_us: Callable[[], int] = lambda: 0) -> None:
        self.table = table
        self.clock = clock
        self.phones_waiting = phones_waiting
        """The phones a decision waits for (the hub knows which seats play and which phones listen)."""
        self.report_delay_us = report_delay_us
        """How long after its edge a wired press may reach the keeper (a source reports a press
        once the button stayed down): added to the game's grace, which counts from the edges."""
        self._lock = threading.RLock()
        self.open: OpenRound | None = None
        self._recent: deque[tuple[Press, int]] = deque(maxlen=256)
        self._late_until_us = 0
        self._decided: Decided | None = None
        """The last race, decided while its window is open: later presses are listed with it."""
        self._settling: OpenRound | None = None
        """The round whose decision is being sent (the keeper lets go of it before the table hears)."""
        self._alarm = Alarm(clock, scheduler, self.settle_if_due)
        """One timer at a time: a press per contestant must not start a timer thread each."""
        table.observers.append(self.on_events)
        # What the pages see of the keeper is the round being refereed: an arm opens one, a cancel
        # or the game's end closes it. A decision does not: the keeper lets go of its round before
        # the settle is made, so the settle's messages can be made while it is stored.
        table.view_changing_events.update((ROUND_ARMED, ROUND_CANCELLED, "game_ended"))

    @property
    def round(self) -> int | None:
        """The number of the round being refereed, if any."""
        current = self.open
        return None if current is None else current.number

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
                    self.open = None
                    self._late_until_us = self.clock.now_us() + LATE_WINDOW_US

    def _decided_from(self, settled: Mapping[str, Any]) -> Decided | None:
        """What a late press of this settled race is measured against (None: no press may join it)."""
        run = self.table.run
        current = self.open or self._settling
        if current is None or current.state is None or run is None or LATE_PRESS not in run.definition.moves:
            return None
        spec = current.spec
        order = settled.get("decision", {}).get("order") or []
        if spec.mode != "race" or not order:
            return None
        listed = {str(row["who"]) for row in order}
        if spec.penalty == "lockout_round":
            listed |= {p.who for p in current.state.false_starts}
        return Decided(current, spec.armed_at_us + spec.window_us, min(int(row["t_us"]) for row in order), listed)

    def _open(self, data: Mapping[str, Any], wake: bool = True) -> None:
        grace = int(data["grace_us"]) + self.report_delay_us()
        spec = RoundSpec(data["mode"], int(data["at_us"]), int(data["window_us"]), grace,
                         data["penalty"], int(data["lockout_us"]))
        signal: Signal = "phones" if data.get("signal") == "phones" else "table"
        current = OpenRound(int(data["round"]), spec, signal)
        with self._lock:
            self._alarm.cancel()  # an old round's timer wakes nobody
            since = max(spec.armed_at_us - EARLY_WINDOW_US, self._late_until_us)
            current.presses = [(press, seat) for press, seat in self._recent if since <= press.t_us]
            current.referee()
            self.open = current
            self._decided = None
            due = self._due(current)
        if wake:
            self._alarm.bring_forward(due)

    def _due(self, current: OpenRound) -> int:
        """When the decision can be published: the referee's time (grace after the first press, or
        the end of the window), or later while a phone may still be sending a press that would
        come first (under the lock)."""
        state = current.state
        assert state is not None
        due = referee.due_at_us(state)
        spec = state.spec
        end = spec.armed_at_us + spec.window_us
        if spec.mode != "race" or not state.presses:
            return due
        first = min(state.presses, key=lambda p: p.t_us)
        pressed = {p.who for p in state.presses}
        if spec.penalty == "lockout_round":
            pressed |= {p.who for p in state.false_starts}
        waits = [self._phone_due(current, first, seat, wait)
                 for seat, wait in self.phones_waiting().items() if f"seat:{seat}" not in pressed]
        if not waits:
            return due
        return min(end, max(due, min(max(waits), first.t_us + first.uncertainty_us + MAX_WAIT_US)))

    @staticmethod
    def _phone_due(current: OpenRound, first: TimedPress, seat: int, wait_us: int) -> int:
        """When a press of this phone that would tie with or beat the first has arrived, at worst."""
        ahead = first.t_us + first.uncertainty_us
        if current.signal == "table":
            return ahead + wait_us
        # Signal on the phones: a press counts from when that phone showed the signal, which it
        # reports; until it has, from when the signal was sent, with the way down in `wait_us`.
        reaction = ahead - current.armed_at_us
        shown = current.shown_phones.get(seat)
        if shown is not None:
            return shown.t_us + shown.bound_us + reaction + wait_us
        return current.spec.armed_at_us + reaction + wait_us

    def on_press(self, press: Press, seat: int) -> None:
        """A press of `seat`'s button (any thread)."""
        due: int | None = None
        late: tuple[int, dict[str, Any]] | None = None
        with self._lock:
            self._recent.append((press, seat))
            current = self.open
            if current is None:
                late = self._late_row(press, seat)
            else:
                current.add(press, seat)
                due = self._due(current)
        if due is not None:
            self._alarm.bring_forward(due)  # a new timer only when the decision became due sooner
        elif late is not None:
            number, row = late
            outcome = self.table.handle(SYSTEM, Command(LATE_PRESS, {"round": number, "press": row}))
            if not outcome.ok:
                log.info("late press of round %s not listed: %s", number, outcome.rejection)

    def on_shown(self, number: object, screen: int | None, shown: Mapped) -> bool:
        """A screen showed round `number`'s signal at `shown` (host timeline): a display (`screen`
        None) moves the round's arm there, a phone tells how long its press may take. False when
        no such round is open or the instant is impossible (before the signal was sent, or later
        than now)."""
        with self._lock:
            current = self.open
            if current is None or current.number != number:
                return False
            now = self.clock.now_us()
            if shown.t_us + shown.bound_us < current.spec.armed_at_us or shown.t_us - shown.bound_us > now:
                log.warning("round %s: a screen says it showed the signal at %s (±%s us), sent at %s, now %s",
                            number, shown.t_us, shown.bound_us, current.spec.armed_at_us, now)
                return False
            if screen is None:
                if current.shown_table is None or shown.t_us < current.shown_table.t_us:
                    current.shown_table = Mapped(max(shown.t_us, current.spec.armed_at_us), shown.bound_us)
                    current.referee()
            else:
                current.shown_phones[screen] = shown
            due = self._due(current)
        self._alarm.bring_forward(due)
        return True

    def _late_row(self, press: Press, seat: int) -> tuple[int, dict[str, Any]] | None:
        """A press after the last race's decision, within its window: its round and row (under the lock)."""
        if self._decided is None:
            return None
        row = self._decided.row(press, seat)
        if row is None:
            return None
        self._decided.listed.add(row["who"])
        return self._decided.round.number, row

    def settle_if_due(self, force: bool = False) -> None:
        with self._lock:
            current = self.open
            if current is None or current.state is None:
                return
            due = self._due(current)
            now = due if force else self.clock.now_us()
            decision = referee.decide(current.state, max(now, referee.due_at_us(current.state))) \
                if now >= due else None
            if decision is not None:
                grace = current.state.spec.grace_us
                self._settling = current
                self.open = None
        if decision is None:
            self._alarm.bring_forward(due)  # not due yet (asked early, or a phone moved it later)
            return
        number = current.number
        # When it was due: the referee's grace, or later while a phone might still have been
        # sending a press that would come first. What follows is the service's own delay.
        outcome = self.table.handle(SYSTEM, Command("settle", {
            "round": number, "decision": {**decision.to_json(), "grace_us": grace, "signal": current.signal,
                                          "due_us": due}}))
        if not outcome.ok:
            log.warning("round %s could not be settled: %s", number, outcome.rejection)
