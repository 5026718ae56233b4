"""One screen's live stream, apart from how its bytes travel.

A `StreamSession` says what a screen is sent next: its whole view first, then patches from one view
to the next, a heartbeat when the table is quiet, the pings that map a page's clock, and `revoked`
when its seat moved to another phone. It never waits and never writes: a driver calls `step()`
when the table changed or the step's wait ran out, and hands the bytes to the connection.

Two drivers exist. The server's event loop drives every open stream at once (http1.py): a change
pushes the streams, each view is built once and each message encoded once (views.py and patch.py
share them by identity), and the loop writes the bytes. `blocking_events` drives one session from
a thread, for any plain WSGI server and for Flask's test client.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.buzzers.phones import Screen
from companion.clock import Clock
from companion.games.base import Viewer
from companion.server.patch import SharedEncoder

if TYPE_CHECKING:
    from companion.buzzers.hub import ButtonHub
    from companion.table.session import Table

OPENING = b"retry: 1000\n\n"
"""The page's EventSource reconnects after a second when the link drops."""

REVOKED = b"event: revoked\ndata: {}\n\n"

LIVE_SESSION = "companion.live_session"
"""The WSGI environ key under which the stream route leaves its session for a server that drives
sessions itself (http1.py); a server that does not know it iterates the response as usual."""


@dataclass(frozen=True)
class Step:
    message: bytes
    """What to send now (empty: nothing)."""
    wait_s: float
    """How long to wait for a change before stepping again."""
    done: bool = False
    """The stream ends after this message."""


class StreamSession:
    def __init__(self, table: Table, viewer: Viewer, screen: Screen | None, still_seated: Callable[[], bool],
                 encoder: SharedEncoder, buttons: ButtonHub, clock: Clock, heartbeat_s: float) -> None:
        self.table = table
        self.viewer = viewer
        self.screen = screen
        """The clock link this stream's pings measure (a seat, or one display), or None."""
        self._still_seated = still_seated
        self._encoder = encoder
        self._buttons = buttons
        self._clock = clock
        self._heartbeat_s = heartbeat_s
        # An event, not a comment: a page hears it, and tells a silent link from a quiet table by it.
        self._alive = f"event: alive\ndata: {heartbeat_s:g}\n\n".encode()
        self._last: dict[str, Any] | None = None
        self._sent = time.monotonic()
        self._open = False

    def open(self) -> bytes:
        """The screen is connected (others see it in their views): the stream's first bytes."""
        self.table.presence.enter(self.viewer)
        self._open = True
        return OPENING

    def close(self) -> None:
        if not self._open:
            return
        self._open = False
        self.table.presence.leave(self.viewer)
        if isinstance(self.screen, str):
            self._buttons.phones.forget(self.screen)

    @property
    def revision(self) -> int:
        return self.table.broadcaster.revision

    def prepare(self) -> None:
        """While the change is stored: this screen's next view and message made ahead (views.py
        and patch.py keep them by identity, so `step` finds them), nothing sent or kept here."""
        if not self._open or self.table.broadcaster.closed or not self._still_seated():
            return
        self._encoder.message(self._last, self.table.view(self.viewer))

    def step(self) -> Step:
        """What the screen is sent now, and how long to wait for a change before the next step.

        The credentials are checked again before every message, so a phone whose seat was rebound
        to another phone stops receiving that seat's view at once.
        """
        if self.table.broadcaster.closed:
            return Step(b"", 0.0, done=True)
        if not self._still_seated():
            return Step(REVOKED, 0.0, done=True)
        current = self.table.view(self.viewer)
        message = self._encoder.message(self._last, current)
        self._last = current
        now = time.monotonic()
        if message is None and now - self._sent >= self._heartbeat_s:
            message = self._alive
        if message:
            message += b"event: now\ndata: %d\n\n" % self._clock.now_us()
            self._sent = now
        else:
            message = b""
        wait = max(0.0, self._heartbeat_s - (now - self._sent))
        if self.screen is not None and self._buttons.phones_timed():
            # A page's clock is mapped by the server: a ping goes down this stream, the page echoes
            # it at once with its clock's reading (POST /api/ping); phones.py says when. A phone's
            # buzzes and a display's shown frames are timed by it.
            phones = self._buttons.phones
            due = phones.due_in_s(self.screen)
            if due <= 0:
                message += b"event: ping\ndata: %d\n\n" % phones.ping(self.screen)
                due = phones.due_in_s(self.screen)
            wait = min(wait, due)
        return Step(message, wait)


def blocking_events(session: StreamSession) -> Iterator[bytes]:
    """The session driven from the calling thread: a plain WSGI server's way to stream."""
    yield session.open()
    try:
        while True:
            revision = session.revision
            step = session.step()
            if step.message:
                yield step.message
            if step.done:
                return
            session.table.broadcaster.wait_for_change(revision, step.wait_s)
    finally:
        session.close()
