"""Phone buzzers on Wi-Fi against the real referee, simulated, with every tap's true instant known.

Six phones and the TV's page, each with a link of its own (`PROFILES`: one-way delays drawn
uniformly within their spread, 2 % of messages stalled 200 ms more, an asymmetric link among them),
each page with its own clock (loaded at its own moment, running tens of ppm off, read to 0.1 ms),
its own frames (60 Hz at its own phase) and a pointerdown handler that runs up to 2 ms after the
touch. They behave exactly like the pages (web/static/live.js): every ping is echoed with the
page's clock, the frame that first shows a round is stamped and reported, a buzz carries its tap's
stamp and that frame's. On the server side the real pieces run: `PhoneBuzzers` maps each page's
clock and judges each claim, `RoundKeeper` and the referee decide, on one simulated host clock.

Only the table is a stand-in (`RefereeDesk`): it takes the keeper's `settle` and `late_press` the
way a game does, so thousands of rounds take seconds. The whole service over loopback, with a
delay proxy, is bench/phone_fairness.py.

`judge` compares each decision with the truth: who truly pressed first (the smallest reaction to
the signal where each player saw it), whether every press is listed and within its stated bound,
and what a naive referee (first request to arrive wins) would have said.
"""

from __future__ import annotations

import heapq
import itertools
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.buzzers.phoneclock import Claim, Signal, phone_us
from companion.buzzers.phones import PhoneBuzzers, Screen
from companion.buzzers.rounds import RoundKeeper
from companion.buzzers.sources import Press
from companion.games.base import Command, Rejection, Viewer
from companion.games.reactions import ROUND_ARMED, ROUND_SETTLED
from companion.games.registry import GAMES
from companion.store import EventStore, RecordedEvent
from companion.table.gamerun import GameRun
from companion.table.session import Outcome

MS = 1000


@dataclass(frozen=True, slots=True)
class Link:
    """One way down (server to page) and one way up, each uniform within ±jitter, and stalls."""

    name: str
    down_us: int
    down_jitter_us: int
    up_us: int
    up_jitter_us: int
    spike_rate: float = 0.02
    spike_us: int = 200 * MS

    def _draw(self, rng: random.Random, mean: int, jitter: int) -> int:
        delay = mean + rng.randint(-jitter, jitter)
        return delay + (self.spike_us if rng.random() < self.spike_rate else 0)

    def down(self, rng: random.Random) -> int:
        return self._draw(rng, self.down_us, self.down_jitter_us)

    def up(self, rng: random.Random) -> int:
        return self._draw(rng, self.up_us, self.up_jitter_us)


PROFILES: tuple[Link, ...] = (
    Link("5±2 ms", 5 * MS, 2 * MS, 5 * MS, 2 * MS),
    Link("20±10 ms", 20 * MS, 10 * MS, 20 * MS, 10 * MS),
    Link("40±20 ms", 40 * MS, 20 * MS, 40 * MS, 20 * MS),
    Link("80±30 ms", 80 * MS, 30 * MS, 80 * MS, 30 * MS),
    Link("30±5 ms", 30 * MS, 5 * MS, 30 * MS, 5 * MS),
    Link("5 up / 55 down", 55 * MS, 2 * MS, 5 * MS, 2 * MS),
)
"""The links the issue measured on: Wi-Fi from good to bad, stalls, and an asymmetric one."""
DISPLAY_LINK = Link("display on the Pi (loopback)", 400, 300, 400, 300, spike_rate=0.0)

FRAME_US = 16_667
TAP_LATENCY_MAX_US = 2 * MS
RENDER_US = 1 * MS
"""From a view's arrival to the frame that may draw it: the page builds the DOM first."""
PRESS_RATE = 0.9
"""How often a player presses in a round."""
REACTION_MEAN_US = 260 * MS
REACTION_SD_US = 40 * MS
REACTION_MIN_US = 120 * MS
"""No one reacts to a signal faster: a press sooner is a guess."""
WINDOW_US = 5_000_000
ROUND_SPACING_US = 7_000_000
"""From one round's signal to the next: the window, late presses, and the pings in between."""


@dataclass(slots=True)
class PageClock:
    """A page's `performance.now()` on the host timeline: since it loaded, `drift_ppm` off, read to
    `resolution_us`; `jumps` add a step from a host time on (a clock made to jump)."""

    loaded_us: int
    drift_ppm: float
    phase_us: int
    resolution_us: int = 100
    jumps: list[tuple[int, int]] = field(default_factory=list)

    def reading_ms(self, host_us: int) -> float:
        elapsed = (host_us - self.loaded_us) * (1 + self.drift_ppm / 1e6)
        elapsed += sum(step for since, step in self.jumps if host_us >= since)
        return (elapsed // self.resolution_us) * self.resolution_us / 1000

    def next_frame_us(self, host_us: int) -> int:
        """The first frame at or after `host_us` (60 Hz at this page's phase)."""
        return host_us + (self.phase_us - host_us) % FRAME_US

    @classmethod
    def loaded(cls, rng: random.Random, now_us: int) -> PageClock:
        """A page that loaded 1 to 600 s before `now_us`, its clock up to 60 ppm off, drawing its
        frames at a phase of its own."""
        return cls(now_us - rng.randint(1, 600) * 1_000_000, rng.uniform(-60, 60), rng.randrange(FRAME_US))


def reaction_us(rng: random.Random, mean_us: int = REACTION_MEAN_US, sd_us: int = REACTION_SD_US) -> int:
    """A player's reaction, from the frame that showed them the signal to the touch."""
    return max(REACTION_MIN_US, round(rng.gauss(mean_us, sd_us)))


@dataclass(slots=True)
class Page:
    screen: Screen
    link: Link
    clock: PageClock


class SimClock:
    def __init__(self, start_us: int = 10_000_000) -> None:
        self.us = start_us

    def now_us(self) -> int:
        return self.us

    def wall_ms(self) -> int:
        return 1_795_000_000_000 + self.us // 1000


class RefereeDesk:
    """The table as the round keeper sees it, taking `settle` and `late_press` as a game does."""

    def __init__(self, clock: SimClock) -> None:
        self.clock = clock
        self.observers: list[Callable[[tuple[RecordedEvent, ...]], None]] = []
        self.view_changing_events: set[str] = set()  # no views here
        quiz = GAMES["buzzer-quiz"]
        self.run: GameRun | None = GameRun(quiz, "wifi-sim", {}, (), None)
        self.store: EventStore = None  # type: ignore[assignment]  # read only by `resume`
        self.decisions: dict[int, dict[str, Any]] = {}
        self.late: dict[int, list[dict[str, Any]]] = {}
        self._position = itertools.count(1)

    def tell(self, kind: str, data: dict[str, Any]) -> None:
        event = RecordedEvent(next(self._position), "wifi-sim", 0, kind, "system", data, self.clock.now_us(),
                              self.clock.wall_ms(), "", "")
        for observer in list(self.observers):
            observer((event,))

    def handle(self, actor: Viewer, command: Command) -> Outcome:
        number = command.args["round"]
        if command.name == "settle":
            self.decisions[number] = command.args["decision"]
            self.tell(ROUND_SETTLED, {"round": number, "decision": command.args["decision"]})
            return Outcome()
        if command.name == "late_press":
            self.late.setdefault(number, []).append(command.args["press"])
            return Outcome()
        return Outcome(Rejection("not_now"))


@dataclass(frozen=True, slots=True)
class TruePress:
    seat: int
    reaction_us: int
    """From the moment the player saw the signal (their frame, or the TV's) to the touch."""
    touched_us: int
    arrived_us: int


@dataclass(frozen=True, slots=True)
class RoundRecord:
    number: int
    signal: Signal
    armed_us: int
    truth: tuple[TruePress, ...]
    decision: dict[str, Any] | None
    late: tuple[dict[str, Any], ...]


class WifiTable:
    """Six phones and a TV on their links, the real phone clock mapping and round keeper."""

    def __init__(self, seed: int, signal: Signal, links: Sequence[Link] = PROFILES, press_rate: float = PRESS_RATE,
                 reaction_mean_us: int = REACTION_MEAN_US, reaction_sd_us: int = REACTION_SD_US) -> None:
        self.rng = random.Random(seed)
        self.signal = signal
        self.press_rate = press_rate
        self.reaction = (reaction_mean_us, reaction_sd_us)
        self.clock = SimClock()
        self._queue: list[tuple[int, int, Callable[[], None]]] = []
        self._order = itertools.count()
        self.phones = PhoneBuzzers(self.clock)
        self.desk = RefereeDesk(self.clock)
        self.keeper = RoundKeeper(self.desk, self.clock, self.schedule, phones_waiting=self.waiting)
        self.pages: dict[Screen, Page] = {}
        for seat, link in enumerate(links, start=1):
            self.pages[seat] = Page(seat, link, self._page_clock())
        self.pages["display:1"] = Page("display:1", DISPLAY_LINK, self._page_clock())
        self.refused: list[tuple[int, str]] = []
        for page in self.pages.values():
            self._ping_loop(page)

    def _page_clock(self) -> PageClock:
        return PageClock.loaded(self.rng, self.clock.now_us())

    # -- the simulated time ----------------------------------------------------------------------

    def schedule(self, delay_s: float, action: Callable[[], None]) -> None:
        self.at(self.clock.now_us() + max(0, round(delay_s * 1e6)), action)

    def at(self, t_us: int, action: Callable[[], None]) -> None:
        heapq.heappush(self._queue, (max(t_us, self.clock.now_us()), next(self._order), action))

    def run_until(self, t_us: int) -> None:
        while self._queue and self._queue[0][0] <= t_us:
            when, _, action = heapq.heappop(self._queue)
            self.clock.us = max(self.clock.us, when)
            action()
        self.clock.us = max(self.clock.us, t_us)

    # -- the pages ---------------------------------------------------------------------------------

    def host_timing(self) -> dict[int, str]:
        """By seat, how the service times that phone now (as the host's console shows it)."""
        return {seat: "mapped" if mapped else "arrival" for seat, mapped in self.phones.clocks_mapped().items()}

    def waiting(self) -> dict[int, int]:
        return {seat: self.phones.wait_us(seat) for seat in self.pages if isinstance(seat, int)
                and self.phones.listening(seat)}

    def _ping_loop(self, page: Page) -> None:
        """The page's stream: a ping when the server says one is due, echoed with the page's clock."""
        def tick() -> None:
            if self.phones.due_in_s(page.screen) <= 0:
                ping_id = self.phones.ping(page.screen)
                got = self.clock.now_us() + page.link.down(self.rng)
                reading = page.clock.reading_ms(got)

                def echo() -> None:
                    self.phones.echo(page.screen, ping_id, reading)
                self.at(got + page.link.up(self.rng), echo)
            self.schedule(max(self.phones.due_in_s(page.screen), 0.001), tick)
        self.at(self.clock.now_us(), tick)

    def _shown(self, page: Page, number: int, frame_us: int) -> None:
        """The page reports its frame; the server maps it (as hub.shown does) and tells the keeper."""
        stamp = page.clock.reading_ms(frame_us)

        def arrive() -> None:
            stamp_us = phone_us(stamp)
            assert stamp_us is not None
            mapped = self.phones.map(page.screen, stamp_us)
            if mapped is not None:
                self.keeper.on_shown(number, page.screen if isinstance(page.screen, int) else None, mapped)
        self.at(frame_us + page.link.up(self.rng), arrive)

    def _buzz(self, page: Page, number: int, touched_us: int, frame_us: int) -> int:
        """The page's buzz for a touch at `touched_us` (true); the time it reaches the server."""
        stamped = touched_us + self.rng.randint(0, TAP_LATENCY_MAX_US)
        tap = phone_us(page.clock.reading_ms(stamped))
        shown = phone_us(page.clock.reading_ms(frame_us)) if frame_us <= stamped else None
        assert tap is not None and isinstance(page.screen, int)
        claim = Claim(tap, number, shown)
        seat = page.screen
        arrived = stamped + page.link.up(self.rng)

        def arrive() -> None:
            press: Press | None = self.phones.press(seat, arrived, claim)
            if press is not None:
                assert press.phone is not None
                if press.phone.refused:
                    self.refused.append((seat, press.phone.refused))
                self.keeper.on_press(press, seat)
        self.at(arrived, arrive)
        return arrived

    # -- a round -----------------------------------------------------------------------------------

    def play_round(self, number: int) -> RoundRecord:
        armed = self.clock.now_us()
        self.desk.tell(ROUND_ARMED, {"round": number, "at_us": armed, "mode": "race", "window_us": WINDOW_US,
                                     "grace_us": 2 * MS, "penalty": "none", "lockout_us": 0, "signal": self.signal})
        frames: dict[Screen, int] = {}
        for page in self.pages.values():
            frames[page.screen] = page.clock.next_frame_us(armed + page.link.down(self.rng) + RENDER_US)
            self._shown(page, number, frames[page.screen])
        truth: list[TruePress] = []
        mean, sd = self.reaction
        for page in self.pages.values():
            if not isinstance(page.screen, int) or self.rng.random() >= self.press_rate:
                continue
            reaction = reaction_us(self.rng, mean, sd)
            seen = frames[page.screen] if self.signal == "phones" else frames["display:1"]
            touched = seen + reaction
            arrived = self._buzz(page, number, touched, frames[page.screen])
            truth.append(TruePress(page.screen, reaction, touched, arrived))
        self.run_until(armed + ROUND_SPACING_US)
        return RoundRecord(number, self.signal, armed, tuple(truth), self.desk.decisions.get(number),
                           tuple(self.desk.late.get(number, [])))

    def play(self, rounds: int) -> list[RoundRecord]:
        self.run_until(self.clock.now_us() + 30_000_000)  # the pages joined: their clocks mapped
        return [self.play_round(number) for number in range(1, rounds + 1)]


# -- the judge -------------------------------------------------------------------------------------

MARGINS_MS = ((0, 5), (5, 10), (10, 20), (20, 50), (50, 10_000))


@dataclass(slots=True)
class Verdicts:
    """What many rounds showed: per true margin between the first two, how often the winner shown
    (a tie drawn fairly) was the true first, for us and for the naive referee."""

    rounds: int = 0
    confident_wrong: list[int] = field(default_factory=list)
    unlisted: list[tuple[int, int]] = field(default_factory=list)
    out_of_bound: list[tuple[int, int, int, int]] = field(default_factory=list)
    """(round, seat, error µs, stated bound µs) for every press whose time missed its bound."""
    ties: int = 0
    tie_gaps_us: list[int] = field(default_factory=list)
    late: int = 0
    methods: dict[str, int] = field(default_factory=dict)
    ours: dict[tuple[int, int], list[float]] = field(default_factory=dict)
    naive: dict[tuple[int, int], list[float]] = field(default_factory=dict)
    first_shown: dict[int, list[float]] = field(default_factory=dict)
    """Per seat: when truly first, the chance it was shown the winner."""

    def rate(self, table: dict[tuple[int, int], list[float]], bucket: tuple[int, int]) -> float:
        values = table.get(bucket, [])
        return sum(values) / len(values) if values else float("nan")


def _bucket(margin_us: int) -> tuple[int, int]:
    return next(b for b in MARGINS_MS if b[0] * MS <= margin_us < b[1] * MS)


def judge(records: Iterable[RoundRecord]) -> Verdicts:
    verdicts = Verdicts()
    for record in records:
        verdicts.rounds += 1
        decision = record.decision
        if decision is None:
            continue
        rows = {row["who"]: row for row in (*decision["order"], *record.late)}
        verdicts.late += len(record.late)
        for row in rows.values():
            verdicts.methods[row.get("method", "")] = verdicts.methods.get(row.get("method", ""), 0) + 1
        early = {row["who"] for row in decision["false_starts"]}
        armed_at = int(decision["order"][0]["t_us"] - decision["order"][0]["after_arm_us"]) \
            if decision["order"] else record.armed_us
        for press in record.truth:
            who = f"seat:{press.seat}"
            if who not in rows and who not in early:
                verdicts.unlisted.append((record.number, press.seat))
                continue
            if who in rows:
                row = rows[who]
                true_t = armed_at + press.reaction_us if record.signal == "phones" else press.touched_us
                error = int(row["t_us"]) - true_t
                if abs(error) > int(row["uncertainty_us"]):
                    verdicts.out_of_bound.append((record.number, press.seat, error, int(row["uncertainty_us"])))
        if len(record.truth) < 1:
            continue
        ranked = sorted(record.truth, key=lambda p: p.reaction_us)
        first = ranked[0]
        if decision["outcome"] == "winner" and decision["winner"] != f"seat:{first.seat}":
            verdicts.confident_wrong.append(record.number)
        if decision["outcome"] == "tie":
            verdicts.ties += 1
            tied = set(decision["tied_first"])
            gaps = [abs(p.reaction_us - first.reaction_us) for p in record.truth if f"seat:{p.seat}" in tied]
            verdicts.tie_gaps_us.append(max(gaps))
        if decision["outcome"] == "winner":
            shown = 1.0 if decision["winner"] == f"seat:{first.seat}" else 0.0
        elif decision["outcome"] == "tie":
            tied = decision["tied_first"]
            shown = 1.0 / len(tied) if f"seat:{first.seat}" in tied else 0.0
        else:
            shown = 0.0
        verdicts.first_shown.setdefault(first.seat, []).append(shown)
        if len(ranked) >= 2:
            bucket = _bucket(ranked[1].reaction_us - first.reaction_us)
            verdicts.ours.setdefault(bucket, []).append(shown)
            naive_first = min(record.truth, key=lambda p: p.arrived_us)
            verdicts.naive.setdefault(bucket, []).append(1.0 if naive_first is first else 0.0)
    return verdicts


def report(verdicts: Verdicts) -> list[str]:
    """The figures, as lines to print."""
    lines = [f"{verdicts.rounds} rounds: {verdicts.ties} ties, {len(verdicts.confident_wrong)} confident wrong "
             f"winners, {len(verdicts.unlisted)} presses unlisted, {len(verdicts.out_of_bound)} outside their "
             f"bound, {verdicts.late} listed late; timed by {dict(sorted(verdicts.methods.items()))}"]
    for bucket in MARGINS_MS:
        count = len(verdicts.ours.get(bucket, []))
        lines.append(f"  margin {bucket[0]}-{bucket[1] if bucket[1] < 10_000 else '…'} ms ({count} rounds): "
                     f"winner shown right {verdicts.rate(verdicts.ours, bucket):.1%}, naive referee "
                     f"{verdicts.rate(verdicts.naive, bucket):.1%}")
    lines.append("  truly first, shown the winner: " + ", ".join(
        f"seat {seat} {sum(v) / len(v):.0%}" for seat, v in sorted(verdicts.first_shown.items())))
    return lines
