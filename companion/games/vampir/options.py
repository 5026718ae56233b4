"""Vampir's table options, and the fact no source gave: which colour is which location.

`../rules/defaults.json` (`vampir`) marks the colour-to-location mapping UNVERIFIED: the start form
says so beside it, and the owner sets it once from their box; it is then kept for later games.
The rest are readings of the rules the table may choose (the ambiguities in rules/vampir.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.base import OptionsError
from companion.games.options import UNVERIFIED_NOTE, OptionReader, schema_option

MIN_PLAYERS = 3
MAX_PLAYERS = 5
COLOURS = ("green", "grey", "orange", "violet", "yellow", "red")
"""The six vampire colours [seed 000], in the order every screen lists them."""
LOCATIONS = ("castle", "graveyard", "madhouse", "docks", "church", "pub")
ONE_HEAD = 11
TWO_HEAD = 5
"""Per colour: 11 one-head and 5 two-head cards [seed]."""
JOKERS = 10
"""The "Somewhere" cards: colourless, one head each [seed]."""
HAND_SIZE = 4
DRAW = 2
MIN_HUNT = 3

CARD_MODES = ("digital", "physical")
"""The companion is the deck; or the real cards are played and the companion referees the scoring."""
LAST_CARD = ("immediate", "finish_turn")
"""Ambiguity 7: drawing the last card ends the round at once, or once the drawer's turn is done."""
FIRST_PLAYER = ("random", "loser", "host")
"""Ambiguity 11 (V-S4, "the longest canines"): drawn at random each round; the previous round's
lowest score (random in the first round); or the host chooses."""
WINNER_TIE = ("shared", "last_round")
"""Ambiguity 10: equal totals share the win; or the better last round breaks the tie."""

DEFAULT_LOCATIONS = {"green": "graveyard", "grey": "castle", "orange": "pub", "violet": "madhouse",
                     "yellow": "church", "red": "docks"}
"""Arbitrary until the owner reads their location cards (defaults.json: UNVERIFIED)."""

DEFAULTS: dict[str, Any] = {
    "cards": "digital",
    "locations": dict(DEFAULT_LOCATIONS),
    "rounds": 3,
    "first_player": "random",
    "hunts_per_turn": 1,
    "end_on_last_card": "immediate",
    "all_tied_lowest_discard": True,
    "winner_tie": "shared",
    "projection": True,
}
UNVERIFIED = ("locations",)


def _locations(options: Mapping[str, Any]) -> dict[str, str]:
    value = options.get("locations", DEFAULTS["locations"])
    if not isinstance(value, Mapping) or set(value) != set(COLOURS) \
            or sorted(str(v) for v in value.values()) != sorted(LOCATIONS):
        raise OptionsError("locations", f"each colour ({', '.join(COLOURS)}) at a different location"
                                        f" ({', '.join(LOCATIONS)})")
    return {colour: str(value[colour]) for colour in COLOURS}


def normalize_options(options: Mapping[str, Any]) -> dict[str, Any]:
    read = OptionReader(options, DEFAULTS)
    return {
        "cards": read.choice("cards", CARD_MODES),
        "locations": _locations(options),
        "rounds": read.number("rounds", 1, 9, whole=True),
        "first_player": read.choice("first_player", FIRST_PLAYER),
        "hunts_per_turn": read.number("hunts_per_turn", 1, len(COLOURS), whole=True),
        "end_on_last_card": read.choice("end_on_last_card", LAST_CARD),
        "all_tied_lowest_discard": read.flag("all_tied_lowest_discard"),
        "winner_tie": read.choice("winner_tie", WINNER_TIE),
        "projection": read.flag("projection"),
    }


def options_schema(defaults: Mapping[str, Any]) -> list[dict[str, Any]]:
    """What the host console offers when starting the game; the last game's choices come first."""
    start = {**DEFAULTS, **defaults}

    def option(key: str, en: str, fr: str, values: list[tuple[Any, str, str]], **extra: Any) -> dict[str, Any]:
        return schema_option(start, key, en, fr, values, **extra)

    return [
        option("cards", "The cards", "Les cartes", [
            ("digital", "the companion deals them: hands on the phones",
             "le compagnon les distribue : les mains sur les téléphones"),
            ("physical", "the real cards; the companion counts the score",
             "les vraies cartes ; le compagnon compte les points")]),
        {"key": "locations", "kind": "mapping", "keys": list(COLOURS), "values": list(LOCATIONS),
         "label": {"en": "Each colour's location", "fr": "Le lieu de chaque couleur"},
         "default": start["locations"], "note": UNVERIFIED_NOTE},
        option("rounds", "Rounds", "Manches", [(n, str(n), str(n)) for n in (3, 1, 2, 4, 5)]),
        option("first_player", "Who starts each round", "Qui commence chaque manche", [
            ("random", "drawn at random", "tiré au sort"),
            ("loser", "the previous round's last (random at first)",
             "le dernier de la manche précédente (au hasard d'abord)"),
            ("host", "the host chooses", "l'hôte choisit")]),
        option("hunts_per_turn", "Hunts per turn", "Chasses par tour", [
            (1, "one (the rules)", "une (la règle)"), (2, "up to two", "jusqu'à deux"),
            (6, "any number", "autant qu'on veut")]),
        option("end_on_last_card", "Drawing the last card", "Tirer la dernière carte", [
            ("immediate", "ends the round at once (the rules)", "arrête la manche aussitôt (la règle)"),
            ("finish_turn", "ends it once that turn is played", "l'arrête une fois ce tour joué")]),
        option("all_tied_lowest_discard", "Everyone tied at the same lowest heads in a colour",
               "Tous à égalité au plus petit nombre de têtes dans une couleur", [
                   (True, "all discard it (the rules, read literally)", "tous la défaussent (la règle, à la lettre)"),
                   (False, "all keep it", "tous la gardent")]),
        option("winner_tie", "Equal totals at the end", "Totaux égaux à la fin", [
            ("shared", "share the win", "se partagent la victoire"),
            ("last_round", "the better last round wins", "la meilleure dernière manche l'emporte")]),
        option("projection", "\"If it ended now\" on the table", "« Si la manche finissait maintenant » sur la table", [
            (True, "shown", "affiché"), (False, "hidden (no help)", "caché (sans aide)")]),
    ]
