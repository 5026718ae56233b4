"""HTTP/1.1 on the wire: requests read with httptools, answers framed here.

httptools binds llhttp, the parser Node.js reads HTTP with, written in C: reading a phone's tap
costs a few microseconds, where a parser in Python cost tens, and hundreds on a core that had
been idle between taps (bench/report.py). What the parser leaves to its user is here: the limits
on a request's head and body, the versions and headers HTTP/1.1 insists on, `Expect:
100-continue`, and requests sent one after the other on a connection (pipelining), each read whole
before the connection answers it.

An answer's head is written here too: a status line and the headers as given, with no header the
caller did not ask for. A header that would break the framing (a line break in it) is refused.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

import httptools

Headers = list[tuple[bytes, bytes]]

CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
LAST_CHUNK = b"0\r\n\r\n"

DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def http_date(second: int) -> bytes:
    """An HTTP date (RFC 9110, 5.6.7), in English whatever the locale, made from the clock's
    fields alone: it is made once a second for as long as the service runs."""
    t = time.gmtime(second)
    return (f"{DAYS[t.tm_wday]}, {t.tm_mday:02d} {MONTHS[t.tm_mon - 1]} {t.tm_year} "
            f"{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d} GMT").encode("ascii")


class BadRequest(Exception):
    """A request that cannot be read: the status to refuse it with, and why."""

    def __init__(self, status: int, why: str) -> None:
        super().__init__(why)
        self.status = status
        self.why = why


@dataclass
class Incoming:
    """One request as read so far: its head once complete, then its body."""

    method: str
    target: str
    http_version: str
    headers: Headers
    keep_alive: bool
    """The client keeps the connection open after the answer (HTTP/1.1's default)."""
    declared: int | None = None
    """Its Content-Length, if it sent one."""
    parts: list[bytes] = field(default_factory=list)
    size: int = 0
    too_large: bool = False
    """Its body is over the limit: it is answered without the rest being read (else it is read
    whole once it is in `RequestReader.ready`)."""
    wants_continue: bool = False
    """It waits for `100 Continue` before it sends its body."""

    @property
    def body(self) -> bytes:
        return b"".join(self.parts)


class RequestReader:
    """The requests in one connection's bytes, in order: `ready` holds those read whole (and one
    too large, as soon as its head says so); `reading` the one still arriving.

    After a request that ends the connection (one too large, an upgrade, `Connection: close`),
    nothing more is read: what follows it is not for this server.
    """

    def __init__(self, max_head: int, max_body: int) -> None:
        self._parser = httptools.HttpRequestParser(self)
        self._max_head = max_head
        self._max_body = max_body
        self.ready: deque[Incoming] = deque()
        self.reading: Incoming | None = None
        self.stopped = False
        self._target = bytearray()
        self._headers: Headers = []
        self._head_size = 0

    def feed(self, data: bytes) -> None:
        """Reads `data`; raises BadRequest when it is not HTTP/1.1 this server accepts (and reads
        nothing more)."""
        if self.stopped:
            return
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self.stopped = True  # answered as HTTP/1.1, then the connection closes (no protocol switch here)
        except httptools.HttpParserCallbackError as err:
            cause = err.__context__
            if isinstance(cause, _Stop):
                return
            self.stopped = True
            if isinstance(cause, BadRequest):
                raise cause from None
            raise
        except httptools.HttpParserError as err:
            self.stopped = True
            raise BadRequest(400, str(err) or type(err).__name__) from None

    # -- httptools' calls --------------------------------------------------------------------------

    def on_message_begin(self) -> None:
        self._target.clear()
        self._headers = []
        self._head_size = 0

    def on_url(self, url: bytes) -> None:
        self._target += url
        self._count(len(url))

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value) + 4)
        self._headers.append((name.lower(), value.rstrip(b" \t")))

    def on_headers_complete(self) -> None:
        parser = self._parser
        version = parser.get_http_version()
        if version not in ("1.1", "1.0"):
            raise BadRequest(505, f"HTTP/{version} is not spoken here")
        headers = self._headers
        declared: int | None = None
        host = expect = False
        for name, value in headers:
            if name == b"content-length":
                declared = int(value)  # llhttp has checked it is one number
            elif name == b"host":
                host = True
            elif name == b"expect" and value.lower() == b"100-continue":
                expect = True
        if version == "1.1" and not host:
            raise BadRequest(400, "Missing mandatory Host: header")
        request = Incoming(parser.get_method().decode("ascii"), self._target.decode("latin-1"), version, headers,
                           parser.should_keep_alive(), declared)
        self.reading = request
        if declared is not None and declared > self._max_body:
            self._too_large(request)
        elif expect and declared != 0:
            request.wants_continue = True

    def on_body(self, body: bytes) -> None:
        request = self.reading
        assert request is not None
        request.parts.append(body)
        request.size += len(body)
        if request.size > self._max_body:
            request.declared = request.size
            self._too_large(request)

    def on_message_complete(self) -> None:
        request = self.reading
        assert request is not None
        self.reading = None
        self.ready.append(request)
        if not request.keep_alive:
            self.stopped = True

    def _count(self, size: int) -> None:
        self._head_size += size
        if self._head_size > self._max_head:
            raise BadRequest(431, "the request's head is too long")

    def _too_large(self, request: Incoming) -> None:
        """Answered by its declared (or read) length alone; the rest is never read."""
        request.too_large = True
        request.parts = []
        self.reading = None
        self.ready.append(request)
        self.stopped = True
        raise _Stop


class _Stop(Exception):
    """Stops the parser where it is (raised from a callback; `feed` lets it go)."""


def head(status: int, reason: bytes, headers: Headers) -> bytes:
    """An answer's status line and headers, as given."""
    lines = [b"HTTP/1.1 %d %s\r\n" % (status, reason)]
    for name, value in headers:
        if b"\n" in value or b"\r" in value or b"\n" in name or b"\r" in name or b":" in name:
            raise ValueError(f"a header would break the answer's framing: {name!r}")
        lines.append(b"%s: %s\r\n" % (name, value))
    lines.append(b"\r\n")
    return b"".join(lines)


def chunk(data: bytes) -> bytes:
    """One chunk of a chunked body (a stream's message)."""
    return b"%x\r\n%s\r\n" % (len(data), data)
