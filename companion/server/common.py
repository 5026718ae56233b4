"""What every blueprint needs: the service, the viewer's language and identity, JSON bodies and
errors with their HTTP status. Blueprints share only through here, never through each other."""

from __future__ import annotations

import logging
from typing import Any

from flask import Response, current_app, jsonify, request

from companion.games.base import Viewer
from companion.i18n import error_message
from companion.server import asker as asking
from companion.server.asker import Asker
from companion.server.identity import CookieSigner
from companion.service import Service

log = logging.getLogger(__name__)

ROLES = ("table", "me", "host")


def service() -> Service:
    return current_app.extensions["companion"]


def signer() -> CookieSigner:
    return current_app.extensions["companion.signer"]


def asker() -> Asker:
    """What this request's headers prove about who sent it (asker.py decides with it)."""
    return Asker(
        host=request.host, scheme=request.scheme, origin=request.headers.get("Origin"), cookies=request.cookies,
        authorization=request.headers.get("Authorization", ""),
        accept_language=request.headers.get("Accept-Language"), lang=request.args.get("lang"),
    )


def language() -> str:
    return asking.language(asker(), service().config.table.language)


_STATUS = {
    "bad_arguments": 400, "bad_json": 400, "bad_commitment": 400, "bad_reveal": 400,
    "forbidden_origin": 403, "not_authorized": 403, "host_only": 403, "not_your_seat": 403, "not_seated": 403,
    "no_seat": 403, "bad_join_code": 403, "not_found": 404, "rate_limited": 429,
}


def status_for(code: str) -> int:
    """The HTTP status of a refusal: a conflict with the table's state unless the code says otherwise."""
    return _STATUS.get(code, 409)


def json_body() -> dict[str, Any] | None:
    """The request's JSON object, or None (asker.json_object, which the loop's command route uses too)."""
    content_type = request.headers.get("Content-Type")
    if not asking.is_json(content_type):
        return None  # not read: a body of another type is no command, whatever its size
    return asking.json_object(content_type, request.get_data(cache=True))


def refusal(code: str, params: dict[str, Any], lang: str) -> dict[str, Any]:
    """A refusal's body: its code for programs, its sentence for people, and what it was about."""
    return {"ok": False, "error": code, "message": error_message(code, params, lang), "params": params}


def error(code: str, status: int, params: dict[str, Any] | None = None) -> Response:
    response = jsonify(refusal(code, params or {}, language()))
    response.status_code = status
    return response


CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)

GUARD_HEADERS = (
    ("Referrer-Policy", "no-referrer"),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
)
"""Every answer's headers that keep our pages from being framed, sniffed or fed foreign scripts."""


def is_host() -> bool:
    return asking.is_host(asker(), signer())


def seat_of_request() -> int | None:
    """The seat this phone holds right now, from its cookie."""
    return asking.seat_of(asker(), signer(), service().table.seat_generation)


def viewer_for(role: str | None) -> Viewer | str:
    """The viewer a page asks to be ("table", "me", "host"), or the rejection code when it may not."""
    return asking.viewer_for(role, asker(), signer(), service().table.seat_generation)


def refuse_foreign() -> Response | None:
    """A blueprint's guard: every state-changing request must come from our own pages, on a name
    that is ours."""
    if asking.is_foreign(request.method, request.path, asker(), current_app.config["BASE_URL"]):
        return error("forbidden_origin", 403)
    return None


def client_address() -> str:
    return request.remote_addr or "unknown"
