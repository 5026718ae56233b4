"""The web surface end to end, in Debian's Chromium driven by Playwright, against the real service.

Acceptance: a table display and four phones (separate browser contexts, phone viewport) join through
the URL in the QR code, the host starts the dice tray, a phone rolls, every screen shows the same
result within a second; one phone goes offline for 20 s and catches up; the server is killed with
SIGKILL and restarted and every page recovers by itself; a phone of seat 2 never receives seat 3's
private data (what each page receives is captured). Screenshots of the table display and a phone,
in French and English, are saved in test-artifacts/.

The scene (service, table, phones with their own network links, host) is set up in
tests/support/browser.py; every page records what it receives, and every test ends by checking that
no page got another seat's data and that no page had a script error.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from companion.server.patch import apply as apply_patch
from tests.support.browser import PLAYER_NAMES, SHOWS_ROLL_JS, Scene, Screen, shown_in_time, wait_link

pytestmark = pytest.mark.browser
SHARED_SCENE = True   # every test starts its own game: one scene for all, made new for each

CATCH_UP_S = 5.0  # an offline phone back on the network, or any page after a restart



# ---------------------------------------------------------------------------------------------- helpers

def roll_from(phone: Screen) -> float:
    """Press the phone's Roll button; the moment just before the press."""
    button = phone.page.locator("#roll-me")
    button.wait_for()
    assert button.is_enabled(), f"{phone.name}: the Roll button is disabled"
    clicked = time.monotonic()
    button.click()
    return clicked


def wait_for_roll(screens: list[Screen], number: int, since: float, within_s: float) -> dict[str, float]:
    """Every screen shows roll `number` no later than `within_s` after `since`; when each was seen.

    A question that runs out is answered by the page's own record (`shown_in_time`)."""
    deadline = since + within_s
    seen: dict[str, float] = {}
    for screen in screens:
        left_ms = (deadline - time.monotonic()) * 1000
        try:
            screen.page.wait_for_function(SHOWS_ROLL_JS, arg=number, timeout=max(left_ms, 1))
            seen[screen.name] = round(time.monotonic() - since, 3)
            continue
        except PlaywrightError:
            pass
        seen[screen.name] = round(shown_in_time(screen, f"roll {number}", since, within_s), 3)
    return seen


def expected_roll(scene: Scene, number: int, lang: str = "en") -> dict[str, Any]:
    """What every screen must show for roll `number`, from the service's own view."""
    view = scene.view()
    last = view["game"]["view"]["recent"][0]
    assert last["number"] == number, f"the service's last roll is #{last['number']}, expected #{number}"
    seat = int(last["by"].removeprefix("seat:"))
    name = next(s["name"] for s in view["table"]["seats"] if s["number"] == seat)
    return {"meta": f"#{number} · {name}", "faces": [d["label"][lang] for d in last["dice"]]}


def assert_same_roll_everywhere(scene: Scene, screens: list[Screen], number: int) -> None:
    expected = expected_roll(scene, number)
    shown = {screen.name: screen.last_roll() for screen in screens}
    for name, roll in shown.items():
        assert roll is not None, f"{name} shows no roll at all"
        assert roll["meta"] == expected["meta"], f"{name} shows {roll['meta']!r}, expected {expected['meta']!r}"
        assert roll["faces"] == expected["faces"], f"{name} shows faces {roll['faces']}, expected {expected['faces']}"
    dice = {name: roll["dice"] for name, roll in shown.items() if roll}
    assert len({json.dumps(d) for d in dice.values()}) == 1, f"the screens disagree about the dice: {dice}"


def seat_presence(scene: Scene, name: str) -> Any:
    """The table display's presence mark for the seat of the player called `name`."""
    return scene.table.page.locator("#seats li.taken").filter(has_text=name).locator(".presence")


def parsed(record: dict[str, Any]) -> Any:
    try:
        return json.loads(record["data"])
    except (TypeError, ValueError):
        return None


def you_values(value: Any) -> list[Any]:
    """Every value of a "you" key, at any depth (a command's answer carries a whole view too)."""
    found = []
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "you":
                found.append(inner)
            found.extend(you_values(inner))
    elif isinstance(value, list):
        for inner in value:
            found.extend(you_values(inner))
    return found


def received_views(records: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], Any]]:
    """Each record with what the page held after it: whole views as sent, patches applied to the
    previous view of the same stream, other bodies (boot views, fetch answers, a stream's "alive"
    and "ping" events) as sent."""
    streams: dict[tuple[str, str], Any] = {}
    for record in records:
        data = parsed(record)
        if record["kind"] in ("sse", "sse-network") and record["event"] in ("view", "patch"):
            key = (record["kind"], record["stream"])
            if record["event"] == "patch":
                assert key in streams, f"a patch before any whole view on {record['url']}"
                data = apply_patch(streams[key], data)
            streams[key] = data
        yield record, data


def private_secrets(phone: Screen) -> list[str]:
    """What only this phone and the server know: its entropy bytes for each game, its seat cookie's MAC."""
    stored = phone.page.evaluate("""() => Object.keys(localStorage).filter((k) => k.startsWith("entropy:"))
        .map((k) => JSON.parse(localStorage.getItem(k)).value)""")
    cookies = [c["value"] for c in phone.context.cookies() if c["name"] == "seat"]
    assert len(cookies) == 1, f"{phone.name} should hold one seat cookie, has {cookies}"
    return [*stored, cookies[0].rsplit(".", 1)[1]]


def assert_private_data_stays_private(scene: Scene) -> None:
    """Each phone got only its own seat's view; the table and the host never got any seat's."""
    for screen in scene.screens:
        screen.flush()
    by_seat = {phone.seat: phone for phone in scene.phones}
    secrets = {phone.seat: private_secrets(phone) for phone in scene.phones}
    assert all(len(private) >= 2 for private in secrets.values()), f"every phone contributed entropy: {secrets}"

    # Seat 2, in so many words: never a view of seat 3 (or any other seat), never seat 3's secrets.
    seat2, seat3 = by_seat[2], by_seat[3]
    from_me_stream = 0
    for record, view in received_views(seat2.received + seat2.network):
        for secret in secrets[3]:
            assert secret not in record["data"], f"seat 2 received seat 3's secret in {record['kind']} {record['url']}"
        yous = you_values(view)
        assert all(you["seat"] == 2 for you in yous), f"seat 2 received {yous} from {record['url']}"
        if "/api/stream?as=me" in record["url"] and record["event"] in ("view", "patch"):
            from_me_stream += 1
            # The view's own "you" and its buttons part's "you": both seat 2's, nothing else.
            assert [you["seat"] for you in yous] == [2, 2], f"seat 2's own stream gave it {yous}"
    assert from_me_stream >= 2, "seat 2's stream was recorded (page and network)"
    assert any(you["seat"] == 3 for _, view in received_views(seat3.received) for you in you_values(view)), \
        "seat 3's page did get its own view (the recording works)"

    # And the same rule for every screen: a phone's own seat only; the table and the host no seat at all.
    for screen in scene.screens:
        records = screen.received + screen.network
        assert records, f"{screen.name} recorded nothing"
        for record, view in received_views(records):
            yous = you_values(view)
            if screen.seat is None:
                assert not yous, f"{screen.name} received a seat's view ({yous}) from {record['url']}"
            else:
                assert all(you["seat"] == screen.seat for you in yous), \
                    f"{screen.name} (seat {screen.seat}) received {yous} from {record['url']}"
            for seat, private in secrets.items():
                if seat != screen.seat:
                    leaked = [s for s in private if s in record["data"]]
                    assert not leaked, f"{screen.name} received seat {seat}'s secret from {record['url']}"


def finish(scene: Scene) -> None:
    """What every test checks last: who saw what, and no script error on any page."""
    assert_private_data_stays_private(scene)
    errors = {screen.name: screen.errors for screen in scene.screens if screen.errors}
    assert not errors, f"script errors on the pages: {errors}"


# ------------------------------------------------------------------------------------------------ tests

def test_phones_join_through_the_qr_host_starts_the_tray_and_a_roll_shows_everywhere_within_a_second(
        scene: Scene) -> None:
    # The phones opened the URL read from the QR code on the table display: the table's join URL.
    assert scene.qr_url == f"{scene.service.base}/join/{scene.join_code}"
    assert [phone.seat for phone in scene.phones] == [1, 2, 3, 4]
    for phone, name in zip(scene.phones, PLAYER_NAMES, strict=True):
        assert phone.page.locator("#who").inner_text() == f"{name} · Seat {phone.seat}"
        seat_presence(scene, name).filter(has_text="here").wait_for()

    # The host ends the dice tray that started with the service, then starts a new one.
    old_game = scene.view()["game"]["id"]
    host = scene.host.page
    dialogs: list[str] = []
    host.once("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.accept()))
    host.locator("#end-game").click()
    host.locator("#start-form").wait_for()
    assert dialogs == ["End this game for everyone?"]
    scene.table.page.locator("#game .notice", has_text="This game is over.").wait_for()
    host.locator("#game-select").select_option("dice-tray")
    host.locator("#start-form button[type=submit]").click()
    view = scene.wait_for_view(lambda v: v["game"] is not None and v["game"]["id"] != old_game
                               and not v["game"]["ended"])
    new_game = view["game"]["id"]
    host.locator("#game-status", has_text=f"{new_game} · in progress").wait_for()
    assert host.locator("#start-form").is_hidden()
    for screen in [scene.table, *scene.phones]:
        screen.page.wait_for_function("""() => {
          const meta = document.querySelector(".result .meta");
          return !!meta && meta.textContent === "" && !document.querySelector("#game .notice"); }""")
    scene.wait_until_settled()

    # A phone rolls: every screen, the phone itself included, shows the same roll within a second.
    clicked = roll_from(scene.phones[1])
    seen = wait_for_roll(scene.screens, 1, since=clicked, within_s=1.0)
    assert max(seen.values()) <= 1.0, seen
    assert_same_roll_everywhere(scene, scene.screens, 1)
    assert expected_roll(scene, 1)["meta"] == "#1 · Bruno"
    finish(scene)


def test_a_phone_offline_for_twenty_seconds_catches_up(scene: Scene) -> None:
    scene.wait_until_settled()
    offline, roller = scene.phones[0], scene.phones[3]
    wait_for_roll(scene.screens, 1, since=roll_from(roller), within_s=1.0)

    offline.go_offline()
    went = time.monotonic()
    wait_link(offline, up=False, within_s=CATCH_UP_S)
    assert offline.page.locator("#offline").is_visible(), "the phone says its seat is kept while it reconnects"

    # Meanwhile another phone rolls twice; the table follows, the offline phone cannot.
    wait_for_roll([scene.table], 2, since=roll_from(roller), within_s=1.0)
    offline.page.wait_for_timeout(max(0.0, went + 10 - time.monotonic()) * 1000)
    wait_for_roll([scene.table], 3, since=roll_from(roller), within_s=1.0)
    scene.table.page.wait_for_timeout(max(0.0, went + 20 - time.monotonic()) * 1000)
    assert time.monotonic() - went >= 20
    shown = offline.last_roll()
    assert shown is not None and shown["meta"].startswith("#1 "), f"the offline phone got news: {shown}"
    assert offline.link_state() == "down:reconnecting…", "still offline, the phone still says so"

    offline.go_online()
    wait_for_roll([offline], 3, since=time.monotonic(), within_s=CATCH_UP_S)
    wait_link(offline, up=True, within_s=CATCH_UP_S)
    assert offline.page.locator("#offline").is_hidden()
    assert_same_roll_everywhere(scene, scene.screens, 3)
    seat_presence(scene, PLAYER_NAMES[0]).filter(has_text="here").wait_for(timeout=CATCH_UP_S * 1000)
    finish(scene)


def test_every_page_recovers_by_itself_after_the_server_is_killed_and_restarted(own_scene: Scene) -> None:
    scene = own_scene   # its service is killed
    scene.wait_until_settled()
    wait_for_roll(scene.screens, 1, since=roll_from(scene.phones[0]), within_s=1.0)
    for screen in scene.screens:
        screen.page.evaluate("() => { window.__sameDocument = true; }")

    scene.service.kill()
    for screen in scene.screens:
        wait_link(screen, up=False, within_s=CATCH_UP_S)
    scene.service.start()
    for screen in scene.screens:
        wait_link(screen, up=True, within_s=2 * CATCH_UP_S)
    for name in PLAYER_NAMES:
        seat_presence(scene, name).filter(has_text="here").wait_for(timeout=CATCH_UP_S * 1000)

    wait_for_roll(scene.screens, 2, since=roll_from(scene.phones[2]), within_s=1.0)
    assert_same_roll_everywhere(scene, scene.screens, 2)
    not_reloaded = {screen.name: screen.page.evaluate("() => window.__sameDocument === true")
                    for screen in scene.screens}
    assert all(not_reloaded.values()), f"pages that were reloaded: {not_reloaded}"
    finish(scene)


def test_seat_two_never_receives_seat_three_private_data(scene: Scene) -> None:
    scene.wait_until_settled()   # every phone committed and revealed its own random bytes
    seat2, seat3 = scene.phones[1], scene.phones[2]
    assert (seat2.seat, seat3.seat) == (2, 3)
    wait_for_roll(scene.screens, 1, since=roll_from(seat3), within_s=1.0)
    wait_for_roll(scene.screens, 2, since=roll_from(seat2), within_s=1.0)
    # Seat 2 wakes up (the page resyncs by asking for its view) and reloads: more chances to get it wrong.
    seat2.page.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")
    seat2.page.wait_for_function(
        "() => window.__received.some((r) => r.kind === 'fetch' && r.url.includes('/api/view'))")
    seat2.page.reload()
    wait_link(seat2, up=True, within_s=CATCH_UP_S)

    seat2.flush()
    heard_seat3 = [record for record, view in received_views(seat2.received)
                   if record["kind"] == "sse" and record["event"] in ("view", "patch") and view.get("game")
                   and any(roll["by"] == "seat:3" for roll in view["game"]["view"]["recent"])]
    assert heard_seat3, "seat 2 saw seat 3's public roll (seat 3 was active while seat 2 listened)"
    finish(scene)


def test_screenshots_of_the_table_and_a_phone_in_english_and_french(scene: Scene, artifacts: Path) -> None:
    scene.wait_until_settled()
    wait_for_roll(scene.screens, 1, since=roll_from(scene.phones[2]), within_s=1.0)
    words = {"en": ("Last roll", "Seats"), "fr": ("Dernier lancer", "Places")}
    for screen, shot in ((scene.table, "table"), (scene.phones[1], "phone")):
        for lang in ("en", "fr"):
            page = screen.page
            page.goto(scene.url_of(screen, lang))
            page.locator("#link:not(.down)").wait_for()
            page.wait_for_function(SHOWS_ROLL_JS, arg=1)
            assert page.locator("html").get_attribute("lang") == lang
            page.get_by_text(words[lang][0]).first.wait_for()
            if shot == "table":
                page.get_by_role("heading", name=words[lang][1]).wait_for()
            shown = screen.last_roll()
            assert shown is not None and {k: shown[k] for k in ("meta", "faces")} == expected_roll(scene, 1, lang)
            page.screenshot(path=str(artifacts / f"{shot}-{lang}.png"), full_page=True, animations="disabled")
    for name in ("table-en", "table-fr", "phone-en", "phone-fr"):
        assert (artifacts / f"{name}.png").stat().st_size > 10_000
    table = scene.table.page  # on a 720p TV in kiosk mode, which nobody scrolls, the address stays in view
    table.set_viewport_size({"width": 1280, "height": 720})
    assert table.evaluate("document.documentElement.scrollHeight") <= 720, "the table display scrolls on a 720p TV"
    foot = table.locator("footer.foot")
    box = foot.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 720
    assert scene.service.base.split("//")[1] in foot.inner_text()
    finish(scene)


def test_every_screen_says_what_was_undone_and_by_whom(scene: Scene) -> None:
    scene.wait_until_settled()
    bruno = scene.phones[1]
    before = scene.view()["position"]
    bruno.page.locator(".chips button", has_text="d8").first.click()
    scene.wait_for_view(lambda v: v["position"] > before)
    undo = bruno.page.get_by_role("button", name="Undo my last action")
    undo.click()
    said = "↶ Bruno took back “change the dice in the tray”."
    for screen in scene.screens:
        notice = screen.page.locator("#undone")
        notice.filter(has_text=said).wait_for(timeout=5000)
        assert notice.get_attribute("role") == "status", "a screen reader hears it too"
    # The host takes back its own change: every screen says so, and the next move clears it.
    assert scene.service.post("set_tray", {"dice": ["d6", "d6"]}, host=True)["ok"]
    scene.host.page.locator("#undo").click()
    for screen in scene.screens:
        screen.page.locator("#undone", has_text="↶ The host took back “change the dice in the tray”.").wait_for(
            timeout=5000)
    assert scene.service.post("set_tray", {"dice": ["d4"]}, host=True)["ok"]
    for screen in scene.screens:
        screen.page.locator("#undone").wait_for(state="hidden", timeout=5000)
    finish(scene)
