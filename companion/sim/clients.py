"""Phones and displays of a table on loopback, as HTTP clients of a running service: each from
its own address (127.0.0.x, like phones on the Wi-Fi, so the per-address join limit is not hit),
seated with its own cookie, commands sent, pings echoed as a phone's page does. With
`companion.sim.service` and `companion.sim.streams`, what the benchmarks and the soak test drive
the service with.
"""

from __future__ import annotations

import http.client
import json
import queue
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from companion.sim.service import ServiceProcess

SEATS = 13
"""A full table: the most seats a table has, each with its phone."""

MERGED_BODY_MAX = 1400
"""A body up to this size goes out in the same write as the request's head, as Chrome sends a
small POST (its HTTP stream parser merges them up to 1,400 bytes)."""


class BrowserLikeConnection(http.client.HTTPConnection):
    """An HTTP/1.1 connection that sends a small request in one write, as a phone's browser does.

    http.client writes a request's head, then its body: two segments, so the server reads the head,
    goes back to waiting and reads again, and every POST's figure carries a wake-up that a phone's
    tap never costs. Here the head is held until its body joins it.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._body_follows = False
        self._held = b""

    def request(self, method: str, url: str, body: Any = None, headers: Mapping[str, Any] | None = None, *,
                encode_chunked: bool = False) -> None:
        self._body_follows = isinstance(body, bytes) and 0 < len(body) <= MERGED_BODY_MAX and not encode_chunked
        try:
            super().request(method, url, body=body, headers=dict(headers or {}), encode_chunked=encode_chunked)
        finally:
            self._body_follows, self._held = False, b""

    def send(self, data: Any) -> None:
        if self._body_follows:
            if not self._held:
                self._held = bytes(data)  # the head: its body comes next
                return
            data, self._held, self._body_follows = self._held + bytes(data), b"", False
        super().send(data)



def request(port: int, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
            source: str | None = None, timeout: float = 10) -> tuple[int, Any, http.client.HTTPResponse]:
    conn = BrowserLikeConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0) if source else None)
    try:
        data = None if body is None else json.dumps(body).encode()
        all_headers = {"Content-Type": "application/json"} if data is not None else {}
        all_headers.update(headers or {})
        conn.request(method, path, body=data, headers=all_headers)
        response = conn.getresponse()
        payload = response.read()
        return response.status, json.loads(payload) if payload else None, response
    finally:
        conn.close()


def host_command(service: ServiceProcess, name: str, args: dict[str, Any] | None = None) -> None:
    """A host command that must be accepted (setting up a table): ServiceProcess.post, which hands
    back any answer, with a refusal raised as RuntimeError."""
    answer = service.post(name, args, host=True, timeout=10)
    if not answer.get("ok"):
        raise RuntimeError(f"host command {name} refused: {answer}")


def seat_phones(service: ServiceProcess, phones: int) -> dict[int, str]:
    """13 seats, a fresh dice tray, and each phone's seat cookie (joined from 127.0.0.<10+n>)."""
    host_command(service, "end_game")
    host_command(service, "set_seat_count", {"count": SEATS})
    host_command(service, "start_game", {"game": "dice-tray"})
    _, view, _ = request(service.port, "GET", "/api/view?as=table")
    code = view["table"]["join_code"]
    cookies = {}
    for seat in range(1, phones + 1):
        status, answer, response = request(service.port, "POST", "/api/join",
                                           {"code": code, "seat": seat, "name": f"P{seat}"},
                                           source=phone_address(seat))
        if status != 200 or not answer.get("ok"):
            raise RuntimeError(f"seat {seat} could not join: {status} {answer}")
        for header, value in response.getheaders():
            if header.lower() == "set-cookie" and value.startswith("seat="):
                cookies[seat] = value.split(";", 1)[0]
    return cookies


def phone_address(seat: int) -> str:
    return f"127.0.0.{10 + seat}"


def display_address(index: int) -> str:
    return f"127.0.1.{1 + index}"


class Connection:
    """One keep-alive HTTP/1.1 connection from a given loopback address, like one device's."""

    def __init__(self, port: int, source: str, headers: dict[str, str] | None = None, timeout: float = 20) -> None:
        self.port, self.source, self.timeout = port, source, timeout
        self.headers = dict(headers or {})
        self.conn: http.client.HTTPConnection | None = None

    def call(self, method: str, path: str, body: Any = None, raw: bytes | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, Any, float]:
        """(status, answer, perf_counter just before the request went out); an answer that is not
        JSON comes back as a refusal saying so."""
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        all_headers = {**self.headers, **(headers or {})}
        if data is not None:
            all_headers.setdefault("Content-Type", "application/json")
        for attempt in range(2):
            if self.conn is None:
                self.conn = BrowserLikeConnection("127.0.0.1", self.port, timeout=self.timeout,
                                                  source_address=(self.source, 0))
            try:
                sent = time.perf_counter()
                self.conn.request(method, path, body=data, headers=all_headers)
                response = self.conn.getresponse()
                payload = response.read()
                if response.will_close:
                    self.close()
                try:
                    answer = json.loads(payload) if payload else None
                except ValueError:
                    answer = {"ok": False, "error": f"not json: {payload[:80]!r}"}
                return response.status, answer, sent
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # The server closed an idle keep-alive connection (after 60 s idle): once more.
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def post(self, path: str, body: Any) -> tuple[int, Any, float]:
        return self.call("POST", path, body)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


class PingAnswerer:
    """Threads per phone echoing its pings at once (POST /api/ping), as the phone's page would.

    `ports` gives a phone its own way to the service (a delay proxy standing in for its Wi-Fi) in
    place of `port`; `stamps` its page's clock, read as the echo leaves (in ms), which the echo
    carries as the page's does: without it, the phone is one whose clock the server cannot map.
    `lines` is how many echoes a phone may have in flight at once, each on a connection of its own:
    a browser opens another while one is in flight, and on a link slower than the pings come (a
    burst is 50 ms apart) echoes sent one by one would queue up behind each other.
    """

    def __init__(self, port: int, cookies: dict[int, str], *, ports: Mapping[int, int] | None = None,
                 stamps: Mapping[int, Callable[[], float]] | None = None, lines: int = 1) -> None:
        self.queues: dict[int, queue.Queue[int]] = {seat: queue.Queue() for seat in cookies}
        self.rtts_us: dict[int, list[int]] = {seat: [] for seat in cookies}
        self.refused: list[str] = []
        self.stamps = dict(stamps or {})
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=((ports or {}).get(seat, port), seat, cookies[seat]),
                                          daemon=True, name=f"pings-{seat}-{line}")
                         for seat in cookies for line in range(lines)]

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def _run(self, port: int, seat: int, cookie: str) -> None:
        connection = Connection(port, phone_address(seat), {"Cookie": cookie})
        try:
            while not self._stop.is_set():
                try:
                    ping_id = self.queues[seat].get(timeout=0.1)
                except queue.Empty:
                    continue
                self.echo(connection, seat, ping_id)
        finally:
            connection.close()

    def echo(self, connection: Connection, seat: int, ping_id: int) -> None:
        """Answer one ping; keep its round trip, or why it was refused."""
        stamp = self.stamps.get(seat)
        body: dict[str, Any] = {"id": ping_id} if stamp is None else {"id": ping_id, "t": stamp()}
        try:
            status, answer, _ = connection.post("/api/ping", body)
        except OSError as err:
            self.refused.append(f"seat {seat}: {err!r}")
            connection.close()
            return
        if status == 200 and answer.get("ok"):
            self.rtts_us[seat].append(int(answer["rtt_us"]))
        else:
            self.refused.append(f"seat {seat}: {status} {answer}")

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(2)
