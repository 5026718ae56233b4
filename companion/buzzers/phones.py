"""Phone buzzers: a big button on each player's private screen.

A phone's clock is not ours and its word is not trusted, so the server measures each phone's link
itself: it sends a ping down the phone's live stream and times the echo (a POST, the same path a
buzz takes), and the page answers with its own clock's reading. The round trips map the page's
clock onto the host timeline (phoneclock.py), and a buzz carries the tap's time on that clock: a
stall delays the request, not the time. A buzz whose claim physics rules out, or from a page whose
clock is not mapped (it just joined, its clock jumped, its page slept), is timed by arrival: moved
back by half the phone's best recent round trip, give or take that half plus the spread of the
round trips kept. A phone on a slow link only makes its own presses vaguer (more ties), never
earlier than an honest one.

A phone on Wi-Fi saves power: a ping that finds its radio asleep waits at the access point for the
next beacon (~100 ms), while a buzz, sent by the phone, leaves at once. Such round trips say nothing
of a buzz's delay, so they are dropped (min-round-trip filtering, as NTP and the buzzer box's clock
sync do), and pings come in pairs: the first wakes the radio, the second, right behind it, measures.
A phone with few round trips measured (it just joined, or buzzers just came into use) gets a quick
burst, so its first round is already timed to a few milliseconds.
"""

from __future__ import annotations

import logging
import secrets
import statistics
from collections import deque
from dataclasses import dataclass, replace

from companion.buzzers.clocksync import Mapped
from companion.buzzers.phoneclock import (
    MAX_WAIT_US,
    STALL_ALLOWANCE_US,
    TAP_LATENCY_US,
    UNMEASURED_WAIT_US,
    Claim,
    PhoneTap,
    phone_sync,
    phone_us,
)
from companion.buzzers.sources import HandlerSlot, Press, SourceHealth
from companion.clock import Clock

log = logging.getLogger(__name__)

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
LISTENING_US = 6_000_000
"""A phone that answered no ping for this long (three pairs' intervals) has closed its page or lost
its link: no decision waits for it."""
UNMEASURED_UNCERTAINTY_US = 150_000
"""A buzz from a phone with no round trip measured yet: stamped on arrival, this vague."""
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


Screen = int | str
"""Whose link: a seat's phone (its number, kept while the seat keeps its phone), or a display's
stream ("display:N", for as long as that stream is open)."""
PING_ID_SPAN = 2**53 - 1
"""Ping ids are random below JavaScript's largest exact integer: a page cannot guess another's."""
OWNED_PINGS = 32
"""How many of a screen's latest pings still name it (`owner`). A page echoes a ping at once and
names its link by the last ping it answered: with a pair every two seconds, that is among the last
few sent, and an echo later than PING_TIMEOUT_US counts for nothing anyway. So the map from ids to
screens holds at most this many per open screen, and a screen's ids go with its link."""


class PhoneLink:
    def __init__(self) -> None:
        self.pending: dict[int, int] = {}
        self.samples: deque[tuple[int, int]] = deque(maxlen=SAMPLES)
        self.sync = phone_sync()
        """The page's clock on the host timeline, from the echoes that carry its stamp."""
        self.stamps = False
        """The page stamps its echoes (a page that does not is timed by arrival only)."""
        self.last_press_us: int | None = None
        self.last_ping_us: int | None = None
        self.sent = 0
        self.since_echo = 0
        """Pings sent since the phone last answered one."""
        self.recent: deque[int] = deque()
        """The ids of its latest pings (OWNED_PINGS at most), oldest first: those that name it."""


class PhoneBuzzers(HandlerSlot):
    """The press source for every phone; the button of seat n is "phone:n" and always belongs to it.

    It also keeps the links of the displays' streams: their clocks are mapped the same way, so the
    instant the TV showed a round's signal is known on the host timeline.
    """

    name = "phone"
    kind = "phone"

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self._clock = clock
        self._links: dict[Screen, PhoneLink] = {}
        self._owners: dict[int, Screen] = {}
        self.distrusts = 0
        """How many times a page's time was ruled out and its clock set to be mapped anew: each
        changes what the host's console shows of that phone."""

    def _link(self, screen: Screen) -> PhoneLink:
        link = self._links.get(screen)
        if link is None:
            link = self._links[screen] = PhoneLink()
        return link

    def ping(self, screen: Screen) -> int:
        """A new ping for this screen; its id goes down the stream, the page echoes it."""
        with self._lock:
            ping_id = secrets.randbelow(PING_ID_SPAN) + 1
            link = self._link(screen)
            now = self._clock.now_us()
            for old in [i for i, sent in link.pending.items() if now - sent > PING_TIMEOUT_US]:
                del link.pending[old]
            link.pending[ping_id] = now
            link.last_ping_us = now
            link.sent += 1
            link.since_echo += 1
            self._owners[ping_id] = screen
            link.recent.append(ping_id)
            if len(link.recent) > OWNED_PINGS:
                self._owners.pop(link.recent.popleft(), None)
            return ping_id

    def owner(self, ping_id: object) -> Screen | None:
        """The screen one of its latest pings went to (a display names its link by the last ping it
        answered); None for an id no open screen was sent lately."""
        if isinstance(ping_id, bool) or not isinstance(ping_id, int):
            return None
        with self._lock:
            return self._owners.get(ping_id)

    def due_in_s(self, screen: Screen) -> float:
        """How long the screen's stream should wait before its next ping (0: send one now)."""
        now = self._clock.now_us()
        with self._lock:
            link = self._links.get(screen)
            if link is None or link.last_ping_us is None:
                return 0.0
            fresh = sum(1 for at, _ in link.samples if now - at <= SAMPLE_MAX_AGE_US)
            if link.stamps and not link.sync.synced:
                fresh = 0  # its clock is to be mapped (anew): a quick burst
            interval = ping_interval_s(fresh, link.since_echo, link.sent)
            return max(0.0, (link.last_ping_us - now) / 1e6 + interval)

    def echo(self, screen: Screen, ping_id: object, stamp: object = None) -> int | None:
        """The page answered a ping (with its own clock's reading when it got it, `stamp`, in ms):
        the round trip in microseconds, or None for an id this screen was never sent (forged,
        replayed, or too late)."""
        now = self._clock.now_us()
        with self._lock:
            link = self._links.get(screen)
            if link is None or isinstance(ping_id, bool) or not isinstance(ping_id, int):
                return None
            sent = link.pending.pop(ping_id, None)
            if sent is None or now - sent > PING_TIMEOUT_US:
                return None
            link.samples.append((now, now - sent))
            link.since_echo = 0
            phone = phone_us(stamp)
            if phone is not None:
                link.stamps = True
                restarts = link.sync.restarts
                link.sync.add(sent, phone, now)
                if link.sync.restarts != restarts:
                    log.info("the clock of %s no longer fits its earlier round trips: mapped anew", screen)
            return now - sent

    def _estimate(self, link: PhoneLink, now: int) -> Estimate | None:
        return estimate_from([rtt for at, rtt in link.samples if now - at <= SAMPLE_MAX_AGE_US])

    def estimate(self, screen: Screen) -> Estimate | None:
        with self._lock:
            link = self._links.get(screen)
            return None if link is None else self._estimate(link, self._clock.now_us())

    def map(self, screen: Screen, stamp_us: int) -> Mapped | None:
        """A reading of the screen's clock on the host timeline, when that clock is mapped."""
        with self._lock:
            link = self._links.get(screen)
            if link is None or not link.sync.synced:
                return None
            return link.sync.map(stamp_us)

    def clocks_mapped(self) -> dict[int, bool]:
        """By seat, whether its page's taps are believed now (its clock mapped), or timed by arrival."""
        with self._lock:
            return {seat: link.sync.synced for seat, link in sorted(self._links.items(), key=str)
                    if isinstance(seat, int)}

    def _wait(self, link: PhoneLink, now: int) -> int:
        rtts = [rtt for at, rtt in link.samples if now - at <= SAMPLE_MAX_AGE_US]
        if not rtts:
            return UNMEASURED_WAIT_US
        return min(max(rtts) + STALL_ALLOWANCE_US, MAX_WAIT_US)

    def wait_us(self, screen: Screen) -> int:
        """How long a request of this screen may take, at worst: its slowest recent round trip
        (both ways: a reaction's signal goes down and its buzz comes up) and a stall, bounded."""
        with self._lock:
            link = self._links.get(screen)
            return UNMEASURED_WAIT_US if link is None else self._wait(link, self._clock.now_us())

    def listening(self, seat: int) -> bool:
        """Whether the seat's phone may still buzz: it answered a ping lately (its page is open, its
        stream up) and is not leaving them unanswered."""
        now = self._clock.now_us()
        with self._lock:
            link = self._links.get(seat)
            return (link is not None and bool(link.samples) and link.since_echo < UNANSWERED_MAX
                    and now - link.samples[-1][0] <= LISTENING_US)

    def press(self, seat: int, arrived_us: int, claim: Claim | None = None) -> Press | None:
        """A buzz that reached the server at `arrived_us`, with what the page says of its tap;
        None when it repeats a tap just made."""
        with self._lock:
            link = self._link(seat)
            if link.last_press_us is not None and arrived_us - link.last_press_us < REPEAT_MASK_US:
                return None
            link.last_press_us = arrived_us
            estimate = self._estimate(link, arrived_us)
            if estimate is None:
                tap = PhoneTap(seat, arrived_us, "arrival", arrived_us, UNMEASURED_UNCERTAINTY_US)
            else:
                tap = PhoneTap(seat, arrived_us, "arrival", arrived_us - estimate.delay_us, estimate.uncertainty_us)
            t_us, uncertainty_us = tap.arrival_t_us, tap.arrival_uncertainty_us
            if claim is not None:
                tap, mapped = self._check(link, tap, claim)
                if mapped is not None:
                    t_us, uncertainty_us = mapped.t_us, mapped.bound_us
            press = Press(f"phone:{seat}", t_us, self.name, uncertainty_us, phone=tap)
            handler = self._handler
        if handler is not None:
            handler(press)
        return press

    def _sent_at(self, link: PhoneLink, seat: int, stamp_us: int, arrived_us: int) -> tuple[Mapped | None, str]:
        """A moment the page stamped (a tap, a command sent), mapped, judged against physics: not
        after the request's arrival, nor before it by more than the phone's slowest round trip and
        a stall. A moment ruled out is logged and the page's clock mapped anew (under the lock):
        (None, why) then, as with a clock not mapped yet."""
        if not link.sync.synced:
            return None, "clock_unmapped"
        mapped = link.sync.map(stamp_us)
        assert mapped is not None
        if mapped.t_us - mapped.bound_us > arrived_us:
            return self._distrust(link, seat, "tap_after_arrival", f"{mapped.t_us - arrived_us} us after")
        if mapped.t_us + mapped.bound_us < arrived_us - self._wait(link, arrived_us):
            return self._distrust(link, seat, "tap_too_old", f"{arrived_us - mapped.t_us} us before its arrival")
        return mapped, ""

    def _distrust(self, link: PhoneLink, seat: int, reason: str, detail: str) -> tuple[None, str]:
        self.distrusts += 1
        log.warning("phone of seat %s: its time is refused (%s: %s); timed by arrival, its clock mapped anew",
                    seat, reason, detail)
        link.sync = phone_sync()
        return None, reason

    def sent_at(self, seat: int, stamp: object, arrived_us: int) -> Mapped | None:
        """When the seat's page says it sent a request that arrived at `arrived_us` (`stamp`, its
        clock's ms), on the host timeline; None when the arrival must do instead."""
        stamp_us = phone_us(stamp)
        with self._lock:
            link = self._links.get(seat)
            if stamp_us is None or link is None:
                return None
            return self._sent_at(link, seat, stamp_us, arrived_us)[0]

    def _check(self, link: PhoneLink, tap: PhoneTap, claim: Claim) -> tuple[PhoneTap, Mapped | None]:
        """The claim judged against physics: the tap mapped (and the tap as timed), or the arrival
        method's tap with the reason the claim was not used (under the lock)."""
        mapped, reason = self._sent_at(link, tap.seat, claim.tap_us, tap.arrived_us)
        if mapped is None:
            return replace(tap, refused=reason), None
        shown = None
        if claim.shown_us is not None:
            if claim.shown_us > claim.tap_us:
                self._distrust(link, tap.seat, "shown_after_tap", f"{claim.shown_us - claim.tap_us} us after")
                return replace(tap, refused="shown_after_tap"), None
            shown = link.sync.map(claim.shown_us)
        reaction = None if claim.shown_us is None else claim.tap_us - claim.shown_us
        # The touch came up to the handler's latency before its stamp: centred, with that in the bound.
        touched = Mapped(mapped.t_us - TAP_LATENCY_US // 2, mapped.bound_us + TAP_LATENCY_US // 2)
        return replace(tap, method="mapped", round=claim.round, reaction_us=reaction, shown=shown), touched

    def forget(self, screen: Screen) -> None:
        """The seat's phone changed or left (or a display's stream closed): its round trips say
        nothing of the next one."""
        with self._lock:
            link = self._links.pop(screen, None)
            for ping_id in link.recent if link is not None else ():
                self._owners.pop(ping_id, None)

    def health(self) -> SourceHealth:
        measured = self.precisions()
        # Whole milliseconds: finer would change with every ping and redraw every screen for nothing.
        worst = max(measured.values(), default=UNMEASURED_UNCERTAINTY_US)
        detail = f"{len(measured)} phones measured, the least precise ±{worst // 1000} ms" if measured else \
            "no phone measured yet"
        # Which phones are timed by arrival is part of their health: the host's view changes with it.
        unmapped = [str(seat) for seat, mapped in self.clocks_mapped().items() if not mapped]
        if unmapped:
            detail += f"; timed on arrival (clock not mapped): seat {', '.join(unmapped)}"
        return SourceHealth(self.name, self.kind, True, detail, worst)

    def _precision(self, link: PhoneLink, now: int) -> int | None:
        """How precisely this phone's taps are timed now: its clock's mapping, or its arrivals."""
        if link.sync.synced:
            bound = link.sync.newest_bound_us()
            if bound is not None:
                return bound
        estimate = self._estimate(link, now)
        return None if estimate is None else estimate.uncertainty_us

    def precision_us(self, seat: int) -> int | None:
        """The seat's phone's precision in whole milliseconds (as µs), or None before any round trip."""
        with self._lock:
            link = self._links.get(seat)
            precision = None if link is None else self._precision(link, self._clock.now_us())
        return None if precision is None else whole_ms(precision)

    def precisions(self) -> dict[int, int]:
        """Each measured phone's precision in whole milliseconds (as µs), by seat."""
        now = self._clock.now_us()
        with self._lock:
            found = {seat: self._precision(link, now) for seat, link in sorted(self._links.items(), key=str)
                     if isinstance(seat, int)}
        return {seat: whole_ms(us) for seat, us in found.items() if us is not None}
