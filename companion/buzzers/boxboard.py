"""The buzzer box's board as its frames tell it: the runs of its clock, its presses on the host
timeline, its sequence numbers (lost events), its restarts, and its held and stuck buttons.

A press's time is the board's tick count at the edge, mapped onto the host timeline by the clock
sync (`clocksync`): the USB latency never enters it, only the sync's error bound does, and that
bound is the press's uncertainty. Presses of one board also carry the board's clock and ticks, so
the referee compares them exactly with each other. A board that restarts (its sequence numbers
or ticks going back) starts a new run of its clock, with a fresh sync.

Pure, like the link that holds it (`boxlink`): frames and times come in as arguments, presses
wait in `presses` for the link to hand them on.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, field

from companion.buzzers import protocol as proto
from companion.buzzers.clocksync import ClockSync, MonotonicMapper, TickUnwrapper, sync_interval_s
from companion.buzzers.protocol import Event, Heartbeat, Hello, SyncReply
from companion.buzzers.sources import ButtonHealth, Press

log = logging.getLogger(__name__)

FIRMWARE_PRECISION_US = 1
"""The firmware samples the buttons and reads Timer1 together: well under a microsecond apart."""
STALE_TOKEN_S = 1.0
"""A sync reply slower than this is no use to the fit: its token is forgotten."""


@dataclass
class BoxCounters:
    """Everything the link and the board have counted since the start, for health."""

    presses: dict[int, int] = field(default_factory=dict)
    bad_frames: int = 0
    """Of closed connections, plus frames with values out of range."""
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


class ClockRun:
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

    def sync_request(self, now_us: int) -> bytes:
        """The SYNC frame to send now (stamped `now_us`, before it is written); the next one falls
        due at `next_sync_us`."""
        token = self.next_token
        self.next_token = (token + 1) & 0xFFFF_FFFF
        self.tokens[token] = now_us
        if self.first_sync_us is None:
            self.first_sync_us = now_us
        self.sent += 1
        self.next_sync_us = now_us + round(sync_interval_s(self.sent, (now_us - self.first_sync_us) / 1e6) * 1e6)
        stale = now_us - round(STALE_TOKEN_S * 1e6)
        for old in [t for t, sent in self.tokens.items() if sent < stale]:
            del self.tokens[old]
        return proto.encode_sync(token)

    def jump(self, raw: int, now_us: int) -> str:
        """Why a "now" tick value (heartbeat, sync reply) cannot be this run's ("" when it can):
        ticks that went back, or jumped far ahead of the host's elapsed time."""
        if self.last_now is None:
            return ""
        ticks, host_us = self.last_now
        board_s = (self.unwrap.peek(raw) - ticks) / self.tick_hz
        host_s = (now_us - host_us) / 1e6
        if board_s < -0.05 or board_s > host_s * 1.02 + 1.0:
            return f"its clock jumped by {board_s:+.3f} s in {host_s:.3f} s"
        return ""

    def saw(self, raw: int, now_us: int) -> None:
        """The board's ticks were `raw` at `now_us` (a heartbeat, a sync reply)."""
        value = self.unwrap.unwrap(raw)
        if self.last_now is None or value >= self.last_now[0]:
            self.last_now = (value, now_us)

    def answered(self, reply: SyncReply, now_us: int) -> bool:
        """A sync round trip for the fit; False when its token was never sent or is stale."""
        t1 = self.tokens.pop(reply.token, None)
        if t1 is None:
            return False
        self.sync.add(t1, self.unwrap.unwrap(reply.ticks), now_us)
        return True

    def press(self, source: str, button: int, ticks: int) -> Press | None:
        """The press at these (unwrapped) ticks on the host timeline; None without a fit."""
        mapped = self.mapper.map(ticks)
        if mapped is None:
            return None
        return Press(f"{source}:{button}", mapped.t_us, source, mapped.bound_us + FIRMWARE_PRECISION_US,
                     clock=f"{source}@{self.number}", local_ns=ticks * 1_000_000_000 // self.tick_hz)

    def bound_us(self) -> int:
        """The mapping's error bound now, the firmware's own precision included."""
        ticks = self.last_now[0] if self.last_now else self.unwrap.latest or 0
        return (self.sync.bound_us(ticks) or 0) + FIRMWARE_PRECISION_US


class Board:
    """The board behind the link, across every connection to it (its sequence numbers and its
    restarts outlive a cable pulled for a moment)."""

    def __init__(self, name: str, stuck_us: int, counters: BoxCounters) -> None:
        self.name = name
        self.stuck_us = stuck_us
        self.counters = counters
        self.run: ClockRun | None = None
        self.runs = 0
        self.tick_hz = proto.TICK_HZ
        self.buttons = 8
        self.presses: list[Press] = []
        """Presses made and not yet handed on."""
        self.seq_seen = False
        """A heartbeat or an event has been read on this connection (the first tells whether the
        board restarted while it was away)."""
        self._expected_seq: int | None = None
        self._announced_seq: int | None = None
        """The next sequence number the previous heartbeat announced: events below it that have
        not come by the next heartbeat are lost."""
        self._held_since: dict[int, int] = {}
        self.stuck: set[int] = set()

    def connection_opened(self) -> None:
        self.seq_seen = False

    def heard(self, hello: Hello) -> None:
        """A hello that makes sense: the board's own figures."""
        self.tick_hz, self.buttons = hello.tick_hz, hello.buttons

    def start_run(self, now_us: int) -> None:
        """The first hello of a connection: a new run of the clock."""
        self._announced_seq = None
        self._new_run(now_us)

    def restart(self, now_us: int, why: str) -> None:
        """The board restarted: its clock and sequence numbers begin again. Seen in the first
        numbers of a connection, it restarted while away: this connection's clock run began
        after that."""
        c = self.counters
        c.board_restarts += 1
        c.dropped = c.noise = c.rx_errors = c.held = 0  # the board's counters start again too
        self._held_since.clear()
        self.stuck.clear()
        if not self.seq_seen:
            log.info("buzzer box restarted while it was away (%s)", why)
            self._settle_announced()
            self._expected_seq = 0
            return
        log.warning("buzzer box restarted (%s): syncing its clock again", why)
        self.end_run()
        self._expected_seq = 0
        self._new_run(now_us)

    def end_run(self) -> None:
        """Presses still waiting for a fit get the best there is (a wide bound), or are lost;
        events the last heartbeat announced that never came are lost."""
        run, self.run = self.run, None
        if run is not None:
            self._flush_waiting(run)
        self._settle_announced()

    def _new_run(self, now_us: int) -> None:
        self.runs += 1
        self.run = ClockRun(self.runs, self.tick_hz, now_us)

    def _flush_waiting(self, run: ClockRun) -> None:
        """Map the presses that waited for the clock sync (lost when there is still no fit)."""
        waiting, run.waiting = run.waiting, []
        for button, ticks in waiting:
            press = run.press(self.name, button, ticks)
            if press is None:
                self.counters.lost_events += 1
                log.warning("buzzer box: a press of button %d came before any clock sync and is lost", button)
            else:
                self._deliver(button, press)

    def _deliver(self, button: int, press: Press) -> None:
        self.counters.presses[button] = self.counters.presses.get(button, 0) + 1
        self.presses.append(press)

    def _settle_announced(self) -> None:
        if self._announced_seq is not None and self._expected_seq is not None:
            gap = (self._announced_seq - self._expected_seq) & 0xFFFF
            if 0 < gap < 0x8000:
                self.counters.lost_events += gap
                self._expected_seq = self._announced_seq
        self._announced_seq = None

    def _now_ticks(self, raw: int, now_us: int) -> ClockRun:
        """The run a "now" tick value belongs to: one that cannot be the current run's means the
        board restarted."""
        run = self.run
        assert run is not None
        why = run.jump(raw, now_us)
        if why:
            self.restart(now_us, why)
            assert self.run is not None
            run = self.run
        run.saw(raw, now_us)
        return run

    # -- frames (once the connection has a run) ------------------------------------------------

    def on_event(self, event: Event, now_us: int) -> bool:
        """An edge; False when it names a button or an edge the board does not have."""
        assert self.run is not None
        if not 1 <= event.button <= self.buttons or event.edge not in (0, 1):
            return False
        if self._expected_seq is not None:
            gap = (event.seq - self._expected_seq) & 0xFFFF
            if gap >= 0x8000:
                self.restart(now_us, f"event {event.seq} when {self._expected_seq} was next")
                gap = event.seq
            self.counters.lost_events += gap
        self.seq_seen = True
        self._expected_seq = (event.seq + 1) & 0xFFFF
        bit = 1 << (event.button - 1)
        if not event.pressed:
            self.counters.held &= ~bit
            self._held_since.pop(event.button, None)
            self.stuck.discard(event.button)
            return True
        self.counters.held |= bit
        run = self.run
        assert run is not None
        ticks = run.unwrap.unwrap(event.ticks)
        if run.sync.synced:
            press = run.press(self.name, event.button, ticks)
            if press is not None:
                self._deliver(event.button, press)
        else:
            run.waiting.append((event.button, ticks))
        return True

    def on_heartbeat(self, beat: Heartbeat, now_us: int) -> None:
        c = self.counters
        went_back = self._expected_seq is not None and (beat.next_seq - self._expected_seq) & 0xFFFF >= 0x8000
        counters_back = beat.dropped < c.dropped or beat.noise < c.noise or beat.rx_errors < c.rx_errors
        if went_back or counters_back:
            self.restart(now_us, "its sequence numbers or counters went back")
        self.seq_seen = True
        self._now_ticks(beat.ticks, now_us)
        if self._expected_seq is None:
            self._expected_seq = beat.next_seq
        self._settle_announced()
        self._announced_seq = beat.next_seq
        c.dropped, c.noise, c.rx_errors, c.held = beat.dropped, beat.noise, beat.rx_errors, beat.held
        for button in range(1, 9):
            if beat.held & (1 << (button - 1)):
                since = self._held_since.setdefault(button, now_us)
                if now_us - since >= self.stuck_us:
                    self.stuck.add(button)
            else:
                self._held_since.pop(button, None)
                self.stuck.discard(button)

    def on_sync_reply(self, reply: SyncReply, now_us: int) -> bool:
        """A sync round trip; True when the clock is synced after it (waiting presses go out)."""
        run = self._now_ticks(reply.ticks, now_us)
        if not run.answered(reply, now_us):
            self.counters.stale_replies += 1
            return False
        if not run.sync.synced:
            return False
        self._flush_waiting(run)
        return True

    def button_health(self) -> tuple[ButtonHealth, ...]:
        c = self.counters
        return tuple(ButtonHealth(f"{self.name}:{n}", c.presses.get(n, 0), 0, 0, n in self.stuck,
                                  bool(c.held & (1 << (n - 1))))
                     for n in range(1, self.buttons + 1))
