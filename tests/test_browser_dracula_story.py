"""Dracula's story at a full table: the TV (in English, and a second one in French) and thirteen
phones, each its own browser context that joined through the QR code, through a whole round with
the companion as game master. The roles read behind hold-to-peek; night 1, where Dracula alone sees
the rooms first and bites; a sanctuary vote whose last two places are level at the cut (their last
votes leave two phones at the same instant: when the times are closer than their uncertainties the
TV says "tied" and "drawn", otherwise the quicker stays); night 2 with a waltz, a boudoir snoop
and Dracula tortured, passing for a human; the boudoir letter and its one reply, and the waltz
partners' letters; a garlic steal over nights 3 and 4; and the final phase, where the fighters
burn Dracula (and every vampire with him: the points the garlic stole die too, so the test reads
them from the game's state after night 4). The TVs and the key phones are screenshotted at each key
moment in both languages (test-artifacts/dracula-story-*.png).

The deal is the companion's: the test reads who is Dracula and who holds garlic from the game's
state replayed from its log (tests/support/dracula_story.py) and writes the story relative to them.
The key moments are tapped on the screens; the many routine answers are sent from each phone's own
page.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Playwright

from companion.sim.players.dracula import NAMES
from companion.sim.service import ServiceProcess
from tests.support.browser import TV_SIZE, Scene, Screen, at_once, holding, tv_and_phones, wait_on
from tests.support.dracula_story import (
    FullTableBuilder,
    all_ready,
    answer,
    command,
    game_state,
    heard,
    news_kinds,
    objects_held,
    own_sheet,
    phone_shots,
    reach,
    round_points,
    settled,
    tv_shots,
)
from tests.test_browser_dracula_phone import SPY_JS, offered, phase, send, shown_while_held, tap, write

pytestmark = [pytest.mark.browser, pytest.mark.slow]

OPTIONS = {"rounds": 1, "gm": "companion", "day_s": 1800, "dusk_s": 1800, "actions_s": 1800, "dawn_s": 600,
           "final_s": 1800, "torture_s": 600}
"""Every phase ends as soon as its last answer is in, so no step of the story waits on a clock; the
clocks are long so that none runs out while a page reloads in the other language on a slow machine."""
SCREEN = "#dracula-screen"


@pytest.fixture
def scene(chromium: Browser, playwright_driver: Playwright, companion_service: ServiceProcess,
          tmp_path: Path) -> Iterator[Scene]:
    """The table display, the host console and thirteen phones (the table set to thirteen seats
    first), each phone from its own address."""
    companion_service.post("end_game", host=True)
    answer = companion_service.post("set_seat_count", {"count": len(NAMES)}, host=True)
    assert answer["ok"], answer
    builder = FullTableBuilder(chromium, playwright_driver, companion_service, tmp_path)
    try:
        yield builder.build(NAMES)
    finally:
        builder.close()


@pytest.fixture
def french_tv(chromium: Browser, scene: Scene) -> Iterator[Page]:
    context = chromium.new_context(locale="fr-FR", viewport=TV_SIZE)
    page = context.new_page()
    page.goto(f"{scene.service.base}/table?lang=fr")
    page.locator("#link:not(.down)").wait_for()
    yield page
    context.close()


def rooms_and_actions(scene: Scene, number: int, rooms: dict[int, str], uses: frozenset[int] = frozenset(),
                      bites: dict[int, int] | None = None, phones: list[Screen] | None = None) -> None:
    """A quiet night sent from the phones' pages: each in its room (the rest of tonight's players
    in the boudoir), the objects of `uses` used, the `bites` bitten, everyone else passing."""
    pic = reach(scene, "dusk", number)
    awake = [p for p in (phones or scene.phones) if p.seat not in pic["sanctuary"]]
    answer([(p, "choose_room", {"room": rooms.get(p.seat, "boudoir"), "use": p.seat in uses}) for p in awake])
    reach(scene, "actions", number)
    bitten = bites or {}
    answer([(p, "act", {"bite": bitten[p.seat]} if p.seat in bitten else {}) for p in awake])
    reach(scene, "dawn", number)


def peeked(scene: Scene, phone: Screen, peek: str, words: list[str]) -> None:
    """`words` show on the phone only while `peek` is held, once the phone has drawn the latest
    state (a redraw would take the control from under the finger before it is held)."""
    settled(scene, phone)
    shown_while_held(phone, peek, words)


def written(scene: Scene, phone: Screen, to: Screen, kind: str, text: str) -> None:
    """The phone's player writes from its Messages box, once the phone has drawn the latest state
    (a letter arriving as the box opens would draw it anew)."""
    settled(scene, phone)
    if phone.page.locator("#dracula-messages[open]").count() == 0:
        # Opened with the page's `toggle` awaited: the page keeps the box open across its redraws
        # from that event on, and picking the recipient redraws it at once.
        phone.page.evaluate("""() => new Promise((opened) => {
          const box = document.getElementById('dracula-messages');
          box.addEventListener('toggle', () => opened(), { once: true });
          box.querySelector('summary').click(); })""")
    write(phone, to, kind, text)


def votes_for(scene: Scene, number: int, chosen: list[int]) -> None:
    """A day's vote sent from the phones: the votes spread over `chosen` (all eligible), who stay."""
    pic = reach(scene, "day", number)
    assert set(chosen) <= set(pic["eligible"]), (chosen, pic["eligible"])
    answer([(p, "vote", {"candidate": chosen[i % len(chosen)]}) for i, p in enumerate(scene.phones)])
    pic = reach(scene, "dusk", number)
    assert sorted(pic["sanctuary"]) == sorted(chosen), pic["tally"]


def test_a_round_of_dracula_on_the_tv_and_thirteen_phones(scene: Scene, french_tv: Page, artifacts: Path) -> None:
    service = scene.service
    tv = scene.table
    tv_and_phones(scene)
    service.post("end_game", host=True)
    started = service.post("start_game", {"game": "dracula", "options": OPTIONS}, host=True)
    assert started["ok"], started
    phase(scene, "roles")
    for phone in scene.phones:   # the spy outlives the reloads of the language switches
        phone.context.add_init_script(script=f"({SPY_JS})()")
        phone.page.evaluate(SPY_JS)
    seat_of = {p.seat: p for p in scene.phones}
    name_of = {p.seat: NAMES[p.seat - 1] for p in scene.phones}
    d = seat_of[game_state(scene).dracula]
    h = [p for p in scene.phones if p is not d]

    # The roles: each read behind hold-to-peek, "human" on a human's phone, "vampire" on Dracula's.
    peeked(scene, h[0], "private", ["Your role: human."])
    peeked(scene, d, "private", ["Your role: vampire.", "You are Dracula"])
    tv_shots(scene, french_tv, artifacts, "roles", ".dracula-table.phase-roles")
    phone_shots(scene, d, artifacts, "dracula-role", SCREEN, peek="private")
    all_ready(scene.phones)
    reach(scene, "day", 1)
    all_ready(scene.phones)

    # Night 1: everyone picks a room; Dracula alone sees them all, picks the jails where A (h0) is,
    # and bites A. Nobody else sees a room before the positions.
    a = h[0]
    spread = ("boudoir", "ballroom", "torture", "jails")
    night1 = {a.seat: "jails", d.seat: "boudoir", **{p.seat: spread[i % 4] for i, p in enumerate(h[1:])}}
    reach(scene, "dusk", 1)
    answer([(p, "choose_room", {"room": night1[p.seat]}) for p in scene.phones])
    reach(scene, "dracula", 1, [d, h[1]])
    with holding(d, "dracula-sight"):
        d.page.locator(".d-sight li").first.wait_for()
        assert d.page.locator(".d-sight li").count() == 12
        assert d.page.locator(f".d-sight li[data-seat='{a.seat}'][data-room='jails']").count() == 1
    with holding(h[1], "dracula-sight"):
        h[1].page.locator("#peek-dracula-sight p").wait_for()
        assert h[1].page.locator(".d-sight li").count() == 0, "a human sees nobody's room early"
    phone_shots(scene, d, artifacts, "night-1-sight", SCREEN, peek="dracula-sight")
    tap(d, ".d-room[data-room='jails']")
    send(d, "#dracula-send-room")
    answer([(p, "choose_room", {"room": night1[p.seat]}) for p in h])
    reach(scene, "actions", 1, [d])
    wait_on(tv, f"#dracula-positions .dt-room[data-room='jails'] li[data-seat='{d.seat}']", "Dracula in the jails")
    wait_on(tv, f"#dracula-positions .dt-room[data-room='jails'] li[data-seat='{a.seat}']", "A in the jails")
    tv_shots(scene, french_tv, artifacts, "night-1-positions", "#dracula-positions")
    tap(d, "[data-kind='bite']")
    tap(d, f"[data-for='bite'][data-seat='{a.seat}']")
    send(d, "#dracula-send-action")
    answer([(p, "act", {}) for p in h])
    reach(scene, "dawn", 1, [a, h[1]])
    peeked(scene, a, "dracula-news", ["You were bitten tonight.", "You have become a vampire."])
    peeked(scene, h[1], "dracula-news", ["Nothing to tell you about tonight."])
    phone_shots(scene, a, artifacts, "dawn-1-bitten", SCREEN, peek="dracula-news")
    all_ready(scene.phones)

    # Day 2: the sanctuary vote, tapped on the phones. X (h9) 4 votes, Y (h10) 3, and T1 (h8) and
    # T2 (h11) level on 2 for the last place; the last votes of T1 and T2 leave at the same instant.
    x, y, t1, t2 = h[9], h[10], h[8], h[11]
    phase(scene, "day", 2)
    for voter, candidate in [(d, x), (h[0], x), (h[1], x), (h[2], x), (h[3], y), (h[4], y), (h[5], y),
                             (h[6], t1), (h[8], t2), (h[10], h[7]), (h[11], h[6])]:
        send(voter, f".d-candidate[data-seat='{candidate.seat}']")
    wait_on(tv, "#dracula-votes[data-ballots='11']", "eleven votes on the TV")
    tv_shots(scene, french_tv, artifacts, "day-2-votes", "#dracula-votes")
    at_once([(voter, f"{SCREEN} .d-candidate[data-seat='{candidate.seat}']")
             for voter, candidate in [(h[7], t1), (h[9], t2)]])
    pic = reach(scene, "dusk", 2)
    ranking = {r["candidate"]: r for r in pic["tally"]["ranking"]}
    assert [ranking[s.seat]["votes"] for s in (x, y, t1, t2)] == [4, 3, 2, 2], ranking
    stays = t1 if ranking[t1.seat]["chosen"] else t2
    out = t2 if stays is t1 else t1
    assert sorted(pic["sanctuary"]) == sorted([x.seat, y.seat, stays.seat]) and not ranking[out.seat]["chosen"]
    wait_on(tv, f"#dracula-tally tr[data-seat='{out.seat}']", "the count with the tie")
    rows = {s.seat: tv.page.locator(f"#dracula-tally tr[data-seat='{s.seat}']").inner_text() for s in (stays, out)}
    for seat, row in rows.items():
        assert "±" in row and " ms" in row, f"the TV shows each time and its uncertainty: {row!r}"
        if ranking[seat]["tied_with"]:
            assert f"tied with {name_of[(stays if seat == out.seat else out).seat]}" in row, row
        if ranking[seat]["drawn"]:
            assert "drawn" in row, row
    if not ranking[stays.seat]["tied_with"]:   # apart by more than their uncertainties: the quicker stays
        assert ranking[stays.seat]["reached_us"] < ranking[out.seat]["reached_us"], ranking
    tv_shots(scene, french_tv, artifacts, "day-2-tie", "#dracula-tally")
    sheltered = {x.seat, y.seat, stays.seat}

    # Night 2: a waltz (h1 and h2 snoop each other in the ballroom), a boudoir snoop (h3), and
    # Dracula tortured by h4 and h5; he passes for a human. The rest in the jails.
    night2 = {d.seat: "torture", h[1].seat: "ballroom", h[2].seat: "ballroom", h[3].seat: "boudoir",
              h[4].seat: "torture", h[5].seat: "torture"}
    awake = [p for p in scene.phones if p.seat not in sheltered]
    answer([(p, "choose_room", {"room": night2.get(p.seat, "jails")}) for p in awake])
    reach(scene, "actions", 2, h[1:4])
    for dancer, partner in ((h[1], h[2]), (h[2], h[1])):
        tap(dancer, "[data-kind='snoop']")
        tap(dancer, f"[data-for='target'][data-seat='{partner.seat}']")
        send(dancer, "#dracula-send-action")
    tap(h[3], "[data-kind='snoop']")
    send(h[3], "#dracula-send-action")
    for torturer in (h[4], h[5]):
        command(torturer, "act", snoop=True, target=d.seat)
    answer([(p, "act", {}) for p in awake if p.seat not in night2 or p is d])
    phase(scene, "torture", 2)
    for p in (d, *h):  # the same two answers on every phone: a glance tells nobody who is tortured
        p.page.locator("#dracula-disguise-true").wait_for()
    wait_on(tv, ".dracula-table.phase-torture", "the night being resolved")
    phone_shots(scene, d, artifacts, "night-2-torture", "#dracula-disguise-true")
    tv_shots(scene, french_tv, artifacts, "night-2-resolving", ".dracula-table.phase-torture")
    send(d, "#dracula-disguise-true")
    reach(scene, "dawn", 2, [d, *h[1:6]])
    dracula_is = f"The torture room: {name_of[d.seat]} is human."
    for torturer in (h[4], h[5]):
        peeked(scene, torturer, "dracula-news", [dracula_is])
    peeked(scene, d, "dracula-news", ["You were tortured tonight."])
    peeked(scene, h[1], "dracula-news", [f"You danced a waltz with {name_of[h[2].seat]}"])
    peeked(scene, h[3], "dracula-news", ["there are 2 vampires in the game"])
    for p in scene.phones:
        told = [n for n in own_sheet(p)["news"] if n["kind"] == "torture"]
        assert bool(told) == (p in (h[4], h[5])), f"{p.name}: only the torturers are told: {told}"
    phone_shots(scene, h[4], artifacts, "dawn-2-torturer", SCREEN, peek="dracula-news")
    phone_shots(scene, h[1], artifacts, "dawn-2-waltz", SCREEN, peek="dracula-news")
    objects = objects_held(game_state(scene))
    assert d.seat not in objects and len(objects) == 12, "one object each but Dracula"
    all_ready(scene.phones)

    # Day 3: the boudoir letter from h3 to h6 and its one reply; the waltz partners write to each
    # other. Each letter is on its sender's and recipient's phones only.
    reach(scene, "day", 3, [h[1], h[2], h[3], h[6]])
    letter, reply = "Two of them, count them", "Thank you, I will watch"
    written(scene, h[3], h[6], "boudoir_letter", letter)
    h[6].page.wait_for_function("() => fetch('/api/view?as=me').then((r) => r.json())"
                                ".then((v) => v.game.view.me.letters.length === 1)")
    assert f"{h[3].seat}:boudoir_reply" in offered(h[6])
    written(scene, h[6], h[3], "boudoir_reply", reply)
    h[3].page.wait_for_function("() => fetch('/api/view?as=me').then((r) => r.json())"
                                ".then((v) => v.game.view.me.letters.length === 2)")
    peeked(scene, h[3], "dracula-letters", [letter, reply])
    assert f"{h[3].seat}:boudoir_reply" not in offered(h[6]), "one reply only"
    waltz = ("Same room tonight?", "Yes, the ballroom")
    assert offered(h[1]) == [f"{h[2].seat}:message"], "a waltz partner writes to the partner alone"
    written(scene, h[1], h[2], "message", waltz[0])
    written(scene, h[2], h[1], "message", waltz[1])
    h[1].page.wait_for_function("() => fetch('/api/view?as=me').then((r) => r.json())"
                                ".then((v) => v.game.view.me.letters.length === 2)")
    peeked(scene, h[1], "dracula-letters", list(waltz))
    phone_shots(scene, h[3], artifacts, "day-3-boudoir-letters", SCREEN, peek="dracula-letters")
    phone_shots(scene, h[1], artifacts, "day-3-waltz-letters", SCREEN, peek="dracula-letters")
    for screen in [tv, scene.host, *scene.phones]:
        readers = {h[3].seat, h[6].seat} if screen.seat in (h[3].seat, h[6].seat) else set()
        for text in (letter, reply):
            assert heard(screen, text) == (screen.seat in readers), f"{screen.name} and {text!r}"
        for text in waltz:
            assert heard(screen, text) == (screen.seat in (h[1].seat, h[2].seat)), f"{screen.name} and {text!r}"

    # Nights 3 and 4: the garlic steal. G, a human with garlic, keeps it and is bitten by Dracula
    # on night 3: a vampire. On night 4 G uses the garlic and Dracula bites G again: Dracula is told
    # "failure", G "bitten", and Dracula's two points are G's.
    g = next(p for p in h if objects[p.seat] == "garlic" and p is not a)
    quiet = [p for p in h if p not in (a, g, h[3], h[6]) and p.seat in reach(scene, "day", 3)["eligible"]]
    votes_for(scene, 3, [p.seat for p in quiet[:3]])
    rooms_and_actions(scene, 3, {d.seat: "ballroom", g.seat: "ballroom"}, bites={d.seat: g.seat})
    assert news_kinds(g) == ["bitten", "converted"]
    before = round_points(game_state(scene))
    assert before[d.seat] == 2, "Dracula's two bites took"
    all_ready(scene.phones)
    eligible = reach(scene, "day", 4)["eligible"]
    votes_for(scene, 4, [s for s in eligible if s not in (d.seat, g.seat)][:3])
    rooms_and_actions(scene, 4, {d.seat: "ballroom", g.seat: "ballroom"}, uses=frozenset({g.seat}),
                      bites={d.seat: g.seat})
    bite = next(n for n in own_sheet(d)["news"] if n["kind"] == "bite")
    assert bite["result"] == "failure", bite
    assert news_kinds(g) == ["bitten"], "the holder is told it was bitten, no more"
    peeked(scene, d, "dracula-news", [f"Your bite on {name_of[g.seat]} failed."])
    after = round_points(game_state(scene))
    assert (after[d.seat], after[g.seat]) == (0, before[g.seat] + 2), "the garlic took the biter's two points"
    phone_shots(scene, d, artifacts, "dawn-4-garlic-biter", SCREEN, peek="dracula-news")
    phone_shots(scene, g, artifacts, "dawn-4-garlic-holder", SCREEN, peek="dracula-news")
    all_ready(scene.phones)

    # Day 5 and night 5, quietly; then the final phase.
    eligible = reach(scene, "day", 5)["eligible"]
    votes_for(scene, 5, eligible[:3])
    rooms_and_actions(scene, 5, {})
    all_ready(scene.phones)

    # The final phase: everyone's role on the TV, not who is Dracula. Three humans flee, the rest
    # fight; two of them (his torturers, if still human) name Dracula, tapped; the other fighters
    # name A or G. Dracula burns, and every vampire dies with him.
    pic = reach(scene, "final_choice")
    vampires = {d.seat, a.seat, g.seat}
    assert {p["seat"] for p in pic["players"] if p["role"] == "vampire"} == vampires
    for seat in vampires:
        wait_on(tv, f"#dracula-final .vampires li[data-seat='{seat}']", "the vampires on the TV")
    assert tv.page.locator("#dracula-revealed").count() == 0, "D-F1: who is Dracula stays secret"
    looks = tv.page.eval_on_selector_all("#dracula-final .vampires li", "(ls) => ls.map((l) => l.outerHTML"
                                         ".replace(/data-seat=\"\\d+\"/, '').replace(/>[^<]*</g, '><'))")
    assert len(set(looks)) == 1, f"D-F1: the TV tells no vampire from another: {looks}"
    humans = [p for p in h if p.seat not in vampires]
    torturers = [h[4], h[5]]   # who took him for a human (G, bitten since, may be one of them)
    namers = ([p for p in torturers if p in humans] + [p for p in humans if p not in torturers])[:2]
    fleeing = [p for p in humans if p not in namers][:3]
    fighters = [p for p in humans if p not in fleeing]
    reach(scene, "final_choice", phones=[fleeing[0], *namers])
    send(fleeing[0], "#dracula-flee")
    for p in fleeing[1:]:
        command(p, "stance", stance="flee")
    for p in namers:
        send(p, "#dracula-fight")
    tv_shots(scene, french_tv, artifacts, "final-choice", f"#dracula-final li[data-seat='{fleeing[0].seat}']")
    for p in fighters:
        if p not in namers:
            command(p, "stance", stance="fight")
    reach(scene, "final_target", phones=namers)
    phone_shots(scene, namers[0], artifacts, "final-naming", f"{SCREEN} button[data-seat='{d.seat}']")
    for p in namers:
        send(p, f"button[data-seat='{d.seat}']")
    for i, p in enumerate(f for f in fighters if f not in namers):
        command(p, "name_vampire", vampire=(a, g)[i % 2].seat)
    pic = reach(scene, "round_over", phones=[namers[0]])
    final = pic["final"]
    assert final["dracula_burned"] and set(final["burned"]) == vampires and set(final["dead"]) == vampires
    done = pic["rounds_done"][-1]
    points = {int(s): v / 2 for s, v in done["halves"].items()}
    assert [points[p.seat] for p in namers] == [2, 2], "two namers of Dracula: +2 each"
    assert all(points[p.seat] == 1 for p in fighters if p not in namers), "every other fighter: +1"
    assert all(points[p.seat] == 0.5 for p in fleeing), "fleeing: +0.5"
    assert all(points[s] == 0 for s in vampires), "the dead lose the round's points, the stolen ones too"
    wait_on(tv, f"#dracula-revealed[data-seat='{d.seat}']", "the round's Dracula revealed")
    wait_on(tv, "#dracula-check[data-ok='true']", "the seal checked")
    for p in scene.phones:
        line = tv.page.locator(f"#dracula-round-end .dt-points li[data-seat='{p.seat}']")
        assert line.locator(".dt-num").inner_text().split()[0] == f"{points[p.seat]:g}", line.inner_text()
        assert (line.locator(".dt-tag.dead").count() == 1) == (p.seat in vampires)
    tv_shots(scene, french_tv, artifacts, "round-over", "#dracula-revealed")
    phone_shots(scene, namers[0], artifacts, "round-over", "#dracula-round-end")

    for phone in scene.phones:
        assert phone.page.evaluate("() => window.__buzz") == [], f"{phone.name} made a sound or vibrated"
        assert not phone.errors, f"{phone.name}: {phone.errors}"
    assert not tv.errors and not scene.host.errors
