"""Runs `companion serve` as a real subprocess on loopback: the one way the tests that kill or misuse
the service, the benchmarks that time it and the screenshot maker start it.

A process of its own is the point: SIGKILL mid-command, the service's true start-up time and
memory, a port really held, a log really written. Everything here reads the process from outside
(HTTP, /proc, its output); nothing reaches into it.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, Self

COMPANION = (sys.executable, "-m", "companion")
"""The command line of the companion in this interpreter (the venv's editable install)."""


def free_port() -> int:
    """A loopback port nothing listens on, drawn outside the kernel's ephemeral range: a port the
    kernel hands out for bind(0) is free only until an outgoing connection takes it as its own end,
    and a test run opens thousands of connections while a service is starting."""
    ephemeral = _ephemeral_ports()
    while True:
        port = random.randrange(10_000, 65_536)
        if port in ephemeral:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port


def _ephemeral_ports() -> range:
    try:
        low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    except (OSError, ValueError):
        low, high = 32_768, 60_999  # Linux's default
    return range(low, high + 1)


def companion(*args: str, timeout: float = 30, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """One `companion ...` command to its end, its output captured."""
    return subprocess.run([*COMPANION, *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env=_env())


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    return env


class ServiceProcess:
    """`companion serve` on loopback, with the data folder `data`.

    Its output goes to pipes, or with `log_path` to a file (a pipe nobody reads fills up and stalls a
    long-running service). `extra` are more `serve` arguments, `config` its configuration file;
    `quiet` passes `--quiet`, so the service logs warnings only (its start-up banner is printed
    either way). `preexec` runs in the child before exec (a resource limit, say); `source` puts
    another copy of the companion package first on the path (a modified one, to see a test fail; an
    older commit, to compare); `cwd` is where it runs and, without `config`, looks for a
    companion.toml (with `source`, a folder without this checkout's package: `-m companion` looks
    in the working folder before the path). `program` is the command line that runs the companion
    (a wrapper around its `main`, such as `companion.sim.mock_pins`); `stdin` is the child's
    (`subprocess.PIPE` to write to it).
    """

    def __init__(self, data: Path, port: int | None = None, extra: tuple[str, ...] = (),
                 log_path: Path | None = None, preexec: Callable[[], None] | None = None,
                 source: Path | None = None, cwd: Path | None = None, *, config: Path | None = None,
                 program: Sequence[str] = COMPANION, stdin: int | None = None, quiet: bool = True) -> None:
        self.data = data
        self.port = port or free_port()
        self._port_drawn = port is None
        self.base = f"http://127.0.0.1:{self.port}"
        self.extra = extra
        self.log_path = log_path
        self.preexec = preexec
        self.source = source
        self.cwd = cwd
        self.config = config
        self.program = tuple(program)
        self.stdin = stdin
        self.quiet = quiet
        self.proc: subprocess.Popen[str] | None = None
        self._log: IO[str] | None = None

    def command_line(self) -> list[str]:
        config = ("--config", str(self.config)) if self.config is not None else ()
        return [*self.program, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data", str(self.data),
                *config, *(("--quiet",) if self.quiet else ()), *self.extra]

    def start(self, timeout: float = 30, ready: str = "/api/status", poll_s: float = 0.02) -> Self:
        """Spawn it and wait until GET `ready` answers 200, looking every `poll_s` (the service's
        exit, with what it said, or no answer within `timeout` raise RuntimeError)."""
        env = _env()
        if self.source is not None:
            env["PYTHONPATH"] = str(self.source)  # ahead of the venv's editable install
        output: IO[str] | int = subprocess.PIPE
        if self.log_path is not None:
            self._log = output = open(self.log_path, "a", errors="replace")  # noqa: SIM115 - closed by stop/kill
        self.proc = subprocess.Popen(
            self.command_line(), stdin=self.stdin, stdout=output, stderr=output, text=True, env=env,
            preexec_fn=self.preexec, cwd=self.cwd,
        )
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if self.proc.poll() is not None:
                said = self.log()[-2000:] if self.log_path else self.proc.stderr.read()  # type: ignore[union-attr]
                if self._port_drawn and "already in use" in said:
                    # another process took the drawn port between the draw and the bind: draw again
                    self._close_pipes()
                    self.port = free_port()
                    self.base = f"http://127.0.0.1:{self.port}"
                    return self.start(timeout, ready, poll_s)
                raise RuntimeError(f"service exited with {self.proc.returncode}: {said}")
            if self.answers(ready):
                return self
            time.sleep(poll_s)
        # A service that never answered is not left running behind the caller (who has no handle).
        said = self.log()[-2000:] if self.log_path else ""
        self.stop()
        raise RuntimeError(f"service did not answer GET {ready} within {timeout:.0f} s{': ' + said if said else ''}")

    def answers(self, path: str) -> bool:
        """GET `path` answers 200 now."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            return response.status == 200
        except OSError:
            return False
        finally:
            conn.close()

    def log(self) -> str:
        """What the service printed, with `log_path`."""
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def host_key(self) -> str:
        return (self.data / "host.key").read_text().strip()

    def get(self, path: str, host: bool = False, timeout: float = 5) -> Any:
        request = urllib.request.Request(self.base + path)
        if host:
            request.add_header("Authorization", f"Bearer {self.host_key}")
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.load(response)

    def post(self, name: str, args: dict[str, Any] | None = None, host: bool = False, timeout: float = 5) -> Any:
        body = json.dumps({"name": name, "args": args or {}}).encode()
        request = urllib.request.Request(self.base + "/api/commands", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        if host:
            request.add_header("Authorization", f"Bearer {self.host_key}")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return json.load(response)
        except urllib.error.HTTPError as err:
            return json.load(err)

    def wait_for_view(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 10.0) -> dict[str, Any]:
        """The table's view once `predicate` holds, by long polls on the log position (GET
        /api/view?after=&wait=: no sleeps, and no state between two polls is missed for long).
        TimeoutError, with the last view it saw, when it does not hold within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        view: dict[str, Any] = self.get("/api/view?as=table")
        while not predicate(view):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"the service never reached the expected state; last view: {view}")
            view = self.get(f"/api/view?after={view['position']}&wait={min(left, 2.0):.2f}", timeout=left + 5)
        return view

    # -- the process from outside (/proc) ------------------------------------------------------

    def proc_status(self) -> dict[str, str]:
        """/proc/PID/status as fields."""
        fields = {}
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            fields[key] = value.strip()
        return fields

    def memory_kb(self) -> dict[str, int]:
        """VmRSS and its parts (RssAnon: the heap, where a leak grows; RssFile, RssShmem: mapped
        files, the SQLite WAL index)."""
        status = self.proc_status()
        return {key: int(status[key].split()[0]) for key in ("VmRSS", "RssAnon", "RssFile", "RssShmem")
                if key in status}

    def rss_kb(self) -> int:
        return self.memory_kb()["VmRSS"]

    def rss_mb(self) -> float:
        return self.rss_kb() / 1024

    def threads(self) -> int:
        return int(self.proc_status()["Threads"])

    def cpu_s(self) -> float:
        """User + system CPU time of the server so far."""
        user, system = self.cpu_split_s()
        return user + system

    def cpu_split_s(self) -> tuple[float, float]:
        """(user, system) CPU time of the server so far."""
        stat = Path(f"/proc/{self.pid}/stat").read_text()
        parts = stat[stat.rindex(")") + 2:].split()
        tick = os.sysconf("SC_CLK_TCK")
        return int(parts[11]) / tick, int(parts[12]) / tick

    def context_switches(self) -> int:
        """Voluntary + involuntary context switches of every server thread alive now."""
        total = 0
        for task in Path(f"/proc/{self.pid}/task").iterdir():
            try:
                text = (task / "status").read_text()
            except OSError:
                continue
            for line in text.splitlines():
                if "ctxt_switches:" in line:
                    total += int(line.split(":")[1])
        return total

    # -- stopping ------------------------------------------------------------------------------

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self._close_pipes()

    def interrupt(self, timeout: float = 10) -> tuple[int, str, str]:
        """SIGINT, then everything it printed on its pipes: (exit status, stdout, stderr)."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGINT)
        out, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, out, err

    def stop_cleanly(self, timeout: float = 20) -> int | None:
        """SIGINT, as Ctrl-C or systemd would: the exit status (killed after `timeout`: -9). Like
        `stop`, nothing to do (None) when it was never started, so a clean-up needs no guard."""
        if self.proc is None:
            return None
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
                self._close_pipes()
                return -9
        self._close_pipes()
        return self.proc.returncode

    def _close_pipes(self) -> None:
        assert self.proc is not None
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if pipe:
                pipe.close()
        if self._log is not None:
            self._log.close()
            self._log = None

    def stop(self) -> None:
        """SIGKILL if it still runs: a test's quick clean-up."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        if self.proc:
            self._close_pipes()
