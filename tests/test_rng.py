"""The randomness seam: draws are recorded, replayed exactly, and a tampered record is caught."""

from __future__ import annotations

from itertools import permutations

import pytest

from companion.errors import ReplayMismatch
from companion.fairness.drbg import SeededRandomSource as GameRandomSource
from companion.fairness.drbg import master_key
from companion.fairness.rng import Draw, ReplayRandomSource, shuffled
from tests.conftest import SeededRandomSource


def test_recorded_draws_replay_to_the_same_outcomes() -> None:
    recording = GameRandomSource(master_key(b"\x03" * 32, []))
    first = [recording.randbelow(6, f"roll {i}") for i in range(20)]
    assert [(d.counter, d.epoch, d.value) for d in recording.draws] == [(i, 0, v) for i, v in enumerate(first)]
    replay = ReplayRandomSource(recording.draws)
    assert [replay.randbelow(6, f"roll {i}") for i in range(20)] == first
    assert replay.finished()


@pytest.mark.parametrize(
    ("bound", "purpose"), [(8, "roll 0"), (6, "roll 1")], ids=["other bound", "other purpose"]
)
def test_a_replay_that_asks_for_a_different_draw_is_refused(bound: int, purpose: str) -> None:
    replay = ReplayRandomSource([Draw("roll 0", 6, 2)])
    with pytest.raises(ReplayMismatch):
        replay.randbelow(bound, purpose)


def test_a_replay_past_the_record_is_refused() -> None:
    replay = ReplayRandomSource([])
    with pytest.raises(ReplayMismatch, match="unrecorded"):
        replay.randbelow(6, "roll")


def test_a_recorded_value_out_of_range_is_refused_on_replay() -> None:
    with pytest.raises(ReplayMismatch, match="does not fit"):
        ReplayRandomSource([Draw("roll", 6, 6)]).randbelow(6, "roll")


@pytest.mark.parametrize("bound", [0, -1, 2.5, True])
def test_a_draw_needs_a_positive_whole_bound(bound) -> None:
    with pytest.raises(ValueError, match="positive integer bound"):
        GameRandomSource(master_key(b"\x01" * 32, [])).randbelow(bound, "roll")


def test_the_game_source_covers_its_range() -> None:
    source = GameRandomSource(master_key(b"\x02" * 32, []))
    assert {source.randbelow(3, "x") for _ in range(300)} == {0, 1, 2}


def test_a_shuffle_reaches_every_permutation_of_three() -> None:
    rng = SeededRandomSource(11)
    seen = {tuple(shuffled(rng, ["a", "b", "c"], "deck")) for _ in range(600)}
    assert seen == set(permutations("abc"))
