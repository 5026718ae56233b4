"""Pure rules for the table itself: how many seats, who sits where, which game is on.

Kept apart from the pipeline so they can be unit-tested without a database, like a game's rules.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from companion.games.base import Command, Event, Rejection, SeatInfo, Viewer

MIN_SEATS = 2
MAX_SEATS = 13
MAX_NAME = 20


@dataclass(frozen=True, slots=True)
class TableState:
    seat_count: int
    names: Mapping[int, str] = field(default_factory=dict)
    game_id: str | None = None
    game: str | None = None

    def seats(self) -> tuple[SeatInfo, ...]:
        """Every seat with its display name (a default name when nobody named it)."""
        return tuple(SeatInfo(n, self.names.get(n, "")) for n in range(1, self.seat_count + 1))

    def view(self) -> dict[str, Any]:
        return {
            "seat_count": self.seat_count,
            "seats": [{"number": s.number, "name": s.name} for s in self.seats()],
            "game_id": self.game_id,
            "game": self.game,
        }


TABLE_COMMANDS = ("set_seat_count", "name_seat", "clear_seat")


def clean_name(raw: Any) -> str | None:
    """A display name as shown to everyone: trimmed, normalised, printable, 1 to 20 characters."""
    if not isinstance(raw, str):
        return None
    name = " ".join(unicodedata.normalize("NFC", raw).split())
    if not 1 <= len(name) <= MAX_NAME or not name.isprintable():
        return None
    return name


def _seat_number(state: TableState, raw: Any) -> int | None:
    if isinstance(raw, bool) or not isinstance(raw, int) or not 1 <= raw <= state.seat_count:
        return None
    return raw


def validate(state: TableState, actor: Viewer, command: Command) -> Rejection | None:
    args = command.args
    if command.name == "set_seat_count":
        if actor.kind != "host":
            return Rejection("host_only")
        if state.game_id is not None:
            return Rejection("game_in_progress")
        count = args.get("count")
        if isinstance(count, bool) or not isinstance(count, int) or not MIN_SEATS <= count <= MAX_SEATS:
            return Rejection("bad_seat_count", {"min": MIN_SEATS, "max": MAX_SEATS})
        if any(n > count for n in state.names):
            return Rejection("seats_in_use", {"count": count})
        return None
    if command.name in ("name_seat", "clear_seat"):
        number = _seat_number(state, args.get("seat"))
        if number is None:
            return Rejection("no_such_seat", {"max": state.seat_count})
        if actor.kind != "host" and actor != Viewer("seat", number):
            return Rejection("not_your_seat")
        if command.name == "clear_seat":
            return None if number in state.names else Rejection("seat_empty")
        name = clean_name(args.get("name"))
        if name is None:
            return Rejection("bad_name", {"max": MAX_NAME})
        if any(n != number and other.casefold() == name.casefold() for n, other in state.names.items()):
            return Rejection("name_taken", {"name": name})
        return None
    return Rejection("unknown_command", {"command": command.name[:40]})


def decide(state: TableState, actor: Viewer, command: Command) -> list[Event]:
    args = command.args
    if command.name == "set_seat_count":
        return [Event("seat_count_set", {"count": args["count"]})]
    if command.name == "name_seat":
        return [Event("seat_named", {"seat": args["seat"], "name": clean_name(args["name"])})]
    return [Event("seat_cleared", {"seat": args["seat"]})]


def evolve(state: TableState, event: Event) -> TableState:
    data = event.data
    if event.type == "seat_count_set":
        return replace(state, seat_count=data["count"])
    if event.type == "seat_named":
        return replace(state, names={**state.names, data["seat"]: data["name"]})
    if event.type == "seat_cleared":
        return replace(state, names={n: v for n, v in state.names.items() if n != data["seat"]})
    if event.type == "game_opened":
        return replace(state, game_id=data["game_id"], game=data["game"])
    if event.type == "game_closed":
        return replace(state, game_id=None, game=None)
    raise ValueError(f"the table has no event {event.type!r}")
