"""A small HTTP gateway on 127.0.0.1 for tests of RFC 1738 section 4's indirect access.

It answers absolute-URL requests itself (``GET wais://host:210/db?query HTTP/1.1``) with a
body naming what it fetched, and records each request line and its headers, so a test can
assert exactly what a client sent for any scheme; for ``CONNECT host:port`` it opens the
tunnel and relays bytes, so a scheme's own handler runs through it. A target containing
``missing`` gets a 404. Threads, not an event loop: one instance serves tests on asyncio
and trio alike. ``python -m anyurl.schemes.http.gateway --port N`` runs it standalone.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from anyurl.numbers import ascii_int
from anyurl.testing._server import ThreadedListener, block_until_interrupted, command_line

__all__ = ["Gateway", "Seen"]


@dataclass
class Seen:
    """One request the gateway received: its request line and its headers."""

    line: str
    headers: dict[str, str]


class Gateway:
    """An HTTP gateway on 127.0.0.1: answers ``GET scheme://...`` itself, relays ``CONNECT``.

    ``refuse`` maps a CONNECT authority to a status line to answer instead of tunnelling;
    ``login`` (a ``Proxy-Authorization`` value) makes every request without it get 407.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.seen: list[Seen] = []
        self.refuse: dict[str, str] = {}
        self.login: str | None = None
        self._listener = ThreadedListener(self._serve, host, port, name="gateway")
        self.port = self._listener.port
        self._listener.start()

    @property
    def url(self) -> str:
        """The gateway's own URL, to give as ``<scheme>_proxy``."""
        return f"http://127.0.0.1:{self.port}/"

    def _serve(self, conn: socket.socket) -> None:
        buffer = b""
        while True:
            while b"\r\n\r\n" not in buffer:
                more = conn.recv(65536)
                if not more:
                    conn.close()
                    return
                buffer += more
            head, buffer = buffer.split(b"\r\n\r\n", 1)
            lines = head.decode("latin-1").split("\r\n")
            headers: dict[str, str] = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            self.seen.append(Seen(lines[0], headers))
            method, target, _ = lines[0].split(" ")
            if self.login and headers.get("proxy-authorization") != self.login:
                conn.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                             b"Proxy-Authenticate: Basic realm=gw\r\nContent-Length: 0\r\n\r\n")
                continue
            if method == "CONNECT":
                self._tunnel(conn, target, buffer)
                return
            if "missing" in target:
                body = b"the gateway found nothing"
                conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: %d\r\n\r\n%s"
                             % (len(body), body))
                continue
            body = f"gateway fetched {target}".encode()
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                         b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def _tunnel(self, conn: socket.socket, authority: str, early: bytes) -> None:
        if authority in self.refuse:
            conn.sendall(f"HTTP/1.1 {self.refuse[authority]}\r\nContent-Length: 0\r\n\r\n"
                         .encode())
            conn.close()
            return
        host, _, port = authority.rpartition(":")
        try:
            number = ascii_int(port, max_digits=5)
            if number is None:
                raise OSError(f"no port in {authority!r}")
            upstream = socket.create_connection((host.strip("[]"), number), timeout=10)
        except OSError:
            conn.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            conn.close()
            return
        # The reply and the first bytes of the tunnelled protocol in one segment, as
        # proxies do: the client must not lose the latter.
        first = b""
        upstream.settimeout(0.5)
        try:
            first = upstream.recv(65536)
        except OSError:
            pass
        upstream.settimeout(None)
        conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n" + first)
        if early:
            upstream.sendall(early)

        def pump(src: socket.socket, dst: socket.socket) -> None:
            try:
                while data := src.recv(65536):
                    dst.sendall(data)
                dst.shutdown(socket.SHUT_WR)
            except OSError:
                pass

        threading.Thread(target=pump, args=(upstream, conn), daemon=True).start()
        pump(conn, upstream)

    def close(self) -> None:
        """Stop accepting connections (those already relayed run on)."""
        self._listener.close(join=False)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anyurl.schemes.http.gateway``: serve until interrupted."""
    args = command_line("anyurl.schemes.http.gateway", __doc__, 8001,
                        backend=False).parse_args(argv)
    gateway = Gateway(args.host, args.port)
    try:
        return block_until_interrupted()
    finally:
        gateway.close()


if __name__ == "__main__":
    raise SystemExit(main())
