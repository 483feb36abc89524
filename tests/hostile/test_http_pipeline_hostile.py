"""HTTP/1.1 pipelining against servers that do not keep its rules (issue 21).

Each server is a :class:`anyurl.testing.hostile.Behaviour` run by its
:class:`~anyurl.testing.hostile.HostileServer`: one that closes after N responses (saying
so, or not), one that answers only the first of the requests it was sent, one that
answers pipelined requests with garbage, and one that speaks HTTP/1.0. Every body is the
request's path, so an answer given to the wrong URL shows. On asyncio and trio.
"""

from __future__ import annotations

import socket
import threading
import time

import pytest

from anyurl.config import Config
from anyurl.errors import AnyURLError
from anyurl.resolver import Resolver
from anyurl.resource import Resource
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.http import HTTPHandler
from anyurl.testing.hostile import Behaviour, HostileServer

pytestmark = [pytest.mark.anyio]

N = 40


class Counts:
    """Connections accepted and the most requests one read of the server held."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.connections = 0
        self.requests = 0

    def connected(self) -> None:
        with self.lock:
            self.connections += 1

    def asked(self) -> None:
        with self.lock:
            self.requests += 1


def _response(path: bytes, *, close: bool = False, version: str = "1.1") -> bytes:
    extra = "Connection: close\r\n" if close else ""
    return (f"HTTP/{version} 200 OK\r\nContent-Length: {len(path)}\r\n{extra}\r\n"
            .encode() + path)


def _paths(peer, counts: Counts):  # type: ignore[no-untyped-def]
    """The request paths as the client sends them."""
    while True:
        head = peer.request_head()
        if not head:
            return
        counts.asked()
        yield head[0].split()[1]


def close_after(n: int, counts: Counts, *, say: bool) -> Behaviour:
    def run(peer) -> None:  # type: ignore[no-untyped-def]
        counts.connected()
        for i, path in enumerate(_paths(peer, counts)):
            last = i + 1 == n
            if not peer.send(_response(path, close=last and say)):
                return
            if last:  # a lingering close, as nginx does: no reset eats the last answer
                peer.sock.shutdown(socket.SHUT_WR)
                peer.wait_closed(5)
                return
    return Behaviour(f"http-close-after-{n}", "http", run)


def drops_pipelined(counts: Counts) -> Behaviour:
    """Keep-alive, but a request that arrived with another is dropped unanswered (what
    a server that reads one request per read does)."""
    def run(peer) -> None:  # type: ignore[no-untyped-def]
        counts.connected()
        for path in _paths(peer, counts):
            peer._buffer = b""  # whatever came along with it is lost
            if not peer.send(_response(path)):
                return
    return Behaviour("http-drops-pipelined", "http", run)


def garbage_when_pipelined(counts: Counts) -> Behaviour:
    """Answers a request well, but one that arrived along with the one before it
    (pipelined) with bytes that are no response."""
    def run(peer) -> None:  # type: ignore[no-untyped-def]
        counts.connected()
        behind = False
        for path in _paths(peer, counts):
            if not peer.send(b"HTTP/1.1 2x0 what\r\n\r\n" if behind else _response(path)):
                return
            behind = bool(peer._buffer)  # the next request came with this one
    return Behaviour("http-garbage-when-pipelined", "http", run)


def http10(counts: Counts) -> Behaviour:
    """HTTP/1.0: one response per connection, then the close."""
    def run(peer) -> None:  # type: ignore[no-untyped-def]
        counts.connected()
        for path in _paths(peer, counts):
            peer.send(_response(path, version="1.0"))
            return
    return Behaviour("http-1.0", "http", run)


async def _batch(server: HostileServer, config: Config | None = None,
                 trace: list[str] | None = None,
                 ) -> tuple[list[bytes | AnyURLError], HTTPHandler]:
    urls = [f"http://127.0.0.1:{server.port}/f{i}" for i in range(N)]
    got: list[bytes | AnyURLError] = []
    async with Resolver(config or Config(read_timeout=1.0), warn=lambda m: None) as r:
        admitted = [r.admit(u) for u in urls]
        handler = r.handler_for(admitted[0])
        assert isinstance(handler, HTTPHandler)
        options = FetchOptions(trace=trace.append if trace is not None else None)
        async for _url, outcome in handler.open_batch(admitted, options):
            got.append(await outcome.read() if isinstance(outcome, Resource) else outcome)
    return got, handler


def _expected() -> list[bytes | AnyURLError]:
    return [f"/f{i}".encode() for i in range(N)]


@pytest.mark.parametrize("say", [True, False], ids=["connection-close", "silent-close"])
async def test_a_server_closing_after_n_gets_the_rest_again(say: bool) -> None:
    counts = Counts()
    trace: list[str] = []
    with HostileServer(close_after(7, counts, say=say)) as server:
        got, handler = await _batch(server, trace=trace)
    assert got == _expected()
    # Unanswered requests were re-sent, each connection answering 7.
    assert counts.connections == -(-N // 7)
    sent = [line for line in trace if line.startswith("> GET")]
    assert len(sent) > N  # some were sent twice: they had been pipelined
    assert any(line.endswith("(pipelined)") for line in sent)
    assert not handler.serial_routes


async def test_a_server_that_drops_pipelined_requests_is_served_one_at_a_time() -> None:
    counts = Counts()
    with HostileServer(drops_pipelined(counts)) as server:
        got, handler = await _batch(server, Config(read_timeout=0.5))
    assert got == _expected()
    assert len(handler.serial_routes) == 1
    # The pipelined connection went silent; the rest went one at a time on another.
    assert counts.connections == 2


async def test_garbage_for_pipelined_requests_is_remembered() -> None:
    counts = Counts()
    with HostileServer(garbage_when_pipelined(counts)) as server:
        got, handler = await _batch(server)
        assert got == _expected()
        assert len(handler.serial_routes) == 1
        again, _ = await _batch(server)
    assert again == _expected()


async def test_http_1_0_is_never_pipelined() -> None:
    counts = Counts()
    with HostileServer(http10(counts)) as server:
        got, handler = await _batch(server)
    assert got == _expected()
    assert counts.requests == N  # nothing was sent twice: nothing was pipelined
    assert counts.connections == N
    assert len(handler.serial_routes) == 1


async def test_a_resource_read_after_the_batch_moved_on_is_refused() -> None:
    counts = Counts()
    with HostileServer(close_after(1000, counts, say=False)) as server:
        urls = [f"http://127.0.0.1:{server.port}/f{i}" for i in range(3)]
        async with Resolver(warn=lambda m: None) as r:
            handler = r.handler_for(r.admit(urls[0]))
            kept: list[Resource] = []
            bodies = []
            async for _url, res in handler.open_batch([r.admit(u) for u in urls],
                                                      FetchOptions()):
                assert isinstance(res, Resource)
                kept.append(res)
                bodies.append(await res.read() if len(kept) > 1 else None)
            with pytest.raises(AnyURLError, match="after its batch moved on"):
                await kept[0].read()
    assert bodies == [None, b"/f1", b"/f2"]


def far_away(counts: Counts, delay: float) -> Behaviour:
    """A server at the end of a long path: the first answer of each window (the first
    request after the server had answered all it was sent) comes ``delay`` late."""
    def run(peer) -> None:  # type: ignore[no-untyped-def]
        counts.connected()
        window_start = True
        for path in _paths(peer, counts):
            if window_start:
                time.sleep(delay)
            if not peer.send(_response(path)):
                return
            window_start = not peer._buffer
    return Behaviour("http-far-away", "http", run)


def _widest_window(trace: list[str]) -> int:
    """The most requests written before the next response was read, from the trace."""
    widest = run = 0
    for line in trace:
        if line.startswith("> GET"):
            run += 1
            widest = max(widest, run)
        elif line.startswith("< HTTP"):
            run = 0
    return widest


@pytest.mark.parametrize("delay", [0.0, 0.012], ids=["near", "far"])
async def test_the_window_is_as_deep_as_the_path_is_long(
        delay: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a short path a window holds at most NEAR_DEPTH requests (deeper ones met the
    server's 40 ms coalescing stalls); once an answer takes FAR or more, MAX_DEPTH."""
    from anyurl.schemes.http import batch as http_batch  # where the batch reads FAR
    from anyurl.schemes.http.pipeline import MAX_DEPTH, NEAR_DEPTH

    if not delay:
        # "Near" means no answer took FAR: on a loaded machine a loopback answer may
        # take 5 ms, so the threshold is put out of reach rather than timed.
        monkeypatch.setattr(http_batch, "FAR", 3600.0)
    counts = Counts()
    trace: list[str] = []
    urls_n = 300
    with HostileServer(far_away(counts, delay)) as server:
        urls = [f"http://127.0.0.1:{server.port}/f{i}" for i in range(urls_n)]
        async with Resolver(Config(read_timeout=5.0), warn=lambda m: None) as r:
            admitted = [r.admit(u) for u in urls]
            handler = r.handler_for(admitted[0])
            got = [await res.read() async for _u, res in handler.open_batch(
                admitted, FetchOptions(trace=trace.append)) if isinstance(res, Resource)]
    assert got == [f"/f{i}".encode() for i in range(urls_n)]
    assert counts.connections == 1
    widest = _widest_window(trace)
    if delay:
        assert NEAR_DEPTH < widest <= MAX_DEPTH
    else:
        assert widest <= NEAR_DEPTH


def redirects_one(counts: Counts, asked: list[bytes]) -> Behaviour:
    """Keep-alive; /f3 answers 301 to /t3, every other path its own name."""
    def run(peer) -> None:  # type: ignore[no-untyped-def]
        counts.connected()
        for path in _paths(peer, counts):
            asked.append(path)
            if path == b"/f3":
                answer = (b"HTTP/1.1 301 Moved Permanently\r\nLocation: /t3\r\n"
                          b"Content-Length: 5\r\n\r\nmoved")
            else:
                answer = _response(path)
            if not peer.send(answer):
                return
    return Behaviour("http-redirects-one", "http", run)


async def test_a_pipelined_redirect_is_followed_from_its_answer() -> None:
    """A 3xx in a pipelined window goes to the one redirect loop as it came: its target
    is asked (on a connection of its own), the redirecting URL not a second time."""
    counts = Counts()
    asked: list[bytes] = []
    with HostileServer(redirects_one(counts, asked)) as server:
        got, _handler = await _batch(server)
    expected = _expected()
    expected[3] = b"/t3"
    assert got == expected
    assert asked.count(b"/f3") == 1
    assert asked.count(b"/t3") == 1
