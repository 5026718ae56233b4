"""Dracula's state machine, rule by rule (rules/dracula.md D-R, D-1..D-6, D-N, D-F, 6.7-6.9): what
each phase asks, who it waits on, what a late player gets, and what each player is told.

The pure parts (night.py, vote.py, letters.py, final.py) have their own tests; these play the
commands the phones, the host and the service's timer send, through the game's own checks."""

from __future__ import annotations

from typing import Any

from companion.games.base import HOST, SYSTEM, TABLE, seat
from companion.games.dracula import DRACULA as GAME
from companion.games.dracula.options import ROOMS
from companion.games.dracula.rules import seal_opens
from companion.games.dracula.state import Action
from tests.support.dracula_rules import (
    Rigged,
    all_ready,
    dusk,
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
