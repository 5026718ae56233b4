"""La nuit des vampires' state: bottles, magic cards, fate stacks, towers, and whose turn it is.

Values only. The board is not digitised: a player's location is what they told the companion
(a start space, a fate colour, the castle courtyard, the oubliettes). Cards are numbers into the
catalogues `magic` and `fate`; piles are tuples of numbers, top first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from companion.games.nuit.options import ELIXIRS, MAGIC_KINDS, NUMBERED
from companion.games.seats import Seated

Phase = Literal["start_roll", "turn", "over"]
STAGES = ("choose", "moving", "meet", "duel", "reward", "push", "give_back", "pick", "flying", "split", "fate",
          "debt", "tower")
"""What the turn waits for: move or replenish; the move (magic cards, where it stopped); who stands
on that space; the duel; the winner's card and push; a fate card's choice; the replenish split and
its optional fate card; a tax or escape roll that needs elixirs cashed; the tower to open."""
START = "start"
COURTYARD = "courtyard"
OUBLIETTES = "oubliettes"
TOMATO = "tomato"
ONION = "onion"
RECENT = 8
"""How many happenings the table display lists."""


@dataclass(frozen=True, slots=True)
class MagicCard:
    number: int
    kind: str
    """One of MAGIC_KINDS: an elixir kind, glove, tempo, bridge or a duel card."""
    value: int = 0
    """Bottles for an elixir, the bonus for a duel card, 0 otherwise."""

    @property
    def token(self) -> str:
        """The card's unique name in views: shown only once the card lies face up."""
        return f"magic-{self.number:02d}"

    def to_json(self) -> dict[str, Any]:
        return {"card": self.token, "kind": self.kind, "value": self.value}


@dataclass(frozen=True, slots=True)
class FateCard:
    number: int
    colour: int
    """The stack's index (0, 1, 2); its name is options["fate_colours"][colour]."""
    kind: str
    n: int = 0

    @property
    def token(self) -> str:
        """The card's unique name in views: shown only once it has been drawn."""
        return f"fatecard-{self.number:02d}"

    def to_json(self, colours: Sequence[str]) -> dict[str, Any]:
        return {"card": self.token, "colour": colours[self.colour], "kind": self.kind, "n": self.n}


def build_magic(counts: Mapping[str, int], elixir_values: list[int]) -> tuple[MagicCard, ...]:
    cards: list[MagicCard] = []
    for kind in MAGIC_KINDS:
        if kind in ELIXIRS:
            value = elixir_values[ELIXIRS.index(kind)]
        elif kind.startswith("duel_plus"):
            value = int(kind.removeprefix("duel_plus"))
        else:
            value = 0
        cards += [MagicCard(len(cards) + i, kind, value) for i in range(counts[kind])]
    return tuple(cards)


def build_fate(recipe: list[Mapping[str, Any]], colours: int) -> tuple[FateCard, ...]:
    """The same recipe for each colour; n = "c" is the colour's number (1 for the first)."""
    cards: list[FateCard] = []
    for colour in range(colours):
        for card in recipe:
            n = card.get("n", 0)
            n = colour + 1 if n == "c" else int(n)
            cards.append(FateCard(len(cards), colour, card["kind"], n if card["kind"] in NUMBERED else 0))
    return tuple(cards)


@dataclass(frozen=True, slots=True)
class Tower:
    number: int
    """1 to 5, as the table numbers the tower spaces."""
    content: str | None
    """"tomato" or "onion" while closed; None after its onion was taken, or with physical towers
    (the companion does not know)."""
    opened: bool = False
    found: str | None = None
    """What its opening uncovered (shown to everyone, ambiguity 14)."""

    @property
    def token(self) -> str:
        """The content's unique name in views, shown to whoever may know it."""
        return f"tower-{self.number}-{self.content or self.found}"


@dataclass(frozen=True)
class Player:
    """A player's ledger. Without slots: most events copy a player, and a copy of an attribute
    dictionary is cheap (companion/games/states.py)."""

    seat: int
    name: str
    bottles: int = 0
    hand: tuple[int, ...] = ()
    """Magic cards, face up: everyone sees them (N-S5)."""
    onions: int = 0
    location: str = START
    """"start", a fate colour's name, "courtyard" or "oubliettes": what the player told the companion."""


@dataclass(frozen=True)
class NuitState(Seated[Player]):
    options: Mapping[str, Any]
    magic: tuple[MagicCard, ...]
    fate: tuple[FateCard, ...]
    players: tuple[Player, ...]
    reserve: int
    deck: tuple[int, ...]
    """The magic deck, top first; used cards go under it (N-L3). Its order is nobody's to see."""
    display: tuple[int, ...]
    """The magic cards face up on the board, refilled to display_magic (N-L4)."""
    stacks: tuple[tuple[int, ...], ...]
    """One fate stack per colour, top first; a drawn card goes under its stack, never reshuffled (N-S4)."""
    towers: tuple[Tower, ...]
    commitment: str | None = None
    """SHA-256 sealing the tomato's tower (companion/fairness/sealed.py), public from the start."""
    salt: str | None = None
    """The seal's salt: secret until the end, when it opens the commitment."""
    peeks: tuple[tuple[int, int], ...] = ()
    """(seat, tower) looked into by a Flying Vampire (N-F5)."""
    order: tuple[int, ...] = ()
    """Seats in playing order (clockwise); after the start roll, the starter first (N-S7)."""
    phase: Phase = "start_roll"
    current: int | None = None
    """Whose turn it is."""
    start: Mapping[str, Any] = field(default_factory=dict)
    """The start roll: its round, the seats still rolling (`contenders`) and this round's totals."""
    turn: Mapping[str, Any] = field(default_factory=dict)
    """What the turn waits for: `stage` (one of STAGES), the `seat` that must answer, and the
    stage's own facts (the pips left to split, the debt, the cards to give back...)."""
    move: Mapping[str, Any] = field(default_factory=dict)
    """The current move: magic cards `played` (duel cards excluded, N-L2), free `tempo` spaces, onion
    `bonus` cards still to take (N-T0), and where it began (`from`)."""
    duel: Mapping[str, Any] | None = None
    """The duel of this turn (N-D): attacker, defender, round, each side's die and cards, the rolls."""
    bridges: int = 0
    """Bridges placed on the board (0 to 2): one may be moved only once both are placed."""
    last_roll: Mapping[str, Any] | None = None
    """The latest roll of both dice (a tax, a replenish, an escape), for every screen."""
    turns: int = 0
    magic_seen: frozenset[int] = frozenset()
    """Magic cards that have lain face up: their identity is public, in the deck too."""
    fate_drawn: tuple[int, ...] = ()
    """Every fate card drawn, in order: public (each one was shown to everyone)."""
    happenings: tuple[Mapping[str, Any], ...] = ()
    """What happened lately, latest first: public facts only."""
    winner: int | None = None
    step: int = 0
    wall: dict[str, Any] = field(default_factory=dict, init=False, compare=False, repr=False)
    """Cache: the public picture every viewer shares (companion/games/picture.py); not an init field,
    so every state made by `replace` starts with an empty one."""

    @property
    def colours(self) -> Sequence[str]:
        """The fate colours' names, as the options give them (read, never changed: not a copy,
        since every stop and push a screen offers is checked against them)."""
        colours: Sequence[str] = self.options["fate_colours"]
        return colours

    @property
    def physical(self) -> bool:
        return self.options["tower_mode"] == "physical"

    def stage(self) -> str | None:
        return self.turn.get("stage")

    def seated(self, seat: int | None) -> bool:
        """Whether `seat` plays: every seat is in the playing order from the setup on, and a look
        in that tuple is much cheaper than a walk over the players (every command asks it)."""
        return seat in self.order

    def tower(self, number: int) -> Tower:
        return self.towers[number - 1]

    def peeked(self, seat: int, number: int) -> bool:
        return (seat, number) in self.peeks

    def bottles_in_play(self) -> int:
        """Players' bottles plus the reserve: always BOTTLES."""
        return self.reserve + sum(p.bottles for p in self.players)

    def magic_in_play(self) -> int:
        """Deck, display and hands: always the whole magic catalogue."""
        return len(self.deck) + len(self.display) + sum(len(p.hand) for p in self.players)
