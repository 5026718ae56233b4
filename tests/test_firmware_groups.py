"""The buzzer box firmware's acceptance set: 10,000 presses in groups of 1-8 players within 20 us,
with contact bounce, run cycle by cycle in simavr; every press and release must be reported once,
within 1 us of its first edge, never moved by a bounce (firmware/README.md).

The press sets come from companion/sim/presses.py; the fast tests here check that their truth is
what any debouncer with the firmware's rules would read, and that the judge counts what it should.
"""

from __future__ import annotations

import itertools
import math
import statistics
import time
from collections import Counter
from dataclasses import replace

import pytest

from companion.buzzers.protocol import Event, Heartbeat
from companion.sim import presses, simavr
from companion.sim.presses import MASK_MS, Bounces, PressPlan, PressSet, TrueEdge, evaluate, evaluate_frames, generate
from companion.sim.simavr import MS, TCCR1B, US, build_firmware, run

LIMIT_US = 1.0
"""Every edge within 1 us of the truth."""
RUN_TIMEOUT_S = 600
"""The acceptance run takes about 11 s on one desktop core; room for a busy or slower machine."""
SMALL = PressPlan(presses=2000, seed=5)
"""Enough groups for every size and bounce shape, generated in a fraction of a second."""


def pin_changes(press_set: PressSet) -> dict[int, list[tuple[int, int]]]:
    """The script's pin changes, (cycle, level) by button."""
    names = {pin.name: pin.number for pin in simavr.buttons()}
    changes: dict[int, list[tuple[int, int]]] = {}
    for line in press_set.script.lines:
        cycle, kind, *rest = line.split()
        if kind == "pin":
            changes.setdefault(names[rest[0]], []).append((int(cycle), int(rest[1])))
    return changes


def debounced(changes: list[tuple[int, int]], confirm: int, mask: int) -> list[tuple[int, int]]:
    """(edge, first-edge cycle) as the firmware's rules read one button's line, with ideal timing: a
    change counts, dated at its first edge, if the line shows the new level `confirm` cycles later;
    a press within `mask` of the last one is ignored."""
    out: list[tuple[int, int]] = []
    phase, level, edge_at, last_press = "up", 1, 0, -mask
    for cycle, new in [*changes, (math.inf, None)]:
        if phase in ("pressing", "releasing") and edge_at + confirm <= cycle:
            if phase == "pressing":
                phase = "down" if level == 0 else "up"
                if level == 0:
                    last_press = edge_at
                    out.append((1, edge_at))
            else:
                phase = "up" if level == 1 else "down"
                if level == 1:
                    out.append((0, edge_at))
        if new is None:
            break
        if new == level:
            continue
        level = new
        assert isinstance(cycle, int)
        if phase == "up" and level == 0 and cycle - last_press >= mask:
            phase, edge_at = "pressing", cycle
        elif phase == "down" and level == 1:
            phase, edge_at = "releasing", cycle
    return out


# -- the press sets ----------------------------------------------------------------------------------


def test_a_press_set_is_its_plan_and_the_same_seed_gives_the_same_set() -> None:
    press_set = generate(SMALL)
    edges = press_set.edges
    assert press_set.presses == SMALL.presses and len(edges) == 2 * SMALL.presses
    assert generate(SMALL).script.lines == press_set.script.lines
    assert generate(replace(SMALL, seed=6)).script.lines != press_set.script.lines
    groups: dict[int, list[TrueEdge]] = {}
    for edge in edges:
        if edge.edge == 1:
            groups.setdefault(edge.group, []).append(edge)
    starts = sorted(min(e.cycle for e in group) for group in groups.values())
    assert min(b - a for a, b in itertools.pairwise(starts)) >= SMALL.spacing_ms[0] * MS
    for group in groups.values():
        assert len({e.button for e in group}) == len(group) == group[0].group_size, "distinct buttons"
        first = min(e.cycle for e in group)
        assert all(e.cycle - first <= SMALL.spread_us * US for e in group)
    sizes = Counter(group[0].group_size for group in groups.values())
    assert set(sizes) == set(range(1, 9)) and min(sizes.values()) > 0.6 * max(sizes.values()), sizes
    presses_of = {(e.button, e.group): e.cycle for e in edges if e.edge == 1}
    holds = [e.cycle - presses_of[e.button, e.group] for e in edges if e.edge == 0]
    assert SMALL.hold_ms[0] * MS <= min(holds) and max(holds) <= SMALL.hold_ms[1] * MS
    assert {e.cycle % 15 for e in edges} == set(range(15)), "every phase of the sampler's 15-cycle pass"
    bouncing = sum(1 for e in edges if e.bounces) / len(edges)
    assert abs(bouncing - Bounces().probability) < 0.03


def test_bounce_trains_are_contact_chatter_that_ends_at_the_new_level() -> None:
    press_set = generate(SMALL)
    bounces = Bounces()
    changes = pin_changes(press_set)
    assert sum(len(c) for c in changes.values()) == press_set.transitions
    by_start = {(e.button, e.cycle): e for e in press_set.edges}
    spans = []
    for button, line in changes.items():
        trains: list[list[tuple[int, int]]] = []
        for cycle, level in line:
            if (button, cycle) in by_start:
                trains.append([])
            trains[-1].append((cycle, level))
        for train in trains:
            edge = by_start[button, train[0][0]]
            assert len(train) == 1 + edge.bounces and edge.bounces % 2 == 0
            assert [level for _, level in train] == [(1 - edge.edge + k) % 2 for k in range(len(train))], \
                "the line flips each time and ends at the edge's level"
            if edge.bounces:
                gaps = [b - a for (a, _), (b, _) in itertools.pairwise(train)]
                assert min(gaps) >= bounces.min_gap_us * US
                spans.append((train[-1][0] - train[0][0]) / US)
                assert bounces.span_us[0] - 1 <= spans[-1] <= bounces.span_us[1] + 1
                assert 2 * bounces.pairs[0] <= edge.bounces <= 2 * bounces.pairs[1]
    assert statistics.median(spans) < 500 < max(spans), "short trains mostly, long ones too"


@pytest.mark.parametrize(("confirm_ms", "mask_ms"), [(2.0, MASK_MS), (5.0, MASK_MS), (8.0, MASK_MS), (5.0, 55.0)])
def test_the_truth_is_what_the_firmware_rules_read_whatever_the_main_loop_lag(confirm_ms: float,
                                                                               mask_ms: float) -> None:
    """The confirmation may be checked a little late, the mask cleared a little late: the truth does
    not depend on it, so a failure of the acceptance test is the firmware's."""
    press_set = generate(SMALL)
    for button, line in pin_changes(press_set).items():
        expected = [(e.edge, e.cycle) for e in press_set.edges if e.button == button]
        assert debounced(line, round(confirm_ms * MS), round(mask_ms * MS)) == expected


def test_a_plan_whose_bounces_could_be_read_as_presses_is_refused() -> None:
    with pytest.raises(ValueError, match="confirmation"):
        PressPlan(bounces=Bounces(span_us=(50.0, 4000.0)))
    with pytest.raises(ValueError, match="apart"):
        PressPlan(spacing_ms=(45.0, 90.0))
    with pytest.raises(ValueError, match="release"):
        PressPlan(hold_ms=(6.0, 30.0))


# -- the judge ------------------------------------------------------------------------------------------


def test_the_evaluation_counts_lost_extra_and_moved_edges_and_sequence_gaps() -> None:
    # Tick counts that pass the 32-bit wrap in the middle of the set.
    origin = 1000
    plan = replace(SMALL, presses=300, start=origin + 2**32 - 2000 * MS)
    press_set = generate(plan)
    truth = press_set.edges  # by cycle, as the board confirms them

    def event(seq: int, edge: TrueEdge, late: int = 0) -> Event:
        return Event(seq, edge.button, edge.edge, (edge.cycle + late - origin) % 2**32)

    exact = [event(k, e) for k, e in enumerate(truth)]
    perfect = evaluate_frames([*exact, Heartbeat(0, len(exact), 0, 0, 0, 0)], origin, truth)
    assert perfect.errors_us == [0.0] * len(truth)
    assert (perfect.lost, perfect.extra, perfect.moved, perfect.seq_errors) == ((), (), (), 0)

    lost, moved, bounced, on_the_limit, late = truth[10], truth[20], truth[30], truth[40], truth[45]
    shifts = {moved: 700 * US, on_the_limit: 16, late: 17}
    frames: list[Event] = []
    for edge in truth:
        if edge is lost:
            continue
        frames.append(event(len(frames), edge, shifts.get(edge, 0)))
        if edge is bounced:  # the bounce reported too, as a second edge of the same kind
            frames.append(event(len(frames), edge, 300 * US))
    frames[50] = replace(frames[50], seq=frames[50].seq + 3)
    judged = evaluate_frames(frames, origin, truth)
    assert judged.lost == (lost,)
    assert [(e.button, e.edge) for e in judged.extra] == [(bounced.button, bounced.edge)]
    assert [m.truth for m in judged.moved] == [moved]
    assert [(m.truth, m.error_us) for m in judged.outside(LIMIT_US)] == [(moved, 700.0), (late, 17 / US)]
    assert judged.seq_errors == 2, "the jump and the step back after it"
    assert "lost 1, extra 1, moved 1" in judged.summary("judged")


# -- the acceptance set ------------------------------------------------------------------------------


@pytest.mark.slow
def test_ten_thousand_presses_in_bouncing_groups_of_one_to_eight_are_each_reported_within_a_microsecond() -> None:
    """One simavr run of the whole set (about 170 s of board time): the cheapest way to cover every
    group size at every phase, with thousands of bounce trains."""
    press_set = generate(PressPlan())
    began = time.monotonic()
    result = run(build_firmware(), press_set.script, watch=(TCCR1B,), timeout=RUN_TIMEOUT_S)
    judged = evaluate(result, press_set.edges)
    summary = judged.summary(f"{press_set.presses} presses in {press_set.groups} groups, "
                             f"{press_set.transitions} pin changes (simavr {time.monotonic() - began:.0f} s)")
    print(summary)
    outside = judged.outside(LIMIT_US)
    for size in range(1, 9):
        errors = [abs(m.error_us) for m in judged.matches if m.truth.group_size == size]
        print(f"  groups of {size}: {len(errors)} edges, |error| p99 {presses.percentile(errors, 99):.3f} "
              f"max {max(errors, default=math.nan):.3f} us, outside +-{LIMIT_US} us "
              f"{sum(1 for m in outside if m.truth.group_size == size)}, "
              f"lost {sum(1 for e in judged.lost if e.group_size == size)}")
    assert judged.bad_frames == 0, "the host parser reads every board frame"
    assert judged.seq_errors == 0, "sequence numbers count every event"
    assert not judged.lost, f"{len(judged.lost)} edges never reported, e.g. {judged.lost[:3]}; {summary}"
    assert not judged.extra, f"{len(judged.extra)} events with no edge, e.g. {judged.extra[:3]}; {summary}"
    assert not judged.moved, f"{len(judged.moved)} edges dated at a bounce, e.g. {judged.moved[:3]}; {summary}"
    assert not outside, f"{len(outside)} edges more than {LIMIT_US} us off, e.g. {outside[:3]}; {summary}"
