"""One game as a fold over its log, with the undo stack.

The same code rebuilds a game at start-up, replays it for `companion replay`, and advances it live,
so what the table shows after a restart is exactly what it showed before.
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from companion.errors import ReplayMismatch
from companion.fairness import contributions
from companion.fairness.contributions import Contribution
from companion.fairness.drbg import fingerprint, master_key
from companion.fairness.rng import Draw, ReplayRandomSource
from companion.games.base import Event, GameDefinition, SeatInfo, Secret, Viewer
from companion.store.records import RecordedEvent

GAME_STARTED = "game_started"
GAME_ENDED = "game_ended"
UNDONE = "undone"
UNDO_DEPTH = 100
"""How many actions back an undo can go. A game with no random outcome or reveal (the buzzer quiz)
would otherwise keep a state for every round it ever played."""
ENTROPY_COMMITTED = "entropy_committed"
ENTROPY_REVEALED = "entropy_revealed"
ENTROPY_TIMED_OUT = "entropy_timed_out"
RANDOMNESS_SEALED = "randomness_sealed"
SEED_REVEALED = "seed_revealed"
RESERVED = (GAME_STARTED, GAME_ENDED, UNDONE, ENTROPY_COMMITTED, ENTROPY_REVEALED, ENTROPY_TIMED_OUT,
            RANDOMNESS_SEALED, SEED_REVEALED)

UndoPolicy = Literal["off", "host", "host_and_own"]
UNDO_POLICIES: tuple[UndoPolicy, ...] = ("off", "host", "host_and_own")


@dataclass(frozen=True, slots=True)
class UndoEntry:
    """What undoing one command restores: the state before its first event. A person did the
    command as one act, so it is taken back as one (never a draw or a push left standing)."""

    first: int
    seq: int
    """The command's last event: the one an `undone` record names."""
    actor: str
    command: str
    state_before: Any


@dataclass(frozen=True, slots=True)
class Undone:
    """The latest undo, until the next move: every screen says what was taken back and by whom."""

    by: str
    actor: str
    command: str

    def to_json(self) -> dict[str, str]:
        return {"by": self.by, "actor": self.actor, "command": self.command}


@dataclass(frozen=True, slots=True)
class _Telling:
    """A command whose events are being applied: where it began, the state before it, and the wall
    inside it if it drew or revealed (then it can never be undone)."""

    first: int
    state_before: Any
    wall: str | None = None


@dataclass
class GameRun:
    definition: GameDefinition[Any]
    game_id: str
    options: Mapping[str, Any]
    seats: tuple[SeatInfo, ...]
    state: Any
    seed: bytes = b""
    """The game's secret seed; no view shows it before `seed_revealed`."""
    seed_commitment: str = ""
    seed_revealed: bool = False
    epoch: int = 0
    sealed_seats: tuple[int, ...] = ()
    """Whose contributions the current epoch's master key includes."""
    master: bytes = b""
    counter: int = 0
    """How many draws the game has made: the number of the next one."""
    seq: int = 1
    ended: bool = False
    started_wall_ms: int = 0
    events: int = 1
    undo_stack: deque[UndoEntry] = field(default_factory=lambda: deque(maxlen=UNDO_DEPTH))
    undo_chain_actor: str | None = None
    """Whose actions the current run of consecutive undos is taking back (None outside such a run)."""
    entropy: dict[int, Contribution] = field(default_factory=dict)
    """Players' committed (and later revealed) random bytes, by seat."""
    undo_wall: str = "nothing_to_undo"
    """Why nothing further back can be undone: the start, a random outcome, or a reveal."""
    undone: Undone | None = None
    telling: _Telling | None = None

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
        try:
            seed = bytes.fromhex(str(data["seed"]))
        except (KeyError, ValueError):
            raise ReplayMismatch(f"game {record.stream} has no valid seed") from None
        return cls(definition, record.stream, data["options"], seats, state, seed=seed,
                   seed_commitment=str(data.get("seed_commitment", "")), master=master_key(seed, []),
                   counter=len(record.draws), started_wall_ms=record.wall_ms)

    def unsealed_seats(self) -> list[int]:
        """Seats whose revealed bytes the current master key does not include yet."""
        return sorted(s for s, c in self.entropy.items() if c.value is not None and s not in self.sealed_seats)

    def epoch_master(self, seats: list[int]) -> bytes:
        included = []
        for seat in seats:
            value = self.entropy[seat].value
            assert value is not None, f"seat {seat} has not revealed"
            included.append((seat, bytes.fromhex(value)))
        return master_key(self.seed, included)

    def secrets(self) -> list[Secret]:
        """The game's declared secrets, and the seed until it is revealed (nobody may see it)."""
        hidden = list(self.definition.secrets(self.state))
        if not self.seed_revealed:
            hidden.append(Secret(self.seed.hex(), lambda viewer: False, "the game's seed"))
        return hidden

    def fairness_view(self) -> dict[str, Any]:
        """What everyone may know of the game's randomness: the commitment now, the seed at the end."""
        return {
            "commitment": self.seed_commitment,
            "fingerprint": fingerprint(self.seed_commitment),
            "draws": self.counter,
            "epoch": self.epoch,
            "included": list(self.sealed_seats),
            "seed": self.seed.hex() if self.seed_revealed else None,
        }

    @classmethod
    def replay(cls, definition: GameDefinition[Any], records: Sequence[RecordedEvent]) -> GameRun:
        if not records:
            raise ReplayMismatch("an empty log is not a game")
        run = cls.from_start(definition, records[0])
        for record in records[1:]:
            run.apply(record)
        return run

    def snapshot(self) -> GameRun:
        """The run as it is, to go back to should the events applied after it not be stored."""
        kept = copy.copy(self)
        kept.undo_stack = deque(self.undo_stack, maxlen=UNDO_DEPTH)  # the one part changed in place
        return kept

    def restore(self, kept: GameRun) -> None:
        """Back to a snapshot of this run."""
        self.__dict__.update(kept.__dict__)

    def apply(self, record: RecordedEvent, new_state: Any = None) -> None:
        """Advance by one stored event. `new_state`, when given, is the already-computed result."""
        if record.seq != self.seq + 1:
            raise ReplayMismatch(f"game {self.game_id}: event {record.seq} follows event {self.seq}")
        self.seq = record.seq
        self.events += 1
        self.counter += len(record.draws)
        if record.type == SEED_REVEALED:
            if record.data.get("seed") != self.seed.hex():
                raise ReplayMismatch(f"game {self.game_id}: the revealed seed is not the game's seed")
            self.seed_revealed = True
            return
        if record.type == RANDOMNESS_SEALED:
            # Not a move: it neither starts nor breaks a run of undos.
            seats = [int(s) for s in record.data["seats"]]
            self.master = self.epoch_master(seats)
            self.epoch = int(record.data["epoch"])
            self.sealed_seats = tuple(seats)
            return
        if record.type == GAME_ENDED:
            self.ended = True
            self.state = self.definition.close(self.state)
            self.undo_stack.clear()
            self.undo_wall = "game_over"
            self.undone = None
            return
        if record.type == ENTROPY_COMMITTED:
            # Contributions are not moves: they neither start nor break a run of undos.
            self.entropy = contributions.committed(self.entropy, record.data["seat"], record.data["commitment"],
                                                   record.wall_ms)
            return
        if record.type == ENTROPY_TIMED_OUT:
            self.entropy = contributions.excluded(self.entropy, [int(s) for s in record.data["seats"]])
            return
        if record.type == ENTROPY_REVEALED:
            self.entropy = contributions.revealed(self.entropy, record.data["seat"], record.data["value"])
            return
        if record.type == UNDONE:
            target = record.data.get("seq")
            if self.telling is not None or not self.undo_stack or self.undo_stack[-1].seq != target:
                raise ReplayMismatch(f"game {self.game_id}: event {record.seq} undoes {target}, which cannot be undone")
            entry = self.undo_stack.pop()
            self.state = entry.state_before
            self.undo_chain_actor = entry.actor
            self.undone = Undone(record.actor, entry.actor, entry.command)
            return
        self._apply_move_event(record, new_state)

    def _apply_move_event(self, record: RecordedEvent, new_state: Any) -> None:
        """One event of a command. The table stores the command on its last event: that closes the
        command, which becomes one undo step, or a wall if a random outcome or a reveal is inside."""
        telling = self.telling or _Telling(record.seq, self.state)
        if record.reveals:
            telling = replace(telling, wall="undo_reveal")
        elif record.draws and telling.wall is None:
            telling = replace(telling, wall="undo_random")
        if record.command is not None and telling.wall is None and self._irrevocable(record.command):
            telling = replace(telling, wall="undo_irrevocable")
        event = Event(record.type, record.data, record.reveals)
        self.state = new_state if new_state is not None else self.definition.evolve(self.state, event)
        self.undo_chain_actor = None
        self.undone = None
        if record.command is None:
            self.telling = telling
            return
        self.telling = None
        if telling.wall is not None:
            # A random outcome or an uncovered secret is a wall: nothing before it can be undone.
            self.undo_stack.clear()
            self.undo_wall = telling.wall
            return
        if len(self.undo_stack) == UNDO_DEPTH:
            self.undo_wall = "undo_too_far"  # the oldest state goes as the newest comes in
        self.undo_stack.append(UndoEntry(telling.first, record.seq, record.actor, str(record.command.get("name", "")),
                                         telling.state_before))

    def _irrevocable(self, command: Mapping[str, Any]) -> bool:
        move = self.definition.moves.get(str(command.get("name", "")))
        return move is not None and move.irrevocable

    def undo_refusal(self, requester: Viewer, policy: UndoPolicy) -> str | None:
        """Why `requester` may not undo the last command now, as a rejection code; None when allowed.

        Board Game Arena's policy: a whole command or nothing, never across a random outcome, a
        reveal, or another player's action. A run of consecutive undos stays with the actor whose
        action it began taking back.
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
