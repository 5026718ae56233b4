"""Countdowns count to the server's deadline, in Chromium against the real service.

A page that opens in the middle of a wait (a phone that reconnects, a TV reloaded, a page that drew
late) must show the time left until the deadline the server keeps, not a full wait counted from
when it first saw it. The service's clock and this test's are the same machine's monotonic clock,
so the test knows the time left as the server counts it.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.support.browser import PLAYER_NAMES, Scene, Screen, picture, shoot

pytestmark = pytest.mark.browser

PLAYERS = PLAYER_NAMES[:2]
SERVICE_ARGS = ("--simulate",)
WAIT_S = 3.0
"""How far into the wait the new page opens."""


def server_left_s(ends_us: int) -> float:
    """Seconds left until `ends_us` on the host timeline (the service's clock is CLOCK_MONOTONIC)."""
    return (ends_us - time.monotonic_ns() // 1000) / 1e6


def shown_left_s(screen: Screen, selector: str) -> int:
    """The whole seconds the page's countdown says are left."""
    try:
        screen.page.locator(f"{selector} .timer .countdown").first.wait_for(timeout=5000)
    except PlaywrightError:
        pytest.fail(f"{screen.name} shows no countdown in {selector}")
    text = screen.page.locator(f"{selector} .timer .countdown").first.inner_text()
    digits = "".join(c for c in text if c.isdigit())
    assert digits, f"{screen.name}: {text!r}"
    return int(digits)


def opened_mid_wait(scene: Scene, screen: Screen, path: str) -> Screen:
    """A new tab of that device, opened now (its own session storage, as after a reload or a
    reconnect)."""
    page = screen.context.new_page()
    page.goto(f"{scene.service.base}{path}")
    return Screen(f"{screen.name} (new tab)", screen.context, page)


def agrees(screen: Screen, selector: str, ends_us: int) -> None:
    """The countdown shows the server's time left (whole seconds, rounded up; a second of slack
    for the time between reading the page and reading the clock)."""
    shown = shown_left_s(screen, selector)
    left = server_left_s(ends_us)
    assert math.ceil(left) - 1 <= shown <= math.ceil(left) + 1, \
        f"{screen.name} shows {shown} s left, the server's deadline is {left:.2f} s away"


def test_a_quiz_round_opened_mid_window_shows_the_time_left_to_the_servers_deadline(scene: Scene,
                                                                                     artifacts: Path) -> None:
    service = scene.service
    assert service.post("end_game", host=True)["ok"]
    assert service.post("start_game", {"game": "buzzer-quiz", "options": {"window_s": 20}}, host=True)["ok"]
    armed = service.post("arm", {"mode": "race"}, host=True)
    assert armed["ok"], armed
    ends_us = armed["view"]["game"]["view"]["armed"]["ends_us"]
    time.sleep(WAIT_S)  # the point of the test: time passes before the page opens
    table = opened_mid_wait(scene, scene.table, "/table")
    phone = opened_mid_wait(scene, scene.phones[0], "/me")
    for screen in (table, phone):
        agrees(screen, ".quiz-status", ends_us)
        assert shown_left_s(screen, ".quiz-status") <= 20 - WAIT_S + 1
    # And it keeps counting: two seconds later, two seconds less.
    before = shown_left_s(table, ".quiz-status")
    table.page.wait_for_timeout(2000)
    assert shown_left_s(table, ".quiz-status") in (before - 2, before - 3, before - 1)
    agrees(table, ".quiz-status", ends_us)
    shoot(table, artifacts / "countdown-quiz-table-en.png")
    shoot(phone, artifacts / "countdown-quiz-phone-en.png")


def garlic_view(scene: Scene) -> dict[str, Any]:
    return picture(scene.view())


def test_a_garlic_wait_opened_mid_window_shows_the_time_left_to_the_servers_deadline(scene: Scene,
                                                                                    artifacts: Path) -> None:
    service = scene.service
    assert service.post("end_game", host=True)["ok"]
    options = {"no_slap_timeout_s": 15, "skull_window_s": 15}
    assert service.post("start_game", {"game": "garlic-slap", "options": options}, host=True)["ok"]
    roller = scene.phones[0]
    roller.page.locator("#roll-me").click()
    view = scene.wait_for_view(lambda v: picture(v)["phase"] == "reaction")
    ends_us = picture(view)["turn"]["ends_us"]
    assert 14 < server_left_s(ends_us) <= 15
    time.sleep(WAIT_S)  # the point of the test: time passes before the page opens
    table = opened_mid_wait(scene, scene.table, "/table")
    phone = opened_mid_wait(scene, scene.phones[1], "/me")
    for screen in (table, phone):
        agrees(screen, ".g-status", ends_us)
        assert shown_left_s(screen, ".g-status") <= 15 - WAIT_S + 1
    shoot(table, artifacts / "countdown-garlic-table-en.png")
    shoot(phone, artifacts / "countdown-garlic-phone-en.png")
