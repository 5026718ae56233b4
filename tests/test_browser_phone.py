"""The phone page as a player holds it, in Debian's Chromium against the real service.

Acceptance: a phone that loses the link says so within a few seconds, whether the browser says it
went offline or the link just goes silent (the socket stays open, nothing arrives), its header never
says "connected" while it is not, and both clear when the link is back; a refused command and a tap
made offline show their message inside the phone's screen, wherever the player had scrolled;
anything only one seat may know sits behind "hold to peek" in every game; and no phone page of any
game is wider than the phone, at 320-430 px, in both languages, at 100 % and 200 % text size.
"""

from __future__ import annotations

import contextlib
import random
import time
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from companion.games.base import seat as seat_viewer
from companion.games.dracula import DRACULA
from companion.games.garlic import GARLIC_SLAP
from companion.games.nuit import NUIT_DES_VAMPIRES as NUIT
from companion.games.nuit.turn import waiting_for as nuit_waiting
from companion.games.vampir import VAMPIR
from companion.sim.players import garlic as garlic_players
from companion.sim.players import nuit as nuit_players
from companion.sim.players import vampir as vampir_players
from companion.sim.players.dracula import play_series
from tests.support.browser import PHONE_SIZE, PLAYER_NAMES, Scene, Screen, holding, wait_link

pytestmark = pytest.mark.browser

PLAYERS = PLAYER_NAMES   # vampir needs three, dracula four
SHARED_SCENE = True   # every test starts its own game: one scene for all, made new for each
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



def stays_up(screen: Screen, for_s: float) -> None:
    """The header says connected all along (sampled every 250 ms): a quiet table is not a lost link."""
    deadline = time.monotonic() + for_s
    while time.monotonic() < deadline:
        state = screen.link_state()
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
    assert phone.link_state() == "down:reconnecting…", "offline for three seconds: still says so"
    phone.context.set_offline(False)
    wait_link(phone, up=True, within_s=BACK_WITHIN_S)
    assert phone.page.locator("#offline").is_hidden()
    assert took < 2.0
    no_script_errors(scene)


@pytest.mark.slow
def test_a_silent_link_is_told_within_seconds_and_a_quiet_table_is_not(scene: Scene) -> None:
    phone, other = scene.phones[:2]
    assert phone.link is not None
    phone.page.set_viewport_size(PHONE_SIZE)
    scene.wait_until_settled()
    stays_up(phone, 8.0)                 # nothing happens at the table for eight seconds
    phone.link.silence()                 # the socket stays open; nothing arrives any more
    wait_link(phone, up=False, within_s=TELLS_WITHIN_S)
    assert phone.page.locator("#offline").is_visible()
    phone.page.wait_for_timeout(2000)
    assert phone.link_state() == "down:reconnecting…", "still silent: the header must not say connected"
    # A tap into the silence: no answer comes, and the phone says so rather than nothing.
    phone.page.locator("#roll-me").click()
    seen(phone, "#error", "No answer", within_s=13.0)
    assert phone.link_state() == "down:reconnecting…"
    assert other.link_state() == "up:connected", "the other phone's link is fine"
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


def test_the_host_consoles_refusal_shows_inside_its_screen_too(scene: Scene) -> None:
    host = scene.host
    host.page.set_viewport_size(PHONE_SIZE)                # a host runs the table from a phone too
    second = host.page.locator("#host-seats li").nth(1)
    second.scroll_into_view_if_needed()
    second.locator("input").fill(PLAYERS[0])           # the first player's name, for the second seat
    second.locator("button[type=submit]").click()
    seen(host, "#error", PLAYERS[0])
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


# ------------------------------------------------------------------------------- hold to peek

def start(scene: Scene, game: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The host ends the running game and starts `game`; the table's view once every phone shows it."""
    service = scene.service
    assert service.post("end_game", host=True)["ok"]
    started = service.post("start_game", {"game": game, "options": options or {}}, host=True)
    assert started["ok"], started
    view = scene.wait_for_view(lambda v: v["game"] is not None and v["game"]["game"] == game and not v["game"]["ended"])
    for phone in scene.phones:
        phone.page.wait_for_function("(g) => window.Companion && document.querySelector('#game')"
                                     " && !!document.querySelector(`#game [class*='${g}']`)",
                                     arg=game.split("-")[0])
    return view


VISIBLE_TEXT_JS = "() => document.body.innerText"


def held_and_released(phone: Screen, peek: str, secret: str, words: list[str]) -> None:
    """`secret` (a selector) and its `words` are nowhere on the page until the control `peek` is
    held, are shown while it is, and are gone again once it is released."""
    page = phone.page

    def shown() -> tuple[int, list[str]]:
        text = page.evaluate(VISIBLE_TEXT_JS)
        return page.locator(secret).count(), [w for w in words if w in text]

    assert shown() == (0, []), f"{phone.name} shows {secret} {shown()} before it is held"
    with holding(phone, peek):
        try:
            page.locator(secret).first.wait_for(state="visible", timeout=2000)
        except PlaywrightError:
            pytest.fail(f"{phone.name}: holding {peek!r} does not show {secret}")
        count, seen_words = shown()
        assert count and seen_words == words, f"{phone.name} while held: {count} × {secret}, words {seen_words}/{words}"
    page.locator(secret).first.wait_for(state="detached", timeout=2000)
    assert shown() == (0, []), f"{phone.name} still shows {secret} after release: {shown()}"
    # The page moves under a still finger (another player's move redraws what lies above the
    # control): the secret stays shown until the finger lifts or slides.
    with holding(phone, peek):
        page.locator(secret).first.wait_for(state="visible", timeout=2000)
        box = page.locator(f'button.peek[data-peek="{peek}"]').bounding_box()
        assert box is not None
        page.evaluate("() => document.getElementById('main').prepend(Object.assign(document.createElement('div'),"
                      " { id: 'shift', style: 'height: 160px' }))")
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)   # the same point
        page.wait_for_timeout(300)
        assert page.locator(secret).first.is_visible(), f"{phone.name}: a redraw under a still finger hid {secret}"
    page.evaluate("() => document.getElementById('shift').remove()")
    page.locator(secret).first.wait_for(state="detached", timeout=2000)
    # A finger (touch events, as on the phone): shown while it rests on the control, gone when lifted.
    box = page.locator(f'button.peek[data-peek="{peek}"]').bounding_box()
    assert box is not None
    touch = phone.context.new_cdp_session(page)
    point = [{"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}]
    touch.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": point})
    page.locator(secret).first.wait_for(state="visible", timeout=2000)
    page.wait_for_timeout(600)                               # a long press: still shown, no menu
    assert page.locator(secret).first.is_visible()
    touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    page.locator(secret).first.wait_for(state="detached", timeout=2000)
    touch.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": point})
    page.locator(secret).first.wait_for(state="visible", timeout=2000)
    away = [{"x": point[0]["x"], "y": box["y"] - 40}]             # the finger slides off the control
    touch.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": away})
    page.locator(secret).first.wait_for(state="detached", timeout=2000)
    touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    touch.detach()
    # The keyboard: Space held on the control shows it, its release hides it.
    page.locator(f'button.peek[data-peek="{peek}"]').focus()
    page.keyboard.down(" ")
    page.locator(secret).first.wait_for(state="visible", timeout=2000)
    page.keyboard.up(" ")
    page.locator(secret).first.wait_for(state="detached", timeout=2000)
    # The page goes to the background while held: hidden at once.
    with holding(phone, peek):
        page.locator(secret).first.wait_for(state="visible", timeout=2000)
        to_background(phone)
        page.locator(secret).first.wait_for(state="detached", timeout=2000)
    back_from_background(phone)


def to_background(phone: Screen) -> None:
    """The phone switched to another app, or its screen off: the page is hidden."""
    phone.page.evaluate("""() => { Object.defineProperty(document, "hidden", { value: true, configurable: true });
      Object.defineProperty(document, "visibilityState", { value: "hidden", configurable: true });
      document.dispatchEvent(new Event("visibilitychange")); }""")


def back_from_background(phone: Screen) -> None:
    phone.page.evaluate("""() => { delete document.hidden; delete document.visibilityState;
      document.dispatchEvent(new Event("visibilitychange")); }""")


def draw_seat_view(phone: Screen, game: str, view: dict[str, Any], seat: int,
                   actions: list[dict[str, Any]]) -> None:
    """The phone draws `view`, a seat's view of `game` made by the game's own view function, as the
    stream would bring it (in the shape of the phone's current view: its seat made `seat`)."""
    phone.page.evaluate("""([game, picture, seat, actions]) => {
      const boot = window.Companion.boot.view;
      const current = JSON.parse(JSON.stringify(window.__lastView || boot));
      const g = { ...(current.game || {}), game, view: picture, actions, ended: false, undo: null };
      const view = { ...current, you: { ...current.you, seat }, game: g };
      window.Companion.games[game].seat(document.getElementById("game"), g, view);
    }""", [game, view, seat, actions])


def action_list(definition: Any, state: Any, viewer: Any) -> list[dict[str, Any]]:
    """The actions as the table sends them (each allowed or not, with the reason)."""
    out = []
    for command in definition.actions(state, viewer):
        rejection = definition.validate(state, viewer, command)
        reason = None if rejection is None else {"code": rejection.code, "params": dict(rejection.params)}
        out.append({"name": command.name, "args": dict(command.args), "allowed": rejection is None, "reason": reason})
    return out


class _Found(Exception):
    pass


def garlic_moon_look() -> tuple[Any, int]:
    """A garlic game (three players, the pure rules) at a moon look: the state and the looking seat."""
    found: list[Any] = []

    def check(state: Any, event: Any) -> None:
        if state.phase == "moon_look" and state.turn.get("seat"):
            found.append(state)
            raise _Found
    for seed in range(200):
        with contextlib.suppress(_Found):
            garlic_players.play_game(3, {}, seed, check=check)
        if found:
            return found[0], found[0].turn["seat"]
    raise AssertionError("no moon look in 200 random games")


def nuit_peek() -> tuple[Any, int]:
    """A nuit game (three players, the pure rules) in which a seat has peeked into a closed tower."""
    found: list[Any] = []

    def check(before: Any, state: Any, event: Any) -> None:
        if state.phase == "turn" and state.peeks:
            found.append(state)
            raise _Found
    for seed in range(200):
        with contextlib.suppress(_Found):
            nuit_players.play_game(3, {}, seed.to_bytes(8, "big") * 4, random.Random(seed), check=check)
        if found:
            return found[0], found[0].peeks[0][0]
    raise AssertionError("no peek in 200 random games")


def test_a_garlic_moon_look_shows_only_while_held(scene: Scene) -> None:
    phone = scene.phones[0]
    phone.page.set_viewport_size(PHONE_SIZE)
    state, looker = garlic_moon_look()
    viewer = seat_viewer(looker)
    draw_seat_view(phone, GARLIC_SLAP.id, GARLIC_SLAP.view(state, viewer), looker,
                   action_list(GARLIC_SLAP, state, viewer))
    phone.page.locator("#garlic-swap").wait_for()
    assert phone.page.locator("#garlic-swap").is_enabled(), "the swap can be chosen without holding"
    held_and_released(phone, "garlic-look", ".g-looked", [])
    no_script_errors(scene)


def test_a_nuit_peek_shows_only_while_held(scene: Scene) -> None:
    phone = scene.phones[0]
    phone.page.set_viewport_size(PHONE_SIZE)
    state, peeker = nuit_peek()
    view = NUIT.view(state, seat_viewer(peeker))
    tower = view["peeked"][0]
    words = f"Tower {tower['tower']}: " + ("the tomato!" if tower["content"] == "tomato" else "onion")
    draw_seat_view(phone, NUIT.id, view, peeker, [])
    phone.page.locator("#nuit-peeked").wait_for()
    held_and_released(phone, "nuit-peeked", "#nuit-peeked li", [words])
    no_script_errors(scene)


def test_a_vampir_hand_shows_only_while_held_or_opened_to_play_on_its_turn(scene: Scene) -> None:
    start(scene, "vampir")
    pic = scene.wait_for_view(lambda v: v["game"]["view"]["phase"] == "turn")["game"]["view"]
    first = next(phone for phone in scene.phones if phone.seat == pic["current"])
    second = next(phone for phone in scene.phones if phone.seat != pic["current"])
    players = pic["players"]
    for phone in scene.phones:
        phone.page.set_viewport_size(PHONE_SIZE)
        phone.page.locator(".vampir[data-position] #vampir-status[data-phase='turn']").wait_for()
        assert next(p["hand"] for p in players if p["seat"] == phone.seat) > 0, "every player holds cards"
        assert phone.page.locator(".v-pick").count() == 0, f"{phone.name} shows its hand to play unasked"
        held_and_released(phone, "private", "#vampir-hand .v-card", [])
    assert second.page.locator("#show-hand").count() == 0, "not its turn: nothing to open"
    # On its turn the player opens the hand to compose a move; it closes when the phone is put away.
    first.page.locator("#show-hand").click()
    first.page.locator("#vampir-choose .v-pick").first.wait_for()
    first.page.locator("#vampir-choose .v-pick").first.click()
    to_background(first)
    first.page.locator("#vampir-choose .v-pick").first.wait_for(state="detached", timeout=2000)
    back_from_background(first)
    assert first.page.locator("#show-hand").is_visible(), "back from the background: closed, to be opened again"
    no_script_errors(scene)


# ------------------------------------------------------------------------------- widths

WIDTHS = (320, 360, 390, 430)
GAMES = ("dice-tray", "buzzer-quiz", "garlic-slap", "nuit-des-vampires", "vampir", "chasse-au-vampire", "dracula")

# Whatever sticks out of the phone's screen: the page's own width, and each element whose box
# reaches past the right or the left edge (named, with its box and the start of its text); not
# what is wholly left of the screen on purpose (the skip link until it has the focus).
WIDER_JS = """() => {
  const width = document.documentElement.clientWidth;
  const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "")
    + (typeof e.className === "string" && e.className ? "." + e.className.trim().split(/\\s+/).join(".") : "");
  const out = [];
  let first = null;
  for (const e of document.querySelectorAll("body *")) {
    const r = e.getBoundingClientRect();
    if (!first && r.right > width + 0.5) first = e;
    if (!r.width || !r.height) continue;
    if (r.right <= 0) continue;
    if (r.right > width + 0.5 || r.left < -0.5) {
      // The text only of what sticks out: reading every element's text lays out its words again.
      const text = (e.innerText || e.textContent || "").trim().slice(0, 40);
      out.push(`${name(e)} [${Math.round(r.left)}..${Math.round(r.right)}] "${text}"`);
    }
  }
  const chain = [];
  for (let e = first; e && e !== document.body; e = e.parentElement)
    chain.push(`${name(e)}(${getComputedStyle(e).display} ${Math.round(e.getBoundingClientRect().width)})`);
  return { page: document.documentElement.scrollWidth, width, wider: out, chain: chain.join(" < ") };
}"""


TEXT_SIZES = (100, 200)
"""The reader's text size: the root font size at these percents of the page's own."""
AT_EACH_TEXT_SIZE_JS = """(sizes) => {
  const wider = WIDER;
  const root = document.documentElement;
  const found = [];
  for (const percent of sizes) {
    root.style.fontSize = "";
    if (percent !== 100) root.style.fontSize = `${parseFloat(getComputedStyle(root).fontSize) * percent / 100}px`;
    found.push(wider());
  }
  root.style.fontSize = "";
  return found;
}""".replace("WIDER", WIDER_JS)
"""What sticks out at each text size, measured in one call: reading a box lays the page out again
at once (no frame to wait for: no phone page lays itself out on a resize or a later frame)."""


def too_wide(phone: Screen, what: str) -> list[str]:
    """Each width and text size at which the phone's page is wider than the phone, and what sticks out."""
    problems = []
    for width in WIDTHS:
        phone.page.set_viewport_size({"width": width, "height": PHONE_SIZE["height"]})
        for percent, found in zip(TEXT_SIZES, phone.page.evaluate(AT_EACH_TEXT_SIZE_JS, TEXT_SIZES),
                                  strict=True):
            if found["page"] > width or found["wider"]:
                problems.append(f"{what} at {width} px, text {percent} %: page {found['page']} px; "
                                f"{found['wider'][:6]}; in {found['chain']}")
    return problems


def moments(players: int) -> list[tuple[str, Any, Any, int]]:
    """Moments of random games on the pure rules (the first of each phase and stage), each as
    (game, definition, state, seat whose phone shows it): the one to act when someone must."""
    found: dict[tuple[Any, ...], tuple[str, Any, Any, int]] = {}

    def keep(key: tuple[Any, ...], game: str, definition: Any, state: Any, who: int | None) -> None:
        found.setdefault((game, *key), (game, definition, state, who or 1))

    for seed in range(2):
        for mode in ("deck", "physical"):            # the companion's cards, or the real ones
            garlic_players.play_game(players, {"mode": mode}, seed, check=lambda state, _event, mode=mode: keep(
                (mode, state.phase, bool(state.penalties)), GARLIC_SLAP.id, GARLIC_SLAP, state,
                state.turn.get("seat") or (state.penalties[0].seat if state.penalties else None)))
        nuit_players.play_game(players, {}, seed.to_bytes(8, "big") * 4, random.Random(seed),
                               check=lambda _before, state, _event: keep(
            (state.phase, state.stage()), NUIT.id, NUIT, state, (nuit_waiting(state) or [None])[0]))
        if players >= 3:
            for cards in ("digital", "physical"):
                vampir_players.play_game(min(players, 5), {"cards": cards}, seed.to_bytes(8, "big") * 4,
                                         random.Random(seed), check=lambda _before, state, _event, cards=cards: keep(
                    (cards, state.phase, state.stage), VAMPIR.id, VAMPIR, state, state.current))
    return list(found.values())


def dracula_moments(players: int) -> list[tuple[str, Any, Any, int]]:
    """Moments of a random Dracula series (a person game master, so every screen shows), the
    first of each phase, night 1 or later, for a human's phone and a vampire's."""
    found: dict[tuple[Any, ...], tuple[str, Any, Any, int]] = {}

    def keep(_before: Any, state: Any, _event: Any) -> None:
        for p in state.players:
            key = (state.phase, state.night == 1, p.vampire)
            found.setdefault(key, (DRACULA.id, DRACULA, state, p.seat))
    play_series(players, 1, watch=keep, gm="person", rounds=2)
    return list(found.values())


@pytest.mark.slow
def test_no_phone_page_is_wider_than_the_phone(scene: Scene) -> None:
    problems: list[str] = []
    for game in GAMES:
        if scene.view()["game"]["game"] != game:
            start(scene, game)
        pic = scene.view()["game"]["view"]
        current = pic.get("current") if game == "vampir" else None
        for phone in scene.phones[:2] if current is None else [p for p in scene.phones if p.seat == current]:
            for lang in ("en", "fr"):
                phone.page.goto(f"{scene.service.base}/me?lang={lang}")
                phone.page.locator("#link:not(.down)").wait_for()
                phone.page.locator("#game > *").first.wait_for()
                if current is not None:
                    phone.page.locator("#show-hand").click()
                    phone.page.locator("#vampir-choose .v-pick").first.wait_for()
                problems += too_wide(phone, f"{game} {lang} {phone.name}")
    phone = scene.phones[0]
    for lang in ("en", "fr"):
        phone.page.goto(f"{scene.service.base}/me?lang={lang}")
        phone.page.locator("#link:not(.down)").wait_for()
        for players in (3, 6):
            # Dracula's screens at its full table only: thirteen names make its widest lists.
            for game, definition, state, who in moments(players) + (dracula_moments(13) if players == 6 else []):
                viewer = seat_viewer(who)
                draw_seat_view(phone, game, definition.view(state, viewer), who, action_list(definition, state, viewer))
                stage = getattr(state, "stage", None)
                stage = stage() if callable(stage) else stage
                problems += too_wide(phone, f"{game} {lang} {players} players, {state.phase} {stage or ''}")
        state, looker = garlic_moon_look()
        viewer = seat_viewer(looker)
        draw_seat_view(phone, GARLIC_SLAP.id, GARLIC_SLAP.view(state, viewer), looker,
                       action_list(GARLIC_SLAP, state, viewer))
        with holding(phone, "garlic-look"):
            problems += too_wide(phone, f"garlic moon look {lang}")
        state, peeker = nuit_peek()
        draw_seat_view(phone, NUIT.id, NUIT.view(state, seat_viewer(peeker)), peeker, [])
        with holding(phone, "nuit-peeked"):
            problems += too_wide(phone, f"nuit peek {lang}")
    assert not problems, "\n".join(problems)
    no_script_errors(scene)


@pytest.mark.slow
def test_a_vampir_hand_opened_to_play_closes_when_the_phone_lies_untouched(own_scene: Scene) -> None:
    scene = own_scene   # its phone's clock is the test's from now on
    start(scene, "vampir")
    pic = scene.wait_for_view(lambda v: v["game"]["view"]["phase"] == "turn")["game"]["view"]
    phone = next(p for p in scene.phones if p.seat == pic["current"])
    phone.page.set_viewport_size(PHONE_SIZE)
    # The page's own clock, moved on by the test: its timers fire as after the minutes of a real
    # table, without the test waiting them out.
    phone.page.clock.install()
    phone.page.locator("#show-hand").click()
    picks = phone.page.locator("#vampir-choose .v-pick")
    picks.first.wait_for()
    phone.page.clock.fast_forward(20_000)
    picks.first.click()                        # still in use: a touch keeps it open
    phone.page.clock.fast_forward(20_000)
    assert picks.count(), "touched 20 s ago: still open"
    phone.page.clock.fast_forward(11_000)
    picks.first.wait_for(state="detached", timeout=1_000)
    assert phone.page.locator("#show-hand").is_visible()
    assert phone.page.locator(".v-pick[aria-pressed='true'], .v-card.picked").count() == 0, "the picks went with it"
    no_script_errors(scene)
