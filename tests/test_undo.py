"""Undo: only the last action, never across a random outcome, a reveal, or another player's action."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from companion.games.base import EVERYONE, HOST, TABLE, Args, Command, Move, Story, Viewer, seat
from companion.games.dice_tray import DICE_TRAY
from companion.games.registry import GAMES
from companion.store import EventStore
from companion.table.session import Table, TableSettings


def tray_of(table: Table) -> list[str]:
    return table.view(TABLE)["game"]["view"]["tray"]


@pytest.fixture
def started(table: Table) -> Table:
    assert table.handle(HOST, Command("start_game", {"game": "dice-tray", "options": {"tray": []}})).ok
    return table


def code(outcome) -> str | None:
    return outcome.rejection.code if outcome.rejection else None


def test_the_host_undoes_the_last_action_and_the_undo_is_in_the_log(started: Table, store: EventStore) -> None:
    started.handle(seat(1), Command("set_tray", {"dice": ["d6"]}))
    started.handle(seat(1), Command("set_tray", {"dice": ["d6", "d8"]}))
    assert started.handle(HOST, Command("undo")).ok
    assert tray_of(started) == ["d6"]
    last = store.read(started.run.game_id)[-1]  # type: ignore[union-attr]
    assert (last.type, last.actor, last.data["seq"]) == ("undone", "host", 3)


def test_a_random_outcome_is_a_wall(started: Table) -> None:
    started.handle(TABLE, Command("set_tray", {"dice": ["d6"]}))
    started.handle(TABLE, Command("roll"))
    assert code(started.handle(HOST, Command("undo"))) == "undo_random"
    started.handle(TABLE, Command("set_tray", {"dice": ["d4"]}))
    assert started.handle(HOST, Command("undo")).ok
    assert tray_of(started) == ["d6"]
    assert code(started.handle(HOST, Command("undo"))) == "undo_random", "the roll before it stays a wall"


def test_a_player_undoes_only_their_own_last_action(started: Table) -> None:
    started.handle(seat(1), Command("set_tray", {"dice": ["d6"]}))
    assert code(started.handle(seat(2), Command("undo"))) == "undo_other_player"
    assert code(started.handle(TABLE, Command("undo"))) == "host_only"
    assert started.handle(seat(1), Command("undo")).ok
    assert tray_of(started) == []


def test_consecutive_undos_never_cross_into_another_players_action(started: Table) -> None:
    started.handle(seat(2), Command("set_tray", {"dice": ["d4"]}))
    started.handle(seat(1), Command("set_tray", {"dice": ["d6"]}))
    started.handle(seat(1), Command("set_tray", {"dice": ["d6", "d6"]}))
    assert started.handle(HOST, Command("undo")).ok
    assert started.handle(HOST, Command("undo")).ok
    assert tray_of(started) == ["d4"]
    assert code(started.handle(HOST, Command("undo"))) == "undo_other_player"
    started.handle(seat(3), Command("set_tray", {"dice": ["d8"]}))
    assert started.handle(HOST, Command("undo")).ok, "a new action starts a new run of undos"


def test_nothing_to_undo_at_the_start_and_nothing_after_the_end(started: Table) -> None:
    assert code(started.handle(HOST, Command("undo"))) == "nothing_to_undo"
    started.handle(seat(1), Command("set_tray", {"dice": ["d6"]}))
    started.handle(HOST, Command("end_game"))
    assert code(started.handle(HOST, Command("undo"))) == "game_over"


@pytest.mark.parametrize(("policy", "host_ok", "seat_ok"), [("off", False, False), ("host", True, False),
                                                              ("host_and_own", True, True)])
def test_the_table_policy_decides_who_may_undo(store, clock, seeds, settings, policy, host_ok, seat_ok) -> None:
    table = Table.open(store, GAMES, clock, seeds, replace(settings, undo_policy=policy))
    table.handle(HOST, Command("start_game", {"game": "dice-tray"}))
    table.handle(seat(1), Command("set_tray", {"dice": ["d6"]}))
    assert table.handle(seat(1), Command("undo")).ok is seat_ok
    if not seat_ok:
        assert table.handle(HOST, Command("undo")).ok is host_ok


def test_undo_state_survives_a_restart(started: Table, store, clock, seeds, settings) -> None:
    started.handle(seat(1), Command("set_tray", {"dice": ["d6"]}))
    started.handle(seat(1), Command("set_tray", {"dice": ["d8"]}))
    started.handle(HOST, Command("undo"))
    again = Table.open(store, GAMES, clock, seeds, settings)
    assert tray_of(again) == ["d6"]
    assert again.view(HOST)["game"]["undo"] == {"allowed": True, "reason": None}
    assert again.handle(HOST, Command("undo")).ok
    assert tray_of(again) == []


def test_a_reveal_is_a_wall(store, clock, seeds, config) -> None:
    def reveal(story: Story[Any], actor: Viewer, args: Args) -> None:
        story.tell("tray_set", {"dice": ["d6"]}, reveals=True)

    revealing = replace(DICE_TRAY, id="revealing", moves={**DICE_TRAY.moves, "roll": Move(reveal, by=EVERYONE)})
    settings = TableSettings(2, "host", {"revealing": {"catalogue": config.catalogue.to_json(), "tray": "d6"}})
    table = Table.open(store, {"revealing": revealing}, clock, seeds, settings)
    table.handle(HOST, Command("start_game", {"game": "revealing"}))
    table.handle(TABLE, Command("roll"))
    assert code(table.handle(HOST, Command("undo"))) == "undo_reveal"


def test_undo_reaches_back_a_hundred_actions_and_no_further(started: Table, store: EventStore) -> None:
    """A game with no random outcome or reveal (the buzzer quiz) would otherwise keep a state for
    every action it ever saw; the hundredth undo still works, the next says why it cannot."""
    from companion.table.gamerun import UNDO_DEPTH

    trays = [["d4"] * (1 + n % 5) + (["d6"] if n % 2 else []) for n in range(UNDO_DEPTH + 20)]
    for tray in trays:
        assert started.handle(HOST, Command("set_tray", {"dice": tray})).ok
    assert len(started.run.undo_stack) == UNDO_DEPTH  # type: ignore[union-attr]
    for n in range(UNDO_DEPTH):
        assert started.handle(HOST, Command("undo")).ok, n
    assert tray_of(started) == trays[len(trays) - UNDO_DEPTH - 1]
    assert code(started.handle(HOST, Command("undo"))) == "undo_too_far"
    reopened = Table.open(store, GAMES, started.clock, started.seeds, started.settings)
    assert tray_of(reopened) == tray_of(started), "the log replays to the same state"
    assert code(reopened.handle(HOST, Command("undo"))) == "undo_too_far"


def test_a_command_of_several_events_is_taken_back_whole(store, clock, seeds, config) -> None:
    """A move that tells two events (a card played, then the turn passed) is one act: the undo
    restores the state before both, and says which move it took back and whose it was."""
    def set_twice(story: Story[Any], actor: Viewer, args: Args) -> None:
        story.tell("tray_set", {"dice": ["d4"]})
        story.tell("tray_set", {"dice": list(args["dice"])})

    twice = replace(DICE_TRAY, id="twice", moves={**DICE_TRAY.moves, "set_tray": replace(
        DICE_TRAY.moves["set_tray"], tell=set_twice)})
    settings = TableSettings(2, "host_and_own", {"twice": {"catalogue": config.catalogue.to_json(), "tray": "d6"}})
    table = Table.open(store, {"twice": twice}, clock, seeds, settings)
    table.handle(HOST, Command("start_game", {"game": "twice"}))
    before = tray_of(table)
    assert table.handle(seat(2), Command("set_tray", {"dice": ["d8"]})).ok
    assert tray_of(table) == ["d8"]
    assert table.handle(seat(2), Command("undo")).ok
    assert tray_of(table) == before, "neither event of the move is left standing"
    assert table.view(seat(1))["game"]["undone"] == {"by": "seat:2", "actor": "seat:2", "command": "set_tray"}
    last = store.read(table.run.game_id)[-1]  # type: ignore[union-attr]
    assert (last.type, last.data["first"], last.data["seq"]) == ("undone", 2, 3)
    assert code(table.handle(seat(2), Command("undo"))) == "nothing_to_undo"
    reopened = Table.open(store, {"twice": twice}, clock, seeds, settings)
    assert tray_of(reopened) == before and "undone" in reopened.view(TABLE)["game"]
    assert table.handle(seat(1), Command("set_tray", {"dice": ["d6"]})).ok
    assert "undone" not in table.view(TABLE)["game"], "the notice lasts until the next move"


def test_every_move_of_every_game_has_a_name_to_say_when_it_is_undone() -> None:
    from companion.i18n import catalogue

    for lang in ("en", "fr"):
        ui = catalogue(lang)["ui"]
        missing = [f"move_{g.id}_{name}" for g in GAMES.values() for name in g.moves
                   if f"move_{g.id}_{name}" not in ui]
        assert missing == [], f"{lang}: no words for {missing}"
