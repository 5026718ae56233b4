"""The garlic game's table options, and the facts no source gave (dice faces, the deck's make-up).

Those facts are defaults a table can change (`../rules/defaults.json` marks them UNVERIFIED): the
host console says so next to them, and the owner can count their real deck once; the counts are
then kept as the table's defaults for every later game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.base import OptionsError
from companion.games.options import UNVERIFIED_NOTE, OptionReader, schema_option

COLOURS = ("yellow", "violet")
SYMBOLS = ("bat", "moon", "skull")
COMBINATIONS = tuple(f"{colour}-{symbol}" for colour in COLOURS for symbol in SYMBOLS)
EFFECT = "!"
BOTH = "both"
"""A yellow-and-violet face: one review mentions it, unconfirmed; either colour then matches."""
COLOUR_FACES = (*COLOURS, EFFECT, BOTH)

DEFAULT_COLOUR_DIE = ("yellow", "yellow", "violet", "violet", EFFECT, EFFECT)
DEFAULT_SYMBOL_DIE = ("bat", "bat", "moon", "moon", "skull", "skull")
DEFAULT_DECK = {**{combination: 7 for combination in COMBINATIONS}, "violet-skull": 8}
"""7 per combination and one extra card (43 in all): a guess until the owner counts the box."""

MODES = ("deck", "physical")
TIE_POLICIES = ("reroll", "draw")
FALSE_STARTS = ("warning", "penalty")
PENALTY_CHOICES = ("offender", "random")
DIRECTIONS = ("counter-clockwise", "clockwise")
JUDGES = ("host", "majority")
MAX_PLAYERS = 6
MAX_DECK = 99

DEFAULTS: dict[str, Any] = {
    "mode": "deck",
    "colour_die": list(DEFAULT_COLOUR_DIE),
    "symbol_die": list(DEFAULT_SYMBOL_DIE),
    "deck": dict(DEFAULT_DECK),
    "deck_counted": False,
    "display_size": 4,
    "coffins_to_win": 4,
    "no_slap_timeout_s": 5.0,
    "skull_window_s": 5.0,
    "tie_epsilon_ms": 10.0,
    "tie_policy": "reroll",
    "false_start": "warning",
    "only_first_slap_judged": True,
    "penalty_card_choice": "offender",
    "penalty_choice_timeout_s": 10.0,
    "claim_timeout_s": 30.0,
    "wrong_own_facedown_extra_penalty": False,
    "moon_must_swap_after_looking": True,
    "dice_pass_direction": "counter-clockwise",
    "confirm_by": "host",
    "grace_ms": 2.0,
}
UNVERIFIED = ("colour_die", "symbol_die", "deck")
"""Options whose default is a placeholder for a fact no source gave."""








def _die(options: Mapping[str, Any], key: str, faces: tuple[str, ...]) -> list[str]:
    value = options.get(key, DEFAULTS[key])
    if not isinstance(value, list | tuple) or not 2 <= len(value) <= 12 or any(f not in faces for f in value):
        raise OptionsError(key, f"2 to 12 faces, each one of {', '.join(faces)}")
    return list(value)


def _deck(options: Mapping[str, Any], display_size: int) -> dict[str, int]:
    value = options.get("deck", DEFAULTS["deck"])
    if not isinstance(value, Mapping) or set(value) != set(COMBINATIONS):
        raise OptionsError("deck", f"a count for each of {', '.join(COMBINATIONS)}")
    counts = {}
    for combination in COMBINATIONS:
        count = value[combination]
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= 40:
            raise OptionsError(f"deck.{combination}", "a whole number of cards from 0 to 40")
        counts[combination] = count
    total = sum(counts.values())
    if not display_size * MAX_PLAYERS <= total <= MAX_DECK:
        raise OptionsError("deck", f"{display_size * MAX_PLAYERS} to {MAX_DECK} cards in all (it has {total})")
    return counts


def normalize_options(options: Mapping[str, Any]) -> dict[str, Any]:
    read = OptionReader(options, DEFAULTS)
    colour_die = _die(options, "colour_die", COLOUR_FACES)
    if not any(face != EFFECT for face in colour_die):
        raise OptionsError("colour_die", "at least one colour face")
    display_size = read.number("display_size", 2, 6, whole=True)
    deck = _deck(options, display_size)
    goal = read.number("coffins_to_win", 1, 10, whole=True)
    if sum(deck.values()) < MAX_PLAYERS * (goal - 1) + 1:
        # Six players each one coffin short of the goal must leave a card to win with.
        most = (sum(deck.values()) - 1) // MAX_PLAYERS + 1
        raise OptionsError("coffins_to_win", f"at most {most} with a deck of {sum(deck.values())} cards")
    return {
        "mode": read.choice("mode", MODES),
        "colour_die": colour_die,
        "symbol_die": _die(options, "symbol_die", SYMBOLS),
        "deck": deck,
        "deck_counted": read.flag("deck_counted"),
        "display_size": display_size,
        "coffins_to_win": goal,
        "no_slap_timeout_s": read.number("no_slap_timeout_s", 3, 15),
        "skull_window_s": read.number("skull_window_s", 3, 15),
        "tie_epsilon_ms": read.number("tie_epsilon_ms", 0, 100),
        "tie_policy": read.choice("tie_policy", TIE_POLICIES),
        "false_start": read.choice("false_start", FALSE_STARTS),
        "only_first_slap_judged": read.flag("only_first_slap_judged"),
        "penalty_card_choice": read.choice("penalty_card_choice", PENALTY_CHOICES),
        "penalty_choice_timeout_s": read.number("penalty_choice_timeout_s", 3, 120),
        "claim_timeout_s": read.number("claim_timeout_s", 5, 300),
        "wrong_own_facedown_extra_penalty": read.flag("wrong_own_facedown_extra_penalty"),
        "moon_must_swap_after_looking": read.flag("moon_must_swap_after_looking"),
        "dice_pass_direction": read.choice("dice_pass_direction", DIRECTIONS),
        "confirm_by": read.choice("confirm_by", JUDGES),
        "grace_ms": read.number("grace_ms", 0, 1000),
    }




def options_schema(defaults: Mapping[str, Any]) -> list[dict[str, Any]]:
    """What the host console offers when starting the game; the last game's choices come first."""
    start = {**DEFAULTS, **defaults}

    def option(key: str, en: str, fr: str, values: list[tuple[Any, str, str]], **extra: Any) -> dict[str, Any]:
        return schema_option(start, key, en, fr, values, **extra)

    colour_faces = [
        (list(DEFAULT_COLOUR_DIE), "yellow ×2, violet ×2, ! ×2", "jaune ×2, violet ×2, ! ×2"),
        (["yellow", "yellow", "violet", "violet", EFFECT, BOTH],
         "yellow ×2, violet ×2, ! ×1, yellow-and-violet ×1", "jaune ×2, violet ×2, ! ×1, jaune-et-violet ×1"),
    ]
    unverified = UNVERIFIED_NOTE
    return [
        option("mode", "The cards", "Les cartes", [
            ("deck", "the companion deals them (recommended)", "le compagnon les distribue (recommandé)"),
            ("physical", "real cards on the table", "les vraies cartes sur la table")]),
        {"key": "deck", "kind": "counts",
         "label": {"en": "Cards per colour and symbol", "fr": "Cartes par couleur et symbole"},
         "keys": list(COMBINATIONS), "default": start["deck"], "counted": bool(start.get("deck_counted")),
         "note": unverified},
        option("colour_die", "Colour die", "Dé couleur", colour_faces, note=unverified),
        option("symbol_die", "Symbol die", "Dé symbole",
               [(list(DEFAULT_SYMBOL_DIE), "bat ×2, moon ×2, skull ×2", "chauve-souris ×2, lune ×2, crâne ×2")],
               note=unverified),
        option("coffins_to_win", "Coffins to clear to win", "Cercueils à chasser pour gagner",
               [(n, str(n), str(n)) for n in (4, 3, 2, 1)]),
        option("no_slap_timeout_s", "Nobody slaps: the dice pass after", "Personne ne tape : les dés passent après",
               [(s, f"{s:g} s", f"{s:g} s") for s in (5.0, 3.0, 8.0, 12.0)]),
        option("skull_window_s", "Skull (hands off!) lasts", "Crâne (bas les pattes !) dure",
               [(s, f"{s:g} s", f"{s:g} s") for s in (5.0, 3.0, 8.0, 12.0)]),
        option("tie_policy", "Two slaps too close to call", "Deux tapes trop proches", [
            ("reroll", "the same player rolls again", "le même joueur relance"),
            ("draw", "draw the first slapper (verifiable)", "tirer au sort le premier (vérifiable)")]),
        option("tie_epsilon_ms", "Too close to call: within", "Trop proches : à moins de",
               [(v, f"{v:g} ms", f"{v:g} ms") for v in (10.0, 0.0, 5.0, 20.0, 50.0)],
               note={"en": "0: only the buttons' own precision decides.",
                     "fr": "0 : seule la précision des boutons décide."}),
        option("false_start", "A slap before the dice show", "Une tape avant que les dés s'affichent", [
            ("warning", "is shown, no penalty (the rules)", "est affichée, sans sanction (la règle)"),
            ("penalty", "is penalised", "est sanctionnée")]),
        option("penalty_card_choice", "Which coffin a penalty turns up", "Quel cercueil une sanction retourne", [
            ("offender", "the offender chooses", "le fautif choisit"),
            ("random", "drawn at random", "tiré au sort")]),
        option("wrong_own_facedown_extra_penalty", "A wrong guess at one's own coffin",
               "Une erreur sur son propre cercueil", [
                   (False, "only turns it face up (the rules)", "le remet seulement face visible (la règle)"),
                   (True, "also costs a penalty", "coûte aussi une sanction")]),
        option("only_first_slap_judged", "After a wrong claim", "Après une annonce fausse", [
            (True, "the round ends (only the first slap counts)", "la manche s'arrête (seule la première tape compte)"),
            (False, "the next slapper may claim", "le suivant peut annoncer")]),
        option("moon_must_swap_after_looking", "Moon: after looking at two cards", "Lune : après avoir regardé",
               [(True, "they must be swapped", "il faut les permuter"),
                (False, "swapping is optional", "permuter est facultatif")]),
        option("dice_pass_direction", "The dice pass", "Les dés passent", [
            ("counter-clockwise", "counter-clockwise (the rules)", "dans le sens inverse des aiguilles (la règle)"),
            ("clockwise", "clockwise", "dans le sens des aiguilles")]),
        option("confirm_by", "Real cards: a claim is judged by", "Vraies cartes : une annonce est jugée par", [
            ("host", "the host", "l'hôte"),
            ("majority", "the other players' phones (majority)", "les téléphones des autres (majorité)")]),
    ]
