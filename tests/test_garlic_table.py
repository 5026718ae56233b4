"""The table around the garlic game: it ends the game the rules ended (the seed revealed, so the
export verifies, and a changed die face does not), and it offers the host the options of the last
game of each kind, a counted deck included, across a restart."""

from __future__ import annotations

import copy
from typing import Any

from companion.config import Config
from companion.games.base import HOST, TABLE, Command, seat
from companion.games.garlic.options import COMBINATIONS
from companion.games.garlic.state import GarlicState
from companion.games.registry import GAMES
from companion.server import create_app
from companion.service import Service, open_service
from companion.table.export import export_game
from companion.table.verify import verify_export
from tests.conftest import Later, ManualClock
from tests.support.web import BASE, Web
from tests.test_verify import rehashed

YELLOW_BATS = {**dict.fromkeys(COMBINATIONS, 0), "yellow-bat": 30}
COUNTED = {"yellow-bat": 8, "yellow-moon": 7, "yellow-skull": 6, "violet-bat": 7, "violet-moon": 7,
           "violet-skull": 8}
"""An owner's count of their real box (43 cards)."""


def garlic_state(service: Service) -> GarlicState:
    run = service.table.run
    assert run is not None
    return run.state


def play_to_a_win(service: Service, clock: ManualClock, later: Later) -> str:
    """Ann and Bob; one coffin wins. Ann slaps every yellow roll (the deck is all yellow bats):
    she turns a card face down, then clears it. Violet rolls pass with nobody slapping."""
    for number, name in ((1, "Ann"), (2, "Bob")):
        assert service.table.handle(HOST, Command("claim_seat", {"seat": number, "name": name})).ok
    assert service.table.handle(HOST, Command("start_game", {"game": "garlic-slap", "options": {
        "deck": YELLOW_BATS, "colour_die": ["yellow", "violet"], "symbol_die": ["bat", "bat"],
        "coffins_to_win": 1}})).ok
    run = service.table.run
    assert run is not None
    claims = [{"kind": "own_up", "slot": 0}, {"kind": "own_down", "slot": 0}]
    roller = seat(2)
    for _ in range(60):
        assert service.table.handle(roller, Command("roll")).ok
        roller = TABLE
        dice = garlic_state(service).dice
        assert dice is not None
        if dice.colour == "violet":
            clock.advance(5_000_000)
            later.run()
            assert garlic_state(service).phase == "roll"
            continue
        clock.advance(300_000)
        service.buttons.press_simulated(1)
        clock.advance(50_000)
        later.run()
        assert garlic_state(service).phase == "claim"
        assert service.table.handle(seat(1), Command("claim", claims.pop(0))).ok
        if not claims:
            return run.game_id
    raise AssertionError("the dice never showed yellow twice")


def test_the_table_ends_a_game_its_rules_ended_and_the_export_verifies(
        service: Service, clock: ManualClock, later: Later) -> None:
    game_id = play_to_a_win(service, clock, later)
    run = service.table.run
    assert run is not None and run.ended and run.seed_revealed
    state = garlic_state(service)
    assert (state.phase, state.winner) == ("over", 1)
    events = service.store.read(game_id)
    assert [e.type for e in events[-4:]] == ["card_cleared", "game_won", "game_ended", "seed_revealed"]
    assert events[-2].data == {"reason": "rules"}
    assert events[-1].data == {"seed": run.seed.hex()}
    assert service.table.view(TABLE)["game"]["ended"] is True
    refused = service.table.handle(TABLE, Command("roll"))
    assert refused.rejection is not None and refused.rejection.code == "game_over"
    assert service.table.handle(HOST, Command("end_game")).rejection is not None, "already over"

    export = export_game(service.store, game_id, clock.wall_ms())
    assert export is not None and export["chain"] == "verified"
    verdict = verify_export(export, GAMES)
    assert verdict.ok, verdict.problems
    rolls = sum(1 for e in events if e.type == "dice_rolled")
    assert verdict.random_events == 1 + rolls, "the deal, then every roll"

    # One logged die face changed: a yellow roll (Ann's winning one) made violet.
    forged = copy.deepcopy(export)
    raw = [r for r in forged["events"] if r["type"] == "dice_rolled" and r["data"]["colour"] == "yellow"][-1]
    raw["data"]["colour"], raw["data"]["colour_face"] = "violet", 1
    verdict = verify_export(forged, GAMES)
    assert not verdict.ok
    assert any(p.startswith(f"event {raw['seq']}:") and "hash chain" in p for p in verdict.problems), \
        verdict.problems
    verdict = verify_export(rehashed(forged), GAMES)
    assert not verdict.ok, "a forger who rewrites the chain is caught by the rules and the seed"
    assert verdict.problems[0] == \
        f"event {raw['seq']}: the rules decide 'roll' differently from the log (the outcome was changed)"
    assert all("differently" in p for p in verdict.problems), "and what followed from it"


def host_games(web: Web) -> dict[str, Any]:
    response = web.host().get("/api/host/games")
    assert response.status_code == 200
    (garlic,) = [g for g in response.get_json()["games"] if g["id"] == "garlic-slap"]
    return {option["key"]: option for option in garlic["options"]}


def test_the_hosts_counted_deck_is_offered_again_and_survives_a_restart(
        web: Web, config: Config, clock: ManualClock, seeds, later: Later) -> None:
    web.join(1, "Ann")
    web.join(2, "Bob")
    host = web.host()
    assert web.client().get("/api/host/games").status_code == 403, "the host's alone"
    fresh = host_games(web)["deck"]
    assert fresh["counted"] is False and fresh["default"] != COUNTED

    assert host.post("/api/commands", json={"name": "end_game"}).status_code == 200
    response = host.post("/api/commands", json={"name": "start_game", "args": {
        "game": "garlic-slap", "options": {"deck": COUNTED, "deck_counted": True, "coffins_to_win": 3}}})
    assert response.status_code == 200, response.get_json()
    assert host.post("/api/commands", json={"name": "end_game"}).status_code == 200

    options = host_games(web)
    assert options["deck"]["default"] == COUNTED and options["deck"]["counted"] is True
    assert options["coffins_to_win"]["default"] == 3

    web.service.close()
    later.pending.clear()
    again = open_service(config, clock, seeds, scheduler=later, watch_health=False)
    try:
        web = Web(create_app(again, BASE, {"TESTING": True}), again)
        options = host_games(web)
        assert options["deck"]["default"] == COUNTED and options["deck"]["counted"] is True
        # A game started without options plays with them.
        assert again.table.handle(HOST, Command("start_game", {"game": "garlic-slap"})).ok
        run = again.table.run
        assert run is not None and run.options["deck"] == COUNTED and run.options["deck_counted"] is True
        assert len(garlic_state(again).deck) == 43
    finally:
        again.close()
