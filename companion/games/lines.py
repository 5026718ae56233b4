"""A game's log line for an event (`GameDefinition.describe`), from its templates in English and
French: a line a template cannot fill (a field it names is missing) falls back to the event's
type, since a log line must never stop a replay. A count takes its word by the language's plural
rules, written as the pages write it: "{count} {count|card|cards}"."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.i18n import agree


def log_line(templates: Mapping[str, Mapping[str, str]], lang: str, key: str, params: Mapping[str, Any],
             fallback: str) -> str:
    template = templates.get(lang, templates["en"]).get(key, "")
    if not template:
        return fallback
    try:
        return agree(template, params, lang).format(**params)
    except (KeyError, IndexError):
        return fallback
