"""An evening of La chasse au vampire on the TV and four phones, in Debian's Chromium against the
real service: the phones roll and say where they stopped; the master vampire's bite is answered by
garlic on every screen; a bitten traveller is saved by a volunteer's blood at the Doctor's House;
another, bitten too, waits in vain, and the sand glass turning over by itself at nightfall makes
it a disciple on every screen; the saved traveller deposits the stake in the crypt and the
travellers win. Screenshots of the TV and the phones at each moment, in English and French.

The script needs a deal that allows it (tests/support/chasse_story.py): the test alone reads the
deal from the log, as no screen may, and the host starts the game again until one fits.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.games.chasse.rules import GAME_ID, catalogue
from companion.service import DATABASE_NAME
from companion.store import EventStore
from tests.support.browser import Scene, Screen, picture, tv_and_phones, wait_on
from tests.support.chasse_story import Cast, cast_of
from tests.test_browser_chasse import ROOT, both_languages, tap

pytestmark = [pytest.mark.browser, pytest.mark.slow]

GLASS_S = 60
"""A day long enough for the day's taps on a loaded machine (13 s alone; the screenshots are taken
with the glass paused by the host), short enough to wait for its night."""
DEALS = 600


def dealt(scene: Scene) -> Cast | None:
    """The running game's deal, read from the log (the test's god's eye), and the cast it allows."""
    game = scene.view("host")["game"]
    store = EventStore.open(scene.service.data / DATABASE_NAME, read_only=True)
    try:
        events = store.read(game["id"])
    finally:
        store.close()
    options = events[0].data["options"]
    deal = next(e.data for e in events if e.type == "cards_dealt")
    cards = [{"kind": c.kind, "group": c.group} for c in catalogue(options)]
    master = next(e.data["seat"] for e in events if e.type == "master_chosen")
    return cast_of(options, cards, {int(s): stack for s, stack in deal["stacks"].items()}, master)


def deal_the_evening(scene: Scene) -> Cast:
    """The host deals until a deal allows the evening (about one in a hundred). The screens look
    away meanwhile: each would draw every one of those games, a second or more per deal on a
    loaded machine; they come back to the game that is played."""
    addresses = {screen.name: screen.page.url for screen in scene.screens}
    for screen in scene.screens:
        screen.page.goto("about:blank")
    try:
        return first_fitting_deal(scene)
    finally:
        for screen in scene.screens:
            screen.page.goto(addresses[screen.name])
            screen.page.locator("#link:not(.down)").wait_for()


def first_fitting_deal(scene: Scene) -> Cast:
    for _ in range(DEALS):
        view = scene.view()
        if view["game"] is not None and not view["game"]["ended"]:
            assert scene.service.post("end_game", host=True).get("ok")
        answer = scene.service.post("start_game", {"game": GAME_ID, "options": {
            "board_mode": "own", "phase_seconds": GLASS_S}}, host=True)
        assert answer.get("ok"), answer
        while picture(scene.view())["phase"] == "start_roll":
            assert scene.service.post("roll", {}, host=True).get("ok")
        cast = dealt(scene)
        if cast is not None:
            return cast
    raise AssertionError(f"no deal in {DEALS} allowed the evening")


def turn(scene: Scene, phones: dict[int, Screen], who: int, place: str, bite: int | None = None) -> dict[str, Any]:
    """Everyone before `who` rolls and stops elsewhere on their phone; then `who` rolls and stops at
    `place` (a vampire first picks its victim on the phone)."""
    while picture(scene.view())["current"] != who:
        current = picture(scene.view())["current"]
        tap(scene, phones[current], "roll")
        tap(scene, phones[current], "stop", {"place": "elsewhere"})
    tap(scene, phones[who], "roll")
    if bite is None:
        return picture(tap(scene, phones[who], "stop", {"place": place}))
    phone = phones[who].page
    wait_on(phones[who], f"#chasse-bite button[data-bite='{bite}']", "the victim to pick")
    phone.locator(f"#chasse-bite button[data-bite='{bite}']").click()
    return picture(tap(scene, phones[who], "stop", {"place": place, "bite": bite}))


def in_both_languages(scene: Scene, screen: Screen, name: str, artifacts: Path, selector: str) -> None:
    """The screenshots, in English and French, while the host holds the glass: reloading pages in
    another language takes seconds the day's script cannot spare."""
    assert scene.service.post("pause_glass", host=True).get("ok")
    try:
        both_languages(scene, screen, f"story-{name}", artifacts, selector)
    finally:
        assert scene.service.post("resume_glass", host=True).get("ok")


def test_an_evening_on_the_tv_and_four_phones(scene: Scene, artifacts: Path) -> None:
    table = scene.table
    phones = {phone.seat: phone for phone in scene.phones if phone.seat is not None}
    tv_and_phones(scene)
    cast = deal_the_evening(scene)
    for screen in scene.screens:
        wait_on(screen, ROOT, "the game")
    wait_on(table, f".c-player[data-seat='{cast.master}'][data-role='master']", "the master vampire")
    # The game starts by day, when the inn is closed: each traveller's phone says to leave it (C-S4).
    for seat in (cast.garlic, cast.saved, cast.lost):
        wait_on(phones[seat], "#chasse-leave", "the closed inn to leave", has_text="inn")

    # The master plays first, while every traveller is in the inn; its next move bites G: garlic.
    turn(scene, phones, cast.master, "elsewhere")
    pic = turn(scene, phones, cast.master, "elsewhere", bite=cast.garlic)
    assert phones[cast.saved].page.locator("#chasse-leave").count() == 0, "out of the inn: nothing to leave"
    assert pic["revealed"]["kind"] == "garlic" and pic["revealed"]["seat"] == cast.garlic
    for screen in [table, *phones.values()]:
        wait_on(screen, "#chasse-revealed.k-garlic, .c-revealed.k-garlic", "the garlic that answered the bite")
    wait_on(table, f".c-player[data-seat='{cast.master}'][data-place='cemetery']", "the master in the cemetery")
    in_both_languages(scene, table, "tv-garlic", artifacts, ".c-revealed.k-garlic")

    # B is bitten: blood. G volunteers on its phone and is told "compatible"; both reach the doctor.
    pic = turn(scene, phones, cast.master, "elsewhere", bite=cast.saved)
    assert [t["victim"] for t in pic["transfusions"]] == [cast.saved]
    wait_on(table, f".c-player[data-seat='{cast.saved}'] .c-transfusion[data-victim='{cast.saved}']",
            "the transfusion under way")
    pic = picture(tap(scene, phones[cast.garlic], "offer_blood", {"victim": cast.saved}))
    assert pic["transfusions"][0]["donor"] == cast.garlic
    wait_on(table, f".c-transfusion[data-victim='{cast.saved}'][data-donor='{cast.garlic}']", "its donor")
    in_both_languages(scene, phones[cast.saved], "phone-waiting-for-blood", artifacts, "#chasse-mine")
    turn(scene, phones, cast.garlic, "doctor")
    pic = turn(scene, phones, cast.saved, "doctor")
    assert pic["transfusions"] == [] and next(p for p in pic["players"] if p["seat"] == cast.saved)["transfused"]

    # C is bitten: blood, a donor exists, nobody gives before the glass runs out by itself.
    pic = turn(scene, phones, cast.master, "elsewhere", bite=cast.lost)
    assert [t["victim"] for t in pic["transfusions"]] == [cast.lost]
    assert pic["glass"]["side"] == "day", "the day's script fits in the day"
    waiting = f".c-transfusion[data-victim='{cast.lost}']"
    in_both_languages(scene, table, "tv-before-nightfall", artifacts, waiting)
    night = scene.wait_for_view(lambda v: picture(v)["glass"]["side"] == "night", timeout=GLASS_S + 15)
    assert next(p for p in picture(night)["players"] if p["seat"] == cast.lost)["role"] == "disciple"
    for screen in [table, *phones.values()]:
        wait_on(screen, ".sandglass.night", "the night's glass")
    wait_on(table, f".c-player[data-seat='{cast.lost}'][data-role='disciple']", "the new disciple")
    in_both_languages(scene, table, "tv-nightfall", artifacts, ".sandglass.night")

    # B deposits its top card in the crypt: the stake. The travellers win together.
    pic = turn(scene, phones, cast.saved, "crypt")
    assert pic["winner"] == "travellers" and sorted(pic["winners"]) == sorted([cast.garlic, cast.saved])
    wait_on(table, "#chasse-winner", "the win")
    assert table.page.locator(".sandglass").count() == 0, "a won game's glass is not shown as paused"
    both_languages(scene, table, "story-tv-travellers-win", artifacts, "#chasse-winner")
    both_languages(scene, phones[cast.saved], "story-phone-travellers-win", artifacts, "#chasse-winner")
    errors = {screen.name: screen.errors for screen in scene.screens if screen.errors}
    assert not errors, f"script errors on the pages: {errors}"
