"""What each viewer sees of the table: the only shape in which table state leaves the server.

A view is built once per change and shared by every screen of its viewer (the same dict: callers
must not modify it); the parts every viewer shares (the seats, the game's randomness) are built once
per change for all of them. Right after a change many screens ask at once, so a view already built
is handed out without waiting for the lock the commands hold.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, Protocol

from companion.fairness import contributions
from companion.games.base import Command, Rejection, Viewer
from companion.json_values import kept
from companion.table.broadcast import Broadcaster
from companion.table.gamerun import GameRun, UndoPolicy
from companion.table.presence import Presence
from companion.table.seating import TableState


class Seen(Protocol):
    """What a view is built from: the table's seats, its game, who is connected, the log position."""

    state: TableState
    run: GameRun | None
    presence: Presence
    broadcaster: Broadcaster
    extra_views: dict[str, Callable[[Viewer], Any]]

    @property
    def position(self) -> int: ...

    @property
    def undo_policy(self) -> UndoPolicy: ...


class TableViews:
    def __init__(self, table: Seen, lock: threading.RLock) -> None:
        self.table = table
        self._lock = lock
        """The table's: a view is built from one consistent moment, never mid-command."""
        self._views: dict[Hashable, Any] = {}
        self._before: dict[Hashable, Any] = {}
        """What was built before the last change: a part built alike is kept as it was."""
        self._revision = -1
        self._ahead_of: int | None = None
        """The revision a change was made at, until its publish moves it on (see `forget`)."""
        self._seats_made: tuple[TableState, int, dict[str, Any]] | None = None

    def forget(self) -> None:
        """The table changed: what was built before is stale (under the table's lock).

        What is built from now on is kept for the revision the change's publish makes next, so
        the view a command's answer carries is the one its screens are then sent, not built twice.
        """
        self._revision = -1  # no one is handed a view built now before the publish
        self._drop()
        self._ahead_of = self.table.broadcaster.revision

    def _drop(self) -> None:
        if self._views:
            self._before = self._views
            self._views = {}

    def of(self, viewer: Viewer) -> dict[str, Any]:
        key = str(viewer)
        views = self._views
        if self._revision == self.table.broadcaster.revision:
            cached = views.get(key)
            if cached is not None:
                return cached
        with self._lock:
            revision = self.table.broadcaster.revision
            if revision != self._revision:
                ahead = self._ahead_of
                if ahead is None or revision not in (ahead, ahead + 1):
                    self._drop()
                    self._ahead_of = None
                    self._revision = revision
                elif revision == ahead + 1:
                    # The change is published: what was built since it is current.
                    self._ahead_of = None
                    self._revision = revision
            cached = self._views.get(key)
            if cached is None:
                cached = self._views[key] = self._build(viewer, key)
            return cached

    def _shared(self, name: Hashable, build: Callable[..., Any], *args: Any, keep: bool = False) -> Any:
        """A part every viewer's view shares (the same object), built once per change; with
        `keep`, the one built before it when they are alike (a small part most changes leave as
        it was: compared once here, then passed by identity by every screen's patch, and printed
        once). `build(*args)` makes it."""
        part = self._views.get(name)
        if part is None:
            part = self._views[name] = kept(self._before.get(name), build(*args)) if keep else build(*args)
        return part

    def _seats(self) -> dict[str, Any]:
        """The seats and who is connected: made again only when the table's seats or its screens
        changed (most commands change neither), else the part built before, as it was; made
        again alike, it is kept as it was too (`kept`)."""
        state, presence = self.table.state, self.table.presence
        version = presence.version  # read first: a screen that comes meanwhile moves it on again
        made = self._seats_made
        if made is not None and made[0] is state and made[1] == version:
            return made[2]
        seats = state.view()
        for seat in seats["seats"]:
            seat["connected"] = presence.connected(Viewer("seat", seat["number"]))
        seats = kept(self._before.get("#table"), seats)
        self._seats_made = (state, version, seats)
        return seats

    def _build(self, viewer: Viewer, key: str) -> dict[str, Any]:
        table = self.table
        view: dict[str, Any] = {"position": table.position, "table": self._shared("#table", self._seats),
                                "game": self._game(viewer)}
        for name, part in table.extra_views.items():
            view[name] = part(viewer)
        if viewer.kind == "seat" and viewer.seat is not None:
            # The seat's own part: the one its view held before the change, while its name stays.
            name = table.state.names.get(viewer.seat, "")
            was = (self._before.get(key) or {}).get("you")
            view["you"] = was if was is not None and was["name"] == name else {"seat": viewer.seat, "name": name}
        return view

    def _game(self, viewer: Viewer) -> dict[str, Any] | None:
        """The game's part of a view: one object for every viewer who sees the game alike, is
        offered the same and may undo alike (a quiz's players), so a change is compared and
        printed once for all their screens."""
        run = self.table.run
        if run is None:
            return None
        definition = run.definition
        undoes = viewer.kind in ("host", "seat")
        refusal = run.undo_refusal(viewer, self.table.undo_policy) if undoes else None
        offers = definition.offers_alike(run.state, viewer)
        sees = definition.sees_alike(run.state, viewer)
        return self._shared(("#game", sees, offers, undoes, refusal), self._game_part,
                            run, viewer, undoes, refusal, offers, sees)

    def _game_part(self, run: GameRun, viewer: Viewer, undoes: bool, refusal: str | None, offers: Hashable,
                   sees: Hashable) -> dict[str, Any]:
        game: dict[str, Any] = {
            "id": run.game_id,
            "game": run.definition.id,
            "title": run.definition.title,
            "ended": run.ended,
            "seq": run.seq,
            "view": self._shared(("#view", sees), lambda: run.view(viewer)),
            "entropy": self._shared("#entropy", lambda: contributions.public_view(run.entropy), keep=True),
            "fairness": self._shared("#fairness", run.fairness_view),
        }
        if undoes:
            # Why this viewer may not undo now (None: it may), for the host and the seats only.
            game["undo"] = {"allowed": refusal is None, "reason": refusal}
        if run.undone is not None:
            game["undone"] = run.undone.to_json()
        game["actions"] = self._shared(("#actions", offers), lambda: self._actions(run, viewer), keep=True)
        return game

    def _actions(self, run: GameRun, viewer: Viewer) -> list[dict[str, Any]]:
        """The commands this viewer might send now, each allowed or refused with its reason."""
        commands = run.definition.actions(run.state, viewer)
        rejections: list[Rejection | None]
        if run.ended:
            rejections = [Rejection("game_over")] * len(commands)
        elif self.table.state.paused:
            rejections = [Rejection("paused")] * len(commands)
        else:
            rejections = run.definition.validate_each(run.state, viewer, commands)
        return [self._action(command, rejection) for command, rejection in zip(commands, rejections, strict=True)]

    @staticmethod
    def _action(command: Command, rejection: Rejection | None) -> dict[str, Any]:
        return {
            "name": command.name,
            "args": dict(command.args),
            "allowed": rejection is None,
            "reason": None if rejection is None else {"code": rejection.code, "params": dict(rejection.params)},
        }
