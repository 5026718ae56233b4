"""La chasse au vampire end to end, in Debian's Chromium against the real service.

Acceptance: the host starts the game; the TV and four phones (Zoé, Bruno, Chloé, Dmitri) play the
start roll on the phones (ties roll again) and a round of turns as players would, tapping the
buttons their phones offer. On the table's own board: the master vampire's phone refuses the inn
and the chapel with the reason, the first traveller stops at the chapel by day and its stack grows
by one card (on the TV and its phone, which shows the count and never a card), the master vampire
then says on its phone that it bit a traveller on the way, and the card that answered shows on
every screen. On the companion's board: the mover taps a lit square of the board drawn on its phone
and its pawn stands there on the TV. The sand glass shows on every screen all along. Screenshots
of the TV (1920x1080) and a phone (390x844), in English and French, on both boards, are saved in
test-artifacts/chasse-*-{en,fr}.png.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import (
    PHONE_SIZE,
    SOUND_SPY_JS,
    Scene,
    Screen,
    fits,
    on_the_tv,
    picture,
    shoot,
    switch_language,
    tv_and_phones,
    wait_on,
)
from tests.support.browser import tap as tap_button
from tests.test_a11y import grave_violations, small_targets
from tests.test_browser_phone import too_wide

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHASSE = "chasse-au-vampire"
ROOT = ".chasse"
LONG_DAY_S = 900
"""A glass long enough that the whole test is played by day (the chapel gives cards by day only)."""


def tap(scene: Scene, screen: Screen, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    return tap_button(scene, screen, name, args, ROOT)


def both_languages(scene: Scene, screen: Screen, name: str, artifacts: Path, selector: str) -> None:
    """A screenshot in English, then in French, then back to English."""
    for lang in ("en", "fr"):
        if lang == "fr":
            switch_language(scene, [screen], "fr", ROOT)
        wait_on(screen, selector, name)
        shoot(screen, artifacts / f"chasse-{name}-{lang}.png")
    switch_language(scene, [screen], "en", ROOT)


def no_script_errors(scene: Scene) -> None:
    errors = {screen.name: screen.errors for screen in scene.screens if screen.errors}
    assert not errors, f"script errors on the pages: {errors}"


def start(scene: Scene, options: dict[str, Any]) -> dict[str, Any]:
    """The host ends the dice tray and starts the game; the table's view once every screen shows it."""
    assert scene.service.post("end_game", host=True).get("ok")
    answer = scene.service.post("start_game", {"game": CHASSE, "options": {"phase_seconds": LONG_DAY_S, **options}},
                                host=True)
    assert answer.get("ok"), answer
    scene.wait_for_view(lambda v: v["game"] is not None and v["game"]["game"] == CHASSE)
    for screen in scene.screens:
        wait_on(screen, ROOT, "the game")
    return scene.wait_until_settled()


def player(pic: dict[str, Any], seat: int) -> dict[str, Any]:
    return next(p for p in pic["players"] if p["seat"] == seat)


def glass_everywhere(scene: Scene) -> None:
    """The sand glass is on every screen, the TV's within its one screen."""
    on_the_tv(scene.table, ".c-glass")
    for screen in [*scene.phones, scene.host]:
        assert screen.page.locator(".c-glass").first.is_visible(), f"{screen.name} shows no sand glass"


def start_roll(scene: Scene, phones: dict[int, Screen]) -> dict[str, Any]:
    """Each seat still to roll taps Roll on its phone, tied seats again, until the master is known."""
    while True:
        pic = picture(scene.view())
        if pic["phase"] != "start_roll":
            return pic
        seat = pic["start"]["waiting"][0]
        view = tap(scene, phones[seat], "roll")
        rolled = picture(view)
        if rolled["phase"] == "start_roll" and rolled["start"]["rolls"]:
            # The TV shows the seat's roll beside its name.
            shown = scene.table.page.locator(f"#chasse-start li[data-seat='{seat}'] .c-die")
            if str(seat) in rolled["start"]["rolls"]:
                assert shown.inner_text() == str(rolled["start"]["rolls"][str(seat)])


# The TV draws the running game's view as it would be once won (the game's own table screen, the
# winner and the winning seats replaced): the end screen, without playing a whole game.
DRAW_WON_JS = """async ([winner, winners, how]) => {
  const view = await (await fetch('/api/view?as=table')).json();
  const g = structuredClone(view.game);
  g.view = { ...g.view, phase: 'over', winner, winners, current: null, roll: null, allowance: null, stage: null,
    happenings: [{ kind: 'game_won', winner, winners, how }, ...g.view.happenings] };
  window.Companion.games['chasse-au-vampire'].table(document.getElementById('game'), g, view);
  return document.getElementById('chasse-winner').textContent;
}"""


def won(scene: Scene, winner: str, winners: list[int], how: str) -> str:
    """What the TV's end screen says (drawn once the page has drawn the live view it follows)."""
    scene.table.wait_for_position(scene.view()["position"])
    scene.table.page.wait_for_timeout(200)
    said: str = scene.table.page.evaluate(DRAW_WON_JS, [winner, winners, how])
    return said


def narrow_and_large_text(phone: Screen, what: str) -> None:
    """The phone's page is no wider than the phone at 320-430 px, at 100 % and 200 % text size."""
    problems = too_wide(phone, what)
    phone.page.set_viewport_size(PHONE_SIZE)
    assert not problems, "\n".join(problems)


def roll_on_phone(scene: Scene, phone: Screen, seat: int) -> dict[str, Any]:
    pic = picture(tap(scene, phone, "roll"))
    assert pic["current"] == seat and pic["roll"] is not None, pic
    return pic


# ------------------------------------------------------------------------------------------- own board

def test_four_phones_play_the_hunt_on_their_own_board(scene: Scene, artifacts: Path) -> None:
    table = scene.table
    phones = {phone.seat: phone for phone in scene.phones}
    tv_and_phones(scene)
    start(scene, {"board_mode": "own"})
    wait_on(table, "#chasse-start", "the start roll")
    both_languages(scene, table, "tv-start-roll", artifacts, "#chasse-start")
    pic = start_roll(scene, phones)
    master = next(p["seat"] for p in pic["players"] if p["role"] == "master")
    at = pic["order"].index(master)
    travellers = [*pic["order"][at + 1:], *pic["order"][:at]]   # clockwise from the master
    assert pic["current"] == master
    wait_on(table, f".c-player[data-seat='{master}'][data-role='master']", "the master vampire on the TV")
    for seat in travellers:   # two cards each, shown as a count only
        wait_on(table, f".c-player[data-seat='{seat}'][data-cards='2'] .c-stack", f"seat {seat}'s two cards")
    glass_everywhere(scene)

    # The master vampire: the inn and the chapel are refused with the reason; it stops elsewhere
    # (every traveller is still in the inn, where nobody may be bitten: no bite is offered).
    roll_on_phone(scene, phones[master], master)
    mine = phones[master].page
    inn = mine.locator("#chasse-where button[data-place='inn']")
    assert inn.is_disabled() and "inn or the chapel" in mine.locator("#chasse-where").inner_text()
    assert mine.locator("#chasse-bite").count() == 0, "nobody may be bitten in the inn"
    both_languages(scene, phones[master], "phone-vampire-stops", artifacts, "#chasse-where")
    tap(scene, phones[master], "stop", {"place": "elsewhere"})

    # The first traveller goes to the chapel by day: its stack grows by one, unseen.
    first = travellers[0]
    pic = roll_on_phone(scene, phones[first], first)
    assert pic["allowance"] == 2 * pic["roll"]
    wait_on(table, "#chasse-allowance", "the doubled allowance", has_text="doubled by day")
    piled = pic["chapel_pile"]
    pic = picture(tap(scene, phones[first], "stop", {"place": "chapel"}))
    assert player(pic, first)["cards"] == 3 and pic["chapel_pile"] == piled - 1, pic
    wait_on(table, f".c-player[data-seat='{first}'][data-cards='3']", "three cards in the chapel-goer's stack")
    wait_on(phones[first], "#chasse-my-stack", "its own count", has_text="3 cards, you may not look at them")
    wait_on(table, ".c-chapel", "the chapel pile's size", has_text=f"{piled - 1} cards")
    both_languages(scene, phones[first], "phone-traveller-chapel", artifacts, "#chasse-my-stack")

    # The other travellers stop elsewhere, within a vampire's reach.
    for seat in travellers[1:]:
        roll_on_phone(scene, phones[seat], seat)
        tap(scene, phones[seat], "stop", {"place": "elsewhere"})

    # The master vampire bites on the way: the victim's top card answers, on every screen.
    victim = travellers[1]
    roll_on_phone(scene, phones[master], master)
    wait_on(phones[master], f"#chasse-bite button[data-bite='{victim}']", "the victim to pick")
    assert mine.locator("#chasse-bite button[data-bite]").count() == 1 + len(travellers[1:]), \
        "no bite, or one of the travellers out of the chapel"
    narrow_and_large_text(phones[master], "the vampire's bite and places")
    found = grave_violations(mine)
    assert not found, f"the vampire's choices: serious accessibility violations: {found}"
    small = small_targets(mine)
    assert not small, f"targets under 44 px on the vampire's phone: {small}"
    mine.locator(f"#chasse-bite button[data-bite='{victim}']").click()
    wait_on(phones[master], f"#chasse-bite button[data-bite='{victim}'][aria-pressed='true']", "the chosen victim")
    before = player(picture(scene.view()), victim)["cards"]
    table.page.evaluate(SOUND_SPY_JS)
    pic = picture(tap(scene, phones[master], "stop", {"place": "elsewhere", "bite": victim}))
    shown = pic["revealed"]
    assert shown and shown["seat"] == victim and shown["by"] == master and shown["why"] == "riposte", pic
    assert player(pic, victim)["cards"] <= before - 1
    for screen in [table, *scene.phones, scene.host]:
        wait_on(screen, f"#chasse-revealed[data-seat='{victim}'][data-kind='{shown['kind']}'] .c-face",
                "the card that answered the bite")
    on_the_tv(table, "#chasse-revealed")
    assert table.page.evaluate("() => window.__tones.length") > 0, "a card turned face up makes no sound on the TV"
    found = grave_violations(table.page)
    assert not found, f"the TV's reveal: serious accessibility violations: {found}"
    glass_everywhere(scene)
    both_languages(scene, table, "tv-bite", artifacts, "#chasse-revealed")
    both_languages(scene, phones[victim], "phone-bitten", artifacts, "#chasse-revealed")

    # The chapel-goer draws again: a card taken face down is no reveal, and makes no sound.
    table.page.evaluate(SOUND_SPY_JS)   # again: the language switches reloaded the page
    roll_on_phone(scene, phones[first], first)
    pic = picture(tap(scene, phones[first], "stop", {"place": "chapel"}))
    assert player(pic, first)["cards"] == 4 and pic["revealed"] == shown, pic
    wait_on(table, f".c-player[data-seat='{first}'][data-cards='4']", "four cards in the chapel-goer's stack")
    assert table.page.evaluate("() => window.__tones.length") == 0, "a chapel draw rang like a card turned face up"

    # A volunteer offers blood when the bite asks for a transfusion: the answer is public.
    if pic["transfusions"]:
        donor = next(s for s in travellers if s != victim and player(pic, s)["role"] == "traveller")
        pic = picture(tap(scene, phones[donor], "offer_blood", {"victim": victim}))
        offered = next(h for h in pic["happenings"] if h["kind"] == "blood_offered")
        wait_on(table, "#chasse-last", "the answer", has_text="compatible")
        assert offered["donor"] == donor
        both_languages(scene, table, "tv-transfusion", artifacts, "#chasse-last")

    # The end: who won, in words, on the one screen of the TV.
    names = {p["seat"]: p["name"] for p in pic["players"]}
    winners = [s for s in travellers if player(pic, s)["role"] == "traveller"]
    for lang in ("en", "fr"):
        switch_language(scene, [table], lang, ROOT)
        said = won(scene, "travellers", winners, "trio")
        assert all(names[s] in said for s in winners), said
        if lang == "en":
            assert said.startswith("The travellers win: ")
            assert "holy water" in table.page.locator("#chasse-status").inner_text()
        on_the_tv(table, "#chasse-status")
        shoot(table, artifacts / f"chasse-tv-travellers-win-{lang}.png")
        said = won(scene, "master", [master], "master")
        assert names[master] in said and (lang == "fr" or said == f"The master vampire wins: {names[master]}")
        shoot(table, artifacts / f"chasse-tv-master-wins-{lang}.png")
    switch_language(scene, [table], "en", ROOT)
    for phone in scene.phones:
        fits(phone)
    no_script_errors(scene)


# ------------------------------------------------------------------------------------- companion's board

def test_a_phone_moves_its_pawn_by_tapping_a_lit_square_of_the_companions_board(scene: Scene, artifacts: Path) -> None:
    table = scene.table
    phones = {phone.seat: phone for phone in scene.phones}
    tv_and_phones(scene)
    start(scene, {"board_mode": "companion"})
    pic = start_roll(scene, phones)
    mover = pic["current"]
    phone = phones[mover]
    wait_on(table, "#chasse-board .c-board-art", "the board on the TV")
    on_the_tv(table, "#chasse-board .c-board-art")
    glass_everywhere(scene)
    # The host pauses the glass: everyone waits, the mover's phone says why it may not roll.
    tap(scene, scene.host, "pause_glass")
    wait_on(table, "#chasse-glass .sandglass.paused", "the paused glass on the TV")
    wait_on(phone, ".c-glass .sandglass.paused", "the paused glass on the mover's phone")
    assert phone.page.locator("#chasse-roll").is_disabled()
    wait_on(phone, "#chasse-choose .reason", "why the roll waits", has_text="paused")
    both_languages(scene, table, "tv-paused", artifacts, "#chasse-glass .sandglass.paused")
    tap(scene, scene.host, "resume_glass")
    wait_on(phone, ".c-glass .sandglass.running", "the glass running again")
    roll_on_phone(scene, phone, mover)
    lit = phone.page.locator("#chasse-board .reach")
    wait_on(phone, "#chasse-board .reach", "the squares within reach")
    assert lit.count() > 0
    narrow_and_large_text(phone, "the companion's board with the squares within reach")
    found = grave_violations(phone.page)
    assert not found, f"the board's move: serious accessibility violations: {found}"
    found = grave_violations(table.page)
    assert not found, f"the TV's board: serious accessibility violations: {found}"
    both_languages(scene, phone, "phone-board", artifacts, "#chasse-board .reach")
    square = phone.page.locator("#chasse-board .reach").last
    to = square.get_attribute("data-to")
    assert to is not None
    square.click()
    wait_on(phone, "#chasse-board .reach.picked", "the tapped square")
    assert phone.page.locator("#chasse-square").input_value() == to.replace(" ", "")
    target = [int(n) for n in to.strip("[]").split(",")]
    pic = picture(tap(scene, phone, "move", {"to": target, "bite": None}))
    assert player(pic, mover)["square"] == target, pic
    cx, cy = target[0] * 10 + 5, target[1] * 10 + 5
    pawn = table.page.locator(f"#chasse-board .pawn[data-seat='{mover}'] circle")
    assert abs(float(pawn.get_attribute("cx") or 0) - cx) <= 4 and abs(float(pawn.get_attribute("cy") or 0) - cy) <= 2
    both_languages(scene, table, "tv-board", artifacts, "#chasse-board .pawn")
    glass_everywhere(scene)
    for each in scene.phones:
        fits(each)
    no_script_errors(scene)
