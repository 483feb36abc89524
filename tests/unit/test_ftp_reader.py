"""The FTP control connection's reader (schemes/ftp/reader.py), on both backends.

A real loopback connection: the server's end is a plain blocking socket this module
writes to. On asyncio the reader stays registered with the loop for the connection's
life; on trio each wait is one receive. Either way replies are kept, joined and
bounded the same, and the read timeout holds between a file's replies.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from anyurl.errors import ProtocolError, TransferTimeout
from anyurl.net.transport import connect_tcp
from anyurl.protocols.ftp import Command
from anyurl.protocols.replies import MAX_REPLY
from anyurl.schemes.ftp.control import Control, key_for
from anyurl.schemes.ftp.reader import PAUSE_AT, RECEIVE_SIZE
from anyurl.timeouts import Timeout, using
from anyurl.url import parse

pytestmark = pytest.mark.anyio

URL = parse("ftp://127.0.0.1/pub/file")


class Pair:
    """A control connection (``control``) and the server's end of it (``peer``)."""

    def __init__(self, control: Control, peer: socket.socket):
        self.control = control
        self.peer = peer
        #: What each call of the core's receive_data was given.
        self.fed: list[bytes] = []
        real = control.core.receive_data

        def counting(data: bytes) -> None:
            self.fed.append(data)
            real(data)

        control.core.receive_data = counting  # type: ignore[method-assign]


@pytest.fixture
async def pair(anyio_backend: str) -> AsyncIterator[Pair]:
    server = socket.create_server(("127.0.0.1", 0))
    stream = await connect_tcp("127.0.0.1", server.getsockname()[1], url=URL,
                               read_timeout=20.0, what="the ftp control connection")
    peer, _ = server.accept()  # already queued: the connect is done
    server.close()
    control = Control(stream, key_for(URL), URL)
    try:
        yield Pair(control, peer)
    finally:
        control.reader.close()
        await control.stream.aclose()
        peer.close()


async def test_the_reader_is_registered_on_asyncio_only(pair: Pair, anyio_backend: str) -> None:
    pair.peer.sendall(b"220 hi\r\n")
    await pair.control.read_reply()
    assert pair.control.reader.on_loop is (anyio_backend == "asyncio")


async def test_several_replies_in_one_read_are_all_kept(pair: Pair) -> None:
    pair.peer.sendall(b"220 hi\r\n150 here\r\n226 done\r\n")
    control = pair.control
    assert (await control.read_reply()).code == 220
    assert (await control.command(Command("RETR", "f"))).code == 150
    assert (await control.read_reply()).code == 226
    assert pair.fed == [b"220 hi\r\n150 here\r\n226 done\r\n"]  # one receive for three
    assert pair.peer.recv(100) == b"RETR f\r\n"


def _received(peer: socket.socket) -> bytes:
    """What the client has sent so far, without waiting."""
    try:
        return peer.recv(4096, socket.MSG_DONTWAIT)
    except BlockingIOError:
        return b""


async def _until(condition: Any) -> None:
    """Let the event loop run until ``condition()`` holds (at most about 10 s)."""
    for _ in range(1000):
        if condition():
            return
        await anyio.sleep(0.01)
    raise AssertionError("the condition never held")


async def test_a_reply_split_across_reads_is_joined(pair: Pair) -> None:
    control = pair.control
    pair.peer.sendall(b"220-wel")
    replies = []
    async with anyio.create_task_group() as tg:

        async def read() -> None:
            replies.append(await control.read_reply())

        tg.start_soon(read)
        await _until(lambda: pair.fed)  # the first piece is in, its reply not complete
        assert not replies
        pair.peer.sendall(b"come\r\n220 in two reads\r\n")
    assert replies[0].lines == ("220-welcome", "220 in two reads")
    assert pair.fed == [b"220-wel", b"come\r\n220 in two reads\r\n"]


def _flood(peer: socket.socket, head: bytes, body: bytes, cap: int,
           blocked: threading.Event) -> None:
    """Send ``head`` then ``body`` over and over, up to ``cap`` bytes; ``blocked`` is
    set when the client stops reading (a send waits half a second in vain)."""
    peer.settimeout(0.5)
    sent = 0
    try:
        peer.sendall(head)
        while sent < cap:
            peer.sendall(body)
            sent += len(body)
    except TimeoutError:
        blocked.set()
    except OSError:
        pass


async def test_an_endless_reply_is_an_error_not_memory(pair: Pair) -> None:
    blocked = threading.Event()
    line = b"220-" + b"x" * 1000 + b"\r\n"
    thread = threading.Thread(target=_flood, args=(pair.peer, b"220-start\r\n", line * 64,
                                                   64 * MAX_REPLY, blocked), daemon=True)
    thread.start()
    with pytest.raises(ProtocolError, match=f"reply longer than {MAX_REPLY} bytes"):
        await pair.control.read_reply()
    assert pair.control.core.buffered <= MAX_REPLY + PAUSE_AT + RECEIVE_SIZE
    pair.control.reader.close()
    await pair.control.stream.aclose()  # the flood ends with the connection
    thread.join(10)
    assert not thread.is_alive()


async def test_replies_nobody_waits_for_stay_bounded(pair: Pair) -> None:
    control = pair.control
    pair.peer.sendall(b"220 hi\r\n")
    await control.read_reply()  # the reader is running (registered on asyncio)
    blocked = threading.Event()
    thread = threading.Thread(target=_flood, args=(pair.peer, b"", b"200 unasked\r\n" * 1000,
                                                   64 << 20, blocked), daemon=True)
    thread.start()
    # Nobody waits for a reply while the server talks (as while a data connection is
    # read): the client must stop reading, so the server's sends end up blocked.
    await _until(lambda: blocked.is_set() or not thread.is_alive())
    assert blocked.is_set(), "the client read everything the server sent"
    assert control.core.buffered <= PAUSE_AT + RECEIVE_SIZE
    thread.join(10)


async def test_the_read_timeout_holds_between_the_replies_of_a_file(pair: Pair) -> None:
    control = pair.control
    pair.peer.sendall(b"220 hi\r\n229 Entering Extended Passive Mode (|||4242|)\r\n")
    await control.read_reply()
    with using(Timeout(read=0.3)):
        assert (await control.command(Command("EPSV"))).code == 229
        # RETR's 150 never comes: the wait ends with the read timeout, exit 28.
        with pytest.raises(TransferTimeout, match=r"for 0\.3 seconds") as caught:
            await control.command(Command("RETR", "f"))
    assert caught.value.exit_code == 28


async def test_a_shorter_timeout_than_the_armed_one_still_holds(pair: Pair) -> None:
    control = pair.control
    pair.peer.sendall(b"220 hi\r\n")
    await control.read_reply()
    with using(Timeout(read=30.0)):  # a long wait first: the timer is armed for it
        async with anyio.create_task_group() as tg:
            tg.start_soon(control.command, Command("NOOP"))
            await _until(lambda: _received(pair.peer))
            pair.peer.sendall(b"200 ok\r\n")
    # The timer armed for 30 s must not be what ends a 0.2 s wait (10 s: a hang guard,
    # not a claim about speed).
    with (using(Timeout(read=0.2)), anyio.fail_after(10),
          pytest.raises(TransferTimeout, match=r"for 0\.2 seconds")):
        await control.command(Command("NOOP"))


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_timer_is_rearmed_for_a_later_wait(pair: Pair) -> None:
    """asyncio's one timer per connection: it fires at the deadline of the wait that
    armed it, and a later wait's deadline is further: it is re-armed, no timeout.

    The first wait's read timeout is short (0.5 s) and the NOOP's wide (10 s, which must
    not fire), so the first deadline passes while the NOOP waits, with no sleep to
    place it; the 200 is sent once the timer shows it was re-armed."""
    control = pair.control
    with using(Timeout(read=0.5)):
        async with anyio.create_task_group() as tg:
            tg.start_soon(control.read_reply)  # waits: the timer is armed for it
            await _until(lambda: control.reader.timer_deadline is not None)
            armed = control.reader.timer_deadline
            pair.peer.sendall(b"220 hi\r\n")
    with using(Timeout(read=10.0)), anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            tg.start_soon(control.command, Command("NOOP"))
            # The first deadline passes while the NOOP waits; its own is later.
            await _until(lambda: control.reader.timer_deadline not in (armed, None))
            rearmed = control.reader.timer_deadline
            assert armed is not None and rearmed is not None and rearmed > armed + 5
            pair.peer.sendall(b"200 ok\r\n")


def test_a_pooled_connection_is_read_from_the_next_event_loop() -> None:
    """A resolver may outlive ``anyio.run``: the connection's loop reader moves to the
    loop that waits on it next (the old one is closed)."""
    server = socket.create_server(("127.0.0.1", 0))

    async def connect() -> Control:
        stream = await connect_tcp("127.0.0.1", server.getsockname()[1], url=URL,
                                   read_timeout=20.0, what="the ftp control connection")
        return Control(stream, key_for(URL), URL)

    control = anyio.run(connect, backend="asyncio")
    peer, _ = server.accept()
    server.close()
    try:
        peer.sendall(b"220 hi\r\n")
        assert anyio.run(control.read_reply, backend="asyncio").code == 220

        async def noop() -> int:
            async with anyio.create_task_group() as tg:
                codes = []

                async def ask() -> None:
                    codes.append((await control.command(Command("NOOP"))).code)

                tg.start_soon(ask)
                await _until(lambda: control.reader.timer_deadline is not None)
                peer.sendall(b"200 ok\r\n")
            return codes[0]

        assert anyio.run(noop, backend="asyncio") == 200
        assert control.reader.on_loop
    finally:
        control.reader.close()
        peer.close()
        anyio.run(control.stream.aclose, backend="asyncio")


async def test_a_files_step_keeps_the_read_timeout_of_each_wait(pair: Pair) -> None:
    """Within ``reader.step()`` (one cancel scope for a file's waits on trio) each
    wait still has ``read_timeout`` from its start, and a stall is exit 28."""
    control = pair.control
    pair.peer.sendall(b"220 hi\r\n")
    await control.read_reply()
    # Wide margins (a loaded 2-core machine oversleeps): each wait takes 1.2 s of its
    # 2 s; one scope for both waits would run out 0.4 s into the second.
    with using(Timeout(read=2.0)), control.reader.step():
        async with anyio.create_task_group() as tg:
            tg.start_soon(control.command, Command("NOOP"))
            await _until(lambda: _received(pair.peer))
            await anyio.sleep(1.2)  # most of the first wait's time
            pair.peer.sendall(b"200 ok\r\n")
        # The second wait has its own 2 s, not what the first one left.
        async with anyio.create_task_group() as tg:
            tg.start_soon(control.command, Command("NOOP"))
            await _until(lambda: _received(pair.peer))
            await anyio.sleep(1.2)
            pair.peer.sendall(b"200 ok\r\n")
    # A stall: the step ends with the read timeout (on trio raised where it ends).
    with (using(Timeout(read=0.3)),
          pytest.raises(TransferTimeout, match=r"for 0\.3 seconds") as caught,
          control.reader.step()):
        await control.command(Command("NOOP"))
    assert caught.value.exit_code == 28


async def test_a_goodbye_in_a_files_step_is_not_charged_to_the_file(pair: Pair) -> None:
    """A QUIT said inside a file's step (a login that is not kept) waits for its 221
    under the goodbye's own bound: a 221 later than the read timeout must not expire
    the step (on trio its cancel scope would stay cancelled, and the next checkpoint in
    the step would end the file with exit 28)."""
    control = pair.control
    pair.peer.sendall(b"220 hi\r\n")
    await control.read_reply()
    quitted = threading.Event()

    def answer_late() -> None:
        pair.peer.settimeout(10)
        if pair.peer.recv(100) == b"QUIT\r\n":
            quitted.set()
            threading.Event().wait(0.9)  # three read timeouts
            pair.peer.sendall(b"221 bye\r\n")

    late = threading.Thread(target=answer_late)
    late.start()
    try:
        with using(Timeout(read=0.3)), control.reader.step():
            await control.goodbye()
            await anyio.sleep(0)  # a checkpoint still inside the step
    finally:
        late.join()
    assert quitted.is_set()
