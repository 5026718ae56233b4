"""Situations of La chasse au vampire for its rule tests (tests/test_chasse_*.py).

A game starts with `started` (the start roll made by the table, every shuffle keeping its order),
then `arrange` puts it in a precise situation: where each pawn stands, its role, its stack (card
numbers, top first), the top of the chapel pile, the glass's side. Every one of the 26 cards stays
in exactly one place (a stack, the chapel pile or the crypt), and `play` checks that after every
event. Positions are places ("crypt") or squares of the shipped map (DEFAULT_BOARD, drawn in
companion/games/chasse/board.py); on the table's own board a square is just "elsewhere".
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from companion.games.base import TABLE, Command, Event, SeatInfo, Viewer
from companion.games.chasse import CHASSE_AU_VAMPIRE as GAME
from companion.games.chasse.board import DEFAULT_BOARD, load_board, place_of
from companion.games.chasse.options import normalize_options
from companion.games.chasse.rules import catalogue
from companion.games.chasse.state import ELSEWHERE, ChasseState, Glass, Pawn, Side, Square
from companion.i18n import catalogue as words
from companion.i18n import error_message

CARDS = catalogue(normalize_options({}))


def _numbers(kind: str) -> list[int]:
    return [c.number for c in CARDS if c.kind == kind]


O1, O2, A, B, AB = _numbers("blood")
"""The default blood-group cards: O, O, A, B, AB."""
VAMPIRE_CARDS = _numbers("vampire")
VAMP = VAMPIRE_CARDS[0]
CROSSES, WATERS, GARLICS = _numbers("cross"), _numbers("water"), _numbers("garlic")
CROSS, WATER, GARLIC = CROSSES[0], WATERS[0], GARLICS[0]
(STAKE,) = _numbers("stake")

MODES = ("own", "companion")
BOARD = load_board(DEFAULT_BOARD)
NAMES = {1: "Ada", 2: "Ben", 3: "Cyd", 4: "Dee", 5: "Eve", 6: "Fox"}
ERRORS = set(words("en")["error"])
T0 = 1_000_000_000
"""When the game's first turn began (the host timeline, µs)."""
PHASE_US = 180_000_000
"""The default glass: 180 s a side."""
SOON = T0 + 1_000_000
"""When a command of a test arrives unless it says otherwise: the glass has sand left."""
Place = str | Square


class Dice:
    """A RandomSource: the die shows the queued faces in turn; a shuffle keeps its order, except
    those whose purpose names one of `swap` (their draws then take the first item each time)."""

    def __init__(self, *faces: int, swap: Sequence[str] = ()) -> None:
        self.faces = list(faces)
        self.swap = tuple(swap)

    def randbelow(self, bound: int, purpose: str) -> int:
        if "roll" in purpose:
            assert self.faces, f"no die face queued for {purpose}"
            return self.faces.pop(0) - 1
        return 0 if any(s in purpose for s in self.swap) else bound - 1


def seats(players: int) -> list[SeatInfo]:
    return [SeatInfo(n, NAMES[n]) for n in range(1, players + 1)]


def new_game(players: int = 4, mode: str = "own", **options: Any) -> ChasseState:
    """Set up, before the start roll."""
    return GAME.setup(normalize_options({"board_mode": mode, **options}), seats(players), Dice())


def started(players: int = 4, mode: str = "own", master: int = 1, **options: Any) -> ChasseState:
    """Past the start roll: `master` rolled 6, the others 1; the deal kept the catalogue's order,
    so traveller i (by seat) holds blood-group card i on top of the i-th riposte (a cross)."""
    state = new_game(players, mode, **options)
    faces = [6 if s == master else 1 for s in state.order]
    state, _ = play(state, TABLE, "roll", Dice(*faces), at_us=T0)
    return state


def where(state: ChasseState, position: Place) -> tuple[str, Square | None]:
    """A position as the state keeps it in this board mode: its place and, on the companion's
    board, its square."""
    board = BOARD if state.options["board_mode"] == "companion" else None
    if isinstance(position, str):
        return position, board.places[position] if board and position != ELSEWHERE else None
    return (place_of(board, position), position) if board else (ELSEWHERE, None)


def arrange(state: ChasseState, *, at: Mapping[int, Place] | None = None, roles: Mapping[int, str] | None = None,
            stacks: Mapping[int, Sequence[int]] | None = None, chapel: Sequence[int] = (),
            crypt: Sequence[int] = (), side: Side | None = None, turns: int | None = None,
            transfused: Sequence[int] = (), **changes: Any) -> ChasseState:
    """The game in a precise situation. Seats not in `stacks` hold nothing (when `stacks` is given);
    `chapel` is the top of the pile, the cards nobody holds follow in catalogue order. `side` sets
    a full glass, started at T0, on that side (turns: 0 by day, 1 by night unless given); the seats in
    `transfused` have received their one transfusion."""
    players: list[Pawn] = []
    for pawn in state.players:
        role = (roles or {}).get(pawn.seat, pawn.role)
        place, square = where(state, (at or {})[pawn.seat]) if pawn.seat in (at or {}) else (pawn.place, pawn.square)
        stack = tuple(stacks.get(pawn.seat, ())) if stacks is not None else pawn.stack
        players.append(replace(pawn, role=role, place=place, square=square, stack=stack,  # type: ignore[arg-type]
                               transfused=pawn.transfused or pawn.seat in transfused))
    held = [c for p in players for c in p.stack]
    if stacks is None and not chapel and not crypt:
        pile = state.chapel
    else:
        used = {*held, *chapel, *crypt}
        pile = (*chapel, *(c.number for c in CARDS if c.number not in used))
    if side is not None:
        count = turns if turns is not None else (0 if side == "day" else 1)
        changes["glass"] = Glass(side, PHASE_US, PHASE_US, T0, True, count)
    arranged = replace(state, players=tuple(players), chapel=tuple(pile), crypt=tuple(crypt), **changes)
    assert_whole(arranged)
    return arranged


def turn(state: ChasseState, seat: int, allowance: int) -> ChasseState:
    """`seat`'s turn, its die rolled: it moves `allowance` squares."""
    return replace(state, current=seat, roll=allowance, allowance=allowance)


def assert_whole(state: ChasseState) -> None:
    """The 26 cards each in one place (once dealt); one master; a pawn is one of three roles."""
    if state.phase == "start_roll":
        return
    places = [*(c for p in state.players for c in p.stack), *state.chapel, *state.crypt]
    assert sorted(places) == list(range(len(CARDS))), places
    assert [p.role for p in state.players].count("master") == 1
    assert all(not p.stack for p in state.players if p.vampire)


def play(state: ChasseState, actor: Viewer, name: str, rng: Any = None, at_us: int = SOON,
         **args: Any) -> tuple[ChasseState, list[Event]]:
    """Validate (it must pass), decide; the cards stay whole after every event."""
    command = Command(name, args, at_us)
    rejection = GAME.validate(state, actor, command)
    assert rejection is None, f"{actor} {name} {args} was refused: {rejection}"
    decision = GAME.decide(state, actor, command, rng or Dice())
    for after in decision.states:
        assert_whole(after)
    return (decision.states[-1] if decision.states else state), decision.events


def go_command(state: ChasseState, to: Place, bite: int | None = None) -> tuple[str, dict[str, Any]]:
    """The command that ends the current pawn's move at `to`: said on the table's own board
    (`stop`), tapped on the companion's (`move`)."""
    extra = {} if bite is None else {"bite": bite}
    if state.options["board_mode"] == "own":
        return "stop", {"place": to if isinstance(to, str) else ELSEWHERE, **extra}
    place, square = where(state, to)
    assert square is not None, place
    return "move", {"to": list(square), **extra}


def go(state: ChasseState, to: Place, bite: int | None = None,
       at_us: int = SOON) -> tuple[ChasseState, list[Event]]:
    assert state.current is not None
    name, args = go_command(state, to, bite)
    return play(state, Viewer("seat", state.current), name, at_us=at_us, **args)


def refuse(state: ChasseState, actor: Viewer, name: str, at_us: int = SOON, **args: Any) -> str:
    """The refusal's code, whose message in English and French is whole (every value given);
    validating changes nothing."""
    return refuse_command(state, actor, Command(name, args, at_us))


def refuse_command(state: ChasseState, actor: Viewer, command: Command) -> str:
    before = copy.deepcopy(state)
    rejection = GAME.validate(state, actor, command)
    assert rejection is not None, f"{actor} {command} was allowed"
    assert rejection.code in ERRORS, f"{rejection.code} has no message in en.json"
    for lang in ("en", "fr"):
        message = error_message(rejection.code, rejection.params, lang)
        assert not re.search(r"\{\w+", message), f"{rejection}: the {lang} message lacks a value: {message}"
    assert state == before
    return rejection.code


def refuse_go(state: ChasseState, to: Place, bite: int | None = None, actor: Viewer | None = None) -> str:
    name, args = go_command(state, to, bite)
    assert state.current is not None
    return refuse(state, actor or Viewer("seat", state.current), name, **args)


def types(events: Sequence[Event]) -> list[str]:
    return [e.type for e in events]


def event(events: Sequence[Event], kind: str) -> Mapping[str, Any]:
    (found,) = [e.data for e in events if e.type == kind]
    return found


def dumps(state: ChasseState, viewer: Viewer) -> str:
    return json.dumps(GAME.view(state, viewer), ensure_ascii=False)


def kinds(state: ChasseState, numbers: Sequence[int]) -> list[str]:
    return [state.cards[n].kind for n in numbers]
