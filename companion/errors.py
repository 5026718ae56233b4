"""One exception family, so the CLI can turn any of them into one clear line.

Rejected player actions are not exceptions (they are `Rejection` values); these are for
configuration, storage and start-up problems a person has to fix.
"""

from __future__ import annotations


class CompanionError(Exception):
    """Base of every error the companion reports to a person as one line."""


class ConfigError(CompanionError, ValueError):
    """A configuration value is wrong; the message names the key and the problem."""

    def __init__(self, key: str, problem: str, source: str | None = None) -> None:
        self.key = key
        self.problem = problem
        self.source = source
        where = f"{source}: " if source else ""
        super().__init__(f"{where}{key}: {problem}")


class DataDirError(CompanionError, OSError):
    """The data folder cannot be created or written."""


class StoreError(CompanionError):
    """Base of event-store errors; raw sqlite3 errors never cross the store boundary."""


class DuplicateEvent(StoreError):
    """An event with the same (stream, seq) is already stored: a double append."""


class StoreCorrupted(StoreError):
    """The database file is damaged or its hash chain does not verify; never reset silently."""


class ReplayMismatch(StoreError):
    """A stored log cannot be replayed by the current rules (e.g. a recorded draw does not fit)."""
