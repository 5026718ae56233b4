"""What the Dracula story test needs besides the screens: the god's eye on the round (read from the
game's log, which no screen may show), the routine answers sent from each phone's own page, and the
screenshots in both languages.

The random deal decides who is Dracula and who gets which object: the story reads them here and is
written relative to them, never by rigging the service. The many routine answers (thirteen rooms,
thirteen actions, thirteen "I have read my news" a night) go through each phone's own page with its
own cookie, as its buttons would send them; the test taps the story's key moments on the screens.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from companion.games.dracula import DRACULA
from companion.games.dracula.state import DraculaState
from companion.service import DATABASE_NAME
from companion.store import EventStore
from companion.table.gamerun import GameRun
from tests.support.browser import Scene, Screen, holding, shoot, switch_language

COMMAND_JS = """([name, args]) => fetch('/api/commands', {method: 'POST', credentials: 'same-origin',
  headers: {'Content-Type': 'application/json'}, body: JSON.stringify({as: 'me', name, args})})
  .then((r) => r.json())"""


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


def all_ready(phones: list[Screen]) -> None:
    for phone in phones:
        command(phone, "ready")


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


def _settled(scene: Scene, phone: Screen) -> None:
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
            _settled(scene, phone)
        if peek == "dracula-letters" and phone.page.locator("#dracula-messages[open]").count() == 0:
            phone.page.locator("#dracula-messages summary").click()
        _shoot_held(phone, peek, artifacts / f"dracula-story-{name}-phone-{lang}.png")
    switch_language(scene, [phone], "en", ready)
