"""Every page of every game is usable with a screen reader, a large finger and weak eyes.

axe-core (vendored in tests/vendor, never fetched) runs in Chromium on each page a table has while
a game runs: the table display, a phone, the host console, the join page, the verify page, the
virtual buttons page and the host's sign-in page; a serious or critical violation fails the test
and names the rule, the element and what is wrong. The registry is iterated, so a game added later
is checked too. Beside axe: every target on a phone is at least 44x44 CSS px, a button's accessible
name is what it does now, and a disabled button is described by the reason shown beside it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from companion.games.registry import GAMES
from companion.i18n import catalogue, fill
from tests.support.browser import PHONE_SIZE, Scene, shoot

pytestmark = pytest.mark.browser

SERVICE_ARGS = ("--simulate",)   # the virtual buttons page and the host's pairing controls exist
SHARED_SCENE = True   # every test starts its own game: one scene for all, made new for each
VENDOR = Path(__file__).resolve().parent / "vendor"
AXE = VENDOR / "axe.min.js"
AXE_SHA256 = "84494fec757e4710dc751c8d7a636e457f4532f08f85c86dc9070133fbff53bc"
GRAVE = ("serious", "critical")
MIN_TARGET_PX = 44

# The rules run: every rule axe has for WCAG 2.x A and AA, and its best practices.
AXE_RUN_JS = """async () => {
  const result = await axe.run(document, { resultTypes: ['violations'] });
  return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({ impact: n.impact, target: n.target.join(' '), html: n.html.slice(0, 160),
                                summary: n.failureSummary })) }));
}"""



def test_the_vendored_axe_is_the_recorded_file() -> None:
    """The file is the one its README names (version, licence), unchanged."""
    source = AXE.read_bytes()
    assert hashlib.sha256(source).hexdigest() == AXE_SHA256
    assert source.startswith(b"/*! axe v4.12.1")
    assert "Mozilla Public License" in (VENDOR / "axe-LICENSE.txt").read_text()
    assert "4.12.1" in (VENDOR / "README.md").read_text()


def grave_violations(page: Page) -> list[str]:
    """axe's serious and critical findings on the page as it is now, one line per element."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text())
    found = []
    for violation in page.evaluate(AXE_RUN_JS):
        for node in violation["nodes"]:
            if (node["impact"] or violation["impact"]) in GRAVE:
                summary = " ".join(node["summary"].split())
                found.append(f"{violation['id']} ({violation['help']}) at {node['target']}: {node['html']} — {summary}")
    return found


def start(scene: Scene, game_id: str) -> dict[str, Any]:
    """The host ends what runs and starts `game_id` with its default options; every screen shows it."""
    scene.service.post("end_game", host=True)
    answer = scene.service.post("start_game", {"game": game_id}, host=True)
    assert answer.get("ok"), f"{game_id} did not start: {answer}"
    view = scene.wait_for_view(lambda v: v["game"] is not None and v["game"]["game"] == game_id
                               and not v["game"]["ended"])
    for screen in scene.screens:
        screen.page.wait_for_function(
            "(p) => window.__received.some((r) => (r.kind === 'sse' && Number(r.id) >= p))",
            arg=view["position"])
        screen.page.wait_for_timeout(150)   # the page draws what it got
    return view


def visitor(chromium: Browser, **options: Any) -> Iterator[Page]:
    """A fresh browser with no cookie: someone who has not joined nor signed in."""
    context = chromium.new_context(locale="en-US", **options)
    try:
        yield context.new_page()
    finally:
        context.close()


def pages_of(scene: Scene, chromium: Browser) -> Iterator[tuple[str, Page]]:
    """Every page of the table as its people see it while a game runs."""
    base = scene.service.base
    yield "table display", scene.table.page
    yield "phone", scene.phones[0].page
    yield "host console", scene.host.page
    for name, url, options in (
            ("join", scene.qr_url, {"viewport": PHONE_SIZE}),
            ("verify", f"{base}/verify", {}),
            ("buttons", f"{base}/buttons", {"viewport": PHONE_SIZE}),
            ("host sign-in", f"{base}/host", {})):
        for page in visitor(chromium, **options):
            page.goto(url)
            page.locator("#link").wait_for(state="attached")
            page.wait_for_timeout(200)
            yield name, page


@pytest.mark.slow
@pytest.mark.parametrize("game_id", list(GAMES))
def test_no_page_of_a_running_game_has_a_serious_accessibility_violation(
        scene: Scene, chromium: Browser, game_id: str) -> None:
    start(scene, game_id)
    report = {}
    for name, page in pages_of(scene, chromium):
        found = grave_violations(page)
        if found:
            report[name] = found
    # The table, a phone and the console again in French, in high contrast (other words, other colours).
    for name, screen, path in (("table display", scene.table, "/table"), ("phone", scene.phones[0], "/me"),
                               ("host console", scene.host, "/host")):
        screen.page.goto(f"{scene.service.base}{path}?lang=fr")
        screen.page.evaluate("() => document.documentElement.classList.add('hc')")
        screen.page.locator("#link:not(.down)").wait_for()
        screen.page.wait_for_timeout(200)
        found = grave_violations(screen.page)
        if found:
            report[f"{name}, fr, high contrast"] = found
    assert not report, f"{game_id}: serious or critical accessibility violations:\n" + "\n".join(
        f"  [{page}] {line}" for page, lines in report.items() for line in lines)


# -- targets on a phone ---------------------------------------------------------------------------

# A radio button or a check box is tapped through its whole label.
SMALL_TARGETS_JS = """(min) => [...document.querySelectorAll(
    'button, a[href], input:not([type=hidden]), select, summary, [role=button], [tabindex]:not([tabindex="-1"])')]
  .map((e) => (e.matches('input[type=radio], input[type=checkbox]') && e.closest('label')) || e)
  .filter((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; })
  .filter((e) => { const r = e.getBoundingClientRect(); return r.width < min - 0.01 || r.height < min - 0.01; })
  .map((e) => { const r = e.getBoundingClientRect();
    const name = `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${e.className}`;
    const words = (e.textContent || '').trim().slice(0, 30);
    return `${name} "${words}" ${Math.round(r.width)}x${Math.round(r.height)}`; })"""


def small_targets(page: Page) -> list[str]:
    return page.evaluate(SMALL_TARGETS_JS, MIN_TARGET_PX)


@pytest.mark.slow
def test_every_target_on_a_phone_is_at_least_44_px(scene: Scene, chromium: Browser) -> None:
    """A finger needs 44x44 CSS px (WCAG 2.5.5): every seat's page while each game runs, with its
    settings open, and the pages a phone meets before it (join) or instead of it (virtual buttons)."""
    report = {}
    for game_id in GAMES:
        start(scene, game_id)
        for screen in scene.phones:   # each seat's page: whose turn it is, and the others
            screen.page.set_viewport_size(PHONE_SIZE)
            screen.page.locator("details.card summary").click()   # the seat's settings: rename, leave
            report[f"{game_id} on {screen.name}"] = small_targets(screen.page)
    for name, url in (("join", scene.qr_url), ("buttons", f"{scene.service.base}/buttons")):
        for page in visitor(chromium, viewport=PHONE_SIZE, has_touch=True, is_mobile=True):
            page.goto(url)
            page.wait_for_timeout(200)
            report[name] = small_targets(page)
    report = {k: v for k, v in report.items() if v}
    assert not report, f"targets under {MIN_TARGET_PX}x{MIN_TARGET_PX} px: {json.dumps(report, indent=1)}"


# -- names and reasons of buttons ------------------------------------------------------------------

# Each button: its visible words, its accessible name (as a screen reader computes it from
# aria-labelledby, aria-label or its text), whether it is disabled, the texts it is described by,
# and the reasons shown beside it.
BUTTONS_JS = """() => [...document.querySelectorAll('button')].filter((b) => b.offsetParent !== null).map((b) => {
  const texts = (attr) => (b.getAttribute(attr) || '').split(/\\s+/).filter(Boolean)
    .map((id) => document.getElementById(id)).filter(Boolean).map((d) => d.textContent.trim());
  const visible = b.innerText.replace(/\\s+/g, ' ').trim();
  const name = texts('aria-labelledby').join(' ') || b.getAttribute('aria-label') || visible;
  const beside = b.parentElement ? [...b.parentElement.querySelectorAll(':scope > .reason')]
    .filter((r) => r.offsetParent !== null && r.textContent.trim()).map((r) => r.textContent.trim()) : [];
  return { id: b.id, visible, name, disabled: b.disabled, describedBy: texts('aria-describedby'), beside };
})"""


def words(text: str) -> str:
    """The words of a text, as a speech user would say them (no marks such as ✕ or !)."""
    return " " + " ".join(re.findall(r"\w+", text.casefold())) + " "


def unnamed_or_undescribed(page: Page) -> list[str]:
    """Buttons whose name does not contain the words they show (WCAG 2.5.3: a speech user says
    what they see), and disabled buttons not described by the reason shown beside them."""
    wrong = []
    for b in page.evaluate(BUTTONS_JS):
        if words(b["visible"]) and words(b["visible"]) not in words(b["name"]):
            wrong.append(f"button {b['id'] or b['visible']!r} shows {b['visible']!r} but is named {b['name']!r}")
        for reason in b["beside"] if b["disabled"] else []:
            if reason not in b["describedBy"]:
                wrong.append(f"disabled button {b['name']!r}: its reason {reason!r} is not its description "
                             f"(aria-describedby gives {b['describedBy']})")
    return wrong


@pytest.mark.slow
def test_a_button_is_named_by_what_it_shows_and_a_disabled_one_by_its_reason(scene: Scene) -> None:
    """On every phone and the host console, while each game runs."""
    report = {}
    for game_id in GAMES:
        start(scene, game_id)
        for screen in [*scene.phones, scene.host]:
            report[f"{game_id} on {screen.name}"] = unnamed_or_undescribed(screen.page)
        undo = scene.host.page.locator("#undo")
        if (undo.is_disabled() and scene.host.page.locator("#undo-reason").inner_text().strip()
                and undo.get_attribute("aria-describedby") != "undo-reason"):
            report[f"{game_id} on host"].append("the host's Undo is not described by the reason under it")
    report = {k: v for k, v in report.items() if v}
    assert not report, json.dumps(report, indent=1, ensure_ascii=False)


@pytest.mark.slow
def test_the_quiz_buzzer_is_named_by_what_it_does_now(scene: Scene) -> None:
    """In a hands-off round the phone's big button says "Hands off!": a screen reader must not
    call it BUZZ, which is what a player must not do."""
    start(scene, "buzzer-quiz")
    phone = scene.phones[0].page
    expect(phone.locator("#buzzer")).to_have_accessible_name("Wait for the signal")
    answer = scene.service.post("arm", {"mode": "hands_off"}, host=True)
    assert answer.get("ok"), answer
    expect(phone.locator("#buzzer.hands_off")).to_have_accessible_name("Hands off!")


GARLIC_IN_MODE_JS = """async (mode) => {
  const view = await (await fetch('/api/view?as=me', { credentials: 'same-origin' })).json();
  const game = structuredClone(view.game);
  game.view.phase = 'reaction';
  game.view.turn = { ...game.view.turn, mode, window_us: 0 };
  game.view.dice = game.view.dice || { colour: '!', symbol: 'skull' };
  const box = document.createElement('div');
  box.id = 'as-in-' + mode;
  Companion.games['garlic-slap'].seat(box, game, view);
  document.querySelector('main').append(box);
}"""


@pytest.mark.slow
def test_the_garlic_slap_button_is_named_by_what_it_does_now(scene: Scene) -> None:
    """The phone's slap button as garlic draws it in each mode of a reaction: "Hands off!" on a
    skull, not "Slap the garlic"."""
    start(scene, "garlic-slap")
    phone = scene.phones[0].page
    for mode, name in (("hands_off", "Hands off!"), ("race", "Slap the garlic")):
        phone.evaluate(GARLIC_IN_MODE_JS, mode)
        expect(phone.locator(f"#as-in-{mode} button.buzzer")).to_have_accessible_name(name)


# -- a finished game ------------------------------------------------------------------------------

WHOSE_TURN = re.compile(r"(turn_of|your_turn|your_roll|rolls_now|next_roller|roll_for|youngest_first|youngest_roll)$"
                        r"|_stage_|_w_")
"""The sentences (by key) that say whose turn it is, who rolls next, or what someone is to do now."""


def whose_turn_lines(names: list[str]) -> list[str]:
    ui = catalogue("en")["ui"]
    who = [*names, *(ui[k] for k in ui if k.endswith("_you") and len(ui[k]) <= 12)]   # "You", as a game says it
    lines: set[str] = set()
    for key, template in ui.items():
        if WHOSE_TURN.search(key) and "{" in template:
            lines |= {fill(template, {"name": name}, "en") for name in who}
        elif WHOSE_TURN.search(key):
            lines.add(template)
    return sorted(line for line in lines if "{" not in line and len(line) > 8)


@pytest.mark.slow
def test_a_finished_game_says_whose_turn_nowhere(scene: Scene) -> None:
    """Once the host ended a game, no phone and not the host console says whose turn it is: the
    game is over, nobody is to play (the table display says what the game's end is)."""
    names = [s["name"] for s in scene.view()["table"]["seats"] if s["name"]]
    lines = whose_turn_lines(names)
    assert "Your turn" in lines and "Zoé's turn" in lines
    report: dict[str, list[str]] = {}
    violations: dict[str, list[str]] = {}
    for game_id in GAMES:
        start(scene, game_id)
        answer = scene.service.post("end_game", host=True)
        assert answer.get("ok"), answer
        ended = scene.wait_for_view(lambda v: v["game"] is not None and v["game"]["ended"])
        for screen in [*scene.phones, scene.host]:
            screen.wait_for_position(ended["position"])
            screen.page.wait_for_timeout(150)
            shown = screen.page.locator("main").inner_text()
            said = [line for line in lines if line in shown]
            if said:
                report[f"{game_id} on {screen.name}"] = said
            if screen is scene.host or screen is scene.phones[0]:   # and axe finds nothing grave there either
                violations[f"{game_id} on {screen.name}"] = grave_violations(screen.page)
    assert not report, f"a finished game still says whose turn it is: {json.dumps(report, ensure_ascii=False)}"
    violations = {k: v for k, v in violations.items() if v}
    assert not violations, f"accessibility violations once the game is over: {json.dumps(violations, indent=1)}"


# -- words on the pages --------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_french_phone_elides_before_a_name_with_a_vowel(scene: Scene, artifacts: Path) -> None:
    """"Au tour d'Émile", never "Au tour de Émile": the page's own fill elides, with the name the
    player typed."""
    names = {phone.seat: name for phone, name in zip(scene.phones, ("Émile", "Alice", "Hugo", "Yvette"), strict=True)}
    for seat, name in names.items():
        answer = scene.service.post("name_seat", {"seat": seat, "name": name}, host=True)
        assert answer.get("ok"), answer
    view = start(scene, "vampir")
    current = view["game"]["view"]["current"]
    other = next(p for p in scene.phones if p.seat != current)
    other.page.goto(f"{scene.service.base}/me?lang=fr")
    other.page.locator(".v-turn").wait_for()
    assert other.page.locator(".v-turn").inner_text() == f"Au tour d'{names[current]}"
    shoot(other, artifacts / "words-vampir-phone-fr.png")


# -- the buttons' card --------------------------------------------------------------------------------

@pytest.mark.slow
def test_the_buttons_pairing_card_shows_only_in_games_that_use_buttons(scene: Scene) -> None:
    """Pairing wired buttons is offered on the host console while the game uses some (its players'
    buttons, or the table's own button that rolls or arms), and on a phone while the players'
    own buttons play; in the others it is clutter on a small screen. Simulated buttons are on."""
    wrong = []
    for game in GAMES.values():
        start(scene, game.id)
        host_card = game.uses_buzzers or game.table_button is not None
        if scene.host.page.locator("#buttons-card").is_visible() != host_card:
            wrong.append(f"{game.id}: the host's buttons card {'is missing' if host_card else 'shows'}")
        for phone in scene.phones:
            if phone.page.locator("#my-button").is_visible() != game.uses_buzzers:
                wrong.append(f"{game.id}: {phone.name}'s button card {'is missing' if game.uses_buzzers else 'shows'}")
    assert not wrong, "\n".join(wrong)


# -- colours -----------------------------------------------------------------------------------------

CSS = Path(__file__).resolve().parent.parent / "web" / "static" / "companion.css"
MIN_CONTRAST = 4.5
BUTTON_LIKE = re.compile(r"\bbutton\b|\.roll\b|\.buzzer\b|\.virtual\b|\.button\b")
HEX = re.compile(r"#(?:[0-9a-fA-F]{3}){1,2}")


def css_rules() -> list[tuple[str, dict[str, str]]]:
    """(selector, declarations) of every plain rule of the style sheet, comments removed."""
    text = re.sub(r"/\*.*?\*/", "", CSS.read_text(), flags=re.S)
    return [(selector.strip().split("}")[-1].strip(), dict(re.findall(r"([\w-]+)\s*:\s*([^;]+?)\s*(?:;|$)", body)))
            for selector, body in re.findall(r"([^{}]+)\{([^{}]*)\}", text)]


def themes() -> dict[str, dict[str, str]]:
    """The custom properties of the normal theme and of the high-contrast one."""
    first: dict[str, dict[str, str]] = {}
    for selector, declarations in css_rules():
        first.setdefault(selector, declarations)   # not the @media one further down
    normal = {k: v for k, v in first[":root"].items() if k.startswith("--")}
    return {"normal": normal, "high contrast": {**normal, **first[":root.hc"]}}


def colour(value: str, theme: dict[str, str]) -> str | None:
    """A declared colour as #rrggbb (a var() resolved in `theme`); None for anything else."""
    found = re.fullmatch(r"var\((--[\w-]+)\)", value.strip())
    value = theme.get(found.group(1), "") if found else value.strip()
    if not HEX.fullmatch(value):
        return None
    digits = value[1:]
    return "#" + (digits if len(digits) == 6 else "".join(c * 2 for c in digits)).lower()


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two #rrggbb colours."""
    def luminance(c: str) -> float:
        channels = [int(c[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = (x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_contrast_sanity() -> None:
    assert round(contrast("#ffffff", "#000000"), 1) == 21.0
    assert round(contrast("#ffffff", "#e0484f"), 2) == 4.03   # the old red buttons, as axe measured them


def test_contrast_of_text_on_every_filled_control_and_theme_colour() -> None:
    """Text contrast at least 4.5:1 in both themes, also for states a page shows only for a moment
    (a race buzzer, a pressed virtual button) that a page-by-page check may never meet: every rule
    that fills a background under text (its own colour, or a button's ink), and every theme colour
    used as text on the page's surfaces."""
    weak = []
    for name, theme in themes().items():
        surfaces = [c for c in (colour(theme["--bg"], theme), colour(theme["--panel"], theme)) if c]
        for selector, declarations in css_rules():
            fill_value = declarations.get("background-color") or declarations.get("background")
            back = colour(fill_value, theme) if fill_value else None
            ink = declarations.get("color")
            if back and (ink or BUTTON_LIKE.search(selector)):
                fore = colour(ink or "var(--ink)", theme)
                if fore and contrast(fore, back) < MIN_CONTRAST:
                    weak.append(f"{name}: {selector}: {fore} on {back} is {contrast(fore, back):.2f}:1")
            elif ink and not back and ink.startswith("var(") and (fore := colour(ink, theme)):
                weak += [f"{name}: {selector}: {fore} on {s} is {contrast(fore, s):.2f}:1"
                         for s in surfaces if contrast(fore, s) < MIN_CONTRAST]
    assert not weak, "text below 4.5:1:\n" + "\n".join(weak)


def test_a_countdown_is_readable_on_every_banner_that_shows_one() -> None:
    """A countdown turns pink when little time is left; on the quiz's green "Buzz!" banner that
    pink was 1.3:1, unreadable from the sofa just when it matters."""
    rules = dict(css_rules())
    weak = []
    for name, theme in themes().items():
        for banner in (".quiz-status.go", ".quiz-status.hands-off"):
            back = colour(rules[banner].get("background", ""), theme)
            assert back, banner
            for state in (".countdown", ".countdown.low"):
                # The most specific rule that colours it: the banner's own, the banner's kind's, the countdown's.
                kind = "." + banner.split(".")[-1]
                ink = next((rules[s]["color"] for s in (f"{banner} {state}", f"{kind} {state}", state)
                            if "color" in rules.get(s, {})), rules[banner]["color"])
                fore = colour(ink, theme)
                if fore and contrast(fore, back) < MIN_CONTRAST:
                    weak.append(f"{name}: {banner} {state}: {fore} on {back} is {contrast(fore, back):.2f}:1")
    assert not weak, "\n".join(weak)
