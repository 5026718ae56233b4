"""How soon a phone buzzer's delay is known well: the server's ping schedule and its estimator,
driven on a manual clock by a phone whose Wi-Fi behaves like a real one.

A phone on Wi-Fi saves power: when its radio has been idle a while, a frame sent to it waits at the
access point for the next beacon (about 100 ms), while what the phone sends leaves at once. A ping
that finds the radio asleep therefore comes back ~100 ms late, although a buzz (sent by the phone)
would not be late at all; a ping that follows another closely finds the radio awake. The page is
also busy for a moment after it loads, so its very first echo is late too.
"""

from __future__ import annotations

import heapq

from companion.buzzers.phones import OWNED_PINGS, PhoneBuzzers, Screen
from tests.conftest import ManualClock

SEAT = 1
LINK_US = 10_000
"""The round trip with the radio awake."""
ASLEEP_AFTER_US = 200_000
"""Idle this long, the radio sleeps (Android's dynamic power save is of this order)."""
WAKE_US = 100_000
"""What a sleeping radio adds to a ping: the wait for the next beacon."""
PAGE_BUSY_US = 150_000
"""The page's first echo waits for it to finish drawing."""


class WifiPhone:
    """Answers pings the way a phone on Wi-Fi does (see the module docstring)."""

    def __init__(self) -> None:
        self.last_heard_us: int | None = None
        self.answered = 0

    def round_trip_us(self, sent_us: int) -> int:
        asleep = self.last_heard_us is None or sent_us - self.last_heard_us > ASLEEP_AFTER_US
        rtt = LINK_US + (WAKE_US if asleep else 0) + (PAGE_BUSY_US if self.answered == 0 else 0)
        self.last_heard_us = sent_us + rtt
        self.answered += 1
        return rtt


def run_stream(phones: PhoneBuzzers, clock: ManualClock, phone: WifiPhone, until_us: int) -> None:
    """The seat's live stream, as api.stream sends pings, and the phone's echoes, up to `until_us`."""
    echoes: list[tuple[int, int]] = []
    while True:
        next_ping = clock.now_us() + round(phones.due_in_s(SEAT) * 1_000_000)
        if echoes and echoes[0][0] <= next_ping:
            at, ping_id = heapq.heappop(echoes)
            if at > until_us:
                break
            clock.advance(at - clock.now_us())
            assert phones.echo(SEAT, ping_id) is not None
            continue
        if next_ping > until_us:
            break
        clock.advance(next_ping - clock.now_us())
        ping_id = phones.ping(SEAT)
        heapq.heappush(echoes, (clock.now_us() + phone.round_trip_us(clock.now_us()), ping_id))
    clock.advance(until_us - clock.now_us())


def precision_ms(phones: PhoneBuzzers) -> float:
    return phones.precisions().get(SEAT, 10**9) / 1000


def test_a_phone_is_measured_to_a_few_ms_within_a_second_of_joining_and_stays_so() -> None:
    clock = ManualClock()
    phones = PhoneBuzzers(clock)
    phone = WifiPhone()
    start = clock.now_us()

    run_stream(phones, clock, phone, start + 1_000_000)
    assert precision_ms(phones) <= 10, "a second after joining, the phone's buzzer is known to ±10 ms"

    for minute in range(1, 4):
        run_stream(phones, clock, phone, start + minute * 60_000_000)
        assert precision_ms(phones) <= 10, f"still ±10 ms after {minute} min of pings between rounds"


def test_a_phone_that_stops_answering_is_not_flooded_with_pings() -> None:
    clock = ManualClock()
    phones = PhoneBuzzers(clock)
    sent = 0
    start = clock.now_us()
    while clock.now_us() < start + 60_000_000:
        clock.advance(round(phones.due_in_s(SEAT) * 1_000_000))
        phones.ping(SEAT)
        sent += 1
    assert sent <= 40, f"{sent} pings in a minute to a phone that never answers"


def test_the_estimate_ignores_round_trips_far_slower_than_the_fastest() -> None:
    """Min-round-trip filtering: 12 ms round trips and a few 110 ms ones (the radio asleep) give a
    phone of ±(6 + a little) ms, not one whose spread is the sleeping radio's."""
    clock = ManualClock()
    phones = PhoneBuzzers(clock)
    for rtt in (110_000, 12_000, 110_000, 12_000, 110_000, 14_000, 110_000, 110_000):
        ping_id = phones.ping(SEAT)
        clock.advance(rtt)
        assert phones.echo(SEAT, ping_id) == rtt
    estimate = phones.estimate(SEAT)
    assert estimate is not None
    assert estimate.delay_us == 6_000, "half the fastest round trip"
    assert estimate.uncertainty_us <= 8_000


def test_ping_ids_name_their_screen_for_its_latest_pings_only_and_go_with_its_link() -> None:
    """A long evening of pings (here 5,000 per screen) keeps at most OWNED_PINGS ids per open
    screen: the display's latest ones still name it, its older ones and a closed stream's do not."""
    clock = ManualClock()
    phones = PhoneBuzzers(clock)
    screens: list[Screen] = [SEAT, 2, "display:1", "display:2"]
    sent: dict[Screen, list[int]] = {screen: [] for screen in screens}
    for _ in range(5_000):
        for screen in screens:
            ping_id = phones.ping(screen)
            sent[screen].append(ping_id)
            clock.advance(1_000)
            if screen != 2:  # seat 2's page never answers
                assert phones.echo(screen, ping_id) == 1_000
    assert len(phones._owners) == OWNED_PINGS * len(screens)
    for screen in screens:
        assert all(phones.owner(ping_id) == screen for ping_id in sent[screen][-OWNED_PINGS:])
        assert all(phones.owner(ping_id) is None for ping_id in sent[screen][:-OWNED_PINGS])

    phones.forget("display:1")
    assert phones.owner(sent["display:1"][-1]) is None
    assert phones.owner(sent["display:2"][-1]) == "display:2"
    assert len(phones._owners) == OWNED_PINGS * (len(screens) - 1)
