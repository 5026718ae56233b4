"""The press-source seam, gpiozero-style: every source turns button edges into `Press` values on
the host timeline and reports its own health, so the service keeps running when one goes away.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from companion.clock import Clock


@dataclass(frozen=True, slots=True)
class Press:
    """One button press: which button, when (host timeline), from where, and how precisely."""

    button: str
    t_us: int
    source: str
    uncertainty_us: int


@dataclass(frozen=True, slots=True)
class SourceHealth:
    name: str
    kind: str
    healthy: bool
    detail: str
    uncertainty_us: int

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "kind": self.kind,
            "healthy": self.healthy,
            "detail": self.detail,
            "uncertainty_us": self.uncertainty_us,
        }


PressHandler = Callable[[Press], None]


class PressSource(Protocol):
    name: str
    kind: str

    def start(self, on_press: PressHandler) -> None: ...

    def stop(self) -> None: ...

    def health(self) -> SourceHealth: ...


class HandlerSlot:
    """Where a source delivers its presses: set by start, cleared by stop, read under a lock."""

    def __init__(self) -> None:
        self._handler: PressHandler | None = None
        self._lock = threading.Lock()

    def start(self, on_press: PressHandler) -> None:
        with self._lock:
            self._handler = on_press

    def stop(self) -> None:
        with self._lock:
            self._handler = None


class SimulatedSource(HandlerSlot):
    """Virtual buttons pressed by software (keyboard, a control page, a demo), stamped on arrival.

    Its presses are exact on the host timeline, so it reports zero uncertainty.
    """

    kind = "simulated"

    def __init__(self, clock: Clock, buttons: int = 13, name: str = "simulated") -> None:
        super().__init__()
        self.name = name
        self.buttons = buttons
        self._clock = clock
        self.presses = 0

    def press(self, button: int) -> Press:
        if not 1 <= button <= self.buttons:
            raise ValueError(f"simulated buttons are numbered 1 to {self.buttons}")
        press = Press(f"{self.name}:{button}", self._clock.now_us(), self.name, 0)
        with self._lock:
            handler = self._handler
            self.presses += 1
        if handler is not None:
            handler(press)
        return press

    def health(self) -> SourceHealth:
        running = self._handler is not None
        detail = f"{self.buttons} virtual buttons" + ("" if running else " (stopped)")
        return SourceHealth(self.name, self.kind, running, detail, 0)


def open_sources(source: str, clock: Clock) -> list[PressSource]:
    """The sources the config asks for. With no hardware configured, buttons are simulated."""
    if source in ("auto", "simulated"):
        return [SimulatedSource(clock)]
    raise ValueError(f"unknown button source {source!r}")
