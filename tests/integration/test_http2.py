"""HTTP/2 (``HTTPOptions(http2=True)``, with prior knowledge on http://) against a private
nginx started by this module.

nginx (Debian's nginx-light has the http_v2 module) listens three ways: h2c with prior
knowledge (``listen ... http2`` without ssl: what ``http://`` with HTTP/2 speaks), TLS with
h2 offered by ALPN, and TLS with HTTP/1.1 only (the fallback). The TLS certificate is a
throw-away self-signed one made with openssl; the client trusts it through a patched
``ssl.create_default_context``. Every test runs on asyncio and trio.
"""

from __future__ import annotations

import hashlib
import random
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import tracemalloc
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from anyurl.config import Config
from anyurl.errors import LoginDenied, PartialTransfer, RemoteFileNotFound
from anyurl.options import HTTPOptions
from anyurl.resolver import Resolver
from anyurl.resource import Resource
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.http import HTTPHandler
from anyurl.url import URL, parse

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

SMALL = b"hello over HTTP/2\n" * 50
LARGE_SIZE = (48 << 20) + 12345  # not a multiple of any frame or receive size

NGINX_CONF = """
daemon off;
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log;
events {{ worker_connections 64; }}
http {{
    default_type application/octet-stream;
    client_body_temp_path {root}/tmp;
    proxy_temp_path {root}/tmp;
    fastcgi_temp_path {root}/tmp;
    uwsgi_temp_path {root}/tmp;
    scgi_temp_path {root}/tmp;
    ssl_certificate {root}/cert.pem;
    ssl_certificate_key {root}/key.pem;
    # One line per request: which connection, its how-manieth request, the protocol.
    log_format mux '$connection $connection_requests $server_protocol $status $uri';
    access_log {root}/access.log mux;
    server {{
        listen 127.0.0.1:{h2c} http2;
        listen 127.0.0.1:{h2tls} ssl http2;
        listen 127.0.0.1:{h1tls} ssl;
        root {root}/www;
        location = /moved {{ return 301 /small.txt; }}
        location /private/ {{ return 403; }}
    }}
    server {{
        # GOAWAY after 50 streams of a connection (nginx's keepalive_requests).
        listen 127.0.0.1:{h2short} ssl http2;
        keepalive_requests 50;
        root {root}/www;
    }}
}}
"""


#: Small files of a batch (many/f000.txt ...), 1 KiB each, each its own.
MANY = 200


def _many_body(i: int) -> bytes:
    return (f"file {i:03d} ".encode() * 120)[:1024]


@dataclass(frozen=True)
class H2Server:
    h2c: int
    h2tls: int
    h1tls: int
    h2short: int
    root: Path
    large_sha256: str
    large: bytes


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server() -> Iterator[H2Server]:
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    version = subprocess.run([nginx, "-V"], capture_output=True, text=True).stderr
    assert "--with-http_v2_module" in version, "this nginx has no HTTP/2"
    # Under /tmp itself: nginx workers run as an unprivileged user and must reach it.
    root = Path(tempfile.mkdtemp(prefix="anyurl-h2-"))
    www = root / "www"
    www.mkdir()
    (root / "tmp").mkdir()
    for path in (root, www):
        path.chmod(0o755)
    (www / "small.txt").write_bytes(SMALL)
    large = random.Random(20261122).randbytes(LARGE_SIZE)
    (www / "large.bin").write_bytes(large)
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
         "-keyout", str(root / "key.pem"), "-out", str(root / "cert.pem")],
        check=True, capture_output=True)
    many = www / "many"
    many.mkdir()
    many.chmod(0o755)
    for i in range(MANY):
        (many / f"f{i:03d}.txt").write_bytes(_many_body(i))
    ports = {"h2c": _free_port(), "h2tls": _free_port(), "h1tls": _free_port(),
             "h2short": _free_port()}
    (root / "nginx.conf").write_text(NGINX_CONF.format(root=root, **ports))
    proc = subprocess.Popen([nginx, "-c", str(root / "nginx.conf"), "-p", str(root)],
                            stderr=subprocess.PIPE)
    try:
        for _ in range(200):
            try:
                for port in ports.values():
                    socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else b""
                time.sleep(0.05)
        yield H2Server(root=root, large_sha256=hashlib.sha256(large).hexdigest(),
                       large=large, **ports)
    finally:
        proc.send_signal(signal.SIGQUIT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def trust(server: H2Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the transport's default TLS context trust the test certificate."""
    real = ssl.create_default_context
    cafile = str(server.root / "cert.pem")

    def create_default_context(*args: object, **kwargs: object) -> ssl.SSLContext:
        return real(cafile=cafile)

    monkeypatch.setattr("anyurl.net.transport.ssl.create_default_context", create_default_context)


H2 = FetchOptions(schemes=(HTTPOptions(http2=True, http2_prior_knowledge=True),))


def _handler() -> HTTPHandler:
    """The HTTP handler of a resolver: redirects go through the resolver's gate."""
    handler = Resolver(Config()).handler_for(URL("http", host="127.0.0.1"))
    assert isinstance(handler, HTTPHandler)
    return handler


async def test_small_file_over_h2c(server: H2Server) -> None:
    handler = _handler()
    try:
        res = await handler.open(parse(f"http://127.0.0.1:{server.h2c}/small.txt"), H2)
        async with res:
            assert await res.read() == SMALL
        assert res.info.extra["http_version"] == "2"
        assert res.info.extra["status_line"] == "HTTP/2 200"
        assert res.info.size == len(SMALL)
        assert res.info.filename == "small.txt"
        # Keep-alive: the second request rides the same connection, on a new stream.
        res = await handler.open(parse(f"http://127.0.0.1:{server.h2c}/small.txt"), H2)
        async with res:
            assert await res.read() == SMALL
        assert res.info.extra["connection_reused"] is True
        assert handler.connections_opened == 1
    finally:
        await handler.aclose()


async def test_large_file_streams_with_bounded_memory(server: H2Server) -> None:
    handler = _handler()
    digest = hashlib.sha256()
    size = chunks = 0
    tracemalloc.start()
    try:
        res = await handler.open(parse(f"http://127.0.0.1:{server.h2c}/large.bin"), H2)
        async with res:
            async for chunk in res:
                digest.update(chunk)
                size += len(chunk)
                chunks += 1
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        await handler.aclose()
    assert size == LARGE_SIZE
    assert digest.hexdigest() == server.large_sha256
    assert chunks > 100  # streamed, not gathered
    assert peak < 8 << 20


async def test_range_resume_with_if_range(server: H2Server) -> None:
    url = parse(f"http://127.0.0.1:{server.h2c}/large.bin")
    handler = _handler()
    try:
        res = await handler.open(url, H2)
        validator = res.info.validator
        await res.aclose()  # abandoned at once, as an interrupted download
        assert validator
        offset = LARGE_SIZE - 100_000
        res = await handler.open(url, FetchOptions(offset=offset, if_range=validator,
                                                   schemes=H2.schemes))
        async with res:
            assert await res.read() == server.large[offset:]
        assert res.info.extra["status"] == 206
        assert (res.info.offset, res.info.size, res.info.total_size) == (
            offset, 100_000, LARGE_SIZE)
        # A validator of another version: the server sends the whole file, from 0.
        res = await handler.open(url, FetchOptions(offset=offset, if_range='"other"',
                                                   schemes=H2.schemes))
        assert (res.info.extra["status"], res.info.offset) == (200, 0)
        await res.aclose()
    finally:
        await handler.aclose()


async def test_status_mapping_and_redirect_keep_the_connection(server: H2Server) -> None:
    handler = _handler()
    base = f"http://127.0.0.1:{server.h2c}"
    try:
        with pytest.raises(RemoteFileNotFound) as info:
            await handler.open(parse(f"{base}/missing.txt"), H2)
        assert info.value.exit_code == 22  # HTTP errors exit 22, as curl -f
        assert "HTTP/2 404" in str(info.value)
        with pytest.raises(LoginDenied) as denied:
            await handler.open(parse(f"{base}/private/x"), H2)
        assert denied.value.exit_code == 22
        res = await handler.open(parse(f"{base}/moved"), H2)
        async with res:
            assert await res.read() == SMALL
        assert str(res.info.url) == f"{base}/small.txt"
        # Error pages and the redirect were reset stream by stream, on one connection.
        assert handler.connections_opened == 1
    finally:
        await handler.aclose()


async def test_https_uses_h2_when_alpn_picks_it(server: H2Server, trust: None) -> None:
    handler = _handler()
    try:
        res = await handler.open(parse(f"https://127.0.0.1:{server.h2tls}/small.txt"), H2)
        async with res:
            assert await res.read() == SMALL
        assert res.info.extra["http_version"] == "2"
    finally:
        await handler.aclose()


async def test_https_falls_back_to_http11_without_h2(server: H2Server, trust: None) -> None:
    handler = _handler()
    try:
        for _ in range(2):
            res = await handler.open(parse(f"https://127.0.0.1:{server.h1tls}/small.txt"), H2)
            async with res:
                assert await res.read() == SMALL
            assert res.info.extra["http_version"] == "1.1"
        assert handler.connections_opened == 1
    finally:
        await handler.aclose()


async def test_trace_shows_http2(server: H2Server) -> None:
    lines: list[str] = []
    handler = _handler()
    try:
        res = await handler.open(parse(f"http://127.0.0.1:{server.h2c}/small.txt"),
                                 FetchOptions(trace=lines.append,
                                              schemes=(H2.get(HTTPOptions),)))
        await res.aclose()
    finally:
        await handler.aclose()
    assert "> GET /small.txt HTTP/2" in lines
    assert "< HTTP/2 200" in lines



# -- a scripted HTTP/2 server, for bodies nginx never cuts short --------------------------


@pytest.fixture
def short_h2() -> Iterator[int]:
    """h2c on a thread: ``/cut`` closes the connection inside the body, ``/short`` ends the
    stream early; both announce ``content-length: 100`` and send 40 bytes."""
    import threading

    import h2.config
    import h2.connection
    import h2.events

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve_one(sock: socket.socket) -> None:
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
        conn.initiate_connection()
        sock.sendall(conn.data_to_send())
        with sock:
            while data := sock.recv(65536):
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.RequestReceived):
                        path = dict(event.headers)[b":path"]
                        conn.send_headers(event.stream_id, [(":status", "200"),
                                                            ("content-length", "100")])
                        conn.send_data(event.stream_id, b"x" * 40,
                                       end_stream=path == b"/short")
                        sock.sendall(conn.data_to_send())
                        if path == b"/cut":
                            # A FIN, then read until the client closes: closing at once
                            # would turn its late WINDOW_UPDATE into a reset that can
                            # overtake the 40 bytes.
                            sock.shutdown(socket.SHUT_WR)
                            while sock.recv(65536):
                                pass
                            return
                sock.sendall(conn.data_to_send())

    def serve() -> None:
        with listener:
            while True:
                try:
                    sock, _ = listener.accept()
                except OSError:
                    return
                threading.Thread(target=serve_one, args=(sock,), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield port
    listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() of the serving thread
    listener.close()
    thread.join(timeout=5)


@pytest.mark.parametrize("path", ["/cut", "/short"])
async def test_short_body_is_partial_transfer(short_h2: int, path: str) -> None:
    handler = _handler()
    try:
        with pytest.raises(PartialTransfer) as info:
            # h2 checks content-length as the last frame arrives: with the head in the
            # same read, that is before open() returns.
            res = await handler.open(parse(f"http://127.0.0.1:{short_h2}{path}"), H2)
            async with res:
                await res.read()
        assert info.value.exit_code == 18
        assert "40" in str(info.value) and "100" in str(info.value)
    finally:
        await handler.aclose()


def test_cli_http2_flag(server: H2Server) -> None:
    import subprocess
    import sys

    url = f"http://127.0.0.1:{server.h2c}/small.txt"
    r = subprocess.run([sys.executable, "-m", "anyurl", "get", "-s", "-v",
                        "--http2-prior-knowledge", url],
                       capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == SMALL
    assert b"HTTP/2 200" in r.stderr
    plain = subprocess.run([sys.executable, "-m", "anyurl", "get", "-s", url],
                           capture_output=True, timeout=60)
    assert plain.returncode != 0  # an h2c-only listener does not speak HTTP/1.1


# -- batches: HTTP/2 multiplexing (issue 21) ----------------------------------------------


def _access(server: H2Server, since: int) -> list[tuple[str, int, str, int, str]]:
    """nginx's log lines after the first ``since``: (connection, its request number,
    protocol, status, path)."""
    lines = (server.root / "access.log").read_text().splitlines()[since:]
    out = []
    for line in lines:
        conn, number, protocol, status, uri = line.split()
        out.append((conn, int(number), protocol, int(status), uri))
    return out


def _log_length(server: H2Server) -> int:
    path = server.root / "access.log"
    return len(path.read_text().splitlines()) if path.exists() else 0


async def _run_batch(handler: HTTPHandler, urls: list[URL], options: FetchOptions,
                     ) -> list[tuple[bytes | Exception, str | None]]:
    """Each URL's body (or error) and the HTTP version it came over, read in order."""
    got: list[tuple[bytes | Exception, str | None]] = []
    async for _url, outcome in handler.open_batch(urls, options):
        if isinstance(outcome, Exception):
            got.append((outcome, None))
            continue
        async with outcome:
            got.append((await outcome.read(), outcome.info.extra.get("http_version")))
    return got


def _many_urls(port: int, count: int = MANY) -> list[URL]:
    return [parse(f"https://127.0.0.1:{port}/many/f{i % MANY:03d}.txt") for i in range(count)]


#: ``--http2``: a batch's requests as concurrent streams (not the default: measured slower
#: than the HTTP/1.1 pipeline here, bench/README.md).
MUX = HTTPOptions(http2=True, http2_prior_knowledge=True)


async def test_https_batch_multiplexes_on_one_connection(server: H2Server, trust: None) -> None:
    """``--http2``: a batch of https URLs offers h2 by ALPN, nginx picks it, and the
    200 requests go as concurrent streams of one connection."""
    handler = _handler()
    trace: list[str] = []
    since = _log_length(server)
    try:
        got = await _run_batch(handler, _many_urls(server.h2tls),
                               FetchOptions(trace=trace.append, schemes=(MUX,)))
        assert handler.connections_opened == 1
    finally:
        await handler.aclose()
    assert got == [(_many_body(i), "2") for i in range(MANY)]
    log = _access(server, since)
    assert len(log) == MANY
    assert {(conn, protocol) for conn, _, protocol, _, _ in log} == {
        (log[0][0], "HTTP/2.0")}  # one connection, HTTP/2
    assert sorted(number for _, number, _, _, _ in log) == list(range(1, MANY + 1))
    # Concurrent streams: requests went out before the first response was read, and
    # never more than the window allows.
    first_answer = trace.index("< HTTP/2 200")
    sent_before = [line for line in trace[:first_answer] if line.startswith("> GET ")]
    assert 1 < len(sent_before) <= 64
    assert sum(line.startswith("> GET ") for line in trace) == MANY


async def test_batch_with_404_redirect_and_large_body(server: H2Server, trust: None) -> None:
    """What responses mean stays open()'s: a 404 fails its URL only, a redirect is
    followed (its target on a request of its own, itself asked once), a 48 MiB body in
    the middle streams with bounded memory; the rest is multiplexed on one connection."""
    base = f"https://127.0.0.1:{server.h2tls}"
    urls = _many_urls(server.h2tls, 20)
    urls[5] = parse(f"{base}/missing.txt")
    urls[10] = parse(f"{base}/moved")
    urls[15] = parse(f"{base}/large.bin")
    handler = _handler()
    since = _log_length(server)
    results: list[object] = []
    tracemalloc.start()
    try:
        async for url, outcome in handler.open_batch(urls, FetchOptions(schemes=(MUX,))):
            if isinstance(outcome, Exception):
                results.append(outcome)
                continue
            async with outcome:
                if url.path == "large.bin":
                    digest = hashlib.sha256()
                    async for chunk in outcome:
                        digest.update(chunk)
                    results.append(digest.hexdigest())
                else:
                    results.append((await outcome.read(), str(outcome.info.url)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        await handler.aclose()
    for i, result in enumerate(results):
        if i == 5:
            assert isinstance(result, RemoteFileNotFound)
            assert "HTTP/2 404" in str(result)
        elif i == 10:
            assert result == (SMALL, f"{base}/small.txt")
        elif i == 15:
            assert result == server.large_sha256
        else:
            assert result == (_many_body(i), str(urls[i]))
    assert peak < 16 << 20
    log = _access(server, since)
    assert {protocol for _, _, protocol, _, _ in log} == {"HTTP/2.0"}
    # The batch's 20 streams on one connection; the redirect's answer goes to the
    # redirect loop, which asks its target on a request of its own, not /moved again.
    batch_conn = next(conn for conn, _, _, _, uri in log if uri == "/large.bin")
    assert sum(conn == batch_conn for conn, _, _, _, _ in log) == 20
    assert [uri for conn, _, _, _, uri in log if conn != batch_conn] == ["/small.txt"]
    assert sum(uri == "/moved" for _, _, _, _, uri in log) == 1


async def test_https_batch_falls_back_to_pipelining(server: H2Server, trust: None) -> None:
    """A TLS server that offers HTTP/1.1 only: the batch pipelines on that connection."""
    handler = _handler()
    trace: list[str] = []
    try:
        got = await _run_batch(handler, _many_urls(server.h1tls),
                               FetchOptions(trace=trace.append))
        assert handler.connections_opened == 1
    finally:
        await handler.aclose()
    assert got == [(_many_body(i), "1.1") for i in range(MANY)]
    assert sum(line.endswith("(pipelined)") for line in trace) > MANY // 2


@pytest.mark.parametrize("http2", [None, False], ids=["default", "http1.1"])
async def test_http11_by_default_and_with_the_option(server: H2Server, trust: None,
                                                     http2: bool | None) -> None:
    """By default and with ``HTTPOptions(http2=False)`` (``--http1.1``): HTTP/1.1,
    pipelined, even where the server would speak h2."""
    handler = _handler()
    since = _log_length(server)
    try:
        got = await _run_batch(handler, _many_urls(server.h2tls, 40),
                               FetchOptions(schemes=(HTTPOptions(http2=http2),)))
    finally:
        await handler.aclose()
    assert got == [(_many_body(i), "1.1") for i in range(40)]
    assert {protocol for _, _, protocol, _, _ in _access(server, since)} == {"HTTP/1.1"}


async def test_http2_batch_over_h2c(server: H2Server) -> None:
    """``http2_prior_knowledge=True`` on http://: the preface at once, multiplexed too."""
    handler = _handler()
    trace: list[str] = []
    urls = [parse(f"http://127.0.0.1:{server.h2c}/many/f{i:03d}.txt") for i in range(50)]
    try:
        got = await _run_batch(handler, urls, FetchOptions(
            trace=trace.append, schemes=(HTTPOptions(http2=True, http2_prior_knowledge=True),)))
        assert handler.connections_opened == 1
    finally:
        await handler.aclose()
    assert got == [(_many_body(i), "2") for i in range(50)]
    first_answer = trace.index("< HTTP/2 200")
    assert sum(line.startswith("> GET ") for line in trace[:first_answer]) > 1


@pytest.mark.parametrize("flag, protocol", [(("--http2",), "HTTP/2.0"), ((), "HTTP/1.1"),
                                            (("--http1.1",), "HTTP/1.1")])
def test_cli_batch_of_https_urls(server: H2Server, tmp_path: Path, flag: tuple[str, ...],
                                 protocol: str) -> None:
    """``anyurl get -O`` of many https URLs: multiplexed over h2 with ``--http2``,
    pipelined HTTP/1.1 by default and with ``--http1.1``; the files are the same."""
    import subprocess
    import sys

    since = _log_length(server)
    urls = [str(u) for u in _many_urls(server.h2tls, 40)]
    r = subprocess.run([sys.executable, "-m", "anyurl", "get", "-s", *flag, "--cacert",
                        str(server.root / "cert.pem"), "-O", "--output-dir", str(tmp_path),
                        *urls], capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr
    for i in range(40):
        assert (tmp_path / f"f{i:03d}.txt").read_bytes() == _many_body(i)
    log = _access(server, since)
    assert len(log) == 40
    assert {p for _, _, p, _, _ in log} == {protocol}


async def test_goaway_sends_the_unprocessed_again(server: H2Server, trust: None) -> None:
    """nginx ends a connection after 50 streams with GOAWAY: the streams it took finish,
    the others go again on a new connection, and every URL gets its own body."""
    handler = _handler()
    trace: list[str] = []
    since = _log_length(server)
    try:
        got = await _run_batch(handler, _many_urls(server.h2short),
                               FetchOptions(trace=trace.append, schemes=(MUX,)))
        opened = handler.connections_opened
    finally:
        await handler.aclose()
    assert got == [(_many_body(i), "2") for i in range(MANY)]
    log = _access(server, since)
    assert len(log) == MANY  # each URL answered once: none processed twice
    per_connection: dict[str, int] = {}
    for conn, _, _, _, _ in log:
        per_connection[conn] = per_connection.get(conn, 0) + 1
    assert max(per_connection.values()) == 50
    assert opened == len(per_connection) == MANY // 50
    assert any("sending them again on a new one" in line for line in trace)


async def test_batch_closed_early_releases_the_connection(
        server: H2Server, trust: None) -> None:
    """Closing the batch after 5 of 200 resets the streams in flight; the connection
    goes back to the pool and carries the next batch."""
    handler = _handler()
    try:
        batch = handler.open_batch(_many_urls(server.h2tls), FetchOptions(schemes=(MUX,)))
        read = []
        async for _url, outcome in batch:
            assert isinstance(outcome, Resource)
            async with outcome:
                read.append(await outcome.read())
            if len(read) == 5:
                break
        await batch.aclose()
        assert read == [_many_body(i) for i in range(5)]
        got = await _run_batch(handler, _many_urls(server.h2tls, 30),
                               FetchOptions(schemes=(MUX,)))
        assert got == [(_many_body(i), "2") for i in range(30)]
        assert handler.connections_opened == 1
    finally:
        await handler.aclose()


async def test_head_batch_is_multiplexed(server: H2Server, trust: None) -> None:
    """HEAD (``-I``) in a batch: each resource is its response head, as open() gives."""
    handler = _handler()
    since = _log_length(server)
    try:
        got = await _run_batch(handler, _many_urls(server.h2tls, 10),
                               FetchOptions(schemes=(HTTPOptions(head=True, http2=True),)))
        assert handler.connections_opened == 1
    finally:
        await handler.aclose()
    for head, version in got:
        assert version == "2"
        assert isinstance(head, bytes) and head.startswith(b"HTTP/2 200\r\n")
        assert b"content-length: 1024\r\n" in head
    log = _access(server, since)
    assert len(log) == 10 and {p for _, _, p, _, _ in log} == {"HTTP/2.0"}
