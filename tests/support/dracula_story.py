"""What the Dracula story test needs besides the screens: the god's eye on the round (read from the
game's log, which no screen may show), the routine answers sent from each phone's own page, and the
screenshots in both languages.

The random deal decides who is Dracula and who gets which object: the story reads them here and is
written relative to them, never by rigging the service. The many routine answers (thirteen rooms,
thirteen actions, thirteen "I have read my news" a night) go through each phone's own page with its
own cookie, as its buttons would send them; the test taps the story's key moments on the screens.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from companion.games.dracula import DRACULA
from companion.games.dracula.state import DraculaState
from companion.service import DATABASE_NAME
from companion.store import EventStore
from companion.table.gamerun import GameRun
from tests.support.browser import (
    PHONE_DEVICE,
    NetworkLink,
    Scene,
    SceneBuilder,
    Screen,
    holding,
    shoot,
    switch_language,
)

COMMAND_JS = """([name, args]) => fetch('/api/commands', {method: 'POST', credentials: 'same-origin',
  headers: {'Content-Type': 'application/json'}, body: JSON.stringify({as: 'me', name, args})})
  .then((r) => r.json())"""


# -- thirteen phones, each from its own address --------------------------------------------------

class FullTableBuilder(SceneBuilder):
    """The scene's builder, with each phone on a link from its own address."""

    def phone(self, number: int) -> Screen:
        device = dict(self.playwright.devices[PHONE_DEVICE])
        device.pop("default_browser_type", None)
        # Its own address: thirteen joins from one would be refused as a flood (ten at once).
        link = NetworkLink(self.service.port, f"127.0.0.{10 + number}")
        self.links.append(link)
        return self.open(f"phone {number}", link=link, **device)


# -- the god's eye: the game's state, replayed from its log ----------------------------------------

def game_state(scene: Scene) -> DraculaState:
    """The running game's whole state (every role, object and point), replayed from the service's
    store as `companion replay` would: the whole truth, which only the test may see."""
    game = scene.view("host")["game"]
    store = EventStore.open(scene.service.data / DATABASE_NAME, read_only=True)
    try:
        state: DraculaState = GameRun.replay(DRACULA, store.read(game["id"])).state
        return state
    finally:
        store.close()


def objects_held(state: DraculaState) -> dict[int, str]:
    """Who holds which object (handed out at the end of night 2, until used)."""
    return {p.seat: p.obj for p in state.players if p.obj is not None}


def round_points(state: DraculaState) -> dict[int, float]:
    return {p.seat: p.points for p in state.players}


# -- the phones' routine answers ----------------------------------------------------------------------

def command(phone: Screen, name: str, **args: Any) -> None:
    """The phone's page sends a command as its buttons would (its own cookie), and it is taken."""
    answer = phone.page.evaluate(COMMAND_JS, [name, args])
    assert answer.get("ok"), f"{phone.name} {name} {args}: {answer}"


def reach(scene: Scene, name: str, night: int | None = None, phones: Sequence[Screen] = ()) -> dict[str, Any]:
    """The table's picture once the game is in phase `name` (of `night`), with `phones` showing it
    (the others, answering from their pages, need not have drawn it)."""
    view = scene.wait_for_view(lambda v: v["game"]["view"]["phase"] == name
                               and (night is None or v["game"]["view"]["night"] == night))
    picture: dict[str, Any] = view["game"]["view"]
    for phone in phones:
        phone.page.locator(f".dracula-phone[data-step='{picture['step']}']").wait_for()
    return picture


FIRE_JS = """([name, args]) => { (window.__answers = window.__answers || []).push(
  (""" + COMMAND_JS + """)([name, args]).then((a) => ({name, args, ...a}))); }"""
TAKEN_JS = "() => Promise.all((window.__answers || []).splice(0))"


def answer(sends: Sequence[tuple[Screen, str, Mapping[str, Any]]]) -> None:
    """Each phone's page sends its command, all of them at once as at a table, and each is taken."""
    for phone, name, args in sends:
        phone.page.evaluate(FIRE_JS, [name, dict(args)])
    for phone in {id(phone): phone for phone, _, _ in sends}.values():
        refused = [a for a in phone.page.evaluate(TAKEN_JS) if not a.get("ok")]
        assert not refused, f"{phone.name}: {refused}"


def all_ready(phones: list[Screen]) -> None:
    answer([(phone, "ready", {}) for phone in phones])


def own_sheet(phone: Screen) -> dict[str, Any]:
    """The phone's own secret sheet, as its page may fetch it."""
    view = phone.page.evaluate("() => fetch('/api/view?as=me').then((r) => r.json())")
    return dict(view["game"]["view"]["me"])


def news_kinds(phone: Screen) -> list[str]:
    return [str(n["kind"]) for n in own_sheet(phone)["news"]]


def heard(screen: Screen, text: str) -> bool:
    """Whether anything this screen's pages received (boot views, events, fetches) holds `text`."""
    screen.flush()
    return any(text in str(item.get("data", "")) for item in screen.received)


# -- screenshots in English and French ----------------------------------------------------------------

def tv_shots(scene: Scene, french_tv: Page, artifacts: Path, name: str, selector: str) -> None:
    """Both TVs (English, French) once each shows `selector`, at the same position of the log."""
    position = scene.view()["position"]
    for page in (scene.table.page, french_tv):
        page.wait_for_function(
            "(p) => { const n = document.querySelector('.dracula-table[data-position]');"
            " return !!n && Number(n.dataset.position) >= p; }", arg=position)
        page.locator(selector).first.wait_for()
    scene.table.page.screenshot(path=str(artifacts / f"dracula-story-{name}-tv-en.png"))
    french_tv.screenshot(path=str(artifacts / f"dracula-story-{name}-tv-fr.png"))


def settled(scene: Scene, phone: Screen) -> None:
    """The page has drawn the log's latest position with its fonts loaded: nothing moves under a
    finger held on it any more (a control that moves away from a still finger lets go)."""
    position = scene.view()["position"]
    phone.page.wait_for_function(
        "(p) => { const n = document.querySelector('.dracula-phone[data-position]');"
        " return !!n && Number(n.dataset.position) >= p && document.fonts.status === 'loaded'; }", arg=position)


def _shoot_held(phone: Screen, peek: str | None, path: Path) -> None:
    """A screenshot, with the hold-to-peek control `peek` held down (if any) all the while: of the
    phone's screen as the player sees it then (a whole-page picture resizes the page under the
    finger, which lets go)."""
    if peek is None:
        shoot(phone, path)
        return
    shown = phone.page.locator(f"#peek-{peek}:not([hidden])")
    with holding(phone, peek):
        shown.wait_for()
        phone.page.screenshot(path=str(path), animations="disabled")
        assert shown.count() == 1, f"{phone.name} let go of {peek} during its screenshot"


def phone_shots(scene: Scene, phone: Screen, artifacts: Path, name: str, ready: str,
                peek: str | None = None) -> None:
    """The phone in English, then reloaded in French (with the hold-to-peek `peek` held, if any),
    then back in English: a phone keeps its language in a cookie, so it is switched back. The
    letters' peek is in the Messages box, opened again after a reload."""
    for lang in ("en", "fr"):
        if lang == "fr":
            switch_language(scene, [phone], "fr", ready)
        settled(scene, phone)
        if peek == "dracula-letters" and phone.page.locator("#dracula-messages[open]").count() == 0:
            phone.page.locator("#dracula-messages summary").click()
        _shoot_held(phone, peek, artifacts / f"dracula-story-{name}-phone-{lang}.png")
    switch_language(scene, [phone], "en", ready)
