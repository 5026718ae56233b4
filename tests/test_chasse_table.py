"""The table around La chasse au vampire: a finished game verifies with `companion verify` and one
whose stack was reordered does not; the sand glass outlives a restart and a reboot with the time it
had left (never a fresh glass, never the outage eaten); the owner's board file is the board played,
and a mistake in it stops the start naming it; a SIGKILL mid-glass resumes within a second."""

from __future__ import annotations

import copy
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

from companion.config import Config, load_config
from companion.errors import ConfigError
from companion.games.base import HOST, SYSTEM, TABLE, Command, seat
from companion.games.chasse.board import DEFAULT_BOARD
from companion.games.chasse.rules import GAME_ID
from companion.games.chasse.views import waiting_for
from companion.games.registry import GAMES
from companion.service import Service, open_service
from companion.sim.service import ServiceProcess
from companion.table.export import export_game
from companion.table.session import Table
from companion.table.verify import verify_export
from tests.conftest import Later, ManualClock
from tests.test_verify import rehashed

PLAYERS = ("Ada", "Ben", "Cyd", "Dom")
FULL_US = 180_000_000


def start(table: Table, **options: Any) -> str:
    for number, name in enumerate(PLAYERS, start=1):
        assert table.handle(HOST, Command("claim_seat", {"seat": number, "name": name})).ok
    outcome = table.handle(HOST, Command("start_game", {"game": GAME_ID, "options": options}))
    assert outcome.ok, outcome.rejection
    assert table.run is not None
    return table.run.game_id


def state_of(table: Table) -> Any:
    assert table.run is not None
    return table.run.state


def roll_for_the_master(table: Table) -> None:
    """The TV rolls for everyone until the master vampire is known (ties roll again)."""
    while state_of(table).phase == "start_roll":
        assert table.handle(TABLE, Command("roll")).ok


def play_to_the_end(table: Table, clock: ManualClock, seed: int = 3) -> None:
    """The players answer what the turn asks, at random among their allowed actions, a few seconds
    apart; the glass turns over as its time runs out."""
    rnd = random.Random(seed)
    for _ in range(4000):
        run = table.run
        assert run is not None
        if run.ended:
            return
        clock.advance(rnd.randint(1, 6) * 1_000_000)
        due = run.definition.deadline(run.state)
        if due is not None and due.at_us <= clock.now_us():
            assert table.handle(SYSTEM, due.command).ok
            continue
        who = seat(rnd.choice(waiting_for(run.state)))
        game = table.view(who)["game"]
        allowed = [Command(a["name"], a["args"]) for a in game["actions"] if a["allowed"]]
        crypt = [c for c in allowed if c.args.get("place") == "crypt"]
        command = crypt[0] if crypt and rnd.random() < 0.5 else rnd.choice(allowed)
        outcome = table.handle(who, command)
        assert outcome.ok, (command, outcome.rejection)
    pytest.fail("the game did not end")


def finished(table: Table, clock: ManualClock) -> dict[str, Any]:
    game_id = start(table)
    play_to_the_end(table, clock)
    data = export_game(table.store, game_id, 0)
    assert data is not None
    return data


def test_a_finished_game_verifies(table: Table, clock: ManualClock) -> None:
    export = finished(table, clock)
    types = [e["type"] for e in export["events"]]
    assert "cards_dealt" in types and "game_won" in types and types[-1] == "seed_revealed"
    verdict = verify_export(export, GAMES)
    assert verdict.problems == []
    assert verdict.random_events > 10


def test_a_stack_reordered_in_the_deal_fails_and_names_the_event(table: Table, clock: ManualClock) -> None:
    export = finished(table, clock)
    forged = copy.deepcopy(export)
    dealt = next(e for e in forged["events"] if e["type"] == "cards_dealt")
    stack = next(s for s in dealt["data"]["stacks"].values() if len(s) == 2)
    stack.reverse()  # the bitten traveller's garlic now on top: a forger saving a friend
    verdict = verify_export(rehashed(forged), GAMES)
    assert not verdict.ok
    first = verdict.problems[0]  # the start roll whose last die dealt the cards: its outcome was changed
    assert "'roll'" in first and "outcome was changed" in first, verdict.problems
    assert int(first.split(":")[0].removeprefix("event ")) <= dealt["seq"]


# -- the glass across a restart ----------------------------------------------------------------

def glass(service: Service) -> dict[str, Any]:
    return dict(service.table.view(TABLE)["game"]["view"]["glass"])


@pytest.mark.parametrize("comes_back", ["after a restart", "after a reboot (a new timeline)"])
def test_the_glass_resumes_with_the_time_it_had_left(config: Config, clock: ManualClock, seeds, later: Later,
                                                     reopened: list[Service], comes_back: str) -> None:
    service = open_service(config, clock, seeds, scheduler=later, watch_health=False)
    reopened.append(service)
    start(service.table)
    roll_for_the_master(service.table)
    first = glass(service)
    assert first["running"] and first["left_us"] == FULL_US and first["side"] == "day"
    clock.advance(30_000_000)
    later.run(0.5)  # the keeper marks the time it is alive
    service.close()
    later.pending.clear()  # the dead service's timers die with it
    if comes_back == "after a restart":
        clock.advance(600_000_000)  # down ten minutes: more than a whole glass
    else:
        clock.us = 3_000  # the monotonic clock starts again near zero
    back = clock.now_us()
    again = open_service(config, clock, seeds, scheduler=later, watch_health=False)
    reopened.append(again)
    resumed = glass(again)
    assert resumed["side"] == "day" and resumed["running"], "the same day goes on"
    assert resumed["left_us"] == FULL_US - 30_000_000, "the sand left at the last mark, not a fresh glass"
    assert (resumed["since_us"], resumed["ends_us"]) == (back, back + FULL_US - 30_000_000)
    clock.us = resumed["ends_us"] - 1
    later.run()
    assert glass(again)["side"] == "day", "the outage is not counted against the glass"
    clock.us = resumed["ends_us"]
    later.run()
    assert glass(again)["side"] == "night"


def test_a_paused_glass_stays_paused_across_a_restart(config: Config, clock: ManualClock, seeds, later: Later,
                                                      reopened: list[Service]) -> None:
    service = open_service(config, clock, seeds, scheduler=later, watch_health=False)
    reopened.append(service)
    start(service.table)
    roll_for_the_master(service.table)
    clock.advance(20_000_000)
    assert service.table.handle(HOST, Command("pause_glass")).ok
    clock.advance(5_000_000)
    later.run(0.5)
    service.close()
    later.pending.clear()
    clock.advance(100_000_000)
    again = open_service(config, clock, seeds, scheduler=later, watch_health=False)
    reopened.append(again)
    assert glass(again)["running"] is False and glass(again)["left_us"] == FULL_US - 20_000_000
    seat_one = again.table.handle(seat(1), Command("roll"))
    assert seat_one.rejection is not None and seat_one.rejection.code in ("glass_paused", "not_your_turn")


# -- the owner's board ------------------------------------------------------------------------------

def test_the_owners_board_file_is_the_board_played(tmp_path: Path, clock: ManualClock, seeds, later: Later,
                                                  reopened: list[Service]) -> None:
    mine = copy.deepcopy(DEFAULT_BOARD)
    mine.update(name="Our worn board", verified=True)
    (tmp_path / "board.json").write_text(json.dumps(mine))
    (tmp_path / "companion.toml").write_text('[chasse]\nboard = "board.json"\n[data]\ndir = "data"\n')
    config = load_config(tmp_path / "companion.toml")
    service = open_service(config, clock, seeds, scheduler=later, watch_health=False)
    reopened.append(service)
    start(service.table, board_mode="companion")
    shown = service.table.view(TABLE)["game"]["view"]
    assert shown["board"]["name"] == "Our worn board"
    assert "board" not in shown["unverified"], "a board the owner marked verified is not called unverified"


@pytest.mark.parametrize(("content", "named"), [
    ("{", "not valid JSON"),
    (json.dumps({**DEFAULT_BOARD, "places": {**DEFAULT_BOARD["places"], "crypt": [40, 2]}}), "board.places.crypt"),
])
def test_a_mistake_in_the_board_file_stops_the_start_naming_it(tmp_path: Path, content: str, named: str) -> None:
    (tmp_path / "board.json").write_text(content)
    (tmp_path / "companion.toml").write_text('[chasse]\nboard = "board.json"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "companion.toml")
    assert caught.value.key == "chasse.board" and named in str(caught.value)


# -- a power cut mid-glass ----------------------------------------------------------------------------

@pytest.mark.slow
def test_a_sigkill_during_a_running_glass_resumes_with_the_same_time_left(tmp_path: Path) -> None:
    data = tmp_path / "data"
    service = ServiceProcess(data, extra=("--simulate",)).start()
    try:
        for number, name in enumerate(PLAYERS[:3], start=1):
            assert service.post("claim_seat", {"seat": number, "name": name}, host=True)["ok"]
        service.post("end_game", {}, host=True)  # the dice tray a fresh table opens with
        started = service.post("start_game", {"game": GAME_ID}, host=True)
        assert started["ok"], started
        while service.get("/api/view?as=table")["game"]["view"]["phase"] == "start_roll":
            assert service.post("roll", {}, host=True)["ok"]
        time.sleep(2.0)
        before = left_of(service)
        service.kill()
    finally:
        service.stop()
    time.sleep(3.0)  # the table sits in the dark for a while
    again = ServiceProcess(data, extra=("--simulate",)).start()
    try:
        after = left_of(again)
        assert abs(after - before) <= 1_000_000, f"{before} µs left at the kill, {after} µs after the restart"
    finally:
        again.stop()


def left_of(service: ServiceProcess) -> int:
    """The glass's sand left now. The service's timeline is the machine's monotonic clock, which
    this process reads too (one boot, one timeline)."""
    shown = service.get("/api/view?as=table")["game"]["view"]["glass"]
    assert shown["running"]
    return int(shown["ends_us"]) - time.monotonic_ns() // 1000
