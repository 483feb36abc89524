"""Timeouts in httpx's shape (``anyurl.Timeout``) against loopback servers that misbehave
slowly: a body trickled a byte every 0.2 s runs into the total deadline while the caller
streams it; a server that never reads runs a request body into the write timeout. On
asyncio and trio, through ``Resolver.open``/``fetch`` and the synchronous facade, with a
``Timeout``, a number, the resolver's default and the config. No test asserts a time:
each asserts the error and what its message names."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

import anyurl
from anyurl import Config, Resolver, Timeout
from anyurl.errors import TransferTimeout
from anyurl.testing._server import ThreadedListener
from anyurl.timeouts import current
from tests.cli.test_curl_options import anyurl as anyurl_cli

pytestmark = [pytest.mark.integration]

#: The trickled body: 100 bytes, one every TICK seconds (20 s in all, far past any
#: deadline below; a test that waited for it all would hit pytest's timeout).
BODY_SIZE = 100
TICK = 0.2


class SlowServer:
    """HTTP/1.1 on 127.0.0.1: ``/trickle`` answers at once and trickles its body; ``/sink``
    reads the request head and then nothing (the client's body fills the socket)."""

    def __init__(self) -> None:
        self._listener = ThreadedListener(self._serve, name="slow-server")
        self.port = self._listener.port
        self._stop = self._listener.stop
        self._conns: list[socket.socket] = []
        self._listener.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def _serve(self, conn: socket.socket) -> None:
        self._conns.append(conn)  # shut down by close(): a recv waiting ends
        head = b""
        try:
            while b"\r\n\r\n" not in head:
                more = conn.recv(1)  # byte by byte: nothing of a body is read
                if not more:
                    return
                head += more
            if head.split(b" ", 2)[1] == b"/sink":
                self._stop.wait()  # never read, never answer
                return
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                         b"Content-Length: %d\r\n\r\n" % BODY_SIZE)
            for _ in range(BODY_SIZE):
                if self._stop.wait(TICK):
                    return
                conn.sendall(b"x")
        except OSError:
            return

    def close(self) -> None:
        self._listener.close(join=False)
        for conn in self._conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()


@pytest.fixture
def slow() -> Iterator[SlowServer]:
    server = SlowServer()
    yield server
    server.close()


def _names_total(error: TransferTimeout, url: str, seconds: str) -> None:
    text = str(error)
    assert url in text
    assert f"total timeout of {seconds} seconds" in text and "Timeout.total" in text
    assert error.exit_code == 28 and isinstance(error, TimeoutError)


@pytest.mark.anyio
async def test_the_total_deadline_bounds_the_body_being_streamed(slow: SlowServer) -> None:
    url = slow.url("/trickle")
    received = 0
    async with Resolver() as r:
        with pytest.raises(TransferTimeout) as caught:
            async with r.open(url, timeout=Timeout(5.0, total=0.5)) as res:
                async for chunk in res:  # opened in time: the deadline ends the body
                    received += len(chunk)
    _names_total(caught.value, url, "0.5")
    assert received < BODY_SIZE


@pytest.mark.anyio
async def test_a_number_is_the_total_deadline_for_open_and_fetch(slow: SlowServer) -> None:
    url = slow.url("/trickle")
    async with Resolver() as r:
        with pytest.raises(TransferTimeout) as caught:
            async with r.open(url, timeout=0.5) as res:
                await res.read()
        _names_total(caught.value, url, "0.5")
        with pytest.raises(TransferTimeout) as caught:
            await r.fetch(url, timeout=0.5)
        _names_total(caught.value, url, "0.5")


@pytest.mark.anyio
async def test_the_config_and_the_resolver_give_the_default(slow: SlowServer) -> None:
    url = slow.url("/trickle")
    async with Resolver(Config(timeout=Timeout(5.0, total=0.5))) as r:
        with pytest.raises(TransferTimeout) as caught:
            await r.fetch(url)
    _names_total(caught.value, url, "0.5")
    async with Resolver(Config(max_time=0.4)) as r:  # the field Timeout.total maps onto
        with pytest.raises(TransferTimeout) as caught:
            await r.fetch(url)
    _names_total(caught.value, url, "0.4")
    async with Resolver(timeout=Timeout(5.0, total=0.3)) as r:  # as an httpx Client
        with pytest.raises(TransferTimeout) as caught:
            async with r.open(url) as res:
                await res.read()
    _names_total(caught.value, url, "0.3")


@pytest.mark.anyio
async def test_a_request_timeout_wins_over_the_config(slow: SlowServer) -> None:
    url = slow.url("/trickle")
    # The config's read timeout (0.05 s) would stop the trickle; the request's does not.
    async with Resolver(Config(timeout=Timeout(0.05))) as r:
        with pytest.raises(TransferTimeout) as caught:
            await r.fetch(url, timeout=Timeout(5.0, total=0.5))
    _names_total(caught.value, url, "0.5")
    async with Resolver(Config(timeout=Timeout(0.05))) as r:
        with pytest.raises(TransferTimeout) as caught:
            await r.fetch(url, timeout=Timeout(read=None, total=0.5))
    _names_total(caught.value, url, "0.5")


@pytest.mark.anyio
async def test_the_read_timeout_of_the_request_applies_while_streaming(
        slow: SlowServer) -> None:
    url = slow.url("/trickle")
    async with Resolver() as r:
        with pytest.raises(TransferTimeout) as caught:
            async with r.open(url, timeout=Timeout(0.05)) as res:
                assert current() is None  # the limits apply inside each read, not here
                await res.read()
    assert "(the read timeout)" in str(caught.value) and url in str(caught.value)


@pytest.mark.anyio
async def test_a_server_that_never_reads_runs_into_the_write_timeout(
        slow: SlowServer) -> None:
    url = slow.url("/sink")
    body = bytes(64 << 20)  # more than both sockets' buffers hold
    async with Resolver() as r:
        with pytest.raises(TransferTimeout) as caught:
            await r.fetch(url, data=body, timeout=Timeout(5.0, write=0.5))
    text = str(caught.value)
    assert "(the write timeout)" in text and "stopped reading" in text
    assert "127.0.0.1" in text and str(slow.port) in text
    async with Resolver(Config(timeout=Timeout(5.0, write=0.3))) as r:  # from the config
        with pytest.raises(TransferTimeout, match="the write timeout"):
            await r.fetch(url, data=body)


def test_the_synchronous_facade_raises_from_the_iterator(slow: SlowServer) -> None:
    url = slow.url("/trickle")
    for backend in ("asyncio", "trio"):
        received = 0
        with pytest.raises(TransferTimeout) as caught, \
                anyurl.open(url, timeout=Timeout(5.0, total=0.5), backend=backend) as res:
            for chunk in res:
                received += len(chunk)
        _names_total(caught.value, url, "0.5")
        assert 0 < received < BODY_SIZE
        with pytest.raises(TransferTimeout) as caught:
            anyurl.get(url, timeout=0.5, backend=backend)
        _names_total(caught.value, url, "0.5")


def test_the_command_lines_max_time_ends_a_trickled_body_with_28(slow: SlowServer) -> None:
    url = slow.url("/trickle")
    result = anyurl_cli("-sS", "-m", "0.5", url)
    assert result.returncode == 28, result.stderr
    assert url.encode() in result.stderr
    assert b"--max-time" in result.stderr  # the hint in the command's words
