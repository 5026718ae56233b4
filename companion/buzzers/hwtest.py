"""`companion hw-test`: what the buttons are doing, live, for the person wiring the box.

Presses come from the same sources the service uses, so what the maker sees here (edge times,
bounces, noise, stuck buttons) is exactly what a reaction round would get. Presses are held back
for a short moment and printed in edge-time order, because a source confirms a press a few
milliseconds after its edge and two pins' confirmations can arrive in either order.
"""

from __future__ import annotations

import re
import shutil
import signal
import textwrap
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from companion.buzzers.configured import open_sources
from companion.buzzers.settings import ButtonsConfig
from companion.buzzers.sources import ButtonHealth, Press, PressSource, SimulatedSource, SourceHealth
from companion.buzzers.wiring import pin_of
from companion.clock import Clock, MonotonicClock
from companion.errors import CompanionError

REORDER_MARGIN_US = 50_000
"""Beyond the confirmation time: room for timer threads and USB latency before a press is shown."""
REDRAW_S = 0.2
RECENT_PRESSES = 200
"""Press lines kept for the full-screen view (it shows as many as fit)."""

PRESS_COLUMNS = (f"{'time ms':>11}  {'button':<14} {'source':<10} {'#':>4}  {'this button':>12}  "
                 f"{'any button':>12}  {'+/- us':>6}")
STATUS_COLUMNS = (f"{'button':<14} {'pin':<7} {'presses':>8} {'bounces':>8} {'noise':>6}  {'state':<6}  "
                  f"{'last ms':>11}  {'interval ms':>12}")
EXPLAIN = (
    "Presses: time since the start, button, source, its count, the interval since that button's previous press "
    "and since the previous press of any button (who was first), and the source's timing uncertainty.",
    "Buttons: where each is wired (the Pi's header pin, the box's Arduino pin), "
    "bounces are extra edges ignored after a press, noise is edges too short to count, "
    "STUCK is held down too long (ignored until released).",
)


@dataclass(frozen=True, slots=True)
class LoggedPress:
    """A press placed among the others: the intervals a maker reads to check wiring and timing."""

    press: Press
    number: int
    since_button_us: int | None
    since_any_us: int | None


@dataclass(slots=True)
class ButtonRecord:
    presses: int = 0
    last_us: int | None = None
    interval_us: int | None = None


class PressLog:
    """Presses from every source, released in edge-time order once no earlier one can still arrive.

    Sources call `add` from their own threads; the view calls `release` from its loop.
    """

    def __init__(self, start_us: int, hold_us: int = REORDER_MARGIN_US) -> None:
        self.start_us = start_us
        self.hold_us = hold_us
        self.buttons: dict[str, ButtonRecord] = {}
        self._waiting: list[Press] = []
        self._last_any_us: int | None = None
        self._lock = threading.Lock()

    def add(self, press: Press) -> None:
        with self._lock:
            self._waiting.append(press)

    def release(self, now_us: int | None = None) -> list[LoggedPress]:
        """The presses old enough to be in order (all of them when `now_us` is None)."""
        with self._lock:
            ready: list[Press] = []
            waiting: list[Press] = []
            for press in self._waiting:
                (ready if now_us is None or press.t_us <= now_us - self.hold_us else waiting).append(press)
            self._waiting = waiting
            return [self._place(p) for p in sorted(ready, key=lambda p: p.t_us)]

    def _place(self, press: Press) -> LoggedPress:
        record = self.buttons.setdefault(press.button, ButtonRecord())
        since_button = None if record.last_us is None else press.t_us - record.last_us
        since_any = None if self._last_any_us is None else press.t_us - self._last_any_us
        record.presses += 1
        record.interval_us = since_button
        record.last_us = press.t_us
        self._last_any_us = press.t_us
        return LoggedPress(press, record.presses, since_button, since_any)

    def snapshot(self) -> dict[str, ButtonRecord]:
        with self._lock:
            return {name: ButtonRecord(r.presses, r.last_us, r.interval_us) for name, r in self.buttons.items()}


def _ms(us: int | None, signed: bool = False) -> str:
    if us is None:
        return "-"
    return f"{us / 1000:+.3f}" if signed else f"{us / 1000:.3f}"


def format_press(entry: LoggedPress, start_us: int) -> str:
    p = entry.press
    return (f"{_ms(p.t_us - start_us):>11}  {p.button:<14} {p.source:<10} {entry.number:>4}  "
            f"{_ms(entry.since_button_us):>12}  {_ms(entry.since_any_us, signed=True):>12}  {p.uncertainty_us:>6}")


def source_line(health: SourceHealth) -> str:
    """One line per source; a source that cannot deliver presses must not go unnoticed."""
    if health.healthy:
        precision = f", +/-{health.uncertainty_us} us" if health.uncertainty_us else ""
        return f"  ok       {health.name} ({health.kind}): {health.detail}{precision}"
    hint = ""
    if health.kind == "gpio" and "busy" in health.detail.lower():
        hint = " (a running `companion serve` holds the pins: stop it first)"
    return f"  PROBLEM  {health.name} ({health.kind}): {health.detail}{hint}"


def _news(health: SourceHealth) -> str:
    """What of a source's state is worth a line: not its precision, which the clock sync refines
    every second (the presses show it)."""
    return f"{health.healthy} {_PRECISION.sub('±', health.detail)}"


_PRECISION = re.compile(r"±\d+")


def _state(health: ButtonHealth | None) -> str:
    if health is None:
        return "-"
    if health.stuck:
        return "STUCK"
    return "down" if health.held else "up"


def _counts(health: ButtonHealth | None) -> tuple[str, str]:
    return ("-", "-") if health is None else (str(health.bounces), str(health.noise))


def _button_order(name: str) -> tuple[str, int, str]:
    """simulated:2 before simulated:10."""
    prefix, _, rest = name.rpartition(":")
    return (prefix, int(rest), "") if rest.isdigit() else (prefix, -1, rest)


def status_lines(healths: Sequence[SourceHealth], records: dict[str, ButtonRecord], start_us: int) -> list[str]:
    """The per-button table: wired inputs as their sources report them, then buttons seen only as presses."""
    wired = {b.button: b for h in healths for b in h.buttons}
    names = list(wired) + sorted((n for n in records if n not in wired), key=_button_order)
    lines = [STATUS_COLUMNS]
    for name in names:
        health, record = wired.get(name), records.get(name, ButtonRecord())
        presses = health.presses if health is not None else record.presses
        bounces, noise = _counts(health)
        last = None if record.last_us is None else record.last_us - start_us
        lines.append(f"{name:<14} {pin_of(name) or '-':<7} {presses:>8} {bounces:>8} {noise:>6}  {_state(health):<6}  "
                     f"{_ms(last):>11}  {_ms(record.interval_us):>12}")
    if not names:
        lines.append("(no press yet)")
    return lines


def fit(lines: Sequence[str], width: int) -> list[str]:
    """Lines wrapped to the terminal's width: a line the terminal wraps by itself would push the
    view down and break redrawing in place."""
    out: list[str] = []
    for line in lines:
        out.extend(textwrap.wrap(line, max(width, 20), subsequent_indent="    ") or [""])
    return out


def parse_buttons(line: str, buttons: int) -> tuple[list[int], list[str]]:
    """Button numbers typed on one line ("3", "1 2 5", "1,2"), and the words that were not one."""
    numbers: list[int] = []
    ignored: list[str] = []
    for word in re.split(r"[\s,]+", line.strip()):
        if word.isdigit() and 1 <= int(word) <= buttons:
            numbers.append(int(word))
        elif word:
            ignored.append(word)
    return numbers, ignored


class HwTest:
    """The live view: presses as lines (plain) or a table redrawn in place (terminal)."""

    def __init__(self, sources: Sequence[PressSource], clock: Clock, out: TextIO, *, plain: bool,
                 hold_us: int = REORDER_MARGIN_US, redraw_s: float = REDRAW_S) -> None:
        self.sources = list(sources)
        self.clock = clock
        self.out = out
        self.plain = plain
        self.redraw_s = redraw_s
        self.log = PressLog(clock.now_us(), hold_us)
        self.recent: list[str] = []
        self.simulated = next((s for s in self.sources if isinstance(s, SimulatedSource)), None)
        self._notes: list[str] = []
        self._notes_lock = threading.Lock()
        self._details: dict[str, str] = {}
        self._finished = threading.Event()
        self._interrupted = False
        """Ctrl-C was pressed (set by the signal handler, read by the redraw loop)."""
        self._drawn = False

    def start(self) -> None:
        """Start the sources; refuse when none of them can deliver a press."""
        for source in self.sources:
            source.start(self.log.add)
        healths = self.healths()
        if not any(h.healthy for h in healths):
            self.stop_sources()
            problems = "; ".join(h.detail for h in healths) or "none configured"
            raise CompanionError(f"no button source could be opened: {problems}")
        self._details = {h.name: _news(h) for h in healths}
        if self.plain:
            self._write([*self.header(healths), "", PRESS_COLUMNS])

    def stop_sources(self) -> None:
        for source in self.sources:
            source.stop()

    def header(self, healths: Sequence[SourceHealth]) -> list[str]:
        lines = ["companion hw-test: live button presses", *EXPLAIN]
        if self.simulated is not None:
            lines.append(f"Simulated buttons: type their numbers (1 to {self.simulated.buttons}) and Enter, "
                         "e.g. 3 or 1 2 5, to press them.")
        lines.append("Ctrl-C or Ctrl-D (end of input) stops.")
        lines.append("Sources:")
        lines.extend(source_line(h) for h in healths)
        return lines

    def type_line(self, line: str) -> None:
        """Press the simulated buttons typed on one line of input."""
        if not line.strip():
            return
        if self.simulated is None:
            self._note("no simulated buttons here (use --simulate to type presses)")
            return
        numbers, ignored = parse_buttons(line, self.simulated.buttons)
        for number in numbers:
            self.simulated.press(number)
        if ignored:
            self._note(f"ignored {' '.join(ignored)!r}: type button numbers from 1 to {self.simulated.buttons}")

    def _note(self, text: str) -> None:
        with self._notes_lock:
            self._notes.append(text)

    def _take_notes(self) -> list[str]:
        with self._notes_lock:
            notes, self._notes = self._notes, []
        return notes

    def healths(self) -> list[SourceHealth]:
        return [s.health() for s in self.sources]

    def tick(self, final: bool = False, healths: Sequence[SourceHealth] | None = None) -> None:
        """Show what happened since the last tick; `final` releases every press still held back.
        `healths` taken before the sources stopped keeps "(stopped)" out of the last view."""
        entries = self.log.release(None if final else self.clock.now_us())
        lines = [format_press(e, self.log.start_us) for e in entries]
        self.recent = (self.recent + lines)[-RECENT_PRESSES:]
        healths = self.healths() if healths is None else healths
        notes = [f"-- {n}" for n in self._take_notes()]
        if self.plain:
            self._write(lines + notes + self._health_changes(healths))
        else:
            self._redraw(healths, notes)

    def _health_changes(self, healths: Sequence[SourceHealth]) -> list[str]:
        """A source's new state as soon as it changes (a button found stuck, the GPIO chip gone)."""
        changed = [h for h in healths if self._details.get(h.name) != _news(h)]
        self._details.update({h.name: _news(h) for h in changed})
        return ["--" + source_line(h) for h in changed]

    def _redraw(self, healths: Sequence[SourceHealth], notes: list[str]) -> None:
        """Home the cursor and overwrite line by line (erasing each line's rest and what is below),
        which looks like a clear screen without the flicker of one."""
        size = shutil.get_terminal_size((100, 30))
        table = status_lines(healths, self.log.snapshot(), self.log.start_us)
        top = fit([*self.header(healths), "", *table, *notes, "", "Latest presses:", PRESS_COLUMNS], size.columns)
        room = max(size.lines - len(top) - 1, 3)
        lines = top + fit(self.recent[-room:], size.columns)
        clear = "" if self._drawn else "\x1b[2J"
        self._drawn = True
        self.out.write(clear + "\x1b[H" + "".join(f"{line}\x1b[K\n" for line in lines) + "\x1b[J")
        self.out.flush()

    def summary(self, healths: Sequence[SourceHealth]) -> None:
        """The per-button table once more in plain mode (the full-screen view already shows it)."""
        lines = ["Stopped."]
        if self.plain:
            lines = ["", "Buttons:", *status_lines(healths, self.log.snapshot(), self.log.start_us), *lines]
        self._write(lines)

    def _write(self, lines: Sequence[str]) -> None:
        if lines:
            self.out.write("".join(f"{line}\n" for line in lines))
            self.out.flush()

    def _read_input(self, stdin: TextIO) -> None:
        """On its own thread: reading the terminal blocks, and the view must go on redrawing."""
        try:
            for line in stdin:
                self.type_line(line)
        finally:
            self._finished.set()

    def _interrupt(self, signum: int, frame: object) -> None:
        self._interrupted = True  # a flag only: a signal handler must take no lock

    def run(self, stdin: TextIO) -> None:
        """Until Ctrl-C or end of input; the sources are stopped whatever happens.

        Ctrl-C only raises a flag the view checks at each redraw: a KeyboardInterrupt raised inside
        a lock (the redraw's wait, a source's lock) can leave that lock broken, and the stop then
        failed with "release unlocked lock" instead of its summary."""
        on_main_thread = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGINT, self._interrupt) if on_main_thread else None
        try:
            try:
                self.start()
                reader = threading.Thread(target=self._read_input, args=(stdin,), name="hw-test-input", daemon=True)
                reader.start()
                while not self._finished.wait(self.redraw_s) and not self._interrupted:
                    self.tick()
            except KeyboardInterrupt:
                pass  # run off the main thread, where no handler can be set
            finally:
                healths = self.healths()
                self.stop_sources()
            self.tick(final=True, healths=healths)
            self.summary(healths)
        finally:
            if on_main_thread:  # a press during the summary only raised the flag too
                signal.signal(signal.SIGINT, previous)


def run_hw_test(buttons: ButtonsConfig, stdin: TextIO, stdout: TextIO, *, plain: bool,
                clock: Clock | None = None) -> None:
    """Open the configured button sources (nothing else: no data folder, no web server) and watch them."""
    clock = clock or MonotonicClock()
    sources = open_sources(buttons, clock)
    hold_us = int(buttons.confirm_ms * 1000) + REORDER_MARGIN_US
    HwTest(sources, clock, stdout, plain=plain, hold_us=hold_us).run(stdin)
