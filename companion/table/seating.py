"""Pure rules for the table itself: seats, who sits where, joining, pausing, which game is on.

Kept apart from the pipeline so they can be unit-tested without a database, like a game's rules.
A seat's `generation` changes whenever the phone bound to it must change (claimed, rebound, freed):
the server derives each phone's seat token from it, so an old phone loses the seat at once.
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
JOIN_CODE_ALPHABET = "ACDEFHJKMNPQRTUVWXY3479"
"""No 0/O, 1/I/L, 2/Z, 5/S, 6/G or 8/B: a code read off a TV across the room is typed right."""
JOIN_CODE_LENGTH = 6


@dataclass(frozen=True, slots=True)
class TableState:
    seat_count: int
    names: Mapping[int, str] = field(default_factory=dict)
    generations: Mapping[int, int] = field(default_factory=dict)
    game_id: str | None = None
    game: str | None = None
    joining_locked: bool = False
    paused: bool = False
    join_code: str = ""
    last_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Per game kind, the options its latest game started with: the host's next game starts from
    them (the garlic game's counted deck is entered once and kept)."""

    def seats(self) -> tuple[SeatInfo, ...]:
        """Every seat with its display name ("" while nobody sits there)."""
        return tuple(SeatInfo(n, self.names.get(n, "")) for n in range(1, self.seat_count + 1))

    def generation(self, seat: int) -> int:
        return self.generations.get(seat, 0)

    def is_free(self, seat: int) -> bool:
        return 1 <= seat <= self.seat_count and seat not in self.names

    def view(self) -> dict[str, Any]:
        """The public picture of the table. The join code is public: it is shown on the TV."""
        return {
            "seat_count": self.seat_count,
            "seats": [{"number": s.number, "name": s.name} for s in self.seats()],
            "game_id": self.game_id,
            "game": self.game,
            "joining_locked": self.joining_locked,
            "paused": self.paused,
            "join_code": self.join_code,
        }


TABLE_COMMANDS = (
    "set_seat_count", "claim_seat", "name_seat", "clear_seat", "rebind_seat",
    "lock_joining", "unlock_joining", "pause", "resume", "set_join_code",
)
_HOST_ONLY = ("set_seat_count", "lock_joining", "unlock_joining", "pause", "resume")


def clean_name(raw: Any) -> str | None:
    """A display name as shown to everyone: trimmed, normalised, printable, 1 to 20 characters."""
    if not isinstance(raw, str):
        return None
    name = " ".join(unicodedata.normalize("NFC", raw).split())
    if not 1 <= len(name) <= MAX_NAME or not name.isprintable():
        return None
    if any(unicodedata.category(ch) in ("Cf", "Co", "Cs") for ch in name):
        return None  # invisible format characters would let two names look the same
    return name


def valid_join_code(raw: Any) -> bool:
    return (isinstance(raw, str) and len(raw) == JOIN_CODE_LENGTH
            and all(ch in JOIN_CODE_ALPHABET for ch in raw))


def _seat_number(state: TableState, raw: Any) -> int | None:
    if isinstance(raw, bool) or not isinstance(raw, int) or not 1 <= raw <= state.seat_count:
        return None
    return raw


def _name_rejection(state: TableState, number: int, raw: Any) -> Rejection | None:
    name = clean_name(raw)
    if name is None:
        return Rejection("bad_name", {"max": MAX_NAME})
    if any(n != number and other.casefold() == name.casefold() for n, other in state.names.items()):
        return Rejection("name_taken", {"name": name})
    return None


def validate(state: TableState, actor: Viewer, command: Command) -> Rejection | None:
    args = command.args
    name = command.name
    if name not in TABLE_COMMANDS:
        return Rejection("unknown_command", {"command": name[:40]})
    if name in _HOST_ONLY and actor.kind != "host":
        return Rejection("host_only")
    if name == "set_join_code":
        if actor.kind != "system":
            return Rejection("host_only")
        return None if valid_join_code(args.get("code")) else Rejection("bad_arguments", {"detail": "code"})
    if name == "set_seat_count":
        count = args.get("count")
        if isinstance(count, bool) or not isinstance(count, int) or not MIN_SEATS <= count <= MAX_SEATS:
            return Rejection("bad_seat_count", {"min": MIN_SEATS, "max": MAX_SEATS})
        if any(n > count for n in state.names):
            return Rejection("seats_in_use", {"count": count})
        return None
    if name in ("lock_joining", "unlock_joining"):
        return None if state.joining_locked == (name == "unlock_joining") else Rejection("nothing_happened")
    if name in ("pause", "resume"):
        return None if state.paused == (name == "resume") else Rejection("nothing_happened")
    number = _seat_number(state, args.get("seat"))
    if number is None:
        return Rejection("no_such_seat", {"max": state.seat_count})
    if name == "claim_seat":
        # The joining phone has no identity yet: the server checked the join code and the rate.
        if actor.kind not in ("table", "host"):
            return Rejection("not_authorized")
        if state.joining_locked:
            return Rejection("joining_locked")
        if not state.is_free(number):
            return Rejection("seat_taken", {"seat": number})
        return _name_rejection(state, number, args.get("name"))
    if name == "rebind_seat":
        if actor.kind not in ("host", "system"):
            return Rejection("host_only")
        return Rejection("seat_empty") if state.is_free(number) else None
    if actor.kind != "host" and actor != Viewer("seat", number):
        return Rejection("not_your_seat")
    if name == "clear_seat":
        return Rejection("seat_empty") if state.is_free(number) else None
    return _name_rejection(state, number, args.get("name"))


def decide(state: TableState, actor: Viewer, command: Command) -> list[Event]:
    args = command.args
    name = command.name
    if name == "set_seat_count":
        return [Event("seat_count_set", {"count": args["count"]})]
    if name == "claim_seat":
        return [Event("seat_claimed", {"seat": args["seat"], "name": clean_name(args["name"])})]
    if name == "name_seat":
        return [Event("seat_named", {"seat": args["seat"], "name": clean_name(args["name"])})]
    if name == "clear_seat":
        return [Event("seat_cleared", {"seat": args["seat"]})]
    if name == "rebind_seat":
        return [Event("seat_rebound", {"seat": args["seat"]})]
    if name == "set_join_code":
        return [Event("join_code_set", {"code": args["code"]})]
    simple = {"lock_joining": "joining_locked", "unlock_joining": "joining_unlocked",
              "pause": "table_paused", "resume": "table_resumed"}
    return [Event(simple[name])]


def _bumped(state: TableState, seat: int) -> Mapping[int, int]:
    return {**state.generations, seat: state.generation(seat) + 1}


def evolve(state: TableState, event: Event) -> TableState:
    data = event.data
    kind = event.type
    if kind == "seat_count_set":
        return replace(state, seat_count=data["count"])
    if kind == "seat_claimed":
        return replace(state, names={**state.names, data["seat"]: data["name"]},
                       generations=_bumped(state, data["seat"]))
    if kind == "seat_named":
        return replace(state, names={**state.names, data["seat"]: data["name"]})
    if kind == "seat_cleared":
        return replace(state, names={n: v for n, v in state.names.items() if n != data["seat"]},
                       generations=_bumped(state, data["seat"]))
    if kind == "seat_rebound":
        return replace(state, generations=_bumped(state, data["seat"]))
    if kind == "game_opened":
        last = state.last_options
        if "options" in data:
            last = {**last, data["game"]: data["options"]}
        return replace(state, game_id=data["game_id"], game=data["game"], last_options=last)
    if kind == "join_code_set":
        return replace(state, join_code=data["code"])
    if kind in ("joining_locked", "joining_unlocked"):
        return replace(state, joining_locked=kind == "joining_locked")
    if kind in ("table_paused", "table_resumed"):
        return replace(state, paused=kind == "table_paused")
    raise ValueError(f"the table has no event {kind!r}")
