"""GPIO buttons with gpiozero's MockFactory and controlled edge times."""

from __future__ import annotations

from gpiozero.pins.mock import MockFactory

from companion.buzzers.gpio import GpioSource
from companion.buzzers.referee import Decision, Mode, RoundSpec, TimedPress, arm, decide, press
from companion.buzzers.sources import Press
from tests.conftest import EdgeClock, Later, edge


def source_with(factory: MockFactory, edges: EdgeClock, later: Later, presses: list[Press]) -> GpioSource:
    """A source on pins 17, 27 and 22. Keep it referenced: its pins hold their callbacks weakly,
    so a dropped source goes silent whenever the garbage collector passes."""
    source = GpioSource({"1": 17, "2": 27, "3": 22}, edges, factory, later)
    source.start(presses.append)
    return source


def test_order_follows_edge_ticks_even_when_callbacks_arrive_out_of_order(factory, edges, later) -> None:
    presses: list[Press] = []
    _source = source_with(factory, edges, later, presses)  # held, as the service holds its sources
    edge(factory, edges, 27, 100.300_400, True)  # seat 2's edge is delivered first...
    edge(factory, edges, 17, 100.300_100, True)  # ...but seat 1's happened 300 us earlier
    later.run()
    round_ = arm(RoundSpec("race", 100_000_000, 5_000_000))
    for p in presses:
        round_ = press(round_, TimedPress(p.button, p.t_us, p.uncertainty_us, p.source))
    decision = decide(round_, 200_000_000)
    assert decision is not None and decision.winner == "gpio:1"
    assert [p.t_us for p in decision.order] == [100_300_100, 100_300_400]


def refereed(presses: list[Press], mode: Mode, armed_at_s: float) -> Decision:
    """The decision on these wired presses for a round armed at `armed_at_s` (5 s window)."""
    round_ = arm(RoundSpec(mode, round(armed_at_s * 1_000_000), 5_000_000))
    for p in presses:
        round_ = press(round_, TimedPress(p.button, p.t_us, p.uncertainty_us, p.source))
    decision = decide(round_, 10**12)
    assert decision is not None
    return decision


def test_wired_edges_closer_than_their_uncertainty_are_a_tie(factory, edges, later) -> None:
    presses: list[Press] = []
    _source = source_with(factory, edges, later, presses)  # held, as the service holds its sources
    edge(factory, edges, 22, 100.500_030, True)  # 30 us apart: within 2 x 20 us
    edge(factory, edges, 17, 100.500_000, True)
    edge(factory, edges, 27, 100.500_100, True)  # 100 us after the first: told apart
    later.run()
    decision = refereed(presses, "race", 100.0)
    assert decision.outcome == "tie" and decision.winner is None
    assert decision.tied_first == ("gpio:1", "gpio:3")
    assert decision.ties == (("gpio:1", "gpio:3"),)


def test_wired_false_starts_and_hands_off_faults_keep_their_edge_times(factory, edges, later) -> None:
    presses: list[Press] = []
    _source = source_with(factory, edges, later, presses)  # held, as the service holds its sources
    edge(factory, edges, 17, 99.912_345, True)  # 87.655 ms before the signal
    edge(factory, edges, 27, 101.250_000, True)  # 1.25 s into a hands-off window
    later.run()
    decision = refereed(presses, "hands_off", 100.0)
    assert decision.outcome == "faults"
    assert [(p.who, p.t_us - 100_000_000) for p in decision.order] == [("gpio:2", 1_250_000)]
    assert decision.to_json()["false_starts"][0]["early_us"] == 87_655
    assert decision.to_json()["false_starts"][0]["who"] == "gpio:1"


def test_no_wired_press_in_the_window_is_no_reaction(factory, edges, later) -> None:
    presses: list[Press] = []
    _source = source_with(factory, edges, later, presses)  # held, as the service holds its sources
    edge(factory, edges, 17, 106.0, True)  # after the 5 s window closed
    later.run()
    decision = refereed(presses, "race", 100.0)
    assert decision.outcome == "no_reaction" and decision.order == ()


def test_a_bounce_train_keeps_the_first_edges_time(factory, edges, later) -> None:
    presses: list[Press] = []
    source = source_with(factory, edges, later, presses)
    t = 100.5
    for i in range(6):  # contact bounce: low, high, low, high... within a millisecond
        edge(factory, edges, 17, t + i * 0.000_15, i % 2 == 0)
    edge(factory, edges, 17, t + 0.001, True)
    later.run()
    assert [p.t_us for p in presses] == [100_500_000]
    assert source.watchers[0].health.bounces >= 3


def test_an_edge_that_does_not_stay_pressed_is_noise_not_a_press(factory, edges, later) -> None:
    presses: list[Press] = []
    source = source_with(factory, edges, later, presses)
    edge(factory, edges, 22, 101.0, True)
    edge(factory, edges, 22, 101.000_5, False)  # released before the 5 ms confirmation
    later.run(up_to=0.005)
    assert presses == []
    assert source.watchers[2].health.noise == 1


def test_a_stuck_button_is_flagged_and_excluded_until_released(factory, edges, later) -> None:
    presses: list[Press] = []
    source = source_with(factory, edges, later, presses)
    edge(factory, edges, 17, 102.0, True)
    later.run(up_to=0.005)
    assert len(presses) == 1
    later.run()  # five seconds later it is still held down
    assert source.watchers[0].health.stuck
    health = source.health()
    assert not health.healthy and "stuck" in health.detail and "gpio:1" in health.detail
    first = health.buttons[0]
    assert (first.button, first.presses, first.stuck) == ("gpio:1", 1, True)
    edge(factory, edges, 17, 108.0, False)
    assert not source.watchers[0].health.stuck, "released: it counts again"
    edge(factory, edges, 17, 109.0, True)
    later.run(up_to=0.005)
    assert len(presses) == 2


def test_pin_callbacks_live_as_long_as_the_source(factory, edges, later) -> None:
    """gpiozero keeps callbacks by weak reference: a lambda would be collected and go silent."""
    import gc

    presses: list[Press] = []
    source = source_with(factory, edges, later, presses)
    gc.collect()
    edge(factory, edges, 27, 103.0, True)
    later.run(up_to=0.005)
    assert [p.button for p in presses] == ["gpio:2"]
    assert source.health().healthy
