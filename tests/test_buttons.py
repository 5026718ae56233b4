"""The buttons as the table meets them: pairing kept in buttons.toml, unpaired and arm buttons,
phone buzzers with a server-measured delay, pings down the stream, a GPIO box that will not open,
a round that outlives a restart, and refusals that change nothing."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from companion.buzzers.hub import PAIRING_WINDOW_US
from companion.buzzers.pairing import PAIRING_FILE, ButtonMap
from companion.buzzers.phoneclock import STALL_ALLOWANCE_US
from companion.buzzers.phones import Estimate
from companion.buzzers.sources import Press
from companion.config import Config, load_config
from companion.errors import ConfigError
from companion.games.base import HOST, TABLE, Command, Viewer
from companion.server import create_app
from companion.service import Service, open_service
from tests.conftest import Later, ManualClock
from tests.support.web import BASE, Web

EVIL = {"Origin": "http://evil.example"}
OWN = {"Origin": "http://localhost"}
HOST_ONLY = ("health", "pairs", "unmapped", "recent", "phone_precision", "phone_timing", "problem")
WINDOW_US = 5_000_000
"""The quiz's default window."""
BUTTON_ROUTES = ("/api/buzz", "/api/ping", "/api/buttons/press", "/api/buttons/pair", "/api/buttons/cancel",
                 "/api/buttons/unpair")


# -- helpers ---------------------------------------------------------------------------------------


@dataclass
class Quiz:
    """Ann (seat 1) and Bob (seat 2) at a running buzzer quiz, and the host's console."""

    web: Web
    service: Service
    clock: ManualClock
    later: Later
    host: FlaskClient
    ann: FlaskClient
    bob: FlaskClient

    def command(self, name: str, **args: Any) -> dict[str, Any]:
        response = self.host.post("/api/commands", json={"name": name, "args": args})
        assert response.status_code == 200, response.get_json()
        return response.get_json()

    def arm(self, mode: str = "race") -> int:
        """Arm a round; the time it was armed at."""
        self.command("arm", mode=mode)
        assert game_view(self.service)["armed"] is not None
        return self.clock.now_us()

    def press(self, button: int) -> None:
        response = self.web.client().post("/api/buttons/press", json={"button": button})
        assert response.status_code == 200, response.get_json()

    def buzz(self, phone: FlaskClient) -> dict[str, Any]:
        response = phone.post("/api/buzz")
        assert response.status_code == 200, response.get_json()
        return response.get_json()

    def measure(self, phone: FlaskClient, seat: int, rtts_us: list[int]) -> None:
        """Round trips as the server times them: a ping goes out, the echo comes back rtt later."""
        for rtt in rtts_us:
            ping_id = self.service.buttons.phones.ping(seat)
            self.clock.advance(rtt)
            response = phone.post("/api/ping", json={"id": ping_id})
            assert response.status_code == 200, response.get_json()
            assert response.get_json()["rtt_us"] == rtt

    def at(self, t_us: int) -> None:
        """Move the clock to `t_us` on the host timeline (never back)."""
        assert t_us >= self.clock.now_us()
        self.clock.advance(t_us - self.clock.now_us())

    def host_buttons(self) -> dict[str, Any]:
        return self.host.get("/api/view?as=host").get_json()["buttons"]


def game_view(service: Service) -> dict[str, Any]:
    return service.table.view(TABLE)["game"]["view"]


def last_result(service: Service) -> dict[str, Any]:
    return game_view(service)["results"][0]


def start_quiz(host: FlaskClient, **options: Any) -> None:
    assert host.post("/api/commands", json={"name": "end_game"}).status_code == 200
    response = host.post("/api/commands", json={"name": "start_game",
                                                "args": {"game": "buzzer-quiz", "options": options}})
    assert response.status_code == 200, response.get_json()


@pytest.fixture
def quiz(web: Web, clock: ManualClock, later: Later) -> Quiz:
    ann, bob = web.join(1, "Ann"), web.join(2, "Bob")
    host = web.host()
    start_quiz(host)
    clock.advance(2_000_000)  # well after the dice tray ended: a press now is no late answer to it
    return Quiz(web, web.service, clock, later, host, ann, bob)


def refused(response, status: int, code: str) -> None:
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert body["ok"] is False and body["error"] == code, body
    assert body["message"] and code not in body["message"], "a sentence a person can read"


def reopen(config: Config, clock: ManualClock, seeds, later: Later) -> Service:
    later.pending.clear()  # the closed service's timers die with it
    return open_service(config, clock, seeds, scheduler=later, watch_health=False)


# -- pairing ---------------------------------------------------------------------------------------


def test_a_phone_pairs_its_button_with_the_next_press_kept_in_buttons_toml_across_a_restart(
        quiz: Quiz, config: Config, seeds, reopened: list[Service]) -> None:
    response = quiz.ann.post("/api/buttons/pair")
    assert response.get_json() == {"ok": True, "target": 1}
    assert quiz.ann.get("/api/view?as=me").get_json()["buttons"]["pairing"] == {"target": 1}
    assert quiz.web.client().get("/api/view").get_json()["buttons"]["pairing"] == {"target": 1}
    quiz.buzz(quiz.bob)  # a phone's buzzer is its seat's already: it never takes a pairing
    assert quiz.service.buttons.pairing is not None
    position = quiz.service.table.position

    quiz.press(7)
    assert quiz.service.table.position == position, "pairing is not game state"
    buttons = quiz.host_buttons()
    assert buttons["pairing"] is None
    assert buttons["pairs"] == {"simulated:7": 1}
    assert buttons["recent"][0]["button"] == "simulated:7" and buttons["recent"][0]["use"] == "paired"
    assert quiz.ann.get("/api/view?as=me").get_json()["buttons"]["you"]["buttons"] == ["simulated:7"]
    assert quiz.bob.get("/api/view?as=me").get_json()["buttons"]["you"]["buttons"] == []

    # The pairing press was not refereed: arming right after it finds no false start of Ann's.
    # (Bob's unmeasured phone is ±150 ms: 200 ms before the signal it was certainly early.)
    quiz.clock.advance(200_000)
    quiz.arm()
    quiz.clock.advance(WINDOW_US + 1)
    quiz.later.run()
    result = last_result(quiz.service)
    assert result["decision"]["outcome"] == "no_reaction"
    assert [f["who"] for f in result["decision"]["false_starts"]] == ["seat:2"], "only Bob's early buzz"

    path = config.data_dir / PAIRING_FILE
    assert ButtonMap.load(path).pairs == {"simulated:7": 1}
    assert not path.with_name(PAIRING_FILE + ".tmp").exists(), "written atomically, nothing left over"

    quiz.service.close()
    again = reopen(config, quiz.clock, seeds, quiz.later)
    reopened.append(again)
    assert again.buttons.pairs.pairs == {"simulated:7": 1}
    assert again.table.view(Viewer("seat", 1))["buttons"]["you"]["buttons"] == ["simulated:7"]
    # Button 7 now answers for Ann in a round of the reopened service.
    assert again.table.handle(HOST, Command("arm", {"mode": "race"})).ok
    quiz.clock.advance(300_000)
    again.buttons.press_simulated(7)
    quiz.clock.advance(10_000)
    quiz.later.run()
    assert again.table.view(TABLE)["game"]["view"]["results"][0]["winner"] == "seat:1"


def test_one_seat_pairs_at_a_time_and_only_its_own_cancel_stops_it(quiz: Quiz) -> None:
    assert quiz.ann.post("/api/buttons/pair").status_code == 200
    position = quiz.service.table.position
    refused(quiz.bob.post("/api/buttons/pair"), 409, "pairing_busy")
    assert quiz.ann.post("/api/buttons/pair").status_code == 200, "asking again only waits longer"
    assert quiz.bob.post("/api/buttons/cancel").status_code == 200
    assert quiz.service.buttons.pairing is not None, "Bob cannot cancel Ann's pairing"
    refused(quiz.web.client().post("/api/buttons/cancel"), 403, "no_seat")
    refused(quiz.web.client().post("/api/buttons/pair"), 403, "no_seat")
    assert quiz.service.buttons.pairing is not None

    assert quiz.ann.post("/api/buttons/cancel").status_code == 200
    assert quiz.web.client().get("/api/view").get_json()["buttons"]["pairing"] is None
    assert quiz.bob.post("/api/buttons/pair").get_json() == {"ok": True, "target": 2}
    quiz.press(4)
    assert quiz.service.buttons.pairs.pairs == {"simulated:4": 2}
    assert quiz.service.table.position == position


def test_pairing_waits_30_seconds_then_gives_up_on_every_screen(quiz: Quiz) -> None:
    assert quiz.ann.post("/api/buttons/pair").status_code == 200
    table = quiz.web.client()
    assert table.get("/api/view").get_json()["buttons"]["pairing"] == {"target": 1}
    quiz.clock.advance(PAIRING_WINDOW_US)
    quiz.service.buttons.check_health()
    assert table.get("/api/view").get_json()["buttons"]["pairing"] == {"target": 1}, "30 s exactly: still waits"
    quiz.clock.advance(1)
    quiz.service.buttons.check_health()
    assert table.get("/api/view").get_json()["buttons"]["pairing"] is None
    assert quiz.ann.get("/api/view?as=me").get_json()["buttons"]["pairing"] is None
    refused_pairing = quiz.bob.post("/api/buttons/pair")
    assert refused_pairing.status_code == 200, "the slot is free again"
    quiz.bob.post("/api/buttons/cancel")

    quiz.press(7)
    assert quiz.service.buttons.pairs.pairs == {}
    assert not (quiz.service.config.data_dir / PAIRING_FILE).exists()


def test_a_press_after_the_pairing_ran_out_is_not_taken_even_without_a_health_check(quiz: Quiz) -> None:
    assert quiz.ann.post("/api/buttons/pair").status_code == 200
    quiz.clock.advance(PAIRING_WINDOW_US + 1)
    quiz.press(7)
    assert quiz.service.buttons.pairs.pairs == {}
    assert quiz.host_buttons()["pairing"] is None


def test_the_host_pairs_a_seat_or_the_arm_button_which_then_arms_a_race(quiz: Quiz) -> None:
    assert quiz.host.post("/api/buttons/pair", json={"seat": 2}).get_json() == {"ok": True, "target": 2}
    quiz.press(9)
    assert quiz.host.post("/api/buttons/pair", json={"seat": "arm"}).get_json() == {"ok": True, "target": "arm"}
    quiz.press(12)
    assert quiz.service.buttons.pairs.pairs == {"simulated:9": 2, "simulated:12": "arm"}
    assert ButtonMap.load(quiz.service.config.data_dir / PAIRING_FILE).pairs == {"simulated:9": 2,
                                                                                  "simulated:12": "arm"}
    # A seat has one button: pairing it again moves it.
    assert quiz.host.post("/api/buttons/pair", json={"seat": 2}).status_code == 200
    quiz.press(10)
    assert quiz.service.buttons.pairs.pairs == {"simulated:10": 2, "simulated:12": "arm"}

    assert game_view(quiz.service)["armed"] is None
    quiz.press(12)
    armed = game_view(quiz.service)["armed"]
    assert armed is not None and armed["mode"] == "race"
    assert quiz.host_buttons()["recent"][0]["use"] == "arm"
    refused(quiz.host.post("/api/buttons/pair", json={"seat": 1}), 409, "round_in_progress")
    position = quiz.service.table.position
    quiz.press(12)  # armed already: refused by the game, nothing logged
    assert quiz.service.table.position == position

    quiz.clock.advance(200_000)
    quiz.press(10)  # Bob's button, now button 10
    quiz.clock.advance(3_000)
    quiz.later.run()
    assert last_result(quiz.service)["winner"] == "seat:2"


def test_the_host_must_name_a_seat_of_the_table_or_arm(quiz: Quiz) -> None:
    for body in (None, {}, {"seat": 0}, {"seat": 7}, {"seat": 99}, {"seat": True}, {"seat": "2"}, {"seat": 2.0},
                 {"seat": "ARM"}, [2]):
        kwargs: dict[str, Any] = {"data": "seat=2", "content_type": "text/plain"} if body is None else {"json": body}
        response = quiz.host.post("/api/buttons/pair", **kwargs)
        assert response.status_code == 400, body
        refused(response, 400, "bad_arguments")
        assert quiz.service.buttons.pairing is None


def test_a_player_unpairs_only_their_own_button(quiz: Quiz) -> None:
    for seat, button in ((1, 7), (2, 8)):
        assert quiz.host.post("/api/buttons/pair", json={"seat": seat}).status_code == 200
        quiz.press(button)
    path = quiz.service.config.data_dir / PAIRING_FILE
    both = {"simulated:7": 1, "simulated:8": 2}
    assert ButtonMap.load(path).pairs == both

    refused(quiz.bob.post("/api/buttons/unpair", json={"button": "simulated:7"}), 409, "unknown_button")
    refused(quiz.web.client().post("/api/buttons/unpair", json={"button": "simulated:7"}), 403, "no_seat")
    refused(quiz.ann.post("/api/buttons/unpair", json={"button": 7}), 400, "bad_arguments")
    refused(quiz.ann.post("/api/buttons/unpair", json={"button": "simulated:9"}), 409, "unknown_button")
    assert ButtonMap.load(path).pairs == both

    assert quiz.ann.post("/api/buttons/unpair", json={"button": "simulated:7"}).get_json() == {"ok": True}
    assert ButtonMap.load(path).pairs == {"simulated:8": 2}
    assert quiz.ann.get("/api/view?as=me").get_json()["buttons"]["you"]["buttons"] == []
    assert quiz.host.post("/api/buttons/unpair", json={"button": "simulated:8"}).get_json() == {"ok": True}
    assert ButtonMap.load(path).pairs == {}
    refused(quiz.host.post("/api/buttons/unpair", json={"button": "simulated:8"}), 409, "unknown_button")


def test_a_round_armed_while_a_seat_waits_to_pair_still_gets_its_presses(quiz: Quiz) -> None:
    """Ann asks to pair, then the host arms a round before she presses: Bob's slap is his answer,
    not Ann's new button (start_pairing refuses during a round for the same reason)."""
    assert quiz.host.post("/api/buttons/pair", json={"seat": 2}).status_code == 200
    quiz.press(8)
    assert quiz.ann.post("/api/buttons/pair").status_code == 200
    start = quiz.arm()
    quiz.clock.advance(200_000)
    quiz.press(8)
    quiz.clock.advance(3_000)
    quiz.later.run()
    assert quiz.service.buttons.pairs.pairs == {"simulated:8": 2}, "Bob keeps his button"
    result = last_result(quiz.service)
    assert result["winner"] == "seat:2"
    assert result["decision"]["order"][0]["t_us"] == start + 200_000
    assert quiz.host_buttons()["pairing"] == {"target": 1}, "Ann's pairing waits for the round to end"
    quiz.press(5)
    assert quiz.service.buttons.pairs.pairs == {"simulated:8": 2, "simulated:5": 1}


@pytest.mark.parametrize("text", [
    "[seats\n",
    '[seats]\n"gpio:17" = 0\n',
    '[seats]\n"gpio:17" = 14\n',
    '[seats]\n"gpio:17" = true\n',
    '[seats]\n"gpio:17" = "host"\n',
    '[seats]\n"GPIO 17" = 1\n',
    '[seats]\n"gpio:17\\n" = 1\n',
    'seats = 3\n',
    'owner = "me"\n[seats]\n',
    b"\xff\xfe[seats]\n",
])
def test_a_damaged_buttons_file_stops_the_start_naming_the_file(
        config: Config, clock: ManualClock, seeds, later: Later, reopened: list[Service], text: str | bytes) -> None:
    config.data_dir.mkdir(parents=True)
    path = config.data_dir / PAIRING_FILE
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        open_service(config, clock, seeds, scheduler=later, watch_health=False)
    assert str(caught.value).startswith(f"{path.resolve()}: ")
    assert path.read_bytes() == (text if isinstance(text, bytes) else text.encode()), "never rewritten"
    # Fixed by hand, the service starts (the failed start let go of the data folder).
    path.write_text('[seats]\n"gpio:17" = 3\n"gpio:27" = "arm"\n')
    reopened.append(open_service(config, clock, seeds, scheduler=later, watch_health=False))
    assert reopened[0].buttons.pairs.pairs == {"gpio:17": 3, "gpio:27": "arm"}


# -- unpaired buttons and who sees what ------------------------------------------------------------


def test_an_unpaired_button_is_counted_for_the_host_and_changes_nothing(quiz: Quiz) -> None:
    hub = quiz.service.buttons
    start = quiz.arm()
    position = quiz.service.table.position
    quiz.clock.advance(100_000)
    hub.on_press(Press("gpio:9", quiz.clock.now_us(), "gpio", 20))
    hub.on_press(Press("gpio:9", quiz.clock.now_us(), "gpio", 20))
    hub.on_press(Press("gpio:4", quiz.clock.now_us(), "gpio", 20))
    assert quiz.service.table.position == position

    buttons = quiz.host_buttons()
    assert buttons["unmapped"] == [{"button": "gpio:4", "count": 1}, {"button": "gpio:9", "count": 2}]
    assert [(r["button"], r["target"], r["use"]) for r in buttons["recent"][:3]] == [
        ("gpio:4", None, "unpaired"), ("gpio:9", None, "unpaired"), ("gpio:9", None, "unpaired")]

    quiz.at(start + WINDOW_US + 1)
    quiz.later.run()
    assert last_result(quiz.service)["decision"]["outcome"] == "no_reaction", "no seat pressed"

    # Paired, it is no longer unmapped.
    assert quiz.host.post("/api/buttons/pair", json={"seat": 2}).status_code == 200
    hub.on_press(Press("gpio:9", quiz.clock.now_us(), "gpio", 20))
    assert quiz.host_buttons()["unmapped"] == [{"button": "gpio:4", "count": 1}]


def test_only_the_host_sees_health_pairs_and_presses_and_a_seat_sees_only_its_own_part(quiz: Quiz) -> None:
    for seat, button in ((1, 7), (2, 8)):
        assert quiz.host.post("/api/buttons/pair", json={"seat": seat}).status_code == 200
        quiz.press(button)
    quiz.service.buttons.on_press(Press("gpio:9", quiz.clock.now_us(), "gpio", 20))
    quiz.measure(quiz.bob, 2, [30_000])

    host = quiz.host_buttons()
    assert all(key in host for key in HOST_ONLY)
    assert "you" not in host
    assert host["phone_precision"] == {"2": 15_000}, "each phone's precision, in whole ms"
    assert host["phone_timing"] == {"2": "arrival"}, "its page sent no clock readings: timed on arrival"

    table = quiz.web.client().get("/api/view").get_json()
    assert not set(HOST_ONLY) & set(table["buttons"])
    assert "you" not in table["buttons"]

    ann = quiz.ann.get("/api/view?as=me").get_json()["buttons"]
    assert not set(HOST_ONLY) & set(ann)
    assert ann["you"] == {"seat": 1, "buttons": ["simulated:7"], "phone_uncertainty_us": None}
    assert all(s["kind"] != "phone" for s in ann["sources"]), "other phones' precision is not Ann's business"
    text = quiz.ann.get("/api/view?as=me").get_data(as_text=True)
    assert "simulated:8" not in text and "gpio:9" not in text

    quiz.command("arm", mode="race")  # any change: Bob's view is built again
    bob = quiz.bob.get("/api/view?as=me").get_json()["buttons"]
    assert bob["you"] == {"seat": 2, "buttons": ["simulated:8"], "phone_uncertainty_us": 15_000}


# -- phone buzzers ---------------------------------------------------------------------------------


def test_a_buzz_is_moved_back_by_half_the_best_round_trip_and_as_vague_as_the_spread(quiz: Quiz) -> None:
    quiz.measure(quiz.ann, 1, [40_000, 70_000, 60_000])  # best 40 ms, median 60 ms
    start = quiz.arm()
    quiz.clock.advance(500_000)
    arrived = quiz.clock.now_us()
    answer = quiz.buzz(quiz.ann)
    assert answer == {"ok": True, "repeat": False, "uncertainty_us": 20_000 + 20_000, "method": "arrival",
                      "refused": ""}, "a buzz that says nothing of its tap is timed by its arrival"
    quiz.clock.advance(30_000)
    assert quiz.buzz(quiz.ann)["repeat"] is True, "a finger bouncing on glass is one press"

    quiz.at(start + WINDOW_US + 1)
    quiz.later.run()
    order = last_result(quiz.service)["decision"]["order"]
    assert len(order) == 1
    assert order[0]["who"] == "seat:1" and order[0]["source"] == "phone"
    assert order[0]["t_us"] == arrived - 20_000
    assert order[0]["after_arm_us"] == arrived - 20_000 - start
    assert order[0]["uncertainty_us"] == 40_000


def test_an_unmeasured_phone_is_stamped_on_arrival_and_vague(quiz: Quiz) -> None:
    start = quiz.arm()
    quiz.clock.advance(400_000)
    assert quiz.buzz(quiz.bob)["uncertainty_us"] == 150_000
    quiz.at(start + WINDOW_US + 1)
    quiz.later.run()
    (row,) = last_result(quiz.service)["decision"]["order"]
    assert (row["who"], row["after_arm_us"], row["uncertainty_us"]) == ("seat:2", 400_000, 150_000)


def test_a_new_phone_on_a_seat_is_measured_afresh(quiz: Quiz) -> None:
    """Ann's phone answered in 10 ms; she leaves and Cy sits down with a phone that needs 300 ms.
    Cy's buzzes must be corrected by Cy's delay, not by what Ann's phone once did."""
    quiz.measure(quiz.ann, 1, [10_000, 10_000])
    assert quiz.ann.post("/api/leave").status_code == 200
    cy = quiz.web.join(1, "Cy")
    assert quiz.service.buttons.phones.estimate(1) is None, "nothing measured of Cy's phone yet"
    quiz.measure(cy, 1, [300_000])
    start = quiz.arm()
    quiz.clock.advance(400_000)
    assert quiz.buzz(cy)["uncertainty_us"] == 150_000
    quiz.at(start + WINDOW_US + 1)
    quiz.later.run()
    (row,) = last_result(quiz.service)["decision"]["order"]
    assert (row["who"], row["after_arm_us"]) == ("seat:1", 400_000 - 150_000)

    # The host moves the seat to yet another phone: measured afresh too.
    quiz.measure(cy, 1, [300_000])
    url = quiz.host.post("/api/host/rebind", json={"seat": 1}).get_json()["url"]
    dee = quiz.web.client()
    assert dee.get(url.removeprefix(BASE)).status_code == 303
    assert quiz.service.buttons.phones.estimate(1) is None


def test_ping_ids_not_sent_to_this_phone_are_refused_and_change_nothing(quiz: Quiz) -> None:
    phones = quiz.service.buttons.phones
    position = quiz.service.table.position
    ann_ping = phones.ping(1)
    quiz.clock.advance(20_000)
    refused(quiz.bob.post("/api/ping", json={"id": ann_ping}), 409, "unknown_ping")  # another seat's
    refused(quiz.ann.post("/api/ping", json={"id": 987_654}), 409, "unknown_ping")  # forged
    refused(quiz.ann.post("/api/ping", json={"id": str(ann_ping)}), 409, "unknown_ping")
    refused(quiz.ann.post("/api/ping", json={"id": True}), 409, "unknown_ping")
    refused(quiz.ann.post("/api/ping", data="{", content_type="application/json"), 409, "unknown_ping")
    refused(quiz.web.client().post("/api/ping", json={"id": ann_ping}), 403, "no_seat")
    refused(quiz.host.post("/api/ping", json={"id": ann_ping}), 403, "no_seat")
    assert phones.estimate(1) is None and phones.estimate(2) is None

    assert quiz.ann.post("/api/ping", json={"id": ann_ping}).get_json() == {"ok": True, "rtt_us": 20_000}
    refused(quiz.ann.post("/api/ping", json={"id": ann_ping}), 409, "unknown_ping")  # replayed
    assert phones.estimate(1) == Estimate(10_000, 10_000), "one 20 ms round trip"

    late = phones.ping(1)
    quiz.clock.advance(10_000_001)
    refused(quiz.ann.post("/api/ping", json={"id": late}), 409, "unknown_ping")  # a sleeping phone
    assert phones.estimate(1) == Estimate(10_000, 10_000), "one 20 ms round trip"
    assert quiz.service.table.position == position


def test_a_buzz_needs_a_seat_in_a_game_that_uses_buzzers(web: Web) -> None:
    ann, bob = web.join(1, "Ann"), web.join(2, "Bob")
    host = web.host()
    position = web.service.table.position
    refused(ann.post("/api/buzz"), 409, "no_buzzers")  # the dice tray
    refused(web.client().post("/api/buzz"), 403, "no_seat")
    refused(host.post("/api/buzz"), 403, "no_seat")
    assert web.service.table.position == position
    assert list(web.service.buttons.recent) == []

    start_quiz(host)
    assert bob.post("/api/buzz").status_code == 200
    refused(web.client().post("/api/buzz"), 403, "no_seat")
    assert [r.button for r in web.service.buttons.recent] == ["phone:2"]


def test_a_slow_phone_that_pressed_first_is_not_beaten_by_a_fast_phone_that_arrived_first(quiz: Quiz) -> None:
    """Pages that say nothing of their taps, timed by arrival. Ann's phone takes 200 ms there and
    back, Bob's 20 ms. Ann presses at +290 ms (arrives at +390), Bob at +300 ms (arrives at +310).
    By arrival Bob wins; corrected, Ann is first, and within their uncertainties it is a tie:
    settled by the table's rule, not by the network."""
    quiz.measure(quiz.ann, 1, [200_000])
    quiz.measure(quiz.bob, 2, [20_000])
    start = quiz.arm()
    quiz.at(start + 310_000)
    assert quiz.buzz(quiz.bob)["uncertainty_us"] == 10_000
    # The round waits for Ann's phone while a press of hers that would come first may still be on
    # its way (her slowest round trip and a stall after Bob's press).
    quiz.at(start + 389_000)
    quiz.later.run()
    assert game_view(quiz.service)["armed"] is not None, "Ann's buzz may still be on its way"
    quiz.at(start + 390_000)
    assert quiz.buzz(quiz.ann)["uncertainty_us"] == 100_000
    # Everyone pressed: the decision comes the quiz's grace after the first press and its bound.
    quiz.later.run()
    quiz.at(start + 290_000 + 2_000 + 100_000 - 1)
    quiz.later.run()
    assert game_view(quiz.service)["armed"] is not None, "not before the first press + grace + its bound"
    quiz.clock.advance(1)
    quiz.later.run()
    result = last_result(quiz.service)
    decision = result["decision"]
    assert [(r["who"], r["after_arm_us"]) for r in decision["order"]] == [("seat:1", 290_000), ("seat:2", 300_000)]
    assert decision["outcome"] == "tie"
    assert decision["tied_first"] == ["seat:1", "seat:2"]
    assert result["drawn_from"] == ["seat:1", "seat:2"]


def test_a_phone_that_may_still_buzz_first_holds_the_decision_no_longer_than_its_bound(quiz: Quiz) -> None:
    """Ann's page answers pings but never buzzes: the decision waits for her phone after Bob's press
    (her slowest round trip and a stall), then comes without her."""
    quiz.measure(quiz.ann, 1, [30_000, 50_000])
    quiz.measure(quiz.bob, 2, [20_000])
    start = quiz.arm()
    quiz.at(start + 310_000)
    quiz.buzz(quiz.bob)  # +300 ms ±10 ms
    due = start + 300_000 + 10_000 + 50_000 + STALL_ALLOWANCE_US
    quiz.at(due - 1)
    quiz.later.run()
    assert game_view(quiz.service)["armed"] is not None
    quiz.at(due)
    quiz.later.run()
    assert last_result(quiz.service)["winner"] == "seat:2"

    # Ann's page closes: it answers no ping any more, and six seconds on no decision waits for it.
    quiz.clock.advance(6_000_001)
    quiz.measure(quiz.bob, 2, [20_000])
    start = quiz.arm()
    quiz.at(start + 310_000)
    quiz.buzz(quiz.bob)
    quiz.at(start + 300_000 + 2_000 + 10_000)
    quiz.later.run()
    assert last_result(quiz.service)["round"] == 2, "decided the quiz's grace after Bob's press and its bound"


def test_phone_presses_further_apart_than_their_uncertainty_have_a_winner_and_closer_ones_tie(
        quiz: Quiz) -> None:
    """Pages timed by arrival. Bob's phone takes 20 ms there and back (±10 ms), Ann's 2 ms (±1 ms):
    presses 11 ms apart or less are too close to call. Bob presses at +300 ms each time; the round
    is decided as soon as both pressed (the quiz's 2 ms grace and Bob's bound are past by then)."""
    quiz.measure(quiz.ann, 1, [2_000])
    quiz.measure(quiz.bob, 2, [20_000])
    for ann_arrives, outcome in ((312_000, "tie"), (313_000, "winner")):
        start = quiz.arm()
        quiz.at(start + 310_000)
        quiz.buzz(quiz.bob)
        quiz.later.run()
        quiz.at(start + ann_arrives - 1)
        quiz.later.run()
        assert game_view(quiz.service)["armed"] is not None, "Ann's phone may still buzz first"
        quiz.clock.advance(1)
        quiz.buzz(quiz.ann)  # both pressed, and Bob's press, its bound and the grace are past
        quiz.later.run()
        decision = last_result(quiz.service)["decision"]
        gap = ann_arrives - 1_000 - 300_000
        assert [(r["who"], r["gap_us"]) for r in decision["order"]] == [("seat:2", 0), ("seat:1", gap)]
        assert decision["outcome"] == outcome, gap
        if outcome == "tie":
            assert decision["tied_first"] == ["seat:2", "seat:1"]
        else:
            assert decision["winner"] == "seat:2"
        quiz.clock.advance(2_000_000)


PAGE_LOADED_US = -60_000_000
"""When the phones' pages loaded, on the host timeline: their clocks read from there."""


def map_clock(quiz: Quiz, phone: FlaskClient, seat: int, one_way_us: int = 3_000, pings: int = 6) -> None:
    """Round trips whose echoes carry the page's clock reading (ms since it loaded), as a page's do."""
    quiz.service.buttons.check_health()
    for _ in range(pings):
        ping_id = quiz.service.buttons.phones.ping(seat)
        quiz.clock.advance(one_way_us)
        reading = page_ms(quiz)
        quiz.clock.advance(one_way_us)
        assert phone.post("/api/ping", json={"id": ping_id, "t": reading}).status_code == 200
        quiz.clock.advance(200_000)
    quiz.service.buttons.check_health()  # as the hub's watcher does every second: the pages hear of it
    assert quiz.host_buttons()["phone_timing"][str(seat)] == "mapped"


def page_ms(quiz: Quiz, at_us: int | None = None) -> float:
    return ((quiz.clock.now_us() if at_us is None else at_us) - PAGE_LOADED_US) / 1000


def test_a_buzz_is_its_tap_on_the_pages_clock_mapped_whenever_its_request_arrives(quiz: Quiz) -> None:
    """Ann's page says she tapped 180 ms after the frame that lit her buzzer; her request then
    stalls 200 ms. Her press is her reaction, ±2 ms, whatever the stall."""
    map_clock(quiz, quiz.ann, 1)
    start = quiz.arm()
    shown = start + 20_000
    quiz.at(start + 200_000 + 200_000)
    answer = quiz.ann.post("/api/buzz", json={"tap": page_ms(quiz, shown + 180_000), "round": 1,
                                              "shown": page_ms(quiz, shown)}).get_json()
    assert (answer["method"], answer["refused"]) == ("mapped", "")
    quiz.at(start + WINDOW_US + 1)
    quiz.later.run()
    (row,) = last_result(quiz.service)["decision"]["order"]
    # ±2 ms, and what a clock up to 2000 ppm off makes of 180 ms.
    assert row["method"] == "reaction" and row["uncertainty_us"] == 2_000 + 360
    assert abs(row["after_arm_us"] - 180_000) <= row["uncertainty_us"], row


@pytest.mark.parametrize(("claim", "refused"), [
    (lambda now: {"tap": page_ms_at(now + 50_000)}, "tap_after_arrival"),
    (lambda now: {"tap": page_ms_at(now - 5_000_000)}, "tap_too_old"),
    (lambda now: {"tap": page_ms_at(now - 10_000), "round": 1, "shown": page_ms_at(now - 5_000)}, "shown_after_tap"),
])
def test_a_tap_time_physics_rules_out_is_refused_logged_and_the_buzz_timed_by_arrival(
        quiz: Quiz, claim, refused: str, caplog: pytest.LogCaptureFixture) -> None:
    map_clock(quiz, quiz.ann, 1)
    quiz.arm()
    quiz.clock.advance(300_000)
    with caplog.at_level(logging.WARNING):
        answer = quiz.ann.post("/api/buzz", json=claim(quiz.clock.now_us())).get_json()
    assert (answer["ok"], answer["method"], answer["refused"]) == (True, "arrival", refused)
    assert any(refused in message for message in caplog.messages), "the refusal is logged"
    assert quiz.host_buttons()["phone_timing"]["1"] == "arrival", "its clock is distrusted until mapped again"
    map_clock(quiz, quiz.ann, 1)


def page_ms_at(at_us: int) -> float:
    return (at_us - PAGE_LOADED_US) / 1000


@pytest.mark.parametrize("body", [{"tap": "soon"}, {"tap": -1}, {"tap": 1e300}, {"tap": True},
                                  {"tap": 5.0, "shown": 4.0}, {"tap": 5.0, "round": "one"},
                                  {"tap": 5.0, "round": 1, "shown": "x"}])
def test_a_malformed_buzz_is_refused_and_changes_nothing(quiz: Quiz, body: dict[str, Any]) -> None:
    quiz.arm()
    position = quiz.service.table.position
    refused(quiz.ann.post("/api/buzz", json=body), 400, "bad_arguments")
    assert quiz.host_buttons()["recent"] == [], "no press recorded"
    assert quiz.service.table.position == position


# -- the stream ------------------------------------------------------------------------------------


def stream_chunks(client: FlaskClient, role: str, count: int) -> list[str]:
    """The first `count` messages of a stream (a heartbeat comes every 50 ms)."""
    response = client.get(f"/api/stream?as={role}", buffered=False)
    assert response.status_code == 200
    chunks: list[str] = []
    try:
        for chunk in response.response:
            chunks.append(chunk.decode() if isinstance(chunk, bytes) else chunk)
            if len(chunks) >= count:
                break
    finally:
        response.close()
    return chunks


def pings_in(chunks: list[str]) -> list[int]:
    """The ping ids among the events of these chunks (a chunk may hold several events)."""
    events = [event for chunk in chunks for event in chunk.split("\n\n")]
    return [int(e.split("data: ", 1)[1]) for e in events if e.startswith("event: ping\n")]


def test_a_seated_phones_stream_carries_pings_while_the_quiz_runs(web: Web) -> None:
    ann, _bob = web.join(1, "Ann"), web.join(2, "Bob")
    host = web.host()
    assert pings_in(stream_chunks(ann, "me", 5)) == [], "the dice tray has no buzzers"

    start_quiz(host)
    pings = pings_in(stream_chunks(ann, "me", 3))
    assert len(pings) == 1
    echo = ann.post("/api/ping", json={"id": pings[0]})
    assert echo.status_code == 200, "the id on the stream is the one the echo must carry"
    assert web.service.buttons.phones.estimate(1) is not None
    assert pings_in(stream_chunks(host, "host", 4)) == []
    # The table display's clock is mapped too (the frame in which it shows a signal is the arm):
    # its pings are answered by whoever got them, as no seat is named.
    display = web.client()
    response = display.get("/api/stream?as=table", buffered=False)
    try:
        chunks = response.response
        display_ping = next(p for p in (pings_in([c.decode() if isinstance(c, bytes) else c]) for c in chunks) if p)[0]
        assert display.post("/api/ping", json={"id": display_ping, "t": 1234.5}).status_code == 200
    finally:
        response.close()
    # Its stream closed: its ids went with its link and name no screen, and the display holds no seat.
    refused(display.post("/api/ping", json={"id": display_ping}), 403, "no_seat")
    refused(ann.post("/api/ping", json={"id": pings[0]}), 409, "unknown_ping")  # replayed


# -- simulated presses and a GPIO box that will not open -------------------------------------------


@pytest.mark.filterwarnings("ignore:Falling back from")
def test_without_simulated_buttons_a_broken_gpio_box_is_reported_and_phones_still_buzz(
        tmp_path: Path, clock: ManualClock, seeds, later: Later, monkeypatch) -> None:
    from gpiozero import Device
    from gpiozero.exc import BadPinFactory

    def no_chip() -> None:
        raise BadPinFactory("Unable to load any default pin factory!")

    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(no_chip))
    config = load_config(None, {"data.dir": str(tmp_path / "gpio-data"), "buttons.source": "gpio",
                                "buttons.gpio_pins": [17]})
    svc = open_service(config, clock, seeds, scheduler=later, watch_health=False)
    try:
        web = Web(create_app(svc, BASE, {"TESTING": True}), svc)
        sources = web.client().get("/api/status").get_json()["buzzers"]
        assert [(s["name"], s["healthy"]) for s in sources] == [("gpio", False), ("phone", True)]
        assert "GPIO unavailable" in sources[0]["detail"] and "pin factory" in sources[0]["detail"]
        host = web.host()
        assert host.get("/api/view?as=host").get_json()["buttons"]["simulated"] == 0
        refused(web.client().post("/api/buttons/press", json={"button": 1}), 409, "no_simulated_buttons")
        refused(host.post("/api/buttons/pair", json={"seat": 1}), 409, "no_buttons")

        ann, bob = web.join(1, "Ann"), web.join(2, "Bob")
        assert host.post("/api/commands", json={"name": "start_game", "args": {"game": "buzzer-quiz"}}).status_code \
            == 200
        assert host.post("/api/commands", json={"name": "arm", "args": {"mode": "race"}}).status_code == 200
        clock.advance(250_000)
        assert bob.post("/api/buzz").status_code == 200
        clock.advance(200_000)
        assert ann.post("/api/buzz").status_code == 200
        clock.advance(WINDOW_US)
        later.run()
        assert svc.table.view(TABLE)["game"]["view"]["results"][0]["winner"] == "seat:2"
    finally:
        svc.close()


# -- a round that outlives a restart ---------------------------------------------------------------


@pytest.mark.parametrize("comes_back", ["after the window", "after a reboot (new timeline)"])
def test_a_round_armed_before_a_restart_is_settled_at_once_when_its_window_is_over(
        quiz: Quiz, config: Config, seeds, reopened: list[Service], comes_back: str) -> None:
    quiz.arm()
    quiz.clock.advance(100_000)
    quiz.press(1)  # lost with the restart
    game_id = quiz.service.table.run.game_id  # type: ignore[union-attr]
    quiz.service.close()
    if comes_back == "after the window":
        quiz.clock.advance(WINDOW_US)
    else:
        quiz.clock.us = 2_000  # the monotonic clock starts again near zero
    again = reopen(config, quiz.clock, seeds, quiz.later)
    reopened.append(again)
    view = again.table.view(TABLE)["game"]["view"]
    assert view["armed"] is None, "settled during the start, no timer needed"
    assert view["results"][0]["decision"]["outcome"] == "no_reaction"
    settled = again.store.read(game_id)[-1]
    assert settled.type == "round_settled" and settled.actor == "system"
    assert again.buttons.keeper.round is None
    assert again.table.handle(HOST, Command("arm", {"mode": "race"})).ok, "the next round can start"


def test_a_round_armed_before_a_restart_still_counts_presses_inside_its_window(
        quiz: Quiz, config: Config, seeds, reopened: list[Service]) -> None:
    start = quiz.arm()
    quiz.service.close()
    quiz.at(start + 1_000_000)
    again = reopen(config, quiz.clock, seeds, quiz.later)
    reopened.append(again)
    assert again.table.view(TABLE)["game"]["view"]["armed"] is not None
    quiz.later.run()
    assert again.table.view(TABLE)["game"]["view"]["armed"] is not None, "not due yet"
    quiz.clock.advance(500_000)
    again.buttons.press_simulated(2)
    quiz.clock.advance(3_000)
    quiz.later.run()
    result = again.table.view(TABLE)["game"]["view"]["results"][0]
    assert result["winner"] == "seat:2"
    assert result["decision"]["order"][0]["after_arm_us"] == 1_500_000


# -- bad input and forged origins ------------------------------------------------------------------


def test_a_malformed_simulated_press_is_refused_clearly_and_changes_nothing(quiz: Quiz) -> None:
    start = quiz.arm()
    position = quiz.service.table.position
    malformed: list[dict[str, Any]] = [
        {"data": "button=7", "content_type": "application/x-www-form-urlencoded"},
        {"data": "{7", "content_type": "application/json"},
        {"json": [7]},
        {"json": {}},
        {"json": {"button": True}},
        {"json": {"button": "7"}},
        {"json": {"button": 7.0}},
        {"json": {"button": 0}},
        {"json": {"button": 14}},
        {"json": {"button": 99}},
        {"json": {"button": -1}},
        {"json": {"button": None}},
    ]
    for kwargs in malformed:
        response = quiz.web.client().post("/api/buttons/press", **kwargs)
        assert response.status_code == 400, kwargs
        refused(response, 400, "bad_arguments")
        assert response.get_json()["params"] == {"detail": "button 1-13"}
    assert quiz.service.table.position == position
    assert list(quiz.service.buttons.recent) == []
    quiz.at(start + WINDOW_US + 1)
    quiz.later.run()
    assert last_result(quiz.service)["decision"]["outcome"] == "no_reaction"


@pytest.mark.parametrize("path", BUTTON_ROUTES)
def test_forged_origins_are_refused_on_every_button_route(quiz: Quiz, path: str) -> None:
    body: dict[str, Any] = {"button": 3, "seat": 1, "id": quiz.service.buttons.phones.ping(1)}
    if path == "/api/buttons/unpair":
        body["button"] = "simulated:3"
    quiz.service.buttons.pairs.pair("simulated:3", 1)
    quiz.service.buttons.start_pairing(2)
    position = quiz.service.table.position
    for who, client in (("ann", quiz.ann), ("host", quiz.host), ("table", quiz.web.client())):
        for headers in (EVIL, {"Origin": "null"}, {"Origin": "http://localhost:9999"}, {"Host": "evil.example"}):
            response = client.post(path, json=body, headers=headers)
            assert response.status_code == 403, (who, headers)
            refused(response, 403, "forbidden_origin")
    assert quiz.service.table.position == position
    assert quiz.service.buttons.pairs.pairs == {"simulated:3": 1}
    assert quiz.service.buttons.pairing is not None and quiz.service.buttons.pairing[0] == 2
    assert list(quiz.service.buttons.recent) == []
    assert quiz.service.buttons.phones.estimate(1) is None


def test_the_companions_own_pages_pass_the_origin_check(quiz: Quiz) -> None:
    assert quiz.web.client().post("/api/buttons/press", json={"button": 3}, headers=OWN).status_code == 200
    assert quiz.ann.post("/api/buttons/pair", headers=OWN).status_code == 200
    assert quiz.ann.post("/api/buttons/cancel", headers=OWN).status_code == 200
    assert quiz.bob.post("/api/buzz", headers=OWN).status_code == 200


def test_a_round_due_while_the_table_is_paused_is_still_settled(quiz: Quiz) -> None:
    quiz.arm()
    quiz.clock.advance(300_000)
    quiz.press(2)
    quiz.command("pause")
    quiz.clock.advance(10_000)
    quiz.later.run()
    assert last_result(quiz.service)["winner"] == "seat:2", "the referee saw it before the pause"
    assert game_view(quiz.service)["armed"] is None


def test_a_button_of_an_empty_seat_wins_nothing(quiz: Quiz) -> None:
    quiz.arm()
    quiz.clock.advance(200_000)
    quiz.press(5)  # nobody sits at seat 5
    quiz.clock.advance(300_000)
    quiz.press(1)
    quiz.clock.advance(10_000)
    quiz.later.run()
    assert last_result(quiz.service)["winner"] == "seat:1"
    assert quiz.host_buttons()["recent"][1]["use"] == "not_playing"


def test_only_the_host_reads_per_pin_health_in_the_status(quiz: Quiz) -> None:
    public = quiz.web.client().get("/api/status").get_json()["buzzers"]
    assert all("buttons" not in source for source in public)
    private = quiz.host.get("/api/status").get_json()["buzzers"]
    assert all("buttons" in source for source in private)


def test_a_pairing_that_cannot_be_saved_is_reported_and_the_old_map_kept(quiz: Quiz, monkeypatch) -> None:
    def full_disk(pairs) -> None:
        raise OSError(28, "No space left on device")

    hub = quiz.service.buttons
    assert quiz.ann.post("/api/buttons/pair").status_code == 200
    monkeypatch.setattr(hub.pairs, "save", full_disk)
    quiz.press(7)
    assert hub.pairs.pairs == {}, "nothing half-written"
    buttons = quiz.host_buttons()
    assert "No space left on device" in buttons["problem"]
    assert buttons["recent"][0]["use"] == "unpaired"


@dataclass
class LampBox:
    """A buzzer box's lamps and beeper, as the lamp driver drives them."""

    name: str = "box"
    lamps: list[tuple[int, int]] = field(default_factory=list)
    beeps: list[tuple[int, int]] = field(default_factory=list)

    def set_lamps(self, on: int, blink: int) -> None:
        self.lamps.append((on, blink))

    def beep(self, freq_hz: int, duration_ms: int) -> None:
        self.beeps.append((freq_hz, duration_ms))


def test_a_box_lights_the_winners_lamp_blinks_false_starts_and_shows_hands_off_on_every_lamp(
        quiz: Quiz) -> None:
    box = LampBox()
    quiz.service.buttons.lamps.sources.append(box)
    # Ann's slap pad is the box's button 3 (lamp 3 beside it), Bob's button 6; the simulated
    # buttons 1 and 2 are also theirs (no pairing needed).
    quiz.service.buttons.pairs.pair("box:3", 1)
    quiz.service.buttons.pairs.pair("box:6", 2)
    quiz.press(2)  # Bob too early
    quiz.clock.advance(100_000)
    quiz.arm()
    assert box.lamps[-1] == (0, 0), "a race starts dark"
    quiz.clock.advance(180_000)
    quiz.press(1)
    quiz.clock.advance(3_000)
    quiz.later.run()
    assert last_result(quiz.service)["winner"] == "seat:1"
    assert box.lamps[-1] == (0b100, 0b100000), "Ann's lamp lit, Bob's blinking"
    assert box.beeps[-1][0] > 1_000, "a high beep for a winner"

    quiz.clock.advance(2_000_000)
    quiz.arm("hands_off")
    assert box.lamps[-1] == (0xFF, 0), "hands off: every lamp lit"
    quiz.clock.advance(500_000)
    quiz.press(2)
    quiz.at(quiz.clock.now_us() + WINDOW_US)
    quiz.later.run()
    assert box.lamps[-1] == (0, 0b100000), "Bob's fault blinks"
    assert box.beeps[-1][0] < 1_000, "a low beep for a fault"


def test_the_answer_to_starting_a_buzzer_game_already_shows_the_phones_buzzers(service: Service) -> None:
    """The host's own answer is built before the change is published: it must not show the buttons
    as they were before the command (no phone buzzers while the game that has them is running)."""
    table = service.table
    for seat, name in ((1, "Ann"), (2, "Bob")):
        assert table.handle(HOST, Command("claim_seat", {"seat": seat, "name": name})).ok
    if table.run is not None and not table.run.ended:
        assert table.handle(HOST, Command("end_game")).ok
    assert table.view(HOST)["buttons"]["phones"] is False
    started = table.handle(HOST, Command("start_game", {"game": "buzzer-quiz"}), with_view=True)
    assert started.ok and started.view is not None
    assert started.view["buttons"]["phones"] is True


def test_the_first_view_that_shows_an_armed_round_names_it(quiz: Quiz) -> None:
    """Screens are told of a change only once everything it moves is in the views: a phone whose
    buzzer lights up stamps its tap with the round it shows, so the arm and the round's number
    must arrive together."""
    seen: list[Any] = []
    table = quiz.service.table

    def on_change() -> None:
        seen.append((table.position, table.view(Viewer("seat", 1))["buttons"]["round"]))

    table.broadcaster.listen(on_change)
    quiz.arm()
    armed_at = table.position
    number = quiz.service.buttons.keeper.round
    assert number is not None
    assert [round_ for position, round_ in seen if position >= armed_at] and \
        all(round_ == number for position, round_ in seen if position >= armed_at), seen


def test_the_hosts_screens_show_the_round_an_arm_opened_though_its_answer_was_built_before(quiz: Quiz) -> None:
    """The host's answer to arming is built before the round keeper opens the round; the host's
    screens, pushed after it, must show the round, not the answer's view from before it."""
    table = quiz.service.table
    armed = table.handle(HOST, Command("arm", {"mode": "race"}), with_view=True)
    assert armed.ok and armed.view is not None
    number = quiz.service.buttons.keeper.round
    assert number is not None
    assert table.view(HOST)["buttons"]["round"] == number
    assert table.view(Viewer("seat", 1))["buttons"]["round"] == number
