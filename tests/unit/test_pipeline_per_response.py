"""The pipelined reader's per-response work (issue 21): the head parser keeps its
strictness after its one-pass checks, and a body is read through one async generator."""

from __future__ import annotations

import socket

import pytest

from anyurl.schemes.http.interfaces import Response
from anyurl.schemes.http.pipeline import Exchange, Malformed, PipelinedConnection, parse_head
from anyurl.schemes.http.routes import Route
from anyurl.url import parse

NGINX = (b'HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nContent-Length: 1024\r\n'
         b'Connection: keep-alive\r\nETag: "6b07e9b7-400"\r\nAccept-Ranges: bytes')


def test_a_head_is_read_as_before() -> None:
    response = parse_head(NGINX)
    assert (response.status, response.reason, response.http_version) == (200, "OK", "1.1")
    assert response.headers[1] == ("content-length", "1024")
    assert parse_head(b"HTTP/1.0 204 \r\nA:  b \t").headers == [("a", "b")]


@pytest.mark.parametrize("head", [
    b"HTTP/1.1 200 OK\r\n folded: x",      # an obsolete line folding
    b"HTTP/1.1 200 OK\r\n\tx: y",
    b"HTTP/1.1 200 OK\r\nname : x",        # blank space before the colon
    b"HTTP/1.1 200 OK\r\nx\t: y",
    b"HTTP/1.1 200 OK\r\nno colon",
    b"HTTP/1.1 200 OK\r\n: empty name",
    b"HTTP/1.1 200 OK\r\nA: b\nC: d",      # a bare LF inside the head
    b"HTTP/1.1 200 OK\nA: b",
    b"HTTP/2 200 OK",
    b"HTTP/1.1 2000 OK",
])
def test_what_is_not_a_strict_head_stays_malformed(head: bytes) -> None:
    with pytest.raises(Malformed):
        parse_head(head)


def test_a_body_is_the_pieces_generator_itself() -> None:
    route = Route("127.0.0.1", 80, False)
    pipe = PipelinedConnection(object(), route)  # type: ignore[arg-type]
    response = Response(200, "OK", "1.1", [("content-length", "0")])
    exchange = Exchange(pipe, response, parse("http://127.0.0.1/x"))
    body = exchange.body(response)
    assert body.ag_code is Exchange.pieces.__code__  # type: ignore[attr-defined]


class _Recorder:
    """A socket that records its options."""

    def __init__(self) -> None:
        self.options: list[tuple[int, int, int]] = []

    def setsockopt(self, level: int, option: int, value: int) -> None:
        self.options.append((level, option, value))


class _Stream:
    def __init__(self, sock: _Recorder, data: bytes):
        self.plain_socket = sock
        self.data = data

    async def receive(self, max_bytes: int) -> bytes:
        data, self.data = self.data, b""
        return data


@pytest.mark.anyio
async def test_a_pipelined_read_acknowledges_at_once() -> None:
    # Nothing rides on a request while a window is answered: without an immediate ACK a
    # server holding its last segment for one waits out the 40 ms delayed-ACK timer.
    sock = _Recorder()
    pipe = PipelinedConnection(_Stream(sock, NGINX + b"\r\n\r\n"),  # type: ignore[arg-type]
                               Route("127.0.0.1", 80, False))
    response = await pipe.head()
    assert response.status == 200
    assert sock.options == [(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)]
