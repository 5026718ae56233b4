"""La chasse au vampire's setup and the rules' small judgements: who may stand where, who may
bite whom, the movement allowance, the donors a victim has.

Pure functions of the state; the moves (moves.py) ask them, the views (views.py) show their answers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.fairness.rng import RandomSource
from companion.games.base import SeatInfo
from companion.games.chasse.board import Board, load_board, reach
from companion.games.chasse.options import RIPOSTES, VAMPIRE_CARDS, gives_to
from companion.games.chasse.state import ELSEWHERE, Card, ChasseState, Pawn, Side, Square

GAME_ID = "chasse-au-vampire"
PLACES = ("inn", "chapel", "crypt", "cemetery", "doctor", "circle", ELSEWHERE)
"""Where a pawn may say it stopped on the table's own board."""
VAMPIRES_NEVER = ("inn", "chapel")
"""C-M4: the inn and the chapel are forbidden to vampires."""
CLOSED: Mapping[Side, str] = {"day": "inn", "night": "chapel"}
"""C-M4: by day the inn is closed, by night the chapel."""


def catalogue(options: Mapping[str, Any]) -> tuple[Card, ...]:
    """The 26 cards (with the default blood groups): the blood groups, the vampire cards, the ripostes."""
    kinds: list[tuple[str, str | None]] = [("blood", g) for g in options["blood_groups"]]
    kinds += [("vampire", None)] * VAMPIRE_CARDS
    kinds += [(kind, None) for kind, count in RIPOSTES.items() for _ in range(count)]
    return tuple(Card(n, kind, group) for n, (kind, group) in enumerate(kinds))


def setup(options: Mapping[str, Any], seats: Sequence[SeatInfo], rng: RandomSource) -> ChasseState:
    """Everyone is a traveller until the start roll names the master vampire (C-S1); the cards are
    dealt then (C-S2, C-S3)."""
    players = tuple(Pawn(info.number, info.name, "traveller") for info in sorted(seats, key=lambda s: s.number))
    order = tuple(p.seat for p in players)
    return ChasseState(dict(options), catalogue(options), players, order,
                       start={"round": 1, "contenders": list(order), "rolls": {}})


_BOARDS: dict[int, tuple[Mapping[str, Any], Board]] = {}
"""Boards read from their data, by the data's identity: every state of a game shares its options'
board data, so a game reads its map once, not once per state (a profile saw half the rules' time
go to reading maps)."""


def board_of(state: ChasseState) -> Board | None:
    """The companion's board, in its mode."""
    if state.options["board_mode"] != "companion":
        return None
    data = state.options["board"]
    read = _BOARDS.get(id(data))
    if read is None or read[0] is not data:
        if len(_BOARDS) > 64:
            _BOARDS.clear()
        read = _BOARDS[id(data)] = (data, load_board(data))
    return read[1]


def still_to_roll(state: ChasseState) -> list[int]:
    rolls = state.start.get("rolls", {})
    return [s for s in state.start.get("contenders", []) if str(s) not in rolls]


def doubled(pawn: Pawn, side: Side) -> bool:
    """C-M2: travellers move double by day, vampires by night."""
    return (side == "day") != pawn.vampire


def open_places(side: Side) -> frozenset[str]:
    return frozenset({"inn", "chapel"} - {CLOSED[side]})


def may_stop(state: ChasseState, pawn: Pawn, place: str) -> str | None:
    """Why `pawn` may not end its move at `place` now (None when it may)."""
    if place not in PLACES:
        return "unknown_place"
    if pawn.vampire and place in VAMPIRES_NEVER:
        return "vampires_barred"
    if not pawn.vampire and place == CLOSED[state.side]:
        return "building_closed"
    return None


def may_bite(state: ChasseState, biter: int, victim: int) -> str | None:
    """C-B1 and 5.8 item 6: a vampire bites a traveller, never the one it bit while that one's
    transfusion is pending."""
    try:
        prey = state.player(victim)
    except KeyError:
        return "no_such_seat"
    if prey.role != "traveller":
        return "not_a_traveller"
    pending = state.transfusion_of(victim)
    if pending is not None and pending.biter == biter:
        return "bitten_already"
    if prey.place in VAMPIRES_NEVER:
        return "victim_sheltered"
    return None


def donors(state: ChasseState, victim: int, group: str) -> list[int]:
    """C-B3: the travellers whose hidden stack holds a blood-group card that may save this victim
    (not the victim, nor one bitten and waiting themselves)."""
    found = []
    for pawn in state.travellers():
        if pawn.seat == victim or state.transfusion_of(pawn.seat) is not None:
            continue
        if any(state.cards[c].kind == "blood" and gives_to(state.options, str(state.cards[c].group), group)
               for c in pawn.stack):
            found.append(pawn.seat)
    return found


def next_night(turns: int) -> int:
    """The glass's turn count at which the first night after now begins (odd counts are nights)."""
    return turns + 1 if turns % 2 == 0 else turns + 2


def squares_taken(state: ChasseState, mover: int) -> dict[Square, str]:
    """The other pawns' squares on the companion's board: "traveller" or "vampire"."""
    taken: dict[Square, str] = {}
    for pawn in state.players:
        if pawn.seat != mover and pawn.square is not None and taken.get(pawn.square) != "traveller":
            taken[pawn.square] = "vampire" if pawn.vampire else "traveller"
    return taken


def reachable(state: ChasseState, seat: int) -> dict[Square, frozenset[Square | None]]:
    """Where the current pawn may end this move on the companion's board, with the squares it may
    bite on the way (C-M3, C-M4, C-B1); asked once per state (the state's cache, like its picture)."""
    cached = state.wall.setdefault("reach", {})
    if seat not in cached:
        cached[seat] = _reachable(state, seat)
    return cached[seat]


def _reachable(state: ChasseState, seat: int) -> dict[Square, frozenset[Square | None]]:
    board = board_of(state)
    pawn = state.player(seat)
    if board is None or state.allowance is None or pawn.square is None:
        return {}
    def can_bite(square: Square) -> bool:
        return bool(bitable_at(state, seat, square))

    return reach(board, pawn.square, state.allowance, vampire=pawn.vampire, pawns=squares_taken(state, seat),
                 open_places=open_places(state.side), mode=state.options["movement_mode"],
                 bite_path=state.options["bite_path"], can_bite=can_bite)


def bitable_at(state: ChasseState, biter: int, square: Square) -> list[int]:
    """The travellers on `square` this vampire may bite (several on a shared square)."""
    return [p.seat for p in state.travellers() if p.square == square and may_bite(state, biter, p.seat) is None]

