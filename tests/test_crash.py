"""Power-cut safety, tested: SIGKILL the service at random moments while commands stream in.

Every command the service acknowledged before a kill must be in the log and in the state after the
restart, exactly as acknowledged, and every hash chain must verify.
"""

from __future__ import annotations

import http.client
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from companion.sim.service import ServiceProcess
from companion.store import EventStore, RecordedEvent, verify_chain

KILLS = 55


class Sender(threading.Thread):
    """Sends commands back to back and keeps what was acknowledged, until the service dies."""

    def __init__(self, service: ServiceProcess, rnd: random.Random, acks: list[dict[str, Any]]) -> None:
        super().__init__(daemon=True)
        self.service = service
        self.rnd = rnd
        self.acks = acks

    def run(self) -> None:
        while True:
            choice = self.rnd.random()
            name: str
            args: dict[str, Any] = {}
            host = False
            if choice < 0.6:
                name = "roll"
            elif choice < 0.85:
                name, args = "set_tray", {"dice": self.rnd.sample(["d4", "d6", "d8", "d20", "nuit-red"], 2)}
            elif choice < 0.97:
                name, host = "name_seat", True
                args = {"seat": self.rnd.randint(1, 6), "name": f"P{self.rnd.randint(0, 999)}"}
            else:
                name, host = "end_game", True
            try:
                body = self.service.post(name, args, host=host, timeout=5)
            except (OSError, ValueError, http.client.HTTPException):
                return  # the service is gone mid-answer: this command was never acknowledged
            if body.get("ok"):
                self.acks.append({"name": name, "args": args, "position": body["position"], "view": body["view"]})


def check_acknowledged(data: Path, acks: list[dict[str, Any]]) -> None:
    store = EventStore.open(data / "companion.sqlite3", read_only=True)
    try:
        events = store.read_all()
    finally:
        store.close()
    assert verify_chain(events) == []
    by_position: dict[int, RecordedEvent] = {e.position: e for e in events}
    for ack in acks:
        event = by_position.get(ack["position"])
        assert event is not None, f"acknowledged {ack['name']} at position {ack['position']} was lost"
        if ack["name"] == "roll":
            shown = ack["view"]["game"]["view"]["recent"][0]
            assert event.type == "dice_rolled"
            assert [(d["die"], d["face"]) for d in event.data["dice"]] == [(d["die"], d["face"]) for d in shown["dice"]]
        elif ack["name"] == "set_tray":
            assert (event.type, event.data["dice"]) == ("tray_set", ack["args"]["dice"])
        elif ack["name"] == "name_seat":
            assert (event.type, event.data) == ("seat_named", ack["args"])
        else:
            # Ending a game also reveals its seed, in the same transaction.
            assert (by_position[ack["position"] - 1].type, event.type) == ("game_ended", "seed_revealed")


def check_state_matches_log(service: ServiceProcess) -> None:
    """The restarted service's state is the fold of its log: count rolls and check the seat names."""
    view = service.get("/api/view")
    store = EventStore.open(service.data / "companion.sqlite3", read_only=True)
    try:
        game = store.read(view["game"]["id"])
        table = store.read("table")
    finally:
        store.close()
    assert view["game"]["view"]["rolls_total"] == sum(1 for e in game if e.type == "dice_rolled")
    names: dict[int, str] = {}
    for event in table:
        if event.type == "seat_named":
            names[event.data["seat"]] = event.data["name"]
    assert {s["number"]: s["name"] for s in view["table"]["seats"] if s["name"]} == names


@pytest.mark.slow
def test_every_acknowledged_command_survives_sigkill(tmp_path: Path) -> None:
    rnd = random.Random(20261121)
    data = tmp_path / "data"
    service = ServiceProcess(data)
    acks: list[dict[str, Any]] = []
    kills = 0
    try:
        while kills < KILLS:
            service.start()
            check_acknowledged(data, acks)
            check_state_matches_log(service)
            senders = [Sender(service, random.Random(rnd.random()), acks) for _ in range(2)]
            for sender in senders:
                sender.start()
            time.sleep(rnd.uniform(0.0, 0.25))
            service.kill()
            kills += 1
            for sender in senders:
                sender.join(10)
        service.start()
        check_acknowledged(data, acks)
        check_state_matches_log(service)
    finally:
        service.stop()
    rolls = sum(1 for a in acks if a["name"] == "roll")
    assert kills >= 50
    assert rolls > 100, "the kills must land while commands are flowing"
    print(f"{kills} kills, {len(acks)} acknowledged commands ({rolls} rolls), none lost")
