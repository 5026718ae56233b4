"""What may be done now in Vampir, and the events each command decides.

A digital turn (V-T1, V-T2) waits on one question at a time (`state.stage`): draw or take a
location; after a draw, a discard or a hunt; after a hunt, another (when the table allows more than
one per turn, ambiguity 3) or the end of the turn. Whatever needs no choice follows by itself: the
next player, the round's end on the last card (V-E1) or the sixth colour (V-E2), its scoring.

Cards in arguments are the tokens the phone was shown (`vampir-r1-042`): a seat can only name the
cards it was allowed to see.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from companion.fairness.rng import RandomSource
from companion.games.base import Args, Move, Rejection, Story, Viewer, ViewerKind, no_check
from companion.games.options import whole
from companion.games.vampir.options import COLOURS, DRAW
from companion.games.vampir.rules import (
    begin_round,
    entry_refusal,
    evolve,
    hunt_colour,
    hunt_refusal,
    next_seat,
    possible_hunts,
    scored,
    supply_problems,
)
from companion.games.vampir.state import CARDS, VampirState


def card_number(state: VampirState, token: Any) -> int | None:
    """The card a token of this round names (None for anything else). Only a token exactly as views
    write it names a card: "²", "81" or "0081" name none."""
    return _numbers(state.round).get(token) if isinstance(token, str) else None


@functools.lru_cache(maxsize=16)
def _numbers(round_number: int) -> dict[str, int]:
    """Every card's token in one round, and the card it names (made once per round: every card a
    command names is looked up)."""
    return {card.token(round_number): card.number for card in CARDS}


def _hand_cards(state: VampirState, seat: int, tokens: Any) -> list[int] | Rejection:
    """The distinct cards of this seat's hand the tokens name, or why not."""
    if not isinstance(tokens, list) or len(tokens) > len(CARDS):
        return Rejection("bad_arguments", {"detail": "cards"})
    names = _numbers(state.round)  # looked up once for all the tokens (as card_number reads them)
    numbers = [names.get(t) if isinstance(t, str) else None for t in tokens]
    hand = state.player(seat).hand
    for number in numbers:  # a loop: any() and its generator cost more on a hunt's few cards
        if number is None or number not in hand:
            return Rejection("not_in_hand")
    if len(set(numbers)) != len(numbers):
        return Rejection("bad_arguments", {"detail": "cards"})
    return [n for n in numbers if n is not None]


def _replacing(state: VampirState, seat: int, colour: str | None, args: Args) -> Rejection | None:
    """V-H3: a second hunt of a colour removes the first from the game: the phone must say it means it."""
    if colour is None:
        return None
    old = state.player(seat).hunt(colour)
    if old is not None and args.get("replace") is not True:
        return Rejection("hunt_replaces", {"colour": colour, "heads": old.heads})
    if state.hunts_laid >= state.options["hunts_per_turn"]:
        return Rejection("hunt_limit", {"max": state.options["hunts_per_turn"]})
    return None


class _Turn(Story[VampirState]):
    def __init__(self, state: VampirState, at_us: int, rng: RandomSource) -> None:
        super().__init__(state, at_us, rng, evolve)

    def draw(self, seat: int) -> None:
        count = min(DRAW, len(self.state.draw_pile))
        cards = list(self.state.draw_pile[:count])
        # Its player has seen the cards: a draw is never taken back (it would let them peek).
        self.tell("cards_drawn", {"seat": seat, "cards": cards, "left": len(self.state.draw_pile) - count},
                  reveals=True)
        if not self.state.draw_pile and self.state.options["end_on_last_card"] == "immediate":
            self.end_round("last_card", seat)  # V-E1, ambiguity 7

    def lay(self, seat: int, colour: str, cards: list[int], taken: Mapping[str, Any] | None = None) -> None:
        old = self.state.player(seat).hunt(colour)
        replaced = {"heads": old.heads, "size": old.size} if old is not None else None
        self.tell("hunt_laid", {"seat": seat, "colour": colour, "cards": cards, "taken": taken, "replaced": replaced})
        player = self.state.player(seat)
        if len(player.hunts) == len(COLOURS):
            self.end_round("six_colours", seat)  # V-E2, ambiguity 8
        elif self.state.hunts_laid >= self.state.options["hunts_per_turn"] or not possible_hunts(player.hand):
            self.end_turn(seat)

    def end_turn(self, seat: int) -> None:
        if self.state.last_card_drawn:
            self.end_round("last_card", seat)  # ambiguity 7, "finish_turn"
        else:
            self.tell("turn_passed", {"seat": next_seat(self.state, seat)})

    def end_round(self, reason: str, seat: int | None) -> None:
        hands = {str(p.seat): len(p.hand) for p in self.state.players}
        # The hands leave unseen (V-E3): with dealt cards the round's end can never be taken back.
        self.tell("round_ended", {"reason": reason, "seat": seat, "hands": hands}, reveals=self.state.digital)
        if self.state.digital:
            self.tell("round_scored", scored(self.state))

    def after_entry(self) -> None:
        if all(p.entered for p in self.state.players) and not supply_problems(self.state):
            self.tell("round_scored", scored(self.state))


# -- the commands ----------------------------------------------------------------------------------

def _name(state: VampirState, seat: int | None) -> str:
    return (state.player(seat).name or f"#{seat}") if seat is not None else ""


def _seat(actor: Viewer) -> int:
    assert actor.seat is not None
    return actor.seat


def _tell_draw(story: _Turn, actor: Viewer, args: Args) -> None:
    story.draw(_seat(actor))


def _check_discard(state: VampirState, actor: Viewer, args: Args) -> Rejection | None:
    """V-T1a: a card under its own colour's location; a joker under the one its player names."""
    number = card_number(state, args.get("card"))
    if number is None or number not in state.player(_seat(actor)).hand:
        return Rejection("not_in_hand")
    card = CARDS[number]
    location = args.get("location")
    if card.joker:
        return None if location in COLOURS else Rejection("joker_needs_location")
    return None if location in (None, card.colour) else Rejection("wrong_location", {"colour": card.colour})


def _tell_discard(story: _Turn, actor: Viewer, args: Args) -> None:
    seat = _seat(actor)
    number = card_number(story.state, args["card"])
    assert number is not None
    story.tell("card_discarded", {"seat": seat, "card": number, "location": CARDS[number].colour or args["location"]})
    story.end_turn(seat)


def _check_hunt(state: VampirState, actor: Viewer, args: Args) -> Rejection | None:
    """V-T1b and V-H: a hunt from hand."""
    cards = _hand_cards(state, _seat(actor), args.get("cards"))
    if isinstance(cards, Rejection):
        return cards
    return hunt_refusal(None, cards) or _replacing(state, _seat(actor), hunt_colour(cards), args)


def _tell_hunt(story: _Turn, actor: Viewer, args: Args) -> None:
    cards = _hand_cards(story.state, _seat(actor), args["cards"])
    assert isinstance(cards, list)
    colour = hunt_colour(cards)
    assert colour is not None
    story.lay(_seat(actor), colour, cards)


def _check_take(state: VampirState, actor: Viewer, args: Args) -> Rejection | None:
    """V-T2: a location's whole pile, and at once a hunt of its colour holding all of it (ambiguity 4)."""
    location = args.get("location")
    if location not in COLOURS:
        return Rejection("bad_arguments", {"detail": "location"})
    pile = state.piles[location]
    if not pile:
        return Rejection("location_empty", {"colour": location})
    cards = _hand_cards(state, _seat(actor), args.get("cards", []))
    if isinstance(cards, Rejection):
        return cards
    return hunt_refusal(location, cards, pile) or _replacing(state, _seat(actor), location, args)


def _tell_take(story: _Turn, actor: Viewer, args: Args) -> None:
    seat = _seat(actor)
    location = args["location"]
    cards = _hand_cards(story.state, seat, args.get("cards", []))
    assert isinstance(cards, list)
    story.lay(seat, location, cards, {"location": location, "cards": list(story.state.piles[location])})


def _tell_end_turn(story: _Turn, actor: Viewer, args: Args) -> None:
    story.end_turn(_seat(actor))


def _check_starter(state: VampirState, actor: Viewer, args: Args) -> Rejection | None:
    seat = args.get("seat")
    return None if whole(seat) and state.seated(seat) else Rejection("not_a_player")


def _tell_starter(story: _Turn, actor: Viewer, args: Args) -> None:
    story.tell("starter_chosen", {"seat": args["seat"], "how": "host"})


def _tell_round_over(story: _Turn, actor: Viewer, args: Args) -> None:
    story.end_round("table", actor.seat)


def _entry_seat(state: VampirState, actor: Viewer, args: Args) -> int | Rejection:
    """A phone enters its own hunts; the host may enter a player's who has no phone at hand."""
    seat = args.get("seat")
    if actor.kind == "seat":
        return _seat(actor) if seat is None or (whole(seat) and seat == actor.seat) else Rejection("not_your_seat")
    if not whole(seat) or not state.seated(seat):
        return Rejection("not_a_player")
    return seat


def _check_enter(state: VampirState, actor: Viewer, args: Args) -> Rejection | None:
    seat = _entry_seat(state, actor, args)
    return seat if isinstance(seat, Rejection) else entry_refusal(args.get("hunts"))


def _tell_enter(story: _Turn, actor: Viewer, args: Args) -> None:
    seat = _entry_seat(story.state, actor, args)
    assert isinstance(seat, int)
    hunts = [{"colour": h["colour"], "one": h["one"], "two": h["two"], "jokers": h["jokers"]} for h in args["hunts"]]
    story.tell("hunts_entered", {"seat": seat, "hunts": hunts})
    story.after_entry()


def _tell_next_round(story: _Turn, actor: Viewer, args: Args) -> None:
    for event in begin_round(story.state, story.rng, story.state.round + 1):
        story.tell(event.type, event.data)


def _current(state: VampirState, actor: Viewer) -> Rejection | None:
    """A turn's moves are its player's."""
    return None if actor.seat == state.current else Rejection("waiting_for", {"name": _name(state, state.current)})


def _turn(tell: Callable[[_Turn, Viewer, Args], None], stages: tuple[str, ...],
          check: Callable[[VampirState, Viewer, Args], Rejection | None] = no_check) -> Move[VampirState, _Turn]:
    return Move(tell, phases=("turn",), stages=stages, whose=_current, check=check)


PLAYERS: tuple[ViewerKind, ...] = ("host", "seat")
MOVES: dict[str, Move[VampirState, _Turn]] = {
    "draw": _turn(_tell_draw, ("choose",)),
    "take": _turn(_tell_take, ("choose",), _check_take),
    "discard": _turn(_tell_discard, ("drawn",), _check_discard),
    "hunt": _turn(_tell_hunt, ("drawn", "hunting"), _check_hunt),
    "end_turn": _turn(_tell_end_turn, ("hunting", "done")),
    "choose_starter": Move(_tell_starter, phases=("starter",), by=("host",), refused="host_only",
                           check=_check_starter),
    "round_over": Move(_tell_round_over, phases=("playing",), by=PLAYERS),
    "enter_hunts": Move(_tell_enter, phases=("entering",), by=PLAYERS, check=_check_enter),
    "next_round": Move(_tell_next_round, phases=("scored",), by=PLAYERS),
}


story: Callable[[VampirState, int, RandomSource], _Turn] = _Turn
"""The story every command tells: the class itself, made without a call in between."""
