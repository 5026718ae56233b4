"""Secrets stay out of the places a view test does not look: logs, error bodies, error pages, and
exports made before a game ends.

A Vampir game (hands, the draw pile) and a Nuit game (the tomato's tower, the seal's salt, the
unseen magic and fate cards) are played through the HTTP API with every log record captured at
DEBUG, while errors are provoked: moves naming another player's cards or the draw pile's, commands
out of turn, forged origins, malformed bodies, unknown pages, a refused export. Every secret the
game declared at any time (GameDefinition.secrets), the game's seed, the host key and the cookies
are looked for in every log record and every error body; error pages are searched for what the
table may not know. `companion export` of a running game warns that it holds the seed, and logs
nothing secret.
"""

from __future__ import annotations

import json
import logging
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pytest
from flask.testing import FlaskClient

from companion.cli import main as companion
from companion.games.base import TABLE, Command, Viewer
from companion.server import create_app
from companion.service import Service
from companion.sim.players.vampir import next_move
from tests.support.web import BASE

EVIL = {"Origin": "http://evil.example"}
VAMPIR_TOKEN = re.compile(r"vampir-r\d+-\d{3}")


@dataclass
class Secrets:
    """Every secret declared while the game ran (with what it was), and the service's own keys."""

    service: Service
    known: dict[str, str] = field(default_factory=dict)
    errors_checked: int = 0
    pages_checked: int = 0

    def note(self) -> None:
        run = self.service.table.run
        assert run is not None
        for secret in run.secrets():
            self.known.setdefault(secret.value, secret.description or "a secret")

    def keys(self, *clients: FlaskClient) -> None:
        self.known[self.service.host_key] = "the host key"
        self.known[self.service.cookie_key.hex()] = "the cookie key"
        for client in clients:
            for name in ("seat", "host"):
                cookie = client.get_cookie(name)
                if cookie is not None:
                    self.known[cookie.value] = f"a {name} cookie"

    def found(self, text: str, only: Iterable[str] | None = None) -> list[str]:
        values = self.known if only is None else {v: self.known.get(v, "a secret") for v in only}
        return [f"{description} ({value[:12]}…)" for value, description in values.items() if value in text]

    def error(self, response: Any, status: int | None = None) -> dict[str, Any]:
        """A refusal: the status expected, the documented error body, no secret in it."""
        text = response.get_data(as_text=True)
        assert response.status_code >= 400 and (status is None or response.status_code == status), text[:300]
        self.errors_checked += 1
        if response.mimetype == "text/html":
            # An error page shows the table's view, where a card once held may lie face up now.
            self.page(response)
            return {}
        assert self.found(text) == [], text[:300]
        if response.mimetype == "application/json":
            body = response.get_json()
            assert body["ok"] is False and body["error"] and body["message"]
            return body
        return {}

    def page(self, response: Any, viewer: Viewer = TABLE) -> None:
        """An HTML page (error or not) holds no secret its viewer may not know now."""
        run = self.service.table.run
        assert run is not None
        hidden = [s.value for s in run.secrets() if not s.visible_to(viewer)]
        text = response.get_data(as_text=True)
        assert self.found(text, hidden) == [], (response.status_code, text[:200])
        assert self.found(text, [self.service.host_key]) == []
        self.pages_checked += 1


def logged(caplog: pytest.LogCaptureFixture) -> str:
    """Every captured record as a handler would write it: message, arguments and traceback."""
    formatter = logging.Formatter("%(name)s %(levelname)s %(message)s")
    return "\n".join(formatter.format(record) for record in caplog.records)


@dataclass
class Table:
    service: Service
    host: FlaskClient
    phones: dict[int, FlaskClient]
    nobody: FlaskClient

    def client(self, actor: Viewer) -> tuple[FlaskClient, str]:
        if actor.kind == "host":
            return self.host, "host"
        if actor.kind == "seat" and actor.seat is not None:
            return self.phones[actor.seat], "me"
        return self.nobody, "table"

    def send(self, actor: Viewer, command: Command, headers: dict[str, str] | None = None) -> Any:
        client, role = self.client(actor)
        return client.post("/api/commands", json={"as": role, "name": command.name, "args": dict(command.args)},
                           headers=headers or {})


def seated_table(service: Service, game: str, seats: int = 3) -> Table:
    app = create_app(service, BASE, {"TESTING": True})
    code = service.table.state.join_code
    phones = {}
    for number in range(1, seats + 1):
        phone = app.test_client()
        assert phone.post("/api/join", json={"code": code, "seat": number, "name": f"P{number}"}).status_code == 200
        phones[number] = phone
    host = app.test_client()
    assert host.post("/api/host/login", json={"key": service.host_key}).status_code == 200
    started = host.post("/api/commands", json={"as": "host", "name": "start_game", "args": {"game": game}})
    assert started.status_code == 200, started.get_json()
    return Table(service, host, phones, app.test_client())


def watched_table(service: Service, game: str, caplog: pytest.LogCaptureFixture) -> tuple[Table, Secrets]:
    """A started game with three phones and the host logged in, every log line kept (DEBUG), and
    the secrets to look for: the game's as they come, the host and cookie keys and every client's cookies."""
    caplog.set_level(logging.DEBUG)
    table = seated_table(service, game)
    secrets = Secrets(service)
    secrets.keys(table.host, *table.phones.values())
    return table, secrets


def provoke_common_errors(table: Table, secrets: Secrets) -> None:
    """Forged, malformed and misplaced requests, unknown pages; each refused without a secret."""
    run = table.service.table.run
    assert run is not None
    game_id = run.game_id
    host, phone, nobody = table.host, table.phones[1], table.nobody
    secrets.error(host.post("/api/commands", json={"as": "host", "name": "end_game"}, headers=EVIL), 403)
    secrets.error(phone.post("/api/commands", json={"as": "me", "name": "draw"}, headers=EVIL), 403)
    secrets.error(nobody.post("/api/commands", json={"as": "host", "name": "end_game"}), 403)
    secrets.error(nobody.post("/api/commands", json={"as": "me", "name": "draw"}), 403)
    secrets.error(phone.post("/api/commands", data="{" * 5000, content_type="application/json"), 400)
    secrets.error(phone.post("/api/commands", json={"name": "peek_everything", "as": "me", "args": {"seat": 2}}))
    secrets.error(phone.post("/api/commands", json={"name": "end_game", "as": "host"}), 403)
    secrets.error(phone.get("/api/view?as=host"), 403)
    secrets.error(nobody.get("/api/stream?as=me"), 403)
    secrets.error(host.get(f"/api/games/{game_id}/export"), 409)
    secrets.error(host.get("/api/games/nope/export"), 404)
    secrets.error(phone.get(f"/api/games/{game_id}/export"), 403)
    secrets.error(nobody.post("/api/host/login", json={"key": table.service.host_key[:-1] + "x"}), 403)
    secrets.error(nobody.get("/api/nothing"), 404)
    secrets.error(phone.post("/api/ping", json={"id": 1}))
    secrets.error(phone.post("/api/buttons/unpair", json={"button": "gpio:17"}))
    for path, status in (("/nothing", 404), ("/join/WRONG1", 404), ("/rebind/not-a-link", 410)):
        secrets.error(nobody.get(path), status)
    response = nobody.post("/table")
    secrets.error(response, 405)
    for path in ("/table", "/host", "/join"):
        secrets.page(nobody.get(path))
    secrets.page(phone.get("/me"), Viewer("seat", 1))


def vampir_forgery(table: Table, actor: Viewer, command: Command, secrets: Secrets) -> bool:
    """The current player names, in the move it is about to make, another seat's card, then a card of
    the draw pile: both refused, with the same answer (no oracle of where a card is), nothing leaked."""
    run = table.service.table.run
    assert run is not None
    state = run.state
    text = json.dumps(dict(command.args))
    mine = VAMPIR_TOKEN.findall(text)
    if actor.kind != "seat" or not mine:
        return False
    others = [c for p in state.players if p.seat != actor.seat for c in p.hand]
    from companion.games.vampir.state import CARDS

    answers = []
    for card in (others[:1] + list(state.draw_pile[:1])):
        forged = json.loads(text.replace(mine[0], CARDS[card].token(state.round)))
        before = table.service.store.read_all()
        body = secrets.error(table.send(actor, Command(command.name, forged)))
        assert table.service.store.read_all() == before
        answers.append((body["error"], body["message"]))
    assert len(set(answers)) == 1, answers
    return True


def test_vampir_hands_and_draw_pile_stay_out_of_logs_errors_and_early_exports(
        service: Service, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]) -> None:
    table, secrets = watched_table(service, "vampir", caplog)
    rnd = random.Random(4)
    forgeries = 0
    for step in range(160):
        run = service.table.run
        assert run is not None and not run.ended
        secrets.note()
        actor, command = next_move(run.state, rnd, step)
        if actor.kind == "system":
            continue
        if forgeries < 12 and vampir_forgery(table, actor, command, secrets):
            forgeries += 1
        response = table.send(actor, command)
        assert response.status_code == 200, (actor, command, response.get_json())
    secrets.note()
    assert forgeries >= 5, "the forged moves must have been tried"
    hands = [v for v, d in secrets.known.items() if "hand" in d]
    assert len(hands) >= 15 and any("draw pile" in d for d in secrets.known.values())
    provoke_common_errors(table, secrets)
    check_cli_export(service, secrets, capsys)
    assert secrets.found(logged(caplog)) == [], "a secret in the log"
    assert len(caplog.records) > 20, "the refusals were logged"
    assert secrets.errors_checked > 40


def check_cli_export(service: Service, secrets: Secrets, capsys: pytest.CaptureFixture[str]) -> None:
    """`companion export` of a running game: the export holds the seed, and the command says so on
    stderr; the warning itself names no secret."""
    run = service.table.run
    assert run is not None and not run.seed_revealed
    capsys.readouterr()
    assert companion(["export", "--data", str(service.config.data_dir), run.game_id]) == 0
    out, err = capsys.readouterr()
    assert "not over" in err and "secret seed" in err, err
    assert secrets.found(err) == [], "the warning names a secret"
    data = json.loads(out)
    assert data["game_id"] == run.game_id
    assert run.seed.hex() in out, "what the warning says: the seed is in a running game's export"


def nuit_moves(table: Table, rnd: random.Random, secrets: Secrets, steps: int) -> tuple[int, int]:
    """Players answer what the turn asks (their allowed actions, as in tests/test_nuit_table.py), and
    now and then try an action they may not take now; (accepted, refused)."""
    from companion.games.nuit.turn import waiting_for

    accepted = refused = 0
    for _ in range(steps):
        run = table.service.table.run
        assert run is not None
        if run.ended:
            break
        secrets.note()
        who = Viewer("seat", rnd.choice(waiting_for(run.state)))
        client, _ = table.client(who)
        actions = client.get("/api/view?as=me").get_json()["game"]["actions"]
        allowed = [Command(a["name"], a["args"]) for a in actions if a["allowed"]]
        barred = [Command(a["name"], a["args"]) for a in actions if not a["allowed"]]
        others = [Viewer("seat", s) for s in table.phones if s != who.seat]
        if barred and rnd.random() < 0.3:
            before = table.service.store.read_all()
            secrets.error(table.send(who, rnd.choice(barred)))
            assert table.service.store.read_all() == before
            refused += 1
        if allowed and rnd.random() < 0.2:
            # Someone else tries the move that is not theirs to make.
            other = rnd.choice(others)
            if other.seat not in waiting_for(run.state):
                secrets.error(table.send(other, rnd.choice(allowed)))
                refused += 1
        # Away from the castle, so the tomato stays hidden for the whole test.
        calm = [c for c in allowed if c.args.get("at") != "courtyard" and c.name != "open"]
        command = rnd.choice(calm or allowed)
        response = table.send(who, command)
        assert response.status_code == 200, (command, response.get_json())
        accepted += 1
    return accepted, refused


def test_nuit_tomato_tower_stays_out_of_logs_errors_and_early_exports(
        service: Service, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]) -> None:
    table, secrets = watched_table(service, "nuit-des-vampires", caplog)
    accepted, refused = nuit_moves(table, random.Random(6), secrets, 80)
    secrets.note()
    assert accepted >= 40 and refused >= 10
    assert any(value.endswith("-tomato") for value in secrets.known), "the tomato's tower is a declared secret"
    # Whoever asks to open or peek into towers gets the same kind of answer for every tower.
    run = service.table.run
    assert run is not None and not run.ended
    phone = table.phones[1]
    for tower in range(1, 6):
        for name in ("open", "peek"):
            secrets.error(phone.post("/api/commands", json={"as": "me", "name": name, "args": {"tower": tower}}))
    provoke_common_errors(table, secrets)
    check_cli_export(service, secrets, capsys)
    assert secrets.found(logged(caplog)) == [], "a secret in the log"
    assert secrets.errors_checked > 40


def test_a_server_error_names_no_secret_in_its_answer(service: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug whose exception carries a secret: the 500 answer is the generic one (the traceback goes to
    the log, for the person who runs the Pi)."""
    table = seated_table(service, "vampir")
    secrets = Secrets(service)
    secrets.note()
    hand = next(v for v, d in secrets.known.items() if "seat 2's hand" in d)

    def broken(viewer: Viewer) -> Any:
        raise RuntimeError(f"state dump: {hand} {service.host_key}")

    monkeypatch.setattr(service.table, "view", broken)
    failed = 0
    for client, path in ((table.phones[1], "/api/view?as=me"), (table.nobody, "/api/status"),
                         (table.nobody, "/table")):
        response = client.get(path)
        if response.status_code == 200:
            continue  # a route that does not build a view
        assert response.status_code == 500, path
        assert hand not in response.get_data(as_text=True) and service.host_key not in response.get_data(as_text=True)
        assert response.get_json()["error"] == "server_error"
        failed += 1
    assert failed == 2


def test_the_checker_sees_a_secret_in_a_log(service: Service, caplog: pytest.LogCaptureFixture) -> None:
    """The check above can fail: a hand logged by mistake is found."""
    caplog.set_level(logging.DEBUG)
    seated_table(service, "vampir")
    secrets = Secrets(service)
    secrets.note()
    hand = next(v for v, d in secrets.known.items() if "hand" in d)
    logging.getLogger("companion.table.session").debug("dealt %s", [hand])
    assert secrets.found(logged(caplog))
