"""A hostile ARDP server on 127.0.0.1: it asks the client to wait, again and again.

ARDP (the datagram layer under Prospero, :mod:`anyurl.protocols.ardp`) lets a busy server
tell the client "wait N seconds before you retransmit"; a wait also gives the client its
retries back. The client caps each wait at its read timeout, but a server may simply ask
again: one that answers every retransmission with a wait, or repeats the wait on its own
before the client's timer runs out, would hold a request for ever unless the request's
waits share one deadline. Each :class:`Behaviour` here is one such server; none ever
sends a reply. A client that keeps anyurl's promises gives up with exit 28 once its read
timeout has passed since the first wait, after a bounded number of retransmissions.

Use it from a test (any thread, any event loop: the server runs in a thread of its
own)::

    from anyurl.schemes.prospero.hostile import BEHAVIOURS, HostileARDPServer

    with HostileARDPServer(BEHAVIOURS["wait-each-time"]) as server:
        run_client(server.url("/x"))
        assert server.requests <= 3

or from a shell: ``python -m anyurl.schemes.prospero.hostile wait-each-time --port 1525``.

Every behaviour sends at most :data:`MAX_PACKETS` datagrams to a client and stops when the
server is closed, so a test that goes wrong cannot flood the machine.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType

from anyurl.protocols.ardp import ARDPReplyError, build_header, parse_packet
from anyurl.testing._server import serve_behaviour

__all__ = ["BEHAVIOURS", "MAX_PACKETS", "Behaviour", "HostileARDPServer", "main"]

#: The most datagrams the server sends, whatever the behaviour.
MAX_PACKETS = 10_000
#: The longest wait an ARDP header can carry (18 hours).
LONGEST_WAIT = 65535


@dataclass(frozen=True)
class Behaviour:
    """What the server answers to each request datagram: a control packet asking for
    ``wait`` seconds, then the same again every ``repeat`` seconds (None: only once)."""

    name: str
    wait: int
    repeat: float | None
    description: str


BEHAVIOURS: dict[str, Behaviour] = {b.name: b for b in [
    Behaviour("wait-each-time", LONGEST_WAIT, None,
              "every request datagram (a retransmission too) is answered at once with "
              "'wait 65535', and never a reply"),
    Behaviour("go-on-each-time", 0, None,
              "every request datagram is answered with 'wait 0' (back to your own timer), "
              "which gives the client its retries back, and never a reply"),
    Behaviour("nag", LONGEST_WAIT, 0.1,
              "'wait 65535' after each request datagram and again every 0.1 s, so the "
              "client's timer never runs out, and never a reply"),
]}


class HostileARDPServer:
    """Serves one :class:`Behaviour` on a UDP port of 127.0.0.1 in a thread; a context
    manager. :attr:`requests` counts the request datagrams received (the first
    transmission and every retransmission), :attr:`sent` the datagrams sent."""

    def __init__(self, behaviour: Behaviour, *, host: str = "127.0.0.1", port: int = 0):
        self.behaviour = behaviour
        self.host = host
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._sock.bind((host, port))
        self._sock.settimeout(0.05)
        self.port: int = self._sock.getsockname()[1]
        self.requests = 0
        self.sent = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    def url(self, hsoname: str = "/x") -> str:
        """A URL of this server (any name: the server never looks at the request)."""
        return f"prospero://{self.host}:{self.port}{hsoname}"

    def start(self) -> HostileARDPServer:
        """Start answering datagrams."""
        self._spawn(self._serve)
        return self

    def _spawn(self, target: Callable[..., None], *args: object) -> None:
        thread = threading.Thread(target=target, args=args,
                                  name=f"hostile-ardp-{self.behaviour.name}", daemon=True)
        self._threads.append(thread)
        thread.start()

    def _serve(self) -> None:
        """Read request datagrams; answer each as the behaviour says."""
        while not self._stop.is_set():
            try:
                data, address = self._sock.recvfrom(65536)
            except TimeoutError:
                continue
            except OSError:
                return
            try:
                header, _ = parse_packet(data)
            except ARDPReplyError:
                continue
            if header.seq == 0:  # an acknowledgement of ours: there are none to ack
                continue
            with self._lock:
                self.requests += 1
            wait = build_header(cid=header.cid, seq=0, total=0,
                                received_through=header.total, wait=self.behaviour.wait)
            if not self._send(wait, address):
                return
            if self.behaviour.repeat is not None and self.requests == 1:
                self._spawn(self._nag, wait, address)

    def _nag(self, wait: bytes, address: tuple[str, int]) -> None:
        """Send ``wait`` again every :attr:`Behaviour.repeat` seconds until stopped."""
        assert self.behaviour.repeat is not None
        while not self._stop.wait(self.behaviour.repeat):
            if not self._send(wait, address):
                return

    def _send(self, datagram: bytes, address: tuple[str, int]) -> bool:
        """Send one datagram; False once the budget is spent or the socket closed."""
        with self._lock:
            if self.sent >= MAX_PACKETS or self._stop.is_set():
                return False
            self.sent += 1
        try:
            self._sock.sendto(datagram, address)
        except OSError:
            return False
        return True

    def close(self) -> None:
        """Stop every behaviour and close the socket."""
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=5)
        self._sock.close()

    def __enter__(self) -> HostileARDPServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anyurl.schemes.prospero.hostile NAME [--host H] [--port N]``."""
    return serve_behaviour(
        "anyurl.schemes.prospero.hostile", __doc__, BEHAVIOURS,
        lambda behaviour, host, port: HostileARDPServer(behaviour, host=host, port=port),
        lambda server: server.url(), argv)


if __name__ == "__main__":
    raise SystemExit(main())
