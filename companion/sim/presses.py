"""Seeded press sets for the buzzer box firmware in simavr, and the judge of what it reported.

The firmware's promise (firmware/README.md) is about the worst moment for it: several players
slapping within microseconds while their contacts chatter. A press set is that, many times over:
groups of distinct buttons pressed within `spread_us` of the group's first press, at random cycles
(so every phase against the sampler's loops and the main loop comes up), each press and release
possibly followed by contact bounce, and the truth, the cycle of every edge's first transition.

`evaluate` then matches what the board reported against that truth, button by button in time
order, and counts what went wrong: an edge with no event (lost), an event with no edge (extra, e.g.
a bounce reported as a press), an event far from its edge (moved, e.g. dated at a bounce), and
sequence numbers that do not count every event. Pure: nothing runs here, `simavr.run` does that.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from companion.buzzers.protocol import Event, FrameParser, Heartbeat
from companion.sim import simavr
from companion.sim.simavr import MS, US, Script, SimRun

CONFIRM_MS = 5.0
"""The firmware's default confirmation time: a new level counts once it has lasted this long."""
MASK_MS = 50.0
"""The firmware's default mask time: a button's presses within it of its last press are ignored."""
SEQ_MODULUS = 1 << 16
TICKS_MODULUS = 1 << 32


@dataclass(frozen=True, slots=True)
class Bounces:
    """Contact chatter after an edge: `2 * pairs` extra transitions, the line going back and forth,
    spread over a train `span_us` long that ends at the edge's new level.

    Mechanical contacts chatter for tens of microseconds to a millisecond or two (arcade
    microswitches mostly well under 1 ms), in pulses from a few microseconds to a few hundred. The
    span is log-uniform, so short and long trains are equally likely per decade; the transitions
    fall at random inside it, never closer than `min_gap_us`: a shorter pulse is under the sampler's
    resolution (a 15-cycle pass), and an edge cut off that quickly has no time defined to 1 us.
    """

    probability: float = 0.75
    """Of each press and each release bouncing: most contacts do; the rest keep clean edges in every
    mix of a group."""
    span_us: tuple[float, float] = (50.0, 1500.0)
    pairs: tuple[int, int] = (1, 4)
    """Back-and-forth pairs per train, inclusive: 2 to 8 extra transitions."""
    min_gap_us: float = 3.0

    def __post_init__(self) -> None:
        low, high = self.span_us
        if not 0 <= self.probability <= 1 or not 0 < low <= high or not 1 <= self.pairs[0] <= self.pairs[1]:
            raise ValueError(f"bad bounce parameters {self}")
        if 2 * self.pairs[1] * self.min_gap_us >= low:
            raise ValueError("the shortest train cannot hold the most transitions at the minimum gap")


@dataclass(frozen=True, slots=True)
class PressPlan:
    """What a press set holds. The defaults are the firmware's acceptance set: 10,000 presses."""

    presses: int = 10_000
    seed: int = 1
    group_sizes: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8)
    """Drawn uniformly: every size gets about as many groups, so the largest (where a press waits
    longest behind the others) are measured as often as single presses."""
    spread_us: float = 20.0
    """The later presses of a group come 0 to this long after its first (cycles drawn uniformly)."""
    hold_ms: tuple[float, float] = (10.0, 30.0)
    """Each press is held this long (uniform), from its first edge to its release's first edge."""
    spacing_ms: tuple[float, float] = (60.0, 90.0)
    """From one group's first press to the next one's (uniform): past the mask time of every press
    of the group, and past the confirmation of its releases."""
    bounces: Bounces | None = field(default_factory=Bounces)
    """None: clean edges only."""
    start: int = 2 * MS
    """The first group comes a spacing after this cycle (the firmware has set up its clock and pins
    well before it)."""

    def __post_init__(self) -> None:
        # The truth is only the truth if the firmware's debouncing cannot read it another way: every
        # bounce train ends long before the confirmation time, the final level is then held well past
        # it, and a button's next press comes after its mask time and its release's confirmation.
        if self.presses < 0 or not self.group_sizes or not all(1 <= s <= 8 for s in self.group_sizes):
            raise ValueError(f"bad press plan {self}")
        chatter_ms = self.bounces.span_us[1] / 1000 if self.bounces else 0.0
        if chatter_ms > CONFIRM_MS / 2:
            raise ValueError("bounce trains must end well before the confirmation time")
        if self.hold_ms[0] - chatter_ms < 1.5 * CONFIRM_MS:
            raise ValueError("a press must stay down well past its confirmation before its release")
        settled_ms = max(MASK_MS, self.hold_ms[1] + CONFIRM_MS + chatter_ms) + self.spread_us / 1000
        if self.spacing_ms[0] < settled_ms + 5:
            raise ValueError(f"groups must be at least {settled_ms + 5:.1f} ms apart (mask and release)")


@dataclass(frozen=True, slots=True)
class TrueEdge:
    """A press (edge 1) or release (edge 0) the script makes, at its first transition."""

    button: int
    edge: int
    cycle: int
    group: int
    """Index of the group the press belongs to (a release belongs to its press's group)."""
    group_size: int
    bounces: int
    """Extra transitions after the first one (0: a clean edge)."""


@dataclass(frozen=True)
class PressSet:
    """A script for `simavr.run` and the truth it holds."""

    plan: PressPlan
    script: Script
    edges: tuple[TrueEdge, ...]
    """Every press and release, by cycle."""
    transitions: int
    """Pin changes in the script, bounces included."""
    groups: int
    end: int
    """The script's end cycle: after the last release has been confirmed and reported."""

    @property
    def presses(self) -> int:
        return sum(1 for e in self.edges if e.edge == 1)


def bounce_train(rng: random.Random, bounces: Bounces) -> list[int]:
    """Cycles after an edge's first transition at which the line flips again: an even number, so
    the train ends at the edge's new level, the last at the train's span."""
    low, high = bounces.span_us
    span = round(math.exp(rng.uniform(math.log(low), math.log(high))) * US)
    flips = 2 * rng.randint(*bounces.pairs)
    min_gap = math.ceil(bounces.min_gap_us * US)
    while True:
        instants = [*sorted(rng.randrange(1, span) for _ in range(flips - 1)), span]
        gaps = [b - a for a, b in itertools.pairwise([0, *instants])]
        if min(gaps) >= min_gap:
            return instants


def generate(plan: PressPlan | None = None) -> PressSet:
    """The press set of `plan` (the acceptance set by default). Same plan, same set."""
    plan = plan or PressPlan()
    rng = random.Random(plan.seed)
    changes: list[tuple[int, int, int]] = []  # (cycle, button, level), 0 = pressed (active low)
    truth: list[TrueEdge] = []

    def edge(button: int, pressed: int, at: int, group: int, size: int) -> None:
        flips: list[int] = []
        if plan.bounces and rng.random() < plan.bounces.probability:
            flips = bounce_train(rng, plan.bounces)
        level = 0 if pressed else 1
        changes.append((at, button, level))
        for k, after in enumerate(flips):
            changes.append((at + after, button, level if k % 2 else 1 - level))
        truth.append(TrueEdge(button, pressed, at, group, size, len(flips)))

    at, groups, pressed, spread = plan.start, 0, 0, round(plan.spread_us * US)
    while pressed < plan.presses:
        at += rng.randrange(round(plan.spacing_ms[0] * MS), round(plan.spacing_ms[1] * MS) + 1)
        size = min(rng.choice(plan.group_sizes), plan.presses - pressed)
        pressed += size
        for k, button in enumerate(rng.sample(range(1, 9), size)):
            down = at + (rng.randint(0, spread) if k else 0)
            up = down + rng.randrange(round(plan.hold_ms[0] * MS), round(plan.hold_ms[1] * MS) + 1)
            edge(button, 1, down, groups, size)
            edge(button, 0, up, groups, size)
        groups += 1
    script = Script()
    for cycle, button, level in sorted(changes):
        script.pin(cycle, simavr.button(button), level)
    end = at + round(plan.spacing_ms[0] * MS)
    script.end(end)
    return PressSet(plan, script, tuple(sorted(truth, key=lambda e: (e.cycle, e.button))), len(changes),
                    groups, end)


# -- judging a run ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Match:
    truth: TrueEdge
    event: Event
    cycle: int
    """The event's time as a cycle of the run (its ticks, unwrapped, plus the timer's origin)."""

    @property
    def error_us(self) -> float:
        """Reported minus true."""
        return (self.cycle - self.truth.cycle) / US


@dataclass(frozen=True)
class Evaluation:
    """How the board's events compare with a press set's truth."""

    matches: tuple[Match, ...]
    lost: tuple[TrueEdge, ...]
    """True edges with no event."""
    extra: tuple[Event, ...]
    """Events with no true edge (a bounce reported, an edge reported twice, a wrong edge kind)."""
    moved_us: float
    """Matches further than this from their edge count as moved (also kept in `matches`)."""
    events: int
    seq_errors: int
    """Events whose sequence number is not the previous one's plus one (the first: 0)."""
    dropped: int
    noise: int
    """The last heartbeat's counters: snapshots or events the board dropped, glitches it ignored."""
    bad_frames: int

    @property
    def errors_us(self) -> list[float]:
        return [m.error_us for m in self.matches]

    @property
    def moved(self) -> tuple[Match, ...]:
        return tuple(m for m in self.matches if abs(m.error_us) > self.moved_us)

    def outside(self, limit_us: float) -> list[Match]:
        """The matches whose |error| exceeds `limit_us`."""
        return [m for m in self.matches if abs(m.error_us) > limit_us]

    def summary(self, name: str) -> str:
        """One line: the error spread and every count."""
        errors = self.errors_us
        if errors:
            spread = (f"error min {min(errors):+.3f} median {statistics.median(errors):+.3f} "
                      f"p99 |e| {percentile([abs(e) for e in errors], 99):.3f} "
                      f"max |e| {max(abs(e) for e in errors):.3f} us")
        else:
            spread = "no edge matched"
        return (f"{name}: {len(self.matches)} edges matched of {len(self.matches) + len(self.lost)}, {spread}; "
                f"lost {len(self.lost)}, extra {len(self.extra)}, moved {len(self.moved)}, "
                f"sequence errors {self.seq_errors} of {self.events}, dropped {self.dropped}, noise {self.noise}")


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest rank, as the benchmarks report it."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


def unwrap(events: Iterable[Event], origin: int) -> list[tuple[Event, int]]:
    """Each event with its time as a cycle of the run. The first is taken as it is (the board's
    count starts at 0 at `origin`); events come a confirmation time after their edge, so in nearly
    time order, and each later 32-bit count is taken as the nearest to the previous one."""
    out: list[tuple[Event, int]] = []
    last: int | None = None
    for event in events:
        if last is None:
            last = event.ticks
        else:
            last += (event.ticks - last + TICKS_MODULUS // 2) % TICKS_MODULUS - TICKS_MODULUS // 2
        out.append((event, origin + last))
    return out


def evaluate_frames(frames: Iterable[object], origin: int, truth: Sequence[TrueEdge], moved_us: float = 100.0,
                    window: int = 4 * MS, bad_frames: int = 0) -> Evaluation:
    """Matches events to true edges button by button, in time order: an event of the same kind
    within `window` cycles of the next unmatched edge is its report; one earlier is extra; an edge
    with no such event is lost. The window is under half the closest two edges of one button (a
    press and its release, 10 ms or more apart), so a moved event is still matched, and counted as
    moved, rather than taken for a loss and an extra."""
    frames = list(frames)
    events = [f for f in frames if isinstance(f, Event)]
    heartbeats = [f for f in frames if isinstance(f, Heartbeat)]
    seq_errors, expected = 0, 0
    for event in events:
        seq_errors += event.seq != expected
        expected = (event.seq + 1) % SEQ_MODULUS
    by_button: dict[int, list[tuple[Event, int]]] = {}
    for event, cycle in unwrap(events, origin):
        by_button.setdefault(event.button, []).append((event, cycle))
    edges: dict[int, list[TrueEdge]] = {}
    for edge in truth:
        edges.setdefault(edge.button, []).append(edge)
    matches: list[Match] = []
    lost: list[TrueEdge] = []
    extra: list[Event] = []
    for button in sorted(set(by_button) | set(edges)):
        reported = sorted(by_button.get(button, []), key=lambda pair: pair[1])
        true = sorted(edges.get(button, []), key=lambda e: e.cycle)
        i = j = 0
        while i < len(true) and j < len(reported):
            (event, cycle), edge = reported[j], true[i]
            delta = cycle - edge.cycle
            if delta > window:
                lost.append(edge)
                i += 1
            elif delta < -window or event.edge != edge.edge:
                extra.append(event)
                j += 1
            else:
                matches.append(Match(edge, event, cycle))
                i += 1
                j += 1
        lost += true[i:]
        extra += [event for event, _ in reported[j:]]
    last = heartbeats[-1] if heartbeats else None
    return Evaluation(tuple(sorted(matches, key=lambda m: m.truth.cycle)), tuple(lost), tuple(extra), moved_us,
                      len(events), seq_errors, last.dropped if last else 0, last.noise if last else 0, bad_frames)


def evaluate(run: SimRun, truth: Sequence[TrueEdge], moved_us: float = 100.0) -> Evaluation:
    """`evaluate_frames` on what a batch run sent (run it with `watch=(TCCR1B,)` for its origin)."""
    parser = FrameParser()
    frames = parser.feed(run.data)  # a frame cut off by the run's end is neither read nor counted bad
    return evaluate_frames(frames, run.timer_origin, truth, moved_us, bad_frames=parser.bad_frames)
