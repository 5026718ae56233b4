"""The buzzer box's binary serial protocol (firmware/PROTOCOL.md), as pure values and functions.

Every frame is `A5 | type | len | payload | crc16 (low, high)`. This module knows the frames of
both directions so that the host's source, the tests and the fake board all speak through the
same code: the tests parse PROTOCOL.md's own examples with it, so the page and the code cannot
drift apart. Nothing here does I/O, and `FrameParser.feed` never raises, whatever it is fed.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import astuple, dataclass
from typing import ClassVar

START = 0xA5
"""The byte that marks the start of every frame."""
PROTOCOL_VERSION = 1
BAUD = 1_000_000
TICK_HZ = 16_000_000
"""Timer1's rate on a 16 MHz board; the board states its own in HELLO."""
MAX_PAYLOAD = 32
HEADER_LEN = 3
CRC_LEN = 2
TICKS_MASK = 0xFFFF_FFFF

# Board to host.
HELLO = 0x01
EVENT = 0x02
HEARTBEAT = 0x03
SYNC_REPLY = 0x04
ACK = 0x05
NAK = 0x06
# Host to board.
LAMPS = 0x81
BEEP = 0x82
RESET = 0x83
SYNC = 0x84
HELLO_REQUEST = 0x85
DEBOUNCE = 0x86

NAK_UNKNOWN_COMMAND = 1
NAK_WRONG_LENGTH = 2
NAK_OUT_OF_RANGE = 3

BEEP_HZ_RANGE = (100, 10_000)
CONFIRM_US_RANGE = (100, 60_000)
MASK_MS_RANGE = (0, 1_000)


def _crc_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
        table.append(crc & 0xFFFF)
    return tuple(table)


_CRC_TABLE = _crc_table()


def crc16(data: bytes | bytearray | memoryview) -> int:
    """CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF, no reflection, no final XOR."""
    crc = 0xFFFF
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC_TABLE[(crc >> 8) ^ byte]
    return crc


# -- frames ----------------------------------------------------------------------------------------
# Each frame is a dataclass whose fields are its payload in order; FORMAT is the payload's layout.


@dataclass(frozen=True, slots=True)
class Hello:
    TYPE: ClassVar[int] = HELLO
    FORMAT: ClassVar[str] = "<BBBBIBBBB"
    protocol: int
    major: int
    minor: int
    patch: int
    tick_hz: int
    buttons: int
    lamps: int
    reset_cause: int
    """The MCUSR bits of the last reset: 1 power-on, 2 reset pin, 4 brown-out, 8 watchdog."""
    variant: int

    @property
    def firmware(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


@dataclass(frozen=True, slots=True)
class Event:
    TYPE: ClassVar[int] = EVENT
    FORMAT: ClassVar[str] = "<HBBI"
    seq: int
    button: int
    edge: int
    """1 press, 0 release."""
    ticks: int
    """Low 32 bits of the board's ticks at the edge's first transition."""

    @property
    def pressed(self) -> bool:
        return self.edge == 1


@dataclass(frozen=True, slots=True)
class Heartbeat:
    TYPE: ClassVar[int] = HEARTBEAT
    FORMAT: ClassVar[str] = "<IHHHHB"
    ticks: int
    next_seq: int
    dropped: int
    noise: int
    rx_errors: int
    held: int
    """Bit n-1 set while button n is down."""


@dataclass(frozen=True, slots=True)
class SyncReply:
    TYPE: ClassVar[int] = SYNC_REPLY
    FORMAT: ClassVar[str] = "<II"
    token: int
    ticks: int


@dataclass(frozen=True, slots=True)
class Ack:
    TYPE: ClassVar[int] = ACK
    FORMAT: ClassVar[str] = "<BB"
    command: int
    seq: int


@dataclass(frozen=True, slots=True)
class Nak:
    TYPE: ClassVar[int] = NAK
    FORMAT: ClassVar[str] = "<BBB"
    command: int
    seq: int
    reason: int


@dataclass(frozen=True, slots=True)
class Lamps:
    TYPE: ClassVar[int] = LAMPS
    FORMAT: ClassVar[str] = "<BBB"
    seq: int
    on: int
    blink: int


@dataclass(frozen=True, slots=True)
class Beep:
    TYPE: ClassVar[int] = BEEP
    FORMAT: ClassVar[str] = "<BHH"
    seq: int
    freq_hz: int
    duration_ms: int


@dataclass(frozen=True, slots=True)
class Reset:
    TYPE: ClassVar[int] = RESET
    FORMAT: ClassVar[str] = "<B"
    seq: int


@dataclass(frozen=True, slots=True)
class Sync:
    TYPE: ClassVar[int] = SYNC
    FORMAT: ClassVar[str] = "<I"
    token: int


@dataclass(frozen=True, slots=True)
class HelloRequest:
    TYPE: ClassVar[int] = HELLO_REQUEST
    FORMAT: ClassVar[str] = "<B"
    seq: int


@dataclass(frozen=True, slots=True)
class Debounce:
    TYPE: ClassVar[int] = DEBOUNCE
    FORMAT: ClassVar[str] = "<BHH"
    seq: int
    confirm_us: int
    mask_ms: int


BoardFrame = Hello | Event | Heartbeat | SyncReply | Ack | Nak
HostFrame = Lamps | Beep | Reset | Sync | HelloRequest | Debounce
Frame = BoardFrame | HostFrame
FrameClass = type[Hello] | type[Event] | type[Heartbeat] | type[SyncReply] | type[Ack] | type[Nak] \
    | type[Lamps] | type[Beep] | type[Reset] | type[Sync] | type[HelloRequest] | type[Debounce]

BOARD_FRAMES: Mapping[int, FrameClass] = {c.TYPE: c for c in (Hello, Event, Heartbeat, SyncReply, Ack, Nak)}
"""What the host reads."""
HOST_FRAMES: Mapping[int, FrameClass] = {c.TYPE: c for c in (Lamps, Beep, Reset, Sync, HelloRequest, Debounce)}
"""What the board reads (the fake board in the tests)."""
ALL_FRAMES: Mapping[int, FrameClass] = {**BOARD_FRAMES, **HOST_FRAMES}
LENGTHS: Mapping[int, int] = {t: struct.calcsize(c.FORMAT) for t, c in ALL_FRAMES.items()}
"""Every type has one fixed payload length (PROTOCOL.md's tables)."""


def frame_bytes(frame_type: int, payload: bytes) -> bytes:
    """Wrap a payload: start byte, type, length, payload, CRC (low byte first)."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes (at most {MAX_PAYLOAD})")
    body = bytes((frame_type, len(payload))) + payload
    return bytes((START,)) + body + crc16(body).to_bytes(2, "little")


def encode(frame: Frame) -> bytes:
    """The bytes of any frame. Raises ValueError (struct.error) for a field out of its type's range."""
    try:
        payload = struct.pack(frame.FORMAT, *astuple(frame))
    except struct.error as err:
        raise ValueError(f"{type(frame).__name__}: {err}") from None
    return frame_bytes(frame.TYPE, payload)


def decode(frame_type: int, payload: bytes, known: Mapping[int, FrameClass] = ALL_FRAMES) -> Frame | None:
    """The frame of this type, or None when the type is unknown or the length wrong."""
    cls = known.get(frame_type)
    if cls is None or len(payload) != LENGTHS[frame_type]:
        return None
    return cls(*struct.unpack(cls.FORMAT, payload))


# -- host commands ---------------------------------------------------------------------------------


def _check(name: str, value: int, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be a whole number from {low} to {high} (got {value!r})")
    return value


def encode_lamps(seq: int, on: int, blink: int = 0) -> bytes:
    return encode(Lamps(_check("seq", seq, 0, 255), _check("on", on, 0, 255), _check("blink", blink, 0, 255)))


def encode_beep(seq: int, freq_hz: int, duration_ms: int) -> bytes:
    if freq_hz != 0:
        _check("freq_hz", freq_hz, *BEEP_HZ_RANGE)
    return encode(Beep(_check("seq", seq, 0, 255), freq_hz, _check("duration_ms", duration_ms, 0, 0xFFFF)))


def encode_reset(seq: int) -> bytes:
    return encode(Reset(_check("seq", seq, 0, 255)))


def encode_sync(token: int) -> bytes:
    return encode(Sync(_check("token", token, 0, 0xFFFF_FFFF)))


def encode_hello_request(seq: int) -> bytes:
    return encode(HelloRequest(_check("seq", seq, 0, 255)))


def encode_debounce(seq: int, confirm_us: int, mask_ms: int) -> bytes:
    return encode(Debounce(_check("seq", seq, 0, 255), _check("confirm_us", confirm_us, *CONFIRM_US_RANGE),
                           _check("mask_ms", mask_ms, *MASK_MS_RANGE)))


# -- board frames (the fake board and the tests) ---------------------------------------------------


def encode_hello(protocol: int = PROTOCOL_VERSION, firmware: tuple[int, int, int] = (1, 0, 0),
                 tick_hz: int = TICK_HZ, buttons: int = 8, lamps: int = 8, reset_cause: int = 1,
                 variant: int = 0) -> bytes:
    return encode(Hello(protocol, *firmware, tick_hz, buttons, lamps, reset_cause, variant))


def encode_event(seq: int, button: int, pressed: bool, ticks: int) -> bytes:
    return encode(Event(seq & 0xFFFF, button, 1 if pressed else 0, ticks & TICKS_MASK))


def encode_heartbeat(ticks: int, next_seq: int, dropped: int = 0, noise: int = 0, rx_errors: int = 0,
                     held: int = 0) -> bytes:
    return encode(Heartbeat(ticks & TICKS_MASK, next_seq & 0xFFFF, min(dropped, 0xFFFF), min(noise, 0xFFFF),
                            min(rx_errors, 0xFFFF), held))


def encode_sync_reply(token: int, ticks: int) -> bytes:
    return encode(SyncReply(token, ticks & TICKS_MASK))


def encode_ack(command: int, seq: int) -> bytes:
    return encode(Ack(command, seq))


def encode_nak(command: int, seq: int, reason: int) -> bytes:
    return encode(Nak(command, seq, reason))


# -- the incremental parser ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ParserCounts:
    frames: int
    bad_frames: int
    """Frames that started with A5 but had an unknown type, a wrong length or a bad CRC."""
    garbage_bytes: int
    """Bytes skipped while looking for the next A5."""


class FrameParser:
    """Turns a byte stream, in chunks of any size, into frames.

    After a bad frame it looks for the next A5 from the byte after the bad frame's A5 (never
    further), so a damaged frame costs only itself and the bytes it overlaps: a good frame right
    behind it is still found. A known type with the wrong length is refused at once rather than
    waited for, so a corrupted length byte cannot swallow the frames after it.
    """

    def __init__(self, known: Mapping[int, FrameClass] = BOARD_FRAMES) -> None:
        self._known = dict(known)
        self._buffer = bytearray()
        self.frames = 0
        self.bad_frames = 0
        self.garbage_bytes = 0

    @property
    def counts(self) -> ParserCounts:
        return ParserCounts(self.frames, self.bad_frames, self.garbage_bytes)

    @property
    def pending(self) -> int:
        """Bytes held back, waiting for the rest of a frame."""
        return len(self._buffer)

    def feed(self, data: bytes | bytearray | memoryview) -> list[Frame]:
        self._buffer += data
        return self._parse(final=False)

    def finish(self) -> list[Frame]:
        """The stream has ended: what is held back can never complete. Frames hidden behind an
        incomplete one are still delivered; the incomplete one is bad."""
        return self._parse(final=True)

    def reset(self) -> None:
        """Forget any partial frame (a new connection)."""
        self._buffer.clear()

    def _parse(self, final: bool) -> list[Frame]:
        buf = self._buffer
        out: list[Frame] = []
        i = 0
        end = len(buf)
        while i < end:
            start = buf.find(START, i)
            if start < 0:
                self.garbage_bytes += end - i
                i = end
                break
            self.garbage_bytes += start - i
            i = start
            if end - i < 2:
                if final:
                    self.bad_frames += 1
                    i += 1
                    continue
                break
            frame_type = buf[i + 1]
            expected = LENGTHS.get(frame_type) if frame_type in self._known else None
            if expected is None:
                self.bad_frames += 1
                i += 1
                continue
            if end - i < 3:
                if final:
                    self.bad_frames += 1
                    i += 1
                    continue
                break
            if buf[i + 2] != expected:
                self.bad_frames += 1
                i += 1
                continue
            total = HEADER_LEN + expected + CRC_LEN
            if end - i < total:
                if final:
                    self.bad_frames += 1
                    i += 1
                    continue
                break
            body_end = i + HEADER_LEN + expected
            if crc16(buf[i + 1:body_end]) != buf[body_end] | buf[body_end + 1] << 8:
                self.bad_frames += 1
                i += 1
                continue
            frame = decode(frame_type, bytes(buf[i + HEADER_LEN:body_end]), self._known)
            if frame is None:  # cannot happen: type and length were checked
                self.bad_frames += 1
                i += 1
                continue
            out.append(frame)
            self.frames += 1
            i += total
        del buf[:i]
        return out
