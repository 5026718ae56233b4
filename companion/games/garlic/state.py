"""The garlic game's state: cards, players' displays, the pile, and what the table waits for.

Values only. A card the companion cannot see (physical cards) is `None`: the same rules then keep
the counts (face up, coffin side up, cleared, the pile) and ask the table to judge claims.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from companion.games.garlic.options import BOTH, COLOURS, EFFECT, SYMBOLS
from companion.games.seats import Seated

Phase = Literal["roll", "reaction", "claim", "confirm", "bat", "moon", "moon_look", "penalties", "over"]
ClaimKind = Literal["own_up", "own_down", "other_down"]
CLAIM_KINDS: tuple[ClaimKind, ...] = ("own_up", "own_down", "other_down")
BAT_KINDS = ("turn_down", "clear", "turn_up")
RECENT = 8
"""How many happenings the table display lists."""


@dataclass(frozen=True, slots=True)
class Card:
    number: int
    colour: str
    symbol: str

    @property
    def token(self) -> str:
        """The card's unique name in views: shown only while the card may be seen."""
        return f"card-{self.number:02d}"

    def to_json(self) -> dict[str, Any]:
        return {"card": self.token, "colour": self.colour, "symbol": self.symbol}


def build_deck(counts: Mapping[str, int]) -> tuple[Card, ...]:
    cards: list[Card] = []
    for colour in COLOURS:
        for symbol in SYMBOLS:
            for _ in range(counts[f"{colour}-{symbol}"]):
                cards.append(Card(len(cards), colour, symbol))
    return tuple(cards)


@dataclass(frozen=True, slots=True)
class Dice:
    """A roll: the colour face (yellow, violet, "!", or both colours) and the symbol face."""

    round: int
    roller: int
    colour: str
    symbol: str
    at_us: int
    effect: bool = field(init=False, repr=False, compare=False)
    """The colour die shows "!" (the bat, the moon or the skull): no card matches. A field set once
    rather than a property: the rules and the players ask it of every card they look at."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "effect", self.colour == EFFECT)

    def matches(self, card: Card) -> bool:
        """S-S5: the card shows the target colour (either, on a two-colour face) and symbol."""
        if self.effect or card.symbol != self.symbol:
            return False
        return self.colour in (BOTH, card.colour)

    def to_json(self) -> dict[str, Any]:
        return {"round": self.round, "roller": self.roller, "colour": self.colour, "symbol": self.symbol,
                "at_us": self.at_us}


@dataclass(frozen=True, slots=True)
class Slot:
    card: int | None
    """The card's number; None for a real card the companion does not see."""
    up: bool
    """Vampire side up (face up); False: coffin side up."""


@dataclass(frozen=True, slots=True)
class Cleared:
    card: int | None
    checked: bool
    """Shown to everyone before it was set aside (S-S5b); a bat clears without a check."""


@dataclass(frozen=True, slots=True)
class Player:
    seat: int
    name: str
    slots: tuple[Slot, ...] = ()
    cleared: tuple[Cleared, ...] = ()

    def face_down(self) -> list[int]:
        return [i for i, s in enumerate(self.slots) if not s.up]

    def face_up(self) -> list[int]:
        return [i for i, s in enumerate(self.slots) if s.up]


@dataclass(frozen=True, slots=True)
class Penalty:
    """A penalty waiting for the offender to choose which coffin to turn face up (S-S9)."""

    seat: int
    reason: str
    since_us: int


@dataclass(frozen=True)
class GarlicState(Seated[Player]):
    options: Mapping[str, Any]
    deck: tuple[Card, ...]
    players: tuple[Player, ...]
    pile: tuple[int | None, ...]
    """Top first; its order is nobody's to see."""
    phase: Phase = "roll"
    roller: int | None = None
    """Who rolls next (None before the first roll: the youngest player takes the dice)."""
    round: int = 0
    dice: Dice | None = None
    turn: Mapping[str, Any] = field(default_factory=dict)
    """What the current phase waits on: the slapper, later slappers, a claim, looked-at cards."""
    penalties: tuple[Penalty, ...] = ()
    shown: frozenset[int] = frozenset()
    """Coffin-side-up cards being shown after a failed check, until the next roll (S-S5c)."""
    result: Mapping[str, Any] | None = None
    """The latest reaction round as the referee decided it (who slapped, when, how close)."""
    happenings: tuple[Mapping[str, Any], ...] = ()
    """What happened lately, latest first: public facts only."""
    board: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    winner: int | None = None
    step: int = 0
    """Counts events: a deadline names the step it was set at, so a late one changes nothing."""
    wall: dict[str, Any] = field(default_factory=dict, init=False, compare=False, repr=False)
    """Cache: the public picture every viewer shares (companion/games/picture.py); not an init field,
    so every state made by `replace` starts with an empty one."""

    @property
    def physical(self) -> bool:
        return self.options["mode"] == "physical"


    def card(self, number: int | None) -> Card | None:
        return None if number is None else self.deck[number]

    def next_seat(self, seat: int) -> int:
        """The next roller. Seats are numbered clockwise round the table, so counter-clockwise
        (S-S2) is the previous number."""
        seats = [p.seat for p in self.players]
        step = -1 if self.options["dice_pass_direction"] == "counter-clockwise" else 1
        return seats[(seats.index(seat) + step) % len(seats)]
