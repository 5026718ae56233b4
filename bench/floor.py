"""The least a Python server must do per command: a yardstick beside the live-sync figures.

Per command, a server that keeps the table's promises must at least read the POST, commit it to
disk before anyone sees it, write it to every open stream and answer. This bench measures exactly
that and nothing else, on the libraries the service stands on (asyncio, httptools as
companion/server/wire.py reads with it, SQLite in WAL mode with synchronous=FULL, as
companion/store/sqlite.py): no Flask, no rules, no views, no patches, one message of the size ours
average for every stream. Whatever our service spends beyond these figures
is ours to cut; what the floor itself costs is CPython's and the kernel's.

Same shape as bench/live_latency.py: the server in its own process on loopback, 13 + 2 streams
(each its own connection), one keep-alive connection POSTing every 20 ms; latency from the POST
sent to every stream having the message, the server's CPU (utime + stime from /proc) per command.

Usage: .venv/bin/python -m bench.floor [--commands 600] [--clients 15] [--interval-ms 20]
A benchmark, not a test: it prints figures and asserts nothing. Every wait is bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import selectors
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.browser_latency import cpu_of
from companion.server.wire import RequestReader, chunk, head
from companion.sim.clients import BrowserLikeConnection
from companion.sim.service import free_port

MESSAGE_BYTES = 400
"""About the size of a dice roll's patch to one screen (live_latency reports 400-410 B)."""
TIMEOUT_S = 10.0


# -- the server ---------------------------------------------------------------------------------


class Floor:
    """What every connection shares: the log and the open streams."""

    def __init__(self, db_path: Path, synchronous: str) -> None:
        self.db = sqlite3.connect(db_path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL").fetchone()
        self.db.execute(f"PRAGMA synchronous={synchronous}")
        self.db.execute("CREATE TABLE IF NOT EXISTS events (position INTEGER PRIMARY KEY, data TEXT NOT NULL)")
        self.streams: list[asyncio.Transport] = []
        self.filler = "x" * MESSAGE_BYTES

    def commit(self, body: bytes) -> int:
        self.db.execute("BEGIN IMMEDIATE")
        cursor = self.db.execute("INSERT INTO events (data) VALUES (?)", (body.decode(),))
        self.db.execute("COMMIT")
        return int(cursor.lastrowid or 0)

    def publish(self, position: int) -> None:
        text = f'{{"position":{position},"roll":"{self.filler}"}}'[:MESSAGE_BYTES]
        message = f"id: {position}\nevent: patch\ndata: {text}\n\n".encode()
        framed = chunk(message)
        for transport in self.streams:
            transport.write(framed)


class FloorConnection(asyncio.Protocol):
    def __init__(self, floor: Floor) -> None:
        self.floor = floor
        self.reader = RequestReader(16 * 1024, 64 * 1024)
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        if self.transport in self.floor.streams:
            self.floor.streams.remove(self.transport)

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while self.reader.ready:
            request = self.reader.ready.popleft()
            self.answer(request.target, request.body)

    def answer(self, target: str, body: bytes) -> None:
        assert self.transport is not None
        if target == "/stream":
            self.transport.write(head(200, b"OK", [
                (b"content-type", b"text/event-stream"), (b"transfer-encoding", b"chunked")]))
            self.floor.streams.append(self.transport)
            return
        position = self.floor.commit(body)
        self.floor.publish(position)
        answer = b'{"ok":true,"position":%d}' % position
        self.transport.write(head(200, b"OK", [
            (b"content-type", b"application/json"), (b"content-length", b"%d" % len(answer))]) + answer)


async def serve(port: int, db_path: Path, synchronous: str) -> None:
    floor = Floor(db_path, synchronous)
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: FloorConnection(floor), "127.0.0.1", port)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


# -- the clients --------------------------------------------------------------------------------


@dataclass
class Streams:
    """Every stream's socket, read by one thread: when each first saw each position."""

    sockets: list[socket.socket]
    seen: list[dict[int, float]] = field(default_factory=list)
    stopped: bool = False

    def run(self) -> None:
        selector = selectors.DefaultSelector()
        rests = [b""] * len(self.sockets)
        self.seen = [{} for _ in self.sockets]
        for index, sock in enumerate(self.sockets):
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ, index)
        while not self.stopped:
            for key, _ in selector.select(0.1):
                index = key.data
                try:
                    data = key.fileobj.recv(65536)  # type: ignore[union-attr]
                except BlockingIOError:
                    continue
                now = time.perf_counter()
                text = rests[index] + data
                start = 0
                while (at := text.find(b"id: ", start)) >= 0:
                    end = text.find(b"\n", at)
                    if end < 0:
                        break
                    self.seen[index].setdefault(int(text[at + 4:end]), now)
                    start = end
                rests[index] = text[start:]


def measure(commands: int, clients: int, interval_s: float, synchronous: str) -> dict[str, float]:
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen([sys.executable, "-m", "bench.floor", "--serve", str(port), tmp, synchronous],
                                  stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parent.parent)
        try:
            assert server.stdout is not None and server.stdout.readline().strip() == "ready"
            sockets = []
            for _ in range(clients):
                sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT_S)
                sock.sendall(b"GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                sockets.append(sock)
            time.sleep(0.3)
            for sock in sockets:
                sock.recv(65536)  # the answer's head
            streams = Streams(sockets)
            reader = threading.Thread(target=streams.run, daemon=True)
            reader.start()
            poster = BrowserLikeConnection("127.0.0.1", port, timeout=TIMEOUT_S)
            sent: list[tuple[float, int]] = []
            cpu_before = cpu_of({server.pid})
            began = time.perf_counter()
            for n in range(commands):
                pause = began + n * interval_s - time.perf_counter()
                if pause > 0:
                    time.sleep(pause)
                at = time.perf_counter()
                poster.request("POST", "/cmd", body=json.dumps({"name": "roll"}),
                               headers={"Content-Type": "application/json"})
                sent.append((at, json.loads(poster.getresponse().read())["position"]))
            cpu = cpu_of({server.pid}) - cpu_before
            deadline = time.perf_counter() + TIMEOUT_S
            while time.perf_counter() < deadline and not all(sent[-1][1] in s for s in streams.seen):
                time.sleep(0.01)
            streams.stopped = True
            reader.join(TIMEOUT_S)
            latencies = [(max(s[position] for s in streams.seen) - at) * 1000 for at, position in sent
                         if all(position in s for s in streams.seen)]
            poster.close()
            for sock in sockets:
                sock.close()
        finally:
            server.terminate()
            server.wait(TIMEOUT_S)
    latencies.sort()
    return {"p50": statistics.median(latencies), "p99": latencies[int(len(latencies) * 0.99) - 1],
            "cpu_ms": cpu / commands * 1000, "delivered": len(latencies)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--commands", type=int, default=600)
    parser.add_argument("--clients", type=int, default=15)
    parser.add_argument("--interval-ms", type=float, default=20.0)
    parser.add_argument("--serve", nargs=3, metavar=("PORT", "DIR", "SYNCHRONOUS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve(int(args.serve[0]), Path(args.serve[1]) / "floor.sqlite", args.serve[2]))
        return
    print(f"The floor: {args.clients} clients, {args.commands} commands {args.interval_ms:g} ms apart")
    for synchronous, what in (("FULL", "committed to disk first (the table's promise)"),
                              ("OFF", "no wait for the disk (an in-memory peer's promise)")):
        figures = measure(args.commands, args.clients, args.interval_ms / 1000, synchronous)
        print(f"  {what}: p50 {figures['p50']:.2f} ms, p99 {figures['p99']:.2f} ms, server CPU "
              f"{figures['cpu_ms']:.2f} ms/command ({figures['delivered']:.0f} delivered to every stream)", flush=True)


if __name__ == "__main__":
    main()
