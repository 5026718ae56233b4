"""Phone buzzers: a big button on each player's private screen.

A phone's clock is not ours and its word is not trusted, so the server measures each phone's
delay itself: it sends a ping down the phone's live stream and times the echo (a POST, the same
path a buzz takes). A buzz is stamped on arrival and moved back by half the phone's best recent
round trip; its uncertainty is that half plus the spread of the round trips kept. A phone that
answers pings slowly only makes its own presses vaguer (more ties), never earlier than an honest one.

A phone on Wi-Fi saves power: a ping that finds its radio asleep waits at the access point for the
next beacon (~100 ms), while a buzz, sent by the phone, leaves at once. Such round trips say nothing
of a buzz's delay, so they are dropped (min-round-trip filtering, as NTP and the buzzer box's clock
sync do), and pings come in pairs: the first wakes the radio, the second, right behind it, measures.
A phone with few round trips measured (it just joined, or buzzers just came into use) gets a quick
burst, so its first round is already timed to a few milliseconds.
"""

from __future__ import annotations

import statistics
from collections import deque
from dataclasses import dataclass

from companion.buzzers.sources import HandlerSlot, Press, SourceHealth
from companion.clock import Clock

PING_INTERVAL_S = 2.0
"""Between two pairs of pings."""
QUICK_INTERVAL_S = 0.05
"""Between the pings of a burst or a pair: soon enough that the phone's radio is still awake."""
BURST_PINGS = 8
"""A phone with fewer fresh round trips than this is pinged at the quick interval."""
UNANSWERED_MAX = 8
"""A phone that left this many pings in a row unanswered (asleep, a tab in the background) is
pinged slowly until it answers again."""
SAMPLES = 32
"""Round trips kept per phone: with a pair every two seconds, the last half minute or so."""
RTT_FACTOR = 2
RTT_MARGIN_US = 3_000
"""Round trips slower than RTT_FACTOR times the fastest kept one, plus this, are dropped."""
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


def ping_interval_s(fresh: int, unanswered: int, sent: int) -> float:
    """The wait before the next ping of a phone with `fresh` round trips measured, `unanswered`
    pings sent since its last echo, and `sent` pings sent since it was first seen."""
    if unanswered >= UNANSWERED_MAX:
        return PING_INTERVAL_S
    if fresh < BURST_PINGS:
        return QUICK_INTERVAL_S
    return QUICK_INTERVAL_S if sent % 2 else PING_INTERVAL_S


def estimate_from(rtts: list[int]) -> Estimate | None:
    """A phone's delay from its round trips: half the fastest, give or take that half and the
    median distance of the others kept (those not much slower than the fastest) from it."""
    if not rtts:
        return None
    best = min(rtts)
    kept = [rtt for rtt in rtts if rtt <= best * RTT_FACTOR + RTT_MARGIN_US]
    spread = int(statistics.median(kept)) - best
    return Estimate(best // 2, best - best // 2 + spread)


class PhoneLink:
    def __init__(self) -> None:
        self.pending: dict[int, int] = {}
        self.samples: deque[tuple[int, int]] = deque(maxlen=SAMPLES)
        self.last_press_us: int | None = None
        self.last_ping_us: int | None = None
        self.sent = 0
        self.since_echo = 0
        """Pings sent since the phone last answered one."""


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
            link.last_ping_us = now
            link.sent += 1
            link.since_echo += 1
            return ping_id

    def due_in_s(self, seat: int) -> float:
        """How long the seat's stream should wait before its next ping (0: send one now)."""
        now = self._clock.now_us()
        with self._lock:
            link = self._links.get(seat)
            if link is None or link.last_ping_us is None:
                return 0.0
            fresh = sum(1 for at, _ in link.samples if now - at <= SAMPLE_MAX_AGE_US)
            interval = ping_interval_s(fresh, link.since_echo, link.sent)
            return max(0.0, (link.last_ping_us - now) / 1e6 + interval)

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
            link.since_echo = 0
            return now - sent

    def _estimate(self, link: PhoneLink, now: int) -> Estimate | None:
        return estimate_from([rtt for at, rtt in link.samples if now - at <= SAMPLE_MAX_AGE_US])

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
