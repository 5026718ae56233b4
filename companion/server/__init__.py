"""The web surface: a Flask app factory with one blueprint per surface."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from importlib import resources
from typing import Any

from flask import Flask, Response, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from companion import i18n
from companion.i18n import FRONTEND
from companion.server.common import GUARD_HEADERS
from companion.server.identity import CookieSigner, OneTimeLinks, RateLimiter
from companion.server.patch import SharedEncoder
from companion.server.wsgi import ON_LOOP_ROUTES
from companion.service import Service


def create_app(service: Service, base_url: str, test_config: Mapping[str, Any] | None = None) -> Flask:
    """The WSGI app for one running service; nothing is opened here, the service already is."""
    from companion.server import api, buttons, pages

    frontend = resources.files(FRONTEND)
    app = Flask(__name__, template_folder=str(frontend / "templates"), static_folder=str(frontend / "static"))
    app.config.from_mapping(
        MAX_CONTENT_LENGTH=64 * 1024,
        BASE_URL=base_url,
        LONG_POLL_MAX_S=25.0,
        STREAM_HEARTBEAT_S=2.0,
        JOIN_BURST=10,
        JOIN_PER_MINUTE=10.0,
        SEND_FILE_MAX_AGE_DEFAULT=0,
    )
    if test_config:
        app.config.from_mapping(test_config)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.extensions["companion"] = service
    app.extensions["companion.signer"] = CookieSigner(service.cookie_key, service.host_key)
    app.extensions["companion.rebind_links"] = OneTimeLinks()
    app.extensions["companion.join_limiter"] = RateLimiter(app.config["JOIN_BURST"], app.config["JOIN_PER_MINUTE"])
    app.extensions["companion.login_limiter"] = RateLimiter(5, 5.0)
    app.extensions["companion.encoder"] = SharedEncoder()
    app.register_blueprint(api.bp)
    app.extensions[ON_LOOP_ROUTES] = {"/api/commands": api.command_on_loop(app)}
    app.register_blueprint(buttons.bp)
    app.register_blueprint(pages.bp)
    threading.Thread(target=i18n.warm, name="plural-rules", daemon=True).start()

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException) -> ResponseReturnValue:
        return api.http_error(err) if request.path.startswith("/api/") else pages.http_error(err)

    @app.errorhandler(Exception)
    def _server_error(err: Exception) -> ResponseReturnValue:
        if isinstance(err, HTTPException):
            return _http_error(err)
        return api.server_error(err)

    @app.after_request
    def _headers(response: Response) -> Response:
        for name, value in GUARD_HEADERS:
            response.headers.setdefault(name, value)
        if response.mimetype in ("application/json", "text/html"):
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    return app
