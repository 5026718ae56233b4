"""Player-facing text in French and English.

Codes stay stable in the API (`not_your_turn`); people read the sentence in their own language.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from babel import Locale

LANGUAGES = ("en", "fr")
DEFAULT_LANGUAGE = "en"
FRONTEND = "companion.frontend"
"""The package the front end (web/: templates, scripts, translations) is installed as (setup.py)."""


@cache
def catalogue(lang: str) -> Mapping[str, Any]:
    if lang not in LANGUAGES:
        lang = DEFAULT_LANGUAGE
    text = resources.files(FRONTEND).joinpath("translations", f"{lang}.json").read_text("utf-8")
    return json.loads(text)


class _Keep(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


_AGREEING = re.compile(r"\{(\w+)\|([^|}]*)\|([^}]*)\}")
"""`{n|card|cards}`: the word that agrees with the number `n`, written as the pages write it."""

_ELIDING = re.compile(r"\{(\w+):(\w+)\}")
"""`{de:name}`: a little word before a parameter, elided before a vowel sound ("d'Alice")."""

ELISIONS: Mapping[str, Mapping[str, str]] = {
    "fr": {"de": "d'", "De": "D'", "que": "qu'", "Que": "Qu'", "le": "l'", "Le": "L'", "la": "l'", "La": "L'",
           "je": "j'", "ne": "n'", "se": "s'"},
}
"""Per language, the words that lose their vowel before a vowel sound, and what they become."""

_VOWELS = "aeiouàâäéèêëîïôöùûüœæ"
_VOWEL_SOUND = re.compile(f"^(?:[{_VOWELS}]|h[{_VOWELS}y]|y[^{_VOWELS}y])", re.IGNORECASE)
"""A vowel, a mute h before a vowel, or a y sounding as a vowel (before a consonant)."""


def plural_category(n: float, lang: str) -> str:
    """The CLDR plural category of `n` in `lang` ("one", "other", "many"…), by Babel's copy of the
    rules the browsers' Intl.PluralRules follow: the server and the pages choose the same word."""
    number: float = int(n) if float(n).is_integer() else n
    return str(_locale(lang).plural_form(number))


@cache
def _locale(lang: str) -> Locale:
    """Babel and a language's data load in about 0.3 s: once, when first needed (see `warm`)."""
    from babel import Locale

    return Locale.parse(lang if lang in LANGUAGES else DEFAULT_LANGUAGE)


def warm() -> None:
    """Load every language's plural rules now (the web server does it in the background as it
    starts), so the first sentence with a count is not the one that waits for them."""
    for lang in LANGUAGES:
        plural_category(1, lang)


def agree(template: str, params: Mapping[str, Any], lang: str) -> str:
    """Each `{n|one|other}` as the word its number takes in `lang`: the first form for the
    category "one" (in French 0 and 1; in English 1 only), the second for every other category,
    as the pages' `fill` (web/static/live.js) chooses with Intl.PluralRules."""

    def word(match: re.Match[str]) -> str:
        name, one, many = match.groups()
        try:
            n = float(params[name])
        except (KeyError, TypeError, ValueError):
            return many  # no number to agree with (its place stays visible as {n})
        return one if plural_category(n, lang) == "one" else many

    return _AGREEING.sub(word, template)


def starts_with_vowel_sound(word: str) -> bool:
    """Whether a French word (a player's name) begins with a vowel sound: a vowel, a mute h before
    a vowel ("Hélène", "Hugo"), or a y before a consonant ("Yvette"; not "Yann")."""
    return bool(_VOWEL_SOUND.search(word.strip()))


def elide(word: str, following: str, lang: str) -> str:
    """`word` and `following` as `lang` joins them: "d'Alice" but "de Bruno" in French."""
    short = ELISIONS.get(lang, {}).get(word)
    if short is not None and starts_with_vowel_sound(following):
        return short + following
    return f"{word} {following}"


def elide_all(template: str, params: Mapping[str, Any], lang: str) -> str:
    """Each `{de:name}` filled with its parameter and the little word elided as it must be; one
    whose parameter is missing stays visible as {name}."""

    def joined(match: re.Match[str]) -> str:
        word, name = match.groups()
        if name not in params:
            return f"{word} {{{name}}}"
        return elide(word, str(params[name]), lang)

    return _ELIDING.sub(joined, template)


def fill(template: str, params: Mapping[str, Any], lang: str) -> str:
    """A translation with its parameters: words agreeing with numbers, elisions, then the values
    (a parameter missing from `params` stays visible as {name}), as the pages' `fill` does."""
    text = elide_all(agree(template, params, lang), params, lang)
    return text.format_map(_Keep({k: str(v) for k, v in params.items()}))


def error_message(code: str, params: Mapping[str, Any], lang: str) -> str:
    """The sentence for a rejection code; a parameter missing from `params` stays visible as {name}."""
    template = catalogue(lang)["error"].get(code) or catalogue(DEFAULT_LANGUAGE)["error"].get(code, code)
    return fill(template, params, lang)


def pick_language(accept_language: str | None, default: str = DEFAULT_LANGUAGE) -> str:
    """The best of our languages for an Accept-Language header (q-values honoured)."""
    best, best_q = default, 0.0
    for part in (accept_language or "").split(","):
        pieces = part.strip().split(";")
        tag = pieces[0].strip().lower().split("-")[0]
        q = 1.0
        for piece in pieces[1:]:
            piece = piece.strip()
            if piece.startswith("q="):
                try:
                    q = float(piece[2:])
                except ValueError:
                    q = 0.0
        if tag in LANGUAGES and q > best_q:
            best, best_q = tag, q
    return best
