"""HTML pages. Their data arrives as the same views the API serves, never as raw state."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, make_response, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from companion.games.base import TABLE
from companion.i18n import LANGUAGES, catalogue
from companion.server.common import LANG_COOKIE, language, service
from companion.server.qr import qr_svg

bp = Blueprint("pages", __name__)


@bp.get("/")
def index() -> ResponseReturnValue:
    return redirect(url_for("pages.table"))


@bp.get("/table")
def table() -> Response:
    lang = language()
    table_url = current_app.config["BASE_URL"] + url_for("pages.table")
    response = make_response(render_template(
        "table.html",
        lang=lang,
        languages=LANGUAGES,
        ui=catalogue(lang)["ui"],
        qr=qr_svg(table_url),
        table_url=table_url,
        initial_view=service().table.view(TABLE),
    ))
    if request.args.get("lang") in LANGUAGES:
        response.set_cookie(LANG_COOKIE, lang, max_age=365 * 24 * 3600, samesite="Strict")
    return response
