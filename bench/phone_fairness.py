"""Phone buzzers on simulated Wi-Fi through the real service: companion/sim/wifi.py's experiment with
the whole of `companion serve` in it, over loopback, each phone behind a delay proxy.

The in-process simulation hands the referee its messages directly; here they go through the web
server, Flask, the event log and the streams, on the host's real clock, so what the service's threads and
buffers add to a ping, a frame report or a buzz is in the figures. Six phones join a buzzer quiz,
each behind its own delay proxy (companion/sim/delayproxy.py) on one of wifi.PROFILES' links, and
each behaves as its page does (web/static/live.js):

* it reads its event stream through its proxy, applying the patches, and echoes every `ping` at
  once with its page clock's reading (a wifi.PageClock on the host's monotonic clock, which is the
  service's: so every true instant is known);
* when its view's `buttons.round` names a new round, it takes its next frame (60 Hz at the page's
  phase, after a millisecond of building the page) and POSTs /api/shown at that frame;
* nine times in ten its player touches the screen at frame + reaction (N(260 ms, 40 ms), at least
  120 ms), the page stamps the tap up to 2 ms later, and POSTs /api/buzz {tap, round, shown} then.

Each page's pings, frame reports and buzzes go on connections of their own (a browser opens
another while one request is in flight). The host, on the Pi's own loopback, arms a race every
ROUND_SPACING_S (the quiz's window is WINDOW_S, so every round is settled, late presses listed,
before the next one is armed) and reads each round's result from the table's view. The naive
referee's pick is the buzz whose first byte the proxy released to the service first.

`wifi.judge` compares each decision with the truth, so the figures are the simulation's: the
winner shown right by the true margin between the first two reactions, ties, confident wrong
winners, presses outside their stated bound or not listed, and the naive referee beside it. The
service's own answers come after: claims refused, frames refused, how late this process sent what
it meant to send (a busy machine delays a request as a stall would, never its stamp).

A benchmark, not a test: it asserts nothing. Loopback only, every wait bounded, no internet.

Usage: .venv/bin/python -m bench.phone_fairness [--rounds 60] [--quick] [--seed 1]
The default takes about 3 minutes (60 rounds 2.5 s apart, after the service starts and the phones'
clocks are mapped), --quick (15 rounds) about 50 s.
"""

from __future__ import annotations

import argparse
import math
import queue
import random
import re
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.live_latency import bench_service
from companion.config import ServerConfig
from companion.sim.clients import Connection, PingAnswerer, host_command, phone_address, seat_phones
from companion.sim.delayproxy import Direction, ProxyLoop, now_us
from companion.sim.presses import percentile
from companion.sim.service import ServiceProcess
from companion.sim.streams import Reader, ViewStream, stream_socket
from companion.sim.wifi import (
    PRESS_RATE,
    PROFILES,
    RENDER_US,
    TAP_LATENCY_MAX_US,
    PageClock,
    RoundRecord,
    TruePress,
    Verdicts,
    judge,
    reaction_us,
    report,
)

ROUNDS = 60
QUICK_ROUNDS = 15
WINDOW_S = 2.0
"""The quiz's window: the longest a round stays open. A press is on its way within about a
second of the arm (the slowest link's way down and up, each with a stall, and a slow reaction)."""
ROUND_SPACING_S = 2.5
"""From one arm to the next: every press of a round has reached the service before the next is
armed (one that came after would be taken as an early press of the next round)."""
WARMUP_S = 5.0
"""From the phones' streams opening to the first round: a burst of pings maps each page's clock."""
CONNECT_TIMEOUT_S = 10.0
ROUND_DONE_TIMEOUT_S = 5.0
"""After a round's spacing, how long its presses' requests may still take to be answered."""
SETTLE_TIMEOUT_S = 5.0
REQUEST_TIMEOUT_S = 10.0
ECHO_LINES = 4
"""A phone's echoes in flight at once: a browser keeps six connections to a server, its stream
holds one, and its frame reports and buzzes may hold two more."""
STALLED_US = 20_000
"""A request this process sent this much after its instant is noted with its round."""
SWITCH_INTERVAL_S = 0.0005
MARGIN_FROM_MS = 20
"""The figure quoted alone: the winner shown right when the true first was at least this far ahead."""


# -- a phone's page ----------------------------------------------------------------------------


@dataclass
class Request:
    """A POST a page sends at its instant (µs, host timeline), and what came of it."""

    due_us: int
    path: str
    body: dict[str, Any]
    sent_us: int = 0
    status: int = 0
    answer: Any = None
    done: threading.Event = field(default_factory=threading.Event)


class TimedSender:
    """One kind of a page's requests (its frame reports, or its buzzes), each sent at its instant on
    a keep-alive connection of its own, in a thread of its own: one in flight does not hold up
    another kind."""

    def __init__(self, name: str, connection: Connection) -> None:
        self.connection = connection
        self._jobs: queue.Queue[Request | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def send(self, request: Request) -> Request:
        self._jobs.put(request)
        return request

    def _run(self) -> None:
        while (request := self._jobs.get()) is not None:
            wait = request.due_us - now_us()
            if wait > 0:
                time.sleep(wait / 1e6)
            request.sent_us = now_us()
            try:
                request.status, request.answer, _ = self.connection.post(request.path, request.body)
            except OSError as err:
                request.status, request.answer = 0, {"ok": False, "error": repr(err)}
                self.connection.close()
            request.done.set()

    def stop(self) -> None:
        self._jobs.put(None)
        self._thread.join(REQUEST_TIMEOUT_S)
        self.connection.close()


@dataclass
class Touch:
    """A player's press as it truly happened, and the buzz the page sent for it."""

    number: int
    seat: int
    frame_us: int
    reaction_us: int
    touched_us: int
    buzz: Request


class Page:
    """One phone's page: its clock, its player, and what it did in each round."""

    def __init__(self, seat: int, clock: PageClock, rng: random.Random) -> None:
        self.seat = seat
        self.clock = clock
        self.rng = rng
        """Its player's reactions, drawn on the stream reader's thread only."""
        self.shown: dict[int, Request] = {}
        self.touches: dict[int, Touch] = {}
        self.buzz_released: list[int] = []
        """When the proxy released each buzz request's first byte to the service (µs)."""
        self.shown_sender: TimedSender | None = None
        self.buzz_sender: TimedSender | None = None

    def reading_ms(self) -> float:
        """The page's `performance.now()` now."""
        return self.clock.reading_ms(now_us())

    def on_release(self, direction: Direction, data: bytes, at_us: int) -> None:
        """The proxy's word that a chunk left it (on the proxies' thread)."""
        if direction == "up" and data.startswith(b"POST /api/buzz"):
            self.buzz_released.append(at_us)

    def signal(self, number: int, seen_us: int) -> None:
        """The view names round `number`, applied at `seen_us`: the page stamps the frame that draws
        it and reports it; its player may touch a reaction later, the page stamps the tap up to
        2 ms after the touch and sends the buzz at once."""
        assert self.shown_sender is not None and self.buzz_sender is not None
        frame = self.clock.next_frame_us(seen_us + RENDER_US)
        shown = self.clock.reading_ms(frame)
        self.shown[number] = self.shown_sender.send(Request(frame, "/api/shown", {"round": number, "shown": shown}))
        if self.rng.random() >= PRESS_RATE:
            return
        reaction = reaction_us(self.rng)
        touched = frame + reaction
        stamped = touched + self.rng.randint(0, TAP_LATENCY_MAX_US)
        body = {"tap": self.clock.reading_ms(stamped), "round": number, "shown": shown}
        buzz = self.buzz_sender.send(Request(stamped, "/api/buzz", body))
        self.touches[number] = Touch(number, self.seat, frame, reaction, touched, buzz)

    def arrived_us(self, touch: Touch) -> int | None:
        """When the buzz's first byte reached the service: the first release since it was sent."""
        return next((at for at in self.buzz_released if at >= touch.buzz.sent_us), None)


@dataclass
class PageStream(ViewStream):
    """A phone's stream: its view kept as the page keeps it, and each new round in `buttons.round`
    handed to the page the moment the message that names it is applied."""

    page: Page | None = None
    signal_round: int | None = None

    def _shown(self, event_id: int | None, received: float) -> None:
        number = ((self.doc or {}).get("buttons") or {}).get("round")
        # A round that ends keeps its frame, as on the page: only a new number is a new signal.
        if isinstance(number, int) and number != self.signal_round and self.page is not None:
            self.signal_round = number
            self.page.signal(number, now_us())


# -- the run -----------------------------------------------------------------------------------


@dataclass
class Played:
    """What a run gave: each round's record for the judge, and what the service answered."""

    records: list[RoundRecord] = field(default_factory=list)
    verdicts: Verdicts = field(default_factory=Verdicts)
    results: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Per round, the quiz's result as the table's view shows it (decision, drawn winner, late)."""
    buzzes: Counter[str] = field(default_factory=Counter)
    """How each buzz was answered: its timing method, or why it was refused."""
    frames: Counter[str] = field(default_factory=Counter)
    """How each frame report was answered."""
    send_lag_us: dict[tuple[int, int], int] = field(default_factory=dict)
    """Per (round, seat): how late this process sent that page's requests after their instants, at
    worst (a busy machine: it delays a request as a stall on the air would, never its stamps)."""
    signal_after_arm_us: dict[int, list[int]] = field(default_factory=dict)
    """Per seat: from the arm to the frame that showed the round."""
    unseen: list[tuple[int, int]] = field(default_factory=list)
    """(round, seat) of rounds a phone's view never named."""
    drawn_right: list[bool] = field(default_factory=list)
    """Per tie: whether the winner drawn was the true first."""
    echoes: dict[int, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    warmup_s: float = 0.0
    rounds_s: float = 0.0
    elapsed_s: float = 0.0


@dataclass
class Phones:
    """The six phones at the table: their pages, the echoes of their pings, their streams."""

    pages: list[Page]
    pingers: PingAnswerer
    streams: list[PageStream]


def seat_pages(service: ServiceProcess, cookies: dict[int, str], rng: random.Random, proxies: ProxyLoop,
               reader: Reader) -> Phones:
    """Each seated phone's page behind its own proxy on its link (PROFILES in seat order), its
    stream read by `reader` (not started yet)."""
    pages, ports = [], {}
    for seat, link in enumerate(PROFILES, start=1):
        page = Page(seat, PageClock.loaded(rng, now_us()), random.Random(rng.getrandbits(64)))
        proxy = proxies.add(link, service.port, phone_address(seat), rng.getrandbits(64), page.on_release)
        ports[seat] = proxy.port
        page.shown_sender, page.buzz_sender = (TimedSender(f"{kind}-{seat}", Connection(
            proxy.port, phone_address(seat), {"Cookie": cookies[seat]}, timeout=REQUEST_TIMEOUT_S))
            for kind in ("shown", "buzz"))
        pages.append(page)
    pingers = PingAnswerer(service.port, cookies, ports=ports, stamps={page.seat: page.reading_ms for page in pages},
                           lines=ECHO_LINES)
    streams = [reader.watch(PageStream(f"phone {page.seat}", stream_socket(
        ports[page.seat], "as=me", phone_address(page.seat), cookies[page.seat]), seat=page.seat,
        pings=pingers.queues[page.seat], page=page)) for page in pages]
    return Phones(pages, pingers, streams)


def run(rounds: int, seed: int, service_log: Path | None = None) -> Played:
    """Start the service, seat six phones behind their proxies, and play `rounds` races (the
    service's log copied to `service_log`, if given)."""
    played = Played()
    began = time.perf_counter()
    # The phones, their proxies and the streams' reader are threads of this one interpreter: one
    # that wakes to send at its instant waits for the GIL up to the switch interval (5 ms by
    # default), a stall no phone has. A shorter interval keeps that to a fraction of a millisecond.
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    with tempfile.TemporaryDirectory(prefix="phone-fairness-") as tmp:
        service = bench_service(Path(tmp), threads=ServerConfig().threads, buttons='source = "simulated"\n')
        proxies = ProxyLoop()
        reader = Reader()
        phones: Phones | None = None
        host: Connection | None = None
        try:
            service.start()
            cookies = seat_phones(service, len(PROFILES))
            host_command(service, "end_game")
            host_command(service, "start_game", {"game": "buzzer-quiz", "options": {"window_s": WINDOW_S}})
            phones = seat_pages(service, cookies, random.Random(seed), proxies, reader)
            phones.pingers.start()
            reader.start()
            if not reader.wait(lambda: all(s.doc is not None for s in phones.streams), CONNECT_TIMEOUT_S):
                raise RuntimeError("not every phone's stream got its first view")
            time.sleep(WARMUP_S)
            played.warmup_s = time.perf_counter() - began
            host = Connection(service.port, "127.0.0.2", {"Authorization": f"Bearer {service.host_key}"},
                              timeout=REQUEST_TIMEOUT_S)
            started = time.perf_counter()
            for _ in range(rounds):
                play_round(host, phones.pages, played)
            played.rounds_s = time.perf_counter() - started
            played.echoes = {seat: len(rtts) for seat, rtts in phones.pingers.rtts_us.items()}
            played.notes += troubles(phones, proxies)
        finally:
            if host is not None:
                host.close()
            if phones is not None:
                hang_up(phones)
            reader.close()
            proxies.close()
            service.stop_cleanly(10)
            played.notes += service_warnings(service)
            if service_log is not None:
                service_log.write_text(service.log())
            sys.setswitchinterval(switch_interval)
    played.verdicts = judge(played.records)
    played.elapsed_s = time.perf_counter() - began
    return played


def hang_up(phones: Phones) -> None:
    for page in phones.pages:
        for sender in (page.shown_sender, page.buzz_sender):
            if sender is not None:
                sender.stop()
    phones.pingers.stop()


def troubles(phones: Phones, proxies: ProxyLoop) -> list[str]:
    """What went wrong on the phones' side, for the notes."""
    notes = []
    if phones.pingers.refused:
        notes.append(f"{len(phones.pingers.refused)} ping echoes refused, e.g. {phones.pingers.refused[0]}")
    notes += [f"{s.name}: {len(s.errors)} messages not applied, e.g. {s.errors[0]}" for s in phones.streams if s.errors]
    refused = sum(proxy.refused for proxy in proxies.proxies)
    if refused:
        notes.append(f"{refused} connections the service refused to a proxy")
    return notes


def service_warnings(service: ServiceProcess) -> list[str]:
    """What the service warned of (refused taps, impossible frames), counted by kind."""
    kinds: Counter[str] = Counter()
    for line in service.log().splitlines():
        level = next((level for level in (" WARNING ", " ERROR ") if level in line), None)
        if level is not None:
            message = line.split(level, 1)[1].split(": ", 1)[-1]
            kinds[re.sub(r"\d+", "#", message)[:120]] += 1
    return [f"service log: {count} x {kind}" for kind, count in kinds.most_common(5)]


def play_round(host: Connection, pages: list[Page], played: Played) -> None:
    """Arm a race, leave ROUND_SPACING_S for its presses, then record its truth and decision."""
    status, answer, _ = host.post("/api/commands", {"as": "host", "name": "arm", "args": {"mode": "race"}})
    began = time.monotonic()
    if status != 200 or not answer.get("ok"):
        played.notes.append(f"arm refused: {status} {answer}; the round cancelled")
        host.post("/api/commands", {"as": "host", "name": "cancel_round", "args": {}})
        time.sleep(ROUND_SPACING_S)
        return
    quiz = answer["view"]["game"]["view"]
    number, armed_us = int(quiz["round"]), int(quiz["armed"]["at_us"])
    time.sleep(max(0.0, began + ROUND_SPACING_S - time.monotonic()))
    requests = [page.shown[number] for page in pages if number in page.shown]
    requests += [page.touches[number].buzz for page in pages if number in page.touches]
    deadline = time.monotonic() + ROUND_DONE_TIMEOUT_S
    for request in requests:
        request.done.wait(max(0.0, deadline - time.monotonic()))
    result = settled(host, number)
    if result is None:
        played.notes.append(f"round {number}: no result within {SETTLE_TIMEOUT_S:.0f} s; cancelled")
        host.post("/api/commands", {"as": "host", "name": "cancel_round", "args": {}})
    else:
        played.results[number] = result
    truth = []
    for page in pages:
        shown = page.shown.get(number)
        if shown is None:
            played.unseen.append((number, page.seat))
            continue
        played.signal_after_arm_us.setdefault(page.seat, []).append(shown.due_us - armed_us)
        played.frames[answered(shown)] += 1
        if answered(shown) != "ok":
            played.notes.append(f"round {number}: the frame report of seat {page.seat} was answered "
                                f"{answered(shown)}; its frame {(shown.due_us - armed_us) / 1000:.0f} ms after the arm")
        touch = page.touches.get(number)
        played.send_lag_us[number, page.seat] = max(
            r.sent_us - r.due_us for r in (shown, touch and touch.buzz) if r and r.done.is_set())
        if touch is None:
            continue
        played.buzzes[answered(touch.buzz)] += 1
        arrived = page.arrived_us(touch) if touch.buzz.done.is_set() else None
        # A buzz never released counts as the last to arrive (the naive referee never saw it).
        truth.append(TruePress(page.seat, touch.reaction_us, touch.touched_us,
                               arrived if arrived is not None else sys.maxsize))
    decision = None if result is None else result["decision"]
    late = () if result is None else tuple(result.get("late") or ())
    played.records.append(RoundRecord(number, "phones", armed_us, tuple(truth), decision, late))
    if result is not None and result.get("drawn_from") and truth:
        first = min(truth, key=lambda p: p.reaction_us)
        played.drawn_right.append(result.get("winner") == f"seat:{first.seat}")


def answered(request: Request) -> str:
    """A request's answer in a word: the buzz's timing method (and why its claim was refused), or
    the refusal's code."""
    if not request.done.is_set():
        return "not answered"
    answer = request.answer if isinstance(request.answer, dict) else {}
    if request.status == 200 and answer.get("ok"):
        if answer.get("repeat"):
            return "repeat"
        method = answer.get("method")
        refused = answer.get("refused")
        return "ok" if method is None else f"{method}" + (f" (claim refused: {refused})" if refused else "")
    return f"refused {request.status} {answer.get('error', answer)}"


def settled(host: Connection, number: int) -> dict[str, Any] | None:
    """Round `number`'s result in the table's view, once it is settled (bounded)."""
    deadline = time.monotonic() + SETTLE_TIMEOUT_S
    while True:
        status, view, _ = host.call("GET", "/api/view?as=table")
        quiz = (view or {}).get("game", {}).get("view", {}) if status == 200 else {}
        result = next((r for r in quiz.get("results", []) if r.get("round") == number), None)
        if result is not None or time.monotonic() > deadline:
            return result
        time.sleep(0.1)


# -- the figures -------------------------------------------------------------------------------


def right_when_ahead(verdicts: Verdicts, naive: bool = False, from_ms: int = MARGIN_FROM_MS) -> tuple[float, int]:
    """How often the winner shown (a tie counted as its fair draw) was the true first when that one
    was at least `from_ms` ahead, and in how many rounds; the naive referee's with `naive`."""
    table = verdicts.naive if naive else verdicts.ours
    values = [v for (low, _), shown in table.items() if low >= from_ms for v in shown]
    return (sum(values) / len(values) if values else math.nan), len(values)


def lines(played: Played) -> list[str]:
    """The simulation's figures, the rounds worth a look, then what the real service answered."""
    ours, ahead = right_when_ahead(played.verdicts)
    naive, _ = right_when_ahead(played.verdicts, naive=True)
    return [*report(played.verdicts),
            f"  true first >= {MARGIN_FROM_MS} ms ahead ({ahead} rounds): winner shown right {ours:.1%}, "
            f"naive referee {naive:.1%}",
            *notable(played), *answers(played),
            f"{played.elapsed_s:.0f} s: service start and {WARMUP_S:.0f} s of pings {played.warmup_s:.0f} s, "
            f"{len(played.records)} rounds {played.rounds_s:.0f} s"]


def notable(played: Played) -> list[str]:
    """Presses listed late, tie draws, and every press outside its bound or winner named wrongly."""
    out = []
    for record in played.records:
        for late in record.late:
            out.append(f"  listed late: round {record.number}, {late['who']} {late['after_arm_us'] / 1000:.0f} ms "
                       f"after the arm, {late['gap_us'] / 1000:.0f} ms behind the first ({late.get('method')})")
    if played.drawn_right:
        out.append(f"  ties drawn: the true first drawn in {sum(played.drawn_right)} of {len(played.drawn_right)}")
    for number, seat, error, bound in played.verdicts.out_of_bound:
        result = played.results[number]
        rows = [*result["decision"]["order"], *result.get("late", [])]
        row: dict[str, Any] = next((r for r in rows if r["who"] == f"seat:{seat}"), {})
        out.append(f"  outside its bound: round {number} seat {seat}, off by {error / 1000:.1f} ms against "
                   f"±{bound / 1000:.1f} ms, timed by {row.get('method', '?')}; this process sent it "
                   f"{played.send_lag_us.get((number, seat), 0) / 1000:.0f} ms late")
    for number in played.verdicts.confident_wrong:
        result = played.results[number]
        out.append(f"  confident wrong winner: round {number}, {result['decision']['winner']}; order "
                   + ", ".join(f"{r['who']} {r['after_arm_us'] / 1000:.1f}±{r['uncertainty_us'] / 1000:.1f} ms "
                               f"({r.get('method')})" for r in result["decision"]["order"]))
    return out


def answers(played: Played) -> list[str]:
    """How the service answered the pages, and how punctual this process was."""
    out = [f"buzzes answered: {dict(played.buzzes.most_common())}",
           f"frames answered: {dict(played.frames.most_common())}"]
    if played.unseen:
        out.append(f"rounds a phone's view never named: {len(played.unseen)}, e.g. {played.unseen[:5]}")
    shown = ", ".join(f"seat {seat} ({PROFILES[seat - 1].name}) {percentile(v, 50) / 1000:.0f}/"
                      f"{percentile(v, 99) / 1000:.0f}" for seat, v in sorted(played.signal_after_arm_us.items()))
    out.append(f"signal shown after the arm, p50/p99 ms: {shown}")
    if played.send_lag_us:
        lag = list(played.send_lag_us.values())
        stalled = sorted({number for (number, _), us in played.send_lag_us.items() if us > STALLED_US})
        out.append(f"this process sent a page's requests after their instants by p50 {percentile(lag, 50) / 1000:.2f} "
                   f"ms, p99 {percentile(lag, 99) / 1000:.2f} ms, max {max(lag) / 1000:.0f} ms; "
                   f"{len(stalled)} rounds with one sent over {STALLED_US // 1000} ms late {stalled[:10]}")
    out.append(f"ping echoes per phone: {played.echoes}")
    return out + played.notes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=None, help=f"races to play (default {ROUNDS})")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_ROUNDS} rounds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--service-log", type=Path, metavar="FILE", help="keep what the service logged")
    args = parser.parse_args()
    rounds = args.rounds if args.rounds is not None else QUICK_ROUNDS if args.quick else ROUNDS
    print(f"{rounds} races, 6 phones behind delay proxies on {', '.join(link.name for link in PROFILES)}",
          file=sys.stderr, flush=True)
    print("\n".join(lines(run(rounds, args.seed, args.service_log))))


if __name__ == "__main__":
    main()
