"""La nuit des vampires' table options, and the facts no source gave (the red die, the fate cards,
the elixirs' values, the fate colours' names).

Those facts are defaults a table can change (`../rules/defaults.json`, `jagd_der_vampire`, marks
them UNVERIFIED): the host console says so next to them, and the owner can enter the printed
values once; they are then kept as the table's defaults for every later game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.base import OptionsError
from companion.games.options import UNVERIFIED_NOTE, OptionReader, schema_option, whole

MIN_PLAYERS = 2
MAX_PLAYERS = 6
BOTTLES = 60
"""Ketchup bottles in the box [seed]: players' bottles plus the reserve always make 60."""
TOWERS = 5
BRIDGES = 2
"""N-S3: the box's two bridges; one may be moved only once both are on the board."""
FATE_COLOURS = 3

FATE_KINDS = ("lose_magic", "lose_ketchup", "choose_magic", "gain_ketchup", "flying_vampire")
NUMBERED = ("lose_magic", "lose_ketchup", "gain_ketchup")
"""Fate kinds that print a number n (`"c"`: the colour's number, 1 to 3)."""
MAGIC_KINDS = ("elixir_1", "elixir_2", "elixir_3", "glove", "tempo", "bridge", "duel_plus1", "duel_plus2",
               "duel_plus3")
ELIXIRS = MAGIC_KINDS[:3]

DEFAULT_FATE_STACK = [
    {"kind": "lose_magic", "n": "c"},
    {"kind": "lose_ketchup", "n": "c"},
    {"kind": "choose_magic"},
    {"kind": "gain_ketchup", "n": "c"},
    {"kind": "flying_vampire"},
]
"""2 bad + 3 good per colour (ambiguity 1), n = the colour's number: a guess until the owner reads the cards."""
DEFAULT_MAGIC = {"elixir_1": 4, "elixir_2": 3, "elixir_3": 2, "glove": 4, "tempo": 3, "bridge": 6,
                 "duel_plus1": 4, "duel_plus2": 2, "duel_plus3": 2}
"""30 cards [seed]; the seed lists duel +1 twice (×2, ×2): 4 in all."""

TOWER_MODES = ("digital_secret", "physical")
FLYING_TARGETS = ("same_colour_space", "any_space")
GOOD_READINGS = ("kinds", "both")
UNPAID_TAX = ("keep_bottles", "pay_all")
"""Ambiguity 10: a player who cannot pay the castle tax keeps their bottles, or pays all they have."""

DEFAULTS: dict[str, Any] = {
    "tower_mode": "digital_secret",
    "black_die": [1, 1, 2, 2, 3, 3],
    "red_die": [1, 2, 2, 3, 3, 4],
    "fate_colours": ["fate-1", "fate-2", "fate-3"],
    "fate_stack": [dict(card) for card in DEFAULT_FATE_STACK],
    "magic_cards": dict(DEFAULT_MAGIC),
    "elixir_values": [1, 2, 3],
    "start_bottles": 4,
    "start_magic": 3,
    "display_magic": 3,
    "max_bottles": 8,
    "max_magic": 5,
    "max_magic_per_move": 3,
    "duel_cards_per_roll": 1,
    "oubliette_bribe": 4,
    "unpaid_tax": "keep_bottles",
    "flying_vampire_target": "same_colour_space",
    "good_card_reading": "kinds",
    "childrens_assist": False,
    "outer_start_spaces_used_with_players": [5, 6],
}
UNVERIFIED = ("red_die", "fate_colours", "fate_stack", "elixir_values")
"""Options whose default is a placeholder for a fact no source gave."""










def _die(options: Mapping[str, Any], key: str) -> list[int]:
    value = options.get(key, DEFAULTS[key])
    if not isinstance(value, list | tuple) or not 2 <= len(value) <= 12 \
            or any(not whole(face) or not 0 <= face <= 12 for face in value):
        raise OptionsError(key, "2 to 12 faces, each a whole number of pips from 0 to 12")
    return [int(face) for face in value]


def _colours(options: Mapping[str, Any]) -> list[str]:
    value = options.get("fate_colours", DEFAULTS["fate_colours"])
    if not isinstance(value, list | tuple) or len(value) != FATE_COLOURS \
            or any(not isinstance(name, str) or not 1 <= len(name.strip()) <= 24 for name in value) \
            or len({name.strip() for name in value}) != FATE_COLOURS \
            or any(name.strip() in ("start", "courtyard", "oubliettes") for name in value):
        raise OptionsError("fate_colours", f"{FATE_COLOURS} different names of 1 to 24 characters")
    return [name.strip() for name in value]


def _fate_stack(options: Mapping[str, Any]) -> list[dict[str, Any]]:
    value = options.get("fate_stack", DEFAULTS["fate_stack"])
    if not isinstance(value, list | tuple) or not 1 <= len(value) <= 10:
        raise OptionsError("fate_stack", "1 to 10 cards per colour")
    stack = []
    for i, card in enumerate(value):
        key = f"fate_stack[{i}]"
        if not isinstance(card, Mapping) or card.get("kind") not in FATE_KINDS:
            raise OptionsError(f"{key}.kind", f"one of {', '.join(FATE_KINDS)}")
        kind = str(card["kind"])
        if kind in NUMBERED:
            n = card.get("n")
            if n != "c" and not (whole(n) and 1 <= n <= 8):
                raise OptionsError(f"{key}.n", "\"c\" (the colour's number) or a whole number from 1 to 8")
            stack.append({"kind": kind, "n": n})
        else:
            if set(card) - {"kind"}:
                raise OptionsError(f"{key}.n", f"a {kind} card prints no number")
            stack.append({"kind": kind})
    return stack


def _magic(options: Mapping[str, Any], needed: int) -> dict[str, int]:
    value = options.get("magic_cards", DEFAULTS["magic_cards"])
    if not isinstance(value, Mapping) or set(value) != set(MAGIC_KINDS):
        raise OptionsError("magic_cards", f"a count for each of {', '.join(MAGIC_KINDS)}")
    counts = {}
    for kind in MAGIC_KINDS:
        count = value[kind]
        if not whole(count) or not 0 <= count <= 20:
            raise OptionsError(f"magic_cards.{kind}", "a whole number of cards from 0 to 20")
        counts[kind] = int(count)
    total = sum(counts.values())
    if not needed <= total <= 99:
        raise OptionsError("magic_cards", f"{needed} to 99 cards in all (it has {total})")
    return counts


def normalize_options(options: Mapping[str, Any]) -> dict[str, Any]:
    read = OptionReader(options, DEFAULTS)
    max_bottles = read.number("max_bottles", 1, BOTTLES // MAX_PLAYERS, whole=True)
    max_magic = read.number("max_magic", 1, 10, whole=True)
    start_bottles = read.number("start_bottles", 0, max_bottles, whole=True)
    start_magic = read.number("start_magic", 0, max_magic, whole=True)
    display = read.number("display_magic", 1, 6, whole=True)
    elixirs = options.get("elixir_values", DEFAULTS["elixir_values"])
    if not isinstance(elixirs, list | tuple) or len(elixirs) != len(ELIXIRS) \
            or any(not whole(v) or not 1 <= v <= max_bottles for v in elixirs):
        raise OptionsError("elixir_values", f"{len(ELIXIRS)} whole numbers of bottles from 1 to {max_bottles}")
    outer = options.get("outer_start_spaces_used_with_players", DEFAULTS["outer_start_spaces_used_with_players"])
    if not isinstance(outer, list | tuple) \
            or any(not whole(n) or not MIN_PLAYERS <= n <= MAX_PLAYERS for n in outer) \
            or len(set(outer)) != len(outer):
        raise OptionsError("outer_start_spaces_used_with_players",
                           f"different player counts from {MIN_PLAYERS} to {MAX_PLAYERS}")
    black, red = _die(options, "black_die"), _die(options, "red_die")
    if len(set(black)) == 1 and set(black) == set(red):
        # N-D2: a tie is rolled again; two dice that always show the same pips would tie forever.
        raise OptionsError("red_die", "the red and black dice cannot both show one same number on every face")
    return {
        "tower_mode": read.choice("tower_mode", TOWER_MODES),
        "black_die": black,
        "red_die": red,
        "fate_colours": _colours(options),
        "fate_stack": _fate_stack(options),
        "magic_cards": _magic(options, display + MAX_PLAYERS * start_magic),
        "elixir_values": [int(v) for v in elixirs],
        "start_bottles": start_bottles,
        "start_magic": start_magic,
        "display_magic": display,
        "max_bottles": max_bottles,
        "max_magic": max_magic,
        "max_magic_per_move": read.number("max_magic_per_move", 1, 10, whole=True),
        "duel_cards_per_roll": read.number("duel_cards_per_roll", 0, 3, whole=True),
        "oubliette_bribe": read.number("oubliette_bribe", 0, max_bottles, whole=True),
        "unpaid_tax": read.choice("unpaid_tax", UNPAID_TAX),
        "flying_vampire_target": read.choice("flying_vampire_target", FLYING_TARGETS),
        "good_card_reading": read.choice("good_card_reading", GOOD_READINGS),
        "childrens_assist": read.flag("childrens_assist"),
        "outer_start_spaces_used_with_players": sorted(int(n) for n in outer),
    }




def options_schema(defaults: Mapping[str, Any]) -> list[dict[str, Any]]:
    """What the host console offers when starting the game; the last game's choices come first."""
    start = {**DEFAULTS, **defaults}

    def option(key: str, en: str, fr: str, values: list[tuple[Any, str, str]], **extra: Any) -> dict[str, Any]:
        return schema_option(start, key, en, fr, values, **extra)

    unverified = UNVERIFIED_NOTE

    def entry(key: str, en: str, fr: str, item: str, **extra: Any) -> dict[str, Any]:
        """A list the owner types in from their box (kind "list": comma-separated numbers or names)."""
        return {"key": key, "kind": "list", "item": item, "label": {"en": en, "fr": fr}, "default": start[key],
                "length": len(DEFAULTS[key]) if key in ("fate_colours", "elixir_values") else None, **extra}
    return [
        option("tower_mode", "The tomato", "La tomate", [
            ("digital_secret", "the companion hides it (recommended)", "le compagnon la cache (recommandé)"),
            ("physical", "a player hides it in the real towers", "un joueur la cache dans les vraies tours")]),
        entry("red_die", "Red die (faces)", "Dé rouge (faces)", "number", note=unverified),
        entry("black_die", "Black die (faces)", "Dé noir (faces)", "number"),
        entry("fate_colours", "Fate card colours", "Couleurs des cartes destin", "text", note=unverified),
        {"key": "fate_stack", "kind": "fate_stack",
         "label": {"en": "Fate cards of each colour (n = the colour's number)",
                   "fr": "Cartes destin de chaque couleur (n = le numéro de la couleur)"},
         "kinds": list(FATE_KINDS), "default": start["fate_stack"], "note": unverified},
        {"key": "magic_cards", "kind": "counts", "label": {"en": "Magic cards", "fr": "Cartes magiques"},
         "keys": list(MAGIC_KINDS), "default": start["magic_cards"]},
        entry("elixir_values", "Bottles per elixir (three kinds)", "Bouteilles par élixir (trois sortes)", "number",
              note=unverified),
        option("good_card_reading", "Good fate cards", "Cartes destin favorables", [
            ("kinds", "a magic card or bottles: two kinds", "une carte magique ou des bouteilles : deux sortes"),
            ("both", "one card gives both", "une carte donne les deux")]),
        option("flying_vampire_target", "Flying vampire", "Vampire volant", [
            ("same_colour_space", "to a free space of the same colour", "vers une case libre de la même couleur"),
            ("any_space", "to any free space", "vers n'importe quelle case libre")]),
        option("childrens_assist", "Drawn fate cards", "Cartes destin tirées", [
            (False, "remembered by the players (the rules)", "à retenir par les joueurs (la règle)"),
            (True, "listed for everyone (children's help)", "listées pour tous (aide aux enfants)")]),
        option("oubliette_bribe", "Leaving the oubliettes costs", "Sortir des oubliettes coûte",
               [(n, f"{n} bottles", f"{n} bouteilles") for n in (4, 3, 5)]),
        option("unpaid_tax", "A player who cannot pay the castle tax", "Qui ne peut pas payer la taxe du château", [
            ("keep_bottles", "keeps their bottles (oubliettes)", "garde ses bouteilles (oubliettes)"),
            ("pay_all", "pays all they have (oubliettes)", "paie tout ce qu'il a (oubliettes)")]),
        option("outer_start_spaces_used_with_players", "The two outer start spaces are used with",
               "Les deux cases de départ extérieures servent à", [
                   ([5, 6], "5 or 6 players", "5 ou 6 joueurs"),
                   ([4], "4 players (the text)", "4 joueurs (le texte)")]),
    ]
