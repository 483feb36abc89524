"""The HTTP handler against real servers: the nginx peer, and a scripted Python server in a
thread for behaviour nginx will not show on demand (short bodies, redirect chains, stale
keep-alive connections, slow answers). Every test runs on asyncio and trio."""

from __future__ import annotations

import gzip
import hashlib
import socket
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import pytest

from anyurl.config import Config
from anyurl.errors import (
    AnyURLError,
    LoginDenied,
    PartialTransfer,
    PolicyRefused,
    RemoteFileNotFound,
    ResumeFailed,
    ServerError,
    TooManyRedirects,
    TransferTimeout,
    UnsupportedScheme,
    URLSyntaxError,
)
from anyurl.options import HTTPOptions
from anyurl.resolver import Resolver
from anyurl.resource import Resource, ResourceInfo, iterate_bytes
from anyurl.schemes.base import FetchOptions, SchemeHandler
from anyurl.schemes.http import HTTPHandler
from anyurl.testing._server import ThreadedListener
from anyurl.url import URL, parse
from tests.peers import data

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


# -- a scripted HTTP/1.1 server ------------------------------------------------------------


@dataclass
class Request:
    connection: int
    line: str
    headers: dict[str, str]
    body: bytes = b""

    @property
    def path(self) -> str:
        return self.line.split(" ")[1]


@dataclass
class Reply:
    """What the server sends: a status, headers and body, or raw bytes, then maybe closes."""

    status: int = 200
    reason: str = "OK"
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    raw: bytes | None = None
    close: bool = False
    delay: float = 0.0
    content_length: bool = True

    def encode(self) -> bytes:
        if self.raw is not None:
            return self.raw
        head = [f"HTTP/1.1 {self.status} {self.reason}"]
        if self.content_length and not any(k.lower() == "transfer-encoding"
                                           for k, _ in self.headers):
            head.append(f"Content-Length: {len(self.body)}")
        head += [f"{k}: {v}" for k, v in self.headers]
        return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + self.body


Route = Callable[[Request], Reply]


class ScriptedServer:
    """HTTP/1.1 with keep-alive on 127.0.0.1; ``routes[path]`` answers each request."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[Request] = []
        self._listener = ThreadedListener(self._accepted, name="scripted-http")
        self.port = self._listener.port
        self._connections = 0
        self._lock = threading.Lock()
        self._open: list[socket.socket] = []
        self._listener.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def _accepted(self, conn: socket.socket) -> None:
        with self._lock:  # numbered as their threads start (1, 2, ... for sequential ones)
            self._connections += 1
            number = self._connections
            self._open.append(conn)
        self._serve(conn, number)

    def _serve(self, conn: socket.socket, number: int) -> None:
        buffer = b""
        with conn:
            while True:
                while b"\r\n\r\n" not in buffer:
                    try:
                        more = conn.recv(65536)
                    except OSError:
                        return
                    if not more:
                        return
                    buffer += more
                head, buffer = buffer.split(b"\r\n\r\n", 1)
                lines = head.decode("latin-1").split("\r\n")
                headers = {}
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length", "0") or 0)
                while len(buffer) < length:
                    try:
                        more = conn.recv(65536)
                    except OSError:
                        return
                    if not more:
                        return
                    buffer += more
                body, buffer = buffer[:length], buffer[length:]
                request = Request(number, lines[0], headers, body)
                self.requests.append(request)
                route = self.routes.get(request.path.split("?")[0])
                reply = route(request) if route else Reply(404, "Not Found", body=b"no")
                if reply.delay:
                    time.sleep(reply.delay)
                wire = reply.encode()
                if request.line.startswith("HEAD ") and reply.raw is None:
                    wire = wire[: wire.index(b"\r\n\r\n") + 4]  # a head, no body
                try:
                    conn.sendall(wire)
                except OSError:
                    return
                if reply.close:
                    try:
                        conn.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                    return

    def close(self) -> None:
        self._listener.close(join=False)  # a delayed reply's thread is not waited for
        with self._lock:
            for conn in self._open:
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer()
    yield srv
    srv.close()


def fixed(body: bytes, **kwargs: object) -> Route:
    return lambda request: Reply(body=body, **kwargs)  # type: ignore[arg-type]


def redirect(to: str, status: int = 302) -> Route:
    return lambda request: Reply(status, "Found", headers=[("Location", to)], body=b"moved")


async def fetch(url: str, **options: object) -> bytes:
    async with Resolver(warn=lambda m: None) as r:
        return await r.fetch(url, FetchOptions(**options))  # type: ignore[arg-type]


# -- nginx: streaming, ranges, keep-alive ---------------------------------------------------


async def test_nginx_small_file_and_metadata(peers) -> None:  # type: ignore[no-untyped-def]
    url = peers["nginx"].url("hello.txt")
    async with Resolver(warn=lambda m: None) as r, r.open(url) as res:
        body = await res.read()
    assert body == data.HELLO_TEXT
    assert res.info.size == len(data.HELLO_TEXT)
    assert res.info.filename == "hello.txt"
    assert res.info.extra["status"] == 200
    assert res.info.validator  # nginx sends an ETag


async def test_nginx_large_file_streams_with_bounded_memory(peers) -> None:  # type: ignore[no-untyped-def]
    url = peers["nginx"].url(data.LARGE_NAME)
    expected = peers.files[data.LARGE_NAME]
    digest = hashlib.sha256()
    size = 0
    tracemalloc.start()
    try:
        async with Resolver(warn=lambda m: None) as r, r.open(url) as res:
            async for chunk in res:
                digest.update(chunk)
                size += len(chunk)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert size == expected["size"]
    assert digest.hexdigest() == expected["sha256"]
    # A few receive buffers at most, however large the file.
    assert peak < 8 * (1 << 20) + min(size, 1 << 30) // 64


async def test_nginx_escaped_names(peers) -> None:  # type: ignore[no-untyped-def]
    nginx = peers["nginx"]
    for path, escaped in [("pub/with space.txt", "pub/with%20space.txt"),
                          ("pub/semi;colon.txt", "pub/semi%3Bcolon.txt"),
                          ("pub/per%cent.txt", "pub/per%25cent.txt")]:
        assert await fetch(nginx.url(escaped)) == peers.expected(path)


async def test_nginx_not_found_is_exit_22(peers) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RemoteFileNotFound, match="404 Not Found") as info:
        await fetch(peers["nginx"].url("no/such/file"))
    assert info.value.exit_code == 22  # an HTTP error answer exits 22, as curl -f


async def test_nginx_keep_alive_reuses_one_connection(peers) -> None:  # type: ignore[no-untyped-def]
    nginx = peers["nginx"]
    async with Resolver(warn=lambda m: None) as r:
        for _ in range(3):
            for name in ("hello.txt", "bin1k.dat"):
                assert await r.fetch(nginx.url(name)) == peers.expected(name)
        handler = r.handler_for(parse(nginx.url("hello.txt")))
        assert isinstance(handler, HTTPHandler)
        assert handler.connections_opened == 1


async def test_nginx_resume_continues_a_part_file(peers, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    expected = peers.expected("bin1k.dat")
    target = tmp_path / "bin1k.dat"
    (tmp_path / "bin1k.dat.part").write_bytes(expected[:300])
    async with Resolver(warn=lambda m: None) as r:
        result = await r.download(peers["nginx"].url("bin1k.dat"), target, resume=True)
    assert result.resumed_from == 300
    assert result.bytes == len(expected) - 300
    assert target.read_bytes() == expected


async def test_nginx_if_range_mismatch_restarts(peers, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    url = peers["nginx"].url("bin1k.dat")
    async with Resolver(warn=lambda m: None) as r:
        async with r.open(url, FetchOptions(offset=100, if_range='"stale-etag"')) as res:
            body = await res.read()
        assert res.info.offset == 0  # the file changed: start over, do not splice
        assert body == peers.expected("bin1k.dat")
        async with r.open(url) as res:
            etag = res.info.validator
            await res.read()
        async with r.open(url, FetchOptions(offset=1000, if_range=etag)) as res:
            assert res.info.offset == 1000
            assert res.info.total_size == 1024
            assert await res.read() == peers.expected("bin1k.dat")[1000:]


async def test_nginx_resume_of_a_complete_file_transfers_nothing(peers) -> None:  # type: ignore[no-untyped-def]
    async with Resolver(warn=lambda m: None) as r, r.open(
        peers["nginx"].url("bin1k.dat"), FetchOptions(offset=1024)
    ) as res:
        assert await res.read() == b""
    assert res.info.offset == 1024
    assert res.info.extra["already_complete"]


# -- scripted: framing ------------------------------------------------------------------------


async def test_short_body_is_a_partial_transfer(server: ScriptedServer) -> None:
    server.routes["/short"] = lambda rq: Reply(
        raw=b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + b"x" * 600, close=True)
    with pytest.raises(PartialTransfer, match="600 of 1000") as info:
        await fetch(server.url("/short"))
    assert info.value.exit_code == 18


async def test_chunked_body(server: ScriptedServer) -> None:
    server.routes["/chunked"] = lambda rq: Reply(
        raw=b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n")
    async with Resolver(warn=lambda m: None) as r:
        assert await r.fetch(server.url("/chunked")) == b"hello, world"
        assert await r.fetch(server.url("/chunked")) == b"hello, world"
    assert {rq.connection for rq in server.requests} == {1}  # kept alive after chunked


async def test_truncated_chunked_body_is_partial(server: ScriptedServer) -> None:
    server.routes["/cut"] = lambda rq: Reply(
        raw=b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", close=True)
    with pytest.raises(PartialTransfer):
        await fetch(server.url("/cut"))


async def test_close_delimited_body(server: ScriptedServer) -> None:
    server.routes["/old"] = lambda rq: Reply(
        raw=b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end", close=True)
    assert await fetch(server.url("/old")) == b"until the end"


async def test_garbage_is_a_protocol_error(server: ScriptedServer) -> None:
    server.routes["/junk"] = lambda rq: Reply(raw=b"SSH-2.0-OpenSSH\r\n\r\n", close=True)
    with pytest.raises(AnyURLError) as info:
        await fetch(server.url("/junk"))
    assert info.value.exit_code == 8


async def test_stale_pooled_connection_is_replaced(server: ScriptedServer) -> None:
    # The server closes after answering without saying so, as a keep-alive timeout does.
    server.routes["/a"] = fixed(b"first", close=True)
    server.routes["/b"] = fixed(b"second")
    async with Resolver(warn=lambda m: None) as r:
        assert await r.fetch(server.url("/a")) == b"first"
        assert await r.fetch(server.url("/b")) == b"second"
    assert [rq.connection for rq in server.requests][-1] == 2


async def test_slow_server_times_out(server: ScriptedServer) -> None:
    server.routes["/slow"] = fixed(b"late", delay=2.0)
    async with Resolver(Config(read_timeout=0.2), warn=lambda m: None) as r:
        with pytest.raises(TransferTimeout) as info:
            await r.fetch(server.url("/slow"))
    assert info.value.exit_code == 28


async def test_gzip_is_decoded_only_when_asked(server: ScriptedServer) -> None:
    packed = gzip.compress(b"plain text " * 100)
    server.routes["/z"] = fixed(packed, headers=[("Content-Encoding", "gzip")])
    assert await fetch(server.url("/z")) == packed
    decoded = await fetch(server.url("/z"), schemes=(HTTPOptions(decode_content=True),))
    assert decoded == b"plain text " * 100
    assert server.requests[-1].headers["accept-encoding"].startswith("deflate, gzip")
    assert "accept-encoding" not in server.requests[0].headers


# -- scripted: redirects ------------------------------------------------------------------------


async def test_redirect_chain_ends_at_the_final_url(server: ScriptedServer) -> None:
    server.routes["/one"] = redirect("/two", 301)
    server.routes["/two"] = redirect(server.url("/three"), 307)
    server.routes["/three"] = redirect("four?x=1", 308)
    server.routes["/four"] = fixed(b"arrived")
    async with Resolver(warn=lambda m: None) as r, r.open(server.url("/one")) as res:
        assert await res.read() == b"arrived"
    assert str(res.info.url) == server.url("/four?x=1")
    assert {rq.connection for rq in server.requests} == {1}


async def test_redirect_loop_is_detected(server: ScriptedServer) -> None:
    server.routes["/ping"] = redirect("/pong")
    server.routes["/pong"] = redirect("/ping")
    with pytest.raises(TooManyRedirects, match="redirect loop") as info:
        await fetch(server.url("/ping"))
    assert info.value.exit_code == 47


async def test_redirect_limit(server: ScriptedServer) -> None:
    server.routes["/n"] = lambda rq: Reply(
        302, "Found", headers=[("Location", f"/n?{len(server.requests)}")])
    async with Resolver(Config(max_redirects=3), warn=lambda m: None) as r:
        with pytest.raises(TooManyRedirects, match="more than 3 times"):
            await r.fetch(server.url("/n"))
    assert len(server.requests) == 4


@pytest.mark.parametrize("target", ["ftp://ftp.example/pub/secret.txt", "file:///etc/passwd"])
async def test_redirect_to_another_scheme_is_refused(server: ScriptedServer, target: str) -> None:
    server.routes["/away"] = redirect(target)
    with pytest.raises(UnsupportedScheme) as info:
        await fetch(server.url("/away"))
    assert target in str(info.value)


async def test_credentials_stay_with_their_host(server: ScriptedServer) -> None:
    other = ScriptedServer()
    try:
        other.routes["/there"] = fixed(b"other host")
        server.routes["/here"] = redirect(other.url("/there"))
        url = server.url("/here").replace("http://", "http://joe:pw@")
        assert await fetch(url) == b"other host"
        assert server.requests[0].headers["authorization"].startswith("Basic ")
        assert "authorization" not in other.requests[0].headers
    finally:
        other.close()


# -- scripted: status mapping and error bodies ----------------------------------------------


@pytest.mark.parametrize(
    ("status", "reason", "kind"),
    [
        pytest.param(404, "Not Found", RemoteFileNotFound, id="404"),
        pytest.param(410, "Gone", RemoteFileNotFound, id="410"),
        pytest.param(401, "Unauthorized", LoginDenied, id="401"),
        pytest.param(403, "Forbidden", LoginDenied, id="403"),
        pytest.param(500, "Internal Server Error", ServerError, id="500"),
        pytest.param(418, "I'm a teapot", ServerError, id="418"),
    ],
)
async def test_error_status_is_an_error_not_the_file(
    server: ScriptedServer, tmp_path: Path, status: int, reason: str, kind: type
) -> None:
    server.routes["/e"] = lambda rq: Reply(status, reason, body=b"<html>error page</html>")
    target = tmp_path / "e.html"
    async with Resolver(warn=lambda m: None) as r:
        with pytest.raises(kind, match=f"{status} {reason}"):
            await r.download(server.url("/e"), target)
    assert not target.exists()


async def test_keep_error_body_returns_it_with_the_status(server: ScriptedServer) -> None:
    server.routes["/e"] = lambda rq: Reply(503, "Service Unavailable", body=b"try later")
    async with Resolver(warn=lambda m: None) as r, r.open(
        server.url("/e"), FetchOptions(schemes=(HTTPOptions(keep_error_body=True),))
    ) as res:
        assert await res.read() == b"try later"
    assert res.info.extra["status"] == 503


async def test_basic_auth_from_the_url_with_a_warning(server: ScriptedServer) -> None:
    server.routes["/private"] = lambda rq: (
        Reply(body=b"welcome") if rq.headers.get("authorization") == "Basic am9lOnB3"
        else Reply(401, "Unauthorized"))
    warnings: list[str] = []
    url = server.url("/private").replace("http://", "http://joe:pw@")
    async with Resolver(warn=warnings.append) as r:
        assert await r.fetch(url) == b"welcome"
    assert any("carries a password" in w and ":pw@" not in w for w in warnings)


async def test_strict_mode_refuses_a_login_in_an_http_url(server: ScriptedServer) -> None:
    async with Resolver(strict=True, warn=lambda m: None) as r:
        with pytest.raises(URLSyntaxError):
            await r.fetch(server.url("/x").replace("http://", "http://joe:pw@"))
    assert server.requests == []


# -- scripted: ranges -----------------------------------------------------------------------------


async def test_range_and_if_range_are_sent(server: ScriptedServer) -> None:
    server.routes["/r"] = lambda rq: Reply(
        206, "Partial Content", headers=[("Content-Range", "bytes 4-9/10")], body=b"456789")
    async with Resolver(warn=lambda m: None) as r, r.open(
        server.url("/r"), FetchOptions(offset=4, if_range='"v1"')
    ) as res:
        assert await res.read() == b"456789"
    assert (res.info.offset, res.info.size, res.info.total_size) == (4, 6, 10)
    assert server.requests[0].headers["range"] == "bytes=4-"
    assert server.requests[0].headers["if-range"] == '"v1"'


async def test_range_from_the_wrong_byte_is_refused(server: ScriptedServer) -> None:
    server.routes["/r"] = lambda rq: Reply(
        206, "Partial Content", headers=[("Content-Range", "bytes 0-9/10")], body=b"0123456789")
    with pytest.raises(ResumeFailed, match="byte 4 was asked"):
        await fetch(server.url("/r"), offset=4)


async def test_416_beyond_the_end_is_a_resume_failure(server: ScriptedServer) -> None:
    server.routes["/r"] = lambda rq: Reply(
        416, "Range Not Satisfiable", headers=[("Content-Range", "bytes */10")])
    with pytest.raises(ResumeFailed, match="has 10 bytes") as info:
        await fetch(server.url("/r"), offset=50)
    assert info.value.exit_code == 36


# -- tracing -----------------------------------------------------------------------------------


async def test_trace_shows_the_dialogue_without_the_password(server: ScriptedServer) -> None:
    server.routes["/t"] = fixed(b"ok")
    lines: list[str] = []
    await fetch(server.url("/t").replace("http://", "http://joe:pw@"), trace=lines.append)
    assert "> GET /t HTTP/1.1" in lines
    assert "> Authorization: Basic ****" in lines
    assert "< HTTP/1.1 200 OK" in lines
    assert not any("am9lOnB3" in line for line in lines)


# -- redirects pass the resolver's gate ------------------------------------------------------


async def test_a_redirect_to_a_refused_port_is_refused(server: ScriptedServer) -> None:
    server.routes["/smtp"] = redirect("http://127.0.0.1:25/")
    with pytest.raises(PolicyRefused, match="port 25"):
        await fetch(server.url("/smtp"))
    assert len(server.requests) == 1  # nothing was sent anywhere else


async def test_a_redirect_target_goes_to_the_handler_the_gate_chooses(
    server: ScriptedServer,
) -> None:
    class Elsewhere(SchemeHandler):
        schemes = ("https",)
        seen: ClassVar[list[tuple[str, int]]] = []

        async def open(self, url: URL, options: FetchOptions) -> Resource:
            Elsewhere.seen.append((str(url), len(options.redirect_chain)))
            return Resource(ResourceInfo(url=url, size=2), iterate_bytes(b"ok"))

    server.routes["/tls"] = redirect("https://secure.example/doc")
    async with Resolver(warn=lambda m: None) as r:
        r.register("https", Elsewhere)
        assert await r.fetch(server.url("/tls")) == b"ok"
    assert Elsewhere.seen == [("https://secure.example/doc", 1)]
