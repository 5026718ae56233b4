"""Property tests for Dracula (rules/dracula.md): random complete series of rounds on the pure rules.

Hundreds of series at 4 to 13 players, one to three rounds, with the companion or a person as the
game master, players who answer or let the time run out, votes stamped with random phone delays:
every round ends, its Dracula is the one sealed at its deal, the scores follow D-F and the scoring
summary (a dead player's round points are zero; the series total is the sum of the rounds), every
player the game waits on has an allowed answer, no view ever shows anyone a secret the 6.5 matrix
does not give them, and a finished series replays from its log.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from companion.games.base import Event, Viewer, seat
from companion.games.dracula import DRACULA as GAME
from companion.games.dracula.rules import seal_opens
from companion.games.dracula.state import DraculaState
from companion.games.dracula.views import role_token
from companion.sim.players.dracula import Played, play_series
from tests.support.leak import SecretWatch
from tests.support.replay_check import assert_replays

SERIES = 80
SECRET_SHAPE = re.compile(r"(?:role|dracula|object|room|choice|action|news|named|torture|letter)-[0-9a-z-]+"
                          r"|whisper [0-9]+ to [0-9]+ \([^)]*\)|[0-9a-f]{32}")
"""Every secret text: a token (views.py), a letter of random play, the seal's salt."""


def random_table(seed: int) -> tuple[int, dict[str, Any]]:
    rnd = random.Random(f"dracula table {seed}")
    players = 13 if rnd.random() < 0.4 else rnd.randint(4, 12)
    options: dict[str, Any] = {"rounds": rnd.randint(1, 3), "gm": rnd.choice(["companion", "person"])}
    if rnd.random() < 0.3:
        options.update({"sanctuary_capacity": rnd.randint(0, 3), "self_vote": rnd.random() < 0.5})
    return players, options


def invariants(before: DraculaState, after: DraculaState, event: Event) -> None:
    draculas = [p for p in after.players if p.dracula]
    assert len(draculas) == 1 and draculas[0].vampire, "one Dracula, a vampire, in every round"
    if event.type != "round_dealt":
        assert draculas[0].seat == before.dracula, "Dracula never changes within a round"
        assert before.vampires() <= after.vampires() or event.type == "final_resolved", \
            "a vampire never turns back into a human"
    else:
        assert after.vampires() == {after.dracula}, "D-R1: Dracula is the round's only vampire at its deal"
    assert all(p.halves >= 0 for p in after.players), "no negative points"
    if event.type == "night_resolved":
        converted = set(event.data["converted"])
        assert converted <= before.humans() and converted <= after.vampires()
        assert not before.sanctuary or all(s not in converted for s in before.sanctuary), \
            "nobody in the sanctuary is bitten"
        if before.night == 1:
            assert len(converted) <= 1, "D-N1: only Dracula bites on night 1"
    if event.type == "objects_dealt":
        assert before.night == 2 and str(before.dracula) not in event.data["objects"], "D-O: after night 2, not Dracula"
    for s in GAME.awaited(after):
        allowed = [c for c in GAME.actions(after, seat(s))
                   if c.name != "write" and GAME.validate(after, seat(s), c) is None]
        assert allowed, f"seat {s} is awaited in {after.phase} with nothing it may send"


def check_round_scores(before: DraculaState, event: Event) -> None:
    """D-F, the scoring summary and 6.8 items 15-16 on the final phase's event."""
    data = event.data
    dead, burned = set(data["dead"]), set(data["burned"])
    halves = {int(s): h for s, h in data["halves"].items()}
    fighters = {p.seat for p in before.players if p.stance == "fight"}
    fled = {p.seat for p in before.players if p.stance == "flee"}
    if before.dracula in burned:
        assert dead == before.vampires(), "D-F4: Dracula burned, every vampire dies"
    elif fighters:
        assert dead == burned | fighters, "D-F5: the named vampires and every fighter die"
    else:
        assert not dead, "6.8 item 15: no fight, nobody dies"
    for p in before.players:
        if p.seat in dead:
            assert halves[p.seat] == 0, "a dead player loses the round's points"
        elif p.seat in fled:
            assert halves[p.seat] == p.halves + 1, "D-F2: fleeing gives half a point"
        elif p.seat in fighters:
            named = sum(1 for f in fighters if before.player(f).named == before.dracula)
            bonus = {True: 6 if named == 1 else 4, False: 2}[p.named == before.dracula]
            assert halves[p.seat] == p.halves + bonus, "D-F4: +3 alone, +2 each, +1 for the other fighters"
        elif p.vampire and fighters and p.halves == 0:
            assert halves[p.seat] == 2, "D-F5: a living vampire with no point gets one"
        else:
            assert halves[p.seat] == p.halves


def play_checked(seed: int, seen: Counter[str], *watches: Any) -> Played:
    players, options = random_table(seed)

    def check(before: DraculaState, after: DraculaState, event: Event) -> None:
        invariants(before, after, event)
        if event.type == "final_resolved":
            check_round_scores(before, event)
            seen[f"dracula_burned:{event.data['dracula_burned']}"] += 1
        if event.type == "round_ended":
            assert seal_opens(event.data["round"], event.data["commitment"], event.data["dracula"], event.data["salt"])
            assert before.commitment == event.data["commitment"]
        seen[event.type] += 1
        for watch in watches:
            watch(before, after, event)

    played = play_series(players, seed, check, **options)
    state = played.state
    assert state.phase == "over", f"series {seed} did not end"
    assert len(state.rounds_done) == options["rounds"]
    for p in state.players:
        assert p.total_halves == sum(r["halves"][str(p.seat)] for r in state.rounds_done), \
            "the series total is the sum of the rounds"
        for r in state.rounds_done:
            assert p.seat not in r["dead"] or r["halves"][str(p.seat)] == 0
    return played


@pytest.mark.slow
def test_random_complete_series_end_with_scores_by_the_rules() -> None:
    seen: Counter[str] = Counter()
    for seed in range(SERIES):
        play_checked(seed, seen)
    for situation in ("sanctuary_chosen", "objects_dealt", "torture_asked", "disguise_chosen", "night_prepared",
                      "room_settled", "letter_sent", "phase_timed_out", "dracula_burned:True",
                      "dracula_burned:False", "series_ended"):
        assert seen[situation] > 0, f"random play never reached {situation}"


@pytest.mark.slow
def test_no_view_shows_anyone_a_secret_the_rules_do_not_give_them() -> None:
    seen: Counter[str] = Counter()
    watch = SecretWatch(GAME, SECRET_SHAPE)
    for seed in range(1_000_000, 1_000_025):
        play_checked(seed, seen, watch)
    assert watch.leaks == []
    for kind in ("role", "object", "choice", "room", "action", "news", "letter", "dracula", "named"):
        assert watch.owned[kind] > 0, f"no player was ever shown their own {kind}"


def test_the_secret_check_catches_a_vampire_shown_to_another() -> None:
    """A view that tells every player who the vampires are is caught (the check can fail)."""
    def leaky_view(state: DraculaState, viewer: Viewer) -> dict[str, Any]:
        shown = GAME.view(state, viewer)
        return {**shown, "vampires": [role_token(state, p) for p in state.players if p.vampire]}

    seen: Counter[str] = Counter()
    honest, caught = SecretWatch(GAME, SECRET_SHAPE), SecretWatch(replace(GAME, view=leaky_view), SECRET_SHAPE)
    for seed in range(2_000_000, 2_000_002):
        play_checked(seed, seen, honest, caught)
    assert honest.leaks == []
    assert caught.leaks and all("role" in leak for leak in caught.leaks)


@pytest.mark.parametrize("seed", range(3_000_000, 3_000_008))
def test_a_finished_series_replays_from_its_log(seed: int) -> None:
    played = play_checked(seed, Counter())
    assert_replays(GAME, played.options, played.seats, played.setup_draws, played.events, played.turns,
                   played.state)
