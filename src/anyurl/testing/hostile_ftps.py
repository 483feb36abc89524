"""FTP servers on 127.0.0.1 that fail a client's ``AUTH TLS`` (RFC 4217), and record
every command line they are sent.

A client that keeps anyurl's promises sends no ``USER`` (and so no password) to a server
that did not take it into TLS when TLS is required (``--ssl-reqd``): a refusal of
``AUTH TLS`` is curl's exit 64 (``TLSNotOffered``) before any login; a server that
accepts ``AUTH TLS`` and then sends something that is no TLS handshake (garbage, or its
close) is exit 35 (``TLSHandshakeFailed``), never a login in clear on a connection
whose bytes nobody can read any more. With ``--ssl`` (TLS if possible) a refusal is no
error: the login goes on in clear, as curl's does. :attr:`HostileFTPSServer.commands`
holds the lines each connection sent, so a test sees what crossed, and in what order.

Use it from a test (any thread, any event loop: the server runs in threads of its own)::

    from anyurl.testing.hostile_ftps import BEHAVIOURS, HostileFTPSServer

    with HostileFTPSServer(BEHAVIOURS["refuse-auth"]) as server:
        run_client(f"ftp://user:pw@127.0.0.1:{server.port}/f")
        assert server.commands[0] == ["AUTH TLS"]

or from a shell: ``python -m anyurl.testing.hostile_ftps garbage-after-auth --port 2121``.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType

from anyurl.testing._server import ThreadedListener, serve_behaviour

__all__ = ["BEHAVIOURS", "Behaviour", "HostileFTPSServer", "main"]


@dataclass(frozen=True)
class Behaviour:
    """What the server answers to ``AUTH TLS`` (``auth``), and what it sends after that
    answer instead of a TLS handshake (``after``; None: it waits for the next command,
    as a server that refused does; ``b""``: it closes)."""

    name: str
    auth: bytes
    after: bytes | None
    description: str
    #: The exit code a client requiring TLS must end with.
    exit_code: int


BEHAVIOURS: dict[str, Behaviour] = {b.name: b for b in [
    Behaviour("refuse-auth", b"534 Request denied for policy reasons.\r\n", None,
              "refuses AUTH TLS as a server without TLS does", 64),
    Behaviour("unknown-auth", b"500 Unknown command.\r\n", None,
              "knows no AUTH command at all (RFC 959 only)", 64),
    Behaviour("garbage-after-auth", b"234 Proceed with negotiation.\r\n",
              b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" * 4,
              "accepts AUTH TLS, then sends garbage instead of a TLS handshake", 35),
    Behaviour("close-after-auth", b"234 Proceed with negotiation.\r\n", b"",
              "accepts AUTH TLS, then closes instead of a TLS handshake", 35),
]}


class HostileFTPSServer:
    """Serves one :class:`Behaviour` on TCP 127.0.0.1 in threads; a context manager.
    :attr:`commands` holds the command lines each connection sent, in order of
    connection. A login is refused (530) whatever it is: nothing here serves files."""

    def __init__(self, behaviour: Behaviour, *, host: str = "127.0.0.1", port: int = 0):
        self.behaviour = behaviour
        self.host = host
        self._listener = ThreadedListener(self._serve, host, port,
                                          name=f"hostile-ftps-{behaviour.name}")
        self.port: int = self._listener.port
        self.commands: list[list[str]] = []
        #: Every byte each connection sent, to look for a password in.
        self.received: list[bytes] = []
        self._lock = threading.Lock()

    def start(self) -> HostileFTPSServer:
        """Start accepting connections."""
        self._listener.start()
        return self

    def _lines(self, sock: socket.socket, index: int) -> list[str]:
        """The next command lines (at least one), recorded; [] at the client's close."""
        data = b""
        while not data.endswith(b"\n"):
            more = sock.recv(4096)
            if not more:
                break
            data += more
        with self._lock:
            self.received[index] += data
            lines = [line.decode("latin-1").rstrip("\r") for line in data.split(b"\n")
                     if line.strip()]
            self.commands[index].extend(lines)
        return lines

    def _serve(self, sock: socket.socket) -> None:
        """The greeting, then each command's answer: AUTH as the behaviour says, a
        refused login, 221 to QUIT, 502 to anything else."""
        with self._lock:
            index = len(self.commands)
            self.commands.append([])
            self.received.append(b"")
        sock.settimeout(10)
        b = self.behaviour
        with sock:
            try:
                sock.sendall(b"220 hostile ftps server ready.\r\n")
                while lines := self._lines(sock, index):
                    for line in lines:
                        verb = line.split(" ", 1)[0].upper()
                        if verb == "AUTH":
                            sock.sendall(b.auth)
                            if b.after is not None:
                                sock.sendall(b.after)
                                return  # whatever the client does next, no TLS here
                        elif verb in ("USER", "PASS"):
                            sock.sendall(b"530 Login incorrect.\r\n")
                        elif verb == "QUIT":
                            sock.sendall(b"221 Goodbye.\r\n")
                            return
                        else:
                            sock.sendall(b"502 Command not implemented.\r\n")
            except OSError:
                return

    def close(self) -> None:
        """Stop accepting and end every connection."""
        self._listener.close()

    def __enter__(self) -> HostileFTPSServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anyurl.testing.hostile_ftps NAME [--host H] [--port N]``."""
    return serve_behaviour(
        "hostile_ftps", __doc__, BEHAVIOURS,
        lambda behaviour, host, port: HostileFTPSServer(behaviour, host=host, port=port),
        lambda server: f"ftp://{server.host}:{server.port}/", argv)


if __name__ == "__main__":
    raise SystemExit(main())
