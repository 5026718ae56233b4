"""Dracula's night resolution (companion/games/dracula/night.py), rule by rule (rules/dracula.md).

Each test names the rules it pins: D-S1..D-S4 (snoops), D-B1..D-B4 (bites), D-T1..D-T3 (treasure),
D-O1..D-O3 and D-O3v (objects), D-N1 (night 1), the night's lines of the 6.5 "who learns what"
matrix and the 6.8 resolutions 5..14. Wherever a night is resolved, the WHOLE notices mapping is
asserted, so a test also says that nobody else was told anything. A property test then resolves
random legal nights.

Seats are written as `human(1, "jails", ...)`, `vampire(...)`, `dracula(...)`: a player's nature
at the start of the night, its final room (None: the sanctuary) and its choices.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.dracula.night import (
    NOTICE_KINDS,
    OBJECTS,
    ROOMS,
    UNKNOWN,
    Night,
    Outcome,
    Sleeper,
    action_problem,
    apply_curses,
    map_sight,
    resolve,
    tortured,
    treasure_rooms,
)


def human(seat: int, room: str | None, **choices: Any) -> Sleeper:
    return Sleeper(seat, vampire=False, dracula=False, room=room, **choices)


def vampire(seat: int, room: str | None, **choices: Any) -> Sleeper:
    return Sleeper(seat, vampire=True, dracula=False, room=room, **choices)


def dracula(seat: int, room: str | None, **choices: Any) -> Sleeper:
    return Sleeper(seat, vampire=True, dracula=True, room=room, **choices)


def night(*sleepers: Sleeper, number: int = 3, **rest: Any) -> Night:
    return Night(number=number, sleepers=sleepers, **rest)


def told(outcome: Outcome) -> dict[int, list[dict[str, Any]]]:
    """The notices as plain lists, to compare with a whole expected mapping."""
    return {seat: [dict(n) for n in notices] for seat, notices in outcome.notices.items()}


BITTEN = {"kind": "bitten"}
CONVERTED = {"kind": "converted"}


def bite(target: int, result: str) -> dict[str, Any]:
    return {"kind": "bite", "target": target, "result": result}


# -- D-S1 ballroom: the waltz ---------------------------------------------------------------------

def test_d_s1_dancers_who_aim_at_each_other_waltz_and_a_stranger_cannot_bite_them() -> None:
    """D-S1, 6.5 (waltz: a channel; a waltz dancer attacked by a non-partner: biter "failure", the
    dancer not told)."""
    out = resolve(night(human(1, "ballroom", snoop=True, snoop_target=2),
                        human(2, "ballroom", snoop=True, snoop_target=1),
                        vampire(3, "ballroom", bite=1),
                        human(4, "ballroom")))
    assert out.waltzes == ((1, 2),)
    assert out.converted == frozenset()
    assert told(out) == {1: [{"kind": "waltz", "partner": 2}], 2: [{"kind": "waltz", "partner": 1}],
                         3: [bite(1, "failure")]}
    assert {"kind": "bite", "by": 3, "target": 1, "result": "waltz"} in out.room_log["ballroom"]


def test_d_s1_a_waltz_protects_a_garlic_vampire_before_its_garlic_steals() -> None:
    """D-S1 before D-O1 (decided): the waltz keeps the stranger's bite off the dancer, so no steal."""
    out = resolve(night(vampire(1, "ballroom", snoop=True, snoop_target=2, used="garlic"),
                        human(2, "ballroom", snoop=True, snoop_target=1),
                        vampire(3, "ballroom", bite=1, points=2)))
    assert out.points == {1: 0, 2: 0, 3: 2}
    assert told(out) == {1: [{"kind": "waltz", "partner": 2}], 2: [{"kind": "waltz", "partner": 1}],
                         3: [bite(1, "failure")]}


def test_d_s1_6_8_item_10_the_partner_may_bite_with_a_candle_and_both_spent_their_snoop() -> None:
    """D-S1 ("sauf le cavalier"), D-O2 (vampire candle: bite and snoop), 6.8 item 10."""
    out = resolve(night(human(1, "ballroom", snoop=True, snoop_target=2),
                        vampire(2, "ballroom", used="candle", snoop=True, snoop_target=1, bite=1)))
    assert out.waltzes == ((1, 2),)
    assert out.converted == {1}
    assert out.points == {1: 0, 2: 1}
    assert out.snooped == {1: "ballroom", 2: "ballroom"}
    assert told(out) == {1: [{"kind": "waltz", "partner": 2}, BITTEN, CONVERTED],
                         2: [{"kind": "waltz", "partner": 1}, bite(1, "success")]}


def test_d_s1_a_snoop_not_returned_is_no_waltz_and_nobody_is_told() -> None:
    """D-S1, 6.5 (failed snoops are not told): one-sided aims spend the snoop, silently."""
    out = resolve(night(human(1, "ballroom", snoop=True, snoop_target=2),
                        human(2, "ballroom", snoop=True, snoop_target=3),
                        human(3, "ballroom")))
    assert out.waltzes == ()
    assert out.snooped == {1: "ballroom", 2: "ballroom"}
    assert told(out) == {}


# -- D-S2 boudoir ----------------------------------------------------------------------------------

def test_d_s2_6_8_item_8_the_boudoir_counts_the_vampires_after_the_conversions() -> None:
    """D-S2 (the count; one letter the next day), 6.8 item 8, 6.5 (boudoir: the number of vampires)."""
    out = resolve(night(human(1, "boudoir", snoop=True),
                        dracula(2, "ballroom", bite=3),
                        human(3, "ballroom"),
                        vampire(4, "jails"),
                        human(5, None)))
    assert out.boudoir == {1}
    assert told(out) == {1: [{"kind": "boudoir", "vampires": 3}], 2: [bite(3, "success")],
                         3: [BITTEN, CONVERTED]}


# -- D-S3 jails ------------------------------------------------------------------------------------

def test_d_s3_a_caged_vampire_cannot_bite_but_can_be_bitten_and_only_its_jailers_know() -> None:
    """D-S3, 6.5 (jail cage: the successful snoopers; the caged player is not told), 6.8 item 9."""
    out = resolve(night(human(1, "jails", snoop=True, snoop_target=3),
                        human(2, "jails", snoop=True, snoop_target=3),
                        vampire(3, "jails", bite=4),
                        human(4, "jails"),
                        vampire(5, "jails", bite=3)))
    assert out.caged == {3}
    assert out.converted == frozenset()
    assert told(out) == {1: [{"kind": "caged", "target": 3}], 2: [{"kind": "caged", "target": 3}],
                         3: [bite(4, "failure"), BITTEN], 5: [bite(3, "failure")]}
    assert {"kind": "bite", "by": 3, "target": 4, "result": "caged"} in out.room_log["jails"]


def test_d_s3_one_jailer_cages_nobody() -> None:
    """D-S3 (>= 2 snoopers), 6.5 (a failed snoop is not told)."""
    out = resolve(night(human(1, "jails", snoop=True, snoop_target=3),
                        vampire(3, "jails", bite=4),
                        human(4, "jails")))
    assert out.caged == frozenset()
    assert out.converted == {4}
    assert told(out) == {3: [bite(4, "success")], 4: [BITTEN, CONVERTED]}


def test_6_8_item_9_a_caged_player_still_snoops_and_searches() -> None:
    """6.8 item 9: the cage takes only the bite; the caged vampire's own jail snoop succeeds, and a
    caged human finds the treasure."""
    out = resolve(night(human(1, "jails", snoop=True, snoop_target=3),
                        human(2, "jails", snoop=True, snoop_target=3),
                        vampire(3, "jails", used="candle", snoop=True, snoop_target=5, bite=5),
                        vampire(4, "jails", snoop=True, snoop_target=5),
                        human(5, "jails", treasure=True),
                        treasure_rooms=frozenset({"jails"})))
    assert out.caged == {3, 5}
    assert out.points == {1: 0, 2: 0, 3: 0, 4: 0, 5: 1}
    assert told(out) == {1: [{"kind": "caged", "target": 3}], 2: [{"kind": "caged", "target": 3}],
                         3: [{"kind": "caged", "target": 5}, bite(5, "failure")],
                         4: [{"kind": "caged", "target": 5}], 5: [{"kind": "treasure", "room": "jails"}]}


# -- D-S4 torture ----------------------------------------------------------------------------------

def torture_night(**rest: Any) -> Night:
    return night(human(1, "torture", snoop=True, snoop_target=3),
                 human(2, "torture", snoop=True, snoop_target=3),
                 dracula(3, "torture"),
                 human(4, "torture", used="candle"), **rest)


@pytest.mark.parametrize(("disguised", "nature"), [(False, "vampire"), (True, "human")])
def test_d_s4_torturers_learn_the_nature_and_dracula_may_pass_for_human(disguised: bool, nature: str) -> None:
    """D-S4, 6.5 (torture: the torturers learn the nature, the target that it was tortured), and the
    candle holder sees what the torturers see (decided)."""
    assert tortured(torture_night()) == {3}
    out = resolve(torture_night(disguised=disguised))
    assert out.tortured == {3}
    torture = {"kind": "torture", "target": 3, "nature": nature}
    events = [{"kind": "present", "seats": [1, 2, 3, 4]},
              {"kind": "snoop", "by": 1, "target": 3}, {"kind": "snoop", "by": 2, "target": 3},
              {"kind": "tortured", "seat": 3, "nature": nature}]
    assert told(out) == {1: [torture], 2: [torture], 3: [{"kind": "tortured"}],
                         4: [{"kind": "candle", "room": "torture", "events": events}]}


def test_d_s4_a_disguise_only_hides_dracula() -> None:
    """D-S4: only Dracula may pass for human; another tortured vampire shows its nature."""
    out = resolve(night(human(1, "torture", snoop=True, snoop_target=3),
                        human(2, "torture", snoop=True, snoop_target=3),
                        vampire(3, "torture"), dracula(4, "boudoir"), disguised=True))
    assert told(out)[1] == [{"kind": "torture", "target": 3, "nature": "vampire"}]


def test_6_8_item_7_three_torturers_all_learn_and_one_alone_learns_nothing() -> None:
    """6.8 item 7; D-S4 (>= 2). The nature is the one the night began with."""
    out = resolve(night(human(1, "torture", snoop=True, snoop_target=4),
                        vampire(2, "torture", snoop=True, snoop_target=4),
                        human(3, "torture", snoop=True, snoop_target=4),
                        human(4, "torture"),
                        human(5, "torture", snoop=True, snoop_target=6),
                        human(6, "torture"),
                        vampire(7, "torture", bite=4)))
    torture = {"kind": "torture", "target": 4, "nature": "human"}
    assert told(out) == {1: [torture], 2: [torture], 3: [torture], 4: [{"kind": "tortured"}, BITTEN, CONVERTED],
                         7: [bite(4, "success")]}
    assert out.snooped == {1: "torture", 2: "torture", 3: "torture", 5: "torture"}


# -- D-B bites -------------------------------------------------------------------------------------

def test_d_b2_d_b3_a_bitten_human_turns_at_dawn_and_its_biter_scores() -> None:
    """D-B2 (the biter told "success"; the bitten told "bitten", never by whom), D-B3 (+1), 6.5 (own
    role: the converted are told at dawn)."""
    out = resolve(night(vampire(1, "boudoir", bite=2, points=1), human(2, "boudoir"), human(3, "boudoir")))
    assert out.converted == {2}
    assert out.points == {1: 2, 2: 0, 3: 0}
    assert told(out) == {1: [bite(2, "success")], 2: [BITTEN, CONVERTED]}


def test_d_b3_6_8_item_5_two_biters_of_one_human_both_succeed_and_score() -> None:
    """D-B3 (each +1), 6.8 item 5 (success = helps convert a human); "bitten" is told once (decided)."""
    out = resolve(night(vampire(1, "jails", bite=3), dracula(2, "jails", bite=3), human(3, "jails")))
    assert out.converted == {3}
    assert out.points == {1: 1, 2: 1, 3: 0}
    assert told(out) == {1: [bite(3, "success")], 2: [bite(3, "success")], 3: [BITTEN, CONVERTED]}


def test_d_b2_d_b3_6_8_item_5_biting_a_vampire_fails_scores_nothing_but_it_feels_the_bite() -> None:
    """D-B2 (the bitten vampire is told too), D-B3 (no point), 6.8 item 5 (failure)."""
    out = resolve(night(vampire(1, "torture", bite=2, points=1), dracula(2, "torture", points=2)))
    assert out.converted == frozenset()
    assert out.points == {1: 1, 2: 2}
    assert told(out) == {1: [bite(2, "failure")], 2: [BITTEN]}


@pytest.mark.parametrize(("choices", "problem"), [
    ({"bite": 2, "snoop": True, "snoop_target": 2}, "one_action_only"),
    ({"bite": 2}, None),
    ({"snoop": True, "snoop_target": 2}, None),
])
def test_d_b1_a_vampire_bites_one_player_or_snoops(choices: dict[str, Any], problem: str | None) -> None:
    """D-B1, D-4 (bite or snoop); the bite field holds one seat, so one bite per night."""
    assert action_problem(night(vampire(1, "jails"), human(2, "jails")), 1, **choices) == problem


def test_d_b1_d_o2_a_vampire_candle_lets_it_bite_and_snoop() -> None:
    """D-B1 (the candle exception), D-O2 vampire."""
    lit = night(vampire(1, "jails", used="candle"), human(2, "jails"), human(3, "jails"))
    assert action_problem(lit, 1, bite=2, snoop=True, snoop_target=3) is None
    assert action_problem(lit, 1, bite=2, snoop=True, snoop_target=3, treasure=True) == "vampires_do_not_search"


# -- D-O1 / D-B4 garlic ----------------------------------------------------------------------------

def test_d_o1_d_b4_garlic_stops_every_bite_on_a_human() -> None:
    """D-O1 human, D-B4, 6.5 (biter: "garlic"; the human: the number of bites avoided, not bitten)."""
    out = resolve(night(vampire(1, "ballroom", bite=3), vampire(2, "ballroom", bite=3),
                        human(3, "ballroom", used="garlic")))
    assert out.converted == frozenset()
    assert out.points == {1: 0, 2: 0, 3: 0}
    assert told(out) == {1: [bite(3, "garlic")], 2: [bite(3, "garlic")], 3: [{"kind": "garlic_saved", "bites": 2}]}


def test_d_o1_garlic_unused_by_a_bite_tells_nothing() -> None:
    """D-O1: "how many bites avoided" is told when some were."""
    out = resolve(night(human(1, "ballroom", used="garlic"), human(2, "ballroom")))
    assert told(out) == {}


def test_d_o1_6_8_item_11_a_garlic_vampire_steals_every_biter_s_points() -> None:
    """D-O1 vampire, 6.8 item 11, 6.5 (garlic steal: biter "failure"; holder "bitten"; no notice of
    the points moved)."""
    out = resolve(night(vampire(1, "boudoir", bite=3, points=2), dracula(2, "boudoir", bite=3, points=1),
                        vampire(3, "boudoir", used="garlic", points=1)))
    assert out.points == {1: 0, 2: 0, 3: 4}
    assert told(out) == {1: [bite(3, "failure")], 2: [bite(3, "failure")], 3: [BITTEN]}
    assert [e["result"] for e in out.room_log["boudoir"] if e["kind"] == "bite"] == ["stolen", "stolen"]


def test_6_8_item_11_chained_steals_use_the_points_held_when_the_bites_began() -> None:
    """6.8 item 11 ("in any order"): bites are simultaneous (decided), so listing the sleepers in
    another order gives the same points, and no point is created or lost."""
    sleepers = (vampire(1, "jails", bite=2, points=3),
                vampire(2, "jails", used="garlic", bite=3, points=1),
                vampire(3, "jails", used="garlic", points=0))
    out = resolve(night(*sleepers))
    assert out.points == {1: 0, 2: 3, 3: 1}
    assert resolve(night(*reversed(sleepers))) == out


# -- D-O2 candle -----------------------------------------------------------------------------------

def test_d_o2_a_human_candle_sees_everything_in_its_room_and_nothing_elsewhere() -> None:
    """D-O2 human, 6.5 (candle: the full event log of the holder's room; other events: nobody)."""
    out = resolve(night(human(1, "jails", used="candle", treasure=True),
                        vampire(2, "jails", bite=3), human(3, "jails", snoop=True, snoop_target=2),
                        vampire(4, "boudoir", bite=5), human(5, "boudoir"),
                        human(6, None),
                        treasure_rooms=frozenset({"jails"})))
    events = [{"kind": "present", "seats": [1, 2, 3]},
              {"kind": "snoop", "by": 3, "target": 2},
              {"kind": "bite", "by": 2, "target": 3, "result": "success"},
              {"kind": "treasure", "seat": 1, "found": True}]
    assert list(out.room_log["jails"]) == events
    assert told(out) == {1: [{"kind": "treasure", "room": "jails"},
                             {"kind": "candle", "room": "jails", "events": events}],
                         2: [bite(3, "success")], 3: [BITTEN, CONVERTED],
                         4: [bite(5, "success")], 5: [BITTEN, CONVERTED]}


# -- D-O3 maps -------------------------------------------------------------------------------------

def test_d_o3_a_human_map_shows_every_other_destination() -> None:
    """D-O3 human: every other player's room, the sanctuary as None."""
    rooms = {1: None, 2: "jails", 3: None, 4: "boudoir"}
    assert map_sight(rooms, frozenset({1}), 1) == {2: "jails", 3: None, 4: "boudoir"}


def test_d_o3_6_8_item_14_two_human_maps_hide_each_other_after_the_curses() -> None:
    """D-O3 (two human maps), 6.8 item 14 (shown "unknown"; vampire curses applied first)."""
    rooms = {1: None, 2: None, 3: "jails", 4: "boudoir", 5: "ballroom"}
    cursed = apply_curses(rooms, {3: (4, "torture")}, vampires=frozenset({3, 4}))
    assert map_sight(cursed, frozenset({1, 2}), 1) == {2: UNKNOWN, 3: "jails", 4: "torture", 5: "ballroom"}
    assert map_sight(cursed, frozenset({1, 2}), 2) == {1: UNKNOWN, 3: "jails", 4: "torture", 5: "ballroom"}


@pytest.mark.parametrize(("curses", "expected"), [
    ({1: (2, "torture")}, {2: "torture"}),                         # a vampire target is forced
    ({1: (3, "torture")}, {3: "jails"}),                            # a human target is untouched
    ({1: (4, "torture")}, {4: None}),                               # the sanctuary is protected
    ({5: (2, "torture")}, {2: "boudoir"}),                          # a human's "curse" does nothing
    ({1: (2, "torture"), 6: (2, "ballroom")}, {2: "torture"}),     # two curses: the lower curser's
    ({6: (2, "ballroom"), 1: (2, "torture")}, {2: "torture"}),
])
def test_d_o3v_a_vampire_map_forces_a_vampire_into_a_room(curses: dict[int, tuple[int, str]],
                                                          expected: dict[int, str | None]) -> None:
    """D-O3v (forced), 6.5 (map curse: no private notice; the positions show it)."""
    rooms = {1: "jails", 2: "boudoir", 3: "jails", 4: None, 5: "jails", 6: "jails"}
    cursed = apply_curses(rooms, curses, vampires=frozenset({1, 2, 4, 6}))
    assert cursed == {**rooms, **expected}


@pytest.mark.parametrize(("bitten", "vampirised"), [(True, True), (False, False)])
def test_d_o3v_the_map_user_learns_at_dawn_whether_its_human_turned(bitten: bool, vampirised: bool) -> None:
    """D-O3v (human target: told at dawn), 6.5 (vampire map user)."""
    out = resolve(night(vampire(1, "jails", used="map", map_target=2),
                        human(2, "boudoir"), dracula(3, "boudoir", bite=2 if bitten else None)))
    expected = {1: [{"kind": "map_result", "target": 2, "vampirised": vampirised}]}
    if bitten:
        expected |= {2: [BITTEN, CONVERTED], 3: [bite(2, "success")]}
    assert told(out) == expected


def test_d_o3v_a_map_on_a_vampire_tells_its_user_nothing() -> None:
    """6.5 (map curse: no private notice)."""
    out = resolve(night(vampire(1, "jails", used="map", map_target=2), vampire(2, "torture")))
    assert told(out) == {}


# -- D-T treasure ----------------------------------------------------------------------------------

def test_d_t2_a_human_searching_a_treasure_room_gains_a_point_and_is_told() -> None:
    """D-T2 (+1, told privately), 6.5 (treasure points: the winners)."""
    out = resolve(night(human(1, "torture", treasure=True, points=1), human(2, "torture", treasure=True),
                        human(3, "boudoir", treasure=True),
                        treasure_rooms=frozenset({"torture", "jails"})))
    assert out.points == {1: 2, 2: 1, 3: 0}
    assert told(out) == {1: [{"kind": "treasure", "room": "torture"}], 2: [{"kind": "treasure", "room": "torture"}]}


def test_d_t2_6_8_item_12_a_human_bitten_while_searching_finds_nothing() -> None:
    """D-T2 ("still human"), 6.8 item 12; with garlic it stays human and finds it."""
    out = resolve(night(human(1, "torture", treasure=True), human(2, "torture", treasure=True, used="garlic"),
                        vampire(3, "torture", bite=1), vampire(4, "torture", bite=2),
                        treasure_rooms=frozenset({"torture"})))
    assert out.points == {1: 0, 2: 1, 3: 1, 4: 0}
    assert told(out) == {1: [BITTEN, CONVERTED], 2: [{"kind": "garlic_saved", "bites": 1},
                                                      {"kind": "treasure", "room": "torture"}],
                         3: [bite(1, "success")], 4: [bite(2, "garlic")]}


@pytest.mark.parametrize(("rooms", "least"), [
    (["boudoir", "ballroom", "jails", "torture", "boudoir"], ("ballroom", "jails", "torture")),
    (["boudoir", "ballroom", "jails", "boudoir", None], ("torture",)),      # an empty room is least
    (["jails", "jails", "torture", "boudoir", "ballroom", "ballroom"], ("boudoir", "torture")),
    ([None, None, None, "jails"], ("boudoir", "ballroom", "torture")),    # the sanctuary counts nowhere
])
def test_d_t1_6_8_item_13_treasure_lies_in_the_least_visited_rooms(rooms: list[str | None],
                                                                   least: tuple[str, ...]) -> None:
    """D-T1, 6.8 item 13 (0 visitors is least; ties give several rooms, in ROOMS order)."""
    assert treasure_rooms(night(*(human(i, room) for i, room in enumerate(rooms, 1)))) == least


def test_d_t3_the_treasure_disappears_the_next_rooms_come_from_this_night_s_visits() -> None:
    """D-T3: this night's treasure room, once crowded, is not the next night's."""
    crowded = night(human(1, "jails", treasure=True), human(2, "jails"), human(3, "boudoir"),
                    human(4, "ballroom"), human(5, "torture"), treasure_rooms=frozenset({"jails"}))
    assert treasure_rooms(crowded) == ("boudoir", "ballroom", "torture")


# -- D-N1 night 1 ----------------------------------------------------------------------------------

def test_d_n1_dracula_must_bite_and_nobody_snoops() -> None:
    """D-N1: Dracula must vampirise a human; nobody may snoop; others may do nothing."""
    first = night(dracula(1, "jails"), human(2, "jails"), human(3, "boudoir"), number=1)
    assert action_problem(first, 1) == "dracula_must_bite"
    assert action_problem(first, 1, snoop=True, snoop_target=2) == "no_snoop_on_night_1"
    assert action_problem(first, 2, snoop=True, snoop_target=1) == "no_snoop_on_night_1"
    assert action_problem(first, 1, bite=2) is None
    assert action_problem(first, 2) is None
    assert action_problem(first, 3, treasure=True) is None
    out = resolve(replace(first, sleepers=(dracula(1, "jails", bite=2), *first.sleepers[1:])))
    assert out.converted == {2}
    assert told(out) == {1: [bite(2, "success")], 2: [BITTEN, CONVERTED]}


@pytest.mark.parametrize("sleepers", [
    (dracula(1, "jails", bite=2), human(2, "jails"), human(3, None)),          # D-N1: no sanctuary
    (dracula(1, "jails", bite=2), human(2, "jails"), vampire(3, "boudoir")),   # D-N1: only Dracula
    (dracula(1, "jails", bite=2), human(2, "jails", used="garlic")),           # D-N2: no object yet
])
def test_d_n1_d_n2_an_impossible_first_night_is_refused(sleepers: tuple[Sleeper, ...]) -> None:
    """D-N1, D-N2: the state machine never builds these; resolve refuses them as a programmer error."""
    with pytest.raises(ValueError, match="illegal night"):
        resolve(night(*sleepers, number=1))


# -- action problems -------------------------------------------------------------------------------

TABLE = night(human(1, "jails"), vampire(2, "jails"), human(3, "boudoir"), human(4, None),
              vampire(5, "boudoir"), human(6, "torture"), snooped={1: frozenset({"jails"}), 3: frozenset({"torture"})})


@pytest.mark.parametrize(("seat", "choices", "problem"), [
    (1, {}, None),                                                      # doing nothing is allowed
    (4, {}, None),
    (4, {"treasure": True}, "in_the_sanctuary"),
    (4, {"snoop": True, "snoop_target": 1}, "in_the_sanctuary"),
    (1, {"bite": 2}, "humans_do_not_bite"),
    (2, {"treasure": True}, "vampires_do_not_search"),
    (1, {"snoop": True, "snoop_target": 2, "treasure": True}, "one_action_only"),
    (6, {"snoop": True}, "target_needed"),
    (3, {"snoop": True, "snoop_target": 5}, "no_target"),                # the boudoir takes no target
    (6, {"snoop_target": 6}, "no_target"),                              # a target with no snoop
    (5, {"snoop": True}, None),
    (2, {"bite": 2}, "cannot_target_yourself"),
    (6, {"snoop": True, "snoop_target": 6}, "cannot_target_yourself"),
    (2, {"bite": 3}, "not_in_same_room"),
    (2, {"bite": 4}, "not_in_same_room"),                               # the sanctuary is no room
    (6, {"snoop": True, "snoop_target": 1}, "not_in_same_room"),
    (2, {"bite": 99}, "not_in_same_room"),
    (1, {"snoop": True, "snoop_target": 2}, "already_snooped_here"),    # 6.8 item 6: per round
    (2, {"snoop": True, "snoop_target": 1}, None),
    (5, {"bite": 3, "snoop": True}, "one_action_only"),                  # no candle: bite or snoop
    (1, {"treasure": True}, None),
])
def test_action_problems(seat: int, choices: dict[str, Any], problem: str | None) -> None:
    """D-4 (vampires bite or snoop, humans snoop or search), D-S (a target in the same room, none in
    the boudoir), 6.8 item 6 (once per room per round), D-2 (the sanctuary acts not)."""
    assert action_problem(TABLE, seat, **choices) == problem


def test_6_8_item_6_a_snoop_elsewhere_is_still_allowed() -> None:
    """6.8 item 6: the once-per-round limit is per room, so seat 3 may snoop the boudoir after the
    torture room."""
    assert action_problem(TABLE, 3, snoop=True) is None


@pytest.mark.parametrize("sleepers", [
    (human(1, "jails"), human(1, "boudoir")),                              # a seat twice
    (human(1, "cellar"),),                                                 # no such room
    (human(1, None, used="candle"),),                                      # no object in the sanctuary
    (dracula(1, "jails", used="garlic"),),                                 # Dracula gets no object
    (human(1, "jails", used="map", map_target=2), vampire(2, "jails")),    # a human map names nobody
    (human(1, "jails", bite=2), human(2, "jails")),                        # an illegal action
])
def test_resolve_refuses_a_night_the_state_machine_should_never_build(sleepers: tuple[Sleeper, ...]) -> None:
    with pytest.raises(ValueError, match="illegal night"):
        resolve(night(*sleepers))


def test_dracula_s_missing_first_bite_still_ends_the_night() -> None:
    """D-N1 is a rule for his choice: if his deadline passes with no bite, the night still resolves."""
    out = resolve(night(dracula(1, "jails"), human(2, "jails"), number=1))
    assert out.converted == frozenset()
    assert told(out) == {}


# -- random legal nights ---------------------------------------------------------------------------

@st.composite
def legal_nights(draw: st.DrawFn) -> Night:
    """A random night the state machine could build: 4..13 players, Dracula among them, objects from
    night 3, at most 3 in the sanctuary, and every action one that `action_problem` allows."""
    number = draw(st.integers(1, 5))
    count = draw(st.integers(4, 13))
    seats = list(range(1, count + 1))
    dracula_seat = draw(st.sampled_from(seats))
    vampires = {dracula_seat} | (set() if number == 1 else set(draw(st.lists(st.sampled_from(seats)))))
    sanctuary = set() if number == 1 else set(draw(st.lists(st.sampled_from(seats), max_size=3)))
    rooms = {seat: None if seat in sanctuary else draw(st.sampled_from(ROOMS)) for seat in seats}
    base = []
    for seat in seats:
        used = None
        if number >= 3 and seat != dracula_seat and rooms[seat] is not None:
            used = draw(st.sampled_from((None, *OBJECTS)))
        map_target = draw(st.sampled_from(seats)) if used == "map" and seat in vampires else None
        base.append(Sleeper(seat, seat in vampires, seat == dracula_seat, rooms[seat], used=used,
                            map_target=map_target, points=draw(st.sampled_from((0, 0, 1, 2, 3)))))
    snooped = {seat: frozenset(draw(st.lists(st.sampled_from(ROOMS), max_size=1))) for seat in seats}
    shell = Night(number, tuple(base), treasure_rooms=frozenset() if number == 1 else frozenset(
        draw(st.lists(st.sampled_from(ROOMS), min_size=1, max_size=2))), snooped=snooped)
    sleepers = []
    for s in base:
        others = [o for o in seats if rooms[o] == s.room and o != s.seat]
        kind = draw(st.sampled_from(("nothing", "bite", "snoop", "snoop", "snoop", "treasure", "bite and snoop")))
        choice: dict[str, Any] = {"bite": None, "snoop": False, "snoop_target": None, "treasure": False}
        if "bite" in kind and others:
            choice["bite"] = draw(st.sampled_from(others))
        if "snoop" in kind:
            # aims at one of the room's two first others, so that cages, tortures and waltzes happen
            aim = None if s.room == "boudoir" or not others else draw(st.sampled_from(others[:1] + others[:2]))
            choice |= {"snoop": True, "snoop_target": aim}
        choice["treasure"] = kind == "treasure"
        allowed = action_problem(shell, s.seat, **choice) is None
        sleepers.append(replace(s, **choice) if allowed else s)
    return replace(shell, sleepers=tuple(sleepers), disguised=draw(st.booleans()))


@settings(max_examples=300, deadline=None, database=None)
@given(legal_nights(), st.randoms(use_true_random=False))
def test_any_legal_night_keeps_the_rules_promises(drawn: Night, rnd: Any) -> None:
    """Points move only by the rules, the converted are bitten humans, only players in a room are
    told anything and only of the 6.5 kinds, and the sleepers' order changes nothing."""
    out = resolve(drawn)
    json.dumps({"notices": out.notices, "rooms": out.room_log})  # they travel to phones and the log as they are
    by_seat = {s.seat: s for s in drawn.sleepers}
    before = {s.seat: s.points for s in drawn.sleepers}
    bitten_humans = {s.bite for s in drawn.sleepers if s.bite is not None and not by_seat[s.bite].vampire}
    assert out.converted <= bitten_humans

    notices = [(seat, n) for seat, ns in out.notices.items() for n in ns]
    assert {n["kind"] for _, n in notices} <= NOTICE_KINDS
    assert set(out.notices) <= {s.seat for s in drawn.sleepers if s.room is not None}
    results = Counter(n["result"] for _, n in notices if n["kind"] == "bite")
    treasures = sum(n["kind"] == "treasure" for _, n in notices)
    assert sum(out.points.values()) == sum(before.values()) + results["success"] + treasures
    for seat, points in out.points.items():
        s, mine = by_seat[seat], out.notices.get(seat, ())
        gained = points - before[seat]
        if not s.vampire:
            assert gained == any(n["kind"] == "treasure" for n in mine), "a human scores by treasure only"
            continue
        in_a_steal = (s.used == "garlic" and BITTEN in mine) or (
            s.bite is not None and by_seat[s.bite].vampire and by_seat[s.bite].used == "garlic")
        if not in_a_steal:
            assert gained == (bite(s.bite or 0, "success") in mine), "a vampire scores by converting only"
    for seat in out.converted:
        assert {"kind": "bitten"} in out.notices[seat] and {"kind": "converted"} in out.notices[seat]

    shuffled = list(drawn.sleepers)
    rnd.shuffle(shuffled)
    assert resolve(replace(drawn, sleepers=tuple(shuffled))) == out
