"""Check an exported game: its chain, its seed, every draw, and every random command's outcome.

Independent of the service that produced the export: it trusts nothing but the export and the
game's published rules. Each problem names the event (by its number in the game) and why. It
decides every command again through the table's own game run (`gamerun`), so it lives with the
table, above the fairness helpers whose draws it checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.errors import ReplayMismatch
from companion.fairness import contributions
from companion.fairness.drbg import draw, master_key, seed_commitment
from companion.fairness.rng import Draw, ReplayRandomSource
from companion.games.base import Command, Event, GameDefinition, Viewer
from companion.store.records import RecordedEvent, canonical_json, verify_chain
from companion.table.gamerun import (
    ENTROPY_COMMITTED,
    ENTROPY_REVEALED,
    ENTROPY_TIMED_OUT,
    GAME_ENDED,
    GAME_STARTED,
    RANDOMNESS_SEALED,
    SEED_REVEALED,
    UNDONE,
    GameRun,
)


@dataclass
class Verdict:
    game_id: str = ""
    random_events: int = 0
    draws: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        if self.ok:
            return f"verified: {self.random_events} random events ({self.draws} draws) in game {self.game_id}"
        return "NOT verified:\n" + "\n".join(f"  {problem}" for problem in self.problems)


def verify_export(export: Mapping[str, Any], games: Mapping[str, GameDefinition[Any]]) -> Verdict:
    verdict = Verdict(game_id=str(export.get("game_id", "")))
    try:
        events = [RecordedEvent.from_json(raw) for raw in export["events"]]
    except (KeyError, TypeError, ValueError) as err:
        verdict.problems.append(f"the export is malformed: {err}")
        return verdict
    if not events or events[0].type != GAME_STARTED:
        verdict.problems.append("the export does not begin with the game's start")
        return verdict
    for problem in verify_chain(events):
        verdict.problems.append(f"event {problem.seq}: {problem.problem} (hash chain)")
    if any(e.stream != events[0].stream for e in events):
        verdict.problems.append("the export mixes events of several games")
    seed = _seed(events, verdict)
    if seed is None:
        return verdict
    _check_draws(events, seed, verdict)
    definition = games.get(str(events[0].data.get("game")))
    if definition is None:
        verdict.problems.append(f"unknown game {events[0].data.get('game')!r}: its rules cannot be checked")
    elif not verdict.problems:
        _check_outcomes(events, definition, verdict)
    return verdict


def _seed(events: list[RecordedEvent], verdict: Verdict) -> bytes | None:
    started = events[0]
    revealed = [e for e in events if e.type == SEED_REVEALED]
    if not revealed:
        verdict.problems.append("the seed was never revealed: verify the export once the game is over")
        return None
    seed_hex = str(revealed[-1].data.get("seed", ""))
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        verdict.problems.append(f"event {revealed[-1].seq}: the revealed seed is not hexadecimal")
        return None
    commitment = started.data.get("seed_commitment")
    if seed_commitment(started.stream, seed_hex) != commitment:
        verdict.problems.append(
            f"event {revealed[-1].seq}: the revealed seed does not match the commitment {commitment} "
            f"published at the start (event {started.seq})")
        return None
    if started.data.get("seed") != seed_hex:
        verdict.problems.append(f"event {started.seq}: the game was not played with the revealed seed")
    return seed


def _check_draws(events: list[RecordedEvent], seed: bytes, verdict: Verdict) -> None:
    entropy: dict[int, contributions.Contribution] = {}
    master, epoch, counter = master_key(seed, []), 0, 0
    for event in events:
        if event.type == ENTROPY_COMMITTED:
            entropy = contributions.committed(entropy, event.data["seat"], event.data["commitment"])
        elif event.type == ENTROPY_TIMED_OUT:
            entropy = contributions.excluded(entropy, [int(s) for s in event.data["seats"]])
        elif event.type == ENTROPY_REVEALED:
            seat, value = event.data["seat"], event.data["value"]
            refusal = contributions.reveal_refusal(entropy, event.stream, seat, value)
            if refusal:
                verdict.problems.append(f"event {event.seq}: seat {seat}'s revealed bytes do not fit ({refusal})")
                continue
            entropy = contributions.revealed(entropy, seat, value)
        elif event.type == RANDOMNESS_SEALED:
            seats = sorted(int(s) for s in event.data["seats"])
            revealed = sorted(s for s, c in entropy.items() if c.value is not None)
            if seats != revealed:
                verdict.problems.append(
                    f"event {event.seq}: the seed was combined with seats {seats}, but seats {revealed} had revealed")
            if event.data["epoch"] != epoch + 1:
                verdict.problems.append(f"event {event.seq}: epoch {event.data['epoch']} does not follow {epoch}")
            usable = [(s, bytes.fromhex(entropy[s].value or "")) for s in seats if s in entropy]
            master, epoch = master_key(seed, usable), int(event.data["epoch"])
        if not event.draws:
            continue
        verdict.random_events += 1
        for raw in event.draws:
            verdict.draws += 1
            try:
                recorded = Draw.from_json(raw)
            except ReplayMismatch as err:
                verdict.problems.append(f"event {event.seq}: {err}")
                continue
            if recorded.counter != counter or recorded.epoch != epoch:
                verdict.problems.append(
                    f"event {event.seq}: draw {recorded.purpose!r} is numbered {recorded.counter} (epoch "
                    f"{recorded.epoch}) but should be {counter} (epoch {epoch}): a draw was skipped or redone")
            expected = draw(master, counter, recorded.purpose, recorded.bound)
            if expected != recorded.value:
                verdict.problems.append(
                    f"event {event.seq}: draw {recorded.purpose!r} (number {counter}) gives {expected} "
                    f"below {recorded.bound} from the seed, but the log says {recorded.value}")
            counter += 1


def _check_outcomes(events: list[RecordedEvent], definition: GameDefinition[Any], verdict: Verdict) -> None:
    """Decide every command again from the state before it, with the draws the seed gives."""
    try:
        run = GameRun.from_start(definition, events[0])
    except ReplayMismatch as err:
        verdict.problems.append(f"event 1: {err}")
        return
    batch: list[RecordedEvent] = []
    for event in events[1:]:
        batch.append(event)
        # A command's events end with the one carrying the command; pipeline events stand alone.
        if event.command is None and event.type not in _ALONE:
            continue
        game_events = [e for e in batch if e.type not in _BATCH_PIPELINE]
        if event.command is not None and game_events:
            command = Command(str(event.command.get("name")), event.command.get("args") or {},
                              int(event.command.get("at_us") or 0), int(event.command.get("delay_us") or 0),
                              int(event.command.get("uncertainty_us") or 0))
            replay = ReplayRandomSource(Draw.from_json(d) for d in event.draws)
            actor = Viewer.parse(event.actor)
            # A forged earlier outcome can leave a state where this command was never allowed: the
            # rules say so, rather than deciding what they would never have been asked.
            refusal = definition.validate(run.state, actor, command)
            if refusal is not None:
                verdict.problems.append(f"event {event.seq}: the rules refuse {command.name!r} here ({refusal.code})")
                return
            try:
                decided = definition.decide(run.state, actor, command, replay).events
            except (ReplayMismatch, ValueError, KeyError) as err:
                verdict.problems.append(f"event {event.seq}: the rules cannot decide {command.name!r} again ({err})")
                return
            logged = [Event(e.type, e.data, e.reveals) for e in game_events]
            if [_canonical(e) for e in decided] != [_canonical(e) for e in logged]:
                verdict.problems.append(
                    f"event {game_events[0].seq}: the rules decide {command.name!r} differently from the log "
                    f"(the outcome was changed)")
        try:
            for record in batch:
                run.apply(record)
        except (ReplayMismatch, ValueError, KeyError) as err:
            verdict.problems.append(f"event {batch[-1].seq}: {err}")
            return
        batch = []


_ALONE = (GAME_ENDED, SEED_REVEALED, UNDONE, ENTROPY_COMMITTED, ENTROPY_REVEALED)
_BATCH_PIPELINE = (RANDOMNESS_SEALED, ENTROPY_TIMED_OUT)


def _canonical(event: Event) -> str:
    return canonical_json({"type": event.type, "data": dict(event.data), "reveals": event.reveals})
