"""The table around la nuit des vampires: a game played to the tomato through the real table (log,
store, views) verifies with `companion verify`, and an export whose tomato was moved does not,
whether the forger changed the hiding draw, the tower opened or what a tower held. When the host
ends a game early, every screen shows the placement and the salt that opens the seal."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from companion.fairness.sealed import SealedFact, opens
from companion.games.base import HOST, TABLE, Command, seat
from companion.games.nuit.rules import GAME_ID, SEAL_NAME
from companion.games.nuit.turn import waiting_for
from companion.games.registry import GAMES
from companion.table.export import export_game
from companion.table.session import Table
from companion.table.verify import verify_export
from tests.test_verify import rehashed

PLAYERS = ("Ada", "Ben", "Cyd")


def start_game(table: Table, game: str, **options: Any) -> str:
    """PLAYERS take seats 1 to 3 and the host starts `game`; its id."""
    for number, name in enumerate(PLAYERS, start=1):
        assert table.handle(HOST, Command("claim_seat", {"seat": number, "name": name})).ok
    outcome = table.handle(HOST, Command("start_game", {"game": game, "options": options}))
    assert outcome.ok, outcome.rejection
    assert table.run is not None
    return table.run.game_id


def start(table: Table, **options: Any) -> str:
    return start_game(table, GAME_ID, **options)


def state_of(table: Table) -> Any:
    """The running game's state."""
    assert table.run is not None
    return table.run.state


def play_to_the_tomato(table: Table, seed: int = 5) -> None:
    """Players who answer what the turn asks, at random among their allowed actions; from turn 10
    on they head for the castle whenever they stop."""
    rnd = random.Random(seed)
    for _ in range(3000):
        run = table.run
        assert run is not None
        if run.ended:
            return
        state = state_of(table)
        who = seat(rnd.choice(waiting_for(state)))
        game = table.view(who)["game"]
        allowed = [Command(a["name"], a["args"]) for a in game["actions"] if a["allowed"]]
        castle = [c for c in allowed if c.args.get("at") == "courtyard"]
        command = castle[0] if castle and state.turns > 10 else rnd.choice(allowed)
        outcome = table.handle(who, command)
        assert outcome.ok, (command, outcome.rejection)
    pytest.fail("the game did not end")


def finished(table: Table) -> dict[str, Any]:
    game_id = start(table)
    play_to_the_tomato(table)
    data = export_game(table.store, game_id, 0)
    assert data is not None
    return data


def test_a_game_won_at_the_castle_verifies(table: Table) -> None:
    export = finished(table)
    types = [e["type"] for e in export["events"]]
    assert types[-3:] == ["game_won", "game_ended", "seed_revealed"]
    assert {"tower_opened", "fate_drawn", "dice_rolled"} <= set(types)
    verdict = verify_export(export, GAMES)
    assert verdict.problems == []
    assert verdict.random_events > 10


def opened_tomato(export: dict[str, Any]) -> dict[str, Any]:
    return next(e for e in export["events"] if e["type"] == "tower_opened" and e["data"]["content"] == "tomato")


def test_a_tomato_moved_in_the_hiding_draw_fails(table: Table) -> None:
    export = finished(table)
    started = export["events"][0]
    draw = next(d for d in started["draws"] if d["purpose"] == "tomato tower")
    draw["value"] = (draw["value"] + 1) % 5
    verdict = verify_export(rehashed(export), GAMES)
    assert any("tomato tower" in problem for problem in verdict.problems), verdict.problems


@pytest.mark.parametrize("forger_rehashes", [False, True], ids=["edited", "edited-and-rehashed"])
def test_a_tomato_moved_to_another_tower_fails_and_names_the_event(table: Table, forger_rehashes: bool) -> None:
    export = finished(table)
    forged = copy.deepcopy(export)
    event = opened_tomato(forged)
    event["data"]["tower"] = event["data"]["tower"] % 5 + 1
    if forger_rehashes:
        rehashed(forged)
    verdict = verify_export(forged, GAMES)
    assert verdict.problems
    assert any(f"event {event['seq']}" in problem for problem in verdict.problems), verdict.problems


def test_an_onion_turned_into_the_tomato_fails(table: Table) -> None:
    export = finished(table)
    onions = [e for e in export["events"] if e["type"] == "tower_opened" and e["data"]["content"] == "onion"]
    if not onions:
        pytest.fail("the game found the tomato first time: choose a seed whose game opens an onion")
    onions[0]["data"]["content"] = "tomato"
    verdict = verify_export(rehashed(export), GAMES)
    assert any(f"event {onions[0]['seq']}" in problem for problem in verdict.problems), verdict.problems


def test_the_host_ending_the_game_shows_the_placement_and_its_proof(table: Table) -> None:
    start(table)
    assert table.handle(TABLE, Command("roll")).ok
    before = table.view(seat(1))["game"]["view"]
    assert before["seal"]["commitment"] and "salt" not in before["seal"] and "tomato" not in before["seal"]
    assert all("content" not in tower for tower in before["towers"])
    assert table.handle(HOST, Command("end_game")).ok
    for viewer in (TABLE, HOST, seat(2)):
        view = table.view(viewer)["game"]["view"]
        seal = view["seal"]
        contents = [tower["content"] for tower in view["towers"]]
        assert sorted(contents) == ["onion"] * 4 + ["tomato"]
        assert seal["tomato"] == contents.index("tomato") + 1
        assert opens(GAME_ID, SealedFact(SEAL_NAME, seal["commitment"]), str(seal["tomato"]), seal["salt"])
        assert view["phase"] == "over" and view["winner"] is None
    assert table.view(TABLE)["game"]["fairness"]["seed"], "the seed is revealed too: anyone can redraw the hiding"
