"""Servers on 127.0.0.1 that a WAIS client meets but that do not speak WAIS back.

WAIS is Z39.50-1988 with Thinking Machines' framing (:mod:`anyurl.protocols.wais`). The
Z39.50 servers of today (yaz, Z39.50-1995, BER) read its 25-octet header as the start of
a long BER message and wait for the rest, so its Init is never answered; other servers
on port 210 say a few octets of their own and wait. Each :class:`Behaviour` here is one
of those: a client that keeps anyurl's promises says within its Init deadline that the
server may not speak WAIS, and recognises a short answer that is no WAIS header at once.

Use it from a test (any thread, any event loop: the server runs in threads of its own)::

    from anyurl.schemes.wais.hostile import BEHAVIOURS, HostileWAISServer

    with HostileWAISServer(BEHAVIOURS["silent"]) as server:
        run_client(server.url("db"))

or from a shell: ``python -m anyurl.schemes.wais.hostile silent --port 2100``.

Every connection is held until the client closes it or the server is closed.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType

from anyurl.testing._server import ThreadedListener, serve_behaviour

__all__ = ["BEHAVIOURS", "Behaviour", "HostileWAISServer", "main"]


@dataclass(frozen=True)
class Behaviour:
    """What the server sends once the client's first octets came (``answer``; empty:
    nothing), before it waits for the client to go away."""

    name: str
    answer: bytes
    description: str


BEHAVIOURS: dict[str, Behaviour] = {b.name: b for b in [
    Behaviour("silent", b"",
              "reads the Init and never answers, as a Z39.50-1995 server (yaz) does"),
    Behaviour("short-junk", b"\xb5\x06\x80\x01\x00\x81\x01\x00",
              "answers 8 octets of BER (no WAIS header) and waits"),
    Behaviour("short-zero-junk", b"0\x06\x02\x01\x03\xb5\x01\x00",
              "answers 8 octets that start with '0', as a WAIS header does, and then "
              "are none, and waits"),
]}


class HostileWAISServer:
    """Serves one :class:`Behaviour` on TCP 127.0.0.1 in threads; a context manager.
    :attr:`received` holds what each connection sent, in order of connection."""

    def __init__(self, behaviour: Behaviour, *, host: str = "127.0.0.1", port: int = 0):
        self.behaviour = behaviour
        self.host = host
        self._listener = ThreadedListener(self._serve, host, port,
                                          name=f"hostile-wais-{behaviour.name}")
        self.port: int = self._listener.port
        self.received: list[bytes] = []
        self._lock = threading.Lock()

    def url(self, path: str = "db") -> str:
        """A URL of this server (``path``: the database and what follows)."""
        return f"wais://{self.host}:{self.port}/{path}"

    def start(self) -> HostileWAISServer:
        """Start accepting connections."""
        self._listener.start()
        return self

    def _serve(self, sock: socket.socket) -> None:
        """Read until the client's first octets, answer, then hold the connection."""
        with self._lock:
            index = len(self.received)
            self.received.append(b"")
        sock.settimeout(0.1)
        answered = False
        with sock:
            while not self._listener.stop.is_set():
                try:
                    data = sock.recv(65536)
                except TimeoutError:
                    continue
                except OSError:
                    return
                if not data:
                    return
                with self._lock:
                    self.received[index] += data
                if not answered and self.behaviour.answer:
                    try:
                        sock.sendall(self.behaviour.answer)
                    except OSError:
                        return
                answered = True

    def close(self) -> None:
        """Stop accepting and end every connection."""
        self._listener.close()

    def __enter__(self) -> HostileWAISServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anyurl.schemes.wais.hostile NAME [--host H] [--port N]``."""
    return serve_behaviour(
        "anyurl.schemes.wais.hostile", __doc__, BEHAVIOURS,
        lambda behaviour, host, port: HostileWAISServer(behaviour, host=host, port=port),
        lambda server: server.url(), argv)


if __name__ == "__main__":
    raise SystemExit(main())
