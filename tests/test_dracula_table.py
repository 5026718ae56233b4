"""The table around Dracula: a finished series verifies with `companion verify` and one whose
round's Dracula was changed does not; a vote reaching the API is stamped with the phone's measured
delay (arrival less the delay, give or take its uncertainty), never with what the request says;
the phase clock outlives a restart with the time it had left."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from flask.testing import FlaskClient

from companion.config import Config
from companion.games.base import HOST, SYSTEM, Command, seat
from companion.games.dracula.options import GAME_ID
from companion.games.registry import GAMES
from companion.server import create_app
from companion.service import Service, open_service
from companion.table.export import export_game
from companion.table.session import Table
from companion.table.verify import verify_export
from tests.conftest import Later, ManualClock
from tests.support.web import BASE, Web
from tests.test_verify import rehashed

PLAYERS = ("Ada", "Ben", "Cyd", "Dom", "Eve")


def start(table: Table, **options: Any) -> str:
    assert table.handle(HOST, Command("set_seat_count", {"count": len(PLAYERS)})).ok
    for number, name in enumerate(PLAYERS, start=1):
        assert table.handle(HOST, Command("claim_seat", {"seat": number, "name": name})).ok
    outcome = table.handle(HOST, Command("start_game", {"game": GAME_ID, "options": options}))
    assert outcome.ok, outcome.rejection
    assert table.run is not None
    return table.run.game_id


def game_view(table: Table, who: Any) -> dict[str, Any]:
    return dict(table.view(who)["game"])


def play_to_the_end(table: Table, clock: ManualClock, seed: int = 5) -> None:
    """Everyone answers at random among their allowed actions, seconds apart; the host confirms and
    starts the next round; a phase whose time runs out is ended by the system."""
    rnd = random.Random(seed)
    for _ in range(5000):
        run = table.run
        assert run is not None
        if run.ended:
            return
        clock.advance(rnd.randint(1, 20) * 1_000_000)
        due = run.definition.deadline(run.state)
        if due is not None and due.at_us <= clock.now_us():
            assert table.handle(SYSTEM, due.command).ok
            continue
        awaited = sorted(run.definition.awaited(run.state))
        who = HOST if not awaited else seat(rnd.choice(awaited))
        allowed = [Command(a["name"], a["args"]) for a in game_view(table, who)["actions"]
                   if a["allowed"] and a["name"] not in ("write", "pause_clock", "extend_clock")]
        if not allowed:
            continue
        command = rnd.choice(allowed)
        outcome = table.handle(who, command)
        assert outcome.ok, (who, command, outcome.rejection)
    pytest.fail("the series did not end")


def finished(table: Table, clock: ManualClock) -> dict[str, Any]:
    game_id = start(table, rounds=2, day_s=60, dusk_s=30, actions_s=30, dawn_s=20, final_s=30)
    play_to_the_end(table, clock)
    data = export_game(table.store, game_id, 0)
    assert data is not None
    return data


def test_a_finished_series_verifies(table: Table, clock: ManualClock) -> None:
    export = finished(table, clock)
    types = [e["type"] for e in export["events"]]
    assert types.count("round_ended") == 2 and "series_ended" in types and types[-1] == "seed_revealed"
    verdict = verify_export(export, GAMES)
    assert verdict.problems == []
    assert verdict.random_events >= 3


def test_a_second_round_dealt_to_another_dracula_fails_and_names_the_event(table: Table,
                                                                           clock: ManualClock) -> None:
    export = finished(table, clock)
    forged = copy.deepcopy(export)
    dealt = next(e for e in forged["events"] if e["type"] == "round_dealt")
    assert dealt["data"]["round"] == 2
    dealt["data"]["dracula"] = dealt["data"]["dracula"] % len(PLAYERS) + 1
    verdict = verify_export(rehashed(forged), GAMES)
    assert not verdict.ok
    first = verdict.problems[0]
    assert first.startswith(f"event {dealt['seq']}:") and "'next_round'" in first, verdict.problems


def test_a_first_round_dealt_to_another_dracula_fails(table: Table, clock: ManualClock) -> None:
    """The first round is dealt with the game's start: its draw is checked against the seed."""
    export = finished(table, clock)
    forged = copy.deepcopy(export)
    started = next(e for e in forged["events"] if e["type"] == "game_started")
    draw = next(d for d in started["draws"] if d["purpose"] == "round 1: Dracula")
    draw["value"] = (draw["value"] + 1) % draw["bound"]
    verdict = verify_export(rehashed(forged), GAMES)
    assert not verdict.ok
    assert any("round 1: Dracula" in problem for problem in verdict.problems), verdict.problems


# -- a vote's time is the phone's, as the server measured its link ---------------------------------

def measure(service: Service, clock: ManualClock, phone: FlaskClient, number: int, rtts_us: list[int]) -> None:
    for rtt in rtts_us:
        ping_id = service.buttons.phones.ping(number)
        clock.advance(rtt)
        response = phone.post("/api/ping", json={"id": ping_id})
        assert response.status_code == 200, response.get_json()


def to_day_two(table: Table) -> None:
    """Everyone reads their role, talks on day 1, goes to the ballroom; the first night passes."""
    run = table.run
    assert run is not None
    for _ in range(200):
        state = run.state
        if state.phase == "day" and state.night == 2:
            return
        awaited = sorted(run.definition.awaited(state))
        assert awaited, state.phase
        who = seat(awaited[0])
        allowed = [Command(a["name"], a["args"]) for a in game_view(table, who)["actions"] if a["allowed"]]
        ballroom = [c for c in allowed if c.args.get("room") == "ballroom"]
        bites = [c for c in allowed if c.name == "act" and c.args.get("bite")]
        command = (ballroom or bites or [c for c in allowed if c.name != "write"])[0]
        assert table.handle(who, command).ok
    pytest.fail("day 2 never came")


def test_a_vote_is_stamped_with_the_phones_measured_delay(service: Service, clock: ManualClock) -> None:
    app = create_app(service, BASE, {"TESTING": True, "STREAM_HEARTBEAT_S": 0.05})
    web = Web(app, service)
    assert service.table.handle(HOST, Command("set_seat_count", {"count": len(PLAYERS)})).ok
    phones = {n: web.join(n, name) for n, name in enumerate(PLAYERS, start=1)}
    host = web.host()
    response = host.post("/api/commands", json={"name": "start_game", "args": {"game": GAME_ID}})
    assert response.status_code == 200, response.get_json()
    table = service.table
    to_day_two(table)
    assert service.buttons.phones_timed(), "the day's vote times the phones"
    measure(service, clock, phones[1], 1, [40_000, 42_000, 41_000])  # a slow link: 20 ms each way
    measure(service, clock, phones[2], 2, [4_000, 4_000, 5_000])     # a fast one: 2 ms each way
    arrived = clock.now_us()
    forged = {"name": "vote", "args": {"candidate": 3, "sent_us": 0, "delay_us": 10**9}}
    assert phones[1].post("/api/commands", json={**forged, "as": "me"}).status_code == 200
    honest = {"name": "vote", "as": "me", "args": {"candidate": 4}}
    assert phones[2].post("/api/commands", json=honest).status_code == 200
    ballots = {b.voter: b for b in table.run.state.ballots}  # type: ignore[union-attr]
    slow, fast = ballots[1], ballots[2]
    assert slow.at_us == fast.at_us == arrived
    assert slow.sent_us == arrived - 20_000 and fast.sent_us == arrived - 2_000, \
        "half the fastest round trip is taken off the arrival; the request's own numbers are ignored"
    assert slow.uncertainty_us > fast.uncertainty_us > 0
    assert service.buttons.phones.estimate(3) is None
    response = phones[3].post("/api/commands", json={"name": "vote", "as": "me", "args": {"candidate": 5}})
    assert response.status_code == 200
    unmeasured = next(b for b in table.run.state.ballots if b.voter == 3)  # type: ignore[union-attr]
    assert unmeasured.sent_us == unmeasured.at_us and unmeasured.uncertainty_us >= 100_000, \
        "a phone never measured is stamped on arrival, and vague"


def test_a_vote_sent_with_the_pages_clock_is_timed_by_that_clock_mapped_and_a_forged_one_by_arrival(
        service: Service, clock: ManualClock) -> None:
    """A page that echoes pings with its clock's reading says when its vote left, on that clock: the
    server maps it (as it maps a buzz's tap), so a vote that waited 30 ms in the phone's radio is
    dated when it was cast. A time physics rules out (after its arrival) is ignored for the arrival."""
    app = create_app(service, BASE, {"TESTING": True, "STREAM_HEARTBEAT_S": 0.05})
    web = Web(app, service)
    assert service.table.handle(HOST, Command("set_seat_count", {"count": len(PLAYERS)})).ok
    phones = {n: web.join(n, name) for n, name in enumerate(PLAYERS, start=1)}
    host = web.host()
    assert host.post("/api/commands", json={"name": "start_game", "args": {"game": GAME_ID}}).status_code == 200
    table = service.table
    to_day_two(table)
    loaded_us = clock.now_us() - 90_000_000  # the pages loaded a minute and a half ago

    def page_ms() -> float:
        return (clock.now_us() - loaded_us) / 1000

    for _ in range(6):
        for number in (1, 2):  # 3 ms each way
            ping_id = service.buttons.phones.ping(number)
            clock.advance(3_000)
            reading = page_ms()
            clock.advance(3_000)
            assert phones[number].post("/api/ping", json={"id": ping_id, "t": reading}).status_code == 200
        clock.advance(500_000)
    cast = page_ms()
    clock.advance(30_000)  # the vote waits in the phone's radio
    arrived = clock.now_us()
    vote = {"name": "vote", "as": "me", "args": {"candidate": 3}}
    assert phones[1].post("/api/commands", json={**vote, "sent": cast}).status_code == 200
    assert phones[2].post("/api/commands", json={**vote, "args": {"candidate": 4}, "sent": page_ms() + 5_000}
                          ).status_code == 200
    ballots = {b.voter: b for b in table.run.state.ballots}  # type: ignore[union-attr]
    mapped, forged = ballots[1], ballots[2]
    # Its bound: half the 6 ms round trip, the clock's 1 ms resolution, and what a drift of up to
    # 2000 ppm makes of the half second since the last ping.
    assert abs(mapped.sent_us - (arrived - 30_000)) <= mapped.uncertainty_us <= 3_000 + 1_000 + 1_100, \
        "dated when it was cast, within its page's clock's bound"
    assert forged.sent_us == arrived - 3_000, "a time after its arrival is ignored: half the round trip off"


# -- the phase clock across a restart --------------------------------------------------------------

def test_the_phase_clock_resumes_with_the_time_it_had_left(config: Config, clock: ManualClock, seeds,
                                                           later: Later, reopened: list[Service]) -> None:
    service = open_service(config, clock, seeds, scheduler=later, watch_health=False)
    reopened.append(service)
    start(service.table, day_s=300)
    for n in range(1, len(PLAYERS) + 1):
        assert service.table.handle(seat(n), Command("ready")).ok
    first = game_view(service.table, HOST)["view"]["clock"]
    assert first["running"] and first["left_us"] == 300_000_000
    clock.advance(30_000_000)
    later.run(0.5)  # the keeper marks the time it is alive
    service.close()
    later.pending.clear()
    clock.advance(600_000_000)  # down ten minutes: more than the whole day
    again = open_service(config, clock, seeds, scheduler=later, watch_health=False)
    reopened.append(again)
    shown = game_view(again.table, HOST)["view"]
    assert shown["phase"] == "day" and shown["clock"]["running"]
    left = shown["clock"]["ends_us"] - clock.now_us()
    assert 269_000_000 <= left <= 270_500_000, "the day goes on with the time it had, not afresh nor eaten"


# -- answers stand -----------------------------------------------------------------------------------

def test_a_vote_cannot_be_undone_by_its_voter_or_the_host_but_a_pause_can(table: Table) -> None:
    """D-1: votes may not be changed. Every answer the table saw (or answered alongside) stands; the
    host's own clock commands are taken back as usual."""
    start(table)
    to_day_two(table)
    assert table.handle(seat(1), Command("vote", {"candidate": 2})).ok
    for who in (seat(1), HOST):
        refused = table.handle(who, Command("undo"))
        assert refused.rejection is not None and refused.rejection.code == "undo_irrevocable"
    assert [b.voter for b in table.run.state.ballots] == [1]  # type: ignore[union-attr]
    assert table.handle(HOST, Command("pause_clock")).ok
    assert table.handle(HOST, Command("undo")).ok
    assert table.run.state.clock.running  # type: ignore[union-attr]
