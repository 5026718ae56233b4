"""No byte sent to a viewer contains a secret that viewer may not know, for every game."""

from __future__ import annotations

from typing import Any

import pytest

from companion.config import load_config
from companion.games.base import GameDefinition
from companion.games.registry import GAMES
from tests.support.leak import play
from tests.support.secret_cards import LEAKY, SECRET_CARDS


def default_options(game: GameDefinition[Any]) -> dict[str, Any]:
    config = load_config(None)
    return {"dice-tray": {"catalogue": config.catalogue.to_json(), "tray": config.table.tray}}.get(game.id, {})


REACHED = {
    "dice-tray": (500, {"dice_rolled", "tray_set", "undone", "seed_revealed"}),
    "buzzer-quiz": (300, {"round_armed", "round_settled", "round_cancelled", "round_late_press", "seed_revealed"}),
    # Random play with default options accepts 953 of 2400 commands (seed 3): a roll, its round,
    # a claim and its check, penalties; clearing needs a memory random play lacks (see
    # tests/test_garlic_properties.py for complete games).
    "garlic-slap": (450, {"dice_rolled", "round_armed", "round_settled", "slapper_called", "claim_made",
                          "card_checked", "card_turned_down", "card_turned_up", "penalty_paid", "dice_passed",
                          "seed_revealed"}),
    # Random play accepts 850 of 2400 commands (seed 3, 12 games of 200 steps: a game needs many
    # turns to reach a duel, a peek and the castle).
    "nuit-des-vampires": (450, {"start_decided", "move_begun", "magic_played", "magic_stolen", "fate_drawn",
                                "duel_rolled", "duel_won", "tower_peeked", "tower_opened", "onion_taken",
                                "game_won", "seed_revealed"}),
    # Random play accepts 465 of 2400 commands (seed 3): draws, discards, takes and hunts; whole rounds
    # are played in tests/test_vampir_properties.py.
    "vampir": (250, {"cards_drawn", "card_discarded", "hunt_laid", "turn_passed", "seed_revealed"}),
    # Random play accepts 855 of 2400 commands (seed 3, 12 games of 200 steps): the start roll,
    # turns, bites and their ripostes, transfusions, chapel draws, crypt deposits, the glass.
    "chasse-au-vampire": (500, {"start_tied", "master_chosen", "cards_dealt", "turn_rolled", "pawn_moved",
                                "bite_answered", "converted", "transfusion_needed", "blood_offered",
                                "card_drawn", "card_deposited", "glass_turned", "glass_paused", "seed_revealed"}),
    # Random play accepts ~950 of 2400 commands (seed 3, 12 games of 200 steps): the phases, votes,
    # rooms, actions and nights; complete series are played in tests/test_dracula_properties.py.
    "dracula": (800, {"ready", "voted", "sanctuary_chosen", "room_chosen", "rooms_settled", "positions_posted",
                      "action_chosen", "night_resolved", "objects_dealt", "letter_sent", "phase_timed_out",
                      "clock_paused", "seed_revealed"}),
}
SHAPE = {"nuit-des-vampires": (12, 200), "chasse-au-vampire": (12, 200), "dracula": (12, 200)}
"""Games and steps per game where the default (60 games of 40 steps) is too short to reach the end."""


ALL_GAMES = GAMES


@pytest.mark.parametrize("game_id", sorted(ALL_GAMES))
def test_no_game_leaks_a_secret_to_any_viewer(game_id: str) -> None:
    game = ALL_GAMES[game_id]
    games, steps = SHAPE.get(game_id, (60, 40))
    report = play(game, default_options(game), seats=4, games=games, steps=steps, seed=3)
    accepted, events = REACHED[game_id]
    assert report.commands == 2400
    assert report.accepted > accepted, "random play must consist of enough legal commands"
    assert events <= report.event_types, "random play must reach every kind of event"
    assert report.views_checked > 10_000
    assert report.leaks == []


def test_the_harness_passes_a_game_that_keeps_its_secrets() -> None:
    report = play(SECRET_CARDS, {}, seats=4, games=60, steps=10, seed=5)
    assert report.secrets_seen > 1000, "hidden hands exist for most of each game"
    assert report.leaks == []


def test_the_harness_catches_a_game_that_leaks() -> None:
    report = play(LEAKY, {}, seats=4, games=5, steps=10, seed=5)
    assert report.leaks, "a table view showing every hand must be caught"
    assert {leak.viewer for leak in report.leaks} == {"table"}
    assert all(leak.description.endswith("hidden card") for leak in report.leaks)
