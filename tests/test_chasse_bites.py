"""La chasse au vampire's bites, ripostes and transfusions, rule by rule: C-B1..C-B4 and the
resolutions of 5.8 items 2, 6, 7, 9 and 10, in both board modes.

The hunt: the master vampire (seat 1) at (3,9) moves 4 squares over traveller 2 at (5,9) to (7,9)
(on the table's own board it says it stopped elsewhere, having bitten seat 2); travellers 3 and 4
wait beside the Doctor's House (5,1). Default blood groups and the ABO table: O gives to all, A
and B to themselves and AB.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from companion.games.base import SYSTEM, TABLE, seat
from companion.games.chasse.rules import reachable
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
    A,
    B,
    Place,
    arrange,
    dumps,
    event,
    go,
    play,
    refuse,
    refuse_go,
    started,
    turn,
    types,
)

BY = (7, 9)
"""Where the master ends the bite's move on the companion's board."""
WEAPONS = {"garlic": GARLIC, "water": WATER, "cross": CROSS, "stake": STAKE}


def hunt(mode: str, stacks: Mapping[int, Sequence[int]], *, at: Mapping[int, Place] | None = None,
         roles: Mapping[int, str] | None = None, side: str = "day", chapel: Sequence[int] = (),
         **options: Any) -> ChasseState:
    """The master about to move 4 squares over traveller 2 (see the module's docstring)."""
    state = started(4, mode, **options)
    positions: dict[int, Place] = {1: (3, 9), 2: (5, 9), 3: (4, 2), 4: (6, 2), **(at or {})}
    state = arrange(state, at=positions, stacks=stacks, roles=roles or {}, side=side,  # type: ignore[arg-type]
                    chapel=chapel)
    return turn(state, 1, 4)


def bite(state: ChasseState, victim: int = 2, to: Place = BY) -> tuple[ChasseState, list[Any]]:
    return go(state, to, bite=victim)


def to_doctor(state: ChasseState, mover: int) -> tuple[ChasseState, list[Any]]:
    """`mover`, set beside the Doctor's House, steps into it."""
    return go(turn(arrange(state, at={mover: (5, 2)}), mover, 1), "doctor")


def night(state: ChasseState) -> tuple[ChasseState, list[Any]]:
    """The glass runs out and turns over."""
    assert state.glass is not None and state.glass.ends_us is not None
    return play(state, SYSTEM, "turn_over", at_us=state.glass.ends_us, turns=state.glass.turns)


# -- C-B1: a bite as the vampire crosses; one per turn; not the same victim again (5.8 items 2, 6) -------

def test_c_b1_the_crossed_square_counts_one_step_and_the_vampire_finishes_on_a_free_square() -> None:
    state = hunt("companion", {2: (A,), 3: (O1,)})
    reach = reachable(state, 1)
    assert (5, 9) in reach[BY] and None in reach[BY]
    assert (5, 9) not in reach
    assert refuse_go(state, (5, 9), bite=2) == "square_out_of_reach"
    three = reachable(turn(state, 1, 3), 1)
    assert (5, 9) in three[(6, 9)] and BY not in three
    after, events = bite(state)
    assert types(events)[:2] == ["bite_answered", "transfusion_needed"]
    assert after.player(1).square == BY and after.player(2).square == (5, 9)


def test_c_b1_a_vampire_crosses_a_traveller_only_to_bite_it_and_only_one() -> None:
    """The corridor (0,2)-(0,3) of the shipped map."""
    state = arrange(started(4, "companion"), at={1: (0, 1), 2: (0, 2), 3: (15, 9), 4: (15, 0)},
                    stacks={2: (A,), 3: (O1,)})
    assert reachable(turn(state, 1, 3), 1)[(0, 4)] == frozenset({(0, 2)})
    assert refuse_go(turn(state, 1, 3), (0, 4)) == "victim_not_on_the_way"
    two = turn(arrange(state, at={3: (0, 3)}), 1, 4)
    assert (0, 4) not in reachable(two, 1) and (0, 5) not in reachable(two, 1)


@pytest.mark.parametrize("mode", MODES)
def test_c_b1_one_bite_per_vampire_per_turn_then_the_turn_passes(mode: str) -> None:
    state = hunt(mode, {2: (A,), 3: (O1,), 4: (B,)})
    after, events = bite(state)
    assert types(events)[-1] == "turn_begun" and after.current == 2 and after.stage() == "roll"
    assert [e.type for e in events].count("bite_answered") == 1


@pytest.mark.parametrize("mode", MODES)
def test_5_8_6_the_same_vampire_may_not_bite_its_victim_while_the_transfusion_is_pending(mode: str) -> None:
    state = hunt(mode, {2: (A, GARLIC), 3: (O1,), 4: ()}, roles={4: "disciple"}, at={4: (15, 0)})
    pending, _ = bite(state)
    again = turn(pending, 1, 4)
    assert refuse_go(again, BY, bite=2) == "bitten_already"
    if mode == "companion":
        assert all((5, 9) not in bites for bites in reachable(again, 1).values())
        assert all(2 not in option["bites"] for option in GAME.view(again, seat(1))["reach"])
    else:
        assert GAME.view(again, seat(1))["bites"] == [3]
    other = turn(arrange(pending, at={1: (15, 0), 4: (3, 9)}), 4, 4)
    assert event(bite(other)[1], "bite_answered")["kind"] == "garlic"


@pytest.mark.parametrize("mode", MODES)
def test_5_8_6_once_saved_or_after_a_repelled_bite_the_same_vampire_may_bite_again(mode: str) -> None:
    state = hunt(mode, {2: (A, GARLIC, CROSSES[1]), 3: (O1, CROSS)})
    pending, _ = bite(state)
    pending, _ = play(pending, seat(3), "offer_blood", victim=2)
    pending, _ = to_doctor(pending, 3)
    saved, events = to_doctor(pending, 2)
    assert "transfusion_done" in types(events)
    repelled, events = bite(turn(arrange(saved, at={1: (3, 9), 2: (5, 9)}), 1, 4))
    assert event(events, "bite_answered")["kind"] == "garlic"
    assert repelled.player(1).place == "cemetery"
    again = turn(arrange(repelled, at={1: (3, 9)}), 1, 4)
    _, events = bite(again)
    assert event(events, "bite_answered")["kind"] == "cross"


# -- C-B2, C-B4: the top card answers; revealed ripostes go back under the chapel pile (5.8 item 9) --------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", list(WEAPONS))
def test_c_b2_a_weapon_sends_the_master_to_the_cemetery_at_once_and_goes_under_the_chapel_pile(
        mode: str, kind: str) -> None:
    """C-B4 and 5.8 item 9: the revealed riposte, the stake included, goes back under the pile."""
    card = WEAPONS[kind]
    state = hunt(mode, {2: (card, O1)})
    after, events = bite(state)
    answer = next(e for e in events if e.type == "bite_answered")
    assert answer.reveals and answer.data["kind"] == kind
    assert types(events) == ["bite_answered", "vampire_sent", "turn_begun"]
    master = after.player(1)
    assert (master.role, master.place) == ("master", "cemetery")
    assert master.square == (BOARD.places["cemetery"] if mode == "companion" else None)
    assert after.player(2).stack == (O1,)
    assert after.chapel[-1] == card and after.chapel[:-1] == state.chapel
    shown = {"seat": 2, "why": "riposte", "by": 1, "kind": kind, "group": None, "effect": "repelled"}
    for viewer in (TABLE, seat(2), seat(3)):
        assert GAME.view(after, viewer)["revealed"] == shown
        assert "card-" not in dumps(after, viewer)


@pytest.mark.parametrize("mode", MODES)
def test_c_b2_the_stake_frees_a_disciple_who_restarts_as_a_traveller_with_no_card(mode: str) -> None:
    """5.8 items 9 and 10: the stake returns to the chapel pile, to be drawn again."""
    state = hunt(mode, {2: (STAKE,), 3: (GARLIC,)}, roles={4: "disciple"}, at={1: (15, 0), 4: (3, 9)})
    freed, events = bite(turn(state, 4, 4))
    assert event(events, "vampire_sent") == {"seats": [4], "why": "repelled", "freed": [4],
                                             "square": list(BOARD.places["cemetery"]) if mode == "companion" else None}
    pawn = freed.player(4)
    assert (pawn.role, pawn.place, pawn.stack) == ("traveller", "cemetery", ())
    assert freed.revealed is not None and freed.revealed["effect"] == "freed", "every screen says what it did"
    assert freed.player(1).role == "master" and STAKE in freed.chapel
    again = turn(arrange(freed, at={4: (3, 9)}), 4, 4)
    assert refuse_go(again, BY, bite=2) == "travellers_do_not_bite"
    garlic, _ = bite(turn(arrange(freed, at={1: (3, 9)}, stacks={3: (GARLIC,), 2: (GARLICS[1],)}), 1, 4))
    assert garlic.player(1).role == "master"


@pytest.mark.parametrize("mode", MODES)
def test_c_b2_a_riposte_other_than_the_stake_sends_a_disciple_to_the_cemetery_still_a_disciple(mode: str) -> None:
    state = hunt(mode, {2: (WATER,), 3: (O1,)}, roles={4: "disciple"}, at={1: (15, 0), 4: (3, 9)})
    after, _ = bite(turn(state, 4, 4))
    assert (after.player(4).role, after.player(4).place) == ("disciple", "cemetery")
    assert after.revealed is not None and after.revealed["effect"] == "repelled"


@pytest.mark.parametrize("mode", MODES)
def test_c_b2_a_vampire_card_makes_a_disciple_whose_cards_all_go_under_the_chapel_pile(mode: str) -> None:
    """5.8 item 10: a converted traveller's cards return to the chapel pile."""
    state = hunt(mode, {2: (VAMP, GARLIC, O1), 3: (A,)})
    after, events = bite(state)
    assert event(events, "converted") == {"seat": 2, "why": "vampire_card"}
    assert after.revealed is not None and after.revealed["effect"] == "disciple"
    victim = after.player(2)
    assert (victim.role, victim.stack) == ("disciple", ())
    assert after.chapel[-3:] == (VAMP, GARLIC, O1)
    assert after.player(1).place == "elsewhere"
    if mode == "companion":
        assert after.player(1).square == BY and victim.square == (5, 9)
    assert GAME.view(after, TABLE)["players"][1]["cards"] == 0


@pytest.mark.parametrize("mode", MODES)
def test_c_b2_a_traveller_bitten_with_no_card_becomes_a_disciple(mode: str) -> None:
    after, events = bite(hunt(mode, {2: (), 3: (A,)}))
    assert types(events)[:2] == ["bite_unanswered", "converted"]
    assert event(events, "converted")["why"] == "empty_stack" and after.player(2).role == "disciple"
    assert not any(e.reveals for e in events)


@pytest.mark.parametrize("mode", MODES)
def test_c_b2_c_b4_a_blood_group_card_starts_a_transfusion_and_goes_under_the_chapel_pile(mode: str) -> None:
    """5.8 item 7: the victim's group is recorded; its card returns to the chapel like any riposte."""
    state = hunt(mode, {2: (A, GARLIC), 3: (O1,)})
    after, events = bite(state)
    assert event(events, "transfusion_needed") == {"victim": 2, "group": "A", "biter": 1, "deadline_turns": 1}
    assert after.revealed is not None and after.revealed["effect"] == "transfusion"
    assert after.player(2).role == "traveller" and after.player(2).stack == (GARLIC,)
    assert after.chapel[-1] == A
    assert GAME.view(after, TABLE)["transfusions"] == [
        {"victim": 2, "group": "A", "biter": 1, "donor": None, "reached": [], "deadline_turns": 1}]
    if mode == "companion":
        assert after.player(1).square == BY


# -- C-B3: transfusions (5.8 item 7) ---------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_c_b3_without_a_compatible_donor_among_the_travellers_the_victim_becomes_a_disciple(mode: str) -> None:
    state = hunt(mode, {2: (O1, GARLIC), 3: (A, B), 4: (AB,)}, chapel=(O2,))
    after, events = bite(hunt(mode, {2: (AB, GARLIC), 3: (O1,), 4: ()}))
    assert "transfusion_needed" in types(events)
    after, events = bite(state)
    assert event(events, "converted") == {"seat": 2, "why": "no_donor"}
    assert after.player(2).role == "disciple" and after.transfusions == ()
    assert after.chapel[-2:] == (O1, GARLIC)


def test_c_b3_a_volunteer_is_told_only_compatible_or_not_and_keeps_its_card() -> None:
    """5.8 item 7: the companion looks into the hidden stack and answers yes or no."""
    state, _ = bite(hunt("own", {2: (A,), 3: (B, GARLIC), 4: (GARLICS[1], O1)}))
    no, events = play(state, seat(3), "offer_blood", victim=2)
    offered = event(events, "blood_offered")
    assert offered == {"donor": 3, "victim": 2, "compatible": False}
    assert no.transfusion_of(2) is not None and no.transfusion_of(2).donor is None  # type: ignore[union-attr]
    yes, events = play(no, seat(4), "offer_blood", victim=2)
    assert event(events, "blood_offered")["compatible"] is True
    assert yes.transfusion_of(2).donor == 4  # type: ignore[union-attr]
    assert yes.player(4).stack == (GARLICS[1], O1) and yes.player(3).stack == (B, GARLIC)
    for viewer in (TABLE, seat(3), seat(4)):
        text = dumps(yes, viewer)
        assert f"card-{O1:02d}" not in text and f"card-{B:02d}" not in text
    assert GAME.view(yes, seat(4))["happenings"][0] == {"kind": "blood_offered", "donor": 4, "victim": 2,
                                                        "compatible": True}
    assert refuse(yes, seat(3), "offer_blood", victim=2) == "donor_found"
    assert refuse(yes, seat(2), "offer_blood", victim=2) == "bitten_cannot_give"
    assert refuse(no, seat(2), "offer_blood", victim=2) == "bitten_cannot_give"


def test_c_b3_compatibility_follows_the_table_chosen() -> None:
    """5.8 item 11: with "same_group", an O donor no longer saves an A victim."""
    state = hunt("own", {2: (A,), 3: (O1,), 4: (AB,)}, compatibility="same_group")
    _, events = bite(state)
    assert event(events, "converted")["why"] == "no_donor"
    state, _ = bite(hunt("own", {2: (A,), 3: (O1,), 4: (AB,)}, blood_groups=["O", "O", "A", "B", "AB"],
                         compatibility={"O": ["O"], "A": ["A"], "B": ["B"], "AB": ["A", "AB"]}))
    assert event(play(state, seat(3), "offer_blood", victim=2)[1], "blood_offered")["compatible"] is False
    assert event(play(state, seat(4), "offer_blood", victim=2)[1], "blood_offered")["compatible"] is True


@pytest.mark.parametrize("mode", MODES)
def test_c_b3_victim_and_donor_both_at_the_doctors_house_before_night_save_the_victim(mode: str) -> None:
    state, _ = bite(hunt(mode, {2: (A, GARLIC), 3: (O1,)}))
    state, _ = play(state, seat(3), "offer_blood", victim=2)
    state, events = to_doctor(state, 2)
    assert event(events, "doctor_reached") == {"victim": 2, "seat": 2}
    assert "transfusion_done" not in types(events)
    state, events = to_doctor(state, 3)
    assert event(events, "transfusion_done") == {"victim": 2, "donor": 3}
    assert state.transfusions == () and state.player(2).transfused and not state.player(3).transfused
    assert state.player(3).stack == (O1,)
    assert (state.player(2).place, state.player(3).place) == ("doctor", "doctor")
    state, events = night(state)
    assert "converted" not in types(events) and state.player(2).role == "traveller"


@pytest.mark.parametrize("mode", MODES)
def test_c_b3_a_donor_who_deposits_its_blood_in_the_crypt_can_no_longer_give(mode: str) -> None:
    """The volunteer was answered "compatible" for the card it held: once that card lies in the crypt
    (and goes back to the chapel pile), there is nothing left to give and the victim needs another."""
    state, _ = bite(hunt(mode, {2: (A, GARLIC), 3: (O1,)}))
    state, _ = play(state, seat(3), "offer_blood", victim=2)
    state, events = go(turn(arrange(state, at={3: (12, 8)}), 3, 1), "crypt")
    assert event(events, "card_deposited")["kind"] == "blood"
    assert event(events, "donor_lost") == {"victim": 2, "donor": 3}
    pending = state.transfusion_of(2)
    assert pending is not None and pending.donor is None and 3 not in pending.reached
    state, events = to_doctor(to_doctor(state, 2)[0], 3)
    assert "transfusion_done" not in types(events)


@pytest.mark.parametrize("mode", MODES)
def test_c_b3_a_donor_already_at_the_doctors_house_when_it_volunteers_counts_as_there(mode: str) -> None:
    state, _ = bite(hunt(mode, {2: (A, GARLIC), 3: (O1,)}, at={2: (5, 9), 3: "doctor"}))
    state, _ = to_doctor(state, 2)
    state, events = play(state, seat(3), "offer_blood", victim=2)
    assert types(events) == ["blood_offered", "transfusion_done"] and state.player(2).transfused


@pytest.mark.parametrize("mode", MODES)
def test_c_b3_a_transfusion_unfinished_at_the_first_nightfall_after_a_bite_by_day_converts(mode: str) -> None:
    state, _ = bite(hunt(mode, {2: (A, GARLIC), 3: (O1,)}))
    state, _ = play(state, seat(3), "offer_blood", victim=2)
    state, _ = to_doctor(state, 2)
    assert GAME.view(state, TABLE)["transfusions"][0]["deadline_turns"] == 1
    state, events = night(state)
    assert types(events)[:3] == ["glass_turned", "transfusion_failed", "converted"]
    assert event(events, "converted") == {"seat": 2, "why": "nightfall"}
    assert state.player(2).role == "disciple" and state.transfusions == () and GARLIC in state.chapel


@pytest.mark.parametrize("mode", MODES)
def test_c_b3_a_bite_at_night_converts_at_the_next_night_not_this_one(mode: str) -> None:
    state, events = bite(hunt(mode, {2: (A, GARLIC), 3: (O1,)}, side="night"))
    assert event(events, "transfusion_needed")["deadline_turns"] == 3
    day, events = night(state)
    assert day.side == "day" and "converted" not in types(events) and day.transfusion_of(2) is not None
    state, events = night(day)
    assert state.side == "night" and event(events, "converted") == {"seat": 2, "why": "nightfall"}


@pytest.mark.parametrize("mode", MODES)
def test_c_b3_a_donor_bitten_on_the_way_can_no_longer_give_and_needs_a_donor_in_turn(mode: str) -> None:
    state = hunt(mode, {2: (GARLIC, O2), 3: (B, GARLICS[1]), 4: (O1, CROSS)}, at={2: (15, 0), 3: (5, 9)})
    state, _ = bite(state, victim=3)
    state, _ = play(state, seat(4), "offer_blood", victim=3)
    assert state.transfusion_of(3).donor == 4  # type: ignore[union-attr]
    on_the_way = turn(arrange(state, at={1: (3, 9), 3: (5, 2), 4: (5, 9)}), 1, 4)
    after, events = bite(on_the_way, victim=4)
    assert types(events)[:2] == ["donor_lost", "bite_answered"]
    assert event(events, "donor_lost") == {"victim": 3, "donor": 4}
    assert after.transfusion_of(3).donor is None  # type: ignore[union-attr]
    assert event(events, "transfusion_needed") == {"victim": 4, "group": "O", "biter": 1, "deadline_turns": 1}
    assert refuse(after, seat(4), "offer_blood", victim=3) == "bitten_cannot_give"
    after, events = play(after, seat(2), "offer_blood", victim=3)
    assert event(events, "blood_offered")["compatible"] is True and after.transfusion_of(3).donor == 2  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", MODES)
def test_c_b3_a_donor_made_a_disciple_leaves_the_victim_waiting_for_another(mode: str) -> None:
    state = hunt(mode, {2: (GARLIC, O2), 3: (B,), 4: (VAMP, O1)}, at={2: (15, 0), 3: (5, 2)})
    state, _ = bite(arrange(state, at={3: (5, 9), 4: (6, 2)}), victim=3)
    state, _ = play(state, seat(4), "offer_blood", victim=3)
    after, events = bite(turn(arrange(state, at={1: (3, 9), 3: (5, 2), 4: (5, 9)}), 1, 4), victim=4)
    assert event(events, "converted") == {"seat": 4, "why": "vampire_card"}
    assert after.transfusion_of(3) is not None and after.transfusion_of(3).donor is None  # type: ignore[union-attr]
    assert after.chapel[-2:] == (VAMP, O1)


@pytest.mark.parametrize("mode", MODES)
def test_c_b3_a_traveller_receives_one_transfusion_per_game_but_may_give_several(mode: str) -> None:
    state = hunt(mode, {2: (B, O2, A), 3: (O1,), 4: (AB,)})
    state = arrange(state, transfused=[2])
    after, events = bite(state)
    assert event(events, "converted") == {"seat": 2, "why": "second_transfusion"}
    assert after.chapel[-3:] == (B, O2, A)
    saved = arrange(state, at={2: (15, 0), 3: (5, 9)}, stacks={2: (O2,), 3: (A, GARLIC), 4: (AB,)})
    pending, _ = bite(saved, victim=3)
    given, events = play(pending, seat(2), "offer_blood", victim=3)
    assert event(events, "blood_offered")["compatible"] is True and given.transfusion_of(3).donor == 2  # type: ignore[union-attr]


def test_5_8_2_with_stop_before_victim_the_bite_ends_the_move_beside_the_victim() -> None:
    state = hunt("companion", {2: (A,), 3: (O1,)}, bite_path="stop_before_victim")
    assert (5, 9) in reachable(state, 1)[(4, 9)] and (5, 9) not in reachable(state, 1).get(BY, frozenset())
    assert refuse_go(state, BY, bite=2) == "victim_not_on_the_way"
    after, events = bite(state, to=(4, 9))
    assert types(events)[:2] == ["bite_answered", "transfusion_needed"] and after.player(1).square == (4, 9)
    garlic, _ = bite(hunt("companion", {2: (GARLIC,)}, bite_path="stop_before_victim"), to=(4, 9))
    assert garlic.player(1).square == BOARD.places["cemetery"]


def test_c_b1_a_traveller_in_the_inn_or_the_chapel_cannot_be_bitten() -> None:
    state = hunt("own", {2: (A,), 3: (O1,), 4: (B,)}, at={2: "inn", 3: "chapel"}, side="night")
    assert refuse_go(state, "elsewhere", bite=2) == "victim_sheltered"
    assert refuse_go(state, "elsewhere", bite=3) == "victim_sheltered"
    assert GAME.view(state, seat(1))["bites"] == [4]
    board = hunt("companion", {2: (A,), 3: (O1,)}, at={1: (3, 7), 2: "inn"}, side="night")
    assert refuse_go(board, (1, 6), bite=2) == "victim_sheltered"
    assert all(bites <= {None} for bites in reachable(board, 1).values())


@pytest.mark.parametrize("mode", MODES)
def test_c_b3_a_victim_bitten_in_the_doctors_house_has_reached_it_already(mode: str) -> None:
    """C-M4 bars vampires from the inn and the chapel only: the Doctor's House, shared, is no
    sanctuary on either board (on the companion's, the master crosses it from (3, 1) to (7, 1))."""
    hunted = hunt(mode, {2: (A,), 3: (O1,)}, at={1: (3, 1), 2: "doctor"})
    state, events = bite(hunted, to=(7, 1))
    assert state.transfusion_of(2) is not None and state.transfusion_of(2).reached == {2}  # type: ignore[union-attr]
    saved, events = to_doctor(play(state, seat(3), "offer_blood", victim=2)[0], 3)
    assert event(events, "transfusion_done") == {"victim": 2, "donor": 3} and saved.player(2).transfused


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shelter", ["chapel", "inn", (12, 2)])
def test_c_b3_nightfall_converting_a_traveller_where_no_vampire_may_stand_sends_it_to_the_cemetery(
        mode: str, shelter: Place) -> None:
    """C-M4 bars vampires from the inn, the chapel and the zone beyond the torrent: a victim whom
    night converts there becomes a disciple in the cemetery, never one shut in for good."""
    state, _ = bite(hunt(mode, {2: (A,), 3: (O1,)}))
    state, events = night(arrange(state, at={2: shelter}))
    converted = event(events, "converted")
    assert (converted["seat"], converted["why"]) == (2, "nightfall")
    pawn = state.player(2)
    if mode == "own" and shelter == (12, 2):
        assert (pawn.role, pawn.place) == ("disciple", "elsewhere")
        return
    assert (pawn.role, pawn.place) == ("disciple", "cemetery")
    if mode == "companion":
        assert pawn.square == BOARD.places["cemetery"]
        assert reachable(turn(state, 2, 6), 2)
