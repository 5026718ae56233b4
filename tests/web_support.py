"""Helpers for HTTP-level tests: the app with clients for phones, the host and the table."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from flask import Flask
from flask.testing import FlaskClient

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


def read_stream(client: FlaskClient, role: str, stop: threading.Event, out: list[tuple[int, str]]) -> None:
    """Collect (position, data) of every view message until the service closes the stream."""
    response = client.get(f"/api/stream?as={role}", buffered=False)
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    buffer = ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            message, buffer = buffer.split("\n\n", 1)
            lines = [line for line in message.splitlines() if ": " in line and not line.startswith(":")]
            fields = dict(line.split(": ", 1) for line in lines)
            if fields.get("event") == "view":
                out.append((int(fields["id"]), fields["data"]))
            if fields.get("event") == "revoked":
                out.append((-1, "revoked"))
        if stop.is_set():
            break
    response.close()
