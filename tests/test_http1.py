"""The one port's HTTP/1.1 server (companion/server/http1.py): Flask through the WSGI bridge, and
every live stream kept by the event loop. Served here on a loopback port, and spoken to over
sockets as browsers and phones speak to it."""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import h11
import pytest

from companion.games.base import HOST, Command, Rejection, Viewer
from companion.server.http1 import LiveStreams, Server, http_date
from companion.server.identity import SEAT_COOKIE
from companion.server.live import StreamSession
from companion.server.serving import TableServer, listen
from companion.server.wsgi import Request, wsgi_environ
from companion.sim.streams import Reader
from tests.conftest import Later, ManualClock
from tests.support.web import Web, cookie

TIMEOUT_S = 5.0


@dataclass
class Served:
    port: int
    server: TableServer


def serve(web: Web, answering: int = 4, keep_alive_s: float = 60.0) -> tuple[Served, threading.Thread]:
    executor = ThreadPoolExecutor(max_workers=answering, thread_name_prefix="test-http")
    waiting = ThreadPoolExecutor(max_workers=8, thread_name_prefix="test-poll")
    server = Server(web.app, LiveStreams(web.service.table.broadcaster), executor, 64 * 1024, waiting,
                    keep_alive_s=keep_alive_s)
    table_server = TableServer(server, listen("127.0.0.1", 0), (executor, waiting),
                               on_stop=web.service.table.broadcaster.close)
    thread = threading.Thread(target=asyncio.run, args=(table_server.run_table(),), daemon=True)
    thread.start()
    return Served(table_server.sockets[0].getsockname()[1], table_server), thread


@pytest.fixture
def served(web: Web) -> Iterator[Served]:
    running, thread = serve(web)
    yield running
    running.server.stop()
    thread.join(TIMEOUT_S)
    assert not thread.is_alive(), "the server stops when asked"
    for sock in running.server.sockets:
        sock.close()


def connect(port: int, source: str = "127.0.0.7") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT_S, source_address=(source, 0))
    return sock


def answers(sock: socket.socket, count: int = 1) -> list[tuple[h11.Response, bytes]]:
    """The next `count` whole answers on a connection, read one after the other as a client that
    sent its requests at once reads them."""
    found: list[tuple[h11.Response, bytes]] = []
    rest = b""
    while len(found) < count:
        client = h11.Connection(h11.CLIENT)
        # The request went out as raw bytes; h11 only needs to know one was sent.
        client.send(h11.Request(method="GET", target="/", headers=[("Host", "127.0.0.1")]))
        client.send(h11.EndOfMessage())
        if rest:
            client.receive_data(rest)  # (no bytes would mean the end of the connection to h11)
        response, body = None, b""
        while True:
            event = client.next_event()
            if event is h11.NEED_DATA:
                client.receive_data(sock.recv(65536))  # b"" at the end of the connection
            elif isinstance(event, h11.Response):
                response = event
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                break
            else:
                raise AssertionError(f"the connection ended before answer {len(found) + 1}: {event}")
        assert response is not None
        found.append((response, body))
        rest = client.trailing_data[0]
    return found


def test_answers_are_dated_as_http_says_in_any_locale() -> None:
    assert http_date(0) == b"Thu, 01 Jan 1970 00:00:00 GMT"
    assert http_date(1_795_792_382) == email.utils.formatdate(1_795_792_382, usegmt=True).encode()


def get(path: str, extra: str = "") -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n".encode()


ROLL = b'{"as":"table","name":"roll"}'


def post(body: bytes, extra: bytes = b"") -> bytes:
    return (b"POST /api/commands HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n%s\r\n%s" % (len(body), extra, body))


def headers_of(response: h11.Response) -> dict[str, str]:
    return {name.decode(): value.decode() for name, value in response.headers}


def test_a_request_in_absolute_form_reaches_its_route(served: Served) -> None:
    """A phone behind an HTTP proxy asks for "http://host:port/path" (servers must accept it)."""
    with connect(served.port) as sock:
        sock.sendall(get("http://192.168.1.20:8080/api/status"))
        [(response, body)] = answers(sock)
    assert response.status_code == 200
    assert "position" in json.loads(body)


def test_a_connection_carries_one_request_after_another_in_order(served: Served) -> None:
    """A phone's taps reuse its connection; requests sent at once are answered in their order."""
    with connect(served.port) as sock:
        sock.sendall(get("/api/status"))
        [(first, _)] = answers(sock)
        sock.sendall(get("/api/status") + get("/nowhere") + get("/api/status"))
        statuses = [response.status_code for response, _ in answers(sock, 3)]
    assert first.status_code == 200
    assert statuses == [200, 404, 200]
    assert headers_of(first)["server"] == "table-companion" and "date" in headers_of(first)


def test_a_body_over_the_limit_is_refused_without_being_read(served: Served, web: Web,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    """One 413, however much of the body came with the head, and the connection closes."""
    position = web.service.table.position
    with caplog.at_level(logging.WARNING, logger="companion.server.http1"), connect(served.port) as sock:
        sock.sendall(b"POST /api/commands HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 10485760\r\n\r\n" + b"{" * (80 * 1024))
        [(response, _)] = answers(sock)
        assert response.status_code == 413
        assert headers_of(response).get("connection", "").lower() == "close"
        sock.settimeout(TIMEOUT_S)
        assert sock.recv(1024) == b"", "the rest of the body is not waited for: the connection closes"
    assert web.service.table.position == position
    assert not [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR]


def test_a_malformed_request_gets_a_clear_refusal_and_changes_nothing(served: Served, web: Web,
                                                                      caplog: pytest.LogCaptureFixture) -> None:
    position = web.service.table.position
    with caplog.at_level(logging.WARNING, logger="companion.server.http1"), connect(served.port) as sock:
        sock.sendall(b"POST /api/commands HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: two\r\n\r\n")
        [(response, body)] = answers(sock)
    assert response.status_code == 400
    assert body.startswith(b"Bad request")
    assert web.service.table.position == position
    assert any("malformed request" in record.getMessage() for record in caplog.records)


def test_pages_waiting_for_a_change_never_hold_up_a_request(web: Web) -> None:
    """Long polls wait in a pool of their own: with one thread answering, three waiting pages do
    not keep a status request waiting, and each of them hears of the change."""
    table = web.service.table
    web.join(1, "P1")
    position = table.position
    running, thread = serve(web, answering=1)
    polls = [connect(running.port) for _ in range(3)]
    try:
        for poll in polls:
            poll.sendall(get(f"/api/view?as=table&after={position}&wait=10"))
        with connect(running.port) as sock:
            sock.sendall(get("/api/status"))
            [(status, _)] = answers(sock)
        assert status.status_code == 200
        outcome = table.handle(Viewer("seat", 1), Command("roll"))
        for poll in polls:
            [(response, body)] = answers(poll)
            assert response.status_code == 200
            assert json.loads(body)["position"] == outcome.position
    finally:
        for poll in polls:
            poll.close()
        running.server.stop()
        thread.join(TIMEOUT_S)


def test_a_header_written_with_underscores_does_not_pose_as_its_dashed_twin() -> None:
    request = Request("GET", "/table", "1.1", [(b"x_forwarded_for", b"10.0.0.1"), (b"cookie", b"a=1"),
                                               (b"cookie", b"b=2")], ("127.0.0.7", 50000), ("127.0.0.1", 8080))
    environ = wsgi_environ(request, b"", None)
    assert "HTTP_X_FORWARDED_FOR" not in environ
    assert environ["HTTP_COOKIE"] == "a=1; b=2"
    assert environ["REMOTE_ADDR"] == "127.0.0.7"


def seat_cookie(web: Web, seat: int) -> str:
    phone = web.join(seat, f"P{seat}")
    return f"{SEAT_COOKIE}={cookie(phone, SEAT_COOKIE).value}"


def test_the_loop_sends_every_screen_its_own_view_then_each_change(served: Served, web: Web) -> None:
    table = web.service.table
    reader = Reader()
    streams = [reader.open(served.port, "phone1", "as=me", "127.0.0.21", seat_cookie(web, 1)),
               reader.open(served.port, "phone2", "as=me", "127.0.0.22", seat_cookie(web, 2)),
               reader.open(served.port, "table", "as=table", "127.0.0.31")]
    reader.start()
    try:
        assert reader.wait(lambda: all(s.first_data for s in streams), TIMEOUT_S)
        assert reader.wait(lambda: table.presence.connected(Viewer("seat", 2)), TIMEOUT_S)
        # A command from another thread, as Flask's workers send them.
        outcome = table.handle(Viewer("seat", 1), Command("roll"))
        assert reader.wait(lambda: reader.all_at(outcome.position), TIMEOUT_S), "every screen has the change"
        for stream, seat in zip(streams, (1, 2, None), strict=True):
            assert stream.status == 200 and stream.chunked
            first = json.loads(stream.first_data)
            assert first.get("you", {}).get("seat") == seat, "each screen is sent its own view"
    finally:
        reader.close()
    assert reader.wait(lambda: not table.presence.connected(Viewer("seat", 1)), TIMEOUT_S), \
        "a page that left is no longer shown connected"


def test_every_stream_ends_when_the_service_stops(web: Web) -> None:
    running, thread = serve(web)
    reader = Reader()
    stream = reader.open(running.port, "phone3", "as=me", "127.0.0.23", seat_cookie(web, 3))
    reader.start()
    try:
        assert reader.wait(lambda: bool(stream.first_data), TIMEOUT_S)
        running.server.stop()
        thread.join(TIMEOUT_S)
        assert not thread.is_alive(), "no open stream keeps the server from stopping"
        assert reader.wait(lambda: stream.ended, TIMEOUT_S), "the response is finished"
    finally:
        reader.close()
    assert len(running.server.streams) == 0


def test_an_http_1_0_client_gets_its_stream_until_the_connection_closes(served: Served, web: Web) -> None:
    with connect(served.port) as sock:
        sock.sendall(b"GET /api/stream?as=table HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        received = b""
        while b"event: view" not in received:
            received += sock.recv(65536)
    head = received.split(b"\r\n\r\n", 1)[0].lower()
    assert head.startswith(b"http/1.1 200")
    assert b"transfer-encoding" not in head and b"connection: close" in head


def test_a_quiet_table_still_beats_on_every_stream_and_after_a_change(served: Served, web: Web) -> None:
    """The heartbeat (50 ms here) tells a page its link is alive while nothing happens."""
    table = web.service.table
    with connect(served.port, "127.0.0.24") as sock:
        sock.sendall(get("/api/stream?as=me", f"Cookie: {seat_cookie(web, 4)}\r\n"))
        received = b""

        def beats() -> int:
            return received.count(b"event: alive")

        while beats() < 3:
            received += sock.recv(65536)
        outcome = table.handle(Viewer("seat", 4), Command("roll"))
        while f"id: {outcome.position}\nevent: patch".encode() not in received:
            received += sock.recv(65536)
        after = beats()
        while beats() < after + 3:
            received += sock.recv(65536)


class FullSocket(asyncio.Transport):
    """A phone's connection whose socket the test fills and drains: what the server wrote, and
    the flow control asyncio would signal."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += data

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.25", 50000), "sockname": ("127.0.0.1", 8080)}.get(name, default)

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def bound_server(web: Web, executor: ThreadPoolExecutor) -> Server:
    """A server on the running loop (its streams pushed there), as serving.py makes it."""
    server = Server(web.app, LiveStreams(web.service.table.broadcaster), executor, 64 * 1024)
    server.streams.bind(asyncio.get_running_loop())
    return server


async def table_stream(server: Server, written: FullSocket | None = None) -> tuple[Any, FullSocket]:
    """A display's stream on `server` (writing to `written`), once its first view is written."""
    connection = server.connection()
    written = written or FullSocket()
    connection.connection_made(written)
    connection.data_received(get("/api/stream?as=table"))
    while b"event: view" not in written.written:
        await asyncio.sleep(0.01)
    return connection, written


def test_a_phone_whose_socket_is_full_waits_then_gets_one_patch_to_the_current_view(web: Web) -> None:
    """A slow phone only delays itself: nothing is queued for it while its socket is full, and
    once it drains it is sent one patch from what it last had to what is current."""
    table = web.service.table

    async def scene() -> tuple[bytes, bytes, int]:
        with ThreadPoolExecutor(max_workers=2) as executor:
            connection, socket_ = await table_stream(bound_server(web, executor))
            connection.pause_writing()
            before = bytes(socket_.written)
            for _ in range(3):
                moved_to = (await asyncio.to_thread(table.handle, Viewer("seat", 1), Command("roll"))).position
            await asyncio.sleep(0.1)
            held = bytes(socket_.written)
            connection.resume_writing()
            after = bytes(socket_.written)
            connection.connection_lost(None)
            return held[len(before):], after[len(held):], moved_to

    web.join(1, "P1")
    while_full, drained, moved_to = asyncio.run(scene())
    assert while_full == b"", "nothing is written to a full socket"
    assert drained.count(b"event: patch") == 1, "one patch once it drains"
    assert f"id: {moved_to}\nevent: patch".encode() in drained, "to the view as it is now"


class Logged(FullSocket):
    """A connection whose writes go to one log shared with others, in the order they were made."""

    def __init__(self, name: str, log: list[tuple[str, bytes]]) -> None:
        super().__init__()
        self.name = name
        self.log = log

    def write(self, data: bytes | bytearray | memoryview) -> None:
        super().write(data)
        self.log.append((self.name, bytes(data)))


def test_a_tap_is_never_queued_behind_slow_pages_and_its_screens_have_it_first(web: Web) -> None:
    """A command needs no answering thread: with the only one held by a slow page, a phone's tap
    is still answered at once, and every screen was sent the change before the phone's answer."""
    table = web.service.table
    tapper = seat_cookie(web, 1)

    async def scene() -> list[tuple[str, bytes]]:
        log: list[tuple[str, bytes]] = []
        release = threading.Event()
        with ThreadPoolExecutor(max_workers=1) as executor:
            server = bound_server(web, executor)
            display, _ = await table_stream(server, Logged("display", log))
            phone, phone_socket = server.connection(), Logged("phone", log)
            phone.connection_made(phone_socket)
            executor.submit(release.wait, TIMEOUT_S)  # a slow page holds the answering thread
            body = json.dumps({"name": "roll"}).encode()
            phone.data_received(
                b"POST /api/commands HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + f"Cookie: {tapper}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
            release.set()
            display.connection_lost(None)
            phone.connection_lost(None)
        return log

    log = asyncio.run(scene())
    answers = [at for at, (name, data) in enumerate(log) if name == "phone"]
    assert answers and log[answers[0]][1].startswith(b"HTTP/1.1 200"), "the tap is answered while the page waits"
    position = table.position
    patches = [at for at, (name, data) in enumerate(log)
               if name == "display" and f"id: {position}\nevent: patch".encode() in data]
    assert patches and patches[0] < answers[0], "the table display was sent the roll before the phone's answer"


@pytest.mark.parametrize("path", ["/api/buzz", "/api/ping", "/api/shown"])
def test_a_phones_buzz_and_clock_echoes_are_answered_while_pages_wait(web: Web, path: str) -> None:
    """A buzz or a ping's echo is stamped when it is read: it never waits for an answering thread
    (its arrival may decide a round; an echo's round trip maps the phone's clock)."""
    phone = seat_cookie(web, 2)

    async def scene() -> bytes:
        release = threading.Event()
        with ThreadPoolExecutor(max_workers=1) as executor:
            server = Server(web.app, LiveStreams(web.service.table.broadcaster), executor, 64 * 1024)
            server.streams.bind(asyncio.get_running_loop())
            connection = server.connection()
            socket_ = FullSocket()
            connection.connection_made(socket_)
            executor.submit(release.wait, TIMEOUT_S)  # a slow page holds the answering thread
            body = b"{}"
            connection.data_received(
                f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"Cookie: {phone}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
            answered = bytes(socket_.written)
            release.set()
            connection.connection_lost(None)
        return answered

    answered = asyncio.run(scene())
    assert answered.startswith(b"HTTP/1.1 "), "answered at once, while the page waits"



class SlowDisk:
    """The store's connection with a disk that takes `wait_s` to commit; `at_commit` is called as
    the commit ends, in the thread that waits for it."""

    def __init__(self, db: Any, wait_s: float, at_commit: Any) -> None:
        self._db, self._wait_s, self._at_commit = db, wait_s, at_commit

    def execute(self, sql: str, *args: Any) -> Any:
        if sql != "COMMIT":
            return self._db.execute(sql, *args)
        time.sleep(self._wait_s)
        self._at_commit()
        return self._db.execute(sql, *args)


def test_screens_are_prepared_while_the_disk_commits_and_sent_only_after(web: Web,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk's wait is not added to every screen's: their messages are made meanwhile. Nothing
    reaches a screen before the command is stored."""
    table = web.service.table
    tapper = seat_cookie(web, 1)
    at_commit: list[bytes] = []

    async def scene() -> tuple[bytes, int]:
        with ThreadPoolExecutor(max_workers=1) as executor:
            server = bound_server(web, executor)
            display, display_socket = await table_stream(server)
            phone, phone_socket = server.connection(), FullSocket()
            phone.connection_made(phone_socket)
            seen = SlowDisk(web.service.store._db, 0.05, lambda: at_commit.append(bytes(display_socket.written)))
            monkeypatch.setattr(web.service.store, "_db", seen)
            body = json.dumps({"name": "roll"}).encode()
            phone.data_received(
                b"POST /api/commands HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + f"Cookie: {tapper}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
            written = bytes(display_socket.written)
            display.connection_lost(None)
            phone.connection_lost(None)
            return written, table.position

    with ThreadPoolExecutor(max_workers=1) as own_thread:
        written, position = own_thread.submit(asyncio.run, scene()).result(timeout=TIMEOUT_S)
    news = f"id: {position}\nevent: patch".encode()
    assert at_commit and news not in at_commit[0], "nothing was sent before the command was stored"
    assert news in written, "the display was sent the roll once it was stored"


def test_a_rounds_decision_is_made_where_the_screens_are_and_sent_only_once_stored(
        web: Web, later: Later, clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """The timer that finds a round's decision due hands it to the loop, as a command comes in:
    every screen's message is made while the disk commits, no thread is woken to send it, and
    nothing reaches a screen before the decision is stored."""
    table = web.service.table
    web.join(1, "Ann")
    assert table.handle(HOST, Command("end_game", {})).ok
    assert table.handle(HOST, Command("start_game", {"game": "buzzer-quiz"})).ok
    clock.advance(2_000_000)
    settled_in: list[int] = []
    prepared: list[int] = []
    handle, prepare = table.handle, StreamSession.prepare

    def handle_seen(actor: Viewer, command: Command, with_view: bool = False) -> Any:
        if command.name == "settle":
            settled_in.append(threading.get_ident())
        return handle(actor, command, with_view)

    def prepare_seen(session: StreamSession) -> None:
        prepared.append(threading.get_ident())
        prepare(session)

    monkeypatch.setattr(table, "handle", handle_seen)
    monkeypatch.setattr(StreamSession, "prepare", prepare_seen)
    at_commit: list[tuple[bytes, int]] = []

    async def scene() -> tuple[bytes, int, int]:
        loop_thread = threading.get_ident()
        with ThreadPoolExecutor(max_workers=1) as executor:
            display, display_socket = await table_stream(bound_server(web, executor))
            assert handle(HOST, Command("arm", {"mode": "race"})).ok
            clock.advance(300_000)
            assert not isinstance(web.service.buttons.press_simulated(1), Rejection)
            clock.advance(10_000)
            disk = SlowDisk(web.service.store._db, 0.05,
                            lambda: at_commit.append((bytes(display_socket.written), len(prepared))))
            monkeypatch.setattr(web.service.store, "_db", disk)
            # The timer rings on a thread of its own, as the service's does.
            await asyncio.get_running_loop().run_in_executor(None, later.run)
            deadline = time.monotonic() + TIMEOUT_S
            while not settled_in and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.05)
            written = bytes(display_socket.written)
            display.connection_lost(None)
            return written, table.position, loop_thread

    with ThreadPoolExecutor(max_workers=1) as own_thread:
        written, position, loop_thread = own_thread.submit(asyncio.run, scene()).result(timeout=TIMEOUT_S * 2)
    assert settled_in == [loop_thread], "the decision was made on the loop, where the screens are"
    news = f"id: {position}\nevent: patch".encode()
    assert at_commit, "the decision was stored"
    sent_before, prepared_before = at_commit[-1]
    assert news not in sent_before, "nothing was sent before the decision was stored"
    assert prepared_before >= 1 and set(prepared) == {loop_thread}, "the display's message was made meanwhile"
    assert news in written and b'"winner":"seat:1"' in written, "the display was sent the decision once stored"


def test_garbage_after_a_good_request_gets_the_good_answer_then_a_refusal(served: Served, web: Web,
                                                                          caplog: pytest.LogCaptureFixture) -> None:
    position = web.service.table.position
    with caplog.at_level(logging.WARNING, logger="companion.server.http1"), connect(served.port) as sock:
        sock.sendall(get("/api/status") + b"NOT HTTP AT ALL\r\n\r\n")
        [(good, _), (bad, body)] = answers(sock, 2)
        assert good.status_code == 200
        assert bad.status_code == 400 and body.startswith(b"Bad request")
        assert headers_of(bad)["connection"] == "close"
        sock.settimeout(TIMEOUT_S)
        assert sock.recv(1024) == b"", "the connection closes after the refusal"
    assert web.service.table.position == position
    assert any("malformed request" in record.getMessage() for record in caplog.records)


def test_a_client_that_asks_to_continue_is_told_to_then_answered(served: Served, web: Web) -> None:
    with connect(served.port) as sock:
        sock.sendall(post(ROLL, b"Expect: 100-continue\r\n")[:-len(ROLL)])
        sock.settimeout(TIMEOUT_S)
        assert sock.recv(1024) == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(ROLL)
        [(response, _)] = answers(sock)
    assert response.status_code == 200


def test_an_http_1_0_request_is_answered_then_the_connection_closes(served: Served) -> None:
    with connect(served.port) as sock:
        sock.sendall(b"GET /api/status HTTP/1.0\r\n\r\n")
        sock.settimeout(TIMEOUT_S)
        received = b""
        while chunk_ := sock.recv(65536):
            received += chunk_
    assert received.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"\r\nconnection: close\r\n" in received.lower()


def test_a_request_to_switch_protocols_is_answered_in_http_1_1_and_the_connection_closes(served: Served) -> None:
    """No protocol is switched to here: Flask's routing refuses a WebSocket on an HTTP route, and the
    bytes after the request (the client's first frame) are never read as a request."""
    with connect(served.port) as sock:
        sock.sendall(get("/api/status", "Upgrade: websocket\r\nConnection: Upgrade\r\n") + b"\x81\x05hello")
        [(response, body)] = answers(sock)
        assert response.status_code == 400, body
        assert headers_of(response)["connection"] == "close"
        sock.settimeout(TIMEOUT_S)
        try:
            rest = sock.recv(1024)
        except ConnectionResetError:
            rest = b""
        assert rest == b""


def test_a_client_that_leaves_mid_request_changes_nothing(served: Served, web: Web) -> None:
    position = web.service.table.position
    with connect(served.port) as sock:
        sock.sendall(post(ROLL)[:-5])
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(TIMEOUT_S)
        assert sock.recv(1024) == b"", "closed without an answer"
    assert web.service.table.position == position
