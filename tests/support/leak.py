"""The generic leak test: any game, random command sequences, every viewer, every event.

A game declares its secrets (`GameDefinition.secrets`): exact texts and who may see them. After
every command this harness renders the view of the table, the host and every seat, as the server
would send it, and looks for each secret in the bytes of every view whose viewer may not know it.
"""

from __future__ import annotations

import functools
import json
import json.encoder
import operator
import random
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import Any

import orjson

from companion.games.base import HOST, SYSTEM, TABLE, Command, Event, GameDefinition, Secret, Viewer, seat
from companion.store import EventStore
from companion.table.session import Table, TableSettings
from tests.conftest import ManualClock, seeded


@dataclass
class Leak:
    position: int
    viewer: str
    secret: str
    description: str


@dataclass
class LeakReport:
    commands: int = 0
    accepted: int = 0
    views_checked: int = 0
    secrets_seen: int = 0
    leaks: list[Leak] = field(default_factory=list)
    event_types: set[str] = field(default_factory=set)
    """Every kind of event the random play reached."""
    hidden_by_position: dict[int, dict[str, set[str]]] = field(default_factory=dict)
    """For each log position: per viewer, the secrets it may not see then (for stream checks)."""


def serialized(view: Any) -> str:
    """The view as the wire carries it (both ASCII-escaped and raw, so no escape hides a secret;
    a view with no other character than ASCII reads the same both ways, and is written once).

    orjson writes the raw text several times faster than json: its separators have no spaces,
    which never changes what a text holds. What it does not write (an integer beyond 64 bits),
    json does."""
    try:
        raw = orjson.dumps(view, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:
        raw = _RAW(view)
    return raw if raw.isascii() else raw + _ESCAPED(view)


def _encoder(ensure_ascii: bool) -> Callable[[Any], str]:
    """`json.JSONEncoder(ensure_ascii=...).encode`, the same text, with its C encoder made once
    instead of once per view, and no check for a view that holds itself (it would recurse without
    end, and fail as loudly)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return json.JSONEncoder(ensure_ascii=ensure_ascii).encode
    escape = json.encoder.encode_basestring_ascii if ensure_ascii else json.encoder.encode_basestring
    encode = make(None, _unserializable, escape, None, ": ", ", ", False, False, True)
    return lambda value: escape(value) if isinstance(value, str) else "".join(encode(value, 0))


def _unserializable(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


_RAW = _encoder(ensure_ascii=False)
_ESCAPED = _encoder(ensure_ascii=True)


@dataclass
class SecretWatch:
    """A property test's check after every event of a game on the pure rules: renders the view of
    the table, the host and every seat as the wire carries it, and looks for each secret that viewer
    may not know. The state must have `players` with their `seat`."""

    game: GameDefinition[Any]
    finder: re.Pattern[str] | None = None
    """The shape of the game's secret texts, when they have one (never spanning JSON's quotes): a
    view is then searched once for all texts of that shape instead of once per secret, and what the
    viewers' views share is written and searched once per state (the same verdict, much faster:
    enough to watch thousands of complete games)."""
    states: int = 0
    secrets: int = 0
    owned: Counter[str] = field(default_factory=Counter)
    """Per kind of secret (its text up to the first "-"), how often a seat was shown one it may know."""
    leaks: list[str] = field(default_factory=list)

    def __call__(self, before: Any, state: Any, event: Event) -> None:
        self.states += 1
        secrets = self.game.secrets(state)
        self.secrets += len(secrets)
        by_text = _by_text(secrets)
        searched: list[tuple[Mapping[str, Any], set[str]]] = []
        owned: list[str] = []
        for viewer in _viewers(tuple(p.seat for p in state.players)):
            view = self.game.view(state, viewer)
            if self.finder is not None:
                shown = [s for text in self._found(view, searched, by_text) for s in by_text[text]]
            else:
                body = serialized(view)
                shown = [s for s in secrets if s.value in body]
            for secret in shown:
                if not secret.visible_to(viewer):
                    self.leaks.append(f"{viewer} saw {secret.description} after {event.type}")
                elif viewer.kind == "seat":
                    owned.append(secret.value)
        if owned:
            self.owned.update(map(_kind, owned))

    def _found(self, view: Mapping[str, Any], earlier: list[tuple[Mapping[str, Any], set[str]]],
               secret: Mapping[str, Any]) -> set[str]:
        """The secret texts in a view, found by their shape. A view holding every part of one
        searched before in this state, as the same objects (the game's shared picture), is searched
        only in the rest."""
        assert self.finder is not None
        for before, texts in earlier:
            if view is before:
                found = texts
                break
            if all(map(operator.is_, map(view.get, before, repeat(_ABSENT)), before.values())):
                rest = [[key, value] for key, value in view.items() if key not in before]
                found = texts | set(self.finder.findall(serialized(rest))).intersection(secret) if rest else texts
                break
        else:
            found = set(self.finder.findall(serialized(view))).intersection(secret)
        earlier.append((view, found))
        return found


@functools.lru_cache(maxsize=4096)
def _kind(text: str) -> str:
    """A secret's kind: its text up to the first "-"."""
    return text.split("-")[0]


_ABSENT = object()
"""What a view holds under a key it lacks: the same object as no value of another view."""


def _by_text(secrets: list[Secret]) -> dict[str, tuple[Secret, ...]]:
    """The secrets by their text (most games never give two secrets the same text)."""
    by_text = {s.value: (s,) for s in secrets}
    if len(by_text) < len(secrets):
        by_text = {}
        for secret in secrets:
            by_text[secret.value] = (*by_text.get(secret.value, ()), secret)
    return by_text


@functools.cache
def _viewers(seats: tuple[int, ...]) -> tuple[Viewer, ...]:
    """Everyone a state is shown to: the table, the host and each of its seats."""
    return (TABLE, HOST, *(seat(n) for n in seats))


def viewers(seats: int) -> list[Viewer]:
    return [TABLE, HOST, *(seat(n) for n in range(1, seats + 1))]


def check_table(table: Table, report: LeakReport) -> None:
    run = table.run
    if run is None:
        return
    secrets = run.secrets()
    report.secrets_seen += len(secrets)
    hidden: dict[str, set[str]] = {}
    for viewer in viewers(table.state.seat_count):
        body = serialized(table.view(viewer))
        report.views_checked += 1
        not_allowed = {s.value for s in secrets if not s.visible_to(viewer)}
        hidden[str(viewer)] = not_allowed
        for secret in secrets:
            if secret.value in not_allowed and secret.value in body:
                report.leaks.append(Leak(table.position, str(viewer), secret.value, secret.description))
    report.hidden_by_position[table.position] = hidden


def junk_commands(rnd: random.Random, seats: int) -> list[Command]:
    """Commands a misbehaving client might send: they must be refused without leaking either."""
    return [
        Command("undo"),
        Command(rnd.choice(["peek", "reveal", "steal", "roll"]), {"seat": rnd.randint(0, seats + 1)}),
        Command("name_seat", {"seat": rnd.randint(1, seats), "name": f"N{rnd.randint(0, 99)}"}),
    ]


def play(
    definition: GameDefinition[Any],
    options: Mapping[str, Any],
    *,
    seats: int = 4,
    games: int = 50,
    steps: int = 40,
    seed: int = 1,
) -> LeakReport:
    """Random games: each step a random viewer sends one of its actions (or junk); check every view.

    Every other step the viewer is one the game is waiting on (one with an allowed action), so a
    game whose turn waits on one seat among seven viewers still gets far enough to reach its rarer
    moments (a duel, a reveal); the other steps keep every viewer's refused commands coming."""
    rnd = random.Random(seed)
    report = LeakReport()
    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore.open(Path(tmp) / "leak.sqlite3")
        settings = TableSettings(seats, "host_and_own", {definition.id: dict(options)})
        table = Table.open(store, {definition.id: definition}, ManualClock(), seeded(seed), settings)
        for n in range(1, seats + 1):
            table.handle(HOST, Command("name_seat", {"seat": n, "name": f"Player {n}"}))
        try:
            for _ in range(games):
                if table.run is not None and not table.run.ended:
                    table.handle(HOST, Command("end_game"))
                outcome = table.handle(HOST, Command("start_game", {"game": definition.id}))
                assert outcome.ok, outcome.rejection
                check_table(table, report)
                for step in range(steps):
                    run = table.run
                    assert run is not None
                    everyone = [*viewers(seats), SYSTEM]
                    awaited: list[Viewer] = []
                    if step % 2 and not run.ended:  # every other step, one the game waits for acts (if any)
                        awaited = [v for v in everyone if any(definition.validate(run.state, v, c) is None
                                                              for c in definition.actions(run.state, v))]
                    actor = rnd.choice(awaited or everyone)
                    candidates = definition.actions(run.state, actor) + junk_commands(rnd, seats)
                    command = rnd.choice(candidates)
                    outcome = table.handle(actor, command)
                    report.commands += 1
                    report.accepted += outcome.ok
                    check_table(table, report)
            report.event_types = {e.type for e in store.read_all()}
        finally:
            store.close()
    return report


def hidden_now(table: Table) -> dict[str, set[str]]:
    """Per viewer, the secrets it may not see in the table's current state."""
    run = table.run
    if run is None:
        return {}
    secrets = run.secrets()
    return {str(v): {s.value for s in secrets if not s.visible_to(v)} for v in viewers(table.state.seat_count)}


def stream_leaks(
    received: Mapping[str, list[tuple[int, str]]], hidden: Mapping[int, Mapping[str, set[str]]]
) -> list[Leak]:
    """Leaks in captured stream messages: (position, raw data) per viewer, checked at their position."""
    leaks = []
    for viewer, messages in received.items():
        for position, data in messages:
            for secret in hidden.get(position, {}).get(viewer, set()):
                if secret in data:
                    leaks.append(Leak(position, viewer, secret, "sent on the stream"))
    return leaks
