"""The buzzer box's link as a state machine: bytes read and times in; bytes to write, presses, and
whether to drop the port out (firmware/PROTOCOL.md).

It does no I/O, starts no thread and reads no clock, like `protocol`: the source that owns the
serial port (`serialbox`) tells it when the port opened or closed, feeds it what the port read
and when, asks it what is due, and does what each answer (a `Step`) says. So every rule of the
link (the handshake, resends, lost events, board restarts, the clock sync, health) is testable
with plain bytes and times.

Once a port is open the link asks for the board's HELLO (an Uno resets when the port opens and
its bootloader waits about a second), sends the debounce settings, syncs the clock (a burst, then
a steady pace), hands the frames about the buttons to the board (`boxboard`), resends commands
that were not acknowledged, and asks for the port to be dropped when it goes quiet (no frame for
half a second). A hello it did not ask for means the board restarted. Nothing it reads can stop it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from companion.buzzers import protocol as proto
from companion.buzzers.boxboard import Board, BoxCounters
from companion.buzzers.protocol import Ack, Event, FrameParser, Heartbeat, Hello, Nak, SyncReply
from companion.buzzers.sources import Press, SourceHealth

log = logging.getLogger(__name__)

KIND = "serial"
"""The kind of press source a buzzer box is, in its health."""
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
MAX_WAIT_S = 0.05


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
class Step:
    """What the link asks of the port's owner after an input, to be done in this order."""

    writes: list[bytes] = field(default_factory=list)
    """Frames to write to the port."""
    presses: list[Press] = field(default_factory=list)
    drop: str = ""
    """Why the port must be closed (then `closed` is to be called); empty to keep it."""
    pause_s: float = 0.0
    """How long to wait before the port is opened again."""
    settled: bool = False
    """The box is ready, or its problem known: whoever waits for the first attempt may go on."""


@dataclass
class _Command:
    frame_type: int
    seq: int
    data: bytes
    sent_us: int
    attempts: int = 1


@dataclass
class _Connection:
    """One open port."""

    path: str
    opened_us: int
    hello_sent_us: int
    last_frame_us: int
    parser: FrameParser = field(default_factory=FrameParser)
    hello: Hello | None = None
    refused: str = ""
    commands: dict[tuple[int, int], _Command] = field(default_factory=dict)


class BoxLink:
    """One buzzer box, across every connection to it: presses are named `name:button`, and its
    debounce settings are clamped to what the firmware accepts."""

    def __init__(self, name: str = "box", *, confirm_ms: float = 5.0, mask_ms: float = 50.0,
                 stuck_s: float = 5.0) -> None:
        self.name = name
        self.confirm_us = min(max(round(confirm_ms * 1000), proto.CONFIRM_US_RANGE[0]), proto.CONFIRM_US_RANGE[1])
        self.mask_ms = min(max(round(mask_ms), proto.MASK_MS_RANGE[0]), proto.MASK_MS_RANGE[1])
        if self.confirm_us != round(confirm_ms * 1000) or self.mask_ms != round(mask_ms):
            log.warning("buzzer box: confirmation %.1f ms and mask %.0f ms are beyond what the box accepts; "
                        "it uses %.1f ms and %d ms", confirm_ms, mask_ms, self.confirm_us / 1000, self.mask_ms)
        self.counters = BoxCounters()
        self.board = Board(name, round(stuck_s * 1_000_000), self.counters)
        self._conn: _Connection | None = None
        self._command_seq = 0
        self._lamps: tuple[int, int] | None = None
        self._step = Step()
        """What the input being handled asks for so far."""
        self._problem = "not started"
        """Why the box is not working now (empty when it is)."""
        self._lost = ""
        """How the last connection ended, while the box is away."""
        self._lost_at_us: int | None = None
        self._lost_wall_ms = 0
        self._ever_connected = False

    # -- inputs --------------------------------------------------------------------------------

    def unavailable(self, problem: str) -> Step:
        """There is no port to open, or it would not open."""
        self._problem = problem
        self._step.settled = True
        return self._take()

    def opened(self, path: str, now_us: int) -> Step:
        """A port is open (its stale input flushed): ask the board for its hello."""
        self._conn = _Connection(path, now_us, now_us, now_us)
        self.board.connection_opened()
        self._problem = f"{path}: waiting for the board's hello"
        self._step.writes.append(proto.encode_hello_request(self._next_seq()))
        return self._take()

    def received(self, data: bytes, now_us: int) -> Step:
        """Bytes the port read at `now_us`."""
        conn = self._conn
        if conn is not None:
            for frame in conn.parser.feed(data):
                conn.last_frame_us = now_us
                self._on_frame(conn, frame, now_us)
        return self._take()

    def due(self, now_us: int) -> Step:
        """What is due by `now_us`: a hello request, a sync, a resend, or dropping a silent port."""
        if self._conn is not None:
            self._tick(self._conn, now_us)
        return self._take()

    def wait_s(self, now_us: int) -> float:
        """How long the port's owner may wait for bytes before `due` has something to do."""
        conn = self._conn
        due = [now_us + round(MAX_WAIT_S * 1e6)]
        if conn is not None and conn.hello is None:
            due.append(conn.hello_sent_us + round(HELLO_RETRY_S * 1e6))
        elif conn is not None and self.board.run is not None:
            due.append(self.board.run.next_sync_us)
            due.append(conn.last_frame_us + round(SILENCE_S * 1e6))
        if conn is not None:
            due += [c.sent_us + round(ACK_TIMEOUT_S * 1e6) for c in conn.commands.values()]
        return max(0.0, (min(due) - now_us) / 1e6)

    def closed(self, why: str, now_us: int, wall_ms: int) -> Step:
        """The port is gone (an error, or dropped as a `Step` asked): presses still waiting for
        the sync get the best mapping there is, and the loss is remembered for health."""
        conn = self._end_connection()
        if conn is not None:
            if conn.hello is not None and not conn.refused and self._lost_at_us is None:
                self._lost_at_us = now_us
                self._lost_wall_ms = wall_ms
                self._lost = f"lost {conn.path} ({why})"
            self._problem = "looking for it again" if self._lost else f"{conn.path}: {why}"
            log.warning("buzzer box: %s: %s", conn.path, why)
        return self._take()

    def stopped(self) -> None:
        """The source stopped: its connection ends with nothing more delivered, and no loss."""
        self._end_connection()
        self._problem = "stopped"
        self._take()

    def set_lamps(self, on: int, blink: int, now_us: int) -> Step:
        """Light lamp n with bit n-1 of `on` (blinking at 4 Hz with `blink`). Remembered, and sent
        again after a reconnect."""
        proto.encode_lamps(0, on, blink)  # checks the values before anything is kept
        self._lamps = (on, blink)
        if not self.connected:
            log.info("buzzer box not connected: lamps %s will be set when it is back", bin(on))
        else:
            self._send_command(proto.LAMPS, lambda seq: proto.encode_lamps(seq, on, blink), now_us)
        return self._take()

    def beep(self, freq_hz: int, duration_ms: int, now_us: int) -> Step:
        """A square wave on the box's beeper (0 Hz stops it). Lost while the box is away."""
        proto.encode_beep(0, freq_hz, duration_ms)  # checks the values
        if not self.connected:
            log.info("buzzer box not connected: beep of %d Hz not played", freq_hz)
        else:
            self._send_command(proto.BEEP, lambda seq: proto.encode_beep(seq, freq_hz, duration_ms), now_us)
        return self._take()

    @property
    def connected(self) -> bool:
        conn = self._conn
        return conn is not None and conn.hello is not None and not conn.refused

    @property
    def synced(self) -> bool:
        return self._conn is not None and self.board.run is not None and self.board.run.sync.synced

    # -- what is due ---------------------------------------------------------------------------

    def _take(self) -> Step:
        step, self._step = self._step, Step()
        step.presses += self.board.presses
        self.board.presses = []
        return step

    def _next_seq(self) -> int:
        self._command_seq = (self._command_seq + 1) & 0xFF
        return self._command_seq

    def _send_command(self, frame_type: int, build: Callable[[int], bytes], now_us: int) -> None:
        conn = self._conn
        assert conn is not None
        seq = self._next_seq()
        data = build(seq)
        conn.commands[(frame_type, seq)] = _Command(frame_type, seq, data, now_us)
        self._step.writes.append(data)

    def _tick(self, conn: _Connection, now: int) -> None:
        if conn.hello is None:
            if now - conn.opened_us >= HELLO_TIMEOUT_S * 1e6:
                self._step.drop = f"no hello in {HELLO_TIMEOUT_S:g} s: is it the buzzer box, with its firmware?"
                self._step.pause_s = NO_ANSWER_RETRY_S
                self._step.settled = True
                return
            if now - conn.hello_sent_us >= HELLO_RETRY_S * 1e6:
                conn.hello_sent_us = now
                self._step.writes.append(proto.encode_hello_request(self._next_seq()))
            return
        if conn.refused:
            return
        if now - conn.last_frame_us >= SILENCE_S * 1e6:
            self._step.drop = f"no data for {SILENCE_S:g} s"
            return
        run = self.board.run
        if run is not None and now >= run.next_sync_us:
            self._step.writes.append(run.sync_request(now))
        for key, command in list(conn.commands.items()):
            if now - command.sent_us < ACK_TIMEOUT_S * 1e6:
                continue
            if command.attempts > RESENDS:
                del conn.commands[key]
                self.counters.unanswered += 1
                log.warning("buzzer box: command %02x (sequence %d) never acknowledged", command.frame_type,
                            command.seq)
                continue
            command.attempts += 1
            command.sent_us = now
            self._step.writes.append(command.data)

    def _end_connection(self) -> _Connection | None:
        conn, self._conn = self._conn, None
        if conn is not None:
            self.board.end_run()
            self.counters.bad_frames += conn.parser.bad_frames
            self.counters.garbage_bytes += conn.parser.garbage_bytes
        return conn

    # -- frames --------------------------------------------------------------------------------

    def _on_frame(self, conn: _Connection, frame: proto.Frame, now: int) -> None:
        if isinstance(frame, Hello):
            self._on_hello(conn, frame, now)
        elif conn.hello is None or conn.refused or self.board.run is None:
            if isinstance(frame, Event):
                self.counters.before_hello += 1
        elif isinstance(frame, Event):
            if not self.board.on_event(frame, now):
                self.counters.bad_frames += 1
        elif isinstance(frame, Heartbeat):
            self.board.on_heartbeat(frame, now)
        elif isinstance(frame, SyncReply):
            if self.board.on_sync_reply(frame, now):
                self._step.settled = True
        elif isinstance(frame, Ack | Nak):
            command = conn.commands.pop((frame.command, frame.seq), None)
            if isinstance(frame, Nak) and command is not None:
                self.counters.refused_commands += 1
                log.warning("buzzer box refused command %02x (sequence %d): reason %d", frame.command, frame.seq,
                            frame.reason)

    def _on_hello(self, conn: _Connection, hello: Hello, now: int) -> None:
        if hello.protocol != proto.PROTOCOL_VERSION or hello.tick_hz <= 0 or not 1 <= hello.buttons <= 8:
            conn.hello = hello
            if hello.protocol == proto.PROTOCOL_VERSION:
                conn.refused = f"{conn.path}: the board's hello makes no sense ({hello})"
            else:
                conn.refused = (f"{conn.path}: the board speaks protocol {hello.protocol} (firmware "
                                f"{hello.firmware}), this companion protocol {proto.PROTOCOL_VERSION}: flash the "
                                "firmware that comes with this companion")
            if self.board.run is not None:
                self.board.end_run()
            self._problem = conn.refused
            log.error("buzzer box: %s", conn.refused)
            self._step.settled = True
            return
        first = conn.hello is None or conn.refused
        conn.hello, conn.refused = hello, ""
        self.board.heard(hello)
        if not first and now - conn.hello_sent_us < HELLO_ANSWER_S * 1e6:
            return  # the answer to a request sent just before the hello that came by itself
        if not first:
            self.board.restart(now, "it said hello again")
            return
        if self._ever_connected:
            self.counters.reconnects += 1
            if self._lost_at_us is not None:
                self.counters.last_gap_us = now - self._lost_at_us
        self._ever_connected = True
        self._lost_at_us = None
        self._lost = ""
        self.board.start_run(now)
        self._send_command(proto.DEBOUNCE, lambda seq: proto.encode_debounce(seq, self.confirm_us, self.mask_ms),
                           now)
        if self._lamps is not None:
            on, blink = self._lamps
            self._send_command(proto.LAMPS, lambda s: proto.encode_lamps(s, on, blink), now)
        self._problem = ""
        log.info("buzzer box on %s: firmware %s, %d buttons, protocol %d", conn.path, hello.firmware,
                 hello.buttons, hello.protocol)

    # -- health --------------------------------------------------------------------------------

    def health(self) -> SourceHealth:
        conn = self._conn
        c = self.counters
        buttons = self.board.button_health()
        bad = c.bad_frames + (conn.parser.bad_frames if conn else 0)
        counts = (f"bad frames {bad}, lost events {c.lost_events}, dropped {c.dropped}, noise {c.noise}, "
                  f"board restarts {c.board_restarts}, reconnects {c.reconnects}")
        if c.last_gap_us is not None:
            counts += f" (last gap {c.last_gap_us / 1e6:.1f} s)"
        if c.unanswered or c.refused_commands:
            counts += f", commands unanswered {c.unanswered}, refused {c.refused_commands}"
        if c.rx_errors:
            counts += f", board receive errors {c.rx_errors}"
        run = self.board.run
        if conn is None or conn.hello is None or conn.refused or run is None:
            problem = self._not_working(conn)
            if not self._ever_connected:
                return SourceHealth(self.name, KIND, False, problem, 0, buttons)
            return SourceHealth(self.name, KIND, False, f"{problem}; {counts}", 0, buttons)
        where = f"{conn.path}, firmware {conn.hello.firmware}"
        if not run.sync.synced:
            return SourceHealth(self.name, KIND, False, f"{where}: syncing the clock; {counts}", 0, buttons)
        bound = ladder_us(run.bound_us())
        stuck = [f"{self.name}:{n}" for n in sorted(self.board.stuck)]
        detail = f"{where}, sync ±{bound} µs; {counts}"
        if stuck:
            detail = f"stuck (held down): {', '.join(stuck)}; {detail}"
        return SourceHealth(self.name, KIND, not stuck, detail, bound, buttons)

    def _not_working(self, conn: _Connection | None) -> str:
        problem = (conn.refused if conn and conn.refused else self._problem) or "not connected"
        if self._lost_at_us is None:
            return problem
        since = time.strftime("%H:%M:%S", time.localtime(self._lost_wall_ms / 1000))
        return f"{self._lost} at {since}; {problem}"

    def describe(self) -> dict[str, Any]:
        """Figures for a test or a bench: the sync's state and the counters."""
        run = self.board.run if self._conn else None
        counters = replace(self.counters, presses=dict(self.counters.presses))
        if run is None:
            return {"connected": False, "clock": None, "sync": None, "bound_us": None, "counters": counters}
        return {"connected": self.connected, "clock": f"{self.name}@{run.number}", "sync": run.sync.stats(),
                "bound_us": run.sync.bound_us(run.last_now[0]) if run.last_now else None, "counters": counters}
