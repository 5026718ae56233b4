"""A buzzer box in Python, on a real pseudo-terminal: what the host's serial source talks to in the
tests and the benchmarks, and a box to try the service with (`[buttons] serial_port` is `link`).
The real firmware runs in simavr instead with `companion.sim.simavr`.

It speaks firmware/PROTOCOL.md through the same `protocol` module as the host, with a clock of its
own (16 MHz nominal, off by `drift_ppm`, starting at `tick0`) derived from the host's monotonic
clock, so a test knows the true host time of every edge it makes. It can be unplugged (the pty
closes, as when the USB cable is pulled) and plugged in again on a new pty (the symlink at `link`
is pointed at it), restarted (sequence numbers and clock start again), muted, and told not to
acknowledge commands.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
import tty
from dataclasses import dataclass
from pathlib import Path

from companion.buzzers import protocol as proto

TICK_HZ = 16_000_000


def now_us() -> int:
    """The host timeline (companion.clock.MonotonicClock's)."""
    return time.monotonic_ns() // 1000


@dataclass(frozen=True)
class Edge:
    """An edge the box reported: its sequence number, true host time and ticks (unwrapped)."""

    seq: int
    button: int
    pressed: bool
    host_us: float
    ticks: int


class FakeBox:
    def __init__(self, link: Path, *, drift_ppm: float = 0.0, tick0: int = 5 * TICK_HZ, protocol: int = 1,
                 buttons: int = 8, firmware: tuple[int, int, int] = (1, 0, 0)) -> None:
        self.link = link
        self.drift_ppm = drift_ppm
        self.protocol = protocol
        self.buttons = buttons
        self.firmware = firmware
        self.commands: list[proto.Frame] = []
        """Every host command read, in order (SYNC included)."""
        self.unanswered = 0
        """Commands with a sequence number to leave without an ACK (then answer again)."""
        self.answer_commands = True
        self.nak_reason = 0
        """Refuse commands with this reason (NAK) instead of acknowledging them."""
        self.answer_syncs = True
        self.hellos_per_request = 1
        """2: an Uno whose firmware starts just before a hello request reaches it says its own hello, then answers."""
        self.muted = False
        """Sends nothing at all (heartbeats, answers) while set."""
        self.rx_errors = 0
        self.noise = 0
        self.dropped = 0
        self.held = 0
        self._lock = threading.RLock()
        self._origin_us = now_us()
        self._tick0 = tick0
        self.seq = 0
        self._master: int | None = None
        self._slave: int | None = None
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.plug()

    # -- the board's clock ---------------------------------------------------------------------

    def ticks_at(self, host_us: float) -> int:
        """The board's tick count (unwrapped) at a host time."""
        return self._tick0 + int((host_us - self._origin_us) * 16 * (1 + self.drift_ppm * 1e-6))

    def host_us_of(self, ticks: int) -> float:
        return self._origin_us + (ticks - self._tick0) / (16 * (1 + self.drift_ppm * 1e-6))

    # -- the cable -----------------------------------------------------------------------------

    @property
    def path(self) -> str:
        assert self._slave is not None
        return os.ttyname(self._slave)

    def plug(self) -> None:
        """A new pty (as a replugged board gets a new device), the symlink pointed at it, and the
        board starts talking. The board's state (clock, sequence numbers) carries on."""
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing, before anyone opens it
        os.set_blocking(master, False)  # a host that does not read never blocks the board
        self._master, self._slave = master, slave
        tmp = self.link.with_name(self.link.name + ".new")
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(os.ttyname(slave))
        tmp.replace(self.link)
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._read, args=(master, self._stop), daemon=True),
                         threading.Thread(target=self._beat, args=(self._stop,), daemon=True)]
        for thread in self._threads:
            thread.start()
        self.send(proto.encode_hello(self.protocol, self.firmware, TICK_HZ, self.buttons, self.buttons, 1))

    def unplug(self) -> None:
        """The cable is pulled: the pty goes away under the host's feet."""
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=2)
        with self._lock:
            for fd in (self._master, self._slave):
                if fd is not None:
                    os.close(fd)
            self._master = self._slave = None

    def close(self) -> None:
        if self._master is not None:
            self.unplug()

    def restart(self, say_hello: bool = True) -> None:
        """A reset (watchdog, brown-out, reset button): sequence numbers and ticks start again."""
        with self._lock:
            self._origin_us = now_us()
            self._tick0 = 0
            self.seq = 0
            self.noise = self.dropped = self.rx_errors = 0
            self.held = 0
            if say_hello:
                self.send(proto.encode_hello(self.protocol, self.firmware, TICK_HZ, self.buttons, self.buttons, 2))

    # -- talking -------------------------------------------------------------------------------

    def send(self, data: bytes) -> None:
        with self._lock:
            if self._master is None or self.muted:
                return
            with contextlib.suppress(OSError):  # a full buffer: the bytes are lost, as on a real line
                os.write(self._master, data)

    def edge(self, button: int, pressed: bool, at_us: float | None = None, send: bool = True) -> Edge:
        """An edge at host time `at_us` (now by default), reported at once (`send`) or lost (the
        board is unplugged: it still counts the event)."""
        with self._lock:
            host_us = float(now_us()) if at_us is None else at_us
            ticks = self.ticks_at(host_us)
            edge = Edge(self.seq, button, pressed, host_us, ticks)
            self.seq = (self.seq + 1) & 0xFFFF
            if pressed:
                self.held |= 1 << (button - 1)
            else:
                self.held &= ~(1 << (button - 1))
            if send:
                self.send(proto.encode_event(edge.seq, button, pressed, ticks))
            return edge

    def press(self, button: int, at_us: float | None = None, send: bool = True) -> Edge:
        """A press and its release 30 ms later (both reported now)."""
        edge = self.edge(button, True, at_us, send)
        self.edge(button, False, edge.host_us + 30_000, send)
        return edge

    def heartbeat(self) -> None:
        with self._lock:
            self.send(proto.encode_heartbeat(self.ticks_at(now_us()), self.seq, self.dropped, self.noise,
                                             self.rx_errors, self.held))

    def _beat(self, stop: threading.Event) -> None:
        while not stop.wait(0.1):
            self.heartbeat()

    def _read(self, master: int, stop: threading.Event) -> None:
        parser = proto.FrameParser(proto.HOST_FRAMES)
        while not stop.is_set():
            try:
                ready, _, _ = select.select([master], [], [], 0.02)
                if not ready:
                    continue
                data = os.read(master, 4096)
            except OSError:
                return
            # Stamped and answered in one turn of the lock, as the board's one loop does: a
            # heartbeat stamped later can never go out before a reply stamped sooner (a reader
            # held up between its stamp and its reply made the host see the clock go back).
            with self._lock:
                read_us = now_us()
                before = parser.bad_frames
                for frame in parser.feed(data):
                    self._answer(frame, read_us)
                self.rx_errors += parser.bad_frames - before

    def _answer(self, frame: proto.Frame, read_us: int) -> None:
        with self._lock:
            self.commands.append(frame)
            if isinstance(frame, proto.Sync):
                if self.answer_syncs:
                    self.send(proto.encode_sync_reply(frame.token, self.ticks_at(read_us)))
                return
            if isinstance(frame, proto.HelloRequest):
                for _ in range(self.hellos_per_request):
                    self.send(proto.encode_hello(self.protocol, self.firmware, TICK_HZ, self.buttons, self.buttons, 1))
                return
            seq = getattr(frame, "seq", 0)
            if not self.answer_commands:
                return
            if self.unanswered > 0:
                self.unanswered -= 1
                return
            if self.nak_reason:
                self.send(proto.encode_nak(frame.TYPE, seq, self.nak_reason))
                return
            self.send(proto.encode_ack(frame.TYPE, seq))
            if isinstance(frame, proto.Reset):
                self.restart()

    def received(self, kind: type) -> list[proto.Frame]:
        with self._lock:
            return [c for c in self.commands if isinstance(c, kind)]
