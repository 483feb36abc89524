"""HTTP/2 multiplexed batches (:mod:`anyurl.schemes.http.multiplex`) against a scripted
h2c server written with the ``h2`` package: what nginx will not do on demand (reset one
stream, refuse one, hold every answer until many requests are in, a small
SETTINGS_MAX_CONCURRENT_STREAMS, a GOAWAY in the middle). Every body is the request's
path, so an answer given to the wrong URL shows. On asyncio and trio.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings
import pytest
from h2.errors import ErrorCodes

from anyurl.config import Config
from anyurl.errors import AnyURLError, ProtocolError
from anyurl.options import HTTPOptions
from anyurl.resolver import Resolver
from anyurl.resource import Resource
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.http import HTTPHandler
from anyurl.url import URL, parse

pytestmark = [pytest.mark.anyio]

H2 = FetchOptions(schemes=(HTTPOptions(http2=True, http2_prior_knowledge=True),))


@dataclass
class Script:
    """How the server behaves; what it saw (read after the batch)."""

    #: Hold every answer until this many requests are waiting (or ``total`` came).
    gate: int = 1
    total: int = 0
    #: SETTINGS_MAX_CONCURRENT_STREAMS (None: not sent).
    max_streams: int | None = None
    #: GOAWAY after this many requests of a connection; later streams are ignored.
    goaway_after: int | None = None
    #: Called as (connection, stream id, path); True: it answered (or not) itself.
    special: Callable[[h2.connection.H2Connection, int, bytes], bool] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    connections: int = 0
    requests: list[bytes] = field(default_factory=list)
    most_waiting: int = 0
    most_open: int = 0


def _answer(conn: h2.connection.H2Connection, stream_id: int, path: bytes) -> None:
    try:
        conn.send_headers(stream_id, [(":status", "200"), ("content-length", str(len(path)))])
        conn.send_data(stream_id, path, end_stream=True)
    except h2.exceptions.ProtocolError:
        pass  # the client reset it meanwhile


def _serve_one(sock: socket.socket, script: Script) -> None:
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
    settings = {}
    if script.max_streams is not None:
        settings[h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS] = script.max_streams
    conn.local_settings = h2.settings.Settings(client=False, initial_values=settings)
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    waiting: list[tuple[int, bytes]] = []
    seen = 0
    last_taken: int | None = None
    with sock:
        while True:
            try:
                data = sock.recv(65536)
            except OSError:
                return
            if not data:
                return
            for event in conn.receive_data(data):
                if not isinstance(event, h2.events.RequestReceived):
                    continue
                sid = event.stream_id
                if last_taken is not None:
                    continue  # after the GOAWAY's last stream: not processed
                path = dict(event.headers)[b":path"]
                seen += 1
                with script.lock:
                    script.requests.append(path)
                    script.most_open = max(script.most_open, conn.open_inbound_streams)
                if script.special is not None and script.special(conn, sid, path):
                    continue
                waiting.append((sid, path))
                if script.goaway_after is not None and seen == script.goaway_after:
                    last_taken = sid
            with script.lock:
                script.most_waiting = max(script.most_waiting, len(waiting))
                done = len(script.requests) >= script.total
            if len(waiting) >= script.gate or done or last_taken is not None:
                for sid, path in waiting:
                    _answer(conn, sid, path)
                waiting.clear()
            try:
                if last_taken is not None:
                    # Every stream up to it answered, then GOAWAY; read until the
                    # client closes (closing first could turn our last bytes into a
                    # reset).
                    conn.close_connection(ErrorCodes.NO_ERROR, last_stream_id=last_taken)
                    sock.sendall(conn.data_to_send())
                    sock.shutdown(socket.SHUT_WR)
                    while sock.recv(65536):
                        pass
                    return
                sock.sendall(conn.data_to_send())
            except OSError:
                return  # the client has gone


@pytest.fixture
def h2_server() -> Iterator[Callable[[Script], int]]:
    """Start a scripted h2c server; returns its port."""
    listeners: list[socket.socket] = []
    threads: list[threading.Thread] = []

    def start(script: Script) -> int:
        listener = socket.create_server(("127.0.0.1", 0))
        listeners.append(listener)

        def serve() -> None:
            with listener:
                while True:
                    try:
                        sock, _ = listener.accept()
                    except OSError:
                        return
                    with script.lock:
                        script.connections += 1
                    threading.Thread(target=_serve_one, args=(sock, script),
                                     daemon=True).start()

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        threads.append(thread)
        return int(listener.getsockname()[1])

    yield start
    for listener in listeners:
        try:
            listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        listener.close()
    for thread in threads:
        thread.join(timeout=5)


def _handler() -> HTTPHandler:
    # A read timeout well above any answer's wait: a client that sent one request at a
    # time to the gated server would meet it instead of waiting for ever.
    handler = Resolver(Config(read_timeout=20)).handler_for(URL("http", host="127.0.0.1"))
    assert isinstance(handler, HTTPHandler)
    return handler


def _urls(port: int, paths: list[str]) -> list[URL]:
    return [parse(f"http://127.0.0.1:{port}{p}") for p in paths]


async def _bodies(handler: HTTPHandler, urls: list[URL],
                  options: FetchOptions = H2) -> list[bytes | AnyURLError]:
    got: list[bytes | AnyURLError] = []
    async for _url, outcome in handler.open_batch(urls, options):
        if isinstance(outcome, Resource):
            async with outcome:
                got.append(await outcome.read())
        else:
            got.append(outcome)
    return got


async def test_streams_are_concurrent(h2_server: Callable[[Script], int]) -> None:
    """The server answers nothing until 10 requests wait: a client sending one request
    at a time would never get an answer."""
    paths = [f"/f{i}" for i in range(30)]
    script = Script(gate=10, total=len(paths))
    port = h2_server(script)
    handler = _handler()
    try:
        got = await _bodies(handler, _urls(port, paths))
    finally:
        await handler.aclose()
    assert got == [p.encode() for p in paths]
    assert script.most_waiting >= 10
    assert script.connections == 1


async def test_server_limit_on_concurrent_streams_is_kept(
        h2_server: Callable[[Script], int]) -> None:
    """SETTINGS_MAX_CONCURRENT_STREAMS 3: never more open at once (h2 on the server's
    side would refuse a fourth as a protocol error)."""
    paths = [f"/f{i}" for i in range(40)]
    script = Script(gate=3, total=len(paths), max_streams=3)
    port = h2_server(script)
    handler = _handler()
    try:
        got = await _bodies(handler, _urls(port, paths))
    finally:
        await handler.aclose()
    assert got == [p.encode() for p in paths]
    assert script.most_open == 3
    assert script.connections == 1


async def test_a_reset_stream_fails_its_url_only(h2_server: Callable[[Script], int]) -> None:
    def special(conn: h2.connection.H2Connection, sid: int, path: bytes) -> bool:
        if path == b"/reset":
            conn.reset_stream(sid, ErrorCodes.INTERNAL_ERROR)
            return True
        return False

    paths = [f"/f{i}" for i in range(10)]
    paths[4] = "/reset"
    port = h2_server(Script(gate=5, total=len(paths), special=special))
    handler = _handler()
    try:
        got = await _bodies(handler, _urls(port, paths))
        assert handler.connections_opened == 1
    finally:
        await handler.aclose()
    assert isinstance(got[4], ProtocolError)
    assert "RST_STREAM INTERNAL_ERROR" in str(got[4])
    assert f"http://127.0.0.1:{port}/reset" in str(got[4])
    assert [g for i, g in enumerate(got) if i != 4] == [
        p.encode() for i, p in enumerate(paths) if i != 4]


async def test_a_refused_stream_is_sent_again(h2_server: Callable[[Script], int]) -> None:
    refused: list[int] = []

    def special(conn: h2.connection.H2Connection, sid: int, path: bytes) -> bool:
        if path == b"/refuse" and not refused:
            refused.append(sid)
            conn.reset_stream(sid, ErrorCodes.REFUSED_STREAM)
            return True
        return False

    paths = [f"/f{i}" for i in range(10)]
    paths[0] = "/refuse"
    script = Script(gate=1, total=len(paths) + 1, special=special)
    port = h2_server(script)
    handler = _handler()
    try:
        got = await _bodies(handler, _urls(port, paths))
    finally:
        await handler.aclose()
    assert got == [p.encode() for p in paths]
    assert script.requests.count(b"/refuse") == 2
    assert script.connections == 1


async def test_goaway_resends_only_the_unprocessed(h2_server: Callable[[Script], int]) -> None:
    """GOAWAY after 5 requests of each connection: those 5 are answered there, the
    later streams go again on new connections, none twice."""
    paths = [f"/f{i}" for i in range(23)]
    script = Script(gate=1, total=len(paths), goaway_after=5)
    port = h2_server(script)
    handler = _handler()
    try:
        got = await _bodies(handler, _urls(port, paths))
    finally:
        await handler.aclose()
    assert got == [p.encode() for p in paths]
    assert sorted(script.requests) == sorted(p.encode() for p in paths)  # none twice
    assert script.connections == 5


async def test_closing_the_batch_early_resets_and_keeps_the_connection(
        h2_server: Callable[[Script], int]) -> None:
    paths = [f"/f{i}" for i in range(50)]
    script = Script(gate=1, total=10**6)
    port = h2_server(script)
    handler = _handler()
    try:
        batch = handler.open_batch(_urls(port, paths), H2)
        async for _url, outcome in batch:
            assert isinstance(outcome, Resource)
            assert await outcome.read() == b"/f0"
            break
        await batch.aclose()
        got = await _bodies(handler, _urls(port, paths[:5]))
        assert got == [p.encode() for p in paths[:5]]
        # A later single request (HTTP/2 asked for) takes the pooled connection too.
        res = await handler.open(_urls(port, ["/one"])[0], H2)
        async with res:
            assert await res.read() == b"/one"
        assert handler.connections_opened == 1
    finally:
        await handler.aclose()
    assert script.connections == 1


async def test_a_resource_read_after_the_batch_moved_on_is_closed(
        h2_server: Callable[[Script], int]) -> None:
    port = h2_server(Script(gate=1, total=3))
    handler = _handler()
    try:
        kept: list[Resource] = []
        async for _url, outcome in handler.open_batch(_urls(port, ["/a", "/b", "/c"]), H2):
            assert isinstance(outcome, Resource)
            kept.append(outcome)
        with pytest.raises(AnyURLError) as info:
            await kept[0].read()
        assert "batch moved on" in str(info.value)
    finally:
        await handler.aclose()
