"""How long a restart takes for a long game: open the store (integrity + chain check) and replay.

Decides whether snapshots are needed (DESIGN: measure first). Prints figures; asserts nothing.
Usage: .venv/bin/python bench/replay.py [EVENTS ...]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from companion.clock import MonotonicClock
from companion.config import load_config
from companion.games.base import HOST, TABLE, Command
from companion.games.registry import GAMES
from companion.service import new_seed
from companion.store import EventStore
from companion.table.session import Table, TableSettings


def main(sizes: list[int]) -> None:
    config = load_config(None)
    settings = TableSettings(6, "host_and_own", {"dice-tray": {"catalogue": config.catalogue.to_json(), "tray": "2d6"}})
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "events.sqlite3"
            store = EventStore.open(path)
            table = Table.open(store, GAMES, MonotonicClock(), new_seed, settings)
            table.handle(HOST, Command("start_game", {"game": "dice-tray"}))
            started = time.perf_counter()
            for i in range(size):
                command = Command("roll") if i % 4 else Command("set_tray", {"preset": "nuit-duel"})
                table.handle(TABLE, command)
            append_s = time.perf_counter() - started
            store.close()
            started = time.perf_counter()
            reopened = EventStore.open(path)
            open_s = time.perf_counter() - started
            started = time.perf_counter()
            Table.open(reopened, GAMES, MonotonicClock(), new_seed, settings)
            replay_s = time.perf_counter() - started
            reopened.close()
            size_mb = path.stat().st_size / 1e6
            print(f"{size:>7} events: {size / append_s:8.0f} commands/s durable, "
                  f"open+verify {open_s * 1000:7.1f} ms, replay {replay_s * 1000:7.1f} ms, file {size_mb:.1f} MB")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1_000, 10_000])
