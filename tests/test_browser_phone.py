"""The phone page as a player holds it, in Debian's Chromium against the real service.

Acceptance: a phone that loses the link says so within a few seconds, whether the browser says it
went offline or the link just goes silent (the socket stays open, nothing arrives), its header never
says "connected" while it is not, and both clear when the link is back; a refused command and a tap
made offline show their message inside the phone's screen, wherever the player had scrolled;
anything only one seat may know sits behind "hold to peek" in every game; and no phone page of any
game is wider than the phone, at 320-430 px, in both languages, at 100 % and 200 % text size.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.support.browser import PHONE_SIZE, PLAYER_NAMES, Scene, Screen

pytestmark = pytest.mark.browser

PLAYERS = PLAYER_NAMES[:2]
TELLS_WITHIN_S = 6.0
"""A phone says its link is down this long after it went, at the latest (a few seconds)."""
BACK_WITHIN_S = 6.0

# Where an element is, and whether the player sees it: displayed, inside the viewport, on top.
SEEN_JS = """(selector) => {
  const node = document.querySelector(selector);
  if (!node) return { seen: false, why: "no such element" };
  const r = node.getBoundingClientRect();
  const style = getComputedStyle(node);
  const text = node.innerText.trim();
  if (node.hidden || style.display === "none" || style.visibility === "hidden" || !r.width || !r.height || !text)
    return { seen: false, why: "not displayed", text };
  const inside = r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5;
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return { seen: inside && !!top && node.contains(top), why: inside ? "covered" : `at y=${Math.round(r.top)}`,
           text, top: Math.round(r.top), bottom: Math.round(r.bottom), height: innerHeight };
}"""


def link_says(screen: Screen) -> str:
    return screen.link_state()


def wait_link(screen: Screen, up: bool, within_s: float) -> float:
    """The header's link line says connected (`up`) or reconnecting within `within_s`; how long it took."""
    started = time.monotonic()
    selector = "#link:not(.down)" if up else "#link.down"
    text = "connected" if up else "reconnecting…"
    try:
        screen.page.locator(selector, has_text=text).wait_for(timeout=within_s * 1000)
    except PlaywrightError:
        pytest.fail(f"{screen.name}: the header should say {text!r} within {within_s} s; it says {link_says(screen)!r}")
    return time.monotonic() - started


def stays_up(screen: Screen, for_s: float) -> None:
    """The header says connected all along (sampled every 250 ms): a quiet table is not a lost link."""
    deadline = time.monotonic() + for_s
    while time.monotonic() < deadline:
        state = link_says(screen)
        assert state == "up:connected", f"{screen.name} said {state!r} on a working, quiet link"
        screen.page.wait_for_timeout(250)


def seen(screen: Screen, selector: str, text: str, within_s: float = 3.0) -> dict[str, Any]:
    """The element `selector` shows `text` where the player looks: inside the viewport, on top."""
    deadline = time.monotonic() + within_s
    where: dict[str, Any] = {}
    while time.monotonic() < deadline:
        where = screen.page.evaluate(SEEN_JS, selector)
        if where["seen"] and text in where["text"]:
            return where
        screen.page.wait_for_timeout(100)
    pytest.fail(f"{screen.name}: {text!r} is not shown inside the {PHONE_SIZE} screen: {where}")


def no_script_errors(scene: Scene) -> None:
    errors = {screen.name: screen.errors for screen in scene.screens if screen.errors}
    assert not errors, f"script errors on the pages: {errors}"


# ------------------------------------------------------------------------------------ the link

def test_the_offline_event_alone_says_the_link_is_down_at_once_and_clears_when_back(scene: Scene) -> None:
    phone = scene.phones[0]
    phone.context.set_offline(True)      # the browser's own "offline" (open streams may keep flowing)
    took = wait_link(phone, up=False, within_s=2.0)
    assert phone.page.locator("#offline").is_visible(), "the banner says the seat is kept"
    phone.page.wait_for_timeout(3000)
    assert link_says(phone) == "down:reconnecting…", "offline for three seconds: still says so"
    phone.context.set_offline(False)
    wait_link(phone, up=True, within_s=BACK_WITHIN_S)
    assert phone.page.locator("#offline").is_hidden()
    assert took < 2.0
    no_script_errors(scene)


def test_a_silent_link_is_told_within_seconds_and_a_quiet_table_is_not(scene: Scene) -> None:
    phone, other = scene.phones
    assert phone.link is not None
    stays_up(phone, 8.0)                 # nothing happens at the table for eight seconds
    phone.link.silence()                 # the socket stays open; nothing arrives any more
    wait_link(phone, up=False, within_s=TELLS_WITHIN_S)
    assert phone.page.locator("#offline").is_visible()
    phone.page.wait_for_timeout(2000)
    assert link_says(phone) == "down:reconnecting…", "still silent: the header must not say connected"
    assert link_says(other) == "up:connected", "the other phone's link is fine"
    phone.link.plug()
    wait_link(phone, up=True, within_s=BACK_WITHIN_S)
    assert phone.page.locator("#offline").is_hidden()
    no_script_errors(scene)


# ------------------------------------------------------------------------------------ errors

def test_a_refused_command_shows_its_reason_inside_the_screen(scene: Scene) -> None:
    phone = scene.phones[0]
    phone.page.set_viewport_size(PHONE_SIZE)
    page = phone.page
    page.locator("details.card summary").click()       # the seat settings, at the bottom of the page
    page.locator("#rename-input").fill(PLAYERS[1])      # the other player's name: refused
    page.locator("#rename-input").scroll_into_view_if_needed()
    page.locator("#rename-form button[type=submit]").click()
    seen(phone, "#error", PLAYERS[1])
    page.evaluate("() => window.scrollTo(0, 0)")        # back at the top: the message is still in view
    seen(phone, "#error", PLAYERS[1])
    no_script_errors(scene)


def test_a_tap_made_offline_says_it_was_not_sent_inside_the_screen(scene: Scene) -> None:
    phone = scene.phones[1]
    phone.page.set_viewport_size(PHONE_SIZE)
    scene.wait_until_settled()
    roll = phone.page.locator("#roll-me")
    roll.wait_for()
    phone.go_offline()
    roll.click()
    where = seen(phone, "#error", "offline")
    assert where["bottom"] <= PHONE_SIZE["height"]
    phone.go_online()
    wait_link(phone, up=True, within_s=BACK_WITHIN_S)
    no_script_errors(scene)
