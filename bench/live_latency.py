"""Live-sync latency and memory of the real service: commands in, server-sent events out.

Starts `companion serve` as a subprocess on loopback, seats 13 phones (each joining from its own
loopback address 127.0.0.x, like phones on the Wi-Fi, so the per-address join limit is not hit),
opens N event streams (13 phones with `as=me` and their seat cookie, the rest table displays), then
fires `roll` commands 20 ms apart. A command's latency is the time from sending its POST to the
moment EVERY stream has received a message whose id (the log position) is at least the position the
POST answered. Prints p50/p99/max for 15 and 100 clients, and the server's RSS (VmRSS) idle, with
the clients connected, and along the commands.

With `--peers` it measures boardgame.io 0.50.2 in the same run, the same way: its harness in
bench/peers/ (a dice tray for 13 seats; its server alone in one node process, all the clients in
another) is installed with `npm ci` into a temporary folder (Debian's nodejs and npm are installed
with apt-get first when missing and this runs as root), then each case runs on ours and on it in
turn: 13 players + 2 (or 87) spectators, each its own socket.io connection, `roll` moves from seat 1
20 ms apart, the same counts. A move's latency runs from the call that sends it (boardgame.io's
Client) to the moment every client's socket has received a state with it, as ours runs to the
moment every stream has the message; the server's CPU is utime + stime of its process over the
moves, its memory VmRSS. The ratios ours / boardgame.io follow. When npm cannot reach its registry,
the report says so and goes on without the peer.

A benchmark, not a test: it prints figures and asserts nothing. The service, the phones and their
streams are companion/sim's; loopback only; every loop is bounded in count and time.

Usage: .venv/bin/python -m bench.live_latency [--commands 1000] [--commands-large 500]
       [--interval-ms 20] [--only 15|100] [--phones 0..13] [--py-spy PREFIX] [--source DIR] [--peers]
       [--one-core]
`--one-core` repeats the 15-client case with every thread of the server pinned to one core and the
clients on the other (the nearest stand-in for a Pi's slower cores here).
`--source DIR` runs the companion package found in DIR instead of this tree (e.g. an older commit
extracted with `git archive REV | tar -x -C DIR`), to compare versions. `--phones` changes how many
of the clients are seated phones (each has its own view; displays share one). `--py-spy PREFIX`
samples the server with py-spy, if installed in the venv, while the commands are fired, into
PREFIX-<clients>.txt (collapsed stacks, one per line with its count).

The sender is one keep-alive connection: when the server answers slower than the interval, the next
POST goes out at once (counted as "sent late"), so an overloaded server shows as late POSTs and a
longer run, not as an ever-growing queue. Each POST goes out in one write, head and body together,
as a phone's browser sends a small request (companion/sim/clients.py, BrowserLikeConnection).
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from companion.sim.clients import SEATS, BrowserLikeConnection, display_address, phone_address, request, seat_phones
from companion.sim.mock_pins import PROGRAM as MOCK_PINS
from companion.sim.presses import percentile
from companion.sim.service import COMPANION, ServiceProcess
from companion.sim.streams import Reader

ROOT = Path(__file__).resolve().parent.parent
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
    """Seated clients: phones on ours, players on the peer (the rest: table displays, spectators)."""
    server: str = "companion"
    """Whose server ran: "companion", or the peer's name."""
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
    elapsed_s: float = 0.0
    """The whole case: start, connect, fire, drain, stop."""
    notes: list[str] = field(default_factory=list)
    one_core: bool = False
    """The server ran pinned to one core (taskset), the clients on the others."""

    @property
    def peer(self) -> bool:
        return self.server != "companion"

    def rss_after(self) -> float:
        """VmRSS after the commands (the last sample)."""
        return self.rss[-1][1] if self.rss else float("nan")


def run_scenario(clients: int, commands: int, interval_s: float, py_spy: str | None, source: Path,
                 phones: int = SEATS, one_core: bool = False) -> Result:
    """`one_core`: the service runs pinned to one core and the clients on the others, the nearest
    stand-in for a Raspberry Pi's slower cores this machine has (the CPU per command then also
    says what one core does alone)."""
    result = Result(clients, commands, phones, one_core=one_core)
    phones = min(result.phones, clients)
    displays = clients - phones
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="live-latency-") as tmp:
        service = bench_service(Path(tmp), threads=clients + 16, source=source).start()
        reader = Reader()
        spy: subprocess.Popen[bytes] | None = None
        mine = os.sched_getaffinity(0)
        try:
            if one_core:
                pin_to_one_core(service.pid)
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
            os.sched_setaffinity(0, mine)
    result.elapsed_s = time.perf_counter() - began
    return result


def pin_to_one_core(pid: int) -> None:
    """Every thread of the service on the first core (threads it starts later inherit it), this
    script's threads started from now on on the others."""
    cores = sorted(os.sched_getaffinity(0))
    for task in Path(f"/proc/{pid}/task").iterdir():
        os.sched_setaffinity(int(task.name), {cores[0]})
    if len(cores) > 1:
        os.sched_setaffinity(0, set(cores[1:]))


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
    conn = BrowserLikeConnection("127.0.0.1", service.port, timeout=10)
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


# -- the peer: boardgame.io, measured in the same run -------------------------------------------

PEERS = Path(__file__).resolve().parent / "peers"
"""The peer's harness: package.json (boardgame.io 0.50.2; koa-compose pinned to 4.1.0 through npm
`overrides`, as a fresh install resolves 4.2.0, which breaks boardgame.io's lobby routes), its
package-lock.json, and game.js, server.js, driver.js."""
PEER = "boardgame.io 0.50.2"
PEER_FILES = ("package.json", "package-lock.json", "game.js", "server.js", "driver.js")
PEER_VERSIONS = {"boardgame.io": ("boardgame.io",),
                 # the server's socket.io is the one koa-socket-2 requires: its own copy when it has one
                 "socket.io server": ("koa-socket-2/node_modules/socket.io", "socket.io"),
                 "socket.io-client": ("socket.io-client",), "koa-compose": ("koa-compose",)}
APT_TIMEOUT_S = 900.0
NPM_TIMEOUT_S = 600.0
PEER_START_TIMEOUT_S = 30.0
PEER_STOP_TIMEOUT_S = 10.0
PEER_MAX_S = CONNECT_TIMEOUT_S + MAX_FIRE_S + 2 * DRAIN_TIMEOUT_S + 30
"""Longest a peer case may take; its server and its driver stop themselves after this too."""
UNREACHABLE = ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENETUNREACH",
               "EHOSTUNREACH", "ERR_SOCKET_TIMEOUT", "socket hang up", "network")
"""What npm's errors say when it did not get through to its registry."""


class PeerUnavailable(Exception):
    """The peer could not be installed or started; the message says why, in plain words."""


@dataclass
class Peer:
    """The peer's harness installed in `folder`, run by `node`."""

    folder: Path
    node: str
    node_version: str
    install_s: float
    versions: dict[str, str]

    def describe(self) -> str:
        return (f"{PEER} on Node {self.node_version} ("
                + ", ".join(f"{name} {version}" for name, version in self.versions.items()) + ")")


def say(text: str) -> None:
    """What the peer's setup does, on stderr (the figures go to stdout)."""
    print(f"  peer: {text}", file=sys.stderr, flush=True)


def run_bounded(argv: list[str], timeout: float, cwd: Path | None = None,
                env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired as err:
        raise PeerUnavailable(f"`{' '.join(argv)}` did not finish within {timeout:.0f} s") from err


def last_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = [line.strip() for line in (done.stderr + "\n" + done.stdout).splitlines() if line.strip()]
    return lines[-1] if lines else f"exit status {done.returncode}"


def npm_error(done: subprocess.CompletedProcess[str]) -> str:
    """The telling line of npm's error output: the failed request, else the error code."""
    lines = [line.strip() for line in (done.stderr + "\n" + done.stdout).splitlines()]
    for marks in (("failed, reason:",), ("npm error code", "npm ERR! code")):
        for line in lines:
            if any(mark in line for mark in marks):
                return line.removeprefix("npm error").removeprefix("npm ERR!").strip()
    return last_line(done)


def ensure_node() -> tuple[str, str]:
    """`node` and its version; Debian's nodejs and npm are installed with apt-get when missing and this
    runs as root (otherwise PeerUnavailable says what to install)."""
    missing = [package for command, package in (("node", "nodejs"), ("npm", "npm")) if shutil.which(command) is None]
    if missing:
        if os.geteuid() != 0 or shutil.which("apt-get") is None:
            raise PeerUnavailable(f"Node.js is not installed; `sudo apt-get install -y {' '.join(missing)}` brings it")
        say(f"installing Debian's {' and '.join(missing)} with apt-get (apt-get update, then install) ...")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for argv in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", *missing]):
            done = run_bounded(argv, APT_TIMEOUT_S, env=env)
            if done.returncode != 0:
                raise PeerUnavailable(f"`{' '.join(argv)}` failed: {last_line(done)}")
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        raise PeerUnavailable("apt-get installed nodejs but no `node` command is on the PATH")
    version = run_bounded([node, "--version"], 30).stdout.strip()
    try:
        major = int(version.lstrip("v").split(".")[0])
    except ValueError:
        major = 0
    if major < 18:
        raise PeerUnavailable(f"Node {version or '(unknown version)'} is too old for the peer's harness (18 or newer)")
    return node, version


def install_peer(folder: Path) -> Peer:
    """The harness of bench/peers/ copied into `folder` and its packages installed there with
    `npm ci` (the versions of package-lock.json). PeerUnavailable when that cannot be done, saying
    plainly whether npm could not reach its registry."""
    node, version = ensure_node()
    npm = shutil.which("npm")
    if npm is None:
        raise PeerUnavailable("no `npm` command on the PATH")
    for name in PEER_FILES:
        shutil.copyfile(PEERS / name, folder / name)
    say(f"installing {PEER} with npm ci into {folder} ...")
    began = time.perf_counter()
    done = run_bounded([npm, "ci", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error",
                        "--fetch-retries=1", "--fetch-timeout=60000"], NPM_TIMEOUT_S, cwd=folder)
    install_s = time.perf_counter() - began
    if done.returncode != 0:
        if any(mark in done.stdout + done.stderr for mark in UNREACHABLE):
            raise PeerUnavailable(f"npm could not reach its registry ({npm_error(done)}), so {PEER} was not "
                                  "installed and is not measured")
        raise PeerUnavailable(f"npm ci failed after {install_s:.0f} s: {npm_error(done)}")
    versions = {name: installed_version(folder, places) for name, places in PEER_VERSIONS.items()}
    say(f"installed in {install_s:.1f} s: {', '.join(f'{k} {v}' for k, v in versions.items())}")
    return Peer(folder, node, version, install_s, versions)


def installed_version(folder: Path, places: tuple[str, ...]) -> str:
    """The version of the first of `places` (paths under node_modules) that holds a package."""
    for place in places:
        try:
            return str(json.loads((folder / "node_modules" / place / "package.json").read_text())["version"])
        except (OSError, ValueError, KeyError):
            continue
    return "?"


def proc_number(pid: int, key: str) -> int:
    """A number of /proc/PID/status (VmRSS in kB, Threads), 0 if it has none."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name == key:
            return int(value.split()[0])
    return 0


def peer_server(peer: Peer, clients: int) -> tuple[subprocess.Popen[bytes], int]:
    """The peer's server.js started in a process of its own; (the process, its port). Its stdin is
    a pipe it stops at the end of; its stderr goes to server-<clients>.log in the peer's folder."""
    env = {**os.environ, "NODE_ENV": "production"}
    with (peer.folder / f"server-{clients}.log").open("wb") as log:
        server = subprocess.Popen([peer.node, "server.js", str(int(PEER_MAX_S))], cwd=peer.folder, env=env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
    assert server.stdout is not None
    deadline = time.monotonic() + PEER_START_TIMEOUT_S
    line = b""
    while not line.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0 or server.poll() is not None:
            stop_peer_server(server)
            raise RuntimeError(f"the peer's server did not start within {PEER_START_TIMEOUT_S:.0f} s "
                               f"(exit status {server.returncode}); see server-{clients}.log")
        if select.select([server.stdout], [], [], min(remaining, 0.1))[0]:
            chunk = os.read(server.stdout.fileno(), 256)
            if not chunk:
                continue
            line += chunk
    words = line.decode().split()
    if len(words) != 2 or words[0] != "listening":
        stop_peer_server(server)
        raise RuntimeError(f"the peer's server said {line!r}")
    return server, int(words[1])


def stop_peer_server(server: subprocess.Popen[bytes]) -> None:
    """Stops the peer's server by its pid: SIGTERM, then SIGKILL if it is still there after a while."""
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(PEER_STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(PEER_STOP_TIMEOUT_S)
    for pipe in (server.stdin, server.stdout):
        if pipe is not None:
            pipe.close()


def run_peer_scenario(peer: Peer, clients: int, commands: int, interval_s: float,
                      phones: int = SEATS) -> Result:
    """The peer in the shape of run_scenario: its server alone in one process, all its clients in
    another (driver.js), `phones` of them seated players and the rest spectators; `commands` rolls
    `interval_s` apart."""
    result = Result(clients, commands, min(phones, clients), server=PEER)
    began = time.perf_counter()
    server, port = peer_server(peer, clients)
    try:
        time.sleep(0.5)
        result.rss.append(("idle after start", proc_number(server.pid, "VmRSS") / 1024))
        config = {"port": port, "serverPid": server.pid, "clients": clients, "players": result.phones,
                  "moves": commands, "intervalMs": interval_s * 1000, "clkTck": os.sysconf("SC_CLK_TCK"),
                  "connectTimeoutS": CONNECT_TIMEOUT_S, "maxFireS": MAX_FIRE_S, "drainTimeoutS": DRAIN_TIMEOUT_S,
                  "quietS": QUIET_S, "maxSeconds": PEER_MAX_S}
        try:
            driven = subprocess.run([peer.node, "driver.js", json.dumps(config)], cwd=peer.folder,
                                    env={**os.environ, "NODE_ENV": "production"}, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, text=True, timeout=PEER_MAX_S + 10, check=False)
        except subprocess.TimeoutExpired as err:
            raise RuntimeError(f"the peer's clients did not finish within {PEER_MAX_S + 10:.0f} s") from err
        if driven.returncode != 0 or not driven.stdout.strip():
            raise RuntimeError(f"the peer's clients failed (exit status {driven.returncode}; their error is above)")
        figures = json.loads(driven.stdout.strip().splitlines()[-1])
        result.threads = proc_number(server.pid, "Threads")
    finally:
        stop_peer_server(server)
    result.elapsed_s = time.perf_counter() - began
    result.rss += [(label, mb) for label, mb in figures["rss"]]
    result.fired = figures["fired"]
    result.fire_s = figures["fireS"]
    result.late_sends = figures["lateSends"]
    result.latencies_ms = figures["latenciesMs"]
    result.client_median_ms = figures["clientMedianMs"]
    result.undelivered = figures["undelivered"]
    result.cpu_per_command_ms = figures["cpuPerMoveMs"]
    result.system_share = figures["systemShare"]
    result.switches_per_command = figures["switchesPerMove"]
    result.client_cpu = figures["clientCpu"]
    result.other_cpu = figures["otherCpu"]
    result.message_bytes = [(name, size) for name, size in figures["messageBytes"]]
    if figures["disconnects"]:
        result.notes.append(f"{figures['disconnects']} client disconnects")
    errors = [line for line in (peer.folder / f"server-{clients}.log").read_text(errors="replace").splitlines()
              if line.strip()]
    if errors:
        result.notes.append(f"its server wrote {len(errors)} lines on stderr, the first: {errors[0][:120]}")
    return result


# -- report ------------------------------------------------------------------------------------


def ratio(ours: float, peer: float) -> float:
    return ours / peer if peer else float("nan")


def pairs(results: list[Result]) -> list[tuple[Result, Result]]:
    """(ours, the peer's) for each client count that both ran."""
    peers = {r.clients: r for r in results if r.peer}
    return [(r, peers[r.clients]) for r in results if not r.peer and r.clients in peers]


def case(r: Result) -> str:
    if r.peer:
        return f"{r.server}: {r.clients} ({r.phones} players + {r.clients - r.phones} spectators)"
    pinned = ", server on one core" if r.one_core else ""
    return f"{r.clients} clients ({r.phones} phones + {r.clients - r.phones} displays){pinned}"


def print_ratios(ours: Result, theirs: Result, width: int) -> None:
    """The line ours / the peer's, column by column, under the peer's line (one per run of ours with
    as many clients: the one-core run has its own)."""
    cells = [ratio(percentile(ours.latencies_ms, q), percentile(theirs.latencies_ms, q)) for q in (50, 99)]
    cells.append(ratio(max(ours.latencies_ms, default=float("nan")), max(theirs.latencies_ms, default=float("nan"))))
    cells.append(ratio(percentile(ours.client_median_ms, 50), percentile(theirs.client_median_ms, 50)))
    cpu = ratio(ours.cpu_per_command_ms, theirs.cpu_per_command_ms)
    who = "ours on one core" if ours.one_core else "ours"
    print(f"{f'  {who} / {theirs.server}':<{width}}{'':>6}" + "".join(f"{f'{c:.2f}x':>9}" for c in cells[:3])
          + f"{f'{cells[3]:.2f}x':>19}{'-':>10}{f'{cpu:.2f}x':>12}")


def report(results: list[Result], interval_s: float, peer: str | None = None) -> None:
    """The figures on stdout; `peer`: what the peer was (its versions, its install), or why it is missing."""
    width = max([38, *(len(case(r)) + 2 for r in results)])
    print()
    print(f"Live-sync latency, roll commands {interval_s * 1000:.0f} ms apart "
          "(command sent -> every client has the new state)")
    print(f"{'case':<{width}}{'cmds':>6}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}"
          f"{'median client p50':>19}{'POST p50':>10}{'CPU ms/cmd':>12}")
    matched = pairs(results)
    for r in results:
        lat = r.latencies_ms
        post = f"{percentile(r.post_ms, 50):>10.1f}" if r.post_ms else f"{'-':>10}"
        print(f"{case(r):<{width}}{len(lat):>6}"
              f"{percentile(lat, 50):>9.1f}{percentile(lat, 99):>9.1f}{max(lat, default=float('nan')):>9.1f}"
              f"{percentile(r.client_median_ms, 50):>19.1f}{post}{r.cpu_per_command_ms:>12.1f}")
        for ours, theirs in matched:
            if theirs is r:
                print_ratios(ours, r, width)
    for r in results:
        notes = []
        if r.undelivered:
            notes.append(f"{r.undelivered} commands never reached every client")
        if r.late_sends:
            notes.append(f"{r.late_sends} sent late (the {'clients' if r.peer else 'server'} slower than the interval)")
        notes.append(f"fired {r.fired}/{r.commands} in {r.fire_s:.1f} s ({r.elapsed_s:.0f} s in all)")
        notes.append("average message " + ", ".join(f"{size} B ({name})" for name, size in r.message_bytes))
        notes.append(f"{r.threads} server threads")
        notes.append(f"server CPU {r.system_share:.0%} in the kernel, "
                     f"{r.switches_per_command:.0f} thread context switches per command")
        notes.append(f"clients used {r.client_cpu:.2f} CPU")
        notes += r.notes
        if r.other_cpu > 0.1:
            notes.append(f"WARNING: other processes used {r.other_cpu:.1f} CPUs meanwhile; figures are disturbed")
        who = f"{r.server}, " if r.peer else ""
        print(f"  {who}{r.clients} clients: " + "; ".join(notes))
    print()
    print("Server memory (VmRSS)")
    for r in results:
        who = f"{r.server}, " if r.peer else ""
        print(f"  {who}{r.clients} clients: " + ", ".join(f"{label} {mb:.1f} MB" for label, mb in r.rss))
    for ours, theirs in pairs(results):
        if ours.one_core:
            continue  # the same server as the run beside it: its memory is that run's
        print(f"  ours / {theirs.server}, {ours.clients} clients: after the commands "
              f"{ratio(ours.rss_after(), theirs.rss_after()):.2f}x, idle after start "
              f"{ratio(ours.rss[0][1], theirs.rss[0][1]):.2f}x")
    print()
    if peer:
        print(f"Peer: {peer}")
    print("Latency: ours from the POST sent to every stream having a message with id >= the POST's position; "
          "the peer's from the move sent to every client's socket having a state with it.")
    print("CPU ms/cmd: server CPU (user+system) per command while firing; 'median client p50': the typical "
          "client rather than the slowest one; POST p50: the command's own round trip (ours only: the peer's "
          "moves go out on a socket the mover already has).")


def measure_peer(folder: Path) -> tuple[Peer | None, str]:
    """The peer installed in `folder`, and what it is; or None, and why not."""
    try:
        peer = install_peer(folder)
    except PeerUnavailable as err:
        say(str(err))
        return None, str(err)
    return peer, (f"{peer.describe()}, installed with npm ci in {peer.install_s:.0f} s; harness bench/peers/ "
                  "(moves from seat 1; one node process for the server, one for all its clients)")


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
    parser.add_argument("--one-core", action="store_true",
                        help="repeat the 15-client case with the server pinned to one core (a Pi's stand-in)")
    parser.add_argument("--peers", action="store_true",
                        help=f"measure {PEER} in the same run, the same way (installed with npm into a temporary "
                             "folder)")
    args = parser.parse_args()
    interval = max(args.interval_ms, 1.0) / 1000
    cases = [(15, min(args.commands, 5000)), (100, min(args.commands_large, 5000))]
    results = []
    source = args.source.resolve()
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; server threads = clients + 16; "
          f"companion from {source}", flush=True)
    with tempfile.TemporaryDirectory(prefix="peer-") as tmp:
        peer, about = measure_peer(Path(tmp)) if args.peers else (None, "")
        for clients, commands in cases:
            if args.only and clients != args.only:
                continue
            print(f"running {clients} clients, {commands} commands ...", flush=True)
            results.append(run_scenario(clients, commands, interval, args.py_spy, source, args.phones))
            if clients == 15 and args.one_core:
                print(f"running {clients} clients, {commands} commands, the server on one core ...", flush=True)
                results.append(run_scenario(clients, commands, interval, None, source, args.phones, one_core=True))
            if peer is not None:
                print(f"running {PEER}: {clients} clients, {commands} moves ...", flush=True)
                try:
                    results.append(run_peer_scenario(peer, clients, commands, interval, args.phones))
                except Exception as err:  # the peer failing must not cost our figures
                    print(f"  {PEER}, {clients} clients: failed: {err}", flush=True)
    report(results, interval, about if peer else f"not measured: {about}" if args.peers else None)


if __name__ == "__main__":
    main()
