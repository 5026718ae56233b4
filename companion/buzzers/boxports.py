"""Where the buzzer box is plugged in: serial ports found by the USB ids of the boards it is built
on, and how one is opened (pyserial, imported only when a port is looked for or opened).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from typing import Protocol

from companion.buzzers import protocol as proto

log = logging.getLogger(__name__)

USB_IDS: tuple[tuple[int, int], ...] = (
    (0x2341, 0x0043),  # Arduino Uno R3 (16U2)
    (0x2341, 0x0001),  # Arduino Uno (8U2)
    (0x2341, 0x0243),  # Arduino Uno R3 (later 16U2 firmware)
    (0x2A03, 0x0043),  # Arduino.org Uno
    (0x1A86, 0x7523),  # CH340 (Nano and Uno clones)
    (0x0403, 0x6001),  # FTDI FT232R (older Nanos)
    (0x10C4, 0xEA60),  # Silicon Labs CP210x
)


class SerialPort(Protocol):
    """What the source needs of a pyserial `Serial`."""

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes, /) -> int | None: ...

    def fileno(self) -> int: ...

    def reset_input_buffer(self) -> None: ...

    def close(self) -> None: ...


PortFinder = Callable[[], str | None]
PortOpener = Callable[[str], SerialPort]


def find_box_ports(usb_ids: Sequence[tuple[int, int]] = USB_IDS) -> list[str]:
    """Serial ports whose USB vendor and product id are a buzzer box's, by device path."""
    from serial.tools import list_ports

    return sorted(p.device for p in list_ports.comports() if (p.vid, p.pid) in usb_ids)


def first_box_port() -> str | None:
    ports = find_box_ports()
    return ports[0] if ports else None


def open_serial_port(path: str) -> SerialPort:
    """The port at 1 000 000 baud, non-blocking reads (the reader waits with select), and an
    exclusive lock so a second companion (or hw-test while the service runs) is told it is busy.

    FTDI adapters hold received bytes up to 16 ms by default, which would make every sync round
    trip that slow: the low-latency flag (which any user may set) brings that to 1 ms."""
    import serial

    port = serial.Serial(path, proto.BAUD, timeout=0, write_timeout=0.5, exclusive=True)
    try:
        port.set_low_latency_mode(True)
    except (ValueError, OSError, AttributeError) as err:  # USB-CDC and ptys have no such flag: fine
        log.debug("buzzer box: no low-latency mode on %s: %s", path, err)
    opened: SerialPort = port
    return opened


def open_error(err: Exception) -> str:
    """Why a port did not open, in a few words: pyserial's open errors repeat the path and wrap
    the OS error."""
    number = getattr(err, "errno", None)
    if isinstance(number, int):
        return os.strerror(number)
    return str(err)


def usb_ids_text(usb_ids: Sequence[tuple[int, int]] = USB_IDS) -> str:
    return ", ".join(f"{vid:04x}:{pid:04x}" for vid, pid in usb_ids)
