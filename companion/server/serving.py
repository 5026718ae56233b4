"""Runs the app on one port: an HTTP/1.1 server on one asyncio event loop (http1.py), which keeps
the live streams while Flask answers in threads.

The listening sockets are opened here, before the server starts, so a port already in use is
a clear error before anything is written to the log.
"""

from __future__ import annotations

import asyncio
import errno
import signal
import socket
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from types import FrameType
from typing import Any

from companion.errors import CompanionError
from companion.server.http1 import LiveStreams, Server

ANSWERING_THREADS = 6
"""Threads answering requests other than long polls: Python runs one at a time, and a few keep a
slow one (a store on an SD card) from holding up the others. Each thread that allocates keeps its
own caches of freed memory, which grow, a size class at a time, over an evening: they stay few."""

KEEP_ALIVE_S = 60
"""How long an idle keep-alive connection stays open (a phone's next tap reuses it)."""

GRACE_S = 5.0
"""How long a stop waits for the answers on their way before it closes their connections."""


class PortInUse(CompanionError):
    pass


class TableServer:
    """The server, stopped by Ctrl-C or SIGTERM: `on_stop` ends the streams and long polls first,
    then the answers on their way are written (for up to GRACE_S) and the connections close. A
    second Ctrl-C stops without waiting."""

    def __init__(self, server: Server, sockets: list[socket.socket], executors: tuple[ThreadPoolExecutor, ...],
                 on_stop: Callable[[], None] = lambda: None) -> None:
        self.server = server
        self.sockets = sockets
        self.streams = server.streams
        self.executors = executors
        self.on_stop = on_stop
        self.should_exit = False
        self.force_exit = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopped: asyncio.Event | None = None

    def stop(self, signum: int = signal.SIGTERM, frame: FrameType | None = None) -> None:
        """Stop serving (any thread, or a signal handler)."""
        if self.should_exit and signum == signal.SIGINT:
            self.force_exit = True
        self.should_exit = True
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._stop_on_loop)
                return
            except RuntimeError:
                pass  # the loop closed meanwhile
        self.on_stop()

    def _stop_on_loop(self) -> None:
        self.on_stop()
        if self._stopped is not None:
            self._stopped.set()

    async def run_table(self) -> None:
        loop = asyncio.get_running_loop()
        self._stopped = asyncio.Event()
        self._loop = loop
        self.streams.bind(loop)
        listeners = [await loop.create_server(self.server.connection, sock=sock, backlog=1024)
                     for sock in self.sockets]
        try:
            if self.should_exit:
                self._stop_on_loop()
            await self._stopped.wait()
        finally:
            self.streams.unbind()
            for listener in listeners:
                listener.close()
            self.server.stopping = True
            self.server.close_idle()
            deadline = loop.time() + GRACE_S
            while not self.server.idle() and not self.force_exit and loop.time() < deadline:
                await asyncio.sleep(0.02)
            for connection in list(self.server.connections):
                connection.close()
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
    server = Server(app, streams, executor, app.config["MAX_CONTENT_LENGTH"], waiting,
                    keep_alive_s=KEEP_ALIVE_S, limit=max(256, threads * 4))
    return TableServer(server, listen(host, port), (executor, waiting))


def serve_forever(server: TableServer, on_stop: Callable[[], None] = lambda: None) -> None:
    """Serve until Ctrl-C or SIGTERM. `on_stop` runs first, to end the streams and release the
    threads that wait on long polls."""
    server.on_stop = on_stop
    previous = {}
    if threading.current_thread() is threading.main_thread():
        previous = {sig: signal.signal(sig, server.stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        asyncio.run(server.run_table())
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for sock in server.sockets:
            sock.close()
