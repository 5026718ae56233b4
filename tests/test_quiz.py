"""The buzzer quiz end to end in the table: arm, presses from sources, the referee's decision."""

from __future__ import annotations

import pytest

from companion.buzzers.rounds import RoundKeeper
from companion.buzzers.sources import SimulatedSource
from companion.games.base import HOST, TABLE, Command
from companion.games.registry import GAMES
from companion.store import EventStore
from companion.table.session import Table, TableSettings
from tests.conftest import Later, ManualClock


@pytest.fixture
def table(store: EventStore, clock: ManualClock, seeds, settings: TableSettings) -> Table:
    return Table.open(store, GAMES, clock, seeds, settings)


@pytest.fixture
def quiz(table, clock: ManualClock, later: Later):
    keeper = RoundKeeper(table, clock, later)
    source = SimulatedSource(clock)
    source.start(lambda press: keeper.on_press(press, int(press.button.split(":")[1])))
    assert table.handle(HOST, Command("start_game", {"game": "buzzer-quiz"})).ok
    return table, keeper, source, later


def last_result(table) -> dict:
    return table.view(TABLE)["game"]["view"]["results"][0]


def race_won(quiz, clock: ManualClock, number: int, after_us: int) -> None:
    """The host arms a race, seat `number` presses `after_us` later, and the referee decides."""
    table, _keeper, source, later = quiz
    table.handle(HOST, Command("arm", {"mode": "race"}))
    clock.advance(after_us)
    source.press(number)
    clock.advance(3_000)
    later.run()


def test_a_race_is_won_by_the_first_press_with_gaps_in_the_log(quiz, clock: ManualClock, store: EventStore) -> None:
    table, _keeper, source, later = quiz
    table.handle(HOST, Command("arm", {"mode": "race"}))
    clock.advance(250_000)
    source.press(3)
    clock.advance(40_000)
    source.press(1)
    clock.advance(1_000)
    later.run()
    assert table.view(TABLE)["game"]["view"]["armed"] is None, "settled once the grace period passed"
    result = last_result(table)
    assert result["winner"] == "seat:3"
    order = result["decision"]["order"]
    assert [(r["who"], r["after_arm_us"], r["gap_us"]) for r in order] == [("seat:3", 250_000, 0),
                                                                          ("seat:1", 290_000, 40_000)]
    settled = store.read(table.run.game_id)[-1]
    assert settled.type == "round_settled" and settled.actor == "system"
    board = table.view(TABLE)["game"]["view"]["board"]
    assert board["seat:3"]["best_us"] == 250_000


def test_a_tie_is_settled_by_a_verifiable_draw_not_by_seat_order(quiz, clock: ManualClock) -> None:
    table, _keeper, source, later = quiz
    table.handle(HOST, Command("arm", {"mode": "race"}))
    clock.advance(100_000)
    source.press(2)
    source.press(5)  # the same microsecond: simulated presses are exact, so this is a true tie
    clock.advance(3_000)
    later.run()
    result = last_result(table)
    assert result["decision"]["outcome"] == "tie"
    assert result["drawn_from"] == ["seat:2", "seat:5"]
    assert result["winner"] in ("seat:2", "seat:5")
    assert table.store.read(table.run.game_id)[-1].draws, "the draw is recorded for the verifier"


def test_false_starts_are_caught_even_before_the_round_opens(quiz, clock: ManualClock) -> None:
    table, _keeper, source, later = quiz
    source.press(4)
    clock.advance(30_000)
    table.handle(HOST, Command("arm", {"mode": "race"}))
    clock.advance(5_000_001)
    later.run()
    result = last_result(table)
    assert result["decision"]["outcome"] == "no_reaction"
    assert [(f["who"], f["early_us"]) for f in result["decision"]["false_starts"]] == [("seat:4", 30_000)]


def test_a_hands_off_round_reports_every_fault_at_the_end_of_the_window(quiz, clock: ManualClock) -> None:
    table, _keeper, source, later = quiz
    table.handle(HOST, Command("arm", {"mode": "hands_off"}))
    clock.advance(1_200_000)
    source.press(6)
    later.run()
    assert table.view(TABLE)["game"]["view"]["armed"] is not None, "the window is still open"
    clock.advance(4_000_000)
    later.run()
    result = last_result(table)
    assert result["decision"]["outcome"] == "faults"
    assert result["decision"]["order"][0]["who"] == "seat:6"


def test_only_the_system_settles_and_only_the_host_arms(quiz) -> None:
    table, *_ = quiz
    fake = {"round": 1, "decision": {"outcome": "winner", "winner": "seat:1", "order": []}}
    table.handle(HOST, Command("arm", {"mode": "race"}))
    assert table.handle(HOST, Command("settle", fake)).rejection.code == "not_authorized"
    from companion.games.base import seat

    assert table.handle(seat(1), Command("arm", {})).rejection.code == "host_only"
    assert table.handle(HOST, Command("arm", {})).rejection.code == "round_in_progress"


def test_a_late_answer_to_one_round_is_not_a_false_start_of_the_next(quiz, clock: ManualClock) -> None:
    table, _keeper, source, later = quiz
    race_won(quiz, clock, 1, after_us=200_000)
    assert last_result(table)["winner"] == "seat:1"
    clock.advance(100_000)
    source.press(2)  # too late for round 1: it was decided already
    clock.advance(1_500_000)
    source.press(3)  # well after round 1, just before round 2: this one is jumping the gun
    clock.advance(200_000)
    table.handle(HOST, Command("arm", {"mode": "race"}))
    clock.advance(5_000_001)
    later.run()
    result = last_result(table)
    assert [f["who"] for f in result["decision"]["false_starts"]] == ["seat:3"]


def test_every_press_of_a_race_is_listed_with_its_time_even_after_the_decision(quiz, clock: ManualClock,
                                                                              store: EventStore) -> None:
    """Seat 3 wins at +250 ms; seat 1 presses at +400 ms and seat 2 at +1.2 s, both after the
    decision but inside the 5 s window: the round lists them with their times after the signal and
    behind the winner, and their reaction times join the board. A second press of seat 1 and a press
    after the window are not listed."""
    table, _keeper, source, _later = quiz
    race_won(quiz, clock, 3, after_us=250_000)
    assert last_result(table)["winner"] == "seat:3"
    clock.advance(147_000)
    source.press(1)
    clock.advance(800_000)
    source.press(2)
    clock.advance(100_000)
    source.press(1)
    clock.advance(4_000_000)
    source.press(4)  # the window (5 s) is over
    result = last_result(table)
    assert [(r["who"], r["after_arm_us"], r["gap_us"]) for r in result["late"]] == [
        ("seat:1", 400_000, 150_000), ("seat:2", 1_200_000, 950_000)]
    assert [r["who"] for r in result["decision"]["order"]] == ["seat:3"], "the decision is the referee's"
    board = table.view(TABLE)["game"]["view"]["board"]
    assert board["seat:1"]["best_us"] == 400_000 and board["seat:2"]["best_us"] == 1_200_000
    late = [e for e in store.read(table.run.game_id) if e.type == "round_late_press"]
    assert [e.actor for e in late] == ["system", "system"], "kept in the log, by the system"


def test_a_late_press_is_not_listed_once_the_next_round_is_armed(quiz, clock: ManualClock) -> None:
    table, _keeper, source, later = quiz
    race_won(quiz, clock, 3, after_us=250_000)
    table.handle(HOST, Command("arm", {"mode": "race"}))
    clock.advance(100_000)
    source.press(1)  # an answer to round 2, not a late press of round 1
    clock.advance(3_000)
    later.run()
    assert table.view(TABLE)["game"]["view"]["results"][1]["late"] == []
    assert last_result(table)["winner"] == "seat:1"


def test_only_the_system_lists_a_late_press(quiz, clock: ManualClock) -> None:
    table, _keeper, _source, _later = quiz
    race_won(quiz, clock, 3, after_us=250_000)
    press = {"who": "seat:1", "t_us": 0, "uncertainty_us": 0, "source": "x", "after_arm_us": 1, "gap_us": 1}
    assert table.handle(HOST, Command("late_press", {"round": 1, "press": press})).rejection.code == "not_authorized"
