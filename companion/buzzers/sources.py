"""The press-source seam, gpiozero-style: every source turns button edges into `Press` values on
the host timeline and reports its own health, so the service keeps running when one goes away.

The sources themselves (gpio, serialbox, phones) import this module, never each other; which of
them a table gets is decided above them all, in `configured`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from companion.clock import Clock

if TYPE_CHECKING:
    from companion.buzzers.phoneclock import PhoneTap


@dataclass(frozen=True, slots=True)
class Press:
    """One button press: which button, when (host timeline), from where, and how precisely."""

    button: str
    t_us: int
    source: str
    uncertainty_us: int
    clock: str = ""
    """The clock that stamped it when that is not the host's (a buzzer box): presses stamped by
    the same clock are compared by `local_ns`, exact whatever the mapping onto the host timeline."""
    local_ns: int = 0
    """The press's time on that clock, in nanoseconds."""
    phone: PhoneTap | None = None
    """A phone's buzz: how it was timed, and what a round whose signal is on the phones needs."""


@dataclass(frozen=True, slots=True)
class ButtonHealth:
    """One input's record since the start, for the person wiring the box."""

    button: str
    presses: int = 0
    bounces: int = 0
    noise: int = 0
    """Edges that did not stay pressed for the confirmation time."""
    stuck: bool = False
    held: bool = False

    def to_json(self) -> dict[str, object]:
        return {"button": self.button, "presses": self.presses, "bounces": self.bounces, "noise": self.noise,
                "stuck": self.stuck, "held": self.held}


@dataclass(frozen=True, slots=True)
class SourceHealth:
    name: str
    kind: str
    healthy: bool
    detail: str
    uncertainty_us: int
    buttons: tuple[ButtonHealth, ...] = ()

    def public_json(self) -> dict[str, object]:
        """What anyone may see: the per-pin counts are for the host."""
        return {"name": self.name, "kind": self.kind, "healthy": self.healthy, "detail": self.detail,
                "uncertainty_us": self.uncertainty_us}

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "kind": self.kind,
            "healthy": self.healthy,
            "detail": self.detail,
            "uncertainty_us": self.uncertainty_us,
            "buttons": [b.to_json() for b in self.buttons],
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

    def press(self, button: int) -> Press:
        if not 1 <= button <= self.buttons:
            raise ValueError(f"simulated buttons are numbered 1 to {self.buttons}")
        press = Press(f"{self.name}:{button}", self._clock.now_us(), self.name, 0)
        with self._lock:
            handler = self._handler
        if handler is not None:
            handler(press)
        return press

    def health(self) -> SourceHealth:
        running = self._handler is not None
        detail = f"{self.buttons} virtual buttons" + ("" if running else " (stopped)")
        return SourceHealth(self.name, self.kind, running, detail, 0)


class UnavailableSource(HandlerSlot):
    """A configured source that could not be opened: reported on the host console and in the
    status, while the service goes on with the others."""

    def __init__(self, name: str, kind: str, problem: str) -> None:
        super().__init__()
        self.name, self.kind, self.problem = name, kind, problem

    def health(self) -> SourceHealth:
        return SourceHealth(self.name, self.kind, False, self.problem, 0)
