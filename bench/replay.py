"""How long a restart takes for a long game: open the store (integrity + chain check) and replay.

Decides whether snapshots are needed (DESIGN: measure first). Prints figures; asserts nothing.
Usage: .venv/bin/python -m bench.replay [EVENTS ...]
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


def measure(size: int) -> dict[str, float]:
    """A dice-tray game of `size` commands written durably, then the store reopened (integrity and
    hash-chain check) and the table rebuilt from its log: figures in seconds, counts, MB."""
    config = load_config(None)
    settings = TableSettings(6, "host_and_own", {"dice-tray": {"catalogue": config.catalogue.to_json(), "tray": "2d6"}})
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
        events = len(reopened.read_all())
        reopened.close()
        return {"commands": size, "events": events, "append_s": append_s, "open_s": open_s, "replay_s": replay_s,
                "size_mb": path.stat().st_size / 1e6}


def main(sizes: list[int]) -> None:
    for size in sizes:
        m = measure(size)
        print(f"{size:>7} events: {size / m['append_s']:8.0f} commands/s durable, "
              f"open+verify {m['open_s'] * 1000:7.1f} ms, replay {m['replay_s'] * 1000:7.1f} ms, "
              f"file {m['size_mb']:.1f} MB")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1_000, 10_000])
