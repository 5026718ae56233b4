"""The simulator harness (firmware/sim/simbox.c, companion/sim/simavr.py) with the real firmware.

These check the harness: exact and simultaneous pin edges, bytes to and from the UART at the
line's pace, pokes, resets, determinism, the pty that pyserial opens, and parallel runs. The
firmware's own behaviour is only used as far as PROTOCOL.md promises it (HELLO at reset, a
HEARTBEAT every 100 ms, SYNC answered, events stamped with Timer1 ticks, i.e. CPU cycles).
"""

from __future__ import annotations

import itertools
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

import pytest
import serial

from companion.buzzers import protocol
from companion.sim.simavr import (
    TCCR1B,
    US,
    PtyBoard,
    Script,
    SimError,
    SimRun,
    build_firmware,
    build_harness,
    buttons,
    ms,
    run,
    symbol_address,
)

TICK_WRAP = 1 << 32


@pytest.fixture(scope="module")
def elf() -> Path:
    return build_firmware()


F = TypeVar("F")


@dataclass(frozen=True)
class Sent(Generic[F]):
    first: int
    """Cycle at which the frame's first byte was written to UDR0."""
    last: int
    frame: F


def frames(sim: SimRun) -> list[Sent[protocol.Frame]]:
    """The board's frames through the real host parser, with the cycles they were written at."""
    parser = protocol.FrameParser()
    out: list[Sent[protocol.Frame]] = []
    start = 0
    for i, (cycle, byte) in enumerate(sim.tx):
        if parser.pending == 0:
            start = i
        for frame in parser.feed(bytes([byte])):
            out.append(Sent(sim.tx[start][0], cycle, frame))
    assert parser.counts.bad_frames == 0 and parser.counts.garbage_bytes == 0
    return out


def of_type(sent: list[Sent[protocol.Frame]], kind: type[F]) -> list[Sent[F]]:
    return [Sent(s.first, s.last, f) for s in sent if isinstance(f := s.frame, kind)]


def events(sim: SimRun) -> list[protocol.Event]:
    return [s.frame for s in of_type(frames(sim), protocol.Event)]


def tick_offset(elf: Path) -> int:
    """Cycles minus ticks: the cycle the firmware started its clock (deterministic per build)."""
    return run(elf, Script(), until=ms(1), watch=(TCCR1B,)).timer_origin


def first_frame(port: serial.Serial, parser: protocol.FrameParser, kind: type[F], within_s: float = 3) -> F | None:
    """The next frame of `kind` the board sends within `within_s`."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        for frame in parser.feed(port.read(port.in_waiting or 1)):
            if isinstance(frame, kind):
                return frame
    return None


def test_hello_at_power_on_then_a_heartbeat_every_100_ms(elf: Path) -> None:
    sim = run(elf, Script(), until=ms(1050))
    sent = frames(sim)
    hello = sent[0].frame
    assert isinstance(hello, protocol.Hello)
    assert (hello.protocol, hello.tick_hz, hello.buttons, hello.lamps, hello.variant) == (1, 16_000_000, 8, 8, 0)
    assert sim.data.startswith(bytes.fromhex("A5 01 0C 01"))
    assert sent[0].first < ms(1)
    beats = of_type(sent, protocol.Heartbeat)
    assert len(beats) == 10
    # every 100 ms on average (the firmware looks once per Timer1 period, 4.096 ms)
    assert (beats[-1].first - beats[0].first) / 9 == pytest.approx(ms(100), abs=ms(1))
    assert all(abs(b.first - a.first - ms(100)) < ms(5) for a, b in itertools.pairwise(beats))
    # the harness's cycles and the firmware's Timer1 ticks run at the same rate: written so many
    # cycles after the tick the heartbeat carries, always the same
    assert len({b.first - b.frame.ticks for b in beats}) == 1
    assert sim.end_cycle >= ms(1050)


def test_the_hobby_build_says_so(elf: Path) -> None:
    hobby = build_firmware("hobby")
    assert hobby != elf
    hello = frames(run(hobby, Script(), until=ms(2)))[0].frame
    assert isinstance(hello, protocol.Hello) and hello.variant == 1


def test_runs_are_deterministic(elf: Path) -> None:
    script = Script()
    for n, pin in enumerate(buttons()):
        script.press(pin, ms(10) + n * 333).release(pin, ms(40) + n * 777)
    script.send(ms(50), protocol.encode_sync(0xDEADBEEF))
    script.send(ms(51), protocol.encode_lamps(5, 0b1010_0101, 0b0000_0001))
    first, second = run(elf, script, until=ms(120)), run(elf, script, until=ms(120))
    assert first.output == second.output
    assert len(events(first)) == 16


def test_pin_edges_land_at_their_cycle(elf: Path) -> None:
    """Edges given N cycles apart are stamped N ticks apart: the harness applies them at the
    instruction boundary at (or just after) their cycle, wherever the firmware is."""
    offset = tick_offset(elf)
    script = Script()
    presses = {1: ms(20), 3: ms(20) + 1, 5: ms(21) + 7, 8: ms(23) + 3}
    for n, at in presses.items():
        script.press(n, at).release(n, at + ms(12) + n)
    got = {(e.button, e.edge): e.ticks for e in events(run(elf, script, until=ms(60)))}
    for n, at in presses.items():
        # the sampler's latency varies with the instruction the edge interrupts: within 1 us
        assert abs(got[(n, 1)] + offset - at) <= US
        assert abs(got[(n, 0)] - got[(n, 1)] - (ms(12) + n)) <= US


def test_all_eight_buttons_at_the_same_cycle_are_one_snapshot(elf: Path) -> None:
    """Buttons span PORTD and PORTC: edges of one cycle must reach the firmware together."""
    script = Script()
    for pin in buttons():
        script.press(pin, ms(20))
    got = events(run(elf, script, until=ms(40)))
    assert sorted(e.button for e in got) == list(range(1, 9))
    assert all(e.pressed for e in got)
    assert len({e.ticks for e in got}) == 1


def test_a_held_button_survives_the_firmware_writing_its_port(elf: Path) -> None:
    """Button 7 (A0) shares PORTC with lamps 6-8: lighting and blinking them rewrites PORTC,
    which in simavr re-applies the pull-ups unless the harness keeps the pin driven."""
    script = Script().press(7, ms(10))
    script.send(ms(20), protocol.encode_lamps(1, 0xFF, 0xE0))
    script.send(ms(30), protocol.encode_lamps(2, 0x00, 0x00))
    sent = frames(run(elf, script, until=ms(420)))
    assert [(e.button, e.edge) for e in (s.frame for s in of_type(sent, protocol.Event))] == [(7, 1)]
    acks = [s.frame for s in of_type(sent, protocol.Ack)]
    assert [(a.command, a.seq) for a in acks] == [(protocol.LAMPS, 1), (protocol.LAMPS, 2)]
    held = [s.frame.held for s in of_type(sent, protocol.Heartbeat)]
    assert held and all(h == 0b0100_0000 for h in held)


def test_sync_bytes_arrive_at_the_line_pace_and_are_answered(elf: Path) -> None:
    offset = tick_offset(elf)
    request = protocol.encode_sync(0xDEADBEEF)
    assert request == bytes.fromhex("A5 84 04 EF BE AD DE FC A1")
    sim = run(elf, Script().send(ms(200), request), until=ms(210))
    # 1 Mbaud, 8N1: a byte every 160 cycles, each readable at the end of its stop bit
    assert bytes(b for _, b in sim.rx) == request
    for i, (cycle, _) in enumerate(sim.rx):
        assert 0 <= cycle - (ms(200) + 160 * (i + 1)) <= 4
    (reply,) = of_type(frames(sim), protocol.SyncReply)
    assert reply.frame.token == 0xDEADBEEF
    read_at = reply.frame.ticks + offset
    assert sim.rx[-1][0] - 4 * US <= read_at <= reply.first


def test_bytes_sent_before_the_receiver_is_enabled_wait_for_it(elf: Path) -> None:
    sim = run(elf, Script().send(0, protocol.encode_sync(7)), until=ms(5))
    (reply,) = of_type(frames(sim), protocol.SyncReply)
    assert reply.frame.token == 7
    assert sim.rx[0][0] > 160


def test_poke_moves_the_clock_extension_to_the_32_bit_wrap(elf: Path) -> None:
    """Poking the software extension of Timer1 (its high 16 bits) to 0xFFFF puts the board's
    ticks just below 2^32: the next heartbeats must count on across the wrap."""
    clock_high = symbol_address(elf, "clock_high")
    sim = run(elf, Script().poke(ms(150), clock_high, (0xFFFF).to_bytes(2, "little")), until=ms(750))
    ticks = [s.frame.ticks for s in of_type(frames(sim), protocol.Heartbeat)]
    jumped = [t for t in ticks if t >= 0xFFFF_0000]
    assert jumped, ticks
    after = ticks[ticks.index(jumped[0]):]
    assert any(t < ms(1000) for t in after)  # it wrapped
    # and counted on across the wrap (the heartbeats come more often after such a jump)
    assert all(0 < (b - a) % TICK_WRAP <= ms(105) for a, b in itertools.pairwise(after))


def test_a_watchdog_reset_keeps_counting_and_the_buttons_released(elf: Path) -> None:
    """RESET goes through the watchdog: simavr restarts its cycle counter and drops its timers,
    and zeroes PINx; the harness keeps cycles absolute, its script going, and the pins' levels."""
    offset = tick_offset(elf)
    script = Script().send(ms(10), protocol.encode_reset(8)).press(2, ms(100)).release(2, ms(120))
    sim = run(elf, script, until=ms(250))
    assert len(sim.resets) == 1 and ms(10) < sim.resets[0] < ms(40)
    sent = frames(sim)
    assert [(s.frame.command, s.frame.seq) for s in of_type(sent, protocol.Ack)] == [(protocol.RESET, 8)]
    hellos = of_type(sent, protocol.Hello)
    assert len(hellos) == 2 and hellos[1].first > sim.resets[0]
    # after the reset: no phantom presses, and the script's press lands at its cycle
    evs = [s.frame for s in of_type(sent, protocol.Event)]
    assert [(e.button, e.edge) for e in evs] == [(2, 1), (2, 0)]
    # Timer1 restarted with the firmware, as many cycles after the reset as after power-on
    assert abs(sim.resets[0] + evs[0].ticks + offset - ms(100)) <= US
    assert all(s.frame.held == 0 for s in of_type(sent, protocol.Heartbeat) if s.first > ms(130))


def test_the_chip_overrun_is_reported_where_it_would_lose_a_byte(elf: Path) -> None:
    """After RESET's ACK the firmware waits for the watchdog without reading the UART: of five
    bytes sent then, the chip keeps three (two in UDR0's FIFO, one in the shift register) and
    loses one at each further start bit. simavr loses none; the harness says where."""
    script = Script().send(ms(10), protocol.encode_reset(2)).send(ms(15), bytes(5))
    sim = run(elf, script, until=ms(50))
    assert len(sim.resets) == 1 and sim.resets[0] > ms(16)
    assert len(sim.rx) == len(protocol.encode_reset(2)) + 5
    assert len(sim.overruns) == 2
    for overrun, start in zip(sim.overruns, (ms(15) + 3 * 160, ms(15) + 4 * 160), strict=True):
        assert 0 <= overrun - start <= 4


def test_hello_reports_the_reset_cause(elf: Path) -> None:
    """The harness starts the MCU as after a power-on (MCUSR = PORF), and simavr's watchdog
    reset sets WDRF: HELLO must carry 1, then 8."""
    sim = run(elf, Script().send(ms(10), protocol.encode_reset(1)), until=ms(60))
    hellos = [s.frame for s in of_type(frames(sim), protocol.Hello)]
    assert [h.reset_cause for h in hellos] == [1, 8]


def test_parallel_runs_do_not_interfere(elf: Path) -> None:
    scripts = [Script().press(n, ms(5) + 1000 * n).release(n, ms(15)) for n in (1, 4, 6, 8)]
    alone = [run(elf, s, until=ms(30)).output for s in scripts]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda s: run(elf, s, until=ms(30)).output, scripts))
    assert together == alone


def test_bad_scripts_and_arguments_are_refused_with_a_reason(elf: Path) -> None:
    for script, reason in [
        ("100 pin Q2 0\n10 end\n", "no port Q"),
        ("100 pin D9 0\n10 end\n", "bad pin"),
        ("100 blink D2\n10 end\n", "unknown command"),
        ("100 poke 20 01\n10 end\n", "outside SRAM"),
        ("100 send 1FF\n10 end\n", "bad hex byte"),
        ("+5 end\n", "only in --pty"),
        ("100 pin D2 0\n", "needs --until"),
    ]:
        with pytest.raises(SimError, match=reason):
            run(elf, script)
    done = subprocess.run([str(build_harness()), str(elf), "--freq", "fast"], capture_output=True, text=True)
    assert done.returncode == 2 and "--freq" in done.stderr


def timed_now(board: PtyBoard) -> tuple[int, float, float]:
    """The board's cycle, with the wall time it was asked for at and heard back at."""
    asked = time.monotonic()
    cycle = board.now()
    return cycle, asked, time.monotonic()


def test_pty_board_talks_to_pyserial(elf: Path) -> None:
    with PtyBoard(elf) as board:
        assert board.now() == 0  # waits for the host, like an Arduino's auto-reset
        with serial.Serial(board.port, 1_000_000, timeout=3) as port:
            hello = port.read(17)
            assert hello.startswith(bytes.fromhex("A5 01 0C 01"))
            assert isinstance(protocol.FrameParser().feed(hello)[0], protocol.Hello)

            port.write(protocol.encode_sync(0x12345678))
            parser = protocol.FrameParser()
            reply = first_frame(port, parser, protocol.SyncReply)
            assert reply is not None and reply.token == 0x12345678

            board.press(3, after_cycles=ms(1))
            press = first_frame(port, parser, protocol.Event)
            assert press is not None and (press.button, press.edge) == (3, 1)

            # real time: the board's clock follows the wall clock (never ahead; a loaded machine
            # can hold it back for a few tens of milliseconds, which it then catches up). Each
            # reading is taken somewhere between asking and hearing back: the wall time between
            # the two lies in [shortest, longest], and a test process the machine held up (whole
            # tenths of a second in a full run) only widens that interval, not the board's rate.
            c0, asked0, heard0 = timed_now(board)
            time.sleep(0.5)
            c1, asked1, heard1 = timed_now(board)
            shortest, longest = asked1 - heard0, heard1 - asked0
            assert 0.75 * 16_000_000 * shortest <= c1 - c0 <= 1.25 * 16_000_000 * longest, \
                f"{c1 - c0} cycles in {shortest:.3f}-{longest:.3f} s of wall time"
    assert board.returncode == 0


def test_two_pty_boards_at_once(elf: Path) -> None:
    with PtyBoard(elf) as a, PtyBoard(elf) as b:
        assert a.port != b.port
        with serial.Serial(a.port, 1_000_000, timeout=3) as pa, serial.Serial(b.port, 1_000_000, timeout=3) as pb:
            assert pa.read(3) == bytes.fromhex("A5 01 0C")
            assert pb.read(3) == bytes.fromhex("A5 01 0C")
