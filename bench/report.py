"""The figures a demanding user asks about, in one table: latency, timing precision, durability
cost, start-up, memory and the rules engines' speed.

Prints the machine, then one table (what, median, p99, unit, note), figure by figure:

 1. press -> decision on every client (13 phones + the table display on SSE, loopback), for GPIO
    (gpiozero MockFactory pins inside the real service process), the buzzer box (companion/sim/box.py
    on a pty) and the phone buzzer (POST /api/buzz): bench/press_latency.py.
 2. command -> every client has the new state, 15 and 100 clients: bench/live_latency.py. With
    --peers, boardgame.io 0.50.2 in the same run, the same shape (its harness bench/peers/, installed
    with npm into a temporary folder), and the ratios ours / boardgame.io: latency, the server's CPU
    per command, its RSS. Beside the 15-client row, the floor (bench/floor.py): a server that only
    reads the POST, commits it and writes it to 15 streams, with and without the disk's wait, and
    how far above it ours is. Then the same for each game's own commands (Vampir, la nuit, garlic, La
    chasse's glass turn-over, Dracula's night with private news to 13 phones): bench/game_latency.py;
    and command -> the DOM updated on 13 phone pages and the TV in one Chromium:
    bench/browser_latency.py.
 3. firmware timestamp error, our sampler against the hobby build, in simavr, on groups of 1-8 presses
    with contact bounce: bench/firmware_timing.py.
 4. clock-sync error of companion/buzzers/clocksync.py on synthetic round trips with USB-like
    jitter, and its stated bound against the true error: at +-100 ppm (a crystal), at +-5,000 ppm
    (a ceramic resonator at its worst) and with the drift moving 100 ppm a minute (one warming up).
 5. event append latency (synchronous=FULL, one event per transaction) and replay speed of a long
    game: companion/store, bench/replay.py.
 6. cold start of `companion serve` to the first served /table, and its RSS idle and with 13 phones
    + the table connected.
 7. complete random games per second on the pure rules (companion/sim/players/), and dice-tray rolls.
 8. phone buzzers on simulated Wi-Fi: six phones of the buzzer quiz, each behind a delay proxy on
    its own link (good to bad, stalls, an asymmetric one), through the real service on loopback;
    how often the winner shown is the true first, ties, confident wrong winners, and a naive
    referee (first request in wins) beside it: bench/phone_fairness.py. The same experiment in
    process (companion/sim/wifi.py, the real referee on a simulated clock) for comparison.

A benchmark, not a test: it asserts nothing. Loopback only, every wait bounded, no internet but for
--peers, whose npm install (and apt-get, when Node.js is missing) reach their registries.
Progress goes to stderr, the report to stdout; `--json FILE` writes it as JSON too.

Usage: .venv/bin/python -m bench.report [--quick] [--json FILE] [--seed N] [--only 1,8] [--peers]
The default run takes about 12 minutes on 2 cores (more on a busy machine), --quick about 5; --peers
adds about a minute (npm ci of about 10 s, then the peer's two cases).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import statistics
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench import (
    browser_latency,
    firmware_timing,
    floor,
    game_latency,
    live_latency,
    phone_fairness,
    press_latency,
    replay,
)
from bench.buzzer_latency import ARM_SEEN_TIMEOUT_S
from bench.live_latency import ROOT, bench_service, settle
from companion.buzzers.clocksync import ClockSync, MonotonicMapper, TickUnwrapper, sync_interval_s
from companion.config import ServerConfig, load_config
from companion.fairness.drbg import SeededRandomSource
from companion.games.base import TABLE, Command, SeatInfo
from companion.games.registry import GAMES
from companion.sim.boardclock import drifting_ticks, usb_delay
from companion.sim.clients import SEATS, display_address, phone_address, request, seat_phones
from companion.sim.players import chasse, dracula, garlic, nuit, vampir
from companion.sim.players.dracula import GAME as DRACULA
from companion.sim.players.vampir import GAME as VAMPIR
from companion.sim.presses import percentile
from companion.sim.service import ServiceProcess
from companion.sim.streams import Reader
from companion.sim.wifi import PROFILES, Verdicts, WifiTable, judge
from companion.store import EventStore
from companion.store.records import PendingEvent


@dataclass(frozen=True)
class Plan:
    """How much of each figure a run measures."""

    press_rounds: int
    """Rounds per press source."""
    phone_warmup_s: float
    live_commands: tuple[int, int]
    """Commands fired at 15 and at 100 clients."""
    firmware_presses: int
    """Presses in groups of 1-8, each with its release: a p99 over thousands of edges costs a few
    seconds of simavr per build."""
    sync_duration_s: float
    appends: int
    replay_commands: int
    cold_starts: int
    game_s: float
    """Seconds of random games per rules engine."""
    fairness_rounds: int
    """Races of six phones through the service and their proxies, 2.5 s each."""
    wifi_rounds: int
    """The same races in process, on a simulated clock (about 200 a second)."""


FULL = Plan(press_rounds=150, phone_warmup_s=18.0, live_commands=(1000, 500), firmware_presses=2000,
            sync_duration_s=120.0, appends=1000, replay_commands=10_000, cold_starts=3, game_s=8.0,
            fairness_rounds=30, wifi_rounds=1000)
QUICK = Plan(press_rounds=20, phone_warmup_s=4.0, live_commands=(200, 120), firmware_presses=500,
             sync_duration_s=30.0, appends=300, replay_commands=4_000, cold_starts=1, game_s=2.0,
             fairness_rounds=10, wifi_rounds=300)
LIVE_INTERVAL_S = 0.020
BUSY_CPUS = 0.5
"""Other processes using more CPUs than this during a live-sync run make its comparison with the peer unfair."""
SYNC_DRIFTS_PPM = (-100.0, 100.0)
SYNC_HARD_BOARDS = ((-5000.0, 0.0), (5000.0, 0.0), (3000.0, 100.0), (3000.0, -100.0))
"""(drift ppm at the start, its change in ppm a minute) of the boards measured one by one."""
SYNC_WARMUP_S = 1.0
STREAMS_TIMEOUT_S = 15.0
COLD_START_TIMEOUT_S = 30.0


@dataclass
class Row:
    figure: str
    what: str
    median: float | None
    p99: float | None
    unit: str
    note: str


def progress(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


# -- the machine -------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    model = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("model name", "Model")):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram_gb = float("nan")
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram_gb = int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    distro = platform.system()
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                distro = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    board = ""
    for path in ("/proc/device-tree/model", "/sys/firmware/devicetree/base/model"):
        try:
            board = Path(path).read_bytes().rstrip(b"\0").decode(errors="replace")
            break
        except OSError:
            continue
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "ram_gb": round(ram_gb, 1),
        "os": f"{distro}, {platform.system()} {platform.release()} {platform.machine()}",
        "python": f"{sys.version.split()[0]} ({platform.python_implementation()})",
        "raspberry_pi": "Raspberry Pi" in board,
        "board": board or "no device-tree model (not a Pi)",
        "load_average_1min": round(os.getloadavg()[0], 2),
    }


# -- 1. press -> decision ----------------------------------------------------------------------


def figure_presses(plan: Plan, seed: int) -> list[Row]:
    progress(f"1. press -> decision: GPIO + buzzer box, {plan.press_rounds} rounds each ...")
    wired = press_latency.run_wired(plan.press_rounds, random.Random(seed))
    progress(f"1. press -> decision: phones, {plan.phone_warmup_s:.0f} s warm-up + {plan.press_rounds} rounds ...")
    phones = press_latency.run_phones(plan.press_rounds, plan.phone_warmup_s, random.Random(seed + 1))
    how = {
        "gpio": ("GPIO button (MockFactory pin in the service)",
                 "edge by a line on the service's stdin (companion/sim/mock_pins.py), confirmed 5 ms later by "
                 "GpioSource"),
        "serial": ("buzzer box (FakeBox on a pty, serial source)",
                   "FakeBox stamps the edge on its 16 MHz clock and sends it at once; mapped by the clock sync"),
        "phone": ("phone buzzer (POST /api/buzz)",
                  f"phones-only table (no wired source); press = the POST sent; after {plan.phone_warmup_s:.0f} s of "
                  "warm-up rounds (the server's delay estimate keeps a phone's last 8 pings, 2 s apart"
                  + (": with --quick the slow first pings still widen the wait)" if plan.phone_warmup_s < 18 else ")")),
    }
    rows = []
    for run, source in ((wired, "gpio"), (wired, "serial"), (phones, "phone")):
        rounds = run.of(source)
        label, detail = how[source]
        every = [r.every_ms for r in rounds]
        wait = [r.wait_ms for r in rounds]
        problems = [f"{len(run.lost)} rounds lost"] if run.lost else []
        if run.wrong_winner:
            problems.append(f"{run.wrong_winner} wrong winners")
        if run.late_arms:
            problems.append(f"{run.late_arms} arms reached every client only after {ARM_SEEN_TIMEOUT_S:.0f} s")
        problems += run.notes
        stamp = [r.in_ms for r in rounds if r.in_ms is not None]
        stamped = f"; press sent -> stamped p50 {percentile(stamp, 50):.2f} ms" if stamp else ""
        rows.append(Row("1", f"press -> decision on all 14 clients: {label}", pct(every, 50), pct(every, 99), "ms",
                        f"{len(rounds)} rounds; {detail}; includes the referee's deliberate wait "
                        f"(first press -> due, p50 {pct(wait, 50):.1f} ms: grace"
                        + (" 2 ms + 5 ms confirm + 20 ms report margin, + the press's uncertainty" if source != "phone"
                           else ": the slowest phone's measured delay + uncertainty, + this press's uncertainty")
                        + ", or longer while a phone that has not pressed might still send an earlier press"
                        + f"){stamped}" + ("; " + "; ".join(problems) if problems else "")))
        after = [r.after_due_ms for r in rounds]
        rows.append(Row("1", "  of which after the decision was due", pct(after, 50), pct(after, 99), "ms",
                        "timer wake-up, settle command, log append (fsync), patches to 14 SSE streams, client parse"))
    return rows


# -- 2. live sync ------------------------------------------------------------------------------


def figure_live(plan: Plan, peers: bool = False) -> list[Row]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="report-peer-") as tmp:
        peer: live_latency.Peer | None = None
        if peers:
            progress(f"2. installing {live_latency.PEER} with npm into a temporary folder, to compare ...")
            peer, about = live_latency.measure_peer(Path(tmp))
            if peer is None:
                rows.append(Row("2", f"{live_latency.PEER}: not measured", None, None, "",
                                f"{about}; the rows below are ours alone"))
        for clients, commands in zip((15, 100), plan.live_commands, strict=True):
            progress(f"2. command -> every client: {clients} clients, {commands} commands ...")
            ours = live_latency.run_scenario(clients, commands, LIVE_INTERVAL_S, None, ROOT)
            notes = [f"{len(ours.latencies_ms)} roll commands {LIVE_INTERVAL_S * 1000:.0f} ms apart, 13 phones + "
                     f"{clients - 13} table displays; POST sent -> the slowest stream has it"]
            rows.append(Row("2", f"command -> every client has the new state, {clients} clients",
                            pct(ours.latencies_ms, 50), pct(ours.latencies_ms, 99), "ms",
                            "; ".join(notes + live_notes(ours))))
            if clients == 15:
                rows += floor_rows(ours, commands)
                progress(f"2. the same, the server pinned to one core: {clients} clients, {commands} commands ...")
                pinned = live_latency.run_scenario(clients, commands, LIVE_INTERVAL_S, None, ROOT, one_core=True)
                rows.append(Row("2", "  the same, the server pinned to one core (taskset), the clients on the other",
                                pct(pinned.latencies_ms, 50), pct(pinned.latencies_ms, 99), "ms",
                                "; ".join(live_notes(pinned))))
            if peer is None:
                continue
            progress(f"2. {live_latency.PEER}, the same: {clients} clients, {commands} moves ...")
            try:
                theirs = live_latency.run_peer_scenario(peer, clients, commands, LIVE_INTERVAL_S)
            except Exception as err:  # the peer failing must not cost our rows
                traceback.print_exc()
                rows.append(Row("2", f"  {live_latency.PEER}, {clients} clients: failed", None, None, "", str(err)))
                continue
            rows += peer_rows(ours, theirs, about if clients == 15 else "")
        budget = game_latency.QUICK if plan == QUICK else game_latency.FULL
        for game in game_latency.SPECS:
            progress(f"2. command -> every client: {game} ...")
            try:
                played = game_latency.run_game(game, budget, LIVE_INTERVAL_S)
            except Exception as err:  # one game's failure must not cost the other rows
                traceback.print_exc()
                rows.append(Row("2", f"command -> every client: {game} failed", None, None, "",
                                f"{type(err).__name__}: {err}"))
                continue
            rows += [Row("2", what, pct(values, 50), pct(values, 99), "ms", note)
                     for what, values, note in game_latency.rows(played)]
        commands = browser_latency.QUICK_COMMANDS if plan == QUICK else browser_latency.COMMANDS
        progress(f"2. command -> the DOM of 14 pages in Chromium, {commands} commands ...")
        try:
            drawn = browser_latency.run(commands)
        except Exception as err:  # no Chromium, or Playwright broke: the other rows stand
            traceback.print_exc()
            return [*rows, Row("2", "command -> the DOM in Chromium failed", None, None, "",
                               f"{type(err).__name__}: {err}")]
        rows += [Row("2", what, pct(values, 50), pct(values, 99), "ms", note)
                 for what, values, note in browser_latency.rows(drawn)]
    return rows


def floor_rows(ours: live_latency.Result, commands: int) -> list[Row]:
    """The floor under the 15-client row (bench/floor.py): reading the POST (httptools), the commit
    and 15 writes, nothing else; with the disk's wait and without it. What ours spends above it is ours to cut."""
    rows = []
    for synchronous, what in (("FULL", "committed to disk first"), ("OFF", "no wait for the disk")):
        progress(f"2. the floor, {what}: 15 clients, {commands} commands ...")
        figures = floor.measure(commands, 15, LIVE_INTERVAL_S, synchronous)
        rows.append(Row("2", f"  the floor ({what}): POST read, commit, 15 writes, answer; 15 clients",
                        figures["p50"], figures["p99"], "ms",
                        f"bench/floor.py: asyncio + httptools + SQLite WAL synchronous={synchronous}, no Flask, "
                        f"rules or views; server CPU {figures['cpu_ms']:.2f} ms/command; ours / the floor: CPU "
                        f"{ratio(ours.cpu_per_command_ms, figures['cpu_ms']):.2f}x, p50 "
                        f"{ratio(pct(ours.latencies_ms, 50), figures['p50']):.2f}x"))
    return rows


def live_notes(result: live_latency.Result) -> list[str]:
    """The notes a live-sync row shares with its peer's: what went wrong, CPU, memory, time."""
    notes = []
    if result.undelivered:
        notes.append(f"{result.undelivered} never reached every client")
    if result.late_sends:
        notes.append(f"{result.late_sends} sent late")
    notes.append(f"server CPU {result.cpu_per_command_ms:.1f} ms/command")
    notes.append(f"RSS {result.rss_after():.1f} MB after the commands")
    notes += result.notes
    if result.other_cpu > 0.1:
        notes.append(f"other processes used {result.other_cpu:.1f} CPUs meanwhile")
    notes.append(f"{result.elapsed_s:.0f} s")
    return notes


def peer_rows(ours: live_latency.Result, theirs: live_latency.Result, about: str) -> list[Row]:
    """The peer's row and the ratios ours / the peer's: latency, server CPU per command, RSS."""
    peer, clients = theirs.server, theirs.clients
    lat, our_lat = theirs.latencies_ms, ours.latencies_ms
    how = (f"{len(lat)} roll moves {LIVE_INTERVAL_S * 1000:.0f} ms apart from seat 1, {theirs.phones} players + "
           f"{clients - theirs.phones} spectators (socket.io, a websocket each); move sent -> the slowest client's "
           "socket has it")
    return [
        Row("2", f"  {peer}, the same: move -> every client has it, {clients} clients", pct(lat, 50), pct(lat, 99),
            "ms", "; ".join([how, *live_notes(theirs), *([about] if about else [])])),
        Row("2", f"  ours / {peer}: latency, {clients} clients", ratio(pct(our_lat, 50), pct(lat, 50)),
            ratio(pct(our_lat, 99), pct(lat, 99)), "x", "p50 / p50 and p99 / p99; above 1: ours is slower"
            + (f"; NOT a fair comparison: other processes used {ours.other_cpu:.1f} and {theirs.other_cpu:.1f} "
               f"CPUs during the two runs (of {os.cpu_count()} here), so both latencies say more about the machine "
               "than about the servers" if max(ours.other_cpu, theirs.other_cpu) > BUSY_CPUS else "")),
        Row("2", f"  ours / {peer}: server CPU per command, {clients} clients",
            ratio(ours.cpu_per_command_ms, theirs.cpu_per_command_ms), None, "x",
            f"ours {ours.cpu_per_command_ms:.2f} ms, {peer} {theirs.cpu_per_command_ms:.2f} ms: utime + stime of "
            "the server's process (/proc) over the commands, divided by their number"),
        Row("2", f"  ours / {peer}: server RSS after the commands, {clients} clients",
            ratio(ours.rss_after(), theirs.rss_after()), None, "x",
            f"ours {ours.rss_after():.1f} MB, {peer} {theirs.rss_after():.1f} MB (VmRSS); idle after start "
            f"{ours.rss[0][1]:.1f} MB and {theirs.rss[0][1]:.1f} MB"),
    ]


# -- 3. firmware -------------------------------------------------------------------------------


def figure_firmware(plan: Plan) -> list[Row]:
    progress(f"3. firmware timestamp error in simavr, {plan.firmware_presses} presses in bouncing groups ...")
    presses = firmware_timing.press_set(plan.firmware_presses, 2026)
    ours_run = firmware_timing.measure("sampler", presses)
    hobby_run = firmware_timing.measure("hobby", presses)
    ours = [abs(e) for e in ours_run.errors_us]
    hobby = [abs(e) for e in hobby_run.errors_us]
    edges = len(presses.edges)
    return [
        Row("3", "firmware timestamp |error|, our sampler build", pct(ours, 50), pct(ours, 99), "us",
            f"{len(ours)} of {edges} edges ({presses.presses} presses in groups of 1-8 players within 20 us, "
            f"and their releases; {presses.transitions} pin changes with contact bounce), simavr ATmega328P 16 MHz, "
            f"deterministic (seed 2026); {firmware_timing.counts(ours_run)}; "
            f"worst {max(ours, default=math.nan):.3f} us"),
        Row("3", "firmware timestamp |error|, baseline hobby build", pct(hobby, 50), pct(hobby, 99), "us",
            f"same presses; {len(hobby)} of {edges} edges; {firmware_timing.counts(hobby_run)}; "
            f"worst {max(hobby, default=math.nan):.3f} us"),
        Row("3", "error ratio hobby / ours", ratio(pct(hobby, 50), pct(ours, 50)),
            ratio(pct(hobby, 99), pct(ours, 99)), "x",
            f"median |error| ratio, p99 |error| ratio; worst-case ratio "
            f"{ratio(max(hobby, default=math.nan), max(ours, default=math.nan)):.1f}x"),
    ]


# -- 4. clock sync -----------------------------------------------------------------------------


def simulate_sync(drift_ppm: float, duration_s: float, seed: int,
                  ramp_ppm_per_min: float = 0.0) -> list[tuple[float, float, int]]:
    """(true host time, mapped host time, stated bound) of presses, as the serial source sees them:
    round trips on its own schedule (host timer late by 0-200 us, each way usb_delay), presses every
    20-400 ms reaching the host 5 ms (confirmation) + usb_delay after their edge, the board's 32-bit
    ticks starting at a random value (wraps included) at 16 MHz off by `drift_ppm`, plus
    `ramp_ppm_per_min` more every minute."""
    rng = random.Random(seed)
    host0 = 7_000_000_000.0
    tick0 = rng.randrange(1 << 32)

    def ticks(host_us: float) -> int:
        return drifting_ticks(tick0, drift_ppm, ramp_ppm_per_min, host_us - host0)

    arrivals: list[tuple[float, str, tuple[float, ...]]] = []
    t = host0
    sent = 0
    while t < host0 + duration_s * 1e6:
        t1 = float(round(t + rng.uniform(0, 200)))
        read = t1 + usb_delay(rng)
        t4 = float(math.ceil(read + usb_delay(rng)))
        arrivals.append((t4, "sync", (t1, ticks(read), t4)))
        sent += 1
        t += sync_interval_s(sent, (t - host0) / 1e6) * 1e6
    edge = host0 - 50_000.0
    while edge < host0 + duration_s * 1e6:
        arrivals.append((edge + 5_000 + usb_delay(rng), "press", (edge, ticks(edge))))
        edge += rng.uniform(20_000, 400_000)
    arrivals.sort(key=lambda a: a[0])
    sync = ClockSync()
    mapper = MonotonicMapper(sync)
    unwrap = TickUnwrapper()
    waiting: list[tuple[float, int]] = []
    out: list[tuple[float, float, int]] = []
    for _, kind, data in arrivals:
        if kind == "sync":
            sync.add(int(data[0]), unwrap.unwrap(int(data[1]) & 0xFFFF_FFFF), int(data[2]))
        else:
            waiting.append((data[0] - host0, unwrap.unwrap(int(data[1]) & 0xFFFF_FFFF)))
        if sync.synced:
            for true_rel, board_ticks in waiting:
                mapped = mapper.map(board_ticks)
                if mapped is not None:
                    out.append((true_rel, mapped.t_us - host0, mapped.bound_us))
            waiting = []
    return out


def figure_clock_sync(plan: Plan, seed: int) -> list[Row]:
    progress(f"4. clock sync, {plan.sync_duration_s:.0f} s simulated per board ...")
    errors: list[float] = []
    bounds: list[float] = []
    per_drift: list[str] = []
    covered = total = 0
    for k, drift in enumerate(SYNC_DRIFTS_PPM):
        outcomes = simulate_sync(drift, plan.sync_duration_s, seed + k)
        total += len(outcomes)
        covered += sum(abs(m - t) <= b for t, m, b in outcomes)
        steady = [(abs(m - t), b) for t, m, b in outcomes if t >= SYNC_WARMUP_S * 1e6]
        errors += [e for e, _ in steady]
        bounds += [float(b) for _, b in steady]
        per_drift.append(f"{drift:+.0f} ppm p99 {pct([e for e, _ in steady], 99):.0f} us")
    rows = [
        Row("4", "clock-sync mapping error (true), board -> host", pct(errors, 50), pct(errors, 99), "us",
            f"{len(errors)} presses over {plan.sync_duration_s:.0f} s at each of "
            f"{', '.join(f'{d:+.0f}' for d in SYNC_DRIFTS_PPM)} ppm; USB 0-1 ms jitter each way + 2 % stalls "
            f"of 1-30 ms; first {SYNC_WARMUP_S:.0f} s left out; {'; '.join(per_drift)}"),
        Row("4", "clock-sync stated error bound", pct(bounds, 50), pct(bounds, 99), "us",
            f"the bound covers the true error for {covered}/{total} presses ({covered / max(total, 1):.2%}, "
            "first second included); it is the press's published uncertainty (+ the firmware's)"),
    ]
    for k, (drift, ramp) in enumerate(SYNC_HARD_BOARDS):
        outcomes = simulate_sync(drift, plan.sync_duration_s, seed + len(SYNC_DRIFTS_PPM) + k, ramp)
        rows.append(sync_board_row(drift, ramp, outcomes))
    return rows


def sync_board_row(drift_ppm: float, ramp_ppm_per_min: float, outcomes: list[tuple[float, float, int]]) -> Row:
    """One board's presses: the error's median and p99 after the first second, and the bound's median
    and the presses it covered, the first second included."""
    steady = [(abs(m - t), float(b)) for t, m, b in outcomes if t >= SYNC_WARMUP_S * 1e6]
    errors = [e for e, _ in steady]
    covered = sum(abs(m - t) <= b for t, m, b in outcomes)
    board = f"{drift_ppm:+.0f} ppm" + (f", {ramp_ppm_per_min:+.0f} ppm a minute" if ramp_ppm_per_min else "")
    verdict = "every one" if covered == len(outcomes) else f"{covered / max(len(outcomes), 1):.2%}"
    return Row("4", f"clock-sync mapping error (true), board {board}", pct(errors, 50), pct(errors, 99), "us",
               f"bound median {pct([b for _, b in steady], 50):.0f} us; the bound covered {covered}/{len(outcomes)} "
               f"presses ({verdict}); max error {max(errors, default=math.nan):.0f} us")


# -- 5. the store ------------------------------------------------------------------------------


def figure_store(plan: Plan) -> list[Row]:
    progress(f"5. event appends ({plan.appends}) and replay of {plan.replay_commands} commands ...")
    with tempfile.TemporaryDirectory(prefix="report-store-") as tmp:
        store = EventStore.open(Path(tmp) / "events.sqlite3")
        mode = store._db.execute("PRAGMA synchronous").fetchone()[0]  # 2 = FULL
        journal = store._db.execute("PRAGMA journal_mode").fetchone()[0]
        times = []
        try:
            for seq in range(1, plan.appends + 1):
                event = PendingEvent("bench", seq, "rolled", "table",
                                     {"roll": seq, "dice": [{"die": "d6", "face": seq % 6 + 1}] * 2, "total": 7},
                                     time.monotonic_ns() // 1000, int(time.time() * 1000),
                                     draws=({"n": seq, "purpose": f"roll {seq} die 1 d6", "bound": 6},))
                start = time.perf_counter()
                store.append([event])
                times.append((time.perf_counter() - start) * 1000)
        finally:
            store.close()
        fs = filesystem(Path(tmp))
    long_game = replay.measure(plan.replay_commands)
    restart_ms = (long_game["open_s"] + long_game["replay_s"]) * 1000
    return [
        Row("5", "event append, one event per transaction", pct(times, 50), pct(times, 99), "ms",
            f"{len(times)} appends, SQLite WAL ({journal}), synchronous={ {2: 'FULL', 3: 'EXTRA'}.get(mode, mode)}, "
            f"hash-chained; temp folder on {fs}"),
        Row("5", "replay of a long game (rebuild the table from the log)",
            long_game["events"] / long_game["replay_s"], None, "events/s",
            f"{long_game['events']:,} events (dice tray, {long_game['commands']:,} commands, "
            f"{long_game['size_mb']:.1f} MB); whole restart {restart_ms:.0f} ms incl. integrity + chain check "
            f"{long_game['open_s'] * 1000:.0f} ms; written at {long_game['commands'] / long_game['append_s']:,.0f} "
            "commands/s durable (bench/replay.py)"),
    ]


def filesystem(path: Path) -> str:
    """The filesystem type holding `path` (from /proc/mounts, the longest matching mount point)."""
    best, kind = "", "unknown"
    try:
        for line in Path("/proc/mounts").read_text().splitlines():
            parts = line.split()
            if len(parts) >= 3 and str(path).startswith(parts[1]) and len(parts[1]) > len(best):
                best, kind = parts[1], f"{parts[2]} ({parts[0]})"
    except OSError:
        pass
    return kind


# -- 6. cold start and memory ------------------------------------------------------------------


def figure_start(plan: Plan) -> list[Row]:
    progress(f"6. cold start x{plan.cold_starts}, then RSS with 13 phones + the table ...")
    starts: list[float] = []
    idle_mb = connected_mb = float("nan")
    for k in range(plan.cold_starts):
        with tempfile.TemporaryDirectory(prefix="report-start-") as tmp:
            service = bench_service(Path(tmp), threads=ServerConfig().threads)
            try:
                began = time.perf_counter()
                service.start(timeout=COLD_START_TIMEOUT_S, ready="/table", poll_s=0.005)
                starts.append((time.perf_counter() - began) * 1000)
                if k == plan.cold_starts - 1:
                    idle_mb, connected_mb = rss_connected(service)
            finally:
                service.stop_cleanly(10)
    return [
        Row("6", "cold start: `companion serve` -> first GET /table 200", pct(starts, 50), pct(starts, 99), "ms",
            f"{len(starts)} starts, each on a fresh data folder (new log, keys); process spawn included; "
            "p99 = slowest"),
        Row("6", "RSS idle (VmRSS)", idle_mb, None, "MB", "after the first page, dice tray, no client"),
        Row("6", "RSS with 13 phones + the table connected", connected_mb, None, "MB",
            "13 seated phones and 1 table display on SSE, each with its first view"),
    ]


def rss_connected(service: ServiceProcess) -> tuple[float, float]:
    time.sleep(1.0)
    idle = service.rss_mb()
    cookies = seat_phones(service, SEATS)
    reader = Reader()
    try:
        for seat in range(1, SEATS + 1):
            reader.open(service.port, f"phone{seat}", "as=me", phone_address(seat), cookies[seat])
        reader.open(service.port, "table", "as=table", display_address(0))
        reader.start()
        _, status, _ = request(service.port, "GET", "/api/status")
        if not settle(reader, status["position"], STREAMS_TIMEOUT_S):
            raise RuntimeError("not every stream got its view")
        time.sleep(1.0)
        return idle, service.rss_mb()
    finally:
        reader.close()


# -- 7. rules engines --------------------------------------------------------------------------


def figure_games(plan: Plan, seed: int) -> list[Row]:
    def key(n: int) -> bytes:
        return n.to_bytes(8, "big") * 4

    players = 4
    games: list[tuple[str, Callable[[int], tuple[int, bool]], str]] = [
        ("garlic slap (Clearing Coffins)",
         lambda n: played(garlic.play_game(players, {}, n), lambda s: s.phase == "over"),
         "companion/sim/players/garlic.py: companion deck, half the rounds settled through the real referee"),
        ("la nuit des vampires",
         lambda n: played(nuit.play_game(players, {}, key(n), random.Random(n)), lambda s: s.phase == "over"),
         "companion/sim/players/nuit.py, it draws among the offered actions by their weights and validates each one "
         "it draws until one is allowed (the law of a draw among the allowed)"),
        ("Vampir",
         lambda n: played(vampir.play_game(players, {}, key(n), random.Random(n), illegal=0, offered=0),
                          VAMPIR.is_over),
         "companion/sim/players/vampir.py, no illegal tries"),
        ("La chasse au vampire",
         lambda n: played(chasse.play_game(players, {}, key(n), random.Random(n)), lambda s: s.phase == "over"),
         "companion/sim/players/chasse.py, it draws among the offered actions by their weights and validates each "
         "one it draws until one is allowed; the "
         "sand glass turned over as it runs out"),
        ("Dracula (a series of 3 rounds)",
         lambda n: played(dracula.play_series(players, n), DRACULA.is_over),
         "companion/sim/players/dracula.py, the host and the phases' timer included; of the actions offered "
         "it validates the one it picks (a refused one is not played)"),
    ]
    rows = []
    for name, play, how in games:
        progress(f"7. random games: {name}, {plan.game_s:.0f} s ...")
        per_game: list[float] = []
        commands: list[int] = []
        finished = 0
        began = time.perf_counter()
        n = seed * 1_000_000
        while time.perf_counter() - began < plan.game_s or len(per_game) < 3:
            n += 1
            start = time.perf_counter()
            count, over = play(n)
            per_game.append((time.perf_counter() - start) * 1000)
            commands.append(count)
            finished += over
        elapsed = time.perf_counter() - began
        rows.append(Row("7", f"complete random games/s: {name}", len(per_game) / elapsed, None, "games/s",
                        f"{len(per_game)} games of {players} players ({finished} reached the end), median "
                        f"{statistics.median(commands):.0f} commands; per game p50 {pct(per_game, 50):.1f} ms, "
                        f"p99 {pct(per_game, 99):.1f} ms; pure rules + the random player's choices, each checked by "
                        f"validate: {how}"))
    rows.append(dice_tray_rolls(plan))
    return rows


def played(result: Any, over: Callable[[Any], bool]) -> tuple[int, bool]:
    return len(result.turns), bool(over(result.state))


def dice_tray_rolls(plan: Plan) -> Row:
    """The dice tray never ends: rolls of 2d6 per second through validate, decide and evolve."""
    progress("7. dice-tray rolls ...")
    game = GAMES["dice-tray"]
    options = game.normalize_options({"catalogue": load_config(None).catalogue.to_json(), "tray": "2d6"})
    rng = SeededRandomSource(b"\x01" * 32)
    state = game.setup(options, tuple(SeatInfo(n, f"P{n}") for n in range(1, 5)), rng)
    rolls = 0
    began = time.perf_counter()
    while time.perf_counter() - began < plan.game_s / 2:
        for _ in range(100):
            command = Command("roll")
            assert game.validate(state, TABLE, command) is None
            state = game.decide(state, TABLE, command, rng).states[-1]
        rolls += 100
    rate = rolls / (time.perf_counter() - began)
    return Row("7", "dice tray: 2d6 rolls/s on the pure rules", rate, None, "rolls/s",
               "no end to play to (nor in the buzzer quiz, which is the referee's rounds): validate + decide (HMAC "
               "draws) + evolve per roll")


# -- 8. phone buzzers on simulated Wi-Fi -------------------------------------------------------


def figure_phone_fairness(plan: Plan, seed: int) -> list[Row]:
    progress(f"8. phone buzzers on simulated Wi-Fi: {plan.fairness_rounds} races through the service ...")
    played = phone_fairness.run(plan.fairness_rounds, seed)
    real = played.verdicts
    ours, ahead = phone_fairness.right_when_ahead(real)
    naive, _ = phone_fairness.right_when_ahead(real, naive=True)
    notes = [f"{ahead} of {real.rounds} races (a tie counts as its fair draw); naive referee (first request in wins) "
             f"{naive:.0%}", honesty(real), f"timed by {dict(sorted(real.methods.items()))}"]
    refused = {kind: n for kind, n in played.buzzes.items() if kind != "mapped"}
    if refused:
        notes.append(f"buzzes not timed by their tap: {refused}")
    notes.append(f"links {', '.join(link.name for link in PROFILES)}, 2 % stalls of 200 ms; a race every "
                 f"{phone_fairness.ROUND_SPACING_S} s")
    stalled = {number for (number, _), us in played.send_lag_us.items() if us > phone_fairness.STALLED_US}
    if stalled:
        notes.append(f"{len(stalled)} races with a request this process sent over "
                     f"{phone_fairness.STALLED_US // 1000} ms late (a busy machine)")
    notes.append(f"{played.elapsed_s:.0f} s")
    ahead_what = f"winner right, first >= {phone_fairness.MARGIN_FROM_MS} ms ahead"
    rows = [
        Row("8", f"phone buzzers on simulated Wi-Fi (6 phones behind delay proxies, loopback): {ahead_what}",
            100 * ours, None, "%", "; ".join(notes)),
        Row("8", "  ties (the first presses too close to call), same races", 100 * real.ties / max(real.rounds, 1),
            None, "%", f"{real.ties} of {real.rounds} races; the tied were truly "
            f"{max(real.tie_gaps_us, default=0) / 1000:.1f} ms apart at most; the table draws the winner"),
    ]
    progress(f"8. the same races in process (companion/sim/wifi.py), {plan.wifi_rounds} rounds ...")
    began = time.perf_counter()
    model = judge(WifiTable(seed=seed, signal="phones").play(plan.wifi_rounds))
    model_s = time.perf_counter() - began
    ours, ahead = phone_fairness.right_when_ahead(model)
    naive, _ = phone_fairness.right_when_ahead(model, naive=True)
    rows.append(Row("8", f"  the same in process (companion/sim/wifi.py, simulated clock): {ahead_what}", 100 * ours,
                    None, "%", f"{ahead} of {model.rounds} races; naive referee {naive:.0%}; {model.ties} ties "
                    f"({model.ties / max(model.rounds, 1):.0%}); {honesty(model)}; deterministic (seed {seed}); "
                    f"{model_s:.1f} s"))
    return rows


def honesty(verdicts: Verdicts) -> str:
    return (f"{len(verdicts.confident_wrong)} confident wrong winners, {len(verdicts.out_of_bound)} presses outside "
            f"their bound, {len(verdicts.unlisted)} unlisted, {verdicts.late} listed late")


# -- the table ---------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    return percentile(values, q) if values else float("nan")


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def number(value: float | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and math.isnan(value):
        return "n/a"
    magnitude = abs(value)
    if magnitude >= 10_000:
        return f"{value:,.0f}"
    if magnitude >= 100:
        return f"{value:.0f}"
    if magnitude >= 10:
        return f"{value:.1f}"
    if magnitude >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def table(rows: list[Row]) -> str:
    head = ("#", "what", "median", "p99", "unit", "note")
    cells = [(r.figure, r.what, number(r.median), number(r.p99), r.unit, r.note) for r in rows]
    widths = [max(len(c[i]) for c in [head, *cells]) for i in range(5)]
    lines = []
    for k, c in enumerate([head, *cells]):
        lines.append(f"{c[0]:<{widths[0]}}  {c[1]:<{widths[1]}}  {c[2]:>{widths[2]}}  {c[3]:>{widths[3]}}  "
                     f"{c[4]:<{widths[4]}}  {c[5]}".rstrip())
        if k == 0:
            lines.append("-" * (sum(widths) + 10 + len("note")))
    return "\n".join(lines)


def finite(row: dict[str, Any]) -> dict[str, Any]:
    """NaN (a figure that could not be measured) as null, for JSON."""
    return {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in row.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="about 1.5 minutes: fewer rounds and commands")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the report as JSON")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", metavar="FIGURES", help="these figures only, e.g. 1,8")
    parser.add_argument("--peers", action="store_true",
                        help="figure 2 measures boardgame.io 0.50.2 too, in the same run (npm installs it into a "
                             "temporary folder; Debian's nodejs and npm with apt-get if missing)")
    args = parser.parse_args()
    plan = QUICK if args.quick else FULL
    began = time.perf_counter()
    about = machine()
    figures: list[tuple[str, Callable[[], list[Row]]]] = [
        ("1", lambda: figure_presses(plan, args.seed)),
        ("2", lambda: figure_live(plan, args.peers)),
        ("3", lambda: figure_firmware(plan)),
        ("4", lambda: figure_clock_sync(plan, args.seed)),
        ("5", lambda: figure_store(plan)),
        ("6", lambda: figure_start(plan)),
        ("7", lambda: figure_games(plan, args.seed)),
        ("8", lambda: figure_phone_fairness(plan, args.seed)),
    ]
    if args.only:
        wanted = {figure.strip() for figure in args.only.split(",")}
        figures = [(figure, run) for figure, run in figures if figure in wanted]
    rows: list[Row] = []
    for figure, run in figures:
        try:
            rows += run()
        except Exception as err:  # one broken figure must not cost the others
            traceback.print_exc()
            rows.append(Row(figure, f"figure {figure} failed", None, None, "", f"{type(err).__name__}: {err}"))
    elapsed = time.perf_counter() - began
    about["load_average_1min_end"] = round(os.getloadavg()[0], 2)
    print(f"Machine: {about['cpu']}; {about['cores']} cores ({about['usable_cores']} usable); "
          f"{about['ram_gb']} GB RAM; "
          f"{about['os']}; Python {about['python']}; Raspberry Pi: {'yes' if about['raspberry_pi'] else 'no'} "
          f"({about['board']}); load average {about['load_average_1min']} at the start, "
          f"{about['load_average_1min_end']} at the end")
    only = f" (figures {args.only} only)" if args.only else ""
    print(f"Run: {'--quick' if args.quick else 'full'}{only}, {elapsed:.0f} s; loopback only; other processes on the "
          "machine disturb the wall-clock figures (1, 2, 5, 6, 7, 8); 3 is deterministic, 4 simulated")
    print()
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps({"machine": about, "mode": "quick" if args.quick else "full",
                                         "elapsed_s": round(elapsed, 1), "plan": asdict(plan),
                                         "rows": [finite(asdict(r)) for r in rows]}, indent=2, allow_nan=False,
                                        default=str) + "\n")


if __name__ == "__main__":
    main()
