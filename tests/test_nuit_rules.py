"""La nuit des vampires' pure rules, rule by rule: the setup (N-S2, N-S4..N-S7), the ledger
primitives (N-L1, N-L3, N-L4, N-T3, N-F3, N-F5, N-F6, N-C3, N-E1), the resolutions of ambiguities
1, 2, 4, 5, 6 and 14 of rules/nuit-des-vampires.md, the options, the views and the secrets.

Shuffles, the tomato's tower and the dice come from a script, so every test sees exactly the cards
it names: unless a test says otherwise the shuffles keep the built order (magic cards 0-3 are the
1-bottle elixirs, 9-12 the gloves, 13-15 tempo, 16-21 bridges, 22-29 duel cards; each fate stack
reads lose magic, lose ketchup, choose magic, gain ketchup, Flying Vampire).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from companion.fairness.sealed import SealedFact, opens
from companion.games.base import HOST, SYSTEM, TABLE, Command, Event, OptionsError, Rejection, SeatInfo, Viewer, seat
from companion.games.nuit import NUIT_DES_VAMPIRES as GAME
from companion.games.nuit.options import DEFAULTS, normalize_options, options_schema
from companion.games.nuit.rules import (
    GAME_ID,
    SEAL_NAME,
    Outcome,
    draw_fate,
    fate_effect,
    give_back_magic,
    open_tower,
    pay_bottles,
    peek_tower,
    take_bottles,
    take_magic,
)
from companion.games.nuit.state import NuitState
from tests.conftest import SeededRandomSource
from tests.support.chi_square import chi_square_p

NAMES = {1: "Ada", 2: "Ben", 3: "Cyd", 4: "Dee", 5: "Eve", 6: "Fay"}
SHARED_DEFAULTS = Path("/work/shared/rules/defaults.json")
JAGD_DER_VAMPIRE: dict[str, Any] = {
    "players": [2, 6], "black_die": [1, 1, 2, 2, 3, 3], "red_die_UNVERIFIED": [1, 2, 2, 3, 3, 4],
    "fate_colours_UNVERIFIED": ["fate-1", "fate-2", "fate-3"],
    "fate_stack_UNVERIFIED": [{"kind": "lose_magic", "n": "c"}, {"kind": "lose_ketchup", "n": "c"},
                              {"kind": "choose_magic"}, {"kind": "gain_ketchup", "n": "c"},
                              {"kind": "flying_vampire"}],
    "fate_stack_note": "n = c where c = 1, 2, 3 for fate colours 1, 2, 3 (UNVERIFIED)",
    "magic_cards": {"elixir_1_UNVERIFIED": 4, "elixir_2_UNVERIFIED": 3, "elixir_3_UNVERIFIED": 2, "glove": 4,
                    "tempo": 3, "bridge": 6, "duel_plus1": 4, "duel_plus2": 2, "duel_plus3": 2},
    "start_bottles": 4, "start_magic": 3, "display_magic": 3, "max_bottles": 8, "max_magic": 5,
    "max_magic_per_move": 3, "duel_cards_per_roll": 1, "outer_start_spaces_used_with_players": [5, 6],
    "flying_vampire_target": "same_colour_space", "oubliette_bribe": 4, "tower_mode": "digital_secret",
}
"""A copy of defaults.json's `jagd_der_vampire`, checked against the file when it is at hand."""


# -- helpers -----------------------------------------------------------------------------------

class Script:
    """A RandomSource that returns the queued values, each checked against what the draw is for.

    Shuffles never swap (the built order stays) and the seal's salt is all zeros, unless queued."""

    def __init__(self, *draws: tuple[str, int]) -> None:
        self.queue = list(draws)
        self.purposes: list[str] = []

    def randbelow(self, bound: int, purpose: str) -> int:
        self.purposes.append(purpose)
        if self.queue and self.queue[0][0] in purpose:
            value = self.queue.pop(0)[1]
            assert 0 <= value < bound, f"{value} is not below {bound} ({purpose})"
            return value
        if purpose.startswith("shuffle"):
            return bound - 1
        if purpose.startswith("tower seal salt"):
            return 0
        raise AssertionError(f"unexpected draw: {purpose!r} below {bound} (queued: {self.queue})")

    def done(self) -> bool:
        return not self.queue


def seats(players: int) -> list[SeatInfo]:
    return [SeatInfo(n, NAMES[n]) for n in range(1, players + 1)]


def new_game(players: int = 3, tomato: int = 3, draws: Sequence[tuple[str, int]] = (), **options: Any) -> NuitState:
    """A fresh game with the tomato in tower `tomato` (digital towers)."""
    normalized = normalize_options(options)
    tower = () if normalized["tower_mode"] == "physical" else (("tomato tower", tomato - 1),)
    script = Script(*tower, *draws)
    state = GAME.setup(normalized, seats(players), script)
    assert script.done(), f"draws left unused: {script.queue}"
    return state


def playing(players: int = 3, tomato: int = 3, **options: Any) -> NuitState:
    """A game past its start roll, seat 1 to play."""
    return replace(new_game(players, tomato, **options), phase="turn", current=1, start={},
                   turn={"stage": "choose", "seat": 1}, turns=1)


def assert_conserved(state: NuitState) -> None:
    assert state.bottles_in_play() == 60, "players' bottles and the reserve make 60"
    assert state.reserve >= 0 and all(0 <= p.bottles <= state.options["max_bottles"] for p in state.players)
    cards = [*state.deck, *state.display, *(c for p in state.players for c in p.hand)]
    assert sorted(cards) == list(range(len(state.magic))), "every magic card is in exactly one place"
    assert all(len(p.hand) <= state.options["max_magic"] for p in state.players)
    assert sorted(c for stack in state.stacks for c in stack) == list(range(len(state.fate)))


def apply(state: NuitState, outcome: Outcome) -> NuitState:
    """Evolve the events of a primitive that must not refuse; the ledger stays whole after each one."""
    assert not isinstance(outcome, Rejection), f"refused: {outcome}"
    for event in outcome:
        state = GAME.evolve(state, event)
        assert_conserved(state)
    return state


def refused(outcome: Outcome) -> str:
    assert isinstance(outcome, Rejection), f"allowed: {outcome}"
    return outcome.code


def do(state: NuitState, actor: Viewer, command: str, draws: Sequence[tuple[str, int]] = (),
       **args: Any) -> tuple[NuitState, list[Event]]:
    """Validate, decide with the scripted draws, and evolve: the ledger stays whole after every event."""
    order = Command(command, args)
    rejection = GAME.validate(state, actor, order)
    assert rejection is None, f"{actor} {command} {args} was refused: {rejection}"
    script = Script(*draws)
    decision = GAME.decide(state, actor, order, script)
    assert script.done(), f"draws left unused: {script.queue}"
    for state in decision.states:
        assert_conserved(state)
    return state, decision.events


def refuse(state: NuitState, actor: Viewer, command: str, **args: Any) -> str:
    rejection = GAME.validate(state, actor, Command(command, args))
    assert rejection is not None, f"{actor} {command} {args} was allowed"
    return rejection.code


def faces(round_: int, who: int, red: int, black: int) -> list[tuple[str, int]]:
    """The draws of one start roll with these pips (the default dice)."""
    return [(f"start roll {round_} seat {who} red die", [1, 2, 2, 3, 3, 4].index(red)),
            (f"start roll {round_} seat {who} black die", [1, 1, 2, 2, 3, 3].index(black))]


def kinds(state: NuitState, cards: Sequence[int]) -> list[str]:
    return [state.magic[c].kind for c in cards]


def body(state: NuitState, viewer: Viewer) -> str:
    view = GAME.view(state, viewer)
    return json.dumps(view, ensure_ascii=False) + json.dumps(view)


VIEWERS = [TABLE, HOST, seat(1), seat(2), seat(3)]


# -- setup (N-S2, N-S4..N-S6) -----------------------------------------------------------------------

def test_n_s2_one_tomato_and_four_onions_the_tomato_where_the_draw_put_it() -> None:
    for tomato in range(1, 6):
        state = new_game(tomato=tomato)
        assert [t.content for t in state.towers] == ["tomato" if n == tomato else "onion" for n in range(1, 6)]
        assert not any(t.opened for t in state.towers)


def test_n_s2_the_placement_is_sealed_and_the_seal_opens_only_with_the_tomatos_tower() -> None:
    state = new_game(tomato=4)
    assert state.commitment is not None and state.salt is not None
    fact = SealedFact(SEAL_NAME, state.commitment)
    assert opens(GAME_ID, fact, "4", state.salt)
    for moved in (1, 2, 3, 5):
        assert not opens(GAME_ID, fact, str(moved), state.salt), "a moved tomato does not open the seal"


def test_n_s2_the_salt_is_drawn_so_a_replay_reproduces_the_seal() -> None:
    first = GAME.setup(normalize_options({}), seats(3), SeededRandomSource(7))
    again = GAME.setup(normalize_options({}), seats(3), SeededRandomSource(7))
    other = GAME.setup(normalize_options({}), seats(3), SeededRandomSource(8))
    assert first.commitment == again.commitment and first.salt == again.salt
    assert first.salt != other.salt
    assert len(first.salt or "") == 32, "16 bytes, as companion/fairness/sealed.py"


def test_n_s2_the_tomato_is_uniform_over_the_five_towers_and_every_seal_opens() -> None:
    counts: Counter[int] = Counter()
    for n in range(5000):
        state = GAME.setup(normalize_options({}), seats(2), SeededRandomSource(n))
        tomato = next(t.number for t in state.towers if t.content == "tomato")
        counts[tomato] += 1
        if n % 50 == 0:
            assert state.commitment is not None and state.salt is not None
            fact = SealedFact(SEAL_NAME, state.commitment)
            assert opens(GAME_ID, fact, str(tomato), state.salt)
            assert not opens(GAME_ID, fact, str(tomato % 5 + 1), state.salt)
    assert all(800 <= counts[t] <= 1200 for t in range(1, 6)), counts
    assert chi_square_p([counts[t] for t in range(1, 6)]) > 1e-4, counts


def test_n_s4_each_fate_stack_holds_its_five_cards_shuffled_through_the_draws() -> None:
    state = new_game()
    assert [len(s) for s in state.stacks] == [5, 5, 5]
    for colour, stack in enumerate(state.stacks):
        assert {state.fate[c].colour for c in stack} == {colour}
        assert [state.fate[c].kind for c in stack] == ["lose_magic", "lose_ketchup", "choose_magic",
                                                        "gain_ketchup", "flying_vampire"]
    swapped = new_game(draws=[("shuffle the fate-2 fate stack #4", 0)])
    assert swapped.fate[swapped.stacks[1][0]].kind == "flying_vampire"
    assert swapped.stacks[0] == state.stacks[0]
    script = Script(("tomato tower", 0))
    GAME.setup(normalize_options({}), seats(2), script)
    assert sum(p.startswith("shuffle the magic deck") for p in script.purposes) == 29
    assert all(sum(p.startswith(f"shuffle the fate-{c} fate stack") for p in script.purposes) == 4 for c in (1, 2, 3))


def test_n_s5_three_public_magic_cards_each_and_three_on_the_display() -> None:
    state = new_game(players=3)
    assert [p.hand for p in state.players] == [(0, 1, 2), (3, 4, 5), (6, 7, 8)]
    assert state.display == (9, 10, 11)
    assert state.deck == tuple(range(12, 30))
    for viewer in VIEWERS:
        view = GAME.view(state, viewer)
        assert [c["card"] for c in view["players"][1]["hand"]] == ["magic-03", "magic-04", "magic-05"]
        assert [c["kind"] for c in view["display"]] == ["glove", "glove", "glove"]
        assert view["deck"] == 18


def test_n_s5_the_magic_deck_is_thirty_cards_as_the_seed_lists_them() -> None:
    state = new_game()
    assert len(state.magic) == 30
    assert Counter(c.kind for c in state.magic) == {
        "elixir_1": 4, "elixir_2": 3, "elixir_3": 2, "glove": 4, "tempo": 3, "bridge": 6,
        "duel_plus1": 4, "duel_plus2": 2, "duel_plus3": 2}
    assert {c.kind: c.value for c in state.magic if c.kind.startswith(("elixir", "duel"))} == {
        "elixir_1": 1, "elixir_2": 2, "elixir_3": 3, "duel_plus1": 1, "duel_plus2": 2, "duel_plus3": 3}


def test_n_s6_four_bottles_each_the_rest_is_the_reserve() -> None:
    for players in (2, 6):
        state = new_game(players=players)
        assert [p.bottles for p in state.players] == [4] * players
        assert state.reserve == 60 - 4 * players
        assert_conserved(state)


# -- the start roll (N-S7) ----------------------------------------------------------------------------

def test_n_s7_the_highest_total_starts_and_play_goes_clockwise_from_them() -> None:
    state = new_game(players=3)
    assert state.phase == "start_roll"
    state, _ = do(state, seat(1), "roll", faces(1, 1, 2, 1))
    assert refuse(state, seat(1), "roll") == "already_rolled"
    state, _ = do(state, seat(2), "roll", faces(1, 2, 4, 3))
    state, events = do(state, seat(3), "roll", faces(1, 3, 3, 3))
    assert [e.type for e in events] == ["start_rolled", "start_decided"]
    assert state.phase == "turn" and state.current == 2
    assert state.order == (2, 3, 1)


def test_n_s7_the_tied_roll_again_among_themselves() -> None:
    state = new_game(players=3)
    state, events = do(state, TABLE, "roll", [*faces(1, 1, 3, 3), *faces(1, 2, 1, 1), *faces(1, 3, 4, 2)])
    assert events[-1].type == "start_tied" and events[-1].data["seats"] == [1, 3]
    assert state.phase == "start_roll" and state.start["contenders"] == [1, 3]
    assert refuse(state, seat(2), "roll") == "not_in_start_roll"
    state, events = do(state, HOST, "roll", [*faces(2, 1, 1, 1), *faces(2, 3, 2, 1)])
    assert events[-1].data == {"seat": 3, "total": 3, "order": [3, 1, 2]}
    assert state.current == 3


def test_n_s7_the_start_roll_comes_first_then_the_starter_moves_or_replenishes() -> None:
    state = new_game(players=2)
    assert refuse(state, SYSTEM, "roll") == "not_authorized"
    assert refuse(state, seat(1), "move") == "not_now"
    assert refuse(state, seat(1), "fly_away") == "unknown_command"
    assert refuse(state, seat(5), "roll") == "not_seated"
    assert GAME.actions(state, seat(1)) == [Command("roll")]
    state, _ = do(state, TABLE, "roll", [*faces(1, 1, 4, 3), *faces(1, 2, 1, 1)])
    assert refuse(state, seat(1), "roll") == "not_now"
    assert state.turn == {"stage": "choose", "seat": 1}
    # Seat 1 holds three elixirs (the built order): cashing them is open to it at any time.
    assert GAME.actions(state, seat(1)) == [Command("move"), Command("replenish"),
                                            *(Command("cash", {"card": c}) for c in (0, 1, 2))]
    assert GAME.actions(state, seat(2)) == [Command("cash", {"card": c}) for c in (3, 4, 5)]
    assert refuse(state, seat(2), "move") == "waiting_for"


# -- the ledger (N-L1, N-L3, N-L4) ---------------------------------------------------------------------

def test_n_l1_bottles_are_capped_at_eight_the_excess_stays_in_the_reserve() -> None:
    state = playing()
    state = apply(state, take_bottles(state, 1, 3, "replenish"))
    assert state.player(1).bottles == 7
    state = apply(state, take_bottles(state, 1, 3, "replenish"))
    assert state.player(1).bottles == 8 and state.reserve == 60 - 8 - 4 - 4
    events = take_bottles(state, 1, 2, "elixir")
    assert not isinstance(events, Rejection) and events[0].data["taken"] == 0
    assert refused(take_bottles(state, 1, -1, "x")) == "bad_count"
    assert refused(take_bottles(state, 9, 1, "x")) == "not_seated"


def test_n_l1_at_most_five_magic_cards_in_hand() -> None:
    state = playing()
    state = apply(state, take_magic(state, 1, 9, "replenish"))
    state = apply(state, take_magic(state, 1, 10, "replenish"))
    assert len(state.player(1).hand) == 5
    assert refused(take_magic(state, 1, state.display[0], "replenish")) == "hand_full"


def test_n_l1_a_price_is_paid_in_full_a_debt_with_what_is_held() -> None:
    state = playing()
    assert refused(pay_bottles(state, 1, 5, "move")) == "not_enough_bottles"
    state = apply(state, pay_bottles(state, 1, 2, "move"))
    assert state.player(1).bottles == 2 and state.reserve == 50
    state = apply(state, pay_bottles(state, 1, 3, "fate", as_many_as_held=True))
    assert state.player(1).bottles == 0 and state.reserve == 52


def test_n_l3_given_back_cards_go_under_the_deck_in_the_order_given() -> None:
    state = playing()
    state = apply(state, give_back_magic(state, 1, [2, 0], "fate"))
    assert state.player(1).hand == (1,)
    assert state.deck[-2:] == (2, 0)
    assert refused(give_back_magic(state, 1, [0], "fate")) == "not_in_hand"
    assert refused(give_back_magic(state, 2, [3, 3], "fate")) == "not_in_hand"


def test_n_l4_and_n_f3_a_card_taken_from_the_display_is_replaced_from_the_deck_top() -> None:
    state = playing()
    events = take_magic(state, 2, 10, "fate")
    assert not isinstance(events, Rejection)
    assert [e.type for e in events] == ["magic_taken", "display_refilled"]
    assert events[1].reveals, "the new card is seen: taking the card cannot be undone to hide it again"
    state = apply(state, events)
    assert state.player(2).hand == (3, 4, 5, 10)
    assert state.display == (9, 11, 12) and state.deck[0] == 13
    assert refused(take_magic(state, 2, 10, "fate")) == "not_on_display"


def test_n_l4_an_empty_deck_leaves_the_display_short() -> None:
    state = replace(playing(), deck=(), players=tuple(replace(p, hand=()) for p in playing().players))
    state = replace(state, display=(0, 1, 2))
    state = GAME.evolve(state, Event("magic_taken", {"seat": 1, "card": 0, "cause": "test"}))
    assert state.display == (1, 2)


# -- fate cards (N-T3, N-F5, N-F6) ----------------------------------------------------------------------

def test_n_t3_and_n_f6_a_drawn_card_is_shown_and_goes_under_its_stack_a_fixed_cycle() -> None:
    state = playing()
    seen = []
    for _ in range(10):
        events = draw_fate(state, 1, "fate-2", "move")
        assert not isinstance(events, Rejection)
        assert events[0].reveals and events[0].data["colour"] == "fate-2"
        seen.append(events[0].data["kind"])
        state = apply(state, events)
    assert seen[:5] == seen[5:], "never reshuffled: the same five-card cycle"
    assert seen[:5] == ["lose_magic", "lose_ketchup", "choose_magic", "gain_ketchup", "flying_vampire"]
    assert state.stacks[0] == playing().stacks[0] and state.stacks[2] == playing().stacks[2]
    assert refused(draw_fate(state, 1, "black", "move")) == "no_fate_colour"


def test_n_t3_the_drawn_card_is_public_but_never_the_next_one() -> None:
    state = playing()
    state = apply(state, draw_fate(state, 1, "fate-1", "move"))
    for viewer in VIEWERS:
        view = GAME.view(state, viewer)
        assert view["last_fate"]["card"] == "fatecard-00" and view["last_fate"]["n"] == 1
        assert view["fate_history"] is None
        assert "fatecard-01" not in body(state, viewer)
    assert [s["cards"] for s in GAME.view(state, TABLE)["fate_stacks"]] == [5, 5, 5]


def test_children_assist_lists_the_drawn_fate_cards_never_the_upcoming_ones() -> None:
    state = playing(childrens_assist=True)
    for colour in ("fate-1", "fate-3", "fate-1"):
        state = apply(state, draw_fate(state, 2, colour, "move"))
    view = GAME.view(state, TABLE)
    assert [c["card"] for c in view["fate_history"]] == ["fatecard-00", "fatecard-10", "fatecard-01"]
    for upcoming in ("fatecard-02", "fatecard-11", "fatecard-05"):
        assert upcoming not in body(state, TABLE)


def test_n_f5_a_peek_shows_the_tower_to_the_peeker_alone() -> None:
    state = playing(tomato=2)
    events = peek_tower(state, 1, 2)
    assert not isinstance(events, Rejection) and events[0].reveals
    state = apply(state, events)
    assert GAME.view(state, seat(1))["peeked"][0]["content"] == "tomato"
    assert "tower-2-tomato" in body(state, seat(1))
    for viewer in (TABLE, HOST, seat(2), seat(3)):
        assert "tower-2-tomato" not in body(state, viewer)
        assert "tomato" not in json.dumps(GAME.view(state, viewer)["towers"])
    secret = next(s for s in GAME.secrets(state) if s.value == "tower-2-tomato")
    assert secret.visible_to(seat(1)) and not secret.visible_to(seat(2)) and not secret.visible_to(HOST)
    assert "tomato" not in GAME.describe(events[0], "en") + GAME.describe(events[0], "fr")


def test_ambiguity_6_a_peek_takes_nothing_and_leaves_the_pawn_where_it_is() -> None:
    state = replace(playing(tomato=2), players=tuple(replace(p, location="fate-1") for p in playing().players))
    state = apply(state, peek_tower(state, 1, 4))
    assert state.tower(4).content == "onion" and not state.tower(4).opened
    assert state.player(1).location == "fate-1" and state.player(1).onions == 0


# -- the towers (N-C3, N-E1) -----------------------------------------------------------------------

def test_n_c3_an_opened_onion_is_taken_the_tower_stays_empty_and_the_finder_goes_to_the_oubliettes() -> None:
    state = playing(tomato=5)
    state = apply(state, open_tower(state, 2, 1))
    tower = state.tower(1)
    assert tower.opened and tower.found == "onion" and tower.content is None
    assert state.player(2).onions == 1 and state.player(2).location == "oubliettes"
    assert state.phase == "turn"
    assert refused(open_tower(state, 3, 1)) == "tower_opened"
    assert refused(peek_tower(state, 3, 1)) == "tower_opened"
    assert refused(open_tower(state, 3, 6)) == "no_such_tower"


def test_ambiguity_14_an_opened_tower_is_shown_to_everyone_and_stays_empty() -> None:
    state = playing(tomato=5)
    state = apply(state, open_tower(state, 2, 3))
    for viewer in VIEWERS:
        tower = GAME.view(state, viewer)["towers"][2]
        assert tower == {"tower": 3, "opened": True, "found": "onion", "empty": True, "token": "tower-3-onion"}
    assert all(s.value != "tower-3-onion" for s in GAME.secrets(state))


def test_n_e1_the_tomato_wins_at_once_and_opens_the_seal_for_everyone() -> None:
    state = playing(tomato=3)
    assert GAME.view(state, TABLE)["seal"] == {"game": GAME_ID, "name": SEAL_NAME, "commitment": state.commitment}
    events = open_tower(state, 1, 3)
    assert not isinstance(events, Rejection)
    assert [e.type for e in events] == ["tower_opened", "game_won"]
    state = apply(state, events)
    assert GAME.is_over(state) and state.winner == 1
    seal = GAME.view(state, TABLE)["seal"]
    assert seal["tomato"] == 3 and seal["salt"] == state.salt
    assert opens(GAME_ID, SealedFact(SEAL_NAME, seal["commitment"]), str(seal["tomato"]), seal["salt"])
    assert refuse(state, seat(2), "roll") == "game_over"


def test_physical_towers_the_companion_knows_nothing_and_is_told_what_was_found() -> None:
    state = playing(tower_mode="physical")
    assert state.commitment is None and all(t.content is None for t in state.towers)
    assert GAME.view(state, TABLE)["seal"] is None
    assert refused(open_tower(state, 1, 2)) == "say_what_was_found"
    # A flying vampire looks into the real tower: the companion records which, not what.
    assert apply(state, peek_tower(state, 1, 2)).peeks == ((1, 2),)
    assert peek_tower(state, 1, 2)[0].data["content"] is None  # type: ignore[index]
    state = apply(state, open_tower(state, 1, 2, found="onion"))
    assert state.player(1).onions == 1 and state.tower(2).opened
    state = apply(state, open_tower(state, 2, 4, found="tomato"))
    assert state.winner == 2


# -- ambiguities 1, 2, 4, 5 and the options ------------------------------------------------------------

def test_ambiguity_1_each_colour_holds_two_bad_and_three_good_cards_fifteen_in_all() -> None:
    state = new_game()
    assert len(state.fate) == 15
    for colour in range(3):
        cards = [c for c in state.fate if c.colour == colour]
        bad = [c for c in cards if c.kind.startswith("lose")]
        assert len(bad) == 2 and len(cards) - len(bad) == 3
        assert {c.n for c in cards if c.kind in ("lose_magic", "lose_ketchup", "gain_ketchup")} == {colour + 1}


def test_ambiguity_2_the_unknown_values_are_the_proposed_defaults_flagged_unverified() -> None:
    state = new_game()
    assert GAME.view(state, TABLE)["unverified"] == ["red_die", "fate_colours", "fate_stack", "elixir_values"]
    counted = new_game(red_die=[1, 2, 3, 4, 5, 6], elixir_values=[1, 1, 2])
    assert GAME.view(counted, TABLE)["unverified"] == ["fate_colours", "fate_stack"]
    schema = {o["key"]: o for o in options_schema({})}
    for key in ("red_die", "fate_colours", "fate_stack", "elixir_values"):
        assert set(schema[key]["note"]) == {"en", "fr"}, key
    assert "note" not in schema["black_die"]


@pytest.mark.skipif(not SHARED_DEFAULTS.exists(), reason="the shared rules folder is not here")
def test_options_the_copy_of_the_shared_defaults_is_up_to_date() -> None:
    assert json.loads(SHARED_DEFAULTS.read_text())["jagd_der_vampire"] == JAGD_DER_VAMPIRE


def test_options_defaults_are_the_rules_proposed_defaults() -> None:
    options = normalize_options({})
    assert options == DEFAULTS
    for key in ("black_die", "start_bottles", "start_magic", "display_magic", "max_bottles", "max_magic",
                "max_magic_per_move", "duel_cards_per_roll", "outer_start_spaces_used_with_players",
                "flying_vampire_target", "oubliette_bribe", "tower_mode"):
        assert options[key] == JAGD_DER_VAMPIRE[key], key
    assert options["red_die"] == JAGD_DER_VAMPIRE["red_die_UNVERIFIED"]
    assert options["fate_colours"] == JAGD_DER_VAMPIRE["fate_colours_UNVERIFIED"]
    assert options["fate_stack"] == JAGD_DER_VAMPIRE["fate_stack_UNVERIFIED"]
    counts = JAGD_DER_VAMPIRE["magic_cards"].items()
    assert options["magic_cards"] == {k.removesuffix("_UNVERIFIED"): v for k, v in counts}
    assert options["elixir_values"] == [1, 2, 3]
    assert options["good_card_reading"] == "kinds" and options["childrens_assist"] is False
    assert [GAME.min_seats, GAME.max_seats] == JAGD_DER_VAMPIRE["players"]
    assert normalize_options(options) == options


def test_ambiguity_4_good_cards_are_two_kinds_by_default_or_both_at_once() -> None:
    state = new_game()
    choose, gain = (next(c for c in state.fate if c.colour == 2 and c.kind == k) for k in ("choose_magic",
                                                                                            "gain_ketchup"))
    assert fate_effect(choose, "kinds")["display_cards"] == 1 and fate_effect(choose, "kinds")["bottles"] == 0
    assert fate_effect(gain, "kinds")["display_cards"] == 0 and fate_effect(gain, "kinds")["bottles"] == 3
    assert fate_effect(gain, "both")["display_cards"] == 1 and fate_effect(gain, "both")["bottles"] == 3
    lose = next(c for c in state.fate if c.colour == 1 and c.kind == "lose_magic")
    assert fate_effect(lose, "both")["give_back_magic"] == 2
    assert normalize_options({"good_card_reading": "both"})["good_card_reading"] == "both"


def test_ambiguity_5_the_flying_vampire_targets_the_same_colour_by_default() -> None:
    assert normalize_options({})["flying_vampire_target"] == "same_colour_space"
    assert normalize_options({"flying_vampire_target": "any_space"})["flying_vampire_target"] == "any_space"


def magic(**changes: Any) -> dict[str, Any]:
    return {**DEFAULTS["magic_cards"], **changes}


BAD_OPTIONS = [
    ("tower_mode", "human", "tower_mode"),
    ("red_die", [4], "red_die"),
    ("red_die", [1, 2, "3"], "red_die"),
    ("red_die", [1, 2, True], "red_die"),
    ("black_die", [1, 13], "black_die"),
    ("fate_colours", ["red", "green"], "fate_colours"),
    ("fate_colours", ["red", "red", "blue"], "fate_colours"),
    ("fate_colours", ["red", "green", ""], "fate_colours"),
    ("fate_colours", ["red", "green", "oubliettes"], "fate_colours"),
    ("fate_stack", [], "fate_stack"),
    ("fate_stack", [{"kind": "curse"}], "fate_stack[0].kind"),
    ("fate_stack", [{"kind": "flying_vampire"}, {"kind": "gain_ketchup"}], "fate_stack[1].n"),
    ("fate_stack", [{"kind": "gain_ketchup", "n": 9}], "fate_stack[0].n"),
    ("fate_stack", [{"kind": "gain_ketchup", "n": "d"}], "fate_stack[0].n"),
    ("fate_stack", [{"kind": "choose_magic", "n": 2}], "fate_stack[0].n"),
    ("magic_cards", [4] * 9, "magic_cards"),
    ("magic_cards", magic(glove=-1), "magic_cards.glove"),
    ("magic_cards", magic(tempo=2.0), "magic_cards.tempo"),
    ("magic_cards", {**magic(), "wand": 2}, "magic_cards"),
    ("magic_cards", {k: 1 for k in DEFAULTS["magic_cards"]}, "magic_cards"),
    ("elixir_values", [1, 2], "elixir_values"),
    ("elixir_values", [1, 2, 9], "elixir_values"),
    ("start_bottles", 9, "start_bottles"),
    ("start_magic", 6, "start_magic"),
    ("display_magic", 0, "display_magic"),
    ("max_bottles", 11, "max_bottles"),
    ("max_magic", True, "max_magic"),
    ("max_magic_per_move", 0, "max_magic_per_move"),
    ("duel_cards_per_roll", 4, "duel_cards_per_roll"),
    ("oubliette_bribe", -1, "oubliette_bribe"),
    ("flying_vampire_target", "anywhere", "flying_vampire_target"),
    ("good_card_reading", "either", "good_card_reading"),
    ("childrens_assist", "yes", "childrens_assist"),
    ("outer_start_spaces_used_with_players", [7], "outer_start_spaces_used_with_players"),
    ("outer_start_spaces_used_with_players", [5, 5], "outer_start_spaces_used_with_players"),
    ("players", 4, "players"),
]


@pytest.mark.parametrize(("key", "value", "named"), BAD_OPTIONS)
def test_options_every_bad_value_is_refused_with_its_key_named(key: str, value: Any, named: str) -> None:
    with pytest.raises(OptionsError) as caught:
        normalize_options({key: value})
    assert caught.value.key == named
    assert str(caught.value).startswith(f"{named}: ")


# -- the secrets -----------------------------------------------------------------------------------

def test_secrets_tower_contents_deck_order_and_upcoming_fate_cards_never_reach_a_view() -> None:
    """Random ledger play over many seeds: after every step, no viewer's view holds a secret it may
    not know (the generic leak test's check, on the pure rules)."""
    for n in range(40):
        rnd = random.Random(n)
        state = GAME.setup(normalize_options({"childrens_assist": n % 2 == 0}), seats(3), SeededRandomSource(n))
        for _ in range(40):
            who = rnd.randint(1, 3)
            player = state.player(who)
            choice = rnd.randrange(7)
            if choice == 0:
                outcome = take_bottles(state, who, rnd.randint(1, 4), "test")
            elif choice == 1:
                outcome = pay_bottles(state, who, rnd.randint(1, 4), "test", as_many_as_held=True)
            elif choice == 2 and state.display:
                outcome = take_magic(state, who, rnd.choice(state.display), "test")
            elif choice == 3 and player.hand:
                outcome = give_back_magic(state, who, [rnd.choice(player.hand)], "test")
            elif choice == 4:
                outcome = draw_fate(state, who, rnd.choice(state.colours), "test")
            elif choice == 5:
                outcome = peek_tower(state, who, rnd.randint(1, 5))
            elif choice == 6 and rnd.random() < 0.2:
                outcome = open_tower(state, who, rnd.randint(1, 5))
            else:
                continue
            if isinstance(outcome, Rejection):
                continue
            state = apply(state, outcome)
            secrets = GAME.secrets(state)
            for viewer in VIEWERS:
                text = body(state, viewer)
                for secret in secrets:
                    if not secret.visible_to(viewer):
                        assert secret.value not in text, f"{viewer} sees {secret.description}"
            if GAME.is_over(state):
                break


def test_secrets_are_declared_with_the_tokens_views_use() -> None:
    state = playing(tomato=1)
    values = {s.value for s in GAME.secrets(state)}
    assert {"tower-1-tomato", "tower-2-onion", state.salt} <= values
    assert "magic-12" in values and "magic-09" not in values, "the deck is secret, the display is not"
    assert "fatecard-00" in values
    state = apply(state, give_back_magic(state, 1, [0], "test"))
    assert "magic-00" not in {s.value for s in GAME.secrets(state)}, "a card seen face up is known under the deck"
    state = apply(state, draw_fate(state, 1, "fate-1", "test"))
    assert "fatecard-00" not in {s.value for s in GAME.secrets(state)}
    for viewer in VIEWERS:
        assert (state.salt or "?") not in body(state, viewer)


def test_describe_names_no_secret() -> None:
    state = playing(tomato=2)
    events = [*apply_events(state, peek_tower(state, 1, 2))]
    lines = [GAME.describe(e, lang) for e in events for lang in ("en", "fr")]
    assert lines == ["seat 1 looked into tower 2", "la place 1 a regardé dans la tour 2"]
    won = open_tower(state, 1, 2)
    assert not isinstance(won, Rejection)
    for event in won:
        for lang in ("en", "fr"):
            assert (state.salt or "?") not in GAME.describe(event, lang)


def apply_events(state: NuitState, outcome: Outcome) -> list[Event]:
    assert not isinstance(outcome, Rejection)
    return list(outcome)


def test_the_generic_leak_test_through_the_real_table_finds_no_leak() -> None:
    """The game, unregistered, still runs on the table: setup, the start roll, every view checked."""
    from tests.support.leak import play

    report = play(GAME, {}, seats=3, games=4, steps=10)
    assert not report.leaks, report.leaks[:3]
    assert report.secrets_seen and {"start_rolled", "start_decided"} <= report.event_types
