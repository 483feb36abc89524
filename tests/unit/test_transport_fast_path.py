"""The raw socket stream's per-call costs (issue 21) and the begun connection.

A small FTP file is a handful of sends, receives and one data connection; each of them
used to look the backend up through sniffio several times and wait for the data
connection's handshake before RETR was sent. These tests pin what replaced that, on
both backends, without timing anything.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import anyio
import pytest
import sniffio

from anyurl.errors import ConnectFailed, TransferTimeout
from anyurl.net.transport import Dialer, connect_tcp
from anyurl.url import parse

URL = parse("ftp://joe:s3cret@127.0.0.1/pub/file")


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield sock
    sock.close()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.anyio
async def test_sends_and_receives_look_up_no_backend(
    listener: socket.socket, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each anyio.* call asks sniffio which library runs; the stream keeps the backend
    # class instead. (anyio's asyncio backend still asks inside its own waits and
    # notify_closing: its per-loop registries are RunVars.)
    stream = await connect_tcp("127.0.0.1", listener.getsockname()[1], url=URL,
                               read_timeout=10)
    peer, _ = listener.accept()
    lookups = []
    real = sniffio.current_async_library

    def counting() -> str:
        lookups.append(1)
        return real()

    monkeypatch.setattr(sniffio, "current_async_library", counting)
    try:
        for _ in range(3):
            await stream.send(b"EPSV\r\n")
            assert peer.recv(100) == b"EPSV\r\n"
            peer.sendall(b"229 ok\r\n")
            got = b""
            while len(got) < 8:
                got += await stream.receive()
            assert got == b"229 ok\r\n"
        sent_and_received = len(lookups)
    finally:
        monkeypatch.undo()
        peer.close()
    await stream.aclose()
    await stream.aclose()  # closing again does nothing
    assert sent_and_received == 0


@pytest.mark.anyio
async def test_the_read_timeout_still_holds_between_bytes(listener: socket.socket) -> None:
    stream = await connect_tcp("127.0.0.1", listener.getsockname()[1], url=URL,
                               read_timeout=0.05)
    peer, _ = listener.accept()
    try:
        peer.sendall(b"150 here\r\n")
        assert await stream.receive() == b"150 here\r\n"
        with pytest.raises(TransferTimeout, match="read timeout"):
            await stream.receive()
    finally:
        peer.close()
        await stream.aclose()


@pytest.mark.anyio
async def test_a_begun_connection_is_finished_when_asked(listener: socket.socket) -> None:
    connecting = await Dialer().begin_tcp("127.0.0.1", listener.getsockname()[1],
                                          url=URL, what="the ftp data connection")
    peer, _ = listener.accept()
    try:
        stream = await connecting.established()
        assert await connecting.established() is stream
        peer.sendall(b"data")
        assert await stream.receive() == b"data"
        assert stream.what == "the ftp data connection"
    finally:
        peer.close()
        await connecting.aclose()


@pytest.mark.anyio
async def test_a_refused_begun_connection_is_connect_failed() -> None:
    port = _closed_port()
    try:
        connecting = await Dialer().begin_tcp("127.0.0.1", port, url=URL)
    except ConnectFailed as exc:  # refused at once: also curl's exit 7
        error = exc
    else:
        with pytest.raises(ConnectFailed) as caught:
            await connecting.established()
        error = caught.value
        await connecting.aclose()
    assert error.exit_code == 7
    assert f"127.0.0.1:{port}" in str(error)
    assert "s3cret" not in str(error)


@pytest.mark.anyio
async def test_a_host_name_is_connected_whole(listener: socket.socket) -> None:
    # No address literal: resolved and connected in begin_tcp, as connect_tcp does.
    connecting = await Dialer().begin_tcp("localhost", listener.getsockname()[1], url=URL)
    peer, _ = listener.accept()
    peer.close()
    stream = await connecting.established()
    assert await stream.receive() == b""
    await stream.aclose()


@pytest.mark.anyio
async def test_a_receive_that_never_waits_still_meets_a_cancellation(
    listener: socket.socket,
) -> None:
    # Receives that find data waiting check for cancellation once per YIELD_EVERY
    # bytes (before a recv: nothing taken from the socket is lost), not per call.
    from anyurl.net.transport import _RawSocketStream

    stream = await connect_tcp("127.0.0.1", listener.getsockname()[1], url=URL,
                               read_timeout=10)
    peer, _ = listener.accept()
    sender = threading.Thread(target=_send_quietly, args=(peer, b"x" * (8 << 20)))
    sender.start()
    received = 0
    try:
        with anyio.CancelScope() as scope:
            scope.cancel()
            while True:
                received += len(await stream.receive(65536))
        assert scope.cancelled_caught
        assert received <= _RawSocketStream.YIELD_EVERY + 65536
    finally:
        await stream.aclose()
        peer.close()
        sender.join()


def _send_quietly(sock: socket.socket, data: bytes) -> None:
    try:
        sock.sendall(data)
    except OSError:
        pass  # the test closed its end
