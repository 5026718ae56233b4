"""Property tests for La chasse au vampire (rules/chasse-au-vampire.md).

Hundreds of random complete games on the pure rules (companion/sim/players/chasse.py), in both
board modes, with the glass turning over as time passes: after every single event the 26 cards are
conserved (stacks, chapel pile, crypt), every pawn is exactly one of traveller, disciple or the one
master, a vampire never stands in the inn or the chapel, only a traveller holds cards, two pawns
never share an ordinary square of the companion's board, a revealed card was the top of its stack;
every game ends with its winner. After every event no view shows a card of a stack or of the
chapel pile to anyone (the owner and the host included), and a finished game replays from its log.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from companion.games.base import Event, Viewer
from companion.games.chasse import CHASSE_AU_VAMPIRE as GAME
from companion.games.chasse.board import SHARED_PLACES
from companion.games.chasse.state import ChasseState
from companion.sim.players.chasse import BUDGET, Played, play_game
from tests.support.leak import SecretWatch
from tests.support.replay_check import assert_replays

MODES = ("own", "companion")
GAMES = 150


def random_table(seed: int, mode: str) -> tuple[int, dict[str, Any]]:
    """Players and options for one game: the defaults half of the time, else varied readings."""
    rnd = random.Random(f"chasse table {seed}")
    players = rnd.randint(2, 6)
    options: dict[str, Any] = {"board_mode": mode}
    if rnd.random() < 0.5:
        options.update({
            "phase_seconds": rnd.choice([60, 120, 180, 300]),
            "compatibility": rnd.choice(["abo", "same_group"]),
            "movement_mode": rnd.choice(["exact_with_backtrack", "up_to_min_1"]),
            "bite_path": rnd.choice(["cross_square", "stop_before_victim"]),
        })
    return players, options


@dataclass
class Tally:
    games: int = 0
    events: int = 0
    seen: Counter[str] = field(default_factory=Counter)


def invariants(state: ChasseState, after: ChasseState, event: Event) -> None:
    before = state
    state = after
    cards = len(state.cards)
    if state.phase != "start_roll":
        held = [*state.chapel, *state.crypt, *(c for p in state.players for c in p.stack)]
        assert sorted(held) == list(range(cards)), f"the {cards} cards are conserved after {event.type}"
        assert sum(p.role == "master" for p in state.players) == 1
        assert before.phase == "start_roll" or state.master == before.master, "the master vampire never changes"
    for pawn in state.players:
        assert pawn.role in ("master", "disciple", "traveller")
        assert not pawn.vampire or (not pawn.stack and pawn.place not in ("inn", "chapel")), \
            f"seat {pawn.seat} ({pawn.role}) holds no card and never enters the inn or the chapel"
    squares = [p.square for p in state.players if p.square is not None and state.options["board_mode"] == "companion"]
    board = state.options["board"]
    shared = [tuple(board["places"][name]) for name in SHARED_PLACES]
    ordinary = [s for s in squares if s not in shared]
    assert len(ordinary) == len(set(ordinary)), f"two pawns on one square after {event.type}"
    if event.type == "bite_answered":
        assert before.player(event.data["victim"]).stack[0] == event.data["card"], "a riposte shows the top card"
    if event.type == "card_deposited":
        assert before.player(event.data["seat"]).stack[0] == event.data["card"], "a deposit is the top card"
    if event.type == "card_drawn":
        assert before.chapel[0] == event.data["card"] and before.side == "day", "a chapel draw: the top, by day"
    if state.glass is not None:
        assert state.glass.side == ("day" if state.glass.turns % 2 == 0 else "night")
        assert 0 <= state.glass.left_us <= state.glass.full_us


Check = Callable[[ChasseState, ChasseState, Event], None]


def play_checked(seed: int, mode: str, tally: Tally, *more: Check) -> Played:
    players, options = random_table(seed, mode)

    def check(before: ChasseState, after: ChasseState, event: Event) -> None:
        invariants(before, after, event)
        for one in more:
            one(before, after, event)
        tally.events += 1
        tally.seen[event.type] += 1
        for key in ("why", "how", "kind"):
            if key in event.data:
                tally.seen[f"{event.type}:{event.data[key]}"] += 1

    played = play_game(players, options, seed.to_bytes(8, "big") * 4, random.Random(seed), check)
    state = played.state
    assert state.phase == "over", f"game {seed} ({mode}) did not end in {BUDGET} commands"
    won = [e for e in played.events if e.type == "game_won"]
    assert len(won) == 1
    if state.winner == "master":
        assert list(state.winners) == [state.master] and not state.travellers(), "C-E1: the master alone"
    else:
        assert state.winner == "travellers" and sorted(state.winners) == [p.seat for p in state.travellers()]
        assert won[0].data["how"] in ("stake", "trio")
    tally.games += 1
    return played


@pytest.mark.parametrize("mode", MODES)
def test_random_complete_games_end_and_keep_the_invariants(mode: str) -> None:
    tally = Tally()
    for seed in range(GAMES):
        play_checked(seed, mode, tally)
    assert tally.games == GAMES
    for situation in ("start_tied", "glass_turned", "bite_answered", "bite_unanswered", "converted:vampire_card",
                      "converted:no_donor", "converted:nightfall", "vampire_sent:repelled", "vampire_sent:circle",
                      "transfusion_needed", "blood_offered", "donor_lost", "card_drawn", "card_deposited",
                      "card_deposited:vampire", "building_closed", "doctor_reached", "transfusion_done",
                      "game_won:master", "game_won:stake", *(("game_won:trio",) if mode == "own" else ())):
        assert tally.seen[situation] > 0, f"random play never reached {situation} ({mode})"


def test_no_view_shows_a_card_of_a_stack_or_the_pile_to_anyone() -> None:
    tally = Tally()
    watch = SecretWatch(GAME)
    for seed in range(1_000_000, 1_000_030):
        play_checked(seed, MODES[seed % 2], tally, watch)
    assert watch.states == tally.events
    assert watch.secrets > 10 * tally.events, "the stacks and the chapel pile are hidden all game long"
    assert watch.owned == Counter(), "no seat may see even its own cards"
    assert watch.leaks == []


def test_the_secret_check_catches_a_stack_shown_to_its_owner() -> None:
    def leaky_view(state: ChasseState, viewer: Viewer) -> dict[str, Any]:
        shown = GAME.view(state, viewer)
        if viewer.kind == "seat" and state.seated(viewer.seat):
            return {**shown, "my_cards": [state.cards[c].token for c in state.player(viewer.seat or 0).stack]}
        return shown

    tally = Tally()
    honest, caught = SecretWatch(GAME), SecretWatch(replace(GAME, view=leaky_view))
    for seed in range(2_000_000, 2_000_006):
        play_checked(seed, "own", tally, honest, caught)
    assert honest.leaks == []
    assert caught.leaks and all("stack" in leak for leak in caught.leaks)


@pytest.mark.parametrize("mode", MODES)
def test_a_finished_game_replays_from_its_log(mode: str) -> None:
    tally = Tally()
    for seed in range(3_000_000, 3_000_010):
        played = play_checked(seed, mode, tally)
        turns = [(t.actor, t.command, t.draws, t.events) for t in played.turns]
        assert_replays(GAME, played.options, played.seats, played.setup_draws, played.events, turns, played.state)
