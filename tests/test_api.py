"""The HTTP surface of the foundation: status, views, commands, exports, and refusals that change nothing."""

from __future__ import annotations

import threading
import time

import pytest
from flask.testing import FlaskClient

from companion import __version__
from companion.games.base import HOST, Command
from companion.server import create_app
from companion.server.qr import qr_svg
from companion.service import Service

BASE = "http://192.0.2.10:8080"


@pytest.fixture
def client(service: Service) -> FlaskClient:
    service.table.handle(HOST, Command("start_game", {"game": "dice-tray"}))
    return create_app(service, BASE, {"TESTING": True}).test_client()


def host(service: Service) -> dict[str, str]:
    return {"Authorization": f"Bearer {service.host_key}"}


def test_status_reports_version_uptime_data_game_and_buzzers(client: FlaskClient, service: Service) -> None:
    body = client.get("/api/status").get_json()
    assert body["version"] == __version__
    assert body["uptime_s"] >= 0
    assert body["data_dir"] == str(service.config.data_dir.resolve())
    assert body["game"]["game"] == "dice-tray" and body["game"]["ended"] is False
    assert body["buzzers"] == [
        {"name": "simulated", "kind": "simulated", "healthy": True, "detail": "13 virtual buttons",
         "uncertainty_us": 0},
        {"name": "phone", "kind": "phone", "healthy": True, "detail": "no phone measured yet",
         "uncertainty_us": 150_000},
    ]


def test_a_roll_through_http_is_acknowledged_with_the_new_view(client: FlaskClient) -> None:
    response = client.post("/api/commands", json={"name": "roll", "args": {"preset": "garlic-slap"}})
    assert response.status_code == 200
    body = response.get_json()
    assert body["ok"] is True
    last = body["view"]["game"]["view"]["recent"][0]
    assert [d["die"] for d in last["dice"]] == ["garlic-colour", "garlic-symbol"]
    assert body["position"] == body["view"]["position"]


@pytest.mark.parametrize(
    ("kwargs", "status", "code"),
    [
        ({"data": "not json", "content_type": "application/json"}, 400, "bad_json"),
        ({"json": ["roll"]}, 400, "bad_json"),
        ({"json": {"name": 5}}, 400, "bad_json"),
        ({"json": {"name": "roll", "args": [1]}}, 400, "bad_arguments"),
        ({"json": {"name": "roll", "args": {"dice": ["d7"]}}}, 409, "unknown_die"),
        ({"json": {"name": "roll"}, "headers": {"Origin": "http://evil.example"}}, 403, "forbidden_origin"),
        ({"json": {"name": "end_game"}}, 403, "host_only"),
        ({"json": {"name": "end_game"}, "headers": {"Authorization": "Bearer guessed"}}, 403, "host_only"),
        ({"data": "x" * 70_000, "content_type": "application/json"}, 413, "bad_arguments"),
    ],
)
def test_bad_requests_get_a_clear_error_and_change_nothing(client: FlaskClient, service: Service, kwargs,
                                                           status: int, code: str) -> None:
    before = service.store.read_all()
    response = client.post("/api/commands", **kwargs)
    assert response.status_code == status
    body = response.get_json()
    assert body["ok"] is False and body["error"] == code and body["message"]
    assert service.store.read_all() == before


def test_errors_speak_the_viewers_language(client: FlaskClient) -> None:
    args = {"name": "roll", "args": {"dice": ["d7"]}}
    french = client.post("/api/commands", json=args, headers={"Accept-Language": "fr-FR,fr;q=0.9,en;q=0.5"})
    assert french.get_json()["message"] == "Il n'y a pas de dé nommé d7."
    english = client.post("/api/commands?lang=en", json=args, headers={"Accept-Language": "fr"})
    assert english.get_json()["message"] == "There is no die called d7."


def test_same_origin_browser_requests_are_accepted(client: FlaskClient) -> None:
    response = client.post("/api/commands", json={"name": "roll"}, headers={"Origin": "http://localhost"})
    assert response.status_code == 200


def test_the_host_key_unlocks_host_commands(client: FlaskClient, service: Service) -> None:
    assert client.post("/api/commands", json={"name": "end_game"}, headers=host(service)).status_code == 200
    assert client.get("/api/status").get_json()["game"]["ended"] is True


def test_exports_are_for_the_host_only(client: FlaskClient, service: Service) -> None:
    client.post("/api/commands", json={"name": "roll"})
    game_id = service.table.run.game_id  # type: ignore[union-attr]
    assert client.get(f"/api/games/{game_id}/export").status_code == 403
    running = client.get(f"/api/games/{game_id}/export", headers=host(service))
    assert (running.status_code, running.get_json()["error"]) == (409, "game_in_progress"), "the seed is still secret"
    client.post("/api/commands", json={"name": "end_game"}, headers=host(service))
    response = client.get(f"/api/games/{game_id}/export", headers=host(service))
    assert response.status_code == 200
    export = response.get_json()
    assert export["chain"] == "verified"
    assert [e["type"] for e in export["events"]] == ["game_started", "dice_rolled", "game_ended", "seed_revealed"]
    assert client.get("/api/games/nope/export", headers=host(service)).status_code == 404
    assert client.get("/api/games/table/export", headers=host(service)).status_code == 404


def test_a_long_poll_returns_as_soon_as_the_log_moves(client: FlaskClient, service: Service) -> None:
    position = client.get("/api/view").get_json()["position"]
    timer = threading.Timer(0.2, lambda: service.table.handle(HOST, Command("roll")))
    timer.start()
    started = time.monotonic()
    body = client.get(f"/api/view?after={position}&wait=10").get_json()
    timer.join()
    assert body["position"] == position + 1
    assert time.monotonic() - started < 5


def test_a_page_ahead_of_the_log_is_answered_at_once(client: FlaskClient) -> None:
    body = client.get("/api/view?after=999999&wait=10").get_json()
    assert body["position"] < 999999


def test_unknown_api_routes_answer_json(client: FlaskClient) -> None:
    response = client.get("/api/nothing-here")
    assert response.status_code == 404
    assert response.get_json()["error"] == "not_found"
    assert client.put("/api/commands").status_code == 405


def test_the_table_page_shows_the_join_qr_code_in_both_languages(client: FlaskClient, service: Service) -> None:
    english = client.get("/table", headers={"Accept-Language": "en"})
    assert english.status_code == 200
    page = english.get_data(as_text=True)
    code = service.table.state.join_code
    assert qr_svg(f"{BASE}/join/{code}") in page, "the QR code encodes the join address with the code"
    assert "Scan to join with your phone" in page
    french = client.get("/table?lang=fr").get_data(as_text=True)
    assert "Scannez pour rejoindre" in french and 'lang="fr"' in french
    assert "https://" not in page.replace(BASE, ""), "no external resources: the page works offline"
    assert client.get("/").headers["Location"].endswith("/table")


def test_every_response_carries_protective_headers(client: FlaskClient) -> None:
    response = client.get("/table")
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert client.get("/api/view").headers["Cache-Control"] == "no-store"
