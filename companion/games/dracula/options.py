"""Dracula's table options, and the facts no source gave.

`../rules/defaults.json` (`dracula_forum`) proposes the phase lengths and the torture timeout for
face-to-face play: the original ran on a forum over days, so no source gives them. They are marked
unverified on the start form and the table sets them. The rest are the readings of the rules the
spec resolved (6.8), offered as choices, and the variant of a smaller table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.options import UNVERIFIED_NOTE, OptionReader, schema_option

GAME_ID = "dracula"
RULE_PLAYERS = 13
"""D-6.2: exactly 13 players; fewer is a variant the start form labels so."""
MIN_PLAYERS = 4
MAX_PLAYERS = RULE_PLAYERS
NIGHTS = 5
ROOMS = ("boudoir", "ballroom", "jails", "torture")
OBJECTS = {"garlic": 4, "candle": 4, "map": 4}
"""D-6.2: handed out after night 2, one to every player but Dracula."""
GM_MODES = ("companion", "person")
"""Who runs the game: the companion (the host sees no more than the table), or a person who does
not play and sees the whole grimoire from the host console, confirming each night."""

DURATIONS = ("day_s", "dusk_s", "actions_s", "dawn_s", "final_s", "torture_s")
DEFAULTS: dict[str, Any] = {
    "rounds": 3,
    "gm": "companion",
    "day_s": 600,
    "dusk_s": 180,
    "actions_s": 180,
    "dawn_s": 60,
    "final_s": 180,
    "torture_s": 60,
    "sanctuary_capacity": 3,
    "self_vote": True,
}
UNVERIFIED = ("day_s", "dusk_s", "actions_s", "dawn_s", "final_s", "torture_s")
"""The phase lengths: no source gave them for a table (defaults.json proposes them)."""


def normalize_options(options: Mapping[str, Any]) -> dict[str, Any]:
    read = OptionReader(options, DEFAULTS)
    return {
        "rounds": read.number("rounds", 1, 10, whole=True),
        "gm": read.choice("gm", GM_MODES),
        "day_s": read.number("day_s", 30, 3600, whole=True),
        "dusk_s": read.number("dusk_s", 20, 1800, whole=True),
        "actions_s": read.number("actions_s", 20, 1800, whole=True),
        "dawn_s": read.number("dawn_s", 10, 600, whole=True),
        "final_s": read.number("final_s", 20, 1800, whole=True),
        "torture_s": read.number("torture_s", 10, 600, whole=True),
        "sanctuary_capacity": read.number("sanctuary_capacity", 0, 4, whole=True),
        "self_vote": read.flag("self_vote"),
    }


def unverified(options: Mapping[str, Any]) -> list[str]:
    return [key for key in UNVERIFIED if options.get(key) == DEFAULTS[key]]


def _seconds(n: int) -> str:
    return f"{n // 60} min" if n % 60 == 0 else f"{n} s"


def options_schema(defaults: Mapping[str, Any]) -> list[dict[str, Any]]:
    """What the host console offers when starting the game; the last game's choices come first."""
    start = {**DEFAULTS, **defaults}

    def option(key: str, en: str, fr: str, values: list[tuple[Any, str, str]], **extra: Any) -> dict[str, Any]:
        return schema_option(start, key, en, fr, values, **extra)

    def duration(key: str, en: str, fr: str, choices: tuple[int, ...]) -> dict[str, Any]:
        return option(key, en, fr, [(n, _seconds(n), _seconds(n)) for n in choices], note=UNVERIFIED_NOTE)

    return [
        option("rounds", "Rounds in the series", "Manches de la série",
               [(n, str(n), str(n)) for n in (3, 1, 2, 4, 5)]),
        option("gm", "The game master", "Le maître du jeu", [
            ("companion", "the companion is the GM (the host sees no more than the table)",
             "le compagnon est le MJ (l'hôte n'en voit pas plus que la table)"),
            ("person", "a person is the GM: does not play, sees everything and confirms each night",
             "une personne est le MJ : ne joue pas, voit tout et confirme chaque nuit")]),
        duration("day_s", "Day (talk and vote)", "Jour (discussion et vote)", (600, 300, 420, 900, 1200)),
        duration("dusk_s", "Dusk (rooms and objects)", "Crépuscule (salles et objets)", (180, 60, 120, 300)),
        duration("actions_s", "Night actions", "Actions de nuit", (180, 60, 120, 300)),
        duration("dawn_s", "Dawn (reading the news)", "Aube (lecture des nouvelles)", (60, 30, 90, 120)),
        duration("final_s", "Each step of the final phase", "Chaque étape de la phase finale", (180, 60, 120, 300)),
        duration("torture_s", "Dracula's answer when tortured", "Réponse de Dracula torturé", (60, 30, 90, 120)),
        option("sanctuary_capacity", "Sanctuary places (3 in the rules; fewer for a small table)",
               "Places au sanctuaire (3 dans la règle ; moins pour une petite table)",
               [(n, str(n), str(n)) for n in (3, 2, 1, 4)]),
        option("self_vote", "Voting for yourself", "Voter pour soi", [
            (True, "allowed", "permis"), (False, "not allowed", "interdit")]),
    ]
