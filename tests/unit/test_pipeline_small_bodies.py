"""The pipelined batch's fast path for small bodies (issue 21).

A plain 200 of a GET whose Content-Length is at most ``SMALL_BODY`` and whose body is
already in the read buffer becomes a resource over bytes (``Resource.take_whole`` gives
them at once); everything else goes the general way (an ``Exchange`` streaming the body).
The server here is a scripted stream: each read returns the next piece of bytes, so
which responses share a read is exact. Each case checks the path taken and the bytes,
and the fast path's metadata is compared with the general path's for the same bytes.
"""

from __future__ import annotations

import gzip
from typing import Any

import pytest

from anyurl.errors import StreamClosed
from anyurl.options import HTTPOptions
from anyurl.resolver import Resolver
from anyurl.resource import Resource
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.http import HTTPHandler
from anyurl.schemes.http.pipeline import SMALL_BODY, PipelinedConnection
from anyurl.schemes.http.routes import Route
from anyurl.url import URL

pytestmark = [pytest.mark.anyio]

BASE = "http://127.0.0.1:8080"


class ScriptedStream:
    """A stream whose reads return ``reads`` in turn (then the end); writes are kept."""

    plain_socket = None

    def __init__(self, reads: list[bytes]):
        self.reads = list(reads)
        self.sent = bytearray()
        self.url: URL | None = None
        self.closed = False

    async def receive(self, max_bytes: int = 65536) -> bytes:
        return self.reads.pop(0) if self.reads else b""

    async def send(self, data: bytes) -> None:
        self.sent += data

    def bytes_waiting(self) -> bool:
        """Nothing waits beyond the reads scripted (the reader's buffer tells)."""
        return False

    async def aclose(self) -> None:
        self.closed = True


def _ok(body: bytes, *headers: str) -> bytes:
    lines = "".join(f"{h}\r\n" for h in headers)
    return f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n{lines}\r\n".encode() + body


def _chunked(body: bytes) -> bytes:
    return (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n")


async def _run(reads: list[bytes], paths: list[str], options: FetchOptions | None = None,
               ) -> tuple[list[tuple[str, bytes, Resource]], ScriptedStream]:
    """Each path's (path taken, body, resource), reading each body before the next."""
    stream = ScriptedStream(reads)
    async with Resolver(warn=lambda m: None) as r:
        handler = r.handler_for(r.admit(BASE + "/"))
        assert isinstance(handler, HTTPHandler)

        async def pipe(route: Route, url: URL, trace: Any) -> PipelinedConnection:
            return PipelinedConnection(stream, route)  # type: ignore[arg-type]

        handler._pipe = pipe  # type: ignore[method-assign]
        got = []
        async for _url, res in handler.open_batch([r.admit(BASE + p) for p in paths],
                                                  options or FetchOptions()):
            assert isinstance(res, Resource), res
            whole = res.take_whole()
            if whole is not None:
                got.append(("fast", whole, res))
            else:
                got.append(("general", await res.read(), res))
    return got, stream


async def test_each_response_takes_the_path_it_should() -> None:
    one_k = bytes(range(256)) * 4
    split = b"s" * 3000
    edge = b"e" * SMALL_BODY
    over = b"o" * (SMALL_BODY + 1)
    coded = gzip.compress(b"coded " * 100)
    reads = [
        _ok(one_k, 'ETag: "x"', "Content-Type: text/plain"),          # /a
        _ok(split)[:-1000],                                             # /b, its head
        split[-1000:] + _ok(b""),                                       # ... its rest, /c
        _chunked(b"chunked body") + _ok(coded, "Content-Encoding: gzip")
        + _ok(edge) + _ok(over) + _ok(b"last"),                         # /d /e /f /g /h
    ]
    got, stream = await _run(reads, ["/a", "/b", "/c", "/d", "/e", "/f", "/g", "/h"])
    assert [(path, body) for path, body, _ in got] == [
        ("fast", one_k),        # whole in the first read
        ("general", split),     # its body split across reads
        ("fast", b""),          # Content-Length: 0
        ("general", b"chunked body"),  # chunked: no Content-Length
        ("fast", coded),        # a coding nobody asked to undo: the bytes as sent
        ("fast", edge),         # just at the bound
        ("general", over),      # just over it
        ("fast", b"last"),
    ]
    # One request each, in order: the template wrote what the general way writes.
    assert stream.sent.count(b"GET /") == 8
    for path in "abcdefgh":
        assert f"GET /{path} HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n".encode() in stream.sent


async def test_a_coding_to_undo_goes_the_general_way() -> None:
    coded = gzip.compress(b"coded " * 100)
    options = FetchOptions(schemes=(HTTPOptions(decode_content=True),))
    got, stream = await _run([_ok(coded, "Content-Encoding: gzip"), _ok(b"plain")],
                             ["/z", "/p"], options)
    assert [(path, body) for path, body, _ in got] == [("general", b"coded " * 100),
                                                       ("fast", b"plain")]
    assert b"Accept-Encoding: " in stream.sent


async def test_a_name_given_twice_goes_the_general_way() -> None:
    # (one read a window: the first holds one request, the server answers no more)
    got, _ = await _run([_ok(b"abc", "Set-Cookie: a=1", "Set-Cookie: b=2"), _ok(b"d")],
                        ["/twice", "/once"])
    assert [(path, body) for path, body, _ in got] == [("general", b"abc"), ("fast", b"d")]


async def test_the_fast_path_tells_what_the_general_path_tells(
        monkeypatch: pytest.MonkeyPatch) -> None:
    reads = [_ok(b"x" * 100, 'ETag: "abc"', "Content-Type: text/html",
                 'Content-Disposition: attachment; filename="name.txt"',
                 "Last-Modified: Tue, 01 Sep 2026 10:00:00 GMT"),
             _ok(b"y" * 10, 'ETag: W/"weak"', "Last-Modified: Tue, 01 Sep 2026 10:00:00 GMT")]
    fast, _ = await _run(list(reads), ["/one#frag", "/dir/two"])
    monkeypatch.setattr(PipelinedConnection, "whole_body", lambda self, length: None)
    general, _ = await _run(list(reads), ["/one#frag", "/dir/two"])
    assert [p for p, _, _ in fast] == ["fast", "fast"]
    assert [p for p, _, _ in general] == ["general", "general"]
    for (_, fbody, fres), (_, gbody, gres) in zip(fast, general, strict=True):
        assert fbody == gbody
        assert fres.info == gres.info
        assert fres.bytes_received == gres.bytes_received
    assert fast[0][2].info.filename == "name.txt"
    assert fast[1][2].info.validator == "Tue, 01 Sep 2026 10:00:00 GMT"


async def test_a_small_body_read_after_the_batch_moved_on_is_refused() -> None:
    stream = ScriptedStream([_ok(b"first"), _ok(b"second")])
    async with Resolver(warn=lambda m: None) as r:
        handler = r.handler_for(r.admit(BASE + "/"))
        assert isinstance(handler, HTTPHandler)

        async def pipe(route: Route, url: URL, trace: Any) -> PipelinedConnection:
            return PipelinedConnection(stream, route)  # type: ignore[arg-type]

        handler._pipe = pipe  # type: ignore[method-assign]
        kept = []
        async for _url, res in handler.open_batch([r.admit(BASE + p) for p in ("/1", "/2")],
                                                  FetchOptions()):
            assert isinstance(res, Resource)
            kept.append(res)
        for res in kept:  # the last one too: the batch ended (as a streamed body's)
            with pytest.raises(StreamClosed, match="after its batch moved on"):
                await res.read()


async def test_a_resource_over_bytes_reads_as_any_other() -> None:
    from anyurl.resource import ResourceInfo
    from anyurl.url import parse

    info = ResourceInfo(url=parse(BASE + "/x"), size=3)
    assert [c async for c in Resource.of_bytes(info, b"abc")] == [b"abc"]
    assert await Resource.of_bytes(info, b"abc").read() == b"abc"
    res = Resource.of_bytes(info, b"abc")
    assert res.take_whole() == b"abc" and res.take_whole() is None
    assert res.bytes_received == 3
    assert res.close_now()


@pytest.mark.parametrize("http", [
    HTTPOptions(),
    HTTPOptions(headers=(("X-Mine", "1"), ("Accept", None), ("User-Agent", "me/1"))),
    HTTPOptions(decode_content=True),
])
async def test_a_templated_request_is_the_general_one(http: HTTPOptions) -> None:
    from anyurl.schemes.http.handler import _Step

    texts = [BASE + "/a", BASE + "/b?x=1&y=%20#frag", "http://127.0.0.1/c",
             "http://LOCALHOST:8080/d", "http://user:pw@127.0.0.1:8080/e", BASE + "/f%0D"]
    options = FetchOptions(schemes=(http,))
    async with Resolver(warn=lambda m: None) as r:
        handler = r.handler_for(r.admit(texts[0]))
        assert isinstance(handler, HTTPHandler)
        templates: dict[Any, Any] = {}
        for text in texts:
            url = r.admit(text)
            route = handler.router(url)
            plain, templated = _Step(url), _Step(url)
            handler._prepare(plain, route, options, http, "GET")
            handler._prepare(templated, route, options, http, "GET", templates)
            assert templated.data == plain.data
            assert templated.headers == plain.headers
            assert (templated.masked is None) == (url.user is not None)
    assert len(templates) == 3  # one per scheme, host and port: the login's went the general way
