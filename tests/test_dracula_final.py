"""Dracula's final phase and scores: D-F2..5, the scoring summary, 6.8 items 15-17, D-6."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.dracula.final import (
    AWARDS,
    choice_problem,
    final_outcome,
    naming_problem,
    podium,
    round_without_humans,
    series_totals,
)

DRACULA = 1
VAMPIRES = frozenset({1, 2, 3})
HUMANS = frozenset({4, 5, 6, 7})
POINTS = {1: 1.0, 2: 0.0, 3: 1.0, 4: 2.0, 5: 1.0, 6: 0.0, 7: 1.0}
"""Dracula bit 2 (+1), 3 bit someone (+1), 2 has nothing; humans found treasures."""


def reasons(final, seat: int) -> list[str]:
    return [a.reason for a in final.awards.get(seat, ())]


# --- D-F2: flee or fight -------------------------------------------------------------------------

def test_a_human_who_flees_gets_half_a_point_and_survives_whatever_happens() -> None:
    for named in (DRACULA, 2):
        final = final_outcome(VAMPIRES, DRACULA, HUMANS, {4: named}, frozenset({5, 6, 7}), POINTS)
        assert final.points[5] == 1.5 and final.points[6] == 0.5
        assert reasons(final, 6) == ["fled"]
        assert not final.dead & {5, 6, 7}


@pytest.mark.parametrize(("seat", "choice", "chosen", "code"), [
    (4, "fight", set(), None),
    (4, "flee", set(), None),
    (4, "fight", {4}, "already_chose"),
    (2, "fight", set(), "not_a_human"),
    (4, "hide", set(), "unknown_choice"),
])
def test_only_humans_choose_once_to_flee_or_fight(seat: int, choice: str, chosen: set[int], code: str | None) -> None:
    assert choice_problem(seat, choice, HUMANS, chosen) == code


# --- D-F3: fighters name a vampire, the named burn ---------------------------------------------------

@pytest.mark.parametrize(("fighter", "named", "already", "code"), [
    (4, 2, set(), None),
    (4, 4, set(), "not_a_vampire"),
    (4, 2, {4}, "already_named"),
    (5, 2, set(), "not_a_fighter"),
])
def test_each_fighter_names_one_vampire_once(fighter: int, named: int, already: set[int], code: str | None) -> None:
    assert naming_problem(fighter, named, {4, 6}, VAMPIRES, already) == code


def test_the_named_vampires_burn_and_only_they() -> None:
    final = final_outcome(VAMPIRES, DRACULA, HUMANS, {4: 2, 6: 2}, frozenset({5, 7}), POINTS)
    assert final.burned == {2}
    assert 3 not in final.dead and DRACULA not in final.dead


# --- D-F4: Dracula burns ---------------------------------------------------------------------------

def test_the_one_who_names_dracula_gets_3_every_other_fighter_1_and_all_vampires_die() -> None:
    final = final_outcome(VAMPIRES, DRACULA, HUMANS, {4: DRACULA, 5: 2, 6: 3}, frozenset({7}), POINTS)
    assert final.dracula_burned and final.burned == {1, 2, 3}
    assert final.dead == VAMPIRES
    assert reasons(final, 4) == ["named_dracula"] and final.points[4] == 5.0
    assert reasons(final, 5) == ["fighter_bonus"] and final.points[5] == 2.0
    assert reasons(final, 6) == ["fighter_bonus"] and final.points[6] == 1.0
    assert final.points[7] == 1.5


def test_several_who_name_dracula_get_2_each() -> None:
    final = final_outcome(VAMPIRES, DRACULA, HUMANS, {4: DRACULA, 5: DRACULA, 6: 3}, frozenset({7}), POINTS)
    assert reasons(final, 4) == reasons(final, 5) == ["shared_dracula"]
    assert (final.points[4], final.points[5]) == (4.0, 3.0)
    assert reasons(final, 6) == ["fighter_bonus"]


def test_when_dracula_burns_every_vampire_loses_the_rounds_points_even_for_bites() -> None:
    final = final_outcome(VAMPIRES, DRACULA, HUMANS, {4: DRACULA}, frozenset({5, 6, 7}), POINTS)
    assert all(final.points[v] == 0 for v in VAMPIRES)
    assert not any(final.awards.get(v) for v in VAMPIRES)


# --- D-F5: Dracula escapes -------------------------------------------------------------------------

def test_when_dracula_escapes_the_named_burn_the_fighters_die_and_lose_their_treasures() -> None:
    final = final_outcome(VAMPIRES, DRACULA, HUMANS, {4: 3, 5: 3}, frozenset({6, 7}), POINTS)
    assert not final.dracula_burned
    assert final.dead == {3, 4, 5}
    assert final.points[3] == final.points[4] == final.points[5] == 0
    assert not final.awards.get(4) and not final.awards.get(5)


def test_when_dracula_escapes_living_vampires_with_no_point_get_1_and_others_keep_theirs() -> None:
    final = final_outcome(VAMPIRES, DRACULA, HUMANS, {4: 3}, frozenset({5, 6, 7}), POINTS)
    assert reasons(final, 2) == ["unbitten_vampire_bonus"] and final.points[2] == 1.0
    assert reasons(final, DRACULA) == [] and final.points[DRACULA] == 1.0


def test_a_burned_vampire_with_no_point_gets_no_bonus() -> None:
    final = final_outcome(VAMPIRES, DRACULA, HUMANS, {4: 2}, frozenset({5, 6, 7}), POINTS)
    assert 2 in final.dead and final.points[2] == 0 and reasons(final, 2) == []


# --- a fighter who named nobody in time (decided reading) ---------------------------------------

def test_a_fighter_who_named_nobody_shares_the_1_when_another_burns_dracula() -> None:
    final = final_outcome(VAMPIRES, DRACULA, HUMANS, {4: DRACULA, 5: None}, frozenset({6, 7}), POINTS)
    assert reasons(final, 5) == ["fighter_bonus"] and 5 not in final.dead


def test_a_fighter_who_named_nobody_dies_when_dracula_escapes() -> None:
    final = final_outcome(VAMPIRES, DRACULA, HUMANS, {4: 3, 5: None}, frozenset({6, 7}), POINTS)
    assert 5 in final.dead and final.points[5] == 0


def test_fighters_who_all_named_nobody_burn_nobody_die_and_give_the_bonus() -> None:
    final = final_outcome(VAMPIRES, DRACULA, HUMANS, {4: None}, frozenset({5, 6, 7}), POINTS)
    assert final.burned == frozenset() and final.dead == {4}
    assert reasons(final, 2) == ["unbitten_vampire_bonus"]


# --- 6.8 item 15: everyone flees -----------------------------------------------------------------

def test_when_everyone_flees_nobody_dies_and_no_vampire_gets_the_bonus() -> None:
    final = final_outcome(VAMPIRES, DRACULA, HUMANS, {}, HUMANS, POINTS)
    assert final.dead == frozenset() and final.burned == frozenset()
    assert final.points[2] == 0 and reasons(final, 2) == []
    assert all(final.points[h] == POINTS[h] + 0.5 for h in HUMANS)


# --- D-6: no human left --------------------------------------------------------------------------

def test_a_round_without_humans_ends_at_dawn_with_every_point_kept() -> None:
    final = round_without_humans({1: 4, 2: 0, 3: 2})
    assert not final.held
    assert final.points == {1: 4, 2: 0, 3: 2}
    assert final.dead == frozenset() and final.awards == {}


def test_a_final_phase_needs_humans() -> None:
    with pytest.raises(ValueError):
        final_outcome(VAMPIRES | HUMANS, DRACULA, frozenset(), {}, frozenset(), POINTS)


@pytest.mark.parametrize(("fighters", "fled"), [
    ({4: 1}, frozenset({4, 5, 6, 7})),   # fled and fought
    ({4: 1}, frozenset({5, 6})),         # 7 chose nothing
    ({4: 5}, frozenset({5, 6, 7})),      # named a human
])
def test_inconsistent_choices_are_a_programming_error(fighters: dict[int, int | None], fled: frozenset[int]) -> None:
    with pytest.raises(ValueError):
        final_outcome(VAMPIRES, DRACULA, HUMANS, fighters, fled, POINTS)


def test_the_outcome_reads_as_json_without_who_named_whom() -> None:
    data = final_outcome(VAMPIRES, DRACULA, HUMANS, {4: DRACULA, 5: 2}, frozenset({6, 7}), POINTS).to_json()
    assert data["burned"] == [1, 2] and data["fighters"] == [4, 5] and data["fled"] == [6, 7]
    assert data["awards"]["4"] == [{"reason": "named_dracula", "points": 3.0}]
    assert data["points"]["4"] == 5.0 and data["points"]["1"] == 0.0
    assert "named" not in str(data).replace("named_dracula", "")


# --- scores over the series and the podium (6.8 item 17) -----------------------------------------

def test_series_totals_add_the_rounds() -> None:
    assert series_totals([{1: 1.0, 2: 0.5}, {1: 2.0, 3: 3.0}]) == {1: 3.0, 2: 0.5, 3: 3.0}


def test_the_podium_shares_places_and_skips_the_next() -> None:
    totals = {1: 5.0, 2: 5.0, 3: 4.5, 4: 4.0, 5: 1.0}
    assert podium(totals) == [(1, [1, 2], 5.0), (3, [3], 4.5)]


def test_a_tie_for_third_puts_every_tied_seat_on_the_podium() -> None:
    totals = {1: 6.0, 2: 5.0, 3: 3.5, 4: 3.5, 5: 3.0}
    assert podium(totals) == [(1, [1], 6.0), (2, [2], 5.0), (3, [3, 4], 3.5)]


def test_the_podium_has_fewer_places_when_few_seats_played() -> None:
    assert podium({}) == []
    assert podium({7: 0.0}) == [(1, [7], 0.0)]


# --- properties: the final points follow D-F and the summary -------------------------------------

@st.composite
def tables(draw: st.DrawFn) -> tuple:
    seats = list(range(1, 14))
    vampires = frozenset(draw(st.lists(st.sampled_from(seats), min_size=1, max_size=12, unique=True)))
    humans = frozenset(seats) - vampires
    dracula = draw(st.sampled_from(sorted(vampires)))
    fighters = {h: draw(st.none() | st.sampled_from(sorted(vampires)))
                for h in sorted(humans) if draw(st.booleans())}
    fled = humans - set(fighters)
    points = {s: float(draw(st.integers(0, 4))) for s in seats}
    return vampires, dracula, humans, fighters, fled, points


@settings(max_examples=300, deadline=None)
@given(tables())
def test_final_points_dead_are_zero_and_only_the_listed_awards_are_given(table: tuple) -> None:
    vampires, dracula, humans, fighters, fled, points = table
    final = final_outcome(vampires, dracula, humans, fighters, fled, points)
    for seat, value in final.points.items():
        if seat in final.dead:
            assert value == 0 and not final.awards.get(seat)
        else:
            assert value == points[seat] + sum(a.points for a in final.awards.get(seat, ()))
    for awards in final.awards.values():
        assert len(awards) == 1 and awards[0].points == AWARDS[awards[0].reason]
    given_to = {reason: {s for s, aw in final.awards.items() if aw[0].reason == reason} for reason in AWARDS}
    assert given_to["fled"] == fled
    assert final.dead.isdisjoint(fled)
    namers = {f for f, n in fighters.items() if n == dracula}
    if final.dracula_burned:
        assert final.dead == vampires
        assert given_to["named_dracula"] | given_to["shared_dracula"] == namers
        assert len(given_to["named_dracula"]) <= 1 and len(given_to["shared_dracula"]) != 1
        assert given_to["fighter_bonus"] == set(fighters) - namers
        assert not given_to["unbitten_vampire_bonus"]
    else:
        assert not namers
        assert final.dead == final.burned | set(fighters)
        assert not (given_to["named_dracula"] | given_to["shared_dracula"] | given_to["fighter_bonus"])
        expected = {v for v in vampires - final.burned if points[v] == 0} if fighters else set()
        assert given_to["unbitten_vampire_bonus"] == expected
