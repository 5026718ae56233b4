"""Every random outcome of a game, derived from one committed seed (and players' contributions).

* The server draws a 32-byte seed per game and publishes `seed_commitment` before any draw.
* A master key is HMAC-SHA256(seed, "table-companion/master/v1" + each included contribution):
  players' revealed bytes enter the game from the next draw on (each inclusion starts an epoch).
* Draw number `counter` for `purpose` reads the byte stream HMAC-SHA256(master, counter | block |
  purpose) and turns it into an integer below `bound` by rejection sampling: no modulo bias.
* Shuffles are Fisher-Yates over such draws (see rng.shuffled).

Anyone holding the revealed seed and the log can recompute every outcome (`companion verify`).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
from collections.abc import Iterable
from typing import Any

from companion.fairness.rng import Draw

SEED_BYTES = 32
_MASTER_LABEL = b"table-companion/master/v1"
_COMMIT_LABEL = "table-companion/seed/v1"
_PAD = 64
"""SHA-256's block size: the length of HMAC's padded key."""
_INNER = bytes(b ^ 0x36 for b in range(256))
_OUTER = bytes(b ^ 0x5C for b in range(256))
"""HMAC's inner and outer pads, as byte translation tables (each key byte xored with the pad's)."""


def seed_commitment(game_id: str, seed_hex: str) -> str:
    """SHA-256 binding the seed to its game, shown before the first draw."""
    return hashlib.sha256(f"{_COMMIT_LABEL}:{game_id}:{seed_hex}".encode()).hexdigest()


def fingerprint(commitment: str) -> str:
    """The first 64 bits of a commitment in four groups, short enough to photograph or read aloud."""
    return " ".join(commitment[i:i + 4].upper() for i in range(0, 16, 4))


def master_key(seed: bytes, contributions: Iterable[tuple[int, bytes]]) -> bytes:
    """The key of an epoch: the seed, keyed over the included contributions in seat order."""
    message = bytearray(_MASTER_LABEL)
    for seat, value in sorted(contributions):
        message += seat.to_bytes(2, "big") + len(value).to_bytes(2, "big") + value
    return hmac.new(seed, bytes(message), hashlib.sha256).digest()


@functools.lru_cache(maxsize=64)
def _keyed(master: bytes) -> tuple[Any, Any]:
    """HMAC-SHA256 keyed with one master key, ready to copy: the SHA-256 states that have read the
    key's inner and outer pads (RFC 2104). A game draws hundreds of times with the same key; keying
    is half the work of a short message's HMAC, and `hmac.HMAC`'s copy, update and digest are
    Python methods around these same two hashes, which cost as much again as the hashing."""
    key = master if len(master) <= _PAD else hashlib.sha256(master).digest()
    key = key.ljust(_PAD, b"\0")
    return hashlib.sha256(key.translate(_INNER)), hashlib.sha256(key.translate(_OUTER))


def _block(master: bytes, counter: int, block: int, label: bytes) -> bytes:
    inner_keyed, outer_keyed = _keyed(master)
    inner = inner_keyed.copy()
    inner.update(counter.to_bytes(8, "big") + block.to_bytes(4, "big") + label)
    outer = outer_keyed.copy()
    outer.update(inner.digest())
    return outer.digest()


def draw(master: bytes, counter: int, purpose: str, bound: int) -> int:
    """The integer in [0, bound) of draw number `counter`: whole bytes, masked, rejected if too big.

    Candidates are read `width` bytes at a time from blocks 0, 1, 2... of the draw's stream; a
    candidate is never split across two blocks (the rest of a block is skipped).
    """
    if isinstance(bound, bool) or not isinstance(bound, int) or bound < 1:
        raise ValueError(f"a draw needs a positive integer bound, got {bound!r}")
    if bound == 1:
        return 0
    bits = (bound - 1).bit_length()
    width = (bits + 7) // 8
    mask = (1 << bits) - 1
    label = purpose.encode()
    block = 0
    while True:
        data = _block(master, counter, block, label)
        if width == 1:  # most draws (a die, a seat, a small deck): the bytes themselves
            for byte in data:
                if byte & mask < bound:
                    return byte & mask
        else:
            for start in range(0, len(data) - width + 1, width):
                value = int.from_bytes(data[start:start + width], "big") & mask
                if value < bound:
                    return value
        block += 1


class SeededRandomSource:
    """The game's random source: draw after draw from one epoch's master key, counted and recorded."""

    def __init__(self, master: bytes, counter: int = 0, epoch: int = 0) -> None:
        self.master = master
        self.counter = counter
        self.epoch = epoch
        self.draws: list[Draw] = []

    def randbelow(self, bound: int, purpose: str) -> int:
        value = draw(self.master, self.counter, purpose, bound)
        self.draws.append(Draw(purpose, bound, value, self.counter, self.epoch))
        self.counter += 1
        return value
