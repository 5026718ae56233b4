"""Undo takes back what a person did, whole: random games of every game, with undos sprinkled in.

After every accepted undo the state, every viewer's view and the actions offered are those from
before the undone command, and a replay of the log without that command gives the same state. A
refused undo names its reason: a random outcome or a reveal inside the command, or another player's
action after it. And at every moment each seat the game waits on has an allowed action, so no undo
(and no move) leaves a phone asking for something it cannot do.
"""

from __future__ import annotations

import random
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from companion.games.base import HOST, SYSTEM, TABLE, Command, GameDefinition, Viewer, seat
from companion.games.registry import GAMES
from companion.store import EventStore
from companion.table.gamerun import GameRun
from companion.table.session import Table, TableSettings
from tests.conftest import ManualClock, seeded
from tests.test_leak import default_options

WALLS = {"undo_random", "undo_reveal", "undo_irrevocable", "nothing_to_undo", "undo_too_far"}


@dataclass
class Before:
    """A command as the table took it, and everything a screen showed just before it."""

    actor: Viewer
    command: str
    state: Any
    screens: dict[str, Any]
    first_seq: int


def screens(table: Table, viewers: list[Viewer]) -> dict[str, Any]:
    """What every viewer is shown of the game and offered to do (the undo line aside)."""
    shown = {}
    for viewer in viewers:
        game = table.view(viewer)["game"]
        shown[str(viewer)] = {"view": game["view"], "actions": game["actions"]}
    return shown


def stuck_seats(definition: GameDefinition[Any], table: Table) -> list[int]:
    """Seats the game waits on that have no allowed action among those offered."""
    run = table.run
    assert run is not None
    if run.ended:
        return []
    return [n for n in sorted(definition.awaited(run.state))
            if not any(a["allowed"] for a in table.view(seat(n))["game"]["actions"])]


def player_counts(definition: GameDefinition[Any]) -> list[int]:
    low = max(definition.min_seats, 1)
    return sorted({low, max(low, min(definition.max_seats, 6))})


@dataclass
class Tally:
    undone: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    commands_undone: set[str] = field(default_factory=set)


def play_with_undos(definition: GameDefinition[Any], seats: int, seed: int, steps: int, tally: Tally) -> None:
    rnd = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore.open(Path(tmp) / "undo.sqlite3")
        options = {definition.id: default_options(definition)}
        table = Table.open(store, {definition.id: definition}, ManualClock(), seeded(seed),
                           TableSettings(seats, "host_and_own", options))
        try:
            for n in range(1, seats + 1):
                table.handle(HOST, Command("name_seat", {"seat": n, "name": f"Player {n}"}))
            assert table.handle(HOST, Command("start_game", {"game": definition.id})).ok
            viewers = [TABLE, HOST, *(seat(n) for n in range(1, seats + 1))]
            done: list[Before] = []
            for _ in range(steps):
                run = table.run
                assert run is not None
                if run.ended:
                    break
                if done and rnd.random() < 0.3:
                    requester = rnd.choice([HOST, done[-1].actor])
                    if requester.kind not in ("host", "seat"):
                        requester = HOST
                    undo_and_check(table, store, requester, done, tally, viewers)
                    continue
                everyone = [*viewers, SYSTEM]
                allowed = [(v, c) for v in everyone for c in definition.actions(run.state, v)
                           if definition.validate(run.state, v, c) is None]
                if not allowed:
                    break
                actor, command = rnd.choice(allowed)
                before = Before(actor, command.name, run.state, screens(table, viewers), run.seq + 1)
                outcome = table.handle(actor, command)
                assert outcome.ok, (command, outcome.rejection)
                move = definition.moves.get(command.name)
                walled = any(r.draws or r.reveals for r in outcome.events if r.stream == run.game_id) \
                    or (move is not None and move.irrevocable)
                done = [] if walled else [*done, before]
                assert stuck_seats(definition, table) == [], f"after {command}"
        finally:
            store.close()


def undo_and_check(table: Table, store: EventStore, requester: Viewer, done: list[Before], tally: Tally,
                   viewers: list[Viewer]) -> None:
    run = table.run
    assert run is not None
    outcome = table.handle(requester, Command("undo"))
    if not outcome.ok:
        code = outcome.rejection.code if outcome.rejection else ""
        tally.refused[code] += 1
        if code in WALLS:
            assert not done or code == "undo_too_far", "an undo was refused with a command to take back"
        else:
            assert code == "undo_other_player", code
            assert requester.kind == "seat" or run.undo_chain_actor is not None
        return
    target = done.pop()
    tally.undone += 1
    tally.commands_undone.add(target.command)
    assert run.state == target.state, f"undoing {target.command} left part of it standing"
    assert screens(table, viewers) == target.screens, f"a screen differs after undoing {target.command}"
    undone = table.view(HOST)["game"]["undone"]
    assert undone == {"by": str(requester), "actor": str(target.actor), "command": target.command}
    records = store.read(run.game_id)
    assert GameRun.replay(run.definition, records).state == run.state, "the log with the undo replays the same"
    without = [r for r in records if r.seq < target.first_seq]
    assert GameRun.replay(run.definition, without).state == run.state, "the log without the command gives it"
    assert stuck_seats(run.definition, table) == [], f"undoing {target.command} left a seat with nothing to do"


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_an_undo_takes_back_one_whole_command_or_says_why_not(game_id: str) -> None:
    definition = GAMES[game_id]
    tally = Tally()
    for seats in player_counts(definition):
        for seed in range(1, 9):
            play_with_undos(definition, seats, seed, 120, tally)
    assert tally.undone >= 20, f"random play must undo enough commands ({tally.undone})"
    assert tally.refused, "random play must also meet undos that are refused"
