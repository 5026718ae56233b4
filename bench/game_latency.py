"""Live-sync latency of every game, beside the dice tray's: a game's own command -> every client
has the message with its log position.

For each game, starts `companion serve` on loopback (bench/live_latency.py's service, with
simulated buttons), seats 13 phones or the game's most (companion/sim/midgame.py, each phone
joining from an address of its own), starts the game through the host API and opens the event
streams: each phone's (`as=me`, its seat cookie, from its own 127.0.0.x, its pings echoed as its
page would) and 2 table displays'. Every stream keeps its own copy of the view, as a page does
(companion/sim/streams.py's ViewStream).

The commands are the game's real ones: each step, one of the actions the phones' and the table's
views mark allowed is picked at random (midgame.py's weights: rare moves, such as a Dracula
vampire's private messages or a paused glass, seldom), and sent as that phone (its keep-alive
connection, its cookie) or as the table. When none is allowed, the host moves the game on (end a
phase, deal the next round) where it may; in the garlic slap a player slaps (a simulated button)
when the reaction round is open. A game that ends is started again. Each command goes out
`pace` (20 ms) after the one before, as the dice tray's rolls, but never before every client has
the one before (a player acts on what the screen shows: the views the next pick is made from).

A command's latency: POST sent -> every stream has a message whose id is at least the position
the POST answered (live_latency.measure). Besides:
* Dracula (13 phones, every view private): the commands that resolve a night, whose message tells
  each phone its own news (the 6.5 matrix), as a row of their own.
* La chasse au vampire: the sand glass's turn-over, the system's command when the glass runs out
  (the shortest glass the options allow, 10 s). Its latency: the glass's `ends_us` (the server's
  CLOCK_MONOTONIC, which is this script's perf_counter on Linux) -> every client has the
  turned glass (the service's timer waking up included). The players play meanwhile, a second
  apart (CHASSE_PACE_S), their commands' latency in the note.
* The garlic slap: each slap's press -> every client has the next message (the referee's
  decision, its deliberate wait included), in the note.

A benchmark, not a test: it prints figures and asserts nothing. Loopback only; every wait is bounded.

Usage: .venv/bin/python -m bench.game_latency [--quick] [--game ID ...] [--seconds 30] [--commands 5000]
       [--glass-turns 6] [--pace-ms 20] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.live_latency import Result, bench_service, machine_busy_s, measure, settle
from companion.games.registry import GAMES
from companion.sim.clients import SEATS, Connection, PingAnswerer, display_address, phone_address
from companion.sim.midgame import FAST_OPTIONS, NEVER, RARE, MidGame
from companion.sim.presses import percentile
from companion.sim.service import ServiceProcess
from companion.sim.streams import Reader, ViewStream, stream_socket

PACE_S = 0.020
DISPLAYS = 2
DELIVER_S = 5.0
"""The longest a step waits for every client to have the command before (then it goes on)."""
IDLE_WAIT_S = 1.0
"""When nobody may act (a clock runs): how long a step waits for the log to move."""
SLAP_WAIT_S = 2.0
CONNECT_S = 15.0
DRAIN_S = 10.0
HOST_MOVES = ("end_phase", "confirm_night", "next_round", "resume_clock", "resume_glass")
"""What the host does when no player may act: moves the game on (never pauses it, nor ends it)."""
GLASS_S = 10
"""La chasse au vampire's shortest sand glass (its options' least)."""
CHASSE_PACE_S = 1.0
"""La chasse au vampire's players act a second apart, as a table plays (its random player in
companion/sim/players/chasse.py lets 1 to 8 s pass between commands): 20 ms apart, a game ends
before its first glass runs out."""


@dataclass(frozen=True)
class Spec:
    game: str
    label: str
    options: Mapping[str, Any] = field(default_factory=dict)
    prefer: Mapping[str, float] = field(default_factory=dict)
    slaps: bool = False
    """Reaction rounds: when nobody may act, a player slaps (a simulated button)."""
    glass: bool = False
    """The row is the sand glass's turn-over."""
    pace_s: float | None = None
    """The game's own pace between commands, where its commands are naturally spaced (else the run's)."""
    time_factor: float = 1.0
    """This game's run is this many times the budget's seconds (its steps are slower)."""


SPECS: dict[str, Spec] = {spec.game: spec for spec in (
    Spec("vampir", "Vampir"),
    Spec("nuit-des-vampires", "la nuit des vampires"),
    Spec("garlic-slap", "garlic slap", FAST_OPTIONS["garlic-slap"], slaps=True, time_factor=2.0),
    Spec("chasse-au-vampire", "La chasse au vampire", {"phase_seconds": GLASS_S}, glass=True, pace_s=CHASSE_PACE_S),
    Spec("dracula", "Dracula"),
)}


@dataclass(frozen=True)
class Budget:
    """How much of each game a run plays."""

    seconds: float
    """A game's run stops after this long (the garlic slap's after twice as long: a roll waits for its
    reaction round, a slap and the referee's decision, so it has a tenth of the others' commands)."""
    commands: int
    """... or after this many commands."""
    glass_turns: int
    """La chasse au vampire: the run stops after this many turn-overs of its 10 s glass."""


QUICK = Budget(seconds=12.0, commands=2000, glass_turns=3)
FULL = Budget(seconds=30.0, commands=5000, glass_turns=6)


@dataclass
class GameStream(ViewStream):
    """A page's stream that keeps its messages' ids and arrival times (for live_latency.measure);
    with `watch`, what the table shows at each position: the game's phase, and its glass turns."""

    watch: bool = False
    phases: list[tuple[int, str | None]] = field(default_factory=list)
    """(position, phase) at each change of phase (or of game)."""
    turns: list[tuple[int, int]] = field(default_factory=list)
    """(position, the glass's ends_us before) at each turn-over."""
    _game: tuple[Any, Any] | None = None
    _glass: dict[str, Any] | None = None

    def _shown(self, event_id: int | None, received: float) -> None:
        if event_id is None:
            return
        if not self.ids or event_id > self.ids[-1]:
            self.ids.append(event_id)
            self.times.append(received)
        if not self.watch or not isinstance(self.doc, dict):
            return
        game = self.doc.get("game") or {}
        picture = game.get("view") or {}
        key = (game.get("id"), picture.get("phase"))
        if key != self._game:
            if self._game is None or key[0] != self._game[0]:
                self._glass = None  # a new game: a new glass
            self._game = key
            self.phases.append((event_id, key[1]))
        glass = picture.get("glass")
        if isinstance(glass, dict):
            before = self._glass
            if before is not None and glass.get("turns", 0) > before.get("turns", 0) and before.get("ends_us"):
                self.turns.append((event_id, int(before["ends_us"])))
            self._glass = dict(glass)

    def phase_at(self, position: int) -> str | None:
        phase = None
        for at, name in self.phases:
            if at > position:
                break
            phase = name
        return phase


@dataclass
class Sent:
    t0: float
    position: int
    name: str
    role: str


@dataclass
class GameResult:
    spec: Spec
    players: int
    clients: int = 0
    pace_s: float = PACE_S
    sent: list[Sent] = field(default_factory=list)
    result: Result | None = None
    """live_latency's figures over every timed command."""
    nights: Result | None = None
    """Dracula: the commands that resolved a night."""
    turnovers_ms: list[float] = field(default_factory=list)
    slaps_ms: list[float] = field(default_factory=list)
    """Slap (simulated button) -> every client has the round's decision (the referee's wait included)."""
    refused: Counter[str] = field(default_factory=Counter)
    names: Counter[str] = field(default_factory=Counter)
    host_moves: int = 0
    restarts: int = 0
    slow_steps: int = 0
    """Steps whose previous command had not reached every client within DELIVER_S."""
    late_sends: int = 0
    """Commands sent more than half a pace behind schedule (the one before took longer to reach every client)."""
    post_ms: list[float] = field(default_factory=list)
    server_cpu_ms: float = 0.0
    other_cpu: float = 0.0
    message_bytes: dict[str, int] = field(default_factory=dict)
    setup_s: float = 0.0
    run_s: float = 0.0
    notes: list[str] = field(default_factory=list)


def mono_minus_perf() -> float:
    """time.monotonic() - time.perf_counter(): 0 on Linux, where both read CLOCK_MONOTONIC."""
    a = time.perf_counter()
    mono = time.monotonic()
    b = time.perf_counter()
    return mono - (a + b) / 2


class Table:
    """One game's service, its seated phones and displays, and the commands sent to it."""

    def __init__(self, service: ServiceProcess, spec: Spec, players: int, seed: int) -> None:
        self.service = service
        self.spec = spec
        self.players = players
        self.rng = random.Random(seed)
        self.mid = MidGame(service, seed=seed)
        self.reader = Reader()
        self.phones: dict[int, GameStream] = {}
        self.displays: list[GameStream] = []
        self.connections: dict[int, Connection] = {}
        self.table_conn = Connection(service.port, display_address(0))
        self.host_conn: Connection | None = None
        self.answerer: PingAnswerer | None = None
        self.weights = {**RARE, **spec.prefer}
        self.last = 0
        self.started = False

    def setup(self) -> None:
        self.mid.seat_players(self.players)
        self.start_game()
        cookies = self.mid.cookies
        self.answerer = PingAnswerer(self.service.port, cookies)
        for seat, cookie in sorted(cookies.items()):
            sock = stream_socket(self.service.port, "as=me", phone_address(seat), cookie)
            stream = GameStream(f"phone{seat}", sock, seat=seat, pings=self.answerer.queues[seat])
            self.phones[seat] = self.reader.watch(stream)
            self.connections[seat] = Connection(self.service.port, phone_address(seat), {"Cookie": cookie})
        for index in range(DISPLAYS):
            sock = stream_socket(self.service.port, "as=table", display_address(index))
            self.displays.append(self.reader.watch(GameStream(f"display{index + 1}", sock, watch=index == 0)))
        self.host_conn = Connection(self.service.port, "127.0.0.1",
                                    {"Authorization": f"Bearer {self.service.host_key}"})
        self.reader.start()
        self.answerer.start()
        self.started = True
        self.last = int(self.mid.table_view()["position"])
        if not settle(self.reader, self.last, CONNECT_S):
            raise RuntimeError(f"not every stream got the view within {CONNECT_S:.0f} s")
        bad = [s.name for s in self.reader.streams if s.status != 200 or s.revoked]
        if bad:
            raise RuntimeError(f"streams refused: {bad}")

    def start_game(self) -> None:
        self.mid.start(self.spec.game, self.spec.options)

    def close(self) -> None:
        if self.started:
            if self.answerer is not None:
                self.answerer.stop()
            self.reader.close()
        else:  # set-up failed before reading: the streams' sockets only
            for stream in self.reader.streams:
                stream.sock.close()
            self.reader.selector.close()
        for conn in [*self.connections.values(), self.table_conn, self.host_conn]:
            if conn is not None:
                conn.close()

    # -- one step ----------------------------------------------------------------------------

    def over(self) -> bool:
        """The game ended (as the table display shows it)."""
        with self.reader.lock:
            game = (self.displays[0].doc or {}).get("game")
            return game is None or bool(game.get("ended"))

    def choose(self) -> tuple[int | None, bytes] | None:
        """A random allowed action of a phone or the table, as (its seat, None for the table; the
        command's body); None when nobody may act."""
        with self.reader.lock:
            game = (self.displays[0].doc or {}).get("game") or {}
            found: list[tuple[str, int | None, dict[str, Any]]] = []
            for number, stream in self.phones.items():
                mine = (stream.doc or {}).get("game") or {}
                found += [("me", number, a) for a in mine.get("actions", ()) if self.allowed(a)]
            found += [("table", None, a) for a in game.get("actions", ()) if self.allowed(a)]
            if not found:
                return None
            role, seat, action = self.rng.choices(found, [self.weights.get(a["name"], 1.0) for _, _, a in found])[0]
            # Serialized under the lock: the reader patches the views in place.
            return seat, json.dumps({"as": role, "name": action["name"], "args": action["args"]}).encode()

    def allowed(self, action: Mapping[str, Any]) -> bool:
        return bool(action.get("allowed")) and action["name"] not in NEVER and self.weights.get(action["name"], 1.0) > 0

    def send(self, conn: Connection, body: bytes, result: GameResult) -> Sent | None:
        status, answer, t0 = conn.call("POST", "/api/commands", raw=body)
        result.post_ms.append((time.perf_counter() - t0) * 1000)
        command = json.loads(body)
        if status != 200 or not (answer or {}).get("ok"):
            result.refused[str((answer or {}).get("error", status))] += 1
            return None
        self.last = max(self.last, int(answer["position"]))
        return Sent(t0, int(answer["position"]), command["name"], command["as"])

    def host_move(self, result: GameResult) -> Sent | None:
        """The host moves the game on, when it may (a phase to end, the next round to deal)."""
        host = self.service.get("/api/view?as=host", host=True)
        moves = [a for a in (host.get("game") or {}).get("actions", ()) if a["allowed"] and a["name"] in HOST_MOVES]
        if not moves or self.host_conn is None:
            return None
        action = self.rng.choice(moves)
        sent = self.send(self.host_conn, json.dumps({"as": "host", "name": action["name"],
                                                     "args": action["args"]}).encode(), result)
        if sent is not None:
            result.host_moves += 1
        return sent

    def slap(self, result: GameResult) -> None:
        """A random player slaps (a simulated button); the time until every client has the decision."""
        before = self.last
        t0 = time.perf_counter()
        self.table_conn.post("/api/buttons/press", {"button": self.rng.choice(sorted(self.phones))})
        if self.reader.wait(lambda: all(s.last_id > before for s in self.reader.streams), SLAP_WAIT_S):
            with self.reader.lock:
                arrivals = [s.first_at_or_after(before + 1) for s in self.reader.streams]
                self.last = max(s.last_id for s in self.reader.streams)
            if all(a is not None for a in arrivals):
                result.slaps_ms.append((max(a for a in arrivals if a is not None) - t0) * 1000)

    def idle(self) -> None:
        """Nobody may act: wait (bounded) for the log to move (a clock runs out, a round ends)."""
        before = self.last
        self.reader.wait(lambda: any(s.last_id > before for s in self.reader.streams), IDLE_WAIT_S)
        with self.reader.lock:
            self.last = max(self.last, max(s.last_id for s in self.reader.streams))

    # -- a run -------------------------------------------------------------------------------

    def drive(self, result: GameResult, commands: int, seconds: float, pace_s: float, glass_turns: int) -> None:
        began = time.perf_counter()
        deadline = began + seconds
        due = began
        while time.perf_counter() < deadline:
            if self.spec.glass:
                with self.reader.lock:
                    if len(self.displays[0].turns) >= glass_turns:
                        break
            elif len(result.sent) >= commands:
                break
            last = self.last
            if not self.reader.wait(lambda: self.reader.all_at(last), DELIVER_S):  # noqa: B023 - used at once
                result.slow_steps += 1
            now = time.perf_counter()
            if now < due:
                time.sleep(due - now)
            elif now - due > pace_s / 2 and result.sent:
                result.late_sends += 1
            sent: Sent | None = None
            if self.over():
                self.start_game()
                result.restarts += 1
                self.last = int(self.mid.table_view()["position"])
                due = time.perf_counter()
                continue
            picked = self.choose()
            if picked is None:
                if self.spec.slaps:
                    self.slap(result)
                else:
                    sent = self.host_move(result)
                    if sent is None:
                        self.idle()
                if sent is None:
                    due = time.perf_counter()
                    continue
            else:
                seat, body = picked
                sent = self.send(self.connections[seat] if seat is not None else self.table_conn, body, result)
            if sent is not None:
                result.sent.append(sent)
                result.names[sent.name] += 1
                due = sent.t0 + pace_s
            else:
                due = time.perf_counter()
        settle(self.reader, self.last, DRAIN_S)

    def score(self, result: GameResult) -> None:
        every = Result(len(self.reader.streams), len(result.sent), self.players)
        measure(self.reader, [(s.t0, s.position) for s in result.sent], every)
        result.result = every
        watcher = self.displays[0]
        if self.spec.game == "dracula":
            with self.reader.lock:
                resolving = [s for s in result.sent if watcher.phase_at(s.position) == "dawn"
                             and watcher.phase_at(s.position - 1) != "dawn"]
            nights = Result(len(self.reader.streams), len(resolving), self.players)
            measure(self.reader, [(s.t0, s.position) for s in resolving], nights)
            result.nights = nights
        if self.spec.glass:
            offset = mono_minus_perf()
            with self.reader.lock:
                for position, ends_us in watcher.turns:
                    due = ends_us / 1e6 - offset
                    arrivals = [s.first_at_or_after(position) for s in self.reader.streams]
                    if all(a is not None for a in arrivals):
                        result.turnovers_ms.append((max(a for a in arrivals if a is not None) - due) * 1000)
        with self.reader.lock:
            for stream in (self.reader.streams[0], self.reader.streams[-1]):
                result.message_bytes[stream.name] = stream.data_bytes // max(stream.messages, 1)


def players_for(game: str) -> int:
    return min(SEATS, GAMES[game].max_seats)


def run_game(game: str, budget: Budget = QUICK, pace_s: float = PACE_S, seed: int = 1) -> GameResult:
    """One game's run on a service of its own (see the module's docstring)."""
    spec = SPECS[game]
    players = players_for(game)
    result = GameResult(spec, players, players + DISPLAYS, spec.pace_s or pace_s)
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="game-latency-") as tmp:
        service = bench_service(Path(tmp), threads=players + DISPLAYS + 16, buttons='source = "simulated"\n').start()
        table = Table(service, spec, players, seed)
        try:
            table.setup()
            result.setup_s = time.perf_counter() - began
            cpu_before, machine_before = service.cpu_s(), machine_busy_s()
            own_before = sum(os.times()[:2])
            started = time.perf_counter()
            seconds = budget.seconds * spec.time_factor if not spec.glass else GLASS_S * (budget.glass_turns + 1.5) + 5
            table.drive(result, budget.commands, seconds, result.pace_s, budget.glass_turns)
            result.run_s = time.perf_counter() - started
            server_s = service.cpu_s() - cpu_before
            own_s = sum(os.times()[:2]) - own_before
            result.server_cpu_ms = server_s / max(len(result.sent), 1) * 1000
            result.other_cpu = max(machine_busy_s() - machine_before - server_s - own_s, 0.0) / max(result.run_s, 1e-9)
            table.score(result)
            if table.answerer is not None and table.answerer.refused:
                result.notes.append(f"{len(table.answerer.refused)} ping echoes refused")
            errors = [f"{s.name}: {e}" for s in table.reader.streams if isinstance(s, ViewStream) for e in s.errors]
            if errors:
                result.notes.append(f"{len(errors)} messages not applied, first: {errors[0][:100]}")
        finally:
            table.close()
            service.stop_cleanly(10)
    return result


def pct(values: list[float], q: float) -> float:
    return percentile(values, q) if values else float("nan")


def rows(result: GameResult) -> list[tuple[str, list[float], str]]:
    """(what, latencies in ms, note) for the report: the game's row, and Dracula's nights."""
    spec = result.spec
    every = result.result or Result(0, 0)
    lat = every.latencies_ms
    most = " (the game's most)" if result.players < SEATS else ""
    who = f"{result.players} phones{most} + {DISPLAYS} displays"
    common = [f"{result.restarts} games restarted" if result.restarts else "",
              f"{result.host_moves} host moves" if result.host_moves else "",
              f"refused (stale picks) {dict(result.refused)}" if result.refused else "",
              f"{every.undelivered} never reached every stream" if every.undelivered else "",
              f"{result.slow_steps} steps waited {DELIVER_S:.0f} s for the one before" if result.slow_steps else "",
              f"{result.late_sends} sent late" if result.late_sends else "",
              f"server CPU {result.server_cpu_ms:.1f} ms/command",
              "average message " + ", ".join(f"{b} B ({n})" for n, b in result.message_bytes.items()),
              f"set-up {result.setup_s:.0f} s, run {result.run_s:.0f} s",
              f"other processes used {result.other_cpu:.1f} CPUs meanwhile" if result.other_cpu > 0.1 else "",
              *result.notes]
    top = ", ".join(f"{name} {n}" for name, n in result.names.most_common(6))
    if spec.glass:
        note = [f"{len(result.turnovers_ms)} turn-overs of a {GLASS_S} s glass; {who}; the glass ran out (its "
                "ends_us, the server's CLOCK_MONOTONIC) -> every client has the turned glass (the service's timer "
                "waking up included)",
                f"meanwhile {len(lat)} player commands {result.pace_s * 1000:.0f} ms apart ({top}): p50 "
                f"{pct(lat, 50):.1f}, p99 {pct(lat, 99):.1f} ms", *common]
        return [(f"{spec.label}: sand glass runs out -> every client", result.turnovers_ms,
                 "; ".join(n for n in note if n))]
    note = [f"{len(lat)} game commands {result.pace_s * 1000:.0f} ms apart ({top}), picked at random among those "
            f"the views allow; {who}; POST sent -> the slowest stream has its position"]
    if spec.slaps:
        note.append(f"{len(result.slaps_ms)} slaps (simulated buttons): press -> every client has the decision p50 "
                    f"{pct(result.slaps_ms, 50):.1f} ms (the referee's wait included)")
    out = [(f"command -> every client: {spec.label}", lat, "; ".join(n for n in note + common if n))]
    if result.nights is not None:
        night = result.nights.latencies_ms
        out.append(("  of which resolving a night (private news to each of 13 phones)", night,
                    f"{len(night)} nights: the command after which the table shows the dawn (the last room, action or "
                    "answer the night waited for); its message gives each phone its own news"))
    return out


def report(results: list[GameResult]) -> None:
    print()
    print("Live-sync latency per game (game command -> every client has its position)")
    print(f"{'what':<68}{'count':>7}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    for result in results:
        for what, values, note in rows(result):
            print(f"{what:<68}{len(values):>7}{pct(values, 50):>9.1f}{pct(values, 99):>9.1f}"
                  f"{max(values, default=float('nan')):>9.1f}")
            print(f"    {note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--game", action="append", choices=sorted(SPECS), help="only this game (repeatable)")
    parser.add_argument("--quick", action="store_true", help=f"a shorter run: {QUICK}")
    parser.add_argument("--commands", type=int, help="commands per game (at most)")
    parser.add_argument("--seconds", type=float, help="a game's run stops after this long")
    parser.add_argument("--glass-turns", type=int, help="La chasse au vampire: turn-overs to time")
    parser.add_argument("--pace-ms", type=float, default=PACE_S * 1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    pace = max(args.pace_ms, 1.0) / 1000
    base = QUICK if args.quick else FULL
    budget = Budget(min(args.seconds or base.seconds, 600.0), min(args.commands or base.commands, 20_000),
                    min(args.glass_turns or base.glass_turns, 60))
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}", flush=True)
    results = []
    for game in args.game or list(SPECS):
        print(f"running {game} ...", flush=True)
        results.append(run_game(game, budget, pace, args.seed))
    report(results)


if __name__ == "__main__":
    main()
