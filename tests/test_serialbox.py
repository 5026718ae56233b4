"""The buzzer box's host side against a fake board on a real pty: handshake, presses on the host
timeline, commands and their resends, damaged bytes, unplugging, restarts and the tick wrap."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.buzzers import protocol as proto
from companion.buzzers.boxlink import ladder_us
from companion.buzzers.boxports import find_box_ports
from companion.buzzers.configured import open_sources
from companion.buzzers.serialbox import SerialBoxSource
from companion.buzzers.settings import ButtonsConfig
from companion.buzzers.sources import Press, SimulatedSource
from companion.clock import MonotonicClock
from companion.sim.box import TICK_HZ, Edge, FakeBox, now_us


def wait_until(condition: Callable[[], Any], timeout_s: float = 2.0, what: str = "",
               seen: Callable[[], Any] | None = None) -> None:
    """Poll `condition`; on a timeout say what was awaited and, with `seen`, what there was instead."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            instead = f" (instead: {seen()})" if seen is not None else ""
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what or condition}{instead}")
        time.sleep(0.005)


class Bench:
    """Fake boxes and the sources watching them, all closed at the end of the test."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.boxes: list[FakeBox] = []
        self.sources: list[SerialBoxSource] = []
        self.presses: list[Press] = []

    def box(self, **kwargs: Any) -> FakeBox:
        box = FakeBox(self.tmp_path / f"box{len(self.boxes)}", **kwargs)
        self.boxes.append(box)
        return box

    def source(self, box: FakeBox, start: bool = True, **kwargs: Any) -> SerialBoxSource:
        kwargs.setdefault("port", str(box.link))
        source = SerialBoxSource(MonotonicClock(), **kwargs)
        self.sources.append(source)
        if start:
            source.start(self.presses.append)
        return source

    def close(self) -> None:
        for source in self.sources:
            source.stop()
        for box in self.boxes:
            box.close()


@pytest.fixture
def bench(tmp_path: Path) -> Iterator[Bench]:
    opened = Bench(tmp_path)
    yield opened
    opened.close()


def assert_on_time(press: Press, edge: Edge) -> None:
    """The press's host time is the edge's, within the uncertainty it states."""
    error = press.t_us - edge.host_us
    assert abs(error) <= press.uncertainty_us, f"{press} is {error:+.1f} us off the edge at {edge.host_us}"


def presses_after(bench: Bench, count: int, timeout_s: float = 2.0) -> list[Press]:
    wait_until(lambda: len(bench.presses) >= count, timeout_s, f"{count} presses")
    return list(bench.presses)


def released(source: SerialBoxSource, button: int) -> None:
    """Wait until the host has read the button's release: a cable pulled before that loses it too."""
    wait_until(lambda: not source.health().buttons[button - 1].held, what=f"the release of button {button}")


# -- handshake and presses -------------------------------------------------------------------------


def test_handshake_then_presses_on_the_host_timeline(bench: Bench) -> None:
    box = bench.box(drift_ppm=-3300)
    source = bench.source(box)
    assert source.synced, "start returns once the box said hello and the clock is synced"
    assert box.received(proto.Debounce)[-1] == proto.Debounce(box.received(proto.Debounce)[-1].seq, 5000, 50)
    health = source.health()
    assert health.healthy and health.kind == "serial" and health.name == "box"
    assert str(box.link) in health.detail and "firmware 1.0.0" in health.detail and "sync ±" in health.detail
    assert 1 <= health.uncertainty_us <= 2000

    three = box.press(3)
    seven = box.press(7)
    first, second = presses_after(bench, 2)
    assert (first.button, first.source, first.clock) == ("box:3", "box", "box@1")
    assert second.button == "box:7" and second.clock == first.clock
    assert_on_time(first, three)
    assert_on_time(second, seven)
    assert first.local_ns == three.ticks * 1_000_000_000 // TICK_HZ
    assert first.uncertainty_us <= 2000
    time.sleep(0.05)
    assert len(bench.presses) == 2, "releases are not presses"
    buttons = {b.button: b for b in source.health().buttons}
    assert len(buttons) == 8 and buttons["box:3"].presses == 1 and buttons["box:1"].presses == 0


def test_a_second_hello_answering_a_late_request_is_not_a_restart(bench: Bench) -> None:
    """An Uno's bootloader eats the first requests; a request that reaches the firmware just
    after its own hello gets a second hello, which says nothing about a restart."""
    box = bench.box()
    box.hellos_per_request = 2   # both at once, as the board sends them: the test's own timing plays no part
    source = bench.source(box)
    time.sleep(0.15)
    assert "board restarts 0" in source.health().detail and source.health().healthy


def test_a_box_that_never_says_hello_is_reported_and_tried_again_later(bench: Bench, monkeypatch) -> None:
    monkeypatch.setattr("companion.buzzers.boxlink.HELLO_TIMEOUT_S", 0.3)
    monkeypatch.setattr("companion.buzzers.boxlink.NO_ANSWER_RETRY_S", 0.3)
    box = bench.box()
    box.muted = True
    source = bench.source(box)
    assert source.health().detail == f"{box.link}: no hello in 0.3 s: is it the buzzer box, with its firmware?"
    box.muted = False
    wait_until(lambda: source.health().healthy, what="the hello")


def test_a_press_before_the_clock_is_synced_waits_for_the_sync(bench: Bench) -> None:
    box = bench.box(drift_ppm=40)
    box.answer_syncs = False
    source = bench.source(box, start_wait_s=0)
    wait_until(lambda: source.connected, what="the hello")
    early = box.press(2)
    time.sleep(0.15)
    assert bench.presses == [] and not source.health().healthy
    assert "syncing" in source.health().detail
    box.answer_syncs = True
    (press,) = presses_after(bench, 1)
    assert_on_time(press, early)
    assert source.health().healthy


def test_held_buttons_come_from_heartbeats_and_a_long_hold_is_stuck(bench: Bench) -> None:
    box = bench.box()
    source = bench.source(box, stuck_s=0.3)
    box.edge(4, True)
    wait_until(lambda: source.health().buttons[3].held, what="held")
    wait_until(lambda: not source.health().healthy, what="stuck")
    assert "stuck (held down): box:4" in source.health().detail
    box.edge(4, False)
    wait_until(lambda: source.health().healthy, what="released")


def test_an_unknown_protocol_version_is_refused_clearly(bench: Bench) -> None:
    box = bench.box(protocol=2)
    source = bench.source(box)
    health = source.health()
    assert not health.healthy
    assert "protocol 2" in health.detail and "protocol 1" in health.detail and "flash" in health.detail
    box.press(1)
    time.sleep(0.1)
    assert bench.presses == []


def test_nothing_to_open_is_reported_and_the_port_is_found_through_the_finder(bench: Bench, tmp_path) -> None:
    where: list[str] = []
    source = bench.source(bench.box(), port="", find_port=lambda: where[0] if where else None, start_wait_s=0.5)
    assert "no buzzer box found" in source.health().detail and "2341:0043" in source.health().detail
    where.append(str(bench.boxes[0].link))
    wait_until(lambda: source.health().healthy, what="found")


# -- commands --------------------------------------------------------------------------------------


def test_lamps_and_beeps_are_acknowledged_and_not_resent(bench: Bench) -> None:
    box = bench.box()
    source = bench.source(box)
    source.set_lamps(0b101, 0b001)
    source.beep(2000, 150)
    wait_until(lambda: box.received(proto.Beep), what="the beep")
    time.sleep(0.35)
    (lamps,) = box.received(proto.Lamps)
    (beep,) = box.received(proto.Beep)
    assert (lamps.on, lamps.blink, beep.freq_hz, beep.duration_ms) == (0b101, 0b001, 2000, 150)
    assert "unanswered" not in source.health().detail


def test_an_unacknowledged_command_is_resent_up_to_three_times(bench: Bench) -> None:
    box = bench.box()
    source = bench.source(box)
    box.unanswered = 2
    source.set_lamps(0b1)
    wait_until(lambda: len(box.received(proto.Lamps)) == 3, what="two resends")
    time.sleep(0.3)
    sent = box.received(proto.Lamps)
    assert len(sent) == 3 and len(set(sent)) == 1, "the same command, with its sequence number"
    box.answer_commands = False
    source.beep(440, 100)
    wait_until(lambda: len(box.received(proto.Beep)) == 4, what="three resends")
    time.sleep(0.3)
    assert len(box.received(proto.Beep)) == 4
    wait_until(lambda: "commands unanswered 1" in source.health().detail, what="the count")


def test_a_refused_command_is_counted_and_not_resent(bench: Bench) -> None:
    box = bench.box()
    source = bench.source(box)
    box.nak_reason = proto.NAK_OUT_OF_RANGE
    source.beep(10_000, 5)
    wait_until(lambda: "refused 1" in source.health().detail, what="the refusal")
    time.sleep(0.2)
    assert len(box.received(proto.Beep)) == 1


def test_commands_out_of_range_are_refused_before_anything_is_sent(bench: Bench) -> None:
    source = bench.source(bench.box())
    with pytest.raises(ValueError):
        source.set_lamps(256)
    with pytest.raises(ValueError):
        source.beep(20, 100)


# -- damaged bytes ---------------------------------------------------------------------------------


def test_garbage_and_bad_checksums_are_counted_and_survived(bench: Bench) -> None:
    box = bench.box()
    source = bench.source(box)
    event = bytearray(proto.encode_event(box.seq, 5, True, box.ticks_at(now_us())))
    event[-1] ^= 0xFF  # a bad CRC: never a press
    box.send(b"\x00line noise\xa5\x02" + bytes(event) + b"\xa5\x7e\x02\x00\x00\x00\x00")
    edge = box.press(6)
    (press,) = presses_after(bench, 1)
    assert press.button == "box:6"
    assert_on_time(press, edge)
    detail = source.health().detail
    bad = int(detail.split("bad frames ")[1].split(",")[0])
    assert bad >= 3 and source.health().healthy


def test_a_storm_of_random_bytes_never_stops_the_reader(bench: Bench) -> None:
    box = bench.box()
    source = bench.source(box)
    rng = random.Random(5)
    for _ in range(40):
        box.send(rng.randbytes(rng.randrange(1, 300)))
        time.sleep(0.002)
    edge = box.press(8)
    (press,) = presses_after(bench, 1)
    assert_on_time(press, edge)
    wait_until(lambda: source.health().healthy, what="healthy again")


def test_a_failing_handler_does_not_stop_the_reader(bench: Bench) -> None:
    box = bench.box()
    seen: list[Press] = []

    def handler(press: Press) -> None:
        seen.append(press)
        if len(seen) == 1:
            raise RuntimeError("a bug downstream")

    source = bench.source(box, start=False)
    source.start(handler)
    box.press(1)
    edge = box.press(2)
    wait_until(lambda: len(seen) == 2, what="the second press")
    assert_on_time(seen[1], edge)
    assert source.health().healthy


def test_an_event_for_a_button_the_box_does_not_have_is_a_bad_frame(bench: Bench) -> None:
    box = bench.box(buttons=4)
    source = bench.source(box)
    box.edge(6, True)
    edge = box.press(2)
    (press,) = presses_after(bench, 1)
    assert press.button == "box:2"
    assert_on_time(press, edge)
    assert len(source.health().buttons) == 4 and "bad frames 1" in source.health().detail


# -- unplugging, silence, restarts -----------------------------------------------------------------


def test_unplug_and_replug_reconnects_and_reports_the_gap_and_the_lost_events(bench: Bench) -> None:
    box = bench.box(drift_ppm=3300)
    source = bench.source(box)
    source.set_lamps(0b11)
    before = box.press(1)
    presses_after(bench, 1)
    released(source, 1)
    box.unplug()
    wait_until(lambda: not source.health().healthy, what="the loss")
    assert source.health().detail.startswith(f"lost {box.link} (")
    source.set_lamps(0b110)  # while away: kept for later
    box.press(2, send=False)  # pressed while unplugged: the board counts it, nobody hears it
    time.sleep(0.4)
    plugged = time.monotonic()
    box.plug()
    wait_until(lambda: source.health().healthy, timeout_s=2.0, what="the reconnection")
    assert time.monotonic() - plugged < 2.0
    wait_until(lambda: "lost events 2" in source.health().detail, what="the lost press and release",
               seen=lambda: source.health().detail)
    detail = source.health().detail
    assert "reconnects 1" in detail and "last gap" in detail
    gap = float(detail.split("last gap ")[1].split(" s")[0])
    assert 0.4 <= gap <= 2.5
    wait_until(lambda: box.received(proto.Lamps)[-1].on == 0b110, what="the lamps sent again")
    after = box.press(4)
    first, second = presses_after(bench, 2)
    assert_on_time(first, before)
    assert_on_time(second, after)
    assert (first.clock, second.clock) == ("box@1", "box@2"), "a new connection, a new sync"


def test_a_silent_box_is_dropped_and_reopened(bench: Bench) -> None:
    box = bench.box()
    source = bench.source(box)
    box.muted = True
    wait_until(lambda: "no data for 0.5 s" in source.health().detail, timeout_s=1.5, what="silence")
    box.muted = False
    wait_until(lambda: source.health().healthy, timeout_s=2.0, what="reopened")
    edge = box.press(3)
    (press,) = presses_after(bench, 1)
    assert_on_time(press, edge)
    assert "reconnects 1" in source.health().detail


def test_a_board_that_restarts_gets_a_new_clock(bench: Bench) -> None:
    box = bench.box()
    box.noise = 3
    source = bench.source(box)
    old = box.press(1)
    presses_after(bench, 1)
    time.sleep(0.5)  # well after the hello the source asked for
    assert "noise 3," in source.health().detail
    box.restart()
    wait_until(lambda: "board restarts 1," in source.health().detail, what="the restart")
    wait_until(lambda: source.health().healthy, what="synced again")
    new = box.press(1)
    first, second = presses_after(bench, 2)
    assert new.seq == 0 and new.ticks < old.ticks
    assert_on_time(first, old)
    assert_on_time(second, new)
    assert (first.clock, second.clock) == ("box@1", "box@2")
    detail = source.health().detail
    assert "board restarts 1," in detail and "noise 0," in detail and "lost events 0," in detail


def test_a_restart_whose_hello_was_lost_is_seen_in_the_ticks_and_sequence_numbers(bench: Bench) -> None:
    box = bench.box()
    source = bench.source(box)
    box.press(1)
    presses_after(bench, 1)
    box.restart(say_hello=False)
    wait_until(lambda: "board restarts 1" in source.health().detail, what="the restart")
    wait_until(lambda: source.health().healthy, what="synced again")
    new = box.press(5)
    _, press = presses_after(bench, 2)
    assert_on_time(press, new)
    assert press.clock == "box@2"
    assert "board restarts 1, reconnects 0" in source.health().detail and "lost events 0," in source.health().detail


def test_a_board_restarted_while_unplugged_is_counted_and_synced_afresh(bench: Bench) -> None:
    box = bench.box()
    source = bench.source(box)
    box.press(1)
    presses_after(bench, 1)
    released(source, 1)
    box.unplug()
    wait_until(lambda: not source.health().healthy, what="the loss")
    box.restart(say_hello=False)
    box.plug()
    wait_until(lambda: source.health().healthy, what="the reconnection")
    wait_until(lambda: "board restarts 1" in source.health().detail, what="the restart")
    edge = box.press(2)
    _, press = presses_after(bench, 2)
    assert_on_time(press, edge)
    assert press.clock == "box@2" and "lost events 0," in source.health().detail


# -- the 32-bit tick wrap --------------------------------------------------------------------------


def test_presses_across_the_32_bit_tick_wrap(bench: Bench) -> None:
    wrap_in_s = 0.6
    box = bench.box(tick0=(1 << 32) - int(wrap_in_s * TICK_HZ), drift_ppm=-1330)
    bench.source(box)
    wrap_us = box.host_us_of(1 << 32)
    before = box.press(1)
    wait_until(lambda: now_us() > wrap_us + 150_000, timeout_s=2, what="the wrap")
    straddling = box.edge(2, True, at_us=wrap_us - 2_000)  # pressed before the wrap, reported after it
    after = box.press(3)
    presses = presses_after(bench, 3)
    assert before.ticks < 1 << 32 < after.ticks
    for press, edge in zip(presses, (before, straddling, after), strict=True):
        assert_on_time(press, edge)
    assert [p.t_us for p in presses] == sorted(p.t_us for p in presses)
    assert [p.local_ns for p in presses] == sorted(p.local_ns for p in presses)
    assert len({p.clock for p in presses}) == 1


# -- stopping, discovery, choosing sources ---------------------------------------------------------


def test_stop_closes_the_port_and_joins_the_reader(bench: Bench) -> None:
    box = bench.box()
    source = bench.source(box)
    thread = source._thread
    assert thread is not None and thread.is_alive()
    source.stop()
    assert not thread.is_alive()
    assert not source.health().healthy and source.health().detail.startswith("stopped")
    box.press(1)
    time.sleep(0.05)
    assert bench.presses == []


class FakePortInfo:
    def __init__(self, device: str, vid: int | None, pid: int | None) -> None:
        self.device, self.vid, self.pid = device, vid, pid


def test_boxes_are_found_by_usb_ids(monkeypatch) -> None:
    ports = [FakePortInfo("/dev/ttyS0", None, None), FakePortInfo("/dev/ttyUSB0", 0x1A86, 0x7523),
             FakePortInfo("/dev/ttyACM0", 0x2341, 0x0043), FakePortInfo("/dev/ttyUSB1", 0x0403, 0x6015)]
    monkeypatch.setattr("serial.tools.list_ports.comports", lambda: ports)
    assert find_box_ports() == ["/dev/ttyACM0", "/dev/ttyUSB0"]


def test_auto_takes_the_box_when_one_is_plugged_in_and_simulates_only_without_hardware(monkeypatch) -> None:
    clock = MonotonicClock()
    monkeypatch.setattr("companion.buzzers.boxports.find_box_ports", lambda usb_ids=(): [])
    assert [type(s) for s in open_sources(ButtonsConfig(), clock)] == [SimulatedSource]
    serial_only = open_sources(ButtonsConfig(source="serial"), clock)
    assert [(s.name, s.kind) for s in serial_only] == [("box", "serial")], "waited for, never simulated"
    monkeypatch.setattr("companion.buzzers.boxports.find_box_ports", lambda usb_ids=(): ["/dev/ttyACM0"])
    assert [(s.name, s.kind) for s in open_sources(ButtonsConfig(), clock)] == [("box", "serial")]
    assert [s.kind for s in open_sources(ButtonsConfig(source="simulated"), clock)] == ["simulated"]


def test_auto_with_a_configured_port_that_is_not_there_simulates(tmp_path: Path) -> None:
    config = ButtonsConfig(serial_port=str(tmp_path / "nothing"))
    assert [s.kind for s in open_sources(config, MonotonicClock())] == ["serial", "simulated"]


def test_health_rounds_the_bound_up_on_a_1_2_5_ladder() -> None:
    assert [ladder_us(v) for v in (0, 1, 2, 3, 6, 11, 49, 51, 120, 999)] == [1, 1, 2, 5, 10, 20, 50, 100, 200, 1000]


def test_the_config_takes_the_serial_source_and_its_port(tmp_path: Path) -> None:
    from companion.config import load_config

    path = tmp_path / "companion.toml"
    path.write_text('[buttons]\nsource = "serial"\nserial_port = "/dev/serial/by-id/usb-Arduino-if00"\n')
    buttons = load_config(path).buttons
    assert (buttons.source, buttons.serial_port) == ("serial", "/dev/serial/by-id/usb-Arduino-if00")
    assert load_config(None).buttons.serial_port == ""
