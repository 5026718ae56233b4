"""Runs the app under waitress, a production WSGI server in pure Python (no compiler on the Pi).

Each long-poll or stream holds one worker thread, so the thread count is a setting.
"""

from __future__ import annotations

import errno
import signal
from collections.abc import Callable
from types import FrameType
from typing import Any

from waitress.channel import HTTPChannel
from waitress.server import create_server

from companion.errors import CompanionError


class PortInUse(CompanionError):
    pass


OUTBUF_HIGH_WATERMARK = 256 * 1024
"""Bytes a connection may have queued before its writer waits. Waitress's default (16 MB) lets
every open stream keep up to 16 MB of already-sent text in memory; a Pi has no room for that."""


class StreamChannel(HTTPChannel):
    """A connection that does not ask the main loop to write while a worker holds its buffer.

    Waitress marks a connection writable whenever it has queued bytes; while the worker of a
    stream holds the buffer's lock, the main loop then fails to take it and polls again at once,
    spinning over every connection (measured: most of the server's CPU with 100 screens). The
    worker wakes the loop itself when it has queued data, so skipping those connections loses
    nothing.
    """

    def writable(self) -> bool:
        if self.requests and not (self.will_close or self.close_when_flushed):
            if not self.outbuf_lock.acquire(blocking=False):
                return False
            self.outbuf_lock.release()
        return bool(self.total_outbufs_len or self.will_close or self.close_when_flushed)


def make_server(app: Callable[..., Any], host: str, port: int, threads: int) -> Any:
    try:
        server = create_server(
            app, host=host, port=port, threads=threads, connection_limit=max(100, threads * 4),
            asyncore_use_poll=True, channel_timeout=60, ident="table-companion",
            outbuf_high_watermark=OUTBUF_HIGH_WATERMARK,
        )
        # One listening server, or (for a name with several addresses) one per address.
        listeners = [server] if hasattr(server, "channel_class") else list(server.map.values())
        for listener in listeners:
            if hasattr(listener, "channel_class"):
                listener.channel_class = StreamChannel
        return server
    except OSError as err:
        if err.errno == errno.EADDRINUSE:
            raise PortInUse(f"port {port} on {host} is already in use (is another companion running?);"
                            " choose another with --port") from None
        if err.errno in (errno.EACCES, errno.EPERM):
            raise PortInUse(f"not allowed to listen on port {port} (ports below 1024 need root)") from None
        raise CompanionError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None


def serve_forever(server: Any, on_stop: Callable[[], None] = lambda: None) -> None:
    """Serve until Ctrl-C or SIGTERM, then close the listening socket.

    Both signals become KeyboardInterrupt, the one exception waitress's loop lets through (it
    swallows others raised inside a connection's handler). `on_stop` runs first, to release
    the threads that wait on long polls so shutdown does not wait for them.
    """

    def stop(signum: int, frame: FrameType | None) -> None:
        on_stop()
        raise KeyboardInterrupt(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        server.close()
