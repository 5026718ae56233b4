"""La chasse au vampire's cards and the ends: stacks nobody may see (C-K1), chapel draws (C-K2,
5.8 item 3), crypt deposits (C-K3..C-K5, 5.8 item 5), the magic circle (C-X1, 5.8 item 8) and who
wins (C-E1, C-E2), in both board modes.

Traveller 2 stands beside the crypt (13,8) at (12,8), beside the chapel (13,1) at (12,1) or beside
the magic circle (7,4) at (7,5) and steps in; the master waits far off at (0,0).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from companion.games.base import HOST, SYSTEM, TABLE, seat
from companion.games.chasse.state import ChasseState
from tests.support.chasse_rules import (
    AB,
    BOARD,
    CROSS,
    CROSSES,
    GAME,
    GARLIC,
    GARLICS,
    MODES,
    O1,
    O2,
    STAKE,
    VAMP,
    WATER,
    WATERS,
    A,
    B,
    Place,
    arrange,
    dumps,
    event,
    go,
    play,
    refuse,
    started,
    turn,
    types,
)

BESIDE = {"crypt": (12, 8), "chapel": (12, 1), "circle": (7, 5)}


def beside(mode: str, place: str, stacks: Mapping[int, Sequence[int]], *, crypt: Sequence[int] = (),
           chapel: Sequence[int] = (), at: Mapping[int, Place] | None = None, roles: Mapping[int, str] | None = None,
           side: str = "day") -> ChasseState:
    """Traveller 2 one step from `place`, its turn, moving 1 square."""
    positions: dict[int, Place] = {1: (0, 0), 2: BESIDE[place], 3: (15, 9), 4: (0, 9), **(at or {})}
    state = arrange(started(4, mode), at=positions, stacks=stacks, crypt=crypt, chapel=chapel, roles=roles or {},
                    side=side)  # type: ignore[arg-type]
    return turn(state, 2, 1)


def step_in(state: ChasseState, place: str, mover: int = 2) -> tuple[ChasseState, list[Any]]:
    """`mover` steps into `place` from beside it."""
    return go(turn(arrange(state, at={mover: BESIDE[place]}), mover, 1), place)


# -- C-K1: stacks nobody may see ----------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_c_k1_no_screen_shows_a_card_of_a_stack_or_of_the_chapel_pile_only_how_many(mode: str) -> None:
    state = turn(started(4, mode), 2, 4)
    secrets = GAME.secrets(state)
    assert len(secrets) == 26 and {s.value for s in secrets} == {f"card-{n:02d}" for n in range(26)}
    for viewer in (TABLE, HOST, SYSTEM, seat(1), seat(2), seat(3), seat(4)):
        assert not any(s.visible_to(viewer) for s in secrets)
        text = dumps(state, viewer)
        assert "card-" not in text and '"group"' not in text
        assert [p["cards"] for p in GAME.view(state, viewer)["players"]] == [0, 2, 2, 2]
        assert "card-" not in repr(GAME.actions(state, viewer))
    assert not any(e.reveals for e in go(state, (3, 6))[1])


# -- C-K2: chapel draws by day (5.8 item 3) -------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_c_k2_ending_a_move_in_the_chapel_by_day_draws_the_piles_top_card_onto_the_stack_unseen(mode: str) -> None:
    """5.8 item 3: one card each time, on top of the stack, unseen; again on each move ending there."""
    state = beside(mode, "chapel", {2: (O1,), 3: (A,)}, chapel=(VAMP, GARLIC))
    after, events = go(state, "chapel")
    assert types(events) == ["pawn_moved", "card_drawn", "turn_begun"]
    assert not any(e.reveals for e in events)
    assert after.player(2).stack == (VAMP, O1) and after.chapel[0] == GARLIC
    assert len(after.chapel) == len(state.chapel) - 1
    assert f"card-{VAMP:02d}" not in dumps(after, seat(2))
    assert GAME.view(after, TABLE)["players"][1]["cards"] == 2
    again, events = go(turn(after, 2, 2), "chapel")
    assert again.player(2).stack == (GARLIC, VAMP, O1)
    elsewhere, events = go(state, (11, 1))
    assert "card_drawn" not in types(events) and elsewhere.player(2).stack == (O1,)


@pytest.mark.parametrize("mode", MODES)
def test_c_k2_an_empty_chapel_pile_gives_nothing(mode: str) -> None:
    state = beside(mode, "chapel", {2: (O1,), 3: (O2, A, B, AB, STAKE, VAMP, *CROSSES, *WATERS, *GARLICS),
                                    4: tuple(range(5, 13))[1:]})
    assert state.chapel == ()
    after, events = go(state, "chapel")
    assert "chapel_empty" in types(events) and after.player(2).stack == (O1,)


# -- C-K3..C-K5: the crypt (5.8 item 5) -----------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_c_k3_the_stake_deposited_in_the_crypt_wins_for_every_traveller_at_once(mode: str) -> None:
    state = beside(mode, "crypt", {2: (STAKE, O1), 3: (A,), 4: ()}, roles={4: "disciple"})
    after, events = go(state, "crypt")
    deposited = next(e for e in events if e.type == "card_deposited")
    assert deposited.reveals and deposited.data["kind"] == "stake"
    assert after.revealed is not None and after.revealed["effect"] == "win"
    won = event(events, "game_won")
    assert (won["winner"], won["winners"], won["how"]) == ("travellers", [2, 3], "stake")
    assert types(events)[-1] == "game_won"
    assert after.phase == "over" and GAME.is_over(after)
    assert after.glass is not None and not after.glass.running and GAME.deadline(after) is None
    assert refuse(after, seat(3), "roll") == "game_over"
    assert GAME.view(after, TABLE)["crypt"]["stake"] == 1


@pytest.mark.parametrize("mode", MODES)
def test_c_k3_a_stake_lower_in_the_stack_does_not_count(mode: str) -> None:
    after, events = go(beside(mode, "crypt", {2: (GARLIC, STAKE), 3: (A,)}), "crypt")
    assert event(events, "card_deposited")["kind"] == "garlic" and "game_won" not in types(events)
    assert after.crypt == (GARLIC,) and after.player(2).stack == (STAKE,) and after.phase == "play"
    assert after.revealed is not None and after.revealed["effect"] == "kept"


@pytest.mark.parametrize("mode", MODES)
def test_c_k4_garlic_holy_water_and_cross_together_in_the_crypt_win_deposited_by_several(mode: str) -> None:
    state = beside(mode, "crypt", {2: (CROSS,), 3: (A,)}, crypt=(GARLIC, GARLICS[1], WATER))
    after, events = go(state, "crypt")
    won = event(events, "game_won")
    assert (won["winner"], won["winners"], won["how"]) == ("travellers", [2, 3, 4], "trio")
    assert sorted(after.crypt) == sorted((GARLIC, GARLICS[1], WATER, CROSS))
    short = beside(mode, "crypt", {2: (GARLICS[2],), 3: (A,)}, crypt=(GARLIC, WATER, WATERS[1]))
    after, events = go(short, "crypt")
    assert "game_won" not in types(events) and after.phase == "play"


@pytest.mark.parametrize("mode", MODES)
def test_c_k4_the_third_weapon_deposited_after_leaving_and_coming_back_wins(mode: str) -> None:
    state = beside(mode, "crypt", {2: (GARLIC, WATER, CROSS), 3: (A,)})
    for kind in ("garlic", "water"):
        state, events = go(state, "crypt")
        assert event(events, "card_deposited")["kind"] == kind
        state, _ = go(turn(state, 2, 1), BESIDE["crypt"])
        state = turn(state, 2, 1)
    state, events = go(state, "crypt")
    assert event(events, "game_won")["how"] == "trio"
    assert state.revealed is not None and state.revealed["effect"] == "win"


@pytest.mark.parametrize("mode", MODES)
def test_c_k5_one_card_per_visit_the_traveller_must_leave_the_crypt_to_deposit_another(mode: str) -> None:
    """5.8 item 5: the top card; ending a move in the crypt again (even out and back) is the same visit."""
    state = beside(mode, "crypt", {2: (GARLIC, WATER), 3: (A,)})
    state, _ = go(state, "crypt")
    assert state.player(2).deposited and state.crypt == (GARLIC,)
    stayed, events = go(turn(state, 2, 2), "crypt")
    assert "card_deposited" not in types(events) and stayed.player(2).stack == (WATER,)
    out, _ = go(turn(stayed, 2, 1), BESIDE["crypt"])
    assert not out.player(2).deposited
    back, events = go(turn(out, 2, 1), "crypt")
    assert event(events, "card_deposited")["kind"] == "water" and back.crypt == (GARLIC, WATER)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("card", [VAMP, A])
def test_c_k5_a_vampire_or_blood_group_card_deposited_is_void_and_goes_under_the_chapel_pile(
        mode: str, card: int) -> None:
    """5.8 item 5: only garlic, holy water and cross stay in the crypt."""
    state = beside(mode, "crypt", {2: (card, GARLIC), 3: (O1,)}, crypt=(WATER,))
    after, events = go(state, "crypt")
    deposited = next(e for e in events if e.type == "card_deposited")
    assert deposited.reveals and after.revealed is not None and after.revealed["why"] == "crypt"
    assert after.crypt == (WATER,) and after.chapel[-1] == card and after.player(2).stack == (GARLIC,)
    revealed = GAME.view(after, seat(3))["revealed"]
    assert (revealed["seat"], revealed["why"], revealed["kind"]) == (2, "crypt", after.cards[card].kind)
    assert revealed["group"] == after.cards[card].group and "card-" not in dumps(after, seat(3))
    assert revealed["effect"] == "void"


@pytest.mark.parametrize("mode", MODES)
def test_c_k5_a_traveller_with_no_card_deposits_nothing(mode: str) -> None:
    after, events = go(beside(mode, "crypt", {2: (), 3: (O1,)}), "crypt")
    assert "nothing_to_deposit" in types(events) and after.crypt == ()


# -- C-X1: the magic circle, once per day and once per night (5.8 item 8) -------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_c_x1_a_traveller_stopping_on_the_circle_sends_every_vampire_to_the_cemetery(mode: str) -> None:
    state = beside(mode, "circle", {2: (O1,), 3: (A,)}, roles={4: "disciple"}, at={4: (3, 9)})
    after, events = go(state, "circle")
    assert event(events, "vampire_sent") == {
        "seats": [1, 4], "why": "circle", "freed": [],
        "square": list(BOARD.places["cemetery"]) if mode == "companion" else None}
    assert [(p.role, p.place) for p in after.players if p.vampire] == [("master", "cemetery"),
                                                                       ("disciple", "cemetery")]
    assert after.circle_used and GAME.view(after, TABLE)["circle_used"]


@pytest.mark.parametrize("mode", MODES)
def test_c_x1_the_circle_works_once_per_phase_and_again_after_each_turn_over(mode: str) -> None:
    state = beside(mode, "circle", {2: (O1,), 3: (A,)})
    used, _ = go(state, "circle")
    used = arrange(used, at={1: (0, 0), 2: (8, 5)})
    again, events = step_in(used, "circle", mover=3)
    assert "vampire_sent" not in types(events) and again.player(1).place != "cemetery"
    for turns in (0, 1):
        assert used.glass is not None and used.glass.ends_us is not None
        used, _ = play(used, SYSTEM, "turn_over", at_us=used.glass.ends_us, turns=turns)
        assert not used.circle_used
        reset, events = step_in(used, "circle", mover=3)
        assert event(events, "vampire_sent")["seats"] == [1]
        used = arrange(reset, at={1: (0, 0), 3: (15, 9)})
        assert used.circle_used


@pytest.mark.parametrize("mode", MODES)
def test_5_8_8_only_ending_a_move_on_the_circle_counts_not_a_vampire_on_it(mode: str) -> None:
    state = beside(mode, "circle", {2: (O1,), 3: (A,)}, at={2: (6, 4)})
    passed, events = go(turn(state, 2, 2), (8, 4))
    assert "circle_used" not in types(events) and not passed.circle_used
    vampire = turn(arrange(state, at={1: BESIDE["circle"], 2: (15, 0)}), 1, 1)
    after, events = go(vampire, "circle")
    assert "circle_used" not in types(events) and after.player(1).place == "circle"


# -- C-E1, C-E2: who wins ----------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_c_e1_the_master_alone_wins_when_the_last_traveller_becomes_a_vampire(mode: str) -> None:
    state = arrange(started(4, mode), at={1: (3, 9), 2: (5, 9), 3: (15, 0), 4: (0, 0)},
                    roles={3: "disciple", 4: "disciple"}, stacks={2: (VAMP,)})
    after, events = go(turn(state, 1, 4), (7, 9), bite=2)
    assert types(events)[-2:] == ["converted", "game_won"]
    won = event(events, "game_won")
    assert (won["winner"], won["winners"]) == ("master", [1])
    assert after.phase == "over" and after.current is None and GAME.view(after, TABLE)["winners"] == [1]


@pytest.mark.parametrize("mode", MODES)
def test_c_e1_the_master_wins_when_night_converts_the_last_traveller(mode: str) -> None:
    state = arrange(started(3, mode), at={1: (3, 9), 2: (5, 9), 3: (15, 0)}, stacks={2: (A,), 3: (O1,)})
    state, _ = go(turn(state, 1, 4), (7, 9), bite=2)
    state = arrange(state, roles={3: "disciple"}, stacks={})
    assert state.glass is not None and state.glass.ends_us is not None
    after, events = play(state, SYSTEM, "turn_over", at_us=state.glass.ends_us, turns=0)
    assert event(events, "game_won")["winners"] == [1] and after.phase == "over"


@pytest.mark.parametrize("mode", MODES)
def test_c_e2_the_travellers_still_travellers_win_together_a_freed_disciple_among_them(mode: str) -> None:
    state = arrange(started(4, mode), at={1: (0, 0), 2: (15, 9), 3: (3, 9), 4: (5, 9)}, roles={3: "disciple"},
                    stacks={2: (CROSS,), 4: (STAKE,)})
    freed, _ = go(turn(state, 3, 4), (7, 9), bite=4)
    assert (freed.player(3).role, freed.player(3).place) == ("traveller", "cemetery")
    ready = turn(arrange(freed, at={2: BESIDE["crypt"]}, crypt=(GARLIC, WATER)), 2, 1)
    after, events = go(ready, "crypt")
    won = event(events, "game_won")
    assert (won["winner"], won["winners"], won["how"]) == ("travellers", [2, 3, 4], "trio")
    assert GAME.view(after, seat(3))["winners"] == [2, 3, 4]
