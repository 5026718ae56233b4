"""Vampir end to end, in Debian's Chromium against the real service.

Acceptance: the host starts the game from the console (the colour-to-location mapping marked
unverified; one round); a table display and three phones play the round to its scoring as players
would, each phone reading its own hand from its screen and tapping: draw two, then place a card
under its location (a joker under one it names) or lay a hunt; take a location when its hunt can be
laid. Every screen shows each new state within a second. The TV shows the turn, the draw pile,
the last action, the six locations and every player on one screen, as it cannot scroll. No phone
ever receives a card of another hand that was not public; the hands removed unseen at the end reach
no screen but their owner's.
The table shows the scoring colour by colour with the reasons, the points and the winner.
Screenshots of the table mid-round, a phone's hand (opened to play and held to peek) and the
scoring, in English and French, are saved in test-artifacts/vampir-*-{en,fr}.png.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import (
    PLAYER_NAMES,
    Scene,
    Screen,
    everywhere,
    fits,
    holding,
    on_the_tv,
    picture,
    shoot,
    switch_language,
    tv_and_phones,
    wait_on,
)
from tests.support.browser import tap as tap_button

pytestmark = pytest.mark.browser

VAMPIR = "vampir"
PLAYERS = PLAYER_NAMES[:3]   # seats 1, 2 and 3
MAX_TURNS = 120
TOKEN = re.compile(r"vampir-r\d+-\d{3}")

HAND_JS = """() => [...document.querySelectorAll('#vampir-choose .v-pick .v-card')].map((c) =>
  ({card: c.dataset.card, colour: c.dataset.colour, heads: Number(c.dataset.heads)}))"""


def tap(scene: Scene, screen: Screen, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    return tap_button(scene, screen, name, args, ".vampir")


def pick(screen: Screen, cards: list[str]) -> None:
    """Tap these cards in the phone's opened hand (a tap picks; the phone keeps the picks)."""
    for token in cards:
        screen.page.locator(f'#vampir-choose .v-pick[data-card="{token}"]').click()
        screen.page.locator(f'#vampir-choose .v-pick[data-card="{token}"][aria-pressed="true"]').wait_for()


def open_hand(screen: Screen) -> list[dict[str, Any]]:
    if screen.page.locator("#show-hand").count():
        screen.page.locator("#show-hand").click()
    screen.page.locator("#vampir-choose .v-picker").wait_for()
    return list(screen.page.evaluate(HAND_JS))


def best_hunt(hand: list[dict[str, Any]], held: set[str]) -> list[str] | None:
    """The cards of the best new hunt this hand can lay: a colour not yet held, with every joker."""
    jokers = [c["card"] for c in hand if c["colour"] == "joker"]
    counts = Counter(c["colour"] for c in hand if c["colour"] != "joker")
    for colour, n in counts.most_common():
        if colour not in held and n + len(jokers) >= 3:
            return [c["card"] for c in hand if c["colour"] == colour] + jokers
    return None


def worst_card(hand: list[dict[str, Any]]) -> dict[str, Any]:
    """The card a player parts with: of their rarest colour, one head first; a joker last."""
    counts = Counter(c["colour"] for c in hand)
    return min(hand, key=lambda c: (c["colour"] == "joker", counts[c["colour"]], c["heads"]))


def received_tokens(screen: Screen) -> set[str]:
    screen.flush()
    return set(TOKEN.findall("\n".join(str(r.get("data") or "") for r in screen.received + screen.network)))


def both_languages(scene: Scene, screen: Screen, name: str, artifacts: Path, selector: str) -> None:
    for lang in ("en", "fr"):
        if lang == "fr":
            switch_language(scene, [screen], "fr", ".vampir[data-position]")
        wait_on(screen, selector, name)
        shoot(screen, artifacts / f"vampir-{name}-{lang}.png")
    switch_language(scene, [screen], "en", ".vampir[data-position]")


def start_from_the_console(scene: Scene, artifacts: Path) -> dict[str, Any]:
    host = scene.host.page
    host.once("dialog", lambda dialog: dialog.accept())
    host.locator("#end-game").click()
    host.locator("#game-select").select_option(VAMPIR)
    mapping = host.locator("fieldset.mapping[data-key='locations']")
    mapping.wait_for()
    assert host.locator("#option-note-locations").inner_text().startswith("Unverified")
    assert host.locator("select[data-map='red']").input_value() == "docks"
    host.locator("select[data-key='rounds']").select_option("1")
    host.locator("#start-form").screenshot(path=str(artifacts / "vampir-host-start-en.png"), animations="disabled")
    host.locator("#start-form button[type=submit]").click()
    view = scene.wait_for_view(lambda v: v["game"] is not None and v["game"]["game"] == VAMPIR)
    pic = picture(view)
    assert pic["rounds"] == 1 and pic["unverified"] == ["locations"]
    for screen in scene.screens:
        wait_on(screen, ".vampir[data-position]", "the game")
    return scene.wait_until_settled()


def player(pic: dict[str, Any], seat: int) -> dict[str, Any]:
    return next(p for p in pic["players"] if p["seat"] == seat)


def play_turn(scene: Scene, phone: Screen, pic: dict[str, Any], own: set[str]) -> str:
    """One turn as its player plays it, from what their phone shows; what they did."""
    seat = pic["current"]
    held = {h["colour"] for h in player(pic, seat)["hunts"]}
    hand = open_hand(phone)
    own.update(c["card"] for c in hand)
    assert len(hand) == player(pic, seat)["hand"]
    for location in pic["locations"]:
        colour = location["colour"]
        mine = [c["card"] for c in hand if c["colour"] in (colour, "joker")]
        if location["pile"] and colour not in held and len(location["pile"]) >= 2 \
                and len(location["pile"]) + len(mine) >= 3:
            pick(phone, mine)
            tap(scene, phone, "take", {"location": colour, "cards": mine})
            return "take"
    tap(scene, phone, "draw")
    hand = open_hand(phone)
    own.update(c["card"] for c in hand)
    view = scene.view()
    if picture(view)["phase"] != "turn":
        return "last"
    drawn = phone.page.locator("#vampir-choose .v-card.new").count()
    assert drawn == min(2, pic["draw_pile"]), "the phone marks the cards just drawn"
    cards = best_hunt(hand, held)
    if cards:
        pick(phone, cards)
        tap(scene, phone, "hunt", {"cards": [c["card"] for c in hand if c["card"] in cards]})
        return "hunt"
    card = worst_card(hand)
    pick(phone, [card["card"]])
    if card["colour"] == "joker":
        target = min(pic["locations"], key=lambda loc: len(loc["pile"]))["colour"]
        tap(scene, phone, "discard", {"card": card["card"], "location": target})
    else:
        tap(scene, phone, "discard", {"card": card["card"]})
    return "discard"


def peek_shot(scene: Scene, phone: Screen, artifacts: Path) -> None:
    """Hold to peek: the hand shows while the button is held, and hides on release."""
    assert phone.page.locator("#vampir-hand").count() == 0, "the hand is not drawn until held"
    with holding(phone, "private"):
        wait_on(phone, "#peek-private #vampir-hand .v-card", "the held hand")
        shoot(phone, artifacts / "vampir-phone-peek-en.png")
    phone.page.locator("#peek-private").wait_for(state="hidden")
    assert phone.page.locator("#vampir-hand").count() == 0, "released: the hand is gone"


def test_three_phones_play_a_round_of_vampir_to_its_scoring(scene: Scene, artifacts: Path) -> None:
    table, host = scene.table, scene.host
    phones = {phone.seat: phone for phone in scene.phones}
    assert sorted(phones) == [1, 2, 3]
    tv_and_phones(scene)
    view = start_from_the_console(scene, artifacts)
    pic = picture(view)
    assert pic["phase"] == "turn" and pic["draw_pile"] == 88
    wait_on(table, "#vampir-locations .v-location", "the six locations")
    assert table.page.locator("#vampir-locations .v-location").count() == 6

    own: dict[int, set[str]] = {seat: set() for seat in phones}
    did: Counter[str] = Counter()
    shots: set[str] = set()
    for _ in range(MAX_TURNS):
        pic = picture(scene.view())
        if pic["phase"] != "turn":
            break
        seat = pic["current"]
        if not shots and did["hunt"] + did["take"] >= 2:
            shots.add("table")
            both_languages(scene, table, "table", artifacts, "#vampir-locations")
            for part in ("#vampir-status", "#vampir-draw", "#vampir-last", "#vampir-locations .v-location",
                         ".v-player"):
                on_the_tv(table, part)
            other = phones[next(s for s in phones if s != seat)]
            peek_shot(scene, other, artifacts)
        did[play_turn(scene, phones[seat], pic, own[seat])] += 1
        if "phone" not in shots and picture(scene.view()).get("stage") == "drawn":
            shots.add("phone")
        if did["discard"] == 6 and "hand" not in shots:
            # A phone with its hand opened to play, the new cards marked.
            now = picture(scene.view())
            phone = phones[now["current"]]
            tap(scene, phone, "draw")
            shots.add("hand")
            for lang in ("en", "fr"):
                if lang == "fr":
                    switch_language(scene, [phone], "fr", ".vampir[data-position]")
                wait_on(phone, "#vampir-choose .v-card.new", "the cards just drawn")
                fits(phone)
                shoot(phone, artifacts / f"vampir-phone-hand-{lang}.png")
            switch_language(scene, [phone], "en", ".vampir[data-position]")
            hand = open_hand(phone)
            own[now["current"]].update(c["card"] for c in hand)
            card = worst_card(hand)
            pick(phone, [card["card"]])
            args = {"card": card["card"]} if card["colour"] != "joker" else {"card": card["card"], "location": "red"}
            tap(scene, phone, "discard", args)
    pic = picture(scene.view())
    assert pic["phase"] == "over", f"the round never ended: {did}"
    assert did["take"] and did["hunt"] and did["discard"], did
    score = pic["scores"][0]
    assert pic["ending"] == "six_colours" or (pic["ending"] == "last_card" and pic["draw_pile"] == 0), pic["ending"]

    # The scoring, colour by colour, on the table: each player's heads, struck out when discarded.
    wait_on(table, "#vampir-scoring", "the scoring")
    rows = table.page.locator("#vampir-scoring tbody tr[data-colour]")
    assert rows.count() == 6
    for i, colour in enumerate(score["colours"]):
        row = rows.nth(i)
        assert row.get_attribute("data-colour") == colour["colour"]
        assert row.get_attribute("data-reason") == colour["reason"]
        assert row.locator("td.discarded").count() == len(colour["discard"])
    shown_points = table.page.locator("#vampir-scoring tfoot td[data-seat]").all_inner_texts()
    assert shown_points == [str(score["points"][str(s)]) for s in sorted(phones)]
    winners = [PLAYERS[s - 1] for s in pic["winners"]]
    wait_on(table, "#vampir-winner", "the winner")
    assert all(name in table.page.locator("#vampir-winner").inner_text() for name in winners)
    both_languages(scene, table, "scoring", artifacts, "#vampir-scoring")
    for lang in ("en", "fr"):
        phone = phones[1]
        if lang == "fr":
            switch_language(scene, [phone], "fr", ".vampir[data-position]")
        wait_on(phone, "#vampir-scoring", "the scoring")
        fits(phone)
        shoot(phone, artifacts / f"vampir-phone-scoring-{lang}.png")

    # Nobody received a card of another hand that was never public: not while it was held, not
    # when the round removed the hands unseen.
    public = received_tokens(table) | received_tokens(host)
    unseen = set().union(*own.values()) - public
    assert unseen, "the hands removed at the end were never public"
    for seat, phone in phones.items():
        foreign = received_tokens(phone) - public - own[seat]
        assert not foreign, f"phone {seat} received cards of another hand: {sorted(foreign)[:5]}"
    assert not (public & unseen)
    errors = {screen.name: screen.errors for screen in scene.screens if screen.errors}
    assert not errors, f"script errors on the pages: {errors}"


def enter(scene: Scene, phone: Screen, hunts: dict[str, tuple[int, int, int]]) -> dict[str, Any]:
    """Type this player's hunts (one-head, two-head, jokers per colour) into their phone and send them."""
    form = phone.page.locator(f"#vampir-entry-{phone.seat}")
    form.wait_for()
    for colour in ("green", "grey", "orange", "violet", "yellow", "red"):
        counts = hunts.get(colour, (0, 0, 0))
        for kind, n in zip(("one", "two", "jokers"), counts, strict=True):
            form.locator(f"input[data-colour='{colour}'][data-kind='{kind}']").fill(str(n))
    before = scene.view()["position"]
    form.locator("button[type=submit]").click()
    started = time.monotonic()
    try:
        view = scene.wait_for_view(lambda v: v["position"] > before, timeout=5)
    except AssertionError:
        pytest.fail(f"{phone.name} could not enter its hunts: {phone.page.locator('#error').inner_text()!r}")
    everywhere(scene, view["position"], started, ".vampir")
    return picture(scene.view())


def test_with_the_real_cards_each_phone_enters_its_hunts_and_the_table_scores_them(
        scene: Scene, artifacts: Path) -> None:
    table, host = scene.table, scene.host
    phones = {phone.seat: phone for phone in scene.phones}
    tv_and_phones(scene)
    page = host.page
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#end-game").click()
    page.locator("#game-select").select_option(VAMPIR)
    page.locator("select[data-key='cards']").select_option("physical")
    page.locator("select[data-key='first_player']").select_option("host")
    page.locator("select[data-key='rounds']").select_option("1")
    page.locator("#start-form button[type=submit]").click()
    view = scene.wait_for_view(lambda v: v["game"] is not None and v["game"]["game"] == VAMPIR)
    assert picture(view)["phase"] == "starter"
    scene.wait_until_settled()

    # The host chooses who starts; a phone says when the real round is over.
    tap(scene, host, "choose_starter", {"seat": 2})
    wait_on(table, "#vampir-status", "the starter", has_text="Bruno starts")
    pic = picture(tap(scene, phones[1], "round_over"))
    assert pic["phase"] == "entering"

    # Bruno's 6 one-head red cards and Chloé's 6 are more than the box's 11: refused until corrected.
    enter(scene, phones[1], {"red": (3, 1, 0), "green": (2, 1, 0), "grey": (3, 0, 0)})
    enter(scene, phones[2], {"red": (6, 0, 0), "green": (3, 0, 0)})
    pic = enter(scene, phones[3], {"red": (6, 0, 0), "green": (2, 1, 0), "grey": (1, 1, 1)})
    assert pic["phase"] == "entering" and pic["supply"] == [{"colour": "red", "kind": "one", "count": 15, "limit": 11}]
    wait_on(table, "#vampir-supply", "the supply problem", has_text="15")
    shoot(phones[3], artifacts / "vampir-phone-entry-en.png")
    pic = enter(scene, phones[3], {"red": (2, 1, 0), "green": (2, 1, 0), "grey": (1, 1, 1)})
    assert pic["phase"] == "over", pic["supply"]

    # Heads, not cards: green is 4 (Zoé), 3 (Bruno), 4 (Chloé) heads on 3 cards each: Bruno alone
    # discards it. Red: Chloé's 4 heads are the fewest. Bruno has no grey: nobody discards grey.
    colours = {c["colour"]: c for c in pic["scores"][0]["colours"]}
    assert colours["green"]["discard"] == [2] and colours["green"]["reason"] == "lowest"
    assert colours["red"]["discard"] == [3]
    assert colours["grey"]["reason"] == "someone_has_none"
    assert pic["scores"][0]["points"] == {"1": 5 + 4 + 3, "2": 6, "3": 4 + 4}
    wait_on(table, "#vampir-scoring", "the scoring")
    shoot(table, artifacts / "vampir-table-physical-en.png")
    errors = {screen.name: screen.errors for screen in scene.screens if screen.errors}
    assert not errors, f"script errors on the pages: {errors}"
