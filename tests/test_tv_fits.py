"""Every game's table display fits one TV screen, readable from the sofa.

A TV in kiosk mode cannot scroll: what lies below the fold or under the footer is never seen. For
every game in the registry (so the games added later are covered without a change here), at every
player count it allows, in English and French, at 1920x1080 and 1280x720, the table display is
rendered with the game running mid-game (random allowed moves played through the service's API, so
there are results, histories and every player's panel), and checked:

* nothing is outside the screen: every piece of text, every picture (svg, img) and the page itself
  lie within the viewport (the page does not scroll);
* nothing is covered: at the middle of every line of text and of every picture, the element the
  browser finds on top (`elementFromPoint`) is that element or inside it: not the footer, not a
  neighbour that spilled over it, not the scrolled-away part of a box;
* nothing is too small: no text below 24 px at 1080p, and below 16 px at 720p (the same rule
  scaled with the screen's height: 24 x 720 / 1080);
* the game says what happened last (its `.last-action` element is on screen).

A failure names every culprit (a CSS path and the start of its text), so the next layout bug names
itself. One Chromium, one page, one service per game; the seat count changes through the host API.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from companion.games.base import TABLE
from companion.games.chasse import CHASSE_AU_VAMPIRE
from companion.games.registry import GAMES
from companion.sim.clients import request
from companion.sim.midgame import MidGame
from companion.sim.players.chasse import play_game
from companion.sim.service import ServiceProcess

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SERVICE_ARGS = ("--simulate",)
"""Every test's service (`companion_service`) has simulated buttons: the reaction games are pressed."""

TRANSLATIONS = Path(__file__).resolve().parents[1] / "web" / "translations"
TURN_KEYS = re.compile(r"^(?!.*_h_).*(turn_of|your_turn|roll_for|rolls_now|next_roller|_starts|_stage_)")
"""The translations that say whose turn it is (or who acts next), in every game; not the lines of
a game's history (`_h_`: "Bruno starts (11)" is what happened, and stays true)."""
SIZES = ({"width": 1920, "height": 1080}, {"width": 1280, "height": 720})
LANGUAGES = ("en", "fr")
SMALLEST_PX_AT_1080 = 24.0
MOVES = {"dice-tray": 8, "buzzer-quiz": 4, "garlic-slap": 14, "nuit-des-vampires": 40, "vampir": 30,
         "chasse-au-vampire": 30, "dracula": 40}
"""Random moves before the check, per game (others: 20): results, histories, every panel filled."""
PASSES: dict[str, tuple[dict[str, str], ...]] = {"chasse-au-vampire": ({}, {"board_mode": "companion"})}
"""A game whose TV draws another screen for some options is checked once per set of them (others:
once, with the defaults): La chasse au vampire on the table's own board, then on the companion's."""
TOURS: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "dracula": ({"gm": "person", "rounds": 2, "day_s": 1800, "dusk_s": 1800, "actions_s": 1800, "dawn_s": 600,
                 "final_s": 1800},
                ("roles", "day", "dusk", "dracula", "actions", "confirm", "dawn", "day_vote", "final_choice",
                 "final_target", "round_over", "roles_next", "over")),
}
"""A game whose TV draws another screen in each phase is also checked in each of them, at the least
and the most players it allows (MidGame.tour: answers where it stops, the host moves the game on
elsewhere), with these options: Dracula with a person as the game master (the night waits for the
confirmation) and phases long enough that none ends while the screen is checked."""
TOURS_MAY_MISS = {"dracula": ("final_choice", "final_target")}
"""Stops a tour may not reach, by the luck of the deal: no human left to flee or fight at the end,
or nobody who fights."""

# Everything on the page that shows something, and whether it is on screen, uncovered and big enough.
CHECK_JS = r"""(smallest) => {
  const problems = [];
  const path = (e) => {
    const parts = [];
    for (let n = e; n && n.nodeType === 1 && n !== document.body; n = n.parentElement) {
      let part = n.tagName.toLowerCase();
      if (n.id) { parts.unshift(part + "#" + n.id); break; }
      const classes = [...n.classList].slice(0, 2).join(".");
      if (classes) part += "." + classes;
      const same = n.parentElement ? [...n.parentElement.children].filter((c) => c.tagName === n.tagName) : [];
      if (same.length > 1) part += `:nth-of-type(${same.indexOf(n) + 1})`;
      parts.unshift(part);
    }
    return parts.join(" > ");
  };
  const words = (e, text) => (text || e.textContent || e.getAttribute("aria-label") || "")
    .trim().replace(/\s+/g, " ").slice(0, 60);
  const say = (e, what, text) => problems.push(`${what}: ${path(e)} "${words(e, text)}"`);
  const box = (r) => `(${Math.round(r.left)},${Math.round(r.top)})-(${Math.round(r.right)},${Math.round(r.bottom)})`;
  const W = innerWidth, H = innerHeight;
  const doc = document.documentElement;
  if (doc.scrollHeight > H + 1 || doc.scrollWidth > W + 1)
    problems.push(`the page scrolls: ${doc.scrollWidth}x${doc.scrollHeight} in a ${W}x${H} screen`);
  // Visually hidden on purpose (a skip link waiting for the keyboard's focus).
  const skipped = (e) => !!e.closest(".skip:not(:focus)");
  const onTop = (e, x, y) => {
    if (x < 0 || y < 0 || x > W - 0.5 || y > H - 0.5) return "outside the screen";
    const hit = document.elementFromPoint(x, y);
    if (!hit) return "outside the screen";
    if (hit === e || e.contains(hit)) return null;
    // One picture drawn in layers (an onion in its tower): the same [role=img] holds both.
    const picture = e.closest("[role=img]");
    if (picture && picture.contains(hit)) return null;
    return `covered by ${path(hit)}`;
  };
  const within = (r) => r.left >= -0.5 && r.top >= -0.5 && r.right <= W + 0.5 && r.bottom <= H + 0.5;
  // Every line of text: its box on screen, its middle not covered, its size readable.
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const e = node.parentElement;
    if (!node.textContent.trim() || !e || skipped(e) || e.closest("script, style, svg, title, option")) continue;
    if (!e.checkVisibility({ visibilityProperty: true, opacityProperty: false })) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0.5 && r.height > 0.5);
    if (!rects.length) continue;
    const size = parseFloat(getComputedStyle(e).fontSize);
    if (size < smallest - 0.05 && !seen.has(e)) {
      say(e, `text of ${size.toFixed(1)} px, below ${smallest} px`, node.textContent);
    }
    for (const r of rects) {
      if (!within(r)) { say(e, `text outside the screen ${box(r)}`, node.textContent); break; }
      const why = onTop(e, r.left + r.width / 2, r.top + r.height / 2);
      if (why) { say(e, `text ${why}`, node.textContent); break; }
    }
    seen.add(e);
  }
  // Every picture (outermost svg, img, canvas): inside the screen, its middle not covered.
  for (const e of document.querySelectorAll("body img, body canvas, body svg")) {
    if (e.parentElement.closest("svg") || skipped(e)) continue;
    if (!e.checkVisibility({ visibilityProperty: true })) continue;
    const r = e.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    if (!within(r)) { say(e, `picture outside the screen ${box(r)}`); continue; }
    const why = onTop(e, r.left + r.width / 2, r.top + r.height / 2);
    if (why) say(e, `picture ${why}`);
  }
  return problems;
}"""

LAST_ACTION_JS = """() => {
  const last = document.querySelector('#game .last-action');
  if (!last || !last.textContent.trim()) return 'no .last-action element with text';
  const r = last.getBoundingClientRect();
  return r.top >= 0 && r.bottom <= innerHeight && r.right <= innerWidth ? null
    : `the last action is off the screen at ${JSON.stringify(r)}`;
}"""


def player_counts(game_id: str) -> list[int]:
    """Every number of players the game allows. A dice tray needs nobody (the table rolls): then
    it is shown with no phone seated as well."""
    game = GAMES[game_id]
    return list(range(game.min_seats, game.max_seats + 1))


def smallest_px(height: int) -> float:
    """24 px at 1080p, scaled with the screen's height."""
    return round(SMALLEST_PX_AT_1080 * height / 1080, 2)


@pytest.fixture(scope="module")
def tv(chromium: Browser) -> Iterator[Page]:
    context = chromium.new_context(viewport=SIZES[0], locale="en-US")
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    yield page
    context.close()
    assert not errors, f"script errors on the table display: {errors}"


SETTLED_CHECK_JS = """async ([smallest, ready]) => {
  // Playwright's visible: displayed, not hidden, a box with an area.
  const shown = (e) => {
    const r = e.getBoundingClientRect();
    return e.checkVisibility() && getComputedStyle(e).visibility === "visible" && r.width > 0 && r.height > 0;
  };
  for (const [selector, strict] of ready) {
    const found = document.querySelectorAll(selector);
    if (!found.length || (strict && found.length > 1) || !shown(found[0])) return null;
  }
  await document.fonts.ready;
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))));
  return [(__CHECK__)(smallest), (__LAST__)()];
}""".replace("__CHECK__", CHECK_JS).replace("__LAST__", LAST_ACTION_JS)
"""The screen once settled (the fonts loaded, two frames drawn: the page lays itself out again in
the frame after a resize), then its problems and where its last action is, in one call; null if
an element the screen waits for (`ready`: selector and whether it is the only match) is not shown
yet: the test then waits for them as Playwright does, and asks again."""
LINK_UP = ("#link:not(.down)", True)
"""The link says connected: the page shows the service's latest state."""
GAME_DRAWN = ("#game > *", False)
"""The game's screen is drawn (its first element)."""

def longest_undo_notice(game_id: str, lang: str) -> str:
    ui = json.loads((TRANSLATIONS / f"{lang}.json").read_text())["ui"]
    move = max((text for key, text in ui.items() if key.startswith(f"move_{game_id}_")), key=len)
    return ui["undone_host"].replace("{move}", move).replace("{actor}", "Player 13")


def check(page: Page, size: dict[str, int], ready: tuple[tuple[str, bool], ...] = (LINK_UP,)) -> list[str]:
    """The screen's problems at this size once it shows everything `ready` names, and is settled."""
    page.set_viewport_size(size)
    smallest = smallest_px(size["height"])
    found = page.evaluate(SETTLED_CHECK_JS, [smallest, ready])
    if found is None:
        for selector, strict in ready:
            (page.locator(selector) if strict else page.locator(selector).first).wait_for()
        found = page.evaluate(SETTLED_CHECK_JS, [smallest, ()])
    problems, last = found
    return [*problems, *([last] if last else [])]


def check_and_show(page: Page, size: dict[str, int], artifacts: Path, where: tuple[str, int, str],
                   case: str = "", ready: tuple[tuple[str, bool], ...] = (LINK_UP,)) -> list[str]:
    """The problems named with where they were seen, and the picture beside them for whoever fixes it."""
    problems = check(page, size, ready)
    game_id, players, lang = where
    if problems:
        suffix = f"-{case.replace(' ', '-')}" if case else ""
        page.screenshot(path=str(artifacts / f"tv-fits-{game_id}-{players}-{lang}-{size['width']}{suffix}.png"))
    said = ", ".join([game_id, f"{players} players", lang, f"{size['width']}x{size['height']}", *filter(None, [case])])
    return [f"{said}: {p}" for p in problems]


def check_as_it_is(tv: Page, base: str, artifacts: Path, where: tuple[str, int], case: str) -> list[str]:
    """The table display of the game as it is now, in each language at each size, with and without
    an undo's notice: it takes a line under the header until the next move, and the play area gives
    it the room (shown here with the longest move name the game has)."""
    game_id, players = where
    failures = []
    for lang in LANGUAGES:
        tv.set_viewport_size(SIZES[0])
        tv.goto(f"{base}/table?lang={lang}")
        for size in SIZES:   # the first check waits for the game drawn too
            ready = (GAME_DRAWN, LINK_UP) if size is SIZES[0] else (LINK_UP,)
            failures += check_and_show(tv, size, artifacts, (game_id, players, lang), case, ready)
        tv.evaluate("(text) => { const n = document.getElementById('undone'); n.textContent = text;"
                    " n.hidden = false; }", longest_undo_notice(game_id, lang))
        for size in SIZES:
            failures += check_and_show(tv, size, artifacts, (game_id, players, lang), f"{case} undo notice".strip())
    return failures


@pytest.mark.parametrize("game_id", list(GAMES))
def test_every_tv_page_fits_one_screen(game_id: str, tv: Page, companion_service: ServiceProcess,
                                       artifacts: Path) -> None:
    service = companion_service
    table = MidGame(service)
    failures: list[str] = []
    for options in PASSES.get(game_id, ({},)):
        said = " ".join(f"{k} {v}" for k, v in options.items())
        for players in player_counts(game_id):
            table.seat_players(players)
            table.start(game_id, options)
            table.play(MOVES.get(game_id, 20))
            failures += check_as_it_is(tv, service.base, artifacts, (game_id, players), said)
            if game_id in TOURS and players in (GAMES[game_id].min_seats, GAMES[game_id].max_seats):
                failures += check_every_phase(table, tv, artifacts, game_id, players)
    assert not failures, f"{len(failures)} problems on the TV:\n" + "\n".join(failures[:80])


def check_every_phase(table: MidGame, tv: Page, artifacts: Path, game_id: str, players: int) -> list[str]:
    """The game started again with its tour's options, and its TV checked at each stop of the tour,
    in both languages and sizes, with and without an undo notice."""
    options, stops = TOURS[game_id]
    table.seat_players(players)
    table.start(game_id, options)
    failures: list[str] = []
    reached = []
    for stop in table.tour(stops):
        reached.append(stop)
        failures += check_as_it_is(tv, table.service.base, artifacts, (game_id, players), stop)
    missed = [stop for stop in stops if stop not in reached and stop not in TOURS_MAY_MISS.get(game_id, ())]
    assert not missed, f"the tour of {game_id} at {players} players never stopped at {missed} (it saw {reached})"
    return failures


BUSIEST_CHASSE = {5: 968, 6: 475}
"""Per number of players, the seed of a random game on the pure rules (out of 1,500) that has the
most transfusions under way at once (three), with donors and travellers at the Doctor's House."""
DRAW_PICTURE_JS = """async ([game, picture]) => {
  const view = await (await fetch('/api/view?as=table')).json();
  window.Companion.showTable({ ...view, game: { ...view.game, game, view: picture, actions: [], undo: null } });
}"""
"""The TV shows a game's picture made by the game's own view function, in the running game's view."""


def busiest_transfusions(players: int) -> Any:
    """The table's picture at the moment of that game with the most transfusions under way."""
    seed = BUSIEST_CHASSE[players]
    busiest: list[Any] = [None]

    def weight(state: Any) -> tuple[int, int]:
        return (len(state.transfusions), sum((t.donor is not None) + len(t.reached) for t in state.transfusions))

    def keep(_before: Any, after: Any, _event: Any) -> None:
        if busiest[0] is None or weight(after) > weight(busiest[0]):
            busiest[0] = after

    play_game(players, {"board_mode": "own"}, seed.to_bytes(8, "big") * 4, random.Random(seed), check=keep)
    assert len(busiest[0].transfusions) == 3, "the seed no longer plays the busiest game: find another"
    return CHASSE_AU_VAMPIRE.view(busiest[0], TABLE)


def test_la_chasse_fits_with_three_transfusions_under_way(tv: Page, companion_service: ServiceProcess,
                                                          artifacts: Path) -> None:
    """The busiest moments random play reaches on the table's own board: three travellers bitten at
    once, waiting for blood, with their donors and who has reached the Doctor's House, at the most
    players; every player's line and what each transfusion waits for fit the TV."""
    service = companion_service
    table = MidGame(service)
    failures: list[str] = []
    for players in sorted(BUSIEST_CHASSE):
        table.seat_players(players)
        table.start("chasse-au-vampire", {"board_mode": "own"})
        picture = busiest_transfusions(players)
        for lang in LANGUAGES:
            tv.set_viewport_size(SIZES[0])
            tv.goto(f"{service.base}/table?lang={lang}")
            tv.locator("#game > *").first.wait_for()
            tv.evaluate(DRAW_PICTURE_JS, ["chasse-au-vampire", picture])
            for size in SIZES:
                failures += check_and_show(tv, size, artifacts, ("chasse-au-vampire", players, lang),
                                           "three transfusions")
                assert tv.locator(".c-transfusion").count() == 3, "the TV drew the picture checked"
    assert not failures, f"{len(failures)} problems on the TV:\n" + "\n".join(failures)


def test_la_chasse_says_in_french_that_several_travellers_must_leave(tv: Page,
                                                                   companion_service: ServiceProcess) -> None:
    """A building that closes on two travellers: "doivent en sortir", on one: "doit en sortir"."""
    service = companion_service
    table = MidGame(service)
    table.seat_players(5)
    table.start("chasse-au-vampire", {"board_mode": "own"})
    picture = busiest_transfusions(5)
    tv.set_viewport_size(SIZES[0])
    tv.goto(f"{service.base}/table?lang=fr")
    tv.locator("#game > *").first.wait_for()
    said = {}
    for seats in ([4], [4, 5]):
        closed = {"kind": "building_closed", "place": "inn", "seats": seats}
        tv.evaluate(DRAW_PICTURE_JS, ["chasse-au-vampire",
                                      {**picture, "happenings": [closed, *picture["happenings"]]}])
        said[len(seats)] = tv.locator("#chasse-last").inner_text()   # the latest happening
    assert said[1].endswith("Player 4 doit en sortir"), said
    assert said[2].endswith("Player 4 et Player 5 doivent en sortir"), said


def test_the_quiz_tv_says_a_cancelled_round_was_cancelled(tv: Page, companion_service: ServiceProcess) -> None:
    """What happened last on the quiz's TV, when the host cancels a round: that it was cancelled,
    even after an earlier round's result (not that result, as if nothing came after it)."""
    service = companion_service
    table = MidGame(service)
    table.seat_players(3)
    table.start("buzzer-quiz")
    def cancelled() -> dict[str, str]:
        """The host arms a round and cancels it: what the TV says happened last, in each language."""
        table.host("arm", {"mode": "race"})
        table.host("cancel_round")
        said = {}
        for lang in LANGUAGES:
            tv.goto(f"{service.base}/table?lang={lang}")
            said[lang] = tv.locator("#game .last-action").inner_text()
        return said

    assert cancelled() == {"en": "Round 1 was cancelled.", "fr": "La manche 1 a été annulée."}
    table.host("arm", {"mode": "race"})   # round 2: settled with no press in its window
    service.wait_for_view(lambda v: v["game"]["view"]["results"] and not v["game"]["view"]["armed"])
    assert cancelled() == {"en": "Round 3 was cancelled.", "fr": "La manche 3 a été annulée."}


def turn_phrases(game_id: str, lang: str, names: list[str]) -> list[str]:
    """Every "whose turn" sentence of a game in `lang` (its translations' keys start with the first
    word of its id), for each of these players (the part before any other parameter, so
    "{name}: draw two cards" is looked for as "Zoé: draw two cards")."""
    words = json.loads((TRANSLATIONS / f"{lang}.json").read_text())["ui"]
    prefix = game_id.split("-")[0] + "_"
    phrases = []
    for key, template in words.items():
        if isinstance(template, str) and key.startswith(prefix) and TURN_KEYS.search(key) and "{name}" in template:
            phrases += [re.split(r"\{", template.replace("{name}", name), maxsplit=1)[0] for name in names]
    return sorted({p for p in phrases if any(name in p for name in names)})


def test_a_game_the_host_ended_shows_nobody_s_turn(tv: Page, companion_service: ServiceProcess) -> None:
    """The host ends each game mid-turn: its TV no longer says whose turn it is, in either
    language (not "Zoé's turn", not "Roll for Bruno")."""
    service = companion_service
    table = MidGame(service)
    shown: list[str] = []
    for game_id, game in GAMES.items():
        players = max(2, game.min_seats)
        table.seat_players(players)
        table.start(game_id)
        table.play(4)
        if table.table_view()["game"]["ended"]:
            continue  # the rules ended it: its own end screen
        table.host("end_game")
        names = [seat["name"] for seat in table.table_view()["table"]["seats"] if seat["name"]]
        for lang in LANGUAGES:
            tv.goto(f"{service.base}/table?lang={lang}")
            tv.locator("#game > *").first.wait_for()
            text = tv.locator("#game").inner_text()
            shown += [f"{game_id} ({lang}): {p!r}" for p in turn_phrases(game_id, lang, names) if p in text]
    assert not shown, "a finished game still says whose turn it is:\n" + "\n".join(shown)


QR_JS = """() => { const r = document.querySelector('#join-box .qr-code svg').getBoundingClientRect();
  const game = document.getElementById('game').getBoundingClientRect();
  return { qr: Math.round(Math.min(r.width, r.height)), game: Math.round(game.width) }; }"""
"""The QR code's size and the play area's width, in pixels."""


def test_the_join_qr_code_steps_aside_while_a_game_runs_and_comes_back_for_a_tap_or_a_new_phone(
        tv: Page, companion_service: ServiceProcess) -> None:
    """Before anyone joins the QR code is large; once a game runs with players it is a corner's (the
    play area has the screen's width); a tap on
    it brings it back large enough to scan from across the room, a second tap sends it back, and
    so does a phone that joins: the TV shows it large, with the new player's name, until a new
    game starts."""
    service = companion_service
    tv.set_viewport_size(SIZES[0])
    tv.goto(f"{service.base}/table?lang=en")  # the dice tray the service starts with, nobody seated yet
    tv.locator("#game .result").wait_for()
    assert tv.evaluate(QR_JS)["qr"] >= 300, "before anyone joins, the QR code is the screen's first use"
    table = MidGame(service)
    table.seat_players(2, seats=4)
    table.start("dice-tray")
    table.play(2)
    tv.goto(f"{service.base}/table?lang=en")
    tv.locator("#game .result").wait_for()
    small = tv.evaluate(QR_JS)
    assert small["qr"] <= 240 and small["game"] >= 1500, f"the QR code does not step aside: {small}"
    tv.locator("#join-box").click()
    tv.locator("body.qr-large").wait_for()
    large = tv.evaluate(QR_JS)
    assert large["qr"] >= 400, f"a tap does not bring the QR code back large: {large}"
    tv.locator("#join-box").click()
    tv.locator("body:not(.qr-large)").wait_for()
    assert tv.evaluate(QR_JS)["qr"] <= 240

    code = table.table_view()["table"]["join_code"]
    status, answer, _ = request(service.port, "POST", "/api/join", {"code": code, "seat": 3, "name": "Nadia"},
                                source="127.2.0.1")
    assert status == 200, answer
    tv.locator("body.qr-large").wait_for(timeout=3000)
    tv.locator("#seats li", has_text="Nadia").wait_for()
    assert tv.evaluate(QR_JS)["qr"] >= 400
    # A new game needs the screen: the QR code goes back to its corner at once.
    table.host("end_game")
    table.start("dice-tray")
    tv.locator("body.playing:not(.qr-large)").wait_for(timeout=3000)
