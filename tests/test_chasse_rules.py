"""La chasse au vampire's pure rules, rule by rule: the setup (C-S1..C-S5), turns and movement
(C-M1..C-M5), the sand glass (its turn-over mid-turn, 5.8 item 4; its pause, a stale turn-over, a
restart of the service), the resolutions of 5.8 items 1 and 11, and refused commands. Bites and
transfusions are in test_chasse_bites.py, the chapel, the crypt, the magic circle and the end in
test_chasse_crypt.py.

Rules that touch the board run in both board modes: the table's own board (players say where they
stopped) and the companion's (squares of the shipped map, drawn in companion/games/chasse/board.py).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.games.base import HOST, SYSTEM, TABLE, Command, OptionsError, seat
from companion.games.chasse.options import normalize_options
from companion.games.chasse.rules import reachable
from companion.games.chasse.state import Transfusion
from tests.conftest import SeededRandomSource
from tests.support.chasse_rules import (
    BOARD,
    CARDS,
    CROSSES,
    GAME,
    MODES,
    O1,
    O2,
    PHASE_US,
    T0,
    VAMPIRE_CARDS,
    Dice,
    arrange,
    dumps,
    event,
    go,
    kinds,
    new_game,
    play,
    refuse,
    refuse_command,
    refuse_go,
    started,
    turn,
    types,
)

VIEWERS = [TABLE, HOST, seat(1), seat(2), seat(3)]


# -- setup (C-S1..C-S5) ------------------------------------------------------------------------------

def test_c_s1_the_highest_start_roll_is_the_master_vampire_the_others_travellers() -> None:
    state = new_game(3)
    state, _ = play(state, seat(1), "roll", Dice(3))
    assert refuse(state, seat(1), "roll") == "not_in_start_roll"
    state, _ = play(state, seat(2), "roll", Dice(5))
    state, events = play(state, seat(3), "roll", Dice(2))
    assert event(events, "master_chosen") == {"seat": 2, "roll": 5}
    assert [p.role for p in state.players] == ["traveller", "master", "traveller"]


def test_c_s1_a_tie_at_the_top_rolls_again_among_the_tied_only() -> None:
    state, events = play(new_game(3), TABLE, "roll", Dice(6, 6, 2))
    assert event(events, "start_tied") == {"round": 1, "seats": [1, 2], "roll": 6}
    assert state.phase == "start_roll" and all(p.role == "traveller" for p in state.players)
    assert refuse(state, seat(3), "roll") == "not_in_start_roll"
    state, _ = play(state, seat(2), "roll", Dice(5))
    state, events = play(state, seat(1), "roll", Dice(4))
    assert event(events, "master_chosen") == {"seat": 2, "roll": 5}


def test_c_s2_each_traveller_gets_one_blood_group_and_one_riposte_face_down_in_random_order() -> None:
    state, events = play(new_game(3), TABLE, "roll", Dice(6, 1, 1, swap=("order seat 3",)))
    assert state.player(1).stack == ()
    assert state.player(2).stack == (O1, CROSSES[0])
    assert state.player(3).stack == (CROSSES[1], O2)
    assert not any(e.reveals for e in events) and state.revealed is None
    tops = set()
    for number in range(20):
        dealt, rng = new_game(4), SeededRandomSource(number)
        while dealt.phase == "start_roll":
            dealt, _ = play(dealt, TABLE, "roll", rng, at_us=T0)
        for pawn in dealt.travellers():
            assert sorted(kinds(dealt, pawn.stack)) in (["blood", k] for k in ("cross", "garlic", "stake", "water"))
            tops.add(kinds(dealt, pawn.stack)[0] == "blood")
    assert tops == {True, False}


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_c_s3_the_rest_and_all_eight_vampire_cards_make_the_chapel_pile_nothing_shown(players: int) -> None:
    state = started(players)
    travellers = players - 1
    assert len(state.chapel) == 26 - 2 * travellers
    assert set(VAMPIRE_CARDS) <= set(state.chapel)
    assert kinds(state, state.chapel).count("blood") == 5 - travellers
    assert len(state.chapel) + sum(len(p.stack) for p in state.players) == len(CARDS) == 26
    for viewer in VIEWERS[:2] + [seat(n) for n in range(1, players + 1)]:
        assert "card-" not in dumps(state, viewer)
        assert GAME.view(state, viewer)["chapel_pile"] == len(state.chapel)


@pytest.mark.parametrize("mode", MODES)
def test_c_s4_travellers_start_in_the_inn_the_vampire_in_the_crypt_and_must_leave_the_closed_inn(mode: str) -> None:
    state = started(4, mode)
    assert [(p.role, p.place) for p in state.players] == \
        [("master", "crypt"), ("traveller", "inn"), ("traveller", "inn"), ("traveller", "inn")]
    if mode == "companion":
        assert [p.square for p in state.players] == [BOARD.places["crypt"]] + [BOARD.places["inn"]] * 3
    state = turn(state, 2, 4)
    assert refuse_go(state, "inn") == ("building_closed" if mode == "own" else "square_out_of_reach")
    state, _ = go(state, (3, 6))
    assert state.player(2).place == "elsewhere"


def test_c_s5_the_game_starts_by_day_with_a_full_glass_running_and_the_master_to_play() -> None:
    state = started(3)
    glass = state.glass
    assert glass is not None
    assert (glass.side, glass.turns, glass.running, glass.full_us, glass.left_us, glass.since_us) == \
        ("day", 0, True, PHASE_US, PHASE_US, T0)
    deadline = GAME.deadline(state)
    assert deadline is not None and deadline.at_us == T0 + PHASE_US
    assert deadline.command == Command("turn_over", {"turns": 0})
    assert (state.current, state.stage()) == (1, "roll")
    assert GAME.view(state, seat(2))["glass"]["side"] == "day"


# -- turns and movement (C-M1..C-M5) -----------------------------------------------------------------

def test_c_m1_the_master_plays_first_then_clockwise_and_a_disciple_keeps_its_place() -> None:
    state = started(4, master=3)
    state = arrange(state, roles={4: "disciple"}, stacks={1: (O1,), 2: (O2,)})
    played = []
    for _ in range(5):
        played.append(state.current)
        state, _ = play(state, seat(state.current), "roll", Dice(1))
        state, _ = go(state, (0, 9))
    assert played == [3, 4, 1, 2, 3]


def test_c_m2_the_allowance_is_doubled_for_travellers_by_day_and_for_vampires_by_night() -> None:
    state = arrange(started(3), roles={3: "disciple"}, stacks={2: (O1,)})

    def allowance(side: str, mover: int) -> int:
        arranged = replace(arrange(state, side=side), current=mover)  # type: ignore[arg-type]
        rolled, events = play(arranged, seat(mover), "roll", Dice(3))
        assert GAME.view(rolled, TABLE)["allowance"] == rolled.allowance
        assert event(events, "turn_rolled")["doubled"] == (rolled.allowance == 6)
        return int(rolled.allowance or 0)

    assert [allowance("day", s) for s in (1, 2, 3)] == [3, 6, 3]
    assert [allowance("night", s) for s in (1, 2, 3)] == [6, 3, 6]


def test_c_m3_moves_exactly_the_allowance_going_back_allowed_so_a_nearer_square_is_reached() -> None:
    """5.8 item 1: "on peut faire plus"; even back to the square left (moving is compulsory)."""
    state = turn(arrange(started(3, "companion"), at={2: (3, 9)}), 2, 4)
    reach = reachable(state, 2)
    assert {(4, 9), (3, 9), (7, 9)} <= set(reach)
    assert (8, 9) not in reach
    assert refuse_go(state, (8, 9)) == "square_out_of_reach"
    moved, _ = go(state, (4, 9))
    assert moved.player(2).square == (4, 9)
    back, _ = go(state, (3, 9))
    assert back.player(2).square == (3, 9)


def test_c_m3_the_alternative_movement_mode_goes_up_to_the_allowance_never_staying() -> None:
    state = turn(arrange(started(3, "companion", movement_mode="up_to_min_1"), at={2: (3, 9)}), 2, 4)
    reach = reachable(state, 2)
    assert {(4, 9), (7, 9)} <= set(reach) and (3, 9) not in reach and (8, 9) not in reach
    assert refuse_go(state, (3, 9)) == "square_out_of_reach"


def test_c_m3_a_pawn_never_shares_nor_crosses_a_square_except_the_shared_places() -> None:
    """The corridor (0,2)-(0,3) of the shipped map: a traveller in it bars the way to (0,4)."""
    state = arrange(started(4, "companion"), at={2: (0, 1), 3: (0, 2), 4: (5, 1)})
    moving = turn(state, 2, 3)
    assert (0, 4) not in reachable(moving, 2) and (0, 2) not in reachable(moving, 2)
    assert refuse_go(moving, (0, 4)) == "square_out_of_reach"
    assert (0, 4) in reachable(turn(arrange(state, at={3: (15, 9)}), 2, 3), 2)
    beside = turn(arrange(state, at={2: (5, 2)}), 2, 1)
    shared, _ = go(beside, "doctor")
    assert shared.player(2).square == shared.player(4).square == BOARD.places["doctor"]


def test_c_m3_stay_is_allowed_only_when_no_square_is_within_reach() -> None:
    state = started(4, "companion")
    state = arrange(state, roles={3: "disciple", 4: "disciple"}, stacks={2: (O1,)},
                    at={1: (1, 8), 2: (0, 9), 3: (0, 8), 4: (1, 9)})
    blocked = turn(state, 2, 3)
    assert reachable(blocked, 2) == {}
    assert GAME.actions(blocked, seat(2)) == [Command("stay")]
    stayed, events = play(blocked, seat(2), "stay")
    assert types(events) == ["pawn_blocked", "turn_begun"]
    assert stayed.player(2).square == (0, 9) and stayed.current == 3
    free = turn(arrange(state, at={4: (5, 9)}), 2, 3)
    assert refuse(free, seat(2), "stay") == "must_move"
    assert refuse(turn(started(3), 2, 3), seat(2), "stay") == "use_your_board"


@pytest.mark.parametrize("mode", MODES)
def test_c_m4_the_inn_and_the_chapel_are_barred_to_vampires_open_by_phase_to_travellers(mode: str) -> None:
    state = arrange(started(3, mode), at={1: (3, 5), 2: (12, 1), 3: (3, 6)})
    out = "square_out_of_reach"
    day = arrange(state, side="day")
    night = arrange(state, side="night")
    assert refuse_go(turn(day, 1, 1), "inn") == ("vampires_barred" if mode == "own" else out)
    assert refuse_go(turn(night, 1, 1), "inn") == ("vampires_barred" if mode == "own" else out)
    assert refuse_go(turn(day, 3, 1), "inn") == ("building_closed" if mode == "own" else out)
    assert refuse_go(turn(night, 2, 1), "chapel") == ("building_closed" if mode == "own" else out)
    assert go(turn(night, 3, 1), "inn")[0].player(3).place == "inn"
    assert go(turn(day, 2, 1), "chapel")[0].player(2).place == "chapel"


def test_c_m4_no_vampire_enters_the_chapel_zone_beyond_the_torrent() -> None:
    state = arrange(started(3, "companion"), at={1: (9, 3), 2: (9, 4)})
    assert not set(reachable(turn(state, 1, 4), 1)) & BOARD.chapel_zone
    assert set(reachable(turn(state, 2, 4), 2)) & BOARD.chapel_zone
    assert refuse_go(turn(state, 1, 1), (10, 3)) == "square_out_of_reach"


@pytest.mark.parametrize("mode", MODES)
def test_c_m5_the_glass_turns_over_at_once_when_it_runs_out_day_and_night_alternating(mode: str) -> None:
    state = started(3, mode)
    for turns, side in ((1, "night"), (2, "day"), (3, "night")):
        deadline = GAME.deadline(state)
        assert deadline is not None
        state, events = play(state, SYSTEM, "turn_over", at_us=deadline.at_us, **deadline.command.args)
        assert event(events, "glass_turned")["side"] == side
        glass = state.glass
        assert glass is not None
        assert (glass.side, glass.turns, glass.left_us, glass.since_us) == (side, turns, PHASE_US, deadline.at_us)
        assert GAME.view(state, seat(2))["glass"]["side"] == side
    assert refuse(state, seat(1), "turn_over", turns=3) == "not_authorized"


# -- a phase change in the middle of a turn (5.8 item 4) ------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_5_8_4_the_allowance_is_fixed_at_the_roll_when_the_glass_turns_mid_turn(mode: str) -> None:
    state = replace(arrange(started(3, mode), at={2: (3, 9)}), current=2)
    rolled, _ = play(state, seat(2), "roll", Dice(2))
    assert rolled.allowance == 4
    night, _ = play(rolled, SYSTEM, "turn_over", at_us=T0 + PHASE_US, turns=0)
    assert night.side == "night" and night.allowance == 4 and night.stage() == "move"
    assert GAME.view(night, seat(2))["allowance"] == 4
    if mode == "companion":
        assert (7, 9) in reachable(night, 2)
    moved, _ = go(night, (7, 9))
    assert moved.current == 3


@pytest.mark.parametrize("mode", MODES)
def test_5_8_4_access_changes_at_once_and_a_traveller_in_the_closing_chapel_is_told_to_leave(mode: str) -> None:
    state = arrange(started(4, mode), at={2: "chapel", 3: "chapel", 4: (3, 6)})
    state = turn(state, 4, 1)
    assert refuse_go(state, "inn") == ("building_closed" if mode == "own" else "square_out_of_reach")
    night, events = play(state, SYSTEM, "turn_over", at_us=T0 + PHASE_US, turns=0)
    assert event(events, "building_closed") == {"place": "chapel", "seats": [2, 3]}
    assert night.happenings[0]["kind"] == "building_closed"
    inside, _ = go(night, "inn")
    assert inside.player(4).place == "inn"
    leaving = turn(night, 2, 1)
    assert refuse_go(leaving, "chapel") == ("building_closed" if mode == "own" else "square_out_of_reach")
    out, _ = go(leaving, (12, 1))
    assert out.player(2).place == "elsewhere"
    day, events = play(inside, SYSTEM, "turn_over", at_us=T0 + 2 * PHASE_US, turns=1)
    assert event(events, "building_closed") == {"place": "inn", "seats": [4]}
    assert refuse_go(turn(day, 4, 1), "inn") == ("building_closed" if mode == "own" else "square_out_of_reach")


# -- the sand glass: pause, a stale turn-over, a restart of the service --------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_a_paused_glass_refuses_every_seat_command_and_resumes_with_the_sand_left(mode: str) -> None:
    """Every command a phone or the TV offers, allowed while the glass runs, is refused while it is
    paused: the roll, a move, a stay, an offer of blood."""
    state = arrange(started(4, mode), stacks={2: (O1, CROSSES[0]), 3: (O2,)}, at={1: (3, 9), 2: (0, 9), 3: (9, 9),
                                                                                 4: (12, 9)})
    pending = replace(state, transfusions=(_pending(2),))
    situations = [pending, turn(pending, 1, 3), turn(pending, 3, 2)]
    if mode == "companion":
        situations.append(turn(arrange(pending, at={1: (0, 8), 3: (1, 8), 4: (1, 9)}), 2, 2))
    allowed = [(before, actor, command) for before in situations for actor in (TABLE, *map(seat, range(1, 5)))
               for command in GAME.actions(before, actor) if GAME.validate(before, actor, command) is None]
    names = {command.name for _, _, command in allowed}
    assert names == ({"roll", "stop", "offer_blood"} if mode == "own" else {"roll", "move", "stay", "offer_blood"})
    paused, _ = play(situations[1], HOST, "pause_glass", at_us=T0 + 60_000_000)
    assert paused.glass is not None and paused.glass.left_us == PHASE_US - 60_000_000
    assert GAME.deadline(paused) is None and GAME.awaited(paused) == frozenset()
    for before, actor, command in allowed:
        assert refuse_command(replace(before, glass=paused.glass), actor, command) == "glass_paused"
    assert refuse(paused, SYSTEM, "turn_over", turns=0) == "glass_not_running"
    assert refuse(paused, HOST, "pause_glass") == "glass_not_running"
    assert refuse(pending, HOST, "resume_glass") == "glass_running"
    assert GAME.actions(paused, HOST) == [Command("resume_glass")]
    resumed, _ = play(paused, HOST, "resume_glass", at_us=T0 + 500_000_000)
    deadline = GAME.deadline(resumed)
    assert deadline is not None and deadline.at_us == T0 + 500_000_000 + PHASE_US - 60_000_000
    assert go(resumed, (3, 8))[0].current == 2
    assert refuse(resumed, seat(1), "pause_glass") == "host_only"


def test_a_stale_turn_over_is_refused_and_changes_nothing() -> None:
    state = started(3)
    night, _ = play(state, SYSTEM, "turn_over", at_us=T0 + PHASE_US, turns=0)
    assert refuse(night, SYSTEM, "turn_over", turns=0) == "stale_turn_over"
    assert refuse(night, SYSTEM, "turn_over") == "stale_turn_over"


def test_clock_outage_resumes_the_glass_with_the_sand_left_at_the_last_mark() -> None:
    state = started(3)
    after, _ = play(state, SYSTEM, "clock_outage", at_us=5_000, stopped_us=T0 + 50_000_000)
    glass = after.glass
    assert glass is not None and glass.running
    assert (glass.left_us, glass.since_us, glass.side, glass.turns) == (PHASE_US - 50_000_000, 5_000, "day", 0)
    deadline = GAME.deadline(after)
    assert deadline is not None and deadline.at_us == 5_000 + PHASE_US - 50_000_000
    assert deadline.command == Command("turn_over", {"turns": 0})
    late, _ = play(state, SYSTEM, "clock_outage", at_us=5_000, stopped_us=T0 + 2 * PHASE_US)
    assert late.glass is not None and late.glass.left_us == 0
    assert refuse(state, SYSTEM, "clock_outage", stopped_us="later") == "bad_arguments"
    assert refuse(state, seat(1), "clock_outage", stopped_us=T0) == "not_authorized"


# -- 5.8 item 11: the unverified facts are options -------------------------------------------------

def test_5_8_11_the_glass_length_the_blood_groups_their_table_and_the_board_are_options() -> None:
    state = started(3, phase_seconds=60)
    assert state.glass is not None and state.glass.full_us == 60_000_000
    groups = normalize_options({"blood_groups": ["a", "b", "c", "c", "a"],
                                "compatibility": {"A": ["A", "B"], "B": ["B"], "C": ["C"]}})
    assert groups["blood_groups"] == ["A", "B", "C", "C", "A"]
    with pytest.raises(OptionsError) as few:  # C-S2 deals one to each of up to five travellers
        normalize_options({"blood_groups": ["O", "A", "B", "AB"]})
    assert few.value.key == "blood_groups"
    assert GAME.view(started(3), TABLE)["unverified"] == ["phase_seconds", "blood_groups", "compatibility"]
    assert "board" in GAME.view(started(3, "companion"), TABLE)["unverified"]
    small = {"name": "Tiny", "width": 5, "height": 3, "torrent": [[1, 0], [1, 1]], "chapel_zone": [[0, 0], [0, 1]],
             "places": {"chapel": [0, 0], "inn": [2, 2], "crypt": [4, 0], "cemetery": [4, 2], "doctor": [2, 0],
                        "circle": [3, 1]}}
    tiny = started(3, "companion", board=small)
    assert tiny.player(1).square == (4, 0) and tiny.player(2).square == (2, 2)


# -- refused commands change nothing -------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_refused_commands_name_their_reason_and_change_nothing(mode: str) -> None:
    state = arrange(started(4, mode), at={1: (3, 9), 2: (5, 9), 3: "inn", 4: (0, 0)}, side="night",
                    roles={4: "disciple"}, stacks={2: (O1,), 3: (O2,)})
    assert refuse(state, seat(2), "roll") == "not_your_turn"
    assert refuse(state, HOST, "roll") == "not_your_turn"
    assert refuse(state, seat(1), "stop", place="crypt") == "not_now"
    assert refuse(state, seat(1), "dance") == "unknown_command"
    assert refuse(state, seat(9), "roll") == "not_seated"
    moving = turn(state, 1, 4)
    assert refuse_go(moving, (7, 9), actor=seat(2)) == "not_your_turn"
    assert refuse(moving, HOST, "stop", place="crypt") == "not_authorized"
    assert refuse_go(moving, (7, 9), bite=4) == "not_a_traveller"
    assert refuse_go(moving, (7, 9), bite=9) == "no_such_seat"
    assert refuse_go(turn(state, 2, 2), (5, 7), bite=3) == "travellers_do_not_bite"
    assert refuse(moving, seat(1), "offer_blood", victim=2) == "only_travellers_give"
    assert refuse(moving, seat(2), "offer_blood", victim=3) == "no_transfusion_pending"
    assert refuse(moving, seat(2), "offer_blood", victim="3") == "no_transfusion_pending"
    if mode == "own":
        assert refuse(moving, seat(1), "stop", place="castle") == "unknown_place"
        assert refuse(moving, seat(1), "stop", place=7) == "unknown_place"
        assert refuse(moving, seat(1), "stop", place="elsewhere", bite="2") == "bad_arguments"
        assert refuse(moving, seat(1), "stop", place="elsewhere", bite=True) == "bad_arguments"
        assert refuse(moving, seat(1), "stop", place="elsewhere", bite=3) == "victim_sheltered"
        assert refuse(moving, seat(1), "move", to=[4, 9]) == "use_your_board"
    else:
        assert refuse(moving, seat(1), "move", to="far") == "bad_arguments"
        assert refuse(moving, seat(1), "move", to=[4, 9, 1]) == "bad_arguments"
        assert refuse(moving, seat(1), "move", to=[4.0, 9]) == "bad_arguments"
        assert refuse(moving, seat(1), "move", to=[99, 99]) == "square_out_of_reach"
        assert refuse(moving, seat(1), "move", to=[12, 9]) == "square_out_of_reach"
        assert refuse(moving, seat(1), "move", to=[5, 9], bite=2) == "square_out_of_reach"
        assert refuse(moving, seat(1), "move", to=[7, 9], bite=3) == "victim_sheltered"
        assert refuse(moving, seat(1), "move", to=[0, 9], bite=2) == "victim_not_on_the_way"
        assert refuse(moving, seat(1), "stop", place="elsewhere") == "use_the_board"
    over = replace(moving, phase="over")
    assert refuse(over, seat(1), "roll") == "game_over"


def _pending(victim: int) -> Transfusion:
    return Transfusion(victim, "O", 1, 1)
