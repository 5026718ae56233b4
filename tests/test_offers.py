"""What a screen is offered to do: the commands a game offers are made once (companion/games/offers.py)
and are the commands made by hand; and they are worked out once for every viewer a game says is
offered the same (`GameDefinition.offers_alike`), and the game's view once for every viewer it says
sees the same (`sees_alike`), while each viewer still sees exactly its own."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path
from typing import Any

import pytest

from companion.games.base import HOST, TABLE, Command, GameDefinition, Viewer, seat
from companion.games.offers import offered
from companion.games.registry import GAMES
from companion.store import EventStore
from companion.table.gamerun import GameRun
from companion.table.session import Table, TableSettings
from tests.conftest import ManualClock, seeded
from tests.test_leak import default_options


def own_actions(table: Table, definition: GameDefinition[Any], viewer: Viewer) -> list[dict[str, Any]]:
    """The viewer's actions worked out for it alone, as the view would show them."""
    run = table.run
    assert run is not None
    shown = []
    for command in definition.actions(run.state, viewer):
        if run.ended:
            code: str | None = "game_over"
        elif table.state.paused:
            code = "paused"
        else:
            rejection = definition.validate(run.state, viewer, command)
            code = None if rejection is None else rejection.code
        shown.append((command.name, dict(command.args), code))
    return shown


def own_undo(run: GameRun, viewer: Viewer) -> dict[str, Any] | None:
    if viewer.kind not in ("host", "seat"):
        return None
    refusal = run.undo_refusal(viewer, "host_and_own")
    return {"allowed": refusal is None, "reason": refusal}


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_viewers_offered_or_shown_alike_each_see_their_own(game_id: str) -> None:
    definition = GAMES[game_id]
    players = max(definition.min_seats, min(definition.max_seats, 4))
    rnd = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore.open(Path(tmp) / "offers.sqlite3")
        table = Table.open(store, {game_id: definition}, ManualClock(), seeded(7),
                           TableSettings(players, "host_and_own", {game_id: default_options(definition)}))
        try:
            for n in range(1, players + 1):
                table.handle(HOST, Command("name_seat", {"seat": n, "name": f"Player {n}"}))
            assert table.handle(HOST, Command("start_game", {"game": game_id})).ok
            # A seat the table does not have: a game must not offer it what its players are offered.
            viewers = [TABLE, HOST, *(seat(n) for n in range(1, players + 2))]
            for step in range(40):
                run = table.run
                assert run is not None
                if step == 20:
                    table.handle(HOST, Command("pause"))
                for viewer in viewers:
                    game = table.view(viewer)["game"]
                    shown = [(a["name"], a["args"], None if a["allowed"] else a["reason"]["code"])
                             for a in game["actions"]]
                    assert shown == own_actions(table, definition, viewer), (viewer, step)
                    assert game["view"] == definition.view(run.state, viewer), (viewer, step)
                    assert game.get("undo") == own_undo(run, viewer), (viewer, step)
                if step == 20:
                    table.handle(HOST, Command("resume"))
                allowed = [(v, c) for v in viewers for c in definition.actions(run.state, v)
                           if definition.validate(run.state, v, c) is None]
                if run.ended or not allowed:
                    break
                table.handle(*rnd.choice(allowed))
        finally:
            store.close()


def test_an_offered_command_is_the_command_made_by_hand_and_is_made_once() -> None:
    assert offered("stop", spaces=2, at="courtyard") == Command("stop", {"spaces": 2, "at": "courtyard"})
    assert offered("skip") == Command("skip")
    assert offered("take", card=12) is offered("take", card=12)
    assert list(offered("stop", spaces=2, at="x").args) == ["spaces", "at"]


def test_offered_arguments_keep_their_type() -> None:
    """JSON tells true from 1: so must the cache (a plain cache would hand back the other one)."""
    assert offered("disguise", human=True).args["human"] is True
    assert offered("disguise", human=1).args["human"] == 1
    assert type(offered("disguise", human=1).args["human"]) is int
