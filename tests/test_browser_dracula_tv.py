"""Dracula's TV, the forum of the original, through a whole series in Debian's Chromium against the
real service: thirteen phones answer through the API (the TV is the screen under test), a person is
the game master (so the night waits for the confirmation), two rounds are played.

Two TVs follow the table side by side, one in English and one in French, and each phase is
screenshotted in both (test-artifacts/dracula-tv-<phase>-<lang>.png). At each phase the TV shows
what the table may know and nothing else: who has answered, the votes as they arrive (one more
vote shows within a second), the count with each candidate's time, its uncertainty and the drawn
ties, the sanctuary, the posted positions room by room, the same "the night is being resolved"
screen with no clock while the night is held up, the roles once public, the round's Dracula with
the seal checked by the TV itself, and a podium of shared places with each round's Dracula.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from companion.sim.midgame import MidGame
from companion.sim.service import ServiceProcess
from tests.support.browser import TV_SIZE

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PLAYERS = 13
OPTIONS = {"rounds": 2, "gm": "person", "day_s": 1800, "dusk_s": 1800, "actions_s": 1800, "dawn_s": 600,
           "final_s": 1800, "torture_s": 600}
"""Long phases: the TV is looked at while the clock runs, and nothing ends by itself meanwhile."""
STOPS = ("roles", "day", "dusk", "dracula", "actions", "confirm", "dawn", "day_vote", "final_choice",
         "final_target", "round_over", "roles_next", "over")
SHOW_WITHIN_MS = 1000


@pytest.fixture
def tvs(chromium: Browser) -> Iterator[dict[str, Page]]:
    pages: dict[str, Page] = {}
    errors: list[str] = []
    contexts = []
    for lang in ("en", "fr"):
        context = chromium.new_context(viewport=TV_SIZE, locale="en-US")
        context.set_default_timeout(10_000)
        page = context.new_page()
        page.on("pageerror", lambda err: errors.append(str(err)))
        pages[lang] = page
        contexts.append(context)
    yield pages
    for context in contexts:
        context.close()
    assert not errors, f"script errors on the TV: {errors}"


def game_view(table: MidGame) -> dict[str, Any]:
    return dict(table.table_view()["game"]["view"])


def showing(page: Page, phase: str, position: int) -> None:
    """The TV drew the table's view up to `position`, in `phase`."""
    page.wait_for_function("([phase, position]) => { const t = document.querySelector('#game .dracula-table');"
                           " return t && t.dataset.phase === phase && Number(t.dataset.position) >= position; }",
                           arg=[phase, position], timeout=5000)


SMALL_TV = {"width": 1280, "height": 720}


def shoot_both(tvs: dict[str, Page], artifacts: Path, name: str) -> None:
    """Each language at full HD, and at 720p (-720)."""
    for lang, page in tvs.items():
        page.screenshot(path=str(artifacts / f"dracula-tv-{name}-{lang}.png"))
        page.set_viewport_size(SMALL_TV)
        page.wait_for_timeout(100)
        page.screenshot(path=str(artifacts / f"dracula-tv-{name}-{lang}-720.png"))
        page.set_viewport_size(TV_SIZE)


def seen(page: Page, selector: str) -> list[dict[str, str]]:
    """Each element's data attributes and text."""
    return list(page.evaluate(
        "(s) => [...document.querySelectorAll(s)].map((e) => ({...e.dataset, text: e.textContent}))", selector))


def vote_fast(table: MidGame, ballots: list[tuple[int, int]]) -> None:
    """Votes sent one after the other, as fast as the phones can: closer than their uncertainty."""
    for voter, candidate in ballots:
        answer = table.send("me", voter, {"name": "vote", "args": {"candidate": candidate}})
        assert answer.get("ok"), answer


def check_day_vote(table: MidGame, tvs: dict[str, Page], artifacts: Path) -> None:
    """The votes arrive on the TV as they are cast, each under its candidate with its voter; four
    candidates with a vote each, cast within the phones' uncertainty, tie for the three places."""
    g = game_view(table)
    voters = [p["seat"] for p in g["players"] if p["answered"] is False][::-1]
    candidates = [c for c in g["eligible"] if c not in voters[:4]][:4]
    assert len(voters) >= 5 and len(candidates) == 4, g
    vote_fast(table, [(voters[0], candidates[0])])
    started = time.monotonic()
    for page in tvs.values():
        page.wait_for_function("(c) => { const n = document.querySelector("
                               "`#dracula-votes .dt-candidate[data-seat='${c}']`);"
                               " return n && n.dataset.votes === '1'; }",
                               arg=candidates[0], timeout=5000)
    assert (time.monotonic() - started) * 1000 < SHOW_WITHIN_MS * 3, "the vote took too long to show"
    latest = tvs["en"].locator("#dracula-latest-vote").inner_text()
    name = {p["seat"]: p["name"] for p in g["players"]}
    assert name[voters[0]] in latest and name[candidates[0]] in latest, latest
    vote_fast(table, list(zip(voters[1:4], candidates[1:4], strict=True)))
    position = table.table_view()["position"]
    for page in tvs.values():
        showing(page, "day", position)
        shown = {int(c["seat"]): int(c["votes"]) for c in seen(page, "#dracula-votes .dt-candidate")}
        assert all(shown[c] == 1 for c in candidates), shown
        assert page.locator("#dracula-votes").get_attribute("data-ballots") == "4"
        voters_line = page.locator(f"#dracula-votes .dt-candidate[data-seat='{candidates[3]}'] .dt-voters").inner_text()
        assert name[voters[3]] in voters_line
    shoot_both(tvs, artifacts, "day-vote")


def check_count(table: MidGame, tvs: dict[str, Page], artifacts: Path) -> None:
    """After the count: the trio, each candidate's time with its ± uncertainty, and the draw."""
    g = game_view(table)
    tally = g["tally"]
    assert tally is not None and len(tally["ranking"]) == 4, tally
    for lang, page in tvs.items():
        rows = seen(page, "#dracula-tally tbody tr")
        assert [int(r["seat"]) for r in rows] == [r["candidate"] for r in tally["ranking"]]
        assert all("±" in r["text"] and "ms" in r["text"] for r in rows), rows
        drawn = [r for r in rows if r["drawn"] == "true"]
        assert drawn, f"four single votes within the phones' uncertainty are a drawn tie: {tally}"
        word = "drawn" if lang == "en" else "tiré au sort"
        assert all(word in r["text"] for r in drawn), drawn
        assert page.locator("#dracula-tally h3").inner_text().count(",") >= 1  # the three names
    shoot_both(tvs, artifacts, "dusk-count")


def check_positions(table: MidGame, tvs: dict[str, Page]) -> None:
    g = game_view(table)
    for page in tvs.values():
        for room in g["rooms"]:
            seats = sorted(int(s) for s, r in g["positions"].items() if r == room)
            shown = sorted(int(x["seat"]) for x in seen(page, f"#dracula-positions .dt-room[data-room='{room}'] li"))
            assert shown == seats, (room, shown, seats)


def check_final(table: MidGame, tvs: dict[str, Page]) -> None:
    g = game_view(table)
    vampires = sorted(p["seat"] for p in g["players"] if p["role"] == "vampire")
    for page in tvs.values():
        shown = sorted(int(x["seat"]) for x in seen(page, "#dracula-final .vampires li"))
        assert shown == vampires


def check_round_end(table: MidGame, tvs: dict[str, Page]) -> None:
    g = game_view(table)
    done = g["rounds_done"][-1]
    name = {p["seat"]: p["name"] for p in g["players"]}
    for page in tvs.values():
        assert page.locator("#dracula-revealed").get_attribute("data-seat") == str(done["dracula"])
        assert name[done["dracula"]] in page.locator("#dracula-revealed").inner_text()
        assert page.locator("#dracula-check").get_attribute("data-ok") == "true", "the TV's own check opens the seal"
        assert done["salt"] in page.locator("#dracula-check").inner_text()
        # The round is over: nobody is in the sanctuary any more, whoever spent the last night there.
        assert page.locator("#dracula-players .dt-tag.sanctuary").count() == 0
        if g["final"] and g["final"]["dracula_burned"]:
            said = page.locator("#dracula-round-end .dt-outcome").inner_text()
            assert all(name[s] in said for s in done["vampires"]), "every vampire dies with Dracula"


def check_podium(table: MidGame, tvs: dict[str, Page]) -> None:
    g = game_view(table)
    totals = {p["seat"]: p["total"] for p in g["players"]}
    best = max(totals.values())
    first = sorted(s for s, t in totals.items() if t == best)
    for page in tvs.values():
        step = page.locator("#dracula-podium .dt-step").first
        assert step.get_attribute("data-place") == "1"
        assert step.get_attribute("data-seats") == ",".join(str(s) for s in first), "equal totals share the place"
        rounds = [int(x["round"]) for x in seen(page, "#dracula-draculas li")]
        assert rounds == [r["round"] for r in g["rounds_done"]] == [1, 2]


def test_the_tv_shows_the_forum_through_a_series(tvs: dict[str, Page], tmp_path: Path, artifacts: Path) -> None:
    service = ServiceProcess(tmp_path / "data", extra=("--simulate",)).start()
    try:
        table = MidGame(service, seed=5)
        table.seat_players(PLAYERS)
        table.start("dracula", OPTIONS)
        for lang, page in tvs.items():
            page.goto(f"{service.base}/table?lang={lang}")
        reached = []
        for stop in table.tour(STOPS, within={"day_vote": 0, "final_target": 0}, budget=400):
            reached.append(stop)
            view = table.table_view()
            g = view["game"]["view"]
            for page in tvs.values():
                showing(page, g["phase"], view["position"])
            clock = tvs["en"].locator("#dracula-clock")
            if stop == "confirm":
                # Held up for the game master (or Dracula's answer): one screen, no clock.
                assert clock.count() == 0
                assert "resolved" in tvs["en"].locator("#dracula-phase").inner_text() + \
                    tvs["en"].locator(".dt-what").inner_text()
            elif g["clock"] is not None:
                assert clock.count() == 1
            answered = [p for p in g["players"] if p["answered"] is not None]
            if answered:
                marks = {int(x["seat"]): x["answered"] for x in seen(tvs["en"], "#dracula-players .dt-player")}
                assert all(marks[p["seat"]] == str(p["answered"]).lower() for p in answered)
            if stop == "day_vote":
                check_day_vote(table, tvs, artifacts)
                assert service.post("end_phase", host=True).get("ok")
                position = table.table_view()["position"]
                for page in tvs.values():
                    showing(page, "dusk", position)
                check_count(table, tvs, artifacts)
                continue
            if stop == "actions":
                check_positions(table, tvs)
            if stop == "final_choice":
                # Someone fights, so the fight comes (the others' stances are the tour's).
                human = next(p["seat"] for p in g["players"] if p["answered"] is False)
                assert table.send("me", human, {"name": "stance", "args": {"stance": "fight"}}).get("ok")
            if stop == "final_target":
                check_final(table, tvs)
            if stop == "round_over":
                check_round_end(table, tvs)
            if stop == "roles_next":
                # The series so far: the first round's Dracula, the standings.
                for page in tvs.values():
                    assert [x["round"] for x in seen(page, "#dracula-draculas li")] == ["1"]
            if stop == "over":
                check_podium(table, tvs)
            shoot_both(tvs, artifacts, stop)
        missing = [s for s in STOPS if s not in reached]
        assert not missing, f"the tour never reached {missing}"
    finally:
        service.stop()


def test_a_round_the_host_ended_runs_no_clock_and_waits_on_nobody(tvs: dict[str, Page], tmp_path: Path) -> None:
    """The host ends the game in the middle of a day: the TV no longer counts down nor marks
    anyone as awaited (nobody is asked anything any more)."""
    service = ServiceProcess(tmp_path / "data", extra=("--simulate",)).start()
    try:
        table = MidGame(service, seed=3)
        table.seat_players(4)
        table.start("dracula", OPTIONS)
        page = tvs["en"]
        page.goto(f"{service.base}/table?lang=en")
        for stop in table.tour(("day",), within=1):
            assert stop == "day"
        view = table.table_view()
        showing(page, "day", view["position"])
        assert page.locator("#dracula-clock").count() == 1
        assert page.locator("#dracula-players .dt-player.waiting").count() >= 1
        table.host("end_game")
        page.locator("#game .notice").wait_for()
        assert page.locator("#dracula-clock").count() == 0, "an ended game's clock still runs on the TV"
        assert page.locator("#dracula-players .dt-player.waiting").count() == 0, "an ended game still waits on players"
        assert page.locator(".dt-what").count() == 0
    finally:
        service.stop()


def seconds_left(page: Page) -> int:
    minutes, seconds = page.locator("#dracula-clock .dt-time").inner_text().split(":")
    return int(minutes) * 60 + int(seconds)


def test_the_clock_counts_down_and_stands_still_while_the_host_pauses_it(tvs: dict[str, Page],
                                                                          tmp_path: Path) -> None:
    """The phase's countdown on the TV runs down second by second against the server's clock; when
    the host pauses it, the TV says so and the time stands still; resumed, it runs again."""
    service = ServiceProcess(tmp_path / "data", extra=("--simulate",)).start()
    try:
        table = MidGame(service, seed=4)
        table.seat_players(4)
        table.start("dracula", {**OPTIONS, "day_s": 300})
        page = tvs["en"]
        page.goto(f"{service.base}/table?lang=en")
        for _ in table.tour(("day",), within=0):
            pass
        showing(page, "day", table.table_view()["position"])
        first = seconds_left(page)
        assert 290 <= first <= 300, first
        page.wait_for_function("(s) => { const t = document.querySelector('#dracula-clock .dt-time');"
                               " const [m, x] = t.textContent.split(':'); return Number(m) * 60 + Number(x) < s; }",
                               arg=first, timeout=3000)
        table.host("pause_clock")
        page.locator("#dracula-clock.paused .dt-paused", has_text="paused").wait_for()
        still = seconds_left(page)
        page.wait_for_timeout(1500)
        assert seconds_left(page) == still, "a paused clock runs on"
        table.host("resume_clock")
        page.locator("#dracula-clock:not(.paused)").wait_for()
        page.wait_for_function("(s) => { const t = document.querySelector('#dracula-clock .dt-time');"
                               " const [m, x] = t.textContent.split(':'); return Number(m) * 60 + Number(x) < s; }",
                               arg=still, timeout=3000)
    finally:
        service.stop()


def test_after_the_last_night_nobody_is_shown_in_the_sanctuary(tvs: dict[str, Page], tmp_path: Path) -> None:
    """The sanctuary is the night's: once the fifth night is over (the final phase, the round's
    end) the TV no longer marks its guests as in the sanctuary."""
    service = ServiceProcess(tmp_path / "data", extra=("--simulate",)).start()
    try:
        table = MidGame(service, seed=6)
        table.seat_players(4)
        table.start("dracula", {**OPTIONS, "rounds": 1, "sanctuary_capacity": 1})
        page = tvs["en"]
        page.goto(f"{service.base}/table?lang=en")

        def key(view: Mapping[str, Any]) -> str | None:
            phase = table.phase_key(view)
            return f"{phase}{view['game']['view']['night']}" if phase in ("day_vote", "dawn") else phase

        reached = []
        for stop in table.tour(("day_vote5", "dawn5", "round_over"), within={"day_vote5": 0, "dawn5": 0}, key=key):
            reached.append(stop)
            view = table.table_view()
            g = view["game"]["view"]
            showing(page, g["phase"], view["position"])
            guests = page.locator("#dracula-players .dt-tag.sanctuary").count()
            if stop == "day_vote5":
                vote_fast(table, [(1, g["eligible"][-1])])
            if stop == "dawn5":
                assert g["sanctuary"], "the last day's vote sent someone to the sanctuary"
                assert guests == len(g["sanctuary"])
            if stop == "round_over":
                assert guests == 0, "the round is over, and the TV still shows a sanctuary guest"
        assert reached == ["day_vote5", "dawn5", "round_over"], reached
    finally:
        service.stop()


def pictures_of(seed: int, phases: tuple[str, ...], **options: Any) -> dict[str, dict[str, Any]]:
    """The table's picture at the first moment of each of `phases` in a random series on the pure
    rules (companion/sim/players/dracula.py), with 13 players."""
    from companion.games.base import TABLE
    from companion.games.dracula import DRACULA
    from companion.sim.players.dracula import play_series

    found: dict[str, dict[str, Any]] = {}

    def watch(_before: Any, after: Any, _event: Any) -> None:
        if after.phase in phases and after.phase not in found:
            found[after.phase] = DRACULA.view(after, TABLE)

    play_series(13, seed, watch=watch, rounds=1, **options)
    assert set(found) == set(phases), f"seed {seed} never reached {set(phases) - set(found)}"
    return found


DRAW_JS = """(picture) => {
  const box = document.createElement('div');
  document.querySelector('main').append(box);
  Companion.draculaTable(box, { view: picture, ended: false }, { position: 0 });
  const text = (s) => [...box.querySelectorAll(s)].map((e) => e.textContent).join(' | ');
  const count = (s) => box.querySelectorAll(s).length;
  const drawn = { title: text('#dracula-phase'), what: text('.dt-what'), clock: count('#dracula-clock'),
    waiting: count('.dt-player.waiting'), answered: count('.dt-player.answered') };
  box.remove();
  return drawn;
}"""


def test_dracula_tortured_and_the_rooms_settled_by_maps_tell_the_table_nothing(tvs: dict[str, Page],
                                                                               tmp_path: Path) -> None:
    """While Dracula decides whether to pass for a human, the TV shows what it shows while a person
    GM confirms a night: the same words, and no countdown (his would say how long he has). While
    the human map users choose their rooms, the TV marks nobody as answered or awaited: who is
    awaited would say who holds a map."""
    companion = pictures_of(0, ("torture", "maps"))
    person = pictures_of(0, ("confirm",), gm="person")
    service = ServiceProcess(tmp_path / "data", extra=("--simulate",)).start()
    try:
        page = tvs["en"]
        page.goto(f"{service.base}/table?lang=en")
        page.locator("#game > *").first.wait_for()
        torture, confirm, maps = (page.evaluate(DRAW_JS, p) for p in (companion["torture"], person["confirm"],
                                                                        companion["maps"]))
        digits = re.compile(r"\d+")
        assert digits.sub("n", torture["title"]) == digits.sub("n", confirm["title"])
        assert torture["what"] == confirm["what"] and "resolved" in torture["what"]
        assert torture["clock"] == confirm["clock"] == 0
        assert maps["waiting"] == maps["answered"] == 0, maps
        assert maps["clock"] == 1
    finally:
        service.stop()
