"""A self-contained export of one game: its whole log with hashes, readable on another machine."""

from __future__ import annotations

from typing import Any

from companion import __version__
from companion.store import EventStore, verify_chain

EXPORT_FORMAT = "table-companion-export/1"


def export_game(store: EventStore, game_id: str, wall_ms: int) -> dict[str, Any] | None:
    """The export of `game_id`, or None when there is no such game."""
    if not game_id or game_id == "table":
        return None
    records = store.read(game_id)
    if not records:
        return None
    started = records[0].data
    problems = verify_chain(records)
    return {
        "format": EXPORT_FORMAT,
        "companion_version": __version__,
        "game_id": game_id,
        "game": started.get("game"),
        "exported_wall_ms": wall_ms,
        "chain": "verified" if not problems else [str(p) for p in problems],
        "events": [record.to_json() for record in records],
    }
