"""Dracula's sanctuary vote: D-1, 6.7 and 6.8 items 1-3, as the table lives them."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.dracula.vote import (
    CAPACITY,
    Ballot,
    Tally,
    ballot_problem,
    day_has_vote,
    eligible,
    sanctuary,
)

PLAYERS = tuple(range(1, 14))


class Draws:
    """A draw that answers from a script and remembers what it was asked."""

    def __init__(self, *answers: int) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[int, str]] = []

    def __call__(self, bound: int, label: str) -> int:
        self.asked.append((bound, label))
        return self.answers.pop(0)


def no_draw(bound: int, label: str) -> int:
    raise AssertionError(f"no draw expected, got {label!r}")


def votes(*spec: tuple[int, int, int]) -> list[Ballot]:
    """Ballots from (candidate, sent_us, uncertainty_us), one voter each."""
    return [Ballot(voter, candidate, sent, unc) for voter, (candidate, sent, unc) in enumerate(spec, start=1)]


# --- who votes, for whom (D-1, 6.8 items 1-2) -----------------------------------------------------

def test_day_1_has_no_vote_and_days_2_to_5_do() -> None:
    assert not day_has_vote(1)
    assert all(day_has_vote(day) for day in range(2, 6))


def test_a_player_who_spent_a_night_in_the_sanctuary_this_round_cannot_be_voted_for() -> None:
    offered = eligible(PLAYERS, {4: 1, 7: 1, 9: 0})
    assert 4 not in offered and 7 not in offered
    assert 9 in offered and len(offered) == 11


def test_self_vote_is_offered_by_default_and_withdrawn_by_the_option() -> None:
    assert 5 in eligible(PLAYERS, {}, voter=5)
    assert 5 not in eligible(PLAYERS, {}, voter=5, self_vote_allowed=False)
    assert 6 in eligible(PLAYERS, {}, voter=5, self_vote_allowed=False)


@pytest.mark.parametrize(("voter", "candidate", "voted", "barred", "self_ok", "code"), [
    (1, 2, set(), set(), True, None),
    (1, 1, set(), set(), True, None),
    (1, 2, {1}, set(), True, "already_voted"),
    (1, 2, set(), {2}, True, "not_eligible"),
    (1, 1, set(), set(), False, "no_self_vote"),
    (1, 99, set(), set(), True, "no_such_player"),
    (99, 2, set(), set(), True, "not_a_player"),
])
def test_ballot_rules(voter: int, candidate: int, voted: set[int], barred: set[int], self_ok: bool,
                      code: str | None) -> None:
    """One vote each that cannot be changed, only for eligible players, for oneself if allowed."""
    assert ballot_problem(voter, candidate, PLAYERS, voted, barred, self_ok) == code


def test_a_voter_with_two_ballots_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        sanctuary([Ballot(1, 2, 10, 0), Ballot(1, 3, 20, 0)], CAPACITY, no_draw)


def test_a_ballot_is_timed_when_the_phone_sent_it() -> None:
    ballot = Ballot.received(3, 4, arrival_us=1_000_000, delay_us=40_000, delay_uncertainty_us=5_000)
    assert (ballot.sent_us, ballot.uncertainty_us) == (960_000, 5_000)


# --- who stays (D-1, 6.8 item 3) -----------------------------------------------------------------

def test_the_three_with_most_votes_stay() -> None:
    ballots = votes((2, 10, 0), (2, 20, 0), (2, 30, 0), (5, 40, 0), (5, 50, 0), (9, 5, 0), (9, 6, 0),
                    (11, 1, 0))
    tally = sanctuary(ballots, CAPACITY, no_draw)
    assert tally.chosen == (2, 9, 5)
    assert [s.candidate for s in tally.ranking] == [2, 9, 5, 11]
    assert [s.votes for s in tally.ranking] == [3, 2, 2, 1]


def test_equal_votes_go_to_who_reached_the_total_first_not_who_got_the_first_vote() -> None:
    # 2's first vote came first, but 5 reached two votes at 60 and 2 only at 100.
    ballots = votes((2, 10, 0), (5, 50, 0), (5, 60, 0), (2, 100, 0))
    tally = sanctuary(ballots, 1, no_draw)
    assert tally.chosen == (5,)
    assert (tally.ranking[0].reached_us, tally.ranking[1].reached_us) == (60, 100)


def test_fewer_candidates_than_seats_leave_seats_empty() -> None:
    tally = sanctuary(votes((4, 10, 0), (4, 20, 0), (8, 30, 0)), CAPACITY, no_draw)
    assert tally.chosen == (4, 8)
    assert sanctuary([], CAPACITY, no_draw).chosen == ()


def test_times_closer_than_their_uncertainty_are_a_tie_settled_by_a_draw() -> None:
    # 7 and 3 both have one vote for the last seat, 3 µs apart with 2 µs of doubt each.
    ballots = votes((1, 0, 0), (1, 1, 0), (12, 2, 0), (12, 3, 0), (7, 100, 2), (3, 103, 2))
    for answer, winner in ((0, 3), (1, 7)):
        draws = Draws(answer)
        tally = sanctuary(ballots, CAPACITY, draws)
        assert tally.chosen == (1, 12, winner)
        assert draws.asked == [(2, "sanctuary place 3 of [3, 7]")]
        assert {s.candidate for s in tally.ranking if s.drawn} == {3, 7}


def test_a_tie_is_never_settled_by_seat_number_or_by_arrival_order() -> None:
    ballots = votes((9, 100, 5), (2, 104, 5))
    forward, backward = sanctuary(ballots, 1, Draws(0)), sanctuary(ballots[::-1], 1, Draws(0))
    assert forward == backward
    assert {sanctuary(ballots, 1, Draws(answer)).chosen for answer in (0, 1)} == {(2,), (9,)}


def test_times_further_apart_than_their_uncertainty_are_ordered_without_a_draw() -> None:
    tally = sanctuary(votes((9, 100, 2), (2, 105, 2)), 1, no_draw)
    assert tally.chosen == (9,)
    assert tally.ranking[0].tied_with == ()


def test_a_tie_that_does_not_decide_who_is_in_draws_nothing_and_keeps_time_order() -> None:
    # 6 and 4 are tied but both are in; 10 and 11 are tied but both are out.
    ballots = votes((6, 100, 10), (6, 101, 10), (4, 105, 10), (4, 106, 10), (8, 10, 0),
                    (10, 200, 10), (11, 195, 10))
    tally = sanctuary(ballots, CAPACITY, no_draw)
    assert tally.chosen == (6, 4, 8)
    assert [s.candidate for s in tally.ranking] == [6, 4, 8, 11, 10]
    lines = {s.candidate: s for s in tally.ranking}
    assert lines[6].tied_with == (4,) and lines[4].tied_with == (6,)
    assert lines[10].tied_with == (11,) and lines[11].tied_with == (10,)
    assert not any(s.drawn for s in tally.ranking)


def test_a_chain_of_ties_never_lets_the_surely_later_candidate_win() -> None:
    # 1 ~ 2 and 2 ~ 3, yet 1 is surely before 3: for one seat, only 1 and 2 are drawn.
    ballots = votes((1, 100, 3), (2, 105, 3), (3, 110, 3))
    for answer, winner in ((0, 1), (1, 2)):
        draws = Draws(answer)
        tally = sanctuary(ballots, 1, draws)
        assert tally.chosen == (winner,)
        assert draws.asked == [(2, "sanctuary place 1 of [1, 2]")]
    assert sanctuary(ballots, 1, Draws(1)).ranking[2].candidate == 3


def test_the_result_reads_as_json_with_times_and_doubts() -> None:
    tally = sanctuary(votes((5, 100, 4), (8, 102, 4)), 1, Draws(1))
    assert tally.to_json() == {"capacity": 1, "chosen": [8], "ranking": [
        {"place": 1, "candidate": 8, "votes": 1, "reached_us": 102, "uncertainty_us": 4, "tied_with": [5],
         "drawn": True, "chosen": True},
        {"place": 2, "candidate": 5, "votes": 1, "reached_us": 100, "uncertainty_us": 4, "tied_with": [8],
         "drawn": True, "chosen": False}]}


# --- properties ---------------------------------------------------------------------------------

def reached(ballots: Sequence[Ballot]) -> dict[int, tuple[int, int, int]]:
    """candidate -> (votes, reach time, its doubt), computed here independently."""
    out: dict[int, tuple[int, int, int]] = {}
    for b in sorted(ballots, key=lambda b: (b.sent_us, b.uncertainty_us)):
        count = out.get(b.candidate, (0, 0, 0))[0] + 1
        out[b.candidate] = (count, b.sent_us, b.uncertainty_us)
    return out


def sure(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    return a[0] > b[0] or (a[0] == b[0] and b[1] - a[1] > a[2] + b[2])


def possible_sets(ballots: Sequence[Ballot], capacity: int) -> set[frozenset[int]]:
    """Every sanctuary that some order respecting every sure order would give."""
    info = reached(ballots)
    sets = set()
    for order in itertools.permutations(info):
        if all(not sure(info[order[j]], info[order[i]]) for i in range(len(order)) for j in range(i + 1, len(order))):
            sets.add(frozenset(order[:capacity]))
    return sets


def every_draw_outcome(ballots: Sequence[Ballot], capacity: int) -> tuple[set[frozenset[int]], bool]:
    """The sanctuaries reachable by some answers to the draws, and whether any draw was asked."""
    outcomes, asked_any, stack = set(), False, [[]]
    while stack:
        prefix = stack.pop()
        used: list[tuple[int, int]] = []

        def draw(bound: int, label: str, prefix: list[int] = prefix, used: list[tuple[int, int]] = used) -> int:
            value = prefix[len(used)] if len(used) < len(prefix) else 0
            used.append((bound, value))
            return value

        outcomes.add(frozenset(sanctuary(ballots, capacity, draw).chosen))
        asked_any = asked_any or bool(used)
        for pos in range(len(prefix), len(used)):
            stack.extend([[v for _, v in used[:pos]] + [v] for v in range(1, used[pos][0])])
    return outcomes, asked_any


@st.composite
def fields(draw: st.DrawFn) -> list[Ballot]:
    """Up to 6 candidates with 1-3 votes each, at times and doubts that make ties and chains common."""
    n = draw(st.integers(0, 6))
    ballots: list[Ballot] = []
    for candidate in range(1, n + 1):
        for _ in range(draw(st.integers(1, 3))):
            ballots.append(Ballot(len(ballots) + 1, candidate, draw(st.integers(0, 40)), draw(st.integers(0, 6))))
    return ballots


@settings(max_examples=150, deadline=None)
@given(fields(), st.integers(0, 4), st.data())
def test_a_tally_is_a_ranking_that_respects_every_sure_order(ballots: list[Ballot], capacity: int,
                                                             data: st.DataObject) -> None:
    tally: Tally = sanctuary(ballots, capacity,
                             lambda bound, label: data.draw(st.integers(0, bound - 1), label=label))
    info = reached(ballots)
    ranked = [s.candidate for s in tally.ranking]
    assert sorted(ranked) == sorted(info)
    for i, j in itertools.combinations(range(len(ranked)), 2):
        assert not sure(info[ranked[j]], info[ranked[i]])
    assert tally.chosen == tuple(ranked[:capacity])
    assert len(tally.chosen) <= capacity
    left_out = [info[c][0] for c in ranked[capacity:]]
    assert all(info[c][0] >= max(left_out, default=0) for c in tally.chosen)
    for s in tally.ranking:
        assert (s.votes, s.reached_us, s.uncertainty_us) == info[s.candidate]
        assert set(s.tied_with) == {c for c in info if c != s.candidate
                                    and not sure(info[c], info[s.candidate]) and not sure(info[s.candidate], info[c])}


@settings(max_examples=120, deadline=None)
@given(fields(), st.integers(0, 4))
def test_the_draw_is_asked_only_when_the_cut_falls_in_a_tie_and_can_give_every_fair_outcome(
        ballots: list[Ballot], capacity: int) -> None:
    possible = possible_sets(ballots, capacity)
    outcomes, asked = every_draw_outcome(ballots, capacity)
    assert asked == (len(possible) > 1)
    assert outcomes == possible
