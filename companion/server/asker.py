"""Who asks, and from where: what a request's headers prove about its sender, read once.

Flask's routes read it from `flask.request` (common.py); the command route answered on the event
loop without Flask reads it from the raw headers (api.py, `command_on_loop`). Both decide with the
same functions below, so a tap is judged alike whichever way it came in. The parsing is
werkzeug's own (cookies, the Host with its default port, the content type), for the same reason.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from werkzeug.http import parse_cookie, parse_options_header
from werkzeug.sansio.utils import get_host

from companion.games.base import HOST, TABLE, Viewer
from companion.i18n import LANGUAGES, pick_language
from companion.server.identity import HOST_COOKIE, SEAT_COOKIE, CookieSigner

log = logging.getLogger(__name__)

LANG_COOKIE = "lang"

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


@dataclass(frozen=True, slots=True)
class Asker:
    host: str
    """The Host the request was sent to, as werkzeug's `request.host` (":80" dropped)."""
    scheme: str
    origin: str | None
    cookies: Mapping[str, str]
    authorization: str
    accept_language: str | None
    lang: str | None
    """The `?lang=` of the request's query."""


def asker_of_headers(headers: list[tuple[bytes, bytes]], query: str, server: tuple[str, int]) -> Asker:
    """The asker of a request read off the wire (names in lower case, as wire.py gives them)."""
    host_header = origin = authorization = accept_language = None
    cookie_parts: list[str] = []
    for raw_name, raw_value in headers:
        if raw_name == b"host":
            host_header = raw_value.decode("latin-1")
        elif raw_name == b"cookie":
            cookie_parts.append(raw_value.decode("latin-1"))
        elif raw_name == b"origin":
            origin = raw_value.decode("latin-1")
        elif raw_name == b"authorization":
            authorization = raw_value.decode("latin-1")
        elif raw_name == b"accept-language":
            accept_language = raw_value.decode("latin-1")
    lang = next((value for name, value in parse_qsl(query, keep_blank_values=True) if name == "lang"), None) \
        if "lang=" in query else None
    return Asker(
        host=get_host("http", host_header, server), scheme="http", origin=origin,
        cookies=parse_cookie("; ".join(cookie_parts)) if cookie_parts else {},
        authorization=authorization or "", accept_language=accept_language, lang=lang,
    )


def is_json(content_type: str | None) -> bool:
    """JSON as Flask's `request.is_json` tells it: application/json or application/*+json."""
    mimetype = parse_options_header(content_type)[0].lower() if content_type else ""
    return mimetype == "application/json" or (mimetype.startswith("application/") and mimetype.endswith("+json"))


def json_object(content_type: str | None, data: bytes) -> dict[str, Any] | None:
    """A body's JSON object, or None: a body whose type is not JSON (as Flask's `is_json` tells it),
    that is not an object, or nested beyond what Python's parser can follow (a RecursionError is
    no ValueError)."""
    if not is_json(content_type):
        return None
    try:
        body = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return body if isinstance(body, dict) else None


def language(asker: Asker, default: str) -> str:
    """?lang= first (the visible switch), then the remembered choice, then the browser's wish."""
    chosen = asker.lang or asker.cookies.get(LANG_COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return pick_language(asker.accept_language, default)


def is_host(asker: Asker, signer: CookieSigner) -> bool:
    """The host's cookie, or the host key as a bearer token (scripts, tests)."""
    if signer.is_host_cookie(asker.cookies.get(HOST_COOKIE)):
        return True
    return asker.authorization.startswith("Bearer ") and signer.is_host_key(asker.authorization.removeprefix("Bearer "))


def seat_of(asker: Asker, signer: CookieSigner, generation: Callable[[int], int | None]) -> int | None:
    """The seat this phone holds right now, from its cookie."""
    return signer.seat_from_cookie(asker.cookies.get(SEAT_COOKIE), generation)


def viewer_for(role: str | None, asker: Asker, signer: CookieSigner,
               generation: Callable[[int], int | None]) -> Viewer | str:
    """The viewer a page asks to be ("table", "me", "host"), or the rejection code when it may not."""
    if role in (None, "table"):
        return TABLE
    if role == "host":
        return HOST if is_host(asker, signer) else "not_authorized"
    if role == "me":
        seat = seat_of(asker, signer, generation)
        return Viewer("seat", seat) if seat is not None else "no_seat"
    return "bad_arguments"


@cache
def _local_names() -> frozenset[str]:
    name = socket.gethostname().lower()
    return frozenset({"localhost", name, f"{name}.local", f"{name}.lan"})


def host_allowed(asker: Asker, base_url: str) -> bool:
    """The Host header names this machine: an IP address, localhost, its own name, or public_url's host.

    A page on another site cannot reach us by a DNS name it controls (DNS rebinding).
    """
    try:
        hostname = (urlsplit(f"//{asker.host}").hostname or "").lower()
    except ValueError:  # "[::1" and other malformed names: not ours
        return False
    try:
        ipaddress.ip_address(hostname)
        return True
    except ValueError:
        pass
    public = urlsplit(base_url).hostname or ""
    return hostname in _local_names() or hostname == public.lower()


def origin_allowed(asker: Asker, base_url: str) -> bool:
    """A state-changing request from a browser must come from our own pages, on a name that is ours.

    Browsers always send Origin on a cross-site POST; a request without one comes from a non-browser
    client, which the JSON content type requirement already separates from HTML forms.
    """
    if not host_allowed(asker, base_url):
        return False
    if asker.origin is None:
        return True
    try:
        parts = urlsplit(asker.origin)
    except ValueError:  # "http://[::1" is no origin of ours (and must not be a server error)
        return False
    return f"{parts.scheme}://{parts.netloc}" == f"{asker.scheme}://{asker.host}"


def is_foreign(method: str, path: str, asker: Asker, base_url: str) -> bool:
    """A state-changing request that does not come from our own pages, on a name that is ours:
    refused, and logged here."""
    if method in SAFE_METHODS or origin_allowed(asker, base_url):
        return False
    log.warning("refused %s %s: Origin %r Host %r", method, path, asker.origin, asker.host)
    return True
