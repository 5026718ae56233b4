"""How fast verifiable randomness is: raw draws, rolls through the whole pipeline, and verification.

Prints figures; asserts nothing. Usage: .venv/bin/python -m bench.fairness [ROLLS]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from companion.clock import MonotonicClock
from companion.config import load_config
from companion.fairness.drbg import SeededRandomSource, master_key
from companion.games.base import HOST, TABLE, Command
from companion.games.registry import GAMES
from companion.service import new_seed
from companion.store import EventStore
from companion.table.export import export_game
from companion.table.session import Table, TableSettings
from companion.table.verify import verify_export


def main(rolls: int) -> None:
    source = SeededRandomSource(master_key(new_seed(), []))
    started = time.perf_counter()
    for n in range(200_000):
        source.randbelow(6, f"roll {n} die 1 d6")
    print(f"raw draws (d6):               {200_000 / (time.perf_counter() - started):10.0f} draws/s")

    config = load_config(None)
    settings = TableSettings(6, "host_and_own", {"dice-tray": {"catalogue": config.catalogue.to_json(), "tray": "2d6"}})
    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore.open(Path(tmp) / "events.sqlite3")
        table = Table.open(store, GAMES, MonotonicClock(), new_seed, settings)
        table.handle(HOST, Command("start_game", {"game": "dice-tray"}))
        started = time.perf_counter()
        for _ in range(rolls):
            table.handle(TABLE, Command("roll"))
        elapsed = time.perf_counter() - started
        print(f"2d6 rolls, durable pipeline:  {rolls / elapsed:10.0f} rolls/s ({1000 * elapsed / rolls:.2f} ms each,"
              " fsync included)")
        table.handle(HOST, Command("end_game"))
        export = export_game(store, table.run.game_id, 0)  # type: ignore[union-attr]
        assert export is not None
        store.close()
    started = time.perf_counter()
    verdict = verify_export(export, GAMES)
    elapsed = time.perf_counter() - started
    events = len(export["events"])
    print(f"verification of {events} events: {events / elapsed:10.0f} events/s ({elapsed:.2f} s, "
          f"{verdict.draws} draws re-derived, every command decided again): {verdict.summary().splitlines()[0]}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5_000)
