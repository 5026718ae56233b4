"""The HTTP surface under fuzzing, from its own description (companion/server/openapi.json).

The description covers every route the app has (a test holds it to the url_map). From its schemas
hypothesis makes requests (valid bodies, bodies with a field dropped, retyped or added, random
JSON, bytes, huge and deeply nested bodies, wrong content types, bad query values, wrong methods,
unknown paths) and sends them as each kind of caller (nobody, seated phones from our own pages, the
host by cookie or by key, the host's browser tricked by another site, a page reached through a
foreign DNS name) while each game runs. Whatever comes: no server error, every /api answer is JSON
of the documented shape with a documented status, and a refusal changes nothing, neither the log
nor what the table shows.
"""

from __future__ import annotations

import json
import tempfile
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from werkzeug.routing import Rule

from companion.config import load_config
from companion.games.base import HOST, TABLE, Command, Viewer
from companion.games.registry import GAMES
from companion.server import create_app
from companion.server.api import OPENAPI
from companion.service import Service, open_service
from tests.conftest import Later, ManualClock, seeded

SPEC: dict[str, Any] = json.loads(OPENAPI.read_text(encoding="utf-8"))
OURS = "http://localhost"
"""The Origin of the companion's own pages as the test client reaches it (Host: localhost)."""
EVIL = "http://evil.example"
GAME_IDS = tuple(GAMES)
"""Every game the companion can run: a new one is fuzzed without being named here."""
EXAMPLES = 12
"""Examples per game and route; each sends one to three requests."""


# -- the description ---------------------------------------------------------------------------------


def resolve(node: Any) -> Any:
    """A schema, response or parameter with its $ref followed (refs are local: #/components/...)."""
    while isinstance(node, dict) and "$ref" in node:
        target: Any = SPEC
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def spec_path(rule: Rule) -> str:
    """The OpenAPI path of a Flask rule: /api/games/<game_id>/export -> /api/games/{game_id}/export."""
    text = rule.rule
    out, i = "", 0
    while i < len(text):
        if text[i] == "<":
            end = text.index(">", i)
            out += "{" + text[i + 1:end].split(":")[-1] + "}"
            i = end + 1
        else:
            out += text[i]
            i += 1
    return out


def documented_methods(app: Flask) -> dict[str, set[str]]:
    """Per described path, the methods the app answers on it (HEAD and OPTIONS come with GET)."""
    found: dict[str, set[str]] = {}
    for rule in app.url_map.iter_rules():
        found.setdefault(spec_path(rule), set()).update(m.lower() for m in (rule.methods or ())
                                                        if m not in ("HEAD", "OPTIONS"))
    return found


def validate(value: Any, schema: Any, where: str = "$", depth: int = 99) -> list[str]:
    """The ways `value` breaks `schema` (the subset of JSON schema the description uses); `depth`
    limits how far down objects are checked."""
    schema = resolve(schema)
    if value is None:
        return [] if schema.get("nullable") else [f"{where}: null"]
    if "oneOf" in schema:
        matching = [s for s in schema["oneOf"] if not validate(value, s, where, depth)]
        return [] if len(matching) == 1 else [f"{where}: {len(matching)} of oneOf match {value!r:.60}"]
    kinds = {"object": dict, "array": list, "string": str, "boolean": bool, "integer": int, "number": (int, float)}
    kind = schema.get("type")
    if kind is not None and (not isinstance(value, kinds[kind])
                             or (kind in ("integer", "number") and isinstance(value, bool))):
        return [f"{where}: {type(value).__name__}, not {kind}"]
    problems = []
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{where}: {value!r:.60} not in {schema['enum']}")
    if isinstance(value, dict) and depth > 0:
        problems += [f"{where}: no {key!r}" for key in schema.get("required", []) if key not in value]
        properties = schema.get("properties", {})
        for key, item in value.items():
            if key in properties:
                problems += validate(item, properties[key], f"{where}.{key}", depth - 1)
            elif schema.get("additionalProperties") is False:
                problems.append(f"{where}: unexpected {key!r}")
    if isinstance(value, list) and "items" in schema and depth > 0:
        for n, item in enumerate(value):
            problems += validate(item, schema["items"], f"{where}[{n}]", depth - 1)
    return problems


# -- strategies from the schemas ---------------------------------------------------------------------

JSON_LEAF = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
             | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30))
ANY_JSON = st.recursive(JSON_LEAF, lambda inner: st.lists(inner, max_size=4)
                        | st.dictionaries(st.text(max_size=12), inner, max_size=4), max_leaves=12)
WEIRD_TEXT = st.sampled_from(["", " ", "0", "-1", "1e999", "nan", "inf", "-inf", "true", "null", "[]", "{}",
                              "%00", "\x00", "é", "🧛", "ǅ", "\u202e", "a" * 300, "1" * 40, "../../etc/passwd",
                              "<script>", "' OR 1=1 --", "arm", "me", "host", "table"]) | st.text(max_size=40)


def from_schema(schema: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Values that fit the schema (the subset the description uses); optional keys come and go."""
    schema = resolve(schema)
    if "oneOf" in schema:
        return st.one_of([from_schema(s, depth + 1) for s in schema["oneOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "object":
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        return st.fixed_dictionaries(
            {k: from_schema(properties.get(k, {}), depth + 1) for k in sorted(required)},
            optional={k: from_schema(v, depth + 1) for k, v in properties.items() if k not in required})
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {}), depth + 1), max_size=4)
    if kind == "string":
        return st.text(min_size=schema.get("minLength", 0), max_size=schema.get("maxLength", 30))
    if kind == "integer":
        return st.integers(min_value=schema.get("minimum", -5), max_value=schema.get("maximum", 20))
    if kind == "number":
        return st.floats(min_value=-5, max_value=30)
    if kind == "boolean":
        return st.booleans()
    return ANY_JSON


PICK = st.integers(min_value=0, max_value=10_000)
"""An index into a list that depends on the table's state: drawn the same way whatever the list is, so
hypothesis sees one shape of data from run to run (it refuses strategies that change with the state)."""


def pick(items: list[Any], index: int) -> Any:
    return items[index % len(items)]


def mutated(body: Any) -> st.SearchStrategy[Any]:
    """A valid body spoilt one way: a key dropped, a value of the wrong type, an unknown key."""
    keys = sorted(body) if isinstance(body, dict) and body else [""]

    def spoil(choice: tuple[int, int, str, Any]) -> Any:
        how, index, name, value = choice
        if not isinstance(body, dict) or not body:
            return value
        key = pick(keys, index)
        if how == 0:
            return {x: v for x, v in body.items() if x != key}
        if how == 1:
            return {**body, key: value}
        return {name: value, **body}

    return st.tuples(st.integers(0, 2), PICK, st.text(max_size=10), ANY_JSON | WEIRD_TEXT).map(spoil)


# -- the table under test ----------------------------------------------------------------------------


@dataclass
class Caller:
    name: str
    client: FlaskClient
    headers: dict[str, str]
    seat: int | None = None
    role: str = "table"


@dataclass
class Arena:
    app: Flask
    service: Service
    game: str
    callers: dict[str, Caller] = field(default_factory=dict)
    addresses: Iterator[int] = field(default_factory=lambda: count(1))

    def client(self) -> FlaskClient:
        client = self.app.test_client()
        # Every phone its own address: the join and login limits count per address.
        client.environ_base["REMOTE_ADDR"] = f"10.9.{next(self.addresses) % 250}.{next(self.addresses) % 250}"
        return client

    def seat_phone(self, caller: Caller) -> None:
        """The phone holds its seat again (a fuzzed leave or clear_seat may have freed it)."""
        assert caller.seat is not None
        if caller.client.get("/api/view?as=me").status_code == 200:
            return
        self.service.table.handle(HOST, Command("unlock_joining"))
        self.service.table.handle(HOST, Command("clear_seat", {"seat": caller.seat}))
        fresh = self.client()
        response = fresh.post("/api/join", json={"code": self.service.table.state.join_code, "seat": caller.seat,
                                                 "name": f"P{caller.seat}"}, headers={"Origin": OURS})
        assert response.status_code == 200, response.get_json()
        caller.client = fresh

    def fill_seats(self) -> None:
        """A game for more players than the phones here (Dracula) has its other seats named, as a
        host names the players of a table without phones."""
        table = self.service.table
        wanted = GAMES[self.game].min_seats
        if table.state.seat_count < wanted:
            table.handle(HOST, Command("set_seat_count", {"count": wanted}))
        for info in table.state.seats():
            if info.number <= wanted and not info.name:
                table.handle(HOST, Command("name_seat", {"seat": info.number, "name": f"P{info.number}"}))

    def ready(self) -> None:
        """The game is running and the phones are seated (a fuzzed end_game or leave may have undone it)."""
        for caller in self.callers.values():
            if caller.seat is not None:
                self.seat_phone(caller)
        run = self.service.table.run
        if run is None or run.ended or run.definition.id != self.game:
            if run is not None and not run.ended:
                self.service.table.handle(HOST, Command("end_game"))
            self.service.table.handle(HOST, Command("resume"))
            self.fill_seats()
            outcome = self.service.table.handle(HOST, Command("start_game", {"game": self.game}))
            assert outcome.ok, outcome.rejection


@contextmanager
def arena(game: str) -> Iterator[Arena]:
    with tempfile.TemporaryDirectory() as tmp:
        config = load_config(None, {"data.dir": str(Path(tmp) / "data")})
        service = open_service(config, ManualClock(), seeded(11), scheduler=Later(), watch_health=False)
        try:
            app = create_app(service, "http://192.0.2.10:8080",
                             {"STREAM_HEARTBEAT_S": 0.02, "LONG_POLL_MAX_S": 0.05})
            place = Arena(app, service, game)
            host = place.client()
            login = host.post("/api/host/login", json={"key": service.host_key})
            assert login.status_code == 200
            place.callers = {
                "nobody": Caller("nobody", place.client(), {}),
                "phone1": Caller("phone1", place.client(), {"Origin": OURS}, 1, "me"),
                "phone2": Caller("phone2", place.client(), {"Origin": OURS}, 2, "me"),
                "phone3": Caller("phone3", place.client(), {}, 3, "me"),
                "host": Caller("host", host, {"Origin": OURS}, role="host"),
                "script": Caller("script", place.client(), {"Authorization": f"Bearer {service.host_key}"},
                                 role="host"),
                "forged_origin": Caller("forged_origin", host, {"Origin": EVIL}, role="host"),
                "rebinding": Caller("rebinding", host, {"Origin": "http://evil.example:8080",
                                                        "Host": "evil.example:8080"}, role="host"),
            }
            place.ready()
            yield place
        finally:
            service.table.broadcaster.close()
            service.close()


# -- one request ---------------------------------------------------------------------------------------


@dataclass
class Request:
    method: str
    path: str
    template: str | None
    """The described path (None: one the description does not have)."""
    query: dict[str, str]
    headers: dict[str, str]
    kind: str
    body: Any = None
    raw: bytes | None = None
    content_type: str | None = None


EDGE_VALUES = {"wait": ["inf", "-inf", "nan", "1e999", "-1", "0", "30", "9" * 400, "0x10"],
               "after": ["-1", "0", "99999999999999999999999", "1.5", "-0", "+3"],
               "as": ["TABLE", "me ", "host\x00", "seat", "1"]}
"""Query values at the edges of what the routes parse."""
ONCE_IN_20 = st.sampled_from([False] * 19 + [True])
OPERATIONS = sorted((path, method) for path, item in SPEC["paths"].items() for method in item)
WRONG_METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH")


def command_bodies(place: Arena, caller: Caller) -> st.SearchStrategy[dict[str, Any]]:
    """Mostly what the running game allows this caller now (so games move on), else what it offers
    (allowed or not), table commands, and any role."""
    viewer = Viewer("seat", caller.seat) if caller.role == "me" and caller.seat is not None else (
        HOST if caller.role == "host" else TABLE)
    actions = (place.service.table.view(viewer).get("game") or {}).get("actions", [])
    offered = [{"name": a["name"], "args": dict(a.get("args") or {})} for a in actions]
    allowed = [{"name": a["name"], "args": dict(a.get("args") or {}), "as": caller.role}
               for a in actions if a.get("allowed")]
    table = [{"name": n, "args": a} for n, a in (
        ("undo", {}), ("pause", {}), ("resume", {}), ("lock_joining", {}), ("unlock_joining", {}),
        ("name_seat", {"seat": 1, "name": "Zed"}), ("set_seat_count", {"count": 5}),
        ("commit_entropy", {"commitment": "ab" * 32}), ("reveal_entropy", {"value": "x"}),
        ("start_game", {"game": place.game}), ("roll", {}), ("arm", {"mode": "race"}), ("cancel_round", {}))]

    def choose(choice: tuple[int, int, str | None]) -> dict[str, Any]:
        which, index, role = choice
        if which < 3 and allowed:
            return pick(allowed, index)
        body = pick(offered if which < 5 and offered else table, index)
        return {**body, "as": role} if role else body

    return st.tuples(st.integers(0, 6), PICK, st.sampled_from([caller.role, "table", "me", "host", None])).map(choose)


def valid_body(place: Arena, caller: Caller, template: str, schema: Any) -> st.SearchStrategy[Any]:
    state = place.service.table.state
    if template == "/api/commands":
        return command_bodies(place, caller)
    if template == "/api/join":
        return st.fixed_dictionaries({"code": st.sampled_from([state.join_code, "WRONG1"]),
                                      "seat": st.integers(0, 14), "name": st.text(max_size=30)})
    if template == "/api/host/login":
        return st.fixed_dictionaries({"key": st.sampled_from([place.service.host_key[:-1] + "x", "guess", ""])})
    if template == "/api/buttons/unpair":
        return st.fixed_dictionaries({"button": st.sampled_from(["gpio:17", "simulated:1", "phone:1"])
                                      | st.text(max_size=20)})
    return from_schema(schema)


@st.composite
def requests(draw: st.DrawFn, place: Arena, caller: Caller, template: str, method: str) -> Request:
    if draw(ONCE_IN_20):
        path = "/api/" + draw(st.text(st.characters(codec="ascii", exclude_characters="?#%"), max_size=20))
        return Request(draw(st.sampled_from(WRONG_METHODS)), path, None, {}, dict(caller.headers), "unknown")
    operation = SPEC["paths"][template][method]
    path = template
    for parameter in map(resolve, operation.get("parameters", [])):
        if parameter["in"] != "path":
            continue
        name = parameter["name"]
        known = {"game_id": [place.service.table.run.game_id if place.service.table.run else "x", "table"],
                 "code": [place.service.table.state.join_code], "filename": ["icon.svg", "live.js", "nope.css"],
                 "token": ["not-a-link"]}[name]
        value = draw(st.sampled_from(known) | WEIRD_TEXT.filter(lambda t: t and "/" not in t and "\x00" not in t))
        path = path.replace("{" + name + "}", value.replace("?", "%3F").replace("#", "%23").replace("%", "%25"))
    query: dict[str, str] = {}
    for parameter in map(resolve, operation.get("parameters", [])):
        if parameter["in"] != "query" or draw(st.booleans()):
            continue
        good = from_schema(parameter["schema"]).map(lambda v: json.dumps(v) if isinstance(v, bool) else str(v))
        edges = EDGE_VALUES.get(parameter["name"], [""])
        if parameter["name"] == "after":  # the log's position: a long poll that really waits
            edges = [str(place.service.table.position)] * 3 + edges
        edge = st.sampled_from(edges)
        query[parameter["name"]] = draw(st.one_of(good, edge, WEIRD_TEXT))
    headers = dict(caller.headers)
    if draw(ONCE_IN_20):
        headers["Accept-Language"] = draw(WEIRD_TEXT.filter(lambda t: "\n" not in t and "\r" not in t
                                                            and t.isprintable()))
    if draw(ONCE_IN_20):
        headers["Origin"] = draw(st.sampled_from(["http://[::1", "http://localhost:99999", "null", "", "file://",
                                                  "http://localhost.", "HTTP://LOCALHOST", "http://user@localhost"]))
    wrong_method = draw(ONCE_IN_20)
    http_method = draw(st.sampled_from(WRONG_METHODS)) if wrong_method else method.upper()
    request = Request(http_method, path, template, query, headers, "wrong_method" if wrong_method else "valid")
    if method != "post":
        return request
    schema = (((operation.get("requestBody") or {}).get("content") or {}).get("application/json") or {}).get(
        "schema", {"type": "object", "properties": {}})
    kind = draw(st.sampled_from(["valid", "valid", "valid", "mutated", "mutated", "json", "empty", "bytes",
                                 "wrong_type", "huge", "deep"]))
    request.kind = kind if not wrong_method else request.kind
    if kind == "valid":
        request.body = draw(valid_body(place, caller, template, schema))
    elif kind == "mutated":
        request.body = draw(valid_body(place, caller, template, schema).flatmap(mutated))
    elif kind == "json":
        request.body = draw(ANY_JSON)
    elif kind == "empty":
        request.raw, request.content_type = b"", draw(st.sampled_from(["application/json", None]))
    elif kind == "bytes":
        request.raw = draw(st.binary(max_size=200))
        request.content_type = "application/json"
    elif kind == "wrong_type":
        good = draw(valid_body(place, caller, template, schema))
        request.raw = json.dumps(good).encode()
        request.content_type = draw(st.sampled_from(["text/plain", "application/x-www-form-urlencoded",
                                                     "multipart/form-data; boundary=x",
                                                     "application/json; charset=latin-1"]))
    elif kind == "huge":
        size = draw(st.sampled_from([10_000, 60_000, 66_000, 200_000]))
        request.body = {"name": draw(st.sampled_from(["roll", "name_seat"])), "as": "table", "key": "k" * size,
                        "args": {"name": "é" * (size // 2), "seat": 1}}
    else:
        depth = draw(st.sampled_from([50, 900, 1_200, 20_000]))
        request.raw = ('{"name": "roll", "args": ' + '{"a": [' * depth + "1" + "]}" * depth + "}").encode()
        request.content_type = "application/json"
    return request


def send(caller: Caller, request: Request) -> tuple[int, str, bytes]:
    kwargs: dict[str, Any] = {"method": request.method, "query_string": request.query, "headers": request.headers,
                              "buffered": False}
    if request.raw is not None:
        kwargs["data"] = request.raw
        if request.content_type:
            kwargs["content_type"] = request.content_type
    elif request.body is not None or request.method not in ("GET", "HEAD"):
        kwargs["json"] = request.body
    response = caller.client.open(request.path, **kwargs)
    try:
        if response.mimetype == "text/event-stream":
            # The opening and the whole view, then away: the stream must let go at once.
            chunks = iter(response.response)
            data = next(chunks) + next(chunks)
        else:
            data = response.get_data()
        return response.status_code, response.mimetype, data
    finally:
        response.close()


def check(place: Arena, caller: Caller, request: Request) -> None:
    store, table = place.service.store, place.service.table
    before, shown = store.read_all(), table.view(TABLE)
    started = time.monotonic()
    status, mimetype, data = send(caller, request)
    took = time.monotonic() - started
    what = f"{request.method} {request.path}?{request.query} as {caller.name} ({request.kind}): {status} " \
           f"{data[:300]!r}"
    assert status < 500, what
    assert took < 5, f"{what} took {took:.1f} s (a long poll must respect LONG_POLL_MAX_S)"
    operation = SPEC["paths"].get(request.template or "", {}).get(request.method.lower())
    if request.path.startswith("/api/"):
        if mimetype == "text/event-stream":
            assert status == 200 and request.template == "/api/stream", what
            assert data.startswith(b"retry: ") and b"\nevent: view\ndata: {" in data, what
        else:
            assert mimetype == "application/json", what
            body = json.loads(data)
            if status >= 400:
                assert validate(body, {"$ref": "#/components/schemas/Error"}) == [], what
                assert isinstance(body.get("params", {}), dict), what
                assert body["message"].strip(), what
    if status >= 400:
        assert store.read_all() == before, f"a refusal changed the log: {what}"
        assert table.view(TABLE) == shown, f"a refusal changed what the table shows: {what}"
    if operation is None:
        assert status in (404, 405), what
        return
    documented = operation["responses"]
    assert str(status) in documented, f"undocumented status: {what}"
    if 200 <= status < 300 and mimetype == "application/json":
        content = resolve(documented[str(status)]).get("content", {})
        schema = content.get("application/json", {}).get("schema")
        assert schema is not None, f"a JSON answer documented without a JSON schema: {what}"
        problems = validate(json.loads(data), schema, depth=2)
        assert problems == [], f"{what}: {problems}"


MANY = {("/api/commands", "post"): 150, ("/api/view", "get"): 25, ("/api/join", "post"): 25,
        ("/api/buttons/pair", "post"): 20, ("/api/buttons/press", "post"): 20}
"""Examples for the routes with the most to try; the others get EXAMPLES."""
CASES = [(game, template, method) for game in GAME_IDS for template, method in OPERATIONS]


@pytest.mark.parametrize(("game", "template", "method"), CASES,
                         ids=[f"{game} {method.upper()} {template}" for game, template, method in CASES])
def test_no_request_breaks_the_api_or_changes_anything_when_refused(game: str, template: str, method: str) -> None:
    with arena(game) as place:
        names = sorted(place.callers)

        @seed(zlib.crc32(f"{game} {method} {template}".encode()))
        @settings(max_examples=MANY.get((template, method), EXAMPLES), deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(data=st.data())
        def fuzz(data: st.DataObject) -> None:
            place.ready()
            for _ in range(data.draw(st.integers(1, 3), label="requests")):
                caller = place.callers[data.draw(st.sampled_from(names), label="caller")]
                request = data.draw(requests(place, caller, template, method), label="request")
                check(place, caller, request)

        fuzz()


# -- the description itself ---------------------------------------------------------------------------


@pytest.fixture
def app(web: Any) -> Flask:
    return web.app


def test_every_route_of_the_app_is_described_with_its_methods(app: Flask) -> None:
    described = {path: set(item) for path, item in SPEC["paths"].items()}
    assert documented_methods(app) == described


def test_every_api_operation_documents_its_errors_with_the_error_body() -> None:
    for path, item in SPEC["paths"].items():
        for method, operation in item.items():
            responses = {code: resolve(r) for code, r in operation["responses"].items()}
            assert any(code.startswith("2") or code.startswith("3") for code in responses), (path, method)
            if not path.startswith("/api/"):
                continue
            assert {"405", "500"} <= set(responses), (path, method)
            if method == "post":
                assert {"400", "403", "413"} <= set(responses), (path, method)
            for code, response in responses.items():
                if code >= "400":
                    assert response["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}


def test_every_reference_in_the_description_resolves() -> None:
    def walk(node: Any) -> Iterator[str]:
        if isinstance(node, dict):
            if "$ref" in node:
                yield node["$ref"]
            for value in node.values():
                yield from walk(value)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value)

    refs = set(walk(SPEC))
    assert len(refs) > 20
    for ref in refs:
        assert resolve({"$ref": ref}), ref


def test_the_description_is_served_to_anyone(web: Any) -> None:
    response = web.client().get("/api/openapi.json")
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert response.get_json() == SPEC


def test_the_validator_and_strategies_follow_the_error_schema() -> None:
    """The fuzz test's own tools: a wrong error body is caught, generated bodies fit their schema."""
    error = {"$ref": "#/components/schemas/Error"}
    assert validate({"ok": False, "error": "x", "message": "y", "params": {}}, error) == []
    assert validate({"ok": True, "error": "x", "message": "y"}, error)
    assert validate({"ok": False, "error": 3, "message": "y"}, error)
    assert validate({"ok": False, "message": "y"}, error)

    @settings(max_examples=50, derandomize=True, database=None)
    @given(st.sampled_from(sorted(SPEC["components"]["schemas"])).flatmap(
        lambda name: st.tuples(st.just(name), from_schema({"$ref": f"#/components/schemas/{name}"}))))
    def fits(pair: tuple[str, Any]) -> None:
        name, value = pair
        assert validate(value, {"$ref": f"#/components/schemas/{name}"}) == []

    fits()


@pytest.mark.parametrize("wait", EDGE_VALUES["wait"])
def test_a_long_poll_never_waits_beyond_its_limit(wait: str) -> None:
    """Whatever `wait` says (inf and nan included), a long poll at the log's position gives up after
    LONG_POLL_MAX_S."""
    with arena("dice-tray") as place:
        started = time.monotonic()
        response = place.callers["nobody"].client.get(f"/api/view?after={place.service.table.position}&wait={wait}")
        assert response.status_code == 200
        assert time.monotonic() - started < 2
