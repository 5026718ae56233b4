"""Player-facing text in French and English.

Codes stay stable in the API (`not_your_turn`); people read the sentence in their own language.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

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


def agree(template: str, params: Mapping[str, Any], lang: str) -> str:
    """Each `{n|one|many}` as the word its number takes in `lang` (in French 0 and 1 take the
    singular), by the same rule as the pages' `fill` (web/static/live.js)."""

    def word(match: re.Match[str]) -> str:
        name, one, many = match.groups()
        try:
            n = float(params[name])
        except (KeyError, TypeError, ValueError):
            return many  # no number to agree with (its place stays visible as {n})
        return one if (abs(n) < 2 if lang == "fr" else n == 1) else many

    return _AGREEING.sub(word, template)


def error_message(code: str, params: Mapping[str, Any], lang: str) -> str:
    """The sentence for a rejection code; a parameter missing from `params` stays visible as {name}."""
    template = catalogue(lang)["error"].get(code) or catalogue(DEFAULT_LANGUAGE)["error"].get(code, code)
    return agree(template, params, lang).format_map(_Keep({k: str(v) for k, v in params.items()}))


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
