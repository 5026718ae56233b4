"""The timekeeper (companion/table/deadlines.py) in the running service: a claim left unmade becomes
a wrong slap when its time runs out, a penalty card left unchosen is drawn at random, a timer the
players beat changes nothing, and a wait outlives a restart (given again in full after a reboot).

The garlic game is played with simulated buttons (button n is seat n's), a clock the test moves and
the `Later` scheduler: a timer that fires early waits again for the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from companion.config import Config
from companion.games.base import HOST, SYSTEM, TABLE, Command, Deadline, Viewer, seat
from companion.games.garlic.options import COMBINATIONS
from companion.games.garlic.state import GarlicState
from companion.service import Service, open_service
from companion.store import RecordedEvent
from companion.table.deadlines import due_us
from tests.conftest import Later, ManualClock

NAMES = {1: "Ann", 2: "Bob", 3: "Cy"}
YELLOW_BATS = {**dict.fromkeys(COMBINATIONS, 0), "yellow-bat": 30}
"""A deck of yellow bats, rolled on dice that always show one: every claim on a face-up card is right."""
OPTIONS = {"deck": YELLOW_BATS, "colour_die": ["yellow", "yellow"], "symbol_die": ["bat", "bat"]}
CLAIM_US = 30_000_000
"""The default claim_timeout_s."""
PENALTY_US = 10_000_000
"""The default penalty_choice_timeout_s."""
WINDOW_US = 5_000_000


def facts(event: RecordedEvent, *keys: str) -> dict[str, Any]:
    return {key: event.data.get(key) for key in keys}


@dataclass
class Garlic:
    service: Service
    clock: ManualClock
    later: Later

    @property
    def state(self) -> GarlicState:
        run = self.service.table.run
        assert run is not None
        return run.state

    @property
    def position(self) -> int:
        return self.service.table.position

    def since(self, position: int) -> list[RecordedEvent]:
        run = self.service.table.run
        assert run is not None
        return [e for e in self.service.store.read(run.game_id) if e.position > position]

    def deadline(self) -> Deadline | None:
        run = self.service.table.run
        assert run is not None
        return run.definition.deadline(run.state)

    def at(self, t_us: int) -> None:
        """Move the clock to `t_us` and let every timer that is due fire."""
        assert t_us >= self.clock.now_us()
        self.clock.advance(t_us - self.clock.now_us())
        self.later.run()

    def do(self, actor: Viewer, name: str, **args: Any) -> None:
        outcome = self.service.table.handle(actor, Command(name, args))
        assert outcome.ok, outcome.rejection

    def slap(self, slapper: int, roller: Viewer = TABLE) -> int:
        """Roll, `slapper`'s button first; when the first slapper was called to claim."""
        self.do(roller, "roll")
        self.at(self.clock.now_us() + 200_000)
        self.service.buttons.press_simulated(slapper)
        self.at(self.clock.now_us() + 50_000)
        assert (self.state.phase, self.state.turn["seat"]) == ("claim", slapper)
        return int(self.state.turn["since_us"])


def start(service: Service, clock: ManualClock, later: Later, **options: Any) -> Garlic:
    for number, name in NAMES.items():
        assert service.table.handle(HOST, Command("claim_seat", {"seat": number, "name": name})).ok
    outcome = service.table.handle(HOST, Command("start_game", {"game": "garlic-slap",
                                                                "options": {**OPTIONS, **options}}))
    assert outcome.ok, outcome.rejection
    clock.advance(2_000_000)
    return Garlic(service, clock, later)


@pytest.fixture
def garlic(service: Service, clock: ManualClock, later: Later) -> Garlic:
    return start(service, clock, later)


def test_a_claim_left_unmade_is_a_wrong_slap_once_its_time_runs_out(garlic: Garlic) -> None:
    since = garlic.slap(1, seat(2))  # Bob takes the dice first; Ann slaps and says nothing
    deadline = garlic.deadline()
    assert deadline == Deadline(since + CLAIM_US, since, Command("timeout", {"step": garlic.state.step,
                                                                             "for": "turn"}))
    position = garlic.position
    garlic.at(since + CLAIM_US - 1)
    assert garlic.position == position and garlic.state.phase == "claim", "not a microsecond early"

    garlic.at(since + CLAIM_US)
    events = garlic.since(position)
    assert [(e.type, e.actor) for e in events] == [("claim_withdrawn", "system"), ("card_drawn", "system"),
                                                   ("penalty_paid", "system"), ("dice_passed", "system")]
    assert facts(events[0], "seat", "cause") == {"seat": 1, "cause": "timeout"}
    assert facts(events[2], "seat", "reason", "how") == {"seat": 1, "reason": "no_claim", "how": "drew"}, \
        "a slap with nothing to show"
    assert facts(events[3], "from", "to") == {"from": 2, "to": 1}
    assert events[-1].command is not None and events[-1].command["name"] == "timeout"
    assert len(garlic.state.player(1).slots) == 5
    assert garlic.deadline() is None
    garlic.at(since + 3 * CLAIM_US)
    assert garlic.position == events[-1].position, "once is enough"


def penalty_due(garlic: Garlic) -> int:
    """Ann turns two coffins face down, then jumps the gun (the table penalises false starts):
    she owes a penalty with two coffins to choose from. When the wait for her choice began."""
    for slot, roller in ((0, seat(2)), (1, seat(1))):
        garlic.slap(1, roller)
        garlic.do(seat(1), "claim", kind="own_up", slot=slot)
    assert garlic.state.player(1).face_down() == [0, 1]
    assert garlic.state.roller == 3
    garlic.at(garlic.clock.now_us() + 2_000_000)
    garlic.service.buttons.press_simulated(1)  # before the dice show
    garlic.at(garlic.clock.now_us() + 100_000)
    garlic.do(TABLE, "roll")  # Cy's roll; nobody slaps
    garlic.at(garlic.clock.now_us() + WINDOW_US)
    state = garlic.state
    assert state.result is not None and [f["who"] for f in state.result["false_starts"]] == ["seat:1"]
    assert state.phase == "penalties"
    (penalty,) = state.penalties
    assert (penalty.seat, penalty.reason) == (1, "false_start")
    return penalty.since_us


def test_a_penalty_card_left_unchosen_is_drawn_at_random_once_its_time_runs_out(
        service: Service, clock: ManualClock, later: Later) -> None:
    garlic = start(service, clock, later, false_start="penalty")
    since = penalty_due(garlic)
    deadline = garlic.deadline()
    assert deadline is not None and (deadline.at_us, deadline.command.args["for"]) == (since + PENALTY_US, "penalty")
    position = garlic.position
    garlic.at(since + PENALTY_US - 1)
    assert garlic.position == position

    garlic.at(since + PENALTY_US)
    events = garlic.since(position)
    assert [e.type for e in events] == ["card_turned_up", "penalty_paid", "dice_passed"]
    assert all(e.actor == "system" for e in events)
    slot = events[1].data["slot"]
    assert slot in (0, 1)
    assert events[0].data["cause"] == "penalty" and events[0].data["slot"] == slot
    assert facts(events[1], "seat", "reason", "how") == {"seat": 1, "reason": "false_start", "how": "reopened"}
    assert facts(events[2], "from", "to") == {"from": 3, "to": 2}
    assert [d["purpose"] for d in events[-1].draws] == ["penalty card of seat 1"], "drawn, verifiably"
    assert garlic.state.player(1).face_down() == [1 - slot]
    assert garlic.state.penalties == ()


def test_a_claim_made_in_time_leaves_the_timer_nothing_to_do(garlic: Garlic) -> None:
    since = garlic.slap(1, seat(2))
    stale = garlic.deadline()
    assert stale is not None
    garlic.at(since + CLAIM_US - 1_000_000)
    garlic.do(seat(1), "claim", kind="own_up", slot=2)  # just in time, and right
    position = garlic.position
    garlic.at(since + 2 * CLAIM_US)
    assert garlic.position == position, "the timer fired and changed nothing"
    assert garlic.state.player(1).face_down() == [2]
    late = garlic.service.table.handle(SYSTEM, stale.command)  # a timer that fires late, or twice
    assert late.rejection is not None and late.rejection.code == "not_now"
    assert garlic.position == position


def test_a_penalty_chosen_in_time_leaves_the_timer_nothing_to_do(
        service: Service, clock: ManualClock, later: Later) -> None:
    garlic = start(service, clock, later, false_start="penalty")
    since = penalty_due(garlic)
    stale = garlic.deadline()
    assert stale is not None
    garlic.at(since + PENALTY_US // 2)
    garlic.do(seat(1), "reopen", slot=1)
    position = garlic.position
    garlic.at(since + 2 * PENALTY_US)
    assert garlic.position == position
    assert garlic.state.player(1).face_down() == [0], "Ann's choice stands"
    late = garlic.service.table.handle(SYSTEM, stale.command)
    assert late.rejection is not None and late.rejection.code == "not_now"


@pytest.mark.parametrize("comes_back", ["after a restart", "after its time ran out while stopped",
                                        "after a reboot (a new timeline)"])
def test_a_wait_outlives_a_restart_and_is_given_in_full_after_a_reboot(
        garlic: Garlic, config: Config, seeds, reopened: list[Service], comes_back: str) -> None:
    since = garlic.slap(1, seat(2))
    garlic.at(since + 10_000_000)
    game_id = garlic.service.table.run.game_id  # type: ignore[union-attr]
    garlic.service.close()
    garlic.later.pending.clear()  # the closed service's timers die with it
    clock = garlic.clock
    if comes_back == "after its time ran out while stopped":
        clock.advance(CLAIM_US)
    elif comes_back == "after a reboot (a new timeline)":
        clock.us = 2_000  # the monotonic clock starts again near zero, before the wait began
    back = clock.now_us()
    again = open_service(config, clock, seeds, scheduler=garlic.later, watch_health=False)
    reopened.append(again)
    garlic = Garlic(again, clock, garlic.later)
    assert (garlic.state.phase, garlic.state.turn["seat"]) == ("claim", 1), "the game is rebuilt from the log"
    position = garlic.position
    if comes_back == "after its time ran out while stopped":
        garlic.later.run()
    else:
        due = since + CLAIM_US if comes_back == "after a restart" else back + CLAIM_US
        garlic.at(due - 1)
        assert garlic.position == position, "the wait is not cut short"
        garlic.at(due)
    events = again.store.read(game_id)
    assert [e.type for e in events if e.position > position] == [
        "claim_withdrawn", "card_drawn", "penalty_paid", "dice_passed"]
    assert events[-1].actor == "system" and events[-1].command["name"] == "timeout"  # type: ignore[index]


@pytest.mark.parametrize(("now_us", "expected"), [
    (5_000_000, 31_000_000),  # the same timeline: when it was set for
    (40_000_000, 31_000_000),  # already past: at once
    (1_000_000, 31_000_000),  # exactly when the wait began
    (999_999, 30_999_999),  # a reboot: the clock is before the wait began, which is given in full
    (2_000, 30_002_000),
])
def test_a_deadline_falls_on_todays_timeline(now_us: int, expected: int) -> None:
    deadline = Deadline(31_000_000, 1_000_000, Command("timeout", {"step": 3}))
    assert due_us(deadline, now_us) == expected


def test_a_pause_stops_the_clock_of_a_choice_and_the_wait_starts_again_on_resume(garlic: Garlic) -> None:
    since = garlic.slap(1, seat(2))
    garlic.do(HOST, "pause")
    position = garlic.position
    garlic.at(since + CLAIM_US + 5_000_000)
    assert garlic.position == position and garlic.state.phase == "claim", "nothing runs out while paused"

    garlic.do(HOST, "resume")
    resumed = garlic.clock.now_us()
    garlic.at(resumed + CLAIM_US - 1)
    assert garlic.state.phase == "claim", "the whole wait again after the pause"
    garlic.at(resumed + CLAIM_US)
    assert garlic.state.phase == "roll" and garlic.state.roller == 1, "then the claim is withdrawn"
