"""Which screens are connected right now. Not game state: it is never logged, only shown."""

from __future__ import annotations

import threading
from collections import Counter

from companion.games.base import Viewer
from companion.table.broadcast import Broadcaster


class Presence:
    def __init__(self, broadcaster: Broadcaster) -> None:
        self._broadcaster = broadcaster
        self._open: Counter[str] = Counter()
        self._lock = threading.Lock()
        self.version = 0
        """Moves on whenever a viewer connects first or leaves last: what `connected` answers may
        differ from then on (a view of who is here is made again only then)."""

    def enter(self, viewer: Viewer) -> None:
        with self._lock:
            self._open[str(viewer)] += 1
            first = self._open[str(viewer)] == 1
            if first:
                self.version += 1
        if first:
            self._broadcaster.nudge()

    def leave(self, viewer: Viewer) -> None:
        with self._lock:
            self._open[str(viewer)] -= 1
            last = self._open[str(viewer)] <= 0
            if last:
                del self._open[str(viewer)]
                self.version += 1
        if last:
            self._broadcaster.nudge()

    def connected(self, viewer: Viewer) -> bool:
        with self._lock:
            return self._open.get(str(viewer), 0) > 0
