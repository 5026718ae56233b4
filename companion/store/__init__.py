"""The durable event log: append-only, hash-chained, one SQLite transaction per command."""

from companion.store.records import GENESIS, PendingEvent, RecordedEvent, verify_chain
from companion.store.sqlite import EventStore

__all__ = ["GENESIS", "EventStore", "PendingEvent", "RecordedEvent", "verify_chain"]
