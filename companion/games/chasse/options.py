"""La chasse au vampire's table options, and the facts no source gave.

`../rules/defaults.json` (`chasse_au_vampire`) marks the sand timer's length, the blood groups and
their compatibility UNVERIFIED: the start form says so beside them, and the owner sets them once
from their box. The board's map is unverified too (the companion's board mode draws the one that
ships unless the configuration gives the owner's own). The rest are readings of the rules the
table may choose (the ambiguities resolved in rules/chasse-au-vampire.md 5.8).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.base import OptionsError
from companion.games.chasse.board import DEFAULT_BOARD, load_board
from companion.games.options import UNVERIFIED_NOTE, OptionReader, schema_option

MIN_PLAYERS = 2
MAX_PLAYERS = 6
VAMPIRE_CARDS = 8
RIPOSTES = {"cross": 4, "water": 4, "garlic": 4, "stake": 1}
"""The 13 riposte cards [seed]; with the blood groups and the 8 vampire cards, 26 cards."""
WEAPONS = tuple(RIPOSTES)
TRIO = ("garlic", "water", "cross")
"""C-K4: these three together in the crypt win."""
DIE = 6

BOARD_MODES = ("own", "companion")
"""The table's own board (players say where they stopped), or the companion's board on the TV."""
MOVEMENT_MODES = ("exact_with_backtrack", "up_to_min_1")
BITE_PATHS = ("cross_square", "stop_before_victim")
COMPATIBILITY_PRESETS: dict[str, dict[str, list[str]]] = {
    "abo": {"O": ["O", "A", "B", "AB"], "A": ["A", "AB"], "B": ["B", "AB"], "AB": ["AB"]},
}
"""Who may give to whom, by the giver's group (standard ABO red cells); "same_group" is identity."""

DEFAULTS: dict[str, Any] = {
    "board_mode": "own",
    "phase_seconds": 180,
    "blood_groups": ["O", "O", "A", "B", "AB"],
    "compatibility": "abo",
    "movement_mode": "exact_with_backtrack",
    "bite_path": "cross_square",
    "board": DEFAULT_BOARD,
}
UNVERIFIED = ("phase_seconds", "blood_groups", "compatibility", "board")
"""Options whose default is a placeholder for a fact no source gave."""


def _groups(options: Mapping[str, Any]) -> list[str]:
    value = options.get("blood_groups", DEFAULTS["blood_groups"])
    if not isinstance(value, list | tuple) or not MAX_PLAYERS - 1 <= len(value) <= 10 \
            or any(not isinstance(g, str) or not 1 <= len(g.strip()) <= 4 for g in value):
        # C-S2 deals one to each traveller: five travellers at most.
        raise OptionsError("blood_groups",
                           f"{MAX_PLAYERS - 1} to 10 blood-group cards, each named in 1 to 4 characters")
    return [g.strip().upper() for g in value]


def _compatibility(options: Mapping[str, Any], groups: list[str]) -> str | dict[str, list[str]]:
    """A preset's name, or the owner's own table: for each group, the groups it may give to."""
    value = options.get("compatibility", DEFAULTS["compatibility"])
    if value in ("abo", "same_group"):
        if value == "abo" and not set(groups) <= set(COMPATIBILITY_PRESETS["abo"]):
            raise OptionsError("compatibility", "the ABO table knows the groups O, A, B and AB only")
        return str(value)
    if not isinstance(value, Mapping) or set(value) != set(groups) \
            or any(not isinstance(to, list | tuple) or not set(to) <= set(groups) for to in value.values()):
        raise OptionsError("compatibility", "\"abo\", \"same_group\", or for each blood group the groups it gives to")
    return {str(g): sorted({str(t) for t in to}) for g, to in value.items()}


def gives_to(options: Mapping[str, Any], giver: str, receiver: str) -> bool:
    """C-B3: whether a donor of group `giver` may save a victim of group `receiver`."""
    table = options["compatibility"]
    if table == "same_group":
        return giver == receiver
    if isinstance(table, str):
        table = COMPATIBILITY_PRESETS[table]
    return receiver in table.get(giver, ())


def normalize_options(options: Mapping[str, Any]) -> dict[str, Any]:
    read = OptionReader(options, DEFAULTS)
    groups = _groups(options)
    board = options.get("board", DEFAULTS["board"])
    return {
        "board_mode": read.choice("board_mode", BOARD_MODES),
        "phase_seconds": read.number("phase_seconds", 10, 1800, whole=True),
        "blood_groups": groups,
        "compatibility": _compatibility(options, groups),
        "movement_mode": read.choice("movement_mode", MOVEMENT_MODES),
        "bite_path": read.choice("bite_path", BITE_PATHS),
        "board": load_board(board).to_json(),
    }


def unverified(options: Mapping[str, Any]) -> list[str]:
    """The options a table still plays with their unverified default (the board only in its mode)."""
    keys = [key for key in UNVERIFIED if options.get(key) == DEFAULTS[key]]
    if options.get("board_mode") != "companion":
        keys = [key for key in keys if key != "board"]
    elif "board" not in keys and not options["board"].get("verified", False):
        keys.append("board")
    return keys


def options_schema(defaults: Mapping[str, Any]) -> list[dict[str, Any]]:
    """What the host console offers when starting the game; the last game's choices come first."""
    start = {**DEFAULTS, **defaults}

    def option(key: str, en: str, fr: str, values: list[tuple[Any, str, str]], **extra: Any) -> dict[str, Any]:
        return schema_option(start, key, en, fr, values, **extra)

    return [
        option("board_mode", "The board", "Le plateau", [
            ("own", "our own board: players say where they stopped", "notre plateau : chacun dit où il s'arrête"),
            ("companion", "the companion's board on the TV (map unverified)",
             "le plateau du compagnon sur la télé (carte non vérifiée)")]),
        option("phase_seconds", "Sand timer (each day and each night)", "Sablier (chaque jour et chaque nuit)",
               [(n, f"{n // 60} min" if n % 60 == 0 else f"{n} s", f"{n // 60} min" if n % 60 == 0 else f"{n} s")
                for n in (180, 60, 120, 240, 300)], note=UNVERIFIED_NOTE),
        {"key": "blood_groups", "kind": "list", "item": "text",
         "label": {"en": "Blood-group cards", "fr": "Cartes groupe sanguin"}, "default": start["blood_groups"],
         "length": None, "note": UNVERIFIED_NOTE},
        option("compatibility", "Who may give blood to whom", "Qui peut donner son sang à qui", [
            ("abo", "as in medicine: O to all, A and B to themselves and AB, AB to AB",
             "comme en médecine : O à tous, A et B à eux-mêmes et à AB, AB à AB"),
            ("same_group", "the same group only", "le même groupe seulement")], note=UNVERIFIED_NOTE),
        option("movement_mode", "Moving", "Déplacement", [
            ("exact_with_backtrack", "exactly the dice's count, going back allowed (the rules)",
             "exactement les points du dé, retour en arrière permis (la règle)"),
            ("up_to_min_1", "up to the dice's count, at least one square",
             "jusqu'aux points du dé, au moins une case")]),
        option("bite_path", "A bite", "Une morsure", [
            ("cross_square", "as the vampire crosses the traveller's square (the rules)",
             "quand le vampire passe sur la case du voyageur (la règle)"),
            ("stop_before_victim", "ends the vampire's move beside the traveller",
             "arrête le vampire à côté du voyageur")]),
    ]
