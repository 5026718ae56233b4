"""A TCP proxy on loopback that holds back every chunk of bytes, each way, as one phone's Wi-Fi
would: what bench/phone_fairness.py puts between each phone's HTTP client and the real service.

Loopback delivers in microseconds, so without it the whole service would be measured on a link no
phone ever has. The in-process simulation (companion/sim/wifi.py) delays the messages it hands the
referee; only the service over real sockets adds what its threads, its streams and its HTTP
parsing do to a ping, a frame report or a buzz. The delays are that simulation's `Link`: `down` for
the service's bytes to the phone, `up` for the phone's, drawn for each chunk as it is read, and a
chunk is never released before the one ahead of it on its connection (TCP delivers in order: a
stall holds up everything behind it, as on the air).

The proxy connects to the service from the phone's own loopback address, so the service sees each
phone where it would without the proxy (its per-address limits, its logs). Every proxy runs on one
asyncio loop in a thread of its own; `on_release` hears each chunk just before it is written on,
with the instant (host timeline, µs), so a bench knows when a request's first byte reached the
service.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import threading
import time
from collections.abc import Callable
from typing import Literal

from companion.sim.wifi import Link

Direction = Literal["up", "down"]
Release = Callable[[Direction, bytes, int], None]
"""Told of each chunk just before it is written on: its direction, its bytes, the instant (µs)."""
CHUNK_BYTES = 1 << 16
START_TIMEOUT_S = 5.0
STOP_TIMEOUT_S = 5.0
DRAIN_TIMEOUT_S = 1.0


def now_us() -> int:
    """The host timeline (the service's clock: CLOCK_MONOTONIC in µs)."""
    return time.monotonic_ns() // 1000


class DelayProxy:
    """One phone's link: a listening port on 127.0.0.1; every connection to it is carried to the
    service's port, from `source`, each chunk held back by the link's delay for its direction."""

    def __init__(self, link: Link, target_port: int, source: str, seed: int,
                 on_release: Release | None = None) -> None:
        self.link = link
        self.target_port = target_port
        self.source = source
        self.rng = random.Random(seed)
        """Drawn from on the loop's thread only."""
        self.on_release = on_release
        self.port = 0
        self.refused = 0
        """Connections the service would not take (it was not listening)."""
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    def delay_us(self, direction: Direction) -> int:
        return self.link.up(self.rng) if direction == "up" else self.link.down(self.rng)

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._carry, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in list(self._writers):
            writer.close()

    async def _carry(self, phone_in: asyncio.StreamReader, phone_out: asyncio.StreamWriter) -> None:
        try:
            service_in, service_out = await asyncio.open_connection("127.0.0.1", self.target_port,
                                                                    local_addr=(self.source, 0))
        except OSError:
            self.refused += 1
            phone_out.close()
            return
        for writer in (phone_out, service_out):
            self._writers.add(writer)
            sock = writer.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            await asyncio.gather(self._pipe(phone_in, service_out, "up"), self._pipe(service_in, phone_out, "down"))
        except asyncio.CancelledError:
            pass  # the loop is closing: a connection's task ends quietly (asyncio reports one cancelled)
        finally:
            for writer in (phone_out, service_out):
                self._writers.discard(writer)
                writer.close()

    async def _pipe(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, direction: Direction) -> None:
        """Read chunks as they come and release each at its own time, in order, on another task: a
        held chunk must not stop the reading (its delay starts when it was read)."""
        held: asyncio.Queue[tuple[int, bytes]] = asyncio.Queue()
        releasing = asyncio.create_task(self._release(held, sink, direction))
        last = 0
        try:
            while True:
                try:
                    data = await source.read(CHUNK_BYTES)
                except OSError:
                    data = b""
                last = max(now_us() + (self.delay_us(direction) if data else 0), last)
                held.put_nowait((last, data))
                if not data:
                    break
            await releasing
        finally:
            releasing.cancel()

    async def _release(self, held: asyncio.Queue[tuple[int, bytes]], sink: asyncio.StreamWriter,
                       direction: Direction) -> None:
        while True:
            due, data = await held.get()
            wait = due - now_us()
            if wait > 0:
                await asyncio.sleep(wait / 1e6)
            try:
                if not data:
                    if sink.can_write_eof():
                        sink.write_eof()  # the other side said all it had to: pass its end on
                    return
                if self.on_release is not None:
                    self.on_release(direction, data, now_us())
                sink.write(data)
                await sink.drain()
            except OSError:
                sink.close()
                return


class ProxyLoop:
    """The asyncio loop every DelayProxy of a bench runs on, in a daemon thread; its calls are made
    from other threads and each waits a bounded time."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.proxies: list[DelayProxy] = []
        self._thread = threading.Thread(target=self.loop.run_forever, name="delay-proxies", daemon=True)
        self._thread.start()

    def add(self, link: Link, target_port: int, source: str, seed: int,
            on_release: Release | None = None) -> DelayProxy:
        """A new proxy, listening already."""
        proxy = DelayProxy(link, target_port, source, seed, on_release)
        asyncio.run_coroutine_threadsafe(proxy.start(), self.loop).result(START_TIMEOUT_S)
        self.proxies.append(proxy)
        return proxy

    def close(self) -> None:
        """Stop every proxy, hang up their connections, and end the loop's thread (bounded)."""
        if not self.loop.is_running():
            return

        async def stop_all() -> None:
            for proxy in self.proxies:
                await proxy.stop()
            # Hung up: each connection ends once the chunks it holds are out; the rest are cut.
            carrying = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            if carrying:
                _, cut = await asyncio.wait(carrying, timeout=DRAIN_TIMEOUT_S)
                for task in cut:
                    task.cancel()
                await asyncio.gather(*cut, return_exceptions=True)

        with contextlib.suppress(TimeoutError, RuntimeError):
            asyncio.run_coroutine_threadsafe(stop_all(), self.loop).result(STOP_TIMEOUT_S)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(STOP_TIMEOUT_S)
        if not self._thread.is_alive():
            self.loop.close()
