"""The randomness seam: draws are recorded, replayed exactly, and a tampered record is caught."""

from __future__ import annotations

from itertools import permutations

import pytest

from companion.errors import ReplayMismatch
from companion.fairness.rng import (
    Draw,
    RecordingRandomSource,
    ReplayRandomSource,
    SystemRandomSource,
    shuffled,
)
from tests.conftest import SeededRandomSource


def test_recorded_draws_replay_to_the_same_outcomes() -> None:
    recording = RecordingRandomSource(SeededRandomSource(3))
    first = [recording.randbelow(6, f"roll {i}") for i in range(20)]
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


def test_a_source_that_answers_out_of_range_is_caught() -> None:
    class Broken:
        def randbelow(self, bound: int, purpose: str) -> int:
            return bound

    with pytest.raises(ValueError, match="outside"):
        RecordingRandomSource(Broken()).randbelow(6, "roll")


@pytest.mark.parametrize("bound", [0, -1, 2.5])
def test_a_draw_needs_a_positive_whole_bound(bound) -> None:
    with pytest.raises(ValueError):
        SystemRandomSource().randbelow(bound, "roll")


def test_the_system_source_covers_its_range() -> None:
    seen = {SystemRandomSource().randbelow(3, "x") for _ in range(300)}
    assert seen == {0, 1, 2}


def test_a_shuffle_reaches_every_permutation_of_three() -> None:
    rng = SeededRandomSource(11)
    seen = {tuple(shuffled(rng, ["a", "b", "c"], "deck")) for _ in range(600)}
    assert seen == set(permutations("abc"))
