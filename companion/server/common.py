"""What every blueprint needs: the service, the viewer's language and identity, JSON bodies and
errors with their HTTP status. Blueprints share only through here, never through each other."""

from __future__ import annotations

import ipaddress
import logging
import socket
from functools import cache
from typing import Any
from urllib.parse import urlsplit

from flask import Response, current_app, jsonify, request

from companion.games.base import HOST, TABLE, Viewer
from companion.i18n import LANGUAGES, error_message, pick_language
from companion.server.identity import HOST_COOKIE, SEAT_COOKIE, CookieSigner
from companion.service import Service

log = logging.getLogger(__name__)

LANG_COOKIE = "lang"
ROLES = ("table", "me", "host")


def service() -> Service:
    return current_app.extensions["companion"]


def signer() -> CookieSigner:
    return current_app.extensions["companion.signer"]


def language() -> str:
    """?lang= first (the visible switch), then the remembered choice, then the browser's wish."""
    chosen = request.args.get("lang") or request.cookies.get(LANG_COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return pick_language(request.headers.get("Accept-Language"), service().config.table.language)


_STATUS = {
    "bad_arguments": 400, "bad_json": 400, "bad_commitment": 400, "bad_reveal": 400,
    "forbidden_origin": 403, "not_authorized": 403, "host_only": 403, "not_your_seat": 403, "not_seated": 403,
    "no_seat": 403, "bad_join_code": 403, "not_found": 404, "rate_limited": 429,
}


def status_for(code: str) -> int:
    """The HTTP status of a refusal: a conflict with the table's state unless the code says otherwise."""
    return _STATUS.get(code, 409)


def json_body() -> dict[str, Any] | None:
    """The request's JSON object, or None: not JSON, not an object, or nested beyond what Python's
    parser can follow (a RecursionError is no ValueError, so `silent` does not catch it)."""
    try:
        body = request.get_json(silent=True)
    except RecursionError:
        return None
    return body if isinstance(body, dict) else None


def error(code: str, status: int, params: dict[str, Any] | None = None) -> Response:
    params = params or {}
    body = {"ok": False, "error": code, "message": error_message(code, params, language()), "params": params}
    response = jsonify(body)
    response.status_code = status
    return response


def is_host() -> bool:
    """The host's cookie, or the host key as a bearer token (scripts, tests)."""
    if signer().is_host_cookie(request.cookies.get(HOST_COOKIE)):
        return True
    header = request.headers.get("Authorization", "")
    return header.startswith("Bearer ") and signer().is_host_key(header.removeprefix("Bearer "))


def seat_of_request() -> int | None:
    """The seat this phone holds right now, from its cookie."""
    return signer().seat_from_cookie(request.cookies.get(SEAT_COOKIE), service().table.seat_generation)


def viewer_for(role: str | None) -> Viewer | str:
    """The viewer a page asks to be ("table", "me", "host"), or the rejection code when it may not."""
    if role in (None, "table"):
        return TABLE
    if role == "host":
        return HOST if is_host() else "not_authorized"
    if role == "me":
        seat = seat_of_request()
        return Viewer("seat", seat) if seat is not None else "no_seat"
    return "bad_arguments"


@cache
def _local_names() -> frozenset[str]:
    name = socket.gethostname().lower()
    return frozenset({"localhost", name, f"{name}.local", f"{name}.lan"})


def host_allowed() -> bool:
    """The Host header names this machine: an IP address, localhost, its own name, or public_url's host.

    A page on another site cannot reach us by a DNS name it controls (DNS rebinding).
    """
    try:
        hostname = (urlsplit(f"//{request.host}").hostname or "").lower()
    except ValueError:  # "[::1" and other malformed names: not ours
        return False
    try:
        ipaddress.ip_address(hostname)
        return True
    except ValueError:
        pass
    public = urlsplit(current_app.config["BASE_URL"]).hostname or ""
    return hostname in _local_names() or hostname == public.lower()


def origin_allowed() -> bool:
    """A state-changing request from a browser must come from our own pages, on a name that is ours.

    Browsers always send Origin on a cross-site POST; a request without one comes from a non-browser
    client, which the JSON content type requirement already separates from HTML forms.
    """
    if not host_allowed():
        return False
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    try:
        parts = urlsplit(origin)
    except ValueError:  # "http://[::1" is no origin of ours (and must not be a server error)
        return False
    return f"{parts.scheme}://{parts.netloc}" == f"{request.scheme}://{request.host}"


def refuse_foreign() -> Response | None:
    """A blueprint's guard: every state-changing request must come from our own pages, on a name
    that is ours."""
    if request.method in ("GET", "HEAD", "OPTIONS") or origin_allowed():
        return None
    log.warning("refused %s %s: Origin %r Host %r", request.method, request.path,
                request.headers.get("Origin"), request.host)
    return error("forbidden_origin", 403)


def client_address() -> str:
    return request.remote_addr or "unknown"
