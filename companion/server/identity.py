"""Who is asking: the public table, the phone holding a seat, or the host.

A phone proves its seat with a cookie whose value is an HMAC over (seat, generation) under a key
kept in the data folder: nothing to store, valid across restarts, and void as soon as the seat's
generation moves (the seat was freed or rebound to another phone). Never a name, never the signed
Flask session (it is readable). The host's cookie is an HMAC of the host key.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from hashlib import sha256

SEAT_COOKIE = "seat"
HOST_COOKIE = "host"
COOKIE_MAX_AGE = 30 * 24 * 3600
REBIND_TTL_S = 120.0


class CookieSigner:
    def __init__(self, key: bytes, host_key: str) -> None:
        self._key = key
        self._host_key = host_key

    def _mac(self, message: str) -> str:
        return hmac.new(self._key, message.encode(), sha256).hexdigest()[:32]

    def seat_cookie(self, seat: int, generation: int) -> str:
        return f"{seat}.{generation}.{self._mac(f'seat:{seat}:{generation}')}"

    def seat_from_cookie(self, value: str | None, current_generation: Callable[[int], int | None]) -> int | None:
        """The seat this cookie holds now, or None (forged, malformed, or the seat moved on)."""
        claim = self.seat_claim(value)
        if claim is None:
            return None
        seat, generation = claim
        return seat if current_generation(seat) == generation else None

    def seat_claim(self, value: str | None) -> tuple[int, int] | None:
        """The seat and token generation a genuine cookie names, whether or not they are current
        (a stream checks the generation at every message, and the signature only once)."""
        if not value or value.count(".") != 2:
            return None
        seat_text, generation_text, mac = value.split(".")
        if not (seat_text.isdigit() and generation_text.isdigit()) or len(seat_text) > 2 or len(generation_text) > 9:
            return None
        seat, generation = int(seat_text), int(generation_text)
        if not hmac.compare_digest(mac, self._mac(f"seat:{seat}:{generation}")):
            return None
        return seat, generation

    def host_cookie(self) -> str:
        return self._mac(f"host:{self._host_key}")

    def is_host_cookie(self, value: str | None) -> bool:
        return bool(value) and hmac.compare_digest(str(value), self.host_cookie())

    def is_host_key(self, value: str | None) -> bool:
        return bool(value) and hmac.compare_digest(str(value).strip().encode(), self._host_key.encode())


@dataclass(frozen=True, slots=True)
class RebindLink:
    seat: int
    expires: float


class OneTimeLinks:
    """Links that bind a seat to a new phone: random, short-lived, usable once, kept in memory only."""

    def __init__(self, ttl_s: float = REBIND_TTL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl = ttl_s
        self._clock = clock
        self._links: dict[str, RebindLink] = {}
        self._lock = threading.Lock()

    def issue(self, seat: int) -> tuple[str, float]:
        token = secrets.token_urlsafe(16)
        with self._lock:
            now = self._clock()
            self._links = {t: link for t, link in self._links.items() if link.expires > now}
            self._links[token] = RebindLink(seat, now + self._ttl)
        return token, self._ttl

    def redeem(self, token: str) -> int | None:
        """The seat of a live link, which is then spent; None for unknown, used or expired links."""
        with self._lock:
            link = self._links.pop(token, None)
        if link is None or link.expires <= self._clock():
            return None
        return link.seat


class RateLimiter:
    """A token bucket per client address: `burst` tries at once, refilled at `per_minute`."""

    def __init__(self, burst: int, per_minute: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._burst = burst
        self._rate = per_minute / 60.0
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def allow(self, key: str) -> bool:
        with self._lock:
            now = self._clock()
            if len(self._buckets) > 10_000:
                self._buckets.clear()  # bounded memory under a flood of addresses
            tokens, last = self._buckets.get(key, (float(self._burst), now))
            tokens = min(float(self._burst), tokens + (now - last) * self._rate)
            if tokens < 1.0:
                self._buckets[key] = (tokens, now)
                return False
            self._buckets[key] = (tokens - 1.0, now)
            return True
