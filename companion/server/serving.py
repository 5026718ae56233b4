"""Runs the app on one port under uvicorn: an asyncio HTTP server in pure Python (h11; no
compiler on the Pi), whose event loop keeps the live streams while Flask answers in threads
(asgi.py says how the two share the work).

The listening sockets are opened here, before the server starts, so a port already in use is
a clear error before anything is written to the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import signal
import socket
import threading
from collections.abc import Callable, Generator
from concurrent.futures import ThreadPoolExecutor
from types import FrameType
from typing import Any

import uvicorn

from companion.errors import CompanionError
from companion.server.asgi import CompanionASGI, LiveStreams

ANSWERING_THREADS = 6
"""Threads answering requests other than long polls: Python runs one at a time, and a few keep a
slow one (a store on an SD card) from holding up the others."""

KEEP_ALIVE_S = 60
"""How long an idle keep-alive connection stays open (a phone's next tap reuses it)."""


class PortInUse(CompanionError):
    pass


class TableServer(uvicorn.Server):
    """uvicorn's server, stopped by Ctrl-C or SIGTERM through the table: `on_stop` ends the streams
    and long polls first, so the server's graceful shutdown has no open response to wait for.

    uvicorn's own signal handling would raise the signal again once stopped, which for SIGTERM
    kills the process before the service has closed its log; this one returns instead.
    """

    def __init__(self, config: uvicorn.Config, sockets: list[socket.socket], streams: LiveStreams,
                 executors: tuple[ThreadPoolExecutor, ...], on_stop: Callable[[], None] = lambda: None) -> None:
        super().__init__(config)
        self.sockets = sockets
        self.streams = streams
        self.executors = executors
        self.on_stop = on_stop
        self._loop: asyncio.AbstractEventLoop | None = None

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {sig: signal.signal(sig, self.stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def stop(self, signum: int = signal.SIGTERM, frame: FrameType | None = None) -> None:
        """Stop serving (any thread, or a signal handler): a second Ctrl-C stops without waiting."""
        if self.should_exit and signum == signal.SIGINT:
            self.force_exit = True
        self.should_exit = True
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.on_stop)
        else:
            self.on_stop()

    async def run_table(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.streams.bind(self._loop)
        try:
            await self.serve(sockets=self.sockets)
        finally:
            for executor in self.executors:
                executor.shutdown(wait=False, cancel_futures=True)


def listen(host: str, port: int) -> list[socket.socket]:
    """Listening sockets for every address of `host` (a name may have several)."""
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as err:
        raise CompanionError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None
    sockets: list[socket.socket] = []
    try:
        for family, kind, proto, _name, address in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(1024)
            sock.setblocking(False)
    except OSError as err:
        for sock in sockets:
            sock.close()
        if err.errno == errno.EADDRINUSE:
            raise PortInUse(f"port {port} on {host} is already in use (is another companion running?);"
                            " choose another with --port") from None
        if err.errno in (errno.EACCES, errno.EPERM):
            raise PortInUse(f"not allowed to listen on port {port} (ports below 1024 need root)") from None
        raise CompanionError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None
    return sockets


def make_server(app: Any, host: str, port: int, threads: int) -> TableServer:
    """The server for a Flask app made by create_app: up to `threads` long polls wait at once (each
    holds a thread), other requests share a few threads, and streams hold none."""
    streams = LiveStreams(app.extensions["companion"].table.broadcaster)
    executor = ThreadPoolExecutor(max_workers=min(threads, ANSWERING_THREADS), thread_name_prefix="http")
    waiting = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="poll")
    asgi = CompanionASGI(app, streams, executor, app.config["MAX_CONTENT_LENGTH"], waiting)
    config = uvicorn.Config(
        asgi, lifespan="off", ws="none", http="h11", interface="asgi3", log_config=None, access_log=False,
        proxy_headers=False, server_header=False, headers=[("server", "table-companion")],
        timeout_keep_alive=KEEP_ALIVE_S, limit_concurrency=max(256, threads * 4), timeout_graceful_shutdown=5,
    )
    # uvicorn's start and stop lines would repeat what `serve` prints; its errors still show.
    logging.getLogger("uvicorn").setLevel(logging.WARNING)
    return TableServer(config, listen(host, port), streams, (executor, waiting))


def serve_forever(server: TableServer, on_stop: Callable[[], None] = lambda: None) -> None:
    """Serve until Ctrl-C or SIGTERM. `on_stop` runs first, to end the streams and release the
    threads that wait on long polls."""
    server.on_stop = on_stop
    try:
        asyncio.run(server.run_table())
    finally:
        for sock in server.sockets:
            sock.close()
