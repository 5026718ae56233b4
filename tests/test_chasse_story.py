"""An evening of La chasse au vampire through the service (its log, its timekeeper, its views): a
bite answered by garlic, a transfusion completed before nightfall, one that runs out when the glass
turns over by itself, and the stake deposited in the crypt. Each step says what every screen
shows; no view ever holds a card of a stack. (tests/test_browser_chasse_story.py plays the same
evening on the TV and four phones.)"""

from __future__ import annotations

from typing import Any

from companion.config import Config
from companion.games.base import HOST, TABLE, Command, Viewer, seat
from companion.games.chasse.rules import GAME_ID
from companion.service import Service, open_service
from tests.conftest import Later, ManualClock
from tests.support.chasse_story import Cast, cast_of

PLAYERS = ("Zoé", "Bruno", "Chloé", "Dmitri")
DEALS = 3000


def shown(service: Service, viewer: Viewer = TABLE) -> dict[str, Any]:
    return dict(service.table.view(viewer)["game"]["view"])


def act(service: Service, who: Viewer, command: str, **args: Any) -> list[str]:
    outcome = service.table.handle(who, Command(command, args))
    assert outcome.ok, (who, command, args, outcome.rejection)
    return [e.type for e in outcome.events]


def deal_the_evening(service: Service) -> Cast:
    """The host starts the game again until the deal allows the evening (see chasse_story)."""
    for _ in range(DEALS):
        run = service.table.run
        if run is not None and not run.ended:
            act(service, HOST, "end_game")
        act(service, HOST, "start_game", game=GAME_ID, options={"board_mode": "own"})
        while shown(service)["phase"] == "start_roll":
            act(service, TABLE, "roll")
        state = service.table.run.state  # type: ignore[union-attr]  # the test's god's eye
        cards = [{"kind": c.kind, "group": c.group} for c in state.cards]
        cast = cast_of(state.options, cards, {p.seat: p.stack for p in state.travellers()}, state.master)
        if cast is not None:
            return cast
    raise AssertionError(f"no deal in {DEALS} allowed the evening")


def turn(service: Service, who: int, place: str, bite: int | None = None) -> list[str]:
    """Everyone before `who` rolls and stops elsewhere; then `who` rolls and stops at `place`."""
    while shown(service)["current"] != who:
        current = shown(service)["current"]
        act(service, seat(current), "roll")
        act(service, seat(current), "stop", place="elsewhere")
    act(service, seat(who), "roll")
    return act(service, seat(who), "stop", place=place, **({"bite": bite} if bite else {}))


def test_an_evening_garlic_a_saved_traveller_one_lost_at_nightfall_and_the_stake(
        config: Config, clock: ManualClock, seeds, later: Later) -> None:
    service = open_service(config, clock, seeds, scheduler=later, watch_health=False)
    try:
        for number, name in enumerate(PLAYERS, start=1):
            act(service, HOST, "claim_seat", seat=number, name=name)
        cast = deal_the_evening(service)
        # The master plays first while the travellers are still in the inn (C-S4), where no vampire
        # goes; its next move bites G, whose top card, garlic, shows on every screen: to the cemetery.
        turn(service, cast.master, "elsewhere")
        events = turn(service, cast.master, "elsewhere", bite=cast.garlic)
        assert "bite_answered" in events and "vampire_sent" in events
        table = shown(service)
        assert table["revealed"] == {"seat": cast.garlic, "why": "riposte", "by": cast.master,
                                     "kind": "garlic", "group": None, "effect": "repelled"}
        assert next(p for p in table["players"] if p["seat"] == cast.master)["place"] == "cemetery"
        # B is bitten: blood. G volunteers, is told "compatible"; both reach the Doctor's House.
        assert "transfusion_needed" in turn(service, cast.master, "elsewhere", bite=cast.saved)
        assert act(service, seat(cast.garlic), "offer_blood", victim=cast.saved) == ["blood_offered"]
        assert shown(service)["transfusions"][0]["donor"] == cast.garlic
        done = turn(service, cast.garlic, "doctor") + turn(service, cast.saved, "doctor")
        assert "transfusion_done" in done and shown(service)["transfusions"] == []
        # C is bitten: blood; nobody gives before the glass runs out.
        assert "transfusion_needed" in turn(service, cast.master, "elsewhere", bite=cast.lost)
        glass = shown(service)["glass"]
        assert glass["side"] == "day" and glass["running"]
        clock.us = glass["ends_us"] - 1
        later.run()
        assert shown(service)["glass"]["side"] == "day", "not a microsecond early"
        clock.us = glass["ends_us"]
        later.run()
        night = shown(service)
        assert night["glass"]["side"] == "night" and night["glass"]["turns"] == 1
        assert next(p for p in night["players"] if p["seat"] == cast.lost)["role"] == "disciple"
        told = [h["kind"] for h in night["happenings"]]
        assert told.index("converted") < told.index("transfusion_failed") < told.index("glass_turned"), told
        # B deposits its top card in the crypt: the stake. The travellers win together.
        events = turn(service, cast.saved, "crypt")
        assert "card_deposited" in events and "game_won" in events
        over = shown(service)
        assert over["winner"] == "travellers" and sorted(over["winners"]) == sorted([cast.garlic, cast.saved])
        for viewer in (TABLE, HOST, *(seat(n) for n in range(1, 5))):
            body = str(service.table.view(viewer))
            assert "card-" not in body, "no view ever names a card"
    finally:
        service.close()
