"""What every blueprint needs: the service, the viewer's language, identity checks, JSON errors."""

from __future__ import annotations

import hmac
import logging
from typing import Any
from urllib.parse import urlsplit

from flask import Response, current_app, jsonify, request

from companion.i18n import LANGUAGES, error_message, pick_language
from companion.service import Service

log = logging.getLogger(__name__)

LANG_COOKIE = "lang"


def service() -> Service:
    return current_app.extensions["companion"]


def language() -> str:
    """?lang= first (the visible switch), then the remembered choice, then the browser's wish."""
    chosen = request.args.get("lang") or request.cookies.get(LANG_COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return pick_language(request.headers.get("Accept-Language"), service().config.table.language)


def error(code: str, status: int, params: dict[str, Any] | None = None) -> Response:
    params = params or {}
    body = {"ok": False, "error": code, "message": error_message(code, params, language()), "params": params}
    response = jsonify(body)
    response.status_code = status
    return response


def is_host() -> bool:
    """The host proves itself with the host key as a bearer token (compared in constant time)."""
    header = request.headers.get("Authorization", "")
    if not header.startswith("Bearer "):
        return False
    return hmac.compare_digest(header.removeprefix("Bearer ").strip().encode(), service().host_key.encode())


def origin_allowed() -> bool:
    """A state-changing request from a browser must come from our own pages.

    Browsers always send Origin on a cross-site POST; a request without one comes from a
    non-browser client, which the JSON content type requirement already separates from forms.
    """
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    parts = urlsplit(origin)
    return f"{parts.scheme}://{parts.netloc}" == f"{request.scheme}://{request.host}"
