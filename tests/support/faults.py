"""Helpers for tests/test_faults.py: the real `companion serve` with its log in a file, phones that
hold a seat cookie over plain HTTP, a server-sent events reader, the log as stored, and a disk that
fills up on demand."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import resource
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.server.identity import SEAT_COOKIE
from companion.sim import clients
from companion.sim.service import ServiceProcess
from companion.store import EventStore, RecordedEvent, verify_chain

PLAYERS = ("Ada", "Ben", "Cyd")


class Service(ServiceProcess):
    """`companion serve` whose output goes to a file (read by the tests, never a pipe that fills up),
    with an optional config file and a hook run in the child before exec."""

    def __init__(self, data: Path, config: Path | None = None, preexec: Callable[[], None] | None = None) -> None:
        super().__init__(data, config=config, log_path=data.parent / f"{data.name}-service.log", preexec=preexec)

    # -- requests as any viewer ----------------------------------------------------------------

    def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
                timeout: float = 10) -> tuple[int, Any, http.client.HTTPMessage]:
        """(status, answer, response headers): companion.sim.clients.request to this service."""
        status, answer, response = clients.request(self.port, method, path, body, headers, timeout=timeout)
        return status, answer, response.headers

    def headers_for(self, who: str | int) -> dict[str, str]:
        """`who`: "host", "table" or a seat number (its phone's cookie)."""
        if who == "host":
            return {"Authorization": f"Bearer {self.host_key}"}
        if who == "table":
            return {}
        return {"Cookie": f"{SEAT_COOKIE}={self.cookies[int(who)]}"}

    def role(self, who: str | int) -> str:
        return who if isinstance(who, str) else "me"

    def command(self, who: str | int, name: str, args: dict[str, Any] | None = None,
                timeout: float = 10) -> tuple[int, Any]:
        status, body, _ = self.request("POST", "/api/commands", {"as": self.role(who), "name": name,
                                                                 "args": args or {}},
                                       self.headers_for(who), timeout)
        return status, body

    def view_of(self, who: str | int, timeout: float = 10) -> dict[str, Any]:
        status, body, _ = self.request("GET", f"/api/view?as={self.role(who)}", None, self.headers_for(who), timeout)
        assert status == 200, (who, status, body)
        return body

    def join(self, seat: int, name: str) -> None:
        code = self.view_of("table")["table"]["join_code"]
        status, body, headers = self.request("POST", "/api/join", {"code": code, "seat": seat, "name": name})
        assert status == 200 and body["ok"], body
        cookie = headers["Set-Cookie"].split(";")[0]
        assert cookie.startswith(SEAT_COOKIE + "=")
        self.cookies[seat] = cookie.split("=", 1)[1]

    def buzz(self, seat: int) -> int:
        status, _, _ = self.request("POST", "/api/buzz", {}, self.headers_for(seat))
        return status

    @property
    def cookies(self) -> dict[int, str]:
        """Seat cookies, kept on the data folder's side: they outlive a restart (the cookie key does)."""
        jar: dict[int, str] = self.__dict__.setdefault("_cookies", {})
        return jar


# -- server-sent events ----------------------------------------------------------------------------


@dataclass
class Message:
    event: str
    id: int | None
    data: Any


class Stream:
    """A plain-HTTP server-sent events reader (one connection)."""

    def __init__(self, service: Service, who: str | int, last_event_id: int | None = None,
                 timeout: float = 10) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", service.port, timeout=timeout)
        headers = service.headers_for(who)
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        self.conn.request("GET", f"/api/stream?as={service.role(who)}", headers=headers)
        self.response = self.conn.getresponse()
        assert self.response.status == 200, self.response.status

    def next(self, within_s: float = 10.0) -> Message:
        """The next message with data (comments, the retry hint and the "alive" heartbeats skipped),
        within `within_s`."""
        fields: dict[str, str] = {}
        deadline = time.monotonic() + within_s
        while True:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no message in {within_s} s (only heartbeats)")
            line = self.response.readline()
            if not line:
                raise ConnectionError("the stream ended")
            text = line.decode().rstrip("\n")
            if text == "":
                if "data" in fields and fields.get("event") != "alive":
                    raw_id = fields.get("id")
                    return Message(fields.get("event", "message"), int(raw_id) if raw_id else None,
                                   json.loads(fields["data"]))
                fields = {}
                continue
            if text.startswith(":"):
                continue
            key, _, value = text.partition(":")
            fields[key] = fields.get(key, "") + value.removeprefix(" ")

    def close(self) -> None:
        """Hang up (the response holds the socket: http.client let go of it for a stream)."""
        with contextlib.suppress(OSError):
            self.response.close()
        self.conn.close()


def first_message(service: Service, who: str | int, last_event_id: int | None = None) -> Message:
    stream = Stream(service, who, last_event_id)
    try:
        return stream.next()
    finally:
        stream.close()


# -- the log as stored -----------------------------------------------------------------------------


def stored_events(data: Path) -> list[RecordedEvent]:
    store = EventStore.open(data / "companion.sqlite3", read_only=True, verify=False)
    try:
        return store.read_all()
    finally:
        store.close()


def check_chain(data: Path) -> list[RecordedEvent]:
    events = stored_events(data)
    assert verify_chain(events) == [], verify_chain(events)[:3]
    return events


def log_position(data: Path) -> int:
    events = stored_events(data)
    return events[-1].position if events else 0


def converge(service: Service, seats: tuple[int, ...], timeout: float = 15) -> int:
    """Every page (status, table, host, each seat's view, each seat's and the table's fresh stream)
    shows the log's last position; that position. Timers may append meanwhile: then ask again."""
    deadline = time.monotonic() + timeout
    seen: dict[str, int] = {}
    while True:
        before = log_position(service.data)
        seen = {"status": service.get("/api/status")["position"]}
        for who in ("table", "host", *seats):
            seen[f"view {who}"] = service.view_of(who)["position"]
        for who in ("table", *seats):
            message = first_message(service, who)
            assert message.event == "view" and message.id == message.data["position"], message.event
            seen[f"stream {who}"] = message.id
        after = log_position(service.data)
        if before == after and set(seen.values()) == {after}:
            return after
        if time.monotonic() > deadline:
            raise AssertionError(f"pages did not converge on the log's position {after}: {seen}")
        time.sleep(0.2)


# -- a disk that fills up --------------------------------------------------------------------------


def _can_mount_tmpfs(where: Path) -> bool:
    where.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)],
                              capture_output=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return False  # no mount command
    if done.returncode != 0:
        return False
    subprocess.run(["umount", str(where)], capture_output=True, timeout=20)
    return True


def _ignore_sigxfsz() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead


@dataclass
class FullDisk:
    """The data folder's space, exhausted and given back on demand.

    On a small tmpfs (when this machine lets us mount one) the disk is really full: ENOSPC. Where
    mounting is not allowed, the service's file-size limit (RLIMIT_FSIZE, set from outside with
    prlimit) is lowered to the files' current size instead: every write that would grow a file
    fails with EFBIG, which SQLite reports as the same "database or disk is full".
    """

    data: Path
    kind: str
    filler: Path | None = None
    service_pid: int | None = None
    mounted: list[Path] = field(default_factory=list)

    @classmethod
    @contextlib.contextmanager
    def make(cls, root: Path, size: str = "8m") -> Iterator[FullDisk]:
        data = root / "data"
        forced = os.environ.get("COMPANION_TEST_FULL_DISK")  # "tmpfs" or "rlimit", to try both here
        use_tmpfs = forced == "tmpfs" or (forced is None and os.geteuid() == 0 and _can_mount_tmpfs(root / "probe"))
        disk = cls(data, "tmpfs" if use_tmpfs else "rlimit")
        if use_tmpfs:
            data.mkdir(parents=True)
            subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(data)], check=True,
                           timeout=20)
            disk.mounted.append(data)
        try:
            yield disk
        finally:
            for where in disk.mounted:
                subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=20)

    def preexec(self) -> Callable[[], None] | None:
        return _ignore_sigxfsz if self.kind == "rlimit" else None

    def fill(self) -> None:
        if self.kind == "tmpfs":
            self.filler = self.data / f"filler-{uuid.uuid4().hex}"
            with open(self.filler, "wb", buffering=0) as out:
                chunk = 1 << 16
                while chunk:
                    try:
                        out.write(b"\0" * chunk)
                    except OSError:
                        chunk //= 2
            free = os.statvfs(self.data)
            assert free.f_bavail == 0, f"{free.f_bavail} blocks still free"
        else:
            assert self.service_pid is not None
            largest = max(p.stat().st_size for p in self.data.iterdir() if p.is_file())
            resource.prlimit(self.service_pid, resource.RLIMIT_FSIZE, (largest, resource.RLIM_INFINITY))

    def free(self) -> None:
        if self.kind == "tmpfs":
            assert self.filler is not None
            self.filler.unlink()
        else:
            assert self.service_pid is not None
            resource.prlimit(self.service_pid, resource.RLIMIT_FSIZE,
                             (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


def seeded(name: str) -> random.Random:
    """A random generator whose seed is printed (and can be forced with COMPANION_FAULTS_SEED)."""
    seed = int(os.environ.get("COMPANION_FAULTS_SEED", random.SystemRandom().randrange(1 << 32)))
    print(f"{name}: seed {seed} (COMPANION_FAULTS_SEED={seed} to repeat)")
    return random.Random(seed)


def run_in_thread(target: Callable[[], None]) -> threading.Thread:
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread
