"""JSON API: status, views (long-polled by sequence number), commands and exports."""

from __future__ import annotations

import logging
import math
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from companion import __version__
from companion.games.base import HOST, TABLE, Command, Viewer
from companion.i18n import error_message
from companion.server.common import error, is_host, language, origin_allowed, service
from companion.table.export import export_game

log = logging.getLogger(__name__)

bp = Blueprint("api", __name__, url_prefix="/api")

_STATUS = {
    "bad_arguments": 400, "bad_json": 400, "forbidden_origin": 403, "not_authorized": 403, "host_only": 403,
    "not_your_seat": 403, "not_seated": 403, "not_found": 404,
}


def _viewer() -> Viewer:
    return HOST if is_host() else TABLE


@bp.get("/status")
def status() -> Response:
    svc = service()
    return jsonify({
        "version": __version__,
        "uptime_s": round(svc.uptime_s(), 3),
        "data_dir": str(svc.config.data_dir.resolve()),
        "position": svc.table.position,
        "game": svc.table.summary(),
        "buzzers": [source.health().to_json() for source in svc.sources],
    })


@bp.get("/view")
def view() -> Response:
    """The caller's view; with `after=N`, waits (up to `wait` s) until the log is past N."""
    svc = service()
    after = request.args.get("after", type=int)
    if after is not None and after <= svc.table.position:
        # A page ahead of the log (the data folder was replaced) gets the truth at once.
        wait = request.args.get("wait", 20.0, type=float)
        wait = min(max(wait, 0.0), current_app.config["LONG_POLL_MAX_S"]) if math.isfinite(wait) else 20.0
        svc.table.broadcaster.wait_beyond(after, wait)
    return jsonify(svc.table.view(_viewer()))


@bp.post("/commands")
def command() -> Response:
    if not origin_allowed():
        log.warning("refused a command from foreign origin %s", request.headers.get("Origin"))
        return error("forbidden_origin", 403)
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or not isinstance(body.get("name"), str):
        return error("bad_json", 400)
    args = body.get("args", {})
    if not isinstance(args, dict):
        return error("bad_arguments", 400, {"detail": "args"})
    actor = _viewer()
    outcome = service().table.handle(actor, Command(body["name"][:64], args), with_view=True)
    if outcome.rejection is not None:
        code, params = outcome.rejection.code, dict(outcome.rejection.params)
        return error(code, _STATUS.get(code, 409), params)
    return jsonify({"ok": True, "position": outcome.position, "view": outcome.view})


@bp.get("/games/<game_id>/export")
def export(game_id: str) -> Response:
    if not is_host():
        return error("not_authorized", 403)
    svc = service()
    table = svc.table
    run = table.run
    if run is not None and run.game_id == game_id and not run.ended and run.definition.secrets(run.state):
        # A running game's log holds its secrets; it leaves the server only once the game is over.
        return error("game_in_progress", 409)
    data = export_game(svc.store, game_id, svc.clock.wall_ms())
    if data is None:
        return error("not_found", 404)
    response = jsonify(data)
    response.headers["Content-Disposition"] = f'attachment; filename="game-{game_id}.json"'
    return response


def http_error(err: HTTPException) -> Response:
    """JSON errors for the API, also for routes that do not exist (registered on the app)."""
    code = {403: "not_authorized", 404: "not_found"}.get(err.code or 400, "bad_arguments")
    params: dict[str, Any] = {"detail": err.name}
    body = {"ok": False, "error": code, "message": error_message(code, params, language()), "params": params}
    response = jsonify(body)
    response.status_code = err.code or 400
    return response


def server_error(err: Exception) -> Response:
    log.exception("error while handling %s %s", request.method, request.path)
    return error("server_error", 500)
