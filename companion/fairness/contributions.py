"""Players' own randomness: each seat commits to 32 secret bytes, then reveals them.

The commitment binds the bytes to the game and the seat, so a contribution cannot be replayed in
another game or claimed by another seat. Revealed bytes join the game's master key at its next
draw (see drbg); the seed they join was committed before any of them existed, so the server
cannot pick a seed to suit them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

VALUE_BYTES = 32
REVEAL_TIMEOUT_MS = 30_000
"""A phone that committed but has not revealed this long after is excluded from the game."""
_HEX = set("0123456789abcdef")


@dataclass(frozen=True, slots=True)
class Contribution:
    commitment: str
    value: str | None = None
    committed_ms: int = 0
    timed_out: bool = False


def commitment_for(game_id: str, seat: int, value_hex: str) -> str:
    """SHA-256 over "game:seat:value" (value in lower-case hex), as the phone computes it."""
    return hashlib.sha256(f"{game_id}:{seat}:{value_hex}".encode()).hexdigest()


def _is_hex(raw: Any, length: int) -> bool:
    return isinstance(raw, str) and len(raw) == length and set(raw) <= _HEX


def commit_refusal(contributions: Mapping[int, Contribution], seat: int, commitment: Any) -> str | None:
    if not _is_hex(commitment, 64):
        return "bad_commitment"
    if seat in contributions:
        return "already_committed"
    return None


def reveal_refusal(contributions: Mapping[int, Contribution], game_id: str, seat: int, value: Any) -> str | None:
    if not _is_hex(value, 2 * VALUE_BYTES):
        return "bad_reveal"
    mine = contributions.get(seat)
    if mine is None:
        return "not_committed"
    if mine.timed_out:
        return "reveal_too_late"
    if mine.value is not None:
        return "already_revealed"
    if commitment_for(game_id, seat, value) != mine.commitment:
        return "reveal_mismatch"
    return None


def committed(
    contributions: Mapping[int, Contribution], seat: int, commitment: str, wall_ms: int = 0
) -> dict[int, Contribution]:
    return {**contributions, seat: Contribution(commitment, None, wall_ms)}


def overdue(contributions: Mapping[int, Contribution], now_ms: int, timeout_ms: int = REVEAL_TIMEOUT_MS) -> list[int]:
    """Seats whose reveal is late: they will be excluded (and the table says so)."""
    return sorted(seat for seat, c in contributions.items()
                  if c.value is None and not c.timed_out and now_ms - c.committed_ms >= timeout_ms)


def excluded(contributions: Mapping[int, Contribution], seats: list[int]) -> dict[int, Contribution]:
    return {seat: replace(c, timed_out=True) if seat in seats else c for seat, c in contributions.items()}


def revealed(contributions: Mapping[int, Contribution], seat: int, value: str) -> dict[int, Contribution]:
    return {**contributions, seat: replace(contributions[seat], value=value)}


def public_view(contributions: Mapping[int, Contribution]) -> dict[str, Any]:
    """Who committed and who revealed. A committed phone that never reveals is simply never
    included: the seed goes on without it, and the table shows it as pending."""
    return {
        "committed": sorted(contributions),
        "revealed": sorted(seat for seat, c in contributions.items() if c.value is not None),
        "timed_out": sorted(seat for seat, c in contributions.items() if c.timed_out),
    }
