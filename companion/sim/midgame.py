"""A running service brought to a game in full swing: N named phones seated, the game started, and
random allowed moves played through the HTTP API as the phones, the host and the table would send
them, so that the table display has results, histories and panels to show.

What the TV layout test and the screenshot tour share: a picture of an empty game hides the layout
bugs of a real evening (a long history, six players' panels, a round's result and its reason).
Every move is one of the viewer's own `actions` marked allowed (the view says so), so the game is
one the rules allow; reaction rounds (the garlic slap, the quiz) are pressed with the simulated
buttons (`serve --simulate`: button n is seat n).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from companion.sim.clients import phone_address, request
from companion.sim.service import ServiceProcess

NAMES = ("Zoé", "Bruno", "Amira", "Lucas", "Chloé", "Dmitri", "Émilie", "Farid", "Gaëlle", "Hugo",
         "Inès", "Jules", "Kenza")
"""Players' names with accents, of several lengths, as a real table's."""

FAST_OPTIONS: Mapping[str, Mapping[str, Any]] = {
    "buzzer-quiz": {"window_s": 1.0},
    "garlic-slap": {"no_slap_timeout_s": 3, "skull_window_s": 3, "penalty_choice_timeout_s": 3,
                    "claim_timeout_s": 5},
}
"""Options that keep a game's waits short (the shortest the rules allow), so random play moves on."""

NEVER = frozenset({"undo", "end_game"})
RARE: Mapping[str, float] = {"cancel_round": 0.1, "roll": 4.0, "pause_glass": 0.1, "pause_clock": 0.1,
                             "extend_clock": 0.1, "end_phase": 0.3, "write": 0.2}
"""How often a table makes a move, against 1 for the others: a weight below 1 is also the chance of
making it when it is the only one (a round is seldom cancelled, nor the sand glass or a phase's
clock paused or extended; a Dracula vampire's private messages, one action per recipient, would
outnumber everyone's answers); rolls come first (a dice tray whose presets outnumber its one roll
would only ever change its dice)."""
QUIET: Mapping[str, float] = {"write": 0.05, "end_phase": 0.0, "pause_clock": 0.0, "extend_clock": 0.0,
                              "confirm_night": 0.0, "next_round": 0.0}
"""A tour's weights in a phase it stops at: the players answer what the phase asks (a vampire's
private messages, one action per recipient, would outnumber the rest), and the host neither
touches the clock nor moves the game on (a weight of 0: never)."""
REACTION_GAMES = frozenset({"garlic-slap", "buzzer-quiz"})
"""Games with reaction rounds, where a player slaps at random moments, not only when nobody may act."""


class MidGame:
    """A service (started with `--simulate`) driven to mid-game states through its API."""

    def __init__(self, service: ServiceProcess, seed: int = 21) -> None:
        self.service = service
        self.port = service.port
        self.rng = random.Random(seed)
        self.cookies: dict[int, str] = {}
        self.joins = 0
        self._askers: ThreadPoolExecutor | None = None

    # -- the table ------------------------------------------------------------------------------

    def host(self, name: str, args: Mapping[str, Any] | None = None, must: bool = True) -> dict[str, Any]:
        answer: dict[str, Any] = self.service.post(name, dict(args or {}), host=True, timeout=10)
        if must and not answer.get("ok"):
            raise RuntimeError(f"host command {name} {args} refused: {answer}")
        return answer

    def table_view(self) -> dict[str, Any]:
        return dict(self.service.get("/api/view?as=table"))

    def seat_players(self, players: int, seats: int | None = None) -> None:
        """End any game, free every seat, make `seats` seats (at least 2, the table's least) and
        seat `players` named phones in the first ones."""
        view = self.table_view()
        if view["game"] is not None and not view["game"]["ended"]:
            self.host("end_game")
        for seat in view["table"]["seats"]:
            if seat["name"]:
                self.host("clear_seat", {"seat": seat["number"]})
        self.host("set_seat_count", {"count": max(2, seats if seats is not None else players)})
        code = self.table_view()["table"]["join_code"]
        self.cookies = {}
        for seat in range(1, players + 1):
            self.joins += 1  # each join from a new phone's address: the service limits joins per address
            status, answer, response = request(self.port, "POST", "/api/join",
                                               {"code": code, "seat": seat, "name": NAMES[seat - 1]},
                                               source=f"127.1.{self.joins // 250}.{self.joins % 250 + 1}")
            if status != 200 or not answer.get("ok"):
                raise RuntimeError(f"seat {seat} could not join: {status} {answer}")
            for header, value in response.getheaders():
                if header.lower() == "set-cookie" and value.startswith("seat="):
                    self.cookies[seat] = value.split(";", 1)[0]

    def start(self, game: str, options: Mapping[str, Any] | None = None) -> None:
        self.host("start_game", {"game": game, "options": {**FAST_OPTIONS.get(game, {}), **(options or {})}})

    # -- random play ----------------------------------------------------------------------------

    def seat_view(self, seat: int) -> dict[str, Any]:
        status, view, _ = request(self.port, "GET", "/api/view?as=me", headers={"Cookie": self.cookies[seat]},
                                  source=phone_address(seat))
        if status != 200:
            raise RuntimeError(f"seat {seat} could not read its view: {status} {view}")
        return dict(view)

    def view_of(self, seat: int | None) -> tuple[str, int | None, dict[str, Any]]:
        """(role, seat, view): the host's view (seat None) or a seated phone's."""
        if seat is None:
            return "host", None, dict(self.service.get("/api/view?as=host", host=True))
        return "me", seat, self.seat_view(seat)

    def choices(self) -> list[tuple[str, int | None, dict[str, Any]]]:
        """Every allowed move now: (role, seat, action). The host's and every phone's views are
        asked for at once, as a table's screens would: one after the other, a full table's
        fourteen round trips were most of a move's time."""
        if self._askers is None:
            self._askers = ThreadPoolExecutor(max_workers=14, thread_name_prefix="midgame-view")
        found: list[tuple[str, int | None, dict[str, Any]]] = []
        views = list(self._askers.map(self.view_of, [None, *self.cookies]))
        for role, seat, view in views:
            game = view["game"]
            if game is None or game["ended"]:
                return []
            found += [(role, seat, a) for a in game["actions"] if a["allowed"] and a["name"] not in NEVER]
        return found

    def send(self, role: str, seat: int | None, action: Mapping[str, Any]) -> dict[str, Any]:
        body = {"as": role, "name": action["name"], "args": action["args"]}
        if role == "host":
            return dict(self.service.post(action["name"], action["args"], host=True, timeout=10))
        status, answer, _ = request(self.port, "POST", "/api/commands", body,
                                    headers={"Cookie": self.cookies[seat or 0]}, source=phone_address(seat or 0))
        return dict(answer or {"ok": False, "status": status})

    def press(self, seat: int) -> None:
        request(self.port, "POST", "/api/buttons/press", {"button": seat})

    def play(self, moves: int, prefer: Mapping[str, float] | None = None, press: float | None = None,
             timeout_s: float = 60) -> int:
        """Up to `moves` random allowed moves (weighted by `prefer`, by action name, then RARE; 1 otherwise; 0 never);
        when nobody may act (a reaction round is open, a timer runs), and otherwise with the chance
        `press` (0.2 in a game with reaction rounds, else 0), a random seat presses its button and
        the service is given a moment. Stops early
        when the game ends. The moves made."""
        weights = {**RARE, **(prefer or {})}
        made = 0
        if press is None:
            view = self.table_view()
            press = 0.2 if view["game"] is not None and view["game"]["game"] in REACTION_GAMES else 0.0
        deadline = time.monotonic() + timeout_s
        while made < moves and time.monotonic() < deadline:
            view = self.table_view()
            if view["game"] is None or view["game"]["ended"]:
                break
            found = [c for c in self.choices() if weights.get(c[2]["name"], 1.0) > 0]
            if self.cookies and (not found or self.rng.random() < press):
                # A reaction round may be open (nobody may act while it runs): a player slaps.
                self.press(self.rng.choice(sorted(self.cookies)))
                self._settle(view["position"], 0.1)
                continue
            if not found:
                self._settle(view["position"], 1.0)
                continue
            role, seat, action = self.rng.choices(found, [weights.get(a["name"], 1.0) for _, _, a in found])[0]
            weight = weights.get(action["name"], 1.0)
            if weight < 1 and self.rng.random() > weight:
                # A rare move, even when it is the only one: most often the table waits instead (in a
                # game with reaction rounds, a player slaps and the round is given its moment;
                # elsewhere nothing but a move would change the game: the table picks again).
                if self.cookies and press > 0:
                    self.press(self.rng.choice(sorted(self.cookies)))
                    self._settle(view["position"], 0.3)
                continue
            if self.send(role, seat, action).get("ok"):
                made += 1
        return made

    # -- a tour of the phases ---------------------------------------------------------------------

    def phase_key(self, view: Mapping[str, Any]) -> str | None:
        """The game's phase as its picture names it (`phase`), or None with no game. Dracula's
        screens that differ within a phase have keys of their own: a day with a vote is
        `day_vote`, the roles of a round after the first (the series so far) `roles_next`."""
        game = view["game"]
        if game is None:
            return None
        picture = game["view"]
        phase = picture.get("phase")
        if phase == "day" and picture.get("vote_today"):
            return "day_vote"
        return "roles_next" if phase == "roles" and picture.get("rounds_done") else phase

    def tour(self, stops: Sequence[str], within: int | Mapping[str, int] = 6, budget: int = 200,
             key: Callable[[Mapping[str, Any]], str | None] | None = None) -> Iterator[str]:
        """Drive the running game through its phases and stop once at each of `stops` (phase keys,
        `phase_key`), after up to `within` random answers in it (`answer`: so its screen shows who
        answered, the votes cast...; a mapping: per stop, 6 for the others). A phase that is not a stop is
        ended by the host (`end_phase`, or whatever the host may do then: confirm a night, deal the
        next round); yields each stop's key while the game is in it. Stops the game never reaches
        in `budget` steps are left out."""
        key = key or self.phase_key
        remaining = list(stops)
        for _ in range(budget):
            if not remaining:
                return
            view = self.table_view()
            now = key(view)
            ended = view["game"] is None or view["game"]["ended"]
            if now is None or (ended and now not in remaining):
                return
            if now in remaining:
                if not ended:
                    self.answer(within.get(now, 6) if isinstance(within, Mapping) else within)
                if key(self.table_view()) == now:
                    remaining.remove(now)
                    yield now
                    continue
            host = dict(self.service.get("/api/view?as=host", host=True))
            allowed = [a for a in (host["game"] or {}).get("actions", []) if a["allowed"]
                       and a["name"] in ("end_phase", "confirm_night", "next_round", "resume_clock")]
            if allowed:
                self.send("host", None, allowed[0])
            else:
                self.play(1, prefer=QUIET)

    def answer(self, most: int) -> int:
        """Up to `most` random answers to what the phase asks (QUIET's weights), while at least two
        players still have an answer to give (a rare move, a vampire's message, is not one): the
        last one's would end a phase that ends once everyone has answered, and the screen is
        checked while it still waits. The answers given."""
        weights = {**RARE, **QUIET}
        given = 0
        while given < most:
            found = [c for c in self.choices() if weights.get(c[2]["name"], 1.0) > 0]
            if len({seat for role, seat, a in found if role == "me" and weights.get(a["name"], 1.0) >= 1}) < 2:
                break
            role, seat, action = self.rng.choices(found, [weights.get(a["name"], 1.0) for _, _, a in found])[0]
            if not self.send(role, seat, action).get("ok"):
                break
            given += 1
        return given

    def _settle(self, position: int, wait_s: float) -> None:
        """Until the log moves past `position` or `wait_s` passes."""
        self.service.get(f"/api/view?after={position}&wait={wait_s:.2f}", timeout=wait_s + 5)
