"""HTTP/2 on plain http:// as curl asks for it (issue 33): ``--http2`` sends an HTTP/1.1
request with ``Upgrade: h2c`` (RFC 7540 3.2) and goes on in HTTP/1.1 when the server does
not switch (the nginx peer, HTTP/1.1 only on plain http), in HTTP/2 when it does
(:mod:`anyurl.schemes.http.h2c`); ``--http2-prior-knowledge`` sends the preface at once, and
against a server that does not speak HTTP/2 without TLS says so.
"""

from __future__ import annotations

import base64
import subprocess
import sys
from collections.abc import Iterator

import pytest

from anyurl.config import Config
from anyurl.errors import AnyURLError, ProtocolError
from anyurl.options import HTTPOptions
from anyurl.resource import Resource
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.http import HTTPHandler
from anyurl.schemes.http.h2c import H2cServer, serve_h2c
from anyurl.testing._server import open_task, serving_in_thread
from anyurl.url import parse
from tests.peers import data

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

FILES = {f"/f{i}.txt": f"file {i}\n".encode() * (i + 1) for i in range(8)}
FILES["/big.bin"] = bytes(range(256)) * 2000  # past the initial windows of 64 KiB
UPGRADE = HTTPOptions(http2=True)
PRIOR = HTTPOptions(http2=True, http2_prior_knowledge=True)


def _anyurl(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "anyurl", "get", "-s", *args],
                          capture_output=True, timeout=120)


@pytest.fixture
def h2c() -> Iterator[tuple[H2cServer, int]]:
    """The switching server in a thread (a CLI run in a subprocess reaches it too)."""
    server = H2cServer(FILES)
    with serving_in_thread(lambda **kw: serve_h2c(FILES, server=server, **kw)) as port:
        yield server, port


# -- nginx: the server does not switch, HTTP/1.1 goes on -------------------------------


def test_cli_http2_on_an_http11_server_asks_and_falls_back(peers) -> None:  # type: ignore[no-untyped-def]
    url = peers["nginx"].url("hello.txt")
    r = _anyurl("-v", "--http2", "-w", "%{http_version}", url)
    assert r.returncode == 0, r.stderr
    assert r.stdout == data.HELLO_TEXT + b"1.1"
    err = r.stderr.decode()
    assert "> Upgrade: h2c" in err
    assert "> Connection: Upgrade, HTTP2-Settings" in err
    assert "> HTTP2-Settings: " in err
    assert "< HTTP/1.1 200" in err


def test_cli_prior_knowledge_on_an_http11_server_says_so(peers) -> None:  # type: ignore[no-untyped-def]
    r = _anyurl("-S", "--http2-prior-knowledge", peers["nginx"].url("hello.txt"))
    assert r.returncode != 0
    err = r.stderr.decode()
    assert "does not speak HTTP/2 without TLS (prior knowledge); drop " \
        "--http2-prior-knowledge or use --http2" in err, err
    assert "without a response" not in err


async def test_batch_on_an_http11_server_pipelines(peers) -> None:  # type: ignore[no-untyped-def]
    nginx = peers["nginx"]
    names = ["hello.txt"] * 3
    handler = HTTPHandler(Config())
    trace: list[str] = []
    try:
        got = [await _read(o) async for _u, o in handler.open_batch(
            [parse(nginx.url(n)) for n in names],
            FetchOptions(trace=trace.append, schemes=(UPGRADE,)))]
    finally:
        await handler.aclose()
    assert got == [data.HELLO_TEXT] * 3
    assert sum("> Upgrade: h2c" in line for line in trace) == 1  # the first request only
    assert handler.connector.opened == 1  # the rest pipelined on the first's connection


async def test_prior_knowledge_batch_on_an_http11_server_says_so(peers) -> None:  # type: ignore[no-untyped-def]
    nginx = peers["nginx"]
    handler = HTTPHandler(Config())
    try:
        got = [o async for _u, o in handler.open_batch(
            [parse(nginx.url("hello.txt"))] * 2, FetchOptions(schemes=(PRIOR,)))]
    finally:
        await handler.aclose()
    assert all(isinstance(o, ProtocolError) and "without TLS (prior knowledge)" in str(o)
               for o in got), got


# -- a server that switches -----------------------------------------------------------


async def _read(outcome: Resource | AnyURLError) -> bytes:
    if isinstance(outcome, AnyURLError):
        raise outcome
    async with outcome:
        return await outcome.read()


def test_cli_http2_upgrades_when_the_server_switches(h2c: tuple[H2cServer, int]) -> None:
    server, port = h2c
    r = _anyurl("-v", "--http2", "-w", "%{http_version}", f"http://127.0.0.1:{port}/big.bin")
    assert r.returncode == 0, r.stderr
    assert r.stdout == FILES["/big.bin"] + b"2"
    err = r.stderr.decode()
    assert "> Upgrade: h2c" in err and "< HTTP/1.1 101" in err and "< HTTP/2 200" in err
    assert server.upgrades == 1


async def test_upgrade_then_the_connection_is_reused_as_http2() -> None:
    server = H2cServer(FILES)
    async with open_task(lambda **kw: serve_h2c(FILES, server=server, **kw)) as port:
        handler = HTTPHandler(Config())
        try:
            for name in ("/f1.txt", "/f2.txt", "/missing"):
                try:
                    body = await _read(await handler.open(
                        parse(f"http://127.0.0.1:{port}{name}"), FetchOptions(schemes=(UPGRADE,))))
                except AnyURLError as exc:
                    assert exc.exit_code == 22
                else:
                    assert body == FILES[name]
        finally:
            await handler.aclose()
    assert server.upgrades == 1 and server.h2_requests == 3
    assert handler.connector.opened == 1


async def test_batch_upgrades_the_first_connection_and_multiplexes() -> None:
    server = H2cServer(FILES)
    names = sorted(FILES)
    async with open_task(lambda **kw: serve_h2c(FILES, server=server, **kw)) as port:
        handler = HTTPHandler(Config())
        try:
            got = [await _read(o) async for _u, o in handler.open_batch(
                [parse(f"http://127.0.0.1:{port}{n}") for n in names],
                FetchOptions(schemes=(UPGRADE,)))]
        finally:
            await handler.aclose()
    assert got == [FILES[n] for n in names]
    assert server.upgrades == 1 and server.h2_requests == len(names)
    assert handler.connector.opened == 1


def test_http2_settings_is_base64url_without_padding() -> None:
    """RFC 7540 3.2.1: token68 of the SETTINGS payload, no ``=``."""
    from anyurl.schemes.http.http2 import H2Connection

    conn = H2Connection(None, None)  # type: ignore[arg-type]
    value = conn.upgrade_header()
    assert "=" not in value and "+" not in value and "/" not in value
    payload = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    assert len(payload) % 6 == 0 and payload
