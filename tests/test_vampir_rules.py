"""Vampir's pure rules, rule by rule: the setup (V-S1..V-S4), the turn (V-T1, V-T1a, V-T1b, V-T2),
the hunts (V-H1..V-H3), the round's end (V-E1..V-E3), the scoring (V-SC1..V-SC5), the resolutions
of ambiguities 1..12 of rules/vampir.md, the physical cards' entry, bad input, and the views.

Situations are built on a set-up state with `arrange` (hands, piles, draw pile and hunts named
card by card; every one of the 106 cards stays in exactly one place). Unless a test says otherwise
the shuffle keeps the catalogue's order and seat 1 starts (`Picks`).
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest

from companion.games.base import HOST, SYSTEM, TABLE, Command, Event, OptionsError, SeatInfo, Viewer, seat
from companion.games.vampir import VAMPIR
from companion.games.vampir.options import COLOURS, DEFAULT_LOCATIONS, DEFAULTS, LOCATIONS
from companion.games.vampir.rules import (
    deal,
    entry_refusal,
    hunt_colour,
    hunt_refusal,
    score_round,
    supply_problems,
    winners,
)
from companion.games.vampir.state import CARDS, STARTERS, Hunt, VampirState
from companion.i18n import catalogue
from tests.conftest import SeededRandomSource

NAMES = {1: "Ada", 2: "Ben", 3: "Cyd", 4: "Dee", 5: "Eve"}
ERRORS = set(catalogue("en")["error"])
JOKER = [c.number for c in CARDS if c.joker]
VIEWERS = [TABLE, HOST, seat(1), seat(2), seat(3)]


# -- helpers -----------------------------------------------------------------------------------

def ones(colour: str) -> list[int]:
    """The one-head cards of a colour, its location's starting card left out."""
    return [c.number for c in CARDS if c.colour == colour and c.heads == 1 and c.number not in STARTERS]


def twos(colour: str) -> list[int]:
    return [c.number for c in CARDS if c.colour == colour and c.heads == 2]


def starter(colour: str) -> int:
    return STARTERS[COLOURS.index(colour)]


def tok(*numbers: int, round_number: int = 1) -> list[str]:
    return [CARDS[n].token(round_number) for n in numbers]


class Picks:
    """A RandomSource: shuffles keep their order, the first player is the queued index (else 0)."""

    def __init__(self, *firsts: int) -> None:
        self.firsts = list(firsts)
        self.asked: list[tuple[str, int]] = []

    def randbelow(self, bound: int, purpose: str) -> int:
        self.asked.append((purpose, bound))
        if "first player" in purpose:
            value = self.firsts.pop(0) if self.firsts else 0
            assert 0 <= value < bound
            return value
        assert "shuffle" in purpose, purpose
        return bound - 1


def seats(players: int) -> list[SeatInfo]:
    return [SeatInfo(n, NAMES[n]) for n in range(1, players + 1)]


def new_game(players: int = 3, rng: Any = None, **options: Any) -> VampirState:
    return VAMPIR.setup(VAMPIR.normalize_options(options), seats(players), rng or Picks())


def assert_ledger(state: VampirState) -> None:
    """Every card in exactly one place: piles, draw pile, hands, hunts, removed or discarded."""
    places = [*(c for p in state.piles.values() for c in p), *state.draw_pile, *state.removed, *state.discarded,
              *(c for p in state.players for c in p.hand),
              *(c for p in state.players for h in p.hunts for c in h.cards)]
    assert sorted(places) == list(range(len(CARDS))), Counter(places).most_common(3)
    assert state.cards_in_play() == 106


def arrange(state: VampirState, hands: Mapping[int, Sequence[int]] | None = None,
            piles: Mapping[str, Sequence[int]] | None = None, draw: Sequence[int] | None = None,
            hunts: Mapping[int, Sequence[Sequence[int]]] | None = None, **changes: Any) -> VampirState:
    """A digital round in a precise situation: seats not in `hands` hold nothing, colours not in
    `piles` show their starting card, the draw pile is `draw` (the other cards go out of the game)
    or, when not given, every other card in catalogue order."""
    hands = {s: tuple(v) for s, v in (hands or {}).items()}
    pile_map = {c: tuple((piles or {}).get(c, (starter(c),))) for c in COLOURS}
    laid = {s: tuple(Hunt.of(str(hunt_colour(h)), tuple(h)) for h in v) for s, v in (hunts or {}).items()}
    used = {*(c for h in hands.values() for c in h), *(c for p in pile_map.values() for c in p),
            *(c for hs in laid.values() for h in hs for c in h.cards), *(draw or ())}
    rest = tuple(c.number for c in CARDS if c.number not in used)
    players = tuple(replace(p, hand=hands.get(p.seat, ()), hunts=laid.get(p.seat, ())) for p in state.players)
    arranged = replace(state, players=players, piles=pile_map, draw_pile=rest if draw is None else tuple(draw),
                       removed=() if draw is None else rest, discarded=(), **changes)
    assert_ledger(arranged)
    return arranged


def play(state: VampirState, actor: Viewer, name: str, rng: Any = None,
         **args: Any) -> tuple[VampirState, list[Event]]:
    """Validate (it must pass), decide, and evolve each event; a digital ledger stays whole."""
    command = Command(name, args)
    rejection = VAMPIR.validate(state, actor, command)
    assert rejection is None, f"{actor} {name} {args} was refused: {rejection}"
    decision = VAMPIR.decide(state, actor, command, rng or Picks())
    for state in decision.states:
        if state.digital:
            assert_ledger(state)
    return state, decision.events


def refuse_command(state: VampirState, actor: Viewer, command: Command) -> str:
    """The refusal's code (known to the translations); validate changes nothing."""
    before = copy.deepcopy(state)
    rejection = VAMPIR.validate(state, actor, command)
    assert rejection is not None, f"{actor} {command} was allowed"
    assert rejection.code in ERRORS, f"{rejection.code} has no message in en.json"
    assert state == before
    return rejection.code


def refuse(state: VampirState, actor: Viewer, name: str, **args: Any) -> str:
    return refuse_command(state, actor, Command(name, args))


def types(events: Sequence[Event]) -> list[str]:
    return [e.type for e in events]


def dumps(state: VampirState, viewer: Viewer) -> str:
    return json.dumps(VAMPIR.view(state, viewer), ensure_ascii=False)


def entry(colour: str, one: int = 0, two: int = 0, jokers: int = 0) -> dict[str, Any]:
    return {"colour": colour, "one": one, "two": two, "jokers": jokers}


def heads_of(**hunts: int) -> dict[str, int]:
    return dict(hunts)


RED, GREEN, GREY = ones("red"), ones("green"), ones("grey")
RED2, GREEN2 = twos("red"), twos("green")


# -- setup (V-S1..V-S4) ------------------------------------------------------------------------------

def test_v_s1_six_locations_in_a_row_each_colour_at_its_location() -> None:
    picture = VAMPIR.view(new_game(), TABLE)
    assert [(loc["colour"], loc["location"]) for loc in picture["locations"]] == \
        [(c, DEFAULT_LOCATIONS[c]) for c in COLOURS]
    swapped = {**DEFAULT_LOCATIONS, "green": "castle", "grey": "graveyard"}
    picture = VAMPIR.view(new_game(locations=swapped), TABLE)
    assert {loc["colour"]: loc["location"] for loc in picture["locations"]} == swapped
    assert picture["unverified"] == []
    assert VAMPIR.view(new_game(), TABLE)["unverified"] == ["locations"]


def test_v_s1_the_mapping_puts_each_colour_at_a_different_location() -> None:
    with pytest.raises(OptionsError):
        VAMPIR.normalize_options({"locations": {**DEFAULT_LOCATIONS, "green": "castle"}})
    with pytest.raises(OptionsError):
        VAMPIR.normalize_options({"locations": {c: DEFAULT_LOCATIONS[c] for c in COLOURS[:5]}})
    with pytest.raises(OptionsError):
        VAMPIR.normalize_options({"locations": ["castle"] * 6})


def test_v_s2_one_one_head_card_of_each_colour_under_its_location() -> None:
    state = new_game(rng=SeededRandomSource(3))
    for colour in COLOURS:
        (card,) = state.piles[colour]
        assert CARDS[card].colour == colour and CARDS[card].heads == 1
    for viewer in VIEWERS:
        picture = VAMPIR.view(state, viewer)
        assert [loc["pile"] for loc in picture["locations"]] == \
            [[{"card": tok(starter(c))[0], "colour": c, "heads": 1}] for c in COLOURS]
        assert all(loc["heads"] == 1 for loc in picture["locations"])


def test_v_s3_the_box_holds_106_cards_eleven_one_head_and_five_two_head_per_colour_and_ten_jokers() -> None:
    assert len(CARDS) == 106
    for colour in COLOURS:
        assert Counter(c.heads for c in CARDS if c.colour == colour) == {1: 11, 2: 5}
    assert len(JOKER) == 10 and all(CARDS[j].heads == 1 for j in JOKER)
    assert sum(c.heads for c in CARDS) == 136
    assert [c.number for c in CARDS] == list(range(106))


@pytest.mark.parametrize(("players", "left"), [(3, 88), (4, 84), (5, 80)])
def test_v_s3_four_cards_each_the_rest_is_the_draw_pile(players: int, left: int) -> None:
    state = new_game(players, SeededRandomSource(players))
    assert [len(p.hand) for p in state.players] == [4] * players
    assert len(state.draw_pile) == left
    assert_ledger(state)
    assert not set(STARTERS) & {*state.draw_pile, *(c for p in state.players for c in p.hand)}
    assert VAMPIR.view(state, TABLE)["draw_pile"] == left


def test_v_s3_the_hundred_other_cards_are_shuffled_through_the_rng() -> None:
    first = new_game(rng=SeededRandomSource(7))
    again = new_game(rng=SeededRandomSource(7))
    other = new_game(rng=SeededRandomSource(8))
    assert first == again
    assert first.draw_pile != other.draw_pile
    rng = Picks()
    dealt = deal((1, 2, 3), rng, 1)
    assert sum(p.startswith("round 1: shuffle") for p, _ in rng.asked) == 99
    assert dealt["hands"]["1"] == [c for c in range(106) if c not in STARTERS][:4]


def test_v_s4_the_first_player_is_drawn_at_random_and_play_goes_clockwise() -> None:
    rng = Picks(2)
    state = new_game(rng=rng)
    assert ("round 1: first player", 3) in rng.asked
    assert state.phase == "turn" and state.stage == "choose" and state.current == 3
    assert state.happenings[0] == {"kind": "starts", "seat": 3, "how": "random", "round": 1}
    hand = state.player(3).hand
    state, events = play(state, seat(3), "draw")
    state, events = play(state, seat(3), "discard", card=tok(hand[0])[0])
    assert types(events) == ["card_discarded", "turn_passed"]
    assert state.current == 1, "clockwise: after the last seat comes the first"
    state, _ = play(state, seat(1), "draw")
    state, _ = play(state, seat(1), "discard", card=tok(state.player(1).hand[0])[0])
    assert state.current == 2


# -- ambiguity 11: who starts ----------------------------------------------------------------------

def test_ambiguity_11_random_by_default() -> None:
    assert DEFAULTS["first_player"] == "random"
    seen = {new_game(rng=SeededRandomSource(n)).current for n in range(40)}
    assert seen == {1, 2, 3}


def test_ambiguity_11_the_host_chooses_the_starter() -> None:
    rng = Picks()
    state = new_game(rng=rng, first_player="host")
    assert not any("first player" in p for p, _ in rng.asked)
    assert state.phase == "starter" and state.current is None
    assert refuse(state, seat(1), "draw") == "not_now"
    assert refuse(state, seat(2), "choose_starter", seat=2) == "host_only"
    assert refuse(state, TABLE, "choose_starter", seat=2) == "host_only"
    for bad in (9, True, "2", None, 2.0):
        assert refuse(state, HOST, "choose_starter", seat=bad) == "not_a_player"
    assert VAMPIR.actions(state, HOST) == [Command("choose_starter", {"seat": s}) for s in (1, 2, 3)]
    state, events = play(state, HOST, "choose_starter", seat=2)
    assert events == [Event("starter_chosen", {"seat": 2, "how": "host"})]
    assert state.phase == "turn" and state.current == 2 and state.stage == "choose"
    assert refuse(state, HOST, "choose_starter", seat=3) == "not_now"


def scored_round(state: VampirState, points: Mapping[int, int], round_number: int = 1) -> VampirState:
    """The round scored with these points (not the last round): the next waits."""
    entry_ = {"round": round_number, "points": {str(s): n for s, n in points.items()}, "final": False,
              "winners": []}
    return replace(state, phase="scored", current=None, stage=None, round=round_number,
                   scores=(*state.scores, entry_))


def test_ambiguity_11_the_previous_rounds_loser_starts_random_in_the_first_round() -> None:
    rng = Picks(1)
    state = new_game(rng=rng, first_player="loser")
    assert state.current == 2 and state.happenings[0]["how"] == "random"
    done = scored_round(state, {1: 9, 2: 12, 3: 4})
    rng = Picks()
    state, events = play(done, seat(1), "next_round", rng)
    assert not any("first player" in p for p, _ in rng.asked), "a single loser needs no draw"
    assert events[-1] == Event("starter_chosen", {"seat": 3, "how": "loser"})
    assert state.round == 2 and state.current == 3
    rng = Picks(1)
    state, events = play(scored_round(state, {1: 3, 2: 8, 3: 3}, 2), HOST, "next_round", rng)
    assert ("round 3: first player", 2) in rng.asked, "the tied losers draw between them"
    assert events[-1] == Event("starter_chosen", {"seat": 3, "how": "loser"})


# -- ambiguity 12 and the options ---------------------------------------------------------------

def test_ambiguity_12_six_colours_six_locations() -> None:
    assert COLOURS == ("green", "grey", "orange", "violet", "yellow", "red")
    assert len(LOCATIONS) == 6 and len({c.colour for c in CARDS if not c.joker}) == 6
    assert sum(1 for c in CARDS if not c.joker) == 96


def test_options_defaults_are_the_rules_readings() -> None:
    assert VAMPIR.normalize_options({}) == {
        "cards": "digital", "locations": DEFAULT_LOCATIONS, "rounds": 3, "first_player": "random",
        "hunts_per_turn": 1, "end_on_last_card": "immediate", "all_tied_lowest_discard": True,
        "winner_tie": "shared", "projection": True}


@pytest.mark.parametrize("options", [
    {"hunts_per_turn": 0}, {"hunts_per_turn": True}, {"hunts_per_turn": 1.5}, {"rounds": 0},
    {"cards": "virtual"}, {"first_player": "oldest"}, {"end_on_last_card": "never"},
    {"all_tied_lowest_discard": "yes"}, {"winner_tie": "random"}, {"projection": 1}, {"colours": 5},
])
def test_options_out_of_range_values_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(OptionsError):
        VAMPIR.normalize_options(options)


# -- V-T1: draw, then discard or hunt ---------------------------------------------------------------

def test_v_t1_a_draw_takes_the_top_two_cards_into_hand() -> None:
    state = arrange(new_game(), hands={1: GREEN[:4], 2: GREEN[4:8], 3: GREY[:4]}, draw=[RED[0], JOKER[0], *RED[1:5]])
    state, events = play(state, seat(1), "draw")
    assert events == [Event("cards_drawn", {"seat": 1, "cards": [RED[0], JOKER[0]], "left": 4}, reveals=True)]
    assert state.player(1).hand == (*GREEN[:4], RED[0], JOKER[0])
    assert state.draw_pile == tuple(RED[1:5]) and state.stage == "drawn"
    assert VAMPIR.view(state, seat(1))["drawn"] == tok(RED[0], JOKER[0])
    assert VAMPIR.view(state, seat(2))["drawn"] == []
    assert VAMPIR.view(state, TABLE)["drawn_count"] == 2
    assert VAMPIR.view(state, TABLE)["players"][0]["hand"] == 6


def test_v_t1_exactly_one_action_no_take_or_second_draw_after_a_draw() -> None:
    state, _ = play(arrange(new_game(), hands={1: GREEN[:4]}), seat(1), "draw")
    assert refuse(state, seat(1), "draw") == "not_now"
    assert refuse(state, seat(1), "take", location="red", cards=[]) == "not_now"
    assert refuse(state, seat(1), "end_turn") == "not_now", "after a draw a card must be placed or a hunt laid"
    fresh = arrange(new_game(), hands={1: GREEN[:4]})
    assert refuse(fresh, seat(1), "discard", card=tok(GREEN[0])[0]) == "not_now"
    assert refuse(fresh, seat(1), "hunt", cards=tok(*GREEN[:3])) == "not_now"
    assert refuse(fresh, seat(1), "end_turn") == "not_now"


def test_ambiguity_1_both_drawn_cards_stay_then_any_one_card_is_placed_net_plus_one() -> None:
    state = arrange(new_game(), hands={1: [GREEN[0], GREY[0], RED[0], RED2[0]]}, draw=[GREEN[1], GREY[1], *GREY[2:6]])
    state, _ = play(state, seat(1), "draw")
    state, events = play(state, seat(1), "discard", card=tok(RED2[0])[0])
    assert types(events) == ["card_discarded", "turn_passed"]
    assert events[0].data == {"seat": 1, "card": RED2[0], "location": "red"}
    assert len(state.player(1).hand) == 5, "four, plus two drawn, less one placed"
    assert {GREEN[1], GREY[1]} <= set(state.player(1).hand), "both drawn cards were kept"
    assert state.piles["red"] == (starter("red"), RED2[0])
    assert state.current == 2 and state.stage == "choose" and state.drawn == ()


def test_v_t1a_a_coloured_card_goes_under_its_own_colours_location_only() -> None:
    state = arrange(new_game(), hands={1: [GREEN[0], GREY[0], RED[0], JOKER[0]]})
    state, _ = play(state, seat(1), "draw")
    assert refuse(state, seat(1), "discard", card=tok(RED[0])[0], location="green") == "wrong_location"
    assert refuse(state, seat(1), "discard", card=tok(RED[0])[0], location="docks") == "wrong_location"
    placed, _ = play(state, seat(1), "discard", card=tok(RED[0])[0], location="red")
    assert placed.piles["red"] == (starter("red"), RED[0])
    placed, _ = play(state, seat(1), "discard", card=tok(GREY[0])[0])
    assert placed.piles["grey"] == (starter("grey"), GREY[0])
    assert placed.happenings[0] == {"kind": "discarded", "seat": 1, "location": "grey", "colour": "grey", "heads": 1}


def test_v_t1a_a_joker_goes_under_the_location_its_player_names() -> None:
    state = arrange(new_game(), hands={1: [GREEN[0], GREY[0], RED[0], JOKER[0]]})
    state, _ = play(state, seat(1), "draw")
    joker = tok(JOKER[0])[0]
    assert refuse(state, seat(1), "discard", card=joker) == "joker_needs_location"
    assert refuse(state, seat(1), "discard", card=joker, location="blue") == "joker_needs_location"
    assert refuse(state, seat(1), "discard", card=joker, location=5) == "joker_needs_location"
    for colour in COLOURS:
        placed, events = play(state, seat(1), "discard", card=joker, location=colour)
        assert events[0].data["location"] == colour
        assert placed.piles[colour] == (starter(colour), JOKER[0])


def test_v_t1b_a_hunt_after_a_draw_may_use_the_cards_just_drawn() -> None:
    state = arrange(new_game(), hands={1: [RED[0], RED[1], GREEN[0], GREY[0]]}, draw=[RED2[0], GREY[1], *GREY[2:6]])
    state, _ = play(state, seat(1), "draw")
    state, events = play(state, seat(1), "hunt", cards=tok(RED[0], RED2[0], RED[1]))
    assert types(events) == ["hunt_laid", "turn_passed"]
    (hunt,) = state.player(1).hunts
    assert (hunt.colour, hunt.one, hunt.two, hunt.jokers, hunt.heads) == ("red", 2, 1, 0, 4)
    assert set(hunt.cards) == {RED[0], RED[1], RED2[0]}
    assert sorted(state.player(1).hand) == sorted([GREEN[0], GREY[0], GREY[1]])


def test_ambiguity_2_a_hunt_after_a_draw_needs_no_discard() -> None:
    state = arrange(new_game(), hands={1: [RED[0], RED[1], RED[2], GREY[0]]})
    piles = dict(state.piles)
    state, _ = play(state, seat(1), "draw")
    state, events = play(state, seat(1), "hunt", cards=tok(*RED[:3]))
    assert "card_discarded" not in types(events)
    assert state.piles == piles
    assert len(state.player(1).hand) == 4 + 2 - 3
    assert state.current == 2


# -- V-T2: take a location ----------------------------------------------------------------------

def test_v_t2_take_needs_a_hunt_holding_every_taken_card() -> None:
    state = arrange(new_game(), hands={1: [RED[1], RED2[0], GREEN[0], JOKER[0]]},
                    piles={"red": [starter("red"), RED[0], JOKER[1]]})
    state, events = play(state, seat(1), "take", location="red", cards=tok(RED2[0]))
    assert types(events) == ["hunt_laid", "turn_passed"]
    assert events[0].data["taken"] == {"location": "red", "cards": [starter("red"), RED[0], JOKER[1]]}
    (hunt,) = state.player(1).hunts
    assert hunt.colour == "red" and set(hunt.cards) == {starter("red"), RED[0], JOKER[1], RED2[0]}
    assert (hunt.one, hunt.two, hunt.jokers, hunt.heads) == (2, 1, 1, 5)
    assert state.piles["red"] == ()
    assert sorted(state.player(1).hand) == sorted([RED[1], GREEN[0], JOKER[0]])
    assert state.current == 2


def test_v_t2_take_is_refused_when_no_legal_hunt_results() -> None:
    state = arrange(new_game(), hands={1: [RED[0], GREEN[0], GREEN[1], JOKER[0]]})
    assert refuse(state, seat(1), "take", location="red", cards=[]) == "hunt_too_small"
    assert refuse(state, seat(1), "take", location="red") == "hunt_too_small"
    assert refuse(state, seat(1), "take", location="red", cards=tok(RED[0])) == "hunt_too_small"
    assert refuse(state, seat(1), "take", location="red", cards=tok(RED[0], GREEN[0])) == "hunt_mixed_colours"
    assert refuse(state, seat(1), "take", location="green", cards=tok(RED[0], GREEN[0])) == "hunt_mixed_colours"
    assert refuse(state, seat(1), "take", location="red", cards=tok(GREEN[0], GREEN[1])) == "hunt_wrong_colour"
    state, _ = play(state, seat(1), "take", location="red", cards=tok(RED[0], JOKER[0]))
    assert state.player(1).hunts[0].heads == 3


def test_v_t2_an_empty_location_cannot_be_taken() -> None:
    state = arrange(new_game(), hands={1: RED[:4]}, piles={"red": []})
    assert refuse(state, seat(1), "take", location="red", cards=tok(*RED[:3])) == "location_empty"
    assert all(c.args["location"] != "red" for c in VAMPIR.actions(state, seat(1)) if c.name == "take")


def test_ambiguity_4_the_taken_cards_cannot_be_left_out_of_the_hunt() -> None:
    state = arrange(new_game(), hands={1: RED[1:4]}, piles={"red": [starter("red"), RED[0]]})
    pile = tok(starter("red"), RED[0])
    assert refuse(state, seat(1), "take", location="red", cards=pile) == "not_in_hand"
    state, _ = play(state, seat(1), "take", location="red", cards=tok(RED[1]))
    assert state.player(1).hunts[0].size == 3, "the whole pile, plus the card from hand"
    assert state.piles["red"] == ()


def test_ambiguity_5_jokers_taken_from_a_location_count_as_its_colour_but_never_alone() -> None:
    """Ambiguity 5 (updated from the original's "ne peut pas avoir que des cartes joker"): a
    location's jokers are its colour, but a hunt still needs one card of that colour that is not a
    joker: a pile of jokers only is taken with at least one such card from hand."""
    state = arrange(new_game(), hands={1: [GREEN[0], GREY[0], JOKER[3], RED[0]]}, piles={"red": JOKER[:3]})
    assert refuse(state, seat(1), "take", location="red", cards=[]) == "hunt_only_jokers"
    assert refuse(state, seat(1), "take", location="red", cards=tok(JOKER[3])) == "hunt_only_jokers"
    assert refuse(state, seat(1), "take", location="red", cards=tok(GREEN[0])) == "hunt_wrong_colour"
    taken, events = play(state, seat(1), "take", location="red", cards=tok(RED[0]))
    (hunt,) = taken.player(1).hunts
    assert (hunt.colour, hunt.one, hunt.jokers, hunt.heads, hunt.size) == ("red", 1, 3, 4, 4)
    assert events[0].data["colour"] == "red"
    assert VAMPIR.view(taken, TABLE)["players"][0]["hunts"][0]["colour"] == "red"
    with_joker, _ = play(state, seat(1), "take", location="red", cards=tok(JOKER[3], RED[0]))
    assert with_joker.player(1).hunts[0].heads == 5
    one = arrange(new_game(), hands={1: [JOKER[1], JOKER[2], GREEN[0]]}, piles={"grey": [JOKER[0]]})
    assert refuse(one, seat(1), "take", location="grey", cards=tok(JOKER[1], JOKER[2])) == "hunt_only_jokers"
    mixed = arrange(new_game(), hands={1: [GREEN[0]]}, piles={"red": [JOKER[0], RED[0], JOKER[1]]})
    mixed, _ = play(mixed, seat(1), "take", location="red", cards=[])
    assert mixed.player(1).hunt("red") is not None, "a red card in the pile makes the jokers a hunt"


# -- V-H1..V-H3: hunts ---------------------------------------------------------------------------

def test_v_h1_three_cards_of_one_colour_jokers_may_fill_in_but_never_alone() -> None:
    assert hunt_refusal(None, RED[:3]) is None
    assert hunt_refusal(None, [RED[0], JOKER[0], JOKER[1]]) is None
    assert hunt_refusal(None, [RED[0], *JOKER[:5]]) is None
    assert hunt_refusal(None, RED[:2]).code == "hunt_too_small"
    assert hunt_refusal(None, [RED[0], RED[1], GREEN[0]]).code == "hunt_mixed_colours"
    assert hunt_refusal(None, JOKER[:3]).code == "hunt_only_jokers"
    assert hunt_refusal("green", RED[:3]).code == "hunt_wrong_colour"
    assert hunt_refusal("red", [], JOKER[:3]).code == "hunt_only_jokers", "taken jokers are never a hunt alone"
    assert hunt_refusal("red", [RED[0]], JOKER[:3]) is None, "jokers taken from a location are its colour"
    assert hunt_refusal("red", [], [JOKER[0], RED[1], JOKER[1]]) is None
    assert hunt_refusal("red", [RED[0]], [starter("red")]).code == "hunt_too_small"


def test_v_h1_a_hunt_from_hand_obeys_the_same_limits() -> None:
    state = arrange(new_game(), hands={1: [RED[0], RED[1], GREEN[0], JOKER[0], JOKER[1], JOKER[2]]})
    state, _ = play(state, seat(1), "draw")
    assert refuse(state, seat(1), "hunt", cards=tok(RED[0], RED[1])) == "hunt_too_small"
    assert refuse(state, seat(1), "hunt", cards=tok(RED[0], RED[1], GREEN[0])) == "hunt_mixed_colours"
    assert refuse(state, seat(1), "hunt", cards=tok(*JOKER[:3])) == "hunt_only_jokers"
    state, _ = play(state, seat(1), "hunt", cards=tok(RED[0], JOKER[0], JOKER[1]))
    hunt = state.player(1).hunt("red")
    assert hunt is not None and (hunt.one, hunt.jokers, hunt.heads) == (1, 2, 3)


def test_v_h2_a_hunt_is_closed_nothing_is_added_or_removed_later() -> None:
    state = arrange(new_game(), hands={1: [*RED[3:6], GREEN[0]], 2: GREEN[1:5], 3: GREY[:4]},
                    hunts={1: [RED[:3]]})
    laid = state.player(1).hunt("red")
    state, _ = play(state, seat(1), "draw")
    assert refuse(state, seat(1), "hunt", cards=tok(RED[3])) == "hunt_too_small", "a card cannot join a hunt"
    assert refuse(state, seat(1), "add_to_hunt", colour="red", cards=tok(RED[3])) == "unknown_command"
    state, _ = play(state, seat(1), "discard", card=tok(RED[3])[0])
    for who in (2, 3):
        state, _ = play(state, seat(who), "draw")
        state, _ = play(state, seat(who), "discard", card=tok(state.player(who).hand[0])[0])
    assert state.player(1).hunt("red") == laid


def test_v_h3_a_second_hunt_of_a_colour_replaces_the_first_which_leaves_the_game() -> None:
    state = arrange(new_game(), hands={1: [*RED[4:7], GREEN[0]]}, hunts={1: [[*RED[:2], *RED2[:2]]]})
    state, _ = play(state, seat(1), "draw")
    refusal = VAMPIR.validate(state, seat(1), Command("hunt", {"cards": tok(*RED[4:7])}))
    assert refusal is not None and refusal.code == "hunt_replaces" and refusal.params["heads"] == 6
    assert refuse(state, seat(1), "hunt", cards=tok(*RED[4:7]), replace="yes") == "hunt_replaces"
    assert refuse(state, seat(1), "hunt", cards=tok(*RED[4:7]), replace=1) == "hunt_replaces"
    piles = dict(state.piles)
    state, events = play(state, seat(1), "hunt", cards=tok(*RED[4:7]), replace=True)
    assert events[0].data["replaced"] == {"heads": 6, "size": 4}
    assert [h.colour for h in state.player(1).hunts] == ["red"], "at most one hunt per colour"
    assert state.player(1).hunt("red").heads == 3, "the new hunt may be smaller"
    assert set(RED[:2] + RED2[:2]) <= set(state.removed)
    assert state.piles == piles


def test_ambiguity_6_replaced_hunts_go_out_of_the_game_not_to_the_locations() -> None:
    state = arrange(new_game(), hands={1: [RED[3], RED[4], GREEN[0]]}, hunts={1: [RED[:3]]},
                    piles={"red": [starter("red")]})
    before = set(state.removed)
    assert refuse(state, seat(1), "take", location="red", cards=tok(RED[3], RED[4])) == "hunt_replaces"
    state, _ = play(state, seat(1), "take", location="red", cards=tok(RED[3], RED[4]), replace=True)
    assert set(state.removed) - before == set(RED[:3])
    assert state.piles["red"] == ()
    assert set(state.player(1).hunt("red").cards) == {starter("red"), RED[3], RED[4]}
    assert VAMPIR.view(state, TABLE)["removed"] == len(state.removed)
    assert state.happenings[0]["replaced"] == {"heads": 3, "size": 3}


# -- ambiguity 3: hunts per turn --------------------------------------------------------------------

def test_ambiguity_3_one_hunt_per_turn_by_default() -> None:
    state = arrange(new_game(), hands={1: [*RED[:3], *GREEN[:3]]})
    state, _ = play(state, seat(1), "draw")
    state, events = play(state, seat(1), "hunt", cards=tok(*RED[:3]))
    assert types(events) == ["hunt_laid", "turn_passed"]
    assert state.current == 2 and state.hunts_laid == 0
    stuck = replace(arrange(new_game(), hands={1: [*RED[:3], *GREEN[:3]]}), stage="hunting", hunts_laid=1)
    assert refuse(stuck, seat(1), "hunt", cards=tok(*GREEN[:3])) == "hunt_limit"


def test_ambiguity_3_more_hunts_per_turn_when_the_table_allows_them() -> None:
    state = arrange(new_game(hunts_per_turn=2), hands={1: [*RED[:3], *GREEN[:3], *GREY[:3]]})
    state, _ = play(state, seat(1), "draw")
    state, events = play(state, seat(1), "hunt", cards=tok(*RED[:3]))
    assert types(events) == ["hunt_laid"]
    assert state.stage == "hunting" and state.current == 1 and state.hunts_laid == 1
    assert refuse(state, seat(1), "discard", card=tok(GREEN[0])[0]) == "not_now", "a hunt, not a discard too"
    assert Command("end_turn") in VAMPIR.actions(state, seat(1))
    state, events = play(state, seat(1), "hunt", cards=tok(*GREEN[:3]))
    assert types(events) == ["hunt_laid", "turn_passed"], "the second hunt is the last"
    assert state.current == 2
    limited = replace(arrange(new_game(hunts_per_turn=2), hands={1: GREY[:3]}), stage="hunting", hunts_laid=2)
    assert refuse(limited, seat(1), "hunt", cards=tok(*GREY[:3])) == "hunt_limit"


def test_ambiguity_3_the_player_ends_the_turn_or_it_ends_when_no_hunt_is_left() -> None:
    state = arrange(new_game(hunts_per_turn=6), hands={1: [*RED[:3], *GREEN[:3], GREY[0]]},
                    piles={"red": [starter("red"), RED[3]]})
    taken, events = play(state, seat(1), "take", location="red", cards=tok(RED[0]))
    assert types(events) == ["hunt_laid"] and taken.stage == "hunting"
    ended, events = play(taken, seat(1), "end_turn")
    assert types(events) == ["turn_passed"] and ended.current == 2
    _, events = play(taken, seat(1), "hunt", cards=tok(*GREEN[:3]))
    assert types(events) == ["hunt_laid", "turn_passed"], "nothing else can be hunted: the turn ends by itself"


# -- V-E1 and ambiguity 7: the last card --------------------------------------------------------------

def test_v_e1_drawing_the_last_card_ends_the_round_at_once() -> None:
    state = arrange(new_game(), hands={1: RED[:4], 2: GREEN[:4], 3: GREY[:4]}, draw=[RED[4], JOKER[0]])
    state, events = play(state, seat(1), "draw")
    assert types(events) == ["cards_drawn", "round_ended", "round_scored"]
    assert events[1].data == {"reason": "last_card", "seat": 1, "hands": {"1": 6, "2": 4, "3": 4}}
    assert events[1].reveals
    assert state.ending == "last_card" and state.phase == "scored" and state.current is None
    assert all(p.hand == () for p in state.players)
    assert set(state.discarded) == {*RED[:5], JOKER[0], *GREEN[:4], *GREY[:4]}


def test_ambiguity_7_with_one_card_left_the_drawer_takes_it_and_the_round_ends() -> None:
    state = arrange(new_game(), hands={1: RED[:4]}, draw=[GREEN[0]])
    state, events = play(state, seat(1), "draw")
    assert events[0].data == {"seat": 1, "cards": [GREEN[0]], "left": 0}
    assert types(events) == ["cards_drawn", "round_ended", "round_scored"]
    assert state.ending == "last_card" and GREEN[0] in state.discarded


def test_ambiguity_7_finish_turn_lets_the_drawer_play_the_turn_out() -> None:
    state = arrange(new_game(end_on_last_card="finish_turn"), hands={1: [*RED[:3], GREEN[0]]},
                    draw=[GREEN[1], GREEN[2]])
    state, events = play(state, seat(1), "draw")
    assert types(events) == ["cards_drawn"] and state.stage == "drawn" and state.last_card_drawn
    placed, events = play(state, seat(1), "discard", card=tok(GREEN[0])[0])
    assert types(events) == ["card_discarded", "round_ended", "round_scored"]
    assert events[1].data["reason"] == "last_card" and events[1].data["seat"] == 1
    assert placed.piles["green"][-1] == GREEN[0]
    hunted, events = play(state, seat(1), "hunt", cards=tok(*RED[:3]))
    assert types(events) == ["hunt_laid", "round_ended", "round_scored"]
    assert hunted.scores[-1]["points"]["1"] == 3, "the hunt laid in the finished turn scores"
    single = arrange(new_game(end_on_last_card="finish_turn"), hands={1: RED[:2]}, draw=[RED[2]])
    single, events = play(single, seat(1), "draw")
    assert types(events) == ["cards_drawn"] and single.draw_pile == ()
    single, events = play(single, seat(1), "hunt", cards=tok(*RED[:3]))
    assert types(events) == ["hunt_laid", "round_ended", "round_scored"]


# -- V-E2 and ambiguity 8: six colours --------------------------------------------------------------

FIVE = [ones(c)[:3] for c in COLOURS[:5]]
"""Hunts in every colour but red."""


def test_v_e2_the_sixth_colour_ends_the_round_at_once() -> None:
    state = arrange(new_game(), hands={1: [*RED[:3], GREEN[5]]}, hunts={1: FIVE})
    state, _ = play(state, seat(1), "draw")
    state, events = play(state, seat(1), "hunt", cards=tok(*RED[:3]))
    assert types(events) == ["hunt_laid", "round_ended", "round_scored"]
    assert events[1].data["reason"] == "six_colours" and state.ending == "six_colours"
    taking = arrange(new_game(), hands={1: RED[:2]}, hunts={1: FIVE})
    taking, events = play(taking, seat(1), "take", location="red", cards=tok(*RED[:2]))
    assert types(events) == ["hunt_laid", "round_ended", "round_scored"]


def test_v_e2_replacing_a_hunt_among_five_colours_does_not_end_the_round() -> None:
    state = arrange(new_game(), hands={1: [*ones("green")[5:8], RED[0]]}, hunts={1: FIVE})
    state, _ = play(state, seat(1), "draw")
    state, events = play(state, seat(1), "hunt", cards=tok(*ones("green")[5:8]), replace=True)
    assert types(events) == ["hunt_laid", "turn_passed"]
    assert len(state.player(1).hunts) == 5 and state.phase == "turn"


def test_ambiguity_8_the_round_ends_right_after_the_sixth_hunt_even_with_hunts_left_this_turn() -> None:
    state = arrange(new_game(hunts_per_turn=6), hands={1: [*GREEN[:3], *RED[:3], *RED[3:6], JOKER[0]]},
                    hunts={1: FIVE[1:]})
    state, _ = play(state, seat(1), "draw")
    state, events = play(state, seat(1), "hunt", cards=tok(*RED[:3]))
    assert types(events) == ["hunt_laid"] and state.stage == "hunting", "five colours: the turn goes on"
    state, events = play(state, seat(1), "hunt", cards=tok(*GREEN[:3]))
    assert types(events) == ["hunt_laid", "round_ended", "round_scored"], "red and the joker could still hunt"
    assert state.ending == "six_colours" and state.phase == "scored"


# -- V-E3: the hands leave unseen -----------------------------------------------------------------

def test_v_e3_the_hands_are_removed_unseen_and_never_shown() -> None:
    state = arrange(new_game(), hands={1: [*RED[:3], JOKER[0]], 2: GREEN[:4], 3: [GREY[0], RED2[0]]},
                    draw=[GREEN[4], GREEN[5]])
    hands = {p.seat: set(p.hand) for p in state.players}
    state, events = play(state, seat(1), "draw")
    gone = hands[1] | hands[2] | hands[3] | {GREEN[4], GREEN[5]}
    assert set(state.discarded) == gone
    assert all(p.hand == () for p in state.players)
    tokens = tok(*gone)
    for viewer in [*VIEWERS, SYSTEM]:
        text = dumps(state, viewer)
        assert not any(t in text for t in tokens), viewer
    for secret in VAMPIR.secrets(state):
        if secret.value in tokens:
            assert not any(secret.visible_to(v) for v in VIEWERS)
    assert {s.value for s in VAMPIR.secrets(state)} >= set(tokens)
    for event in events:
        for lang in ("en", "fr"):
            assert "vampir-r" not in VAMPIR.describe(event, lang)
    assert events[1].data["hands"] == {"1": 6, "2": 4, "3": 2}
    assert all(not isinstance(v, list) for v in events[1].data.values())
    assert state.scores[-1]["points"] == {"1": 0, "2": 0, "3": 0}, "hands do not score"


# -- V-SC1..V-SC5: scoring ------------------------------------------------------------------------

def test_v_sc1_heads_not_cards_only_the_three_head_player_discards() -> None:
    three = Hunt.of("red", tuple(RED[:3]))
    four = Hunt.of("red", (RED[3], RED[4], RED2[0]))
    five = Hunt.of("red", (RED[5], RED2[1], RED2[2]))
    assert [h.size for h in (three, four, five)] == [3, 3, 3]
    assert [h.heads for h in (three, four, five)] == [3, 4, 5]
    assert Hunt.of("red", (RED[0], JOKER[0], RED2[0])).heads == 4, "a joker shows one head"
    result = score_round({1: {"red": 3}, 2: {"red": 4}, 3: {"red": 5}}, True)
    red = result["colours"][COLOURS.index("red")]
    assert red["discard"] == [1] and red["reason"] == "lowest" and red["lowest"] == 3
    assert result["points"] == {"1": 0, "2": 4, "3": 5}
    state = arrange(new_game(), hunts={1: [RED[:3]], 2: [[RED[3], RED[4], RED2[0]]], 3: [[RED[5], RED2[1], RED2[2]]]},
                    draw=[GREEN[0], GREEN[1]])
    state, events = play(state, seat(1), "draw")
    assert events[-1].data["points"] == {"1": 0, "2": 4, "3": 5}


def test_v_sc2_a_colour_where_someone_has_nothing_is_kept_by_all() -> None:
    result = score_round({1: {"red": 3}, 2: {"red": 7}, 3: {"green": 4}}, True)
    red = result["colours"][COLOURS.index("red")]
    green = result["colours"][COLOURS.index("green")]
    assert red["discard"] == [] and red["reason"] == "someone_has_none" and red["without"] == [3]
    assert green["discard"] == [] and green["without"] == [1, 2]
    assert result["points"] == {"1": 3, "2": 7, "3": 4}
    assert all(c["discard"] == [] for c in score_round({1: {}, 2: {}, 3: {}}, True)["colours"])


def test_v_sc3_everyone_at_the_lowest_discards_ties_included() -> None:
    result = score_round({1: {"red": 3}, 2: {"red": 3}, 3: {"red": 5}, 4: {"red": 4}}, True)
    red = result["colours"][COLOURS.index("red")]
    assert red["discard"] == [1, 2] and red["reason"] == "lowest"
    assert result["points"] == {"1": 0, "2": 0, "3": 5, "4": 4}


def test_ambiguity_9_all_tied_at_the_minimum_discard_unless_the_table_keeps_them() -> None:
    heads = {1: {"red": 4, "green": 3}, 2: {"red": 4, "green": 5}, 3: {"red": 4, "green": 6}}
    literal = score_round(heads, True)
    assert literal["colours"][COLOURS.index("red")]["discard"] == [1, 2, 3]
    assert literal["colours"][COLOURS.index("red")]["reason"] == "all_tied"
    assert literal["points"] == {"1": 0, "2": 5, "3": 6}
    kept = score_round(heads, False)
    assert kept["colours"][COLOURS.index("red")]["discard"] == []
    assert kept["colours"][COLOURS.index("red")]["reason"] == "all_tied_kept"
    assert kept["colours"][COLOURS.index("green")]["discard"] == [1]
    assert kept["points"] == {"1": 4, "2": 9, "3": 10}
    assert DEFAULTS["all_tied_lowest_discard"] is True
    hunts = {1: [RED[:3]], 2: [RED[3:6]], 3: [RED[6:9]]}
    for option, points in ((True, {"1": 0, "2": 0, "3": 0}), (False, {"1": 3, "2": 3, "3": 3})):
        state = arrange(new_game(all_tied_lowest_discard=option), hunts=hunts, draw=[GREEN[0], GREEN[1]])
        state, events = play(state, seat(1), "draw")
        assert events[-1].data["points"] == points


def test_v_sc4_the_score_is_the_heads_left_after_all_six_colours() -> None:
    heads = {
        1: {"green": 4, "grey": 3, "red": 6, "violet": 5},
        2: {"green": 5, "grey": 3, "red": 2, "violet": 5},
        3: {"green": 6, "grey": 7, "red": 2, "orange": 3},
    }
    result = score_round(heads, True)
    by = {c["colour"]: c for c in result["colours"]}
    assert by["green"]["discard"] == [1]
    assert by["grey"]["discard"] == [1, 2]
    assert by["red"]["discard"] == [2, 3]
    assert by["violet"]["discard"] == [] and by["orange"]["discard"] == [] and by["yellow"]["discard"] == []
    assert result["points"] == {"1": 6 + 5, "2": 5 + 5, "3": 6 + 7 + 3}
    assert [c["colour"] for c in result["colours"]] == list(COLOURS)


def final_round(points_before: Sequence[Mapping[int, int]], **options: Any) -> VampirState:
    """The last of three rounds, about to end on seat 1's draw: seat 1's red hunt has 6 heads,
    seat 2's 4, seat 3 has none (so red is kept: 6, 4, 0 this round)."""
    state = arrange(new_game(**options), hunts={1: [RED2[:3]], 2: [RED[:4]]}, draw=[GREEN[0], GREEN[1]])
    scores = tuple({"round": n + 1, "points": {str(s): p for s, p in points.items()}, "final": False, "winners": []}
                   for n, points in enumerate(points_before))
    return replace(state, round=len(points_before) + 1, scores=scores)


def test_v_sc5_three_rounds_with_cumulative_totals_the_highest_wins() -> None:
    state = final_round([{1: 10, 2: 12, 3: 5}, {1: 7, 2: 3, 3: 20}])
    assert state.totals() == {1: 17, 2: 15, 3: 25}
    state, events = play(state, seat(1), "draw")
    data = events[-1].data
    assert data["round"] == 3 and data["final"] is True
    assert data["points"] == {"1": 6, "2": 4, "3": 0}
    assert data["totals"] == {"1": 23, "2": 19, "3": 25}
    assert data["winners"] == [3] and state.winners == (3,)
    assert state.phase == "over" and VAMPIR.is_over(state)
    assert refuse(state, seat(1), "next_round") == "game_over"
    assert VAMPIR.view(state, TABLE)["totals"] == {"1": 23, "2": 19, "3": 25}


def test_v_sc5_a_round_before_the_last_is_scored_and_the_next_is_dealt_afresh() -> None:
    state = arrange(new_game(rng=SeededRandomSource(1)), hands={1: RED[:4]}, hunts={2: [GREEN[:3]]},
                    draw=[GREEN[3], GREEN[4]])
    state, events = play(state, seat(1), "draw")
    assert events[-1].data["final"] is False and events[-1].data["winners"] == []
    assert state.phase == "scored" and state.round == 1
    assert refuse(state, seat(1), "draw") == "not_now"
    assert refuse(state, TABLE, "next_round") == "not_authorized"
    state, events = play(state, seat(2), "next_round", SeededRandomSource(5))
    assert types(events) == ["round_begun", "starter_chosen"]
    assert state.round == 2 and state.phase == "turn"
    assert [len(p.hand) for p in state.players] == [4, 4, 4] and len(state.draw_pile) == 88
    assert all(p.hunts == () for p in state.players) and state.removed == () and state.discarded == ()
    assert state.totals() == {1: 0, 2: 3, 3: 0}
    assert_ledger(state)
    hand = state.player(state.current).hand
    assert all(t.startswith("vampir-r2-") for t in (c["card"] for c in VAMPIR.view(state, seat(1))["hand"]))
    state, _ = play(state, seat(state.current), "draw")
    assert refuse(state, seat(state.current), "discard", card=tok(hand[0])[0]) == "not_in_hand", "a round-1 name"
    play(state, seat(state.current), "discard", card=tok(hand[0], round_number=2)[0])


def test_ambiguity_10_equal_totals_share_the_win() -> None:
    assert DEFAULTS["winner_tie"] == "shared"
    state = final_round([{1: 10, 2: 12, 3: 5}, {1: 9, 2: 9, 3: 5}])
    state, events = play(state, seat(1), "draw")
    assert events[-1].data["totals"] == {"1": 25, "2": 25, "3": 10}
    assert state.winners == (1, 2)
    assert winners({1: 25, 2: 25, 3: 10}, {1: 6, 2: 4, 3: 0}, "shared") == [1, 2]
    assert winners({1: 5, 2: 5, 3: 5}, {1: 1, 2: 2, 3: 3}, "shared") == [1, 2, 3]


def test_ambiguity_10_the_better_last_round_breaks_the_tie_when_the_table_says_so() -> None:
    state = final_round([{1: 10, 2: 12, 3: 5}, {1: 9, 2: 9, 3: 5}], winner_tie="last_round")
    state, events = play(state, seat(1), "draw")
    assert events[-1].data["winners"] == [1], "25 each; 6 heads in the last round against 4"
    assert winners({1: 25, 2: 25, 3: 30}, {1: 6, 2: 4, 3: 0}, "last_round") == [3]
    assert winners({1: 25, 2: 25, 3: 10}, {1: 4, 2: 4, 3: 9}, "last_round") == [1, 2], "still equal: shared"


def test_v_sc5_the_number_of_rounds_is_the_tables() -> None:
    state = arrange(new_game(rounds=1), hunts={1: [RED[:3]]}, draw=[GREEN[0], GREEN[1]])
    state, events = play(state, seat(1), "draw")
    assert events[-1].data["final"] is True and state.winners == (1,) and state.phase == "over"


# -- physical cards: the table enters its hunts -------------------------------------------------------

def physical(**options: Any) -> VampirState:
    return new_game(cards="physical", **options)


def entering(**options: Any) -> VampirState:
    state, events = play(physical(**options), seat(2), "round_over")
    assert types(events) == ["round_ended"] and state.phase == "entering"
    return state


def test_physical_the_companion_deals_nothing_and_waits_for_the_rounds_end() -> None:
    state = physical()
    assert state.phase == "playing" and state.current == 1
    assert state.draw_pile == () and all(p.hand == () for p in state.players) and state.cards_in_play() == 0
    assert VAMPIR.view(state, TABLE)["locations"] == []
    assert refuse(state, seat(1), "draw") == "not_now"
    assert refuse(state, seat(1), "enter_hunts", hunts=[]) == "not_now"
    assert refuse(state, TABLE, "round_over") == "not_authorized"
    assert VAMPIR.actions(state, HOST) == [Command("round_over")]
    state, events = play(state, HOST, "round_over")
    assert events[0].data["reason"] == "table" and state.ending == "table" and state.phase == "entering"
    digital = arrange(new_game())
    assert refuse(digital, seat(1), "round_over") == "not_now"


def test_physical_each_seat_enters_its_hunts_and_the_round_is_scored_by_heads() -> None:
    state = entering()
    state, events = play(state, seat(1), "enter_hunts", hunts=[entry("red", one=3), entry("green", one=2, jokers=2)])
    assert types(events) == ["hunts_entered"], "not scored until everyone has entered"
    assert state.player(1).entered and [h.colour for h in state.player(1).hunts] == ["green", "red"]
    state, _ = play(state, seat(2), "enter_hunts", hunts=[entry("red", one=2, two=1), entry("green", one=3)])
    state, events = play(state, seat(3), "enter_hunts", hunts=[entry("red", one=1, two=2), entry("green", 1, 1, 1)])
    assert types(events) == ["hunts_entered", "round_scored"]
    assert events[-1].data["points"] == {"1": 0 + 4, "2": 4 + 0, "3": 5 + 4}
    assert state.phase == "scored"
    state, events = play(state, HOST, "next_round")
    assert state.round == 2 and state.phase == "playing" and all(not p.entered and not p.hunts for p in state.players)


def test_physical_each_entered_hunt_must_be_legal() -> None:
    state = entering()
    assert refuse(state, seat(1), "enter_hunts", hunts=[entry("red", one=2)]) == "hunt_too_small"
    assert refuse(state, seat(1), "enter_hunts", hunts=[entry("red", jokers=3)]) == "hunt_only_jokers"
    assert refuse(state, seat(1), "enter_hunts", hunts=[entry("red")]) == "hunt_too_small"
    assert refuse(state, seat(1), "enter_hunts", hunts=[entry("red", one=1, jokers=1)]) == "hunt_too_small"
    assert entry_refusal([entry("red", one=1, jokers=2)]) is None
    assert entry_refusal([]) is None


@pytest.mark.parametrize("hunts", [
    "red", None, {"colour": "red", "one": 3, "two": 0, "jokers": 0}, [[1, 2, 3]], ["red"],
    [entry("blue", one=3)], [entry("red", one=3), entry("red", one=3)], [{"colour": "red", "one": 3}],
    [{**entry("red", one=3), "heads": 3}], [entry("red", one=True, two=1, jokers=1)], [entry("red", one=-1, two=2)],
    [entry("red", one="3")], [entry("red", one=3.0)], [entry(c, one=3) for c in COLOURS] + [entry("red", one=3)],
    [{"colour": ["red"], "one": 3, "two": 0, "jokers": 0}],
])
def test_physical_a_malformed_entry_is_refused(hunts: Any) -> None:
    state = entering()
    assert refuse(state, seat(1), "enter_hunts", hunts=hunts) == "bad_arguments"
    assert entry_refusal(hunts) is not None


def test_physical_an_entry_beyond_the_box_is_refused() -> None:
    state = entering()
    assert refuse(state, seat(1), "enter_hunts", hunts=[entry("red", one=12)]) == "supply_exceeded"
    assert refuse(state, seat(1), "enter_hunts", hunts=[entry("red", two=6)]) == "supply_exceeded"
    assert refuse(state, seat(1), "enter_hunts", hunts=[entry("red", 1, 0, 6), entry("green", 1, 0, 5)]) \
        == "supply_exceeded"
    play(state, seat(1), "enter_hunts", hunts=[entry("red", 11, 5, 4), entry("green", 1, 0, 6)])


def test_physical_the_supply_is_checked_across_all_players_and_reentering_fixes_it() -> None:
    state = entering()
    state, _ = play(state, seat(1), "enter_hunts", hunts=[entry("red", one=6)])
    assert supply_problems(state) == [], "not until everyone has entered"
    state, _ = play(state, seat(2), "enter_hunts", hunts=[entry("red", one=6, jokers=5)])
    state, events = play(state, seat(3), "enter_hunts", hunts=[entry("green", one=1, jokers=6)])
    assert types(events) == ["hunts_entered"], "no scoring while the supply is exceeded"
    assert supply_problems(state) == [{"colour": "red", "kind": "one", "count": 12, "limit": 11},
                                      {"colour": "joker", "kind": "jokers", "count": 11, "limit": 10}]
    assert VAMPIR.view(state, TABLE)["supply"] == supply_problems(state)
    assert state.phase == "entering"
    state, events = play(state, seat(2), "enter_hunts", hunts=[entry("red", one=5, jokers=4)])
    assert types(events) == ["hunts_entered", "round_scored"]
    assert state.player(2).hunts == (Hunt("red", 5, 0, 4),), "the new entry replaced the old"
    assert events[-1].data["points"] == {"1": 6, "2": 9, "3": 7}, "seat 3 has no red: red is kept"


def test_physical_the_host_may_enter_for_a_seat_a_seat_only_for_itself() -> None:
    state = entering()
    state, _ = play(state, HOST, "enter_hunts", seat=2, hunts=[entry("grey", one=3)])
    assert state.player(2).entered and state.player(2).hunts == (Hunt("grey", 3, 0, 0),)
    for bad in (None, 9, True, "1", 1.0):
        assert refuse(state, HOST, "enter_hunts", seat=bad, hunts=[]) == "not_a_player"
    assert refuse(state, HOST, "enter_hunts", hunts=[]) == "not_a_player"
    assert refuse(state, seat(1), "enter_hunts", seat=2, hunts=[]) == "not_your_seat"
    assert refuse(state, TABLE, "enter_hunts", seat=1, hunts=[]) == "not_authorized"
    state, _ = play(state, seat(1), "enter_hunts", seat=1, hunts=[])
    assert state.player(1).entered and state.player(1).hunts == ()


def test_physical_a_bool_or_float_seat_is_refused_even_when_it_equals_the_senders() -> None:
    state = entering()
    for bad in (True, 1.0):
        command = Command("enter_hunts", {"seat": bad, "hunts": []})
        assert VAMPIR.validate(state, seat(1), command) is not None, f"seat={bad!r} was allowed"


# -- bad input -------------------------------------------------------------------------------------

@pytest.fixture
def choosing() -> VampirState:
    """Seat 1 to draw or take; seat 2 holds red and green cards."""
    return arrange(new_game(), hands={1: [*RED[:3], JOKER[0]], 2: [RED[3], RED[4], GREEN[0], GREEN[1]]},
                   piles={"red": [starter("red"), RED[5]]})


@pytest.fixture
def drawn(choosing: VampirState) -> VampirState:
    return play(choosing, seat(1), "draw")[0]


@pytest.mark.parametrize(("name", "args", "code"), [
    ("hunt", {"cards": "vampir-r1-081"}, "bad_arguments"),
    ("hunt", {"cards": None}, "bad_arguments"),
    ("hunt", {"cards": {"a": 1}}, "bad_arguments"),
    ("hunt", {}, "bad_arguments"),
    ("hunt", {"cards": [81, 82, 83]}, "not_in_hand"),
    ("hunt", {"cards": [True, None, ["x"]]}, "not_in_hand"),
    ("hunt", {"cards": ["vampir-r0-081", "vampir-r1-082", "vampir-r1-083"]}, "not_in_hand"),
    ("hunt", {"cards": ["vampir-r2-081", "vampir-r2-082", "vampir-r2-083"]}, "not_in_hand"),
    ("hunt", {"cards": ["vampir-r1-999", "vampir-r1-082", "vampir-r1-083"]}, "not_in_hand"),
    ("hunt", {"cards": ["vampir-r1--81", "vampir-r1-082", "vampir-r1-083"]}, "not_in_hand"),
    ("hunt", {"cards": ["vampir-r1-081", "vampir-r1-081", "vampir-r1-082"]}, "bad_arguments"),
    ("hunt", {"cards": ["vampir-r1-084", "vampir-r1-085", "vampir-r1-082"]}, "not_in_hand"),
    ("discard", {"card": 81}, "not_in_hand"),
    ("discard", {"card": ["vampir-r1-081"]}, "not_in_hand"),
    ("discard", {}, "not_in_hand"),
    ("discard", {"card": "vampir-r1-084"}, "not_in_hand"),
])
def test_bad_input_malformed_cards_after_a_draw_are_refused(drawn: VampirState, name: str, args: dict[str, Any],
                                                             code: str) -> None:
    assert [RED[0], RED[1], RED[2]] == [81, 82, 83] and [RED[3], RED[4]] == [84, 85], "the tokens above"
    assert refuse_command(drawn, seat(1), Command(name, args)) == code


@pytest.mark.parametrize(("args", "code"), [
    ({"location": "blue", "cards": []}, "bad_arguments"),
    ({"location": "docks", "cards": []}, "bad_arguments"),
    ({"location": ["red"], "cards": []}, "bad_arguments"),
    ({"location": None}, "bad_arguments"),
    ({"location": "red", "cards": "vampir-r1-081"}, "bad_arguments"),
    ({"location": "red", "cards": None}, "bad_arguments"),
    ({"location": "red", "cards": ["vampir-r1-084"]}, "not_in_hand"),
    ({"location": "red", "cards": ["vampir-r1-086"]}, "not_in_hand"),
    ({"location": "red", "cards": ["vampir-r1-081", "vampir-r1-081"]}, "bad_arguments"),
])
def test_bad_input_malformed_takes_are_refused(choosing: VampirState, args: dict[str, Any], code: str) -> None:
    assert refuse_command(choosing, seat(1), Command("take", args)) == code


def test_bad_input_a_token_with_unusual_digits_is_refused_not_crashing(drawn: VampirState) -> None:
    for token in ("vampir-r1-²", "vampir-r1-①", "vampir-r1-0²"):
        command = Command("hunt", {"cards": [token, "vampir-r1-082", "vampir-r1-083"]})
        rejection = VAMPIR.validate(drawn, seat(1), command)
        assert rejection is not None, token


def test_bad_input_the_wrong_actor_is_refused(choosing: VampirState, drawn: VampirState) -> None:
    assert refuse(choosing, seat(2), "draw") == "waiting_for"
    assert refuse(choosing, seat(2), "take", location="red", cards=tok(RED[3], RED[4])) == "waiting_for"
    assert refuse(drawn, seat(2), "discard", card=tok(RED[3])[0]) == "waiting_for"
    for actor in (TABLE, HOST, SYSTEM):
        assert refuse(choosing, actor, "draw") == "not_authorized"
        assert refuse(drawn, actor, "discard", card=tok(RED[0])[0]) == "not_authorized"
    assert refuse(choosing, seat(4), "draw") == "not_seated"
    assert refuse(choosing, SYSTEM, "next_round") == "not_authorized"


def test_bad_input_unknown_commands_and_args_that_are_no_mapping(choosing: VampirState) -> None:
    assert refuse(choosing, seat(1), "fly") == "unknown_command"
    assert refuse_command(choosing, seat(1), Command("draw", ["x"])) == "bad_arguments"  # type: ignore[arg-type]
    assert refuse_command(choosing, seat(1), Command("take", "red")) == "bad_arguments"  # type: ignore[arg-type]


def test_bad_input_another_seats_card_is_never_named_even_when_seen_on_its_phone(choosing: VampirState) -> None:
    other = [c["card"] for c in VAMPIR.view(choosing, seat(2))["hand"]]
    state, _ = play(choosing, seat(1), "draw")
    assert refuse(state, seat(1), "discard", card=other[0]) == "not_in_hand"
    assert refuse(state, seat(1), "hunt", cards=[*tok(RED[0], RED[1]), other[0]]) == "not_in_hand"
    assert refuse(state, seat(1), "hunt", cards=tok(RED[0], RED[1], state.draw_pile[0])) == "not_in_hand"


def test_bad_input_every_offered_action_is_playable_or_refused_with_a_reason(choosing: VampirState) -> None:
    states = [choosing, play(choosing, seat(1), "draw")[0], entering(), physical(first_player="host")]
    for state in states:
        for viewer in VIEWERS:
            for command in VAMPIR.actions(state, viewer):
                rejection = VAMPIR.validate(state, viewer, command)
                if rejection is None:
                    VAMPIR.decide(state, viewer, command, Picks())
                else:
                    assert rejection.code in ERRORS


# -- views -----------------------------------------------------------------------------------------

def test_views_a_seat_sees_its_own_hand_only_sorted_by_colour_jokers_last() -> None:
    state = arrange(new_game(), hands={1: [JOKER[0], RED2[0], RED[0], GREY[0], GREEN2[0], GREEN[0]],
                                       2: [RED[1], RED[2], GREY[1]], 3: [JOKER[1]]})
    mine = VAMPIR.view(state, seat(1))
    assert [c["card"] for c in mine["hand"]] == tok(GREEN[0], GREEN2[0], GREY[0], RED[0], RED2[0], JOKER[0])
    assert mine["hand"][-1] == {"card": tok(JOKER[0])[0], "colour": None, "heads": 1}
    text = dumps(state, seat(1))
    assert not any(t in text for t in tok(RED[1], RED[2], GREY[1], JOKER[1]))
    assert [c["card"] for c in VAMPIR.view(state, seat(2))["hand"]] == tok(GREY[1], RED[1], RED[2])
    assert VAMPIR.view(state, seat(2))["can_hunt"] == []
    assert VAMPIR.view(state, seat(1))["can_hunt"] == ["green", "red"]


def test_views_the_table_and_the_host_see_hand_sizes_only() -> None:
    state = new_game(rng=SeededRandomSource(11))
    hidden = tok(*(c for p in state.players for c in p.hand), *state.draw_pile)
    for viewer in (TABLE, HOST, SYSTEM, seat(7)):
        picture = VAMPIR.view(state, viewer)
        assert "hand" not in picture
        assert [p["hand"] for p in picture["players"]] == [4, 4, 4]
        text = json.dumps(picture)
        assert not any(t in text for t in hidden)


def test_views_no_secret_reaches_a_viewer_not_allowed_to_see_it() -> None:
    state = new_game(rng=SeededRandomSource(4))
    states = [state]
    for _ in range(6):
        who = state.current
        state, _ = play(state, seat(who), "draw")
        states.append(state)
        card = state.player(who).hand[0]
        state, _ = play(state, seat(who), "discard", card=tok(card)[0], location=CARDS[card].colour or "red")
        states.append(state)
    states.append(play(replace(state, draw_pile=state.draw_pile[:2], removed=state.draw_pile[2:]),
                       seat(state.current), "draw")[0])
    for shown in states:
        secrets = VAMPIR.secrets(shown)
        assert len(secrets) == sum(len(p.hand) for p in shown.players) + len(shown.draw_pile) + len(shown.discarded)
        for viewer in [*VIEWERS, SYSTEM]:
            text = dumps(shown, viewer)
            for secret in secrets:
                if not secret.visible_to(viewer):
                    assert secret.value not in text, (viewer, secret.description)


def test_views_the_draw_pile_counter_warns_near_the_end() -> None:
    state = arrange(new_game(), draw=RED[:7])
    assert VAMPIR.view(state, TABLE)["warning"] is None
    assert VAMPIR.view(replace(state, draw_pile=tuple(RED[:6])), TABLE)["warning"] == "soon"
    assert VAMPIR.view(replace(state, draw_pile=tuple(RED[:2])), TABLE)["warning"] == "last_draw"


def test_views_the_projection_uses_public_hunts_and_can_be_hidden() -> None:
    hunts = {1: [RED[:3]], 2: [RED[3:7]], 3: [RED[7:10]]}
    state = arrange(new_game(), hands={1: RED2[:3]}, hunts=hunts)
    projection = VAMPIR.view(state, TABLE)["projection"]
    assert projection["points"] == {"1": 0, "2": 4, "3": 0}
    assert VAMPIR.view(state, seat(1))["projection"] == projection, "the hand does not count"
    assert VAMPIR.view(arrange(new_game(projection=False), hunts=hunts), TABLE)["projection"] is None


def test_describe_never_prints_a_hands_or_the_draw_piles_cards() -> None:
    rng = Picks()
    dealt = deal((1, 2, 3), rng, 1)
    begun = Event("round_begun", dealt)
    assert VAMPIR.describe(begun, "en") == "round 1 dealt"
    drawn_event = Event("cards_drawn", {"seat": 1, "cards": [RED[0], RED[1]], "left": 80})
    assert VAMPIR.describe(drawn_event, "en") == "seat 1 drew 2 cards (80 left)"
    ended = Event("round_ended", {"reason": "last_card", "seat": 1, "hands": {"1": 5, "2": 4, "3": 4}})
    for lang in ("en", "fr"):
        for event in (begun, drawn_event, ended):
            line = VAMPIR.describe(event, lang)
            assert "vampir-r" not in line and str(RED[0]) not in line and "[" not in line
    state = arrange(new_game(), hands={1: [RED[0], RED[1], RED[2], JOKER[0]]})
    state, events = play(state, seat(1), "draw")
    _, more = play(state, seat(1), "hunt", cards=tok(*RED[:3]))
    assert VAMPIR.describe(more[0], "en") == "seat 1 laid a hunt (red): 3 cards, 3 heads (location taken: None)"
    for event in [*events, *more]:
        assert "vampir-r" not in VAMPIR.describe(event, "en")


def test_views_the_happenings_tell_public_facts_only() -> None:
    state = arrange(new_game(), hands={1: [RED[0], RED[1], GREEN[0], GREEN[1]]}, draw=[RED[2], GREEN[2], *GREY[:5]])
    state, _ = play(state, seat(1), "draw")
    state, _ = play(state, seat(1), "hunt", cards=tok(*RED[:3]))
    assert state.happenings[0] == {"kind": "hunted", "seat": 1, "colour": "red", "size": 3, "hunt_heads": 3,
                                   "taken": None, "replaced": None}
    assert state.happenings[1] == {"kind": "drew", "seat": 1, "count": 2, "left": 5}
