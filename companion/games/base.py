"""The contract every game implements.

A game is a small declarative definition (boardgame.io's shape): how to set it up, how to check a
command, which events a command decides, how an event changes the state, and what each viewer may
see. All functions are pure: randomness arrives as an argument, time arrives inside commands and
events, and nothing here touches files, sockets or hardware. That is what makes a game replayable
from its log and testable with thousands of simulated playthroughs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from companion.fairness.rng import RandomSource

ViewerKind = Literal["table", "seat", "host", "system"]
_KINDS: tuple[ViewerKind, ...] = ("table", "seat", "host", "system")


@dataclass(frozen=True, slots=True)
class Viewer:
    """Someone who looks at the game or acts in it: the public table, one seat, the host or the system.

    The same value names who issued a command (the actor) and who a view is rendered for.
    """

    kind: ViewerKind
    seat: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"unknown viewer kind {self.kind!r}")
        if (self.kind == "seat") != (self.seat is not None):
            raise ValueError("a seat viewer needs a seat number, and only a seat viewer has one")

    def __str__(self) -> str:
        return f"seat:{self.seat}" if self.kind == "seat" else self.kind

    @classmethod
    def parse(cls, text: str) -> Viewer:
        if text.startswith("seat:"):
            number = text.removeprefix("seat:")
            if not number.isdigit():
                raise ValueError(f"bad seat viewer {text!r}")
            return cls("seat", int(number))
        if text in ("table", "host", "system"):
            return cls(text)  # type: ignore[arg-type]
        raise ValueError(f"unknown viewer {text!r}")


TABLE = Viewer("table")
HOST = Viewer("host")
SYSTEM = Viewer("system")


def seat(number: int) -> Viewer:
    return Viewer("seat", number)


def seat_number(who: object) -> int | None:
    """The seat a contestant's name ("seat:N", as the referee and the log write it) stands for;
    None for anything else (the table, a malformed name)."""
    if isinstance(who, str) and who.startswith("seat:") and who[5:].isdigit():
        return int(who[5:])
    return None


Actor = Viewer


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A seat at the table as a game sees it at setup: its number and the player's display name."""

    number: int
    name: str

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "name": self.name}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatInfo:
        return cls(int(data["number"]), str(data["name"]))


@dataclass(frozen=True, slots=True)
class Command:
    """A request to change the game, named in the imperative ("roll"), with JSON-able arguments."""

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    at_us: int = 0
    """When the command reached the table, on the host timeline (stamped by the table, not the client)."""


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, named in the past tense ("dice_rolled"), carrying its outcome.

    `reveals` marks events that uncover hidden information; like random outcomes, they can never
    be undone.
    """

    type: str
    data: Mapping[str, Any] = field(default_factory=dict)
    reveals: bool = False


@dataclass(frozen=True, slots=True)
class Rejection:
    """Why a command was refused: a stable code, and parameters for the translated message."""

    code: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Secret:
    """A piece of hidden information, for the generic leak test.

    `value` is the exact text that must not appear in a view sent to a viewer for whom
    `visible_to(viewer)` is false.
    """

    value: str
    visible_to: Callable[[Viewer], bool]
    description: str = ""


S = TypeVar("S")


@dataclass(frozen=True)
class GameDefinition(Generic[S]):
    """Everything the table needs to run one game; the functions are the game's pure rules.

    * `setup(options, seats, rng)` -> the initial state; `options` are already validated by
      `normalize_options` and are stored in the log so replay does not depend on today's config.
    * `validate(state, actor, command)` -> a Rejection, or None when the command is allowed.
    * `decide(state, actor, command, rng)` -> the events, outcomes included.
    * `evolve(state, event)` -> the next state; never random, never failing on a decided event.
    * `view(state, viewer)` -> the JSON-able dict this viewer may see: the only way out.
    * `secrets(state)` -> the hidden facts in this state, for the generic leak test.
    * `describe(event, lang)` -> one readable line for logs and `companion replay`.
    * `actions(state, viewer)` -> the commands this viewer might want now; the table checks each
      with `validate` and shows it enabled or disabled with the reason. The generic leak test
      plays them too.
    * `options_schema(defaults)` -> the options the host console offers when starting the game.
    * `uses_buzzers`: the game runs reaction rounds (see companion/buzzers/rounds.py).
    * `table_button`: what the table's own wired button does (arm a quiz round, roll the dice).
    * `seated_only`: the game is played by the taken seats only (cards are dealt to players,
      never to an empty chair); `min_seats`/`max_seats` then count players.
    * `is_over(state)`: the rules ended the game (a win); the table then closes it and reveals
      the seed, as when the host ends it.
    * `deadline(state)`: the system command due when a wait runs out, if the game waits on one.
    * `close(state)`: the state once the table closed the game, whoever ended it: a game whose
      hidden facts become public at the end (a sealed placement) shows them from then on.
    """

    id: str
    title: Mapping[str, str]
    min_seats: int
    max_seats: int
    normalize_options: Callable[[Mapping[str, Any]], dict[str, Any]]
    setup: Callable[[Mapping[str, Any], Sequence[SeatInfo], RandomSource], S]
    validate: Callable[[S, Viewer, Command], Rejection | None]
    decide: Callable[[S, Viewer, Command, RandomSource], list[Event]]
    evolve: Callable[[S, Event], S]
    view: Callable[[S, Viewer], dict[str, Any]]
    secrets: Callable[[S], list[Secret]]
    describe: Callable[[Event, str], str]
    actions: Callable[[S, Viewer], list[Command]] = field(default=lambda state, viewer: [])
    options_schema: Callable[[Mapping[str, Any]], list[dict[str, Any]]] = field(default=lambda defaults: [])
    uses_buzzers: bool = False
    """Phones show their buzzer (and the server measures their delay) while this game runs."""
    table_button: Command | None = None
    seated_only: bool = False
    is_over: Callable[[S], bool] = field(default=lambda state: False)
    deadline: Callable[[S], Deadline | None] = field(default=lambda state: None)
    close: Callable[[S], S] = field(default=lambda state: state)


@dataclass(frozen=True, slots=True)
class Deadline:
    """A command the system sends when a player lets a choice run out (a penalty card picked at
    random, a claim never made). `since_us` is when the wait began: after a reboot the host
    timeline starts again, and the wait is then given again in full."""

    at_us: int
    since_us: int
    command: Command


class OptionsError(ValueError):
    """Game options are malformed; `key` names the option."""

    def __init__(self, key: str, problem: str) -> None:
        self.key = key
        self.problem = problem
        super().__init__(f"{key}: {problem}")
