"""Runs `companion serve` as a real subprocess on loopback, for tests that kill or misuse it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, Self


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def companion(*args: str, timeout: float = 30, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env=_env())


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    return env


class ServiceProcess:
    """`companion serve` on loopback. Its output goes to pipes, or with `log_path` to a file (a
    pipe nobody reads fills up and stalls a long-running service). `preexec` runs in the child
    before exec (a resource limit, say); `source` puts another copy of the companion package first
    on the path (a modified one, to see a test fail); `cwd` is where it runs (and looks for a
    companion.toml)."""

    def __init__(self, data: Path, port: int | None = None, extra: tuple[str, ...] = (),
                 log_path: Path | None = None, preexec: Callable[[], None] | None = None,
                 source: Path | None = None, cwd: Path | None = None) -> None:
        self.data = data
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.extra = extra
        self.log_path = log_path
        self.preexec = preexec
        self.source = source
        self.cwd = cwd
        self.proc: subprocess.Popen[str] | None = None
        self._log: IO[str] | None = None

    def start(self, timeout: float = 30) -> Self:
        env = _env()
        if self.source is not None:
            env["PYTHONPATH"] = str(self.source)  # ahead of the venv's editable install
        output: IO[str] | int = subprocess.PIPE
        if self.log_path is not None:
            self._log = output = open(self.log_path, "a", errors="replace")  # noqa: SIM115 - closed by stop/kill
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port", str(self.port),
             "--data", str(self.data), "--quiet", *self.extra],
            stdout=output, stderr=output, text=True, env=env, preexec_fn=self.preexec, cwd=self.cwd,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                said = self.log()[-2000:] if self.log_path else self.proc.stderr.read()  # type: ignore[union-attr]
                raise RuntimeError(f"service exited with {self.proc.returncode}: {said}")
            try:
                self.get("/api/status", timeout=1)
                return self
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("service did not answer in time")

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

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self._close_pipes()

    def interrupt(self, timeout: float = 10) -> tuple[int, str, str]:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGINT)
        out, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, out, err

    def _close_pipes(self) -> None:
        assert self.proc is not None
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe:
                pipe.close()
        if self._log is not None:
            self._log.close()
            self._log = None

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        if self.proc:
            self._close_pipes()
