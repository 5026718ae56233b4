"""Press -> decision on every screen, for the three real press sources: GPIO, the buzzer box, phones.

Used by bench/report.py (figure 1). Each run starts the real service (`companion serve`, as a
subprocess, on loopback), seats 13 phones, starts the buzzer quiz and opens 14 event streams
(13 phones answering their pings at once, and the table display), with the clients of
bench/buzzer_latency.py: each keeps its own view and stamps when a round's result shows in it.

* wired: one service with both wired sources, as a table with buttons runs it: GPIO through
  gpiozero's MockFactory inside the service process (companion/sim/mock_pins.py: a line on the
  service's stdin pulls a mock pin low; its edge carries gpiozero's monotonic ticks, the host
  timeline, and GpioSource confirms it 5 ms later exactly as on a Pi), and the buzzer box simulated
  by companion/sim/box.py on a pty (`[buttons] serial_port` is its symlink): the bench's FakeBox stamps
  the edge on its own 16 MHz clock and sends it at once, and the service maps it through its clock
  sync. Buttons are paired to seats in the data folder's buttons.toml. GPIO and box rounds alternate.
* phone: a service with simulated buttons only (a phones-only table: no wired source, so the
  referee does not wait for a wired report), each round one phone's POST /api/buzz.

A round: the host arms a race, 50-300 ms pass, one press enters; its latency runs from just
before the press (the pipe write, the FakeBox edge, the POST) to the moment the slowest of the
14 clients has applied the message showing the round's result. The referee waits on purpose
after the first press (the grace period: 2 ms, plus 5 ms confirmation + 20 ms report margin when a
wired source is configured, or the slowest phone's delay), and longer while a phone that has not
pressed might still be sending an earlier press (the decision says when it was due: `due_us`);
`due_ms` is that part (press sent ->
decision due), `after_due_ms` the rest (timer, table, log append with fsync, fan-out, client parse).
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.buzzer_latency import (
    ARM_SEEN_TIMEOUT_S,
    DECISION_TIMEOUT_S,
    PRESS_DELAY_S,
    Clients,
    QuizStream,
    quiz_table,
    troubles,
)
from bench.live_latency import bench_service
from companion.sim.box import FakeBox
from companion.sim.clients import SEATS, Connection, request
from companion.sim.mock_pins import press
from companion.sim.service import ServiceProcess

GPIO_PINS = (17, 27, 22, 5, 6, 13, 19, 26, 16, 20, 21, 12, 25)
"""Seat n's button is GPIO_PINS[n - 1]."""
BOX_BUTTONS = 8
HEALTHY_TIMEOUT_S = 10.0
WIRED_WARMUP_S = 2.0
"""Rounds in the first seconds after the streams opened are not counted (connection set-up)."""
MAX_ROUNDS_S = 120.0


def press_pin(service: ServiceProcess, pin: int) -> float:
    """Pull GPIO `pin` low in the service on mock pins; perf_counter just before the line was written."""
    assert service.proc is not None and service.proc.stdin is not None
    sent = time.perf_counter()
    press(service.proc.stdin, pin)
    return sent


@dataclass
class Round:
    source: str
    every_ms: float
    """Press sent -> the slowest of the 14 clients has applied the result."""
    due_ms: float
    """Press sent -> the referee's decision was due (request in + deliberate wait)."""
    wait_ms: float
    """The deliberate wait, first press -> due: the decision's grace + the largest press uncertainty,
    or longer while a phone might still send an earlier press (the decision's `due_us`)."""
    in_ms: float | None
    """Press sent -> its stamp (wired sources: the edge's time on the host timeline)."""

    @property
    def after_due_ms(self) -> float:
        return self.every_ms - self.due_ms


@dataclass
class Run:
    rounds: list[Round] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    wrong_winner: int = 0
    late_arms: int = 0
    warmup_rounds: int = 0
    notes: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0

    def of(self, source: str) -> list[Round]:
        return [r for r in self.rounds if r.source == source]


Press = Callable[[int], tuple[float, str | None]]
"""Presses seat n's button: (perf_counter just before, refusal or None)."""


def run_wired(rounds: int, rng: random.Random) -> Run:
    """GPIO and buzzer-box rounds alternating, `rounds` of each, in one service with both sources."""
    run = Run()
    with tempfile.TemporaryDirectory(prefix="press-latency-") as tmp:
        work = Path(tmp)
        box = FakeBox(work / "buzzer-box")
        service = bench_service(work, threads=16, mock_pins=True, buttons=(
            f'source = "auto"\ngpio_pins = [{", ".join(map(str, GPIO_PINS))}]\nserial_port = "{box.link}"\n'))
        service.data.mkdir()
        pairs = [f'"gpio:{pin}" = {seat}' for seat, pin in enumerate(GPIO_PINS, 1)]
        pairs += [f'"box:{button}" = {button}' for button in range(1, BOX_BUTTONS + 1)]
        (service.data / "buttons.toml").write_text("[seats]\n" + "\n".join(pairs) + "\n")
        try:
            service.start()
            wait_healthy(service, ("gpio", "serial"), run)

            def gpio(seat: int) -> tuple[float, str | None]:
                return press_pin(service, GPIO_PINS[seat - 1]), None

            def serial(seat: int) -> tuple[float, str | None]:
                sent = time.perf_counter()
                box.press(seat)
                return sent, None

            plan = [("gpio", rng.randint(1, SEATS)) if i % 2 == 0 else ("serial", rng.randint(1, BOX_BUTTONS))
                    for i in range(2 * rounds)]
            play(service, {"gpio": gpio, "serial": serial}, plan, WIRED_WARMUP_S, rng, run)
        finally:
            service.stop_cleanly(10)
            box.close()
    return run


def run_phones(rounds: int, warmup_s: float, rng: random.Random) -> Run:
    """Phone buzzer rounds on a phones-only table (simulated buttons, as with no hardware)."""
    run = Run()
    with tempfile.TemporaryDirectory(prefix="press-latency-") as tmp:
        service = bench_service(Path(tmp), threads=16, buttons='source = "simulated"\n')
        try:
            service.start()
            plan = [("phone", rng.randint(1, SEATS)) for _ in range(rounds)]
            play(service, {}, plan, warmup_s, rng, run)
        finally:
            service.stop_cleanly(10)
    return run


def wait_healthy(service: ServiceProcess, kinds: tuple[str, ...], run: Run) -> None:
    """Until every source of these kinds says it is healthy (the box's clock synced), bounded."""
    deadline = time.monotonic() + HEALTHY_TIMEOUT_S
    last: Any = None
    while time.monotonic() < deadline:
        _, status, _ = request(service.port, "GET", "/api/status")
        last = [s for s in status.get("buzzers", []) if s.get("kind") in kinds]
        if len(last) == len(kinds) and all(s.get("healthy") for s in last):
            return
        time.sleep(0.05)
    run.notes.append(f"WARNING: sources not healthy after {HEALTHY_TIMEOUT_S:.0f} s: {last}")


def play(service: ServiceProcess, presses: dict[str, Press], plan: list[tuple[str, int]], warmup_s: float,
         rng: random.Random, run: Run) -> None:
    """Seat 13 phones, start the quiz, open the 14 streams, then play the plan's rounds."""
    with quiz_table(service, SEATS) as quiz:
        clients, streams, host, buzzers = quiz.clients, quiz.streams, quiz.host, quiz.buzzers

        def phone(seat: int) -> tuple[float, str | None]:
            status, answer, sent = buzzers[seat].post("/api/buzz", {})
            ok = status == 200 and answer.get("ok") and not answer.get("repeat")
            return sent, None if ok else f"{status} {answer}"

        presses = {**presses, "phone": phone}
        connected = time.perf_counter()
        sources = sorted({source for source, _ in plan})
        while time.perf_counter() - connected < warmup_s:
            one_round(clients, streams, host, presses, rng.choice(sources), rng.randint(1, BOX_BUTTONS), rng, run,
                      count=False)
            run.warmup_rounds += 1
        start = time.perf_counter()
        for source, seat in plan:
            if time.perf_counter() - start > MAX_ROUNDS_S:
                run.notes.append(f"stopped after {MAX_ROUNDS_S:.0f} s ({len(run.rounds)} rounds)")
                break
            one_round(clients, streams, host, presses, source, seat, rng, run)
        run.elapsed_s = time.perf_counter() - start
        run.notes += troubles(quiz.pingers, streams)


def one_round(clients: Clients, streams: list[QuizStream], host: Connection, presses: dict[str, Press],
              source: str, seat: int, rng: random.Random, run: Run, count: bool = True) -> None:
    status, answer, _ = host.post("/api/commands", {"as": "host", "name": "arm", "args": {"mode": "race"}})
    armed_at = time.perf_counter()
    if status != 200 or not answer.get("ok"):
        raise RuntimeError(f"arm refused: {status} {answer}")
    number = int(answer["view"]["game"]["view"]["round"])
    pause = armed_at + rng.uniform(*PRESS_DELAY_S) - time.perf_counter()
    if pause > 0:
        time.sleep(pause)
    if not clients.wait(lambda: all(s.last_armed >= number for s in streams), ARM_SEEN_TIMEOUT_S):
        run.late_arms += 1
    sent, refused = presses[source](seat)
    if refused is not None:
        run.lost.append(f"round {number} ({source}): the press of seat {seat} was refused: {refused}")
        host.post("/api/commands", {"as": "host", "name": "cancel_round", "args": {}})
        return
    if not clients.wait(lambda: all(number in s.result_at for s in streams), DECISION_TIMEOUT_S):
        with clients.lock:
            missing = [s.name for s in streams if number not in s.result_at]
        run.lost.append(f"round {number} ({source}): no result on {', '.join(missing)}")
        host.post("/api/commands", {"as": "host", "name": "cancel_round", "args": {}})
        return
    with clients.lock:
        slowest = max(s.result_at[number][1] for s in streams)
        settled = streams[-1].results[number]
    if not count:
        return
    decision = settled["decision"]
    order = decision["order"]
    grace_us = int(decision["grace_us"])
    uncertainty_us = max((p["uncertainty_us"] for p in order), default=0)
    first_us = min((p["t_us"] for p in order), default=0)
    # When the round keeper found the decision due (on CLOCK_MONOTONIC, like perf_counter): the
    # referee's grace, or later while a phone might still have been sending an earlier press.
    due_us = decision.get("due_us", first_us + grace_us + uncertainty_us)
    due_s = due_us / 1e6
    if settled.get("winner") != f"seat:{seat}":
        run.wrong_winner += 1
    run.rounds.append(Round(
        source=source, every_ms=(slowest - sent) * 1000, due_ms=(due_s - sent) * 1000,
        wait_ms=(due_us - first_us) / 1000,
        in_ms=(first_us / 1e6 - sent) * 1000 if source != "phone" and order else None,
    ))
