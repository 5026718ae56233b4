"""La chasse au vampire's state: the pawns, the stacks nobody may see, the chapel pile, the crypt,
the sand glass, the turn and the transfusions under way.

Values only. Cards are numbers into the catalogue `cards`; a stack and the chapel pile are tuples
of numbers, top first. Where a pawn stands is a place (`inn`, `chapel`, `crypt`, `cemetery`,
`doctor`, `circle` or `elsewhere`) and, on the companion's board, its square.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from companion.games.countdown import Counting
from companion.games.seats import Seated

Phase = Literal["start_roll", "play", "over"]
Role = Literal["master", "disciple", "traveller"]
Side = Literal["day", "night"]
Square = tuple[int, int]
RECENT = 10
"""How many happenings the screens list."""
ELSEWHERE = "elsewhere"


@dataclass(frozen=True, slots=True)
class Card:
    number: int
    kind: str
    """garlic, water (holy water), cross, stake, vampire or blood."""
    group: str | None = None
    """A blood-group card's group."""

    @property
    def token(self) -> str:
        """The card's name, which no view ever shows (a revealed card shows its kind, not which card
        it is): the leak test looks for it in every view."""
        return f"card-{self.number:02d}"


@dataclass(frozen=True)
class Pawn:
    """A pawn and its hidden stack. Without slots: many events copy a pawn, and a copy of an
    attribute dictionary is cheap (companion/games/states.py)."""

    seat: int
    name: str
    role: Role
    place: str = ELSEWHERE
    square: Square | None = None
    stack: tuple[int, ...] = ()
    """A traveller's face-down cards, top first: nobody sees them, its owner included (C-K1)."""
    transfused: bool = False
    """Received its one transfusion (C-B3)."""
    deposited: bool = False
    """Deposited a card on this visit to the crypt (C-K5: one per visit)."""

    @property
    def vampire(self) -> bool:
        return self.role != "traveller"


@dataclass(frozen=True, slots=True)
class Transfusion:
    """C-B3: a bitten traveller waiting for a donor, then for both to reach the Doctor's House."""

    victim: int
    group: str
    biter: int
    deadline_turns: int
    """The glass's turn count at which the night that converts the victim begins."""
    donor: int | None = None
    reached: frozenset[int] = frozenset()
    """Who of the victim and the donor has reached the Doctor's House."""

    def to_json(self) -> dict[str, Any]:
        return {"victim": self.victim, "group": self.group, "biter": self.biter, "donor": self.donor,
                "reached": sorted(self.reached), "deadline_turns": self.deadline_turns}


@dataclass(frozen=True, slots=True)
class Glass(Counting):
    """The sand timer (C-M5). While it runs, the sand left at `since_us` runs out at `ends_us`."""

    side: Side
    full_us: int
    left_us: int
    since_us: int
    running: bool = True
    turns: int = 0
    """How often it was turned over: even by day, odd by night."""

    def to_json(self) -> dict[str, Any]:
        return {"side": self.side, "running": self.running, "full_us": self.full_us, "left_us": self.left_us,
                "since_us": self.since_us, "ends_us": self.ends_us, "turns": self.turns}


@dataclass(frozen=True)
class ChasseState(Seated[Pawn]):
    options: Mapping[str, Any]
    cards: tuple[Card, ...]
    players: tuple[Pawn, ...]
    order: tuple[int, ...]
    """The seats clockwise, by seat number; the turn starts from the master (C-M1)."""
    phase: Phase = "start_roll"
    start: Mapping[str, Any] = field(default_factory=dict)
    """The start roll: its round, the seats still in it (`contenders`) and this round's rolls."""
    chapel: tuple[int, ...] = ()
    """The chapel pile, top first (C-S3)."""
    crypt: tuple[int, ...] = ()
    """Garlic, holy water and cross deposited in the crypt (C-K5): public."""
    glass: Glass | None = None
    current: int | None = None
    roll: int | None = None
    """This turn's die, once rolled; the allowance is fixed with it (5.8 item 4)."""
    allowance: int | None = None
    transfusions: tuple[Transfusion, ...] = ()
    circle_used: bool = False
    """The magic circle was used in this day or night (C-X1)."""
    revealed: Mapping[str, Any] | None = None
    """The latest card the rules turned face up: whose, why, which."""
    happenings: tuple[Mapping[str, Any], ...] = ()
    """The latest happenings, newest first (RECENT of them)."""
    winner: str | None = None
    winners: tuple[int, ...] = ()
    wall: dict[str, Any] = field(default_factory=dict, init=False, compare=False, repr=False)

    @property
    def side(self) -> Side:
        return self.glass.side if self.glass else "day"

    @property
    def master(self) -> int:
        return next(p.seat for p in self.players if p.role == "master")

    def stage(self) -> str | None:
        if self.phase != "play":
            return None
        return "roll" if self.roll is None else "move"

    def travellers(self) -> list[Pawn]:
        return [p for p in self.players if p.role == "traveller"]

    def transfusion_of(self, victim: int) -> Transfusion | None:
        return next((t for t in self.transfusions if t.victim == victim), None)

    def paused(self) -> bool:
        return self.glass is not None and not self.glass.running and self.phase == "play"
