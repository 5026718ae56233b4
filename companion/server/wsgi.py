"""The bridge from the server's connections to Flask: plain WSGI (PEP 3333), called in a worker
thread (or on the event loop, for the requests `runs_on_loop` names), so Flask's pages, blueprints
and test client stay as they are.

A stream route leaves its session in the environ (live.py's LIVE_SESSION); its body is then never
iterated here, and the event loop keeps the stream (http1.py).
"""

from __future__ import annotations

import io
import logging
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote_to_bytes

from companion.server.live import LIVE_SESSION

log = logging.getLogger(__name__)

ABSOLUTE_FORM = re.compile(r"https?://([^/?#]*)", re.IGNORECASE)

Headers = list[tuple[bytes, bytes]]

TEXT: Headers = [(b"content-type", b"text/plain; charset=utf-8")]

ON_LOOP = frozenset({"/api/commands", "/api/buzz", "/api/ping", "/api/shown"})
"""The routes answered on the event loop (see `runs_on_loop`)."""

ON_LOOP_ROUTES = "companion.on_loop"
"""The app's extension naming the POST routes the server answers on its loop without this bridge:
{path: a function of the request and its body to its answer}."""


@dataclass(frozen=True)
class Request:
    """What a connection read of one request, before Flask sees it."""

    method: str
    target: str
    """The request target as sent: origin form ("/path?query") or absolute form ("http://host/path")."""
    http_version: str
    headers: Headers
    """Names in lower case (wire.py lowers them), values without the spaces around them."""
    client: tuple[str, int]
    server: tuple[str, int]

    @property
    def path(self) -> str:
        return self.target.partition("?")[0]

    @property
    def query(self) -> str:
        return self.target.partition("?")[2]


@dataclass
class Answer:
    """A WSGI app's answer, collected in a worker thread."""

    status: int
    reason: bytes
    headers: Headers
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
    return Answer(int(status[:3]), status[4:].encode("latin-1"), encoded, body)


def answer_of(app: Callable[..., Iterable[bytes]], environ: dict[str, Any]) -> Answer:
    """`call_wsgi`, or a plain 500 when the app itself fails (Flask answers its routes' errors)."""
    try:
        return call_wsgi(app, environ)
    except Exception:
        log.exception("%s %s failed", environ.get("REQUEST_METHOD"), environ.get("PATH_INFO"))
        return Answer(500, b"Internal Server Error", TEXT,
                      b"Something went wrong; nothing was changed by this request.\n")


def wsgi_environ(request: Request, body: bytes, declared: int | None) -> dict[str, Any]:
    """The PEP 3333 environ of a request whose body has been read (`declared`: the length a body
    too large to read said it had)."""
    path, query = request.path, request.query
    authority = None
    absolute = ABSOLUTE_FORM.match(path)
    if absolute:
        # "GET http://host:port/path", as a phone's HTTP proxy sends it: a server must accept it,
        # and its authority is the Host (RFC 9112, 3.2.2).
        authority, path = absolute.group(1), path[absolute.end():] or "/"
    environ: dict[str, Any] = {
        "REQUEST_METHOD": request.method,
        "SCRIPT_NAME": "",
        "PATH_INFO": percent_decoded(path),
        "QUERY_STRING": query,
        "SERVER_NAME": str(request.server[0]),
        "SERVER_PORT": str(request.server[1]),
        "SERVER_PROTOCOL": f"HTTP/{request.http_version}",
        "REMOTE_ADDR": str(request.client[0]),
        "REMOTE_PORT": str(request.client[1]),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    if body or declared is not None:
        # A body too large was not read: its declared length lets Flask refuse it (413).
        environ["CONTENT_LENGTH"] = str(declared if declared is not None else len(body))
    for raw_name, raw_value in request.headers:
        name, value = raw_name.decode("latin-1"), raw_value.decode("latin-1")
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


def percent_decoded(path: str) -> str:
    """PATH_INFO: the path's %-escapes decoded to bytes, carried as latin-1 (PEP 3333)."""
    return unquote_to_bytes(path).decode("latin-1") if "%" in path else path


def runs_on_loop(request: Request) -> bool:
    """A command, or a phone's buzz, ping echo or shown frame: answered on the event loop itself.

    A command's publish then pushes every stream at once, with no hand-over between threads; a
    buzz or an echo is stamped the moment it is read, not after waiting for a thread (an echo's
    round trip maps the phone's clock, and a buzz's arrival may decide a round). Each holds the
    table's or the buttons' locks for a moment and nothing in it waits on a client."""
    return request.method == "POST" and request.path in ON_LOOP



def may_wait(request: Request) -> bool:
    """A long poll (GET /api/view?after=N): it holds its thread while the table is quiet."""
    return request.method == "GET" and request.path == "/api/view" and "after=" in request.query
