"""Tells every open page that something changed, by number only.

`position` is the log's sequence number; `revision` also moves when something outside the log
changes what a page shows (a phone connects or drops). Each page then asks for its own view, so
nothing but numbers is shared between viewers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class Broadcaster:
    def __init__(self, position: int = 0) -> None:
        self._position = position
        self._revision = 0
        self._changed = threading.Condition()
        self._listeners: list[Callable[[], None]] = []
        self._foreseers: list[tuple[Callable[[], bool], Callable[[], None]]] = []
        self._keepers: list[Callable[[Callable[[], None]], bool]] = []
        self.closed = False

    def listen(self, listener: Callable[[], None]) -> None:
        """Call `listener` after every change and at close, in the changing thread, outside any
        lock: an event loop's streams are woken by it instead of a waiting thread each."""
        self._listeners.append(listener)

    def listen_ahead(self, foreseer: Callable[[], None], wanted: Callable[[], bool] = lambda: True) -> None:
        """Call `foreseer` while a change is being stored, in the changing thread (which holds the
        table's lock and already sees the change): it may prepare what it will send once the change
        is published, and sends nothing. The disk's wait is then not added to every screen's.
        `wanted` says, in the changing thread, whether it would prepare anything now."""
        self._foreseers.append((wanted, foreseer))

    def keep_changes(self, keeper: Callable[[Callable[[], None]], bool]) -> None:
        """`keeper` takes a change a timer makes to where the pages are kept (an event loop), and
        says False when nothing keeps them there now (the loop has stopped)."""
        self._keepers.append(keeper)

    def make_change(self, change: Callable[[], None]) -> None:
        """Make a change a timer decided (a round's decision, a choice that ran out) where the
        pages are kept: its messages are then made while it is stored, as a command's are, and
        sent with no other thread to wake. In this thread when nothing keeps them."""
        if not any(keeper(change) for keeper in self._keepers):
            change()

    def foresees(self) -> bool:
        """Whether a change made in this thread now would be prepared while it is stored."""
        return any(wanted() for wanted, _ in self._foreseers)

    def foresee(self) -> None:
        for wanted, foreseer in self._foreseers:
            if wanted():
                foreseer()

    def _tell(self) -> None:
        for listener in self._listeners:
            listener()

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
        self._tell()

    def nudge(self) -> None:
        with self._changed:
            self._revision += 1
            self._changed.notify_all()
        self._tell()

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
        self._tell()
