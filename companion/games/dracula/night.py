"""Dracula's night, resolved as pure functions (rules/dracula.md: D-S, D-B, D-T, D-O, D-N, 6.5, 6.8).

The state machine gathers the rooms (dusk, with `apply_curses` and `map_sight`), then the actions
(checked one by one with `action_problem`), asks Dracula whether to pass for human when `tortured`
names him, and hands the whole night to `resolve`. Nothing here reads a clock or draws at random, and
the night is one value, so a replay resolves it again to the same outcome.

`resolve` follows the order of D-5: snoops, then bites, then treasure, then the conversions at the
end of the night. It returns the private notices of the 6.5 matrix, and nothing else to anyone, so
the views can hand each seat its own notices as they are.

Readings decided here, beyond the 6.8 defaults (each pinned by a test):
* Bites are simultaneous: a garlic steal moves the points the biter held when the bites began
  (6.8 item 11: "in any order"), so a chain of steals does not depend on an order of seats.
* A bite on a waltz dancer by anyone but the partner is stopped by the waltz before garlic acts: the
  biter is told "failure" (not "garlic"), and the dancer is told nothing and steals nothing.
* A caged vampire's bite does not happen; the biter is told "failure" (the cage is told only to the
  successful snoopers); the room log shows the attempt with result "caged".
* A player bitten several times is told "bitten" once (6.5 says "you were bitten", not how often;
  only garlic counts bites).
* A candle holder sees the room as a torturer does: Dracula passing for human is logged "human".
* Snoop targets: "target_needed" when a snoop outside the boudoir names nobody, "no_target" when a
  target is named where none is taken (a boudoir snoop, or no snoop at all).
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

ROOMS: Final = ("boudoir", "ballroom", "jails", "torture")
"""The four night rooms, in the order they are listed; a room of None is the sanctuary."""
OBJECTS: Final = ("garlic", "candle", "map")
NIGHTS: Final = 5
UNKNOWN: Final = "unknown"
"""What a human map user is shown for another human map user's room (D-O3)."""
TORTURE_SNOOPERS: Final = 2
"""Snoopers on one target needed to cage (D-S3) or torture (D-S4) them."""

NOTICE_KINDS: Final = frozenset({
    "bite", "bitten", "garlic_saved", "converted", "map_result", "waltz", "boudoir", "caged",
    "torture", "tortured", "treasure", "candle",
})
"""Every kind of private notice a night sends: exactly the lines of the 6.5 matrix."""

Notice = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Sleeper:
    """One player's night, as the choices ended: where, what object used, what action."""

    seat: int
    vampire: bool            # nature at the start of the night
    dracula: bool
    room: str | None         # final room (after map curses); None: in the sanctuary, does nothing
    used: str | None = None  # object used this night ("garlic" | "candle" | "map"), else None
    map_target: int | None = None   # a VAMPIRE map user's named player (D-O3v); else None
    bite: int | None = None  # seat bitten (a vampire's action)
    snoop: bool = False      # snoops this night
    snoop_target: int | None = None  # whom (None in the boudoir, which needs no target)
    treasure: bool = False   # a human searching for treasure
    points: float = 0        # round points before the night (garlic steals move them)


@dataclass(frozen=True, slots=True)
class Night:
    """Everything the resolution needs, and nothing it would have to look up elsewhere."""

    number: int                      # 1..5
    sleepers: tuple[Sleeper, ...]    # every player of the round, sanctuary ones included
    treasure_rooms: frozenset[str] = frozenset()   # announced for this night (empty on night 1)
    snooped: Mapping[int, frozenset[str]] = field(default_factory=dict)  # rooms snooped this round
    disguised: bool = False          # Dracula, tortured, chose to pass for human (D-S4)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the night did. `notices` is private per seat; `room_log` is the GM's (and a candle's)."""

    converted: frozenset[int]             # humans who become vampires at dawn
    points: Mapping[int, float]           # every seat's round points after the night
    snooped: Mapping[int, str]            # seat -> room whose once-per-round snoop it spent
    waltzes: tuple[tuple[int, int], ...]  # partners, who may write to each other the next day
    boudoir: frozenset[int]               # boudoir snoopers: may send one letter the next day
    caged: frozenset[int]
    tortured: frozenset[int]
    notices: Mapping[int, tuple[Mapping[str, Any], ...]]
    room_log: Mapping[str, tuple[Mapping[str, Any], ...]]
    """Per room, in order: {"kind": "present", "seats"}, then {"kind": "snoop", "by", "target"}
    (target None in the boudoir), {"kind": "waltz", "seats"}, {"kind": "caged", "seat"},
    {"kind": "tortured", "seat", "nature"}, {"kind": "bite", "by", "target", "result"} with result
    "success" | "vampire" | "garlic" | "stolen" | "waltz" | "caged", {"kind": "treasure", "seat",
    "found"} (found: the point was won)."""


# -- dusk: rooms, curses, maps ----------------------------------------------------------------------

def apply_curses(rooms: Mapping[int, str | None], curses: Mapping[int, tuple[int, str]],
                 vampires: frozenset[int]) -> dict[int, str | None]:
    """Force each cursed VAMPIRE into the curser's room (D-O3v); a human target, a player in the
    sanctuary and a curse by a non-vampire change nothing. Applied before human maps look (6.8 item
    14). Two curses on one vampire: the lower curser's seat wins, so the result has no order."""
    moved = dict(rooms)
    cursed: set[int] = set()
    for curser in sorted(curses):
        target, room = curses[curser]
        if room not in ROOMS:
            raise ValueError(f"a curse names no night room: {room!r}")
        if curser in vampires and target in vampires and moved.get(target) is not None and target not in cursed:
            moved[target] = room
            cursed.add(target)
    return moved


def map_sight(rooms: Mapping[int, str | None], map_users: frozenset[int], seat: int) -> dict[int, str | None]:
    """What a HUMAN map user is shown before choosing (D-O3): every other player's room (None = the
    sanctuary), but another human map user has not chosen yet, so shows as "unknown" (6.8 item 14)."""
    return {other: UNKNOWN if other in map_users else room
            for other, room in sorted(rooms.items()) if other != seat}


def treasure_rooms(night: Night) -> tuple[str, ...]:
    """The least visited night rooms (D-T1, 6.8 item 13), where the next night's treasure lies:
    visitors counted in the final rooms, an empty room is least, ties give several rooms."""
    rooms = [s.room for s in night.sleepers]
    visits = {room: rooms.count(room) for room in ROOMS}
    fewest = min(visits.values())
    return tuple(room for room in ROOMS if visits[room] == fewest)


# -- actions ------------------------------------------------------------------------------------------

def action_problem(night: Night, seat: int, bite: int | None = None, snoop: bool = False,
                   snoop_target: int | None = None, treasure: bool = False) -> str | None:
    """Why this night action is not allowed (a stable code the phone shows translated), or None.

    Checked on what the seat knows when it acts: the rooms are public (D-3). A cage is not checked
    here: it is only known at resolution, where a caged vampire's bite simply does not happen."""
    me = _sleeper(night, seat)
    chosen = (bite is not None) + snoop + treasure
    first_night_dracula = night.number == 1 and me.dracula
    if not chosen and snoop_target is None:
        return "dracula_must_bite" if first_night_dracula and me.room is not None else None
    if me.room is None:
        return "in_the_sanctuary"
    if bite is not None and not me.vampire:
        return "humans_do_not_bite"
    if treasure and me.vampire:
        return "vampires_do_not_search"
    if snoop and night.number == 1:
        return "no_snoop_on_night_1"
    if snoop_target is not None and (not snoop or me.room == "boudoir"):
        return "no_target"
    if chosen > 1 and not (me.used == "candle" and me.vampire and bite is not None and snoop):
        return "one_action_only"
    if first_night_dracula and bite is None:
        return "dracula_must_bite"
    if snoop and me.room != "boudoir" and snoop_target is None:
        return "target_needed"
    for target in (bite, snoop_target):
        if target == seat:
            return "cannot_target_yourself"
        if target is not None and _room_of(night, target) != me.room:
            return "not_in_same_room"
    if snoop and me.room in night.snooped.get(seat, frozenset()):
        return "already_snooped_here"
    return None


def tortured(night: Night) -> frozenset[int]:
    """The seats tortured this night (D-S4: >= 2 snoopers on them in the torture room), so the state
    machine can ask Dracula to pass for human BEFORE resolving."""
    return frozenset(_targeted(_in_seat_order(night.sleepers), "torture"))


# -- resolution ---------------------------------------------------------------------------------------

def resolve(night: Night) -> Outcome:
    """The whole night: snoops -> bites -> treasure -> conversions (D-5, D-6), with its notices.

    The night must be legal (`action_problem` None for every sleeper; objects only from night 3, never
    Dracula's, never in the sanctuary): anything else is a programmer error and raises ValueError.
    Dracula's missing bite on night 1 is the one exception: his deadline may pass with no bite, and
    the night still ends."""
    _check(night)
    return outcome(night)


def outcome(night: Night) -> Outcome:
    """`resolve` of a night known to be legal: the state machine checked every action as it came
    (`action_problem`), and a default is always legal, so it need not check the whole night again."""
    by_seat = {s.seat: s for s in night.sleepers}
    report = _Report({room: sorted(s.seat for s in night.sleepers if s.room == room) for room in ROOMS})
    ordered = _in_seat_order(night.sleepers)

    spent = _log_snoops(ordered, report)
    waltzes = _waltzes(night, report)
    boudoir = frozenset(s.seat for s in night.sleepers if s.snoop and s.room == "boudoir")
    caged = _cage(ordered, report)
    torture = _torture(night, ordered, report)

    partners = {a: b for pair in waltzes for a, b in (pair, pair[::-1])}
    points, converted = _bites(night, ordered, by_seat, partners, caged, report)
    _treasure(night, ordered, converted, points, report)

    _dawn(night, ordered, by_seat, converted, boudoir, report)
    return Outcome(
        converted=converted, points=points, snooped=spent, waltzes=waltzes, boudoir=boudoir,
        caged=caged, tortured=torture,
        notices={seat: tuple(told) for seat, told in sorted(report.notices.items())},
        room_log={room: tuple(seen) for room, seen in report.log.items()},
    )


class _Report:
    """The notices and room logs of one resolution, written in the order things happen."""

    def __init__(self, present: Mapping[str, list[int]]) -> None:
        self.notices: dict[int, list[Notice]] = {}
        self.log: dict[str, list[Notice]] = {room: [{"kind": "present", "seats": seats}]
                                             for room, seats in present.items()}

    def tell(self, seat: int, kind: str, **params: Any) -> None:
        self.notices.setdefault(seat, []).append({"kind": kind, **params})

    def see(self, room: str, kind: str, **params: Any) -> None:
        self.log[room].append({"kind": kind, **params})


def _log_snoops(ordered: Sequence[Sleeper], report: _Report) -> dict[int, str]:
    """Every snoop is seen in its room, and spends the room's once-per-round snoop (6.8 item 6),
    failed or not."""
    spent: dict[int, str] = {}
    for s in ordered:
        if s.snoop and s.room is not None:
            report.see(s.room, "snoop", by=s.seat, target=s.snoop_target)
            spent[s.seat] = s.room
    return spent


def _waltzes(night: Night, report: _Report) -> tuple[tuple[int, int], ...]:
    """D-S1: two ballroom snoopers who target each other dance; both are told their partner."""
    aims = {s.seat: s.snoop_target for s in night.sleepers if s.snoop and s.room == "ballroom"}
    pairs = tuple(sorted((a, b) for a, b in aims.items() if b is not None and a < b and aims.get(b) == a))
    for a, b in pairs:
        report.see("ballroom", "waltz", seats=[a, b])
        report.tell(a, "waltz", partner=b)
        report.tell(b, "waltz", partner=a)
    return pairs


def _targeted(ordered: Sequence[Sleeper], room: str) -> dict[int, list[int]]:
    """Targets of >= 2 snoopers in `room`, each with its snoopers (the successful ones), by seat."""
    aims: dict[int, list[int]] = {}
    for s in ordered:
        if s.snoop and s.room == room and s.snoop_target is not None:
            aims.setdefault(s.snoop_target, []).append(s.seat)
    return {target: by for target, by in sorted(aims.items()) if len(by) >= TORTURE_SNOOPERS}


def _cage(ordered: Sequence[Sleeper], report: _Report) -> frozenset[int]:
    """D-S3: the jails' successful snoopers learn the cage; the caged player is not told (6.5)."""
    cages = _targeted(ordered, "jails")
    for target, snoopers in cages.items():
        report.see("jails", "caged", seat=target)
        for seat in snoopers:
            report.tell(seat, "caged", target=target)
    return frozenset(cages)


def _torture(night: Night, ordered: Sequence[Sleeper], report: _Report) -> frozenset[int]:
    """D-S4 and 6.8 item 7: every torturer learns the nature the target had when the night began
    (Dracula may pass for human); the target learns it was tortured, not by whom."""
    victims = _targeted(ordered, "torture")
    by_seat = {s.seat: s for s in night.sleepers}
    for target, snoopers in victims.items():
        victim = by_seat[target]
        nature = "vampire" if victim.vampire and not (victim.dracula and night.disguised) else "human"
        report.see("torture", "tortured", seat=target, nature=nature)
        for seat in snoopers:
            report.tell(seat, "torture", target=target, nature=nature)
        report.tell(target, "tortured")
    return frozenset(victims)


def _bite_result(biter: int, target: Sleeper, partners: Mapping[int, int], caged: frozenset[int]) -> str:
    """What one bite does (D-B, D-O1, D-S1, D-S3), before any of its effects are applied."""
    if biter in caged:
        return "caged"
    if target.seat in partners and partners[target.seat] != biter:
        return "waltz"
    if target.used == "garlic":
        return "stolen" if target.vampire else "garlic"
    return "vampire" if target.vampire else "success"


BITER_TOLD: Final = {"success": "success", "garlic": "garlic"}
"""What the biter is told (6.5, 6.8 item 5): anything but a conversion or garlic is "failure"."""
TARGET_BITTEN: Final = frozenset({"success", "vampire", "stolen"})
"""Results the target is told as "bitten": not garlic on a human, not a stopped waltz, not a cage."""


def _bites(night: Night, ordered: Sequence[Sleeper], by_seat: Mapping[int, Sleeper], partners: Mapping[int, int],
           caged: frozenset[int], report: _Report) -> tuple[dict[int, float], frozenset[int]]:
    """D-B1..D-B3, D-O1: every bite at once. A conversion gives each of its biters +1 (6.8 item 5);
    a garlic vampire takes the points its biter held when the bites began (6.8 item 11)."""
    start = {s.seat: s.points for s in night.sleepers}
    points = dict(start)
    converted: set[int] = set()
    stopped: Counter[int] = Counter()
    bitten: set[int] = set()
    for s in ordered:
        if not (s.vampire and s.bite is not None and s.room is not None):
            continue
        target = by_seat[s.bite]
        result = _bite_result(s.seat, target, partners, caged)
        report.see(s.room, "bite", by=s.seat, target=target.seat, result=result)
        report.tell(s.seat, "bite", target=target.seat, result=BITER_TOLD.get(result, "failure"))
        if result == "success":
            converted.add(target.seat)
            points[s.seat] += 1
        elif result == "stolen":
            points[target.seat] += start[s.seat]
            points[s.seat] -= start[s.seat]
        elif result == "garlic":
            stopped[target.seat] += 1
        if result in TARGET_BITTEN:
            bitten.add(target.seat)
    for seat in sorted(bitten):
        report.tell(seat, "bitten")
    for seat, bites in sorted(stopped.items()):
        report.tell(seat, "garlic_saved", bites=bites)
    return points, frozenset(converted)


def _treasure(night: Night, ordered: Sequence[Sleeper], converted: frozenset[int], points: dict[int, float],
              report: _Report) -> None:
    """D-T2, 6.8 item 12: a human who searched a treasure room and is still human gains +1."""
    for s in ordered:
        if s.treasure and s.room is not None and not s.vampire:
            found = s.room in night.treasure_rooms and s.seat not in converted
            report.see(s.room, "treasure", seat=s.seat, found=found)
            if found:
                points[s.seat] += 1
                report.tell(s.seat, "treasure", room=s.room)


def _dawn(night: Night, ordered: Sequence[Sleeper], by_seat: Mapping[int, Sleeper], converted: frozenset[int],
          boudoir: frozenset[int], report: _Report) -> None:
    """The notices of the end of the night, once the room logs are whole: candles, vampire maps,
    boudoir counts (after the conversions, 6.8 item 8), and the converted."""
    vampires = sum(s.vampire for s in night.sleepers) + len(converted)
    for s in ordered:
        if s.used == "candle" and not s.vampire and s.room is not None:
            report.tell(s.seat, "candle", room=s.room, events=copy.deepcopy(report.log[s.room]))
        if s.used == "map" and s.vampire and s.map_target is not None and not by_seat[s.map_target].vampire:
            report.tell(s.seat, "map_result", target=s.map_target, vampirised=s.map_target in converted)
        if s.seat in boudoir:
            report.tell(s.seat, "boudoir", vampires=vampires)
        if s.seat in converted:
            report.tell(s.seat, "converted")


# -- helpers ------------------------------------------------------------------------------------------

def _in_seat_order(sleepers: Iterable[Sleeper]) -> list[Sleeper]:
    """Sleepers by seat, so the logs and notices never depend on the order they were listed in
    (sorted once per resolution, and handed to each of its steps)."""
    return sorted(sleepers, key=lambda s: s.seat)


def _room_of(night: Night, seat: int) -> str | None:
    """Where `seat` sleeps tonight (None: the sanctuary, or nobody of that seat)."""
    return next((s.room for s in night.sleepers if s.seat == seat), None)


def _sleeper(night: Night, seat: int) -> Sleeper:
    for s in night.sleepers:
        if s.seat == seat:
            return s
    raise ValueError(f"seat {seat} does not play this night")


def _check(night: Night) -> None:
    """Refuse a night the state machine should never build (see `resolve`)."""
    seats = [s.seat for s in night.sleepers]
    problems: list[str] = []
    if len(set(seats)) != len(seats):
        problems.append("a seat is listed twice")
    if not 1 <= night.number <= NIGHTS:
        problems.append(f"night {night.number}")
    if not night.treasure_rooms <= set(ROOMS) or any(not rooms <= set(ROOMS) for rooms in night.snooped.values()):
        problems.append("an unknown room")
    if sum(s.dracula for s in night.sleepers) > 1:
        problems.append("two Draculas")
    for s in night.sleepers:
        problems.extend(f"seat {s.seat}: {p}" for p in _sleeper_problems(night, s, set(seats)))
    if problems:
        raise ValueError("illegal night: " + "; ".join(problems))


def _sleeper_problems(night: Night, s: Sleeper, seats: set[int]) -> Iterable[str]:
    if s.room is not None and s.room not in ROOMS:
        yield f"room {s.room!r}"
    if s.dracula and not s.vampire:
        yield "Dracula is a vampire"
    if night.number == 1 and (s.room is None or (s.vampire and not s.dracula)):
        yield "night 1 has no sanctuary and no vampire but Dracula (D-N1)"
    if s.used is not None and (s.used not in OBJECTS or s.room is None or s.dracula or night.number <= 2):
        yield f"object {s.used!r} (none before night 3, none for Dracula, none in the sanctuary)"
    if s.map_target is not None and not (s.used == "map" and s.vampire and s.map_target in seats):
        yield "a map target without a vampire's map"
    problem = action_problem(night, s.seat, s.bite, s.snoop, s.snoop_target, s.treasure)
    if problem not in (None, "dracula_must_bite"):
        yield str(problem)
