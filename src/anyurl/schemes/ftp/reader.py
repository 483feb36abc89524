"""The control connection's reader: its bytes into the core, one registration for its life.

Why: a small file's dialogue is four replies (213, 229, 150, 226), and a reply wait
through the transport (:meth:`~anyurl.net.transport.Stream.receive`) registers the
socket with the event loop, makes a future and a cancel scope for the read timeout,
and unregisters it again: on asyncio that was about a third of anyurl's CPU for a
1 KiB file (issue 21). A control connection is read for as long as it lives, so
:class:`ControlReader` keeps what it can:

* **On asyncio with a plain TCP socket** (``Stream.plain_socket``) the socket is
  registered once with ``loop.add_reader``; the loop calls :meth:`_readable` whenever
  bytes come, which receives them whole (up to :data:`RECEIVE_SIZE`)
  and feeds the sans-I/O core (:class:`~anyurl.protocols.ftp.FTPClient`, whose
  :class:`~anyurl.protocols.replies.ReplyReader` frames replies). A task that needs a
  reply receives first (bytes already in the socket, such as a 226 that came with the
  data's end, cost no wait) and only when that would block waits on one future; bytes
  that come while nobody waits (the 226 while the
  data connection is read, several replies in one segment) stay in the core and are
  never lost. The read timeout is one timer per connection, re-armed only when it
  fires: each wait merely notes its deadline, so a file's replies cost no timer, no
  cancel scope and no registration, and ``read_timeout`` still means what it meant,
  no byte for that long while a reply is awaited.
* **On trio**, which has no readiness callbacks, a file's dialogue runs in one
  :meth:`ControlReader.step`: one cancel scope whose deadline each reply wait sets
  (``read_timeout`` from the wait's start) and lifts again, with the socket received
  directly and ``trio.lowlevel.wait_readable`` between, instead of a cancel scope
  per wait; its expiry is the same ``TransferTimeout``, raised where the step ends.
* **Otherwise** (outside a step on trio, a TLS or tunnelled stream, an event loop
  without ``add_reader``) each wait is one ``Stream.receive``, as before: the
  transport's timeouts and error mapping apply unchanged.

Bounded either way: the core refuses a line over ``MAX_LINE`` and a reply over
``MAX_REPLY``; the loop reader stops reading (removes itself from the loop) when more
than :data:`PAUSE_AT` bytes wait in the core and nobody is waiting for a reply, and
starts again at the next wait, so a server that talks without end cannot make memory
grow while anyurl reads the data connection or keeps the connection idle in the pool.

Errors are the transport's: a reset is mapped by
:func:`~anyurl.net.transport.stream_error` (``ConnectionLost``), a timeout is
:meth:`~anyurl.net.transport.Stream.read_timed_out` (``TransferTimeout``, exit 28).
The reader is closed (:meth:`ControlReader.close`) before its stream is: a socket
closed while registered would leave the loop watching a number the next socket may
reuse.
"""

from __future__ import annotations

import asyncio
import math
import socket
from contextlib import AbstractContextManager, nullcontext
from types import TracebackType
from typing import Any, Protocol

import anyio

from anyurl.net.transport import Stream, on_asyncio, stream_error
from anyurl.protocols.ftp import FTPClient

__all__ = ["PAUSE_AT", "RECEIVE_SIZE", "ControlReader", "Receiving"]

#: The most bytes one receive on the control connection takes: replies are short, and
#: a reply split over receives is joined by the core.
RECEIVE_SIZE = 65536
#: Bytes the core may hold, nobody waiting for a reply, before the loop reader stops
#: reading until the next wait (a server that sends endless replies stays bounded).
PAUSE_AT = 64 * 1024
#: A timer that fires this close to its deadline counts as at the deadline (the loop
#: runs timers that are due within its clock's resolution).
_SLACK = 0.001


class Receiving(Protocol):
    """What the reader needs of a stream on the general path: a receive."""

    async def receive(self, max_bytes: int = 65536) -> bytes: ...


class ControlReader:
    """Moves a control connection's bytes into ``core``; :meth:`fill` waits for more.

    The asyncio path (a reader registered for the connection's life) is chosen at the
    first wait, when the running loop is known; see the module's docstring for why and
    for the general path.
    """

    def __init__(self, stream: Receiving, core: FTPClient):
        self.stream = stream
        self.core = core
        #: None: not decided yet; False: the general path; True: the loop reader.
        self._registered: bool | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sock: socket.socket | None = None
        self._fd = -1
        self._reading = False  # registered with the loop right now
        self._waiter: asyncio.Future[None] | None = None
        self._deadline: float | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0
        self._eof = False
        self._error: OSError | None = None
        #: trio: the cancel scope of the step running (:meth:`step`), else None.
        self._scope: Any = None

    @property
    def on_loop(self) -> bool:
        """Whether the loop reader is in use (asyncio, a plain socket), not a receive
        per wait; known after the first wait."""
        return bool(self._registered)

    @property
    def timer_deadline(self) -> float | None:
        """The loop time the read timeout's timer is armed for (None: not armed)."""
        return None if self._timer is None else self._timer_at

    # -- waiting -------------------------------------------------------------------------

    async def fill(self) -> None:
        """Give the core more bytes (or the end of the stream): what the socket has,
        else the next bytes the loop reader feeds, waiting for them.

        The caller asks the core first and calls this only for ``NEED_DATA`` (or with
        nothing buffered): bytes the loop reader fed while nobody waited are parsed
        without a call here."""
        if self._registered is None:
            self._registered = self._start()
        if not self._registered:
            if self._scope is not None and self._sock is not None:
                await self._fill_in_step(self._sock, self._scope)
            else:
                self.core.receive_data(await self.stream.receive(RECEIVE_SIZE))
            return
        if self._error is not None:
            raise self._mapped(self._error)
        if self._eof:
            return
        # Bytes already in the socket (a 226 that came with the data's end, before the
        # loop ran the callback) are taken now: a wait would cost two turns of the loop.
        sock = self._sock
        assert sock is not None
        try:
            data = sock.recv(RECEIVE_SIZE)
        except (BlockingIOError, InterruptedError):
            pass
        except OSError as exc:
            self._error = exc
            self._stop()
            raise self._mapped(exc) from exc
        else:
            self.core.receive_data(data)
            if not data:
                self._eof = True
                self._stop()
            return
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._move(loop)  # a pooled connection used from another loop (sync API)
        elif not self._reading:
            self._resume()
        waiter: asyncio.Future[None] = loop.create_future()
        self._waiter = waiter
        stream = self.stream
        assert isinstance(stream, Stream)
        timeout = stream.read_timeout
        if timeout is None:
            self._deadline = None
        else:
            deadline = self._deadline = loop.time() + timeout
            if self._timer is None or self._timer_at > deadline:
                self._arm(deadline)
        try:
            await waiter
        except TimeoutError:
            raise stream.read_timed_out() from None
        finally:
            self._waiter = None
        if self._error is not None:
            raise self._mapped(self._error)

    def step(self) -> AbstractContextManager[None]:
        """A context for one file's dialogue (SIZE, EPSV, RETR and, for a file read
        whole, its 226): on trio, one cancel scope for all its reply waits, whose
        deadline is set at each wait (``read_timeout`` from then, as before) and lifted
        after it, instead of a cancel scope per wait; elsewhere nothing (asyncio's
        waits share the connection's timer). Its expiry is the read timeout's
        :class:`~anyurl.errors.TransferTimeout`, raised where the step ends (inside it
        the wait is cancelled, as by any deadline: cleanup runs, nothing catches it)."""
        if self._registered or self._sock is None or self._scope is not None:
            return nullcontext()
        return _TrioStep(self)

    def leave_step(self) -> None:
        """Wait outside the running step from now on (a goodbye's shielded waits: a
        QUIT answered late must not expire the file's step once it is over)."""
        self._scope = None

    async def _fill_in_step(self, sock: socket.socket, scope: Any) -> None:
        """trio within :meth:`step`: receive what the socket has, else wait for it
        under the step's scope with this wait's deadline."""
        import trio

        stream = self.stream
        assert isinstance(stream, Stream)
        while True:
            try:
                data = sock.recv(RECEIVE_SIZE)
            except (BlockingIOError, InterruptedError):
                timeout = stream.read_timeout
                scope.deadline = math.inf if timeout is None else trio.current_time() + timeout
                try:
                    await trio.lowlevel.wait_readable(sock)
                except trio.ClosedResourceError as exc:
                    raise stream_error(anyio.ClosedResourceError(), stream.url, stream.what,
                                       "while receiving") from exc
                finally:
                    scope.deadline = math.inf
                continue
            except OSError as exc:
                raise self._mapped(exc) from exc
            self.core.receive_data(data)
            return

    def _mapped(self, exc: OSError) -> Exception:
        stream = self.stream
        assert isinstance(stream, Stream)
        return stream_error(exc, stream.url, stream.what, "while receiving")

    # -- the loop reader -----------------------------------------------------------------

    def _start(self) -> bool:
        """Register with the running asyncio loop when the stream is a plain socket."""
        stream = self.stream
        if not isinstance(stream, Stream):
            return False
        sock = stream.plain_socket
        if sock is None:
            return False
        if not on_asyncio():
            self._sock = sock  # trio: read directly within a step (see step())
            return False
        loop = asyncio.get_running_loop()
        try:
            loop.add_reader(sock.fileno(), self._readable)
        except NotImplementedError:  # a loop without readiness callbacks (proactor)
            return False
        self._loop, self._sock, self._fd, self._reading = loop, sock, sock.fileno(), True
        return True

    def _readable(self) -> None:
        """The loop's callback: the socket has bytes (or its end); into the core."""
        sock = self._sock
        if sock is None:  # pragma: no cover - registered only with a socket
            return
        try:
            data = sock.recv(RECEIVE_SIZE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            self._error = exc
            self._stop()
            self._wake()
            return
        self.core.receive_data(data)
        if not data:
            self._eof = True
            self._stop()
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
        elif self.core.buffered > PAUSE_AT and self._reading:
            self._stop()  # nobody reads: stop until the next wait

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _arm(self, deadline: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        assert self._loop is not None
        self._timer = self._loop.call_at(deadline, self._expire)
        self._timer_at = deadline

    def _expire(self) -> None:
        """The timer: time out a wait past its deadline, else re-arm for the wait's
        own deadline (or not at all when nobody waits)."""
        self._timer = None
        waiter, deadline = self._waiter, self._deadline
        if waiter is None or waiter.done() or deadline is None:
            return
        assert self._loop is not None
        if self._loop.time() >= deadline - _SLACK:
            waiter.set_exception(TimeoutError())
        else:
            self._arm(deadline)

    def _stop(self) -> None:
        if self._reading and self._loop is not None:
            self._loop.remove_reader(self._fd)
        self._reading = False

    def _resume(self) -> None:
        assert self._loop is not None
        self._loop.add_reader(self._fd, self._readable)
        self._reading = True

    def _move(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._loop is not None and not self._loop.is_closed():
            self._stop()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._reading = False
        self._loop = loop
        self._resume()

    def close(self) -> None:
        """Unregister from the loop and drop the timer; call before closing the stream."""
        if self._loop is not None and not self._loop.is_closed():
            self._stop()
        self._reading = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._registered = False  # a later wait is the stream's own (StreamClosed)


class _TrioStep:
    """:meth:`ControlReader.step` on trio: one cancel scope, its expiry the read timeout."""

    def __init__(self, reader: ControlReader):
        import trio

        self.reader = reader
        self.scope = trio.CancelScope()

    def __enter__(self) -> None:
        self.scope.__enter__()
        self.reader._scope = self.scope

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> bool:
        self.reader._scope = None
        handled = bool(self.scope.__exit__(kind, exc, tb))
        if self.scope.cancelled_caught:
            stream = self.reader.stream
            assert isinstance(stream, Stream)
            raise stream.read_timed_out()
        return handled
