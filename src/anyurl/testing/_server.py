"""What every loopback server shares, so that each module keeps only its protocol.

A server module of :mod:`anyurl.testing` has the same outer shapes as the others: a TCP
listener on anyio handing each connection to a handler (:func:`serve_tcp`, or
:func:`open_tcp` for a server built once its port is known); a session server counting
its connections (:class:`SessionServer`); the ways a test runs it, as a task in the
caller's event loop (:func:`open_task`) or in a thread of its own
(:func:`serving_in_thread`); a listener of threads for the servers that need no event loop
(:class:`ThreadedListener`); and ``python -m anyurl.testing.<module>`` with ``--host`` and
``--port`` (:func:`command_line`), serving until Ctrl-C (:func:`serve_until_interrupted`,
:func:`block_until_interrupted`) without a traceback. None of this touches what goes on
the wire: the bytes are the protocol modules' own.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import threading
import time
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Coroutine,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import (
    AbstractAsyncContextManager,
    AbstractContextManager,
    asynccontextmanager,
    contextmanager,
)
from typing import Any, Protocol, Self, TypeVar

import anyio
import anyio.abc
from anyio.from_thread import start_blocking_portal

__all__ = [
    "SessionServer",
    "ThreadedListener",
    "advertised",
    "background",
    "block_until_interrupted",
    "command_line",
    "listen",
    "open_task",
    "open_tcp",
    "serve_tcp",
    "serve_until_interrupted",
    "serving_in_thread",
]


class _Handles(Protocol):
    async def handle(self, stream: anyio.abc.SocketStream) -> None: ...


S = TypeVar("S")
H = TypeVar("H", bound=_Handles)


def advertised(host: str) -> str:
    """The address a server names itself by in what it sends (menus, docids, links):
    the one it listens on, or 127.0.0.1 when it listens on every address."""
    return "127.0.0.1" if host in ("0.0.0.0", "") else host


async def listen(host: str, port: int) -> tuple[anyio.abc.Listener[anyio.abc.SocketStream], int]:
    """A TCP listener on ``host:port`` (port 0: a free one), and the port it got."""
    listener = await anyio.create_tcp_listener(local_host=host, local_port=port)
    return listener, int(listener.extra(anyio.abc.SocketAttribute.local_port))


async def serve_tcp(
    handler: Callable[[anyio.abc.SocketStream], Awaitable[Any]],
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    task_status: anyio.abc.TaskStatus[int] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Listen on ``host:port`` (port 0: a free one) and run ``handler`` for each connection,
    each in a task of its own, until cancelled; ``task_status.started`` receives the port."""
    listener, bound = await listen(host, port)
    task_status.started(bound)
    await listener.serve(handler)


@asynccontextmanager
async def background(
    *tasks: Callable[[], Coroutine[Any, Any, Any]],
) -> AsyncIterator[anyio.abc.TaskGroup]:
    """Run ``tasks`` (and what is started in the yielded task group) until the block exits."""
    async with anyio.create_task_group() as tg:
        for task in tasks:
            tg.start_soon(task)
        try:
            yield tg
        finally:
            tg.cancel_scope.cancel()


@asynccontextmanager
async def open_task(serve: Callable[..., Coroutine[Any, Any, Any]],
                    *args: Any) -> AsyncIterator[int]:
    """Run ``serve(*args, task_status=...)`` in the caller's event loop until the block
    exits; yields the port it reported through ``task_status.started``."""
    async with background() as tg:
        yield int(await tg.start(serve, *args))


@asynccontextmanager
async def open_tcp(
    make: Callable[[str, int], H], host: str = "127.0.0.1", port: int = 0
) -> AsyncIterator[H]:
    """Listen on ``host:port``, build the server with ``make(advertised host, bound port)``
    (it names itself in what it sends) and serve its ``handle`` until the block exits."""
    listener, bound = await listen(host, port)
    server = make(advertised(host), bound)
    async with listener, background(lambda: listener.serve(server.handle)):
        yield server


@contextmanager
def serving_in_thread(
    serve: Callable[..., Awaitable[Any]], *args: Any, backend: str = "asyncio"
) -> Iterator[int]:
    """Start ``serve(*args, task_status=...)`` on an event loop in a new thread.

    Yields the port ``serve`` reported through ``task_status.started``; leaving the
    block cancels the server and joins its thread. The server runs on ``backend``
    whatever the caller's own event loop is (or without one), so a test on trio can
    use it as well as a synchronous test.
    """
    with start_blocking_portal(backend) as portal:
        future, port = portal.start_task(serve, *args)
        try:
            yield int(port)
        finally:
            future.cancel()


class SessionServer:
    """A TCP server that runs one session per connection (NNTP, SMTP, telnet).

    A subclass says what a session is (:meth:`session`); this class counts connections,
    closes each at the end of its session, ends it quietly when the client goes away,
    and knows its port once serving.
    """

    def __init__(self) -> None:
        self.connections = 0
        #: The bound port once :meth:`serve` has started (0 before).
        self.port = 0

    async def session(self, stream: anyio.abc.ByteStream) -> None:
        """Speak the protocol on one accepted connection (the subclass's part)."""
        raise NotImplementedError

    async def handle(self, stream: anyio.abc.ByteStream) -> None:
        """Run one session on an accepted connection, and close it."""
        self.connections += 1
        async with stream:
            try:
                await self.session(stream)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass

    async def serve(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        task_status: anyio.abc.TaskStatus[int] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """Serve until cancelled; ``task_status.started`` receives the bound port."""
        listener, self.port = await listen(host, port)
        task_status.started(self.port)
        await listener.serve(self.handle)

    @asynccontextmanager
    async def open(self, host: str = "127.0.0.1", port: int = 0) -> AsyncIterator[Self]:
        """This server serving in the caller's event loop until the block exits."""
        async with open_task(self.serve, host, port):
            yield self

    @contextmanager
    def running(self, host: str = "127.0.0.1", port: int = 0) -> Iterator[Self]:
        """This server in a thread of its own until the block exits (its port: :attr:`port`)."""
        with serving_in_thread(self.serve, host, port):
            yield self


class ThreadedListener:
    """A TCP listener on ``host:port`` that hands each connection to ``serve(sock)`` in a
    thread of its own: a server any test can use, on any event loop or none.

    ``serve`` owns the socket (it closes it, or leaves it to threads of its own); it
    should end once :attr:`stop` is set. Nothing is accepted before :meth:`start`.
    """

    def __init__(self, serve: Callable[[socket.socket], None], host: str = "127.0.0.1",
                 port: int = 0, *, name: str = "loopback") -> None:
        self._serve = serve
        self._listener = socket.create_server((host, port))
        self._listener.settimeout(0.2)
        #: The bound port.
        self.port: int = self._listener.getsockname()[1]
        #: Set when the server closes: a connection's ``serve`` should end.
        self.stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._acceptor = threading.Thread(target=self._accept, daemon=True, name=name)

    def start(self) -> None:
        """Start accepting connections."""
        self._acceptor.start()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                sock, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            t = threading.Thread(target=self._serve, args=(sock,), daemon=True)
            self._threads.append(t)
            t.start()

    def close(self, *, join: bool = True) -> None:
        """Stop accepting, set :attr:`stop` and (``join``) wait for the connections' threads."""
        self.stop.set()
        self._listener.close()
        if self._acceptor.is_alive():
            self._acceptor.join(5)
        for t in self._threads if join else ():
            t.join(5)


def command_line(module: str, doc: str | None, port: int, *,
                 backend: bool = True) -> argparse.ArgumentParser:
    """The parser of ``python -m anyurl.testing.<module>`` (``module`` with a dot is the
    whole dotted name: ``anyurl.schemes.<name>.hostile``): ``--host``, ``--port`` (default
    ``port``) and, for a server on anyio, ``--backend`` (default: ``$ANYURL_BACKEND`` or
    asyncio); described by the first paragraph of the module's docstring ``doc``."""
    dotted = module if "." in module else f"anyurl.testing.{module}"
    parser = argparse.ArgumentParser(prog=f"python -m {dotted}",
                                     description=doc.split("\n\n")[0] if doc else None)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=port)
    if backend:
        parser.add_argument("--backend", default=os.environ.get("ANYURL_BACKEND", "asyncio"),
                            choices=["asyncio", "trio"])
    return parser


def serve_until_interrupted(
    open_server: Callable[[], AbstractAsyncContextManager[S]],
    ready: Callable[[S], object] | None = None,
    *,
    backend: str = "asyncio",
) -> int:
    """Serve what ``open_server()`` opens on ``backend`` until Ctrl-C or SIGTERM ends the
    process, calling ``ready(server)`` once it listens; Ctrl-C ends it quietly (0).

    Ctrl-C is received as a signal, and the server closes as any context does: trio
    raises ``KeyboardInterrupt`` wherever the main task happens to be, and raised in a
    cancel scope's exit it left "cancel scope stack corrupted" tracebacks."""
    async def forever() -> None:
        with anyio.open_signal_receiver(signal.SIGINT) as signals:
            async with open_server() as server:
                if ready is not None:
                    ready(server)
                async for _ in signals:
                    return

    try:
        anyio.run(forever, backend=backend)
    except* KeyboardInterrupt:  # trio raises it inside the task groups' exception group
        pass
    return 0


def block_until_interrupted() -> int:
    """Wait while a server of threads serves, until Ctrl-C (then 0, quietly) or SIGTERM."""
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    return 0


_B = TypeVar("_B")
_H = TypeVar("_H")


def serve_behaviour(
    module: str,
    doc: str | None,
    behaviours: Mapping[str, _B],
    open_server: Callable[[_B, str, int], AbstractContextManager[_H]],
    url_of: Callable[[_H], str],
    argv: Sequence[str] | None = None,
) -> int:
    """``python -m MODULE NAME [--host H] [--port N]`` of a hostile server module
    (``MODULE`` as :func:`command_line` takes it): serve behaviour ``NAME`` of
    ``behaviours`` (``open_server(behaviour, host, port)``), print ``NAME: URL`` as its
    ready line, and end quietly on Ctrl-C, even one that comes before the wait began
    (just after the ready line)."""
    parser = command_line(module, doc, 0, backend=False)
    parser.add_argument("name", choices=sorted(behaviours))
    args = parser.parse_args(argv)
    try:
        with open_server(behaviours[args.name], args.host, args.port) as server:
            print(f"{args.name}: {url_of(server)}", flush=True)
            block_until_interrupted()
    except KeyboardInterrupt:
        pass
    return 0
