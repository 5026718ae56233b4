"""The referee: order by edge time, ties within uncertainty, false starts, hands-off faults, timeout."""

from __future__ import annotations

from functools import reduce

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.buzzers.referee import RoundSpec, TimedPress, arm, decide, due_at_us, press, tied

ARM = 1_000_000


def race(**kw) -> RoundSpec:
    return RoundSpec(**{"mode": "race", "armed_at_us": ARM, "window_us": 5_000_000, "grace_us": 2_000, **kw})


def play(spec: RoundSpec, *presses: TimedPress):
    return reduce(press, presses, arm(spec))


def test_the_first_edge_wins_even_when_its_callback_arrives_last() -> None:
    state = play(race(), TimedPress("seat:2", ARM + 300_500), TimedPress("seat:1", ARM + 300_000))
    assert decide(state, ARM + 300_000 + 1_999) is None, "waits the grace period"
    decision = decide(state, ARM + 302_000)
    assert decision is not None
    assert (decision.outcome, decision.winner) == ("winner", "seat:1")
    rows = decision.to_json()["order"]
    expected = [("seat:1", 300_000, 0), ("seat:2", 300_500, 500)]
    assert [(r["who"], r["after_arm_us"], r["gap_us"]) for r in rows] == expected


def test_presses_within_combined_uncertainty_are_a_tie_never_settled_by_seat_order() -> None:
    state = play(race(), TimedPress("seat:1", ARM + 100_000, 2_000), TimedPress("seat:2", ARM + 103_000, 1_500))
    decision = decide(state, ARM + 200_000)
    assert decision is not None and decision.outcome == "tie"
    assert decision.tied_first == ("seat:1", "seat:2") and decision.winner is None


def test_identical_wired_timestamps_are_a_tie() -> None:
    state = play(race(), TimedPress("seat:3", ARM + 5), TimedPress("seat:1", ARM + 5))
    assert decide(state, ARM + 10_000).outcome == "tie"  # type: ignore[union-attr]


@pytest.mark.parametrize(("penalty", "late_press_counts"), [("none", True), ("lockout_round", False)])
def test_false_starts_are_recorded_with_how_early_and_may_lock_out(penalty, late_press_counts) -> None:
    state = play(race(penalty=penalty), TimedPress("seat:1", ARM - 40_000), TimedPress("seat:1", ARM + 90_000),
                 TimedPress("seat:2", ARM + 150_000))
    decision = decide(state, ARM + 200_000)
    assert decision is not None
    assert decision.to_json()["false_starts"][0]["early_us"] == 40_000
    assert decision.winner == ("seat:1" if late_press_counts else "seat:2")


def test_a_timed_lockout_ends() -> None:
    spec = race(penalty="lockout_ms", lockout_us=250_000)
    early = TimedPress("seat:1", ARM - 1)
    assert decide(play(spec, early, TimedPress("seat:1", ARM + 100_000)), ARM + 5_000_001).outcome == "no_reaction"  # type: ignore[union-attr]
    assert decide(play(spec, early, TimedPress("seat:1", ARM + 300_000)), ARM + 5_000_001).winner == "seat:1"  # type: ignore[union-attr]


def test_no_press_in_the_window_is_no_reaction_at_the_timeout() -> None:
    state = arm(race(window_us=5_000_000))
    assert due_at_us(state) == ARM + 5_000_000
    assert decide(state, ARM + 4_999_999) is None
    assert decide(state, ARM + 5_000_000).outcome == "no_reaction"  # type: ignore[union-attr]


def test_any_press_in_a_hands_off_window_is_a_fault_with_its_time() -> None:
    spec = RoundSpec("hands_off", ARM, 5_000_000)
    state = play(spec, TimedPress("seat:4", ARM + 700_000))
    assert decide(state, ARM + 1_000_000) is None, "the whole window is watched"
    decision = decide(state, ARM + 5_000_000)
    assert decision is not None and decision.outcome == "faults"
    assert decision.to_json()["order"][0]["after_arm_us"] == 700_000
    assert decide(arm(spec), ARM + 5_000_000).outcome == "clean"  # type: ignore[union-attr]


presses_strategy = st.lists(
    st.tuples(st.integers(1, 8), st.integers(0, 3_000_000), st.sampled_from([0, 10, 500, 20_000])),
    max_size=12,
)


@settings(max_examples=400, deadline=None)
@given(presses_strategy, st.randoms())
def test_the_published_order_is_the_time_order_and_ties_are_exactly_the_close_pairs(raw, rnd) -> None:
    presses = [TimedPress(f"seat:{who}", ARM + t, u) for who, t, u in raw]
    delivered = presses[:]
    rnd.shuffle(delivered)
    decision = decide(play(race(), *delivered), ARM + 10_000_000)
    assert decision is not None
    first_by_who: dict[str, TimedPress] = {}
    for p in presses:
        if p.who not in first_by_who or (p.t_us, p.uncertainty_us) < (first_by_who[p.who].t_us,
                                                                      first_by_who[p.who].uncertainty_us):
            first_by_who[p.who] = p
    expected = sorted(first_by_who.values(), key=lambda p: (p.t_us, p.who))
    assert [(p.who, p.t_us) for p in decision.order] == [(p.who, p.t_us) for p in expected]
    close = {(a.who, b.who) for i, a in enumerate(expected) for b in expected[i + 1:] if tied(a, b)}
    assert set(decision.ties) == close
    if expected:
        leaders = [p.who for p in expected if tied(expected[0], p)]
        assert decision.outcome == ("tie" if len(leaders) > 1 else "winner")


def test_a_press_is_only_a_false_start_when_its_uncertainty_cannot_reach_the_signal() -> None:
    """A phone's press estimated 1 ms early at ±360 ms may well have come after the signal: it
    counts as a press; one estimated 400 ms early at ±360 ms was certainly early."""
    state = play(race(), TimedPress("seat:2", ARM - 1_000, 360_000, "phone"),
                 TimedPress("seat:3", ARM - 400_000, 360_000, "phone"))
    decision = decide(state, ARM + 5_000_001)
    assert decision is not None
    assert [p.who for p in decision.order] == ["seat:2"]
    assert [(f["who"], f["early_us"]) for f in decision.to_json()["false_starts"]] == [("seat:3", 400_000)]


def test_presses_of_one_box_are_ordered_by_its_own_clock_whatever_the_sync_error() -> None:
    # The box's clock maps onto the host's within 150 us, yet it saw seat 2 press 3 us after seat 1.
    box = "box@1"
    first = TimedPress("seat:1", 10_000, 151, "box", box, 5_000_000_000)
    second = TimedPress("seat:2", 10_000, 151, "box", box, 5_000_003_000)
    state = reduce(press, [second, first], arm(RoundSpec("race", 0, 1_000_000)))
    decision = decide(state, 2_000_000)
    assert decision is not None
    assert decision.outcome == "winner" and decision.winner == "seat:1"
    assert decision.ties == ()
    # Seen in the same snapshot: a tie the host can see, settled by the game's rule.
    same = TimedPress("seat:2", 10_000, 151, "box", box, 5_000_000_000)
    assert tied(first, same)
    # Another box's press at that time is compared through the sync uncertainty as usual.
    other = TimedPress("seat:3", 10_100, 151, "box", "box@2", 1_000)
    assert tied(first, other)
