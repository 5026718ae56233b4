"""Every sentence a player can meet exists in French and English."""

from __future__ import annotations

import json
import re
import sys
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from companion.games.registry import GAMES
from companion.i18n import LANGUAGES, agree, catalogue, elide, error_message, fill, pick_language, plural_category
from tests.support.web import Web

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "companion"


def codes_in_source() -> set[str]:
    """Rejection codes the code can produce: Rejection("x"), error("x", ...), and undo refusals."""
    text = "\n".join(p.read_text() for p in PACKAGE.rglob("*.py"))
    found = set(re.findall(r'Rejection\(\s*"([a-z_]+)"', text))
    found |= set(re.findall(r'\berror\(\s*"([a-z_]+)"', text))
    for module in ("table/gamerun.py", "fairness/contributions.py", "server/asker.py"):
        found |= set(re.findall(r'return "([a-z_]+)"', (PACKAGE / module).read_text()))
    found |= set(re.findall(r'undo_wall = "([a-z_]+)"', text))
    found |= set(re.findall(r'"(undo_(?:random|reveal|irrevocable))"', text))
    return found


def test_every_rejection_code_has_a_message_in_both_languages() -> None:
    codes = codes_in_source()
    assert len(codes) > 25
    for lang in LANGUAGES:
        missing = codes - set(catalogue(lang)["error"])
        assert not missing, f"{lang} lacks {sorted(missing)}"


@pytest.mark.parametrize("section", ["error", "ui"])
def test_both_languages_have_the_same_sentences(section: str) -> None:
    assert set(catalogue("en")[section]) == set(catalogue("fr")[section])
    english, french = catalogue("en")[section], catalogue("fr")[section]
    for key in english:
        assert placeholders(english[key]) == placeholders(french[key]), key


def placeholders(template: str) -> list[str]:
    """The parameters a sentence names as themselves: `{name}`, and `{de:name}` (the same
    parameter, with a little word elided before it in French)."""
    return re.findall(r"\{(?:\w+:)?(\w+)\}", template)


def test_every_ui_string_the_pages_use_exists() -> None:
    used = set()
    for page in (ROOT / "web" / "templates").glob("*.html"):
        used |= set(re.findall(r"ui\.(\w+)", page.read_text()))
    for script in (ROOT / "web" / "static").glob("*.js"):
        used |= set(re.findall(r"ui\.(\w+)", script.read_text()))
    assert used and used <= set(catalogue("en")["ui"])


COUNTED = {"en": ("cards", "heads", "pips", "points", "presses", "seconds", "bottles", "coffins", "dice", "spaces",
                   "players", "seats", "pins", "buttons", "characters"),
           "fr": ("cartes", "têtes", "points", "appuis", "secondes", "bouteilles", "cercueils", "dés", "lancers",
                  "cases", "joueurs", "places", "broches", "boutons", "caractères", "engagés", "révélés")}


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("section", ["error", "ui"])
def test_a_count_agrees_with_its_number(lang: str, section: str) -> None:
    """Never "1 cards" nor "0 cartes": a number filled in (by the pages or in an error message)
    takes its word in the singular or the plural by the language's own rule ({n|card|cards}; in
    French 0 and 1 take the singular), also with a word between ("{n} magic cards")."""
    words = "|".join(COUNTED[lang])
    bare = re.compile(r"\{\w+\} (?:\w+ )?(?:" + words + r")\b")
    wrong = [f"{key}: {text}" for key, text in catalogue(lang)[section].items() if bare.search(text)]
    assert not wrong, "\n".join(wrong)


def test_error_messages_agree_with_their_numbers_as_the_pages_do() -> None:
    assert error_message("give_back_count", {"count": 1}, "en") == "Give back exactly 1 magic card."
    assert error_message("give_back_count", {"count": 2}, "en") == "Give back exactly 2 magic cards."
    assert error_message("give_back_count", {"count": 0}, "fr") == "Rendez exactement 0 carte magique."
    assert error_message("give_back_count", {"count": 2}, "fr") == "Rendez exactement 2 cartes magiques."
    assert agree("{n} {n|card|cards}", {"n": 0}, "en") == "{n} cards", "0 takes the plural in English"


def test_messages_fill_in_their_parameters() -> None:
    assert error_message("unknown_die", {"die": "d7"}, "fr") == "Il n'y a pas de dé nommé d7."
    assert error_message("bad_seat_count", {"min": 2}, "en") == "A table has 2 to {max} seats."


@pytest.mark.parametrize(
    ("header", "expected"),
    [("fr-FR,fr;q=0.9,en;q=0.8", "fr"), ("de-DE,en;q=0.5,fr;q=0.4", "en"), ("de", "en"), ("", "en"),
     ("en;q=0.2,fr;q=0.7", "fr"), ("fr;q=abc,en", "en")],
)
def test_the_browser_language_is_honoured(header: str, expected: str) -> None:
    assert pick_language(header) == expected


# -- plurals from the platform ---------------------------------------------------------------------

def test_plural_categories_are_the_languages_own() -> None:
    """Babel's CLDR rules, as the browsers' Intl.PluralRules: French puts 0 and 1.5 with 1, and a
    round million apart ("many", which takes the plural form); English only 1."""
    assert [plural_category(n, "fr") for n in (0, 1, 1.5, 2, 1_000_000)] == ["one", "one", "one", "other", "many"]
    assert [plural_category(n, "en") for n in (0, 1, 1.0, 1.5, 2)] == ["other", "one", "one", "other", "other"]
    assert agree("{n} {n|carte|cartes}", {"n": 1_000_000}, "fr") == "{n} cartes"
    assert agree("{n} {n|carte|cartes}", {"n": 1.5}, "fr") == "{n} carte"


# -- elision ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "joined"), [
    ("Alice", "d'Alice"), ("Émile", "d'Émile"), ("Hélène", "d'Hélène"), ("Yvette", "d'Yvette"), ("Ian", "d'Ian"),
    ("Bruno", "de Bruno"), ("Yann", "de Yann"), ("Zoé", "de Zoé"), ("4 chats", "de 4 chats")])
def test_french_elides_de_before_a_vowel_sound(name: str, joined: str) -> None:
    assert elide("de", name, "fr") == joined
    assert elide("de", name, "en") == f"de {name}", "only French elides"


def test_whose_turn_it_is_reads_as_french_does() -> None:
    assert fill(catalogue("fr")["ui"]["nuit_turn_of"], {"name": "Alice"}, "fr") == "Au tour d'Alice"
    assert fill(catalogue("fr")["ui"]["vampir_turn_of"], {"name": "Bruno"}, "fr") == "Au tour de Bruno"
    assert fill("{que:name} vient", {}, "fr") == "que {name} vient", "a missing name stays visible"


PLAYER_PARAMS = ("name", "by", "target", "owner", "a", "b", "other", "who", "winner", "loser")


def test_no_french_sentence_pastes_de_or_que_before_a_player() -> None:
    """Every "de"/"que"/"le" before a player's name is written {de:name}, so it elides as it must."""
    pasted = re.compile(r"\b(?:de|que|le|la|De|Que|Le|La) \{(?:" + "|".join(PLAYER_PARAMS) + r")\}")
    wrong = [f"{section}.{key}: {text}" for section in ("error", "ui")
             for key, text in catalogue("fr")[section].items() if pasted.search(text)]
    assert not wrong, "\n".join(wrong)


GENDERED = re.compile(r"\{(?:" + "|".join(PLAYER_PARAMS) + r")\} (?:s'est|est|a été) \w+(?:é|i|u)\b"
                      r"|\bVous (?:êtes|seul) (?:prêt|seul|arrêté)\b|vous vous êtes arrêté|^(?:prêt|éliminé)$"
                      r"|\b(?:il ou elle|lui ou elle)\b")


def test_french_sentences_about_a_player_do_not_guess_their_gender() -> None:
    """A player's gender is unknown: no past participle nor adjective agreeing with them ("Alice
    s'est arrêté", "Vous êtes prêt"); the sentence is turned another way ("Le pion d'Alice s'arrête")."""
    wrong = [f"{section}.{key}: {text}" for section in ("error", "ui")
             for key, text in catalogue("fr")[section].items() if GENDERED.search(text)]
    assert not wrong, "\n".join(wrong)


# -- the pages' fill is the server's ---------------------------------------------------------------

FILLED = [
    ("{n} {n|card|cards}", {"n": 0}), ("{n} {n|card|cards}", {"n": 1}), ("{n} {n|card|cards}", {"n": 2}),
    ("{n} {n|card|cards}", {"n": 1.5}), ("{n} {n|card|cards}", {"n": 1_000_000}),
    ("Au tour {de:name}", {"name": "Alice"}), ("Au tour {de:name}", {"name": "Bruno"}),
    ("un cercueil {de:a} avec un {de:b}", {"a": "Hélène", "b": "Yann"}), ("{que:name} !", {"name": "Yvette"}),
    ("{x} et {de:y}", {}), ("{n|a|b}", {}),
]


def page_fills(chromium: Browser, lang: str) -> list[str]:
    """What the pages' own `fill` (web/static/live.js) makes of FILLED in `lang`."""
    live = (ROOT / "web" / "static" / "live.js").read_text()
    boot = json.dumps({"lang": lang, "ui": {}, "errors": {}})
    html = (f'<!doctype html><html lang="{lang}"><body>'
            f'<script id="boot" type="application/json">{boot}</script></body></html>')
    context = chromium.new_context()
    try:
        page = context.new_page()
        page.route("http://words.test/", lambda route: route.fulfill(content_type="text/html", body=html))
        page.goto("http://words.test/")
        page.add_script_tag(content=live)
        return page.evaluate("(cases) => cases.map(([t, p]) => Companion.fill(t, p))", [list(c) for c in FILLED])
    finally:
        context.close()


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_pages_fill_a_sentence_as_the_server_does(chromium: Browser, lang: str) -> None:
    """The same plural forms (Intl.PluralRules in the page, Babel on the server) and elisions."""
    assert page_fills(chromium, lang) == [fill(t, p, lang) for t, p in FILLED]
    if lang == "fr":
        assert page_fills(chromium, lang)[:7] == ["0 card", "1 card", "2 cards", "1.5 card", "1000000 cards",
                                                  "Au tour d'Alice", "Au tour de Bruno"]


# -- the games' log lines --------------------------------------------------------------------------

def log_templates() -> list[tuple[str, str, str]]:
    """(game, key, template) of every log line a game's `describe` writes, in both languages."""
    found = []
    for game in GAMES.values():
        words = getattr(sys.modules[game.describe.__module__], "_WORDS", {})
        found += [(f"{game.id}/{lang}", key, text) for lang, lines in words.items() for key, text in lines.items()]
    return found


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_games_log_line_agrees_with_its_numbers(lang: str) -> None:
    """Never "a hunt of 1 cards, 1 heads" in a log or a replay: counts take {n|card|cards}."""
    bare = re.compile(r"\{\w+\} (?:\w+ )?(?:" + "|".join(COUNTED[lang]) + r")\b")
    wrong = [f"{game}.{key}: {text}" for game, key, text in log_templates()
             if game.endswith(lang) and bare.search(text)]
    assert log_templates() and not wrong, "\n".join(wrong)


def test_a_hunt_of_one_card_is_told_in_the_singular() -> None:
    from companion.games.base import Event
    from companion.games.vampir.state import CARDS
    one_head = next(card.number for card in CARDS if card.heads == 1 and not card.joker)
    event: Any = Event("hunt_laid", {"seat": 2, "colour": CARDS[one_head].colour, "cards": [one_head], "taken": None})
    line = GAMES["vampir"].describe(event, "en")
    assert "1 card, 1 head " in line, line
    assert "1 carte, 1 tête " in GAMES["vampir"].describe(event, "fr")


# -- a wrong host key ------------------------------------------------------------------------------

@pytest.mark.parametrize(("lang", "says"), [("en", "not the host key"), ("fr", "n'est pas la clé d'hôte")])
def test_a_wrong_host_key_says_so(web: Web, lang: str, says: str) -> None:
    """Not "you are not allowed to do that": the person at the console typed a key, and is told
    that this key is not the one, and where the right one is."""
    answer = web.client().post("/api/host/login", json={"key": "guess"}, headers={"Accept-Language": lang})
    assert answer.status_code == 403
    assert answer.get_json()["error"] == "wrong_host_key"
    assert says in answer.get_json()["message"]


# -- the README's links ----------------------------------------------------------------------------

README = ROOT / "README.md"
LINK_FORMS = (
    re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)"),   # [text](target "title")
    re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$", re.MULTILINE),  # [ref]: target
    re.compile(r"<(https?://[^>\s]+)>"),                                    # <https://…>
    re.compile(r"""\b(?:href|src)\s*=\s*["']([^"']+)["']"""),              # HTML
)


def github_anchors(doc: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as
    hyphens, a repeated heading numbered (-1, -2…); code fences are not headings."""
    text = re.sub(r"^```.*?^```", "", doc.read_text(), flags=re.MULTILINE | re.DOTALL)
    anchors: set[str] = set()
    for title in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.MULTILINE):
        plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title).replace("`", "")
        slug = re.sub(r"[^\w\- ]", "", plain.strip().lower()).replace(" ", "-")
        candidate, n = slug, 0
        while candidate in anchors:
            n += 1
            candidate = f"{slug}-{n}"
        anchors.add(candidate)
    return anchors


def readme_links() -> list[str]:
    text = re.sub(r"^```.*?^```", "", README.read_text(), flags=re.MULTILINE | re.DOTALL)
    text = re.sub(r"`[^`\n]*`", "", text)   # code spans are not links
    return [target for form in LINK_FORMS for target in form.findall(text)]


def broken(target: str) -> str | None:
    """Why a README link does not resolve, or None. Nothing is fetched: a web address is checked
    for its form only (the table runs offline; nothing in the README is needed at run time)."""
    parts = urllib.parse.urlsplit(target)
    if parts.scheme in ("http", "https"):
        return None if parts.netloc and "." in parts.netloc and " " not in target else "not a web address"
    if parts.scheme or parts.netloc:
        return f"an unexpected scheme {parts.scheme!r}"
    path = (README.parent / urllib.parse.unquote(parts.path)).resolve() if parts.path else README
    if not path.is_relative_to(ROOT):
        return "outside the repository"
    if not path.exists():
        return "no such file"
    if parts.fragment and path.suffix == ".md" and parts.fragment not in github_anchors(path):
        return f"no heading #{parts.fragment} in {path.relative_to(ROOT)}"
    return None


def test_every_link_in_the_readme_resolves() -> None:
    links = readme_links()
    assert len(links) > 25, links
    wrong = {target: why for target in links if (why := broken(target))}
    assert not wrong, wrong


def test_the_link_check_finds_a_broken_link() -> None:
    assert broken("hardware/nothing-here.md") == "no such file"
    assert broken("hardware/pinout.md#nowhere") == "no heading #nowhere in hardware/pinout.md"
    assert broken("#quick-start") is None and broken("#quick-start-2") is not None
    assert broken("https://www.raspberrypi.com/software/") is None and broken("https://") == "not a web address"
