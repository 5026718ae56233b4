"""The buzzer box as a press source: an Arduino (ATmega328P) that timestamps button edges with its
own timer and reports them over USB serial (firmware/PROTOCOL.md).

This is the I/O around the link's state machine (`boxlink`): one reader thread owns the port. It
opens the board (found by USB ids, or a configured path: `boxports`), waits for bytes with select
no longer than the link says, feeds them to the link with the time they came, writes what the
link answers, hands its presses to the handler outside the lock, and reopens the port whenever it
goes away (an error, or the link asking for it to be dropped). Lamps and beeps may be asked for
from any thread. Nothing it reads can stop the reader.
"""

from __future__ import annotations

import logging
import select
import threading
from collections.abc import Callable
from typing import Any

from companion.buzzers.boxlink import HELLO_TIMEOUT_S, KIND, BoxLink, Step
from companion.buzzers.boxports import (
    PortFinder,
    PortOpener,
    SerialPort,
    first_box_port,
    open_error,
    open_serial_port,
    usb_ids_text,
)
from companion.buzzers.sources import HandlerSlot, Press, SourceHealth
from companion.clock import Clock

log = logging.getLogger(__name__)

RETRY_S = 0.5
"""How often a missing box is looked for again."""


class SerialBoxSource(HandlerSlot):
    """The buzzer box as a press source. `port` is a fixed path ("" to search with `find_port`,
    by USB ids by default); `open_port` opens one (pyserial; tests may pass their own)."""

    kind = KIND

    @property
    def confirm_us(self) -> int:
        """How long after its edge a press is reported (the board confirms it first)."""
        return self._link.confirm_us

    def __init__(self, clock: Clock, *, port: str = "", find_port: PortFinder | None = None,
                 open_port: PortOpener = open_serial_port, name: str = "box", confirm_ms: float = 5.0,
                 mask_ms: float = 50.0, stuck_s: float = 5.0, start_wait_s: float = HELLO_TIMEOUT_S) -> None:
        super().__init__()
        self.name = name
        self._clock = clock
        self._port_path = port
        self._find_port = find_port or first_box_port
        self._open_port = open_port
        self._link = BoxLink(name, confirm_ms=confirm_ms, mask_ms=mask_ms, stuck_s=stuck_s)
        self.start_wait_s = start_wait_s
        self._state = threading.RLock()
        """Guards the link and the port (the reader and callers of lamps, beeps and health)."""
        self._stopping = threading.Event()
        self._attempted = threading.Event()
        self._thread: threading.Thread | None = None
        self._port: SerialPort | None = None
        self._path = ""
        self._broken = ""
        """A write failed: the reader drops the port."""
        self._outbox: list[Press] = []
        """Presses made under the state lock, delivered after it is released."""
        self._pause_s = 0.0
        """How long the reader waits before it opens the port again."""

    # -- life ----------------------------------------------------------------------------------

    def start(self, on_press: Callable[[Press], None]) -> None:
        """Start the reader; wait (up to `start_wait_s`) for the first attempt to settle, so a
        plugged-in box is ready (or its problem known) when this returns."""
        super().start(on_press)
        with self._state:
            if self._thread is not None:
                return
            self._stopping.clear()
            self._thread = threading.Thread(target=self._run, name=f"serial-{self.name}", daemon=True)
            self._thread.start()
        if self.start_wait_s > 0:
            self._attempted.wait(self.start_wait_s)

    def stop(self) -> None:
        super().stop()
        self._stopping.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2.0)
        with self._state:
            self._thread = None
            self._close_port()
            self._link.stopped()
            self._outbox.clear()
        self._attempted.set()

    @property
    def connected(self) -> bool:
        with self._state:
            return self._link.connected

    @property
    def synced(self) -> bool:
        with self._state:
            return self._link.synced

    # -- outputs -------------------------------------------------------------------------------

    def set_lamps(self, on: int, blink: int = 0) -> None:
        """Light lamp n with bit n-1 of `on` (blinking at 4 Hz with `blink`). Remembered, and sent
        again after a reconnect."""
        with self._state:
            self._apply(self._link.set_lamps(on, blink, self._clock.now_us()))

    def beep(self, freq_hz: int, duration_ms: int) -> None:
        """A square wave on the box's beeper (0 Hz stops it). Lost while the box is away."""
        with self._state:
            self._apply(self._link.beep(freq_hz, duration_ms, self._clock.now_us()))

    def health(self) -> SourceHealth:
        with self._state:
            return self._link.health()

    def describe(self) -> dict[str, Any]:
        """Figures for a test or a bench: the sync's state and the counters."""
        with self._state:
            return self._link.describe()

    # -- the reader thread ---------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                if self._port is None:
                    pause, self._pause_s = self._pause_s, 0.0
                    if pause and self._stopping.wait(pause):
                        break
                    if not self._connect():
                        self._stopping.wait(RETRY_S)
                    continue
                self._step()
            except Exception as err:  # never die: say it, drop the port, try again
                log.exception("buzzer box: unexpected error")
                with self._state:
                    self._drop(f"unexpected error: {err}")
                    self._pause_s = RETRY_S
            self._deliver()
        with self._state:
            if self._port is not None:
                self._close_port()
                self._link.stopped()

    def _deliver(self) -> None:
        """Hand the presses made under the state lock to the handler, outside it (the handler
        takes its own locks, and may ask for this source's health)."""
        with self._state:
            presses, self._outbox = self._outbox, []
        with self._lock:
            handler = self._handler
        if handler is None:
            return
        for press in presses:
            try:
                handler(press)
            except Exception:  # the handler's problem must not stop the reader
                log.exception("buzzer box: the press handler failed on %s", press)

    def _connect(self) -> bool:
        """Find and open the port and ask for a hello; False when there is nothing to open."""
        path = self._port_path
        try:
            path = path or self._find_port() or ""
        except Exception as err:
            log.warning("buzzer box: looking for USB serial ports failed: %s", err)
            path = ""
        if not path:
            with self._state:
                self._apply(self._link.unavailable(f"{self._port_path} is not there" if self._port_path
                                                   else f"no buzzer box found (USB ids {usb_ids_text()})"))
            return False
        try:
            port = self._open_port(path)
        except Exception as err:
            with self._state:
                self._apply(self._link.unavailable(f"cannot open {path}: {open_error(err)}"))
            return False
        try:
            port.reset_input_buffer()  # bytes from before this connection mean nothing now
        except Exception as err:
            log.debug("buzzer box: flushing %s failed: %s", path, err)
        with self._state:
            self._port, self._path, self._broken = port, path, ""
            self._apply(self._link.opened(path, self._clock.now_us()))
        log.info("buzzer box: opened %s", path)
        return True

    def _step(self) -> None:
        port = self._port
        assert port is not None
        with self._state:
            wait = self._link.wait_s(self._clock.now_us())
        data = b""
        try:
            readable, _, _ = select.select([port.fileno()], [], [], wait)
            if readable:
                data = port.read(max(1, port.in_waiting))
        except Exception as err:  # unplugged: SerialException, OSError, ValueError on a closed fd
            with self._state:
                if self._port is port:
                    self._drop(f"{err}")
            return
        now = self._clock.now_us()
        with self._state:
            if self._port is not port:
                return
            if data:
                self._apply(self._link.received(data, now))
            if self._broken:
                self._drop(self._broken)
                return
            self._apply(self._link.due(self._clock.now_us()))

    # -- doing what the link says --------------------------------------------------------------

    def _apply(self, step: Step) -> None:
        """Under the state lock: write, keep the presses for delivery, drop the port if asked."""
        for data in step.writes:
            self._write(data)
        self._outbox += step.presses
        if step.drop:
            self._drop(step.drop)
        if step.pause_s:
            self._pause_s = step.pause_s
        if step.settled:
            self._attempted.set()

    def _write(self, data: bytes) -> None:
        if self._port is None:
            return
        try:
            self._port.write(data)
        except Exception as err:  # SerialException, OSError, a closed port: the reader reconnects
            self._broken = self._broken or f"write failed: {err}"

    def _drop(self, why: str) -> None:
        """Close the port and tell the link, which hands over the presses still waiting."""
        if self._port is None:
            return
        self._close_port()
        self._apply(self._link.closed(why, self._clock.now_us(), self._clock.wall_ms()))

    def _close_port(self) -> None:
        port, self._port = self._port, None
        if port is None:
            return
        try:
            port.close()
        except Exception as err:
            log.debug("buzzer box: closing %s: %s", self._path, err)
