"""Helpers of the soak test (tests/test_soak.py): the service as a subprocess with its own log file,
phones' and displays' event streams that keep their own copy of the view, ping answerers, and a
tally of every HTTP answer against the answers that request may get.

The stream parsing (HTTP/1.1 chunked bodies, server-sent events), the view each stream keeps, the
epoll reader thread, the phones' connections and ping answerers are companion/sim's (streams.py,
clients.py).
"""

from __future__ import annotations

import http.client
import queue
import threading
from array import array
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.sim.clients import Connection, PingAnswerer
from companion.sim.service import ServiceProcess
from companion.sim.streams import Reader, ViewStream, stream_socket

# -- the service -------------------------------------------------------------------------------


class SoakService(ServiceProcess):
    """`companion serve --simulate` whose output goes to a file (a pipe nobody reads would fill up
    over an hour of logged refusals and stall the service). With `source`, the companion package
    found in that folder runs instead of this tree's (a modified copy, to see the test fail)."""

    def __init__(self, workdir: Path, source: Path | None = None) -> None:
        super().__init__(workdir / "data", extra=("--simulate",), log_path=workdir / "service.log", source=source,
                         cwd=workdir)


# -- every answer, against what it may be ------------------------------------------------------

OK = (200, None)
Expect = frozenset[tuple[int, str | None]]


def expect(*answers: tuple[int, str | None]) -> Expect:
    return frozenset(answers)


@dataclass
class Tally:
    """Every HTTP answer of the run by (what was asked, status, error code); each request says which
    answers it may get (a refusal the rules call for is expected; anything else is not)."""

    counts: Counter[tuple[str, int, str | None]] = field(default_factory=Counter)
    unexpected: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, label: str, status: int, answer: Any, allowed: Expect) -> None:
        code = answer.get("error") if isinstance(answer, dict) and not answer.get("ok", False) else None
        if status == 200 and not (isinstance(answer, dict) and answer.get("ok")):
            code = code or "not ok"
        with self.lock:
            self.counts[(label, status, code)] += 1
            if (status, code) not in allowed or status >= 500:
                self.unexpected.append(f"{label}: {status} {code} {str(answer)[:200]}")

    def failure(self, label: str, err: BaseException) -> None:
        with self.lock:
            self.counts[(label, 0, type(err).__name__)] += 1
            self.unexpected.append(f"{label}: {err!r}")

    def summary(self) -> tuple[int, int, int]:
        """(answers in all, 2xx, refusals)."""
        with self.lock:
            total = sum(self.counts.values())
            good = sum(n for (_, status, code), n in self.counts.items() if status == 200 and code is None)
        return total, good, total - good

    def lines(self) -> list[str]:
        with self.lock:
            rows = sorted(self.counts.items(), key=lambda item: (item[0][1] == 200, item[0][0], item[0][1]))
        return [f"{n:>7}  {status} {code or 'ok'}  {label}" for (label, status, code), n in rows]


def asked(tally: Tally, label: str, connection: Connection, method: str, path: str, allowed: Expect,
          body: Any = None, **kwargs: Any) -> tuple[int, Any]:
    """A request whose answer goes into the tally; (0, None) when it failed on the wire."""
    try:
        status, answer, _ = connection.call(method, path, body, **kwargs)
    except (OSError, http.client.HTTPException) as err:
        connection.close()
        tally.failure(label, err)
        return 0, None
    tally.record(label, status, answer, allowed)
    return status, answer


# -- the screens -------------------------------------------------------------------------------


@dataclass
class SoakStream(ViewStream):
    """One page's event stream: its own copy of the view (the first `view`, then every `patch`
    applied), and every way the stream could go wrong in `errors` (a revoked stream, a second whole
    view and an unknown event too, which a page would live with)."""

    last_position: int = -1
    distinct_positions: int = 0
    skipped_positions: int = 0
    """Log positions passed over between two messages (several commands between two wake-ups of the
    stream: the page gets the view after them in one message, which the protocol allows)."""
    rounds_seen: dict[int, str | None] = field(default_factory=dict)
    """Each quiz round's winner as this page showed it (the view keeps the last 10 rounds)."""
    closed_by_us: bool = False
    trace: tuple[array[int], ...] = field(default_factory=lambda: tuple(array("q") for _ in range(5)))
    """Per message: its id, and what the page showed of the log then: the quiz's round, the armed
    round (0: none), the latest result's round (0: none), and the seat names (hashed). Checked
    against the log afterwards: a lost message leaves the next views wrong in one of these."""

    def _odd(self, what: str) -> None:
        self.errors.append(what)

    def _shown(self, event_id: int | None, received: float) -> None:
        """The message's id against the view's position and the ones before; its trace kept."""
        position = self.doc.get("position") if isinstance(self.doc, dict) else None
        if event_id is None or position != event_id:
            self.errors.append(f"message id {event_id} but the view says position {position}")
            return
        if event_id < self.last_position:
            self.errors.append(f"id went back from {self.last_position} to {event_id}")
        elif event_id > self.last_position:
            if self.last_position >= 0:
                self.skipped_positions += event_id - self.last_position - 1
            self.distinct_positions += 1
            self.last_position = event_id
        if event_id is not None and event_id > 0:
            self.ids.append(event_id)
            del self.ids[:-4]  # Stream's list would grow for the whole run
        quiz = ((self.doc.get("game") or {}).get("view") or {})
        results = quiz.get("results") or ()
        for result in results:
            self.rounds_seen.setdefault(int(result["round"]), result.get("winner"))
        seats = (self.doc.get("table") or {}).get("seats") or ()
        shown = (event_id, int(quiz.get("round", -1)), int((quiz.get("armed") or {}).get("round", 0)),
                 int(results[0]["round"]) if results else 0, names_hash({s["number"]: s["name"] for s in seats}))
        for column, value in zip(self.trace, shown, strict=True):
            column.append(value)


class Screens(Reader):
    """The epoll reader thread (companion.sim.streams.Reader) over SoakStreams."""

    POLL_S = 0.005
    """A soak measures memory over minutes: no need to look again more often."""

    def open_stream(self, port: int, name: str, query: str, source: str, cookie: str | None = None,
                    seat: int | None = None, pings: queue.Queue[int] | None = None) -> SoakStream:
        sock = stream_socket(port, query, source, cookie, timeout=10)
        return self.watch(SoakStream(name, sock, seat=seat, pings=pings))

    def close(self) -> None:
        with self.lock:
            for stream in self.streams:
                stream.closed_by_us = True
        super().close()


class Pingers(PingAnswerer):
    """One thread per phone echoing its stream's pings at once (POST /api/ping), like the phone's
    page; every answer goes into the soak's tally."""

    def __init__(self, port: int, cookies: dict[int, str], tally: Tally) -> None:
        super().__init__(port, cookies)
        self.answered: Counter[int] = Counter()
        self.tally = tally

    def echo(self, connection: Connection, seat: int, ping_id: int) -> None:
        status, _ = asked(self.tally, "phone: ping echo", connection, "POST", "/api/ping", expect(OK), {"id": ping_id})
        if status == 200:
            self.answered[seat] += 1


def rss_growth(samples: Iterable[tuple[float, int]], warmup_s: float) -> tuple[int, int, int] | None:
    """(first RSS after the warm-up, last, growth), kB; None without two samples after it."""
    after = [kb for at, kb in samples if at >= warmup_s]
    if len(after) < 2:
        return None
    return after[0], after[-1], after[-1] - after[0]


def names_hash(names: dict[int, str | None]) -> int:
    return hash(tuple(sorted((number, name) for number, name in names.items() if name)))


def log_timeline(events: Iterable[Any], game_id: str) -> dict[int, tuple[int, int, int, int]]:
    """Per log position: what a page must show then (the quiz's round, armed round, latest result's
    round, the seat names hashed), folded from the log's events (store records, in order)."""
    names: dict[int, str | None] = {}
    quiz_round = armed = latest = 0
    timeline = {}
    for event in sorted(events, key=lambda e: e.position):
        if event.type in ("seat_claimed", "seat_named"):
            names[int(event.data["seat"])] = event.data["name"]
        elif event.type == "seat_cleared":
            names.pop(int(event.data["seat"]), None)
        elif event.stream == game_id and event.type == "round_armed":
            quiz_round = armed = int(event.data["round"])
        elif event.stream == game_id and event.type == "round_settled":
            armed, latest = 0, int(event.data["round"])
        elif event.stream == game_id and event.type == "round_cancelled":
            armed = 0
        timeline[event.position] = (quiz_round, armed, latest, names_hash(names))
    return timeline


def trace_mismatches(stream: SoakStream, timeline: dict[int, tuple[int, int, int, int]]) -> list[str]:
    """The messages whose view disagrees with the log at the message's position."""
    out = []
    ids, rounds, armed, latest, names = stream.trace
    for i, position in enumerate(ids):
        expected = timeline.get(position)
        shown = (rounds[i], armed[i], latest[i], names[i])
        if expected != shown:
            labels = ("round", "armed", "latest result", "names")
            wrong = [label for label, a, b in zip(labels, shown, expected or (None,) * 4, strict=True) if a != b]
            out.append(f"message {i + 1} (id {position}): {', '.join(wrong)} "
                       f"{[shown[k] for k in range(3)]} where the log says {list((expected or ())[:3])}")
    return out
