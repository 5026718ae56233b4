"""The one port's HTTP/1.1 connections, on one event loop: Flask answers pages and the API in
worker threads, commands and a phone's buzzes on the loop, and the loop keeps every live stream.

httptools reads the requests and this module frames the answers (wire.py); each connection is an
asyncio protocol that hands a complete request to Flask through the WSGI bridge (wsgi.py), in a
thread pool or, for the few requests `runs_on_loop` names, on the loop itself, and writes its
answer. A stream route leaves its session in the environ instead (live.py): the connection then
keeps it.

A change pushes every open stream in one pass of the loop: each steps its session, where views
are built once per viewer and messages encoded once (views.py, patch.py), and its bytes go to its
socket at once, framed here. A command answered on the loop has those messages made while its
events wait for the disk (`LiveStreams._foresee`), so the pass after its publish only writes.
No thread and no task waits per screen, and a slow phone only delays itself: while its socket
is full its stream waits, then sends one patch from what it last sent to what is current.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from http import HTTPStatus
from typing import Any

from companion.server.live import LIVE_SESSION, StreamSession
from companion.server.wire import CONTINUE, LAST_CHUNK, BadRequest, Incoming, RequestReader, chunk, head, http_date
from companion.server.wsgi import (
    ON_LOOP_ROUTES,
    TEXT,
    Answer,
    Request,
    answer_of,
    may_wait,
    runs_on_loop,
    wsgi_environ,
)
from companion.table.broadcast import Broadcaster

log = logging.getLogger(__name__)

MAX_HEAD_BYTES = 16 * 1024
"""A request line and headers longer than this are refused (431): a phone's are well under 2 KiB."""

SERVER_NAME = b"table-companion"

PIPELINED = 8
"""Requests read ahead on one connection before it stops reading until it has answered some."""


class LiveStreams:
    """The streams open on the loop. A change in any thread pushes them all, with one call into
    the loop however many changes come before it runs."""

    def __init__(self, broadcaster: Broadcaster) -> None:
        self._streams: set[Stream] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending = False
        self._loop_thread = 0
        self._pushing = False
        self._again = False
        broadcaster.listen(self._changed)
        broadcaster.listen_ahead(self._foresee, self._foresees)
        broadcaster.keep_changes(self._take_change)

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Called on the loop's own thread."""
        self._loop = loop
        self._loop_thread = threading.get_ident()

    def unbind(self) -> None:
        """The loop is stopping (on its thread): a timer's change is made where it rings again."""
        self._loop = None

    def _take_change(self, change: Callable[[], None]) -> bool:
        """A timer's change (rung on the timer thread) to the loop; False once the loop stops."""
        loop = self._loop
        if loop is None:
            return False
        try:
            loop.call_soon_threadsafe(self._make, change)
        except RuntimeError:
            return False  # the loop has closed
        return True

    @staticmethod
    def _make(change: Callable[[], None]) -> None:
        try:
            change()
        except Exception:  # as on the timer thread: one failing change must not stop the loop's work
            log.exception("a timer's change failed")

    def __len__(self) -> int:
        return len(self._streams)

    def add(self, stream: Stream) -> None:
        self._streams.add(stream)

    def discard(self, stream: Stream) -> None:
        self._streams.discard(stream)

    def _foresees(self) -> bool:
        """Streams are pushed at once only for a change made on the loop (see `_changed`)."""
        return threading.get_ident() == self._loop_thread and bool(self._streams)

    def _foresee(self) -> None:
        """A change on the loop is being stored: each screen's message is made meanwhile, and
        the publish that follows only sends it."""
        for stream in list(self._streams):
            stream.prepare()

    def _changed(self) -> None:
        loop = self._loop
        if loop is None:
            return
        if threading.get_ident() == self._loop_thread:
            # A change made on the loop (a command, a buzz, a stream that ends): every screen is
            # pushed now, a command's before its own answer is made.
            self._push_now()
            return
        if self._pending:
            return
        self._pending = True
        try:
            loop.call_soon_threadsafe(self._push_all)
        except RuntimeError:
            self._pending = False  # the loop has closed: nothing is streaming any more

    def _push_all(self) -> None:
        self._pending = False
        self._push_now()

    def _push_now(self) -> None:
        """Every stream, once; again if a push itself changed something (a stream that ends)."""
        if self._pushing:
            self._again = True
            return
        self._pushing = True
        try:
            again = True
            while again:
                self._again = False
                for stream in list(self._streams):
                    stream.push()
                again = self._again
        finally:
            self._pushing = False


class Server:
    """What every connection shares: the app, the streams, the thread pools and the limits."""

    def __init__(self, app: Any, streams: LiveStreams, executor: Executor, max_body: int,
                 waiting: Executor | None = None, keep_alive_s: float = 60.0, limit: int = 256,
                 direct: Mapping[str, Callable[[Request, bytes], Answer]] | None = None) -> None:
        self.app = app
        self.direct = direct if direct is not None else getattr(app, "extensions", {}).get(ON_LOOP_ROUTES, {})
        """POST routes answered on the loop without the WSGI bridge, by path (the app names them)."""
        self.streams = streams
        self.executor = executor
        self.waiting = waiting or executor
        """Long polls wait here, so a page that waits never delays a tap."""
        self.max_body = max_body
        self.keep_alive_s = keep_alive_s
        self.limit = limit
        """Requests in progress (streams included) beyond which a new one is refused with 503."""
        self.connections: set[Connection] = set()
        self.busy = 0
        self.stopping = False
        self._date = (0, b"")

    def date(self) -> bytes:
        second = int(time.time())
        if self._date[0] != second:
            self._date = (second, http_date(second))
        return self._date[1]

    def connection(self) -> Connection:
        return Connection(self)

    def idle(self) -> bool:
        return self.busy == 0

    def close_idle(self) -> None:
        for connection in list(self.connections):
            if not connection.busy:
                connection.close()


class Connection(asyncio.Protocol):
    """One client's connection: its requests one after the other (pipelined ones wait their turn),
    then, if it asked for one, its stream."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.reader = RequestReader(MAX_HEAD_BYTES, server.max_body)
        self.transport: asyncio.Transport | None = None
        self.client: tuple[str, int] = ("", 0)
        self.local: tuple[str, int] = ("localhost", 80)
        self.busy = False
        """A request is with Flask, or this connection streams: what arrives meanwhile waits."""
        self.closed = False
        self.writing_paused = False
        self.stream: Stream | None = None
        self.request: Request | None = None
        """The request being answered (or streamed to)."""
        self._incoming: Incoming | None = None
        self._reading_paused = False
        self._ended = False
        """The client sent its last byte (it may still read the answers)."""
        self._counted = False
        self._idle: asyncio.TimerHandle | None = None
        self._bad: BadRequest | None = None
        """What could not be read after the requests in `reader.ready`: refused in its turn."""

    # -- asyncio's calls ---------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        peer = transport.get_extra_info("peername")
        local = transport.get_extra_info("sockname")
        if isinstance(peer, tuple):
            self.client = (str(peer[0]), int(peer[1]))
        if isinstance(local, tuple):
            self.local = (str(local[0]), int(local[1]))
        self.server.connections.add(self)
        self._wait_idle()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.server.connections.discard(self)
        if self._idle is not None:
            self._idle.cancel()
        if self.stream is not None:
            self.stream.end(gone=True)
        if self.busy:
            self._release()

    def data_received(self, data: bytes) -> None:
        reader = self.reader
        try:
            reader.feed(data)
        except BadRequest as err:
            self._bad = err
        if self.busy:
            # Kept for after this request (pipelining); a client that keeps sending is not read.
            if len(reader.ready) >= PIPELINED and self.transport is not None and not self._reading_paused:
                self._reading_paused = True
                self.transport.pause_reading()
            return
        self._read()

    def eof_received(self) -> bool:
        self._ended = True
        if not self.busy and not self._more_to_answer():
            self.close()
            return False
        # An answer on its way is still written (the client only stopped sending); a page that
        # closes its stream has left.
        return self.stream is None

    def pause_writing(self) -> None:
        self.writing_paused = True

    def resume_writing(self) -> None:
        self.writing_paused = False
        if self.stream is not None:
            self.stream.push()

    def close(self) -> None:
        """Nothing more is read or answered here; what is written is still sent."""
        if self.transport is not None and not self.closed:
            self.closed = True
            self.transport.close()

    # -- requests ------------------------------------------------------------------------------

    def _read(self) -> None:
        """The next request read whole is answered; one waiting for `100 Continue` is told to send."""
        if self.busy or self.closed:
            return
        reader = self.reader
        if reader.ready:
            self._begin(reader.ready.popleft())
            return
        if self._bad is not None:
            self._refuse(self._bad.status, self._bad.why)
            return
        waiting = reader.reading
        if waiting is not None and waiting.wants_continue:
            waiting.wants_continue = False
            self.write(CONTINUE)
        if self._idle is not None and waiting is not None:
            self._idle.cancel()  # a request is arriving: the idle timer restarts once it is answered
            self._idle = None

    def _begin(self, incoming: Incoming) -> None:
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        if self._reading_paused and self.transport is not None:
            self._reading_paused = False
            self.transport.resume_reading()
        self._incoming = incoming
        self.request = Request(
            method=incoming.method, target=incoming.target, http_version=incoming.http_version,
            headers=incoming.headers, client=self.client, server=self.local,
        )
        self._dispatch()

    def _dispatch(self) -> None:
        request, incoming = self.request, self._incoming
        assert request is not None and incoming is not None
        self.busy = True
        server = self.server
        if server.busy >= server.limit or server.stopping:
            self._respond(Answer(503, b"Service Unavailable", TEXT,
                                 b"The table is too busy or stopping; try again.\n"))
            return
        server.busy += 1
        self._counted = True
        too_large = incoming.too_large
        body = b"" if too_large else incoming.body
        direct = server.direct.get(request.path) if request.method == "POST" and not too_large else None
        if direct is not None:
            self._answered({}, direct(request, body))
            return
        environ = wsgi_environ(request, body, incoming.declared if too_large else None)
        if runs_on_loop(request):
            self._answered(environ, answer_of(server.app, environ))
            return
        loop = asyncio.get_running_loop()
        pool = server.waiting if may_wait(request) else server.executor
        answered = asyncio.wrap_future(pool.submit(answer_of, server.app, environ), loop=loop)
        answered.add_done_callback(lambda future: self._answered(environ, future.result()))

    def _answered(self, environ: dict[str, Any], answer: Answer) -> None:
        session = environ.get(LIVE_SESSION)
        if self.closed:
            return  # the client left while Flask answered
        request = self.request
        assert request is not None
        if isinstance(session, StreamSession) and answer.status == 200 and request.method == "GET":
            self.stream = Stream(self, session)
            self.stream.start(answer)
            return
        self._respond(answer)

    def _respond(self, answer: Answer, close: bool = False) -> None:
        request = self.request
        bodiless = (request is not None and request.method == "HEAD") or answer.status in (204, 304)
        headers = self.headers_for(answer)
        if not bodiless and not any(name.lower() == b"content-length" for name, _ in answer.headers):
            headers.append((b"content-length", b"%d" % len(answer.body)))
        if close or not self._keeps_open():
            headers.append((b"connection", b"close"))
            self.reader.stopped = True
        try:
            data = head(answer.status, answer.reason, headers)
        except ValueError as err:
            log.error("could not answer %s: %s", "a request" if request is None else request.path, err)
            self.close()
            return
        self.write(data + answer.body if answer.body and not bodiless else data)
        self.next_request()

    def _keeps_open(self) -> bool:
        """The connection carries another request after this answer."""
        incoming = self._incoming
        if incoming is None or not incoming.keep_alive or incoming.too_large or self.server.stopping:
            return False
        # After a request that switches protocols nothing more is read: unless it has more to say.
        return not self.reader.stopped or self._more_to_answer()

    def _more_to_answer(self) -> bool:
        """Requests read whole, or one to refuse, wait their turn."""
        return bool(self.reader.ready) or self._bad is not None

    def headers_for(self, answer: Answer) -> list[tuple[bytes, bytes]]:
        """An answer's headers as sent: the server's own first."""
        return [(b"date", self.server.date()), (b"server", SERVER_NAME), *answer.headers]

    def next_request(self) -> None:
        """The answer is written: the next request on this connection, or the connection closes."""
        self._release()
        if not self._keeps_open() or (self._ended and not self._more_to_answer()):
            self.close()
            return
        self.request = None
        self._incoming = None
        self._wait_idle()
        # A request sent before this answer (pipelining) is read next, on the loop's next turn.
        asyncio.get_running_loop().call_soon(self._read)

    def _release(self) -> None:
        self.busy = False
        self.stream = None
        if self._counted:
            self._counted = False
            self.server.busy -= 1

    def _wait_idle(self) -> None:
        """An idle connection (a phone's next tap reuses it) closes after a while; so does one
        that is slow to send its request."""
        if self._idle is not None:
            self._idle.cancel()
        loop = asyncio.get_running_loop()
        self._idle = loop.call_later(self.server.keep_alive_s, self._idle_out)

    def _idle_out(self) -> None:
        self._idle = None
        if not self.busy:
            self.close()

    def _refuse(self, status: int, why: str) -> None:
        """A request that could not be read: one clear answer, logged, and the connection closes."""
        log.warning("refused a malformed request from %s: %s", self.client[0], why)
        self._bad = None
        self.request = None
        self._incoming = None
        self.busy = True
        reason = HTTPStatus(status).phrase.encode("ascii")
        self._respond(Answer(status, reason, TEXT, f"Bad request: {why}\n".encode()), close=True)

    def write(self, data: bytes) -> None:
        if self.transport is not None and not self.closed and not self.transport.is_closing():
            self.transport.write(data)


class Stream:
    """One screen's live stream on its connection, pushed when the table changes or its wait runs
    out."""

    def __init__(self, connection: Connection, session: StreamSession) -> None:
        self.connection = connection
        self.session = session
        self.ended = False
        request = connection.request
        assert request is not None
        # HTTP/1.1 frames each message as a chunk; an HTTP/1.0 client reads until the close.
        self.chunked = request.http_version == "1.1"
        self._timer: asyncio.TimerHandle | None = None

    def start(self, answer: Answer) -> None:
        connection = self.connection
        headers = connection.headers_for(answer)
        if self.chunked:
            headers.append((b"transfer-encoding", b"chunked"))
        else:
            headers.append((b"connection", b"close"))  # an HTTP/1.0 client reads until the close
        connection.write(head(200, answer.reason, headers) + self._framed(self.session.open()))
        connection.server.streams.add(self)
        self.push()

    def _framed(self, message: bytes) -> bytes:
        return chunk(message) if self.chunked else message

    def prepare(self) -> None:
        if self.ended or self.connection.writing_paused:
            return
        try:
            self.session.prepare()
        except Exception:
            log.exception("could not prepare the stream of %s; its push will tell", self.session.viewer)

    def push(self) -> None:
        if self.ended:
            return
        connection = self.connection
        if connection.writing_paused:
            return  # the socket is full: the stream steps once it drains (resume_writing)
        try:
            step = self.session.step()
        except Exception:
            # One screen's failure must not stop the others' pushes: this stream ends, and the page
            # reconnects and starts again from a whole view.
            log.exception("the stream of %s failed; closing it", self.session.viewer)
            self.end(gone=True)
            connection.close()
            return
        if step.message:
            connection.write(self._framed(step.message))
        if step.done:
            self.end()
            return
        # One timer per stream, kept while it rings no later than needed: a push too early only
        # steps once more, and a busy table then costs no timer per change.
        loop = asyncio.get_running_loop()
        due = loop.time() + step.wait_s
        timer = self._timer
        if timer is None or timer.cancelled() or timer.when() > due or timer.when() <= loop.time():
            if timer is not None:
                timer.cancel()
            self._timer = loop.call_at(due, self.push)

    def end(self, gone: bool = False) -> None:
        """The stream is over: the page left (`gone`), its seat moved, or the service stops."""
        if self.ended:
            return
        self.ended = True
        connection = self.connection
        connection.server.streams.discard(self)
        if self._timer is not None:
            self._timer.cancel()
        self.session.close()
        if not gone:
            if self.chunked:
                connection.write(LAST_CHUNK)
                connection.next_request()
            else:
                connection.close()
