"""Gateways (RFC 1738 section 4): every scheme through a small HTTP gateway in a thread.

The gateway answers absolute-URL requests itself (and records exactly what it was sent), so
the tests assert the request line for gopher, ftp, wais, news, nntp and prospero URLs; for
``CONNECT`` it opens the tunnel and relays bytes, so a scheme's own handler runs through it.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from anyurl import registry
from anyurl.config import Config
from anyurl.errors import ConnectFailed, LoginDenied, RemoteFileNotFound
from anyurl.net.routing import gateways_from_environ
from anyurl.registry.spec import SchemeSpec
from anyurl.resolver import Resolver
from anyurl.resource import Resource, ResourceInfo
from anyurl.schemes.base import FetchOptions, SchemeHandler
from anyurl.schemes.gateway import GatewayHandler
from anyurl.schemes.http.gateway import Gateway
from anyurl.testing._server import ThreadedListener
from anyurl.url import URL
from tests.peers import data

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


class LineServer:
    """A gopher-like server: greets, reads one line, answers it and closes."""

    def __init__(self) -> None:
        self._listener = ThreadedListener(self._serve, name="line-server")
        self.port = self._listener.port
        self._listener.start()

    @staticmethod
    def _serve(conn: socket.socket) -> None:
        with conn:
            conn.sendall(b"ready\r\n")
            line = b""
            while not line.endswith(b"\r\n"):
                more = conn.recv(1024)
                if not more:
                    break
                line += more
            conn.sendall(b"you asked for " + line.strip() + b"\r\n")

    def close(self) -> None:
        self._listener.close()


class LineHandler(SchemeHandler):
    """``x-line://host:port/selector``: a scheme's own protocol, for the tunnel tests."""

    schemes = ("x-line",)

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        stream = await self.dialer.connect_tcp(url.connect_host, url.port or 70, url=url)
        greeting = b""
        while not greeting.endswith(b"\r\n"):
            greeting += await stream.receive()
        assert greeting == b"ready\r\n", greeting
        await stream.send((url.path or "").encode() + b"\r\n")

        async def chunks() -> Iterator[bytes]:  # type: ignore[misc]
            try:
                while data := await stream.receive():
                    yield data
            finally:
                await stream.aclose()

        return Resource(ResourceInfo(url=url), chunks())


@pytest.fixture
def gateway() -> Iterator[Gateway]:
    gw = Gateway()
    yield gw
    gw.close()


@pytest.fixture
def line_server() -> Iterator[LineServer]:
    srv = LineServer()
    yield srv
    srv.close()


def resolver(gateways: dict[str, str]) -> Resolver:
    return Resolver(Config(gateways=gateways), warn=lambda m: None)


# -- GET mode: the whole URL as the request target ------------------------------------------


@pytest.mark.parametrize(
    ("url", "line", "host"),
    [
        pytest.param("gopher://gopher.example:7070/0/notes.txt",
                     "GET gopher://gopher.example:7070/0/notes.txt HTTP/1.1",
                     "gopher.example:7070", id="gopher"),
        pytest.param("ftp://ftp.example/pub/file.tar;type=i",
                     "GET ftp://ftp.example/pub/file.tar;type=i HTTP/1.1", "ftp.example",
                     id="ftp"),
        pytest.param("wais://wais.example:210/db?query",
                     "GET wais://wais.example:210/db?query HTTP/1.1", "wais.example",
                     id="wais"),
        pytest.param("news:comp.infosystems.www", "GET news:comp.infosystems.www HTTP/1.1", "",
                     id="news"),
        pytest.param("nntp://news.example/comp.lang.python/42",
                     "GET nntp://news.example/comp.lang.python/42 HTTP/1.1", "news.example",
                     id="nntp"),
        pytest.param("prospero://pros.example:1525/a/b%20c",
                     "GET prospero://pros.example:1525/a/b%20c HTTP/1.1", "pros.example",
                     id="prospero"),
    ],
)
async def test_get_mode_sends_the_whole_url(
    gateway: Gateway, url: str, line: str, host: str
) -> None:
    scheme = url.split(":", 1)[0]
    async with resolver({scheme: gateway.url}) as r, r.open(url) as res:
        body = await res.read()
    target = line.split(" ")[1]
    assert body == f"gateway fetched {target}".encode()
    assert [s.line for s in gateway.seen] == [line]
    assert gateway.seen[0].headers["host"] == host
    assert str(res.info.url) == url


async def test_get_mode_sends_the_login_to_the_gateway(gateway: Gateway) -> None:
    lines: list[str] = []
    async with resolver({"ftp": gateway.url}) as r:
        await r.fetch("ftp://joe:secret@ftp.example/f", FetchOptions(trace=lines.append))
    assert gateway.seen[0].line == "GET ftp://joe:secret@ftp.example/f HTTP/1.1"
    assert "> GET ftp://joe:****@ftp.example/f HTTP/1.1" in lines
    assert not any("secret" in line for line in lines)


async def test_get_mode_error_status_is_mapped(gateway: Gateway) -> None:
    async with resolver({"wais": gateway.url}) as r:
        with pytest.raises(RemoteFileNotFound, match="404 Not Found"):
            await r.fetch("wais://wais.example/missing?x")


async def test_gateway_login_is_proxy_authorization(gateway: Gateway) -> None:
    gateway.login = "Basic Z3c6cHc="  # gw:pw
    async with resolver({"gopher": gateway.url.replace("http://", "http://gw:pw@")}) as r:
        assert await r.fetch("gopher://g.example/1") == b"gateway fetched gopher://g.example/1"
    async with resolver({"gopher": gateway.url}) as r:
        with pytest.raises(LoginDenied, match="407"):
            await r.fetch("gopher://g.example/1")


async def test_http_proxy_uses_absolute_form_and_keeps_alive(gateway: Gateway) -> None:
    async with resolver({"http": gateway.url}) as r:
        for path in ("a", "b"):
            assert await r.fetch(f"http://www.example/{path}") == (
                f"gateway fetched http://www.example/{path}".encode())
        handler = r.handler_for(URL("http", host="www.example"))
        assert isinstance(handler, GatewayHandler)
        assert handler.http.connections_opened == 1
    assert [s.line for s in gateway.seen] == ["GET http://www.example/a HTTP/1.1",
                                              "GET http://www.example/b HTTP/1.1"]


async def test_no_proxy_goes_direct(gateway: Gateway, peers) -> None:  # type: ignore[no-untyped-def]
    nginx = peers["nginx"]
    async with resolver({"http": gateway.url, "no_proxy": nginx.host}) as r:
        assert await r.fetch(nginx.url("hello.txt")) == data.HELLO_TEXT
    assert gateway.seen == []


async def test_environment_proxies_reach_the_gateway(gateway: Gateway) -> None:
    env = {"wais_proxy": gateway.url, "no_proxy": "local.example"}
    async with resolver(gateways_from_environ(env)) as r:
        assert await r.fetch("wais://w.example/db?q") == b"gateway fetched wais://w.example/db?q"
    assert gateway.seen[0].line == "GET wais://w.example/db?q HTTP/1.1"


#: The test's own scheme, as a plug-in would describe it.
_LINE_SPEC = SchemeSpec(names=("x-line",), handler=f"{__name__}:LineHandler")


# -- tunnel mode: CONNECT, then the scheme's own protocol ------------------------------------


async def test_tunnel_runs_the_schemes_own_handler(
    gateway: Gateway, line_server: LineServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(registry.index._added, "x-line", _LINE_SPEC)
    gateways = {"x-line": "tunnel+" + gateway.url}
    async with resolver(gateways) as r:
        body = await r.fetch(f"x-line://127.0.0.1:{line_server.port}/menu")
    assert body == b"you asked for menu\r\n"
    assert [s.line for s in gateway.seen] == [f"CONNECT 127.0.0.1:{line_server.port} HTTP/1.1"]


async def test_tunnelled_http_reaches_nginx(gateway: Gateway, peers) -> None:  # type: ignore[no-untyped-def]
    nginx = peers["nginx"]
    lines: list[str] = []
    async with resolver({"http": "tunnel+" + gateway.url}) as r:
        for _ in range(2):
            body = await r.fetch(nginx.url("bin1k.dat"), FetchOptions(trace=lines.append))
            assert body == peers.expected("bin1k.dat")
    assert [s.line for s in gateway.seen] == [f"CONNECT {nginx.host}:{nginx.port} HTTP/1.1"]
    assert "> GET /bin1k.dat HTTP/1.1" in lines  # origin form inside the tunnel


async def test_tunnel_refused_names_the_status(gateway: Gateway, line_server: LineServer,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.index._added, "x-line", _LINE_SPEC)
    gateway.refuse[f"127.0.0.1:{line_server.port}"] = "403 Forbidden"
    async with resolver({"x-line": "tunnel+" + gateway.url}) as r:
        with pytest.raises(ConnectFailed, match=r"'HTTP/1\.1 403 Forbidden' to CONNECT"):
            await r.fetch(f"x-line://127.0.0.1:{line_server.port}/menu")


async def test_tunnel_needs_the_gateway_login(gateway: Gateway, line_server: LineServer,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.index._added, "x-line", _LINE_SPEC)
    gateway.login = "Basic Z3c6cHc="
    url = f"x-line://127.0.0.1:{line_server.port}/sel"
    async with resolver({"x-line": "tunnel+" + gateway.url}) as r:
        with pytest.raises(LoginDenied, match="407"):
            await r.fetch(url)
    tunnel = "tunnel+" + gateway.url.replace("http://", "http://gw:pw@")
    async with resolver({"x-line": tunnel}) as r:
        assert await r.fetch(url) == b"you asked for sel\r\n"
