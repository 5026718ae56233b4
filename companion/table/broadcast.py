"""Tells every open page that the log moved on, by sequence number only.

Each page then asks for its own view, so nothing but a number is shared between viewers.
"""

from __future__ import annotations

import threading


class Broadcaster:
    def __init__(self, position: int = 0) -> None:
        self._position = position
        self._changed = threading.Condition()
        self._closed = False

    @property
    def position(self) -> int:
        return self._position

    def publish(self, position: int) -> None:
        with self._changed:
            if position > self._position:
                self._position = position
            self._changed.notify_all()

    def wait_beyond(self, position: int, timeout: float) -> int:
        """Block until the log is past `position`, the timeout passes, or the service stops."""
        with self._changed:
            self._changed.wait_for(lambda: self._position > position or self._closed, timeout)
            return self._position

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._changed.notify_all()
