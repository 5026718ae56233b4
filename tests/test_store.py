"""The event log: append-only, one transaction per batch, hash-chained, refusing damaged files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from companion.errors import DuplicateEvent, StoreCorrupted, StoreError
from companion.store import GENESIS, EventStore, PendingEvent, verify_chain
from companion.store.sqlite import PAGE_CACHE_KIB


def pending(stream: str, seq: int, **data: object) -> PendingEvent:
    return PendingEvent(stream, seq, "thing_happened", "host", data, 1000 * seq, 1_795_000_000_000 + seq)


def test_appended_events_come_back_in_order_with_linked_hashes(store: EventStore) -> None:
    store.append([pending("g1", 1, n=1), pending("g1", 2, n=2)])
    store.append([pending("g2", 1, n=3)])
    events = store.read("g1")
    assert [e.seq for e in events] == [1, 2]
    assert events[0].prev_hash == GENESIS
    assert events[1].prev_hash == events[0].hash
    assert [e.position for e in store.read_all()] == [1, 2, 3]
    assert store.streams() == ["g1", "g2"]
    assert verify_chain(store.read_all()) == []


def test_a_double_append_fails_and_stores_nothing(store: EventStore) -> None:
    store.append([pending("g1", 1)])
    with pytest.raises(DuplicateEvent):
        store.append([pending("g1", 1)])
    with pytest.raises(DuplicateEvent):
        store.append([pending("g1", 3)])
    assert [e.seq for e in store.read("g1")] == [1]


def test_the_database_itself_refuses_a_double_append_from_another_writer(tmp_path: Path) -> None:
    path = tmp_path / "events.sqlite3"
    first = EventStore.open(path)
    second = EventStore.open(path)
    try:
        first.append([pending("g1", 1, who="first")])
        with pytest.raises(DuplicateEvent):
            second.append([pending("g1", 1, who="second")])
        assert [e.data["who"] for e in first.read("g1")] == ["first"]
    finally:
        first.close()
        second.close()


def test_a_failing_batch_is_rolled_back_whole(store: EventStore) -> None:
    store.append([pending("g1", 1)])
    gap = PendingEvent("g1", 4, "x", "host", {}, 0, 0)  # seq gap: refused before anything is written
    with pytest.raises(DuplicateEvent):
        store.append([pending("g1", 2), gap])
    unserialisable = PendingEvent("g1", 3, "x", "host", {"value": float("nan")}, 0, 0)
    with pytest.raises(ValueError):
        store.append([pending("g1", 2), unserialisable])
    assert [e.seq for e in store.read("g1")] == [1]
    assert store.head("g1") == 1
    store.append([pending("g1", 2)])
    assert verify_chain(store.read("g1")) == []


def test_a_batch_failing_inside_the_transaction_leaves_nothing(tmp_path: Path) -> None:
    path = tmp_path / "events.sqlite3"
    first = EventStore.open(path)
    second = EventStore.open(path)
    try:
        first.append([pending("g1", 1)])
        # The second writer knows nothing of g1 yet, so its own g1/1 collides inside the transaction,
        # after its g2/1 row was already inserted.
        with pytest.raises(DuplicateEvent):
            second.append([pending("g2", 1), pending("g1", 1)])
        assert second.read("g2") == []
        assert second.head("g2") == 0
        second.append([pending("g2", 1)])
        assert [e.stream for e in first.read_all()] == ["g1", "g2"]
    finally:
        first.close()
        second.close()


def test_rows_cannot_be_changed_or_deleted(store: EventStore, tmp_path: Path) -> None:
    store.append([pending("g1", 1)])
    raw = sqlite3.connect(tmp_path / "events.sqlite3")
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            raw.execute("UPDATE events SET data='{}'")
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            raw.execute("DELETE FROM events")
    finally:
        raw.close()


def test_reopening_restores_heads_and_position(tmp_path: Path) -> None:
    path = tmp_path / "events.sqlite3"
    store = EventStore.open(path)
    store.append([pending("g1", 1), pending("g1", 2), pending("table", 1)])
    store.close()
    again = EventStore.open(path)
    try:
        assert again.head("g1") == 2 and again.head("table") == 1 and again.position == 3
        again.append([pending("g1", 3)])
        assert verify_chain(again.read_all()) == []
    finally:
        again.close()


def test_the_page_cache_is_capped_for_appending_and_reading_alike(tmp_path: Path) -> None:
    """The connection keeps at most PAGE_CACHE_KIB of pages (not SQLite's 2 MB): a log many times
    that size is still written, reopened, checked and read whole through it."""
    path = tmp_path / "events.sqlite3"
    store = EventStore.open(path)
    try:
        assert store._db.execute("PRAGMA cache_size").fetchone()[0] == -PAGE_CACHE_KIB
        for seq in range(1, 401):
            store.append([pending("g1", seq, text="x" * 4000)])  # about a page per event
    finally:
        store.close()
    assert path.stat().st_size > 4 * PAGE_CACHE_KIB * 1024  # closed: checkpointed into the file
    for read_only in (False, True):
        again = EventStore.open(path, read_only=read_only)
        try:
            assert again._db.execute("PRAGMA cache_size").fetchone()[0] == -PAGE_CACHE_KIB
            assert again.head("g1") == 400 and len(again.read("g1")) == 400
            assert verify_chain(again.read_all()) == []
        finally:
            again.close()


def _tamper(path: Path, sql: str) -> None:
    raw = sqlite3.connect(path)
    raw.execute("DROP TRIGGER events_append_only_update")
    raw.execute("DROP TRIGGER events_append_only_delete")
    raw.execute(sql)
    raw.commit()
    raw.close()


@pytest.mark.parametrize(
    ("sql", "problem"),
    [
        ("UPDATE events SET data='{\"n\":99}' WHERE seq=2", "content does not match its hash"),
        ("DELETE FROM events WHERE seq=2", "expected event 2"),
        ("UPDATE events SET seq=seq+10 WHERE seq=3", "expected event 3"),
    ],
    ids=["edited", "dropped", "renumbered"],
)
def test_a_tampered_log_refuses_to_open(tmp_path: Path, sql: str, problem: str) -> None:
    path = tmp_path / "events.sqlite3"
    store = EventStore.open(path)
    store.append([pending("g1", 1, n=1), pending("g1", 2, n=2), pending("g1", 3, n=3)])
    store.close()
    _tamper(path, sql)
    with pytest.raises(StoreCorrupted, match=problem):
        EventStore.open(path)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "zeroed-page"])
def test_a_damaged_file_refuses_to_open_and_is_left_as_it_was(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "events.sqlite3"
    store = EventStore.open(path)
    store.append([pending("g1", i + 1, text="x" * 500) for i in range(40)])
    store.close()
    content = path.read_bytes()
    if damage == "garbage":
        broken = b"this is not a database at all" * 100
    elif damage == "truncated":
        broken = content[: len(content) // 3]
    else:
        page = 4096
        broken = content[: 2 * page] + bytes(page) + content[3 * page :]
    path.write_bytes(broken)
    with pytest.raises(StoreCorrupted, match="refusing to start"):
        EventStore.open(path)
    assert path.read_bytes() == broken, "a refused file must never be reset or rewritten"


def test_read_only_opening_of_a_missing_log_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no event log"):
        EventStore.open(tmp_path / "nothing.sqlite3", read_only=True)
