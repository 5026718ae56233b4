"""End to end: the real firmware in simavr behind a pty, the host's serial driver on it, the
referee on the presses it delivers. Real time, so short."""

from __future__ import annotations

import queue
import time

from companion.buzzers import referee
from companion.buzzers.referee import RoundSpec, TimedPress
from companion.buzzers.serialbox import SerialBoxSource
from companion.buzzers.sources import Press
from companion.clock import MonotonicClock
from companion.sim import simavr
from companion.sim.simavr import PtyBoard, build_firmware, ms, us

SEATS = {"box:5": "seat:2", "box:2": "seat:1", "box:8": "seat:3"}


def test_a_scripted_round_on_the_simulated_box_is_decided_by_the_box_clock() -> None:
    clock = MonotonicClock()
    with PtyBoard(build_firmware()) as board:
        source = SerialBoxSource(clock, port=board.port, name="box")
        presses: queue.Queue[Press] = queue.Queue()
        source.start(presses.put)
        try:
            deadline = time.monotonic() + 10
            while not source.synced and time.monotonic() < deadline:
                time.sleep(0.05)
            assert source.synced, source.health().detail
            state = referee.arm(RoundSpec("race", clock.now_us(), 5_000_000, grace_us=2_000))
            # Seat 2 slaps first; 300 us later seats 1 and 3 at the very same instant.
            at = board.now() + ms(30)
            board.command(f"{at} pin {simavr.button(5).name} 0")
            board.command(f"{at + us(300)} pin {simavr.button(2).name} 0")
            board.command(f"{at + us(300)} pin {simavr.button(8).name} 0")
            got = [presses.get(timeout=5) for _ in range(3)]
        finally:
            source.stop()
    for press in got:
        assert press.clock.startswith("box") and press.source == "box"
        assert 0 < press.uncertainty_us < 2_000, "the sync's error bound, with the firmware's microsecond"
        state = referee.press(state, TimedPress(SEATS[press.button], press.t_us, press.uncertainty_us,
                                                press.source, press.clock, press.local_ns))
    decision = referee.decide(state, referee.due_at_us(state))
    assert decision is not None
    assert decision.winner == "seat:2"
    assert decision.ties == (("seat:1", "seat:3"),), "one snapshot: a tie the host can see"
    local = {SEATS[p.button]: p.local_ns for p in got}
    assert abs(local["seat:1"] - local["seat:2"] - 300_000) <= 1_000, "the gap on the box's clock, within 1 us"
    assert [p.who for p in decision.order] == ["seat:2", "seat:1", "seat:3"]
