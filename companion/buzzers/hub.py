"""Where every button press arrives: pairing, health, then the round keeper.

The hub owns the press sources (wired, simulated and the phones), knows which button belongs to
which seat, binds a button during pairing, reports presses of unpaired buttons and of buttons
that are stuck, and hands every other press to the round keeper. None of this is game state, so
it is not logged: it reaches the pages as the `buttons` part of every view, and only the host's
view carries the per-pin details and the other phones' precision.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from dataclasses import dataclass, replace
from typing import Any

from companion.alarm import Scheduler
from companion.buzzers.lamps import LampDriver
from companion.buzzers.pairing import ARM, ButtonMap, Target
from companion.buzzers.phoneclock import Claim, phone_us
from companion.buzzers.phones import UNMEASURED_UNCERTAINTY_US, PhoneBuzzers, Screen
from companion.buzzers.rounds import RoundKeeper
from companion.buzzers.sources import Press, PressSource, SimulatedSource, SourceHealth
from companion.clock import Clock
from companion.games.base import TABLE, Command, Rejection, Viewer
from companion.json_values import kept
from companion.store import RecordedEvent
from companion.table.session import Table

log = logging.getLogger(__name__)

PAIRING_WINDOW_US = 30_000_000
RECENT_PRESSES = 12
HEALTH_INTERVAL_S = 1.0
PHONE_CHANGES = ("seat_claimed", "seat_cleared", "seat_rebound")
REPORT_MARGIN_US = 20_000
"""Beyond its confirmation time, how late a wired press may reach the hub: a USB serial adapter
holds bytes up to 16 ms (FTDI's default latency timer), a timer thread on a busy Pi a few ms."""


@dataclass(frozen=True, slots=True)
class PressRecord:
    """A press as the host console lists it, with what became of it."""

    button: str
    target: Target | None
    t_us: int
    wall_ms: int
    uncertainty_us: int
    use: str
    """"round" (refereed), "paired", "arm", "unpaired", "not_playing" (seat not in the game)."""

    def to_json(self) -> dict[str, Any]:
        return {"button": self.button, "target": self.target, "t_us": self.t_us, "wall_ms": self.wall_ms,
                "uncertainty_us": self.uncertainty_us, "use": self.use}


class ButtonHub:
    def __init__(self, table: Table, clock: Clock, sources: list[PressSource], pairs: ButtonMap,
                 scheduler: Scheduler) -> None:
        self.table = table
        self.clock = clock
        self.pairs = pairs
        self.phones = PhoneBuzzers(clock)
        self.sources: list[PressSource] = [*sources, self.phones]
        self.simulated = next((s for s in sources if isinstance(s, SimulatedSource)), None)
        self.keeper = RoundKeeper(table, clock, scheduler, phones_waiting=self.phones_waiting,
                                  report_delay_us=self.report_delay_us)
        self._lock = threading.Lock()
        self.pairing: tuple[Target, int] | None = None
        """Who waits for their button, and until when (host timeline)."""
        self.recent: deque[PressRecord] = deque(maxlen=RECENT_PRESSES)
        self.unmapped: dict[str, int] = {}
        self.problem = ""
        """Why the last pairing could not be saved, for the host."""
        self._public: tuple[tuple[int, int], dict[str, Any], list[SourceHealth]] | None = None
        self._seat_views: dict[int, tuple[dict[str, Any], dict[str, Any], dict[str, Any]]] = {}
        self._health_seen: object = None
        self._stopped = threading.Event()
        self._watch: threading.Thread | None = None
        self.lamps = LampDriver(self.sources, pairs.buttons_of)
        table.extra_views["buttons"] = self.view
        table.observers.append(self._on_events)
        table.view_changing_events.update(PHONE_CHANGES)
        table.observers.append(self.lamps.on_events)

    # -- life ----------------------------------------------------------------------------------

    def start(self, watch_health: bool = True) -> None:
        for source in self.sources:
            source.start(self.on_press)
        self.keeper.resume()
        if watch_health:
            self._watch = threading.Thread(target=self._watch_health, name="button-health", daemon=True)
            self._watch.start()

    def stop(self) -> None:
        self._stopped.set()
        for source in self.sources:
            try:
                source.stop()
            except Exception:  # a failing source must not keep the others (or the store) open
                log.exception("could not stop button source %s", source.name)

    def _watch_health(self) -> None:
        while not self._stopped.wait(HEALTH_INTERVAL_S):
            try:
                self.check_health()
            except Exception:
                log.exception("button health check failed")

    def check_health(self) -> None:
        """Tell the pages when a source's health changed or a pairing ran out (stuck buttons,
        bounce counts, a GPIO chip that went away)."""
        with self._lock:
            if self.pairing is not None and self.clock.now_us() > self.pairing[1]:
                log.info("pairing for %s timed out", self.pairing[0])
                self.pairing = None
        seen = ([s.health().to_json() for s in self.sources], self.pairing)
        if seen != self._health_seen:
            if self._health_seen is not None:
                self.table.broadcaster.nudge()
            self._health_seen = seen

    def _on_events(self, events: tuple[RecordedEvent, ...]) -> None:
        for event in events:
            if event.type in PHONE_CHANGES:
                # Another phone holds the seat now: the old phone's round trips say nothing of it.
                self.phones.forget(int(event.data["seat"]))

    def report_delay_us(self) -> int:
        """How long after its edge a wired press may reach the round keeper: the GPIO pins and the
        buzzer box report a press only once it stayed down for their confirmation time, and a
        timer thread or the USB link adds a little (`REPORT_MARGIN_US`)."""
        longest = max((int(getattr(source, "confirm_us", 0)) for source in self.sources), default=0)
        return longest + REPORT_MARGIN_US if longest else 0

    # -- presses -------------------------------------------------------------------------------

    def seat_for(self, button: str) -> Target | None:
        """Paired buttons first; a phone's buzzer is its seat's; simulated button n is seat n
        unless paired otherwise (a demo needs no pairing)."""
        target = self.pairs.target(button)
        if target is not None:
            return target
        kind, _, number = button.partition(":")
        if kind in ("phone", "simulated") and number.isdigit():
            return int(number)
        return None

    def playing(self, seat: int) -> bool:
        """A seat someone holds, in the running game: a button of an empty seat wins nothing."""
        run = self.table.run
        return (run is not None and not run.ended and seat in self.table.state.names
                and any(s.number == seat for s in run.seats))

    def on_press(self, press: Press) -> None:
        """A source's press, from any thread."""
        now = self.clock.now_us()
        with self._lock:
            if self.pairing is not None and now > self.pairing[1]:
                self.pairing = None
            # A round armed while someone waits to pair: its presses are answers, not new buttons.
            in_round = self.keeper.round is not None
            pairing = self.pairing if press.source != self.phones.name and not in_round else None
            if pairing is not None:
                self.pairing = None
                target: Target | None = pairing[0]
                use = "paired"
                try:
                    self.pairs.pair(press.button, pairing[0])
                    self.problem = ""
                except OSError as err:  # the disk is full or read-only: say so, keep the old map
                    log.error("could not save the pairing of %s: %s", press.button, err)
                    self.problem = f"could not save {self.pairs.path.name}: {err.strerror or err}"
                    use = "unpaired"
                self.unmapped.pop(press.button, None)
            else:
                target = self.seat_for(press.button)
                if target is None:
                    use = "unpaired"
                    self.unmapped[press.button] = self.unmapped.get(press.button, 0) + 1
                elif target == ARM:
                    use = "arm"
                elif isinstance(target, int) and self.playing(target):
                    use = "round"
                else:
                    use = "not_playing"
            self.recent.appendleft(PressRecord(press.button, target, press.t_us, self.clock.wall_ms(),
                                               press.uncertainty_us, use))
        if use == "round":
            assert isinstance(target, int)
            self.keeper.on_press(press, target)
            if self.keeper.round is not None:
                return  # the round's decision, a few ms away, redraws every page
        elif use == "paired":
            log.info("button %s paired with %s", press.button, target)
        elif use == "arm":
            run = self.table.run
            command = run.definition.table_button if run is not None else None
            if command is None:
                log.info("table button %s: the current game has no use for it", press.button)
            else:
                outcome = self.table.handle(TABLE, command)
                if not outcome.ok:
                    log.info("table button %s: %s", press.button, outcome.rejection)
        elif use == "unpaired":
            log.info("press of unpaired button %s", press.button)
        self.table.broadcaster.nudge()

    def press_simulated(self, button: object) -> Press | Rejection:
        if self.simulated is None:
            return Rejection("no_simulated_buttons")
        if isinstance(button, bool) or not isinstance(button, int) or not 1 <= button <= self.simulated.buttons:
            return Rejection("bad_arguments", {"detail": f"button 1-{self.simulated.buttons}"})
        return self.simulated.press(button)

    def buzz(self, seat: int, arrived_us: int, claim: Claim | None = None) -> Press | Rejection | None:
        """A phone's buzzer, with what the page says of its tap; None when it repeats a tap just made."""
        if not self.buzzers_in_use():
            return Rejection("no_buzzers")
        if not self.playing(seat):
            return Rejection("not_seated")
        distrusts = self.phones.distrusts
        try:
            return self.phones.press(seat, arrived_us, claim)
        finally:
            self._distrusted_since(distrusts)

    def _distrusted_since(self, distrusts: int) -> None:
        """A page's time was ruled out: the host's console shows its phone timed by arrival now,
        whether or not anything else changes."""
        if self.phones.distrusts != distrusts:
            self.table.broadcaster.nudge()

    def shown(self, screen: Screen, number: object, stamp: object) -> Rejection | None:
        """A screen says in which frame (`stamp`, its clock's ms) it showed round `number`'s
        signal: a display's frame becomes the round's arm, a phone's says how long its press may
        take to come. Refused when that screen's clock is not mapped or the instant is impossible."""
        stamp_us = phone_us(stamp)
        if stamp_us is None:
            return Rejection("bad_arguments", {"detail": "shown"})
        mapped = self.phones.map(screen, stamp_us)
        if mapped is None:
            return Rejection("clock_unmapped")
        if not self.keeper.on_shown(number, screen if isinstance(screen, int) else None, mapped):
            return Rejection("no_round")
        return None

    def phones_waiting(self) -> dict[int, int]:
        """The phones a round's decision waits for, with how long each one's requests may take:
        those of seats in the game that listen (a player with a wired button may still buzz on
        the phone)."""
        run = self.table.run
        if run is None or run.ended:
            return {}
        return {seat.number: self.phones.wait_us(seat.number) for seat in run.seats
                if self.phones.listening(seat.number)}

    def buttons_wanted(self) -> bool:
        """Whether pairing buttons is worth offering now: the running game uses buttons (its
        players' own, or the table's to roll or arm), or no game runs and the table is being set up."""
        run = self.table.run
        if run is None or run.ended:
            return True
        return run.definition.uses_buzzers or run.definition.table_button is not None

    def buzzers_in_use(self) -> bool:
        run = self.table.run
        return run is not None and not run.ended and run.definition.uses_buzzers

    def phones_timed(self) -> bool:
        """Whether phones' delays are measured now: for their buzzers, or for the game's own
        timing (Dracula's vote)."""
        run = self.table.run
        return self.buzzers_in_use() or (run is not None and not run.ended and run.definition.times_phones(run.state))

    def stamp(self, actor: Viewer, command: Command, sent: object = None) -> Command:
        """A phone's command with the delay of its link, when the game times phones: arrival less
        that delay is when the phone sent it. A page that says when it sent it (`sent`, its clock's
        ms) is believed as far as its mapped clock and physics allow, as a buzz is (phones.py);
        otherwise its link's measured delay is taken off its arrival (an unmeasured phone: on
        arrival, vaguer)."""
        if actor.kind != "seat" or actor.seat is None or not self.phones_timed():
            return command
        distrusts = self.phones.distrusts
        mapped = self.phones.sent_at(actor.seat, sent, command.at_us)
        self._distrusted_since(distrusts)
        if mapped is not None:
            return replace(command, delay_us=max(0, command.at_us - mapped.t_us), uncertainty_us=mapped.bound_us)
        estimate = self.phones.estimate(actor.seat)
        if estimate is None:
            return replace(command, uncertainty_us=UNMEASURED_UNCERTAINTY_US)
        return replace(command, delay_us=estimate.delay_us, uncertainty_us=estimate.uncertainty_us)

    # -- pairing -------------------------------------------------------------------------------

    def start_pairing(self, target: Target) -> Rejection | None:
        if not any(s is not self.phones and s.health().healthy for s in self.sources):
            return Rejection("no_buttons")
        with self._lock:
            now = self.clock.now_us()
            if self.pairing is not None and now <= self.pairing[1] and self.pairing[0] != target:
                return Rejection("pairing_busy")
            if self.keeper.round is not None:
                return Rejection("round_in_progress")
            self.pairing = (target, now + PAIRING_WINDOW_US)
        log.info("pairing: the next button press goes to %s", target)
        self.table.broadcaster.nudge()
        return None

    def cancel_pairing(self, target: Target | None = None) -> None:
        with self._lock:
            if self.pairing is not None and (target is None or self.pairing[0] == target):
                self.pairing = None
        self.table.broadcaster.nudge()

    def unpair(self, button: str, target: Target | None = None) -> Rejection | None:
        """Forget a pairing; a player (target = their seat) may only forget their own button."""
        with self._lock:
            if button not in self.pairs.pairs or (target is not None and self.pairs.target(button) != target):
                return Rejection("unknown_button")
            try:
                self.pairs.unpair(button)
            except OSError as err:
                log.error("could not save the unpairing of %s: %s", button, err)
                return Rejection("buttons_not_saved", {"detail": str(err.strerror or err)})
        self.table.broadcaster.nudge()
        return None

    # -- what the pages see --------------------------------------------------------------------

    def _public_part(self) -> tuple[dict[str, Any], list[SourceHealth]]:
        """What every viewer sees, made once per change of the pages (the table's revision), or of
        the log: a command's own answer is built before its change is published, and must already
        show it (a game started with buzzers)."""
        revision = (self.table.broadcaster.revision, self.table.position)
        cached = self._public
        if cached is not None and cached[0] == revision:
            return cached[1], cached[2]
        healths = [s.health() for s in self.sources]
        with self._lock:
            pairing = self.pairing
        part: dict[str, Any] = {
            "sources": [h.public_json() for h in healths if h.kind != "phone"],
            "simulated": self.simulated.buttons if self.simulated is not None else 0,
            "phones": self.buzzers_in_use(),
            "wanted": self.buttons_wanted(),
            "pairing": None if pairing is None else {"target": pairing[0]},
            # The round being refereed: a page stamps the frame that first shows it (phoneclock.py).
            "round": self.keeper.round,
        }
        part = kept(None if cached is None else cached[1], part)
        self._public = (revision, part, healths)
        return part, healths

    def view(self, viewer: Viewer) -> dict[str, Any]:
        public, healths = self._public_part()
        if viewer.kind == "seat" and viewer.seat is not None:
            seat = viewer.seat
            was = self._seat_views.get(seat)
            you = kept(None if was is None else was[1], {
                "seat": seat, "buttons": self.pairs.buttons_of(seat),
                "phone_uncertainty_us": self.phones.precision_us(seat),
            })
            if was is not None and was[0] is public and was[1] is you:
                return was[2]  # nothing of this seat's changed: the view its screens have
            view = {**public, "you": you}
            self._seat_views[seat] = (public, you, view)
            return view
        if viewer.kind == "host":
            with self._lock:
                recent = [r.to_json() for r in self.recent]
                unmapped = [{"button": b, "count": n} for b, n in sorted(self.unmapped.items())]
                pairs = dict(sorted(self.pairs.pairs.items()))
            return {**public, "health": [h.to_json() for h in healths], "pairs": pairs, "unmapped": unmapped,
                    "recent": recent, "problem": self.problem,
                    "phone_precision": {str(seat): us for seat, us in self.phones.precisions().items()},
                    "phone_timing": {str(seat): "mapped" if mapped else "arrival"
                                     for seat, mapped in self.phones.clocks_mapped().items()}}
        return public
