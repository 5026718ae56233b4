"""La chasse au vampire's board: where a pawn may end its move (C-M3, C-M4, C-B1, ambiguities 1 and 2
of rules/chasse-au-vampire.md), the board data's checks, and the shipped map.

Boards are drawn: `.` open, `#` blocked, `~` torrent, `z` chapel zone, `=` a bridge (zone), places
`I` inn, `C` chapel (in the zone), `V` crypt, `M` cemetery, `D` Doctor's House, `O` magic circle;
on open squares `s` is the mover, `t` a traveller, `v` a vampire, `x` a square the test names.
"""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from companion.games.base import OptionsError
from companion.games.chasse.board import (
    DEFAULT_BOARD,
    PLACES,
    SHARED_PLACES,
    Board,
    Square,
    load_board,
    place_of,
    reach,
)

DAY = frozenset({"chapel"})
NIGHT = frozenset({"inn"})
QUIET: dict[str, Any] = {"vampire": True, "pawns": {}, "open_places": DAY, "mode": "exact_with_backtrack",
                         "bite_path": "cross_square", "can_bite": lambda square: True}
"""A vampire's move with nobody else on the board."""
PLACE_MARKS = {"I": "inn", "C": "chapel", "V": "crypt", "M": "cemetery", "D": "doctor", "O": "circle"}


def drawn(picture: str) -> tuple[Board, dict[str, list[Square]]]:
    """The board a picture draws, and the squares of each mark (s, t, v, x) in reading order."""
    rows = [line.strip() for line in picture.strip().splitlines()]
    places: dict[str, Square] = {}
    kinds: dict[str, set[Square]] = {"#": set(), "~": set(), "z": set()}
    marks: dict[str, list[Square]] = {"s": [], "t": [], "v": [], "x": []}
    for r, row in enumerate(rows):
        assert len(row) == len(rows[0]), f"row {r} is not as wide as the first"
        for c, char in enumerate(row):
            if char in PLACE_MARKS:
                places[PLACE_MARKS[char]] = (c, r)
            if char in "=C":
                kinds["z"].add((c, r))
            elif char in kinds:
                kinds[char].add((c, r))
            elif char in marks:
                marks[char].append((c, r))
            else:
                assert char == "." or char in PLACE_MARKS, f"unknown mark {char!r}"
    board = Board(name="drawn", verified=False, width=len(rows[0]), height=len(rows), places=places,
                  chapel_zone=frozenset(kinds["z"]), torrent=frozenset(kinds["~"]), blocked=frozenset(kinds["#"]))
    return board, marks


def pawns_of(marks: Mapping[str, list[Square]]) -> dict[Square, str]:
    return {**{sq: "traveller" for sq in marks["t"]}, **{sq: "vampire" for sq in marks["v"]}}


def moves(picture: str, steps: int, *, vampire: bool = False, open_places: frozenset[str] = DAY,
          mode: str = "exact_with_backtrack", bite_path: str = "cross_square",
          can_bite: Callable[[Square], bool] = lambda square: True,
          pawns: Mapping[Square, str] | None = None) -> dict[Square, frozenset[Square | None]]:
    """reach() for the mover `s` of a picture, the other pawns drawn (or given)."""
    board, marks = drawn(picture)
    start = marks["s"][0] if marks["s"] else board.places.get("inn", (0, 0))
    return reach(board, start, steps, vampire=vampire, pawns=pawns_of(marks) if pawns is None else pawns,
                 open_places=open_places, mode=mode, bite_path=bite_path, can_bite=can_bite)


def ends(found: Mapping[Square, frozenset[Square | None]]) -> set[Square]:
    return set(found)


# --- C-M3: counting steps --------------------------------------------------------------------------

def test_a_roll_larger_than_the_distance_still_reaches_the_square() -> None:
    picture = """
        .....
        .sx..
        .....
    """
    for roll in range(1, 7):
        assert (2, 1) in moves(picture, roll), f"a roll of {roll} cannot reach the next square"


def test_backtracking_keeps_parity_in_a_corridor_and_triangles_break_it_in_the_open() -> None:
    corridor = "s....."
    assert ends(moves(corridor, 2)) == {(0, 0), (2, 0)}
    assert ends(moves(corridor, 3)) == {(1, 0), (3, 0)}
    open_ground = """
        ...
        s..
        ...
    """
    # (0,1) -> (1,0) -> (1,1): a triangle makes an even count end next door
    assert ends(moves(open_ground, 2)) == {(c, r) for c in range(3) for r in range(3)}


def test_a_pawn_can_neither_be_passed_over_nor_shared() -> None:
    corridor = "..st.x"
    for roll in range(1, 7):
        found = moves(corridor, roll)
        assert (5, 0) not in found and (3, 0) not in found and (4, 0) not in found
    assert ends(moves(corridor, 2)) == {(0, 0), (2, 0)}
    # a vampire in the way blocks a vampire too: only travellers may be crossed, to be bitten
    assert moves("s.v.x", 4, vampire=True) == {(0, 0): frozenset({None})}
    # and a traveller never crosses another traveller
    assert (4, 0) not in moves("s.t.x", 4)


def test_a_mover_walled_in_has_nowhere_to_go() -> None:
    assert moves("#s#", 3) == {}
    assert moves("s", 1) == {}


# --- C-B1: bites ----------------------------------------------------------------------------------

def test_a_vampire_crossing_a_traveller_names_the_victim_and_may_not_stop_on_it() -> None:
    corridor = "s.t.x"
    found = moves(corridor, 4, vampire=True)
    assert found[(4, 0)] == {(2, 0)}
    assert (2, 0) not in found
    # three steps reach (3,0) only by biting; back at (1,0) the vampire may have bitten or not
    assert moves(corridor, 3, vampire=True) == {(1, 0): frozenset({None, (2, 0)}), (3, 0): frozenset({(2, 0)})}
    for roll in range(1, 13):
        assert (2, 0) not in moves(corridor, roll, vampire=True)
    assert moves("st", 1, vampire=True) == {}


def test_a_square_reached_both_ways_lists_no_bite_and_the_bite() -> None:
    picture = """
        s.x
        .t.
        ...
    """
    found = moves(picture, 2, vampire=True)
    assert found[(2, 0)] == {None, (1, 1)}
    assert found[(0, 2)] == {None, (1, 1)}


def test_a_traveller_the_vampire_may_not_bite_blocks_like_any_pawn() -> None:
    assert (4, 0) not in moves("s.t.x", 4, vampire=True, can_bite=lambda square: False)
    picture = """
        ..t..
        s.#.x
        ..t..
    """
    found = moves(picture, 4, vampire=True, can_bite=lambda square: square == (2, 2))
    assert found[(4, 1)] == {(2, 2)}


def test_can_bite_is_asked_once_per_traveller_a_vampire_may_reach() -> None:
    board = load_board(DEFAULT_BOARD)
    asked: list[Square] = []
    pawns = {(3, 4): "traveller", (8, 6): "traveller", (12, 6): "traveller", (6, 8): "traveller",
             (4, 9): "vampire", (14, 3): "traveller"}

    def can_bite(square: Square) -> bool:
        asked.append(square)
        return True

    found = reach(board, (13, 8), 12, vampire=True, pawns=pawns, open_places=NIGHT, mode="exact_with_backtrack",
                  bite_path="cross_square", can_bite=can_bite)
    # the one in the cemetery too (a shared square is no sanctuary), not the one beyond the torrent
    assert sorted(asked) == [(3, 4), (6, 8), (8, 6), (12, 6)]
    assert {victim for bites in found.values() for victim in bites} == {None, (3, 4), (6, 8), (8, 6), (12, 6)}


def test_one_bite_per_move_a_second_traveller_in_the_way_blocks() -> None:
    assert (6, 0) in moves("s.t...x", 6, vampire=True)
    assert (6, 0) not in moves("s.t.t.x", 6, vampire=True)
    assert moves("s.t.t.x", 5, vampire=True) == {(1, 0): frozenset({None, (2, 0)}), (3, 0): frozenset({(2, 0)})}
    assert moves("stx", 2, vampire=True) == {(0, 0): frozenset({(1, 0)}), (2, 0): frozenset({(1, 0)})}
    # crossing the same victim again would be a second bite: a third step finds no way on
    assert moves("stx", 3, vampire=True) == {}


def test_stop_before_victim_ends_the_move_next_to_the_victim() -> None:
    corridor = "s..t.."
    found = moves(corridor, 3, vampire=True, bite_path="stop_before_victim")
    assert found == {(1, 0): frozenset({None}), (2, 0): frozenset({(3, 0)})}
    # never beyond the victim, whatever the roll
    for roll in range(1, 13):
        assert not ends(moves(corridor, roll, vampire=True, bite_path="stop_before_victim")) & {(3, 0), (4, 0), (5, 0)}
    # the step onto the victim must be within the allowance: two steps only reach (2,0), unbitten
    assert moves(corridor, 2, vampire=True, bite_path="stop_before_victim") == {(0, 0): frozenset({None}),
                                                                                   (2, 0): frozenset({None})}
    # and the vampire must move at least one step first
    assert moves("st.", 1, vampire=True, bite_path="stop_before_victim") == {}


# --- C-M3: shared squares -------------------------------------------------------------------------

def test_shared_squares_are_crossed_and_shared_and_a_traveller_there_may_be_bitten() -> None:
    corridor = "s.M.x"
    board, _ = drawn(corridor)
    cemetery = board.places["cemetery"]
    crowd = {cemetery: "vampire"}
    assert moves(corridor, 4, pawns=crowd)[(4, 0)] == {None}
    assert moves(corridor, 2, pawns=crowd)[cemetery] == {None}
    found = moves(corridor, 4, vampire=True, pawns={cemetery: "traveller"})
    assert found[(4, 0)] == {None, cemetery}, "crossed with or without a bite: C-M4 bars the inn and chapel only"
    # a vampire may end on the Doctor's House beside a traveller, but not after biting that traveller
    assert moves("s.D.x", 2, vampire=True, pawns={(2, 0): "traveller"})[(2, 0)] == {None}
    # the crypt and the circle are ordinary squares: one pawn each
    assert (2, 0) not in moves("s.V.x", 2, pawns={(2, 0): "vampire"})
    assert moves("s.O.x", 4, vampire=True, pawns={(2, 0): "traveller"})[(4, 0)] == {(2, 0)}
    assert SHARED_PLACES == ("inn", "chapel", "cemetery", "doctor")


def test_the_cemetery_and_doctor_hold_one_pawn_when_the_table_does_not_share_them() -> None:
    board, marks = drawn("s.M.x")
    found = reach(board, marks["s"][0], 4, vampire=False, pawns={(2, 0): "vampire"}, open_places=DAY,
                  mode="exact_with_backtrack", bite_path="cross_square", can_bite=lambda square: True,
                  shared_places=("inn", "chapel"))
    assert (4, 0) not in found and (2, 0) not in found


# --- C-M4: the chapel, the inn, the torrent --------------------------------------------------------

ZONE_PICTURE = """
    zzC~...
    zzz=...
    ~~~~.I.
    s......
"""


def test_vampires_never_enter_the_chapel_the_inn_or_the_zone() -> None:
    board, _ = drawn(ZONE_PICTURE)
    both_open = frozenset({"inn", "chapel"})
    vampire_ends = ends(moves(ZONE_PICTURE, 12, vampire=True, open_places=both_open))
    assert vampire_ends
    assert not vampire_ends & (board.chapel_zone | {board.places["inn"], board.places["chapel"]})
    traveller_ends = ends(moves(ZONE_PICTURE, 12, open_places=both_open))
    assert board.chapel_zone | {board.places["inn"]} <= traveller_ends
    assert not traveller_ends & board.torrent


def test_nobody_enters_the_torrent_or_blocked_squares_and_bridges_are_the_way_across() -> None:
    sealed = ZONE_PICTURE.replace("=", "~")
    found = ends(moves(sealed, 12, open_places=DAY))
    board, _ = drawn(sealed)
    assert not found & (board.chapel_zone | board.torrent)
    assert ends(moves("s#x", 2, mode="up_to_min_1")) == set()


def test_a_closed_place_may_be_left_but_not_entered() -> None:
    board, _ = drawn(ZONE_PICTURE)
    inn, chapel = board.places["inn"], board.places["chapel"]
    by_day = reach(board, inn, 2, vampire=False, pawns={}, open_places=DAY, mode="exact_with_backtrack",
                   bite_path="cross_square", can_bite=lambda square: True)
    assert by_day and inn not in by_day  # must leave the inn, and may not come back to it
    by_night = reach(board, inn, 2, vampire=False, pawns={}, open_places=NIGHT, mode="exact_with_backtrack",
                     bite_path="cross_square", can_bite=lambda square: True)
    assert inn in by_night
    assert chapel not in moves(ZONE_PICTURE, 12, open_places=NIGHT)
    assert chapel in moves(ZONE_PICTURE, 12, open_places=DAY)
    leaving = reach(board, chapel, 3, vampire=False, pawns={}, open_places=NIGHT, mode="exact_with_backtrack",
                    bite_path="cross_square", can_bite=lambda square: True)
    assert (1, 1) in leaving and chapel not in leaving


# --- movement_mode "up_to_min_1" -------------------------------------------------------------------

def test_up_to_min_1_ends_anywhere_from_one_step_to_the_roll_but_not_at_home() -> None:
    corridor = "s....."
    assert ends(moves(corridor, 3, mode="up_to_min_1")) == {(1, 0), (2, 0), (3, 0)}
    assert ends(moves(corridor, 3)) == {(1, 0), (3, 0)}
    found = moves("s.t.x", 4, vampire=True, mode="up_to_min_1")
    assert found == {(1, 0): frozenset({None, (2, 0)}), (3, 0): frozenset({(2, 0)}), (4, 0): frozenset({(2, 0)})}


# --- the walk, checked against every walk ---------------------------------------------------------

def every_walk(board: Board, start: Square, steps: int, *, vampire: bool, pawns: Mapping[Square, str],
               open_places: frozenset[str], mode: str, bite_path: str,
               can_bite: Callable[[Square], bool]) -> dict[Square, frozenset[Square | None]]:
    """The rules read literally: try every sequence of king steps, square by square."""
    shared = {board.places[name] for name in SHARED_PLACES if name in board.places}
    barred = set(board.torrent | board.blocked)
    barred |= {board.places[name] for name in ("inn", "chapel") if name in board.places and name not in open_places}
    if vampire:
        barred |= board.chapel_zone | {board.places[name] for name in ("inn", "chapel") if name in board.places}

    def ordinary_pawn(square: Square) -> bool:
        return square in pawns and square not in shared

    def victim(square: Square) -> bool:
        return vampire and pawns.get(square) == "traveller" and square not in barred and can_bite(square)

    found: dict[Square, set[Square | None]] = {}

    def walk(square: Square, taken: int, bitten: Square | None) -> None:
        counts = taken == steps if mode == "exact_with_backtrack" else taken >= 1 and square != start
        if counts and not ordinary_pawn(square) and square != bitten:
            found.setdefault(square, set()).add(bitten)
        if taken == steps:
            return
        for dc in (-1, 0, 1):
            for dr in (-1, 0, 1):
                step = (square[0] + dc, square[1] + dr)
                if (dc, dr) == (0, 0) or not (0 <= step[0] < board.width and 0 <= step[1] < board.height):
                    continue
                if step in barred:
                    continue
                if not ordinary_pawn(step):
                    walk(step, taken + 1, bitten)  # a shared square: crossed without biting
                if bitten is None and victim(step):
                    if bite_path == "cross_square":
                        walk(step, taken + 1, step)
                    elif 1 <= taken < steps and not (mode == "up_to_min_1" and square == start):
                        found.setdefault(square, set()).add(step)  # stops next to the victim it reaches

    walk(start, 0, None)
    return {square: frozenset(bites) for square, bites in found.items()}


def random_case(rng: random.Random) -> dict[str, Any]:
    width, height = rng.randint(3, 6), rng.randint(2, 4)
    cells = [(c, r) for r in range(height) for c in range(width)]
    rng.shuffle(cells)
    start, rest = cells[0], cells[1:]
    places = dict(zip(rng.sample(PLACES, k=min(len(PLACES), rng.randint(0, 3))), rest, strict=False))
    rest = rest[len(places):]
    kinds = [rng.choice(["open"] * 5 + ["wall", "water", "zone", "traveller", "traveller", "vampire"])
             for _ in rest]
    zone = {sq for sq, kind in zip(rest, kinds, strict=True) if kind == "zone"}
    if "chapel" in places:
        zone.add(places["chapel"])
    board = Board(name="random", verified=False, width=width, height=height, places=places,
                  chapel_zone=frozenset(zone),
                  torrent=frozenset(sq for sq, kind in zip(rest, kinds, strict=True) if kind == "water"),
                  blocked=frozenset(sq for sq, kind in zip(rest, kinds, strict=True) if kind == "wall"))
    pawns = {sq: kind for sq, kind in zip(rest, kinds, strict=True) if kind in ("traveller", "vampire")}
    for name in places:
        if name in SHARED_PLACES and rng.random() < 0.5:
            pawns[places[name]] = rng.choice(["traveller", "vampire"])
    refused = {sq for sq in pawns if rng.random() < 0.3}
    return {"board": board, "start": start, "steps": rng.randint(1, 5), "vampire": rng.random() < 0.6,
            "pawns": pawns, "open_places": rng.choice([DAY, NIGHT]),
            "mode": rng.choice(["exact_with_backtrack", "up_to_min_1"]),
            "bite_path": rng.choice(["cross_square", "stop_before_victim"]),
            "can_bite": lambda square: square not in refused}


def test_reach_agrees_with_trying_every_walk_on_500_random_small_boards() -> None:
    rng = random.Random(1982)
    bites = squares = 0
    for _ in range(500):
        case = random_case(rng)
        expected = every_walk(**case)
        assert reach(**case) == expected, case
        squares += len(expected)
        bites += sum(victim is not None for victims in expected.values() for victim in victims)
    # the cases exercise what they claim to: plenty of end squares, and bites among them
    assert squares > 2000 and bites > 500


# --- the board data ---------------------------------------------------------------------------------

def test_the_default_board_loads_and_round_trips_unverified() -> None:
    board = load_board(DEFAULT_BOARD)
    assert board.verified is False
    assert (board.width, board.height) == (16, 10)
    assert board.to_json() == load_board(board.to_json()).to_json()
    assert load_board(board.to_json()) == board
    assert set(board.to_json()["places"]) == set(PLACES)
    assert {place_of(board, board.places[name]) for name in PLACES} == set(PLACES)
    assert place_of(board, (0, 0)) == "elsewhere"


def test_a_board_is_a_value_copies_and_pickles_keep_it_equal_and_unchangeable() -> None:
    board = load_board(DEFAULT_BOARD)
    for twin in (copy.copy(board), copy.deepcopy(board), pickle.loads(pickle.dumps(board))):
        assert twin == board and hash(twin) == hash(board)
        assert reach(twin, twin.places["crypt"], 3, **QUIET) == reach(board, board.places["crypt"], 3, **QUIET)
    with pytest.raises(TypeError):
        board.places["crypt"] = (0, 0)  # type: ignore[index]


def test_the_default_board_is_the_map_its_comment_draws() -> None:
    picture = """
        ....#....~zzzzzz
        .....D...~zzzCzz
        .##......~~zzzzz
        .##.......=~zzzz
        .......O...~~=~~
        .....##.........
        ..I.............
        .........#......
        ......M..##..V..
        ................
    """
    board, _ = drawn(picture)
    assert load_board(DEFAULT_BOARD).to_json() == {**board.to_json(), "name": DEFAULT_BOARD["name"]}


def test_on_the_default_board_travellers_reach_every_place_and_vampires_all_theirs() -> None:
    board = load_board(DEFAULT_BOARD)
    everywhere = frozenset({"inn", "chapel"})
    traveller = reach(board, board.places["inn"], 40, vampire=False, pawns={}, open_places=everywhere,
                      mode="up_to_min_1", bite_path="cross_square", can_bite=lambda square: True)
    assert {board.places[name] for name in PLACES if name != "inn"} <= set(traveller)
    assert board.chapel_zone <= set(traveller)
    vampire = reach(board, board.places["crypt"], 40, vampire=True, pawns={}, open_places=everywhere,
                    mode="up_to_min_1", bite_path="cross_square", can_bite=lambda square: True)
    assert {board.places[name] for name in ("cemetery", "doctor", "circle")} <= set(vampire)
    assert not set(vampire) & (board.chapel_zone | {board.places["inn"]})
    # places set apart: an undoubled roll (at most 6) takes no traveller from the inn to the chapel or crypt
    near = reach(board, board.places["inn"], 6, vampire=False, pawns={}, open_places=everywhere,
                 mode="up_to_min_1", bite_path="cross_square", can_bite=lambda square: True)
    assert not {board.places[name] for name in ("chapel", "crypt")} & set(near)


def test_the_default_torrent_lets_travellers_across_only_on_its_bridges() -> None:
    data = copy.deepcopy(DEFAULT_BOARD)
    bridges = [[10, 3], [13, 4]]
    data["chapel_zone"] = [sq for sq in data["chapel_zone"] if sq not in bridges]
    data["torrent"] += bridges
    with pytest.raises(OptionsError) as refused:
        load_board(data)
    assert refused.value.key == "board.places.chapel"


def broken(change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    data = copy.deepcopy(DEFAULT_BOARD)
    change(data)
    return data


BAD_BOARDS: list[tuple[str, Any, str]] = [
    ("not a mapping", [1, 2], "board"),
    ("an unknown key", broken(lambda d: d.update(colour="red")), "board.colour"),
    ("no torrent", broken(lambda d: d.pop("torrent")), "board.torrent"),
    ("an empty name", broken(lambda d: d.update(name=" ")), "board.name"),
    ("a name not text", broken(lambda d: d.update(name=7)), "board.name"),
    ("verified not a flag", broken(lambda d: d.update(verified="yes")), "board.verified"),
    ("a width that is a flag", broken(lambda d: d.update(width=True)), "board.width"),
    ("a width too small", broken(lambda d: d.update(width=2)), "board.width"),
    ("a height too large", broken(lambda d: d.update(height=99)), "board.height"),
    ("a fractional height", broken(lambda d: d.update(height=10.0)), "board.height"),
    ("places not a mapping", broken(lambda d: d.update(places=[[1, 1]])), "board.places"),
    ("no crypt", broken(lambda d: d["places"].pop("crypt")), "board.places.crypt"),
    ("an unknown place", broken(lambda d: d["places"].update(castle=[0, 0])), "board.places.castle"),
    ("a square of one number", broken(lambda d: d["places"].update(inn=[1])), "board.places.inn"),
    ("a square of text", broken(lambda d: d["places"].update(inn=["a", 1])), "board.places.inn"),
    ("a square of fractions", broken(lambda d: d["places"].update(inn=[1.5, 2])), "board.places.inn"),
    ("a place off the grid", broken(lambda d: d["places"].update(circle=[16, 0])), "board.places.circle"),
    ("a place at a negative row", broken(lambda d: d["places"].update(circle=[3, -1])), "board.places.circle"),
    ("two places on one square", broken(lambda d: d["places"].update(cemetery=[2, 6])), "board.places.cemetery"),
    ("the chapel outside the zone", broken(lambda d: d["places"].update(chapel=[8, 1])), "board.places.chapel"),
    ("the crypt inside the zone", broken(lambda d: d["places"].update(crypt=[14, 2])), "board.places.crypt"),
    ("the crypt on a blocked square", broken(lambda d: d["places"].update(crypt=[9, 7])), "board.places.crypt"),
    ("the doctor in the torrent", broken(lambda d: d["places"].update(doctor=[9, 0])), "board.places.doctor"),
    ("a torrent that is not a list", broken(lambda d: d.update(torrent={"a": 1})), "board.torrent"),
    ("a torrent square off the grid", broken(lambda d: d["torrent"].insert(0, [3, 10])), "board.torrent[0]"),
    ("a blocked square listed twice", broken(lambda d: d["blocked"].append([4, 0])), "board.blocked[10]"),
    ("a blocked square in the torrent", broken(lambda d: d["blocked"].append([9, 0])), "board.blocked"),
    ("a zone square in the torrent", broken(lambda d: d["chapel_zone"].append([9, 0])), "board.chapel_zone"),
    ("a zone square blocked", broken(lambda d: d["blocked"].append([15, 0])), "board.chapel_zone"),
    ("the doctor walled in", broken(lambda d: d["blocked"].extend([[4, 1], [6, 1], [4, 2], [5, 2], [6, 2],
                                                                    [5, 0], [6, 0]])), "board.places.doctor"),
    ("the crypt's vampire shut in behind the inn",
     broken(lambda d: (d["places"].update(inn=[14, 9]),
                       d["blocked"].extend([[12, 7], [13, 7], [14, 7], [12, 8], [14, 8], [12, 9], [13, 9]]))),
     "board.places.cemetery"),
]


@pytest.mark.parametrize(("data", "key"), [(data, key) for _, data, key in BAD_BOARDS],
                         ids=[why for why, _, _ in BAD_BOARDS])
def test_load_board_names_what_is_wrong(data: Any, key: str) -> None:
    with pytest.raises(OptionsError) as refused:
        load_board(data)
    assert refused.value.key == key


def test_load_board_fills_in_what_an_owner_may_leave_out() -> None:
    data = copy.deepcopy(DEFAULT_BOARD)
    del data["verified"], data["blocked"]
    board = load_board(data)
    assert board.verified is False and board.blocked == frozenset()
