"""The buzzer box's serial protocol: PROTOCOL.md's own examples, the parser's resynchronisation,
and fuzzing (random streams, valid streams with damage) that must never raise or invent frames."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.buzzers import protocol as p
from companion.buzzers.protocol import (
    ALL_FRAMES,
    BOARD_FRAMES,
    HOST_FRAMES,
    Ack,
    Beep,
    Debounce,
    Event,
    FrameParser,
    Heartbeat,
    Hello,
    HelloRequest,
    Lamps,
    Nak,
    Reset,
    Sync,
    SyncReply,
    crc16,
    encode,
)

PROTOCOL_MD = Path(__file__).resolve().parent.parent / "firmware" / "PROTOCOL.md"


def doc_examples() -> list[bytes]:
    """Every line of hex bytes in PROTOCOL.md's code blocks (after an optional `host:`/`board:`)."""
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    examples = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S):
        for line in block.splitlines():
            data = line.split(":", 1)[-1].strip()
            if re.fullmatch(r"[0-9A-Fa-f]{2}( [0-9A-Fa-f]{2})*", data):
                examples.append(bytes.fromhex(data))
    return examples


# What the prose around each example says it is.
DOC_MEANING: dict[str, p.Frame] = {
    "A5 01 0C 01 01 00 00 00 24 F4 00 08 08 01 00 BE 20": Hello(1, 1, 0, 0, 16_000_000, 8, 8, 1, 0),
    "A5 02 08 07 00 03 01 67 45 23 01 D3 08": Event(7, 3, 1, 0x01234567),
    "A5 02 08 08 00 03 00 F7 A2 25 01 D8 32": Event(8, 3, 0, 0x0125A2F7),
    "A5 03 0D 00 00 00 02 09 00 00 00 01 00 00 00 04 CA 36": Heartbeat(0x02000000, 9, 0, 1, 0, 0b100),
    "A5 84 04 EF BE AD DE FC A1": Sync(0xDEADBEEF),
    "A5 04 08 EF BE AD DE 78 56 34 02 1E 99": SyncReply(0xDEADBEEF, 0x02345678),
    "A5 81 03 05 04 00 65 25": Lamps(5, 0b100, 0),
    "A5 05 02 81 05 E9 2E": Ack(0x81, 5),
    "A5 82 05 06 D0 07 96 00 8E 2B": Beep(6, 2000, 150),
    "A5 86 05 07 88 13 32 00 F8 FE": Debounce(7, 5000, 50),
    "A5 85 01 09 2E BE": HelloRequest(9),
    "A5 83 01 08 AF 1C": Reset(8),
    "A5 06 03 82 08 03 A5 AB": Nak(0x82, 8, p.NAK_OUT_OF_RANGE),
}


def test_crc_check_value() -> None:
    assert crc16(b"123456789") == 0x29B1


def test_every_example_of_the_protocol_page_round_trips() -> None:
    examples = doc_examples()
    assert len(examples) >= len(DOC_MEANING), "the examples were found in PROTOCOL.md"
    for data in examples:
        parser = FrameParser(ALL_FRAMES)
        frames = parser.feed(data)
        assert len(frames) == 1 and parser.counts == p.ParserCounts(1, 0, 0), data.hex(" ")
        assert encode(frames[0]) == data
        meaning = DOC_MEANING.get(data.hex(" ").upper())
        assert meaning is None or frames[0] == meaning, data.hex(" ")
    assert {bytes.fromhex(h) for h in DOC_MEANING} <= set(examples), "every example is still in the page"


def test_the_host_encoders_write_the_pages_examples() -> None:
    assert p.encode_lamps(5, 0b100) == bytes.fromhex("A5 81 03 05 04 00 65 25")
    assert p.encode_beep(6, 2000, 150) == bytes.fromhex("A5 82 05 06 D0 07 96 00 8E 2B")
    assert p.encode_debounce(7, 5000, 50) == bytes.fromhex("A5 86 05 07 88 13 32 00 F8 FE")
    assert p.encode_hello_request(9) == bytes.fromhex("A5 85 01 09 2E BE")
    assert p.encode_reset(8) == bytes.fromhex("A5 83 01 08 AF 1C")
    assert p.encode_sync(0xDEADBEEF) == bytes.fromhex("A5 84 04 EF BE AD DE FC A1")
    assert p.encode_hello() == bytes.fromhex("A5 01 0C 01 01 00 00 00 24 F4 00 08 08 01 00 BE 20")
    assert p.encode_event(7, 3, True, 0x01234567) == bytes.fromhex("A5 02 08 07 00 03 01 67 45 23 01 D3 08")
    assert p.encode_heartbeat(0x02000000, 9, noise=1, held=0b100) == bytes.fromhex(
        "A5 03 0D 00 00 00 02 09 00 00 00 01 00 00 00 04 CA 36")
    assert p.encode_sync_reply(0xDEADBEEF, 0x02345678) == bytes.fromhex("A5 04 08 EF BE AD DE 78 56 34 02 1E 99")
    assert p.encode_ack(0x81, 5) == bytes.fromhex("A5 05 02 81 05 E9 2E")
    assert p.encode_nak(0x82, 8, 3) == bytes.fromhex("A5 06 03 82 08 03 A5 AB")


@pytest.mark.parametrize("call", [
    lambda: p.encode_lamps(256, 0), lambda: p.encode_lamps(1, -1), lambda: p.encode_beep(1, 50, 10),
    lambda: p.encode_beep(1, 20_000, 10), lambda: p.encode_beep(1, 1000, 70_000),
    lambda: p.encode_debounce(1, 99, 50), lambda: p.encode_debounce(1, 5000, 1001), lambda: p.encode_sync(2**32),
    lambda: encode(Ack(300, 1)),
])
def test_encoders_refuse_values_out_of_range(call) -> None:
    with pytest.raises(ValueError):
        call()


def test_a_beep_of_zero_hertz_stops_the_beeper() -> None:
    assert p.encode_beep(1, 0, 0)


def test_every_frame_type_has_one_length_and_the_lengths_match_the_page() -> None:
    assert dict(p.LENGTHS) == {0x01: 12, 0x02: 8, 0x03: 13, 0x04: 8, 0x05: 2, 0x06: 3,
                               0x81: 3, 0x82: 5, 0x83: 1, 0x84: 4, 0x85: 1, 0x86: 5}


# -- resynchronisation -----------------------------------------------------------------------------

ACK = bytes.fromhex("A5 05 02 81 05 E9 2E")
EVENT = bytes.fromhex("A5 02 08 07 00 03 01 67 45 23 01 D3 08")


def test_a_frame_hidden_inside_a_bad_one_is_found_from_the_byte_after_the_bad_frames_start() -> None:
    bad = bytes.fromhex("A5 02 08") + ACK + bytes.fromhex("00 FF FF")  # an EVENT header whose CRC fails
    parser = FrameParser()
    assert parser.feed(bad + EVENT) == [Ack(0x81, 5), Event(7, 3, 1, 0x01234567)]
    assert parser.bad_frames == 1
    assert parser.garbage_bytes == 2 + 3, "02 08 after the bad A5, and the three bytes after the ACK"


def test_unknown_types_wrong_lengths_and_bad_crcs_are_each_one_bad_frame() -> None:
    parser = FrameParser()
    unknown = p.frame_bytes(0x7E, b"\x00\x01")
    wrong_length = p.frame_bytes(p.ACK, b"\x81\x05\x00")
    bad_crc = ACK[:-1] + bytes([ACK[-1] ^ 0x01])
    host_command = bytes.fromhex("A5 85 01 09 2E BE")  # valid, but not something a board sends
    frames = parser.feed(unknown + EVENT + wrong_length + EVENT + bad_crc + EVENT + host_command + EVENT)
    assert frames == [Event(7, 3, 1, 0x01234567)] * 4
    assert parser.bad_frames == 4


def test_garbage_between_frames_is_skipped_and_counted() -> None:
    parser = FrameParser()
    assert parser.feed(b"hello\r\n" + EVENT + b"\x00" * 10 + ACK + b"!") == [Event(7, 3, 1, 0x01234567),
                                                                             Ack(0x81, 5)]
    assert (parser.bad_frames, parser.garbage_bytes) == (0, 18)


def test_a_frame_split_anywhere_is_decoded_once_complete() -> None:
    for cut in range(1, len(EVENT)):
        parser = FrameParser()
        assert parser.feed(EVENT[:cut]) == []
        assert parser.pending == cut
        assert parser.feed(EVENT[cut:]) == [Event(7, 3, 1, 0x01234567)]


def test_finish_delivers_frames_hidden_behind_an_incomplete_one() -> None:
    parser = FrameParser()
    assert parser.feed(EVENT[:4] + ACK) == [], "the event's header asks for more bytes than there are"
    assert parser.finish() == [Ack(0x81, 5)]
    assert parser.bad_frames == 1 and parser.pending == 0


def test_the_board_side_parser_reads_only_host_commands() -> None:
    parser = FrameParser(HOST_FRAMES)
    assert parser.feed(EVENT + bytes.fromhex("A5 83 01 08 AF 1C")) == [Reset(8)]
    assert parser.bad_frames == 1


# -- fuzzing ---------------------------------------------------------------------------------------

_FIELD = {"B": st.integers(0, 0xFF), "H": st.integers(0, 0xFFFF), "I": st.integers(0, 0xFFFF_FFFF)}


def _frames_of(cls: p.FrameClass) -> st.SearchStrategy[p.Frame]:
    return st.tuples(*(_FIELD[c] for c in cls.FORMAT[1:])).map(lambda values: cls(*values))


board_frames = st.one_of(*(_frames_of(c) for c in BOARD_FRAMES.values()))
chunk_sizes = st.lists(st.integers(1, 40), min_size=1, max_size=20)


def feed_in_chunks(parser: FrameParser, data: bytes, sizes: list[int]) -> list[p.Frame]:
    frames: list[p.Frame] = []
    at, k = 0, 0
    while at < len(data):
        size = sizes[k % len(sizes)]
        frames += parser.feed(data[at:at + size])
        at += size
        k += 1
    return frames + parser.finish()


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=600), sizes=chunk_sizes)
def test_random_bytes_never_raise_and_chunking_changes_nothing(data: bytes, sizes: list[int]) -> None:
    whole = FrameParser(ALL_FRAMES)
    expected = whole.feed(data) + whole.finish()
    chunked = FrameParser(ALL_FRAMES)
    assert feed_in_chunks(chunked, data, sizes) == expected
    assert chunked.counts == whole.counts
    assert chunked.pending == 0


@settings(max_examples=200)
@given(data=st.lists(st.sampled_from([0xA5, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x08, 0x0C, 0x0D, 0x00, 0xFF]),
                     max_size=400).map(bytes), sizes=chunk_sizes)
def test_streams_dense_in_start_bytes_and_headers_never_raise(data: bytes, sizes: list[int]) -> None:
    parser = FrameParser()
    for frame in feed_in_chunks(parser, data, sizes):
        assert encode(frame) in data, "a frame is only ever decoded from its own bytes"


@dataclass(frozen=True)
class Damage:
    """One change to one frame's bytes: a bit flip, a deleted byte, inserted bytes, or a cut tail."""

    kind: str
    frame: int
    at: int
    """Offset inside the frame (1 to its length - 1: its start byte stays, the frame is changed)."""
    bit: int = 0
    inserted: bytes = b""

    def apply(self, data: bytes) -> bytes:
        if len(data) < 2:  # already cut down to its start byte
            return data + self.inserted if self.kind == "insert" else data
        at = self.at % (len(data) - 1) + 1
        if self.kind == "flip":
            return data[:at] + bytes([data[at] ^ (1 << self.bit)]) + data[at + 1:]
        if self.kind == "delete":
            return data[:at] + data[at + 1:]
        if self.kind == "insert":
            return data[:at] + self.inserted + data[at:]
        return data[:at]  # "cut": the rest never came


damages = st.builds(Damage, kind=st.sampled_from(["flip", "delete", "insert", "cut"]), frame=st.integers(0, 30),
                    at=st.integers(0, 40), bit=st.integers(0, 7), inserted=st.binary(min_size=1, max_size=8))


@settings(max_examples=300, derandomize=True)
@given(frames=st.lists(board_frames, min_size=1, max_size=20), damage=st.lists(damages, max_size=5),
       garbage=st.dictionaries(st.integers(0, 20), st.binary(min_size=1, max_size=12), max_size=4),
       sizes=chunk_sizes)
def test_damage_costs_only_the_damaged_frames(frames: list[p.Frame], damage: list[Damage],
                                              garbage: dict[int, bytes], sizes: list[int]) -> None:
    """Untouched frames all come through, in order; damaged ones never do (a damaged frame could
    only pass as another with CRC-collision odds: the run is derandomized, so it is reproducible)."""
    encoded = [encode(f) for f in frames]
    for d in damage:
        k = d.frame % len(frames)
        encoded[k] = d.apply(encoded[k])
    touched = {k for k, f in enumerate(frames) if encoded[k] != encode(f)}  # two flips of one bit undo
    stream = b"".join(garbage.get(k, b"") + encoded[k] for k in range(len(frames)))
    parser = FrameParser()
    decoded = feed_in_chunks(parser, stream, sizes)
    assert decoded == [f for k, f in enumerate(frames) if k not in touched]
    assert parser.bad_frames >= len(touched), "each damaged frame (its start byte intact) counts as bad"


@settings(max_examples=400)
@given(frames=st.lists(board_frames, min_size=1, max_size=12), which=st.integers(0, 11),
       position=st.integers(0, 400), sizes=chunk_sizes)
def test_a_single_bit_flip_always_loses_exactly_that_frame(frames: list[p.Frame], which: int, position: int,
                                                           sizes: list[int]) -> None:
    """A CRC-16 catches every single-bit error, so the counts are exact, not probable."""
    encoded = [encode(f) for f in frames]
    k = which % len(frames)
    bit = position % (len(encoded[k]) * 8)
    damaged = bytearray(encoded[k])
    damaged[bit // 8] ^= 1 << (bit % 8)
    stream = b"".join(bytes(damaged) if j == k else e for j, e in enumerate(encoded))
    parser = FrameParser()
    assert feed_in_chunks(parser, stream, sizes) == frames[:k] + frames[k + 1:]
    rest = bytes(damaged[1:])
    if bit // 8 == 0:  # the start byte itself: the frame is garbage
        assert parser.garbage_bytes >= 1
    elif p.START not in rest:  # nothing inside it looks like a start: exactly one bad frame
        assert (parser.bad_frames, parser.garbage_bytes) == (1, len(rest))
    else:
        assert parser.bad_frames >= 1
