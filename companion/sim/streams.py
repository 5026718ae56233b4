"""Server-sent event streams read the way a page reads them, many at once, each message stamped
with its arrival time: what the benchmarks time and the soak test checks.

`Stream` parses one HTTP/1.1 response (chunked or not) into events and keeps their ids and
arrival times; `ViewStream` keeps, as a page does, its own copy of the view for a subclass to look
at. `Reader` is one thread that reads every stream with epoll.
"""

from __future__ import annotations

import bisect
import json
import queue
import selectors
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from companion.server.patch import apply


@dataclass
class Stream:
    """One SSE client: an HTTP/1.1 response read incrementally (chunked), events split on blank lines."""

    name: str
    sock: socket.socket
    raw: bytearray = field(default_factory=bytearray)
    body: bytearray = field(default_factory=bytearray)
    status: int = 0
    headers_done: bool = False
    chunked: bool = False
    chunk_state: str = "size"
    chunk_left: int = 0
    ended: bool = False
    revoked: bool = False
    ids: list[int] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    first_data: bytes = b""
    data_bytes: int = 0
    messages: int = 0

    def feed(self, data: bytes, now: float) -> None:
        if not data:
            self.ended = True
            return
        self.raw += data
        if not self.headers_done:
            end = self.raw.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.raw[:end]).decode("latin-1").lower()
            del self.raw[:end + 4]
            self.status = int(head.split(None, 2)[1])
            self.chunked = "transfer-encoding: chunked" in head
            self.headers_done = True
        if self.chunked:
            self._dechunk()
        else:
            self.body += self.raw
            self.raw.clear()
        self._events(now)

    def _dechunk(self) -> None:
        raw = self.raw
        while raw and not self.ended:
            if self.chunk_state == "size":
                line_end = raw.find(b"\r\n")
                if line_end < 0:
                    return
                size = int(bytes(raw[:line_end]).split(b";")[0], 16)
                del raw[:line_end + 2]
                if size == 0:
                    self.ended = True
                    return
                self.chunk_left, self.chunk_state = size, "data"
            elif self.chunk_state == "data":
                take = min(self.chunk_left, len(raw))
                self.body += raw[:take]
                del raw[:take]
                self.chunk_left -= take
                if self.chunk_left == 0:
                    self.chunk_state, self.chunk_left = "crlf", 2
            else:
                take = min(self.chunk_left, len(raw))
                del raw[:take]
                self.chunk_left -= take
                if self.chunk_left == 0:
                    self.chunk_state = "size"

    def _next_event(self) -> tuple[bytes, int | None, bytes] | None:
        """The next whole server-sent event in the body: its type, id and data (lines joined)."""
        end = self.body.find(b"\n\n")
        if end < 0:
            return None
        block = bytes(self.body[:end])
        del self.body[:end + 2]
        event, event_id, data = b"message", None, []
        for line in block.split(b"\n"):
            if line.startswith(b"id:"):
                event_id = int(line[3:].strip())
            elif line.startswith(b"data:"):
                data.append(line[5:].lstrip(b" "))
            elif line.startswith(b"event:"):
                event = line[6:].strip()
        return event, event_id, b"\n".join(data)

    def _events(self, now: float) -> None:
        while (parsed := self._next_event()) is not None:
            event, event_id, data = parsed
            if event == b"revoked":
                self.revoked = True
            if event_id is not None and data:
                self.messages += 1
                self.data_bytes += len(data)
                if not self.first_data:
                    self.first_data = data
                if not self.ids or event_id > self.ids[-1]:
                    self.ids.append(event_id)
                    self.times.append(now)

    def first_at_or_after(self, position: int) -> float | None:
        index = bisect.bisect_left(self.ids, position)
        return self.times[index] if index < len(self.ids) else None

    @property
    def last_id(self) -> int:
        return self.ids[-1] if self.ids else -1


@dataclass
class ViewStream(Stream):
    """A page's stream: its own copy of the view (the first `view`, then every `patch` applied in
    place), its pings handed to the phone's answerer (`pings`), and counts of each kind of message.

    Messages that cannot be applied go into `errors`; a subclass looks at each new view in
    `_shown`, and decides in `_odd` whether what a page lives with (revoked, a second whole view,
    an unknown event) is an error too.
    """

    seat: int | None = None
    pings: queue.Queue[int] | None = None
    doc: Any = None
    views: int = 0
    patches: int = 0
    heartbeats: int = 0
    ping_count: int = 0
    now_count: int = 0
    """The server's time after each message (a page's countdowns use it; this one only counts it)."""
    errors: list[str] = field(default_factory=list)

    def _events(self, now: float) -> None:
        while (parsed := self._next_event()) is not None:
            event, event_id, text = parsed
            if event == b"revoked":
                self.revoked = True
                self._odd("revoked")
                continue
            if not text or event == b"alive":
                self.heartbeats += 1  # the stream's "alive", or the retry line
                continue
            if event == b"now":
                self.now_count += 1
                continue
            if event == b"ping":
                self.ping_count += 1
                if self.pings is not None:
                    self.pings.put(int(text))
                continue
            try:
                if event == b"view":
                    self.views += 1
                    if self.views > 1:
                        self._odd(f"a second whole view at id {event_id} (the stream restarted?)")
                    self.doc = json.loads(text)
                elif event == b"patch":
                    if self.doc is None:
                        raise ValueError("a patch before the first view")
                    self.patches += 1
                    # This page's own document, and ops fresh from json.loads: nothing to copy.
                    self.doc = apply(self.doc, json.loads(text), in_place=True)
                else:
                    self._odd(f"unknown event {event!r}")
                    continue
            except (ValueError, KeyError, IndexError, TypeError) as err:
                self.errors.append(f"{event.decode()} {event_id}: not applied: {err!r}")
                continue
            self.messages += 1
            self.data_bytes += len(text)
            self._shown(event_id, now)

    def _shown(self, event_id: int | None, received: float) -> None:
        """`doc` is the page's view after message `event_id`, whose bytes arrived at `received`."""

    def _odd(self, what: str) -> None:
        """Something a page lives with (it reconnects, or ignores the event): not counted here."""


S = TypeVar("S", bound=Stream)


def stream_socket(port: int, query: str, source: str, cookie: str | None = None, timeout: float = 5) -> socket.socket:
    """A non-blocking socket from `source` that has asked for /api/stream?query."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    lines = [f"GET /api/stream?{query} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Accept: text/event-stream",
             "Cache-Control: no-cache"]
    if cookie:
        lines.append(f"Cookie: {cookie}")
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    sock.setblocking(False)
    return sock


class Reader:
    """One thread reads every stream with epoll and stamps each message with its arrival time."""

    def __init__(self) -> None:
        self.selector = selectors.DefaultSelector()
        self.streams: list[Stream] = []
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.last_message = time.perf_counter()
        self.thread = threading.Thread(target=self._run, name="sse-reader", daemon=True)

    def open(self, port: int, name: str, query: str, source: str, cookie: str | None = None) -> Stream:
        return self.watch(Stream(name, stream_socket(port, query, source, cookie)))

    def watch(self, stream: S) -> S:
        """Read this stream too (its socket already asked for the stream)."""
        self.streams.append(stream)
        self.selector.register(stream.sock, selectors.EVENT_READ, stream)
        return stream

    def start(self) -> None:
        """Read from here on; open every stream first (the selector is not shared across threads)."""
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            ready = self.selector.select(timeout=0.05)
            with self.lock:
                for key, _ in ready:
                    stream: Stream = key.data
                    try:
                        data = stream.sock.recv(1 << 18)
                    except BlockingIOError:
                        continue
                    except OSError:
                        data = b""
                    now = time.perf_counter()
                    before = stream.messages
                    stream.feed(data, now)
                    if stream.messages != before:
                        self.last_message = now
                    if stream.ended:
                        self.selector.unregister(stream.sock)

    def all_at(self, position: int) -> bool:
        return all(s.last_id >= position for s in self.streams)

    POLL_S = 0.0005
    """How often `wait` looks again: short enough not to blur a latency measured in milliseconds."""

    def wait(self, done: Callable[[], bool], timeout: float) -> bool:
        """Poll (every POLL_S, bounded) until done() holds under the reader's lock."""
        deadline = time.perf_counter() + timeout
        while True:
            with self.lock:
                if done():
                    return True
            if time.perf_counter() > deadline:
                return False
            time.sleep(self.POLL_S)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        for stream in self.streams:
            stream.sock.close()
        self.selector.close()
