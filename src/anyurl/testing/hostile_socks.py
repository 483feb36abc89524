"""SOCKS5 proxies on 127.0.0.1 that lie in their replies, for anyurl's SOCKS client.

A client that keeps anyurl's promises meets each :class:`Behaviour` with curl's exit
code 97 (``ProxyError``) and a message naming the proxy, never with a traceback, a hang
or bytes of the proxy's reply taken for the target's: a wrong version byte, a reply
that claims success in garbage, a close in the middle of the handshake, a method it was
not offered. One behaviour (``dribble``) is a good proxy that sends its replies a byte
at a time and then plays the target (a gopher server of one document), so that a client
reading past a reply, or expecting it whole, is caught too.

Use it from a test (any thread, any event loop: the server runs in threads of its own)::

    from anyurl.testing.hostile_socks import BEHAVIOURS, HostileSOCKSServer

    with HostileSOCKSServer(BEHAVIOURS["wrong-version"]) as proxy:
        run_client(proxy=proxy.url)

or from a shell: ``python -m anyurl.testing.hostile_socks garbage-success --port 1080``.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType

from anyurl.testing._server import ThreadedListener, serve_behaviour

__all__ = ["BEHAVIOURS", "DRIBBLE_BODY", "Behaviour", "HostileSOCKSServer", "main"]

#: What the ``dribble`` proxy, playing the target, sends after the request line.
DRIBBLE_BODY = b"through a proxy that answers a byte at a time\r\n"


@dataclass(frozen=True)
class Behaviour:
    """What the proxy answers to the greeting (``method``) and to ``CONNECT``
    (``connect``; None: it closes instead of answering), one byte at a time when
    ``dribble``; ``body`` after the tunnel opens (it then reads a line and sends it)."""

    name: str
    method: bytes
    connect: bytes | None
    description: str
    #: Words the client's message must contain (the tests check them).
    words: str = ""
    dribble: bool = False
    body: bytes = b""


SUCCESS = b"\x05\x00\x00\x01\x7f\x00\x00\x01\x04\x38"

BEHAVIOURS: dict[str, Behaviour] = {b.name: b for b in [
    Behaviour("wrong-version", b"\x04\x00", None,
              "answers the SOCKS5 greeting as a SOCKS4 proxy would", "version byte 4"),
    Behaviour("http-proxy", b"HTTP/1.1 400 Bad Request\r\n\r\n", None,
              "is an HTTP proxy", "version byte 72"),
    Behaviour("garbage-success", b"\x05\x00", b"\x05\x00\x00\x09garbage!",
              "claims success with an address type that does not exist",
              "claimed success in a malformed reply"),
    Behaviour("reserved-success", b"\x05\x00", b"\x05\x00\x07\x01\x7f\x00\x00\x01\x00\x50",
              "claims success with a reserved byte that is not 0",
              "claimed success in a malformed reply"),
    Behaviour("wrong-version-success", b"\x05\x00", b"\x04\x00\x00\x01\x7f\x00\x00\x01\x00\x50",
              "answers CONNECT with version byte 4", "version byte 4"),
    Behaviour("close-after-greeting", b"", None,
              "closes the connection once it has read the greeting",
              "closed the connection in the middle of the handshake"),
    Behaviour("close-mid-reply", b"\x05\x00", b"\x05\x00\x00\x01\x7f\x00",
              "sends half a success reply and closes",
              "closed the connection in the middle of the handshake"),
    Behaviour("unoffered-method", b"\x05\x02", None,
              "asks for a login it was not offered", "not offered"),
    Behaviour("refuse", b"\x05\x00", b"\x05\x05\x00\x01\x00\x00\x00\x00\x00\x00",
              "refuses the target (connection refused)", "connection refused"),
    Behaviour("dribble", b"\x05\x00", SUCCESS,
              "a good proxy that answers a byte at a time, then plays the target",
              dribble=True, body=DRIBBLE_BODY),
]}


class HostileSOCKSServer:
    """Serves one :class:`Behaviour` on TCP 127.0.0.1 in threads; a context manager.
    :attr:`received` holds what each connection sent, in order of connection."""

    def __init__(self, behaviour: Behaviour, *, host: str = "127.0.0.1", port: int = 0):
        self.behaviour = behaviour
        self.host = host
        self._listener = ThreadedListener(self._serve, host, port,
                                          name=f"hostile-socks-{behaviour.name}")
        self.port: int = self._listener.port
        self.received: list[bytes] = []
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        """The proxy as ``-x`` takes it."""
        return f"socks5h://{self.host}:{self.port}"

    def start(self) -> HostileSOCKSServer:
        """Start accepting connections."""
        self._listener.start()
        return self

    def _record(self, index: int, data: bytes) -> None:
        with self._lock:
            self.received[index] += data

    def _read(self, sock: socket.socket, index: int, done: int | None) -> bytes:
        """What the client sends until ``done`` bytes came (None: a line), or its close."""
        got = b""
        while not (len(got) >= done if done is not None else got.endswith(b"\n")):
            more = sock.recv(1 if done is None else done - len(got))
            if not more:
                break
            got += more
        self._record(index, got)
        return got

    def _send(self, sock: socket.socket, data: bytes) -> None:
        if not self.behaviour.dribble:
            sock.sendall(data)
            return
        for i in range(len(data)):
            sock.sendall(data[i:i + 1])
            time.sleep(0.002)  # a segment each, as a slow proxy would

    def _serve(self, sock: socket.socket) -> None:
        """The greeting, its answer, CONNECT, its answer, and the target's part."""
        with self._lock:
            index = len(self.received)
            self.received.append(b"")
        sock.settimeout(10)
        b = self.behaviour
        with sock:
            try:
                head = self._read(sock, index, 2)
                self._read(sock, index, head[1] if len(head) == 2 else 0)
                if not b.method:
                    return
                self._send(sock, b.method)
                if b.connect is None:
                    self._read(sock, index, 1)  # until the client gives up
                    return
                request = self._read(sock, index, 5)
                size = {1: 4 - 1, 4: 16 - 1, 3: request[4] if len(request) == 5 else 0}
                self._read(sock, index, size.get(request[3] if len(request) > 3 else 0, 0) + 2)
                self._send(sock, b.connect)
                if b.body:
                    self._read(sock, index, None)
                    sock.sendall(b.body)
            except OSError:
                return

    def close(self) -> None:
        """Stop accepting and end every connection."""
        self._listener.close()

    def __enter__(self) -> HostileSOCKSServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anyurl.testing.hostile_socks NAME [--host H] [--port N]``."""
    return serve_behaviour(
        "hostile_socks", __doc__, BEHAVIOURS,
        lambda behaviour, host, port: HostileSOCKSServer(behaviour, host=host, port=port),
        lambda server: server.url, argv)


if __name__ == "__main__":
    raise SystemExit(main())
