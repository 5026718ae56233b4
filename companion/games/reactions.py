"""The reaction round as the games log it: its events' names, and the reaction-time board.

A game that runs reaction rounds (the buzzer quiz, the garlic game) tells these events; the
buzzers' round keeper and lamps follow them, so their names are written here once. The board
(every contestant's race reaction times, their best and median) is built from the referee's
decision as logged, so a replay draws the same board.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

ROUND_ARMED = "round_armed"
"""A round opened: its signal time, window, grace and penalty (the round keeper referees it), and
where its signal is (`signal`): "phones" when each phone shows it (phones are timed by the reaction
measured on them), "table" when it is on the TV or the table (by their taps' instants)."""
ROUND_SETTLED = "round_settled"
"""The referee's whole decision for a round (and the game's verdict on it)."""
ROUND_CANCELLED = "round_cancelled"
"""A round called off before it was settled."""
ROUND_LATE_PRESS = "round_late_press"
"""A press after a race was decided, still inside its window: not in the decision, but every press
of a round is shown with its time (a game that lists them takes the round keeper's `late_press`)."""

BOARD_SAMPLES = 50
"""How many of each contestant's latest reaction times the board keeps."""


def board_row(samples: list[int]) -> dict[str, Any]:
    ordered = sorted(samples)
    return {"count": len(samples), "best_us": ordered[0], "median_us": ordered[len(ordered) // 2],
            "samples": samples}


def with_round(board: Mapping[str, Mapping[str, Any]], order: Iterable[Mapping[str, Any]]
               ) -> dict[str, Mapping[str, Any]]:
    """The board after a race round: each contestant's reaction (press after the signal) added.

    A new dict every time, never changed afterwards: every viewer's view can share it.
    """
    updated = dict(board)
    for row in order:
        earlier = updated.get(row["who"], {}).get("samples", [])
        updated[row["who"]] = board_row([*earlier, int(row["after_arm_us"])][-BOARD_SAMPLES:])
    return updated


def late_press_fits(number: object, mode: object, listed: Iterable[str], args: Mapping[str, Any]) -> bool:
    """Whether the round keeper's `late_press` names the last round (number `number`, a race) and a
    contestant not listed in it yet, with the times a row has."""
    press = args.get("press")
    return (mode == "race" and args.get("round") == number and isinstance(press, Mapping)
            and isinstance(press.get("who"), str) and press["who"] not in set(listed)
            and all(isinstance(press.get(k), int) and not isinstance(press.get(k), bool)
                    for k in ("t_us", "after_arm_us", "gap_us")))

