"""Vampir's rules (V-S*, V-T*, V-H*, V-E*, V-SC* in rules/vampir.md) as pure functions: the deal,
what makes a hunt, the scoring, and `evolve`.

turn.py says which command may be played now and tells the events it decides; this module knows
what those events do to the state and how a round is scored, for digital and physical cards alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from companion.fairness.rng import RandomSource, shuffled
from companion.games.base import Event, Rejection, SeatInfo
from companion.games.states import with_changes
from companion.games.vampir.options import COLOURS, HAND_SIZE, JOKERS, MIN_HUNT, ONE_HEAD, TWO_HEAD
from companion.games.vampir.state import (
    CARDS,
    COLOUR_OF,
    HEADS,
    RECENT,
    STARTERS,
    Hunt,
    Player,
    VampirState,
    colour_counts,
)

GAME_ID = "vampir"


# -- setup and the deal (V-S1..V-S4) ---------------------------------------------------------------

def deal(seats: Sequence[int], rng: RandomSource, round_number: int) -> dict[str, Any]:
    """One round's deal, as the `round_begun` event carries it: the six starting cards under their
    locations (V-S2), the other 100 shuffled, four to each seat, the rest face down (V-S3)."""
    deck = shuffled(rng, [c.number for c in CARDS if c.number not in STARTERS], f"round {round_number}: shuffle")
    hands = {str(seat): deck[i * HAND_SIZE:(i + 1) * HAND_SIZE] for i, seat in enumerate(seats)}
    return {"round": round_number, "piles": {colour: [STARTERS[i]] for i, colour in enumerate(COLOURS)},
            "hands": hands, "draw_pile": deck[len(seats) * HAND_SIZE:]}


def setup(options: Mapping[str, Any], seats: Sequence[SeatInfo], rng: RandomSource) -> VampirState:
    """The first round dealt (with digital cards) and its first player drawn, unless the host chooses."""
    ordered = sorted(seats, key=lambda s: s.number)
    state = VampirState(dict(options), tuple(Player(s.number, s.name) for s in ordered),
                        tuple(s.number for s in ordered))
    for event in begin_round(state, rng, 1):
        state = evolve(state, event)
    return state


def begin_round(state: VampirState, rng: RandomSource, round_number: int) -> list[Event]:
    """The events that open a round: the deal, then its first player unless the host chooses (V-S4)."""
    begun = deal(state.order, rng, round_number) if state.digital else {"round": round_number}
    events = [Event("round_begun", begun)]
    how = state.options["first_player"]
    if how == "host":
        return events
    candidates = list(state.order)
    if how == "loser" and state.scores:
        points = state.scores[-1]["points"]
        low = min(points.values())
        candidates = [s for s in state.order if points[str(s)] == low]
    else:
        how = "random"
    pick = candidates[rng.randbelow(len(candidates), f"round {round_number}: first player")] \
        if len(candidates) > 1 else candidates[0]
    return [*events, Event("starter_chosen", {"seat": pick, "how": how})]


# -- hunts (V-H1..V-H3, V-T2, ambiguity 5) ---------------------------------------------------------

def hunt_refusal(colour: str | None, cards: Iterable[int], taken: Sequence[int] = ()) -> Rejection | None:
    """Why these cards are no hunt (None when they are one): at least MIN_HUNT cards, one colour
    plus jokers, never jokers alone (V-H1). The cards `taken` from a location all belong to it, its
    jokers counting as its colour, so `colour` is then the location's; but jokers taken are no more
    a hunt alone than jokers from hand (ambiguity 5)."""
    chosen = list(cards)
    colours = {CARDS[c].colour for c in chosen if not CARDS[c].joker}
    if len(colours) > 1:
        return Rejection("hunt_mixed_colours")
    if colour is not None and colours and colours != {colour}:
        return Rejection("hunt_wrong_colour", {"colour": colour})
    if not colours and all(CARDS[c].joker for c in taken):
        return Rejection("hunt_only_jokers")
    size = len(chosen) + len(taken)
    if size < MIN_HUNT:
        return Rejection("hunt_too_small", {"min": MIN_HUNT, "size": size})
    return None


def hunt_colour(cards: Iterable[int], taken_from: str | None = None) -> str | None:
    """The colour a hunt of these cards has: the location's when taken from one, else its cards'."""
    if taken_from is not None:
        return taken_from
    return next((CARDS[c].colour for c in cards if not CARDS[c].joker), None)


def possible_hunts(hand: Sequence[int]) -> list[str]:
    """The colours this hand could lay a hunt in now (its colours counted in one pass: every hunt
    laid asks it)."""
    counts = colour_counts(hand)
    jokers = counts.get(None, 0)
    return [colour for colour in COLOURS if (n := counts.get(colour, 0)) and n + jokers >= MIN_HUNT]


def entry_refusal(hunts: Any) -> Rejection | None:
    """Why a physical table's entry of one player's hunts is malformed: per colour the one-head,
    two-head and joker counts, each a legal hunt within what the box holds."""
    if not isinstance(hunts, list) or len(hunts) > len(COLOURS):
        return Rejection("bad_arguments", {"detail": "hunts"})
    seen: set[str] = set()
    jokers = 0
    for hunt in hunts:
        if not isinstance(hunt, Mapping) or hunt.get("colour") not in COLOURS or hunt["colour"] in seen \
                or set(hunt) != {"colour", "one", "two", "jokers"} \
                or any(isinstance(hunt[k], bool) or not isinstance(hunt[k], int) or hunt[k] < 0
                       for k in ("one", "two", "jokers")):
            return Rejection("bad_arguments", {"detail": "hunts"})
        colour = str(hunt["colour"])
        seen.add(colour)
        for kind, limit in (("one", ONE_HEAD), ("two", TWO_HEAD)):
            if hunt[kind] > limit:
                return Rejection("supply_exceeded", {"colour": colour, "kind": kind, "count": hunt[kind],
                                                     "limit": limit})
        jokers += hunt["jokers"]
        if hunt["one"] + hunt["two"] == 0:
            return Rejection("hunt_only_jokers") if hunt["jokers"] else Rejection("hunt_too_small",
                                                                                  {"min": MIN_HUNT, "size": 0})
        size = hunt["one"] + hunt["two"] + hunt["jokers"]
        if size < MIN_HUNT:
            return Rejection("hunt_too_small", {"min": MIN_HUNT, "size": size})
    if jokers > JOKERS:
        return Rejection("supply_exceeded", {"colour": "joker", "kind": "jokers", "count": jokers, "limit": JOKERS})
    return None


def supply_problems(state: VampirState) -> list[dict[str, Any]]:
    """What the entered hunts hold beyond the box, all players together (none until all entered)."""
    if not all(p.entered for p in state.players):
        return []
    problems = []
    for colour in COLOURS:
        for kind, limit in (("one", ONE_HEAD), ("two", TWO_HEAD)):
            count = sum(getattr(h, kind) for p in state.players for h in p.hunts if h.colour == colour)
            if count > limit:
                problems.append({"colour": colour, "kind": kind, "count": count, "limit": limit})
    jokers = sum(h.jokers for p in state.players for h in p.hunts)
    if jokers > JOKERS:
        problems.append({"colour": "joker", "kind": "jokers", "count": jokers, "limit": JOKERS})
    return problems


# -- scoring (V-SC1..V-SC5, ambiguities 9, 10) -----------------------------------------------------

def score_round(heads: Mapping[int, Mapping[str, int]], all_tied_discard: bool) -> dict[str, Any]:
    """Colour by colour, who discards and why, then each seat's points.

    `heads[seat][colour]` counts heads, not cards (V-SC1). A colour where anyone has none is kept
    by all (V-SC2); otherwise everyone at the lowest discards it (V-SC3), all of them when all are
    tied unless the table reads ambiguity 9 the other way. Points are the heads kept (V-SC4)."""
    seats = sorted(heads)
    kept = dict.fromkeys(seats, 0)
    colours = []
    for colour in COLOURS:
        held = {seat: int(heads[seat].get(colour, 0)) for seat in seats}
        without = [seat for seat in seats if held[seat] == 0]
        lowest = min(held.values()) if held else 0
        tied = [seat for seat in seats if held[seat] == lowest]
        discard: list[int]
        if without:
            reason, discard = "someone_has_none", []
        elif len(tied) == len(seats):
            reason, discard = ("all_tied", tied) if all_tied_discard else ("all_tied_kept", [])
        else:
            reason, discard = "lowest", tied
        for seat in seats:
            if seat not in discard:
                kept[seat] += held[seat]
        colours.append({"colour": colour, "heads": {str(s): held[s] for s in seats}, "without": without,
                        "lowest": lowest, "discard": discard, "reason": reason})
    return {"colours": colours, "points": {str(s): kept[s] for s in seats}}


def winners(totals: Mapping[int, int], last: Mapping[int, int], tie: str) -> list[int]:
    """The highest total wins; equal totals share it (ambiguity 10), unless the table lets the better
    last round break the tie (still shared when that is equal too)."""
    best = max(totals.values())
    top = [seat for seat in sorted(totals) if totals[seat] == best]
    if tie == "last_round" and len(top) > 1:
        better = max(last[seat] for seat in top)
        top = [seat for seat in top if last[seat] == better]
    return top


def round_heads(state: VampirState) -> dict[int, dict[str, int]]:
    return {p.seat: {h.colour: h.heads for h in p.hunts} for p in state.players}


def scored(state: VampirState) -> dict[str, Any]:
    """The `round_scored` event of the round just ended: its breakdown, the totals, and the winners
    once it was the last round."""
    result = score_round(round_heads(state), state.options["all_tied_lowest_discard"])
    totals = state.totals()
    for seat in totals:
        totals[seat] += result["points"][str(seat)]
    final = state.round >= state.options["rounds"]
    won = winners(totals, {s: result["points"][str(s)] for s in totals}, state.options["winner_tie"]) \
        if final else []
    return {"round": state.round, **result, "totals": {str(s): t for s, t in totals.items()}, "final": final,
            "winners": won}


# -- evolve ----------------------------------------------------------------------------------------

def next_seat(state: VampirState, seat: int) -> int:
    """Clockwise (V-S4)."""
    return state.order[(state.order.index(seat) + 1) % len(state.order)]


def _seated(state: VampirState, player: Player) -> tuple[Player, ...]:
    """The players with this one in its seat's place: the players are in the order of `order`."""
    i = state.order.index(player.seat)
    players = state.players
    return (*players[:i], player, *players[i + 1:])


def _with_hand(p: Player, hand: tuple[int, ...]) -> Player:
    """The player holding this hand, made by its constructor (`replace` costs twice as much, and
    most events change one hand)."""
    return Player(p.seat, p.name, hand, p.hunts, p.entered)


def _without(cards: Sequence[int], gone: Iterable[int]) -> tuple[int, ...]:
    out = set(gone)
    return tuple([c for c in cards if c not in out])


def _laid(data: Mapping[str, Any]) -> Hunt:
    """The hunt a `hunt_laid` event lays: a taken location's pile, then the cards from hand."""
    taken = data.get("taken")
    return Hunt.of(data["colour"], (tuple(taken["cards"]) if taken else ()) + tuple(data["cards"]))


def _next(state: VampirState, line: Mapping[str, Any] | None, changes: dict[str, Any]) -> VampirState:
    """The state after an event: its changes, and its public line (no hidden card ever: a draw is a
    count) first among the happenings, in one copy."""
    if line is not None:
        changes["happenings"] = (line, *state.happenings[:RECENT - 1])
    return with_changes(state, changes)


Evolution = Callable[[VampirState, Mapping[str, Any]], VampirState]
"""How one kind of event changes the state, its line among the happenings included."""


def _round_begun(state: VampirState, data: Mapping[str, Any]) -> VampirState:
    hands = data.get("hands", {})
    piles = data.get("piles", {})
    return _next(state, None, {
        "round": int(data["round"]), "phase": "starter", "current": None, "stage": None,
        "players": tuple([Player(p.seat, p.name, tuple(hands.get(str(p.seat), ())), (), False)
                          for p in state.players]),
        "piles": {colour: tuple(piles.get(colour, ())) for colour in COLOURS},
        "draw_pile": tuple(data.get("draw_pile", ())), "removed": (), "discarded": (), "drawn": (), "hunts_laid": 0,
        "ending": None, "happenings": (), "turns": 0})


def _starter_chosen(state: VampirState, data: Mapping[str, Any]) -> VampirState:
    line = {"kind": "starts", "seat": data["seat"], "how": data["how"], "round": state.round}
    digital = state.digital
    return _next(state, line, {"phase": "turn" if digital else "playing", "current": int(data["seat"]),
                               "stage": "choose" if digital else None, "turns": 1})


def _cards_drawn(state: VampirState, data: Mapping[str, Any]) -> VampirState:
    seat = data["seat"]
    cards = tuple(data["cards"])
    p = state.player(seat)
    line = {"kind": "drew", "seat": seat, "count": len(cards), "left": data["left"]}
    return _next(state, line, {"players": _seated(state, Player(seat, p.name, p.hand + cards, p.hunts,
                                                                        p.entered)),
                               "draw_pile": state.draw_pile[len(cards):], "drawn": cards, "stage": "drawn"})


def _card_discarded(state: VampirState, data: Mapping[str, Any]) -> VampirState:
    seat, card, location = data["seat"], data["card"], data["location"]
    p = state.player(seat)
    line = {"kind": "discarded", "seat": seat, "location": location, "colour": COLOUR_OF[card],
            "heads": CARDS[card].heads}
    piles = dict(state.piles)
    piles[location] += (card,)
    return _next(state, line, {"piles": piles, "stage": "done",
                               "players": _seated(state, Player(seat, p.name, tuple([c for c in p.hand if c != card]),
                                                                        p.hunts, p.entered))})


def _turn_passed(state: VampirState, data: Mapping[str, Any]) -> VampirState:
    return _next(state, None, {"current": int(data["seat"]), "stage": "choose", "drawn": (), "hunts_laid": 0,
                               "turns": state.turns + 1})


def _round_ended(state: VampirState, data: Mapping[str, Any]) -> VampirState:
    line = {"kind": "round_ended", "reason": data["reason"], "round": state.round, "seat": data.get("seat")}
    # V-E3: the hands leave the game unseen.
    hands = tuple(c for p in state.players for c in p.hand)
    return _next(state, line, {
        "phase": "entering" if not state.digital else state.phase, "current": None, "stage": None, "drawn": (),
        "ending": str(data["reason"]), "discarded": state.discarded + hands,
        "players": tuple([_with_hand(p, ()) for p in state.players])})


def _hunts_entered(state: VampirState, data: Mapping[str, Any]) -> VampirState:
    hunts = tuple(Hunt(h["colour"], h["one"], h["two"], h["jokers"])
                  for colour in COLOURS for h in data["hunts"] if h["colour"] == colour)
    p = state.player(data["seat"])
    return _next(state, {"kind": "entered", "seat": data["seat"]},
                 {"players": _seated(state, Player(p.seat, p.name, p.hand, hunts, True))})


def _round_scored(state: VampirState, data: Mapping[str, Any]) -> VampirState:
    line = {"kind": "scored", "round": data["round"], "winners": data["winners"]}
    return _next(state, line, {"scores": (*state.scores, dict(data)), "phase": "over" if data["final"] else "scored"})


def _hunt_laid(state: VampirState, data: Mapping[str, Any]) -> VampirState:
    """V-T1b, V-T2, V-H3 in one event (so an undo never stops halfway): a taken location's pile and
    the cards from hand make the hunt; an old hunt of its colour leaves the game. Its public line
    tells the hunt's size and heads, and what was taken (a count)."""
    hunt = _laid(data)
    taken = data.get("taken")
    took = {"location": taken["location"], "cards": len(taken["cards"]),
            "heads": sum(map(HEADS.__getitem__, taken["cards"]))} if taken else None
    line = {"kind": "hunted", "seat": data["seat"], "colour": data["colour"], "size": hunt.size,
            "hunt_heads": hunt.heads, "taken": took, "replaced": data.get("replaced")}
    player = state.player(data["seat"])
    old = player.hunt(hunt.colour)
    piles = {**state.piles, taken["location"]: ()} if taken else state.piles
    hunts = player.hunts if old is None else tuple([h for h in player.hunts if h is not old])
    laid = Player(player.seat, player.name, _without(player.hand, data["cards"]), (*hunts, hunt), player.entered)
    return _next(state, line, {"hunts_laid": state.hunts_laid + 1, "stage": "hunting", "piles": piles,
                               "removed": state.removed + (old.cards if old is not None else ()),
                               "players": _seated(state, laid)})


EVOLUTIONS: dict[str, Evolution] = {
    "round_begun": _round_begun,
    "starter_chosen": _starter_chosen,
    "cards_drawn": _cards_drawn,
    "card_discarded": _card_discarded,
    "turn_passed": _turn_passed,
    "hunt_laid": _hunt_laid,
    "round_ended": _round_ended,
    "hunts_entered": _hunts_entered,
    "round_scored": _round_scored,
}


def _unknown(state: VampirState, data: Mapping[str, Any]) -> VampirState:
    return _next(state, None, {})


def evolve(state: VampirState, event: Event) -> VampirState:
    """The state after one event: its kind's evolution, looked up once (every event of every game
    goes through here)."""
    return EVOLUTIONS.get(event.type, _unknown)(state, event.data)


def is_over(state: VampirState) -> bool:
    return state.phase == "over"


def awaited(state: VampirState) -> frozenset[int]:
    """Who must act before the game goes on: the current player in a turn, and with real cards
    every player who has not entered their hunts yet."""
    if state.phase == "turn" and state.current is not None:
        return frozenset({state.current})
    if state.phase == "entering":
        return frozenset(p.seat for p in state.players if not p.entered)
    return frozenset()
