"""Where each button is wired: the Raspberry Pi's 40-pin header and the buzzer box's Arduino pins.

The maker reads these numbers in three places: the wiring diagrams and pinout tables in
`hardware/` (generated from this module by `scripts/hardware_docs.py`), the config file, and
`companion hw-test`, which names each button's pin. One table keeps them from disagreeing. The box's
pins repeat `firmware/src/pinout.h`, the table the firmware is compiled from; a test holds the two
together.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class HeaderPin:
    """One pin of the Pi's 40-pin header (every Pi since the B+, the Pi 5 included)."""

    number: int
    """The physical pin number. Pin 1 (the square pad) is at the end away from the USB ports; odd
    numbers are on the inner row, even numbers on the row along the board's edge."""
    name: str
    """What the pin is: GPIO17, GND, 3V3, 5V."""

    @property
    def bcm(self) -> int | None:
        """The GPIO (BCM) number a program uses, None for power and ground."""
        return int(self.name[4:]) if self.name.startswith("GPIO") else None


_HEADER_NAMES = (
    "3V3", "5V", "GPIO2", "5V", "GPIO3", "GND", "GPIO4", "GPIO14", "GND", "GPIO15",
    "GPIO17", "GPIO18", "GPIO27", "GND", "GPIO22", "GPIO23", "3V3", "GPIO24", "GPIO10", "GND",
    "GPIO9", "GPIO25", "GPIO11", "GPIO8", "GND", "GPIO7", "GPIO0", "GPIO1", "GPIO5", "GND",
    "GPIO6", "GPIO12", "GPIO13", "GND", "GPIO19", "GPIO16", "GPIO26", "GPIO20", "GND", "GPIO21",
)
HEADER: tuple[HeaderPin, ...] = tuple(HeaderPin(n, name) for n, name in enumerate(_HEADER_NAMES, start=1))

BUTTON_GPIOS: frozenset[int] = frozenset(p.bcm for p in HEADER if p.bcm is not None and p.bcm >= 2)
"""The GPIOs a button may use: all but GPIO0 and GPIO1, which belong to HAT identification."""

GROUND_PINS: tuple[int, ...] = tuple(p.number for p in HEADER if p.name == "GND")


def header_pin(bcm: int) -> int:
    """The physical header pin of a GPIO (BCM) number."""
    for pin in HEADER:
        if pin.bcm == bcm:
            return pin.number
    raise KeyError(f"GPIO{bcm} is not on the 40-pin header")


@dataclass(frozen=True, slots=True)
class GpioButton:
    """A button of the suggested GPIO wiring: its signal pin and the ground it shares."""

    label: str
    """Who it is for: "1" to "8" for players, "arm" for the table's own button."""
    bcm: int
    ground: int
    """The header's ground pin its ground wire (through the ground rail) goes to."""

    @property
    def pin(self) -> int:
        return header_pin(self.bcm)


SUGGESTED_GPIO: tuple[GpioButton, ...] = (
    GpioButton("1", 17, 9), GpioButton("2", 27, 9), GpioButton("3", 22, 9), GpioButton("4", 23, 20),
    GpioButton("5", 24, 20), GpioButton("6", 25, 20), GpioButton("7", 5, 9), GpioButton("8", 6, 9),
    GpioButton("arm", 26, 9),
)
"""Eight players and the arm button on GPIOs with no other job on a plain Pi: clear of I2C (2, 3),
the serial console (14, 15), SPI (7-11) and the sound HATs' I2S pins (18-21), so adding one of those
later never steals a button."""

SPARE_GPIO: tuple[int, ...] = (4, 12, 13, 16)
"""More buttons for up to 13 seats, in the order to use them (also clear of the pins above)."""


@dataclass(frozen=True, slots=True)
class BoxPin:
    """One pin of the buzzer box's Arduino (Uno or Nano), by the name printed on the board."""

    player: int
    label: str


BOX_BUTTONS: tuple[BoxPin, ...] = tuple(BoxPin(n, label) for n, label in enumerate(
    ("D2", "D3", "D4", "D5", "D6", "D7", "A0", "A1"), start=1))
BOX_LAMPS: tuple[BoxPin, ...] = tuple(BoxPin(n, label) for n, label in enumerate(
    ("D8", "D9", "D10", "D12", "D13", "A2", "A3", "A4"), start=1))
BOX_BEEPER = "D11"
"""On OC2A, so Timer2 makes the tone in hardware."""

LAMP_RESISTOR_OHMS = 330
"""For a bare LED on a 5 V pin: about 9 mA for a red LED (2 V), well inside the pin's 20 mA and the
chip's 200 mA for all eight at once."""
BEEPER_RESISTOR_OHMS = 100
"""In series with the passive piezo: it limits the current the piezo's capacitance draws on each
edge of the tone and softens the sound a little."""


def pin_of(button: str) -> str:
    """Where a button named as the sources name them is wired, for the person checking the wiring:
    "gpio:17" is header pin 11, "box:3" is the box's D4. Empty when the name says nothing."""
    source, _, rest = button.partition(":")
    if not rest.isdigit():
        return ""
    number = int(rest)
    if source == "gpio" and number in BUTTON_GPIOS:
        return f"pin {header_pin(number)}"
    if source == "box" and 1 <= number <= len(BOX_BUTTONS):
        return BOX_BUTTONS[number - 1].label
    return ""
