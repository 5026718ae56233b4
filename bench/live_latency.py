"""Live-sync latency and memory of the real service: commands in, server-sent events out.

Starts `companion serve` as a subprocess on loopback, seats 13 phones (each joining from its own
loopback address 127.0.0.x, like phones on the Wi-Fi, so the per-address join limit is not hit),
opens N event streams (13 phones with `as=me` and their seat cookie, the rest table displays), then
fires `roll` commands 20 ms apart. A command's latency is the time from sending its POST to the
moment EVERY stream has received a message whose id (the log position) is at least the position the
POST answered. Prints p50/p99/max for 15 and 100 clients, and the server's RSS (VmRSS) idle, with
the clients connected, and along the commands, next to boardgame.io's figures.

A benchmark, not a test: it prints figures and asserts nothing. The service, the phones and their
streams are companion/sim's; loopback only; every loop is bounded in count and time.

Usage: .venv/bin/python -m bench.live_latency [--commands 1000] [--commands-large 500]
       [--interval-ms 20] [--only 15|100] [--phones 0..13] [--py-spy PREFIX] [--source DIR]
`--source DIR` runs the companion package found in DIR instead of this tree (e.g. an older commit
extracted with `git archive REV | tar -x -C DIR`), to compare versions. `--phones` changes how many
of the clients are seated phones (each has its own view; displays share one). `--py-spy PREFIX`
samples the server with py-spy, if installed in the venv, while the commands are fired, into
PREFIX-<clients>.txt (collapsed stacks, one per line with its count).

The sender is one keep-alive connection: when the server answers slower than the interval, the next
POST goes out at once (counted as "sent late"), so an overloaded server shows as late POSTs and a
longer run, not as an ever-growing queue.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from companion.sim.clients import SEATS, display_address, phone_address, request, seat_phones
from companion.sim.mock_pins import PROGRAM as MOCK_PINS
from companion.sim.presses import percentile
from companion.sim.service import COMPANION, ServiceProcess
from companion.sim.streams import Reader

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ("boardgame.io 0.50.2 (Node, socket.io), 13 players + 2 spectators, moves 20 ms apart: "
             "p50 3.1 ms, p99 6.4 ms; RSS 65 MB idle, 97 MB after 1000 moves")
CONNECT_TIMEOUT_S = 15.0
QUIET_S = 0.3
DRAIN_TIMEOUT_S = 10.0
MAX_FIRE_S = 45.0
"""A run stops firing after this long, whatever the command count (an overloaded server)."""


# -- the service and its streams ----------------------------------------------------------------


def bench_service(workdir: Path, threads: int, source: Path = ROOT, buttons: str = "",
                  mock_pins: bool = False) -> ServiceProcess:
    """`companion serve` on 127.0.0.1 with a data folder and a config file in `workdir` (its server
    threads, and `buttons`, the lines of its [buttons] table, if any), its output in
    workdir/service.log; the companion package found in `source` (this checkout's by default).
    With `mock_pins` it runs on gpiozero's mock pins (companion.sim.mock_pins), and its stdin is
    the pipe their presses are written to."""
    config = workdir / "companion.toml"
    config.write_text(f"[server]\nthreads = {threads}\n" + (f"[buttons]\n{buttons}" if buttons else ""))
    return ServiceProcess(workdir / "data", log_path=workdir / "service.log", config=config, source=source,
                          cwd=source, program=MOCK_PINS if mock_pins else COMPANION,
                          stdin=subprocess.PIPE if mock_pins else None)


def settle(reader: Reader, position: int, timeout: float) -> bool:
    """Wait (bounded) until every stream has seen `position` and nothing arrived for QUIET_S."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if reader.all_at(position) and time.perf_counter() - reader.last_message > QUIET_S:
            return True
        time.sleep(0.02)
    return False


# -- one scenario ------------------------------------------------------------------------------


@dataclass
class Result:
    clients: int
    commands: int
    phones: int = SEATS
    fired: int = 0
    late_sends: int = 0
    """POSTs sent more than half an interval behind schedule (the server answered too slowly)."""
    latencies_ms: list[float] = field(default_factory=list)
    """Per command: POST sent -> the slowest stream has it."""
    client_median_ms: list[float] = field(default_factory=list)
    """Per command: POST sent -> the median stream has it."""
    post_ms: list[float] = field(default_factory=list)
    undelivered: int = 0
    rss: list[tuple[str, float]] = field(default_factory=list)
    cpu_per_command_ms: float = 0.0
    system_share: float = 0.0
    """Part of the server's CPU time spent in the kernel (syscalls, futex wake-ups, context switches)."""
    switches_per_command: float = 0.0
    message_bytes: list[tuple[str, int]] = field(default_factory=list)
    threads: int = 0
    fire_s: float = 0.0
    other_cpu: float = 0.0
    """CPUs' worth of time that other processes (not the server, not this script) used while firing."""
    client_cpu: float = 0.0
    """CPUs' worth of time this script (the clients) used while firing."""


def run_scenario(clients: int, commands: int, interval_s: float, py_spy: str | None, source: Path,
                 phones: int = SEATS) -> Result:
    result = Result(clients, commands, phones)
    phones = min(result.phones, clients)
    displays = clients - phones
    with tempfile.TemporaryDirectory(prefix="live-latency-") as tmp:
        service = bench_service(Path(tmp), threads=clients + 16, source=source).start()
        reader = Reader()
        spy: subprocess.Popen[bytes] | None = None
        try:
            time.sleep(0.5)
            result.rss.append(("idle after start", service.rss_mb()))
            cookies = seat_phones(service, phones)
            for seat in range(1, phones + 1):
                reader.open(service.port, f"phone{seat}", "as=me", phone_address(seat), cookies[seat])
            for index in range(displays):
                reader.open(service.port, f"display{index + 1}", "as=table", display_address(index))
            reader.start()
            _, status, _ = request(service.port, "GET", "/api/status")
            if not settle(reader, status["position"], CONNECT_TIMEOUT_S):
                print(f"  warning: not every stream got the view within {CONNECT_TIMEOUT_S:.0f} s", flush=True)
            bad = [s.name for s in reader.streams if s.status != 200 or s.revoked]
            if bad:
                raise RuntimeError(f"streams refused: {bad[:5]}")
            check_first_views(reader)
            result.threads = service.threads()
            result.rss.append((f"{clients} clients connected", service.rss_mb()))
            if py_spy:
                spy = start_py_spy(py_spy, clients, service.pid)
            sent = fire(service, reader, commands, interval_s, result)
            if spy is not None:
                stop_py_spy(spy)
                spy = None
            last_position = sent[-1][1] if sent else 0
            settle(reader, last_position, DRAIN_TIMEOUT_S)
            result.rss.append((f"after {result.fired} commands", service.rss_mb()))
            measure(reader, sent, result)
            for stream in (reader.streams[0], reader.streams[-1]):
                result.message_bytes.append((stream.name, stream.data_bytes // max(stream.messages, 1)))
        finally:
            if spy is not None:
                stop_py_spy(spy)
            reader.close()
            service.stop_cleanly(10)
    return result


def check_first_views(reader: Reader) -> None:
    """Each stream's first view parses, carries its id as position, and a phone sees its own seat."""
    for stream in reader.streams:
        view = json.loads(stream.first_data)
        if view["position"] != stream.ids[0]:
            raise RuntimeError(f"{stream.name}: view position {view['position']} under id {stream.ids[0]}")
        if stream.name.startswith("phone") and view.get("you", {}).get("seat") != int(stream.name[5:]):
            raise RuntimeError(f"{stream.name}: not seated in its view: {view.get('you')}")


def machine_busy_s() -> float:
    """CPU time all processes used so far (from /proc/stat), in seconds."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return (sum(values[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def own_cpu_s() -> float:
    times = os.times()
    return times.user + times.system


def fire(service: ServiceProcess, reader: Reader, commands: int, interval_s: float,
         result: Result) -> list[tuple[float, int]]:
    """POST `roll` as the table on a schedule of one every `interval_s`; (send time, position) each."""
    conn = http.client.HTTPConnection("127.0.0.1", service.port, timeout=10)
    body = json.dumps({"as": "table", "name": "roll"}).encode()
    headers = {"Content-Type": "application/json"}
    sent: list[tuple[float, int]] = []
    cpu_before = service.cpu_s()
    system_before = service.cpu_split_s()[1]
    switches_before = service.context_switches()
    machine_before, own_before = machine_busy_s(), own_cpu_s()
    start = time.perf_counter()
    try:
        for i in range(commands):
            due = start + i * interval_s
            now = time.perf_counter()
            if now - start > MAX_FIRE_S:
                print(f"  stopped firing after {MAX_FIRE_S:.0f} s ({i} commands)", flush=True)
                break
            if due > now:
                time.sleep(due - now)
            elif now - due > interval_s / 2:
                result.late_sends += 1
            t0 = time.perf_counter()
            conn.request("POST", "/api/commands", body=body, headers=headers)
            response = conn.getresponse()
            answer = json.loads(response.read())
            t1 = time.perf_counter()
            if response.status != 200 or not answer.get("ok"):
                raise RuntimeError(f"roll refused: {response.status} {answer}")
            sent.append((t0, int(answer["position"])))
            result.post_ms.append((t1 - t0) * 1000)
            if len(sent) == 500 and commands > 500:
                result.rss.append(("after 500 commands", service.rss_mb()))
    finally:
        conn.close()
    result.fire_s = time.perf_counter() - start
    result.fired = len(sent)
    server_s = service.cpu_s() - cpu_before
    result.system_share = (service.cpu_split_s()[1] - system_before) / max(server_s, 1e-9)
    result.switches_per_command = (service.context_switches() - switches_before) / max(len(sent), 1)
    result.cpu_per_command_ms = server_s / max(len(sent), 1) * 1000
    own_s = own_cpu_s() - own_before
    others = machine_busy_s() - machine_before - own_s - server_s
    result.client_cpu = own_s / max(result.fire_s, 1e-9)
    result.other_cpu = max(others, 0.0) / max(result.fire_s, 1e-9)
    return sent


def measure(reader: Reader, sent: list[tuple[float, int]], result: Result) -> None:
    with reader.lock:
        for t0, position in sent:
            arrivals = [s.first_at_or_after(position) for s in reader.streams]
            got = [a for a in arrivals if a is not None]
            if len(got) < len(arrivals):
                result.undelivered += 1
                continue
            result.latencies_ms.append((max(got) - t0) * 1000)
            result.client_median_ms.append((statistics.median(got) - t0) * 1000)


def start_py_spy(prefix: str, clients: int, pid: int) -> subprocess.Popen[bytes] | None:
    exe = Path(sys.executable).with_name("py-spy")
    found = str(exe) if exe.exists() else shutil.which("py-spy")
    if not found:
        print("  py-spy not found; not profiling", flush=True)
        return None
    out = f"{prefix}-{clients}.txt"
    return subprocess.Popen([found, "record", "--pid", str(pid), "--threads", "--rate", "250",
                             "--format", "raw", "--output", out, "--nonblocking"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop_py_spy(spy: subprocess.Popen[bytes]) -> None:
    spy.send_signal(signal.SIGINT)
    try:
        spy.wait(20)
    except subprocess.TimeoutExpired:
        spy.kill()
        spy.wait(5)


# -- report ------------------------------------------------------------------------------------


def report(results: list[Result], interval_s: float) -> None:
    print()
    print(f"Live-sync latency, roll commands {interval_s * 1000:.0f} ms apart "
          "(POST sent -> every stream has a message with id >= the POST's position)")
    print(f"{'case':<38}{'cmds':>6}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}"
          f"{'median client p50':>19}{'POST p50':>10}{'CPU ms/cmd':>12}")
    for r in results:
        lat = r.latencies_ms
        print(f"{f'{r.clients} clients ({r.phones} phones + {r.clients - r.phones} displays)':<38}{len(lat):>6}"
              f"{percentile(lat, 50):>9.1f}{percentile(lat, 99):>9.1f}{max(lat, default=float('nan')):>9.1f}"
              f"{percentile(r.client_median_ms, 50):>19.1f}{percentile(r.post_ms, 50):>10.1f}"
              f"{r.cpu_per_command_ms:>12.1f}")
    print(f"{'reference: boardgame.io, 15 clients':<38}{'':>6}{3.1:>9.1f}{6.4:>9.1f}{'':>9}")
    for r in results:
        notes = []
        if r.undelivered:
            notes.append(f"{r.undelivered} commands never reached every stream")
        if r.late_sends:
            notes.append(f"{r.late_sends} POSTs sent late (server slower than the interval)")
        notes.append(f"fired {r.fired}/{r.commands} in {r.fire_s:.1f} s")
        notes.append("average message " + ", ".join(f"{size} B ({name})" for name, size in r.message_bytes))
        notes.append(f"{r.threads} server threads")
        notes.append(f"server CPU {r.system_share:.0%} in the kernel, "
                     f"{r.switches_per_command:.0f} thread context switches per command")
        notes.append(f"clients used {r.client_cpu:.2f} CPU")
        if r.other_cpu > 0.1:
            notes.append(f"WARNING: other processes used {r.other_cpu:.1f} CPUs meanwhile; figures are disturbed")
        print(f"  {r.clients} clients: " + "; ".join(notes))
    print()
    print("Server memory (VmRSS)")
    for r in results:
        print(f"  {r.clients} clients: " + ", ".join(f"{label} {mb:.1f} MB" for label, mb in r.rss))
    print("  reference: boardgame.io 65 MB idle, 97 MB after 1000 moves")
    print()
    print(f"Reference: {REFERENCE}")
    print("CPU ms/cmd: server CPU (user+system) per command while firing; 'median client p50': the typical "
          "stream rather than the slowest one; POST p50: the command's own round trip.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--commands", type=int, default=1000, help="commands for the 15-client run (memory curve)")
    parser.add_argument("--commands-large", type=int, default=500, help="commands for the 100-client run")
    parser.add_argument("--interval-ms", type=float, default=20.0)
    parser.add_argument("--only", type=int, choices=(15, 100), help="run one case only")
    parser.add_argument("--py-spy", metavar="PREFIX", help="sample the server with py-spy while firing")
    parser.add_argument("--phones", type=int, default=SEATS, choices=range(SEATS + 1), metavar="0..13",
                        help="seated phones among the clients (default 13; the rest are table displays)")
    parser.add_argument("--source", type=Path, default=ROOT, metavar="DIR",
                        help="run the companion package found in DIR (e.g. an extracted older commit)")
    args = parser.parse_args()
    interval = max(args.interval_ms, 1.0) / 1000
    cases = [(15, min(args.commands, 5000)), (100, min(args.commands_large, 5000))]
    results = []
    source = args.source.resolve()
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; server threads = clients + 16; "
          f"companion from {source}", flush=True)
    for clients, commands in cases:
        if args.only and clients != args.only:
            continue
        print(f"running {clients} clients, {commands} commands ...", flush=True)
        results.append(run_scenario(clients, commands, interval, args.py_spy, source, args.phones))
    report(results, interval)


if __name__ == "__main__":
    main()
