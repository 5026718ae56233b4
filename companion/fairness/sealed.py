"""Hidden facts that no draw produced (a human game master's pick, a hand-placed token): sealed
with a salted hash when they are decided, opened at the end.

The salt (16 random bytes) stops anyone from guessing a small secret ("tower 3") by hashing every
possible value; the hash binds the fact to its game and its name.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

_LABEL = "table-companion/sealed/v1"


@dataclass(frozen=True, slots=True)
class SealedFact:
    name: str
    commitment: str


def _digest(game_id: str, name: str, value: str, salt_hex: str) -> str:
    return hashlib.sha256(f"{_LABEL}:{game_id}:{name}:{salt_hex}:{value}".encode()).hexdigest()


def seal(game_id: str, name: str, value: str, salt: bytes | None = None) -> tuple[SealedFact, str]:
    """The public commitment to `value`, and the salt to keep secret until the fact is opened."""
    salt_hex = (salt or secrets.token_bytes(16)).hex()
    return SealedFact(name, _digest(game_id, name, value, salt_hex)), salt_hex


def opens(game_id: str, fact: SealedFact, value: str, salt_hex: str) -> bool:
    """Whether `value` with `salt_hex` is what was sealed (constant-time comparison)."""
    return hmac.compare_digest(_digest(game_id, fact.name, value, salt_hex), fact.commitment)
