"""The derived randomness is uniform: every die, a shuffle's 120 orders, and rejection sampling.

Fixed seeds, so these cannot flake: the same draws every run. Thresholds are p > 0.001.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from itertools import permutations

import pytest

from companion.config import load_catalogue
from companion.fairness.drbg import SeededRandomSource, draw, master_key
from companion.fairness.rng import shuffled
from tests.support.chi_square import chi_square_p, upper_gamma_regularized

ROLLS = 600_000
SHUFFLES = 1_200_000


def test_the_chi_square_tail_matches_known_values() -> None:
    # Critical values of the chi-square distribution at p = 0.05 and 0.001.
    for dof, critical_05, critical_001 in ((1, 3.841, 10.828), (5, 11.070, 20.515), (10, 18.307, 29.588)):
        assert upper_gamma_regularized(dof / 2, critical_05 / 2) == pytest.approx(0.05, abs=2e-4)
        assert upper_gamma_regularized(dof / 2, critical_001 / 2) == pytest.approx(0.001, abs=1e-5)
    assert upper_gamma_regularized(119 / 2, 145.461 / 2) == pytest.approx(0.05, abs=2e-4)
    assert chi_square_p([100, 100, 100]) == pytest.approx(1.0)
    assert chi_square_p([1000, 0, 0]) < 1e-100


@pytest.mark.parametrize("die", sorted(load_catalogue({}, {}, None).dice))
def test_every_die_of_the_catalogue_is_fair(die: str) -> None:
    faces = len(load_catalogue({}, {}, None).dice[die].faces)
    master = master_key(hashlib.sha256(die.encode()).digest(), [])
    counts = Counter(SeededRandomSource(master, n).randbelow(faces, f"roll {n} die 1 {die}") for n in range(ROLLS))
    assert sorted(counts) == list(range(faces))
    assert chi_square_p([counts[face] for face in range(faces)]) > 0.001


@pytest.mark.slow
def test_a_five_card_shuffle_reaches_all_120_orders_evenly() -> None:
    master = master_key(b"\x07" * 32, [])
    counts: Counter[tuple[str, ...]] = Counter()
    counter = 0
    for n in range(SHUFFLES):
        source = SeededRandomSource(master, counter)   # one source a command, as the table makes them
        counts[tuple(shuffled(source, list("ABCDE"), f"shuffle {n}"))] += 1
        counter = source.counter
    assert set(counts) == set(permutations("ABCDE"))
    assert chi_square_p(list(counts.values())) > 0.001


@pytest.mark.parametrize("bound", [3, 5, 6, 7, 10, 100, 1000, 65_537])
def test_ranges_that_are_not_powers_of_two_are_uniform(bound: int) -> None:
    master = master_key(b"\x01" * 32, [(2, b"player")])
    counts = Counter(draw(master, n, "range", bound) for n in range(40 * bound if bound < 1000 else 200_000))
    assert max(counts) < bound
    if bound <= 1000:
        assert len(counts) == bound
        assert chi_square_p([counts[v] for v in range(bound)]) > 0.001
    else:
        buckets = Counter(v * 64 // bound for v in counts.elements())
        assert chi_square_p([buckets[b] for b in range(64)]) > 0.001


def test_rejection_sampling_skips_too_large_candidates_instead_of_folding_them() -> None:
    master = master_key(b"\x02" * 32, [])
    rejected = 0
    for counter in range(2000):
        first = hmac.digest(master, counter.to_bytes(8, "big") + (0).to_bytes(4, "big") + b"d6", "sha256")
        candidates = [byte & 7 for byte in first]
        if candidates[0] >= 6:
            rejected += 1
            accepted = next(c for c in candidates if c < 6)
            assert draw(master, counter, "d6", 6) == accepted, "the next candidate, never candidate % 6"
        else:
            assert draw(master, counter, "d6", 6) == candidates[0]
    assert 400 < rejected < 600, "about a quarter of first candidates (6 and 7 of 0..7) are rejected"


def test_a_draw_that_runs_out_of_a_block_reads_the_next_block() -> None:
    master = master_key(b"\x03" * 32, [])
    bound = 2**255 + 1  # 32-byte candidates: about half are rejected, so some draws need block 1
    blocks_needed = 0
    for counter in range(64):
        first = hmac.digest(master, counter.to_bytes(8, "big") + (0).to_bytes(4, "big") + b"big", "sha256")
        mask = (1 << 256) - 1
        if int.from_bytes(first, "big") & mask >= bound:
            blocks_needed += 1
            second = hmac.digest(master, counter.to_bytes(8, "big") + (1).to_bytes(4, "big") + b"big", "sha256")
            value = int.from_bytes(second, "big")
            if value < bound:
                assert draw(master, counter, "big", bound) == value
    assert blocks_needed > 10
