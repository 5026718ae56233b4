"""The `[buttons]` settings as a value: the config file builds it (`companion.config`) and the
sources are opened from it (configured.py). Apart from them, so that reading the config loads no
press source, serial link or GPIO driver."""

from __future__ import annotations

from dataclasses import dataclass

BUTTON_SOURCES = ("auto", "simulated", "gpio", "serial")


@dataclass(frozen=True, slots=True)
class ButtonsConfig:
    source: str = "auto"
    """"auto": the configured GPIO pins and the buzzer box if one is plugged in, else simulated
    buttons; "gpio"; "serial" (the buzzer box only, waited for if absent); "simulated"."""
    gpio_pins: tuple[int, ...] = ()
    """BCM numbers of the Pi's GPIO pins with a button to ground (one per player)."""
    serial_port: str = ""
    """The buzzer box's serial port (e.g. /dev/ttyACM0); empty: found by its USB vendor and product id."""
    confirm_ms: float = 5.0
    """A press must still be held this long after its first edge to count (else it is noise)."""
    mask_ms: float = 50.0
    """After a press, further edges of that pin are bounces for this long."""
    stuck_s: float = 5.0
    """A button held down this long is flagged stuck and ignored until released."""
