"""Every sentence a player can meet exists in French and English."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.i18n import LANGUAGES, agree, catalogue, error_message, pick_language

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "companion"


def codes_in_source() -> set[str]:
    """Rejection codes the code can produce: Rejection("x"), error("x", ...), and undo refusals."""
    text = "\n".join(p.read_text() for p in PACKAGE.rglob("*.py"))
    found = set(re.findall(r'Rejection\(\s*"([a-z_]+)"', text))
    found |= set(re.findall(r'\berror\(\s*"([a-z_]+)"', text))
    for module in ("table/gamerun.py", "fairness/contributions.py", "server/common.py"):
        found |= set(re.findall(r'return "([a-z_]+)"', (PACKAGE / module).read_text()))
    found |= set(re.findall(r'undo_wall = "([a-z_]+)"', text))
    found |= set(re.findall(r'"(undo_(?:random|reveal))"', text))
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
        assert re.findall(r"{\w+}", english[key]) == re.findall(r"{\w+}", french[key]), key


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
