"""Opening the press sources the `[buttons]` settings (settings.py) name.

It sits above every source (GPIO, the buzzer box, simulated) so that they know nothing of the
settings, nor of each other.
"""

from __future__ import annotations

import logging
import os

from companion.alarm import Scheduler
from companion.buzzers import boxports
from companion.buzzers.gpio import GpioSource
from companion.buzzers.serialbox import SerialBoxSource
from companion.buzzers.settings import ButtonsConfig
from companion.buzzers.sources import PressSource, SimulatedSource, UnavailableSource
from companion.clock import Clock

log = logging.getLogger(__name__)

def open_sources(config: ButtonsConfig, clock: Clock, scheduler: Scheduler | None = None) -> list[PressSource]:
    """The sources the config asks for. With no hardware configured (or none found), buttons are
    simulated; a configured source that fails to open is reported, never fatal. "auto" takes the
    buzzer box when one is plugged in, or when its port is configured (then waited for, with
    simulated buttons until it is there at the start)."""
    sources: list[PressSource] = []
    if config.source in ("auto", "gpio") and config.gpio_pins:
        sources.append(open_gpio(config, clock, scheduler))
    box_found = config.source == "auto" and box_present(config)
    if config.source == "serial" or box_found or (config.source == "auto" and config.serial_port):
        sources.append(open_serial(config, clock))
    hardware = box_found or any(s.health().healthy for s in sources)
    if config.source == "simulated" or (config.source == "auto" and not hardware):
        sources.append(SimulatedSource(clock))
    return sources


def box_present(config: ButtonsConfig) -> bool:
    """Whether the buzzer box is there now: its configured port exists, or a serial port has one
    of its USB ids."""
    if config.serial_port:
        return os.path.exists(config.serial_port)
    try:
        return bool(boxports.find_box_ports())
    except Exception as err:  # no sysfs, a broken udev: carry on without the box
        log.warning("could not look for a buzzer box: %s", err)
        return False


def open_serial(config: ButtonsConfig, clock: Clock, name: str = "box") -> PressSource:
    """The buzzer box on USB serial (not started: its reader thread starts with `start`, and
    keeps looking for the box until it is there)."""
    try:
        return SerialBoxSource(clock, port=config.serial_port, name=name, confirm_ms=config.confirm_ms,
                               mask_ms=config.mask_ms, stuck_s=config.stuck_s)
    except Exception as err:  # pyserial missing or broken: say so and carry on
        log.warning("buzzer box unavailable: %s", err)
        return UnavailableSource(name, "serial", f"buzzer box unavailable: {err}")


def open_gpio(config: ButtonsConfig, clock: Clock, scheduler: Scheduler | None = None) -> PressSource:
    try:
        return GpioSource({f"{pin}": pin for pin in config.gpio_pins}, clock, scheduler=scheduler,
                          confirm_s=config.confirm_ms / 1000, mask_s=config.mask_ms / 1000, stuck_s=config.stuck_s)
    except Exception as err:  # no GPIO chip, pin busy, no permission: say so and carry on
        log.warning("GPIO buttons unavailable: %s", err)
        return UnavailableSource("gpio", "gpio", f"GPIO unavailable: {err}")
