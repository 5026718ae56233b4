"""Buttons over HTTP: a phone's buzzer, the pages' ping echoes and shown frames, pairing, and
simulated presses.

A buzz is stamped the moment its request reaches this code, before anything else is read. It
carries the tap's time on the page's clock, which the server maps onto its own from the pings'
echoes, and falls back to that arrival less the phone's measured delay when the claim cannot be
used (companion/buzzers/phones.py).
"""

from __future__ import annotations

import logging

from flask import Blueprint, Response, jsonify

from companion.buzzers.hub import ButtonHub
from companion.buzzers.pairing import ARM, Target
from companion.buzzers.phoneclock import Claim
from companion.buzzers.phones import Screen
from companion.games.base import Rejection
from companion.server.common import (
    client_address,
    error,
    is_host,
    json_body,
    refuse_foreign,
    seat_of_request,
    service,
    status_for,
)

log = logging.getLogger(__name__)

bp = Blueprint("buttons", __name__, url_prefix="/api")
bp.before_request(refuse_foreign)


def _hub() -> ButtonHub:
    return service().buttons


def _refused(rejection: Rejection) -> Response:
    log.info("refused a button request from %s: %s", client_address(), rejection.code)
    return error(rejection.code, status_for(rejection.code), dict(rejection.params))


@bp.post("/buzz")
def buzz() -> Response:
    arrived_us = service().clock.now_us()
    seat = seat_of_request()
    if seat is None:
        return error("no_seat", 403)
    try:
        claim = Claim.from_json(json_body())
    except ValueError as bad:
        return _refused(Rejection("bad_arguments", {"detail": str(bad)}))
    press = _hub().buzz(seat, arrived_us, claim)
    if isinstance(press, Rejection):
        return _refused(press)
    if press is None:
        return jsonify({"ok": True, "repeat": True})
    timing = {"method": press.phone.method, "refused": press.phone.refused} if press.phone else {}
    return jsonify({"ok": True, "repeat": False, "uncertainty_us": press.uncertainty_us, **timing})


def _screen(ping_id: object) -> Screen | Response:
    """Whose clock: the display whose stream a ping went to, else the caller's seat (whose own
    pings only it may answer). Ping ids are random: only the page that got one can name it."""
    owner = _hub().phones.owner(ping_id)
    if isinstance(owner, str):
        return owner
    seat = seat_of_request()
    return error("no_seat", 403) if seat is None else seat


@bp.post("/ping")
def ping() -> Response:
    body = json_body() or {}
    screen = _screen(body.get("id"))
    if isinstance(screen, Response):
        return screen
    rtt = _hub().phones.echo(screen, body.get("id"), body.get("t"))
    if rtt is None:
        return _refused(Rejection("unknown_ping"))
    return jsonify({"ok": True, "rtt_us": rtt})


@bp.post("/shown")
def shown() -> Response:
    """The frame in which a page showed a round's signal, on its own clock: a display's is the
    round's arm, a phone's says how long a press of it may take (the decision waits for it)."""
    body = json_body() or {}
    screen = _screen(body.get("ping"))
    if isinstance(screen, Response):
        return screen
    refusal = _hub().shown(screen, body.get("round"), body.get("shown"))
    return _refused(refusal) if refusal else jsonify({"ok": True})


@bp.post("/buttons/press")
def press_simulated() -> Response:
    """A virtual button (keys on the table display, the /buttons page) when simulated buttons run."""
    body = json_body()
    pressed = _hub().press_simulated(body.get("button") if body else None)
    if isinstance(pressed, Rejection):
        return _refused(pressed)
    return jsonify({"ok": True, "button": pressed.button})


def _target() -> Target | Response:
    """Whose button: a player pairs their own seat; the host names a seat or the arm button."""
    if is_host():
        body = json_body() or {}
        target = body.get("seat")
        if target == ARM or (isinstance(target, int) and not isinstance(target, bool)
                             and 1 <= target <= service().table.state.seat_count):
            return target
        return error("bad_arguments", 400, {"detail": "seat"})
    seat = seat_of_request()
    if seat is None:
        return error("no_seat", 403)
    return seat


@bp.post("/buttons/pair")
def pair() -> Response:
    target = _target()
    if isinstance(target, Response):
        return target
    refusal = _hub().start_pairing(target)
    return _refused(refusal) if refusal else jsonify({"ok": True, "target": target})


def _own_seat() -> int | Response | None:
    """Whose pairings the caller may touch: the host any (None), a player their seat's only."""
    if is_host():
        return None
    seat = seat_of_request()
    return error("no_seat", 403) if seat is None else seat


@bp.post("/buttons/cancel")
def cancel() -> Response:
    owner = _own_seat()
    if isinstance(owner, Response):
        return owner
    _hub().cancel_pairing(owner)
    return jsonify({"ok": True})


@bp.post("/buttons/unpair")
def unpair() -> Response:
    owner = _own_seat()
    if isinstance(owner, Response):
        return owner
    button = (json_body() or {}).get("button")
    if not isinstance(button, str):
        return error("bad_arguments", 400, {"detail": "button"})
    refusal = _hub().unpair(button, owner)
    return _refused(refusal) if refusal else jsonify({"ok": True})
