"""The contract every game implements, and the one shape of a move.

A game is a small declarative definition (boardgame.io's shape): how to set it up, its moves, how
an event changes the state, and what each viewer may see. A move is declared once (`Move`): the
phases and stages it is legal in, who may make it, its check, and its telling; one generic
`validate` and `decide` (GameDefinition's) run over every game's moves, so a rule never lives in a
table here, a chain of `if name ==` there. All functions are pure: randomness arrives as an
argument, time arrives inside commands and events, and nothing here touches files, sockets or
hardware. That is what makes a game replayable from its log and testable with thousands of
simulated playthroughs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
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
    """The viewer of one seat. A viewer is a value: each seat's is made once (with its checks),
    since players and tables ask for them at every step."""
    return _seat(number) if type(number) is int else Viewer("seat", number)


@functools.lru_cache(maxsize=256)
def _seat(number: int) -> Viewer:
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
    delay_us: int = 0
    """How long it took from its sender to the table, as the server measured the sender's link (a
    phone's pings), never as the request says; with `uncertainty_us`, its give or take."""
    uncertainty_us: int = 0


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
T = TypeVar("T", bound="Story[Any]")
Args = Mapping[str, Any]


class Story(Generic[S]):
    """How a move tells the events of one command: each is applied as soon as it is told, so every
    consequence is decided on the state the previous event left, exactly as a replay sees it. The
    states it passes through are kept: the table adopts them instead of evolving every event again.

    A game subclasses it with the consequences its moves share (a penalty, the next player's turn);
    `finish` runs after every move, for what follows whatever was played."""

    def __init__(self, state: S, at_us: int, rng: RandomSource, evolve: Callable[[S, Event], S]) -> None:
        self.state = state
        self.at_us = at_us
        """When the command reached the table (the host timeline)."""
        self.rng = rng
        self.sent_us = at_us
        """When the command left its sender: the arrival less the sender's measured delay."""
        self.uncertainty_us = 0
        """The give or take of `sent_us`."""
        self.events: list[Event] = []
        self.states: list[S] = []
        """The state after each event told."""
        self._evolve = evolve

    def tell(self, kind: str, data: Mapping[str, Any], reveals: bool = False) -> None:
        event = Event(kind, dict(data), reveals)
        self.events.append(event)
        self.state = self._evolve(self.state, event)
        self.states.append(self.state)

    def finish(self) -> None:
        """What follows every move of the game, whatever it was (nothing, unless a game says so)."""


@dataclass(frozen=True, slots=True)
class Decision(Generic[S]):
    """What a command decided: its events, outcomes included, and the state after each of them."""

    events: list[Event]
    states: list[S]


def anyone(state: Any, actor: Viewer) -> Rejection | None:
    return None


def no_check(state: Any, actor: Viewer, args: Args) -> Rejection | None:
    return None


EVERYONE: tuple[ViewerKind, ...] = _KINDS


@dataclass(frozen=True)
class Move(Generic[S, T]):
    """One command a game accepts, declared once (boardgame.io's `moves`).

    The generic `validate` asks, in this order: is it a move of the game, is the game still on
    (unless `when_over`), are the arguments a mapping, may this kind of actor ever make it (`by`,
    refused with `refused`), is it legal in this phase (`phases`, refused with `off_phase`) and turn
    stage (`stages`), may this actor make it now (`whose`: whose turn, who is awaited), and do its
    arguments hold (`check`). `decide` then runs `tell` on the game's story.
    """

    tell: Callable[[T, Viewer, Args], None]
    """Its events, consequences included, told on the game's story."""
    phases: tuple[str, ...] = ()
    """The phases it is legal in; empty: any phase while the game is on."""
    stages: tuple[str | None, ...] = ()
    """Within those, the turn stages it answers; empty: any."""
    by: tuple[ViewerKind, ...] = ("seat",)
    """The kinds of actor who may ever make it."""
    whose: Callable[[S, Viewer], Rejection | None] = anyone
    check: Callable[[S, Viewer, Args], Rejection | None] = no_check
    refused: str = "not_authorized"
    """The code for an actor of another kind ("host_only" for the host's moves)."""
    off_phase: str = "not_now"
    """The code outside its phases (a game may say more: "dice_in_play")."""
    when_over: bool = False
    """It may still be sent once the game is over (a late timer, refused by its own check)."""
    irrevocable: bool = False
    """Once made it stands (a vote the table saw arrive, a secret choice the others answered
    alongside): undo refuses to take it back, or anything before it."""


@dataclass(frozen=True)
class GameDefinition(Generic[S]):
    """Everything the table needs to run one game; the functions are the game's pure rules.

    * `setup(options, seats, rng)` -> the initial state; `options` are already validated by
      `normalize_options` and are stored in the log so replay does not depend on today's config.
    * `moves` -> the game's moves by name (see `Move`); `phase(state)` and `stage(state)` say where
      the game is, `story(state, at_us, rng)` makes the story its moves tell (a plain `Story` by
      default), and `seated(state, seat)` whether a seat plays (others are refused `not_seated`).
      From these, `validate(state, actor, command)` gives a Rejection or None when the command is
      allowed, and `decide(state, actor, command, rng)` its events and the states they lead to.
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
    * `awaited(state)`: the seats the game is waiting on now (whose turn it is, who must answer).
      Their phones ask them to act, so each of them always has an allowed action among `actions`;
      the property tests hold every game to that, after an undo as after any move.
    * `runs_in_real_time(state)`: a clock of the game runs now (a sand glass). The service then
      marks the time it is alive, and after a restart sends the system command `clock_outage`
      (`stopped_us`: its last mark) so the clock neither restarts full nor loses the outage.
    """

    id: str
    title: Mapping[str, str]
    min_seats: int
    max_seats: int
    normalize_options: Callable[[Mapping[str, Any]], dict[str, Any]]
    setup: Callable[[Mapping[str, Any], Sequence[SeatInfo], RandomSource], S]
    moves: Mapping[str, Move[S, Any]]
    evolve: Callable[[S, Event], S]
    view: Callable[[S, Viewer], dict[str, Any]]
    secrets: Callable[[S], list[Secret]]
    describe: Callable[[Event, str], str]
    phase: Callable[[S], str] = field(default=lambda state: "playing")
    stage: Callable[[S], str | None] = field(default=lambda state: None)
    story: Callable[[S, int, RandomSource], Story[S]] | None = None
    seated: Callable[[S, int | None], bool] = field(default=lambda state, seat: True)
    actions: Callable[[S, Viewer], list[Command]] = field(default=lambda state, viewer: [])
    offers_alike: Callable[[S, Viewer], Hashable] = field(default=lambda state, viewer: str(viewer))
    """Viewers with the same value here are offered the same actions, allowed or refused alike: the
    table works them out once per change for all of them (the dice tray's players, for one)."""
    sees_alike: Callable[[S, Viewer], Hashable] = field(default=lambda state, viewer: str(viewer))
    """Viewers with the same value here get the same `view`: the table builds it once per change
    and every screen of theirs shares it (a game with nothing hidden says so for everyone)."""
    options_schema: Callable[[Mapping[str, Any]], list[dict[str, Any]]] = field(default=lambda defaults: [])
    uses_buzzers: bool = False
    """Phones show their buzzer (and the server measures their delay) while this game runs."""
    table_button: Command | None = None
    seated_only: bool = False
    is_over: Callable[[S], bool] = field(default=lambda state: False)
    deadline: Callable[[S], Deadline | None] = field(default=lambda state: None)
    close: Callable[[S], S] = field(default=lambda state: state)
    awaited: Callable[[S], frozenset[int]] = field(default=lambda state: frozenset())
    runs_in_real_time: Callable[[S], bool] = field(default=lambda state: False)
    times_phones: Callable[[S], bool] = field(default=lambda state: False)
    """The order of the players' answers matters now (a vote's tie-break): the server measures
    each phone's delay, as for phone buzzers, and stamps its commands with it (`Command.delay_us`)."""

    def validate(self, state: S, actor: Viewer, command: Command) -> Rejection | None:
        """Why `actor` may not make this command now (None when it may): the move's declaration,
        asked in the order `Move` gives, and nothing else."""
        if actor.kind == "seat" and not self.seated(state, actor.seat):
            return Rejection("not_seated")
        return self._refusal(state, actor, command, self.is_over(state), self.phase(state), self.stage(state), {})

    def validate_each(self, state: S, actor: Viewer, commands: Iterable[Command]) -> list[Rejection | None]:
        """`validate` of each command, for one actor on one state (a screen's offers, a random
        player's choices): what depends on the state and the actor alone (seated, over, the phase
        and stage, whose turn it is) is asked once for all of them. The rules are pure, so each
        answer is the one `validate` gives."""
        if actor.kind == "seat" and not self.seated(state, actor.seat):
            return [Rejection("not_seated") for _ in commands]
        over, phase, stage = self.is_over(state), self.phase(state), self.stage(state)
        whose: dict[Callable[[S, Viewer], Rejection | None], Rejection | None] = {}
        return [self._refusal(state, actor, command, over, phase, stage, whose) for command in commands]

    def _refusal(self, state: S, actor: Viewer, command: Command, over: bool, phase: str, stage: str | None,
                 whose: dict[Callable[[S, Viewer], Rejection | None], Rejection | None]) -> Rejection | None:
        """`validate` once the actor is seated: `over`, `phase` and `stage` are the state's, and
        `whose` remembers each `Move.whose` already asked of this state and actor."""
        move = self.moves.get(command.name) if isinstance(command.name, str) else None
        if move is None:
            return Rejection("unknown_command", {"command": str(command.name)[:40]})
        if over and not move.when_over:
            return Rejection("game_over")
        if type(command.args) is not dict and not isinstance(command.args, Mapping):  # a dict, most often: no ABC check
            return Rejection("bad_arguments", {"detail": "args"})
        if actor.kind not in move.by:
            return Rejection(move.refused)
        if move.phases and phase not in move.phases:
            return Rejection(move.off_phase)
        if move.stages and stage not in move.stages:
            return Rejection("not_now")
        if move.whose not in whose:
            whose[move.whose] = move.whose(state, actor)
        return whose[move.whose] or move.check(state, actor, command.args)

    def decide(self, state: S, actor: Viewer, command: Command, rng: RandomSource) -> Decision[S]:
        """The events of a command `validate` allowed, and the state after each: its move's telling,
        then what follows every move."""
        story = (self.story or self._plain_story)(state, command.at_us, rng)
        story.sent_us = command.at_us - command.delay_us
        story.uncertainty_us = command.uncertainty_us
        self.moves[command.name].tell(story, actor, command.args)
        story.finish()
        return Decision(story.events, story.states)

    def _plain_story(self, state: S, at_us: int, rng: RandomSource) -> Story[S]:
        return Story(state, at_us, rng, self.evolve)


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
