"""Dracula's state: the series, the round, each player's secret sheet, the phase and its clock.

Values only. Everything secret lives here beside what is public; views.py decides who sees what
(the 6.5 matrix). Points are kept in halves of a point as whole numbers in the rules' arithmetic
(fleeing gives half a point); a `float` is only made for the screens.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from companion.games.countdown import Counting
from companion.games.seats import Seated

Phase = Literal["roles", "day", "dusk", "maps", "dracula", "actions", "torture", "confirm", "dawn",
                "final_choice", "final_target", "round_over", "over"]
CLOCKED: tuple[Phase, ...] = ("day", "dusk", "maps", "dracula", "actions", "torture", "dawn",
                              "final_choice", "final_target")
"""The phases that run on the clock; the others wait for the host (a person GM's confirmation,
the next round)."""
RECENT = 12
"""How many public happenings the screens list."""


@dataclass(frozen=True, slots=True)
class Clock(Counting):
    """A phase's countdown. While it runs, the time left at `since_us` runs out at `ends_us`."""

    full_us: int
    left_us: int
    since_us: int
    running: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"full_us": self.full_us, "left_us": self.left_us, "since_us": self.since_us,
                "running": self.running, "ends_us": self.ends_us}


@dataclass(frozen=True, slots=True)
class Choice:
    """A player's dusk answer (D-2): a room (None: a human map user who chooses later, D-O3) and
    whether the object is used; a vampire map names a player and a room (D-O3v)."""

    room: str | None
    use: bool = False
    curse: tuple[int, str] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"room": self.room, "use": self.use, "curse": list(self.curse) if self.curse else None}


@dataclass(frozen=True, slots=True)
class Action:
    """A player's night action (D-4): a bite, a snoop (a target but in the boudoir), a treasure
    search; nothing at all is an action too (a pass, or the default when time runs out)."""

    bite: int | None = None
    snoop: bool = False
    snoop_target: int | None = None
    treasure: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"bite": self.bite, "snoop": self.snoop, "snoop_target": self.snoop_target,
                "treasure": self.treasure}


@dataclass(frozen=True)
class Player:
    """A player's sheet, secrets included. Without slots: most events copy a player, and a copy of
    an attribute dictionary is cheap (companion/games/states.py)."""

    seat: int
    name: str
    vampire: bool = False
    dracula: bool = False
    obj: str | None = None
    """The object held (from the end of night 2), until used."""
    used: str | None = None
    """The object used this night (declared at dusk)."""
    sanctuary_nights: int = 0
    """Nights spent in the sanctuary by vote this round (D-1: not again)."""
    snooped: frozenset[str] = frozenset()
    """The rooms this player already snooped in this round (6.8 item 6)."""
    halves: int = 0
    """This round's points, in halves."""
    total_halves: int = 0
    """The series' points before this round, in halves."""
    room: str | None = None
    """Tonight's room, once final; None in the sanctuary or before the positions."""
    last_room: str | None = None
    choice: Choice | None = None
    action: Action | None = None
    stance: str | None = None
    """Final phase: "flee", "fight" or "none" (time ran out)."""
    named: int | None = None
    named_done: bool = False
    alive: bool = True
    news: tuple[Mapping[str, Any], ...] = ()
    """This dawn's private notices (6.5), told to this player only."""
    ready: bool = False
    """Answered the phase that asks everyone (day 1's end, dawn's news read)."""

    @property
    def points(self) -> float:
        return self.halves / 2


@dataclass(frozen=True, slots=True)
class Ballot:
    voter: int
    candidate: int
    at_us: int
    """When the vote reached the table (server arrival)."""
    sent_us: int
    """When the phone sent it: arrival minus the phone's measured delay."""
    uncertainty_us: int

    def to_json(self) -> dict[str, Any]:
        return {"voter": self.voter, "candidate": self.candidate, "sent_us": self.sent_us,
                "uncertainty_us": self.uncertainty_us}


@dataclass(frozen=True, slots=True)
class Letter:
    """A private message: in the log, shown only to its sender and its recipient."""

    number: int
    sender: int
    recipient: int
    kind: str
    """"message", "boudoir_letter" or "boudoir_reply"."""
    title: str
    text: str
    day: int
    round: int
    phase: str

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "from": self.sender, "to": self.recipient, "kind": self.kind,
                "title": self.title, "text": self.text, "day": self.day, "phase": self.phase}


@dataclass(frozen=True)
class DraculaState(Seated[Player]):
    options: Mapping[str, Any]
    players: tuple[Player, ...]
    round: int = 1
    night: int = 1
    phase: Phase = "day"
    step: int = 0
    """Counts the phases begun: a timer for an earlier phase is stale."""
    clock: Clock | None = None
    commitment: str = ""
    """SHA-256 sealing this round's Dracula (companion/fairness/sealed.py), public from the deal."""
    salt: str = ""
    """The seal's salt: secret until the round ends."""
    ballots: tuple[Ballot, ...] = ()
    tally: Mapping[str, Any] | None = None
    """The day's sanctuary vote once counted, for the screens (times and uncertainties)."""
    sanctuary: tuple[int, ...] = ()
    """Tonight's sanctuary guests (D-2)."""
    treasure_rooms: tuple[str, ...] = ()
    """Announced at the start of the day for the coming night (D-T1)."""
    waltzes: tuple[tuple[int, int], ...] = ()
    """Last night's waltz partners: they may write to each other today (D-S1)."""
    boudoir: frozenset[int] = frozenset()
    """Last night's boudoir snoopers: one letter each today (D-S2)."""
    letters: tuple[Letter, ...] = ()
    """Every private message of the series, in order."""
    tortured: tuple[int, ...] = ()
    """Tonight's tortured players (D-S4), each asked the same question, whether to pass for human:
    were Dracula asked alone, the pause would tell his torturers who he is. Only his answer counts."""
    torture_answers: frozenset[int] = frozenset()
    """The tortured who have answered."""
    disguised: bool | None = None
    """Dracula's answer, when he is tortured."""
    pending: Mapping[str, Any] | None = None
    """A resolved night awaiting the person GM's confirmation (its outcome, as JSON)."""
    room_log: Mapping[str, Any] = field(default_factory=dict)
    """Last night's events per room: the grimoire (a person GM's screen) and the candle holders'."""
    positions: Mapping[str, Any] | None = None
    """Tonight's rooms once public (D-3), by seat."""
    timed_out: tuple[int, ...] = ()
    """Who let the last phase's time run out (shown to the host); nobody once a phase ends in time."""
    timed_out_step: int = -1
    """The step of the phase `timed_out` is about."""
    final: Mapping[str, Any] | None = None
    """The final phase's outcome (D-F), public."""
    rounds_done: tuple[Mapping[str, Any], ...] = ()
    """Each finished round: its Dracula (revealed, with the seal's salt), its points and deaths."""
    happenings: tuple[Mapping[str, Any], ...] = ()
    wall: dict[str, Any] = field(default_factory=dict, init=False, compare=False, repr=False)
    """What the rules work out from this state, kept for its other questions (companion/games/
    picture.py); evolve hands on the entries an event cannot have changed."""

    @property
    def dracula(self) -> int:
        return next(p.seat for p in self.players if p.dracula)

    def vampires(self) -> frozenset[int]:
        return frozenset(p.seat for p in self.players if p.vampire)

    def humans(self) -> frozenset[int]:
        return frozenset(p.seat for p in self.players if not p.vampire)

    def living(self) -> frozenset[int]:
        return frozenset(p.seat for p in self.players if p.alive)

    def in_rooms(self) -> list[Player]:
        """Tonight's players outside the sanctuary: they choose a room and an action."""
        return [p for p in self.players if p.seat not in self.sanctuary]

    def voted(self, seat: int) -> bool:
        return any(b.voter == seat for b in self.ballots)

    def paused(self) -> bool:
        return self.clock is not None and not self.clock.running
