"""One game as a fold over its log, with the undo stack.

The same code rebuilds a game at start-up, replays it for `companion replay`, and advances it live,
so what the table shows after a restart is exactly what it showed before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from companion.errors import ReplayMismatch
from companion.fairness import contributions
from companion.fairness.contributions import Contribution
from companion.fairness.rng import Draw, ReplayRandomSource
from companion.games.base import Event, GameDefinition, SeatInfo, Viewer
from companion.store.records import RecordedEvent

GAME_STARTED = "game_started"
GAME_ENDED = "game_ended"
UNDONE = "undone"
ENTROPY_COMMITTED = "entropy_committed"
ENTROPY_REVEALED = "entropy_revealed"
RESERVED = (GAME_STARTED, GAME_ENDED, UNDONE, ENTROPY_COMMITTED, ENTROPY_REVEALED)

UndoPolicy = Literal["off", "host", "host_and_own"]
UNDO_POLICIES: tuple[UndoPolicy, ...] = ("off", "host", "host_and_own")


@dataclass(frozen=True, slots=True)
class UndoEntry:
    """What undoing one event restores: the state before it."""

    seq: int
    actor: str
    state_before: Any


@dataclass
class GameRun:
    definition: GameDefinition[Any]
    game_id: str
    options: Mapping[str, Any]
    seats: tuple[SeatInfo, ...]
    state: Any
    seq: int = 1
    ended: bool = False
    started_wall_ms: int = 0
    events: int = 1
    undo_stack: list[UndoEntry] = field(default_factory=list)
    undo_chain_actor: str | None = None
    """Whose actions the current run of consecutive undos is taking back (None outside such a run)."""
    entropy: dict[int, Contribution] = field(default_factory=dict)
    """Players' committed (and later revealed) random bytes, by seat."""
    undo_wall: str = "nothing_to_undo"
    """Why nothing further back can be undone: the start, a random outcome, or a reveal."""

    @classmethod
    def from_start(cls, definition: GameDefinition[Any], record: RecordedEvent) -> GameRun:
        if record.type != GAME_STARTED or record.seq != 1:
            raise ReplayMismatch(f"game {record.stream} does not begin with {GAME_STARTED}")
        data = record.data
        if data.get("game") != definition.id:
            raise ReplayMismatch(f"game {record.stream} is a {data.get('game')!r}, not a {definition.id!r}")
        seats = tuple(SeatInfo.from_json(s) for s in data["seats"])
        rng = ReplayRandomSource(Draw.from_json(dict(d)) for d in record.draws)
        state = definition.setup(data["options"], seats, rng)
        if not rng.finished():
            raise ReplayMismatch(f"game {record.stream}: setup used fewer draws than were recorded")
        return cls(definition, record.stream, data["options"], seats, state, started_wall_ms=record.wall_ms)

    @classmethod
    def replay(cls, definition: GameDefinition[Any], records: Sequence[RecordedEvent]) -> GameRun:
        if not records:
            raise ReplayMismatch("an empty log is not a game")
        run = cls.from_start(definition, records[0])
        for record in records[1:]:
            run.apply(record)
        return run

    def next_state(self, events: Iterable[Event]) -> Any:
        """The state after these game events, without touching this run (pure rules only)."""
        state = self.state
        for event in events:
            state = self.definition.evolve(state, event)
        return state

    def apply(self, record: RecordedEvent, new_state: Any = None) -> None:
        """Advance by one stored event. `new_state`, when given, is the already-computed result."""
        if record.seq != self.seq + 1:
            raise ReplayMismatch(f"game {self.game_id}: event {record.seq} follows event {self.seq}")
        self.seq = record.seq
        self.events += 1
        if record.type == GAME_ENDED:
            self.ended = True
            self.undo_stack.clear()
            self.undo_wall = "game_over"
            return
        if record.type == ENTROPY_COMMITTED:
            # Contributions are not moves: they neither start nor break a run of undos.
            self.entropy = contributions.committed(self.entropy, record.data["seat"], record.data["commitment"])
            return
        if record.type == ENTROPY_REVEALED:
            self.entropy = contributions.revealed(self.entropy, record.data["seat"], record.data["value"])
            return
        if record.type == UNDONE:
            target = record.data.get("seq")
            if not self.undo_stack or self.undo_stack[-1].seq != target:
                raise ReplayMismatch(f"game {self.game_id}: event {record.seq} undoes {target}, which cannot be undone")
            entry = self.undo_stack.pop()
            self.state = entry.state_before
            self.undo_chain_actor = entry.actor
            return
        event = Event(record.type, record.data, record.reveals)
        before = self.state
        self.state = new_state if new_state is not None else self.definition.evolve(self.state, event)
        self.undo_chain_actor = None
        if record.draws or record.reveals:
            # A random outcome or an uncovered secret is a wall: nothing before it can be undone.
            self.undo_stack.clear()
            self.undo_wall = "undo_reveal" if record.reveals else "undo_random"
        else:
            self.undo_stack.append(UndoEntry(record.seq, record.actor, before))

    def undo_refusal(self, requester: Viewer, policy: UndoPolicy) -> str | None:
        """Why `requester` may not undo the last event now, as a rejection code; None when allowed.

        Board Game Arena's policy: never across a random outcome, a reveal, or another player's
        action. A run of consecutive undos stays with the actor whose action it began taking back.
        """
        if self.ended:
            return "game_over"
        if policy == "off":
            return "undo_disabled"
        if requester.kind != "host" and (policy != "host_and_own" or requester.kind != "seat"):
            return "host_only"
        if not self.undo_stack:
            return self.undo_wall
        target = self.undo_stack[-1]
        if requester.kind == "seat" and target.actor != str(requester):
            return "undo_other_player"
        if self.undo_chain_actor is not None and target.actor != self.undo_chain_actor:
            return "undo_other_player"
        return None

    def view(self, viewer: Viewer) -> dict[str, Any]:
        return self.definition.view(self.state, viewer)
