"""Sealed facts: the commitment hides a small secret and opens only to the sealed value."""

from __future__ import annotations

from companion.fairness.sealed import opens, seal


def test_a_sealed_fact_opens_only_with_its_value_and_salt() -> None:
    fact, salt = seal("g1", "tomato_tower", "3")
    assert opens("g1", fact, "3", salt)
    assert not opens("g1", fact, "4", salt)
    assert not opens("g1", fact, "3", "00" * 16)
    assert not opens("g2", fact, "3", salt), "bound to its game"


def test_the_salt_hides_small_secrets() -> None:
    first, _ = seal("g1", "tomato_tower", "3")
    second, _ = seal("g1", "tomato_tower", "3")
    assert first.commitment != second.commitment, "the same fact sealed twice looks different"
    guesses = {seal("g1", "tomato_tower", str(v), salt=bytes(16))[0].commitment for v in range(10)}
    assert first.commitment not in guesses, "hashing every possible value without the salt finds nothing"
