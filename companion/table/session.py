"""The table: the one place where commands become durable events and views.

Pipeline for every command: validate -> decide -> compute the next state -> append (one SQLite
transaction) -> adopt the state -> publish the new sequence number. A rejected command returns a
typed code and changes nothing; a failing append leaves the state as it was.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from companion.clock import Clock
from companion.errors import ReplayMismatch, StoreError
from companion.fairness import contributions
from companion.fairness.drbg import SeededRandomSource, master_key, seed_commitment
from companion.games.base import SYSTEM, Command, Event, GameDefinition, OptionsError, Rejection, Viewer
from companion.store import EventStore, PendingEvent, RecordedEvent
from companion.table import seating
from companion.table.broadcast import Broadcaster
from companion.table.gamerun import (
    ENTROPY_COMMITTED,
    ENTROPY_REVEALED,
    ENTROPY_TIMED_OUT,
    GAME_ENDED,
    GAME_STARTED,
    RANDOMNESS_SEALED,
    RESERVED,
    SEED_REVEALED,
    UNDONE,
    GameRun,
    UndoPolicy,
)
from companion.table.presence import Presence
from companion.table.seating import JOIN_CODE_ALPHABET, JOIN_CODE_LENGTH, TableState
from companion.table.views import TableViews

log = logging.getLogger(__name__)

TABLE_STREAM = "table"


@dataclass(frozen=True, slots=True)
class TableSettings:
    default_seats: int = 6
    undo_policy: UndoPolicy = "host_and_own"
    game_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Per game id, the options a new game starts with unless the host gives others."""
    game_pinned: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Per game id, options the configuration fixes over the latest game's (the owner's board file:
    an edited file must not lose to the map an earlier game used)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The answer to one command: accepted at a log position, or rejected with a reason."""

    rejection: Rejection | None = None
    position: int = 0
    events: tuple[RecordedEvent, ...] = ()
    view: dict[str, Any] | None = None
    """The actor's view right after this command (before any later one), when asked for."""

    @property
    def ok(self) -> bool:
        return self.rejection is None


class Table:
    def __init__(
        self,
        store: EventStore,
        games: Mapping[str, GameDefinition[Any]],
        clock: Clock,
        seeds: Callable[[], bytes],
        settings: TableSettings,
    ) -> None:
        self.store = store
        self.games = games
        self.clock = clock
        self.seeds = seeds
        """Where each game's secret seed comes from (the OS's CSPRNG in the service)."""
        self.settings = settings
        self.state = TableState(settings.default_seats)
        self.run: GameRun | None = None
        self.broadcaster = Broadcaster(store.position)
        self.presence = Presence(self.broadcaster)
        self._lock = threading.RLock()
        self.views = TableViews(self, self._lock)
        self.observers: list[Callable[[tuple[RecordedEvent, ...]], None]] = []
        """Told of every committed batch of events, after the pages (I/O-side components such as
        the round keeper react to what the rules decided)."""
        self.view_changing_events: set[str] = set()
        self._ahead: tuple[int, int] | None = None
        """While a change is stored: the thread foreseeing it, and the position it will have."""
        self._foreseen = False
        """The last command's views were made while it was stored (they are current)."""
        """The event types after which an observer changes what the views show (a round opened,
        a phone forgotten): views built before the observers ran are then built again."""
        self.extra_views: dict[str, Callable[[Viewer], Any]] = {}
        """Parts of every view that are not game state (the buttons' pairing and health): each
        builds its part for one viewer, who sees only what is theirs; a change calls `nudge`."""

    @classmethod
    def open(
        cls,
        store: EventStore,
        games: Mapping[str, GameDefinition[Any]],
        clock: Clock,
        seeds: Callable[[], bytes],
        settings: TableSettings,
    ) -> Table:
        """Rebuild the table and its current game from the log."""
        table = cls(store, games, clock, seeds, settings)
        for record in store.read(TABLE_STREAM):
            table.state = seating.evolve(table.state, Event(record.type, record.data))
        if table.state.game_id:
            table.run = table._replay(table.state.game_id)
        if not table.state.join_code:
            code = "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))
            table.handle(SYSTEM, Command("set_join_code", {"code": code}))
        return table

    def _replay(self, game_id: str) -> GameRun:
        records = self.store.read(game_id)
        if not records:
            raise ReplayMismatch(f"the table names game {game_id}, whose log is empty")
        kind = records[0].data.get("game")
        definition = self.games.get(str(kind))
        if definition is None:
            raise StoreError(f"game {game_id} is a {kind!r}, which this companion does not know")
        return GameRun.replay(definition, records)

    @property
    def position(self) -> int:
        ahead = self._ahead
        if ahead is not None and ahead[0] == threading.get_ident():
            return ahead[1]  # the thread foreseeing a change sees the position it will have
        return self.store.position

    # -- commands ----------------------------------------------------------------------------

    def handle(self, actor: Viewer, command: Command, with_view: bool = False) -> Outcome:
        if not command.at_us:
            command = replace(command, at_us=self.clock.now_us())
        unanswerable: Exception | None = None
        with self._lock:
            try:
                outcome = self._dispatch(actor, command)
            except StoreError as err:
                # One line a person can act on (a full disk, a failing card); the state is as it was.
                log.error("%s from %s was not stored, nothing changed: %s", command.name, actor, err)
                raise
            foreseen, self._foreseen = self._foreseen, False
            if outcome.ok and not foreseen:
                self.views.forget()  # built before this command; the publish below moves the revision
            if outcome.ok and with_view:
                try:
                    # The answer shows the table just after this command, whatever comes next.
                    outcome = replace(outcome, view=self.view(actor))
                except Exception as err:
                    unanswerable = err  # stored all the same: the screens still hear of it
        if outcome.ok:
            self._announce(outcome)
            if unanswerable is not None:
                raise unanswerable
        else:
            assert outcome.rejection is not None
            log.info("refused %s from %s: %s %s", command.name, actor, outcome.rejection.code,
                     dict(outcome.rejection.params))
        return outcome

    def _announce(self, outcome: Outcome) -> None:
        """A stored change goes to the observers, then to every screen.

        Observers first: what they keep is part of the views (the round being refereed, a phone
        forgotten), and a screen must never see the command without it: a phone whose buzzer lit
        up would stamp its tap with the round before.
        """
        try:
            for observer in list(self.observers):
                observer(outcome.events)
        finally:
            if any(event.type in self.view_changing_events for event in outcome.events):
                with self._lock:
                    self.views.forget()
            self.broadcaster.publish(outcome.position)

    def _dispatch(self, actor: Viewer, command: Command) -> Outcome:
        if not isinstance(command.args, Mapping):
            return Outcome(Rejection("bad_arguments", {"detail": "args"}))
        if command.name in seating.TABLE_COMMANDS:
            return self._table_command(actor, command)
        if command.name == "start_game":
            return self._start_game(actor, command)
        if command.name == "end_game":
            return self._end_game(actor)
        if command.name == "undo":
            return self._undo(actor)
        if command.name in ("commit_entropy", "reveal_entropy"):
            return self._entropy(actor, command)
        return self._game_command(actor, command)

    def _pending(
        self, stream: str, seq: int, actor: Viewer, event: Event, draws: tuple = (),
        command: Mapping[str, Any] | None = None,
    ) -> PendingEvent:
        return PendingEvent(
            stream, seq, event.type, str(actor), dict(event.data),
            self.clock.now_us(), self.clock.wall_ms(), event.reveals, draws, command,
        )

    def _table_command(self, actor: Viewer, command: Command) -> Outcome:
        if command.name == "set_seat_count" and actor.kind == "host" and self.run and not self.run.ended:
            return Outcome(Rejection("game_in_progress"))
        rejection = seating.validate(self.state, actor, command)
        if rejection:
            return Outcome(rejection)
        events = seating.decide(self.state, actor, command)
        new_state = self.state
        for event in events:
            new_state = seating.evolve(new_state, event)
        head = self.store.head(TABLE_STREAM)
        batch = [self._pending(TABLE_STREAM, head + i + 1, actor, e) for i, e in enumerate(events)]
        recorded = self.store.append(batch)
        self.state = new_state
        return Outcome(None, recorded[-1].position, tuple(recorded))

    def _start_game(self, actor: Viewer, command: Command) -> Outcome:
        if actor.kind not in ("host", "system"):
            return Outcome(Rejection("host_only"))
        if self.run is not None and not self.run.ended:
            return Outcome(Rejection("game_in_progress"))
        game = command.args.get("game")
        definition = self.games.get(game) if isinstance(game, str) else None
        if definition is None:
            return Outcome(Rejection("unknown_game", {"game": str(game)[:40]}))
        seats = self.state.seats()
        if definition.seated_only:
            seats = tuple(s for s in seats if s.name)
        if not definition.min_seats <= len(seats) <= definition.max_seats:
            return Outcome(Rejection("wrong_seat_count", {"min": definition.min_seats, "max": definition.max_seats}))
        given = command.args.get("options", {})
        if not isinstance(given, Mapping):
            return Outcome(Rejection("bad_arguments", {"detail": "options"}))
        try:
            options = definition.normalize_options({**self.option_defaults(definition.id), **given})
        except OptionsError as err:
            return Outcome(Rejection("bad_options", {"key": err.key, "problem": err.problem}))
        game_id = self._new_game_id()
        seed = self.seeds()
        rng = SeededRandomSource(master_key(seed, []))
        definition.setup(options, seats, rng)
        opened = Event("game_opened", {"game_id": game_id, "game": definition.id, "options": options})
        # The seed stays in the log (the service must go on drawing after a restart) but no view
        # shows it before the game ends; the commitment is public from the start.
        started = Event(GAME_STARTED, {
            "game": definition.id, "options": options, "seats": [s.to_json() for s in seats],
            "seed": seed.hex(), "seed_commitment": seed_commitment(game_id, seed.hex()),
        })
        draws = tuple(d.to_json() for d in rng.draws)
        recorded = self.store.append([
            self._pending(TABLE_STREAM, self.store.head(TABLE_STREAM) + 1, actor, opened),
            self._pending(game_id, 1, actor, started, draws),
        ])
        # Rebuild from the stored record, so the live game is exactly what a replay gives.
        self.run = GameRun.from_start(definition, recorded[1])
        self.state = seating.evolve(self.state, opened)
        log.info("game %s (%s) started", game_id, definition.id)
        return Outcome(None, recorded[-1].position, tuple(recorded))

    def option_defaults(self, game: str) -> dict[str, Any]:
        """The options a new game of this kind starts with: the configuration's, then those the
        table's latest game of this kind used, then those the configuration fixes."""
        return {**self.settings.game_options.get(game, {}), **self.state.last_options.get(game, {}),
                **self.settings.game_pinned.get(game, {})}

    def _new_game_id(self) -> str:
        day = time.strftime("%Y%m%d", time.gmtime(self.clock.wall_ms() / 1000))
        while True:
            game_id = f"{day}-{secrets.token_hex(3)}"
            if self.store.head(game_id) == 0:
                return game_id

    def _record(self, run: GameRun, actor: Viewer, *events: Event) -> Outcome:
        """Append pipeline events (end, undo, contribution) to the game and advance it."""
        recorded = self.store.append([self._pending(run.game_id, run.seq + 1 + i, actor, e)
                                      for i, e in enumerate(events)])
        for record in recorded:
            run.apply(record)
        return Outcome(None, recorded[-1].position, tuple(recorded))

    def _running(self) -> GameRun | Rejection:
        """The current game if it is still being played, else why not."""
        if self.run is None:
            return Rejection("no_game")
        return Rejection("game_over") if self.run.ended else self.run

    def _end_game(self, actor: Viewer) -> Outcome:
        if actor.kind != "host":
            return Outcome(Rejection("host_only"))
        run = self._running()
        if isinstance(run, Rejection):
            return Outcome(run)
        log.info("game %s ended by the host", run.game_id)
        return self._record(run, actor, Event(GAME_ENDED, {"reason": "host"}),
                            Event(SEED_REVEALED, {"seed": run.seed.hex()}))

    def _undo(self, actor: Viewer) -> Outcome:
        run = self.run
        if run is None:
            return Outcome(Rejection("no_game"))
        if self.state.paused and actor.kind != "host":
            return Outcome(Rejection("paused"))
        refusal = run.undo_refusal(actor, self.settings.undo_policy)
        if refusal:
            return Outcome(Rejection(refusal))
        target = run.undo_stack[-1]
        return self._record(run, actor, Event(UNDONE, {"seq": target.seq, "first": target.first,
                                                       "actor": target.actor, "command": target.command}))

    def _entropy(self, actor: Viewer, command: Command) -> Outcome:
        run = self._running()
        if isinstance(run, Rejection):
            return Outcome(run)
        if actor.kind != "seat" or actor.seat is None or all(s.number != actor.seat for s in run.seats):
            return Outcome(Rejection("not_seated"))
        if command.name == "commit_entropy":
            commitment = command.args.get("commitment")
            refusal = contributions.commit_refusal(run.entropy, actor.seat, commitment)
            event = Event(ENTROPY_COMMITTED, {"seat": actor.seat, "commitment": commitment})
        else:
            value = command.args.get("value")
            refusal = contributions.reveal_refusal(run.entropy, run.game_id, actor.seat, value)
            event = Event(ENTROPY_REVEALED, {"seat": actor.seat, "value": value})
        if refusal:
            return Outcome(Rejection(refusal))
        return self._record(run, actor, event)

    def _game_command(self, actor: Viewer, command: Command) -> Outcome:
        run = self._running()
        if isinstance(run, Rejection):
            return Outcome(run)
        if self.state.paused and actor.kind != "system":
            # The system only records what already happened (a round's presses): a pause
            # stops the players, not the referee.
            return Outcome(Rejection("paused"))
        definition = run.definition
        rejection = definition.validate(run.state, actor, command)
        if rejection:
            return Outcome(rejection)
        # Players' contributions revealed since the last draw join the seed from this draw on.
        joining = run.unsealed_seats()
        epoch_seats = sorted({*run.sealed_seats, *joining})
        master = run.epoch_master(epoch_seats) if joining else run.master
        rng = SeededRandomSource(master, run.counter, run.epoch + 1 if joining else run.epoch)
        decision = definition.decide(run.state, actor, command, rng)
        if not decision.events:
            return Outcome(Rejection("nothing_happened"))
        for event in decision.events:
            if event.type in RESERVED:
                raise ValueError(f"{definition.id} decided a reserved event type {event.type!r}")
        # The rules evolved each event as they told it: those states are adopted, not computed again.
        events: list[Event] = list(decision.events)
        states: list[Any] = list(decision.states)
        state = states[-1]
        if joining and rng.draws:
            events = [Event(RANDOMNESS_SEALED, {"epoch": rng.epoch, "seats": epoch_seats}), *events]
            states = [None, *states]
        late = contributions.overdue(run.entropy, self.clock.wall_ms())
        if late:
            events = [Event(ENTROPY_TIMED_OUT, {"seats": late}), *events]
            states = [None, *states]
        # The draws and the command go on the command's last event: the whole command becomes a
        # wall that undo cannot cross, and a verifier can decide the command again.
        draws = tuple(d.to_json() for d in rng.draws)
        said: dict[str, Any] = {"name": command.name, "args": dict(command.args), "at_us": command.at_us}
        if command.delay_us or command.uncertainty_us:
            said |= {"delay_us": command.delay_us, "uncertainty_us": command.uncertainty_us}
        last = len(events) - 1
        if definition.is_over(state):
            # The rules ended the game: close it and reveal the seed, as the host's end would.
            events = [*events, Event(GAME_ENDED, {"reason": "rules"}), Event(SEED_REVEALED, {"seed": run.seed.hex()})]
            states = [*states, None, None]
            log.info("game %s ended by its rules", run.game_id)
        batch = [
            self._pending(run.game_id, run.seq + 1 + i, actor, event,
                          draws if i == last else (), said if i == last else None)
            for i, event in enumerate(events)
        ]
        foreseen: list[GameRun] = []

        def foresee(placed: list[RecordedEvent]) -> None:
            """While the disk stores the events: the run as they leave it, and what each screen
            will be sent (nothing leaves before the store returns; should it fail, the run goes
            back)."""
            kept = run.snapshot()
            self._ahead = (threading.get_ident(), placed[-1].position)
            try:
                for record, new_state in zip(placed, states, strict=True):
                    run.apply(record, new_state)
                foreseen.append(kept)
                self.views.forget()
                self.broadcaster.foresee()
            except BaseException:
                run.restore(kept)
                foreseen.clear()
                self.views.forget()
                raise

        # Not when an observer is yet to change what the views show, nor when no screen would be
        # prepared (a change made off the event loop: its streams are pushed later anyway).
        ahead = self.broadcaster.foresees() and not any(e.type in self.view_changing_events for e in events)
        try:
            recorded = self.store.append(batch, meanwhile=foresee if ahead else None)
        except BaseException:
            if foreseen:
                run.restore(foreseen[0])
                self.views.forget()
            raise
        finally:
            self._ahead = None
        if foreseen:
            self._foreseen = True  # the run is as the events left it, and its views are made
        else:
            for record, new_state in zip(recorded, states, strict=True):
                run.apply(record, new_state)
        return Outcome(None, recorded[-1].position, tuple(recorded))

    # -- views -------------------------------------------------------------------------------

    def view(self, viewer: Viewer) -> dict[str, Any]:
        """Everything `viewer` may see now; the only shape in which table state leaves the server
        (built by views.py, shared by this viewer's screens until the next change)."""
        return self.views.of(viewer)

    @property
    def undo_policy(self) -> UndoPolicy:
        return self.settings.undo_policy

    def seat_generation(self, seat: int) -> int | None:
        """The current token generation of a taken seat; None for a free or unknown seat."""
        with self._lock:
            if seat not in self.state.names:
                return None
            return self.state.generation(seat)

    def summary(self) -> dict[str, Any] | None:
        """The current game as /api/status reports it: public facts only."""
        with self._lock:
            run = self.run
            if run is None:
                return None
            return {
                "id": run.game_id,
                "game": run.definition.id,
                "ended": run.ended,
                "events": run.events,
                "started_wall_ms": run.started_wall_ms,
            }
