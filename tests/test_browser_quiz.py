"""The buzzer quiz end to end, in Debian's Chromium against the real service with simulated buttons.

Acceptance: a table display and three phones; a race is armed, two phones press their buzzer (real
taps) and the simulated source presses a button, and every screen (the table, the three phones, the
host console) shows the same order, the same winner and the same lamps within a second of the
decision. Also: a press before the arm is shown in red as a false start; a phone pairs a button from
its own screen and that button then plays for its seat; screenshots of the table (armed, and after a
result), a phone's buzzer (armed, and after a result) and the host's Buttons card are saved in
test-artifacts/quiz-*-{en,fr}.png.

The referee decides a grace period after the first press (2 ms for wired buttons; with phones, as
long as a phone that has not pressed may still send a press that would come first) and a press
later than that is not in the round's order. The
three presses of a test cannot leave three browsers at the same instant (Playwright drives one page
at a time), so the acceptance race is played with the quiz's longest grace (`grace_ms`, 1 s): every
press made one after another then counts, whatever the machine's load, and the test can insist on an
order of three. Whether a press made the grace or not, it is never lost: the host console's "Latest
presses" lists each of them.
"""

from __future__ import annotations

import time
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Route

from tests.support.browser import PLAYER_NAMES, SOUND_SPY_JS, Scene, Screen, at_once

pytestmark = pytest.mark.browser

QUIZ = "buzzer-quiz"
PLAYERS = PLAYER_NAMES[:3]   # seats 1, 2 and 3
SHOW_WITHIN_S = 1.0
LONGEST_GRACE_MS = 1000      # the quiz's largest grace_ms option
SERVICE_ARGS = ("--simulate",)
"""Simulated buttons: what the table display's number keys press."""
LATE_ANSWER_S = 1.1          # presses this soon after a round are late answers to it (LATE_WINDOW_US, and a margin)


# ---------------------------------------------------------------------------------------------- helpers

# What a screen shows of the last round: its title, the winner line, the order table's rows (every
# cell), the false starts, and the lamps (table and host only).
SHOWN_JS = """() => {
  const box = document.querySelector(".round-result");
  const texts = (selector, root) => [...(root || document).querySelectorAll(selector)].map((e) => e.textContent);
  return {
    round: box ? box.querySelector("h3").textContent : null,
    winner: box && box.querySelector(".winner") ? box.querySelector(".winner").textContent : null,
    rows: box ? [...box.querySelectorAll("table.order tbody tr")].map((tr) => texts("td", tr)) : [],
    false_starts: box ? texts(".false-starts li", box) : [],
    lamps: [...document.querySelectorAll(".lamps .lamp")].map((lamp) => ({
      seat: Number(lamp.dataset.seat), state: lamp.className.replace(/^lamp /, ""),
      bulb: lamp.querySelector(".bulb").textContent, name: lamp.querySelector(".lamp-name").textContent })),
  };
}"""

# Notes, in the page's own clock, when each round's result first appears (a round title not seen before).
RESULT_CLOCK_JS = """() => {
  window.__resultShownAt = {};
  const check = () => {
    const title = document.querySelector(".round-result h3");
    if (title && !(title.textContent in window.__resultShownAt)) window.__resultShownAt[title.textContent] = Date.now();
  };
  new MutationObserver(check).observe(document.body, { childList: true, subtree: true, characterData: true });
  check();
}"""




def shown(screen: Screen) -> dict[str, Any]:
    return screen.page.evaluate(SHOWN_JS)


def quiz_view(scene: Scene) -> dict[str, Any]:
    return scene.view()["game"]["view"]


def name_of(who: str) -> str:
    return PLAYERS[int(who.removeprefix("seat:")) - 1]


def wait_on(screen: Screen, selector: str, what: str, timeout_s: float = 5.0, **filters: Any) -> None:
    try:
        screen.page.locator(selector, **filters).first.wait_for(timeout=timeout_s * 1000)
    except PlaywrightError:
        pytest.fail(f"{screen.name} does not show {what} ({selector} {filters or ''}) within {timeout_s} s; "
                    f"it shows {shown(screen)}")


def quiz_is_on(scene: Scene) -> None:
    """Every screen shows the quiz: lamps on the table, the buzzer on each phone, arm buttons for the host."""
    wait_on(scene.table, ".lamps .lamp", "the lamps")
    for phone in scene.phones:
        wait_on(phone, "#buzzer", "its buzzer")
    wait_on(scene.host, "#arm-race-host:enabled", "the arm button")


def start_quiz(scene: Scene, **options: Any) -> str:
    """The host ends the dice tray that started with the service and starts the quiz (as the host
    console does, with options the console does not offer); the new game's id."""
    service = scene.service
    assert service.post("end_game", host=True)["ok"]
    started = service.post("start_game", {"game": QUIZ, "options": options}, host=True)
    assert started["ok"], started
    game_id = started["view"]["game"]["id"]
    quiz_is_on(scene)
    return game_id


def start_quiz_from_the_console(scene: Scene) -> str:
    """The host, on the console: end the dice tray (and confirm), pick the buzzer quiz, start it."""
    host = scene.host.page
    host.once("dialog", lambda dialog: dialog.accept())
    host.locator("#end-game").click()
    host.locator("#game-select").select_option(QUIZ)
    host.locator("#start-form button[type=submit]").click()
    view = scene.wait_for_view(lambda v: v["game"] is not None and v["game"]["game"] == QUIZ)
    quiz_is_on(scene)
    return view["game"]["id"]


def armed_everywhere(scene: Scene) -> None:
    """The service armed the race, and every screen shows it (a press now counts)."""
    try:
        scene.wait_for_view(lambda v: v["game"]["view"]["armed"] is not None, timeout=5.0)
    except AssertionError:
        error = scene.host.page.locator("#error")
        pytest.fail(f"the service never armed the race; the host console says "
                    f"{error.inner_text() if error.is_visible() else 'nothing'}: {scene.view()['game']['view']}")
    for screen in (scene.table, scene.host):
        wait_on(screen, ".quiz-status.go", "the armed race")
        wait_on(screen, ".lamps.armed.race", "the armed lamps")
    for phone in scene.phones:
        wait_on(phone, "#buzzer.race", "the armed buzzer")


def press_button(scene: Scene, button: int) -> None:
    """A simulated button, pressed from the table display's keyboard (keys 1-9, 0 for 10)."""
    assert scene.table.page.evaluate("() => document.activeElement === document.body"), \
        "the table's keys only press buttons when nothing else has the focus"
    scene.table.page.keyboard.press(str(button % 10))


def wait_out_late_answers(screen: Screen, ended: float) -> None:
    """A press within a second of the end of a round (or of a game) is a late answer to it, never a
    false start of the next round (companion/buzzers/rounds.py, LATE_WINDOW_US): a test that wants a
    false start waits that second out (`ended`: a time.monotonic() after that end). Not a wait for
    something to happen, so no wait_for can replace it."""
    screen.page.wait_for_timeout(max(0.0, ended + LATE_ANSWER_S - time.monotonic()) * 1000)


def settled(scene: Scene, round_number: int) -> dict[str, Any]:
    """The service's result of round `round_number`, once it is decided (long polls, no sleeps)."""
    view = scene.wait_for_view(lambda v: any(r["round"] == round_number for r in v["game"]["view"]["results"]))
    return next(r for r in view["game"]["view"]["results"] if r["round"] == round_number)


def wait_for_result(screens: list[Screen], round_number: int, timeout_s: float = 5.0) -> None:
    for screen in screens:
        try:
            screen.page.wait_for_function(
                "(n) => { const t = document.querySelector('.round-result h3');"
                " return !!t && t.textContent.endsWith(' ' + n); }", arg=round_number, timeout=timeout_s * 1000)
        except PlaywrightError:
            pytest.fail(f"{screen.name} does not show round {round_number}'s result; it shows {shown(screen)}")


TIMED = {"reaction": "phone (reaction)", "mapped": "phone (tap)", "arrival": "phone (on arrival)",
         "before_signal": "phone (before its signal)"}
"""How a phone's row says it was timed (English)."""


def expected_rows(result: dict[str, Any]) -> list[list[str]]:
    """The order table every screen must show (English), from the service's decision."""
    def ms(us: int) -> str:
        # As the pages round (Intl.NumberFormat: the decimal value, halves away from zero): 197,350 µs
        # is 197.4 ms, where Python's float formatting would say 197.3.
        return str((Decimal(us) / 1000).quantize(Decimal("0.1"), ROUND_HALF_UP))

    rows = []
    for place, press in enumerate(result["decision"]["order"], start=1):
        gap = press["gap_us"]
        gap_text = "—" if gap == 0 else f"+{gap / 1000:.3f} ms" if abs(gap) < 1000 else f"+{ms(gap)} ms"
        spread = press["uncertainty_us"]
        precision = f"±{spread} µs" if spread < 1000 else f"±{ms(spread)} ms"
        how = TIMED[press["method"]] if "method" in press else press["source"]
        rows.append([str(place), name_of(press["who"]), f"{ms(press['after_arm_us'])} ms", gap_text, precision, how])
    return rows


def latest_presses(host: Screen) -> list[list[str]]:
    """The host console's "Latest presses": button, whose, what became of it (the time left out)."""
    return host.page.evaluate("""() => [...document.querySelectorAll("#host-buttons table.recent tbody tr")]
        .map((tr) => [...tr.cells].slice(1).map((td) => td.textContent))""")


def no_script_errors(scene: Scene) -> None:
    errors = {screen.name: screen.errors for screen in scene.screens if screen.errors}
    assert not errors, f"script errors on the pages: {errors}"


def phones_mapped(scene: Scene, seats: list[int], timeout_s: float = 10.0) -> None:
    """The server maps these phones' clocks now (their echoes carry their pages' readings)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        timing = scene.view("host")["buttons"]["phone_timing"]
        if all(timing.get(str(seat)) == "mapped" for seat in seats):
            return
        time.sleep(0.05)
    pytest.fail(f"the phones' clocks are not mapped within {timeout_s} s: {timing}")


def buzz(phone: Screen) -> tuple[dict[str, Any], dict[str, Any]]:
    """A real tap on the phone's buzzer: what its page sent, and what the service answered."""
    with phone.page.expect_response("**/api/buzz") as answer:
        phone.page.locator("#buzzer").tap()
    return answer.value.request.post_data_json, answer.value.json()


# ------------------------------------------------------------------------------------------------ tests

def test_two_phones_and_a_simulated_button_race_and_every_screen_shows_the_same_order_within_a_second(
        scene: Scene) -> None:
    table, host = scene.table, scene.host
    phone1, phone2, phone3 = scene.phones
    assert [phone.seat for phone in scene.phones] == [1, 2, 3]
    game_id = start_quiz(scene, grace_ms=LONGEST_GRACE_MS)
    phones_mapped(scene, [2, 3])  # pings map the pages' clocks within a second of the quiz's start
    for screen in scene.screens:
        screen.page.evaluate(RESULT_CLOCK_JS)
    table.page.evaluate(SOUND_SPY_JS)

    # The host arms a race from the console: every screen says so, the phones' buzzers light up, and
    # the table display sounds it (the first round of a quiz too).
    host.page.locator("#arm-race-host").click()
    armed_everywhere(scene)
    table.page.wait_for_function("() => window.__tones.length > 0")
    assert quiz_view(scene)["armed"]["mode"] == "race"

    # Phone 2 and phone 3 tap their buzzer (touch, as a finger would), then button 1 is pressed.
    phone2.page.locator("#buzzer").tap()
    phone3.page.locator("#buzzer").tap()
    press_button(scene, 1)

    result = settled(scene, 1)
    decision = result["decision"]
    who = {press["who"]: press["source"] for press in decision["order"]}
    assert who == {"seat:1": "simulated", "seat:2": "phone", "seat:3": "phone"}, \
        f"three presses within the grace are all in the order: {decision}"
    # The phones' pages stamped the taps and the frames that lit their buzzers: each phone's press is
    # its reaction, timed on the phone.
    assert [p.get("method") for p in decision["order"] if p["source"] == "phone"] == ["reaction", "reaction"]
    assert decision["signal"] == "phones"
    assert decision["false_starts"] == []
    assert result["winner"] in who, result

    # Every screen shows it within a second of the decision (the moment it was decided, in the log,
    # against the moment each page first drew it: the same machine's clock).
    everyone = scene.screens
    wait_for_result(everyone, 1)
    rows = expected_rows(result)
    winner = name_of(result["winner"])
    for screen in everyone:
        seen = shown(screen)
        assert seen["rows"] == rows, f"{screen.name} shows the order {seen['rows']}, expected {rows}"
        assert seen["winner"] is not None and winner in seen["winner"], f"{screen.name}: {seen['winner']!r}"
    winners = {shown(screen)["winner"] for screen in everyone}
    assert len(winners) == 1, f"the screens disagree about the winner: {winners}"
    for screen in (table, host):
        lamps = {lamp["seat"]: lamp for lamp in shown(screen)["lamps"]}
        assert sorted(lamps) == [1, 2, 3], f"{screen.name} has a lamp per seat: {lamps}"
        for place, press in enumerate(decision["order"], start=1):
            lamp = lamps[int(press["who"].removeprefix("seat:"))]
            assert lamp["bulb"] == str(place), f"{screen.name}: {lamp}"
            assert lamp["state"] == ("win" if press["who"] == result["winner"] else "lit"), f"{screen.name}: {lamp}"
    assert phone1.page.locator(".mine").count() == 1

    # Every press is on the host console, refereed, whether or not it made the grace.
    host.page.locator("#host-buttons table.recent").wait_for()
    listed = latest_presses(host)
    for button, name in (("phone:2", PLAYERS[1]), ("phone:3", PLAYERS[2]), ("simulated:1", PLAYERS[0])):
        assert [button, name, "refereed"] in listed, f"{button} is not in the host's latest presses: {listed}"

    # The decision as the log keeps it, and how long each screen took to show it.
    assert scene.service.post("end_game", host=True)["ok"]   # a running game's log is not exported
    exported = scene.service.get(f"/api/games/{game_id}/export", host=True)
    settle = next(e for e in exported["events"] if e["type"] == "round_settled")
    assert settle["data"]["decision"]["order"] == decision["order"]
    shown_at = {screen.name: screen.page.evaluate("() => window.__resultShownAt['Round 1']") for screen in everyone}
    took = {name: (at - settle["wall_ms"]) / 1000 for name, at in shown_at.items()}
    assert all(0 <= s < SHOW_WITHIN_S for s in took.values()), f"seconds from the decision to each screen: {took}"
    no_script_errors(scene)


def test_a_press_before_the_arm_is_a_false_start_shown_in_red(scene: Scene) -> None:
    table = scene.table
    start_quiz_from_the_console(scene)
    dice_tray_ended = time.monotonic()

    # Button 1 (seat 1) is pressed before the round is armed; then the table's Space key arms a race.
    wait_out_late_answers(table, dice_tray_ended)
    with table.page.expect_response(lambda r: r.url.endswith("/api/buttons/press")) as pressed:
        press_button(scene, 1)
    assert pressed.value.ok
    table.page.keyboard.press(" ")
    armed_everywhere(scene)
    scene.phones[1].page.locator("#buzzer").tap()   # seat 2 answers in time

    result = settled(scene, 1)
    decision = result["decision"]
    assert [p["who"] for p in decision["false_starts"]] == ["seat:1"], decision
    assert [p["who"] for p in decision["order"]] == ["seat:2"] and result["winner"] == "seat:2", decision
    early_ms = f"{decision['false_starts'][0]['early_us'] / 1000:.1f}"

    wait_for_result(scene.screens, 1)
    seen = shown(table)
    assert seen["false_starts"] == [f"{PLAYERS[0]} {early_ms} ms early"], seen
    lamps = {lamp["seat"]: lamp["state"] for lamp in seen["lamps"]}
    assert lamps == {1: "early", 2: "win", 3: "off"}, lamps
    assert seen["winner"] == f"{PLAYERS[1]} wins"
    assert shown(scene.host)["false_starts"] == seen["false_starts"]
    scene.phones[0].page.locator(".mine.early", has_text=f"False start: {early_ms} ms early").wait_for()

    # Red: the false start's lamp and its line are drawn in a warm red, unlike the winner's gold.
    colours = table.page.evaluate("""() => {
      const rgb = (el, prop) => getComputedStyle(el)[prop].match(/\\d+/g).slice(0, 3).map(Number);
      return { early: rgb(document.querySelector('.lamp.early .bulb'), 'backgroundColor'),
               win: rgb(document.querySelector('.lamp.win .bulb'), 'backgroundColor'),
               line: rgb(document.querySelector('.false-starts'), 'color') };
    }""")
    for part in ("early", "line"):
        r, g, b = colours[part]
        assert r >= 200 and g <= 0.65 * r and b <= 0.65 * r, f"the false start's {part} is not red: {colours}"
    assert colours["early"] != colours["win"], colours
    no_script_errors(scene)


def test_a_phone_pairs_a_button_which_then_plays_for_its_seat(scene: Scene) -> None:
    table, host, phone1 = scene.table, scene.host, scene.phones[0]
    start_quiz(scene)

    # Phone 1 asks to pair its button: the table display and the host say whose button to press.
    phone1.page.locator("#my-button").get_by_text("No wired button is paired with your seat.").wait_for()
    phone1.page.locator("#pair-mine").tap()
    phone1.page.locator("#my-button .banner.pairing", has_text="Press your button now").wait_for()
    wait_on(table, ".banner.pairing", "the pairing banner", has_text=f"{PLAYERS[0]}: press your button now")
    wait_on(host, "#host-buttons .banner.pairing", "the pairing banner",
            has_text=f"{PLAYERS[0]}: press your button now")

    # Button 7 is pressed: it is now seat 1's, on phone 1's own panel and on the host console.
    press_button(scene, 7)
    phone1.page.locator("#my-button", has_text="Paired: simulated:7").wait_for()
    wait_on(host, "#host-buttons ul.pairs li", "the new pair", has_text=f"simulated:7 → {PLAYERS[0]}")
    table.page.locator(".banner.pairing").wait_for(state="detached")
    assert phone1.page.locator("#my-button .banner.pairing").count() == 0

    # In the next race (armed by the host), button 7 plays for seat 1.
    host.page.locator("#arm-race-host").click()
    armed_everywhere(scene)
    press_button(scene, 7)
    result = settled(scene, 1)
    order = result["decision"]["order"]
    assert [(p["who"], p["source"]) for p in order] == [("seat:1", "simulated")], result
    assert result["winner"] == "seat:1" and result["decision"]["false_starts"] == []
    wait_for_result(scene.screens, 1)
    for screen in scene.screens:
        seen = shown(screen)
        assert seen["winner"] == f"{PLAYERS[0]} wins", f"{screen.name}: {seen}"
        assert seen["rows"] == expected_rows(result), f"{screen.name}: {seen}"
    phone1.page.locator(".mine.first").wait_for()
    listed = latest_presses(host)
    assert listed[:2] == [["simulated:7", PLAYERS[0], "refereed"], ["simulated:7", PLAYERS[0], "paired"]], listed
    no_script_errors(scene)


def ms_text(us: int) -> str:
    """Milliseconds as the pages write them in English (Intl.NumberFormat rounds halves away from zero)."""
    return str((Decimal(us) / 1000).quantize(Decimal("0.1"), ROUND_HALF_UP))


def mine_text(phone: Screen) -> str:
    wait_on(phone, ".mine", "its own line about the round")
    return phone.page.locator(".mine").inner_text()


def test_a_tie_is_no_first_place_and_a_press_after_the_decision_is_listed_and_told_to_its_phone(
        scene: Scene, artifacts: Path) -> None:
    """Phones 1 and 2 do not answer the server's pings, so their buzzes are vague (±150 ms) and two
    taps at the same instant are too close to call: the draw settles it. Neither tied phone says
    "#1"; each says it tied and what the draw decided. Phone 3 then presses after the decision: the TV lists
    it below the order with its time, and phone 3 is told how far behind the winner it pressed."""
    table, phone1, phone2, phone3 = scene.table, *scene.phones
    for phone in (phone1, phone2):
        phone.page.route("**/api/ping", lambda route: route.abort())
    start_quiz(scene, grace_ms=LONGEST_GRACE_MS, window_s=10)
    scene.host.page.locator("#arm-race-host").click()
    armed_everywhere(scene)
    at_once([(phone1, "#buzzer"), (phone2, "#buzzer")], "pointerdown")
    result = settled(scene, 1)
    decision = result["decision"]
    assert decision["outcome"] == "tie" and sorted(decision["tied_first"]) == ["seat:1", "seat:2"], decision
    winner = name_of(result["winner"])
    wait_for_result(scene.screens, 1)
    winner_row = next(p for p in decision["order"] if p["who"] == result["winner"])
    winner_time = f"{ms_text(winner_row['after_arm_us'])} ms after the signal"
    table.page.locator(".round-result .reaction", has_text=winner_time).wait_for()  # the winner's, not the first's
    for phone, other in ((phone1, PLAYERS[1]), (phone2, PLAYERS[0])):
        line = mine_text(phone)
        assert "#1" not in line and "#" not in line, f"{phone.name} claims a place in a tie: {line!r}"
        assert f"Too close to call: you and {other}" in line, f"{phone.name}: {line!r}"
        drawn = "The draw chose you" if winner == PLAYERS[phone.seat - 1] else f"The draw chose {winner}"
        assert drawn in line, f"{phone.name}: {line!r}"

    phone3.page.locator("#buzzer").tap()
    view = scene.wait_for_view(lambda v: bool(v["game"]["view"]["results"][0].get("late")))
    late = view["game"]["view"]["results"][0]["late"]
    assert [row["who"] for row in late] == ["seat:3"], late
    row = late[0]
    try:
        table.page.locator("table.order tbody.late tr.late", has_text=PLAYERS[2]).wait_for(timeout=5000)
    except PlaywrightError:
        pytest.fail(f"the TV does not list the press after the decision; it shows {shown(table)}")
    cells = table.page.locator("table.order tbody.late tr.late td").all_inner_texts()
    assert cells[:5] == ["3", PLAYERS[2], f"{ms_text(row['after_arm_us'])} ms", f"+{ms_text(row['gap_us'])} ms",
                         f"±{ms_text(row['uncertainty_us'])} ms"], cells
    behind = ms_text(row["after_arm_us"] - winner_row["after_arm_us"])
    phone3.page.locator(".mine", has_text=f"You pressed {behind} ms after {winner}, the winner").wait_for()
    assert f"{ms_text(row['after_arm_us'])} ms after the signal" in mine_text(phone3)
    shoot_all = ((table, "table"), (phone1, "phone-tied"), (phone3, "phone-late"))
    for screen, name in shoot_all:
        screen.page.screenshot(path=str(artifacts / f"quiz-tie-{name}-en.png"), full_page=True, animations="disabled")

    # The same lines in French (times with a decimal comma).
    for screen, _name in shoot_all:
        screen.page.goto(scene.url_of(screen, "fr"))
    table.page.locator("table.order tbody.late th", has_text="Appuyé après la décision").wait_for()
    tied_line = mine_text(phone1)
    assert "Trop serré pour trancher : vous et" in tied_line and "Le tirage au sort" in tied_line, tied_line
    assert "n°" not in tied_line, tied_line
    behind_fr = behind.replace(".", ",")
    phone3.page.locator(".mine", has_text=f"Vous avez appuyé {behind_fr} ms après {winner}, qui gagne").wait_for()
    for screen, name in shoot_all:
        screen.page.screenshot(path=str(artifacts / f"quiz-tie-{name}-fr.png"), full_page=True, animations="disabled")
    no_script_errors(scene)


@pytest.mark.slow
def test_a_buzz_carries_its_tap_and_frame_and_a_page_whose_clock_jumps_is_timed_by_arrival(own_scene: Scene) -> None:
    """A phone's page stamps the tap (pointerdown) and the frame that lit its buzzer, on its own
    clock; the service believes them once it has mapped that clock. Phone 2's clock is then made to
    jump 7 s ahead (the page's clock is the test's): its next tap is timed by arrival, the TV says
    so, and once pings have mapped the clock again its taps are believed again."""
    scene = own_scene   # phone 2's page clock is the test's from now on
    table, phone1, phone2, _phone3 = scene.table, *scene.phones
    start_quiz(scene, grace_ms=LONGEST_GRACE_MS)
    phones_mapped(scene, [1, 2])

    scene.host.page.locator("#arm-race-host").click()
    armed_everywhere(scene)
    sent, answer = buzz(phone1)
    assert sent["round"] == 1 and isinstance(sent["tap"], float | int), sent
    assert isinstance(sent["shown"], float | int) and 0 < sent["shown"] <= sent["tap"], \
        f"the frame that lit the buzzer, before the tap, on the page's clock: {sent}"
    armed_at = phone1.page.evaluate("""() => (window.__received.find((r) => r.kind === "sse"
        && r.data.includes('["buttons","round"],1]')) || {}).at""")
    assert armed_at is not None and sent["shown"] >= armed_at, \
        f"the buzzer was lit no sooner than the arm reached the page ({armed_at} ms): {sent}"
    page_now = phone1.page.evaluate("() => performance.now()")
    assert sent["tap"] <= page_now < sent["tap"] + 10_000
    assert answer["method"] == "mapped" and answer["refused"] == "", answer

    phone2.page.clock.install()
    phones_mapped(scene, [2])
    # From the jump to the tap, the page's ping echoes wait: a ping that found the jumped clock first
    # would have it mapped anew (a loaded machine can take a second to tap), and the tap must be the
    # first reading of the jumped clock the service sees.
    held: list[Route] = []
    phone2.page.route("**/api/ping", lambda route: held.append(route))
    phone2.page.clock.fast_forward(7_000)  # the page's clock jumps seven seconds ahead
    sent, answer = buzz(phone2)
    phone2.page.unroute("**/api/ping")  # the echoes held go on their way
    assert answer["method"] == "arrival", f"a tap stamped on the jumped clock is believed: {answer}"
    # Installing the test's clock moved the page's clock too, by an amount the test does not
    # choose: the tap is then after its arrival, long before it, or from a clock not mapped yet.
    assert answer["refused"] in ("tap_after_arrival", "tap_too_old", "clock_unmapped"), answer
    result = settled(scene, 1)
    rows = {row["who"]: row for row in result["decision"]["order"]}
    assert rows["seat:1"]["method"] == "reaction" and rows["seat:2"]["method"] == "arrival", rows
    wait_for_result([table], 1)
    cells = {row[1]: row for row in shown(table)["rows"]}
    assert cells[PLAYERS[0]][5] == "phone (reaction)" and cells[PLAYERS[1]][5] == "phone (on arrival)", cells
    assert cells[PLAYERS[1]][4] == f"±{ms_text(rows['seat:2']['uncertainty_us'])} ms", "its wider bound, said"
    table.page.locator(".round-result caption", has_text="reactions on each phone").wait_for()

    phones_mapped(scene, [2])
    wait_out_late_answers(phone2, time.monotonic())
    scene.host.page.locator("#arm-race-host").click()
    armed_everywhere(scene)
    sent, answer = buzz(phone2)
    assert sent["round"] == 2 and answer["method"] == "mapped", (sent, answer)
    no_script_errors(scene)


def test_screenshots_of_the_quiz_in_english_and_french(scene: Scene, artifacts: Path) -> None:
    table, host, phone = scene.table, scene.host, scene.phones[1]
    start_quiz(scene, grace_ms=300)
    last_settled = time.monotonic()   # the dice tray ended before the quiz started
    words = {"en": ("Buzz!", "Round", "Latest presses"), "fr": ("Buzzez !", "Manche", "Derniers appuis")}
    for number, lang in enumerate(("en", "fr"), start=1):
        for screen, path in ((table, "/table"), (phone, "/me"), (host, "/host")):
            screen.page.goto(f"{scene.service.base}{path}?lang={lang}")
            screen.page.locator("#link:not(.down)").wait_for()
            assert screen.page.locator("html").get_attribute("lang") == lang
        quiz_is_on(scene)

        # A false start by button 1 (once the last round, or the dice tray, is over for a second),
        # then the host arms a race.
        wait_out_late_answers(table, last_settled)
        with table.page.expect_response(lambda r: r.url.endswith("/api/buttons/press")):
            press_button(scene, 1)
        host.page.locator("#arm-race-host").click()
        armed_everywhere(scene)
        table.page.locator(".quiz-status.go", has_text=words[lang][0]).wait_for()
        phone.page.locator("#buzzer + .hint").wait_for()
        table.page.screenshot(path=str(artifacts / f"quiz-table-armed-{lang}.png"), full_page=True,
                              animations="disabled")
        phone.page.screenshot(path=str(artifacts / f"quiz-phone-{lang}.png"), full_page=True, animations="disabled")

        # Phones 3 and 2 answer, then button 1 again: the result, the order, the false start, the board.
        scene.phones[2].page.locator("#buzzer").tap()
        phone.page.locator("#buzzer").tap()
        press_button(scene, 1)
        settled(scene, number)
        last_settled = time.monotonic()
        wait_for_result([table, host], number)
        table.page.locator(".round-result h3", has_text=f"{words[lang][1]} {number}").wait_for()
        table.page.locator(".false-starts").wait_for()
        table.page.screenshot(path=str(artifacts / f"quiz-table-result-{lang}.png"), full_page=True,
                              animations="disabled")
        wait_for_result([phone], number)
        phone.page.screenshot(path=str(artifacts / f"quiz-phone-result-{lang}.png"), full_page=True,
                              animations="disabled")
        host.page.locator("#host-buttons h3", has_text=words[lang][2]).wait_for()
        card = host.page.locator("section.card", has=host.page.locator("#host-buttons"))
        card.screenshot(path=str(artifacts / f"quiz-host-buttons-{lang}.png"), animations="disabled")
    for lang in ("en", "fr"):
        for shot in ("table-armed", "table-result", "phone", "phone-result", "host-buttons"):
            assert (artifacts / f"quiz-{shot}-{lang}.png").stat().st_size > 10_000, shot
    no_script_errors(scene)


