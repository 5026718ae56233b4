"""The day/night sand glass of La chasse au vampire, as the pages draw it, in Chromium.

The glass is a front-end component (web/static/sandglass.js, `Companion.sandglass(glass, options)`)
that every page has; these tests build it from crafted `glass` views timed on the served page's own
clock of the server (`Companion.clock.serverNowUs()`), as the game's views will be, and look at what
a player sees: the time left running down (and standing still while paused), the sand falling, the
side's words in both languages, the sound and the flash of a turn-over (once, never for the glass a
page first shows), and a glass readable from across the room that fits the TV.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import PLAYER_NAMES, SOUND_SPY_JS, TV_SIZE, Scene, Screen, on_the_tv
from tests.test_a11y import contrast, css_rules, grave_violations

PLAYERS = PLAYER_NAMES[:1]
SHARED_SCENE = True   # every test starts its own game: one scene for all, made new for each
FULL_S = 180


# Shows glasses (each spec: side, running, left_s when started or stopped, elapsed_s since then,
# turns, full_s) on the page, in a box of their own before the game's (which the page draws again
# on every view), and returns how many it drew. `size`: "tv" or "phone"; `keep`: add to the glasses
# already shown rather than replace them.
SHOW_JS = """([specs, size, keep, sound]) => {
  const C = window.Companion;
  const now = Math.round(C.clock.serverNowUs());
  let bench = document.getElementById("glass-bench");
  if (!bench) {
    bench = document.createElement("div");
    bench.id = "glass-bench";
    bench.style.cssText = "display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; margin-bottom: 1rem;";
    const game = document.getElementById("game");
    game.parentNode.insertBefore(bench, game);
  }
  if (!keep) bench.replaceChildren();
  for (const s of specs) {
    const since = now - Math.round((s.elapsed_s || 0) * 1e6);
    const left = Math.round(s.left_s * 1e6);
    const glass = { side: s.side, running: s.running, full_us: Math.round((s.full_s || 180) * 1e6), left_us: left,
                    since_us: since, ends_us: s.running ? since + left : null, turns: s.turns || 0 };
    bench.append(C.sandglass(glass, sound === null ? { size } : { size, sound }));
  }
  return bench.children.length;
}"""

# What each glass shown says and draws: its words, its name for screen readers, the height of the
# sand in its top bulb (in the drawing's units) and its box on the screen.
READ_JS = """() => [...document.querySelectorAll("#glass-bench .sandglass")].map((g) => {
  const r = g.getBoundingClientRect();
  const art = g.querySelector(".sg-glass").getBoundingClientRect();
  return { text: g.querySelector(".sg-words").innerText.replace(/\\s+/g, " ").trim(),
           time: g.querySelector(".sg-time").textContent, label: g.getAttribute("aria-label"),
           role: g.getAttribute("role"), live: g.getAttribute("aria-live"),
           top_sand: g.querySelector(".sg-sand-top").getBBox().height,
           bottom_sand: g.querySelector(".sg-sand-bottom").getBBox().height,
           box: [r.x, r.y, r.width, r.height], glass_height: art.height, turned: g.classList.contains("turned"),
           stream: getComputedStyle(g.querySelector(".sg-stream")).animationName,
           stream_shown: getComputedStyle(g.querySelector(".sg-stream")).visibility === "visible" };
})"""


def show(screen: Screen, specs: list[dict[str, Any]], size: str = "tv", keep: bool = False,
         sound: bool | None = None) -> None:
    assert screen.page.evaluate(SHOW_JS, [specs, size, keep, sound]) >= len(specs)


def read(screen: Screen) -> list[dict[str, Any]]:
    return screen.page.evaluate(READ_JS)


def seconds(time_text: str) -> int:
    """The seconds a glass's time says are left: "2:14 left", "42 s left", "encore 2 min 14"."""
    clock = re.search(r"(\d+)(?::| min )(\d\d)", time_text)
    if clock:
        return int(clock[1]) * 60 + int(clock[2])
    alone = re.search(r"(\d+) s\b", time_text)
    assert alone, f"no time in {time_text!r}"
    return int(alone[1])


def open_in(scene: Scene, screen: Screen, lang: str) -> None:
    screen.page.goto(scene.url_of(screen, lang))
    screen.page.locator("#link:not(.down)").wait_for()
    screen.page.wait_for_function("() => window.Companion.clock.serverNowUs() !== null")


DAY_RUNNING = {"side": "day", "running": True, "left_s": 134, "turns": 2}
NIGHT_PAUSED = {"side": "night", "running": False, "left_s": 90, "turns": 2}


@pytest.mark.browser
@pytest.mark.slow
def test_the_sand_runs_down_while_the_glass_runs_and_stands_still_while_paused(scene: Scene, artifacts: Path) -> None:
    tv = scene.table
    tv.page.set_viewport_size(TV_SIZE)
    open_in(scene, tv, "en")
    show(tv, [DAY_RUNNING, NIGHT_PAUSED])
    running, paused = read(tv)
    assert (running["role"], running["live"]) == ("timer", "off"), "a timer, not read out every second"
    assert 132 <= seconds(running["time"]) <= 134
    assert seconds(paused["time"]) == 90
    tv.page.wait_for_timeout(2500)
    running_later, paused_later = read(tv)
    assert seconds(running["time"]) - 4 <= seconds(running_later["time"]) <= seconds(running["time"]) - 2
    assert running_later["top_sand"] < running["top_sand"], "the sand in the top bulb goes down"
    assert running_later["bottom_sand"] > running["bottom_sand"], "and piles up in the bottom one"
    assert running_later["stream_shown"] and not paused_later["stream_shown"], "sand falls only while it runs"
    assert paused_later["time"] == paused["time"] == "1:30 left"
    assert paused_later["top_sand"] == paused["top_sand"]
    assert running_later["box"] == running["box"] and paused_later["box"] == paused["box"], "nothing moves"
    tv.page.locator("#glass-bench").screenshot(path=str(artifacts / "sandglass-tv-day-running-night-paused-en.png"),
                                                animations="disabled")


@pytest.mark.browser
@pytest.mark.slow
def test_the_time_keeps_its_room_past_the_last_minute(scene: Scene) -> None:
    """From "1:00 left" to "59 s left" the words get shorter: the glass keeps its size and place."""
    tv = scene.table
    open_in(scene, tv, "fr")
    show(tv, [{"side": "night", "running": True, "left_s": 61.5, "turns": 1}])
    show(tv, [{"side": "night", "running": True, "left_s": 61.5, "turns": 1}], size="phone", keep=True)
    before = read(tv)
    assert [seconds(g["time"]) for g in before] in ([62, 62], [61, 61])
    assert before[0]["time"].startswith("encore 1 min")
    tv.page.wait_for_function("() => /\\d s$/.test(document.querySelector('#glass-bench .sg-time').textContent)",
                              timeout=5000)
    after = read(tv)
    assert after[0]["time"] == "encore 59 s" or after[0]["time"].endswith(" s")
    assert [g["box"] for g in after] == [g["box"] for g in before]


@pytest.mark.browser
@pytest.mark.slow
def test_the_sides_and_the_pause_are_said_in_both_languages(scene: Scene, artifacts: Path) -> None:
    tv, phone = scene.table, scene.phones[0]
    tv.page.set_viewport_size(TV_SIZE)
    words = {"en": ("Day", "Night", "Paused", "2:14 left", "Sand glass: Day, about 2 minutes left",
                    "Sand glass: Night, paused, about 2 minutes left"),
             "fr": ("Jour", "Nuit", "En pause", "encore 2 min 14", "Sablier : Jour, encore environ 2 minutes",
                    "Sablier : Nuit, en pause, encore environ 2 minutes")}
    for lang, (day, night, paused, left, day_label, night_label) in words.items():
        for screen, size in ((tv, "tv"), (phone, "phone")):
            open_in(scene, screen, lang)
            show(screen, [DAY_RUNNING, NIGHT_PAUSED], size)
            shown = read(screen)
            assert shown[0]["text"].startswith(day) and shown[1]["text"].startswith(night), shown
            assert shown[0]["time"] in (left, left.replace("14", "13")), shown[0]
            assert paused in screen.page.locator("#glass-bench .sandglass.paused").inner_text()
            assert paused not in screen.page.locator("#glass-bench .sandglass.running").inner_text()
            assert shown[0]["label"] == day_label and shown[1]["label"] == night_label
            found = [line for line in grave_violations(screen.page) if "sandglass" in line or "sg-" in line]
            assert not found, "\n".join(found)
            if size == "phone":
                assert shown[1]["text"] == f"{night} · {paused} · {'encore 1 min 30' if lang == 'fr' else '1:30 left'}"
                line = screen.page.evaluate("() => parseFloat(getComputedStyle(document.querySelector("
                                            "'#glass-bench .sandglass')).fontSize)")
                assert all(g["box"][3] < 2.6 * line for g in shown), f"a badge on one line: {shown}"
                assert all(g["box"][0] + g["box"][2] <= 412 for g in shown), "within the phone's screen"
            screen.page.locator("#glass-bench").screenshot(path=str(artifacts / f"sandglass-{size}-{lang}.png"),
                                                              animations="disabled")
    scene.phones[0].page.screenshot(path=str(artifacts / "sandglass-phone-page-fr.png"), animations="disabled")


TURNS_JS = """() => {
  window.__turnOvers = [];
  const ring = window.Companion.sandglass.onTurnOver;
  window.Companion.sandglass.onTurnOver = (glass, how) => { window.__turnOvers.push(glass.side); ring(glass, how); };
}"""


@pytest.mark.browser
@pytest.mark.slow
def test_a_turn_over_rings_once_with_its_sides_sound_and_never_on_the_first_glass(scene: Scene) -> None:
    tv = scene.table
    open_in(scene, tv, "en")
    tv.page.evaluate(SOUND_SPY_JS)
    tv.page.evaluate(TURNS_JS)

    def heard() -> tuple[list[str], list[float]]:
        turn_overs, tones = tv.page.evaluate("() => [window.__turnOvers.slice(), window.__tones.slice()]")
        return turn_overs, tones

    show(tv, [{"side": "day", "running": True, "left_s": 3, "turns": 4}])
    show(tv, [{"side": "day", "running": True, "left_s": 3, "turns": 4}])  # the same view, drawn again
    assert heard() == ([], []), "the glass a page first shows was not just turned over"
    assert not read(tv)[0]["turned"]
    assert tv.page.locator("#sandglass-news").text_content() == "", "the live region waits, silent"

    show(tv, [{"side": "night", "running": True, "left_s": FULL_S, "turns": 5}])
    turn_overs, tones = heard()
    assert turn_overs == ["night"] and tones and max(tones) < 700, f"a low bell at nightfall: {tones}"
    assert read(tv)[0]["turned"], "the glass flashes"
    tv.page.wait_for_function("() => document.getElementById('sandglass-news').textContent"
                              " === 'Night falls: the sand glass is turned over.'")
    assert tv.page.locator("#sandglass-news").get_attribute("aria-live") == "polite"

    show(tv, [{"side": "night", "running": True, "left_s": FULL_S, "elapsed_s": 0.5, "turns": 5}])  # next view
    assert heard() == (turn_overs, tones), "once per turn-over, however often the page draws it"
    assert read(tv)[0]["turned"], "the flash goes on through the next view"
    tv.page.wait_for_timeout(1500)
    show(tv, [{"side": "night", "running": True, "left_s": FULL_S, "elapsed_s": 2, "turns": 5}])
    assert not read(tv)[0]["turned"], "and is over in a moment"

    show(tv, [{"side": "day", "running": True, "left_s": FULL_S, "turns": 6}])
    turn_overs, day_tones = heard()
    assert turn_overs == ["night", "day"]
    assert min(day_tones[len(tones):]) > 1000, "a bright chime at daybreak"

    tv.page.evaluate("() => localStorage.setItem('quiz-sound', '0')")  # the table's sound switch, off
    show(tv, [{"side": "night", "running": True, "left_s": FULL_S, "turns": 7}])
    assert heard() == (["night", "day", "night"], day_tones), "silent when the sound is off"
    tv.page.evaluate("() => localStorage.removeItem('quiz-sound')")

    show(tv, [{"side": "day", "running": True, "left_s": FULL_S, "turns": 8}], sound=False)  # a quiet page
    assert heard() == (["night", "day", "night", "day"], day_tones), "a page may keep quiet"

    show(tv, [{"side": "day", "running": True, "left_s": FULL_S, "turns": 0}])  # a new game
    assert len(heard()[0]) == 4, "a new game's glass was not turned over"
    show(tv, [{"side": "night", "running": True, "left_s": FULL_S, "turns": 1}])
    assert heard()[0] == ["night", "day", "night", "day", "night"], "its first turn-over rings"

    open_in(scene, tv, "en")  # a page opened again: its first glass is where it comes in
    tv.page.evaluate(SOUND_SPY_JS)
    tv.page.evaluate(TURNS_JS)
    show(tv, [{"side": "day", "running": True, "left_s": FULL_S, "turns": 9}])
    assert heard() == ([], [])


@pytest.mark.browser
@pytest.mark.slow
def test_no_sand_streams_and_nothing_flashes_for_a_reader_who_asks_for_less_motion(scene: Scene) -> None:
    tv = scene.table
    open_in(scene, tv, "en")
    show(tv, [{"side": "day", "running": True, "left_s": 100, "turns": 1}])
    assert read(tv)[0]["stream"] == "sg-fall", "the sand falls"
    show(tv, [{"side": "day", "running": True, "left_s": 100, "turns": 1}], size="phone", keep=True)
    badge = read(tv)[-1]
    assert badge["stream"] == "none" and badge["stream_shown"], "a phone badge stays still (battery)"
    show(tv, [{"side": "night", "running": True, "left_s": 100, "turns": 2}])
    flashing = tv.page.evaluate("() => getComputedStyle(document.querySelector('#glass-bench .sandglass'),"
                                " '::after').animationName")
    assert flashing == "sg-flash"
    tv.page.emulate_media(reduced_motion="reduce")
    show(tv, [{"side": "day", "running": True, "left_s": 100, "turns": 3}])
    shown = read(tv)[0]
    assert shown["stream"] == "none" and shown["stream_shown"], "a still stream: the glass runs"
    still = tv.page.evaluate("""() => { const g = document.querySelector('#glass-bench .sandglass');
      return [g.classList.contains('turned'), getComputedStyle(g, '::after').animationName,
              getComputedStyle(g.querySelector('.sg-glass')).animationName, getComputedStyle(g).animationName]; }""")
    assert still == [True, "none", "none", "none"], "turned over, without a flash"


@pytest.mark.browser
@pytest.mark.slow
def test_the_tv_glass_is_read_from_across_the_room_and_fits_the_screen(scene: Scene, artifacts: Path) -> None:
    tv = scene.table
    tv.page.set_viewport_size(TV_SIZE)
    open_in(scene, tv, "fr")
    show(tv, [{"side": "night", "running": True, "left_s": 134, "turns": 1}])
    shown = read(tv)[0]
    assert shown["glass_height"] >= 200, f"a glass a fifth of a 1080p screen tall: {shown}"
    assert shown["box"][3] <= 1080 / 2.5
    tv.page.screenshot(path=str(artifacts / "sandglass-tv-1080p-fr.png"), animations="disabled")
    tv.page.set_viewport_size({"width": 1280, "height": 720})
    tv.page.wait_for_timeout(100)  # the page draws again for its new size
    show(tv, [{"side": "day", "running": False, "left_s": 75, "turns": 1}])
    on_the_tv(tv, "#glass-bench .sandglass")
    assert read(tv)[0]["glass_height"] >= 130
    tv.page.screenshot(path=str(artifacts / "sandglass-tv-720p-fr.png"), animations="disabled")


def test_the_words_on_either_side_read_at_least_as_well_as_any_text_on_the_pages() -> None:
    """The side's colours behind the words, at both ends of their gradient, and the paused mark
    (axe cannot measure text over a gradient)."""
    rules = dict(css_rules())
    weak = []
    for side in ("day", "night"):
        props = rules[f".sandglass.{side}"]
        ink = props["--sg-ink"]
        for back in re.findall(r"#[0-9a-f]{6}", props["--sg-bg"]):
            if contrast(ink, back) < 7:
                weak.append(f"{side}: {ink} on {back} is {contrast(ink, back):.2f}:1")
        mark = rules[f".sandglass.{side} .sg-paused-mark"]["color"]
        if contrast(mark, ink) < 7:
            weak.append(f"{side}, paused: {mark} on {ink} is {contrast(mark, ink):.2f}:1")
    assert not weak, "\n".join(weak)
