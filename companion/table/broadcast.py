"""Tells every open page that something changed, by number only.

`position` is the log's sequence number; `revision` also moves when something outside the log
changes what a page shows (a phone connects or drops). Each page then asks for its own view, so
nothing but numbers is shared between viewers.
"""

from __future__ import annotations

import threading


class Broadcaster:
    def __init__(self, position: int = 0) -> None:
        self._position = position
        self._revision = 0
        self._changed = threading.Condition()
        self.closed = False

    @property
    def position(self) -> int:
        return self._position

    @property
    def revision(self) -> int:
        return self._revision

    def publish(self, position: int) -> None:
        with self._changed:
            self._position = max(self._position, position)
            self._revision += 1
            self._changed.notify_all()

    def nudge(self) -> None:
        with self._changed:
            self._revision += 1
            self._changed.notify_all()

    def wait_beyond(self, position: int, timeout: float) -> int:
        """Block until the log is past `position`, the timeout passes, or the service stops."""
        with self._changed:
            self._changed.wait_for(lambda: self._position > position or self.closed, timeout)
            return self._position

    def wait_for_change(self, revision: int, timeout: float) -> int:
        """Block until the revision differs from `revision` (or timeout, or stop); the new revision."""
        with self._changed:
            self._changed.wait_for(lambda: self._revision != revision or self.closed, timeout)
            return self._revision

    def close(self) -> None:
        with self._changed:
            self.closed = True
            self._changed.notify_all()
