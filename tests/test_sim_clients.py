"""The simulated phones send requests as a phone's browser does, so the benches' figures are a
table's and not an artifact of Python's HTTP client."""

from __future__ import annotations

import http.client
import io
import sys
from pathlib import Path
from typing import Any

import pytest

from companion.sim.clients import MERGED_BODY_MAX, BrowserLikeConnection
from companion.sim.service import ServiceProcess


class RecordingSocket:
    """Records each write the connection makes, and answers 200 with an empty JSON object."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    def makefile(self, mode: str) -> io.BytesIO:
        return io.BytesIO(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")

    def close(self) -> None:
        pass


def writes_of(connection_class: type[http.client.HTTPConnection], body: bytes | None,
              method: str = "POST") -> list[bytes]:
    connection = connection_class("127.0.0.1", 8080)
    sock = RecordingSocket()
    connection.sock = sock  # type: ignore[assignment]
    headers: dict[str, Any] = {"Content-Type": "application/json"} if body is not None else {}
    connection.request(method, "/api/commands", body=body, headers=headers)
    response = connection.getresponse()
    assert response.status == 200 and response.read() == b"{}"
    return sock.writes


def test_a_small_post_goes_out_in_one_write_with_the_same_bytes() -> None:
    body = b'{"as": "table", "name": "roll"}'
    ours = writes_of(BrowserLikeConnection, body)
    plain = writes_of(http.client.HTTPConnection, body)
    assert len(plain) == 2, "http.client writes the head, then the body"
    assert ours == [b"".join(plain)]
    assert ours[0].endswith(b"\r\n\r\n" + body)


def test_a_large_body_and_a_bodiless_request_are_sent_as_http_client_sends_them() -> None:
    large = b"x" * (MERGED_BODY_MAX + 1)
    assert writes_of(BrowserLikeConnection, large) == writes_of(http.client.HTTPConnection, large)
    assert writes_of(BrowserLikeConnection, None, "GET") == writes_of(http.client.HTTPConnection, None, "GET")


def test_the_next_request_on_the_connection_is_not_held() -> None:
    connection = BrowserLikeConnection("127.0.0.1", 8080)
    sock = RecordingSocket()
    connection.sock = sock  # type: ignore[assignment]
    for body in (b'{"name": "roll"}', None):
        connection.request("POST" if body else "GET", "/api/view", body=body)
        connection.getresponse().read()
    assert len(sock.writes) == 2 and sock.writes[1].startswith(b"GET /api/view HTTP/1.1\r\n")


def test_a_service_that_never_answers_is_not_left_running(tmp_path: Path) -> None:
    """A bench or a test that could not start its service has no handle to stop it: the start stops it."""
    silent = ServiceProcess(tmp_path / "data", program=(sys.executable, "-c", "import time; time.sleep(60)"),
                            log_path=tmp_path / "service.log")
    with pytest.raises(RuntimeError, match="did not answer"):
        silent.start(timeout=0.5)
    assert silent.proc is not None and silent.proc.poll() is not None, "the silent service was stopped"
