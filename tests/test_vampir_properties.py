"""Property tests for Vampir (rules/vampir.md).

Thousands of random complete games on the pure rules (companion/sim/players/vampir.py), with the table's
options varied. After every single event: the 106 cards are all in play, each in exactly one
place (digital cards); every hunt on display is legal (V-H1) and a player has at most one per
colour (V-H3); no turn lays more hunts than the table allows; a draw takes the top of the draw pile;
a round ends only by its rules (V-E1, V-E2, ambiguity 7). Every round is scored again here from
the hunts, heads not cards (V-SC1..V-SC4, ambiguity 9), with the cumulative totals and the
winners (ambiguity 10). After every event of every game the generic leak test (tests/support/leak.py)
reads every viewer's view: no hand's card but to its owner, no card of the draw pile to anyone, and
the game declares each of them secret. A game replays from its log, every command deciding the same
events.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from companion.games.base import HOST, TABLE, Event, Viewer, seat
from companion.games.vampir import VAMPIR as GAME
from companion.games.vampir.options import COLOURS, JOKERS, LOCATIONS, ONE_HEAD, TWO_HEAD, normalize_options
from companion.games.vampir.state import CARDS, STARTERS, Hunt, VampirState
from companion.sim.players.vampir import BUDGET, Check, Played, play_game, token
from tests.support.leak import SecretWatch
from tests.support.replay_check import assert_replays

CHUNKS = 9
QUICK_FIRST = [0, *(pytest.param(c, marks=pytest.mark.slow) for c in range(1, CHUNKS))]
"""The first chunk in the quick loop, every chunk in the full suite."""
GAMES_PER_CHUNK = 250
PHYSICAL_EVERY = 10
"""One game in ten is played with the real cards; 9 x 250 games hold over 2,000 digital ones."""
DECLARED_EVERY = 10
"""One game in ten also checks, after every event, that the game declares each hidden card secret."""
ALL_CARDS = list(range(len(CARDS)))
TOKEN = re.compile(r"vampir-r\d+-\d{3}")


def random_table(seed: int) -> tuple[int, dict[str, Any]]:
    """Players and options for one game: the defaults now and then, else varied choices."""
    rnd = random.Random(f"vampir table {seed}")
    players = rnd.randint(3, 5)
    physical = seed % PHYSICAL_EVERY == PHYSICAL_EVERY - 1
    options: dict[str, Any] = {"cards": "physical" if physical else "digital"}
    if rnd.random() < 0.15:
        return players, options
    options |= {
        "rounds": rnd.randint(1, 3),
        "hunts_per_turn": rnd.choice([1, 1, 2, 6]),
        "end_on_last_card": rnd.choice(["immediate", "finish_turn"]),
        "first_player": rnd.choice(["random", "loser", "host"]),
        "all_tied_lowest_discard": rnd.random() < 0.5,
        "winner_tie": rnd.choice(["shared", "last_round"]),
        "projection": rnd.random() < 0.7,
    }
    if rnd.random() < 0.2:
        locations = rnd.sample(LOCATIONS, len(COLOURS))
        options["locations"] = dict(zip(COLOURS, locations, strict=True))
    return players, options



@dataclass
class Tally:
    games: int = 0
    digital: int = 0
    events: int = 0
    commands: int = 0
    seen: Counter[str] = field(default_factory=Counter)
    options: Counter[str] = field(default_factory=Counter)
    tried: Counter[str] = field(default_factory=Counter)


# -- the scoring, as the test reads V-SC -----------------------------------------------------------

def heads_of(state: VampirState) -> dict[int, dict[str, int]]:
    """V-SC1: per seat and colour, the heads of its hunt: counted from the cards when dealt, else
    from the counts entered (a joker one head, a two-head card two)."""
    heads: dict[int, dict[str, int]] = {}
    for player in state.players:
        heads[player.seat] = dict.fromkeys(COLOURS, 0)
        for hunt in player.hunts:
            heads[player.seat][hunt.colour] = sum(CARDS[c].heads for c in hunt.cards) if state.digital \
                else hunt.one + 2 * hunt.two + hunt.jokers
    return heads


def expected_round(heads: Mapping[int, Mapping[str, int]], all_tied_discard: bool) -> tuple[dict[str, list[int]],
                                                                                             dict[int, int]]:
    """V-SC2: a colour someone lacks is kept by all; V-SC3: else all at the lowest discard it, even
    all of them (unless the table reads ambiguity 9 the other way); V-SC4: the points are the rest."""
    discards: dict[str, list[int]] = {}
    points = dict.fromkeys(heads, 0)
    for colour in COLOURS:
        held = {s: heads[s][colour] for s in heads}
        low = min(held.values())
        losers = [] if low == 0 else sorted(s for s in held if held[s] == low)
        if len(losers) == len(held) and not all_tied_discard:
            losers = []
        discards[colour] = losers
        for s in held:
            points[s] += 0 if s in losers else held[s]
    return discards, points


def expected_winners(totals: Mapping[int, int], last: Mapping[int, int], tie: str) -> list[int]:
    top = [s for s in totals if totals[s] == max(totals.values())]
    if tie == "last_round":
        top = [s for s in top if last[s] == max(last[t] for t in top)]
    return sorted(top)


# -- the invariants after each event ---------------------------------------------------------------

def places(state: VampirState) -> list[int]:
    """Every card where it lies: the piles, the draw pile, the hands, the hunts, out of the game."""
    return [*(c for pile in state.piles.values() for c in pile), *state.draw_pile, *state.removed,
            *state.discarded, *(c for p in state.players for c in p.hand),
            *(c for p in state.players for h in p.hunts for c in h.cards)]


def check_hunts(state: VampirState, verified: dict[int, Hunt] | None = None) -> None:
    """V-H1, V-H3 on every hunt on display. A hunt is a value that never changes and is carried from
    state to state as the same object: one in `verified` (by identity) has passed the same checks."""
    for player in state.players:
        colours = [h.colour for h in player.hunts]
        assert len(colours) == len(set(colours)), f"seat {player.seat} holds two hunts of a colour"
        for hunt in player.hunts:
            if verified is not None and verified.get(id(hunt)) is hunt:
                continue
            assert hunt.colour in COLOURS and hunt.one + hunt.two + hunt.jokers >= 3
            if state.digital:
                cards = [CARDS[c] for c in hunt.cards]
                assert {c.colour for c in cards} <= {hunt.colour, None}, "one colour plus jokers"
                assert (hunt.one, hunt.two, hunt.jokers) == (
                    sum(not c.joker and c.heads == 1 for c in cards), sum(c.heads == 2 for c in cards),
                    sum(c.joker for c in cards))
            else:
                assert hunt.one + hunt.two > 0 and hunt.one <= ONE_HEAD and hunt.two <= TWO_HEAD
            if verified is not None:
                verified[id(hunt)] = hunt


def invariants(options: Mapping[str, Any]) -> Check:
    """The checks after each event of one game (its running totals kept here)."""
    totals: dict[int, int] = {}
    memory: dict[str, Any] = {"last": None}
    verified: dict[int, Hunt] = {}
    """The hunts checked so far in this game (kept, so no other object takes their id): a game is
    either digital or not throughout, so their verdict holds in every later state."""

    def check(before: VampirState, state: VampirState, event: Event) -> None:
        data = event.data
        kind = event.type
        previous, memory["last"] = memory["last"], event
        if state.digital:
            assert state.cards_in_play() == len(CARDS)
            assert sorted(places(state)) == ALL_CARDS, "every card in exactly one place"
        else:
            assert state.cards_in_play() == 0 and not any(state.piles.values())
        check_hunts(state, verified)
        assert state.hunts_laid <= options["hunts_per_turn"]
        if state.phase == "turn" and state.ending is None:
            assert state.current is not None and state.stage in ("choose", "drawn", "hunting", "done")
            assert state.draw_pile or options["end_on_last_card"] == "finish_turn" or kind == "cards_drawn"
        # Drawing the last card ends the round at once, unless the table lets the turn finish (V-E1, ambiguity 7).
        if previous is not None and previous.type == "cards_drawn" and not before.draw_pile \
                and options["end_on_last_card"] == "immediate":
            assert kind == "round_ended" and data["reason"] == "last_card"
        if kind == "round_begun":
            assert data["round"] == before.round + (before.phase != "starter")
            if state.digital:
                assert all(len(p.hand) == 4 for p in state.players)
                assert [state.piles[c] for c in COLOURS] == [(n,) for n in STARTERS], "V-S2"
                assert len(state.draw_pile) == 100 - 4 * len(state.players), "V-S3"
                assert not state.removed and not state.discarded
            assert all(not p.hunts and not p.entered for p in state.players) and state.phase == "starter"
        elif kind == "starter_chosen":
            assert state.seated(data["seat"]) and state.current == data["seat"]
            if data["how"] == "loser":
                assert options["first_player"] == "loser" and state.round > 1
                points = state.scores[-1]["points"]
                assert points[str(data["seat"])] == min(points.values()), "the previous round's lowest starts"
            else:
                expected = {"host": "host", "random": "random", "loser": "random"}[options["first_player"]]
                assert data["how"] == expected and (expected != "random" or options["first_player"] == "random"
                                                    or state.round == 1)
        elif kind == "cards_drawn":
            count = min(2, len(before.draw_pile))
            assert count > 0 and data["cards"] == list(before.draw_pile[:count]), "the top of the draw pile"
            assert data["seat"] == before.current and before.stage == "choose"
            assert state.player(data["seat"]).hand == before.player(data["seat"]).hand + tuple(data["cards"])
        elif kind == "card_discarded":
            card = CARDS[data["card"]]
            assert data["card"] in before.player(data["seat"]).hand and before.stage == "drawn"
            assert data["location"] == card.colour if not card.joker else data["location"] in COLOURS
            assert state.piles[data["location"]] == (*before.piles[data["location"]], data["card"])
        elif kind == "hunt_laid":
            check_hunt_laid(before, state, data)
        elif kind == "turn_passed":
            order = list(state.order)
            assert data["seat"] == order[(order.index(before.current) + 1) % len(order)], "clockwise"
            assert before.draw_pile, "a turn never passes once the draw pile is empty"
        elif kind == "round_ended":
            reason = data["reason"]
            assert reason == ("table" if not state.digital else reason)
            if reason == "last_card":
                assert not state.draw_pile
            elif reason == "six_colours":
                assert len(state.player(data["seat"]).hunts) == len(COLOURS), "V-E2"
                assert previous is not None and previous.type == "hunt_laid"
            else:
                assert reason == "table" and before.phase == "playing"
            assert all(not p.hand for p in state.players), "V-E3: the hands leave the game"
        elif kind == "hunts_entered":
            player = state.player(data["seat"])
            assert player.entered
            assert sorted((h.colour, h.one, h.two, h.jokers) for h in player.hunts) == \
                sorted((h["colour"], h["one"], h["two"], h["jokers"]) for h in data["hunts"])
        elif kind == "round_scored":
            check_scored(before, state, data, options, totals)
        else:
            raise AssertionError(f"unknown event {kind}")

    return check


def check_hunt_laid(before: VampirState, state: VampirState, data: Mapping[str, Any]) -> None:
    seat_number, colour = data["seat"], data["colour"]
    player, was = state.player(seat_number), before.player(seat_number)
    assert seat_number == before.current and before.phase == "turn"
    taken = data["taken"]
    cards = list(data["cards"])
    assert set(cards) <= set(was.hand) and len(set(cards)) == len(cards)
    assert {CARDS[c].colour for c in cards} <= {colour, None}
    if taken is not None:  # V-T2: the whole pile, taken at the turn's start; its jokers count as its colour
        assert before.stage == "choose" and taken["location"] == colour
        assert taken["cards"] == list(before.piles[colour]) and taken["cards"] and not state.piles[colour]
        assert len(taken["cards"]) + len(cards) >= 3
    else:  # V-T1b, V-H1: never jokers only
        assert before.stage in ("drawn", "hunting")
        assert any(not CARDS[c].joker for c in cards) and len(cards) >= 3
    hunt = player.hunt(colour)
    assert hunt is not None and sorted(hunt.cards) == sorted([*(taken["cards"] if taken else []), *cards])
    old = was.hunt(colour)
    if old is not None:  # V-H3: the old hunt leaves the game, seen by all
        assert data["replaced"] == {"heads": old.heads, "size": old.size}
        assert state.removed == before.removed + old.cards
    else:
        assert data["replaced"] is None and state.removed == before.removed
    assert state.hunts_laid == before.hunts_laid + 1


def check_scored(before: VampirState, state: VampirState, data: Mapping[str, Any], options: Mapping[str, Any],
                 totals: dict[int, int]) -> None:
    assert before.phase in ("turn", "entering") and data["round"] == before.round
    if not before.digital:
        assert all(p.entered for p in before.players), "a physical round is scored once every hunt is entered"
        for colour in COLOURS:
            hunts = [h for p in before.players for h in p.hunts if h.colour == colour]
            assert sum(h.one for h in hunts) <= ONE_HEAD and sum(h.two for h in hunts) <= TWO_HEAD
        assert sum(h.jokers for p in before.players for h in p.hunts) <= JOKERS
    heads = heads_of(before)
    discards, points = expected_round(heads, options["all_tied_lowest_discard"])
    assert data["points"] == {str(s): n for s, n in points.items()}
    assert [c["colour"] for c in data["colours"]] == list(COLOURS)
    for line in data["colours"]:
        assert line["heads"] == {str(s): heads[s][line["colour"]] for s in heads}
        assert sorted(line["discard"]) == discards[line["colour"]], line
    for s, n in points.items():
        totals[s] = totals.get(s, 0) + n
    assert data["totals"] == {str(s): n for s, n in totals.items()}, "V-SC5: cumulative totals"
    assert state.totals() == totals
    final = data["round"] == options["rounds"]
    assert data["final"] == final and state.phase == ("over" if final else "scored")
    assert sorted(data["winners"]) == (expected_winners(totals, points, options["winner_tie"]) if final else [])


def play_checked(seed: int, tally: Tally, *more: Check) -> Played:
    players, options = random_table(seed)
    normalized = normalize_options(options)
    rnd = random.Random(seed)
    checks = [invariants(normalized), *more]

    def check(before: VampirState, after: VampirState, event: Event) -> None:
        for one in checks:
            one(before, after, event)
        tally.events += 1
        tally.seen[event.type] += 1
        if event.type == "round_ended":
            tally.seen[f"round_ended:{event.data['reason']}"] += 1
        elif event.type == "round_scored":
            tally.seen.update(f"colour:{c['reason']}" for c in event.data["colours"])
        elif event.type == "hunt_laid":
            tally.seen["hunt_laid:taken" if event.data["taken"] else "hunt_laid:from_hand"] += 1
            tally.seen["hunt_laid:replaced"] += event.data["replaced"] is not None
            if event.data["taken"] and all(CARDS[c].joker for c in event.data["taken"]["cards"]):
                tally.seen["hunt_laid:jokers_of_a_location"] += 1
        elif event.type == "card_discarded":
            tally.seen["card_discarded:joker"] += CARDS[event.data["card"]].joker

    played = play_game(players, options, seed.to_bytes(8, "big") * 4, rnd, check, limit=BUDGET)
    state = played.state
    assert GAME.is_over(state), f"game {seed} did not end in {BUDGET} commands"
    assert len(state.scores) == normalized["rounds"] == sum(e.type == "round_scored" for e in played.events)
    assert state.winners and set(state.winners) <= {p.seat for p in state.players}
    tally.games += 1
    tally.digital += state.digital
    tally.commands += len(played.turns)
    tally.tried.update(played.tried)
    tally.options[f"players={players}"] += 1
    for name, value in normalized.items():
        if name != "locations":
            tally.options[f"{name}={json.dumps(value)}"] += 1
    return played


@pytest.mark.parametrize("chunk", QUICK_FIRST)
def test_random_complete_games_keep_the_cards_score_every_round_and_leak_nothing(chunk: int) -> None:
    tally = Tally()
    watch = SecretWatch(GAME, TOKEN)
    for n in range(GAMES_PER_CHUNK):
        checks = (watch, declared) if n % DECLARED_EVERY == 0 else (watch,)
        play_checked(chunk * GAMES_PER_CHUNK + n, tally, *checks)
    assert tally.games == GAMES_PER_CHUNK and tally.digital >= GAMES_PER_CHUNK * 0.85
    # The generic leak test after every event of every game: no hand's card but to its owner, no
    # card of the draw pile or of a hand removed unseen to anyone.
    assert watch.leaks == []
    assert watch.states == tally.events
    assert watch.secrets > 50 * tally.events, "the draw pile and the hands are hidden most of the time"
    assert watch.owned["vampir"] > tally.events, "each phone is shown its own hand's cards"
    # The random play reaches every corner of the rules.
    for situation in ("cards_drawn", "card_discarded", "card_discarded:joker", "hunt_laid:from_hand",
                      "hunt_laid:taken", "hunt_laid:replaced", "turn_passed", "round_ended:last_card",
                      "round_ended:six_colours", "round_ended:table", "hunts_entered", "colour:someone_has_none",
                      "colour:lowest", "colour:all_tied", "colour:all_tied_kept",
                      "hunt_laid:jokers_of_a_location"):
        assert tally.seen[situation] > 0, f"random play never reached {situation}"
    for wrong in ("refused:not_in_hand", "refused:hunt_too_small", "refused:hunt_mixed_colours",
                  "refused:hunt_replaces", "refused:wrong_location", "refused:waiting_for", "refused:not_now",
                  "refused:location_empty", "refused:bad_arguments", "refused:joker_needs_location",
                  "refused:hunt_only_jokers", "take_jokers_only"):
        assert tally.tried[wrong] > 0, f"no illegal command was refused with {wrong}"
    if chunk == 0:
        for varied in ("players=3", "players=5", "hunts_per_turn=2", "hunts_per_turn=6",
                       'end_on_last_card="finish_turn"', 'first_player="loser"', 'first_player="host"',
                       "all_tied_lowest_discard=false", 'winner_tie="last_round"', "rounds=1", "rounds=2",
                       "rounds=3"):
            assert tally.options[varied], f"no game played with {varied}"


# -- secrets after every event ---------------------------------------------------------------------

def viewers_of(state: VampirState) -> list[Viewer]:
    return [TABLE, HOST, *(seat(p.seat) for p in state.players)]


def declared(before: VampirState, state: VampirState, event: Event) -> None:
    """The game declares every hidden card: each hand's cards to their owner alone, the draw pile's
    and the hands removed at a round's end to nobody; and each phone shows its own hand."""
    hidden = {s.value: s for s in GAME.secrets(state)}
    held = (c for p in state.players for c in p.hand)
    names = {c: token(state, c) for c in (*state.draw_pile, *state.discarded, *held)}
    assert set(hidden) == set(names.values())
    everyone = viewers_of(state)
    for player in state.players:
        owner = [seat(player.seat)]
        for card in player.hand:
            secret = hidden[names[card]]
            assert [v for v in everyone if secret.visible_to(v)] == owner
        shown = GAME.view(state, owner[0]).get("hand", [])
        assert sorted(c["card"] for c in shown) == sorted(names[c] for c in player.hand)
    for card in (*state.draw_pile, *state.discarded):
        assert not any(hidden[names[card]].visible_to(v) for v in everyone)


def test_the_secret_check_catches_a_view_that_shows_the_next_draw() -> None:
    def leaky_view(state: VampirState, viewer: Viewer) -> dict[str, Any]:
        shown = GAME.view(state, viewer)
        return {**shown, "next": token(state, state.draw_pile[0])} if state.draw_pile else shown

    def peeking_view(state: VampirState, viewer: Viewer) -> dict[str, Any]:
        shown = GAME.view(state, viewer)
        if viewer.kind != "table":
            return shown
        return {**shown, "hands": [[token(state, c) for c in p.hand] for p in state.players]}

    def nosy_view(state: VampirState, viewer: Viewer) -> dict[str, Any]:
        """A phone shown the next seat's hand: only its own part of the view holds the leak."""
        shown = GAME.view(state, viewer)
        if viewer.kind != "seat":
            return shown
        seats = [p.seat for p in state.players]
        neighbour = state.players[(seats.index(viewer.seat) + 1) % len(seats)]
        return {**shown, "neighbour": [token(state, c) for c in neighbour.hand]}

    tally = Tally()
    honest = SecretWatch(GAME, TOKEN)
    caught, peeked = SecretWatch(replace(GAME, view=leaky_view), TOKEN), SecretWatch(replace(GAME, view=peeking_view))
    nosy = SecretWatch(replace(GAME, view=nosy_view), TOKEN)
    for seed in range(2_000_000, 2_000_002):
        play_checked(seed, tally, honest, caught, peeked, nosy)
    assert honest.leaks == []
    assert caught.leaks and all("the draw pile's card 1 after" in leak for leak in caught.leaks)
    assert {leak.split(" ")[0] for leak in caught.leaks} >= {"table", "host", "seat:1"}
    assert peeked.leaks and all(leak.startswith("table saw a card in seat") for leak in peeked.leaks)
    assert nosy.leaks and all(re.match(r"seat:\d saw a card in seat \d's hand after", leak) for leak in nosy.leaks)
    assert {leak.split(" ")[0] for leak in nosy.leaks} >= {f"seat:{n}" for n in (1, 2, 3)}, "every phone"


# -- replays ---------------------------------------------------------------------------------------

def test_a_finished_game_replays_from_its_log() -> None:
    tally = Tally()
    for seed in range(3_000_000, 3_000_030):
        played = play_checked(seed, tally)
        assert_replays(GAME, played.options, played.seats, played.setup_draws, played.events,
                       ((t.actor, t.command, t.draws, t.events) for t in played.turns), played.state)
        for event in played.events:
            for lang in ("en", "fr"):
                line = GAME.describe(event, lang)
                assert line and "vampir-r" not in line, "a log line never names a card"
    assert tally.options['cards="physical"'] and tally.seen["round_scored"] > 30


def test_nothing_is_decided_after_the_game_is_over() -> None:
    played = play_checked(4_000_000, Tally())
    state = played.state
    for turn in played.turns:
        refusal = GAME.validate(state, turn.actor, turn.command)
        assert refusal is not None and refusal.code == "game_over"

