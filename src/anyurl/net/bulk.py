"""Moving a raw body from a socket to a file descriptor without copying it through Python.

A body that needs no decoding (HTTP with a Content-Length and no content coding, FTP
data in image type) is, after its head, just bytes on a socket that belong in a file or
a pipe. Read into Python, every chunk becomes a new ``bytes`` object, is copied into the
write buffer and written again: about three times curl's CPU per byte. Here the kernel
moves it: ``os.splice`` from the socket into a pipe and from the pipe into the target
(Linux), so no byte is copied into user space. Where ``splice`` is missing or the target
refuses it (a terminal), the bytes go through one reused buffer (``recv_into``) instead,
still without a new object per chunk.

The splices run in a worker thread, in slices of at most :data:`SLICE` seconds
(``poll`` and ``splice`` in a loop there cost a few microseconds a chunk; one event-loop
wake-up per burst of segments cost tens, and showed as twice curl's CPU). Between slices
the event loop runs: progress is reported to a callback (where stall timers are
touched), cancellation and ``--max-time`` take effect within a slice, and the stream's
read timeout is checked. The portable copy path waits on the event loop instead
(anyio's ``wait_readable``) and yields once per :data:`YIELD_EVERY` bytes.

A handler offers such a body as a :class:`RawBody` on its
:class:`~anyurl.resource.Resource`; :meth:`Resource.copy_to` is the consumer's side.
"""

from __future__ import annotations

import errno
import fcntl
import os
import select
import socket
import stat
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import anyio
import anyio.lowlevel
import anyio.to_thread

from anyurl.net.transport import Stream, stream_error

__all__ = ["CHUNK", "RawBody", "move"]

#: Bytes asked of one splice: as large as the pipe between socket and target.
CHUNK = 1 << 20
#: A move yields to other tasks at least this often (bytes), as stream reads do.
YIELD_EVERY = 4 << 20
_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
_F_GETPIPE_SZ = getattr(fcntl, "F_GETPIPE_SZ", 1032)


@dataclass
class RawBody:
    """The rest of a body that needs no decoding, offered for a kernel-side move.

    ``prefix`` is what the handler had already read past the head (written first);
    ``remaining`` the bytes after it on the stream (None: until the peer closes).
    ``finish(moved)`` does the protocol's bookkeeping once every byte has moved (release
    the keep-alive connection, read FTP's final reply); it is not called when the move
    fails, and the resource's close then cleans up as it does after an abandoned read.
    """

    stream: Stream
    prefix: bytes
    remaining: int | None
    finish: Callable[[int], Awaitable[None]]


async def move(
    stream: Stream,
    fd: int,
    count: int | None,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Move ``count`` bytes (None: until the peer closes) from ``stream`` to ``fd``.

    Returns the bytes moved, fewer than ``count`` when the peer closed early (the
    caller decides whether that is a short transfer). Errors of the target are OSError
    (the caller's write error); errors of the socket are anyurl's network errors.
    """
    sock = stream.plain_socket
    if sock is None:
        raise ValueError("the stream has no plain socket to move bytes from")
    if hasattr(os, "splice"):
        try:
            return await _splice(stream, sock, fd, count, progress)
        except _NoSplice as exc:
            return exc.moved + await _copy(
                stream, sock, fd, None if count is None else count - exc.moved, progress,
                exc.moved)
    return await _copy(stream, sock, fd, count, progress, 0)


class _NoSplice(Exception):
    """The target refused splice before anything was lost: copy the rest instead."""

    def __init__(self, moved: int):
        self.moved = moved


async def _wait(stream: Stream, sock: socket.socket) -> None:
    try:
        if stream.read_timeout is None:
            await anyio.wait_readable(sock)
        else:
            with anyio.fail_after(stream.read_timeout):
                await anyio.wait_readable(sock)
    except TimeoutError:
        raise stream.read_timed_out() from None


async def _wait_writable(fd: int) -> None:
    await anyio.wait_writable(fd)


async def _splice(
    stream: Stream, sock: socket.socket, fd: int, count: int | None,
    progress: Callable[[int], None] | None,
) -> int:
    """The kernel's move, pumped by a worker thread in slices of at most :data:`SLICE`
    seconds: a loop of ``poll`` and ``splice`` there costs a few microseconds a chunk,
    where waiting on the event loop cost tens (one wake-up per burst of segments).
    Between slices the event loop runs: progress is reported, cancellation and
    ``--max-time`` take effect, the read timeout is checked."""
    read_end, write_end = os.pipe()
    pump = _Pump(sock, read_end, write_end, fd)
    try:
        try:
            fcntl.fcntl(write_end, _F_SETPIPE_SZ, CHUNK)
        except OSError:
            pass  # the default 64 KiB pipe: more calls, same result
        _widen_if_a_pipe(fd)
        quiet_since = anyio.current_time()
        while True:
            await anyio.lowlevel.checkpoint_if_cancelled()
            limit = None if count is None else count - pump.taken
            before = pump.delivered
            try:
                await anyio.to_thread.run_sync(pump.run, limit)
            except _SourceError as exc:
                raise stream_error(exc.error, stream.url, stream.what,
                                   "while receiving") from exc.error
            if pump.delivered != before:
                quiet_since = anyio.current_time()
                if progress is not None:
                    progress(pump.delivered)
            elif (stream.read_timeout is not None and not pump.in_pipe
                  and anyio.current_time() - quiet_since >= stream.read_timeout):
                raise stream.read_timed_out()
            done = pump.eof or (count is not None and pump.taken >= count)
            if done and not pump.in_pipe:
                return pump.delivered
    finally:
        os.close(read_end)
        os.close(write_end)
        pump.lowat_to(1)  # a kept-alive connection reads its next head as before


def _widen_if_a_pipe(fd: int) -> None:
    """A target that is itself a pipe (``anyurl URL | tool``) takes at most its size per
    splice: 64 KiB by default, 16 calls a MiB. Grown to :data:`CHUNK` where the system
    allows it (``/proc/sys/fs/pipe-max-size``; never shrunk), it takes a MiB a call, as
    the pipe between socket and target does. The reader of the pipe sees the same bytes
    in the same order; only its buffer is larger."""
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return
        if fcntl.fcntl(fd, _F_GETPIPE_SZ) < CHUNK:
            fcntl.fcntl(fd, _F_SETPIPE_SZ, CHUNK)
    except OSError:
        pass  # not allowed (pipe-max-size, an unprivileged user's pipe budget): as it was


#: Seconds one pump call may run before it hands back to the event loop.
SLICE = 0.1
#: Bytes one pump call may deliver before it hands back, so that progress is reported
#: at a steady rate on a fast link too (a loopback moves 8 MiB within one slice): every
#: :data:`SLICE` seconds or this many bytes, whichever comes first. A hand-back costs a
#: thread hop (tens of microseconds), a few hundred a GiB at this size.
REPORT_EVERY = 4 << 20
#: Empty reads retried after a yield of the CPU before the pump waits in ``poll``.
SPINS = 8
#: The pump is woken when this much has arrived (``SO_RCVLOWAT``), or the rest of the
#: body, or the close: one wake-up per 64 KiB rather than per segment burst measured
#: about half the wall time on loopback (nginx, vsftpd). A sender that trickles (gopher
#: through socat, 8 KiB writes) made each wait long and the transfer 30 % slower: the
#: mark is halved, down to :data:`MIN_LOWAT`, whenever a wait takes longer than
#: :data:`SLOW_WAIT` seconds (measured on loopback: waits for nginx and vsftpd stay
#: under it, those for gophernicus pass it).
LOWAT = 64 << 10
MIN_LOWAT = 8 << 10
SLOW_WAIT = 0.00015


class _SourceError(Exception):
    """An error of the socket side, to be reported as the network's."""

    def __init__(self, error: OSError):
        self.error = error


class _Pump:
    """The worker thread's side of a move: socket -> pipe -> target, non-blocking, with
    ``poll`` for the waits, for at most :data:`SLICE` seconds a call. Its counters are
    read by the event loop between calls (never during one)."""

    def __init__(self, sock: socket.socket, read_end: int, write_end: int, target: int):
        self.sock = sock
        self.source, self.read_end, self.write_end, self.target = (
            sock.fileno(), read_end, write_end, target)
        self.lowat = 1
        self.cap = LOWAT
        self.taken = 0  # bytes spliced from the socket
        self.delivered = 0  # bytes spliced into the target
        self.in_pipe = 0
        self.eof = False

    def lowat_to(self, size: int) -> None:
        """Set ``SO_RCVLOWAT`` (readable once ``size`` bytes are queued)."""
        if size != self.lowat:
            try:
                self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT, size)
            except OSError:
                return  # not settable here: woken per segment, as without it
            self.lowat = size

    def run(self, limit: int | None) -> None:
        end = time.monotonic() + SLICE
        report_at = self.delivered + REPORT_EVERY
        flags = os.SPLICE_F_MOVE | os.SPLICE_F_NONBLOCK
        wait_in = select.poll()
        wait_in.register(self.source, select.POLLIN)
        wait_out = select.poll()
        wait_out.register(self.target, select.POLLOUT)
        spins = 0
        while True:
            if self.in_pipe:
                try:
                    n = os.splice(self.read_end, self.target, self.in_pipe, flags=flags)
                except BlockingIOError:  # a pipe whose reader is slower
                    if not wait_out.poll(max(0.0, end - time.monotonic()) * 1000):
                        return
                    continue
                except OSError as exc:
                    if (exc.errno in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP)
                            and not self.delivered):
                        # The target takes no splice (a terminal): hand over what sits
                        # in the pipe by read/write; the rest is copied.
                        _drain(self.read_end, self.target, self.in_pipe)
                        raise _NoSplice(self.in_pipe) from None
                    raise
                self.in_pipe -= n
                self.delivered += n
                continue
            if (self.eof or (limit is not None and limit <= 0) or time.monotonic() >= end
                    or self.delivered >= report_at):
                return
            want = CHUNK if limit is None else min(CHUNK, limit)
            try:
                n = os.splice(self.source, self.write_end, want, flags=flags)
            except BlockingIOError:
                if spins < SPINS:
                    # The sender is refilling the socket: giving up the CPU for a moment
                    # finds the next bytes sooner than a wait (a sleep and a wake-up each).
                    spins += 1
                    os.sched_yield()
                    continue
                spins = 0
                self.lowat_to(self.cap if limit is None else max(1, min(self.cap, limit)))
                started = time.monotonic()
                ready = wait_in.poll(max(0.0, end - started) * 1000)
                if time.monotonic() - started > SLOW_WAIT and self.cap > MIN_LOWAT:
                    self.cap //= 2  # a slow sender: wake up for less
                if not ready:
                    return  # nothing for this slice: back to the event loop
                continue
            except OSError as exc:
                raise _SourceError(exc) from exc
            spins = 0
            if n == 0:
                self.eof = True
                return
            self.taken += n
            self.in_pipe += n
            if limit is not None:
                limit -= n


def _drain(read_end: int, fd: int, left: int) -> None:
    while left:
        data = os.read(read_end, left)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        left -= len(data)


async def _copy(
    stream: Stream, sock: socket.socket, fd: int, count: int | None,
    progress: Callable[[int], None] | None, before: int,
) -> int:
    """The portable move: ``recv_into`` one reused buffer, ``write`` it out."""
    buffer = bytearray(min(CHUNK, count) if count else CHUNK)
    view = memoryview(buffer)
    moved = unyielded = 0
    while count is None or moved < count:
        await anyio.lowlevel.checkpoint_if_cancelled()
        want = len(buffer) if count is None else min(len(buffer), count - moved)
        try:
            n = sock.recv_into(view[:want])
        except BlockingIOError:
            await _wait(stream, sock)
            unyielded = 0
            continue
        except OSError as exc:
            raise stream_error(exc, stream.url, stream.what, "while receiving") from exc
        if n == 0:
            break
        out = view[:n]
        while out:
            try:
                out = out[os.write(fd, out):]
            except BlockingIOError:
                await _wait_writable(fd)
        moved += n
        unyielded += n
        if progress is not None:
            progress(before + moved)
        if unyielded >= YIELD_EVERY:
            unyielded = 0
            await anyio.lowlevel.cancel_shielded_checkpoint()
    return moved
