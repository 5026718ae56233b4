"""The command pipeline: validate -> decide -> append -> evolve -> publish, and nothing on refusal."""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import replace
from typing import Any

import pytest

from companion.errors import StoreError
from companion.games.base import EVERYONE, HOST, SYSTEM, TABLE, Command, Move, seat
from companion.games.dice_tray import DICE_TRAY
from companion.games.registry import GAMES
from companion.store import EventStore, verify_chain
from companion.table.session import Table, TableSettings
from tests.conftest import ManualClock, seeded


def start_tray(table: Table, **options: Any) -> str:
    outcome = table.handle(HOST, Command("start_game", {"game": "dice-tray", "options": options}))
    assert outcome.ok, outcome.rejection
    assert table.run is not None
    return table.run.game_id


def test_a_roll_is_durable_before_anyone_is_told(table: Table, store: EventStore) -> None:
    start_tray(table)
    seen = []
    position_before = table.position
    outcome = table.handle(TABLE, Command("roll"))
    assert outcome.ok
    stored = store.read(table.run.game_id)[-1]  # type: ignore[union-attr]
    assert stored.type == "dice_rolled"
    assert stored.position == outcome.position == position_before + 1
    assert [d["bound"] for d in stored.draws] == [6, 6], "each die's draw is recorded with the event"
    seen.append(table.broadcaster.wait_beyond(position_before, 0))
    assert seen == [outcome.position]
    view = table.view(TABLE)["game"]["view"]
    assert view["rolls_total"] == 1
    assert [d["face"] for d in view["recent"][0]["dice"]] == [d["face"] for d in stored.data["dice"]]


@pytest.mark.parametrize(
    ("actor", "command", "code"),
    [
        (TABLE, Command("roll", {"dice": ["d7"]}), "unknown_die"),
        (TABLE, Command("roll", {"dice": ["d6"] * 21}), "too_many_dice"),
        (TABLE, Command("roll", {"dice": "d6"}), "bad_arguments"),
        (TABLE, Command("roll", {"preset": "nope"}), "unknown_preset"),
        (TABLE, Command("roll", {"dice": ["d6"], "preset": "2d6"}), "bad_arguments"),
        (TABLE, Command("roll", {"faces": 6}), "bad_arguments"),
        (TABLE, Command("fly"), "unknown_command"),
        (seat(9), Command("roll"), "not_seated"),
        (TABLE, Command("start_game", {"game": "dice-tray"}), "host_only"),
        (HOST, Command("start_game", {"game": "dice-tray"}), "game_in_progress"),
        (TABLE, Command("end_game"), "host_only"),
        (TABLE, Command("set_seat_count", {"count": 5}), "host_only"),
        (HOST, Command("set_seat_count", {"count": 5}), "game_in_progress"),
        (HOST, Command("name_seat", {"seat": 2, "name": "  "}), "bad_name"),
        (HOST, Command("name_seat", {"seat": 2, "name": "x" * 21}), "bad_name"),
        (HOST, Command("name_seat", {"seat": 2, "name": "a\x00b"}), "bad_name"),
        (HOST, Command("name_seat", {"seat": 0, "name": "Zoé"}), "no_such_seat"),
        (HOST, Command("name_seat", {"seat": True, "name": "Zoé"}), "no_such_seat"),
        (seat(3), Command("name_seat", {"seat": 2, "name": "Zoé"}), "not_your_seat"),
        (HOST, Command("clear_seat", {"seat": 4}), "seat_empty"),
    ],
)
def test_a_refused_command_says_why_and_changes_nothing(table: Table, store: EventStore, actor, command, code) -> None:
    start_tray(table)
    table.handle(TABLE, Command("roll"))
    before_view = {who: table.view(who) for who in (TABLE, HOST, seat(1))}
    before_log = store.read_all()
    outcome = table.handle(actor, command)
    assert not outcome.ok and outcome.rejection is not None
    assert outcome.rejection.code == code
    assert store.read_all() == before_log
    assert {who: table.view(who) for who in (TABLE, HOST, seat(1))} == before_view


def test_commands_without_a_game_are_refused(table: Table) -> None:
    assert table.handle(TABLE, Command("roll")).rejection.code == "no_game"  # type: ignore[union-attr]
    assert table.handle(HOST, Command("undo")).rejection.code == "no_game"  # type: ignore[union-attr]
    assert table.handle(HOST, Command("end_game")).rejection.code == "no_game"  # type: ignore[union-attr]


def test_seats_are_named_uniquely_and_survive_a_restart(table: Table, store, clock, seeds, settings) -> None:
    assert table.handle(HOST, Command("set_seat_count", {"count": 5})).ok
    assert table.handle(HOST, Command("name_seat", {"seat": 2, "name": "  Zoé   la  Rouge "})).ok
    assert table.handle(seat(3), Command("name_seat", {"seat": 3, "name": "Max"})).ok
    refused = table.handle(HOST, Command("name_seat", {"seat": 4, "name": "ZOÉ LA ROUGE"}))
    assert refused.rejection is not None and refused.rejection.code == "name_taken"
    assert table.handle(HOST, Command("set_seat_count", {"count": 2})).rejection.code == "seats_in_use"  # type: ignore[union-attr]
    again = Table.open(store, GAMES, clock, seeds, settings)
    seats = again.view(TABLE)["table"]["seats"]
    assert [s["name"] for s in seats] == ["", "Zoé la Rouge", "Max", "", ""]


def test_a_restarted_table_shows_exactly_what_it_showed(table: Table, store, clock, seeds, settings) -> None:
    start_tray(table)
    table.handle(TABLE, Command("set_tray", {"preset": "nuit-duel"}))
    for _ in range(5):
        clock.advance(1000)
        table.handle(seat(2), Command("roll"))
    table.handle(HOST, Command("roll", {"dice": ["garlic-colour", "garlic-symbol", "d20"]}))
    again = Table.open(store, GAMES, clock, seeded(999), settings)
    for viewer in (TABLE, HOST, seat(1), seat(2)):
        assert again.view(viewer) == table.view(viewer)


def test_a_failing_store_leaves_the_state_untouched(table: Table, store: EventStore, monkeypatch) -> None:
    start_tray(table)
    before = table.view(TABLE)

    def broken(batch, meanwhile=None):
        raise StoreError("disk full")

    monkeypatch.setattr(store, "append", broken)
    with pytest.raises(StoreError):
        table.handle(TABLE, Command("roll"))
    assert table.view(TABLE) == before


def test_a_game_that_decides_a_reserved_event_is_stopped_before_the_log(store, clock, seeds, config) -> None:
    # A game whose rules accept an event of the table's own: only the table's guard stops it.
    rogue = replace(DICE_TRAY, id="rogue", evolve=lambda state, event: state, moves={
        **DICE_TRAY.moves, "roll": Move(lambda story, actor, args: story.tell("game_ended", {}), by=EVERYONE)})
    settings = TableSettings(2, "host", {"rogue": {"catalogue": config.catalogue.to_json(), "tray": "d6"}})
    table = Table.open(store, {"rogue": rogue}, clock, seeds, settings)
    assert table.handle(HOST, Command("start_game", {"game": "rogue"})).ok
    before = store.read_all()
    with pytest.raises(ValueError, match="reserved"):
        table.handle(TABLE, Command("roll"))
    assert store.read_all() == before


def test_ending_a_game_closes_it_and_a_new_one_can_start(table: Table, store: EventStore) -> None:
    first = start_tray(table)
    table.handle(TABLE, Command("roll"))
    assert table.handle(HOST, Command("end_game")).ok
    assert table.handle(TABLE, Command("roll")).rejection.code == "game_over"  # type: ignore[union-attr]
    assert table.view(TABLE)["game"]["ended"] is True
    second = start_tray(table, tray="d20")
    assert second != first
    assert table.view(TABLE)["game"]["view"]["tray"] == ["d20"]
    assert verify_chain(store.read_all()) == []


def test_the_system_may_open_the_idle_game(table: Table) -> None:
    assert table.handle(SYSTEM, Command("start_game", {"game": "dice-tray"})).ok


def test_bad_game_options_are_refused_with_the_key(table: Table) -> None:
    outcome = table.handle(HOST, Command("start_game", {"game": "dice-tray", "options": {"tray": ["d7"]}}))
    assert outcome.rejection is not None and outcome.rejection.code == "bad_options"
    assert outcome.rejection.params["key"] == "tray"
    assert table.handle(HOST, Command("start_game", {"game": "chess"})).rejection.code == "unknown_game"  # type: ignore[union-attr]


def test_every_command_gets_the_time_it_arrived(table: Table, clock: ManualClock) -> None:
    start_tray(table)
    clock.advance(123_456)
    table.handle(TABLE, Command("roll"))
    assert table.view(TABLE)["game"]["view"]["recent"][0]["at_us"] == clock.now_us()


def test_a_log_the_rules_cannot_replay_refuses_to_open(table: Table, store, clock, seeds, settings) -> None:
    from companion.errors import ReplayMismatch, StoreError

    start_tray(table)
    record = store.read(table.run.game_id)[0]  # type: ignore[union-attr]
    forged = replace(record, draws=({"purpose": "extra", "bound": 6, "value": 1},))
    with pytest.raises(ReplayMismatch, match="fewer draws"):
        type(table.run).from_start(DICE_TRAY, forged)
    with pytest.raises(StoreError, match="does not know"):
        Table.open(store, {}, clock, seeds, settings)


def test_the_answers_view_is_the_one_the_screens_are_then_sent(table: Table) -> None:
    """A command's answer carries the table just after it; the screens' push hands out that very
    view rather than building it again (and its shared parts with it)."""
    start_tray(table)
    outcome = table.handle(TABLE, Command("roll"), with_view=True)
    assert outcome.view is not None
    assert table.view(TABLE) is outcome.view
    assert outcome.view["position"] == outcome.position
    presence_before = table.view(HOST)
    table.presence.enter(seat(1))  # a change outside the log: every view is built again
    assert table.view(TABLE) is not outcome.view and table.view(HOST) is not presence_before


def test_a_stored_command_whose_answer_fails_is_still_announced(table: Table, monkeypatch) -> None:
    """The command is in the log: the screens hear of it even when its answer cannot be made."""
    start_tray(table)
    before = table.broadcaster.revision

    def broken(viewer: Any, key: str) -> Any:
        raise RuntimeError("a view that cannot be built")

    monkeypatch.setattr(table.views, "_build", broken)
    with pytest.raises(RuntimeError):
        table.handle(TABLE, Command("roll"), with_view=True)
    assert table.broadcaster.revision == before + 1
    assert table.broadcaster.wait_beyond(table.position - 1, 0) == table.position
    monkeypatch.undo()
    assert table.view(TABLE)["game"]["view"]["rolls_total"] == 1


class CommitFails:
    """The store's connection, whose COMMIT fails as a full or failing card's does, once `ready`
    is set (or a while has passed); what it was asked before (the events' INSERT) goes through."""

    def __init__(self, db: Any, ready: threading.Event) -> None:
        self._db, self._ready = db, ready
        self.after_ready: list[bool] = []

    def execute(self, sql: str, *args: Any) -> Any:
        if sql == "COMMIT":
            self.after_ready.append(self._ready.wait(5.0))
            raise sqlite3.OperationalError("disk I/O error")
        return self._db.execute(sql, *args)


def test_a_commit_that_fails_after_its_change_was_foreseen_changes_nothing(table: Table, store: EventStore,
                                                                            monkeypatch) -> None:
    """While the disk stores a command, the table already prepares what the screens will be sent;
    when the disk then fails, the run, the views and the screens are as before, and the table
    goes on."""
    start_tray(table)
    table.handle(TABLE, Command("roll"))
    before, run_before = table.view(TABLE), table.run.seq
    position, revision = table.position, table.broadcaster.revision
    foreseen: list[int] = []
    ready = threading.Event()

    def foresee() -> None:
        foreseen.append(table.view(TABLE)["game"]["view"]["rolls_total"])
        ready.set()

    table.broadcaster.listen_ahead(foresee)
    disk = CommitFails(store._db, ready)
    monkeypatch.setattr(store, "_db", disk)
    with pytest.raises(StoreError):
        table.handle(TABLE, Command("roll"), with_view=True)
    assert disk.after_ready == [True] and foreseen == [2], "the roll was foreseen while the commit ran"
    assert table.view(TABLE) == before and table.run.seq == run_before
    assert table.position == position and table.broadcaster.revision == revision, "no screen was told"
    monkeypatch.undo()
    outcome = table.handle(TABLE, Command("roll"))
    assert outcome.ok and outcome.position == position + 1
    assert table.view(TABLE)["game"]["view"]["rolls_total"] == 2
    assert [e.type for e in store.read(table.run.game_id)].count("dice_rolled") == 2
