"""La nuit des vampires' turn, rule by rule: the onion bonus and the move (N-T0, N-T1, N-L2..N-L4),
the duel check (N-T2, N-D4), the fate card after a move (N-T3, N-F1..N-F5), replenishing (N-T4),
duels (N-D1..N-D3), the castle, the towers and the oubliettes (N-C1..N-C5, N-E1), the turn order,
the refusals, the views, and the resolutions of ambiguities 4..12 and 14.

Every draw comes from a script (tests/test_nuit_rules.py's Script): the shuffles keep the built
order (magic cards 0-3 elixir_1, 4-6 elixir_2, 7-8 elixir_3, 9-12 glove, 13-15 tempo, 16-21
bridge, 22-25 duel +1, 26-27 duel +2, 28-29 duel +3; with 3 players seat 1 holds 0-2, seat 2 3-5,
seat 3 6-8, the display 9-11), and the dice show the pips a test names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from companion.fairness.sealed import SealedFact, opens
from companion.games.base import HOST, SYSTEM, TABLE, Command, Event, Viewer, seat
from companion.games.nuit import NUIT_DES_VAMPIRES as GAME
from companion.games.nuit.rules import GAME_ID, SEAL_NAME
from companion.games.nuit.state import COURTYARD, OUBLIETTES, START, NuitState
from companion.games.nuit.turn import waiting_for
from companion.i18n import catalogue
from tests.test_nuit_rules import (
    VIEWERS,
    assert_conserved,
    body,
    do,
    faces,
    kinds,
    new_game,
    playing,
    refuse,
)

RED = [1, 2, 2, 3, 3, 4]
BLACK = [1, 1, 2, 2, 3, 3]
FACES = {"red": RED, "black": BLACK}
ERRORS = set(catalogue("en")["error"])
F1, F2, F3 = "fate-1", "fate-2", "fate-3"
Draws = Sequence[tuple[str, int]]


# -- helpers -----------------------------------------------------------------------------------

def no(state: NuitState, actor: Viewer, command: str, **args: Any) -> str:
    """The refusal's code, which the translations must know."""
    code = refuse(state, actor, command, **args)
    assert code in ERRORS, f"{code} has no message in en.json"
    return code


def types(events: Sequence[Event]) -> list[str]:
    return [e.type for e in events]


def dice(purpose: str, turn: int, red: int, black: int) -> list[tuple[str, int]]:
    """Both dice of a tax, replenish or escape roll with these pips."""
    return [(f"{purpose} roll turn {turn} red die", RED.index(red)),
            (f"{purpose} roll turn {turn} black die", BLACK.index(black))]


def duel_die(turn: int, round_: int, who: int, die: str, pips: int) -> tuple[str, int]:
    return (f"duel turn {turn} round {round_} seat {who} {die} die", FACES[die].index(pips))


def put(state: NuitState, who: int, *, bottles: int | None = None, hand: Sequence[int] | None = None,
        onions: int | None = None, location: str | None = None) -> NuitState:
    """A player in a precise situation; the bottles come from (or go to) the reserve, the cards from
    the deck, the display (refilled from the deck top) or other hands (the old hand goes under the
    deck), so the ledger stays whole."""
    player = state.player(who)
    changes: dict[str, Any] = {}
    reserve, deck, display, players, seen = state.reserve, state.deck, state.display, state.players, state.magic_seen
    if bottles is not None:
        reserve -= bottles - player.bottles
        changes["bottles"] = bottles
    if hand is not None:
        wanted = tuple(hand)
        deck = (*(c for c in deck if c not in wanted), *(c for c in player.hand if c not in wanted))
        display = tuple(c for c in display if c not in wanted)
        short = state.options["display_magic"] - len(display)
        display, deck = (*display, *deck[:short]), deck[short:]
        players = tuple(replace(p, hand=tuple(c for c in p.hand if c not in wanted)) for p in players)
        seen = seen | set(wanted) | set(display)
        changes["hand"] = wanted
    if onions is not None:
        changes["onions"] = onions
    if location is not None:
        changes["location"] = location
    players = tuple(replace(p, **changes) if p.seat == who else p for p in players)
    state = replace(state, players=players, reserve=reserve, deck=deck, display=display, magic_seen=seen)
    assert_conserved(state)
    return state


def on_top(state: NuitState, colour: str, kind: str) -> NuitState:
    """The stack of this colour turned (a fixed cycle, N-F6) until a card of this kind is on top."""
    i = state.colours.index(colour)
    stack = state.stacks[i]
    k = next(j for j, c in enumerate(stack) if state.fate[c].kind == kind)
    stacks = tuple((*s[k:], *s[:k]) if n == i else s for n, s in enumerate(state.stacks))
    return replace(state, stacks=stacks)


def tops(state: NuitState, kind: str) -> NuitState:
    for colour in state.colours:
        state = on_top(state, colour, kind)
    return state


def calm(**options: Any) -> NuitState:
    """Seat 1 to play; every stack shows a gain-ketchup card, so a plain move ends the turn."""
    return tops(playing(**options), "gain_ketchup")


def moving(state: NuitState, who: int = 1) -> NuitState:
    state, events = do(state, seat(who), "move")
    assert types(events) == ["move_begun"] and state.stage() == "moving"
    return state


def turn_of(state: NuitState, who: int) -> NuitState:
    """`who` to choose (a consistent turn: current, stage and the move cleared)."""
    return replace(state, current=who, turn={"stage": "choose", "seat": who}, move={}, duel=None)


def asked(events: Sequence[Event]) -> dict[str, Any]:
    last = [e for e in events if e.type == "asked"]
    assert last, f"nothing asked: {types(events)}"
    return dict(last[-1].data)


# -- N-T0: the onion bonus --------------------------------------------------------------------------

def test_n_t0_one_display_card_per_onion_before_the_move() -> None:
    state = moving(put(calm(), 1, hand=[0], onions=2))
    assert state.move["bonus"] == 2
    state, events = do(state, seat(1), "take", card=9)
    assert types(events) == ["magic_taken", "display_refilled"]
    assert state.player(1).hand == (0, 9) and state.display == (10, 11, 12), "N-L4: refilled from the deck top"
    state, _ = do(state, seat(1), "take", card=12)
    assert state.player(1).hand == (0, 9, 12) and state.move["bonus"] == 0
    assert no(state, seat(1), "take", card=10) == "no_bonus"


def test_n_t0_the_bonus_lapses_at_the_stop_and_comes_back_at_the_next_move() -> None:
    state = moving(put(calm(), 1, hand=[0], onions=1))
    state, _ = do(state, seat(1), "stop", spaces=1, at=F1)
    assert state.current == 2 and state.player(1).hand == (0,), "not taken before the stop: lost"
    assert no(state, seat(1), "take", card=9) == "not_now"
    state = moving(turn_of(state, 1))
    assert state.move["bonus"] == 1, "one card per onion, not the unused ones carried over"


def test_n_t0_limits_permitting_a_full_hand_takes_nothing() -> None:
    state = moving(put(calm(), 1, hand=[0, 1, 2, 13, 16], onions=1))
    assert no(state, seat(1), "take", card=9) == "hand_full"


def test_n_t0_without_an_onion_there_is_no_card_to_take() -> None:
    state = moving(calm())
    assert state.move["bonus"] == 0
    assert no(state, seat(1), "take", card=9) == "no_bonus"
    assert all(c.name != "take" for c in GAME.actions(state, seat(1)))


# -- N-T1: the move ------------------------------------------------------------------------------

def test_n_t1_the_first_space_is_free_each_further_space_costs_a_bottle() -> None:
    for spaces, cost in ((1, 0), (2, 1), (3, 2)):
        state = moving(calm())
        reserve = state.reserve
        state, events = do(state, seat(1), "stop", spaces=spaces, at=F1)
        paid = [e.data["paid"] for e in events if e.type == "bottles_paid"]
        assert paid == ([cost] if cost else [])
        # the gain-ketchup card of fate-1 gives one bottle back afterwards
        assert state.player(1).bottles == 4 - cost + 1 and state.reserve == reserve + cost - 1
        assert state.player(1).location == F1


def test_n_t1_a_move_the_bottles_cannot_pay_is_refused_and_changes_nothing() -> None:
    state = moving(put(calm(), 1, bottles=1))
    before = state
    assert no(state, seat(1), "stop", spaces=3, at=F2) == "not_enough_bottles"
    assert state == before and state.player(1).bottles == 1 and state.stage() == "moving"
    state, _ = do(state, seat(1), "stop", spaces=2, at=F2)
    assert state.player(1).bottles == 0 + 2, "paid 1, then fate-2's gain-ketchup gives 2"


@pytest.mark.parametrize("spaces", [0, 4, -1, "2", True, 2.0, None])
def test_n_t1_a_move_is_one_to_three_spaces(spaces: Any) -> None:
    assert no(moving(calm()), seat(1), "stop", spaces=spaces, at=F1) == "move_spaces"


@pytest.mark.parametrize("at", ["oubliettes", "start", "", None, 3, ["fate-1"], {"x": 1}])
def test_n_t1_a_move_ends_on_a_fate_colour_or_in_the_courtyard(at: Any) -> None:
    assert no(moving(calm()), seat(1), "stop", spaces=1, at=at) == "no_such_place"


def test_n_t1_tempo_spaces_are_free_and_the_card_goes_under_the_deck() -> None:
    state = moving(put(calm(), 1, hand=[13, 14]))
    state, events = do(state, seat(1), "play", card=13, spaces=3)
    assert state.deck[-1] == 13, "N-L3: a used card goes to the bottom of the deck"
    assert state.player(1).hand == (14,) and state.move["tempo"] == 3 and state.move["played"] == 1
    state, _ = do(state, seat(1), "play", card=14, spaces=2)
    state, events = do(state, seat(1), "stop", spaces=1, at=F3)
    assert "bottles_paid" not in types(events), "6 spaces for nothing: 5 by tempo, the first free"
    moved = next(e for e in events if e.type == "player_moved")
    assert moved.data["spaces"] == 1 and moved.data["tempo"] == 5


@pytest.mark.parametrize("spaces", [0, 4, True, "1", 1.0, None])
def test_n_t1_a_tempo_card_gives_one_to_three_spaces(spaces: Any) -> None:
    state = moving(put(calm(), 1, hand=[13]))
    assert no(state, seat(1), "play", card=13, spaces=spaces) == "tempo_spaces"


def test_n_l2_three_magic_cards_per_move_duel_cards_not_counted() -> None:
    state = put(calm(), 1, hand=[13, 14, 15, 16, 22])
    state = put(state, 2, location=F2)
    state = moving(state)
    for card in (13, 14, 15):
        state, _ = do(state, seat(1), "play", card=card, spaces=1)
    assert state.move["played"] == 3
    assert no(state, seat(1), "play", card=16, use="place") == "magic_limit"
    state, events = do(state, seat(1), "stop", spaces=1, at=F2)
    assert asked(events) == {"seat": 1, "choice": "meet", "at": F2, "seats": [2]}
    state, _ = do(state, seat(1), "duel", seat=2)
    # Seat 2 holds no duel card: it is ready at once; seat 1 may still play its duel card.
    assert waiting_for(state) == [1]
    state, events = do(state, seat(1), "duel_card", [duel_die(1, 1, 1, "red", 4), duel_die(1, 1, 2, "black", 3)],
                        card=22)
    played = next(e for e in events if e.type == "magic_played")
    assert played.data["counted"] is False and state.move["played"] == 3
    rolled = next(e for e in events if e.type == "duel_rolled")
    assert rolled.data["rolls"]["1"] == {"die": "red", "face": 4, "bonus": 1, "total": 5}


def test_n_l2_the_limit_is_an_option() -> None:
    state = moving(put(calm(max_magic_per_move=1), 1, hand=[13, 14]))
    state, _ = do(state, seat(1), "play", card=13, spaces=1)
    assert no(state, seat(1), "play", card=14, spaces=1) == "magic_limit"


def test_ambiguity_7_an_elixir_counts_only_during_its_owners_move() -> None:
    state = put(calm(), 1, hand=[0, 13, 14, 15])
    state, events = do(state, seat(1), "cash", card=0)
    assert events[0].data["counted"] is False and state.player(1).bottles == 5
    state = moving(state)
    state, _ = do(state, seat(1), "play", card=13, spaces=1)
    state, _ = do(state, seat(2), "cash", card=3)
    assert state.move["played"] == 1, "another player's elixir is not seat 1's card"
    assert state.player(2).bottles == 5 and state.deck[-1] == 3
    state, _ = do(state, seat(1), "play", card=14, spaces=1)
    state = put(state, 1, hand=[15, 4])
    state, events = do(state, seat(1), "cash", card=4)
    assert events[0].data["counted"] is True and state.move["played"] == 3
    assert state.player(1).bottles == 7
    assert no(state, seat(1), "play", card=15, spaces=1) == "magic_limit"
    assert no(state, seat(1), "cash", card=5) == "not_in_hand"


def test_ambiguity_7_anyone_cashes_an_elixir_at_any_time() -> None:
    state = calm()
    state, _ = do(state, seat(3), "cash", card=7)
    assert state.player(3).bottles == 7 and state.reserve == 60 - 4 - 4 - 7
    assert state.player(3).hand == (6, 8) and state.deck[-1] == 7
    assert state.current == 1 and state.stage() == "choose", "cashing is no turn"
    assert GAME.actions(state, seat(2)) == [Command("cash", {"card": c}) for c in (3, 4, 5)]
    assert no(state, seat(3), "cash", card=13) == "not_in_hand"
    state = put(state, 3, hand=[6, 13])
    assert no(state, seat(3), "cash", card=13) == "not_that_card"


def test_n_l1_an_elixir_at_eight_bottles_is_refused_and_the_excess_stays_in_the_reserve() -> None:
    state = put(calm(), 3, bottles=8)
    assert no(state, seat(3), "cash", card=7) == "bottles_full"
    state = put(state, 3, bottles=7)
    reserve = state.reserve
    state, events = do(state, seat(3), "cash", card=7)
    assert state.player(3).bottles == 8 and state.reserve == reserve - 1
    assert events[-1].data == {"seat": 3, "count": 3, "taken": 1, "cause": "elixir"}
    assert 7 not in state.player(3).hand


def test_n_t1_bridges_are_placed_then_moved_only_once_both_are_on_the_board() -> None:
    state = moving(put(calm(), 1, hand=[16, 17, 18, 19]))
    assert no(state, seat(1), "play", card=16, use="move") == "bridges_not_on_board"
    assert no(state, seat(1), "play", card=16, use="build") == "bad_arguments"
    assert no(state, seat(1), "play", card=16) == "bad_arguments"
    state, _ = do(state, seat(1), "play", card=16, use="place")
    assert state.deck[-1] == 16
    second_bridge_then_move(state, 17, 18)


def second_bridge_then_move(state: NuitState, place: int, move: int) -> None:
    """One bridge on the board: it may not be moved yet; the second is placed, a third is refused,
    and now a bridge may be moved."""
    assert state.bridges == 1
    assert no(state, seat(1), "play", card=place, use="move") == "bridges_not_on_board"
    state, _ = do(state, seat(1), "play", card=place, use="place")
    assert state.bridges == 2
    assert no(state, seat(1), "play", card=move, use="place") == "bridges_on_board"
    state, events = do(state, seat(1), "play", card=move, use="move")
    assert state.bridges == 2 and events[0].data["use"] == "move"


def test_n_t1_a_glove_steals_a_card_hand_to_hand_but_never_a_glove() -> None:
    state = put(calm(), 2, hand=[3, 12, 28])
    state = moving(put(state, 1, hand=[9, 0]))
    assert no(state, seat(1), "play", card=9, **{"from": 2, "take": 12}) == "glove_on_glove"
    assert no(state, seat(1), "play", card=9, **{"from": 2, "take": 6}) == "bad_card"
    assert no(state, seat(1), "play", card=9, **{"from": 1, "take": 0}) == "choose_other_player"
    steal: dict[str, Any] = {"card": 9, "from": 2, "take": 28}
    state, events = do(state, seat(1), "play", **steal)
    assert types(events) == ["magic_played", "magic_stolen"]
    assert state.player(1).hand == (0, 28) and state.player(2).hand == (3, 12)
    assert state.deck[-1] == 9 and state.move["played"] == 1


# -- N-T2 / N-D4: the duel check --------------------------------------------------------------------

def test_n_t2_a_duel_is_offered_only_where_a_player_said_they_stand() -> None:
    state = put(calm(), 2, location=F2)
    state = put(state, 3, location=F2)
    after, events = do(moving(state), seat(1), "stop", spaces=2, at=F1)
    assert "asked" not in types(events) or asked(events)["choice"] != "meet"
    assert "fate_drawn" in types(events) and after.current == 2
    after, events = do(moving(state), seat(1), "stop", spaces=2, at=F2)
    assert asked(events) == {"seat": 1, "choice": "meet", "at": F2, "seats": [2, 3]}
    assert "fate_drawn" not in types(events), "the fate card waits for the duel"
    assert no(after, seat(1), "duel", seat=1) == "not_on_that_space"
    assert no(after, seat(2), "skip") == "waiting_for"


def test_n_t2_a_player_on_the_space_calls_the_duel_from_their_own_phone() -> None:
    """N-T2 ("il s'expose à un duel"): the duel does not hang on the mover's word alone; whoever
    stands on the space may call it. The mover stays the attacker (N-D1: the red die)."""
    state = put(put(tops(playing(players=4), "gain_ketchup"), 2, location=F2), 3, location=F2)
    after, _ = do(moving(state), seat(1), "stop", spaces=2, at=F2)
    assert [c for c in GAME.actions(after, seat(2)) if c.name == "duel"] == [Command("duel", {"seat": 2})]
    assert "duel" not in [c.name for c in GAME.actions(after, seat(4))], "seat 4 is elsewhere"
    assert no(after, seat(4), "duel", seat=4) == "not_on_that_space"
    assert no(after, seat(2), "duel", seat=3) == "bad_arguments", "a caller names only themselves"
    assert no(after, seat(2), "skip") == "waiting_for", "only the mover may say nobody is there"
    rolls = [duel_die(1, 1, 1, "red", 4), duel_die(1, 1, 2, "black", 1)]
    called, events = do(after, seat(2), "duel", rolls, seat=2)
    assert events[0].type == "duel_begun" and events[0].data == {"attacker": 1, "defender": 2, "at": F2}
    assert called.duel is not None and called.duel["dice"] == {"1": "red", "2": "black"}
    assert called.duel["winner"] == 1


def test_n_t2_skipping_the_duel_draws_the_fate_card_of_the_space() -> None:
    state = moving(put(put(calm(), 2, location=F3), 1, location=F1))
    state, _ = do(state, seat(1), "stop", spaces=1, at=F3)
    state, events = do(state, seat(1), "skip")
    assert types(events)[0] == "fate_drawn" and events[0].data["colour"] == F3 and events[0].data["seat"] == 1
    assert state.current == 2


def test_n_d4_the_first_space_after_the_start_is_duel_free() -> None:
    state = put(calm(), 2, location=F1)
    _, events = do(moving(state), seat(1), "stop", spaces=1, at=F1)
    assert "duel_begun" not in types(events) and all(e.data.get("choice") != "meet" for e in events)
    assert "fate_drawn" in types(events) and events[-1].type == "turn_passed"
    _, events = do(moving(state), seat(1), "stop", spaces=2, at=F1)
    assert asked(events)["choice"] == "meet", "two spaces from the start: not the duel-free space"
    # from a coloured space, the first space may be contested
    _, events = do(moving(put(state, 1, location=F2)), seat(1), "stop", spaces=1, at=F1)
    assert asked(events)["choice"] == "meet"


def test_n_d4_nobody_duels_in_the_oubliettes_or_the_courtyard() -> None:
    state = put(put(calm(), 2, location=OUBLIETTES), 3, location=COURTYARD)
    _, events = do(moving(put(state, 1, bottles=8)), seat(1), "stop", spaces=1, at=COURTYARD,
                    draws=dice("tax", 1, 1, 1))
    assert asked(events)["choice"] == "tower", "no duel in the courtyard: the tax, then a tower"
    assert no(moving(state), seat(1), "stop", spaces=1, at=OUBLIETTES) == "no_such_place"


# -- N-D1..N-D3: duels -----------------------------------------------------------------------------

def duel_ready(**options: Any) -> NuitState:
    """Seat 1 (duel +1 card 22) met seat 2 (duel +2 card 26) on fate-2; both choose at once."""
    state = put(calm(**options), 1, hand=[0, 22, 23])
    state = put(state, 2, hand=[3, 26, 27], location=F2)
    state = moving(state)
    state, _ = do(state, seat(1), "stop", spaces=2, at=F2)
    state, events = do(state, seat(1), "duel", seat=2)
    assert types(events) == ["duel_begun"]
    return state


def test_n_d1_both_sides_are_prompted_at_once_and_roll_once_both_are_ready() -> None:
    state = duel_ready()
    assert waiting_for(state) == [1, 2]
    for viewer in VIEWERS:
        assert GAME.view(state, viewer)["waiting"] == [1, 2]
    assert Command("duel_card", {"card": 26}) in GAME.actions(state, seat(2))
    assert Command("duel_card", {"card": 22}) in GAME.actions(state, seat(1))
    assert no(state, seat(3), "ready") == "waiting_for"
    assert no(state, seat(2), "duel_card", card=3) == "not_that_card"
    assert no(state, seat(2), "duel_card", card=22) == "not_in_hand"
    # a bystander cashes an elixir meanwhile; nobody's duel changes
    state, _ = do(state, seat(3), "cash", card=6)
    assert state.player(3).bottles == 6 and waiting_for(state) == [1, 2]
    # the defender answers first: one card per roll, so it is ready at once
    state, events = do(state, seat(2), "duel_card", card=26)
    assert types(events) == ["magic_played", "duel_ready"] and state.deck[-1] == 26
    assert no(state, seat(2), "duel_card", card=27) == "already_ready"
    assert no(state, seat(2), "ready") == "already_ready"
    state, events = do(state, seat(1), "ready", [duel_die(1, 1, 1, "red", 4), duel_die(1, 1, 2, "black", 1)])
    rolls = next(e for e in events if e.type == "duel_rolled").data["rolls"]
    assert rolls == {"1": {"die": "red", "face": 4, "bonus": 0, "total": 4},
                     "2": {"die": "black", "face": 1, "bonus": 2, "total": 3}}
    assert next(e for e in events if e.type == "duel_won").data == {"winner": 1, "loser": 2}


def test_ambiguity_8_the_duel_cards_per_roll_are_an_option() -> None:
    state = duel_ready(duel_cards_per_roll=2)
    state, _ = do(state, seat(2), "duel_card", card=26)
    assert waiting_for(state) == [1, 2], "a second card may follow"
    state, _ = do(state, seat(2), "duel_card", card=27)
    assert waiting_for(state) == [1]
    state, events = do(state, seat(1), "ready", [duel_die(1, 1, 1, "red", 4), duel_die(1, 1, 2, "black", 1)])
    rolls = next(e for e in events if e.type == "duel_rolled").data["rolls"]
    assert rolls["2"]["total"] == 1 + 4 and next(e for e in events if e.type == "duel_won").data["winner"] == 2


def test_n_d2_a_tie_swaps_the_dice_and_both_choose_cards_again() -> None:
    state = duel_ready()
    state, _ = do(state, seat(1), "duel_card", card=22)
    state, events = do(state, seat(2), "duel_card", [duel_die(1, 1, 1, "red", 3), duel_die(1, 1, 2, "black", 2)],
                        card=26)
    assert types(events)[-2:] == ["duel_rolled", "duel_tied"] and events[-1].data["total"] == 4
    assert state.duel is not None and state.duel["dice"] == {"1": "black", "2": "red"} and state.duel["round"] == 2
    assert waiting_for(state) == [1, 2], "each may play a duel card again"
    state, _ = do(state, seat(1), "duel_card", card=23)
    state, events = do(state, seat(2), "ready", [duel_die(1, 2, 1, "black", 3), duel_die(1, 2, 2, "red", 1)])
    rolls = next(e for e in events if e.type == "duel_rolled").data["rolls"]
    assert rolls["1"] == {"die": "black", "face": 3, "bonus": 1, "total": 4}
    assert rolls["2"] == {"die": "red", "face": 1, "bonus": 0, "total": 1}
    assert state.duel is not None and state.duel["winner"] == 1


def test_n_d2_sides_without_duel_cards_roll_again_at_once_until_someone_wins() -> None:
    state = put(put(calm(), 2, location=F2), 1, bottles=6)
    state = moving(state)
    state, _ = do(state, seat(1), "stop", spaces=2, at=F2)
    draws = [duel_die(1, 1, 1, "red", 1), duel_die(1, 1, 2, "black", 1),
             duel_die(1, 2, 1, "black", 2), duel_die(1, 2, 2, "red", 2),
             duel_die(1, 3, 1, "red", 2), duel_die(1, 3, 2, "black", 3)]
    state, events = do(state, seat(1), "duel", draws, seat=2)
    assert types(events).count("duel_tied") == 2
    assert next(e for e in events if e.type == "duel_won").data == {"winner": 2, "loser": 1}
    assert asked(events) == {"seat": 2, "choice": "reward"}, "the winner answers: the defender"


def test_n_d3_the_winner_takes_a_display_card_two_bottles_and_pushes_the_loser() -> None:
    state = duel_ready()
    state = on_top(state, F2, "gain_ketchup")
    state, _ = do(state, seat(2), "ready")
    state, events = do(state, seat(1), "ready", [duel_die(1, 1, 1, "red", 3), duel_die(1, 1, 2, "black", 1)])
    # seat 1 paid one bottle for its move: 3 + 2 from the loser
    assert state.player(1).bottles == 5 and state.player(2).bottles == 2
    assert asked(events) == {"seat": 1, "choice": "reward"}
    assert no(state, seat(2), "take", card=9) == "waiting_for"
    state, events = do(state, seat(1), "take", card=10)
    assert 10 in state.player(1).hand and state.display == (9, 11, 12)
    assert asked(events) == {"seat": 1, "choice": "push", "loser": 2}
    for place in (START, OUBLIETTES, COURTYARD, "", None, 1):
        assert no(state, seat(1), "push", to=place) == "push_to_colour"
    state, events = do(state, seat(1), "push", to=F3)
    assert state.player(2).location == F3
    fates = [e for e in events if e.type == "fate_drawn"]
    assert len(fates) == 1 and fates[0].data["seat"] == 1 and fates[0].data["colour"] == F2
    assert state.current == 2


def test_n_d3_the_loser_pays_as_many_as_held_and_cashes_no_elixir() -> None:
    state = put(put(calm(), 2, location=F2, bottles=1), 1, bottles=8, location=F1)
    state = moving(state)
    state, _ = do(state, seat(1), "stop", spaces=1, at=F2)
    reserve = state.reserve
    state, events = do(state, seat(1), "duel", [duel_die(1, 1, 1, "red", 4), duel_die(1, 1, 2, "black", 1)], seat=2)
    assert state.player(2).bottles == 0 and state.player(2).hand == (3, 4, 5), "no elixir cashed to pay"
    assert state.player(1).bottles == 8 and state.reserve == reserve + 1, "the excess stays in the reserve"
    paid = next(e for e in events if e.type == "bottles_paid")
    assert paid.data["paid"] == 1


def test_n_d3_a_full_hand_skips_the_card_and_the_push_may_be_skipped() -> None:
    state = put(put(calm(), 2, location=F2), 1, hand=[0, 1, 2, 13, 14], location=F1)
    state = moving(state)
    state, _ = do(state, seat(1), "stop", spaces=1, at=F2)
    state, events = do(state, seat(1), "duel", [duel_die(1, 1, 1, "red", 4), duel_die(1, 1, 2, "black", 1)], seat=2)
    assert asked(events)["choice"] == "push"
    state, events = do(state, seat(1), "skip")
    assert state.player(2).location == F2 and types(events)[0] == "fate_drawn"


def test_n_d3_the_winner_may_decline_the_display_card() -> None:
    state = put(put(calm(), 2, location=F2), 1, location=F1)
    state = moving(state)
    state, _ = do(state, seat(1), "stop", spaces=1, at=F2)
    state, _ = do(state, seat(1), "duel", [duel_die(1, 1, 1, "red", 4), duel_die(1, 1, 2, "black", 1)], seat=2)
    state, events = do(state, seat(1), "skip")
    assert asked(events)["choice"] == "push" and state.player(1).hand == (0, 1, 2)


# -- N-T3 / ambiguity 11: the fate card after a duel ------------------------------------------------------

def test_ambiguity_11_a_pushed_attacker_draws_for_its_final_space_the_defender_draws_nothing() -> None:
    state = put(put(calm(), 2, location=F2), 1, location=F1)
    state = moving(state)
    state, _ = do(state, seat(1), "stop", spaces=1, at=F2)
    state, events = do(state, seat(1), "duel", [duel_die(1, 1, 1, "red", 1), duel_die(1, 1, 2, "black", 3)], seat=2)
    assert state.player(1).bottles == 2 and state.player(2).bottles == 6
    assert asked(events) == {"seat": 2, "choice": "reward"}
    assert no(state, seat(1), "skip") == "waiting_for"
    state, _ = do(state, seat(2), "take", card=9)
    assert no(state, seat(2), "push", to="start") == "push_to_colour"
    state, events = do(state, seat(2), "push", to=F3)
    assert state.player(1).location == F3
    fates = [e for e in events if e.type == "fate_drawn"]
    assert [(f.data["seat"], f.data["colour"]) for f in fates] == [(1, F3)]
    assert state.current == 2, "seat 1's turn is over"


# -- N-T4 / ambiguity 12: replenishing ---------------------------------------------------------------------

def test_n_t4_two_pips_buy_a_display_card_the_rest_are_bottles() -> None:
    state = put(calm(), 1, location=F1)
    state, events = do(state, seat(1), "replenish", dice("replenish", 1, 4, 3))
    assert events[0].data == {"seat": 1, "purpose": "replenish", "red": 4, "black": 3, "total": 7}
    assert asked(events) == {"seat": 1, "choice": "split", "pips": 7}
    assert state.last_roll is not None and GAME.view(state, TABLE)["last_roll"]["total"] == 7
    state, events = do(state, seat(1), "take", card=9)
    assert asked(events)["pips"] == 5 and state.display == (10, 11, 12)
    state, events = do(state, seat(1), "take", card=10)
    # the hand is full (5 cards): the 3 pips left are bottles at once
    assert state.player(1).bottles == 7 and state.player(1).hand == (0, 1, 2, 9, 10)
    assert asked(events) == {"seat": 1, "choice": "fate"}, "the optional fate card of the space"
    state, events = do(state, seat(1), "draw_fate")
    assert events[0].type == "fate_drawn" and events[0].data["colour"] == F1
    assert state.player(1).bottles == 8 and state.current == 2


def test_n_t4_bottles_are_capped_at_eight_the_excess_stays_in_the_reserve() -> None:
    state = put(put(calm(), 1, location=F2, bottles=6), 1, hand=[0, 1, 2, 13, 14])
    reserve = state.reserve
    state, events = do(state, seat(1), "replenish", dice("replenish", 1, 4, 3))
    assert "split" not in [e.data.get("choice") for e in events], "a full hand takes no card"
    assert state.player(1).bottles == 8 and state.reserve == reserve - 2
    state, events = do(state, seat(1), "skip")
    assert "fate_drawn" not in types(events) and state.current == 2


def test_n_t4_the_split_stops_when_the_hand_is_full() -> None:
    state = put(calm(), 1, hand=[0, 1, 2, 13], location=F1)
    state, _ = do(state, seat(1), "replenish", dice("replenish", 1, 4, 3))
    state, events = do(state, seat(1), "take", card=9)
    assert state.player(1).bottles == 4 + 5 - 1 and asked(events)["choice"] == "fate"


@pytest.mark.parametrize("place", [START, OUBLIETTES])
def test_ambiguity_12_no_fate_card_from_a_space_without_a_fate_colour(place: str) -> None:
    state = put(put(calm(), 1, location=place), 1, hand=[0, 1, 2, 13, 14])
    state, events = do(state, seat(1), "replenish", dice("replenish", 1, 1, 1))
    assert state.player(1).bottles == 6 and state.current == 2
    assert "fate_drawn" not in types(events) and all(e.data.get("choice") != "fate" for e in events)


def test_n_t4_replenishing_is_allowed_from_the_oubliettes() -> None:
    state = put(calm(), 1, location=OUBLIETTES)
    assert Command("replenish") in GAME.actions(state, seat(1))
    state, _ = do(state, seat(1), "replenish", dice("replenish", 1, 2, 1))
    state, _ = do(state, seat(1), "take", card=9)
    assert state.player(1).bottles == 5 and state.player(1).location == OUBLIETTES and state.current == 2


# -- N-F1..N-F5: fate cards ----------------------------------------------------------------------------

def fated(kind: str, colour: str, **options: Any) -> tuple[NuitState, list[Event]]:
    """Seat 1 moved one space onto `colour`, whose stack shows a `kind` card."""
    state = on_top(moving(calm(**options)), colour, kind)
    return do(state, seat(1), "stop", spaces=1, at=colour)


def test_n_f1_the_player_chooses_the_cards_given_back_under_the_deck() -> None:
    state = on_top(moving(put(calm(), 1, hand=[0, 13, 16])), F2, "lose_magic")
    state, events = do(state, seat(1), "stop", spaces=1, at=F2)
    assert asked(events) == {"seat": 1, "choice": "give_back", "count": 2}
    assert no(state, seat(1), "give_back", cards=[0]) == "give_back_count"
    assert no(state, seat(1), "give_back", cards=[0, 0]) == "not_in_hand"
    assert no(state, seat(1), "give_back", cards=[0, 9]) == "not_in_hand"
    assert no(state, seat(1), "give_back", cards="0,13") == "give_back_count"
    assert no(state, seat(1), "give_back", cards=[[0], [13]]) == "not_in_hand"
    assert no(state, seat(1), "give_back", cards=[True, 13]) == "not_in_hand"
    state, _ = do(state, seat(1), "give_back", cards=[16, 0])
    assert state.player(1).hand == (13,) and state.deck[-2:] == (16, 0) and state.current == 2


def test_n_f1_fewer_cards_than_asked_are_all_given_back_at_once() -> None:
    state = on_top(moving(put(calm(), 1, hand=[0, 13])), F3, "lose_magic")
    state, events = do(state, seat(1), "stop", spaces=1, at=F3)
    assert types(events)[-2:] == ["magic_returned", "turn_passed"]
    assert state.player(1).hand == () and state.deck[-2:] == (0, 13)
    state = on_top(moving(turn_of(state, 1)), F3, "lose_magic")
    state, events = do(state, seat(1), "stop", spaces=1, at=F3)
    assert "magic_returned" not in types(events) and state.current == 2, "nothing to give back"


def test_n_f2_bottles_given_back_as_many_as_held() -> None:
    state, events = fated("lose_ketchup", F2)
    assert state.player(1).bottles == 2 and state.reserve == 60 - 2 - 4 - 4
    state = on_top(moving(put(turn_of(state, 1), 1, bottles=1)), F3, "lose_ketchup")
    state, events = do(state, seat(1), "stop", spaces=1, at=F3)
    paid = [e.data["paid"] for e in events if e.type == "bottles_paid" and e.data["cause"] == "fate"]
    assert state.player(1).bottles == 0 and paid == [1] and state.current == 2


def test_n_f3_choose_one_display_card_then_the_display_is_refilled() -> None:
    state, events = fated("choose_magic", F1)
    assert asked(events) == {"seat": 1, "choice": "pick"}
    assert no(state, seat(1), "take", card=13) == "not_on_display"
    state, events = do(state, seat(1), "take", card=11)
    assert state.player(1).hand == (0, 1, 2, 11) and state.display == (9, 10, 12) and state.current == 2
    assert events[0].data["cause"] == "fate"
    skipped, _ = fated("choose_magic", F1)
    skipped, _ = do(skipped, seat(1), "skip")
    assert skipped.player(1).hand == (0, 1, 2) and skipped.current == 2
    full = on_top(moving(put(calm(), 1, hand=[0, 1, 2, 13, 14])), F1, "choose_magic")
    full, events = do(full, seat(1), "stop", spaces=1, at=F1)
    assert full.current == 2, "a full hand cannot take the card: nothing to ask"


def dry_deck() -> NuitState:
    """Six players, seat 1 to play, the magic deck used up and the display one card short (it was
    last taken from when the deck was empty)."""
    state = tops(playing(players=6), "gain_ketchup")
    hands = [(13, 0, 1, 2, 3), (4, 5, 6, 7, 8), (11, 12, 14, 15, 16), (17, 18, 19, 20, 21), (22, 23, 24, 25),
             (26, 27, 28, 29)]
    players = tuple(replace(p, hand=hand) for p, hand in zip(state.players, hands, strict=True))
    state = replace(state, players=players, deck=(), display=(9, 10), magic_seen=frozenset(range(30)))
    assert_conserved(state)
    return state


def test_n_l4_a_card_played_onto_an_empty_deck_comes_straight_up_to_the_display() -> None:
    """N-L4 ("Les joueurs font en sorte qu'il y ait toujours 3 cartes magiques"): the display
    holds three cards whenever the deck has any, not only after a take."""
    state, events = do(moving(dry_deck()), seat(1), "play", card=13, spaces=1)
    assert types(events) == ["magic_played", "display_refilled"]
    assert state.display == (9, 10, 13) and state.deck == ()
    cashed, events = do(dry_deck(), seat(2), "cash", card=4)
    assert types(events)[:2] == ["magic_played", "display_refilled"] and cashed.display == (9, 10, 4)


def test_n_l4_cards_given_back_to_an_empty_deck_refill_the_display() -> None:
    state = on_top(dry_deck(), F1, "lose_magic")
    state, events = do(moving(state), seat(1), "stop", spaces=1, at=F1)
    count = asked(events)["count"]
    given = list(state.player(1).hand[:count])
    state, events = do(state, seat(1), "give_back", cards=given)
    assert types(events)[:2] == ["magic_returned", "display_refilled"]
    assert state.display == (9, 10, given[0]) and state.deck == tuple(given[1:])


def test_n_f4_the_printed_bottles_capped_at_eight() -> None:
    state, _ = fated("gain_ketchup", F3)
    assert state.player(1).bottles == 7
    state = on_top(moving(turn_of(state, 1)), F3, "gain_ketchup")
    reserve = state.reserve
    state, events = do(state, seat(1), "stop", spaces=1, at=F3)
    assert state.player(1).bottles == 8 and state.reserve == reserve - 1
    assert next(e for e in events if e.type == "bottles_taken").data["taken"] == 1


def test_ambiguity_4_read_as_both_a_good_card_gives_its_bottles_and_a_display_card() -> None:
    state, events = fated("gain_ketchup", F2, good_card_reading="both")
    assert state.player(1).bottles == 6 and asked(events) == {"seat": 1, "choice": "pick"}
    state, events = fated("choose_magic", F2, good_card_reading="both")
    assert state.player(1).bottles == 4 and asked(events)["choice"] == "pick"
    state, events = fated("gain_ketchup", F2)
    assert state.player(1).bottles == 6 and state.current == 2, "by default the two kinds stay apart"


def test_n_f5_and_ambiguity_5_the_flying_vampire_flies_to_the_same_colour_by_default() -> None:
    state, events = fated("flying_vampire", F2)
    assert asked(events) == {"seat": 1, "choice": "flying"}
    assert no(state, seat(1), "fly", to=F1) == "same_colour_only"
    for place in (COURTYARD, OUBLIETTES, START, None, ["fate-2"]):
        assert no(state, seat(1), "fly", to=place) == "no_fate_colour"
    moved, events = do(state, seat(1), "fly", to=F2)
    assert types(events) == ["flew", "turn_passed"] and moved.player(1).location == F2
    anywhere, _ = fated("flying_vampire", F2, flying_vampire_target="any_space")
    anywhere, _ = do(anywhere, seat(1), "fly", to=F3)
    assert anywhere.player(1).location == F3
    stayed, _ = do(state, seat(1), "skip")
    assert stayed.player(1).location == F2 and stayed.current == 2


def test_n_f5_and_ambiguity_6_a_peek_shows_the_tower_to_the_peeker_alone() -> None:
    state, _ = fated("flying_vampire", F1)
    for bad in (0, 6, "3", True, None, 3.0):
        assert no(state, seat(1), "peek", tower=bad) == "no_such_tower"
    state, events = do(state, seat(1), "peek", tower=3)
    assert types(events) == ["tower_peeked", "turn_passed"] and events[0].reveals
    assert state.player(1).location == F1 and state.player(1).onions == 0 and not state.tower(3).opened
    mine = GAME.view(state, seat(1))
    assert mine["peeked"] == [{"tower": 3, "opened": False, "found": None, "empty": False,
                               "content": "tomato", "token": "tower-3-tomato"}]
    for viewer in (TABLE, HOST, seat(2), seat(3)):
        assert "tower-3-tomato" not in body(state, viewer)
        assert GAME.view(state, viewer).get("peeked", []) == []
    assert "tomato" not in GAME.describe(events[0], "en") + GAME.describe(events[0], "fr")


def test_n_f5_with_physical_towers_the_peek_is_recorded_without_content() -> None:
    state, _ = fated("flying_vampire", F1, tower_mode="physical")
    state, events = do(state, seat(1), "peek", tower=2)
    assert events[0].data["content"] is None and state.peeks == ((1, 2),)
    assert "tomato" not in body(state, seat(1)) and state.current == 2


def test_n_f_a_peeked_tower_opened_later_is_no_longer_a_peek_but_public() -> None:
    state, _ = fated("flying_vampire", F1, tomato=2)
    state, _ = do(state, seat(1), "peek", tower=4)
    assert "tower-4-onion" in body(state, seat(1)) and "tower-4-onion" not in body(state, seat(2))
    state = moving(put(turn_of(state, 2), 2, bottles=8), 2)
    state, _ = do(state, seat(2), "stop", spaces=1, at=COURTYARD, draws=dice("tax", state.turns, 1, 1))
    state, _ = do(state, seat(2), "open", tower=4)
    for viewer in VIEWERS:
        assert GAME.view(state, viewer)["towers"][3]["token"] == "tower-4-onion"
    assert GAME.view(state, seat(1))["peeked"] == []


# -- N-C1..N-C3 / N-E1: the castle and the towers ------------------------------------------------------------

def courtyard(bottles: int, red: int, black: int, spaces: int = 1, hand: Sequence[int] | None = None,
              **options: Any) -> tuple[NuitState, list[Event]]:
    state = moving(put(calm(**options), 1, bottles=bottles, hand=hand))
    return do(state, seat(1), "stop", spaces=spaces, at=COURTYARD, draws=dice("tax", 1, red, black))


def test_n_c1_the_tax_is_both_dice_rolled_on_arrival_on_top_of_the_move() -> None:
    state, events = courtyard(8, 3, 2, spaces=3)
    assert types(events)[:4] == ["bottles_paid", "player_moved", "dice_rolled", "bottles_paid"]
    assert events[2].data == {"seat": 1, "purpose": "tax", "red": 3, "black": 2, "total": 5}
    assert events[3].data["paid"] == 5 and state.player(1).bottles == 8 - 2 - 5
    assert asked(events) == {"seat": 1, "choice": "tower"} and state.player(1).location == COURTYARD


def test_n_c2_and_ambiguity_10_an_unpaid_tax_sends_to_the_oubliettes_keeping_the_bottles() -> None:
    state, events = courtyard(3, 4, 3)
    assert types(events)[-4:] == ["dice_rolled", "tax_unpaid", "player_moved", "turn_passed"]
    assert state.player(1).location == OUBLIETTES and state.player(1).bottles == 3 and state.current == 2
    assert all(not t.opened for t in state.towers)


def test_ambiguity_10_the_pay_all_option_takes_every_bottle() -> None:
    state, events = courtyard(3, 4, 3, unpaid_tax="pay_all")
    assert state.player(1).location == OUBLIETTES and state.player(1).bottles == 0
    assert state.reserve == 60 - 4 - 4 and next(e for e in events if e.type == "tax_unpaid").data["kept"] is False


def test_ambiguity_7_a_tax_elixirs_could_pay_waits_for_the_player() -> None:
    state, events = courtyard(2, 3, 2, hand=[0, 4])
    assert asked(events) == {"seat": 1, "choice": "debt", "amount": 5, "why": "tax"}
    assert no(state, seat(1), "pay") == "not_enough_bottles"
    state, events = do(state, seat(1), "cash", card=4)
    assert events[0].data["counted"] is False
    state, _ = do(state, seat(1), "cash", card=0)
    assert state.player(1).bottles == 5
    state, events = do(state, seat(1), "pay")
    assert state.player(1).bottles == 0 and asked(events)["choice"] == "tower"
    gave_up, _ = courtyard(2, 3, 2, hand=[0, 4])
    gave_up, events = do(gave_up, seat(1), "skip")
    assert gave_up.player(1).location == OUBLIETTES and gave_up.player(1).bottles == 2
    assert gave_up.player(1).hand == (0, 4) and gave_up.current == 2
    _, events = courtyard(2, 3, 2, hand=[0])
    assert "tax_unpaid" in types(events), "elixirs that cannot pay are no reason to wait"


def test_n_c3_and_n_e1_the_tomato_wins_at_once() -> None:
    state, _ = courtyard(8, 1, 1)
    assert no(state, seat(1), "open", tower=0) == "no_such_tower"
    assert no(state, seat(1), "open", tower="3") == "no_such_tower"
    assert no(state, seat(2), "open", tower=3) == "waiting_for"
    state, events = do(state, seat(1), "open", tower=3)
    assert types(events) == ["tower_opened", "game_won"]
    assert GAME.is_over(state) and state.winner == 1 and state.phase == "over"
    assert no(state, seat(2), "cash", card=3) == "game_over"
    assert GAME.actions(state, seat(1)) == []
    for viewer in VIEWERS:
        view = GAME.view(state, viewer)
        assert view["winner"] == 1 and view["seal"]["tomato"] == 3 and view["seal"]["salt"] == state.salt
        assert {t["token"] for t in view["towers"]} == {f"tower-{n}-{'tomato' if n == 3 else 'onion'}"
                                                         for n in range(1, 6)}
    seal = GAME.view(state, TABLE)["seal"]
    assert opens(GAME_ID, SealedFact(SEAL_NAME, seal["commitment"]), str(seal["tomato"]), seal["salt"])


def test_n_c3_and_ambiguity_14_an_onion_is_taken_the_tower_stays_empty_its_finder_goes_below() -> None:
    state, _ = courtyard(8, 1, 1)
    state, events = do(state, seat(1), "open", tower=2)
    assert types(events) == ["tower_opened", "onion_taken", "player_moved", "turn_passed"]
    assert state.player(1).onions == 1 and state.player(1).location == OUBLIETTES and state.current == 2
    assert state.tower(2).opened and state.tower(2).content is None and not GAME.is_over(state)
    for viewer in VIEWERS:
        assert GAME.view(state, viewer)["towers"][1] == {"tower": 2, "opened": True, "found": "onion",
                                                         "empty": True, "token": "tower-2-onion"}
    state = moving(put(state, 2, bottles=8), 2)
    state, _ = do(state, seat(2), "stop", spaces=1, at=COURTYARD, draws=dice("tax", state.turns, 1, 1))
    assert no(state, seat(2), "open", tower=2) == "tower_opened"
    assert Command("open", {"tower": 2}) not in GAME.actions(state, seat(2))
    # the onion's bonus: one display card before each of seat 1's moves (N-T0)
    state, _ = do(state, seat(2), "open", tower=1)
    assert state.player(2).onions == 1
    assert [p.location for p in state.players][:2] == [OUBLIETTES, OUBLIETTES], "N-C5: room for both"
    state = turn_of(state, 1)
    state, _ = do(state, seat(1), "move", way="bribe")
    assert state.move["bonus"] == 1


def test_n_c3_physical_towers_the_table_says_what_was_found() -> None:
    state, _ = courtyard(8, 1, 1, tower_mode="physical")
    assert no(state, seat(1), "open", tower=2) == "say_what_was_found"
    assert no(state, seat(1), "open", tower=2, found="garlic") == "say_what_was_found"
    onion, _ = do(state, seat(1), "open", tower=2, found="onion")
    assert onion.player(1).location == OUBLIETTES and onion.player(1).onions == 1
    won, _ = do(state, seat(1), "open", tower=5, found="tomato")
    assert GAME.is_over(won) and won.winner == 1 and GAME.view(won, TABLE)["seal"] is None


# -- N-C4 / N-C5: the oubliettes --------------------------------------------------------------------------------

def below(**changes: Any) -> NuitState:
    return put(calm(), 1, location=OUBLIETTES, **changes)


def test_n_c4_leaving_the_oubliettes_needs_a_way_out() -> None:
    state = below()
    assert no(state, seat(1), "move") == "way_out_needed"
    assert no(state, seat(1), "move", way="fly") == "way_out_needed"
    assert no(state, seat(1), "move", way=["bribe"]) == "way_out_needed"
    assert no(state, seat(1), "move", way="bridge", card=0) == "not_that_card"
    assert no(state, seat(1), "move", way="bridge", card=16) == "not_in_hand"
    assert no(state, seat(1), "move", way="bridge", card="16") == "not_in_hand"
    assert no(calm(), seat(1), "move", way="bribe") == "not_in_oubliettes"


def test_n_c4a_a_bridge_card_leaves_and_counts_as_a_magic_card_of_the_move() -> None:
    state = below(hand=[16, 13, 14, 15])
    state, events = do(state, seat(1), "move", way="bridge", card=16)
    assert types(events) == ["move_begun", "magic_played", "oubliettes_left"]
    assert state.move["played"] == 1 and state.deck[-1] == 16 and state.bridges == 1
    state, _ = do(state, seat(1), "play", card=13, spaces=1)
    state, _ = do(state, seat(1), "play", card=14, spaces=1)
    assert no(state, seat(1), "play", card=15, spaces=1) == "magic_limit"
    state, _ = do(state, seat(1), "stop", spaces=1, at=F1)
    assert state.player(1).location == F1


def test_n_c4a_the_bridge_that_leaves_the_oubliettes_is_on_the_board() -> None:
    """N-C4a with N-T1: the bridge card played to leave places a bridge, which counts towards the
    two that must be on the board before one may be moved; with both already placed it moves one."""
    state = below(hand=[16, 17, 18])
    state, _ = do(state, seat(1), "move", way="bridge", card=16)
    second_bridge_then_move(state, 17, 18)
    both = replace(below(hand=[19]), bridges=2)
    both, _ = do(both, seat(1), "move", way="bridge", card=19)
    assert both.bridges == 2, "there are only two bridges"


def test_n_c4b_the_bribe_pays_four_bottles() -> None:
    state, events = do(below(), seat(1), "move", way="bribe")
    assert types(events) == ["bottles_paid", "oubliettes_left", "move_begun"]
    assert state.player(1).bottles == 0 and state.stage() == "moving"
    assert no(below(bottles=3), seat(1), "move", way="bribe") == "not_enough_bottles"
    cheap = put(calm(oubliette_bribe=2), 1, location=OUBLIETTES, bottles=2)
    cheap, _ = do(cheap, seat(1), "move", way="bribe")
    assert cheap.player(1).bottles == 0 and cheap.stage() == "moving"


def test_n_c4c_an_escape_roll_is_paid_in_bottles_then_the_move_goes_on() -> None:
    state, events = do(below(bottles=6), seat(1), "move", dice("escape", 1, 2, 3), way="roll")
    assert types(events) == ["dice_rolled", "bottles_paid", "oubliettes_left", "move_begun"]
    assert state.player(1).bottles == 1 and state.stage() == "moving"
    state, _ = do(state, seat(1), "stop", spaces=2, at=F2)
    assert state.player(1).location == F2


def test_n_c4c_an_escape_roll_that_cannot_be_paid_keeps_the_vampire_below() -> None:
    state, events = do(below(bottles=3, hand=[13]), seat(1), "move", dice("escape", 1, 3, 2), way="roll")
    assert types(events) == ["dice_rolled", "escape_failed", "turn_passed"]
    assert events[1].data == {"seat": 1, "needed": 5}
    assert state.player(1).location == OUBLIETTES and state.player(1).bottles == 3 and state.current == 2


def test_n_c4c_elixirs_may_pay_the_escape_roll() -> None:
    state, events = do(below(bottles=3, hand=[7]), seat(1), "move", dice("escape", 1, 3, 2), way="roll")
    assert asked(events) == {"seat": 1, "choice": "debt", "amount": 5, "why": "escape"}
    state, _ = do(state, seat(1), "cash", card=7)
    state, events = do(state, seat(1), "pay")
    assert types(events)[-2:] == ["oubliettes_left", "move_begun"] and state.player(1).bottles == 1
    assert state.move["played"] == 0, "cashed before the move began: not counted"


def test_n_c5_the_oubliettes_hold_any_number_of_vampires_and_no_duel() -> None:
    state = put(put(below(), 2, location=OUBLIETTES), 3, location=OUBLIETTES)
    state, events = do(state, seat(1), "replenish", dice("replenish", 1, 1, 1))
    assert asked(events) == {"seat": 1, "choice": "split", "pips": 2}
    state, _ = do(state, seat(1), "skip")
    assert all(p.location == OUBLIETTES for p in state.players)
    assert state.current == 2 and GAME.actions(state, seat(2))[0] == Command("move", {"way": "bribe"})


# -- the turn order and who may answer ----------------------------------------------------------------------------

def test_turns_go_clockwise_from_the_starter_after_every_completed_turn() -> None:
    state = new_game(players=3)
    state, _ = do(state, TABLE, "roll", [*faces(1, 1, 1, 1), *faces(1, 2, 4, 3), *faces(1, 3, 2, 1)])
    state = tops(state, "gain_ketchup")
    assert state.order == (2, 3, 1) and state.current == 2
    seen = []
    for _ in range(4):
        who = state.current
        assert who is not None
        seen.append(who)
        for other in (1, 2, 3):
            if other != who:
                assert no(state, seat(other), "replenish") == "waiting_for"
                assert no(state, seat(other), "move") == "waiting_for"
        state, events = do(state, seat(who), "replenish", dice("replenish", state.turns, 1, 1))
        if state.stage() == "split":
            state, events = do(state, seat(who), "skip")
        assert events[-1].type == "turn_passed"
    assert seen == [2, 3, 1, 2] and state.turns == 5


def test_only_the_awaited_seat_answers_and_others_change_nothing() -> None:
    state = moving(calm())
    before = state
    for viewer, command, args in ((seat(2), "stop", {"spaces": 1, "at": F1}), (seat(3), "play", {"card": 6}),
                                  (seat(2), "take", {"card": 9})):
        assert no(state, viewer, command, **args) == "waiting_for"
    assert no(state, seat(1), "move") == "not_now"
    assert no(state, seat(1), "replenish") == "not_now"
    assert no(state, seat(1), "ready") == "not_now"
    assert no(state, seat(3), "skip") == "not_now", "nothing to skip while moving"
    assert no(state, TABLE, "stop", spaces=1, at=F1) == "not_authorized"
    assert no(state, HOST, "skip") == "not_authorized"
    assert no(state, SYSTEM, "skip") == "not_authorized"
    assert no(state, seat(7), "stop", spaces=1, at=F1) == "not_seated"
    assert no(state, seat(1), "jump") == "unknown_command"
    assert no(state, seat(1), "roll") == "not_now"
    assert state == before


MALFORMED: list[tuple[str, str, dict[str, Any], str]] = [
    ("choose", "move", {"way": "bribe"}, "not_in_oubliettes"),
    ("choose", "cash", {"card": "0"}, "not_in_hand"),
    ("choose", "cash", {"card": True}, "not_in_hand"),
    ("choose", "cash", {"card": 0.0}, "not_in_hand"),
    ("choose", "cash", {"card": None}, "not_in_hand"),
    ("choose", "cash", {"card": [0]}, "not_in_hand"),
    ("moving", "play", {"card": "13", "spaces": 1}, "not_in_hand"),
    ("moving", "play", {"card": 0}, "not_that_card"),
    ("moving", "play", {"card": 13, "spaces": True}, "tempo_spaces"),
    ("moving", "play", {"card": 13, "spaces": [1]}, "tempo_spaces"),
    ("moving", "play", {"card": 16, "use": ["place"]}, "bad_arguments"),
    ("moving", "play", {"card": 9, "from": 9, "take": 3}, "choose_other_player"),
    ("moving", "play", {"card": 9, "from": "2", "take": 3}, "choose_other_player"),
    ("moving", "play", {"card": 9, "from": None, "take": 3}, "choose_other_player"),
    ("moving", "play", {"card": 9, "from": 2, "take": "3"}, "bad_card"),
    ("moving", "play", {"card": 9, "from": 2, "take": True}, "bad_card"),
    ("moving", "take", {"card": True}, "no_bonus"),
    ("moving", "stop", {"spaces": "1", "at": F1}, "move_spaces"),
    ("moving", "stop", {"spaces": 1, "at": ["fate-1"]}, "no_such_place"),
    ("meet", "duel", {"seat": "2"}, "not_on_that_space"),
    ("meet", "duel", {"seat": 9}, "not_on_that_space"),
    ("meet", "duel", {"seat": [2]}, "not_on_that_space"),
    ("meet", "duel", {}, "not_on_that_space"),
    ("flying", "fly", {"to": {"colour": F1}}, "no_fate_colour"),
    ("flying", "peek", {"tower": [3]}, "no_such_tower"),
    ("flying", "peek", {}, "no_such_tower"),
    ("give_back", "give_back", {"cards": None}, "give_back_count"),
    ("give_back", "give_back", {"cards": [{"card": 0}]}, "not_in_hand"),
    ("give_back", "give_back", {"cards": [[0]]}, "not_in_hand"),
    ("give_back", "give_back", {"cards": ["0"]}, "not_in_hand"),
    ("give_back", "give_back", {"cards": [0, 1]}, "give_back_count"),
]


def situation(name: str) -> NuitState:
    """Seat 1 (glove 9, tempo 13, bridge 16, elixir 0, 1) waiting in this stage; seat 2 on fate-2."""
    state = put(put(calm(), 1, hand=[0, 1, 9, 13, 16], location=F1), 2, location=F2)
    if name == "choose":
        return state
    state = moving(state)
    if name == "moving":
        return state
    if name == "meet":
        state, _ = do(state, seat(1), "stop", spaces=1, at=F2)
        assert state.stage() == "meet"
        return state
    kind = {"flying": "flying_vampire", "give_back": "lose_magic"}[name]
    state, _ = do(on_top(state, F1, kind), seat(1), "stop", spaces=1, at=F1)
    assert state.stage() == name
    return state


@pytest.mark.parametrize(("stage", "command", "args", "code"), MALFORMED)
def test_malformed_arguments_are_refused_with_a_clear_code(stage: str, command: str, args: dict[str, Any],
                                                           code: str) -> None:
    assert no(situation(stage), seat(1), command, **args) == code


def test_a_glove_names_its_victim_by_seat_number_not_by_a_boolean() -> None:
    state = put(put(calm(), 2, hand=[9, 3]), 1, hand=[0, 13])
    state = moving(turn_of(state, 2), 2)
    assert no(state, seat(2), "play", card=9, **{"from": True, "take": 0}) == "choose_other_player"


def test_a_duel_names_its_defender_by_seat_number_not_by_a_boolean() -> None:
    state = put(put(calm(), 1, location=F2), 2, location=F1)
    state = moving(turn_of(state, 2), 2)
    state, _ = do(state, seat(2), "stop", spaces=1, at=F2)
    assert no(state, seat(2), "duel", seat=True) == "not_on_that_space"


def test_arguments_that_are_not_a_mapping_are_refused() -> None:
    rejection = GAME.validate(calm(), seat(1), Command("move", ["way"]))  # type: ignore[arg-type]
    assert rejection is not None and rejection.code == "bad_arguments"


# -- views --------------------------------------------------------------------------------------------------

def test_views_show_everything_public_to_everyone() -> None:
    state = put(calm(), 2, bottles=7, hand=[13, 28], location=F3)
    for viewer in VIEWERS:
        view = GAME.view(state, viewer)
        assert [p["bottles"] for p in view["players"]] == [4, 7, 4]
        assert [c["card"] for c in view["players"][1]["hand"]] == ["magic-13", "magic-28"]
        assert view["players"][1]["location"] == F3 and view["reserve"] == state.reserve
        assert view["turn"] == {"stage": "choose", "seat": 1} and view["current"] == 1
    assert kinds(state, state.player(2).hand) == ["tempo", "duel_plus3"]


def test_views_never_show_a_closed_towers_content_during_a_whole_turn() -> None:
    state, _ = fated("flying_vampire", F1, tomato=4)
    state, _ = do(state, seat(1), "peek", tower=4)
    state = moving(put(turn_of(state, 2), 2, bottles=8), 2)
    steps: list[tuple[str, dict[str, Any], Draws]] = [
        ("stop", {"spaces": 1, "at": COURTYARD}, dice("tax", state.turns, 1, 1)), ("open", {"tower": 1}, [])]
    for command, args, draws in steps:
        state, _ = do(state, seat(2), command, draws, **args)
        for viewer in (TABLE, HOST, seat(2), seat(3)):
            text = body(state, viewer)
            assert not any(f"tower-{n}-tomato" in text or (n != 1 and f"tower-{n}-onion" in text)
                           for n in range(1, 6))
            assert (state.salt or "?") not in text
        assert "tower-4-tomato" in body(state, seat(1)), "the peeker remembers what it saw"


def test_the_host_ending_the_game_shows_every_tower_and_opens_the_seal() -> None:
    state, _ = courtyard(8, 1, 1, tomato=5)
    state, _ = do(state, seat(1), "open", tower=2)
    assert "tower-5-tomato" not in body(state, TABLE)
    closed = GAME.close(state)
    assert GAME.is_over(closed) and closed.winner is None
    assert GAME.actions(closed, seat(2)) == [] and no(closed, seat(2), "move") == "game_over"
    for viewer in VIEWERS:
        view = GAME.view(closed, viewer)
        assert [t.get("token") for t in view["towers"]] == [
            "tower-1-onion", "tower-2-onion", "tower-3-onion", "tower-4-onion", "tower-5-tomato"]
        assert view["towers"][1]["found"] == "onion" and view["seal"]["tomato"] == 5
        assert view["seal"]["salt"] == closed.salt
    seal = GAME.view(closed, TABLE)["seal"]
    assert opens(GAME_ID, SealedFact(SEAL_NAME, seal["commitment"]), "5", seal["salt"])
    assert GAME.secrets(closed) == [] or all(not s.value.startswith("tower-") for s in GAME.secrets(closed))


# -- a longer scenario: every event keeps the ledger whole -------------------------------------------------------

def test_a_scripted_round_keeps_the_ledger_whole_after_every_event() -> None:
    state = new_game(players=3, tomato=2)
    state, _ = do(state, TABLE, "roll", [*faces(1, 1, 4, 3), *faces(1, 2, 1, 1), *faces(1, 3, 2, 2)])
    assert state.current == 1
    # seat 1 moves 3 spaces to fate-2 (the stack shows lose magic 2), gives back two elixirs
    state, _ = do(state, seat(1), "move")
    state, events = do(state, seat(1), "stop", spaces=3, at=F2)
    assert asked(events) == {"seat": 1, "choice": "give_back", "count": 2}
    state, _ = do(state, seat(1), "give_back", cards=[0, 2])
    # seat 2 replenishes 3 + 2: a card and three bottles, no fate card from the start
    state, _ = do(state, seat(2), "replenish", dice("replenish", 2, 3, 2))
    state, _ = do(state, seat(2), "take", card=9)
    state, events = do(state, seat(2), "skip")
    assert state.player(2).bottles == 7 and events[-1].type == "turn_passed"
    # seat 3 attacks seat 1 on fate-2 (two spaces), wins 4 to 1 and pushes seat 1 to fate-3
    state, _ = do(state, seat(3), "move")
    state, _ = do(state, seat(3), "stop", spaces=2, at=F2)
    state, _ = do(state, seat(3), "duel", [duel_die(3, 1, 3, "red", 4), duel_die(3, 1, 1, "black", 1)], seat=1)
    state, _ = do(state, seat(3), "take", card=10)
    state, events = do(state, seat(3), "push", to=F3)
    assert events[-2].type == "bottles_paid" and events[-2].data["cause"] == "fate", "fate-2 now: lose ketchup 2"
    assert state.player(1).bottles == 0 and state.player(3).bottles == 4 - 1 + 2 - 2
    # seat 1 goes to the castle and opens the tomato
    state = put(state, 1, bottles=8)
    state, _ = do(state, seat(1), "move")
    state, _ = do(state, seat(1), "stop", spaces=1, at=COURTYARD, draws=dice("tax", 4, 2, 2))
    state, events = do(state, seat(1), "open", tower=2)
    assert types(events) == ["tower_opened", "game_won"] and state.winner == 1
