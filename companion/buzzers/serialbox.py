"""The buzzer box: an Arduino (ATmega328P) that timestamps button edges with its own timer and
reports them over USB serial (firmware/PROTOCOL.md).

A press's time is the board's tick count at the edge, mapped onto the host timeline by the clock
sync (`clocksync`): the USB latency never enters it, only the sync's error bound does, and that
bound is the press's uncertainty. Presses of one board also carry the board's clock and ticks, so
the referee compares them exactly with each other.

One reader thread owns the port: it opens the board (found by USB ids, or a configured path),
waits for its HELLO (an Uno resets when the port opens and its bootloader waits about a second),
sends the debounce settings, syncs the clock (a burst, then a steady pace), turns EVENT frames into
presses, resends commands that were not acknowledged, and reopens the port whenever it goes away
(an error, or no frame for half a second). A board that restarts (a HELLO it was not asked for,
its sequence numbers or ticks going back) gets a fresh clock sync. Nothing it reads can stop it.
"""

from __future__ import annotations

import logging
import os
import secrets
import select
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from companion.buzzers import protocol as proto
from companion.buzzers.clocksync import ClockSync, MonotonicMapper, TickUnwrapper, sync_interval_s
from companion.buzzers.protocol import Ack, Event, FrameParser, Heartbeat, Hello, Nak, SyncReply
from companion.buzzers.sources import ButtonHealth, HandlerSlot, Press, SourceHealth
from companion.clock import Clock

log = logging.getLogger(__name__)

USB_IDS: tuple[tuple[int, int], ...] = (
    (0x2341, 0x0043),  # Arduino Uno R3 (16U2)
    (0x2341, 0x0001),  # Arduino Uno (8U2)
    (0x2341, 0x0243),  # Arduino Uno R3 (later 16U2 firmware)
    (0x2A03, 0x0043),  # Arduino.org Uno
    (0x1A86, 0x7523),  # CH340 (Nano and Uno clones)
    (0x0403, 0x6001),  # FTDI FT232R (older Nanos)
    (0x10C4, 0xEA60),  # Silicon Labs CP210x
)

FIRMWARE_PRECISION_US = 1
"""The firmware samples the buttons and reads Timer1 together: well under a microsecond apart."""
RETRY_S = 0.5
"""How often a missing box is looked for again."""
NO_ANSWER_RETRY_S = 5.0
"""How often a port that never said hello is tried again (each try resets an Uno)."""
SILENCE_S = 0.5
"""No frame for this long (heartbeats come every 100 ms) and the box counts as gone."""
HELLO_RETRY_S = 0.5
HELLO_TIMEOUT_S = 3.0
"""An Uno's bootloader waits about a second after the port opens before the firmware starts."""
HELLO_ANSWER_S = 0.5
"""A second hello this soon after a request answers it; later, it means the board restarted."""
ACK_TIMEOUT_S = 0.1
RESENDS = 3
STALE_TOKEN_S = 1.0
"""A sync reply slower than this is no use to the fit: its token is forgotten."""
MAX_WAIT_S = 0.05


class SerialPort(Protocol):
    """What the source needs of a pyserial `Serial`."""

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes, /) -> int | None: ...

    def fileno(self) -> int: ...

    def reset_input_buffer(self) -> None: ...

    def close(self) -> None: ...


PortFinder = Callable[[], str | None]
PortOpener = Callable[[str], SerialPort]


def find_box_ports(usb_ids: Sequence[tuple[int, int]] = USB_IDS) -> list[str]:
    """Serial ports whose USB vendor and product id are a buzzer box's, by device path."""
    from serial.tools import list_ports

    return sorted(p.device for p in list_ports.comports() if (p.vid, p.pid) in usb_ids)


def first_box_port() -> str | None:
    ports = find_box_ports()
    return ports[0] if ports else None


def open_serial_port(path: str) -> SerialPort:
    """The port at 1 000 000 baud, non-blocking reads (the reader waits with select), and an
    exclusive lock so a second companion (or hw-test while the service runs) is told it is busy.

    FTDI adapters hold received bytes up to 16 ms by default, which would make every sync round
    trip that slow: the low-latency flag (which any user may set) brings that to 1 ms."""
    import serial

    port = serial.Serial(path, proto.BAUD, timeout=0, write_timeout=0.5, exclusive=True)
    try:
        port.set_low_latency_mode(True)
    except (ValueError, OSError, AttributeError) as err:  # USB-CDC and ptys have no such flag: fine
        log.debug("buzzer box: no low-latency mode on %s: %s", path, err)
    opened: SerialPort = port
    return opened


def _reason(err: Exception) -> str:
    """An error in a few words: pyserial's open errors repeat the path and wrap the OS error."""
    number = getattr(err, "errno", None)
    if isinstance(number, int):
        return os.strerror(number)
    return str(err)


def usb_ids_text(usb_ids: Sequence[tuple[int, int]] = USB_IDS) -> str:
    return ", ".join(f"{vid:04x}:{pid:04x}" for vid, pid in usb_ids)


def ladder_us(value: int) -> int:
    """The next step of 1-2-5 at or above `value`: health shows a bound that does not change at
    every sync (each change re-renders the host's pages)."""
    step = 1
    while True:
        for factor in (1, 2, 5):
            if step * factor >= value:
                return step * factor
        step *= 10


@dataclass
class _Command:
    frame_type: int
    seq: int
    data: bytes
    sent_us: int
    attempts: int = 1


class _Run:
    """One run of the board's clock, from a hello (or a detected restart) to the next: its own
    tick unwrapping, clock sync and press mapping."""

    def __init__(self, number: int, tick_hz: int, now_us: int) -> None:
        self.number = number
        self.tick_hz = tick_hz
        self.unwrap = TickUnwrapper()
        self.sync = ClockSync(tick_hz)
        self.mapper = MonotonicMapper(self.sync)
        self.tokens: dict[int, int] = {}
        self.next_token = secrets.randbits(32)
        self.sent = 0
        self.first_sync_us: int | None = None
        self.next_sync_us = now_us
        self.last_now: tuple[int, int] | None = None
        """(unwrapped ticks, host us) of the latest heartbeat or sync reply."""
        self.waiting: list[tuple[int, int]] = []
        """(button, unwrapped ticks) of presses that came before the first fit."""


@dataclass
class _Link:
    """One open port."""

    path: str
    port: SerialPort
    number: int
    opened_us: int
    hello_sent_us: int
    last_frame_us: int
    parser: FrameParser = field(default_factory=FrameParser)
    hello: Hello | None = None
    refused: str = ""
    run: _Run | None = None
    commands: dict[tuple[int, int], _Command] = field(default_factory=dict)
    seq_seen: bool = False
    """A heartbeat or an event has been read on this link (the first tells whether the board
    restarted while it was away)."""
    broken: str = ""
    """A write from another thread failed: the reader drops the link."""


@dataclass
class _Counters:
    presses: dict[int, int] = field(default_factory=dict)
    bad_frames: int = 0
    """Of closed links, plus frames with values out of range."""
    garbage_bytes: int = 0
    lost_events: int = 0
    board_restarts: int = 0
    reconnects: int = 0
    last_gap_us: int | None = None
    stale_replies: int = 0
    unanswered: int = 0
    refused_commands: int = 0
    before_hello: int = 0
    dropped: int = 0
    noise: int = 0
    rx_errors: int = 0
    held: int = 0


class SerialBoxSource(HandlerSlot):
    """The buzzer box as a press source. `port` is a fixed path ("" to search with `find_port`,
    by USB ids by default); `open_port` opens one (pyserial; tests may pass their own)."""

    kind = "serial"

    def __init__(self, clock: Clock, *, port: str = "", find_port: PortFinder | None = None,
                 open_port: PortOpener = open_serial_port, name: str = "box", confirm_ms: float = 5.0,
                 mask_ms: float = 50.0, stuck_s: float = 5.0, start_wait_s: float = HELLO_TIMEOUT_S) -> None:
        super().__init__()
        self.name = name
        self._clock = clock
        self._port_path = port
        self._find_port = find_port or first_box_port
        self._open_port = open_port
        self.confirm_us = min(max(round(confirm_ms * 1000), proto.CONFIRM_US_RANGE[0]), proto.CONFIRM_US_RANGE[1])
        self.mask_ms = min(max(round(mask_ms), proto.MASK_MS_RANGE[0]), proto.MASK_MS_RANGE[1])
        if self.confirm_us != round(confirm_ms * 1000) or self.mask_ms != round(mask_ms):
            log.warning("buzzer box: confirmation %.1f ms and mask %.0f ms are beyond what the box accepts; "
                        "it uses %.1f ms and %d ms", confirm_ms, mask_ms, self.confirm_us / 1000, self.mask_ms)
        self.stuck_us = round(stuck_s * 1_000_000)
        self.start_wait_s = start_wait_s
        self._state = threading.RLock()
        self._stopping = threading.Event()
        self._attempted = threading.Event()
        self._thread: threading.Thread | None = None
        self._link: _Link | None = None
        self._links = 0
        self._runs = 0
        self._command_seq = 0
        self._lamps: tuple[int, int] | None = None
        self._outbox: list[Press] = []
        """Presses made under the state lock, delivered after it is released."""
        self._pause_s = 0.0
        """How long the reader waits before it opens the port again."""
        self._problem = "not started"
        """Why the box is not working now (empty when it is)."""
        self._lost = ""
        """How the last connection ended, while the box is away."""
        self._lost_at_us: int | None = None
        self._lost_wall_ms = 0
        self._ever_connected = False
        self._expected_seq: int | None = None
        self._announced_seq: int | None = None
        """The next sequence number the previous heartbeat announced: events below it that have
        not come by the next heartbeat are lost."""
        self._held_since: dict[int, int] = {}
        self._stuck: set[int] = set()
        self._buttons = 8
        self.counters = _Counters()

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
            self._close("stopped")
            self._problem = "stopped"
            self._outbox.clear()
        self._attempted.set()

    @property
    def connected(self) -> bool:
        with self._state:
            return self._link is not None and self._link.hello is not None and not self._link.refused

    @property
    def synced(self) -> bool:
        with self._state:
            link = self._link
            return link is not None and link.run is not None and link.run.sync.synced

    # -- outputs -------------------------------------------------------------------------------

    def set_lamps(self, on: int, blink: int = 0) -> None:
        """Light lamp n with bit n-1 of `on` (blinking at 4 Hz with `blink`). Remembered, and sent
        again after a reconnect."""
        proto.encode_lamps(0, on, blink)  # checks the values before anything is kept
        with self._state:
            self._lamps = (on, blink)
            if not self.connected:
                log.info("buzzer box not connected: lamps %s will be set when it is back", bin(on))
                return
            self._send_command(proto.LAMPS, lambda seq: proto.encode_lamps(seq, on, blink))

    def beep(self, freq_hz: int, duration_ms: int) -> None:
        """A square wave on the box's beeper (0 Hz stops it). Lost while the box is away."""
        proto.encode_beep(0, freq_hz, duration_ms)  # checks the values
        with self._state:
            if not self.connected:
                log.info("buzzer box not connected: beep of %d Hz not played", freq_hz)
                return
            self._send_command(proto.BEEP, lambda seq: proto.encode_beep(seq, freq_hz, duration_ms))

    def _send_command(self, frame_type: int, build: Callable[[int], bytes]) -> None:
        link = self._link
        assert link is not None
        seq = self._next_seq()
        data = build(seq)
        link.commands[(frame_type, seq)] = _Command(frame_type, seq, data, self._clock.now_us())
        self._write(link, data)

    def _write(self, link: _Link, data: bytes) -> None:
        try:
            link.port.write(data)
        except Exception as err:  # SerialException, OSError, a closed port: the reader reconnects
            link.broken = link.broken or f"write failed: {err}"

    # -- the reader thread ---------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                if self._link is None:
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
                    self._close(f"unexpected error: {err}")
                    self._pause_s = RETRY_S
            self._deliver()
        with self._state:
            self._close("stopped")

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
                self._problem = (f"{self._port_path} is not there" if self._port_path
                                 else f"no buzzer box found (USB ids {usb_ids_text()})")
            self._attempted.set()
            return False
        try:
            port = self._open_port(path)
        except Exception as err:
            with self._state:
                self._problem = f"cannot open {path}: {_reason(err)}"
            self._attempted.set()
            return False
        try:
            port.reset_input_buffer()  # bytes from before this connection mean nothing now
        except Exception as err:
            log.debug("buzzer box: flushing %s failed: %s", path, err)
        with self._state:
            now = self._clock.now_us()
            self._links += 1
            link = _Link(path, port, self._links, now, now, now)
            self._link = link
            self._problem = f"{path}: waiting for the board's hello"
            self._write(link, proto.encode_hello_request(self._next_seq()))
        log.info("buzzer box: opened %s", path)
        return True

    def _next_seq(self) -> int:
        self._command_seq = (self._command_seq + 1) & 0xFF
        return self._command_seq

    def _step(self) -> None:
        link = self._link
        assert link is not None
        wait = self._wait_s(link, self._clock.now_us())
        data = b""
        try:
            readable, _, _ = select.select([link.port.fileno()], [], [], wait)
            if readable:
                data = link.port.read(max(1, link.port.in_waiting))
        except Exception as err:  # unplugged: SerialException, OSError, ValueError on a closed fd
            with self._state:
                self._close(f"{err}")
            return
        now = self._clock.now_us()
        with self._state:
            if self._link is not link:
                return
            for frame in link.parser.feed(data) if data else ():
                link.last_frame_us = now
                self._on_frame(link, frame, now)
                if self._link is not link:
                    return
            self._tick(link, now)

    def _wait_s(self, link: _Link, now: int) -> float:
        due = [now + round(MAX_WAIT_S * 1e6)]
        if link.hello is None:
            due.append(link.hello_sent_us + round(HELLO_RETRY_S * 1e6))
        elif link.run is not None:
            due.append(link.run.next_sync_us)
            due.append(link.last_frame_us + round(SILENCE_S * 1e6))
        due += [c.sent_us + round(ACK_TIMEOUT_S * 1e6) for c in link.commands.values()]
        return max(0.0, (min(due) - now) / 1e6)

    def _tick(self, link: _Link, now: int) -> None:
        """What is due: a hello request, a sync, a resend; a silent or broken link is dropped."""
        if link.broken:
            self._close(link.broken)
            return
        if link.hello is None:
            if now - link.opened_us >= HELLO_TIMEOUT_S * 1e6:
                self._close(f"no hello in {HELLO_TIMEOUT_S:g} s: is it the buzzer box, with its firmware?")
                self._pause_s = NO_ANSWER_RETRY_S
                self._attempted.set()
                return
            if now - link.hello_sent_us >= HELLO_RETRY_S * 1e6:
                link.hello_sent_us = now
                self._write(link, proto.encode_hello_request(self._next_seq()))
            return
        if link.refused:
            return
        if now - link.last_frame_us >= SILENCE_S * 1e6:
            self._close(f"no data for {SILENCE_S:g} s")
            return
        run = link.run
        if run is not None and now >= run.next_sync_us:
            token = run.next_token
            run.next_token = (token + 1) & 0xFFFF_FFFF
            t1 = self._clock.now_us()
            self._write(link, proto.encode_sync(token))
            run.tokens[token] = t1
            if run.first_sync_us is None:
                run.first_sync_us = t1
            run.sent += 1
            run.next_sync_us = t1 + round(sync_interval_s(run.sent, (t1 - run.first_sync_us) / 1e6) * 1e6)
            stale = t1 - round(STALE_TOKEN_S * 1e6)
            for old in [t for t, sent in run.tokens.items() if sent < stale]:
                del run.tokens[old]
        for key, command in list(link.commands.items()):
            if now - command.sent_us < ACK_TIMEOUT_S * 1e6:
                continue
            if command.attempts > RESENDS:
                del link.commands[key]
                self.counters.unanswered += 1
                log.warning("buzzer box: command %02x (sequence %d) never acknowledged", command.frame_type,
                            command.seq)
                continue
            command.attempts += 1
            command.sent_us = now
            self._write(link, command.data)

    # -- frames --------------------------------------------------------------------------------

    def _on_frame(self, link: _Link, frame: proto.Frame, now: int) -> None:
        if isinstance(frame, Hello):
            self._on_hello(link, frame, now)
        elif link.hello is None or link.refused or link.run is None:
            if isinstance(frame, Event):
                self.counters.before_hello += 1
        elif isinstance(frame, Event):
            self._on_event(link, frame, now)
        elif isinstance(frame, Heartbeat):
            self._on_heartbeat(link, frame, now)
        elif isinstance(frame, SyncReply):
            self._on_sync_reply(link, frame, now)
        elif isinstance(frame, Ack | Nak):
            command = link.commands.pop((frame.command, frame.seq), None)
            if isinstance(frame, Nak) and command is not None:
                self.counters.refused_commands += 1
                log.warning("buzzer box refused command %02x (sequence %d): reason %d", frame.command, frame.seq,
                            frame.reason)

    def _on_hello(self, link: _Link, hello: Hello, now: int) -> None:
        if hello.protocol != proto.PROTOCOL_VERSION or hello.tick_hz <= 0 or not 1 <= hello.buttons <= 8:
            link.hello = hello
            if hello.protocol == proto.PROTOCOL_VERSION:
                link.refused = f"{link.path}: the board's hello makes no sense ({hello})"
            else:
                link.refused = (f"{link.path}: the board speaks protocol {hello.protocol} (firmware "
                                f"{hello.firmware}), this companion protocol {proto.PROTOCOL_VERSION}: flash the "
                                "firmware that comes with this companion")
            if link.run is not None:
                self._end_run(link)
            self._problem = link.refused
            log.error("buzzer box: %s", link.refused)
            self._attempted.set()
            return
        first = link.hello is None or link.refused
        link.hello, link.refused = hello, ""
        self._buttons = hello.buttons
        if not first and now - link.hello_sent_us < HELLO_ANSWER_S * 1e6:
            return  # the answer to a request sent just before the hello that came by itself
        if first:
            if self._ever_connected:
                self.counters.reconnects += 1
                if self._lost_at_us is not None:
                    self.counters.last_gap_us = now - self._lost_at_us
            self._ever_connected = True
            self._lost_at_us = None
            self._lost = ""
            self._announced_seq = None
            self._new_run(link, now)
            self._send_command(proto.DEBOUNCE, lambda seq: proto.encode_debounce(seq, self.confirm_us, self.mask_ms))
            if self._lamps is not None:
                on, blink = self._lamps
                self._send_command(proto.LAMPS, lambda s: proto.encode_lamps(s, on, blink))
            self._problem = ""
            log.info("buzzer box on %s: firmware %s, %d buttons, protocol %d", link.path, hello.firmware,
                     hello.buttons, hello.protocol)
        else:
            self._restart(link, now, "it said hello again")

    def _new_run(self, link: _Link, now: int) -> None:
        assert link.hello is not None
        self._runs += 1
        link.run = _Run(self._runs, link.hello.tick_hz, now)

    def _restart(self, link: _Link, now: int, why: str) -> None:
        """The board restarted: its clock and sequence numbers begin again. Seen in the first
        numbers of a link, it restarted while away: this link's clock run began after that."""
        c = self.counters
        c.board_restarts += 1
        c.dropped = c.noise = c.rx_errors = c.held = 0  # the board's counters start again too
        self._held_since.clear()
        self._stuck.clear()
        if not link.seq_seen:
            log.info("buzzer box restarted while it was away (%s)", why)
            self._settle_announced()
            self._expected_seq = 0
            return
        log.warning("buzzer box restarted (%s): syncing its clock again", why)
        self._end_run(link)
        self._expected_seq = 0
        self._new_run(link, now)

    def _end_run(self, link: _Link) -> None:
        """Presses still waiting for a fit get the best there is (a wide bound), or are lost;
        events the last heartbeat announced that never came are lost."""
        run = link.run
        link.run = None
        if run is not None:
            self._flush_waiting(run)
        self._settle_announced()

    def _flush_waiting(self, run: _Run) -> None:
        """Map the presses that waited for the clock sync (lost when there is still no fit)."""
        waiting, run.waiting = run.waiting, []
        for button, ticks in waiting:
            press = self._press(run, button, ticks)
            if press is None:
                self.counters.lost_events += 1
                log.warning("buzzer box: a press of button %d came before any clock sync and is lost", button)
            else:
                self._outbox.append(press)

    def _settle_announced(self) -> None:
        if self._announced_seq is not None and self._expected_seq is not None:
            gap = (self._announced_seq - self._expected_seq) & 0xFFFF
            if 0 < gap < 0x8000:
                self.counters.lost_events += gap
                self._expected_seq = self._announced_seq
        self._announced_seq = None

    def _board_ticks(self, link: _Link, raw: int, now: int) -> _Run:
        """The run a "now" tick value (heartbeat, sync reply) belongs to: ticks that went back, or
        jumped far ahead of the host's elapsed time, mean the board restarted."""
        run = link.run
        assert run is not None
        if run.last_now is not None:
            ticks, host_us = run.last_now
            board_s = (run.unwrap.peek(raw) - ticks) / run.tick_hz
            host_s = (now - host_us) / 1e6
            if board_s < -0.05 or board_s > host_s * 1.02 + 1.0:
                self._restart(link, now, f"its clock jumped by {board_s:+.3f} s in {host_s:.3f} s")
                assert link.run is not None
                run = link.run
        value = run.unwrap.unwrap(raw)
        if run.last_now is None or value >= run.last_now[0]:
            run.last_now = (value, now)
        return run

    def _on_event(self, link: _Link, event: Event, now: int) -> None:
        assert link.hello is not None and link.run is not None
        if not 1 <= event.button <= link.hello.buttons or event.edge not in (0, 1):
            self.counters.bad_frames += 1
            return
        if self._expected_seq is not None:
            gap = (event.seq - self._expected_seq) & 0xFFFF
            if gap >= 0x8000:
                self._restart(link, now, f"event {event.seq} when {self._expected_seq} was next")
                gap = event.seq
            self.counters.lost_events += gap
        link.seq_seen = True
        self._expected_seq = (event.seq + 1) & 0xFFFF
        bit = 1 << (event.button - 1)
        if not event.pressed:
            self.counters.held &= ~bit
            self._held_since.pop(event.button, None)
            self._stuck.discard(event.button)
            return
        self.counters.held |= bit
        run = link.run
        assert run is not None
        ticks = run.unwrap.unwrap(event.ticks)
        if run.sync.synced:
            press = self._press(run, event.button, ticks)
            if press is not None:
                self._outbox.append(press)
        else:
            run.waiting.append((event.button, ticks))

    def _on_heartbeat(self, link: _Link, beat: Heartbeat, now: int) -> None:
        c = self.counters
        went_back = self._expected_seq is not None and (beat.next_seq - self._expected_seq) & 0xFFFF >= 0x8000
        counters_back = beat.dropped < c.dropped or beat.noise < c.noise or beat.rx_errors < c.rx_errors
        if went_back or counters_back:
            self._restart(link, now, "its sequence numbers or counters went back")
        link.seq_seen = True
        self._board_ticks(link, beat.ticks, now)
        if self._expected_seq is None:
            self._expected_seq = beat.next_seq
        self._settle_announced()
        self._announced_seq = beat.next_seq
        c.dropped, c.noise, c.rx_errors, c.held = beat.dropped, beat.noise, beat.rx_errors, beat.held
        for button in range(1, 9):
            if beat.held & (1 << (button - 1)):
                since = self._held_since.setdefault(button, now)
                if now - since >= self.stuck_us:
                    self._stuck.add(button)
            else:
                self._held_since.pop(button, None)
                self._stuck.discard(button)

    def _on_sync_reply(self, link: _Link, reply: SyncReply, now: int) -> None:
        run = self._board_ticks(link, reply.ticks, now)
        t1 = run.tokens.pop(reply.token, None)
        if t1 is None:
            self.counters.stale_replies += 1
            return
        run.sync.add(t1, run.unwrap.unwrap(reply.ticks), now)
        if run.sync.synced:
            self._flush_waiting(run)
            self._attempted.set()

    def _press(self, run: _Run, button: int, ticks: int) -> Press | None:
        mapped = run.mapper.map(ticks)
        if mapped is None:
            return None
        self.counters.presses[button] = self.counters.presses.get(button, 0) + 1
        return Press(f"{self.name}:{button}", mapped.t_us, self.name, mapped.bound_us + FIRMWARE_PRECISION_US,
                     clock=f"{self.name}@{run.number}", local_ns=ticks * 1_000_000_000 // run.tick_hz)

    # -- losing the port -----------------------------------------------------------------------

    def _close(self, why: str) -> None:
        link = self._link
        if link is None:
            return
        self._link = None
        self._end_run(link)
        self.counters.bad_frames += link.parser.bad_frames
        self.counters.garbage_bytes += link.parser.garbage_bytes
        try:
            link.port.close()
        except Exception as err:
            log.debug("buzzer box: closing %s: %s", link.path, err)
        if why == "stopped":
            return
        if link.hello is not None and not link.refused and self._lost_at_us is None:
            self._lost_at_us = self._clock.now_us()
            self._lost_wall_ms = self._clock.wall_ms()
            self._lost = f"lost {link.path} ({why})"
        self._problem = "looking for it again" if self._lost else f"{link.path}: {why}"
        log.warning("buzzer box: %s: %s", link.path, why)

    def _not_working(self, link: _Link | None) -> str:
        problem = (link.refused if link and link.refused else self._problem) or "not connected"
        if self._lost_at_us is None:
            return problem
        since = time.strftime("%H:%M:%S", time.localtime(self._lost_wall_ms / 1000))
        return f"{self._lost} at {since}; {problem}"

    # -- health --------------------------------------------------------------------------------

    def health(self) -> SourceHealth:
        with self._state:
            link = self._link
            c = self.counters
            buttons = tuple(ButtonHealth(f"{self.name}:{n}", c.presses.get(n, 0), 0, 0, n in self._stuck,
                                         bool(c.held & (1 << (n - 1))))
                            for n in range(1, self._buttons + 1))
            bad = c.bad_frames + (link.parser.bad_frames if link else 0)
            counts = (f"bad frames {bad}, lost events {c.lost_events}, dropped {c.dropped}, noise {c.noise}, "
                      f"board restarts {c.board_restarts}, reconnects {c.reconnects}")
            if c.last_gap_us is not None:
                counts += f" (last gap {c.last_gap_us / 1e6:.1f} s)"
            if c.unanswered or c.refused_commands:
                counts += f", commands unanswered {c.unanswered}, refused {c.refused_commands}"
            if c.rx_errors:
                counts += f", board receive errors {c.rx_errors}"
            if link is None or link.hello is None or link.refused or link.run is None:
                problem = self._not_working(link)
                if not self._ever_connected:
                    return SourceHealth(self.name, self.kind, False, problem, 0, buttons)
                return SourceHealth(self.name, self.kind, False, f"{problem}; {counts}", 0, buttons)
            run = link.run
            where = f"{link.path}, firmware {link.hello.firmware}"
            if not run.sync.synced:
                return SourceHealth(self.name, self.kind, False, f"{where}: syncing the clock; {counts}", 0, buttons)
            ticks = run.last_now[0] if run.last_now else run.unwrap.latest or 0
            bound = ladder_us((run.sync.bound_us(ticks) or 0) + FIRMWARE_PRECISION_US)
            stuck = [f"{self.name}:{n}" for n in sorted(self._stuck)]
            detail = f"{where}, sync ±{bound} µs; {counts}"
            if stuck:
                detail = f"stuck (held down): {', '.join(stuck)}; {detail}"
            return SourceHealth(self.name, self.kind, not stuck, detail, bound, buttons)

    def describe(self) -> dict[str, Any]:
        """Figures for a test or a bench: the sync's state and the counters."""
        with self._state:
            link = self._link
            run = link.run if link else None
            counters = replace(self.counters, presses=dict(self.counters.presses))
            if run is None:
                return {"connected": False, "clock": None, "sync": None, "bound_us": None, "counters": counters}
            return {"connected": link is not None and link.hello is not None and not link.refused,
                    "clock": f"{self.name}@{run.number}", "sync": run.sync.stats(),
                    "bound_us": run.sync.bound_us(run.last_now[0]) if run.last_now else None,
                    "counters": counters}
