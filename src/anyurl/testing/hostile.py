"""Misbehaving servers on 127.0.0.1, for testing a client's trust boundary.

Each :class:`Behaviour` is what a hostile or broken server does with one connection:
replies that never end, sizes that lie, a byte a second, a compression bomb, redirects
to a port of another protocol, escape sequences in its messages. A client that keeps
anyurl's promises answers each with a documented exit code, bounded memory, nothing
left under the final file name, and no raw control character on the terminal.

This module is the machinery every scheme's misbehaviours share (:class:`Peer`, the
connection and its budget; :class:`Behaviour`; :class:`HostileServer`, which serves
one). The behaviours themselves are each scheme's, in ``anyurl.schemes.<name>.hostile``
beside its handler (a plug-in scheme's likewise): its ``BEHAVIOURS`` are the trust
boundary's, its ``NUMBERS`` those whose numbers are not ASCII digits
(:mod:`anyurl.testing.hostile_numbers`). :data:`BEHAVIOURS` here gathers every known
scheme's, as the registry lists them, when first read.

Use it from a test (any thread, any event loop: the server runs in a thread of its
own)::

    from anyurl.testing.hostile import BEHAVIOURS, HostileServer

    with HostileServer(BEHAVIOURS["ftp-endless-reply"]) as server:
        run_client(f"ftp://127.0.0.1:{server.port}/file")

or from a shell: ``python -m anyurl.testing.hostile ftp-endless-reply --port 2121``.

Every behaviour stops when the client goes away or the server is closed, and sends at
most :data:`MAX_SEND` bytes, so a test that goes wrong cannot fill the machine.
"""

from __future__ import annotations

import importlib
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType

from anyurl.registry import specs
from anyurl.testing._server import ThreadedListener, serve_behaviour

__all__ = ["BEHAVIOURS", "ESCAPES", "EXTRA", "MAX_SEND", "Asked", "Behaviour",
           "HostileServer", "Peer", "gathered", "main", "repeat"]

#: The most bytes one connection sends, whatever the behaviour (1 GiB).
MAX_SEND = 1 << 30
#: An ESC [ ... sequence that would recolour a terminal, and one that sets its title.
ESCAPES = "\x1b[31;1mRED\x1b[0m \x1b]0;owned\x07"
#: The body of every answer nobody asked for (a pipeline's extra answer).
EXTRA = b"EXTRA, answering nothing"


class Peer:
    """One accepted connection, with a budget and a way to notice the end."""

    def __init__(self, sock: socket.socket, stop: threading.Event):
        self.sock = sock
        self.stop = stop
        self.sent = 0
        self._buffer = b""

    def send(self, data: bytes) -> bool:
        """Send ``data``; False once the client is gone, the budget spent or the server stopping."""
        if self.stop.is_set() or self.sent + len(data) > MAX_SEND:
            return False
        try:
            self.sock.sendall(data)
        except OSError:
            return False
        self.sent += len(data)
        return True

    @property
    def buffered(self) -> bytes:
        """What the client sent that :meth:`line` has not handed out yet (a pipelining
        client's next requests, when they came with this one)."""
        return self._buffer

    def stream(self, chunks: Iterator[bytes]) -> None:
        """Send each of ``chunks`` until one cannot be sent (see :meth:`send`)."""
        for chunk in chunks:
            if not self.send(chunk):
                return

    def line(self, timeout: float = 10.0) -> bytes | None:
        """The next line the client sends (without CRLF), or None at its end."""
        self.sock.settimeout(timeout)
        while b"\n" not in self._buffer:
            if self.stop.is_set():
                return None
            try:
                data = self.sock.recv(65536)
            except OSError:
                return None
            if not data:
                return None
            self._buffer += data
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.rstrip(b"\r")

    def request_head(self) -> list[bytes] | None:
        """An HTTP request's head lines, or None."""
        lines: list[bytes] = []
        while True:
            line = self.line()
            if line is None:
                return None
            if not line:
                return lines
            lines.append(line)

    def wait_closed(self, seconds: float = 10.0) -> None:
        """Keep the connection until the client closes it (or ``seconds`` pass)."""
        self.sock.settimeout(0.2)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not self.stop.is_set():
            try:
                if not self.sock.recv(65536):
                    return
            except TimeoutError:
                continue
            except OSError:
                return


@dataclass(frozen=True)
class Behaviour:
    """What the server does with each connection, and what the URL path should be."""

    name: str
    scheme: str
    run: Callable[[Peer], None]
    #: The URL path (after ``scheme://127.0.0.1:port``) that leads the client here.
    path: str = "/file"
    description: str = ""


def repeat(block: bytes) -> Iterator[bytes]:
    """``block`` for ever (a behaviour streams it until its budget or the client ends)."""
    while True:
        yield block


@dataclass
class Asked:
    """What a server was asked, over all its connections (thread-safe)."""

    connections: int = 0
    requests: list[bytes] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def connected(self) -> None:
        """A connection was accepted."""
        with self._lock:
            self.connections += 1

    def asked(self, what: bytes) -> None:
        """``what`` (a request's path, a command) was asked."""
        with self._lock:
            self.requests.append(what)


class HostileServer:
    """Serves one :class:`Behaviour` on 127.0.0.1 in a thread; a context manager."""

    def __init__(self, behaviour: Behaviour, *, host: str = "127.0.0.1", port: int = 0):
        self.behaviour = behaviour
        self._listener = ThreadedListener(self._serve, host, port,
                                          name=f"hostile-{behaviour.name}")
        self.host = host
        self.port: int = self._listener.port

    @property
    def url(self) -> str:
        """The URL that leads a client to this behaviour."""
        return f"{self.behaviour.scheme}://{self.host}:{self.port}{self.behaviour.path}"

    def start(self) -> HostileServer:
        """Start accepting connections."""
        self._listener.start()
        return self

    def _serve(self, sock: socket.socket) -> None:
        with sock:
            try:
                self.behaviour.run(Peer(sock, self._listener.stop))
            except OSError:
                pass

    def close(self) -> None:
        """Stop accepting and end every behaviour still running."""
        self._listener.close()

    def __enter__(self) -> HostileServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _gather(attribute: str) -> dict[str, Behaviour]:
    """Every known scheme's behaviours of ``attribute``, by name: each scheme's are in
    the ``hostile`` module beside its handler, found from the registry's descriptors so
    that a plug-in's are gathered as a built-in's are."""
    found: dict[str, Behaviour] = {}
    for spec in specs():
        handler = spec.handler
        where = handler.partition(":")[0] if isinstance(handler, str) else handler.__module__
        package = where.rpartition(".")[0]
        if not package:
            continue  # a handler in a top-level module: no package to hold its servers
        module = f"{package}.hostile"
        try:
            loaded = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name != module:
                raise
            continue
        behaviours: Mapping[str, object] = getattr(loaded, attribute, {})
        # a scheme's hostile module may hold servers of its own shape (WAIS's, over
        # its framing; Prospero's, over UDP): only a HostileServer's are gathered
        found.update({name: each for name, each in behaviours.items()
                      if isinstance(each, Behaviour)})
    return found


class _Gathered(Mapping[str, Behaviour]):
    """Every scheme's behaviours of one attribute, gathered when first read: the
    schemes' modules import this one, so they cannot be gathered at its import."""

    def __init__(self, attribute: str):
        self._attribute = attribute
        self._found: dict[str, Behaviour] | None = None

    def _all(self) -> dict[str, Behaviour]:
        if self._found is None:
            self._found = _gather(self._attribute)
        return self._found

    def __getitem__(self, name: str) -> Behaviour:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


def gathered(attribute: str) -> Mapping[str, Behaviour]:
    """Every known scheme's behaviours of ``attribute`` (``BEHAVIOURS``, ``NUMBERS``) by
    name, gathered when first read."""
    return _Gathered(attribute)


#: Every known scheme's trust-boundary behaviours, by name.
BEHAVIOURS: Mapping[str, Behaviour] = gathered("BEHAVIOURS")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anyurl.testing.hostile NAME [--host H] [--port N]``."""
    return serve_behaviour(
        "hostile", __doc__, BEHAVIOURS,
        lambda behaviour, host, port: HostileServer(behaviour, host=host, port=port),
        lambda server: server.url, argv)


if __name__ == "__main__":
    # run as the module the schemes' behaviours import, so that theirs are its Behaviour
    from anyurl.testing import hostile

    raise SystemExit(hostile.main())
