"""Phone buzzers: a big button on each player's private screen.

A phone's clock is not ours and its word is not trusted, so the server measures each phone's
delay itself: it sends a ping down the phone's live stream and times the echo (a POST, the same
path a buzz takes). A buzz is stamped on arrival and moved back by half the phone's best recent
round trip; its uncertainty is that half plus the round trips' spread. A phone that answers pings
slowly only makes its own presses vaguer (more ties), never earlier than an honest one.
"""

from __future__ import annotations

import statistics
from collections import deque
from dataclasses import dataclass

from companion.buzzers.sources import HandlerSlot, Press, SourceHealth
from companion.clock import Clock

PING_INTERVAL_S = 2.0
SAMPLES = 8
"""Round trips kept per phone: about the last quarter of a minute."""
SAMPLE_MAX_AGE_US = 60_000_000
PING_TIMEOUT_US = 10_000_000
"""An echo later than this is not a round trip but a phone that went to sleep."""
UNMEASURED_UNCERTAINTY_US = 150_000
"""A buzz from a phone with no round trip measured yet: stamped on arrival, this vague."""
MAX_GRACE_US = 250_000
"""The longest a decision waits for phones still in flight: one phone on a bad link must not
hold every round (wired ones included) for seconds. Its later presses still count if they arrive
before the decision."""
REPEAT_MASK_US = 50_000
"""Taps of the same phone this close together are one press (a finger bouncing on glass)."""


def whole_ms(us: int) -> int:
    """A precision as people read it: in whole milliseconds, never shown as zero."""
    return max(1, round(us / 1000)) * 1000


@dataclass(frozen=True, slots=True)
class Estimate:
    delay_us: int
    uncertainty_us: int


class PhoneLink:
    def __init__(self) -> None:
        self.pending: dict[int, int] = {}
        self.samples: deque[tuple[int, int]] = deque(maxlen=SAMPLES)
        self.last_press_us: int | None = None


class PhoneBuzzers(HandlerSlot):
    """The press source for every phone; the button of seat n is "phone:n" and always belongs to it."""

    name = "phone"
    kind = "phone"

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self._clock = clock
        self._links: dict[int, PhoneLink] = {}
        self._next_id = 1

    def _link(self, seat: int) -> PhoneLink:
        link = self._links.get(seat)
        if link is None:
            link = self._links[seat] = PhoneLink()
        return link

    def ping(self, seat: int) -> int:
        """A new ping for this seat's phone; its id goes down the stream, the phone echoes it."""
        with self._lock:
            ping_id = self._next_id
            self._next_id += 1
            link = self._link(seat)
            now = self._clock.now_us()
            for old in [i for i, sent in link.pending.items() if now - sent > PING_TIMEOUT_US]:
                del link.pending[old]
            link.pending[ping_id] = now
            return ping_id

    def echo(self, seat: int, ping_id: object) -> int | None:
        """The phone answered a ping: the round trip in microseconds, or None for an id this
        seat was never sent (forged, replayed, or too late)."""
        now = self._clock.now_us()
        with self._lock:
            link = self._links.get(seat)
            if link is None or isinstance(ping_id, bool) or not isinstance(ping_id, int):
                return None
            sent = link.pending.pop(ping_id, None)
            if sent is None or now - sent > PING_TIMEOUT_US:
                return None
            link.samples.append((now, now - sent))
            return now - sent

    def _estimate(self, link: PhoneLink, now: int) -> Estimate | None:
        rtts = [rtt for at, rtt in link.samples if now - at <= SAMPLE_MAX_AGE_US]
        if not rtts:
            return None
        best = min(rtts)
        spread = int(statistics.median(rtts)) - best
        return Estimate(best // 2, best - best // 2 + spread)

    def estimate(self, seat: int) -> Estimate | None:
        with self._lock:
            link = self._links.get(seat)
            return None if link is None else self._estimate(link, self._clock.now_us())

    def in_flight_us(self) -> int:
        """How long a buzz from the slowest measured phone may still be on its way: the round's
        grace period waits this long after the first press."""
        now = self._clock.now_us()
        with self._lock:
            estimates = [self._estimate(link, now) for link in self._links.values()]
        slowest = max((e.delay_us + e.uncertainty_us for e in estimates if e is not None), default=0)
        return min(slowest, MAX_GRACE_US)

    def press(self, seat: int, arrived_us: int) -> Press | None:
        """A buzz that reached the server at `arrived_us`; None when it repeats a tap just made."""
        with self._lock:
            link = self._link(seat)
            if link.last_press_us is not None and arrived_us - link.last_press_us < REPEAT_MASK_US:
                return None
            link.last_press_us = arrived_us
            estimate = self._estimate(link, arrived_us)
            if estimate is None:
                press = Press(f"phone:{seat}", arrived_us, self.name, UNMEASURED_UNCERTAINTY_US)
            else:
                press = Press(f"phone:{seat}", arrived_us - estimate.delay_us, self.name, estimate.uncertainty_us)
            handler = self._handler
        if handler is not None:
            handler(press)
        return press

    def forget(self, seat: int) -> None:
        """The seat's phone changed or left: its round trips say nothing about the next one."""
        with self._lock:
            self._links.pop(seat, None)

    def health(self) -> SourceHealth:
        measured = self.precisions()
        # Whole milliseconds: finer would change with every ping and redraw every screen for nothing.
        worst = max(measured.values(), default=UNMEASURED_UNCERTAINTY_US)
        detail = f"{len(measured)} phones measured, the least precise ±{worst // 1000} ms" if measured else \
            "no phone measured yet"
        return SourceHealth(self.name, self.kind, True, detail, worst)

    def precisions(self) -> dict[int, int]:
        """Each measured phone's precision in whole milliseconds (as µs), by seat."""
        now = self._clock.now_us()
        with self._lock:
            estimates = {seat: self._estimate(link, now) for seat, link in sorted(self._links.items())}
        return {seat: whole_ms(e.uncertainty_us) for seat, e in estimates.items() if e is not None}
