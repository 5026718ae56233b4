"""La nuit des vampires end to end, in Debian's Chromium against the real service.

Acceptance: the host starts the game from the console (the fate colours typed in as a list, a typo
first refused with a clear message, the fate stack's rows sent back as they are, the children's
assist on); a table display and three phones play it to the win as players would. After each
step the test reads the table's view, decides what the player the turn waits for does (move to the
colour where somebody stands, to duel; go to the castle once they hold bottles enough for any tax;
replenish otherwise; peek into a tower with a Flying Vampire; open the tower they know), and taps
that button on that player's phone. The game must go through a Flying Vampire peek (shown on the
peeker's phone only: no other screen ever receives the closed tower's content), a duel that ties
(duels are repeated until one does), a castle entry that finds an onion and one that finds the
tomato. Every screen shows each new state within a second. Screenshots of the table mid-game
(the tied duel), a phone's duel prompt, a phone showing its peek and the table's win screen, in
English and French, are saved in test-artifacts/nuit-*-{en,fr}.png.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import (
    PLAYER_NAMES,
    Scene,
    Screen,
    fits,
    holding,
    picture,
    shoot,
    switch_language,
    tv_and_phones,
    wait_on,
)
from tests.support.browser import tap as tap_button

pytestmark = pytest.mark.browser

NUIT = "nuit-des-vampires"
PLAYERS = PLAYER_NAMES[:3]   # seats 1, 2 and 3
MAX_STEPS = 600
COLOURS = ["red", "blue", "yellow"]
TAX_MAX = 7
"""The castle tax is both dice: at most 4 + 3 with the default dice."""



# ---------------------------------------------------------------------------------------------- helpers

def both_languages(scene: Scene, screen: Screen, name: str, artifacts: Path, selector: str) -> None:
    """A screenshot in English, then in French, then back to English."""
    for lang in ("en", "fr"):
        if lang == "fr":
            switch_language(scene, [screen], "fr", ".nuit")
        wait_on(screen, selector, name)
        shoot(screen, artifacts / f"nuit-{name}-{lang}.png")
    switch_language(scene, [screen], "en", ".nuit")


def tap(scene: Scene, screen: Screen, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    return tap_button(scene, screen, name, args, ".nuit")


def no_script_errors(scene: Scene) -> None:
    errors = {screen.name: screen.errors for screen in scene.screens if screen.errors}
    assert not errors, f"script errors on the pages: {errors}"


def received_text(screen: Screen) -> str:
    screen.flush()
    return "\n".join(str(r.get("data") or "") for r in screen.received + screen.network)


def start_from_the_console(scene: Scene, artifacts: Path) -> dict[str, Any]:
    """The host ends the dice tray, picks the game, types the fate colours (a typo first), turns the
    children's assist on and starts it; the table's view once every screen shows the game."""
    host = scene.host.page
    host.once("dialog", lambda dialog: dialog.accept())
    host.locator("#end-game").click()
    host.locator("#game-select").select_option(NUIT)
    red = host.locator("input[data-list='red_die']")
    red.wait_for()
    assert red.input_value() == "1, 2, 2, 3, 3, 4"
    assert host.locator("#option-note-red_die").inner_text().startswith("Unverified")
    assert host.locator("fieldset.fate-stack .fate-row").count() == 5
    assert host.locator("#option-note-fate_stack").inner_text().startswith("Unverified")
    colours = host.locator("input[data-list='fate_colours']")
    colours.fill("red, blue")
    host.locator("select[data-key='childrens_assist']").select_option("true")
    host.locator("#start-form button[type=submit]").click()
    wait_on(scene.host, "#error", "the refused colours", has_text="fate_colours")
    host.locator("#start-form").screenshot(path=str(artifacts / "nuit-host-start-en.png"), animations="disabled")
    colours.fill(" , ".join(COLOURS))
    host.locator("#start-form button[type=submit]").click()
    view = scene.wait_for_view(lambda v: v["game"] is not None and v["game"]["game"] == NUIT)
    options = picture(view)["options"]
    assert options["fate_colours"] == COLOURS and options["childrens_assist"] is True, options
    assert options["fate_stack"][0] == {"kind": "lose_magic", "n": "c"}, options["fate_stack"]
    assert picture(view)["unverified"] == ["red_die", "fate_stack", "elixir_values"]
    for screen in scene.screens:
        wait_on(screen, ".nuit", "the game")
    return scene.wait_until_settled()


class Players:
    """What the players know and want: the towers they saw or opened, the goals reached."""

    def __init__(self) -> None:
        self.onions: set[int] = set()
        self.tomato: int | None = None
        self.peeks: list[tuple[int, int, str]] = []   # (seat, tower, token)
        self.tied = False
        self.prompted = False
        """A duel asked a side to choose its duel card (only a side holding one is asked)."""
        self.onion_found = False
        self.duels = 0
        self.plan: dict[int, str] = {}

    @property
    def ready_for_castle(self) -> bool:
        """To the castle once the duels showed what they must (a tie, and a side choosing a duel
        card on its phone) and a tower is known."""
        return self.tied and self.prompted and (self.tomato is not None or bool(self.onions))

    def tower_to_open(self, pic: dict[str, Any]) -> int:
        closed = [t["tower"] for t in pic["towers"] if not t["opened"]]
        if not self.onion_found:
            known = [n for n in closed if n in self.onions]
            if known:
                return known[0]
            assert self.tomato is not None, "no tower known before the first castle entry"
            return next(n for n in closed if n != self.tomato)
        if self.tomato is not None and self.tomato in closed:
            return self.tomato
        return next(n for n in closed if n not in self.onions)


def player(pic: dict[str, Any], seat: int) -> dict[str, Any]:
    return next(p for p in pic["players"] if p["seat"] == seat)


def reachable_bottles(pic: dict[str, Any], seat: int) -> int:
    p = player(pic, seat)
    return p["bottles"] + sum(c["value"] for c in p["hand"] if c["kind"].startswith("elixir"))


def choose(pic: dict[str, Any], seat: int, know: Players) -> tuple[str, dict[str, Any]]:
    """Move (and where to) or replenish."""
    me = player(pic, seat)
    bribe = pic["options"]["oubliette_bribe"]
    if me["location"] == "oubliettes":
        if me["bottles"] >= bribe + 1:
            know.plan[seat] = COLOURS[0]
            return "move", {"way": "bribe"}
        return "replenish", {}
    if know.ready_for_castle:
        if me["bottles"] >= TAX_MAX:
            know.plan[seat] = "courtyard"
            return "move", {}
        return "replenish", {}
    # Before the castle: everybody meets on the first colour (duels), and draws its fate cards
    # (one of them a Flying Vampire).
    know.plan[seat] = COLOURS[0]
    return "move", {}


# ------------------------------------------------------------------------------------------------ test

def test_three_phones_play_la_nuit_des_vampires_to_the_tomato(scene: Scene, artifacts: Path) -> None:
    table, host = scene.table, scene.host
    phones = {phone.seat: phone for phone in scene.phones}
    assert sorted(phones) == [1, 2, 3]
    tv_and_phones(scene)
    started = time.monotonic()
    view = start_from_the_console(scene, artifacts)
    pic = picture(view)
    assert pic["phase"] == "start_roll" and pic["seal"]["commitment"]
    wait_on(table, ".n-seal .fingerprint", "the seal's fingerprint")
    for phone in scene.phones:
        wait_on(phone, "#nuit-roll", "the start roll button")

    know = Players()
    shots: set[str] = set()
    steps = 0
    while steps < MAX_STEPS:
        steps += 1
        view = scene.view()
        pic = picture(view)
        if pic["phase"] == "over":
            break
        if pic["phase"] == "start_roll":
            # Seat 1 rolls on its phone; the table rolls for the others.
            if 1 in pic["start"]["waiting"] and steps == 1:
                tap(scene, phones[1], "roll")
            else:
                tap(scene, table, "roll")
            continue
        duel = pic["duel"]
        if duel and duel.get("tied") and not know.tied:
            # A tie (N-D2): the dice swapped and rolled again; the table says so.
            know.tied = True
            wait_on(table, ".n-duel .n-tied", "the tie")
            if duel["winner"] is None:
                assert duel["dice"][str(duel["defender"])] == "red", duel
            both_languages(scene, table, "table", artifacts, ".n-duel .n-tied")
        turn = pic["turn"]
        stage, seat = turn["stage"], turn["seat"]
        phone = phones[seat]
        if stage == "choose":
            name, args = choose(pic, seat, know)
            tap(scene, phone, name, args)
        elif stage == "moving":
            if pic["move"]["bonus"] > 0 and len(player(pic, seat)["hand"]) < pic["options"]["max_magic"]:
                tap(scene, phone, "take", {"card": int(pic["display"][0]["card"][6:])})
                continue
            at = know.plan.get(seat, COLOURS[0])
            # The stop form: the spaces first (1, free), then where the pawn stopped.
            phone.page.locator("#nuit-choose button[data-spaces='1']").click()
            tap(scene, phone, "stop", {"spaces": 1, "at": at})
        elif stage == "meet":
            if not (know.tied and know.prompted) and turn["seats"]:
                know.duels += 1
                defender = turn["seats"][0]
                if know.duels == 1:
                    # N-T2: the player standing there calls the duel from their own phone.
                    wait_on(phones[defender], "#nuit-call-duel", "the call to a duel")
                    fits(phones[defender])
                    both_languages(scene, phones[defender], "phone-call-duel", artifacts, "#nuit-call-duel")
                    tap(scene, phones[defender], "duel", {"seat": defender})
                else:
                    tap(scene, phone, "duel", {"seat": defender})
            else:
                tap(scene, phone, "skip")
        elif stage == "duel":
            duel = pic["duel"]
            sides = list(pic["waiting"])
            # Both sides are asked at once (a side without a duel card is ready at once).
            for side in sides:
                wait_on(phones[side], "#nuit-duel-prompt", "the duel prompt")
            wait_on(table, ".n-duel .n-side.red", "the duel")
            if "duel-prompt" not in shots:
                fits(phones[sides[-1]])
                both_languages(scene, phones[sides[-1]], "phone-duel", artifacts, "#nuit-duel-prompt")
                shots.add("duel-prompt")
            know.prompted = True
            for side in sides:
                tap(scene, phones[side], "ready")
        elif stage in ("reward", "pick"):
            takes = [a for a in pic["display"]] if len(player(pic, seat)["hand"]) < pic["options"]["max_magic"] else []
            # Until a duel has asked for a duel card, the players collect them (a deal may hold none).
            wanted = [c for c in takes if c["kind"].startswith("duel")] if not know.prompted else []
            if wanted or (takes and stage == "pick"):
                tap(scene, phone, "take", {"card": int((wanted or takes)[0]["card"][6:])})
            else:
                tap(scene, phone, "skip")
        elif stage in ("push", "split", "fate"):
            # No push, every pip as bottles, no fate card after replenishing.
            tap(scene, phone, "skip")
        elif stage == "give_back":
            hand = player(pic, seat)["hand"]
            chosen = [int(c["card"][6:]) for c in hand[:min(turn["count"], len(hand))]]
            for number in chosen:
                phone.page.locator(f"#nuit-choose button.n-pick[data-card='magic-{number:02d}']").click()
            tap(scene, phone, "give_back", {"cards": chosen})
        elif stage == "flying":
            closed = [t["tower"] for t in pic["towers"] if not t["opened"]]
            unknown = [n for n in closed if n not in know.onions and n != know.tomato]
            if know.tomato is None and unknown:
                tower = unknown[0]
                tap(scene, phone, "peek", {"tower": tower})
                wait_on(phone, "#nuit-peeked button.peek", "the peek's hold-to-peek control")
                assert phone.page.locator("#nuit-peeked li").count() == 0, "the peek is not drawn until held"
                with holding(phone, "nuit-peeked"):
                    wait_on(phone, f"#nuit-peeked li[data-tower='{tower}']", "the held peek")
                    content = phone.page.locator(f"#nuit-peeked li[data-tower='{tower}']").get_attribute("data-content")
                phone.page.locator("#nuit-peeked li").first.wait_for(state="detached")
                assert content in ("onion", "tomato")
                (know.onions.add(tower) if content == "onion" else setattr(know, "tomato", tower))
                know.peeks.append((seat, tower, f"tower-{tower}-{content}"))
                peekers = {s for s, n, _ in know.peeks if n == tower}
                for other in scene.phones:
                    if other.seat not in peekers:
                        assert other.page.locator(f"#nuit-peeked li[data-tower='{tower}']").count() == 0, \
                            f"{other.name} shows the peek"
                wait_on(table, ".n-happenings li[data-kind='tower_peeked']", "the peek's public line")
                if "peek" not in shots:
                    fits(phone)
                    both_languages(scene, phone, "phone-peek", artifacts, "#nuit-peeked")
                    shots.add("peek")
            else:
                tap(scene, phone, "skip")
        elif stage == "debt":
            me = player(pic, seat)
            if reachable_bottles(pic, seat) >= turn["amount"]:
                for card in [c for c in me["hand"] if c["kind"].startswith("elixir")]:
                    if player(picture(scene.view()), seat)["bottles"] >= turn["amount"]:
                        break
                    tap(scene, phone, "cash", {"card": int(card["card"][6:])})
                tap(scene, phone, "pay")
            else:
                tap(scene, phone, "skip")
        elif stage == "tower":
            tower = know.tower_to_open(pic)
            assert_peeks_kept(scene, know, pic)
            view = tap(scene, phone, "open", {"tower": tower})
            pic = picture(view)
            found = next(t for t in pic["towers"] if t["tower"] == tower)["found"]
            wait_on(table, f".n-tower[data-tower='{tower}'].found-{found}", "the opened tower")
            if found == "onion":
                know.onion_found = True
                know.onions.add(tower)
            else:
                assert know.onion_found, "the tomato was found before any onion"
        else:
            pytest.fail(f"no way on from stage {stage}: {pic['turn']}")
    else:
        pytest.fail(f"no winner after {MAX_STEPS} steps: {pic['turn']} {pic['happenings'][:4]}")

    # The win: the table names the winner, shows every tower's content and opens the seal.
    pic = picture(scene.view())
    assert know.peeks and know.tied and know.onion_found, (know.peeks, know.tied, know.onion_found)
    winner = PLAYERS[pic["winner"] - 1]
    wait_on(table, ".n-status.over", "the win", has_text=f"{winner} found the tomato and wins!")
    wait_on(table, ".n-seal-open", "the opened seal")
    assert table.page.locator(".n-tower.closed").count() == 0, "a tower stayed closed at the end"
    wait_on(phones[pic["winner"]], ".n-status.over", "the win on the winner's phone", has_text="You found the tomato")
    wait_on(host, ".nuit-host .n-status.over", "the win on the console", has_text=winner)
    shoot(table, artifacts / "nuit-table-win-en.png")
    switch_language(scene, [table], "fr", ".nuit")
    wait_on(table, ".n-status.over", "the win in French", has_text=f"{winner} a trouvé la tomate et gagne !")
    shoot(table, artifacts / "nuit-table-win-fr.png")

    no_script_errors(scene)
    assert {"peek", "duel-prompt"} <= shots, shots
    for name in ("table", "phone-duel", "phone-peek", "table-win"):
        for language in ("en", "fr"):
            assert (artifacts / f"nuit-{name}-{language}.png").stat().st_size > 10_000, name
    print(f"nuit game won by {winner} in {pic['turns']} turns, {steps} steps, {know.duels} duels, "
          f"{time.monotonic() - started:.1f} s")


def assert_peeks_kept(scene: Scene, know: Players, pic: dict[str, Any]) -> None:
    """Before a tower is opened: no screen but the peeker's ever received the content of a peeked
    tower still closed."""
    closed = {t["tower"] for t in pic["towers"] if not t["opened"]}
    for peeker, tower, token in know.peeks:
        if tower not in closed:
            continue
        for screen in scene.screens:
            text = received_text(screen)
            if screen.seat == peeker:
                assert token in text, f"the peeker's phone never received {token}"
            else:
                assert token not in text, f"{screen.name} received {token}, seen by seat {peeker} alone"
