"""Lamps and beeper that follow the referee: a buzzer box lights the winner's lamp, shows a
hands-off round on every lamp, and blinks the lamps of those who pressed too early.

What to show is a pure function of the round's events and the pairing; `LampDriver` sends it to
every source that has lamps (a box that is unplugged keeps the last state and gets it back when
it reconnects).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from companion.games.base import seat_number
from companion.games.reactions import ROUND_ARMED, ROUND_CANCELLED, ROUND_SETTLED
from companion.store import RecordedEvent

log = logging.getLogger(__name__)

ALL_LAMPS = 0xFF
WIN_BEEP = (1_800, 150)
FAULT_BEEP = (400, 400)
TIE_BEEP = (1_000, 80)


@runtime_checkable
class LampSource(Protocol):
    name: str

    def set_lamps(self, on: int, blink: int) -> None: ...

    def beep(self, freq_hz: int, duration_ms: int) -> None: ...


@dataclass(frozen=True, slots=True)
class Signal:
    """What the lamps show, by seat; `every_lamp` lights all of them (a hands-off round)."""

    lit: frozenset[int] = frozenset()
    blinking: frozenset[int] = frozenset()
    every_lamp: bool = False
    beep: tuple[int, int] | None = None


DARK = Signal()


def _seat(who: object) -> int | None:
    """A seat from "seat:N" (the referee's contestants) or N (a game's own seat numbers)."""
    if isinstance(who, int) and not isinstance(who, bool):
        return who
    return seat_number(who)


def _seats(whos: Iterable[object]) -> frozenset[int]:
    return frozenset(s for s in map(_seat, whos) if s is not None)


def _who(rows: Iterable[Mapping[str, Any]]) -> Iterable[object]:
    return (row.get("who") for row in rows)


def signal_for(event: RecordedEvent) -> Signal | None:
    """The lamps after a round event; None for events that leave them as they are."""
    data = event.data
    if event.type == ROUND_ARMED:
        return Signal(every_lamp=True) if data.get("mode") == "hands_off" else DARK
    if event.type in (ROUND_CANCELLED, "game_started", "game_ended"):
        return DARK
    if event.type != ROUND_SETTLED:
        return None
    decision = data.get("decision") or {}
    early = _seats(_who(decision.get("false_starts") or []))
    if decision.get("outcome") == "faults":
        return Signal(blinking=early | _seats(_who(decision.get("order") or [])), beep=FAULT_BEEP)
    # The game's verdict, not the referee's: a game may judge closer (the garlic game's tie
    # window) or draw a tie's winner. Its event names the winner; a game with its own tie list
    # (`tied`) and outcome says so, else the referee's stand.
    winner = _seat(data.get("winner"))
    if winner is not None:
        return Signal(lit=frozenset({winner}), blinking=early, beep=WIN_BEEP)
    if data.get("outcome", decision.get("outcome")) == "tie":
        tied = data["tied"] if "tied" in data else decision.get("tied_first")
        return Signal(lit=_seats(tied or []), blinking=early, beep=TIE_BEEP)
    return Signal(blinking=early, beep=FAULT_BEEP if early else None)


def lamp_bits(source: str, seats: Iterable[int], buttons_of: Callable[[int], list[str]]) -> int:
    """The lamps of `source` next to the buttons paired with `seats` (lamp n beside button n)."""
    bits = 0
    for seat in seats:
        for button in buttons_of(seat):
            name, _, number = button.rpartition(":")
            if name == source and number.isdigit() and 1 <= int(number) <= 8:
                bits |= 1 << (int(number) - 1)
    return bits


class LampDriver:
    def __init__(self, sources: Iterable[object], buttons_of: Callable[[int], list[str]]) -> None:
        self.sources = [s for s in sources if isinstance(s, LampSource)]
        self.buttons_of = buttons_of

    def on_events(self, events: tuple[RecordedEvent, ...]) -> None:
        for event in events:
            signal = signal_for(event)
            if signal is not None:
                self.show(signal)

    def show(self, signal: Signal) -> None:
        for source in self.sources:
            lit = ALL_LAMPS if signal.every_lamp else lamp_bits(source.name, signal.lit, self.buttons_of)
            blink = lamp_bits(source.name, signal.blinking, self.buttons_of)
            try:
                source.set_lamps(lit, blink)
                if signal.beep is not None:
                    source.beep(*signal.beep)
            except Exception:  # a lamp must never stop a round from being settled
                log.exception("could not set the lamps of %s", source.name)
