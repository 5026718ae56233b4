"""Runs the app under waitress, a production WSGI server in pure Python (no compiler on the Pi).

Each long-poll or stream holds one worker thread, so the thread count is a setting.
"""

from __future__ import annotations

import errno
import signal
from collections.abc import Callable
from types import FrameType
from typing import Any

from waitress.server import create_server

from companion.errors import CompanionError


class PortInUse(CompanionError):
    pass


def make_server(app: Callable[..., Any], host: str, port: int, threads: int) -> Any:
    try:
        return create_server(
            app, host=host, port=port, threads=threads, connection_limit=max(100, threads * 4),
            asyncore_use_poll=True, channel_timeout=60, ident="table-companion",
        )
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
