"""The buzzer box's link (companion/buzzers/boxlink.py) as the state machine it is: plain bytes and
host times in, frames to write, presses and dropped ports out. No pty, no thread, no sleep: the
test plays the board, and time moves only when it says (tests/test_serialbox.py runs the whole
source against a fake board on a real pty)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from companion.buzzers import protocol as proto
from companion.buzzers.boxlink import BoxLink, Step
from companion.buzzers.sources import Press

PATH = "/dev/ttyACM0"
TICK_HZ = 16_000_000
START_US = 50_000_000
HALF_TRIP_US = 150
"""A USB trip each way: the board reads its clock this long after the host sent a SYNC."""


@dataclass
class Wire:
    """The link, the board's side played by the test, and the host time the test sets."""

    link: BoxLink = field(default_factory=BoxLink)
    now: int = START_US
    tick0: int = 7 * TICK_HZ
    """The board's ticks at START_US."""
    written: list[proto.Frame] = field(default_factory=list)
    """Every frame the link wrote, parsed."""
    presses: list[Press] = field(default_factory=list)
    seq: int = 0
    """The board's next event sequence number."""

    def __post_init__(self) -> None:
        self._parser = proto.FrameParser(proto.HOST_FRAMES)

    def take(self, step: Step) -> Step:
        self.written += self._parser.feed(b"".join(step.writes))
        self.presses += step.presses
        return step

    def ticks(self, host_us: int) -> int:
        return self.tick0 + (host_us - START_US) * TICK_HZ // 1_000_000

    def at(self, t_us: int) -> Step:
        """Time passes to `t_us`, and the link does what is due."""
        self.now = t_us
        return self.take(self.link.due(t_us))

    def hear(self, *frames: bytes) -> Step:
        return self.take(self.link.received(b"".join(frames), self.now))

    def sent(self, kind: type) -> list:
        return [f for f in self.written if isinstance(f, kind)]

    def connect(self, *, sync: bool = True) -> None:
        """Open the port, say hello (acknowledging the debounce settings it is sent), and (with
        `sync`) answer syncs until the clock is synced."""
        self.take(self.link.opened(PATH, self.now))
        self.hear(proto.encode_hello())
        self.hear(proto.encode_ack(proto.DEBOUNCE, self.sent(proto.Debounce)[-1].seq))
        while sync and not self.link.synced:
            self.answer_sync()

    def answer_sync(self) -> Step:
        """The link sends its next SYNC when due; the board reads its clock half a trip later and
        the reply arrives a whole trip after the SYNC left."""
        before = len(self.sent(proto.Sync))
        self.at(max(self.now, self.due_sync_us()))
        assert len(self.sent(proto.Sync)) == before + 1
        sync = self.sent(proto.Sync)[-1]
        board_us = self.now + HALF_TRIP_US
        self.now += 2 * HALF_TRIP_US
        return self.hear(proto.encode_sync_reply(sync.token, self.ticks(board_us)))

    def due_sync_us(self) -> int:
        run = self.link.board.run
        assert run is not None
        return run.next_sync_us

    def edge(self, button: int, pressed: bool = True, *, ago_us: int = 300, send: bool = True) -> bytes:
        """An edge `ago_us` before now, reported now (or only counted by the board)."""
        frame = proto.encode_event(self.seq, button, pressed, self.ticks(self.now - ago_us))
        self.seq += 1
        if send:
            self.hear(frame)
        return frame

    def heartbeat(self, **figures: int) -> Step:
        return self.hear(proto.encode_heartbeat(self.ticks(self.now), self.seq, **figures))

    @property
    def detail(self) -> str:
        return self.link.health().detail


@pytest.fixture
def wire() -> Wire:
    return Wire()


def test_the_handshake_asks_for_a_hello_then_sets_the_debounce_and_syncs(wire: Wire) -> None:
    step = wire.take(wire.link.opened(PATH, wire.now))
    assert [type(f) for f in wire.written] == [proto.HelloRequest] and not step.settled
    assert wire.detail == f"{PATH}: waiting for the board's hello"
    wire.hear(proto.encode_hello())
    (debounce,) = wire.sent(proto.Debounce)
    assert (debounce.confirm_us, debounce.mask_ms) == (5000, 50)
    settled = []
    while not wire.link.synced:
        settled.append(wire.answer_sync().settled)
    assert settled[-1] and not any(settled[:-1]), "settled once the fit holds"
    assert len(settled) == 4
    health = wire.link.health()
    assert health.healthy and health.kind == "serial" and f"{PATH}, firmware 1.0.0, sync ±" in health.detail


def test_a_press_lands_on_the_host_timeline_within_its_bound(wire: Wire) -> None:
    wire.connect()
    edge_us = wire.now - 300
    wire.edge(3)
    wire.edge(3, pressed=False)
    (press,) = wire.presses
    assert (press.button, press.source, press.clock) == ("box:3", "box", "box@1")
    assert abs(press.t_us - edge_us) <= press.uncertainty_us <= 2 * HALF_TRIP_US + 1
    assert press.local_ns == wire.ticks(edge_us) * 1_000_000_000 // TICK_HZ


def test_a_press_before_the_sync_waits_for_it(wire: Wire) -> None:
    wire.connect(sync=False)
    edge_us = wire.now - 300
    wire.edge(2)
    assert wire.presses == [] and "syncing the clock" in wire.detail
    while not wire.link.synced:
        wire.answer_sync()
    (press,) = wire.presses
    assert abs(press.t_us - edge_us) <= press.uncertainty_us


def test_a_lost_sequence_number_is_a_lost_event(wire: Wire) -> None:
    wire.connect()
    wire.edge(1)
    wire.edge(1, pressed=False, send=False)  # sequence number 1 never arrives
    wire.edge(4)
    assert [p.button for p in wire.presses] == ["box:1", "box:4"]
    assert "lost events 1," in wire.detail


def test_events_a_heartbeat_announced_and_that_never_came_are_lost_at_the_next_one(wire: Wire) -> None:
    wire.connect()
    wire.heartbeat()
    wire.edge(5, send=False)
    wire.edge(5, pressed=False, send=False)
    wire.heartbeat()
    assert "lost events 0," in wire.detail, "they may still be on their way"
    wire.now += 100_000
    wire.heartbeat()
    assert "lost events 2," in wire.detail


def test_a_bad_checksum_is_a_bad_frame_never_a_press(wire: Wire) -> None:
    wire.connect()
    wire.heartbeat()
    damaged = bytearray(wire.edge(6, send=False))
    damaged[-1] ^= 0xFF
    wire.hear(b"noise" + bytes(damaged))
    assert wire.presses == [] and "bad frames 1," in wire.detail
    wire.edge(7)
    assert [p.button for p in wire.presses] == ["box:7"]
    assert "lost events 1," in wire.detail, "the damaged event's sequence number is missing"


def test_an_unacknowledged_command_is_resent_three_times_then_counted(wire: Wire) -> None:
    wire.connect()
    wire.take(wire.link.set_lamps(0b101, 0, wire.now))
    (lamps,) = wire.sent(proto.Lamps)
    start = wire.now
    wire.at(start + 99_999)
    assert len(wire.sent(proto.Lamps)) == 1, "not before the ack timeout"
    for attempt in range(1, 4):
        wire.at(start + attempt * 100_000)
        wire.heartbeat()
        assert wire.sent(proto.Lamps) == [lamps] * (attempt + 1), "the same frame, sequence number and all"
    wire.at(start + 400_000)
    assert len(wire.sent(proto.Lamps)) == 4 and "commands unanswered 1, refused 0" in wire.detail


def test_an_acknowledged_command_is_not_resent_and_a_refused_one_is_counted(wire: Wire) -> None:
    wire.connect()
    wire.take(wire.link.set_lamps(0b1, 0, wire.now))
    wire.take(wire.link.beep(440, 100, wire.now))
    (lamps,), (beep,) = wire.sent(proto.Lamps), wire.sent(proto.Beep)
    wire.hear(proto.encode_ack(proto.LAMPS, lamps.seq), proto.encode_nak(proto.BEEP, beep.seq, proto.NAK_OUT_OF_RANGE))
    wire.at(wire.now + 500_000)
    assert (len(wire.sent(proto.Lamps)), len(wire.sent(proto.Beep))) == (1, 1)
    assert "commands unanswered 0, refused 1" in wire.detail


def test_a_sync_answer_for_a_token_never_sent_is_stale_and_a_true_one_tightens_the_fit(wire: Wire) -> None:
    wire.connect()
    wire.hear(proto.encode_sync_reply(0xDEAD, wire.ticks(wire.now)))
    assert wire.link.describe()["counters"].stale_replies == 1
    before = wire.link.describe()["sync"]
    wire.answer_sync()
    after = wire.link.describe()["sync"]
    assert after != before and wire.link.describe()["counters"].stale_replies == 1


def test_no_hello_in_three_seconds_drops_the_port_and_waits_before_the_next_try(wire: Wire) -> None:
    wire.take(wire.link.opened(PATH, wire.now))
    wire.at(START_US + 500_000)
    assert len(wire.sent(proto.HelloRequest)) == 2, "asked again every half second"
    step = wire.at(START_US + 3_000_000)
    assert step.drop == "no hello in 3 s: is it the buzzer box, with its firmware?"
    assert step.pause_s == 5.0 and step.settled
    wire.take(wire.link.closed(step.drop, wire.now, 0))
    assert wire.detail == f"{PATH}: {step.drop}"


def test_silence_drops_the_port_and_the_next_connection_reports_the_gap(wire: Wire) -> None:
    wire.connect()
    wire.heartbeat()
    assert not wire.at(wire.now + 499_999).drop
    step = wire.at(wire.now + 1)
    assert step.drop == "no data for 0.5 s"
    wire.take(wire.link.closed(step.drop, wire.now, 1_795_000_000_000))
    assert wire.detail.startswith(f"lost {PATH} (no data for 0.5 s) at ") and not wire.link.connected
    wire.now += 1_200_000
    wire.connect()
    assert "reconnects 1 (last gap 1.2 s)" in wire.detail and wire.link.health().healthy
    wire.edge(1)
    assert wire.presses[-1].clock == "box@2", "a new connection, a new clock run"


def test_a_hello_long_after_the_request_is_a_restart_with_a_new_clock(wire: Wire) -> None:
    wire.connect()
    wire.hear(proto.encode_hello())
    assert "board restarts 0," in wire.detail, "an answer to the request, not a restart"
    for _ in range(3):
        wire.at(wire.now + 200_000)
        wire.heartbeat()
    wire.hear(proto.encode_hello())
    assert "board restarts 1," in wire.detail and not wire.link.synced
    wire.seq, wire.tick0 = 0, 0
    while not wire.link.synced:
        wire.answer_sync()
    wire.edge(2)
    assert wire.presses[-1].clock == "box@2"


def test_a_protocol_it_does_not_speak_is_refused_and_its_events_ignored(wire: Wire) -> None:
    wire.take(wire.link.opened(PATH, wire.now))
    step = wire.hear(proto.encode_hello(protocol=2))
    assert step.settled and not wire.link.connected and "flash the firmware" in wire.detail
    wire.edge(1)
    assert wire.presses == [] and wire.link.describe()["counters"].before_hello == 1
