"""HTTP/1.1 on the wire (companion/server/wire.py): what a connection reads of a client's bytes,
and what it refuses (test_http1.py speaks the same over a socket to the running server)."""

from __future__ import annotations

import h11
import pytest

from companion.server.wire import BadRequest, RequestReader, chunk, head
from tests.test_http1 import ROLL, get, post


def reader() -> RequestReader:
    return RequestReader(max_head=1024, max_body=64)


def test_a_request_split_anywhere_is_read_whole_once() -> None:
    wire = post(ROLL)
    for cut in range(1, len(wire)):
        read = reader()
        read.feed(wire[:cut])
        assert not read.ready, f"not answered before its last byte (cut at {cut})"
        read.feed(wire[cut:])
        [request] = read.ready
        assert (request.method, request.target, request.body) == ("POST", "/api/commands", ROLL)
        assert dict(request.headers)[b"content-type"] == b"application/json", "names in lower case"


def test_requests_sent_at_once_are_read_in_order_and_each_says_if_the_connection_stays() -> None:
    read = reader()
    read.feed(get("/a") + b"GET /b HTTP/1.0\r\n\r\n")
    assert [(r.target, r.http_version, r.keep_alive) for r in read.ready] == [("/a", "1.1", True), ("/b", "1.0", False)]
    read.feed(get("/c"))
    assert len(read.ready) == 2, "nothing is read after a request that closes the connection"


def test_a_chunked_body_is_read_and_header_values_lose_their_spaces() -> None:
    read = reader()
    read.feed(b"POST /x HTTP/1.1\r\nHost: h\r\nX-Name:  Bruno \t\r\nTransfer-Encoding: chunked\r\n\r\n"
              b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
    [request] = read.ready
    assert request.body == b"abcde"
    assert (b"x-name", b"Bruno") in request.headers


@pytest.mark.parametrize(("wire", "status", "why"), [
    (b"POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: two\r\n\r\n", 400, "Content-Length"),
    (b"GET /x HTTP/1.1\r\n\r\n", 400, "Host"),
    (b"GET /x HTTP/2.0\r\nHost: h\r\n\r\n", 505, "HTTP/2.0"),
    (b"GET /x HTTP/1.1\r\nHost: h\r\nX-Long: " + b"a" * 2000 + b"\r\n\r\n", 431, "too long"),
    (b"BREW /x HTTP/1.1\r\nHost: h\r\n\r\n", 400, "method"),
    (b"GET /x HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400, "Content-Length"),
])
def test_what_is_not_http_1_1_is_refused_with_its_reason(wire: bytes, status: int, why: str) -> None:
    with pytest.raises(BadRequest) as refused:
        reader().feed(wire)
    assert refused.value.status == status
    assert why.lower() in refused.value.why.lower()


def test_a_body_over_the_limit_is_answered_by_its_length_and_nothing_after_it_is_read() -> None:
    declared = reader()
    declared.feed(post(b"x" * 65) + get("/next"))
    [request] = declared.ready
    assert request.too_large and request.declared == 65 and request.body == b""
    chunked = reader()
    chunked.feed(b"POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n" + b"y" * 64 + b"\r\n")
    chunked.feed(b"1\r\nz\r\n0\r\n\r\n" + get("/next"))
    [request] = chunked.ready
    assert request.too_large and request.declared == 65


def test_a_client_waiting_for_100_continue_is_marked_until_its_body_comes() -> None:
    read = reader()
    read.feed(post(ROLL, b"Expect: 100-continue\r\n")[:-len(ROLL)])
    assert read.reading is not None and read.reading.wants_continue
    read.feed(ROLL)
    assert read.ready[0].body == ROLL


def test_an_answers_head_is_written_as_given_and_one_that_would_break_the_framing_is_refused() -> None:
    client = h11.Connection(h11.CLIENT)
    client.send(h11.Request(method="GET", target="/", headers=[("Host", "x")]))
    client.send(h11.EndOfMessage())
    client.receive_data(head(200, b"OK", [(b"content-type", b"text/event-stream"),
                                          (b"transfer-encoding", b"chunked")]) + chunk(b"data: 1\n\n") + b"0\r\n\r\n")
    response = client.next_event()
    assert isinstance(response, h11.Response) and response.status_code == 200
    data = client.next_event()
    assert isinstance(data, h11.Data) and data.data == b"data: 1\n\n"
    assert isinstance(client.next_event(), h11.EndOfMessage)
    with pytest.raises(ValueError, match="framing"):
        head(200, b"OK", [(b"set-cookie", b"a=1\r\nx-injected: 1")])
