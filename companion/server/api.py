"""JSON API and the live stream. Whatever leaves here is a view for the asking viewer."""

from __future__ import annotations

import itertools
import json
import logging
import math
from collections.abc import Callable
from functools import cache
from http import HTTPStatus
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from companion import __version__
from companion.buzzers.phones import Screen
from companion.errors import DuplicateEvent, ReplayMismatch, StoreError
from companion.games.base import TABLE, Command, Viewer
from companion.i18n import error_message
from companion.server import asker as asking
from companion.server.asker import Asker, asker_of_headers, json_object
from companion.server.common import (
    GUARD_HEADERS,
    asker,
    client_address,
    error,
    is_host,
    json_body,
    language,
    refusal,
    refuse_foreign,
    seat_of_request,
    service,
    signer,
    status_for,
    viewer_for,
)
from companion.server.identity import COOKIE_MAX_AGE, HOST_COOKIE, SEAT_COOKIE, CookieSigner
from companion.server.live import LIVE_SESSION, StreamSession, blocking_events
from companion.server.patch import SharedEncoder
from companion.server.qr import qr_svg
from companion.server.wsgi import Answer, Request
from companion.service import Service
from companion.table.export import export_game

log = logging.getLogger(__name__)

_display_streams = itertools.count(1)
"""Each display's stream has a clock link of its own (two TVs are two clocks)."""

bp = Blueprint("api", __name__, url_prefix="/api")


bp.before_request(refuse_foreign)


def _set_cookie(response: Response, name: str, value: str) -> None:
    response.set_cookie(name, value, max_age=COOKIE_MAX_AGE, httponly=True, samesite="Strict", path="/")


OPENAPI = Path(__file__).with_name("openapi.json")
"""The description of every route (tests hold it to the app's url_map)."""


@cache
def openapi_spec() -> dict[str, Any]:
    with OPENAPI.open(encoding="utf-8") as fh:
        spec: dict[str, Any] = json.load(fh)
    return spec


@bp.get("/openapi.json")
def openapi() -> Response:
    """The OpenAPI 3.0 description of this API and the pages, for anyone (it holds no secret)."""
    return jsonify(openapi_spec())


@bp.get("/status")
def status() -> Response:
    svc = service()
    host = is_host()
    return jsonify({
        "version": __version__,
        "uptime_s": round(svc.uptime_s(), 3),
        "data_dir": str(svc.config.data_dir.resolve()),
        "position": svc.table.position,
        "game": svc.table.summary(),
        "buzzers": [h.to_json() if host else h.public_json() for h in (s.health() for s in svc.sources)],
    })


@bp.get("/view")
def view() -> Response:
    """The caller's view (`as` = table, me or host); with `after=N`, waits until the log passes N."""
    viewer = viewer_for(request.args.get("as"))
    if isinstance(viewer, str):
        return error(viewer, status_for(viewer))
    svc = service()
    after = request.args.get("after", type=int)
    if after is not None and after <= svc.table.position:
        # A page ahead of the log (the data folder was replaced) gets the truth at once.
        wait = request.args.get("wait", 20.0, type=float)
        wait = min(max(wait if math.isfinite(wait) else 20.0, 0.0), current_app.config["LONG_POLL_MAX_S"])
        svc.table.broadcaster.wait_beyond(after, wait)
    return jsonify(svc.table.view(viewer))


@bp.get("/stream")
def stream() -> Response:
    """Server-sent events: the viewer's whole view first, then patches from one view to the next
    (see patch.py), each with the log position as id. Each message (and heartbeat) is followed by
    a `now` event, the server's time on the host timeline in µs: a view's deadlines are on that
    timeline, and a page counts down to them against its own clock's offset to the server's.

    What the stream says is live.py's; the server's event loop sends it (http1.py takes the session
    from the environ), and any other WSGI server gets a generator that waits in its thread.
    """
    viewer = viewer_for(request.args.get("as"))
    if isinstance(viewer, str):
        return error(viewer, status_for(viewer))
    svc = service()
    table = svc.table
    claim = signer().seat_claim(request.cookies.get(SEAT_COOKIE))

    def still_seated() -> bool:
        """False once the seat was rebound to another phone (or cleared)."""
        if viewer.kind != "seat":
            return True
        return claim is not None and claim[0] == viewer.seat and table.seat_generation(claim[0]) == claim[1]

    screen: Screen | None = viewer.seat
    if viewer.kind == "table":
        screen = f"display:{next(_display_streams)}"
    session = StreamSession(table, viewer, screen, still_seated, current_app.extensions["companion.encoder"],
                            svc.buttons, svc.clock, current_app.config["STREAM_HEARTBEAT_S"])
    request.environ[LIVE_SESSION] = session
    response = Response(blocking_events(session), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@bp.post("/commands")
def command() -> Response:
    """A command, as any WSGI server hands it to Flask; this server answers it on its event loop
    with `command_on_loop`, by the same `command_answer`."""
    texts = current_app.extensions["companion.encoder"]
    status, text = command_answer(service(), signer(), texts, asker(), json_body())
    return Response(text, status=status, mimetype="application/json")


def command_answer(svc: Service, signs: CookieSigner, texts: SharedEncoder, who: Asker,
                   body: dict[str, Any] | None) -> tuple[int, str]:
    """POST /api/commands, whoever read the request: the answer's status and its JSON text."""

    def refused(code: str, params: dict[str, Any] | None = None) -> tuple[int, str]:
        return refused_as_json(svc, who, code, status_for(code), params)

    if body is None or not isinstance(body.get("name"), str):
        return refused("bad_json")
    args = body.get("args", {})
    if not isinstance(args, dict):
        return refused("bad_arguments", {"detail": "args"})
    role = body.get("as") or ("host" if asking.is_host(who, signs) else "table")
    actor = asking.viewer_for(role if isinstance(role, str) else "?", who, signs, svc.table.seat_generation)
    if isinstance(actor, str):
        return refused(actor)
    arrived = Command(body["name"][:64], args, svc.clock.now_us())
    outcome = svc.table.handle(actor, svc.buttons.stamp(actor, arrived, body.get("sent")), with_view=True)
    if outcome.rejection is not None:
        return refused(outcome.rejection.code, dict(outcome.rejection.params))
    # The actor's view is usually the one its screens are streaming: its text is already made.
    return 200, f'{{"ok":true,"position":{outcome.position},"view":{texts.text(outcome.view)}}}'


def refused_as_json(svc: Service, who: Asker, code: str, status: int,
                    params: dict[str, Any] | None = None) -> tuple[int, str]:
    """A refusal's status and JSON, in the asker's language, as Flask's jsonify writes it."""
    body = refusal(code, params or {}, asking.language(who, svc.config.table.language))
    return status, json.dumps(body, separators=(",", ":")) + "\n"


JSON_ANSWER_HEADERS = [
    (b"content-type", b"application/json"),
    *((name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in GUARD_HEADERS),
    (b"cache-control", b"no-store"),
]
"""A JSON answer's headers, as the app's after_request sets them."""


def command_on_loop(app: Flask) -> Callable[[Request, bytes], Answer]:
    """POST /api/commands answered on the server's event loop without Flask's layers.

    A tap is the table's hottest request: Flask's request context, routing and response objects
    cost it more than its own checks do, every time. The checks are the route's own (the origin
    guard, the JSON body, who asks), made by the same functions, so the answer is the one Flask
    would give; a body too large and every other request still go to Flask.
    """
    svc: Service = app.extensions["companion"]
    signs: CookieSigner = app.extensions["companion.signer"]
    texts: SharedEncoder = app.extensions["companion.encoder"]
    base_url: str = app.config["BASE_URL"]

    def answer(request: Request, body: bytes) -> Answer:
        who = asker_of_headers(request.headers, request.query, request.server)
        try:
            if asking.is_foreign(request.method, request.path, who, base_url):
                status, text = refused_as_json(svc, who, "forbidden_origin", status_for("forbidden_origin"))
            else:
                content_type = next((value.decode("latin-1") for name, value in request.headers
                                     if name == b"content-type"), None)
                status, text = command_answer(svc, signs, texts, who, json_object(content_type, body))
        except Exception as err:
            status, text = refused_as_json(svc, who, *failure(err, request.method, request.path))
        return Answer(status, HTTPStatus(status).phrase.encode("ascii"), list(JSON_ANSWER_HEADERS), text.encode())

    return answer


@bp.post("/join")
def join() -> Response:
    """Claim a free seat with the table's join code and a display name; the phone gets the seat cookie."""
    if not current_app.extensions["companion.join_limiter"].allow(client_address()):
        return error("rate_limited", 429)
    body = json_body()
    if body is None:
        return error("bad_json", 400)
    table = service().table
    if body.get("code") != table.state.join_code:
        log.warning("wrong join code from %s", client_address())
        return error("bad_join_code", 403)
    seat = body.get("seat")
    outcome = table.handle(TABLE, Command("claim_seat", {"seat": seat, "name": body.get("name")}))
    if outcome.rejection is not None:
        return error(outcome.rejection.code, status_for(outcome.rejection.code), dict(outcome.rejection.params))
    assert isinstance(seat, int)
    generation = table.seat_generation(seat)
    assert generation is not None
    response = jsonify({"ok": True, "seat": seat, "next": "/me"})
    _set_cookie(response, SEAT_COOKIE, signer().seat_cookie(seat, generation))
    return response


@bp.post("/leave")
def leave() -> Response:
    seat = seat_of_request()
    if seat is None:
        return error("no_seat", 403)
    outcome = service().table.handle(Viewer("seat", seat), Command("clear_seat", {"seat": seat}))
    if outcome.rejection is not None:
        return error(outcome.rejection.code, status_for(outcome.rejection.code))
    response = jsonify({"ok": True})
    response.delete_cookie(SEAT_COOKIE, path="/")
    return response


@bp.post("/host/login")
def host_login() -> Response:
    """Exchange the host key (typed, or read from the terminal's QR) for the host cookie, once."""
    if not current_app.extensions["companion.login_limiter"].allow(client_address()):
        return error("rate_limited", 429)
    body = json_body()
    if body is None or not signer().is_host_key(body.get("key") if isinstance(body.get("key"), str) else None):
        log.warning("wrong host key from %s", client_address())
        return error("wrong_host_key", 403)
    response = jsonify({"ok": True})
    _set_cookie(response, HOST_COOKIE, signer().host_cookie())
    return response


@bp.post("/host/logout")
def host_logout() -> Response:
    response = jsonify({"ok": True})
    response.delete_cookie(HOST_COOKIE, path="/")
    return response


@bp.post("/host/rebind")
def host_rebind() -> Response:
    """A one-time link (and its QR) that moves a taken seat to whichever phone opens it first."""
    if not is_host():
        return error("not_authorized", 403)
    body = json_body() or {}
    seat = body.get("seat")
    table = service().table
    if isinstance(seat, bool) or not isinstance(seat, int) or table.seat_generation(seat) is None:
        return error("seat_empty", 409)
    token, ttl = current_app.extensions["companion.rebind_links"].issue(seat)
    url = f"{current_app.config['BASE_URL']}/rebind/{token}"
    return jsonify({"ok": True, "seat": seat, "url": url, "qr": qr_svg(url), "expires_s": ttl})


@bp.get("/host/games")
def host_games() -> Response:
    if not is_host():
        return error("not_authorized", 403)
    table = service().table
    games = []
    for game in table.games.values():
        defaults = table.option_defaults(game.id)
        games.append({"id": game.id, "title": dict(game.title), "min_seats": game.min_seats,
                      "max_seats": game.max_seats, "options": game.options_schema(defaults)})
    return jsonify({"games": games, "undo_policy": table.settings.undo_policy})


@bp.get("/games/<game_id>/export")
def export(game_id: str) -> Response:
    if not is_host():
        return error("not_authorized", 403)
    svc = service()
    run = svc.table.run
    if run is not None and run.game_id == game_id and not run.seed_revealed:
        # A running game's log holds its seed (and any other secret): it leaves once the game is over.
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
    code, status = failure(err, request.method, request.path)
    return error(code, status)


def failure(err: Exception, method: str, path: str) -> tuple[str, int]:
    """The refusal code and status of a request that failed in our code, logged."""
    if isinstance(err, StoreError) and not isinstance(err, ReplayMismatch | DuplicateEvent):
        # A full or failing card: the table already logged which command was not stored, and
        # nothing changed. The player is told it was not saved, and why, instead of "a bug".
        log.error("%s %s: %s", method, path, err)
        return "storage_failed", 507
    log.exception("error while handling %s %s", method, path)
    return "server_error", 500

