"""Vampir's state: the 106 cards, the six location piles, the hands, the hunts, and the rounds.

Values only. Cards are numbers into the catalogue `CARDS` (the same for every game), so a pile or
a hand is a tuple of numbers. A hunt also keeps its counts, which is all a physical table enters.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from companion.games.seats import Seated
from companion.games.vampir.options import COLOURS, JOKERS, ONE_HEAD, TWO_HEAD

Phase = Literal["starter", "turn", "playing", "entering", "scored", "over"]
"""Who starts the round (the host chooses); a digital turn; a physical round being played; the
physical hunts being entered; a round scored (the next one waits); the match over."""
STAGES = ("choose", "drawn", "hunting", "done")
"""What a digital turn waits for: draw or take (V-T1, V-T2); after a draw, a discard or a hunt
(V-T1a, V-T1b); after a hunt, another one or the end of the turn (when more hunts are allowed);
after a discard, the end of the turn (which follows at once, unless an undo stopped in between)."""
RECENT = 6
"""How many happenings the table display lists."""


@dataclass(frozen=True, slots=True)
class Card:
    number: int
    colour: str | None
    """None for a "Somewhere" joker."""
    heads: int
    joker: bool = field(init=False, repr=False, compare=False)
    """A "Somewhere" joker (no colour). A field rather than a property: hands and piles are searched
    for jokers at every turn."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "joker", self.colour is None)

    def token(self, round_number: int) -> str:
        """The card's unique name in views during one round (the same card is dealt again next round,
        to someone else: the round keeps the names apart)."""
        return _token(round_number, self.number)

    def to_json(self, round_number: int) -> dict[str, Any]:
        """Made once per card and round, and shared by every view that shows it (never modified)."""
        return _card_json(round_number, self.number)


@functools.cache
def _token(round_number: int, number: int) -> str:
    """Written once per card and round: every view of every state names the cards again."""
    return f"vampir-r{round_number}-{number:03d}"


@functools.cache
def _card_json(round_number: int, number: int) -> dict[str, Any]:
    card = CARDS[number]
    return {"card": _token(round_number, number), "colour": card.colour, "heads": card.heads}


def _catalogue() -> tuple[Card, ...]:
    cards: list[Card] = []
    for colour in COLOURS:
        cards += [Card(len(cards) + i, colour, 1) for i in range(ONE_HEAD)]
        cards += [Card(len(cards) + i, colour, 2) for i in range(TWO_HEAD)]
    cards += [Card(len(cards) + i, None, 1) for i in range(JOKERS)]
    return tuple(cards)


CARDS = _catalogue()
"""Per colour 11 one-head then 5 two-head cards, in COLOURS order, then the 10 jokers: 106."""
STARTERS = tuple(next(c.number for c in CARDS if c.colour == colour) for colour in COLOURS)
"""The one-head card of each colour laid under its location at setup (V-S2)."""
COLOUR_OF = tuple(card.colour for card in CARDS)
"""Each card's colour by number (None for a joker), read without going through its Card."""
HEADS = tuple(card.heads for card in CARDS)
"""Each card's heads by number."""


def colour_counts(cards: Iterable[int]) -> dict[str | None, int]:
    """How many of these cards each colour has (None counts the jokers), only colours present.

    A plain loop into a dict: a Counter costs two or three times as much on a hand of a few cards,
    and the rules and the players count a hand at every hunt and every turn."""
    counts: dict[str | None, int] = {}
    for number in cards:
        colour = COLOUR_OF[number]
        counts[colour] = counts.get(colour, 0) + 1
    return counts


@dataclass(frozen=True, slots=True)
class Hunt:
    """A hunt on display (V-H): its colour and counts; `cards` too when the companion dealt them."""

    colour: str
    one: int
    two: int
    jokers: int
    cards: tuple[int, ...] = ()

    @property
    def heads(self) -> int:
        """V-SC1: heads, not cards; a joker shows one head."""
        return self.one + 2 * self.two + self.jokers

    @property
    def size(self) -> int:
        return self.one + self.two + self.jokers

    @classmethod
    def of(cls, colour: str, cards: tuple[int, ...]) -> Hunt:
        """The hunt of these cards: its one-head and two-head cards of a colour, and its jokers."""
        one = two = jokers = 0
        for number in cards:
            if COLOUR_OF[number] is None:
                jokers += 1
            elif HEADS[number] == 1:
                one += 1
            elif HEADS[number] == 2:
                two += 1
        return cls(colour, one, two, jokers, cards)

    def to_json(self, round_number: int) -> dict[str, Any]:
        return {"colour": self.colour, "one": self.one, "two": self.two, "jokers": self.jokers,
                "heads": self.heads, "size": self.size,
                "cards": [CARDS[c].to_json(round_number) for c in self.cards]}


@dataclass(frozen=True, slots=True)
class Player:
    seat: int
    name: str
    hand: tuple[int, ...] = ()
    """Secret: its owner alone sees it (V-S3); everyone sees its size."""
    hunts: tuple[Hunt, ...] = ()
    """On display, at most one per colour (V-H3), in the order laid."""
    entered: bool = False
    """With physical cards: this player's hunts of the round are entered."""

    def hunt(self, colour: str) -> Hunt | None:
        for hunt in self.hunts:  # a loop: next() over a generator costs three times as much
            if hunt.colour == colour:
                return hunt
        return None

    def heads(self) -> int:
        return sum(h.heads for h in self.hunts)


@dataclass(frozen=True)
class VampirState(Seated[Player]):
    options: Mapping[str, Any]
    players: tuple[Player, ...]
    order: tuple[int, ...]
    """Seats clockwise (by seat number)."""
    round: int = 1
    phase: Phase = "starter"
    current: int | None = None
    stage: str | None = None
    piles: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    """The six location piles by colour, oldest first: public (V-S2)."""
    draw_pile: tuple[int, ...] = ()
    """Top first; its order is nobody's to see, its size everyone's."""
    removed: tuple[int, ...] = ()
    """Out of the game this round: replaced hunts (seen by all when removed, V-H3)."""
    discarded: tuple[int, ...] = ()
    """Hands removed unseen at the round's end (V-E3): nobody ever sees them."""
    drawn: tuple[int, ...] = ()
    """The cards the current player just drew (their phone marks them)."""
    hunts_laid: int = 0
    """Hunts laid this turn (ambiguity 3)."""
    ending: str | None = None
    """Why the round ended: "last_card", "six_colours", or "table" (physical cards)."""
    scores: tuple[Mapping[str, Any], ...] = ()
    """Every scored round's breakdown (rules.score_round), first round first."""
    happenings: tuple[Mapping[str, Any], ...] = ()
    """What happened lately, latest first: public facts only."""
    turns: int = 0
    wall: dict[str, Any] = field(default_factory=dict, init=False, compare=False, repr=False)
    """Cache: the public picture every viewer shares (companion/games/picture.py); not an init field,
    so every state made by `replace` starts with an empty one."""

    @property
    def last_card_drawn(self) -> bool:
        """The draw pile ran out during this turn: with ambiguity 7 read as "finish_turn", the round
        ends with it (read as "immediate", it already has)."""
        return self.phase == "turn" and self.digital and not self.draw_pile

    @property
    def winners(self) -> tuple[int, ...]:
        """Who won, once the last round is scored (ties shared, or broken as the table chose)."""
        return tuple(self.scores[-1]["winners"]) if self.scores else ()

    @property
    def digital(self) -> bool:
        return self.options["cards"] == "digital"

    def location(self, colour: str) -> str:
        return str(self.options["locations"][colour])

    def totals(self) -> dict[int, int]:
        """Each seat's points over the rounds scored so far."""
        return {p.seat: sum(int(s["points"][str(p.seat)]) for s in self.scores) for p in self.players}

    def cards_in_play(self) -> int:
        """Piles, draw pile, hands, hunts, removed and discarded: always all 106 in a digital round."""
        return (sum(len(p) for p in self.piles.values()) + len(self.draw_pile) + len(self.removed)
                + len(self.discarded) + sum(len(p.hand) + sum(len(h.cards) for h in p.hunts) for p in self.players))
