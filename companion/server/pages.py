"""HTML pages. Their data arrives as the same views the API serves, never as raw state."""

from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, Response, current_app, make_response, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from companion.games.base import HOST, TABLE, Command, Viewer
from companion.i18n import LANGUAGES, catalogue
from companion.server.asker import LANG_COOKIE
from companion.server.common import is_host, language, seat_of_request, service, signer
from companion.server.identity import COOKIE_MAX_AGE, SEAT_COOKIE
from companion.server.qr import qr_svg
from companion.table.seating import valid_join_code

log = logging.getLogger(__name__)

bp = Blueprint("pages", __name__)


def _page(template: str, status: int = 200, **context: Any) -> Response:
    lang = language()
    strings = catalogue(lang)
    # The server's now on the host timeline: a page counts down to a view's deadlines against it.
    boot = {"lang": lang, "ui": strings["ui"], "errors": strings["error"], "now_us": service().clock.now_us(),
            **context.pop("boot", {})}
    response = make_response(render_template(
        template, lang=lang, languages=LANGUAGES, ui=strings["ui"], boot=boot,
        base_url=current_app.config["BASE_URL"], **context,
    ), status)
    if request.args.get("lang") in LANGUAGES:
        response.set_cookie(LANG_COOKIE, lang, max_age=365 * 24 * 3600, samesite="Strict")
    return response


def join_url() -> str:
    return f"{current_app.config['BASE_URL']}/join/{service().table.state.join_code}"


@bp.get("/")
def index() -> ResponseReturnValue:
    return redirect(url_for("pages.table"))


@bp.get("/favicon.ico")
def favicon() -> ResponseReturnValue:
    return redirect(url_for("static", filename="icon.svg"), code=301)


@bp.get("/table")
def table() -> Response:
    url = join_url()
    boot = {"role": "table", "view": service().table.view(TABLE)}
    return _page("table.html", qr=qr_svg(url), join_url=url, boot=boot)


@bp.get("/join")
@bp.get("/join/<code>")
def join(code: str | None = None) -> ResponseReturnValue:
    if seat_of_request() is not None:
        return redirect(url_for("pages.me"))
    table_state = service().table.state
    typed = (code or request.args.get("code", "")).strip().upper()
    valid = valid_join_code(typed) and typed == table_state.join_code
    offered = request.args.get("seat", type=int)
    return _page("join.html", status=200 if valid or not typed else 404, code=typed if valid else "",
                 wrong_code=bool(typed) and not valid,
                 boot={"role": "join", "code": typed if valid else "", "offered": offered,
                       "view": service().table.view(TABLE)})


@bp.get("/me")
def me() -> ResponseReturnValue:
    seat = seat_of_request()
    if seat is None:
        return redirect(url_for("pages.join"))
    return _page("me.html", boot={"role": "me", "view": service().table.view(Viewer("seat", seat))})


@bp.get("/host")
def host() -> Response:
    if not is_host():
        return _page("host_login.html", boot={"role": "login"})
    return _page("host.html", join_url=join_url(), boot={"role": "host", "view": service().table.view(HOST)})


@bp.get("/buttons")
def buttons() -> Response:
    """Virtual slap buttons for a demo or development without hardware (simulated buttons only)."""
    return _page("buttons.html", boot={"role": "buttons", "view": service().table.view(TABLE)})


@bp.get("/verify")
def verify() -> Response:
    """Anyone can check an exported game here, in their own browser, without trusting this server's word."""
    return _page("verify.html", boot={"role": "verify"})


@bp.get("/rebind/<token>")
def rebind(token: str) -> ResponseReturnValue:
    """Spend a one-time link: the seat moves to this phone, the old phone loses it, the URL goes away."""
    seat = current_app.extensions["companion.rebind_links"].redeem(token)
    if seat is None:
        log.warning("refused a used, expired or unknown rebind link")
        return _page("message.html", status=410, title_key="link_spent_title", text_key="link_spent")
    table = service().table
    outcome = table.handle(Viewer("system"), Command("rebind_seat", {"seat": seat}))
    generation = table.seat_generation(seat)
    if outcome.rejection is not None or generation is None:
        return _page("message.html", status=409, title_key="link_spent_title", text_key="seat_gone")
    response = redirect(url_for("pages.me"), code=303)
    response.set_cookie(SEAT_COOKIE, signer().seat_cookie(seat, generation), max_age=COOKIE_MAX_AGE,
                        httponly=True, samesite="Strict", path="/")
    return response


def http_error(err: HTTPException) -> ResponseReturnValue:
    if err.code == 404:
        return _page("message.html", status=404, title_key="not_found_title", text_key="not_found_text")
    return err
