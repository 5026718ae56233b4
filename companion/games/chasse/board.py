"""La chasse au vampire's board for the companion's board mode: a square grid, its named places, the
Torrent du Diable and the zone beyond it, and where a pawn may end a move (C-M3, C-M4, C-B1).

The box's map was never digitised (§5.2: grid and positions UNKNOWN), so the table owner can enter it
as board data; `DEFAULT_BOARD` is a plausible stand-in marked `"verified": false`.

`reach` walks the grid one step at a time over bit masks (one bit per square, a guard column on the
right so a shift never wraps to the next row): a whole layer of squares moves in eight shifts, which
keeps a 12-step move on a 16 x 10 board far under a millisecond, since the rules ask for it on every
move and the property tests on thousands.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from companion.games.base import OptionsError
from companion.games.options import whole

Square = tuple[int, int]
"""(col, row); JSON gives it as [col, row]."""

PLACES = ("inn", "chapel", "crypt", "cemetery", "doctor", "circle")
SHARED_PLACES = ("inn", "chapel", "cemetery", "doctor")
"""C-M3: squares that hold several pawns and may be crossed (the inn and chapel by the rules, ⚙ the
cemetery and the Doctor's House)."""
CLOSING_PLACES = ("inn", "chapel")
"""C-M4: the inn is closed by day, the chapel by night; other places never close."""
VAMPIRE_BARRED = ("inn", "chapel")
"""C-M4: places no vampire ever enters (besides the whole chapel zone)."""

MOVEMENT_MODES = ("exact_with_backtrack", "up_to_min_1")
BITE_PATHS = ("cross_square", "stop_before_victim")
ELSEWHERE = "elsewhere"

MIN_SIDE = 3
MAX_SIDE = 40
MAX_NAME = 60
BOARD_KEYS = ("name", "verified", "width", "height", "places", "chapel_zone", "torrent", "blocked")
OPTIONAL_KEYS = {"verified": False, "blocked": []}
"""A board entered by hand may leave these out: an owner's own map is unverified until they say so."""


@dataclass(frozen=True)
class _Masks:
    """The board as bit masks, computed once per board: bit r * (width + 1) + c is square (c, r)."""

    pitch: int
    height: int
    grid: int
    walls: int
    zone: int
    place_bits: Mapping[str, int]
    squares: tuple[Square | None, ...]


@dataclass(frozen=True)
class Board:
    """A checked map (build it with `load_board`; direct construction trusts its caller)."""

    name: str
    verified: bool
    width: int
    height: int
    places: Mapping[str, Square]
    chapel_zone: frozenset[Square]
    torrent: frozenset[Square]
    blocked: frozenset[Square] = frozenset()
    _masks: _Masks = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "places", MappingProxyType(dict(self.places)))
        object.__setattr__(self, "_masks", _build_masks(self))

    def __hash__(self) -> int:
        return hash((self.name, self.verified, self.width, self.height, tuple(sorted(self.places.items())),
                     self.chapel_zone, self.torrent, self.blocked))

    def __reduce__(self) -> tuple[Any, ...]:
        """Copies and pickles rebuild the board from its fields (a mapping proxy cannot be pickled)."""
        return (Board, (self.name, self.verified, self.width, self.height, dict(self.places), self.chapel_zone,
                        self.torrent, self.blocked))

    def to_json(self) -> dict[str, Any]:
        """The board data `load_board` reads back (squares sorted, places in `PLACES` order)."""
        return {
            "name": self.name,
            "verified": self.verified,
            "width": self.width,
            "height": self.height,
            "places": {name: list(self.places[name]) for name in _ordered(self.places)},
            "chapel_zone": _square_list(self.chapel_zone),
            "torrent": _square_list(self.torrent),
            "blocked": _square_list(self.blocked),
        }


def _ordered(places: Iterable[str]) -> list[str]:
    known = [name for name in PLACES if name in places]
    return known + sorted(set(places) - set(PLACES))


def _square_list(squares: Iterable[Square]) -> list[list[int]]:
    return [[c, r] for c, r in sorted(squares, key=lambda sq: (sq[1], sq[0]))]


def _build_masks(board: Board) -> _Masks:
    pitch = board.width + 1

    def bits(squares: Iterable[Square]) -> int:
        mask = 0
        for c, r in squares:
            if 0 <= c < board.width and 0 <= r < board.height:
                mask |= 1 << (r * pitch + c)
        return mask

    squares: list[Square | None] = [None] * (pitch * board.height)
    for r in range(board.height):
        for c in range(board.width):
            squares[r * pitch + c] = (c, r)
    grid = bits(sq for sq in squares if sq is not None)
    return _Masks(pitch=pitch, height=board.height, grid=grid, walls=bits(board.torrent) | bits(board.blocked),
                  zone=bits(board.chapel_zone),
                  place_bits=MappingProxyType({name: bits([sq]) for name, sq in board.places.items()}),
                  squares=tuple(squares))


def _spread(mask: int, pitch: int) -> int:
    """Every square one king's step from a square of `mask` (guard-column and off-grid bits included:
    the caller masks them out)."""
    return (mask << 1 | mask >> 1 | mask << pitch | mask >> pitch | mask << (pitch + 1) | mask >> (pitch + 1)
            | mask << (pitch - 1) | mask >> (pitch - 1))


def _squares_of(mask: int, squares: tuple[Square | None, ...]) -> Iterable[Square]:
    while mask:
        low = mask & -mask
        square = squares[low.bit_length() - 1]
        if square is not None:
            yield square
        mask ^= low


def place_of(board: Board, square: Square) -> str:
    """The place on `square` ("inn", ..., "circle"), or "elsewhere"."""
    for name, place in board.places.items():
        if place == square:
            return name
    return ELSEWHERE


def reach(board: Board, start: Square, steps: int, *, vampire: bool, pawns: Mapping[Square, str],
          open_places: frozenset[str], mode: str, bite_path: str, can_bite: Callable[[Square], bool],
          shared_places: Collection[str] = SHARED_PLACES) -> dict[Square, frozenset[Square | None]]:
    """Every square the mover at `start` may end on with `steps`, each with the victims' squares it
    may bite on the way there (None: arriving without a bite).

    `pawns` holds the other pawns ("traveller" or "vampire"). A vampire crosses at most one
    traveller's square, a step it may not end on (C-B1; "cross_square"); a shared square it may also
    cross or end on without biting (the rules bar vampires from the inn and the chapel only), or with
    "stop_before_victim" ends its move, after at least one step, next to a victim it could have
    stepped onto within the allowance. In "up_to_min_1" the pawn may not end on its start square.
    `shared_places` are the places that hold several pawns
    (⚙ `shared_squares`; the inn and chapel always do).
    """
    if mode not in MOVEMENT_MODES:
        raise ValueError(f"unknown movement mode {mode!r}")
    if bite_path not in BITE_PATHS:
        raise ValueError(f"unknown bite path {bite_path!r}")
    masks = board._masks
    pitch = masks.pitch
    here = _bit(masks, start)
    if steps < 1 or not here:
        return {}
    places = masks.place_bits
    shared = 0
    for name in {*shared_places, "inn", "chapel"}:
        shared |= places.get(name, 0)
    closed = 0
    for name in CLOSING_PLACES:
        if name not in open_places:
            closed |= places.get(name, 0)
    passable = masks.grid & ~masks.walls
    if vampire:
        passable &= ~masks.zone
        for name in VAMPIRE_BARRED:
            passable &= ~places.get(name, 0)
    occupied = 0
    victims: list[int] = []
    for square, kind in pawns.items():
        bit = _bit(masks, square)
        if not bit:
            continue
        if not bit & shared:
            occupied |= bit
        if vampire and kind == "traveller" and bit & passable and can_bite(square):
            victims.append(bit)  # on a shared square too (the cemetery, the Doctor's House): no sanctuary
    free = passable & ~closed & ~occupied
    exact = mode == "exact_with_backtrack"
    crossing = bite_path == "cross_square"
    layer = here
    on_victim = dict.fromkeys(victims, 0)  # victim bit -> squares reached after biting it
    ends = 0
    bitten_ends = dict.fromkeys(victims, 0)
    for step in range(1, steps + 1):
        spread = _spread(layer, pitch)
        if crossing:
            for victim, after in on_victim.items():
                on_victim[victim] = (_spread(after, pitch) & free if after else 0) | (spread & victim)
        layer = spread & free
        counts = step == steps or not exact
        if counts:
            ends |= layer
            if crossing:
                for victim, after in on_victim.items():
                    bitten_ends[victim] |= after & ~victim
        if not crossing and step < steps:
            for victim in victims:
                bitten_ends[victim] |= layer & _spread(victim, pitch)
        if not layer and not any(on_victim.values()):
            break
    if not exact:  # "at least 1 step": the pawn must leave its square, not wander back to it
        ends &= ~here
        bitten_ends = {victim: mask & ~here for victim, mask in bitten_ends.items()}
    found: dict[Square, set[Square | None]] = {}
    for square in _squares_of(ends, masks.squares):
        found.setdefault(square, set()).add(None)
    for victim, mask in bitten_ends.items():
        victim_square = masks.squares[victim.bit_length() - 1]
        for square in _squares_of(mask, masks.squares):
            found.setdefault(square, set()).add(victim_square)
    return {square: frozenset(bites) for square, bites in found.items()}


def _bit(masks: _Masks, square: Square) -> int:
    c, r = square
    if 0 <= c < masks.pitch - 1 and 0 <= r < masks.height:
        return 1 << (r * masks.pitch + c)
    return 0


# ---------------------------------------------------------------------------------------------------
# Board data: checking what the owner entered


def load_board(data: Any) -> Board:
    """The board the data describes, or OptionsError naming the first thing wrong with it."""
    if not isinstance(data, Mapping):
        raise OptionsError("board", "a board: name, width, height, places, chapel_zone, torrent, blocked")
    for key in data:
        if key not in BOARD_KEYS:
            raise OptionsError(f"board.{key}", "not part of a board")
    for key in BOARD_KEYS:
        if key not in data and key not in OPTIONAL_KEYS:
            raise OptionsError(f"board.{key}", "missing")
    name = data["name"]
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
        raise OptionsError("board.name", f"a name of 1 to {MAX_NAME} characters")
    verified = data.get("verified", OPTIONAL_KEYS["verified"])
    if not isinstance(verified, bool):
        raise OptionsError("board.verified", "true or false")
    size = {}
    for key in ("width", "height"):
        value = data[key]
        if not whole(value) or not MIN_SIDE <= value <= MAX_SIDE:
            raise OptionsError(f"board.{key}", f"a whole number of squares from {MIN_SIDE} to {MAX_SIDE}")
        size[key] = value
    width, height = size["width"], size["height"]
    places = _places(data["places"], width, height)
    torrent = _squares(data["torrent"], "board.torrent", width, height)
    blocked = _squares(data.get("blocked", OPTIONAL_KEYS["blocked"]), "board.blocked", width, height)
    zone = _squares(data["chapel_zone"], "board.chapel_zone", width, height)
    for key, overlap, problem in (("board.blocked", blocked & torrent, "is also in the torrent"),
                                  ("board.chapel_zone", zone & torrent, "is in the torrent (the zone lies beyond it)"),
                                  ("board.chapel_zone", zone & blocked, "is a blocked square")):
        if overlap:
            raise OptionsError(key, f"{list(min(overlap))} {problem}")
    for place in PLACES:
        square = places[place]
        if square in torrent:
            raise OptionsError(f"board.places.{place}", "in the torrent")
        if square in blocked:
            raise OptionsError(f"board.places.{place}", "on a blocked square")
        if place == "chapel" and square not in zone:
            raise OptionsError("board.places.chapel", "outside the chapel zone")
        if place != "chapel" and square in zone:
            raise OptionsError(f"board.places.{place}", "inside the chapel zone, where vampires never go")
    board = Board(name=name, verified=verified, width=width, height=height, places=places,
                  chapel_zone=frozenset(zone), torrent=frozenset(torrent), blocked=frozenset(blocked))
    _check_connected(board)
    return board


def _places(value: Any, width: int, height: int) -> dict[str, Square]:
    if not isinstance(value, Mapping):
        raise OptionsError("board.places", f"a square for each of {', '.join(PLACES)}")
    for name in value:
        if name not in PLACES:
            raise OptionsError(f"board.places.{name}", f"not a place (one of {', '.join(PLACES)})")
    places: dict[str, Square] = {}
    seen: dict[Square, str] = {}
    for name in PLACES:
        key = f"board.places.{name}"
        if name not in value:
            raise OptionsError(key, "missing")
        square = _square(value[name], key, width, height)
        if square in seen:
            raise OptionsError(key, f"on the same square as the {seen[square]}")
        seen[square] = name
        places[name] = square
    return places


def _squares(value: Any, key: str, width: int, height: int) -> set[Square]:
    if not isinstance(value, list | tuple):
        raise OptionsError(key, "a list of squares [col, row]")
    squares: set[Square] = set()
    for i, item in enumerate(value):
        square = _square(item, f"{key}[{i}]", width, height)
        if square in squares:
            raise OptionsError(f"{key}[{i}]", f"{list(square)} is listed twice")
        squares.add(square)
    return squares


def _square(value: Any, key: str, width: int, height: int) -> Square:
    if not isinstance(value, list | tuple) or len(value) != 2 or not all(whole(v) for v in value):
        raise OptionsError(key, "a square [col, row] of two whole numbers")
    c, r = value
    if not (0 <= c < width and 0 <= r < height):
        raise OptionsError(key, f"{[c, r]} is outside the {width} x {height} grid")
    return (c, r)


def _check_connected(board: Board) -> None:
    """Every place must be reachable: a traveller from the inn, a vampire from the crypt to the
    cemetery it is sent to, the Doctor's House it guards and the circle."""
    masks = board._masks
    traveller_area = _flood(masks, masks.place_bits["inn"], masks.grid & ~masks.walls)
    for name in PLACES:
        if not masks.place_bits[name] & traveller_area:
            raise OptionsError(f"board.places.{name}", "a traveller cannot reach it from the inn")
    vampire_ground = masks.grid & ~masks.walls & ~masks.zone
    for name in VAMPIRE_BARRED:
        vampire_ground &= ~masks.place_bits[name]
    vampire_area = _flood(masks, masks.place_bits["crypt"], vampire_ground)
    for name in ("cemetery", "doctor", "circle"):
        if not masks.place_bits[name] & vampire_area:
            raise OptionsError(f"board.places.{name}", "a vampire cannot reach it from the crypt")


def _flood(masks: _Masks, seed: int, ground: int) -> int:
    area = seed
    while True:
        grown = area | (_spread(area, masks.pitch) & ground)
        if grown == area:
            return area
        area = grown


# ---------------------------------------------------------------------------------------------------
# The shipped map
#
#      col 0123456789012345        . open    # rocks, forest (blocked)    ~ Torrent du Diable
#   row 0  ....#....~zzzzzz        z the chapel zone beyond the torrent   = a bridge (in the zone)
#       1  .....D...~zzzCzz        I inn   C chapel   V crypt   M cemetery   D Doctor's House
#       2  .##......~~zzzzz        O magic circle
#       3  .##.......=~zzzz
#       4  .......O...~~=~~        The torrent runs edge to edge with no diagonal gap, so a king's
#       5  .....##.........        step crosses it only on the two bridges; the crypt's vampire is
#       6  ..I.............        four steps from the eastern bridge, the inn eleven from the chapel.
#       7  .........#......
#       8  ......M..##..V..
#       9  ................

DEFAULT_BOARD: dict[str, Any] = {
    "name": "Carpathes",
    "verified": False,
    "width": 16,
    "height": 10,
    "places": {"inn": [2, 6], "chapel": [13, 1], "crypt": [13, 8], "cemetery": [6, 8], "doctor": [5, 1],
               "circle": [7, 4]},
    "chapel_zone": [[10, 0], [11, 0], [12, 0], [13, 0], [14, 0], [15, 0],
                    [10, 1], [11, 1], [12, 1], [13, 1], [14, 1], [15, 1],
                    [11, 2], [12, 2], [13, 2], [14, 2], [15, 2],
                    [10, 3], [12, 3], [13, 3], [14, 3], [15, 3],
                    [13, 4]],
    "torrent": [[9, 0], [9, 1], [9, 2], [10, 2], [11, 3], [11, 4], [12, 4], [14, 4], [15, 4]],
    "blocked": [[4, 0], [1, 2], [2, 2], [1, 3], [2, 3], [5, 5], [6, 5], [9, 7], [9, 8], [10, 8]],
}
"""A plausible map until the owner digitises the box's (§5.2): drawn above."""
