"""The app on one event loop: Flask answers pages and the API in worker threads, the loop itself
keeps every live stream.

A change wakes the open streams on the loop; each steps its session (live.py), where views are
built once per viewer and messages encoded once (views.py, patch.py), and writes the bytes to its
connection. No thread waits per screen, and a slow phone only delays itself: while its socket is
full its stream waits, then sends one patch from what it last sent to what is current.

The bridge to Flask is plain WSGI (PEP 3333) run in a thread pool, so Flask's pages, blueprints
and test client stay as they are; a stream route leaves its session in the environ (live.py's
LIVE_SESSION) and the loop takes it from there.
"""

from __future__ import annotations

import asyncio
import io
import re
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from companion.server.live import LIVE_SESSION, StreamSession
from companion.table.broadcast import Broadcaster

ABSOLUTE_FORM = re.compile(r"https?://([^/?#]*)", re.IGNORECASE)

Scope = dict[str, Any]
Receive = Callable[[], Any]
Send = Callable[[dict[str, Any]], Any]


class LiveStreams:
    """The streams open on the loop. A change in any thread wakes them all, with one call into
    the loop however many changes come before it runs."""

    def __init__(self, broadcaster: Broadcaster) -> None:
        self._wakers: set[asyncio.Event] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending = False
        broadcaster.listen(self._changed)

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def __len__(self) -> int:
        return len(self._wakers)

    def add(self, waker: asyncio.Event) -> None:
        self._wakers.add(waker)

    def discard(self, waker: asyncio.Event) -> None:
        self._wakers.discard(waker)

    def _changed(self) -> None:
        loop = self._loop
        if loop is None or self._pending:
            return
        self._pending = True
        try:
            loop.call_soon_threadsafe(self._wake_all)
        except RuntimeError:
            self._pending = False  # the loop has closed: nothing is streaming any more

    def _wake_all(self) -> None:
        self._pending = False
        for waker in self._wakers:
            waker.set()


async def drive(session: StreamSession, streams: LiveStreams, headers: list[tuple[bytes, bytes]],
                receive: Receive, send: Send) -> None:
    """One screen's stream on the loop, until the page leaves, its seat moves, or the service stops."""
    loop = asyncio.get_running_loop()
    wake = asyncio.Event()
    gone = False

    async def watch() -> None:
        nonlocal gone
        while (await receive())["type"] != "http.disconnect":
            pass
        gone = True
        wake.set()

    watcher = loop.create_task(watch())
    timer: asyncio.TimerHandle | None = None
    streams.add(wake)
    try:
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": session.open(), "more_body": True})
        while not gone:
            wake.clear()
            step = session.step()
            if step.message:
                await send({"type": "http.response.body", "body": step.message, "more_body": True})
            if step.done:
                break
            if not wake.is_set():
                # One timer per stream, kept while it rings no later than needed: a wake too early
                # only steps once more, and a busy table then costs no timer per change.
                due = loop.time() + step.wait_s
                if timer is None or timer.cancelled() or timer.when() > due:
                    if timer is not None:
                        timer.cancel()
                    timer = loop.call_at(due, wake.set)
                await wake.wait()
                if timer.when() <= loop.time():
                    timer = None  # it rang (or is about to, which only steps once more)
        if not gone:
            await send({"type": "http.response.body", "body": b"", "more_body": False})
    finally:
        streams.discard(wake)
        watcher.cancel()
        if timer is not None:
            timer.cancel()
        session.close()


@dataclass
class Answer:
    """A WSGI app's answer, collected in a worker thread."""

    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes


def call_wsgi(app: Callable[..., Iterable[bytes]], environ: dict[str, Any]) -> Answer:
    started: list[Any] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes], None]:
        started[:] = [status, headers]
        return lambda data: None  # the legacy write(): Flask never calls it

    result = app(environ, start_response)
    try:
        # A stream's body is its session, driven by the loop: its generator is never started.
        body = b"" if environ.get(LIVE_SESSION) is not None else b"".join(result)
    finally:
        close = getattr(result, "close", None)
        if close is not None:
            close()
    status, headers = started
    # The server dates every answer itself; a file's own Date would make two.
    encoded = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers if k.lower() != "date"]
    return Answer(int(status[:3]), encoded, body)


def wsgi_environ(scope: Scope, body: bytes, declared: int | None) -> dict[str, Any]:
    """The PEP 3333 environ of an ASGI HTTP request whose body has been read."""
    server = scope.get("server") or ("localhost", 80)
    client = scope.get("client") or ("", 0)
    path, authority = scope["path"], None
    absolute = ABSOLUTE_FORM.match(path)
    if absolute:
        # "GET http://host:port/path", as a phone's HTTP proxy sends it: a server must accept it,
        # and its authority is the Host (RFC 9112, 3.2.2).
        authority, path = absolute.group(1), path[absolute.end():] or "/"
    environ: dict[str, Any] = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": "",
        "PATH_INFO": path.encode("utf-8").decode("latin-1"),
        "QUERY_STRING": scope["query_string"].decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1]),
        "SERVER_PROTOCOL": f"HTTP/{scope['http_version']}",
        "REMOTE_ADDR": str(client[0]),
        "REMOTE_PORT": str(client[1]),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    if body or declared is not None:
        # A body too large was not read: its declared length lets Flask refuse it (413).
        environ["CONTENT_LENGTH"] = str(declared if declared is not None else len(body))
    for raw_name, raw_value in scope["headers"]:
        name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
        if name in ("content-length", "transfer-encoding"):
            continue
        if name == "content-type":
            environ["CONTENT_TYPE"] = value
            continue
        if "_" in name:
            continue  # "X_Seat" would pose as "X-Seat" once both are HTTP_X_SEAT
        key = "HTTP_" + name.upper().replace("-", "_")
        if key in environ:
            environ[key] += ("; " if key == "HTTP_COOKIE" else ", ") + value
        else:
            environ[key] = value
    if authority is not None:
        environ["HTTP_HOST"] = authority
    return environ


def declared_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def may_wait(scope: Scope) -> bool:
    """A long poll (GET /api/view?after=N): it holds its thread while the table is quiet."""
    return scope["method"] == "GET" and scope["path"] == "/api/view" and b"after=" in scope["query_string"]


class CompanionASGI:
    """The ASGI app the server runs: Flask through the WSGI bridge, streams on the loop.

    Requests are answered in a few threads; long polls wait in a pool of their own, so a page that
    waits never delays a tap, and the threads that answer stay few: each thread that allocates
    keeps its own caches of freed memory, which grow, a size class at a time, over an evening.
    """

    def __init__(self, app: Any, streams: LiveStreams, executor: Executor, max_body: int,
                 waiting: Executor | None = None) -> None:
        self.app = app
        self.streams = streams
        self.executor = executor
        self.waiting = waiting or executor
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # the server runs without lifespan events and without websockets
        declared = declared_length(scope)
        body = b""
        if declared is None or declared <= self.max_body:
            body = await self._body(receive)
            if len(body) > self.max_body:
                declared = len(body)
                body = b""
        environ = wsgi_environ(scope, body, declared)
        loop = asyncio.get_running_loop()
        pool = self.waiting if may_wait(scope) else self.executor
        answer = await loop.run_in_executor(pool, call_wsgi, self.app, environ)
        session = environ.get(LIVE_SESSION)
        if isinstance(session, StreamSession) and answer.status == 200:
            await drive(session, self.streams, answer.headers, receive, send)
            return
        await send({"type": "http.response.start", "status": answer.status, "headers": answer.headers})
        await send({"type": "http.response.body", "body": answer.body, "more_body": False})

    async def _body(self, receive: Receive) -> bytes:
        """The request's body, read up to one byte past the limit."""
        parts: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            parts.append(chunk)
            size += len(chunk)
            if size > self.max_body or not message.get("more_body", False):
                break
        return b"".join(parts)
