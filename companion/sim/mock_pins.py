"""`companion serve` with gpiozero's MockFactory as the pin factory, its pins pressed from stdin:
the GPIO buttons without a Pi.

The real service process (the web server, the hub, the round keeper, the log), with the GPIO source
reading mock pins instead of a Pi's (bench/press_latency.py times it). Each line on stdin
`press N` (written by `press`) pulls GPIO N low now (the edge's ticks are gpiozero's monotonic clock,
CLOCK_MONOTONIC, the host timeline) and lets it go high again RELEASE_S later, as a finger would.
The arguments are `companion`'s; the config names the pins (`[buttons] gpio_pins`, source "gpio" or "auto").

    .venv/bin/python -m companion.sim.mock_pins serve --host 127.0.0.1 --port 8080 --data DIR --config FILE
"""

from __future__ import annotations

import sys
import threading
from typing import IO

from gpiozero import Device
from gpiozero.pins.mock import MockFactory

PROGRAM = (sys.executable, "-m", "companion.sim.mock_pins")
"""The command line that runs the companion on these pins (`ServiceProcess`'s `program`)."""
PRESS = "press"
"""The command word of a line on stdin: `press N`."""
RELEASE_S = 0.100
"""Held this long: past the 5 ms confirmation, within the 50 ms mask it is one press."""


def press(stdin: IO[str], pin: int) -> None:
    """Press GPIO `pin` of the service whose stdin (a pipe) this is: the one line `drive` reads."""
    stdin.write(f"{PRESS} {pin}\n")
    stdin.flush()


def drive(factory: MockFactory) -> None:
    for line in sys.stdin:
        words = line.split()
        if len(words) != 2 or words[0] != PRESS or not words[1].isdigit():
            continue
        pin = factory.pin(int(words[1]))
        pin.drive_low()
        release = threading.Timer(RELEASE_S, pin.drive_high)
        release.daemon = True
        release.start()


def main() -> int:
    factory = MockFactory()
    Device.pin_factory = factory
    threading.Thread(target=drive, args=(factory,), name="mock-pins", daemon=True).start()
    from companion.cli import main as companion

    return companion(sys.argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
