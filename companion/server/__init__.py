"""The web surface: a Flask app factory with one blueprint per surface."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from companion.service import Service


def create_app(service: Service, base_url: str, test_config: Mapping[str, Any] | None = None) -> Flask:
    """The WSGI app for one running service; nothing is opened here, the service already is."""
    from companion.server import api, pages

    app = Flask(__name__, template_folder="../web/templates", static_folder="../web/static")
    app.config.from_mapping(
        MAX_CONTENT_LENGTH=64 * 1024,
        BASE_URL=base_url,
        LONG_POLL_MAX_S=25.0,
    )
    if test_config:
        app.config.from_mapping(test_config)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.extensions["companion"] = service
    app.register_blueprint(api.bp)
    app.register_blueprint(pages.bp)

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException) -> ResponseReturnValue:
        return api.http_error(err) if request.path.startswith("/api/") else err

    @app.errorhandler(Exception)
    def _server_error(err: Exception) -> ResponseReturnValue:
        if isinstance(err, HTTPException):
            return _http_error(err)
        return api.server_error(err)

    @app.after_request
    def _headers(response: Response) -> Response:
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        if response.mimetype == "application/json":
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    return app
