"""The garlic game's slaps from every press source the table has: GPIO buttons (gpiozero's mock
pins), the buzzer box (a fake board, and the real firmware in simavr, each behind a pty) and the
players' phones.

With the real service objects: the first slapper is called to act as the dice say, a later press
from another source loses, a press before the roll is a false start with how early it was (a
warning that costs nothing, or a penalty when the table plays so), a skull punishes every hand
that touched the garlic, nobody slapping passes the dice counter-clockwise, the table's own
button rolls for whoever's turn it is, and presses too close to call are settled by the tie rule,
never by seat order.

Cy (seat 3) has a slow phone (120 ms there and back): every round waits that long after its
first press for presses still in flight, so a later press of another source reaches the referee
before the decision and is seen to lose, as at a real table.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from gpiozero.pins.mock import MockFactory

from companion.buzzers.hub import ButtonHub
from companion.buzzers.sources import Press
from companion.clock import Clock, MonotonicClock
from companion.config import Config, load_config
from companion.games.base import HOST, TABLE, Command, seat
from companion.games.garlic.state import Dice, GarlicState
from companion.service import Service, open_service
from companion.sim.box import FakeBox
from companion.sim.simavr import PtyBoard, build_firmware, ms
from companion.store import RecordedEvent
from tests.conftest import EdgeClock, Later, ManualClock, edge
from tests.support.web import Web

NAMES = {1: "Ann", 2: "Bob", 3: "Cy"}
PINS = {1: 17, 2: 27, 3: 22}
"""Each seat's slap pad on the Pi's GPIO."""
ARM_PIN = 23
"""The table's own button."""
YELLOW_BAT = {"colour_die": ["yellow", "yellow"], "symbol_die": ["bat", "bat"]}
"""Dice that always show a yellow bat: every roll is a race to claim (S-S5)."""
FAST_RTT_US = 4_000
"""Ann's and Bob's phones: ±2 ms."""
SLOW_RTT_US = 120_000
"""Cy's phone: a round waits 120 ms after its first press for his buzz to arrive."""
WINDOW_US = 5_000_000
"""The default no-slap timeout and skull window."""


def garlic(service: Service) -> GarlicState:
    run = service.table.run
    assert run is not None and run.definition.id == "garlic-slap"
    state: GarlicState = run.state
    return state


def events_since(service: Service, position: int) -> list[RecordedEvent]:
    run = service.table.run
    assert run is not None
    return [e for e in service.store.read(run.game_id) if e.position > position]


def paid(data: Mapping[str, Any]) -> dict[str, Any]:
    """What a penalty cost, from its `penalty_paid` event."""
    return {key: data[key] for key in ("seat", "reason", "how", "slot") if key in data}


def check_first_slap(service: Service, before: int, *, winner: tuple[int, str], loser: tuple[int, str],
                     early: tuple[int, int], policy: str) -> None:
    """The round after `before`: `winner` (seat, source) was called to claim, `loser` came second and
    waits in line, `early` (seat, µs) was a false start, a penalty only when the table says so."""
    state = garlic(service)
    assert state.phase == "claim", "a yellow bat: the first slapper names a card"
    assert state.turn["seat"] == winner[0]
    assert state.turn["queue"] == [loser[0]], "the later slapper lost"
    result = state.result
    assert result is not None
    assert (result["outcome"], result["winner"], result["tied"]) == ("winner", winner[0], [])
    assert [(row["who"], row["source"]) for row in result["order"]] == [
        (f"seat:{winner[0]}", winner[1]), (f"seat:{loser[0]}", loser[1])]
    assert result["order"][1]["gap_us"] > 10_000, "told apart: further apart than the table's 10 ms"
    (false_start,) = result["false_starts"]
    assert (false_start["who"], false_start["early_us"]) == (f"seat:{early[0]}", early[1])
    penalties = [paid(e.data) for e in events_since(service, before) if e.type.startswith("penalty")]
    cards = len(state.player(early[0]).slots)
    if policy == "warning":
        assert penalties == [] and cards == 4, "a false start is shown, and costs nothing"
    else:
        # No coffin to turn face up yet: the penalty is a card from the pile (S-S9).
        assert penalties == [{"seat": early[0], "reason": "false_start", "how": "drew"}]
        assert cards == 5
    # Only the first slapper may claim now.
    refused = service.table.handle(seat(loser[0]), Command("claim", {"kind": "own_up", "slot": 0}))
    assert refused.rejection is not None and refused.rejection.code == "not_first_slapper"


# -- GPIO buttons and phones, on a clock the test moves --------------------------------------------


@pytest.fixture
def config(tmp_path: Path, factory: MockFactory, edges: EdgeClock, clock: ManualClock) -> Config:
    """Overrides conftest's: buttons on four mock GPIO pins (the three seats' and the table's own).
    Their edge ticks are the host timeline: the source measures a zero offset at the start."""
    edges.now = (clock.now_us() + 0.5) / 1e6
    return load_config(None, {"data.dir": str(tmp_path / "data"), "buttons.source": "gpio",
                              "buttons.gpio_pins": [*PINS.values(), ARM_PIN]})


class Timers:
    """The service's scheduler on the test's clock: each action runs once the clock reaches its
    time, in time order (as threading.Timer runs them in the service), when the test moves on."""

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock
        self.pending: list[tuple[int, int, Callable[[], None]]] = []
        self._made = 0

    def __call__(self, delay_s: float, action: Callable[[], None]) -> None:
        heapq.heappush(self.pending, (self.clock.now_us() + round(delay_s * 1_000_000), self._made, action))
        self._made += 1

    def advance_to(self, t_us: int) -> None:
        """Time passes until `t_us` (never back); each timer fires at its own time on the way."""
        assert t_us >= self.clock.now_us()
        while self.pending and self.pending[0][0] <= t_us:
            due, _, action = heapq.heappop(self.pending)
            self.clock.advance(max(0, due - self.clock.now_us()))
            action()
        self.clock.advance(t_us - self.clock.now_us())


@pytest.fixture
def later(clock: ManualClock) -> Timers:
    """Overrides conftest's: the `service` fixture's timers fire at their time on the test clock."""
    return Timers(clock)


@dataclass
class Wired:
    """Ann, Bob and Cy with their GPIO slap pads and their phones; time moves when the test says,
    and the service's timers fire as soon as their time has come."""

    web: Web
    clock: ManualClock
    timers: Timers
    factory: MockFactory
    edges: EdgeClock
    host: FlaskClient
    phones: dict[int, FlaskClient] = field(default_factory=dict)

    @property
    def service(self) -> Service:
        return self.web.service

    @property
    def state(self) -> GarlicState:
        return garlic(self.service)

    def start(self, **options: Any) -> None:
        assert self.host.post("/api/commands", json={"name": "end_game"}).status_code in (200, 409)
        response = self.host.post("/api/commands", json={
            "name": "start_game", "args": {"game": "garlic-slap", "options": {**YELLOW_BAT, **options}}})
        assert response.status_code == 200, response.get_json()
        self.at(self.clock.now_us() + 2_000_000)  # well after the last game ended: no late answer to it

    def at(self, t_us: int) -> None:
        """Move to `t_us` (never back); the service's timers fire at their time on the way."""
        self.timers.advance_to(t_us)

    def measure(self, seat_number: int, rtt_us: int) -> None:
        """A round trip as the server times it: a ping goes out, the echo comes back rtt later."""
        ping_id = self.service.buttons.phones.ping(seat_number)
        self.at(self.clock.now_us() + rtt_us)
        response = self.phones[seat_number].post("/api/ping", json={"id": ping_id})
        assert response.get_json() == {"ok": True, "rtt_us": rtt_us}

    def measure_phones(self) -> None:
        for number, rtt in ((1, FAST_RTT_US), (2, FAST_RTT_US), (3, SLOW_RTT_US)):
            self.measure(number, rtt)

    def roll(self, by: int | None = None) -> int:
        """Roll from `by`'s phone (or the table's screen); the moment the dice were shown."""
        client, role = (self.web.client(), "table") if by is None else (self.phones[by], "me")
        response = client.post("/api/commands", json={"name": "roll", "as": role})
        assert response.status_code == 200, response.get_json()
        dice = self.state.dice
        assert dice is not None and self.state.phase == "reaction"
        return dice.at_us

    def gpio(self, *presses: tuple[int, int]) -> None:
        """Slap pads pressed at these host times (seat, µs; the kernel's edge stamps, so they may
        be a little in the past), confirmed 5 ms later with the pin still low, then released."""
        last = 0
        for seat_number, t_us in sorted(presses, key=lambda p: p[1]):
            self.at(max(t_us, self.clock.now_us()))
            edge(self.factory, self.edges, PINS[seat_number], (t_us + 0.5) / 1e6, True)
            last = max(last, self.clock.now_us())
        self.at(last + 5_000)
        for seat_number, _ in presses:
            edge(self.factory, self.edges, PINS[seat_number], (self.clock.now_us() + 0.5) / 1e6, False)

    def arm_button(self) -> None:
        now = self.clock.now_us()
        edge(self.factory, self.edges, ARM_PIN, (now + 0.5) / 1e6, True)
        self.at(now + 5_000)
        edge(self.factory, self.edges, ARM_PIN, (self.clock.now_us() + 0.5) / 1e6, False)

    def buzz(self, seat_number: int, arrives_us: int) -> int:
        """A phone's buzz reaching the server at `arrives_us`; the press time it is given."""
        self.at(arrives_us)
        response = self.phones[seat_number].post("/api/buzz")
        assert response.status_code == 200, response.get_json()
        assert response.get_json()["repeat"] is False
        estimate = self.service.buttons.phones.estimate(seat_number)
        return arrives_us - (estimate.delay_us if estimate is not None else 0)

    def pass_without_slaps(self) -> None:
        """Nobody slaps: the window runs out and the dice pass on."""
        armed = self.state.turn["at_us"]
        self.at(armed + self.state.turn["window_us"])
        assert self.state.phase == "roll", self.state.phase

    def roll_until(self, wanted: Callable[[Dice], bool], first_by: int = 2) -> int:
        """Roll until the dice show what the test needs (unwanted rolls pass with no slap); the
        moment the wanted dice were shown."""
        by: int | None = first_by if self.state.roller is None else None
        for _ in range(40):
            armed = self.roll(by)
            dice = self.state.dice
            assert dice is not None
            if wanted(dice):
                return armed
            self.pass_without_slaps()
            self.at(self.clock.now_us() + 2_000_000)
            by = None  # the table's screen rolls for whoever has the dice now
        raise AssertionError("the dice never showed what the test needs")


@pytest.fixture
def wired(web: Web, clock: ManualClock, later: Timers, factory: MockFactory, edges: EdgeClock) -> Wired:
    rig = Wired(web, clock, later, factory, edges, web.host())
    for number, name in NAMES.items():
        rig.phones[number] = web.join(number, name)
        web.service.buttons.pairs.pair(f"gpio:{PINS[number]}", number)
    return rig


@pytest.mark.parametrize("policy", ["warning", "penalty"])
def test_a_gpio_slap_pad_slaps_first_a_later_phone_loses_and_an_early_pad_is_a_false_start(
        wired: Wired, policy: str) -> None:
    wired.start(false_start=policy)
    wired.measure_phones()
    before = wired.service.table.position
    jumped = wired.clock.now_us()
    wired.gpio((3, jumped))  # Cy slaps before the dice show
    wired.at(wired.clock.now_us() + 120_000)
    armed = wired.roll(2)  # Bob rolls first from his phone (he is the youngest)
    wired.gpio((1, armed + 180_000))  # Ann's pad
    bob = wired.buzz(2, armed + 222_000)  # pressed 38 ms after Ann (±2 ms), still within Cy's 120 ms
    assert wired.state.phase == "reaction", "the round still waits for phones in flight"
    wired.at(armed + 600_000)
    check_first_slap(wired.service, before, winner=(1, "gpio"), loser=(2, "phone"), early=(3, armed - jumped),
                     policy=policy)
    result = garlic(wired.service).result
    assert result is not None
    assert [row["t_us"] for row in result["order"]] == [armed + 180_000, bob], "the pad's edge time, exactly"


@pytest.mark.parametrize("policy", ["warning", "penalty"])
def test_a_phone_slaps_first_a_later_gpio_pad_loses_and_an_early_phone_is_a_false_start(
        wired: Wired, policy: str) -> None:
    wired.start(false_start=policy)
    wired.measure_phones()
    before = wired.service.table.position
    jumped = wired.buzz(3, wired.clock.now_us())  # Cy's slow phone: pressed 60 ms before it arrived
    wired.at(wired.clock.now_us() + 120_000)
    armed = wired.roll(2)
    ann = wired.buzz(1, armed + 182_000)  # via /api/buzz, moved back by her phone's 2 ms
    assert ann == armed + 180_000
    wired.gpio((2, ann + 40_000))  # Bob's pad, 40 ms after Ann's tap
    if policy == "warning":
        assert wired.state.phase == "reaction", "Cy's slow phone may still send a slap that counts"
    else:
        assert wired.state.phase != "reaction", "everyone who may still slap has: no wait for anyone"
    wired.at(armed + 600_000)
    check_first_slap(wired.service, before, winner=(1, "phone"), loser=(2, "gpio"), early=(3, armed - jumped),
                     policy=policy)
    assert wired.service.table.view(TABLE)["game"]["view"]["result"]["false_starts"][0]["early_us"] \
        == 120_000 + 60_000, "even a vague phone is certainly early by this much"


@pytest.mark.parametrize(("dice", "phase"), [(("yellow", "bat"), "claim"), (("!", "bat"), "bat"),
                                             (("!", "moon"), "moon")])
def test_the_first_slapper_is_called_to_act_as_the_dice_say(wired: Wired, dice: tuple[str, str],
                                                            phase: str) -> None:
    wired.start(colour_die=["!", "yellow"], symbol_die=["bat", "moon"])
    armed = wired.roll_until(lambda d: (d.colour, d.symbol) == dice)
    wired.gpio((3, armed + 250_000))
    wired.at(armed + 300_000)
    state = wired.state
    assert (state.phase, state.turn["seat"]) == (phase, 3)
    assert state.result is not None and state.result["winner"] == 3


def test_a_skull_penalises_every_hand_that_touched_the_garlic_whatever_its_source(wired: Wired) -> None:
    wired.start(colour_die=["!", "yellow"], symbol_die=["skull", "bat"])
    armed = wired.roll_until(lambda d: (d.colour, d.symbol) == ("!", "skull"))
    roller = wired.state.roller
    assert roller is not None
    assert wired.state.turn["mode"] == "hands_off"
    before = wired.service.table.position
    wired.gpio((1, armed + 1_200_000))  # Ann's pad
    wired.buzz(2, armed + 2_500_000)  # Bob's phone
    assert wired.state.phase == "reaction", "the skull window lasts its 5 s"
    wired.at(armed + WINDOW_US)
    state = wired.state
    assert state.result is not None and (state.result["mode"], state.result["outcome"]) == ("hands_off", "faults")
    penalties = [paid(e.data) for e in events_since(wired.service, before) if e.type.startswith("penalty")]
    assert penalties == [{"seat": 1, "reason": "skull", "how": "drew"}, {"seat": 2, "reason": "skull", "how": "drew"}]
    assert [len(state.player(n).slots) for n in (1, 2, 3)] == [5, 5, 4]
    assert state.phase == "roll" and state.roller == state.next_seat(roller), "then the dice pass on"


def test_nobody_slapping_passes_the_dice_counter_clockwise(wired: Wired) -> None:
    wired.start()
    passes = []
    for by in (2, None, None, None):
        armed = wired.roll(by)
        roller = wired.state.roller
        wired.at(armed + WINDOW_US - 1)
        assert wired.state.phase == "reaction", "not before the window ends"
        wired.at(armed + WINDOW_US)
        assert wired.state.result is not None and wired.state.result["outcome"] == "no_reaction"
        passes.append((roller, wired.state.roller))
    # Seats are numbered clockwise: counter-clockwise is the previous number (S-S2).
    assert passes == [(2, 1), (1, 3), (3, 2), (2, 1)]


def test_the_tables_own_button_rolls_for_whoever_has_the_dice_and_not_before_the_first_roll(
        wired: Wired, caplog: pytest.LogCaptureFixture) -> None:
    wired.start()
    assert wired.host.post("/api/buttons/pair", json={"seat": "arm"}).get_json() == {"ok": True, "target": "arm"}
    wired.arm_button()  # this press pairs it
    assert wired.service.buttons.pairs.pairs[f"gpio:{ARM_PIN}"] == "arm"
    position = wired.service.table.position

    wired.at(wired.clock.now_us() + 1_000_000)
    caplog.set_level("INFO", logger="companion.buzzers.hub")
    wired.arm_button()
    assert wired.service.table.position == position, "refused: nothing logged"
    assert "youngest_rolls_first" in caplog.text, "the youngest takes the dice first (S-S2)"
    assert wired.state.phase == "roll" and wired.state.roller is None
    assert wired.service.buttons.recent[0].use == "arm"

    wired.roll(2)
    wired.pass_without_slaps()
    assert wired.state.roller == 1
    wired.at(wired.clock.now_us() + 1_000_000)
    wired.arm_button()
    dice = wired.state.dice
    assert dice is not None and (dice.round, dice.roller) == (2, 1)
    rolled = next(e for e in events_since(wired.service, position) if e.type == "dice_rolled" and
                  e.data["round"] == 2)
    assert rolled.actor == "table" and rolled.data["by"] == "table"
    position = wired.service.table.position
    wired.at(wired.clock.now_us() + 200_000)  # a pad is masked for 50 ms after a press
    wired.arm_button()  # the dice are in play: refused, nothing changes
    assert wired.service.table.position == position
    assert "dice_in_play" in caplog.text


TIES = {
    "two pads 30 us apart, within their 20 us each": ("gpio", 30, 0.0),
    "two pads 300 us apart, within the table's 10 ms": ("gpio", 300, 10.0),
    "two pads 9 ms apart, within the table's 10 ms": ("gpio", 9_000, 10.0),
    "a phone (±2 ms) and a pad 1 ms apart": ("phone", 1_000, 0.0),
}


@pytest.mark.parametrize("first", [1, 2], ids=["Ann first", "Bob first"])
@pytest.mark.parametrize("tie", TIES.values(), ids=TIES.keys())
def test_slaps_too_close_to_call_are_rolled_again_by_the_same_roller_never_settled_by_seat_order(
        wired: Wired, tie: tuple[str, int, float], first: int) -> None:
    """Only pads (and, in one case, one fast phone) at the table: the round waits for the pads'
    presses, which each reach the service once the pad stayed down for 5 ms."""
    source, gap_us, epsilon_ms = tie
    wired.start(tie_epsilon_ms=epsilon_ms)
    second = 3 - first
    before = wired.service.table.position
    if source == "gpio":
        armed = wired.roll(3)
        wired.gpio((first, armed + 200_000), (second, armed + 200_000 + gap_us))
    else:
        wired.measure(first, FAST_RTT_US)
        armed = wired.roll(3)
        wired.buzz(first, armed + 200_000 + FAST_RTT_US // 2)  # pressed at +200 ms
        wired.gpio((second, armed + 200_000 + gap_us))
    wired.at(armed + 600_000)
    state = wired.state
    assert state.result is not None
    assert [row["who"] for row in state.result["order"]] == [f"seat:{first}", f"seat:{second}"]
    assert (state.result["outcome"], state.result["winner"]) == ("tie", None)
    assert sorted(state.result["tied"]) == [1, 2]
    assert (state.phase, state.roller) == ("roll", 3), "the same roller rolls again"
    assert [e.type for e in events_since(wired.service, before)][-2:] == ["round_settled", "dice_kept"]
    wired.roll()
    assert wired.state.dice is not None and wired.state.dice.roller == 3


@pytest.mark.parametrize("first", [1, 2], ids=["Ann first", "Bob first"])
def test_slaps_just_further_apart_than_the_tie_window_go_to_the_earlier_whatever_the_seat(
        wired: Wired, first: int) -> None:
    wired.start()
    armed = wired.roll(3)
    wired.gpio((first, armed + 200_000), (3 - first, armed + 210_001))
    wired.at(armed + 600_000)
    assert (wired.state.phase, wired.state.turn["seat"]) == ("claim", first)


def test_with_the_draw_policy_a_tie_is_drawn_verifiably_among_those_too_close_to_call(wired: Wired) -> None:
    wired.start(tie_policy="draw")
    armed = wired.roll(3)
    wired.gpio((2, armed + 200_000), (1, armed + 200_010))
    wired.at(armed + 600_000)
    state = wired.state
    assert state.result is not None and state.result["outcome"] == "drawn"
    assert state.result["drawn_from"] == [2, 1] and state.result["winner"] in (1, 2)
    assert (state.phase, state.turn["seat"]) == ("claim", state.result["winner"])
    settled = next(e for e in reversed(wired.service.store.read(state_game(wired))) if e.type == "slapper_called")
    assert [d["purpose"] for d in settled.draws] == ["round 1 tie among 2"], "the draw is in the log"


def state_game(rig: Wired) -> str:
    run = rig.service.table.run
    assert run is not None
    return run.game_id


# -- the buzzer box on a pty, in real time ---------------------------------------------------------


def wait_until(condition: Callable[[], Any], timeout_s: float = 5.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what or condition}")
        time.sleep(0.002)


@dataclass
class Boxed:
    """Ann, Bob and Cy at a service whose buttons are a buzzer box (pads 1 and 3 are Ann's and
    Cy's) and their phones, on the host's real monotonic clock. The service's timers run only when
    the test has made every press (`later`): a busy machine that slows the board's frames must not
    decide a round before the press that should lose it arrived (the GPIO tests above keep the
    timers' real pace, on a clock they move)."""

    service: Service
    later: Later
    press_box: Callable[[int], None]

    @property
    def clock(self) -> Clock:
        return self.service.clock

    @property
    def hub(self) -> ButtonHub:
        return self.service.buttons

    def start(self, **options: Any) -> None:
        for number, name in NAMES.items():
            assert self.service.table.handle(HOST, Command("claim_seat", {"seat": number, "name": name})).ok
        self.hub.pairs.pair("box:1", 1)
        self.hub.pairs.pair("box:3", 3)
        outcome = self.service.table.handle(HOST, Command("start_game", {
            "game": "garlic-slap", "options": {**YELLOW_BAT, **options}}))
        assert outcome.ok, outcome.rejection

    def wait_until_us(self, t_us: int) -> None:
        wait_until(lambda: self.clock.now_us() >= t_us, what=f"t = {t_us}")

    def measure_phones(self) -> None:
        """Ann's and Bob's phones answer at once (their buzzes are precise); Cy's takes 120 ms."""
        phones = self.hub.phones
        for number in (1, 2):
            assert phones.echo(number, phones.ping(number)) is not None
        ping = phones.ping(3)
        sent = self.clock.now_us()
        self.wait_until_us(sent + SLOW_RTT_US)
        assert phones.echo(3, ping) is not None

    def box(self, button: int) -> int:
        """A box pad pressed now; its time on the host timeline, once the hub has it."""
        seen = len([r for r in self.hub.recent if r.button == f"box:{button}"])
        self.press_box(button)
        wait_until(lambda: len([r for r in self.hub.recent if r.button == f"box:{button}"]) > seen,
                   timeout_s=10, what=f"box:{button}'s press")
        record = next(r for r in self.hub.recent if r.button == f"box:{button}")
        assert record.use in ("round", "not_playing") or record.target == button
        return record.t_us

    def buzz(self, seat_number: int) -> int:
        press = self.hub.buzz(seat_number, self.clock.now_us())
        assert isinstance(press, Press), press
        return press.t_us

    def settled(self) -> None:
        """The service's timers fire until the round is decided."""
        def decided() -> bool:
            self.later.run()
            return garlic(self.service).phase != "reaction"

        wait_until(decided, what="the decision")


def first_slap_from_the_box(rig: Boxed, policy: str) -> None:
    rig.start(false_start=policy)
    rig.measure_phones()
    before = rig.service.table.position
    jumped = rig.box(3)  # Cy's pad before the dice show
    rig.wait_until_us(jumped + 150_000)
    assert rig.service.table.handle(seat(2), Command("roll")).ok  # Bob rolls first, from his phone
    dice = garlic(rig.service).dice
    assert dice is not None
    armed = dice.at_us
    rig.wait_until_us(armed + 150_000)
    ann = rig.box(1)
    rig.wait_until_us(ann + 40_000)
    rig.buzz(2)  # Bob's phone, 40 ms after Ann's pad
    rig.settled()
    check_first_slap(rig.service, before, winner=(1, "box"), loser=(2, "phone"), early=(3, armed - jumped),
                     policy=policy)
    result = garlic(rig.service).result
    assert result is not None
    order = result["order"]
    assert order[0]["clock"].startswith("box@"), "stamped by the box's own clock"
    assert 0 < order[0]["uncertainty_us"] < 2_000


@pytest.fixture
def boxed(tmp_path: Path, seeds) -> Iterator[Callable[[str, Callable[[int], None]], Boxed]]:
    """Opens a service on the real clock whose buzzer box is at `port` (pressed with `press_box`);
    closed at the end."""
    opened: list[Service] = []

    def open_on(port: str, press_box: Callable[[int], None]) -> Boxed:
        config = load_config(None, {"data.dir": str(tmp_path / "data"), "buttons.source": "serial",
                                    "buttons.serial_port": port})
        later = Later()
        svc = open_service(config, MonotonicClock(), seeds, scheduler=later, watch_health=False)
        opened.append(svc)
        assert [(s.name, s.health().healthy) for s in svc.sources] == [("box", True), ("phone", True)], [
            s.health().detail for s in svc.sources]
        return Boxed(svc, later, press_box)

    yield open_on
    for svc in opened:
        svc.close()


@pytest.mark.parametrize("policy", ["warning", "penalty"])
def test_a_buzzer_box_pad_slaps_first_on_the_fake_box(
        tmp_path: Path, boxed: Callable[[str, Callable[[int], None]], Boxed], policy: str) -> None:
    box = FakeBox(tmp_path / "box", drift_ppm=-1300)

    def press(button: int) -> None:
        box.press(button)  # and its release 30 ms later

    try:
        first_slap_from_the_box(boxed(str(tmp_path / "box"), press), policy)
    finally:
        box.close()


@pytest.fixture(scope="module")
def elf() -> Path:
    return build_firmware()


def test_a_buzzer_box_pad_slaps_first_on_the_real_firmware_in_simavr(
        elf: Path, boxed: Callable[[str, Callable[[int], None]], Boxed]) -> None:
    with PtyBoard(elf) as board:
        def press(button: int) -> None:
            board.press(button)
            board.release(button, after_cycles=ms(30))

        first_slap_from_the_box(boxed(board.port, press), "penalty")
