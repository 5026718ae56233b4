"""Dracula's state machine, rule by rule (rules/dracula.md D-R, D-1..D-6, D-N, D-F, 6.7-6.9): what
each phase asks, who it waits on, what a late player gets, and what each player is told.

The pure parts (night.py, vote.py, letters.py, final.py) have their own tests; these play the
commands the phones, the host and the service's timer send, through the game's own checks."""

from __future__ import annotations

from typing import Any

import pytest

from companion.games.base import HOST, SYSTEM, TABLE, seat
from companion.games.dracula import DRACULA as GAME
from companion.games.dracula.options import OBJECTS, ROOMS
from companion.games.dracula.rules import seal_opens
from companion.games.dracula.state import Action
from tests.support.dracula_rules import (
    Rigged,
    actions,
    all_ready,
    dracula_step,
    dusk,
    give,
    kinds,
    me,
    moment,
    new_series,
    news,
    night,
    ok,
    play,
    quiet,
    refused,
    send,
    through_day,
    time_up,
    to_phase,
    view,
)

D = 5
"""The first round's Dracula in most tests."""


def day(n: int, dracula: int = D, players: int = 13, **options: Any) -> Any:
    """The start of day `n` of a quiet first round."""
    return to_phase(new_series(players, dracula, **options), "day", n)


# -- the deal (D-R1, D-R2) -----------------------------------------------------------------------------

def test_the_deal_makes_one_dracula_the_only_vampire_and_tells_only_him() -> None:
    state = new_series(13, dracula=D)
    assert state.phase == "roles"
    sheets = {s: me(state, s) for s in range(1, 14)}
    assert [s for s, sheet in sheets.items() if sheet["dracula"]] == [D]
    assert [s for s, sheet in sheets.items() if sheet["role"] == "vampire"] == [D]
    assert all(sheet["role"] == "human" for s, sheet in sheets.items() if s != D)
    for viewer in (TABLE, HOST):
        shown = view(state, viewer)
        assert "me" not in shown and all("role" not in p for p in shown["players"])


def test_the_deal_is_sealed_on_the_table_from_the_start_and_opens_at_the_rounds_end() -> None:
    state = new_series(13, dracula=D)
    commitment = view(state, TABLE)["commitment"]
    assert len(commitment) == 64
    assert state.salt not in str(view(state, TABLE)) and state.salt not in str(view(state, D))
    state = to_phase(state, "round_over")
    done = view(state, TABLE)["rounds_done"][0]
    assert done["dracula"] == D and done["commitment"] == commitment
    assert seal_opens(1, commitment, D, done["salt"])
    assert not seal_opens(1, commitment, D + 1, done["salt"])


def test_the_next_round_is_dealt_afresh_with_every_round_variable_reset() -> None:
    # Round 1: seat 5 is Dracula and converts seat 6; votes put 1, 2, 3 in the sanctuary on night 2.
    state = new_series(13, dracula=D, rounds=2)
    state = all_ready(state)
    state = through_day(state)
    state = night(state, rooms={D: "ballroom", 6: "ballroom"}, acts={D: {"bite": 6}})
    state = all_ready(state)
    state = through_day(state, {v: c for v, c in zip(range(1, 13), [1, 2, 3] * 4, strict=True)})
    assert state.sanctuary == (1, 2, 3)
    state = to_phase(state, "round_over")
    before = {p.seat: p.total_halves for p in state.players}
    assert before[D] == 2 and state.commitment
    old_commitment = state.commitment
    state = ok(send(state, HOST, "next_round", rng=Rigged({1: D, 2: 9})))
    assert (state.round, state.night, state.phase) == (2, 1, "roles")
    assert state.dracula == 9 and state.vampires() == {9}
    assert me(state, 6)["role"] == "human" and not me(state, D)["dracula"]
    assert state.commitment != old_commitment
    assert seal_opens(2, state.commitment, 9, state.salt)
    for p in state.players:
        assert (p.obj, p.used, p.sanctuary_nights, p.snooped, p.halves, p.alive, p.stance, p.news) == \
            (None, None, 0, frozenset(), 0, True, None, ())
        assert p.total_halves == before[p.seat]
    assert (state.sanctuary, state.treasure_rooms, state.waltzes, state.boudoir, state.final) == \
        ((), (), (), frozenset(), None)


# -- the phases on the clock ---------------------------------------------------------------------------

def test_a_round_runs_its_phases_in_the_rules_order() -> None:
    state = new_series(13, dracula=D)
    seen: list[tuple[str, int]] = [(state.phase, state.night)]

    def step(s: Any) -> Any:
        if s.phase == "final_choice":
            s = play(s, min(s.humans()), "stance", stance="fight")
            s = time_up(s)
        else:
            s = quiet(s)
        if (s.phase, s.night) != seen[-1]:
            seen.append((s.phase, s.night))
        return s

    to_phase(state, "round_over", step=step)
    later = [(p, n) for n in range(2, 6) for p in ("day", "dusk", "actions", "dawn")]
    assert seen == [("roles", 1), ("day", 1), ("dusk", 1), ("dracula", 1), ("actions", 1), ("dawn", 1),
                    *later, ("final_choice", 5), ("final_target", 5), ("round_over", 5)]


def test_a_phase_ends_as_soon_as_everyone_it_waits_on_has_answered() -> None:
    state = day(1)
    state = through_day(state)
    assert state.phase == "dusk"
    for s in range(1, 13):
        state = play(state, s, "choose_room", room="jails")
        assert state.phase == "dusk"
    state = play(state, 13, "choose_room", room="jails")
    assert state.phase == "dracula"


def test_time_running_out_gives_the_late_their_defaults_and_tells_only_the_host_who() -> None:
    state = day(3)
    before = {p.seat: p.last_room for p in state.players}
    state = through_day(state, {1: 2})
    # Dusk: seat 1 answers; the others let the time run out and sleep where they slept last night.
    state = play(state, 1, "choose_room", room="torture")
    state = time_up(state)
    assert state.phase == "actions"
    assert state.timed_out == tuple(s for s in range(1, 14) if s not in state.sanctuary and s != 1)
    assert all(state.player(s).room == before[s] for s in state.timed_out)
    assert all(not state.player(s).used for s in state.timed_out)
    assert view(state, HOST)["timed_out"] == list(state.timed_out)
    assert "timed_out" not in view(state, TABLE) and "timed_out" not in view(state, 1)
    # Actions: nobody answers; nobody does anything.
    state = time_up(state)
    assert state.phase == "dawn"
    assert all(state.player(s).action == Action() for s in range(1, 14) if s not in state.sanctuary)
    assert all(news_ == [] for news_ in (news(state, s) for s in range(1, 14)))


def test_the_first_dusk_out_of_time_draws_a_room_and_the_day_out_of_time_casts_no_vote() -> None:
    state = day(1)
    state = time_up(state)
    assert state.phase == "dusk"
    state = time_up(state)
    assert state.phase == "dracula"
    assert all(p.room in ROOMS for p in state.players)
    state = day(2)
    state = play(state, 1, "vote", candidate=2)
    state = time_up(state)
    assert state.phase == "dusk" and state.sanctuary == (2,)
    assert len(state.ballots) == 1 and set(state.timed_out) == set(range(2, 14))


def test_a_timer_for_a_phase_already_over_is_refused() -> None:
    state = day(1)
    old_step = state.step
    state = through_day(state)
    assert refused(send(state, SYSTEM, "time_up", {"step": old_step})) == "stale_time_up"
    assert state.phase == "dusk"
    assert refused(send(state, seat(1), "time_up", {"step": state.step})) != ""


def test_while_the_clock_is_paused_nobody_may_answer_and_the_time_left_is_kept() -> None:
    state = day(2)
    assert state.clock is not None
    start = state.clock.since_us
    state = ok(send(state, HOST, "pause_clock", at_us=start + 100_000_000))
    assert state.clock is not None and state.clock.left_us == 500_000_000 and not state.clock.running
    assert refused(send(state, seat(1), "vote", {"candidate": 2})) == "clock_paused"
    assert refused(send(state, seat(1), "ready")) == "clock_paused"
    assert GAME.deadline(state) is None
    assert refused(send(state, seat(1), "pause_clock")) == "host_only"
    state = ok(send(state, HOST, "resume_clock", at_us=start + 900_000_000))
    assert state.clock is not None and state.clock.ends_us == start + 900_000_000 + 500_000_000
    state = ok(send(state, seat(1), "vote", {"candidate": 2}, at_us=start + 901_000_000))
    assert state.voted(1)


def test_the_host_extends_a_phase_and_ends_one_early_with_the_defaults() -> None:
    state = day(1)
    assert state.clock is not None
    start = state.clock.since_us
    state = ok(send(state, HOST, "extend_clock", {"seconds": 60}, at_us=start + 10_000_000))
    assert state.clock is not None and state.clock.ends_us == start + 660_000_000
    assert refused(send(state, HOST, "extend_clock", {"seconds": 10_000})) == "bad_arguments"
    state = play(state, 1, "ready")
    state = ok(send(state, HOST, "end_phase"))
    assert state.phase == "dusk" and state.timed_out == tuple(range(2, 14))


def test_a_phase_ended_while_paused_still_gives_the_late_their_defaults() -> None:
    state = to_phase(day(1), "dusk")
    state = play(state, HOST, "pause_clock")
    state = play(state, HOST, "end_phase")
    assert state.phase == "dracula" and all(p.room in ROOMS for p in state.players)


def test_a_service_outage_keeps_the_time_the_phase_had_left() -> None:
    state = day(1)
    assert state.clock is not None
    start = state.clock.since_us
    # The service stopped 100 s into the day and came back an hour later: 500 s are left.
    state = ok(send(state, SYSTEM, "clock_outage", {"stopped_us": start + 100_000_000},
                    at_us=start + 3_700_000_000))
    assert state.clock is not None and state.clock.running
    assert state.clock.ends_us == start + 3_700_000_000 + 500_000_000
    deadline = GAME.deadline(state)
    assert deadline is not None and deadline.at_us == state.clock.ends_us


# -- the vote (D-1, 6.7, 6.8 items 1-3) ----------------------------------------------------------------

def test_there_is_no_vote_on_day_1_and_day_1_ends_when_everyone_is_ready() -> None:
    state = day(1)
    assert not view(state, TABLE)["vote_today"]
    assert refused(send(state, seat(1), "vote", {"candidate": 2})) == "no_vote_today"
    state = all_ready(state)
    assert state.phase == "dusk" and state.sanctuary == ()


def test_each_player_votes_once_irrevocably_and_must_vote_before_being_done() -> None:
    state = day(2)
    assert refused(send(state, seat(1), "ready")) == "vote_first"
    state = play(state, 1, "vote", candidate=2)
    assert refused(send(state, seat(1), "vote", {"candidate": 3})) == "already_answered"
    assert refused(send(state, seat(2), "vote", {"candidate": 99})) == "no_such_player"
    assert [b.candidate for b in state.ballots] == [2]


def test_a_player_who_spent_a_night_in_the_sanctuary_cannot_be_voted_in_again() -> None:
    state = day(2)
    state = through_day(state, {1: 4, 2: 4, 3: 7})
    assert set(state.sanctuary) == {4, 7}
    state = to_phase(state, "day", 3)
    assert 4 not in view(state, TABLE)["eligible"] and 7 not in view(state, TABLE)["eligible"]
    assert refused(send(state, seat(1), "vote", {"candidate": 4})) == "not_eligible"
    state = play(state, 1, "vote", candidate=8)
    assert state.voted(1)


def test_the_three_with_most_votes_stay_in_the_sanctuary() -> None:
    state = day(2)
    votes = {1: 9, 2: 9, 3: 9, 4: 8, 5: 8, 6: 8, 7: 11, 8: 11, 9: 12, 10: 13}
    state = through_day(state, votes)
    assert state.phase == "dusk"
    assert set(state.sanctuary) == {8, 9, 11}
    assert view(state, TABLE)["sanctuary"] == list(state.sanctuary)


def test_a_tie_goes_to_the_vote_sent_first_even_when_it_arrived_later() -> None:
    state = day(2)
    t = moment(state)
    # 9 and 8 lead; 11 and 12 have one vote each for the third place. 11's vote reached the table
    # first, but its phone's measured delay says 12's was sent 0.3 s earlier.
    state = ok(send(state, seat(1), "vote", {"candidate": 9}, at_us=t))
    state = ok(send(state, seat(2), "vote", {"candidate": 9}, at_us=t + 1))
    state = ok(send(state, seat(3), "vote", {"candidate": 8}, at_us=t + 2))
    state = ok(send(state, seat(4), "vote", {"candidate": 8}, at_us=t + 3))
    state = ok(send(state, seat(5), "vote", {"candidate": 11}, at_us=t + 10_000_000, delay_us=100_000,
                    uncertainty_us=20_000))
    state = ok(send(state, seat(6), "vote", {"candidate": 12}, at_us=t + 10_200_000, delay_us=500_000,
                    uncertainty_us=20_000))
    shown = view(state, TABLE)["ballots"]
    assert all(set(b) == {"voter", "candidate"} for b in shown), "times are shown only after the count"
    state = play(state, HOST, "end_phase")
    assert set(state.sanctuary) == {8, 9, 12}
    counted = view(state, TABLE)
    assert {b["voter"]: (b["sent_us"], b["uncertainty_us"]) for b in counted["ballots"]}[6] == \
        (t + 10_200_000 - 500_000, 20_000)
    ranking = {row["candidate"]: row for row in counted["tally"]["ranking"]}
    assert ranking[12]["chosen"] and not ranking[11]["chosen"] and not ranking[12]["drawn"]


def test_two_votes_within_their_combined_uncertainty_are_a_tie_settled_by_a_draw() -> None:
    state = day(2)
    t = moment(state)
    for voter, (candidate, at) in enumerate([(9, t), (9, t + 1), (8, t + 2), (8, t + 3)], start=1):
        state = ok(send(state, seat(voter), "vote", {"candidate": candidate}, at_us=at))
    state = ok(send(state, seat(5), "vote", {"candidate": 11}, at_us=t + 10_000_000, uncertainty_us=80_000))
    state = ok(send(state, seat(6), "vote", {"candidate": 12}, at_us=t + 10_100_000, uncertainty_us=80_000))
    results = set()
    for pick in range(2):
        rng = Rigged(D, answers={"sanctuary place": pick})
        after = ok(send(state, HOST, "end_phase", rng=rng))
        assert any(p.startswith("sanctuary place 3 of [11, 12]") for p in rng.asked)
        ranking = {row["candidate"]: row for row in view(after, TABLE)["tally"]["ranking"]}
        assert ranking[11]["drawn"] and ranking[12]["drawn"] and ranking[11]["tied_with"] == [12]
        results.add(frozenset(after.sanctuary))
    assert results == {frozenset({8, 9, 11}), frozenset({8, 9, 12})}


def test_the_sanctuary_guests_choose_no_room_and_no_action() -> None:
    state = day(2)
    state = through_day(state, {1: 2, 3: 4, 5: 6})
    assert set(state.sanctuary) == {2, 4, 6}
    assert set(GAME.awaited(state)) == set(range(1, 14)) - {2, 4, 6}
    assert refused(send(state, seat(2), "choose_room", {"room": "jails"})) == "nothing_asked_of_you"
    state = dusk(state)
    assert state.phase == "actions"
    assert all(state.player(s).room is None for s in (2, 4, 6))
    assert refused(send(state, seat(2), "act", {"treasure": True})) == "nothing_asked_of_you"
    assert "choices" not in me(state, 2)


# -- night 1 (D-3, D-N1) -------------------------------------------------------------------------------

def first_dusk(rooms: dict[int, str]) -> Any:
    return dusk(to_phase(new_series(13, dracula=D), "dusk", 1), rooms)


def test_on_night_1_dracula_alone_sees_the_rooms_and_must_choose_one_with_someone_to_bite() -> None:
    state = first_dusk({D: "jails", 6: "ballroom", 7: "torture"})
    assert state.phase == "dracula"
    sight = {row["seat"]: row["room"] for row in me(state, D)["sight"]}
    assert sight == {s: ("ballroom" if s == 6 else "torture" if s == 7 else "boudoir") for s in range(1, 14) if s != D}
    assert all("sight" not in me(state, s) for s in range(1, 14) if s != D)
    assert view(state, TABLE)["positions"] is None
    # Nobody else is in the jails: he could bite nobody there.
    assert refused(send(state, seat(D), "choose_room", {"room": "jails"})) == "dracula_must_bite"
    # Every phone answers this step (the same request), but only his may change its room.
    assert refused(send(state, seat(6), "choose_room", {"room": "boudoir"})) == "your_room_is_set"
    assert D in GAME.awaited(state) and 6 in GAME.awaited(state)
    state = dracula_step(state, room="torture")
    assert state.phase == "actions"
    assert view(state, TABLE)["positions"] == {str(s): ("ballroom" if s == 6 else "torture" if s in (7, D)
                                                        else "boudoir") for s in range(1, 14)}


def test_on_night_1_nobody_snoops_and_dracula_must_bite() -> None:
    state = dracula_step(first_dusk({D: "ballroom", 6: "ballroom"}))
    assert refused(send(state, seat(1), "act", {"snoop": True})) == "no_snoop_on_night_1"
    assert refused(send(state, seat(D), "act", {})) == "dracula_must_bite"
    assert refused(send(state, seat(D), "act", {"bite": 1})) == "not_in_same_room"
    assert refused(send(state, seat(1), "act", {"bite": 2})) == "humans_do_not_bite"
    state = play(state, D, "act", bite=6)
    assert refused(send(state, seat(D), "act", {"bite": 6})) == "already_answered"


def test_the_bitten_human_learns_at_dawn_that_he_is_a_vampire_and_the_notices_reach_only_their_players() -> None:
    state = dracula_step(first_dusk({D: "ballroom", 6: "ballroom"}))
    assert me(state, 6)["role"] == "human"
    state = actions(state, {D: {"bite": 6}})
    assert state.phase == "dawn"
    assert news(state, D) == [{"kind": "bite", "target": 6, "result": "success"}]
    assert news(state, 6) == [{"kind": "bitten"}, {"kind": "converted"}]
    assert me(state, 6)["role"] == "vampire" and not me(state, 6)["dracula"]
    assert all(news(state, s) == [] for s in range(1, 14) if s not in (D, 6))
    assert "6" not in str([h for h in view(state, TABLE)["happenings"] if h["kind"] == "night_resolved"])
    # The least visited rooms hold the next night's treasure, announced to all.
    assert view(state, TABLE)["treasure_rooms"] == ["jails", "torture"]
    assert state.player(D).halves == 2


def test_the_objects_are_handed_out_at_the_end_of_night_2_to_everyone_but_dracula() -> None:
    state = to_phase(new_series(13, dracula=D), "dawn", 1)
    assert all(me(state, s)["object"] is None for s in range(1, 14))
    state = to_phase(state, "dawn", 2)
    held = {s: me(state, s)["object"] for s in range(1, 14)}
    assert held[D] is None
    kinds_held = [held[s]["kind"] for s in held if s != D]
    assert {k: kinds_held.count(k) for k in OBJECTS} == OBJECTS
    assert all(p.get("object") is None for p in view(state, TABLE)["players"])


# -- dusk from night 3: the maps (D-O3, D-O3v, 6.8 item 14) ----------------------------------------------

def night_3(objects: dict[int, str | None], converted: int = 6) -> Any:
    """Dusk of night 3: seat 5 is Dracula, `converted` was bitten on night 1; the objects given."""
    state = to_phase(new_series(13, dracula=D), "dusk", 1)
    state = night(state, rooms={D: "ballroom", converted: "ballroom"}, acts={D: {"bite": converted}})
    state = to_phase(state, "dusk", 3)
    return give(state, objects)


def test_a_human_map_user_chooses_after_seeing_the_others_rooms_and_another_map_user_is_unknown() -> None:
    state = night_3({1: "map", 2: "map", 3: "garlic"})
    # Nobody votes, so nobody is in the sanctuary.
    state = play(state, 1, "choose_room", room=None, use=True)
    assert refused(send(state, seat(2), "choose_room", {"room": "jails", "use": True})) == "map_chooses_later"
    state = play(state, 2, "choose_room", room=None, use=True)
    state = dusk(state, {D: "torture", 6: "jails"})
    assert state.phase == "maps"
    assert set(GAME.awaited(state)) == {1, 2}
    sight = {row["seat"]: row["room"] for row in me(state, 1)["sight"]}
    assert sight[2] == "unknown" and sight[D] == "torture" and sight[6] == "jails" and sight[3] == "boudoir"
    assert 1 not in sight
    assert all("sight" not in me(state, s) for s in range(3, 14))
    # Who is waited on in this step would tell who is a human with a map: the table is not told.
    assert all(p["answered"] is None for p in view(state, TABLE)["players"])
    state = play(state, 1, "choose_room", room="torture")
    state = play(state, 2, "choose_room", room="jails")
    assert state.phase == "actions"
    positions = view(state, TABLE)["positions"]
    assert (positions["1"], positions["2"]) == ("torture", "jails")
    assert me(state, 1)["object"] is None and me(state, 1)["used"]["kind"] == "map"


def test_a_vampire_map_forces_a_vampire_into_the_named_room() -> None:
    state = night_3({6: "map"})
    # Seat 6 (a vampire now) curses Dracula into the torture room.
    state = play(state, 6, "choose_room", room="boudoir", use=True, curse_target=D, curse_room="torture")
    state = play(state, D, "choose_room", room="jails")
    state = dusk(state)
    assert state.phase == "actions"
    assert view(state, TABLE)["positions"][str(D)] == "torture"
    assert state.player(D).room == "torture"


def test_a_vampire_map_on_a_human_moves_nobody_and_tells_the_user_at_dawn_if_he_was_vampirised() -> None:
    state = night_3({6: "map"})
    state = play(state, 6, "choose_room", room="ballroom", use=True, curse_target=8, curse_room="torture")
    state = dusk(state, {8: "ballroom", D: "ballroom"})
    assert state.player(8).room == "ballroom"
    state = actions(state, {D: {"bite": 8}})
    assert {"kind": "map_result", "target": 8, "vampirised": True} in news(state, 6)
    assert all(n["kind"] != "map_result" for s in range(1, 14) if s != 6 for n in news(state, s))


# -- torture (D-S4, 6.7) -------------------------------------------------------------------------------

def tortured_dracula() -> Any:
    state = night_3({})
    state = dusk(state, {D: "torture", 1: "torture", 2: "torture", 3: "torture"})
    return actions(state, {1: {"snoop": True, "target": D}, 2: {"snoop": True, "target": D}})


def test_dracula_tortured_is_asked_whether_to_pass_for_human_and_his_torturers_are_not() -> None:
    state = tortured_dracula()
    assert state.phase == "torture"
    assert set(GAME.awaited(state)) == {D}
    assert "torture" in me(state, D)
    assert all("torture" not in me(state, s) for s in range(1, 14) if s != D)
    assert all(p["answered"] is None for p in view(state, TABLE)["players"])
    # Every phone may answer alike (a glance or a tap tells nothing); an untortured answer changes nothing.
    state = play(state, 1, "disguise", human=False)
    assert state.phase == "torture" and set(GAME.awaited(state)) == {D}
    assert refused(send(state, seat(1), "disguise", {"human": True})) == "already_answered"
    state = play(state, D, "disguise", human=True)
    assert state.phase == "dawn"
    for torturer in (1, 2):
        assert {"kind": "torture", "target": D, "nature": "human"} in news(state, torturer)
    assert {"kind": "tortured"} in news(state, D)
    assert news(state, 3) == []


def test_dracula_who_lets_the_torture_prompt_run_out_is_shown_as_he_is() -> None:
    state = time_up(tortured_dracula())
    assert state.phase == "dawn" and state.timed_out == (D,)
    assert {"kind": "torture", "target": D, "nature": "vampire"} in news(state, 1)


def torture_of(target: int, passes_for_human: bool) -> tuple[list[str], Any]:
    """Night 3: seats 1 and 2 torture `target`, who answers the prompt if one comes; the phases the
    table went through after the actions, and the dawn."""
    state = night_3({})
    state = dusk(state, {D: "torture", 1: "torture", 2: "torture", 3: "torture", 6: "torture"})
    state = actions(state, {1: {"snoop": True, "target": target}, 2: {"snoop": True, "target": target}})
    seen = [state.phase]
    if state.phase == "torture":
        assert set(GAME.awaited(state)) == {target} and "torture" in me(state, target)
        state = play(state, target, "disguise", human=passes_for_human)
        seen.append(state.phase)
    return seen, state


@pytest.mark.parametrize("target", [3, 6])
def test_the_torturers_cannot_tell_dracula_passing_for_human_from_anyone_else_tortured(target: int) -> None:
    """D-S4: Dracula may pass for human. Were the table to pause for him alone, his torturers would
    know at once that their victim is Dracula, whatever he answered."""
    dracula_seen, dracula_dawn = torture_of(D, passes_for_human=True)
    other_seen, other_dawn = torture_of(target, passes_for_human=True)
    assert other_seen == dracula_seen == ["torture", "dawn"]
    assert news(dracula_dawn, 1) == [{"kind": "torture", "target": D, "nature": "human"}]
    nature = "human" if target == 3 else "vampire"
    assert news(other_dawn, 1) == [{"kind": "torture", "target": target, "nature": nature}], \
        "only Dracula may pass for human"
    assert news(other_dawn, target) == [{"kind": "tortured"}]


def test_the_room_events_of_a_night_go_to_their_players_only() -> None:
    """A waltz, a jail cage, a boudoir count, a candle, garlic and a treasure: each notice on the
    phones 6.5 names."""
    state = night_3({1: "candle", 9: "garlic"})
    treasure = state.treasure_rooms[0]
    state = dusk(state, {1: {"room": "ballroom", "use": True}, 2: "ballroom", 3: "ballroom", D: "ballroom",
                         9: {"room": "jails", "use": True}, 6: "jails", 10: "jails", 11: "jails",
                         12: treasure})
    state = actions(state, {2: {"snoop": True, "target": 3}, 3: {"snoop": True, "target": 2},
                            D: {"bite": 2}, 10: {"snoop": True, "target": 6}, 11: {"snoop": True, "target": 6},
                            6: {"bite": 9}, 4: {"snoop": True}, 12: {"treasure": True}})
    assert kinds(state, 2) == ["waltz"] and kinds(state, 3) == ["waltz"]
    assert news(state, D) == [{"kind": "bite", "target": 2, "result": "failure"}]
    assert news(state, 10) == [{"kind": "caged", "target": 6}] == news(state, 11)
    assert news(state, 6) == [{"kind": "bite", "target": 9, "result": "failure"}]
    assert news(state, 9) == [], "a caged vampire's bite does not happen"
    assert news(state, 4) == [{"kind": "boudoir", "vampires": 2}]
    assert news(state, 12) == [{"kind": "treasure", "room": treasure}] and state.player(12).halves == 2
    candle = news(state, 1)
    assert [n["kind"] for n in candle] == ["candle"] and candle[0]["room"] == "ballroom"
    assert {"kind": "bite", "by": D, "target": 2, "result": "waltz"} in candle[0]["events"]
    assert all(news(state, s) == [] for s in (7, 8, 13))


def test_garlic_saves_a_human_and_tells_him_how_many_bites() -> None:
    state = night_3({9: "garlic"})
    state = dusk(state, {9: {"room": "jails", "use": True}, D: "jails", 6: "jails"})
    state = actions(state, {D: {"bite": 9}, 6: {"bite": 9}})
    assert news(state, 9) == [{"kind": "garlic_saved", "bites": 2}]
    assert news(state, D) == [{"kind": "bite", "target": 9, "result": "garlic"}]
    assert me(state, 9)["role"] == "human" and me(state, 9)["used"]["kind"] == "garlic"


def test_human_map_users_see_the_rooms_after_the_vampire_maps_curses() -> None:
    state = night_3({1: "map", 6: "map"})
    state = play(state, 6, "choose_room", room="boudoir", use=True, curse_target=D, curse_room="torture")
    state = play(state, 1, "choose_room", room=None, use=True)
    state = dusk(state, {D: "jails"})
    assert state.phase == "maps"
    assert {row["seat"]: row["room"] for row in me(state, 1)["sight"]}[D] == "torture"


# -- private messages (D-1, D-S1, D-S2, 6.9) -------------------------------------------------------------

def test_a_humans_forged_message_is_refused_and_changes_nothing() -> None:
    state = day(2)
    outcome = send(state, seat(1), "write", {"to": 2, "text": "I am human"})
    assert refused(outcome) == "humans_cannot_write"
    assert state.letters == () and me(state, 1)["may_write"] == []
    forged = send(state, seat(1), "write", {"to": 2, "text": "psst", "kind": "boudoir_letter"})
    assert refused(forged) == "boudoir_title_reserved"


def test_a_vampire_writes_to_anyone_by_day_but_not_from_dusk() -> None:
    state = day(2)
    assert {m["to"] for m in me(state, D)["may_write"] if m["kind"] == "message"} == set(range(1, 14)) - {D}
    state = play(state, D, "write", to=8, text="join me")
    assert [(x.sender, x.recipient, x.text) for x in state.letters] == [(D, 8, "join me")]
    titled = send(state, seat(D), "write", {"to": 8, "text": "x", "title": "Lettre du Boudoir"})
    assert refused(titled) == "boudoir_title_reserved"
    state = through_day(state)
    assert state.phase == "dusk"
    assert refused(send(state, seat(D), "write", {"to": 8, "text": "tonight"})) == "no_messages_now"
    assert me(state, D)["may_write"] == []


def test_a_letter_is_shown_to_its_sender_and_its_recipient_only() -> None:
    state = play(day(2), D, "write", to=8, text="a secret tryst")
    assert [x["text"] for x in me(state, D)["letters"]] == ["a secret tryst"]
    assert [x["text"] for x in me(state, 8)["letters"]] == ["a secret tryst"]
    for viewer in [TABLE, HOST, *(seat(s) for s in range(1, 14) if s not in (D, 8))]:
        assert "a secret tryst" not in str(view(state, viewer))


def waltz_and_boudoir() -> Any:
    """Night 2: seats 1 and 2 waltz in the ballroom, seat 3 snoops the boudoir; day 3 begins."""
    state = to_phase(new_series(13, dracula=D), "dusk", 2)
    state = night(state, rooms={1: "ballroom", 2: "ballroom", D: "jails", 4: "jails"},
                  acts={1: {"snoop": True, "target": 2}, 2: {"snoop": True, "target": 1}, 3: {"snoop": True}})
    assert kinds(state, 1) == ["waltz"] and kinds(state, 3) == ["boudoir"]
    return to_phase(state, "day", 3)


def test_waltz_partners_may_write_to_each_other_the_next_day_only() -> None:
    state = waltz_and_boudoir()
    assert me(state, 1)["may_write"] == [{"to": 2, "kind": "message"}]
    assert refused(send(state, seat(1), "write", {"to": 4, "text": "hi"})) == "not_your_partner"
    state = play(state, 1, "write", to=2, text="same room tomorrow?")
    state = play(state, 2, "write", to=1, text="yes")
    assert refused(send(state, seat(4), "write", {"to": 1, "text": "hi"})) == "humans_cannot_write"
    state = to_phase(state, "day", 4)
    assert refused(send(state, seat(1), "write", {"to": 2, "text": "again"})) == "humans_cannot_write"


def test_the_boudoir_snooper_sends_one_letter_the_next_day_and_its_recipient_one_reply() -> None:
    state = waltz_and_boudoir()
    assert {"to": 7, "kind": "boudoir_letter"} in me(state, 3)["may_write"]
    assert refused(send(state, seat(3), "write", {"to": 7, "text": "x", "kind": "boudoir_letter",
                                                   "title": "mine"})) == "title_locked"
    state = play(state, 3, "write", to=7, text="who are you?", kind="boudoir_letter")
    assert refused(send(state, seat(3), "write", {"to": 8, "text": "and you?", "kind": "boudoir_letter"})) == \
        "letter_already_sent"
    assert refused(send(state, seat(8), "write", {"to": 3, "text": "me?", "kind": "boudoir_reply"})) == \
        "no_letter_to_answer"
    assert me(state, 7)["may_write"] == [{"to": 3, "kind": "boudoir_reply"}]
    state = play(state, 7, "write", to=3, text="a human", kind="boudoir_reply")
    assert refused(send(state, seat(7), "write", {"to": 3, "text": "really", "kind": "boudoir_reply"})) == \
        "reply_already_sent"
    assert [(x["from"], x["kind"]) for x in me(state, 3)["letters"]] == [(3, "boudoir_letter"), (7, "boudoir_reply")]
    assert "who are you?" not in str(view(state, 8)) and "a human" not in str(view(state, TABLE))
    state = to_phase(state, "day", 4)
    assert refused(send(state, seat(3), "write", {"to": 9, "text": "again", "kind": "boudoir_letter"})) == \
        "boudoir_title_reserved"


# -- the final phase and the scores (D-F, the scoring summary) -------------------------------------------

def final_choice(players: int = 13) -> Any:
    """The final phase of a round in which Dracula (5) converted seat 6 on night 1 and seat 12
    found a treasure on night 2."""
    state = to_phase(new_series(players, dracula=D), "dusk", 1)
    state = night(state, rooms={D: "ballroom", 6: "ballroom"}, acts={D: {"bite": 6}})
    state = to_phase(state, "dusk", 2)
    state = night(state, rooms={12: state.treasure_rooms[0]}, acts={12: {"treasure": True}})
    assert state.player(12).halves == 2
    return to_phase(state, "final_choice", 5)


def test_the_final_phase_shows_who_is_a_vampire_but_not_who_is_dracula() -> None:
    state = final_choice()
    table = view(state, TABLE)
    assert {p["seat"] for p in table["players"] if p["role"] == "vampire"} == {D, 6}
    assert "dracula" not in str(table["players"]) and "dracula-" not in str(table)
    assert set(GAME.awaited(state)) == set(range(1, 14)) - {D, 6}
    assert refused(send(state, seat(6), "stance", {"stance": "flee"})) == "nothing_asked_of_you"


def test_burning_dracula_scores_the_fighters_and_kills_every_vampire() -> None:
    state = final_choice()
    state = play(state, 1, "stance", stance="fight")
    state = play(state, 2, "stance", stance="fight")
    assert refused(send(state, seat(1), "stance", {"stance": "flee"})) == "already_answered"
    for s in range(3, 14):
        if s not in (D, 6):
            state = play(state, s, "stance", stance="flee")
    assert state.phase == "final_target" and set(GAME.awaited(state)) == {1, 2}
    assert refused(send(state, seat(1), "name_vampire", {"vampire": 3})) == "not_a_vampire"
    state = play(state, 1, "name_vampire", vampire=D)
    state = play(state, 2, "name_vampire", vampire=6)
    assert state.phase == "round_over"
    final = view(state, TABLE)["final"]
    assert final["dracula_burned"] and set(final["burned"]) == {D, 6} and set(final["dead"]) == {D, 6}
    done = view(state, TABLE)["rounds_done"][0]
    halves = {int(s): h for s, h in done["halves"].items()}
    assert halves[1] == 6 and halves[2] == 2 and halves[12] == 2 + 1 and halves[3] == 1
    assert halves[D] == 0 and halves[6] == 0, "the dead lose the round's points"
    assert {p["seat"]: p["total"] for p in view(state, TABLE)["players"]}[1] == 3.0
    assert sorted(done["dead"]) == [D, 6] and done["dracula"] == D


def test_fighters_who_miss_dracula_die_and_living_vampires_without_points_get_one() -> None:
    state = final_choice()
    state = play(state, 1, "stance", stance="fight")
    state = time_up(state)
    assert state.player(2).stance == "none"
    state = play(state, 1, "name_vampire", vampire=6)
    final = view(state, TABLE)["final"]
    assert not final["dracula_burned"] and set(final["dead"]) == {1, 6}
    halves = {p.seat: p.halves for p in state.players}
    assert halves[1] == 0 and halves[6] == 0 and halves[D] == 2, "Dracula has a point, so no bonus"
    assert halves[2] == 0 and halves[12] == 2, "a human who never chose neither fled nor fought"


def test_a_fighter_who_names_nobody_in_time_still_fights() -> None:
    state = final_choice()
    state = play(state, 1, "stance", stance="fight")
    state = time_up(state)
    state = time_up(state)
    assert state.phase == "round_over"
    final = view(state, TABLE)["final"]
    assert 1 in final["dead"] and not final["dracula_burned"]


def test_a_round_with_no_human_left_ends_at_dawn_without_a_final_phase() -> None:
    state = to_phase(new_series(4, dracula=1), "dusk", 1)
    state = night(state, rooms={s: "ballroom" for s in range(1, 5)}, acts={1: {"bite": 2}})
    state = to_phase(state, "dusk", 2)
    state = night(state, rooms={s: "ballroom" for s in range(1, 5)}, acts={1: {"bite": 3}, 2: {"bite": 4}})
    assert state.humans() == frozenset() and state.phase == "dawn"
    state = all_ready(state)
    assert state.phase == "round_over" and state.night == 2 and state.final is None
    assert {int(s): h for s, h in view(state, TABLE)["rounds_done"][0]["halves"].items()} == {1: 4, 2: 2, 3: 0, 4: 0}


def test_the_series_ends_after_its_last_round_with_the_totals() -> None:
    state = to_phase(new_series(13, dracula=D, rounds=2), "round_over")
    state = play(state, HOST, "next_round")
    state = to_phase(state, "round_over")
    assert state.round == 2
    state = play(state, HOST, "next_round")
    assert state.phase == "over" and GAME.is_over(state)
    assert [r["round"] for r in view(state, TABLE)["rounds_done"]] == [1, 2]


# -- the game master (6.9) -----------------------------------------------------------------------------

def test_a_person_gm_sees_the_grimoire_and_confirms_each_night_before_anyone_is_told() -> None:
    state = to_phase(new_series(13, dracula=D, gm="person"), "dusk", 1)
    state = dusk(state, {D: "ballroom", 6: "ballroom"})
    grimoire = view(state, HOST)["grimoire"]
    assert [p["seat"] for p in grimoire["players"] if p["dracula"]] == [D]
    assert {p["seat"]: p["choice"]["room"] for p in grimoire["players"]}[6] == "ballroom"
    state = dracula_step(state)
    state = actions(state, {D: {"bite": 6}})
    assert state.phase == "confirm"
    assert news(state, D) == [] and me(state, 6)["role"] == "human"
    grimoire = view(state, HOST)["grimoire"]
    assert {p["seat"]: p["action"] for p in grimoire["players"]}[D]["bite"] == 6
    assert grimoire["pending"]["converted"] == [6]
    assert refused(send(state, seat(D), "confirm_night")) == "host_only"
    state = play(state, HOST, "confirm_night")
    assert state.phase == "dawn" and me(state, 6)["role"] == "vampire"
    state = to_phase(state, "day", 2)
    state = play(state, D, "write", to=8, text="for the grimoire")
    assert [x["text"] for x in view(state, HOST)["grimoire"]["letters"]] == ["for the grimoire"]


def test_with_the_companion_as_gm_the_host_sees_what_the_table_sees_and_who_timed_out() -> None:
    state = new_series(13, dracula=D)

    def same(s: Any) -> Any:
        host = view(s, HOST)
        assert host.pop("timed_out") == list(s.timed_out)
        assert host == view(s, TABLE), s.phase
        return quiet(s)

    state = to_phase(state, "round_over", step=same)
    same(state)


def test_the_host_can_end_the_role_reading_when_a_phone_never_answers() -> None:
    """A lost phone must not hold the table at the deal: the host ends the phase like any other."""
    state = all_ready(new_series(13, dracula=D), but=[7])
    assert state.phase == "roles" and set(GAME.awaited(state)) == {7}
    assert "end_phase" in [c.name for c in GAME.actions(state, HOST)], "the host console offers it"
    state = play(state, HOST, "end_phase")
    assert state.phase == "day" and state.night == 1
    assert view(state, HOST)["timed_out"] == [7]


def test_a_converted_human_uses_garlic_as_a_vampire_and_steals_his_biters_points() -> None:
    """6.8 item 18 and D-O1: seat 6, converted on night 1, holds garlic; Dracula bites him."""
    state = night_3({6: "garlic"})
    assert state.player(D).halves == 2
    state = dusk(state, {6: {"room": "jails", "use": True}, D: "jails"})
    state = actions(state, {D: {"bite": 6}})
    assert news(state, D) == [{"kind": "bite", "target": 6, "result": "failure"}]
    assert news(state, 6) == [{"kind": "bitten"}]
    assert (state.player(D).halves, state.player(6).halves) == (0, 2)


def test_a_vampire_with_a_candle_may_bite_and_snoop_and_without_one_may_not() -> None:
    state = night_3({6: "candle"})
    state = dusk(state, {6: {"room": "jails", "use": True}, D: "jails", 1: "jails", 2: "jails"})
    assert refused(send(state, seat(D), "act", {"bite": 1, "snoop": True, "target": 2})) == "one_action_only"
    assert refused(send(state, seat(1), "act", {"treasure": True, "snoop": True, "target": 2})) == \
        "one_action_only"
    state = play(state, 6, "act", bite=1, snoop=True, target=2)
    assert state.player(6).action == Action(bite=1, snoop=True, snoop_target=2)


def test_a_player_snoops_once_per_room_in_a_round() -> None:
    state = to_phase(new_series(13, dracula=D), "dusk", 2)
    state = night(state, rooms={1: "jails", 2: "jails"}, acts={1: {"snoop": True, "target": 2}})
    assert me(state, 1)["snooped"] == ["jails"]
    state = to_phase(state, "dusk", 3)
    state = dusk(state, {1: "jails", 2: "jails", 3: "torture", 4: "torture"})
    assert refused(send(state, seat(1), "act", {"snoop": True, "target": 2})) == "already_snooped_here"
    refusal = {c["kind"]: c["refused"] for c in me(state, 1)["choices"] if c["args"].get("target") == 2}
    assert refusal["snoop"] == "already_snooped_here", "the phone shows why"


def test_in_the_final_phase_the_living_vampires_write_and_the_humans_do_not() -> None:
    state = final_choice()
    state = play(state, 6, "write", to=1, text="spare me")
    assert refused(send(state, seat(1), "write", {"to": 6, "text": "no"})) == "humans_cannot_write"


def test_a_human_map_user_who_lets_the_time_run_out_sleeps_where_he_slept_last_night() -> None:
    state = night_3({1: "map"})
    last = state.player(1).last_room
    assert last is not None
    state = play(state, 1, "choose_room", room=None, use=True)
    state = dusk(state, {s: "torture" for s in range(2, 14)})
    assert state.phase == "maps"
    state = time_up(state)
    assert state.phase == "actions" and state.timed_out == (1,)
    assert view(state, TABLE)["positions"]["1"] == last
    assert me(state, 1)["used"]["kind"] == "map", "the map is spent all the same"


def test_the_host_is_told_who_let_the_last_phase_run_out_and_nobody_once_a_phase_ends_in_time() -> None:
    state = play(day(1), 1, "ready")
    state = time_up(state)
    assert view(state, HOST)["timed_out"] == list(range(2, 14))
    state = dusk(state)
    assert state.phase == "dracula"
    assert view(state, HOST)["timed_out"] == [], "everyone chose a room in time"
