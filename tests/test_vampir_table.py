"""The table around Vampir: a match of dealt rounds played through the real table (log, store,
views) verifies with `companion verify`, and an export does not once a dealt card, a hunt's cards
or a draw was changed: the verdict names the event. With the real cards the table plays a round
to its scoring from the hunts each phone enters. A seat that names another seat's card is refused
and nothing is logged."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from companion.games.base import HOST, TABLE, Command, seat
from companion.games.registry import GAMES
from companion.games.vampir.rules import GAME_ID
from companion.games.vampir.state import CARDS
from companion.sim.players.vampir import next_move, token
from companion.table.export import export_game
from companion.table.session import Table
from companion.table.verify import verify_export
from tests.test_nuit_table import start_game, state_of
from tests.test_verify import rehashed


def start(table: Table, **options: Any) -> str:
    return start_game(table, GAME_ID, **options)


def play_to_the_end(table: Table, seed: int = 5) -> None:
    """The random players of the property tests (companion/sim/players/vampir.py), through the table."""
    rnd = random.Random(seed)
    for steps in range(1500):
        run = table.run
        assert run is not None
        if run.ended:
            return
        actor, command = next_move(state_of(table), rnd, steps)
        outcome = table.handle(actor, command)
        assert outcome.ok, (actor, command, outcome.rejection)
    pytest.fail("the game did not end")


def finished(table: Table, **options: Any) -> dict[str, Any]:
    game_id = start(table, **{"rounds": 2, **options})
    play_to_the_end(table)
    data = export_game(table.store, game_id, 0)
    assert data is not None
    return data


def events_of(export: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e for e in export["events"] if e["type"] == kind]


def command_of(export: dict[str, Any], event: dict[str, Any]) -> list[int]:
    """The numbers of the events one command told, with this one among them."""
    batch: list[int] = []
    for raw in export["events"][1:]:
        batch.append(raw["seq"])
        if raw.get("command") is not None:
            if event["seq"] in batch:
                return batch
            batch = []
    raise AssertionError(f"event {event['seq']} belongs to no command")


def named(problems: list[str], seqs: list[int]) -> bool:
    return any(f"event {n}:" in problem for problem in problems for n in seqs)


def test_a_dealt_match_verifies(table: Table) -> None:
    export = finished(table)
    types = [e["type"] for e in export["events"]]
    assert types[-2:] == ["game_ended", "seed_revealed"]
    assert {"round_begun", "cards_drawn", "card_discarded", "hunt_laid", "round_ended", "round_scored"} <= set(types)
    assert types.count("round_scored") == 2
    scored = events_of(export, "round_scored")
    assert scored[-1]["data"]["final"] and scored[-1]["data"]["winners"]
    verdict = verify_export(export, GAMES)
    assert verdict.problems == []
    assert verdict.random_events >= 2, "the first deal at the start, the second with the next round"
    view = table.view(TABLE)["game"]["view"]
    assert view["phase"] == "over" and view["winners"] == scored[-1]["data"]["winners"]


@pytest.mark.parametrize("forger_rehashes", [False, True], ids=["edited", "edited-and-rehashed"])
def test_a_dealt_card_changed_fails_and_names_the_deal(table: Table, forger_rehashes: bool) -> None:
    export = finished(table)
    forged = copy.deepcopy(export)
    deal = events_of(forged, "round_begun")[0]
    assert deal["data"]["round"] == 2
    hands, pile = deal["data"]["hands"], deal["data"]["draw_pile"]
    hands["1"][0], pile[-1] = pile[-1], hands["1"][0]  # seat 1 is dealt the draw pile's last card
    if forger_rehashes:
        rehashed(forged)
    verdict = verify_export(forged, GAMES)
    assert named(verdict.problems, command_of(forged, deal)), verdict.problems


def test_the_first_deal_changed_fails_on_its_draw(table: Table) -> None:
    export = finished(table)
    started = export["events"][0]
    draw = next(d for d in started["draws"] if d["purpose"] == "round 1: shuffle #50")
    draw["value"] = (draw["value"] + 1) % draw["bound"]
    verdict = verify_export(rehashed(export), GAMES)
    assert any("event 1: draw 'round 1: shuffle #50'" in problem for problem in verdict.problems), verdict.problems


@pytest.mark.parametrize("forger_rehashes", [False, True], ids=["edited", "edited-and-rehashed"])
def test_a_hunt_with_edited_cards_fails_and_names_its_command(table: Table, forger_rehashes: bool) -> None:
    export = finished(table)
    forged = copy.deepcopy(export)
    hunt = next(e for e in events_of(forged, "hunt_laid") if e["data"]["cards"])
    card = hunt["data"]["cards"][0]
    # A better card of the same kind: a two-head card of the colour, or another joker.
    better = next(c.number for c in CARDS if c.colour == CARDS[card].colour and c.number != card
                  and c.heads >= CARDS[card].heads)
    hunt["data"]["cards"][0] = better
    if forger_rehashes:
        rehashed(forged)
    verdict = verify_export(forged, GAMES)
    assert named(verdict.problems, command_of(forged, hunt)), verdict.problems
    if forger_rehashes:
        assert any("differently from the log" in p or "cannot decide" in p for p in verdict.problems)


@pytest.mark.parametrize("forger_rehashes", [False, True], ids=["edited", "edited-and-rehashed"])
def test_a_draw_edited_fails_and_names_its_command(table: Table, forger_rehashes: bool) -> None:
    export = finished(table)
    forged = copy.deepcopy(export)
    drawn = events_of(forged, "cards_drawn")[3]
    drawn["data"]["cards"][0] = next(c.number for c in CARDS if c.joker)  # a joker drawn instead
    if forger_rehashes:
        rehashed(forged)
    verdict = verify_export(forged, GAMES)
    assert named(verdict.problems, command_of(forged, drawn)), verdict.problems


def test_the_real_cards_play_a_round_to_its_scoring(table: Table) -> None:
    game_id = start(table, cards="physical", rounds=1, first_player="host")
    assert state_of(table).phase == "starter"
    assert not table.handle(seat(1), Command("choose_starter", {"seat": 2})).ok, "the host chooses"
    assert table.handle(HOST, Command("choose_starter", {"seat": 2})).ok
    assert table.handle(seat(3), Command("round_over")).ok
    assert state_of(table).phase == "entering"
    entries = {1: [{"colour": "red", "one": 3, "two": 1, "jokers": 0}, {"colour": "grey", "one": 2, "two": 0,
                                                                           "jokers": 1}],
               2: [{"colour": "red", "one": 2, "two": 0, "jokers": 1}],
               3: [{"colour": "red", "one": 1, "two": 2, "jokers": 0}, {"colour": "green", "one": 3, "two": 0,
                                                                           "jokers": 0}]}
    refused = table.handle(seat(1), Command("enter_hunts", {"hunts": [{"colour": "red", "one": 0, "two": 0,
                                                                      "jokers": 3}]}))
    assert not refused.ok and refused.rejection is not None and refused.rejection.code == "hunt_only_jokers"
    assert table.handle(seat(1), Command("enter_hunts", {"hunts": entries[1]})).ok
    assert table.handle(HOST, Command("enter_hunts", {"seat": 2, "hunts": entries[2]})).ok
    assert state_of(table).phase == "entering"
    assert table.handle(seat(3), Command("enter_hunts", {"hunts": entries[3]})).ok
    state = state_of(table)
    assert state.phase == "over"
    # Red: 5, 3 and 5 heads, seat 2 the lowest discards it; grey and green: someone has none, all keep.
    assert state.scores[0]["points"] == {"1": 5 + 3, "2": 0, "3": 5 + 3}
    assert list(state.winners) == [1, 3]
    export = export_game(table.store, game_id, 0)
    assert export is not None
    assert [e["type"] for e in export["events"]][-3:] == ["round_scored", "game_ended", "seed_revealed"]
    assert verify_export(export, GAMES).problems == []


def test_random_real_card_rounds_play_through_the_table(table: Table) -> None:
    game_id = start(table, cards="physical", rounds=3, first_player="loser")
    play_to_the_end(table, seed=11)
    export = export_game(table.store, game_id, 0)
    assert export is not None
    assert len(events_of(export, "round_scored")) == 3
    assert verify_export(export, GAMES).problems == []


def test_a_seat_naming_another_seats_card_is_refused_and_logs_nothing(table: Table) -> None:
    game_id = start(table)
    state = state_of(table)
    me = state.current
    assert me is not None
    other = next(p for p in state.players if p.seat != me)
    stolen = token(state, other.hand[0])
    position, logged = table.position, len(table.store.read(game_id))
    mine = seat(me)
    colour = CARDS[other.hand[0]].colour or "red"
    for command in (Command("take", {"location": colour, "cards": [stolen], "replace": True}),
                    Command("take", {"location": colour, "cards": [*(token(state, c) for c in
                                                                     state.player(me).hand), stolen]})):
        outcome = table.handle(mine, command)
        assert not outcome.ok and outcome.rejection is not None and outcome.rejection.code == "not_in_hand"
    assert (table.position, len(table.store.read(game_id))) == (position, logged)
    assert state_of(table) == state
    assert table.handle(mine, Command("draw")).ok
    state = state_of(table)
    position, logged = table.position, len(table.store.read(game_id))
    for command in (Command("discard", {"card": stolen, "location": colour}),
                    Command("hunt", {"cards": [stolen, *(token(state, c) for c in state.player(me).hand)][:3]}),
                    Command("discard", {"card": token(state, state.draw_pile[0])})):
        outcome = table.handle(mine, command)
        assert not outcome.ok and outcome.rejection is not None and outcome.rejection.code == "not_in_hand"
    assert (table.position, len(table.store.read(game_id))) == (position, logged)
    assert state_of(table) == state
    mine_view = table.view(mine)["game"]
    assert stolen not in str(mine_view), "the refusal shows nothing either"
