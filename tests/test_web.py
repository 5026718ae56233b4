"""Phones, the table display and the host over HTTP: joining, identity, live streams, secrecy."""

from __future__ import annotations

import json
import random
import threading

import pytest

from companion.games.base import HOST, TABLE, Command, seat
from companion.games.registry import GAMES
from companion.server.identity import OneTimeLinks, RateLimiter
from companion.table.session import Table, TableSettings
from tests.conftest import ManualClock, seeded
from tests.support.leak import hidden_now, stream_leaks
from tests.support.secret_cards import LEAKY, SECRET_CARDS
from tests.support.web import BASE, Received, Web, cookie, read_stream


def test_a_phone_joins_with_the_code_and_gets_a_protected_seat_cookie(web: Web) -> None:
    phone = web.client()
    response = phone.post("/api/join", json={"code": web.code, "seat": 3, "name": " Zoé "})
    assert response.status_code == 200
    assert response.get_json() == {"ok": True, "seat": 3, "next": "/me"}
    header = response.headers["Set-Cookie"]
    assert "HttpOnly" in header and "SameSite=Strict" in header and "Path=/" in header
    value = cookie(phone, "seat").value
    assert len(value.split(".")[2]) == 32, "a 128-bit token"
    assert "Zoé" not in value, "never a name"
    me = phone.get("/api/view?as=me").get_json()
    assert me["you"] == {"seat": 3, "name": "Zoé"}
    assert phone.get("/me").status_code == 200
    assert phone.get("/join").headers["Location"].endswith("/me"), "a seated phone goes to its screen"
    assert "session" not in [c.key for c in phone._cookies.values()], "no Flask session cookie"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"code": "WRONG1", "seat": 1, "name": "Ann"}, 403, "bad_join_code"),
        ({"seat": 1, "name": "Ann"}, 403, "bad_join_code"),
        ({"code": "@", "seat": 2, "name": "Bob"}, 403, "bad_join_code"),
        ({"code": None, "seat": 9, "name": "Ann"}, 409, "no_such_seat"),
        ({"code": None, "seat": 2, "name": ""}, 409, "bad_name"),
        ({"code": None, "seat": 2, "name": "A" * 21}, 409, "bad_name"),
        ({"code": None, "seat": 2, "name": "Ann\u200b"}, 409, "bad_name"),
        ({"code": None, "seat": 2, "name": "MAX"}, 409, "name_taken"),
        ({"code": None, "seat": 1, "name": "Someone"}, 409, "seat_taken"),
        ({"code": None, "seat": "1", "name": "Ann"}, 409, "no_such_seat"),
    ],
)
def test_a_bad_join_is_refused_and_changes_nothing(web: Web, body: dict, status: int, code: str) -> None:
    web.join(1, "Max")
    if body.get("code", "") is None:
        body = {**body, "code": web.code}
    before = web.service.store.read_all()
    phone = web.client()
    response = phone.post("/api/join", json=body)
    assert (response.status_code, response.get_json()["error"]) == (status, code)
    assert cookie(phone, "seat") is None
    assert web.service.store.read_all() == before


def test_joining_is_rate_limited_per_address(web: Web) -> None:
    phone = web.client()
    statuses = [phone.post("/api/join", json={"code": "WRONG1", "seat": 1, "name": "A"}).status_code
                for _ in range(12)]
    assert statuses[:10] == [403] * 10
    assert statuses[10:] == [429, 429]
    assert phone.post("/api/join", json={"code": web.code, "seat": 1, "name": "A"}).status_code == 429


def test_the_rate_limiter_refills_over_time() -> None:
    now = [0.0]
    limiter = RateLimiter(2, 60.0, clock=lambda: now[0])
    assert [limiter.allow("a"), limiter.allow("a"), limiter.allow("a")] == [True, True, False]
    assert limiter.allow("b"), "another address has its own bucket"
    now[0] = 1.0
    assert limiter.allow("a")


def test_a_locked_table_refuses_new_players_but_keeps_seated_ones(web: Web) -> None:
    seated = web.join(1, "Ann")
    host = web.host()
    assert host.post("/api/commands", json={"as": "host", "name": "lock_joining"}).status_code == 200
    late = web.client().post("/api/join", json={"code": web.code, "seat": 2, "name": "Late"})
    assert late.get_json()["error"] == "joining_locked"
    assert seated.post("/api/commands", json={"as": "me", "name": "roll"}).status_code == 200
    host.post("/api/commands", json={"as": "host", "name": "unlock_joining"})
    web.join(2, "Late")


def test_a_rebind_link_moves_the_seat_once_and_voids_the_old_phone(web: Web) -> None:
    old_phone = web.join(2, "Bob")
    host = web.host()
    link = host.post("/api/host/rebind", json={"seat": 2}).get_json()
    assert link["url"].startswith(f"{BASE}/rebind/") and "<svg" in link["qr"] and link["expires_s"] == 120
    path = link["url"].removeprefix(BASE)
    new_phone = web.client()
    response = new_phone.get(path)
    assert response.status_code == 303 and response.headers["Location"].endswith("/me")
    assert "HttpOnly" in response.headers["Set-Cookie"]
    assert new_phone.get("/api/view?as=me").get_json()["you"] == {"seat": 2, "name": "Bob"}
    assert old_phone.get("/api/view?as=me").status_code == 403
    assert old_phone.post("/api/commands", json={"as": "me", "name": "roll"}).get_json()["error"] == "no_seat"
    replay = web.client().get(path)
    assert replay.status_code == 410
    assert cookie(web.client(), "seat") is None


def test_rebind_links_expire() -> None:
    now = [100.0]
    links = OneTimeLinks(ttl_s=120, clock=lambda: now[0])
    token, _ = links.issue(3)
    now[0] += 121
    assert links.redeem(token) is None
    fresh, _ = links.issue(3)
    assert links.redeem(fresh) == 3
    assert links.redeem(fresh) is None


def test_a_phone_that_leaves_frees_its_seat(web: Web) -> None:
    phone = web.join(4, "Dee")
    assert phone.post("/api/leave").status_code == 200
    assert phone.get("/api/view?as=me").status_code == 403
    seats = web.client().get("/api/view").get_json()["table"]["seats"]
    assert seats[3]["name"] == ""
    web.join(4, "Eve")


def test_the_host_signs_in_with_the_key_and_out_again(web: Web) -> None:
    console = web.client()
    assert console.post("/api/host/login", json={"key": "guess"}).status_code == 403
    assert console.get("/api/view?as=host").status_code == 403
    response = console.post("/api/host/login", json={"key": web.service.host_key})
    assert "HttpOnly" in response.headers["Set-Cookie"] and "SameSite=Strict" in response.headers["Set-Cookie"]
    assert web.service.host_key not in response.headers["Set-Cookie"], "the cookie is not the key"
    assert console.get("/api/view?as=host").status_code == 200
    assert b"host-seats" in console.get("/host").data
    console.post("/api/host/logout")
    assert console.get("/api/view?as=host").status_code == 403
    assert b"login-form" in console.get("/host").data


def test_host_sign_in_is_rate_limited(web: Web) -> None:
    console = web.client()
    codes = [console.post("/api/host/login", json={"key": f"guess{i}"}).status_code for i in range(7)]
    assert codes[:5] == [403] * 5 and codes[5:] == [429, 429]


def test_requests_naming_a_foreign_host_are_refused(web: Web) -> None:
    phone = web.client()
    response = phone.post("/api/commands", json={"name": "roll"}, headers={"Host": "evil.example"})
    assert response.get_json()["error"] == "forbidden_origin"
    ok = phone.post("/api/commands", json={"name": "roll"}, headers={"Host": "192.168.1.20:8080"})
    assert ok.status_code == 200


def test_the_stream_sends_each_viewer_its_view_and_follows_changes(web: Web) -> None:
    phone = web.join(1, "Ann")
    messages: dict[str, list[Received]] = {"table": [], "me": []}
    stop = threading.Event()
    threads = [threading.Thread(target=read_stream, args=(web.client(), "table", stop, messages["table"])),
               threading.Thread(target=read_stream, args=(phone, "me", stop, messages["me"]))]
    for thread in threads:
        thread.start()
    opened = threading.Event()
    for _ in range(200):  # both streams have their first view before the rolls, however slow the start
        if all(messages.values()):
            break
        opened.wait(0.02)
    assert all(messages.values()), "both streams opened"
    for _ in range(3):
        assert phone.post("/api/commands", json={"as": "me", "name": "roll"}).status_code == 200
    position = web.service.table.position
    deadline = threading.Event()
    for _ in range(100):
        if all(m and m[-1].position == position for m in messages.values()):
            break
        deadline.wait(0.05)
    deadline.wait(0.2)
    expected = {"table": web.service.table.view(TABLE), "me": web.service.table.view(seat(1))}
    stop.set()
    web.service.table.broadcaster.close()
    for thread in threads:
        thread.join(5)
    for role, received in messages.items():
        assert received[-1].position == position, role
        last = received[-1].view
        assert last == expected[role], "patches rebuild the view exactly"
        assert last["game"]["view"]["rolls_total"] == 3
        assert ("you" in last) == (role == "me")
        assert len(received[-1].raw) < len(json.dumps(last)) / 2, "after the first message, only changes travel"
    assert messages["me"][-1].view["you"]["seat"] == 1


def test_a_stream_stops_as_soon_as_its_seat_moves_to_another_phone(web: Web) -> None:
    phone = web.join(2, "Bob")
    received: list[Received] = []
    stop = threading.Event()
    reader = threading.Thread(target=read_stream, args=(phone, "me", stop, received))
    reader.start()
    # The seat moves once the stream is open (its first view came): before, the stream would be
    # refused, not stopped.
    for _ in range(250):
        if received or not reader.is_alive():
            break
        stop.wait(0.02)
    assert received and received[0].view is not None, "the phone's stream opened with its view"
    host = web.host()
    path = host.post("/api/host/rebind", json={"seat": 2}).get_json()["url"].removeprefix(BASE)
    web.client().get(path)
    reader.join(5)
    assert not reader.is_alive()
    assert received[-1].raw == "revoked"


def test_presence_shows_which_seats_have_a_screen_open(web: Web) -> None:
    phone = web.join(1, "Ann")
    assert web.client().get("/api/view").get_json()["table"]["seats"][0]["connected"] is False, \
        "seated, but no screen of hers is open yet (the TV shows it so)"
    stop = threading.Event()
    received: list[Received] = []
    reader = threading.Thread(target=read_stream, args=(phone, "me", stop, received))
    reader.start()
    for _ in range(100):
        if web.service.table.presence.connected(seat(1)):
            break
        stop.wait(0.02)
    seats = web.client().get("/api/view").get_json()["table"]["seats"]
    assert seats[0]["connected"] is True and seats[1]["connected"] is False
    stop.set()
    web.service.table.broadcaster.close()
    reader.join(5)
    assert web.client().get("/api/view").get_json()["table"]["seats"][0]["connected"] is False


@pytest.mark.parametrize(("game", "leaks_expected"), [(SECRET_CARDS, False), (LEAKY, True)], ids=["honest", "leaky"])
def test_no_stream_message_carries_a_secret_its_viewer_may_not_know(web: Web, game, leaks_expected: bool) -> None:
    service = web.service
    settings = TableSettings(4, "host_and_own", {})
    service.table.broadcaster.close()
    service.table = Table.open(service.store, {**GAMES, game.id: game}, ManualClock(), seeded(9), settings)
    table = service.table
    table.handle(HOST, Command("end_game"))
    phones = {n: web.join(n, f"Player {n}") for n in range(1, 5)}
    streams: dict[str, list[Received]] = {}
    stop = threading.Event()
    readers = []
    for role, client, key in [("table", web.client(), "table"), ("host", web.host(), "host"),
                              *(("me", phones[n], f"seat:{n}") for n in phones)]:
        streams[key] = []
        readers.append(threading.Thread(target=read_stream, args=(client, role, stop, streams[key])))
    for reader in readers:
        reader.start()
    hidden: dict[int, dict[str, set[str]]] = {}
    rnd = random.Random(4)
    host = web.host()
    for _ in range(12):
        host.post("/api/commands", json={"as": "host", "name": "start_game", "args": {"game": game.id}})
        hidden[table.position] = hidden_now(table)
        for _ in range(6):
            n = rnd.randint(1, 4)
            phones[n].post("/api/commands", json={"as": "me", "name": "reveal"})
            hidden[table.position] = hidden_now(table)
            stop.wait(0.01)
        host.post("/api/commands", json={"as": "host", "name": "end_game"})
        hidden[table.position] = hidden_now(table)
    stop.wait(0.3)
    stop.set()
    table.broadcaster.close()
    for reader in readers:
        reader.join(5)
    assert all(len(messages) > 12 for messages in streams.values()), {k: len(v) for k, v in streams.items()}
    leaks = stream_leaks({viewer: [(m.position, m.raw) for m in received] for viewer, received in streams.items()},
                         hidden)
    if leaks_expected:
        assert leaks and {leak.viewer for leak in leaks} == {"table"}
    else:
        assert leaks == []
