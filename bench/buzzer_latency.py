"""Buzzer latency of the real service (press in -> decision on every screen), and the referee's throughput.

Part 1, end to end: starts `companion serve` with simulated buttons as a subprocess on loopback,
seats 13 phones (each with its own cookie and loopback address 127.0.0.x), ends the dice tray and
starts the buzzer quiz, then opens 14 event streams: 13 phones (`as=me`, each answering the
stream's `event: ping` with POST /api/ping at once, like a phone's page) and one table display
(`as=table`). Each client keeps its own copy of the view (the `view` event, then every `patch`
applied). For each round the host arms a race, a random 50-300 ms passes, then one press enters:
a simulated button (POST /api/buttons/press) or a phone's buzzer (POST /api/buzz from that phone).
A round's latency runs from just before the press request is sent to the moment a client has
applied the message whose view shows that round's result; "every client" is the slowest of the 14.
The decision waits the referee's grace period on purpose (2 ms, or longer: the slowest phone's
measured delay and uncertainty), so the figures are also shown with that part taken out. The
service and this script share CLOCK_MONOTONIC, so the decision's own times (the press stamp, when
the decision was due) and the settle event's stamps in the exported log split each round into
request in, deliberate wait, timer wake-up, table, and log append + fan-out. Rounds in the first
WARMUP_S seconds after the phones connect are reported apart (see WARMUP_S).

Part 2, the referee alone (companion/buzzers/referee.py, pure functions, in this process, CPU time
of one thread): rounds of 13 presses through press() and decide(), and large single rounds to
show how press() and decide() grow with the number of presses.

A benchmark, not a test: it prints wall-clock figures and asserts nothing. Loopback only; every
wait is bounded. The service, the phones and their streams are companion/sim's (service.py,
clients.py, streams.py).

Usage: .venv/bin/python -m bench.buzzer_latency [--rounds 150] [--warmup 18] [--quick] [--seed 1]
       [--source DIR] [--skip-service] [--skip-referee]
`--rounds` is per press source (simulated and phone rounds alternate). The defaults take about
1.75 minutes on 2 CPUs; `--quick` (25 rounds per source, 4 s warm-up, smaller referee runs) about
20 s. `--source DIR` runs the service from the companion package in DIR, e.g. an older commit
extracted with `git archive REV | tar -x -C DIR` (the referee part always uses this tree).
"""


from __future__ import annotations

import argparse
import contextlib
import math
import os
import platform
import queue
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.live_latency import ROOT, bench_service, machine_busy_s, own_cpu_s
from companion.buzzers import referee
from companion.buzzers.phones import BURST_PINGS, PING_INTERVAL_S, QUICK_INTERVAL_S
from companion.buzzers.referee import RoundSpec, TimedPress
from companion.config import ServerConfig
from companion.sim.clients import (
    SEATS,
    Connection,
    PingAnswerer,
    display_address,
    host_command,
    phone_address,
    request,
    seat_phones,
)
from companion.sim.presses import percentile
from companion.sim.service import ServiceProcess
from companion.sim.streams import Reader, ViewStream, stream_socket

SOURCES = ("simulated", "phone")
PRESS_DELAY_S = (0.050, 0.300)
"""A press enters this long after the arm answered (uniform)."""
ARM_SEEN_TIMEOUT_S = 2.0
DECISION_TIMEOUT_S = 5.0
PINGS_TIMEOUT_S = 10.0
MAX_ROUNDS_S = 150.0
"""The service part stops starting rounds after this long, whatever --rounds says."""
REPEATS = 3
"""The referee's small rounds run in this many batches; the best is reported."""
WARMUP_S = BURST_PINGS * QUICK_INTERVAL_S + 2 * PING_INTERVAL_S
"""The server measures a phone with a quick burst of pings once it connects, then a pair every
PING_INTERVAL_S, and drops round trips far slower than the fastest (the first ones, taken while 14
streams connect, are slow): rounds played this long after the phones connected are reported apart,
as warm-up, so the main figures are the steady state."""
QUICK_WARMUP_S = 2 * PING_INTERVAL_S
"""With --quick: enough for two more round trips per phone, so one slow first echo is not the median."""


# -- clients -----------------------------------------------------------------------------------


@dataclass
class QuizStream(ViewStream):
    """A stream that keeps its client's view, hands its pings to the phone's answerer, and stamps
    when each round's result became visible in that view (and notes the last armed round)."""

    last_round: int = 0
    last_armed: int = 0
    result_at: dict[int, tuple[float, float]] = field(default_factory=dict)
    """round -> (bytes received, message applied), perf_counter seconds."""
    results: dict[int, dict[str, Any]] = field(default_factory=dict)

    def _shown(self, event_id: int | None, received: float) -> None:
        game = (self.doc or {}).get("game") or {}
        quiz = game.get("view") or {}
        if quiz.get("game") != "buzzer-quiz":
            return
        applied = time.perf_counter()
        armed = quiz.get("armed")
        if armed and armed["round"] > self.last_armed:
            self.last_armed = armed["round"]
        results = quiz.get("results") or []
        if results and results[0]["round"] > self.last_round:
            self.last_round = results[0]["round"]
            self.result_at[self.last_round] = (received, applied)
            self.results[self.last_round] = results[0]


class Clients(Reader):
    """The epoll reader (companion.sim.streams.Reader) over QuizStreams."""

    def open_quiz(self, port: int, name: str, query: str, source: str, cookie: str | None = None,
                  seat: int | None = None, pings: queue.Queue[int] | None = None) -> QuizStream:
        """A QuizStream from `source` that has asked for /api/stream?query, read from now on."""
        return self.watch(QuizStream(name, stream_socket(port, query, source, cookie), seat=seat, pings=pings))


# -- the service part --------------------------------------------------------------------------


@dataclass
class RoundResult:
    source: str
    seat: int
    number: int
    sent: float
    """perf_counter just before the press request went out."""
    due: float
    """When the referee's decision was due (CLOCK_MONOTONIC, the timeline of perf_counter)."""
    slowest: float
    """When the slowest client had applied the result."""
    every_ms: float
    """Press sent -> the slowest client has applied the result."""
    clients_ms: dict[str, float]
    """Per client: press sent -> applied."""
    grace_ms: float
    uncertainty_ms: float
    to_due_ms: float
    """Press sent -> the referee's decision was due (request in + deliberate wait)."""
    in_ms: float | None
    """Press sent -> the press was stamped (simulated buttons only: phone stamps are moved back)."""
    client_side_ms: float
    """Of `every_ms`: the slowest client's parse + apply in this process after its bytes arrived."""
    winner: str | None
    false_starts: int
    settle_started: float | None = None
    """The settle command's stamp (the round keeper's timer fired), from the exported log."""
    settle_stamped: float | None = None
    """Its event's stamp (after the table's lock and the game's rules, before the log append)."""


@dataclass
class ServiceResult:
    rounds: list[RoundResult] = field(default_factory=list)
    warmup: list[RoundResult] = field(default_factory=list)
    warmup_s: float = 0.0
    lost: list[str] = field(default_factory=list)
    late_arms: int = 0
    notes: list[str] = field(default_factory=list)
    ping_rtts_ms: list[float] = field(default_factory=list)
    server_cpu_ms_per_round: float = 0.0
    client_cpu: float = 0.0
    other_cpu: float = 0.0
    elapsed_s: float = 0.0
    wrong_winner: int = 0
    server_threads: int = 0


def run_service(rounds: int, warmup_s: float, rng: random.Random, source: Path = ROOT) -> ServiceResult:
    result = ServiceResult()
    with tempfile.TemporaryDirectory(prefix="buzzer-latency-") as tmp:
        service = bench_service(Path(tmp), threads=ServerConfig().threads, source=source,  # the default thread count
                                buttons='source = "simulated"\n')
        service.start()
        try:
            with quiz_table(service, SEATS) as quiz:
                if not quiz.pinged:
                    result.notes.append("WARNING: some phones had no ping echoed before the first round")
                clients, streams, host, buzzers = quiz.clients, quiz.streams, quiz.host, quiz.buzzers
                buttons = Connection(service.port, display_address(0))
                quiz.connections.append(buttons)
                connected = time.perf_counter()
                while time.perf_counter() - connected < warmup_s:
                    kind, seat, delay = rng.choice(SOURCES), rng.randint(1, SEATS), rng.uniform(*PRESS_DELAY_S)
                    one_round(clients, streams, host, buttons, buzzers, kind, seat, delay, result, result.warmup)
                result.warmup_s = time.perf_counter() - connected
                cpu_before, machine_before, own_before = service.cpu_s(), machine_busy_s(), own_cpu_s()
                start = time.perf_counter()
                plan = [(SOURCES[i % 2], rng.randint(1, SEATS), rng.uniform(*PRESS_DELAY_S)) for i in range(2 * rounds)]
                for kind, seat, delay in plan:
                    if time.perf_counter() - start > MAX_ROUNDS_S:
                        result.notes.append(f"stopped after {MAX_ROUNDS_S:.0f} s ({len(result.rounds)} rounds)")
                        break
                    one_round(clients, streams, host, buttons, buzzers, kind, seat, delay, result, result.rounds)
                result.elapsed_s = time.perf_counter() - start
                result.server_threads = service.threads()
                server_s = service.cpu_s() - cpu_before
                own_s = own_cpu_s() - own_before
                result.server_cpu_ms_per_round = server_s / max(len(result.rounds), 1) * 1000
                result.client_cpu = own_s / max(result.elapsed_s, 1e-9)
                others = machine_busy_s() - machine_before - own_s - server_s
                result.other_cpu = max(others, 0.0) / max(result.elapsed_s, 1e-9)
                check_views(service, clients, streams, quiz.cookies, result)
                read_settles(service, result)
                result.ping_rtts_ms = [rtt / 1000 for rtts in quiz.pingers.rtts_us.values() for rtt in rtts]
                result.notes += troubles(quiz.pingers, streams)
        finally:
            service.stop_cleanly(10)
    return result


@dataclass
class QuizTable:
    """A buzzer quiz under way with every seat's phone joined: each phone's stream and the table's
    reading, each phone echoing pings, and the host and each phone holding a connection for commands
    and buzzes."""

    clients: Clients
    pingers: PingAnswerer
    cookies: dict[int, str]
    streams: list[QuizStream]
    """The phones' by seat, then the table's."""
    host: Connection
    buzzers: dict[int, Connection]
    connections: list[Connection]
    """Every connection hung up at the end (a bench adds its own)."""
    pinged: bool
    """Every phone had a ping echoed before the first round."""


@contextlib.contextmanager
def quiz_table(service: ServiceProcess, seats: int) -> Iterator[QuizTable]:
    """Seat `seats` phones, start the quiz, open every stream and wait for its first view and the
    phones' first pings; hang everything up afterwards."""
    clients = Clients()
    pingers: PingAnswerer | None = None
    connections: list[Connection] = []
    try:
        cookies = seat_phones(service, seats)
        host_command(service, "end_game")
        host_command(service, "start_game", {"game": "buzzer-quiz"})
        pingers = PingAnswerer(service.port, cookies)
        streams = [clients.open_quiz(service.port, f"phone {seat}", "as=me", phone_address(seat), cookies[seat],
                                     seat, pingers.queues[seat]) for seat in range(1, seats + 1)]
        streams.append(clients.open_quiz(service.port, "table", "as=table", display_address(0)))
        pingers.start()
        clients.start()
        if not clients.wait(lambda: all(s.doc is not None for s in streams), 10):
            raise RuntimeError("not every stream got its first view")
        bad = [s.name for s in streams if s.status != 200 or s.revoked]
        if bad:
            raise RuntimeError(f"streams refused: {bad}")
        deadline = time.perf_counter() + PINGS_TIMEOUT_S
        while not all(pingers.rtts_us.values()) and time.perf_counter() < deadline:
            time.sleep(0.01)
        host = Connection(service.port, "127.0.0.2", {"Authorization": f"Bearer {service.host_key}"})
        buzzers = {seat: Connection(service.port, phone_address(seat), {"Cookie": cookies[seat]}) for seat in cookies}
        connections += [host, *buzzers.values()]
        yield QuizTable(clients, pingers, cookies, streams, host, buzzers, connections,
                        all(pingers.rtts_us.values()))
    finally:
        hang_up(connections, pingers, clients)


def troubles(pingers: PingAnswerer, streams: list[QuizStream]) -> list[str]:
    """What went wrong on the clients' side, for the run's notes."""
    notes = [f"{len(pingers.refused)} ping echoes refused, e.g. {pingers.refused[0]}"] if pingers.refused else []
    return notes + [f"{s.name}: {len(s.errors)} messages not applied, e.g. {s.errors[0]}" for s in streams if s.errors]


def hang_up(connections: list[Connection], pingers: PingAnswerer | None, clients: Clients) -> None:
    for connection in connections:
        connection.close()
    if pingers is not None:
        pingers.stop()
    clients.close()


def one_round(clients: Clients, streams: list[QuizStream], host: Connection, buttons: Connection,
              buzzers: dict[int, Connection], source: str, seat: int, delay_s: float, result: ServiceResult,
              into: list[RoundResult]) -> None:
    status, answer, _ = host.post("/api/commands", {"as": "host", "name": "arm", "args": {"mode": "race"}})
    armed_at = time.perf_counter()
    if status != 200 or not answer.get("ok"):
        raise RuntimeError(f"arm refused: {status} {answer}")
    number = int(answer["view"]["game"]["view"]["round"])
    pause = armed_at + delay_s - time.perf_counter()
    if pause > 0:
        time.sleep(pause)
    # Every screen shows the armed round before the press (a slow one would add its backlog).
    if not clients.wait(lambda: all(s.last_armed >= number for s in streams), ARM_SEEN_TIMEOUT_S):
        result.late_arms += 1
    if source == "simulated":
        status, answer, sent = buttons.post("/api/buttons/press", {"button": seat})
    else:
        status, answer, sent = buzzers[seat].post("/api/buzz", {})
    if status != 200 or not answer.get("ok") or answer.get("repeat"):
        result.lost.append(f"round {number} ({source}): the press of seat {seat} was refused: {status} {answer}")
        host.post("/api/commands", {"as": "host", "name": "cancel_round", "args": {}})
        return
    if not clients.wait(lambda: all(number in s.result_at for s in streams), DECISION_TIMEOUT_S):
        with clients.lock:
            missing = [s.name for s in streams if number not in s.result_at]
        result.lost.append(f"round {number} ({source}): no result on {', '.join(missing)}")
        # The round may still be open: cancel it so the next arm is not refused.
        host.post("/api/commands", {"as": "host", "name": "cancel_round", "args": {}})
        return
    with clients.lock:
        times = {s.name: s.result_at[number] for s in streams}
        settled = streams[-1].results[number]
    decision = settled["decision"]
    order = decision["order"]
    grace_us = int(decision["grace_us"])
    uncertainty_us = max((p["uncertainty_us"] for p in order), default=0)
    first_us = min((p["t_us"] for p in order), default=0)
    due_s = (first_us + grace_us + uncertainty_us) / 1e6  # referee.due_at_us; CLOCK_MONOTONIC, like perf_counter
    slowest = max(times.values(), key=lambda t: t[1])
    if settled.get("winner") != f"seat:{seat}":
        result.wrong_winner += 1
    into.append(RoundResult(
        source=source, seat=seat, number=number, sent=sent, due=due_s, slowest=slowest[1],
        every_ms=(slowest[1] - sent) * 1000,
        clients_ms={name: (applied - sent) * 1000 for name, (_, applied) in times.items()},
        grace_ms=grace_us / 1000, uncertainty_ms=uncertainty_us / 1000,
        to_due_ms=(due_s - sent) * 1000,
        in_ms=(first_us / 1e6 - sent) * 1000 if source == "simulated" and order else None,
        client_side_ms=(slowest[1] - slowest[0]) * 1000,
        winner=settled.get("winner"), false_starts=len(decision.get("false_starts", [])),
    ))


def check_views(service: ServiceProcess, clients: Clients, streams: list[QuizStream], cookies: dict[int, str],
                result: ServiceResult) -> None:
    """Each client's patched view equals what /api/view answers now (the patches were applied right)."""
    time.sleep(0.3)
    mismatched = []
    for stream in streams:
        headers = {"Cookie": cookies[stream.seat]} if stream.seat is not None else {}
        query = "as=me" if stream.seat is not None else "as=table"
        _, fresh, _ = request(service.port, "GET", f"/api/view?{query}", headers=headers,
                              source=phone_address(stream.seat) if stream.seat else display_address(0))
        with clients.lock:
            same = fresh == stream.doc
        if not same:
            mismatched.append(stream.name)
    if mismatched:
        result.notes.append(f"WARNING: patched view differs from /api/view for {', '.join(mismatched)}")
    else:
        result.notes.append(f"all {len(streams)} clients' patched views equal /api/view at the end")


def read_settles(service: ServiceProcess, result: ServiceResult) -> None:
    """End the game and read its exported log: each settle command's and event's own stamps."""
    _, status, _ = request(service.port, "GET", "/api/status")
    game_id = status["game"]["id"]
    host_command(service, "end_game")
    code, export, _ = request(service.port, "GET", f"/api/games/{game_id}/export",
                              headers={"Authorization": f"Bearer {service.host_key}"})
    if code != 200:
        result.notes.append(f"could not export the game ({code}): no split of the time after the decision was due")
        return
    settles = {e["data"]["round"]: e for e in export["events"] if e["type"] == "round_settled"}
    for r in [*result.warmup, *result.rounds]:
        event = settles.get(r.number)
        if event is not None:
            r.settle_started = event["command"]["at_us"] / 1e6
            r.settle_stamped = event["mono_us"] / 1e6


# -- the referee part --------------------------------------------------------------------------


@dataclass
class RefereeResult:
    rounds: int = 0
    presses: int = 0
    press_decide_s: float = 0.0
    with_due_s: float = 0.0
    decide_us: float = 0.0
    large: list[tuple[str, int, int, float, float, float | None]] = field(default_factory=list)
    """(case, presses, contestants, press() total s, µs per press over the last tenth, decide() s)."""


def small_round(rng: random.Random, armed_at: int) -> tuple[RoundSpec, list[TimedPress]]:
    spec = RoundSpec("race", armed_at, 5_000_000, 2_000)
    presses = [TimedPress(f"seat:{seat}", armed_at + rng.randint(-200_000, 1_500_000),
                          rng.choice((0, 0, 1_000, rng.randint(1_000, 40_000))),
                          rng.choice(("gpio", "phone"))) for seat in range(1, SEATS + 1)]
    rng.shuffle(presses)
    return spec, presses


def run_referee(quick: bool, rng: random.Random) -> RefereeResult:
    """CPU time of this thread (time.thread_time), so other processes on the machine do not count;
    the small rounds run in REPEATS batches and the best batch is kept."""
    result = RefereeResult()
    result.rounds = 3_000 if quick else 10_000
    work = [small_round(rng, 10_000_000 + i * 10_000_000) for i in range(result.rounds)]
    result.presses = result.rounds * SEATS
    batches = [work[i::REPEATS] for i in range(REPEATS)]

    def press_decide(batch: list[tuple[RoundSpec, list[TimedPress]]]) -> None:
        for spec, presses in batch:
            state = referee.arm(spec)
            for pressed in presses:
                state = referee.press(state, pressed)
            referee.decide(state, spec.armed_at_us + spec.window_us)

    def as_keeper(batch: list[tuple[RoundSpec, list[TimedPress]]]) -> None:
        # As the round keeper calls it: due_at_us after every press, decide once due.
        for spec, presses in batch:
            state = referee.arm(spec)
            for pressed in presses:
                state = referee.press(state, pressed)
                referee.due_at_us(state)
            referee.decide(state, referee.due_at_us(state))

    result.press_decide_s = best_per_round(press_decide, batches) * result.rounds
    result.with_due_s = best_per_round(as_keeper, batches) * result.rounds
    states = []
    for spec, presses in work:
        state = referee.arm(spec)
        for pressed in presses:
            state = referee.press(state, pressed)
        states.append((state, spec.armed_at_us + spec.window_us))
    decide_batches = [states[i::REPEATS] for i in range(REPEATS)]
    result.decide_us = best_per_round(lambda batch: [referee.decide(s, now) for s, now in batch], decide_batches) * 1e6

    mash = 2_500 if quick else 10_000
    distinct_sizes = (500, 1_000, 2_000) if quick else (1_000, 2_000, 4_000)
    result.large.append(large_round(f"{SEATS} contestants mashing (hands_off)", mash, SEATS, rng, decide=True))
    result.large.append(large_round(f"{SEATS} contestants mashing (hands_off)", mash * 2, SEATS, rng, decide=True))
    for size in distinct_sizes:
        result.large.append(large_round("every press a new contestant", size, size, rng,
                                        decide=size <= distinct_sizes[1]))
    return result


def best_per_round(run: Any, batches: list[Any]) -> float:
    """The best (lowest) CPU seconds per item over the batches."""
    best = float("inf")
    for batch in batches:
        start = time.thread_time()
        run(batch)
        best = min(best, (time.thread_time() - start) / len(batch))
    return best


def large_round(case: str, presses: int, contestants: int, rng: random.Random,
                decide: bool) -> tuple[str, int, int, float, float, float | None]:
    """One hands_off round of `presses` presses (60 s window): press() all, then decide() once."""
    armed = 1_000_000_000
    spec = RoundSpec("hands_off", armed, 60_000_000, 2_000)
    who = [f"seat:{1 + i % contestants}" if contestants < presses else f"c{i}" for i in range(presses)]
    times = sorted(rng.randint(armed, armed + 60_000_000) for _ in range(presses))
    work = [TimedPress(w, t, rng.choice((0, 5_000)), "bench") for w, t in zip(who, times, strict=True)]
    tail_from = presses - presses // 10
    state = referee.arm(spec)
    start = time.thread_time()
    tail_start = start
    for i, pressed in enumerate(work):
        if i == tail_from:
            tail_start = time.thread_time()
        state = referee.press(state, pressed)
    end = time.thread_time()
    decide_s = None
    if decide:
        t = time.thread_time()
        referee.decide(state, armed + spec.window_us)
        decide_s = time.thread_time() - t
    return case, presses, contestants, end - start, (end - tail_start) / (presses - tail_from) * 1e6, decide_s


# -- report ------------------------------------------------------------------------------------


def machine() -> str:
    model = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{model}, {os.cpu_count()} logical CPUs ({usable} usable), {platform.system()} {platform.release()}; "
            f"Python {sys.version.split()[0]} ({platform.python_implementation()}); load average {load:.2f}")


def trio(values: list[float]) -> str:
    if not values:
        return "n/a"
    return f"{percentile(values, 50):6.2f} / {percentile(values, 99):6.2f} / {max(values):6.2f}"


def report_service(result: ServiceResult, rounds: int) -> None:
    by = {source: [r for r in result.rounds if r.source == source] for source in SOURCES}
    print()
    print(f"Buzzer decision latency: real service on loopback, 13 phones + 1 table display, {rounds} rounds "
          "per press source")
    print("  from just before the press request is sent; ms as p50 / p99 / max (nearest rank)")
    width = 60
    print(f"  {'':<{width}}{'simulated button':>26}{'phone buzz':>26}")

    def row(label: str, pick: Any) -> None:
        cells = [trio([v for r in by[s] for v in pick(r)]) for s in SOURCES]
        print(f"  {label:<{width}}{cells[0]:>26}{cells[1]:>26}")

    row("decision on EVERY client (slowest of 14), ms", lambda r: [r.every_ms])
    row("decision on one client (all 14 x rounds samples), ms", lambda r: list(r.clients_ms.values()))
    row("  grace period the referee waited (decision grace_us), ms", lambda r: [r.grace_ms])
    row("  press uncertainty added to the wait (phones), ms", lambda r: [r.uncertainty_ms])
    row("every client minus grace, ms", lambda r: [r.every_ms - r.grace_ms])
    row("every client minus (grace + uncertainty), ms", lambda r: [r.every_ms - r.grace_ms - r.uncertainty_ms])
    row("  press sent -> press stamped (request in), ms", lambda r: [] if r.in_ms is None else [r.in_ms])
    row("  press sent -> decision due (request in + wait), ms", lambda r: [r.to_due_ms])
    row("  decision due -> on every client (service overhead), ms", lambda r: [r.every_ms - r.to_due_ms])
    split = [r for r in result.rounds if r.settle_started is not None and r.settle_stamped is not None]
    if split:
        row("    due -> settle command starts (round keeper's timer), ms",
            lambda r: [] if r.settle_started is None else [(r.settle_started - r.due) * 1000])
        row("    settle starts -> event stamped (table lock + rules), ms",
            lambda r: [] if r.settle_started is None or r.settle_stamped is None
            else [(r.settle_stamped - r.settle_started) * 1000])
        row("    event stamped -> on every client (append + fan-out), ms",
            lambda r: [] if r.settle_stamped is None else [(r.slowest - r.settle_stamped) * 1000])
    row("    of which this script's parse + apply (slowest client), ms", lambda r: [r.client_side_ms])
    print()
    print("  per client: press sent -> result applied, ms p50 / p99")
    names = list(result.rounds[0].clients_ms) if result.rounds else []
    for name in names:
        cells = []
        for source in SOURCES:
            values = [r.clients_ms[name] for r in by[source]]
            cells.append(f"{percentile(values, 50):6.2f} / {percentile(values, 99):6.2f}" if values else "n/a")
        print(f"    {name:<10}{cells[0]:>26}{cells[1]:>26}")
    print()
    if result.warmup:
        every = [r.every_ms for r in result.warmup]
        grace = [r.grace_ms for r in result.warmup]
        print(f"  warm-up, not in the figures above: {len(result.warmup)} rounds in the first {result.warmup_s:.0f} s "
              f"after the phones connected: every client p50 {percentile(every, 50):.2f} ms, p99 "
              f"{percentile(every, 99):.2f} ms; grace from {grace[0]:.2f} ms down to {grace[-1]:.2f} ms "
              "(the first ping round trips, taken while the streams connect, are slow; the grace follows the "
              "slowest phone's best round trip as its burst of pings comes back)")
    counts = ", ".join(f"{len(by[s])} {s}" for s in SOURCES)
    print(f"  rounds measured: {counts} in {result.elapsed_s:.1f} s; server CPU "
          f"{result.server_cpu_ms_per_round:.1f} ms per round (arm + press + settle + 14 streams + pings); "
          f"this script used {result.client_cpu:.2f} CPU; {result.server_threads} server threads after the rounds")
    if result.ping_rtts_ms:
        print(f"  ping round trips answered by the 13 phones: {len(result.ping_rtts_ms)}, p50 "
              f"{percentile(result.ping_rtts_ms, 50):.2f} ms, p99 {percentile(result.ping_rtts_ms, 99):.2f} ms, "
              f"max {max(result.ping_rtts_ms):.2f} ms")
    false_starts = [r.false_starts for r in result.rounds]
    if any(false_starts):
        print(f"  decisions listing false starts: {sum(1 for f in false_starts if f)}/{len(false_starts)} rounds "
              f"(median {statistics.median(false_starts):.0f}) although every press came 50-300 ms after its arm")
    if result.wrong_winner:
        print(f"  WARNING: {result.wrong_winner} rounds were not won by the seat that pressed")
    if result.late_arms:
        print(f"  {result.late_arms} arms took over {ARM_SEEN_TIMEOUT_S:.0f} s to reach every client")
    for lost in result.lost[:5]:
        print(f"  LOST: {lost}")
    if len(result.lost) > 5:
        print(f"  ... {len(result.lost)} rounds lost in all")
    disturbed = "; WARNING: the figures are disturbed" if result.other_cpu > 0.1 else ""
    print(f"  other processes on the machine used {result.other_cpu:.2f} CPUs meanwhile{disturbed}")
    for note in result.notes:
        print(f"  {note}")


def report_referee(result: RefereeResult) -> None:
    print()
    print("Referee throughput (companion/buzzers/referee.py, pure functions, in this process; CPU time of one thread, "
          f"best of {REPEATS} batches for the small rounds)")
    rate = result.presses / result.press_decide_s
    print(f"  rounds of 13 presses (random times and uncertainties, some false starts): {result.rounds} rounds")
    print(f"    press() x 13 + decide():                 {rate:>12,.0f} presses/s  "
          f"({result.rounds / result.press_decide_s:,.0f} rounds/s, {result.press_decide_s / result.presses * 1e6:.1f} "
          "us per press)")
    rate = result.presses / result.with_due_s
    print(f"    as the round keeper: + due_at_us per press: {rate:>9,.0f} presses/s  "
          f"(decide() alone {result.decide_us:.0f} us per round)")
    print("  one large round (hands_off, 60 s window; press() copies the round's tuples at every press):")
    print(f"    {'case':<38}{'presses':>8}{'contestants':>12}{'press() total':>15}{'presses/s':>11}"
          f"{'us/press, last 10%':>20}{'decide()':>10}")
    for case, presses, contestants, total_s, tail_us, decide_s in result.large:
        decided = "skipped" if decide_s is None else f"{decide_s * 1000:.0f} ms"
        print(f"    {case:<38}{presses:>8,}{contestants:>12,}{total_s * 1000:>12.0f} ms{presses / total_s:>11,.0f}"
              f"{tail_us:>20.1f}{decided:>10}")
    for group in ("mashing", "new contestant"):
        rows = [r for r in result.large if group in r[0]]
        if len(rows) >= 2:
            (_, n1, _, t1, _, _), (_, n2, _, t2, _, _) = rows[-2], rows[-1]  # the two largest
            exponent = (math.log(t2 / t1) / math.log(n2 / n1)) if t1 > 0 and n2 != n1 else float("nan")
            print(f"    {group}: {n1:,} -> {n2:,} presses took {t2 / t1:.1f}x as long "
                  f"(time ~ presses^{exponent:.2f}; 2 = quadratic)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=None, help="rounds per press source (default 150; 25 quick)")
    parser.add_argument("--quick", action="store_true", help="about 20 s: fewer rounds, smaller referee runs")
    parser.add_argument("--warmup", type=float, default=None, metavar="S",
                        help=f"seconds of rounds reported apart after the phones connect (default {WARMUP_S:.0f}, "
                        f"quick {QUICK_WARMUP_S:.0f})")
    parser.add_argument("--seed", type=int, default=1, help="seed of the press plan and the referee's inputs")
    parser.add_argument("--source", type=Path, default=ROOT, metavar="DIR",
                        help="run the companion package found in DIR (e.g. an extracted older commit)")
    parser.add_argument("--skip-service", action="store_true", help="only the referee's throughput")
    parser.add_argument("--skip-referee", action="store_true", help="only the service's latency")
    args = parser.parse_args()
    rounds = max(1, min(args.rounds if args.rounds is not None else (25 if args.quick else 150), 2000))
    rng = random.Random(args.seed)
    print(f"Machine: {machine()}", flush=True)
    service_result = referee_result = None
    if not args.skip_service:
        warmup = max(0.0, args.warmup if args.warmup is not None else (QUICK_WARMUP_S if args.quick else WARMUP_S))
        print(f"running the service: {warmup:.0f} s warm-up, then {rounds} simulated + {rounds} phone rounds ...",
              flush=True)
        service_result = run_service(rounds, warmup, rng, args.source.resolve())
    if not args.skip_referee:
        print("running the referee alone ...", flush=True)
        referee_result = run_referee(args.quick, random.Random(args.seed))
    if service_result is not None:
        report_service(service_result, rounds)
    if referee_result is not None:
        report_referee(referee_result)


if __name__ == "__main__":
    main()
