"""Buttons wired to the Pi's GPIO pins, read through gpiozero's pin factory.

The time of a press is the edge time the kernel stamped (`when_changed(ticks, state)` with the
lgpio factory), never the time a Python callback happened to run, and never gpiozero's
`bounce_time` (lgpio re-stamps debounced edges). The first falling edge is taken at once; it is
confirmed a few milliseconds later (the pin must still be low) and only then reported, so
debouncing never moves a timestamp. The pin is then ignored for a mask period, bounces are
counted, and a pin held low for seconds (a stuck or shorted button) is flagged and excluded until
it is released.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.alarm import Scheduler, TimerThread
from companion.buzzers.sources import ButtonHealth, HandlerSlot, Press, SourceHealth
from companion.clock import Clock

log = logging.getLogger(__name__)

CONFIRMATIONS = TimerThread("gpio-timers")
"""The wired buttons' confirmations and stuck checks, on a thread of their own: a ring of the
table's alarms (a command, its log write) never holds up a press's confirmation."""


@dataclass
class PinHealth:
    presses: int = 0
    bounces: int = 0
    noise: int = 0
    """Edges that did not stay pressed for the confirmation time."""
    stuck: bool = False


class PinWatcher:
    """One button's pin. Its bound method is the callback: gpiozero holds callbacks weakly, so the
    source keeps a strong reference to every watcher."""

    def __init__(self, source: GpioSource, button: str, pin: Any) -> None:
        self.source = source
        self.button = button
        self.pin = pin
        self.health = PinHealth()
        self.candidate_ticks: float | None = None
        self.masked_until: float = float("-inf")
        self.pressed_since: float | None = None

    def changed(self, ticks: float, state: int) -> None:
        self.source._edge(self, ticks, bool(state))


class GpioSource(HandlerSlot):
    kind = "gpio"

    def __init__(
        self,
        pins: Mapping[str, int],
        clock: Clock,
        factory: Any = None,
        scheduler: Scheduler | None = None,
        confirm_s: float = 0.005,
        mask_s: float = 0.050,
        stuck_s: float = 5.0,
        uncertainty_us: int = 20,
        name: str = "gpio",
    ) -> None:
        from gpiozero import Device

        super().__init__()
        self.name = name
        self._clock = clock
        self._factory = factory or Device.pin_factory or Device._default_pin_factory()
        self._schedule = scheduler or CONFIRMATIONS
        self.confirm_s, self.mask_s, self.stuck_s = confirm_s, mask_s, stuck_s
        self.uncertainty_us = uncertainty_us
        self._problem = ""
        self.watchers: list[PinWatcher] = []
        for button, number in pins.items():
            pin = self._factory.pin(number)
            pin.function = "input"
            pin.pull = "up"
            pin.edges = "both"
            watcher = PinWatcher(self, button, pin)
            pin.when_changed = watcher.changed
            self.watchers.append(watcher)
        # The pin factory's ticks and the host timeline are both monotonic clocks; measure the
        # offset once so presses land on the host timeline even if they were different clocks.
        self._offset_us = self._clock.now_us() - int(self._factory.ticks() * 1_000_000)

    @property
    def confirm_us(self) -> int:
        """How long after its edge a press is reported: it must still be down then."""
        return round(self.confirm_s * 1_000_000)

    def stop(self) -> None:
        super().stop()
        for watcher in self.watchers:
            watcher.pin.when_changed = None

    def _edge(self, watcher: PinWatcher, ticks: float, high: bool) -> None:
        with self._lock:
            if high:
                watcher.pressed_since = None
                if watcher.health.stuck:
                    watcher.health.stuck = False  # released: the button counts again
                return
            if watcher.pressed_since is None:
                watcher.pressed_since = ticks
            if watcher.health.stuck:
                return
            if ticks < watcher.masked_until or watcher.candidate_ticks is not None:
                watcher.health.bounces += 1
                return
            watcher.candidate_ticks = ticks
            watcher.masked_until = ticks + self.mask_s
        self._schedule(self.confirm_s, lambda: self._confirm(watcher, ticks))

    def _confirm(self, watcher: PinWatcher, ticks: float) -> None:
        with self._lock:
            watcher.candidate_ticks = None
            if watcher.pin.state:  # back up: a glitch, not a press
                watcher.health.noise += 1
                return
            watcher.health.presses += 1
            handler = self._handler
            press = Press(f"{self.name}:{watcher.button}", int(ticks * 1_000_000) + self._offset_us, self.name,
                          self.uncertainty_us)
        self._schedule(self.stuck_s, lambda: self._check_stuck(watcher, ticks))
        if handler is not None:
            handler(press)

    def _check_stuck(self, watcher: PinWatcher, ticks: float) -> None:
        with self._lock:
            if watcher.pressed_since is not None and watcher.pressed_since <= ticks and not watcher.pin.state:
                watcher.health.stuck = True

    def _check_pins(self) -> None:
        """Read every pin: a GPIO chip that went away (or a pin taken by another program) shows
        up here as an error, reported instead of silently delivering no presses."""
        try:
            for watcher in self.watchers:
                watcher.pin.state  # noqa: B018 - the read is the check
        except Exception as err:
            if not self._problem:
                log.warning("GPIO buttons lost: %s", err)
            self._problem = f"GPIO lost: {err}"

    def health(self) -> SourceHealth:
        self._check_pins()
        with self._lock:
            buttons = tuple(ButtonHealth(f"{self.name}:{w.button}", w.health.presses, w.health.bounces,
                                         w.health.noise, w.health.stuck, w.pressed_since is not None)
                            for w in self.watchers)
            stuck = [b.button for b in buttons if b.stuck]
            if self._problem:
                detail = self._problem
            elif stuck:
                detail = f"stuck (held down): {', '.join(stuck)}"
            else:
                detail = f"{len(self.watchers)} pins"
            healthy = not stuck and not self._problem
            return SourceHealth(self.name, self.kind, healthy, detail, self.uncertainty_us, buttons)
