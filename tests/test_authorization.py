"""Every route against every kind of caller: the right answer, and never a server error."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient
from werkzeug.exceptions import HTTPException

from tests.support.web import BASE, Web

EVIL = {"Origin": "http://evil.example"}


def callers(web: Web) -> dict[str, tuple[FlaskClient, dict[str, str]]]:
    """Who knocks: nobody, a seated phone (seat 1), another seated phone (seat 2), the host, and the
    host's own browser tricked by another site (forged Origin). A garbage cookie counts as nobody."""
    own = web.join(1, "Ann")
    other = web.join(2, "Bob")
    garbage = web.client()
    garbage.set_cookie("seat", "1.1.00000000000000000000000000000000")
    garbage.set_cookie("host", "x" * 32)
    return {
        "nobody": (web.client(), {}),
        "garbage": (garbage, {}),
        "own_seat": (own, {}),
        "other_seat": (other, {}),
        "host": (web.host(), {}),
        "forged_origin": (web.host(), EVIL),
    }


ALL = ("nobody", "garbage", "own_seat", "other_seat", "host", "forged_origin")

# (method, path, json body or None, {caller: expected status}); a caller not named expects `default`.
Route = tuple[str, str, dict | None, dict[str, int], int]
ROUTES: list[Route] = [
    ("GET", "/api/status", None, {}, 200),
    ("GET", "/api/view", None, {}, 200),
    ("GET", "/api/view?as=table", None, {}, 200),
    ("GET", "/api/view?as=me", None, {"own_seat": 200, "other_seat": 200}, 403),
    ("GET", "/api/view?as=host", None, {"host": 200, "forged_origin": 200}, 403),
    ("GET", "/api/view?as=root", None, {}, 400),
    ("GET", "/api/stream?as=me", None, {"own_seat": 200, "other_seat": 200}, 403),
    ("GET", "/api/stream?as=host", None, {"host": 200, "forged_origin": 200}, 403),
    ("POST", "/api/commands", {"as": "me", "name": "roll"},
     {"own_seat": 200, "other_seat": 200, "forged_origin": 403}, 403),
    ("POST", "/api/commands", {"as": "table", "name": "roll"}, {"forged_origin": 403}, 200),
    ("POST", "/api/commands", {"as": "me", "name": "name_seat", "args": {"seat": 1, "name": "Zed"}},
     {"own_seat": 200}, 403),
    ("POST", "/api/commands", {"as": "me", "name": "clear_seat", "args": {"seat": 1}}, {"own_seat": 200}, 403),
    ("POST", "/api/commands", {"as": "table", "name": "clear_seat", "args": {"seat": 1}}, {}, 403),
    ("POST", "/api/commands", {"as": "host", "name": "end_game"}, {"host": 200}, 403),
    ("POST", "/api/commands", {"as": "host", "name": "clear_seat", "args": {"seat": 2}}, {"host": 200}, 403),
    ("POST", "/api/commands", {"as": "table", "name": "end_game"}, {"forged_origin": 403}, 403),
    ("POST", "/api/commands", {"as": "me", "name": "undo"}, {"own_seat": 409, "other_seat": 409}, 403),
    ("POST", "/api/commands", {"as": "me", "name": "commit_entropy", "args": {"commitment": "ab" * 32}},
     {"own_seat": 200, "other_seat": 200}, 403),
    ("POST", "/api/leave", {}, {"own_seat": 200, "other_seat": 200}, 403),
    ("POST", "/api/join", {"code": "WRONG1", "seat": 3, "name": "Cy"}, {}, 403),
    ("POST", "/api/host/login", {"key": "guess"}, {}, 403),
    ("POST", "/api/host/logout", {}, {"forged_origin": 403}, 200),
    ("POST", "/api/host/rebind", {"seat": 1}, {"host": 200}, 403),
    ("GET", "/api/host/games", None, {"host": 200, "forged_origin": 200}, 403),
    ("GET", "/api/games/{game}/export", None, {"host": 409, "forged_origin": 409}, 403),
    ("GET", "/api/nothing", None, {}, 404),
    ("GET", "/table", None, {}, 200),
    ("GET", "/join", None, {"own_seat": 302, "other_seat": 302}, 200),
    ("GET", "/join/{code}", None, {"own_seat": 302, "other_seat": 302}, 200),
    ("GET", "/join/NOTOUR", None, {"own_seat": 302, "other_seat": 302}, 404),
    ("GET", "/me", None, {"own_seat": 200, "other_seat": 200}, 302),
    ("GET", "/host", None, {}, 200),
    ("GET", "/rebind/not-a-link", None, {}, 410),
    ("GET", "/api/openapi.json", None, {}, 200),
    # A phone's buzzer and its ping echo: seated phones only (the dice tray has no buzzers, the ping
    # was never sent: refused by the hub, not by identity).
    ("POST", "/api/buzz", {}, {"own_seat": 409, "other_seat": 409}, 403),
    ("POST", "/api/ping", {"id": 1}, {"own_seat": 409, "other_seat": 409}, 403),
    # A shown frame: a seated phone's (no clock mapped yet here), or a display's, named by a ping of
    # its stream (none here: refused by identity).
    ("POST", "/api/shown", {"round": 1, "shown": 5.0}, {"own_seat": 409, "other_seat": 409}, 403),
    # Simulated buttons are the table's own keys (the TV, the /buttons page): anyone at the table may
    # press one, never another site's page.
    ("POST", "/api/buttons/press", {"button": 1}, {"forged_origin": 403}, 200),
    ("POST", "/api/buttons/press", {"button": 99}, {"forged_origin": 403}, 400),
    # Pairing: a player pairs their own seat (whatever it sends); the host must name the target.
    ("POST", "/api/buttons/pair", {}, {"own_seat": 200, "other_seat": 200, "host": 400}, 403),
    ("POST", "/api/buttons/pair", {"seat": 1}, {"own_seat": 200, "other_seat": 200, "host": 200}, 403),
    ("POST", "/api/buttons/pair", {"seat": "arm"}, {"own_seat": 200, "other_seat": 200, "host": 200}, 403),
    ("POST", "/api/buttons/cancel", {}, {"own_seat": 200, "other_seat": 200, "host": 200}, 403),
    ("POST", "/api/buttons/unpair", {"button": "gpio:17"}, {"own_seat": 409, "other_seat": 409, "host": 409}, 403),
    ("POST", "/api/buttons/unpair", {"button": 17}, {"own_seat": 400, "other_seat": 400, "host": 400}, 403),
    ("GET", "/", None, {}, 302),
    ("GET", "/favicon.ico", None, {}, 301),
    ("GET", "/buttons", None, {}, 200),
    ("GET", "/verify", None, {}, 200),
    ("GET", "/static/icon.svg", None, {}, 200),
    ("GET", "/static/live.js", None, {}, 200),
    ("GET", "/static/nothing.js", None, {}, 404),
    ("GET", "/nothing", None, {}, 404),
]


def _cases() -> list[tuple[Route, str]]:
    return [(route, who) for route in ROUTES for who in ALL]


@pytest.mark.parametrize(("route", "who"), _cases(),
                         ids=[f"{r[0]} {r[1]} {(r[2] or {}).get('name', '')} as {w}" for r, w in _cases()])
def test_every_route_answers_every_caller_rightly(web: Web, route: Route, who: str) -> None:
    method, path, body, expected, default = route
    client, headers = callers(web)[who]
    path = path.format(game=web.service.table.run.game_id, code=web.code)  # type: ignore[union-attr]
    before = web.service.store.read_all()
    if method == "GET":
        response = client.get(path, headers=headers, buffered=False)
    else:
        response = client.post(path, json=body, headers=headers)
    status = response.status_code
    response.close()
    assert status != 500
    assert status == expected.get(who, default), (who, path, body, response.get_data(as_text=True)[:300])
    if status >= 400:
        assert web.service.store.read_all() == before, "a refused request changes nothing"


def test_the_matrix_covers_every_route_of_the_app(web: Web) -> None:
    """A new route fails here until someone decides, in ROUTES, who may call it."""
    adapter = web.app.url_map.bind("localhost")
    covered: set[tuple[str, str]] = set()
    for method, path, _, _, _ in ROUTES:
        path = path.format(game="g1", code="ABC123").split("?")[0]
        try:
            rule, _ = adapter.match(path, method=method, return_rule=True)
        except HTTPException:
            continue  # a path that is meant not to exist (/api/nothing)
        covered.add((rule.rule, method))
    every = {(rule.rule, method) for rule in web.app.url_map.iter_rules()
             for method in rule.methods or () if method not in ("HEAD", "OPTIONS")}
    assert every - covered == set(), "routes nobody decided who may call"


def test_a_player_pairs_and_unpairs_only_their_own_button(web: Web) -> None:
    everyone = callers(web)
    own, _ = everyone["own_seat"]
    other, _ = everyone["other_seat"]
    assert own.post("/api/buttons/pair", json={"seat": 2}).get_json()["target"] == 1, "a player's own seat only"
    assert own.post("/api/buttons/press", json={"button": 4}).status_code == 200
    assert web.service.buttons.pairs.target("simulated:4") == 1
    refused = other.post("/api/buttons/unpair", json={"button": "simulated:4"})
    assert (refused.status_code, refused.get_json()["error"]) == (409, "unknown_button")
    assert web.service.buttons.pairs.target("simulated:4") == 1
    assert own.post("/api/buttons/unpair", json={"button": "simulated:4"}).status_code == 200
    assert web.service.buttons.pairs.target("simulated:4") is None


def test_a_replayed_rebind_link_is_refused_to_everyone(web: Web) -> None:
    everyone = callers(web)
    host, _ = everyone["host"]
    path = host.post("/api/host/rebind", json={"seat": 1}).get_json()["url"].removeprefix(BASE)
    assert web.client().get(path).status_code == 303
    for who, (client, headers) in everyone.items():
        assert client.get(path, headers=headers).status_code == 410, who


def test_seat_views_are_always_the_callers_own(web: Web) -> None:
    everyone = callers(web)
    own, _ = everyone["own_seat"]
    other, _ = everyone["other_seat"]
    assert own.get("/api/view?as=me").get_json()["you"]["seat"] == 1
    assert other.get("/api/view?as=me").get_json()["you"]["seat"] == 2
    for who in ("nobody", "host", "garbage"):
        client, _ = everyone[who]
        assert "you" not in client.get("/api/view?as=table").get_json()
