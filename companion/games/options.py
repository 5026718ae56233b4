"""What every game's options share: reading a table's values against the game's defaults, with
the key named on any bad value, and the start form's entries (labels and notes in en and fr)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard

from companion.games.base import OptionsError

UNVERIFIED_NOTE = {"en": "Unverified: no source gave this; check your box.",
                   "fr": "Non vérifié : aucune source ne le donne ; vérifiez votre boîte."}
"""Shown next to an option whose default is a placeholder for a fact no source gave."""


def whole(value: Any) -> TypeGuard[int]:
    """A whole number as JSON gives it: an int, never a bool (True is 1 to Python, not to a table)."""
    return isinstance(value, int) and not isinstance(value, bool)


class OptionReader:
    """One table's options, each read with its game's default when the table gave none."""

    def __init__(self, options: Mapping[str, Any], defaults: Mapping[str, Any]) -> None:
        unknown = set(options) - set(defaults)
        if unknown:  # a typo must not silently fall back to a default
            raise OptionsError(sorted(unknown)[0], "not an option of this game")
        self.options = options
        self.defaults = defaults

    def get(self, key: str) -> Any:
        return self.options.get(key, self.defaults[key])

    def number(self, key: str, low: float, high: float, whole: bool = False) -> Any:
        value = self.get(key)
        kinds = int if whole else int | float
        if isinstance(value, bool) or not isinstance(value, kinds) or not low <= value <= high:
            kind = "a whole number" if whole else "a number"
            raise OptionsError(key, f"{kind} from {low:g} to {high:g}")
        return int(value) if whole else float(value)

    def choice(self, key: str, choices: tuple[str, ...]) -> str:
        value = self.get(key)
        if value not in choices:
            raise OptionsError(key, f"one of {', '.join(choices)}")
        return str(value)

    def flag(self, key: str) -> bool:
        value = self.get(key)
        if not isinstance(value, bool):
            raise OptionsError(key, "true or false")
        return value


def schema_option(start: Mapping[str, Any], key: str, en: str, fr: str, values: list[tuple[Any, str, str]],
                  **extra: Any) -> dict[str, Any]:
    """One entry of the start form: `values` are (value, English, French); the value the table
    starts from (`start[key]`, from the configuration or its last game) is offered even when the
    list does not have it."""
    choices = [{"value": value, "label": {"en": en_label, "fr": fr_label}} for value, en_label, fr_label in values]
    if all(c["value"] != start[key] for c in choices):
        choices.insert(0, {"value": start[key], "label": {"en": str(start[key]), "fr": str(start[key])}})
    return {"key": key, "label": {"en": en, "fr": fr}, "choices": choices, "default": start[key], **extra}
