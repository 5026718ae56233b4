"""Stored events and their hash chain.

Each stream (the table, or one game) is a chain: every event's hash covers its content and the
previous event's hash, so an edited, dropped or reordered event is detected by anyone holding the
log, including someone checking an exported game on another machine.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

GENESIS = "0" * 64


def canonical_json(value: Any) -> str:
    """One spelling per value, so hashes computed anywhere agree."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


@dataclass(frozen=True, slots=True)
class PendingEvent:
    """An event decided but not yet stored; the store gives it its hash and global position."""

    stream: str
    seq: int
    type: str
    actor: str
    data: Mapping[str, Any]
    mono_us: int
    wall_ms: int
    reveals: bool = False
    draws: tuple[Mapping[str, Any], ...] = ()
    command: Mapping[str, Any] | None = None
    """The command that produced this event (on the last event of a command's batch), so a
    verifier can decide it again from the log."""

    def content(self, prev_hash: str) -> dict[str, Any]:
        extra = {} if self.command is None else {"command": self.command}
        return {
            **extra,
            "stream": self.stream,
            "seq": self.seq,
            "type": self.type,
            "actor": self.actor,
            "data": self.data,
            "reveals": self.reveals,
            "draws": list(self.draws),
            "mono_us": self.mono_us,
            "wall_ms": self.wall_ms,
            "prev": prev_hash,
        }

    def hashed(self, prev_hash: str) -> str:
        return hashlib.sha256(canonical_json(self.content(prev_hash)).encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    position: int
    stream: str
    seq: int
    type: str
    actor: str
    data: Mapping[str, Any]
    mono_us: int
    wall_ms: int
    prev_hash: str
    hash: str
    reveals: bool = False
    draws: tuple[Mapping[str, Any], ...] = field(default=())
    command: Mapping[str, Any] | None = None

    def pending(self) -> PendingEvent:
        return PendingEvent(
            self.stream, self.seq, self.type, self.actor, self.data,
            self.mono_us, self.wall_ms, self.reveals, self.draws, self.command,
        )

    def to_json(self) -> dict[str, Any]:
        return {**self.pending().content(self.prev_hash), "position": self.position, "hash": self.hash}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> RecordedEvent:
        return cls(
            position=int(raw["position"]),
            stream=str(raw["stream"]),
            seq=int(raw["seq"]),
            type=str(raw["type"]),
            actor=str(raw["actor"]),
            data=raw["data"],
            mono_us=int(raw["mono_us"]),
            wall_ms=int(raw["wall_ms"]),
            prev_hash=str(raw["prev"]),
            hash=str(raw["hash"]),
            reveals=bool(raw["reveals"]),
            draws=tuple(raw["draws"]),
            command=raw.get("command"),
        )


@dataclass(frozen=True, slots=True)
class ChainProblem:
    stream: str
    seq: int
    problem: str

    def __str__(self) -> str:
        return f"stream {self.stream} event {self.seq}: {self.problem}"


def verify_chain(events: Iterable[RecordedEvent]) -> list[ChainProblem]:
    """Every problem in the chains of these events (grouped by stream, in order); [] when sound."""
    heads: dict[str, tuple[int, str]] = {}
    problems = []
    for event in events:
        last_seq, last_hash = heads.get(event.stream, (0, GENESIS))
        if event.seq != last_seq + 1:
            problems.append(ChainProblem(event.stream, event.seq, f"expected event {last_seq + 1} here"))
        if event.prev_hash != last_hash:
            problems.append(ChainProblem(event.stream, event.seq, "does not link to the event before it"))
        if event.pending().hashed(event.prev_hash) != event.hash:
            problems.append(ChainProblem(event.stream, event.seq, "content does not match its hash"))
        heads[event.stream] = (event.seq, event.hash)
    return problems
