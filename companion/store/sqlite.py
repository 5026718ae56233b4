"""SQLite event store.

WAL with `synchronous=FULL`: a committed command survives a killed process and a power cut. The
`(stream, seq)` key makes a double append fail in the database itself, and triggers refuse any
UPDATE or DELETE, so the log is append-only even for code that forgets. Raw sqlite3 errors are
mapped to our own exceptions here and never cross this boundary.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from companion.errors import DuplicateEvent, StoreCorrupted, StoreError
from companion.store.records import GENESIS, PendingEvent, RecordedEvent, canonical_json, verify_chain

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    position  INTEGER PRIMARY KEY,
    stream    TEXT    NOT NULL,
    seq       INTEGER NOT NULL CHECK (seq >= 1),
    type      TEXT    NOT NULL,
    actor     TEXT    NOT NULL,
    data      TEXT    NOT NULL,
    reveals   INTEGER NOT NULL,
    draws     TEXT    NOT NULL,
    mono_us   INTEGER NOT NULL,
    wall_ms   INTEGER NOT NULL,
    prev_hash TEXT    NOT NULL,
    hash      TEXT    NOT NULL,
    command   TEXT,
    UNIQUE (stream, seq)
);
CREATE TRIGGER IF NOT EXISTS events_append_only_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_append_only_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
"""

PAGE_CACHE_KIB = 256
"""SQLite's page cache for the store's connection (its default is about 2 MB). In service the
connection appends at the end of the log, which touches the right-hand edge of the table and of the
`(stream, seq)` index: a few pages each. Whole-log reads (the check at opening, an export, a
replay) pass over every page once and never come back to it, so a bigger cache only keeps pages
nobody asks for again; the file's pages stay in the operating system's cache either way. Without
the cap, the service's memory grew with the log until the cache was full (2 MB more than needed)."""

_COLUMNS = "position, stream, seq, type, actor, data, reveals, draws, mono_us, wall_ms, prev_hash, hash, command"


class EventStore:
    """One connection, guarded by a lock; the table serialises commands anyway."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self._db = connection
        self._lock = threading.RLock()
        self.path = path
        self._heads: dict[str, tuple[int, str]] = {}
        self.position = 0
        self.read_only = False
        self._commits: ThreadPoolExecutor | None = None

    @classmethod
    def open(cls, path: Path | str, verify: bool = True, read_only: bool = False) -> EventStore:
        """Open (or create) the store; a damaged file raises StoreCorrupted, never a silent reset.

        `read_only` is for tools that read while the service writes (replay, export).
        """
        path = Path(path)
        existed = path.exists() and path.stat().st_size > 0
        if read_only and not existed:
            raise StoreError(f"no event log at {path}")
        try:
            if read_only:
                db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None,
                                     check_same_thread=False)
            else:
                db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as err:
            raise StoreError(f"cannot open {path}: {err}") from err
        store = cls(db, path)
        store.read_only = read_only
        try:
            store._prepare(existed, verify)
        except (sqlite3.DatabaseError, ValueError, KeyError) as err:
            db.close()
            raise StoreCorrupted(
                f"{path} is damaged ({err}); refusing to start. Move it aside or restore a backup."
            ) from err
        except StoreCorrupted:
            db.close()
            raise
        return store

    def _prepare(self, existed: bool, verify: bool) -> None:
        db = self._db
        db.execute(f"PRAGMA cache_size=-{PAGE_CACHE_KIB}")
        if existed:
            # Touch the header first so a file that is not a database fails before anything is written.
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        if not self.read_only:
            db.execute("PRAGMA journal_mode=WAL").fetchone()
            db.execute("PRAGMA synchronous=FULL")
        if verify and existed:
            problems = [row[0] for row in db.execute("PRAGMA integrity_check").fetchall()]
            if problems != ["ok"]:
                raise StoreCorrupted(
                    f"{self.path} failed SQLite's integrity check ({'; '.join(problems[:3])}); refusing to start."
                    " Move it aside or restore a backup."
                )
        if not self.read_only:
            db.executescript(_SCHEMA)
            columns = {row[1] for row in db.execute("PRAGMA table_info(events)")}
            if "command" not in columns:  # logs written before commands were kept
                db.execute("ALTER TABLE events ADD COLUMN command TEXT")
        version = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        if version is None and not self.read_only:
            db.execute("INSERT INTO meta(key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        elif version is None or int(version[0]) != SCHEMA_VERSION:
            found = "no schema version" if version is None else f"schema version {version[0]}"
            raise StoreCorrupted(f"{self.path} has {found}; this companion reads version {SCHEMA_VERSION}")
        events = list(self._iter(""))
        if verify:
            problems = verify_chain(events)
            if problems:
                raise StoreCorrupted(
                    f"{self.path}: the event log does not verify ({problems[0]}"
                    f"{f' and {len(problems) - 1} more' if len(problems) > 1 else ''}); refusing to start."
                )
        for event in events:
            self._heads[event.stream] = (event.seq, event.hash)
            self.position = max(self.position, event.position)

    def head(self, stream: str) -> int:
        """The last seq of a stream, 0 when the stream is empty."""
        return self._heads.get(stream, (0, GENESIS))[0]

    def append(self, batch: Sequence[PendingEvent],
               meanwhile: Callable[[list[RecordedEvent]], None] | None = None) -> list[RecordedEvent]:
        """Store every event of the batch in one transaction, or none of them.

        `meanwhile` is called with the events as they will be stored while the commit waits for the
        disk (in a thread of the store's own): a caller prepares what it will show once they are,
        and shows nothing before this returns. It must not raise, nor use the store.
        """
        with self._lock:
            heads = dict(self._heads)
            rows: list[tuple[object, ...]] = []
            recorded: list[RecordedEvent] = []
            for event in batch:
                last_seq, last_hash = heads.get(event.stream, (0, GENESIS))
                if event.seq != last_seq + 1:
                    raise DuplicateEvent(
                        f"stream {event.stream} is at event {last_seq}; cannot append event {event.seq}"
                    )
                digest = event.hashed(last_hash)
                heads[event.stream] = (event.seq, digest)
                rows.append((
                    event.stream, event.seq, event.type, event.actor, canonical_json(event.data),
                    int(event.reveals), canonical_json(list(event.draws)), event.mono_us, event.wall_ms,
                    last_hash, digest, None if event.command is None else canonical_json(event.command),
                ))
                recorded.append(RecordedEvent(
                    0, event.stream, event.seq, event.type, event.actor, event.data, event.mono_us,
                    event.wall_ms, last_hash, digest, event.reveals, tuple(event.draws), event.command,
                ))
            try:
                self._db.execute("BEGIN IMMEDIATE")
                positions = []
                for row in rows:
                    cursor = self._db.execute(
                        "INSERT INTO events (stream, seq, type, actor, data, reveals, draws, mono_us, wall_ms,"
                        " prev_hash, hash, command) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        row,
                    )
                    positions.append(cursor.lastrowid)
                placed = [replace(stored, position=int(position or 0))
                          for position, stored in zip(positions, recorded, strict=True)]
                if meanwhile is None:
                    self._db.execute("COMMIT")
                else:
                    waiting = threading.Event()

                    def commit() -> None:
                        waiting.set()
                        self._db.execute("COMMIT")  # Python's lock is let go while the disk works

                    committed = self._committer().submit(commit)
                    # Until that thread is in the disk's wait it needs Python's lock, which this
                    # thread would keep while it prepares: the commit would only start afterwards.
                    waiting.wait()
                    try:
                        meanwhile(placed)
                    except Exception:
                        log.exception("could not prepare what the events show; they are shown once stored")
                    committed.result()
            except sqlite3.IntegrityError as err:
                self._rollback()
                raise DuplicateEvent(f"double append refused by the database: {err}") from err
            except sqlite3.Error as err:
                self._rollback()
                raise StoreError(f"could not store events: {err}") from err
            except BaseException:
                self._rollback()
                raise
            self._heads = heads
            if placed:
                self.position = placed[-1].position
            return placed

    def _committer(self) -> ThreadPoolExecutor:
        """The thread a commit waits for the disk in, while the appending thread goes on."""
        if self._commits is None:
            self._commits = ThreadPoolExecutor(max_workers=1, thread_name_prefix="commit")
        return self._commits

    def _rollback(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self._db.execute("ROLLBACK")

    def read(self, stream: str) -> list[RecordedEvent]:
        with self._lock:
            return list(self._iter(stream))

    def read_all(self) -> list[RecordedEvent]:
        with self._lock:
            return list(self._iter(""))

    def streams(self) -> list[str]:
        """Every stream, in the order it was first written."""
        with self._lock:
            rows = self._db.execute("SELECT stream FROM events GROUP BY stream ORDER BY min(position)").fetchall()
        return [row[0] for row in rows]

    def _iter(self, stream: str) -> Iterator[RecordedEvent]:
        if stream:
            cursor = self._db.execute(f"SELECT {_COLUMNS} FROM events WHERE stream=? ORDER BY seq", (stream,))
        else:
            cursor = self._db.execute(f"SELECT {_COLUMNS} FROM events ORDER BY position")
        for row in cursor:
            yield RecordedEvent(
                position=row[0], stream=row[1], seq=row[2], type=row[3], actor=row[4],
                data=json.loads(row[5]), reveals=bool(row[6]), draws=tuple(json.loads(row[7])),
                mono_us=row[8], wall_ms=row[9], prev_hash=row[10], hash=row[11],
                command=None if row[12] is None else json.loads(row[12]),
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()
            if self._commits is not None:
                self._commits.shutdown()
                self._commits = None


