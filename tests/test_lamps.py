"""The lamps follow the game's own verdict on a round, not only the referee's."""

from __future__ import annotations

from typing import Any

from companion.buzzers.lamps import FAULT_BEEP, TIE_BEEP, WIN_BEEP, Signal, signal_for
from companion.store import RecordedEvent


def settled(data: dict[str, Any]) -> RecordedEvent:
    return RecordedEvent(1, "g", 2, "round_settled", "system", data, 0, 0, "", "")


def row(who: str, after_us: int, gap_us: int) -> dict[str, Any]:
    return {"who": who, "t_us": after_us, "uncertainty_us": 0, "source": "gpio", "after_arm_us": after_us,
            "gap_us": gap_us}


REFEREE_WINNER = {"outcome": "winner", "winner": "seat:2", "tied_first": [], "ties": [],
                  "order": [row("seat:2", 300_000, 0), row("seat:3", 304_000, 4_000)],
                  "false_starts": [{"who": "seat:1", "t_us": 0, "uncertainty_us": 0, "source": "gpio",
                                    "early_us": 50_000}]}


def test_a_garlic_winner_named_by_seat_number_lights_their_lamp() -> None:
    signal = signal_for(settled({"round": 1, "outcome": "winner", "winner": 2, "tied": [],
                                 "decision": REFEREE_WINNER}))
    assert signal == Signal(lit=frozenset({2}), blinking=frozenset({1}), beep=WIN_BEEP)


def test_a_tie_the_game_calls_within_its_window_lights_both_and_not_the_referees_winner() -> None:
    # 4 ms apart: the referee saw a winner, the garlic game's 10 ms window calls it a tie.
    signal = signal_for(settled({"round": 1, "outcome": "tie", "winner": None, "tied": [2, 3],
                                 "decision": REFEREE_WINNER}))
    assert signal == Signal(lit=frozenset({2, 3}), blinking=frozenset({1}), beep=TIE_BEEP)


def test_a_round_nobody_slapped_stays_dark_but_false_starts_blink() -> None:
    decision = {**REFEREE_WINNER, "outcome": "no_reaction", "winner": None, "order": []}
    signal = signal_for(settled({"round": 1, "outcome": "no_reaction", "winner": None, "tied": [],
                                 "decision": decision}))
    assert signal == Signal(blinking=frozenset({1}), beep=FAULT_BEEP)


def test_the_quiz_result_without_a_game_verdict_still_follows_the_referee() -> None:
    signal = signal_for(settled({"round": 1, "decision": REFEREE_WINNER, "winner": "seat:2"}))
    assert signal.lit == frozenset({2})
