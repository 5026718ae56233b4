"""Helpers for HTTP-level tests: the app with clients for phones, the host and the table."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from companion.server import patch
from companion.service import Service

BASE = "http://192.0.2.10:8080"


@dataclass
class Web:
    app: Flask
    service: Service

    def client(self) -> FlaskClient:
        return self.app.test_client()

    @property
    def code(self) -> str:
        return self.service.table.state.join_code

    def join(self, seat: int, name: str) -> FlaskClient:
        phone = self.client()
        response = phone.post("/api/join", json={"code": self.code, "seat": seat, "name": name})
        assert response.status_code == 200, response.get_json()
        return phone

    def host(self) -> FlaskClient:
        console = self.client()
        assert console.post("/api/host/login", json={"key": self.service.host_key}).status_code == 200
        return console


def cookie(client: FlaskClient, name: str):
    return client.get_cookie(name)


@dataclass
class Received:
    """One stream message: its log position, the raw data as sent, and the view it results in."""

    position: int
    raw: str
    view: dict[str, Any] | None


def read_stream(client: FlaskClient, role: str, stop: threading.Event, out: list[Received]) -> None:
    """Collect every message of a stream, applying patches, until the service closes the stream."""
    response = client.get(f"/api/stream?as={role}", buffered=False)
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    buffer = ""
    current: dict[str, Any] | None = None
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            message, buffer = buffer.split("\n\n", 1)
            lines = [line for line in message.splitlines() if ": " in line and not line.startswith(":")]
            fields = dict(line.split(": ", 1) for line in lines)
            event = fields.get("event")
            if event == "view":
                current = json.loads(fields["data"])
            elif event == "patch":
                assert current is not None, "a patch never comes first"
                current = patch.apply(current, json.loads(fields["data"]))
            elif event == "revoked":
                out.append(Received(-1, "revoked", None))
                continue
            else:
                continue
            assert current is not None
            assert current["position"] == int(fields["id"])
            out.append(Received(int(fields["id"]), fields["data"], current))
        if stop.is_set():
            break
    response.close()
