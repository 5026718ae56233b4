"""Reliability under faults, through the real `companion serve` process and its HTTP API.

* SIGKILL at random moments during games of every kind: every acknowledged command is in the log,
  the hash chains verify, and every page (table, host, each seat, a fresh stream) converges on the
  log's position after the restart.
* The buzzer box's cable pulled and plugged back in during a quiz round.
* A phone offline for a minute while the others play on, then back with Last-Event-ID.
* The disk full when a command arrives.
* A truncated event log at start.

Randomness is seeded and the seed printed (COMPANION_FAULTS_SEED=N repeats a run).
"""

from __future__ import annotations

import hashlib
import http.client
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from companion.sim.box import FakeBox
from companion.sim.service import companion, free_port
from companion.store import RecordedEvent
from tests.support.faults import (
    PLAYERS,
    FullDisk,
    Service,
    Stream,
    check_chain,
    converge,
    first_message,
    log_position,
    seeded,
    stored_events,
)

SEATS = (1, 2, 3)
NETWORK_ERRORS = (OSError, http.client.HTTPException, ValueError)


def wait_until(condition: Callable[[], Any], timeout_s: float, what: str,
               seen: Callable[[], Any] | None = None) -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() > deadline:
            instead = f" (instead: {seen()})" if seen is not None else ""
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}{instead}")
        time.sleep(0.02)


def seat_everyone(service: Service) -> None:
    for number, name in zip(SEATS, PLAYERS, strict=True):
        service.join(number, name)


def play(service: Service, game: str, options: dict[str, Any] | None = None) -> None:
    """A game of `game` running (a new service opens with the dice tray)."""
    current = service.view_of("table")["game"]
    if current is not None and current["game"] == game and not current["ended"]:
        return
    if current is not None and not current["ended"]:
        assert service.command("host", "end_game")[0] == 200
    status, body = service.command("host", "start_game", {"game": game, "options": options or {}})
    assert status == 200, body


# -- 1. SIGKILL during every game ------------------------------------------------------------------

GAME_OPTIONS: dict[str, dict[str, Any]] = {
    "dice-tray": {},
    "buzzer-quiz": {"window_s": 0.5},
    "garlic-slap": {"no_slap_timeout_s": 3, "skull_window_s": 3},
    "nuit-des-vampires": {},
    "vampir": {},
}
BUZZER_GAMES = ("buzzer-quiz", "garlic-slap")
KILLS_PER_GAME = 4


@dataclass(frozen=True)
class Ack:
    who: str | int
    name: str
    args: dict[str, Any]
    position: int

    @property
    def actor(self) -> str:
        return self.who if isinstance(self.who, str) else f"seat:{self.who}"


class Player(threading.Thread):
    """Plays legal commands taken from the viewers' own views (their allowed actions), as the
    host, the table and each seated phone, and keeps what was acknowledged; stops when the service
    dies (or when told)."""

    def __init__(self, service: Service, game: str, seed: float, acks: list[Ack], stop: threading.Event) -> None:
        super().__init__(daemon=True)
        import random

        self.service, self.game, self.acks, self.stop = service, game, acks, stop
        self.rnd = random.Random(seed)

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.step()
            except NETWORK_ERRORS:
                return  # the service is gone mid-answer: that command was never acknowledged

    def send(self, who: str | int, name: str, args: dict[str, Any]) -> None:
        status, body = self.service.command(who, name, args)
        if status == 200 and body["ok"]:
            self.acks.append(Ack(who, name, args, body["position"]))

    def step(self) -> None:
        rnd = self.rnd
        views = {who: self.service.view_of(who) for who in ("host", "table", *SEATS)}
        game = views["host"]["game"]
        if game is None or game["ended"] or game["game"] != self.game:
            # A restart replaces an ended game by the dice tray: back to ours.
            if game is not None and not game["ended"]:
                self.send("host", "end_game", {})
            else:
                self.send("host", "start_game", {"game": self.game, "options": GAME_OPTIONS[self.game]})
            return
        roll = rnd.random()
        if roll < 0.01:
            self.send("host", "end_game", {})
            return
        if roll < 0.04:
            self.send(rnd.choice(("host", *SEATS)), "undo", {})
            return
        if self.game in BUZZER_GAMES and roll < 0.4:
            self.service.buzz(rnd.choice(SEATS))
            return
        allowed = [(who, a["name"], a["args"]) for who, view in views.items()
                   for a in view["game"]["actions"] if a["allowed"]]
        if not allowed:
            time.sleep(0.02)  # a round or a timer is running: the referee or the clock decides
            return
        self.send(*rnd.choice(allowed))


def check_acknowledged(events: list[RecordedEvent], acks: list[Ack]) -> None:
    """Every acknowledged command is in the log at the position it was acknowledged with, as sent."""
    by_position = {e.position: e for e in events}
    assert len({a.position for a in acks}) == len(acks), "two acknowledgements share a log position"
    for ack in acks:
        event = by_position.get(ack.position)
        assert event is not None, f"acknowledged {ack} was lost"
        assert event.actor == ack.actor, (ack, event)
        if ack.name == "start_game":
            assert (event.type, event.data["game"]) == ("game_started", ack.args["game"]), ack
        elif ack.name == "end_game":
            assert (by_position[ack.position - 1].type, event.type) == ("game_ended", "seed_revealed"), ack
        elif ack.name == "undo":
            assert event.type == "undone", ack
        else:
            position = ack.position
            while by_position[position].command is None and by_position[position].type in ("game_ended",
                                                                                             "seed_revealed"):
                position -= 1  # the rules ended the game: the command is on the event before the end
            said = by_position[position].command
            assert by_position[position].stream == event.stream and said is not None, ack
            assert (said["name"], said["args"]) == (ack.name, ack.args), (ack, said)


@pytest.mark.slow
@pytest.mark.parametrize("game", list(GAME_OPTIONS))
def test_sigkill_during_a_game_loses_no_acknowledged_command(tmp_path: Path, game: str) -> None:
    rnd = seeded(f"sigkill {game}")
    service = Service(tmp_path / "data")
    acks: list[Ack] = []
    try:
        service.start()
        seat_everyone(service)
        play(service, game, GAME_OPTIONS[game])
        for kill in range(KILLS_PER_GAME + 1):
            if kill:
                service.start()
            check_acknowledged(check_chain(service.data), acks)
            converge(service, SEATS)
            if kill == KILLS_PER_GAME:
                break
            stop = threading.Event()
            players = [Player(service, game, rnd.random(), acks, stop) for _ in range(2)]
            for player in players:
                player.start()
            # Garlic waits for slaps and timers between commands: it gets longer to play.
            time.sleep(rnd.uniform(0.3, 1.2) * (2.5 if game == "garlic-slap" else 1))
            service.kill()
            for player in players:
                player.join(15)
                assert not player.is_alive()
    finally:
        service.stop()
    games = {a.args["game"] for a in acks if a.name == "start_game"}
    plays = [a for a in acks if a.name not in ("start_game", "end_game", "undo")]
    assert games <= {game} and len(plays) >= 5, f"too little was played: {len(plays)} commands"
    print(f"{game}: {KILLS_PER_GAME} kills, {len(acks)} acknowledged commands ({len(plays)} plays), none lost")


# -- 2. The buzzer box unplugged and plugged back in during a round ------------------------------


def box_health(service: Service) -> dict[str, Any]:
    (health,) = [h for h in service.get("/api/status", host=True)["buzzers"] if h["kind"] == "serial"]
    return health


def quiz_results(service: Service) -> list[dict[str, Any]]:
    return service.view_of("table")["game"]["view"]["results"]


def test_the_box_unplugged_and_replugged_mid_round(tmp_path: Path) -> None:
    box = FakeBox(tmp_path / "box", drift_ppm=250)
    config = tmp_path / "companion.toml"
    config.write_text(f'[buttons]\nsource = "serial"\nserial_port = "{box.link}"\n')
    data = tmp_path / "data"
    data.mkdir()
    (data / "buttons.toml").write_text('[seats]\n"box:1" = 1\n"box:2" = 2\n"box:3" = 3\n')
    service = Service(data, config=config)
    try:
        service.start()
        wait_until(lambda: box_health(service)["healthy"], 10, "the box", lambda: box_health(service))
        for number, name in zip(SEATS, PLAYERS, strict=True):
            assert service.command("host", "name_seat", {"seat": number, "name": name})[0] == 200
        play(service, "buzzer-quiz", {"window_s": 6})
        status, body = service.command("host", "arm", {"mode": "hands_off"})
        assert status == 200, body

        def held(button: int) -> bool:
            return bool(box_health(service)["buttons"][button - 1]["held"])

        before = box.press(1)
        wait_until(lambda: box_health(service)["buttons"][0]["presses"] == 1 and not held(1), 5,
                   "the first press and its release", lambda: box_health(service))
        box.unplug()
        lost = wait_until(lambda: None if (h := box_health(service))["healthy"] else h, 5, "the loss reported")
        assert lost["detail"].startswith(f"lost {box.link}"), lost["detail"]
        box.press(2, send=False)  # pressed while unplugged: the board counts it, nobody hears it
        time.sleep(0.3)
        plugged = time.monotonic()
        box.plug()
        wait_until(lambda: box_health(service)["healthy"], 5, "the box back", lambda: box_health(service))
        assert time.monotonic() - plugged < 2.0, "the box is taken back within 2 s"
        wait_until(lambda: "lost events 2," in box_health(service)["detail"], 3, "the lost press and release",
                   lambda: box_health(service)["detail"])
        assert quiz_results(service) == [], "the replug came within the round"
        after = box.press(3)
        (result,) = wait_until(lambda: quiz_results(service), 10, "the round's decision")
        decision = result["decision"]
        assert [p["who"] for p in decision["order"]] == ["seat:1", "seat:3"], decision
        for press, edge in zip(decision["order"], (before, after), strict=True):
            assert abs(press["t_us"] - edge.host_us) <= press["uncertainty_us"], (press, edge)
        assert decision["outcome"] == "faults" and decision["winner"] is None, decision

        # A race after the replug: the box's clock decides who was first.
        assert service.command("host", "arm", {"mode": "race"})[0] == 200
        time.sleep(0.05)
        first = box.press(2)
        box.press(3, at_us=first.host_us + 3_000)
        wait_until(lambda: len(quiz_results(service)) == 2, 10, "the race's decision")
        race = quiz_results(service)[0]["decision"]
        assert race["winner"] == "seat:2" and [p["who"] for p in race["order"]] == ["seat:2", "seat:3"], race

        settled = [e for e in check_chain(data) if e.type == "round_settled"]
        assert [e.data["decision"]["order"] for e in settled] == [decision["order"], race["order"]]
        recent = service.view_of("host")["buttons"]["recent"]
        assert [(r["button"], r["use"]) for r in reversed(recent)] == [
            ("box:1", "round"), ("box:3", "round"), ("box:2", "round"), ("box:3", "round")], "each press once"
        presses = {b["button"]: b["presses"] for b in box_health(service)["buttons"]}
        assert (presses["box:1"], presses["box:2"], presses["box:3"]) == (1, 1, 2), presses
        assert "lost events 2," in box_health(service)["detail"], "nothing else was lost"
    finally:
        service.stop()
        box.close()


# -- 3. A phone offline for a minute -----------------------------------------------------------------

OFFLINE_S = 60.0


@pytest.mark.slow
def test_a_phone_offline_for_a_minute_comes_back_to_the_current_state(tmp_path: Path) -> None:
    rnd = seeded("offline phone")
    service = Service(tmp_path / "data")
    try:
        service.start()
        seat_everyone(service)
        play(service, "dice-tray")
        stream = Stream(service, 1)
        seen = stream.next()
        assert seen.event == "view" and seen.id == log_position(service.data)
        stream.close()

        stop = threading.Event()
        acks: list[int] = []

        def others() -> None:
            while not stop.wait(0.5):
                if rnd.random() < 0.8:
                    status, body = service.command(rnd.choice((2, 3)), "roll", {"preset": "2d6"})
                else:
                    status, body = service.command("host", "set_tray", {"dice": rnd.sample(["d4", "d6", "d8"], 2)})
                assert status == 200, body
                acks.append(body["position"])

        thread = threading.Thread(target=others, daemon=True)
        thread.start()
        time.sleep(OFFLINE_S)
        stop.set()
        thread.join(10)
        assert len(acks) >= OFFLINE_S / 0.5 * 0.8, f"only {len(acks)} commands while the phone was away"
        assert not service.view_of("table")["table"]["seats"][0]["connected"], "the table saw the phone go"

        back = Stream(service, 1, last_event_id=seen.id)
        try:
            current = back.next()
            fresh = service.view_of(1)  # asked while the phone's stream is open, as its screen is
        finally:
            back.close()
        position = log_position(service.data)
        assert position == acks[-1] > seen.id
        assert current.event == "view" and current.id == position == current.data["position"]
        assert current.data == fresh, "the stream's first message is exactly the view a fresh request gets"
        assert current.data["you"] == {"seat": 1, "name": PLAYERS[0]}, "the seat is kept"
        rolls = sum(1 for e in stored_events(service.data) if e.type == "dice_rolled")
        assert current.data["game"]["view"]["rolls_total"] == rolls
    finally:
        service.stop()


# -- 4. The disk full ------------------------------------------------------------------------------


def test_a_full_disk_refuses_the_command_clearly_and_loses_nothing(tmp_path: Path) -> None:
    with FullDisk.make(tmp_path) as disk:
        print(f"full disk by {disk.kind}")
        service = Service(disk.data, preexec=disk.preexec())
        try:
            service.start()
            disk.service_pid = service.pid
            seat_everyone(service)
            play(service, "dice-tray")
            acked = []
            for _ in range(3):
                status, body = service.command(1, "roll", {"preset": "2d6"})
                assert status == 200, body
                acked.append(body["position"])
            before = check_chain(disk.data)
            view_before = service.view_of(1)

            disk.fill()
            refused, body = service.command(2, "roll", {"preset": "2d6"})
            assert (refused, body["ok"], body["error"]) == (507, False, "storage_failed"), body
            assert "storage is full" in body["message"], body
            print(f"refused on a full disk: {refused} {body}")
            # SQLite says "database or disk is full" on ENOSPC, "disk I/O error" on EFBIG (RLIMIT_FSIZE).
            said = "database or disk is full" if disk.kind == "tmpfs" else "disk I/O error"
            line = f"roll from seat:2 was not stored, nothing changed: could not store events: {said}"
            wait_until(lambda: line in service.log(), 5, "a log line about the full disk",
                       lambda: service.log()[-1500:])
            # Nothing half-written, nothing changed, the reads still served.
            assert check_chain(disk.data) == before
            assert service.view_of(1) == view_before
            assert service.view_of("table")["position"] == before[-1].position
            assert first_message(service, 2).id == before[-1].position
            status, again = service.command(3, "roll", {"preset": "2d6"})
            assert (status, again["error"]) == (refused, body["error"]), "still full: still refused"

            disk.free()
            status, body = service.command(2, "roll", {"preset": "2d6"})
            assert status == 200, body
            assert body["position"] == before[-1].position + 1, "the refused commands left no trace"
            acked.append(body["position"])
            after = check_chain(disk.data)
            assert after[:len(before)] == before and after[-1].command["name"] == "roll"  # type: ignore[index]

            service.kill()
            service.start()
            events = check_chain(disk.data)
            assert {e.position for e in events} >= set(acked)
            assert converge(service, SEATS) == after[-1].position
            rolls = sum(1 for e in events if e.type == "dice_rolled")
            assert service.view_of("table")["game"]["view"]["rolls_total"] == rolls == 4
        finally:
            service.stop()


# -- 5. A truncated event log ----------------------------------------------------------------------


def test_a_truncated_log_stops_serve_with_one_line_and_stays_untouched(tmp_path: Path) -> None:
    data = tmp_path / "data"
    service = Service(data)
    service.start()
    try:
        seat_everyone(service)
        play(service, "dice-tray")
        for _ in range(30):
            assert service.command(1, "roll", {"preset": "2d6"})[0] == 200
    finally:
        code, _, _ = service.interrupt(timeout=30)
        service.stop()
    assert code == 0, service.log()[-2000:]
    database = data / "companion.sqlite3"
    assert not Path(f"{database}-wal").exists() or Path(f"{database}-wal").stat().st_size == 0
    whole = database.read_bytes()
    assert len(whole) > 4 * 4096, len(whole)
    database.write_bytes(whole[: len(whole) - 4096 - 1000])
    damaged = hashlib.sha256(database.read_bytes()).hexdigest()

    done = companion("serve", "--host", "127.0.0.1", "--port", str(free_port()), "--data", str(data), "--quiet",
                     timeout=30)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert len(lines) == 1, done.stderr
    assert str(database) in lines[0] and "damaged" in lines[0], lines[0]
    assert hashlib.sha256(database.read_bytes()).hexdigest() == damaged, "the damaged file was changed"
    print(json.dumps(lines[0]))
