"""The server's event loop: Flask through the WSGI bridge, and every live stream kept by the loop
(companion/server/asgi.py). Driven here as uvicorn drives it, with ASGI messages."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest

from companion.games.base import Command, Viewer
from companion.server.asgi import CompanionASGI, LiveStreams, wsgi_environ
from companion.server.identity import SEAT_COOKIE
from tests.support.web import Web, cookie

T = TypeVar("T")


@pytest.fixture
def server(web: Web) -> Iterator[CompanionASGI]:
    with ThreadPoolExecutor(max_workers=4) as executor:
        yield CompanionASGI(web.app, LiveStreams(web.service.table.broadcaster), executor, 64 * 1024)


def scope(method: str, path: str, query: str = "", headers: list[tuple[str, str]] = ()) -> dict[str, Any]:
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
            "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": query.encode(),
            "root_path": "", "headers": [(k.lower().encode(), v.encode()) for k, v in headers],
            "client": ("127.0.0.7", 50000), "server": ("127.0.0.1", 8080)}


@dataclass
class Connection:
    """One HTTP exchange as the server sees it: what the client sent, and what came back."""

    body: bytes = b""
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[bytes] = field(default_factory=list)
    complete: bool = False
    left: asyncio.Event = field(default_factory=asyncio.Event)
    _body_sent: bool = False

    async def receive(self) -> dict[str, Any]:
        if not self._body_sent:
            self._body_sent = True
            return {"type": "http.request", "body": self.body, "more_body": False}
        await self.left.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = {k.decode().lower(): v.decode() for k, v in message["headers"]}
        else:
            self.chunks.append(message.get("body", b""))
            self.complete = not message.get("more_body", False)

    def events(self) -> list[tuple[str, str, str]]:
        """(event, data, id) of every server-sent event so far."""
        found = []
        for block in b"".join(self.chunks).decode().split("\n\n"):
            fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
            if "event" in fields:
                found.append((fields["event"], fields.get("data", ""), fields.get("id", "")))
        return found

    def patched_to(self, position: int) -> bool:
        return any(event == "patch" and ident == str(position) for event, _, ident in self.events())


def run(scene: Coroutine[Any, Any, T]) -> T:
    """The scene on an event loop of its own, in a thread of its own (a test worker's thread may
    already run one: Playwright's)."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, scene).result()


async def exchange(server: CompanionASGI, request: dict[str, Any], body: bytes = b"") -> Connection:
    connection = Connection(body=body)
    await server(request, connection.receive, connection.send)
    return connection


def test_a_request_in_absolute_form_reaches_its_route(server: CompanionASGI) -> None:
    """A phone behind an HTTP proxy asks for "http://host:port/path" (servers must accept it)."""
    answer = run(exchange(server, scope("GET", "http://192.168.1.20:8080/api/status")))
    assert answer.status == 200
    assert "position" in json.loads(b"".join(answer.chunks))


def test_a_body_over_the_limit_is_refused_without_being_read(server: CompanionASGI, web: Web) -> None:
    position = web.service.table.position
    huge = scope("POST", "/api/commands", headers=[("content-length", str(10 * 1024 * 1024)),
                                                   ("content-type", "application/json")])
    answer = run(exchange(server, huge))
    assert answer.status == 413
    assert web.service.table.position == position


def test_pages_waiting_for_a_change_never_hold_up_a_request(web: Web) -> None:
    """Long polls wait in a pool of their own: with one thread answering, three waiting pages do
    not keep a status request waiting, and each of them hears of the change."""
    table = web.service.table
    web.join(1, "P1")
    position = table.position

    async def scene() -> tuple[Connection, list[Connection], int]:
        with ThreadPoolExecutor(max_workers=1) as answering, ThreadPoolExecutor(max_workers=8) as waiting:
            server = CompanionASGI(web.app, LiveStreams(table.broadcaster), answering, 64 * 1024, waiting)
            wait = scope("GET", "/api/view", f"as=table&after={position}&wait=10")
            polls = [asyncio.create_task(exchange(server, wait)) for _ in range(3)]
            await asyncio.sleep(0.2)
            assert not any(poll.done() for poll in polls), "nothing changed yet: the pages wait"
            status = await asyncio.wait_for(exchange(server, scope("GET", "/api/status")), 3)
            outcome = await asyncio.to_thread(table.handle, Viewer("seat", 1), Command("roll"))
            return status, await asyncio.wait_for(asyncio.gather(*polls), 5), outcome.position

    status, polls, moved_to = run(scene())
    assert status.status == 200
    for poll in polls:
        assert poll.status == 200
        assert json.loads(b"".join(poll.chunks))["position"] == moved_to


def test_a_header_written_with_underscores_does_not_pose_as_its_dashed_twin() -> None:
    environ = wsgi_environ(scope("GET", "/table", headers=[("x_forwarded_for", "10.0.0.1"), ("cookie", "a=1"),
                                                          ("Cookie", "b=2")]), b"", None)
    assert "HTTP_X_FORWARDED_FOR" not in environ
    assert environ["HTTP_COOKIE"] == "a=1; b=2"
    assert environ["REMOTE_ADDR"] == "127.0.0.7"


def stream_scope(web: Web, seat: int | None) -> dict[str, Any]:
    if seat is None:
        return scope("GET", "/api/stream", "as=table")
    phone = web.join(seat, f"P{seat}")
    seat_cookie = f"{SEAT_COOKIE}={cookie(phone, SEAT_COOKIE).value}"
    return scope("GET", "/api/stream", "as=me", headers=[("cookie", seat_cookie)])


def test_the_loop_sends_every_screen_its_own_view_then_each_change(server: CompanionASGI, web: Web) -> None:
    table = web.service.table
    requests = [stream_scope(web, 1), stream_scope(web, 2), stream_scope(web, None)]

    async def scene() -> list[Connection]:
        server.streams.bind(asyncio.get_running_loop())
        connections = [Connection() for _ in requests]
        tasks = [asyncio.create_task(server(r, c.receive, c.send)) for r, c in zip(requests, connections, strict=True)]
        while not all(c.events() for c in connections):
            await asyncio.sleep(0.01)
        assert len(server.streams) == 3
        # A command from another thread, as Flask's workers send them.
        outcome = await asyncio.to_thread(table.handle, Viewer("seat", 1), Command("roll"))
        while not all(c.patched_to(outcome.position) for c in connections):
            await asyncio.sleep(0.01)
        for connection in connections:
            connection.left.set()
        await asyncio.wait_for(asyncio.gather(*tasks), 5)
        return connections

    connections = run(scene())
    for connection, seat in zip(connections, (1, 2, None), strict=True):
        assert connection.status == 200 and connection.headers["content-type"].startswith("text/event-stream")
        assert connection.events()[0][0] == "view"
        first = json.loads(connection.events()[0][1])
        assert first.get("you", {}).get("seat") == seat
    assert not web.service.table.presence.connected(Viewer("seat", 1)), "a page that left is no longer shown connected"


def test_every_stream_ends_when_the_service_stops(server: CompanionASGI, web: Web) -> None:
    async def scene() -> Connection:
        server.streams.bind(asyncio.get_running_loop())
        connection = Connection()
        task = asyncio.create_task(server(stream_scope(web, 3), connection.receive, connection.send))
        while not connection.events():
            await asyncio.sleep(0.01)
        await asyncio.to_thread(web.service.table.broadcaster.close)
        await asyncio.wait_for(task, 5)
        return connection

    connection = run(scene())
    assert connection.complete, "the response is finished, so the server has nothing to wait for"
    assert len(server.streams) == 0


def test_a_quiet_table_still_beats_on_every_stream_and_after_a_change(server: CompanionASGI, web: Web) -> None:
    """The heartbeat (50 ms here) tells a page its link is alive while nothing happens."""
    table = web.service.table

    def beats(connection: Connection) -> int:
        return sum(1 for event, _, _ in connection.events() if event == "alive")

    async def scene() -> Connection:
        server.streams.bind(asyncio.get_running_loop())
        connection = Connection()
        task = asyncio.create_task(server(stream_scope(web, 4), connection.receive, connection.send))
        while beats(connection) < 3:
            await asyncio.sleep(0.01)
        outcome = await asyncio.to_thread(table.handle, Viewer("seat", 4), Command("roll"))
        while not connection.patched_to(outcome.position):
            await asyncio.sleep(0.01)
        after = beats(connection)
        while beats(connection) < after + 3:
            await asyncio.sleep(0.01)
        connection.left.set()
        await asyncio.wait_for(task, 5)
        return connection

    run(asyncio.wait_for(scene(), 10))
