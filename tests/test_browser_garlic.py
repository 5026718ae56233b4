"""The garlic game (Clearing Coffins) end to end, in Debian's Chromium against the real service.

Acceptance: the host starts the game from the console (a deck counted by the owner, one coffin to
clear to win, three-second waits); a table display and three phones play it to the win with the
simulated buttons (the table's number keys press buttons 1-3, which are seats 1-3) and the phones'
own buzzers. After each roll the test reads the table's view, decides who should slap as players
who remember their cards would (a face-up card showing the dice, a coffin it remembers, or, on a
bat, a coffin to clear), presses that player's button, and makes the claim by tapping the card on
that player's phone; nobody slaps on a skull, or when nobody holds the dice's card, and the round
times out. Along the way: every screen shows the same dice within a second of the roll, only the
first slapper's phone shows the choice, and no phone ever receives a coffin's identity (everything
each phone receives is recorded). Screenshots of the table mid-game, a phone's claim chooser, a
phone's buzzer in a skull round (if the dice show one) and the table's win screen, in English and
French, are saved in test-artifacts/garlic-*-{en,fr}.png.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from companion.server.patch import apply as apply_patch
from tests.support.browser import (
    PHONE_SIZE,
    PLAYER_NAMES,
    SOUND_SPY_JS,
    Scene,
    Screen,
    fits,
    picture,
    shoot,
    shown_in_time,
    switch_language,
    wait_on,
)

pytestmark = pytest.mark.browser

GARLIC = "garlic-slap"
PLAYERS = PLAYER_NAMES[:3]   # seats 1, 2 and 3
SERVICE_ARGS = ("--simulate",)
"""Simulated buttons: what the table display's number keys press (button n is seat n)."""
SHOW_WITHIN_S = 1.0
MAX_ROUNDS = 40
SKULL_WAIT_ROUNDS = 12
COUNTED = {"yellow-bat": 8, "yellow-moon": 7, "yellow-skull": 7, "violet-bat": 7, "violet-moon": 7, "violet-skull": 7}
"""The owner's count of their box, typed in on the host console (43 cards)."""
TOKEN = re.compile(r"card-\d{2}")


Card = dict[str, Any]
Place = tuple[int, int]


# ---------------------------------------------------------------------------------------------- helpers

def buzzer_top(phone: Screen) -> float | None:
    """Where the phone's buzzer is on its page (None when it shows none)."""
    return phone.page.evaluate("""() => { const b = document.getElementById('buzzer');
        return b ? Math.round(b.getBoundingClientRect().top + scrollY) : null; }""")


def press_button(scene: Scene, seat: int) -> None:
    """The seat's simulated button, pressed from the table display's keyboard."""
    assert scene.table.page.evaluate("() => document.activeElement === document.body"), \
        "the table's keys only press buttons when nothing else has the focus"
    scene.table.page.keyboard.press(str(seat))


def matches(dice: dict[str, Any], card: Card) -> bool:
    return dice["colour"] in (card["colour"], "both") and dice["symbol"] == card["symbol"]


def same_dice_everywhere(scene: Scene, number: int, dice: dict[str, Any], since: float) -> None:
    """Every screen draws roll `number` (its colour and symbol) no later than a second after `since`
    (a question that runs out is answered by the page's own record, `shown_in_time`)."""
    deadline = since + SHOW_WITHIN_S
    for screen in scene.screens:
        left_ms = (deadline - time.monotonic()) * 1000
        try:
            screen.page.wait_for_function(
                "(n) => !!document.querySelector(`.g-dice[data-round='${n}']`)", arg=number, timeout=max(left_ms, 1))
        except PlaywrightError:
            shown_in_time(screen, f"dice {number}", since, SHOW_WITHIN_S)
        shown = screen.page.evaluate("""() => { const d = document.querySelector('.g-dice');
            return { colour: d.dataset.colour, symbol: d.dataset.symbol,
                     words: [...d.querySelectorAll('.g-die')].map((x) => x.getAttribute('aria-label')) }; }""")
        assert (shown["colour"], shown["symbol"]) == (dice["colour"], dice["symbol"]), f"{screen.name}: {shown}"
        assert len(shown["words"]) == 2 and all(shown["words"]), f"{screen.name}: the dice say nothing: {shown}"


# What a page received, as it held it: whole views as sent, patches applied to the previous view of
# the same stream, other bodies (boot views, command answers) as sent.
def received_views(records: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], Any]]:
    streams: dict[tuple[str, str], Any] = {}
    for record in records:
        try:
            data = json.loads(record["data"])
        except (TypeError, ValueError):
            data = None
        if record["kind"] in ("sse", "sse-network") and record["event"] in ("view", "patch"):
            key = (record["kind"], record["stream"])
            if record["event"] == "patch":
                data = apply_patch(streams[key], data)
            streams[key] = data
        yield record, data


def pictures(value: Any) -> Iterator[dict[str, Any]]:
    """Every garlic picture in a body, at any depth."""
    if isinstance(value, dict):
        if value.get("game") == GARLIC and "players" in value:
            yield value
        for inner in value.values():
            yield from pictures(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from pictures(inner)


def visible_tokens(pic: dict[str, Any]) -> set[str]:
    """The cards this picture may name: face up, being checked, revealed at the end, cleared after a
    check, or the two a moon look shows its slapper."""
    seen = {card["card"] for card in pic.get("looking", [])}
    for player in pic["players"]:
        for slot in player["slots"]:
            if slot["up"] and "card" in slot:
                seen.add(slot["card"])
            for key in ("shown", "revealed"):
                if key in slot:
                    seen.add(slot[key]["card"])
        seen |= {item["card"] for item in player["cleared"] if "card" in item}
    return seen


class Memory:
    """What the players remember: which card each coffin this test turned over is (a player knows
    it, having seen it face up), and from which log position it was a coffin."""

    def __init__(self) -> None:
        self.coffins: dict[Place, Card] = {}
        self.since: dict[str, int] = {}

    def turned_down(self, place: Place, card: Card, position: int) -> None:
        self.coffins[place] = card
        self.since.setdefault(card["card"], position)

    def swapped(self, a: Place, b: Place) -> None:
        card_a, card_b = self.coffins.pop(a, None), self.coffins.pop(b, None)
        if card_a is not None:
            self.coffins[b] = card_a
        if card_b is not None:
            self.coffins[a] = card_b

    def sync(self, pic: dict[str, Any]) -> None:
        """Forget coffins that are not coffins any more (cleared, or turned face up)."""
        for (seat, slot) in list(self.coffins):
            player = next(p for p in pic["players"] if p["seat"] == seat)
            if slot >= len(player["slots"]) or player["slots"][slot]["up"]:
                del self.coffins[(seat, slot)]


def assert_no_coffin_reached_a_phone(scene: Scene, memory: Memory) -> None:
    """Nothing a phone received names a card that was a coffin at the time: every card token in a
    message belongs to a card its own picture shows (face up, checked, revealed or looked at), and
    none of the coffins the players turned over appears while it was one."""
    checked = 0
    for phone in scene.phones:
        phone.flush()
        for record, data in received_views(phone.received + phone.network):
            pics = list(pictures(data))
            if not pics:
                continue
            checked += 1
            visible = set().union(*(visible_tokens(pic) for pic in pics))
            named = set(TOKEN.findall(record["data"] or "")) | set(TOKEN.findall(json.dumps(data)))
            assert named <= visible, f"{phone.name} received {sorted(named - visible)} while they were coffins " \
                                     f"({record['kind']} {record['url']})"
            position = data.get("position") if isinstance(data, dict) else None
            for token, since in memory.since.items():
                if position is not None and position >= since and token not in visible:
                    assert token not in record["data"], f"{phone.name} received coffin {token} at position {position}"
    assert checked > 20, f"the phones' recordings hold only {checked} garlic views"


def no_script_errors(scene: Scene) -> None:
    errors = {screen.name: screen.errors for screen in scene.screens if screen.errors}
    assert not errors, f"script errors on the pages: {errors}"


def start_from_the_console(scene: Scene, artifacts: Path) -> dict[str, Any]:
    """The host ends the dice tray, picks the garlic game, types in the deck's counts and the
    short options, and starts it; the table's view once every screen shows the game."""
    host = scene.host.page
    host.once("dialog", lambda dialog: dialog.accept())
    host.locator("#end-game").click()
    host.locator("#game-select").select_option(GARLIC)
    counts = host.locator("fieldset.counts[data-key='deck']")
    counts.wait_for()
    assert "43" in counts.locator(".counts-total").inner_text()
    assert host.locator("#option-note-colour_die").inner_text().startswith("Unverified")
    for combination, count in COUNTED.items():
        host.locator(f"#count-deck-{combination}").fill(str(count))
    assert "43" in counts.locator(".counts-total").inner_text()
    for key, value in (("coffins_to_win", "1"), ("no_slap_timeout_s", "3"), ("skull_window_s", "3")):
        host.locator(f"select[data-key='{key}']").select_option(value)
    host.locator("#start-form").screenshot(path=str(artifacts / "garlic-host-start-en.png"), animations="disabled")
    host.locator("#start-form button[type=submit]").click()
    view = scene.wait_for_view(lambda v: v["game"] is not None and v["game"]["game"] == GARLIC)
    options = picture(view)["options"]
    assert options["deck"] == COUNTED and options["deck_counted"] is True, options
    assert (options["coffins_to_win"], options["no_slap_timeout_s"], options["skull_window_s"]) == (1, 3.0, 3.0)
    assert picture(view)["unverified"] == ["colour_die", "symbol_die"]
    for screen in scene.screens:
        wait_on(screen, ".garlic", "the garlic game")
    return view


def plan(pic: dict[str, Any], memory: Memory, may_win: bool) -> tuple[int, str, dict[str, Any]] | None:
    """Who slaps and what they then do, as players who remember their coffins would: (seat,
    command, arguments), or None when nobody should slap."""
    dice = pic["dice"]
    players = pic["players"]
    if dice["colour"] == "!":
        if dice["symbol"] == "skull":
            return None                                             # hands off!
        if dice["symbol"] == "bat":
            if may_win and memory.coffins:
                (seat, slot), _ = next(iter(memory.coffins.items()))
                return seat, "bat", {"kind": "clear", "slot": slot}
            for player in players:
                up = [i for i, slot in enumerate(player["slots"]) if slot["up"]]
                if up:
                    return player["seat"], "bat", {"kind": "turn_down", "slot": up[0]}
            return None
        # The moon: swap two coffins without looking (the players see where each goes), or pass.
        return players[len(memory.coffins) % len(players)]["seat"], "moon", {}
    if may_win:
        for (seat, slot), card in memory.coffins.items():
            if matches(dice, card):
                return seat, "claim", {"kind": "own_down", "slot": slot}
    for player in players:
        for index, slot in enumerate(player["slots"]):
            if slot["up"] and matches(dice, slot):
                return player["seat"], "claim", {"kind": "own_up", "slot": index}
    return None


# ------------------------------------------------------------------------------------------------ test

def test_three_phones_play_clearing_coffins_to_the_win(scene: Scene, artifacts: Path) -> None:
    table, host = scene.table, scene.host
    phones = {phone.seat: phone for phone in scene.phones}
    assert sorted(phones) == [1, 2, 3]
    for phone in scene.phones:
        phone.page.set_viewport_size(PHONE_SIZE)
    started = time.monotonic()
    view = start_from_the_console(scene, artifacts)
    pic = picture(view)
    assert pic["roller"] is None
    wait_on(table, ".g-status", "the youngest-rolls-first message", has_text="The youngest player rolls first")
    assert table.page.locator("#roll-table").count() == 0
    for phone in scene.phones:
        wait_on(phone, "#roll-me", "the youngest's roll button", has_text="I'm the youngest")
        # Dealt face up: every phone shows its own four cards with their words.
        assert phone.page.locator(".g-mine .g-card.up").count() == 4

    table.page.evaluate(SOUND_SPY_JS)
    memory = Memory()
    shots: set[str] = set()
    lang = "en"
    for _ in range(MAX_ROUNDS):
        view = scene.wait_for_view(lambda v: picture(v)["phase"] in ("roll", "over"))
        pic = picture(view)
        if pic["phase"] == "over":
            break
        number = pic["round"] + 1
        memory.sync(pic)
        roller = pic["roller"]
        # The roll: the youngest (seat 1) from their phone; then the table's Space key, or the
        # roller's own phone, in turn. Where each buzzer sits is read once its phone drew the wait
        # for the roll (a loaded machine may still be drawing the previous round).
        for phone in phones.values():
            phone.wait_for_position(view["position"])
        buzzers_before = {seat: buzzer_top(phone) for seat, phone in phones.items()}
        if roller is None or number % 2 == 0:
            button = phones[roller or 1].page.locator("#roll-me")
            button.wait_for()
            rolled_at = time.monotonic()
            button.tap()
        else:
            wait_on(table, "#roll-table:enabled", "the roll button")
            assert table.page.locator("#roll-table").inner_text().endswith(next(
                p["name"] for p in pic["players"] if p["seat"] == roller))
            rolled_at = time.monotonic()
            table.page.keyboard.press(" ")
        view = scene.wait_for_view(lambda v, n=number: picture(v)["round"] == n)
        pic = picture(view)
        dice = pic["dice"]
        same_dice_everywhere(scene, number, dice, rolled_at)
        if pic["phase"] == "reaction":
            # The dice show without moving any phone's buzzer from under the player's thumb.
            moved = {seat: (top, buzzer_top(phones[seat])) for seat, top in buzzers_before.items()
                     if top is not None and buzzer_top(phones[seat]) not in (None, top)}
            assert not moved, f"the buzzer moved on the phones of seats {moved} when the dice showed"
        if number == 1:   # the table sounds the roll as it shows it
            table.page.wait_for_function("() => window.__tones.length > 0", timeout=2000)

        skull = dice["colour"] == "!" and dice["symbol"] == "skull"
        if skull and "skull" not in shots and pic["phase"] == "reaction":
            # Hands off: every phone's buzzer turns red, the table says so.
            wait_on(table, ".g-status.hands-off", "the hands-off banner")
            phone = phones[2]
            wait_on(phone, "#buzzer.hands_off", "the hands-off buzzer")
            fits(phone)
            shoot(phone, artifacts / f"garlic-phone-skull-{lang}.png")
            shots.add("skull")
            other = "fr" if lang == "en" else "en"
            switch_language(scene, [phone], other, ".garlic")
            if phone.page.locator("#buzzer.hands_off").count():   # the three seconds may be over
                shoot(phone, artifacts / f"garlic-phone-skull-{other}.png")
            switch_language(scene, [phone], lang, ".garlic")

        # The win waits for the screenshots: the claim chooser, and a skull round if one comes soon.
        may_win = {"claim", "table"} <= shots and ("skull" in shots or number > SKULL_WAIT_ROUNDS)
        move = plan(pic, memory, may_win)
        if move is None:
            continue   # nobody slaps: the round times out, and the dice pass
        seat, command, args = move
        slapper = phones[seat]
        if seat == 2:
            slapper.page.locator("#buzzer.race").tap()    # a phone's own buzzer
        else:
            press_button(scene, seat)                     # a wired button (simulated)
        phase = {"claim": "claim", "bat": "bat", "moon": "moon"}[command]
        view = scene.wait_for_view(lambda v: picture(v)["phase"] != "reaction")
        pic = picture(view)
        assert (pic["phase"], pic["turn"].get("seat")) == (phase, seat), f"expected {seat} to {phase}: {pic['result']}"
        assert pic["result"]["winner"] == seat and pic["result"]["order"][0]["who"] == f"seat:{seat}"

        # Only the first slapper's phone offers the choice; the table names them.
        wait_on(slapper, "#garlic-choose", "the chooser")
        fits(slapper)
        for other in scene.phones:
            if other is not slapper:
                wait_on(other, ".g-status.turn", "who slapped first")
                assert other.page.locator("#garlic-choose").count() == 0, f"{other.name} shows the chooser"
        name = PLAYERS[seat - 1]
        wait_on(table, ".g-zone.slapper", "the slapper's zone", has_text=name)
        wait_on(table, ".g-status.turn", "who slapped first", has_text=name)

        if command == "claim" and "claim" not in shots:
            # The claim chooser and the table mid-game, in English, then in French.
            for language in ("en", "fr"):
                if language != lang:
                    switch_language(scene, [table, slapper], language, ".garlic")
                    lang = language
                    wait_on(slapper, "#garlic-choose", "the chooser")
                table.page.locator(".g-result").wait_for()
                shoot(slapper, artifacts / f"garlic-phone-claim-{language}.png")
                shoot(table, artifacts / f"garlic-table-{language}.png")
            switch_language(scene, [table, slapper], "en", ".garlic")
            lang = "en"
            shots |= {"claim", "table"}

        chooser = slapper.page.locator("#garlic-choose")
        before = pic
        if command == "moon":
            coffins = list(memory.coffins)
            if len(coffins) >= 2:
                for place in coffins[:2]:
                    chooser.locator(f"button[data-seat='{place[0]}'][data-slot='{place[1]}']").tap()
                chooser.locator("#garlic-swap").tap()
                memory.swapped(coffins[0], coffins[1])
            else:
                chooser.locator("#garlic-pass").tap()
        else:
            target_seat = args.get("seat", seat)
            card = chooser.locator(f"button[data-seat='{target_seat}'][data-slot='{args['slot']}']")
            assert card.get_attribute("data-kind") == args["kind"]
            card.tap()
        view = scene.wait_for_view(lambda v: picture(v)["phase"] in ("roll", "over", "penalties"))
        pic = picture(view)
        assert pic["phase"] != "penalties", f"a remembered claim cost a penalty: {pic['happenings']}"
        if args.get("kind") in ("own_up", "turn_down"):
            card = before["players"][seat - 1]["slots"][args["slot"]]
            after = pic["players"][seat - 1]["slots"][args["slot"]]
            assert after == {"up": False}, f"a coffin's identity in the view: {after}"
            memory.turned_down((seat, args["slot"]), card, view["position"])
            # The owner's phone draws it as a coffin too (S-S10).
            coffins = sum(1 for slot in pic["players"][seat - 1]["slots"] if not slot["up"])
            slapper.page.wait_for_function("(n) => document.querySelectorAll('.g-mine .g-card.down').length === n",
                                           arg=coffins)
    else:
        pytest.fail(f"no winner after {MAX_ROUNDS} rounds")

    # The win: the table names the winner, turns every coffin over and shows the reaction board.
    pic = picture(scene.view())
    winner = PLAYERS[pic["winner"] - 1]
    wait_on(table, ".g-status.over", "the win", has_text=f"{winner} wins!")
    wait_on(table, ".board-table tbody tr", "the reaction board")
    assert table.page.locator(".g-zone .g-card.down").count() == 0, "a coffin stayed closed at the end"
    assert table.page.locator(".g-zone.winner").inner_text().startswith(winner)
    wait_on(phones[pic["winner"]], ".g-status.over", "the win on the winner's phone", has_text="You win!")
    wait_on(host, ".garlic-host .g-status.over", "the win on the console", has_text=f"{winner} wins!")
    shoot(table, artifacts / "garlic-table-win-en.png")
    switch_language(scene, [table], "fr", ".garlic")
    wait_on(table, ".g-status.over", "the win in French", has_text=f"{winner} gagne !")
    shoot(table, artifacts / "garlic-table-win-fr.png")

    assert memory.since, "the players remembered no coffin: the leak check would check nothing"
    assert_no_coffin_reached_a_phone(scene, memory)
    no_script_errors(scene)
    for name in ("table", "phone-claim", "table-win"):
        for language in ("en", "fr"):
            assert (artifacts / f"garlic-{name}-{language}.png").stat().st_size > 10_000, name
    print(f"garlic game won by {winner} in {pic['round']} rounds, {time.monotonic() - started:.1f} s")
