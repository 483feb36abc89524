"""Misbehaving servers on 127.0.0.1, for testing a client's trust boundary.

Each :class:`Behaviour` is what a hostile or broken server does with one connection:
replies that never end, sizes that lie, a byte a second, a compression bomb, redirects
to a port of another protocol, escape sequences in its messages. A client that keeps
anyurl's promises answers each with a documented exit code, bounded memory, nothing
left under the final file name, and no raw control character on the terminal.

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

import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from types import TracebackType

from anyurl.testing._server import ThreadedListener, serve_behaviour

__all__ = ["BEHAVIOURS", "MAX_SEND", "Behaviour", "CrossOriginRedirect", "HostileServer",
           "main"]

#: The most bytes one connection sends, whatever the behaviour (1 GiB).
MAX_SEND = 1 << 30
#: An ESC [ ... sequence that would recolour a terminal, and one that sets its title.
ESCAPES = "\x1b[31;1mRED\x1b[0m \x1b]0;owned\x07"


class _Peer:
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

    def stream(self, chunks: Iterator[bytes]) -> None:
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
    run: Callable[[_Peer], None]
    #: The URL path (after ``scheme://127.0.0.1:port``) that leads the client here.
    path: str = "/file"
    description: str = ""


def _repeat(block: bytes) -> Iterator[bytes]:
    while True:
        yield block


# -- FTP ------------------------------------------------------------------------------


def _ftp_login(peer: _Peer) -> bool:
    """Greet and accept any login; True when the client is past PASS."""
    if not peer.send(b"220 hostile ftp\r\n"):
        return False
    while (line := peer.line()) is not None:
        verb = line.split(b" ", 1)[0].upper()
        if verb == b"USER":
            peer.send(b"331 password please\r\n")
        elif verb == b"PASS":
            peer.send(b"230 in\r\n")
            return True
        else:
            peer.send(b"530 log in first\r\n")
    return False


def _ftp_commands(peer: _Peer, answers: dict[bytes, bytes]) -> None:
    """Answer each command from ``answers`` by verb (``*`` for the rest)."""
    if not _ftp_login(peer):
        return
    while (line := peer.line()) is not None:
        verb = line.split(b" ", 1)[0].upper()
        reply = answers.get(verb, answers.get(b"*", b"200 ok\r\n"))
        if not peer.send(reply):
            return
        if verb == b"QUIT":
            return


def ftp_endless_reply(peer: _Peer) -> None:
    """A multi-line greeting whose end never comes: ``220-`` lines without a ``220 ``."""
    peer.send(b"220-welcome\r\n")
    peer.stream(_repeat((b"220-" + b"x" * 1000 + b"\r\n") * 64))


def ftp_endless_line(peer: _Peer) -> None:
    """A greeting line that never ends (no CR LF at all)."""
    peer.send(b"220 ")
    peer.stream(_repeat(b"y" * 65536))


def ftp_size_digits(peer: _Peer) -> None:
    """``SIZE`` answered with a 5000-digit number (Python refuses to convert it)."""
    _ftp_commands(peer, {b"SIZE": b"213 " + b"9" * 5000 + b"\r\n",
                         b"EPSV": b"500 no\r\n", b"PASV": b"500 no\r\n",
                         b"PWD": b'257 "/"\r\n', b"*": b"200 ok\r\n"})


def ftp_pasv_to_refused_port(peer: _Peer) -> None:
    """``EPSV``/``PASV`` name port 25 (SMTP): a data connection there is refused."""
    _ftp_commands(peer, {b"EPSV": b"229 Entering Extended Passive Mode (|||25|)\r\n",
                         b"PASV": b"227 Entering Passive Mode (127,0,0,1,0,25)\r\n",
                         b"SIZE": b"213 10\r\n", b"PWD": b'257 "/"\r\n',
                         b"*": b"200 ok\r\n"})


def ftp_escape_sequences(peer: _Peer) -> None:
    """A refusal whose text carries terminal escape sequences."""
    _ftp_commands(peer, {b"RETR": f"550 no such file {ESCAPES}\r\n".encode(),
                         b"SIZE": f"550 {ESCAPES}\r\n".encode(),
                         b"CWD": f"550 {ESCAPES}\r\n".encode(),
                         b"PWD": b'257 "/"\r\n', b"EPSV": b"500 no\r\n",
                         b"PASV": b"500 no\r\n", b"*": b"200 ok\r\n"})


# -- HTTP -----------------------------------------------------------------------------


def _http(peer: _Peer, head: str, body: Iterator[bytes] | bytes = b"", *,
          end_head: bool = True) -> None:
    if peer.request_head() is None:
        return
    blank = b"\r\n" if end_head else b""
    if not peer.send(head.replace("\n", "\r\n").encode() + blank):
        return
    if isinstance(body, bytes):
        peer.send(body)
    else:
        peer.stream(body)


def http_lying_length(peer: _Peer) -> None:
    """``Content-Length: 1000000`` and 10 bytes, then the connection closes."""
    _http(peer, "HTTP/1.1 200 OK\nContent-Length: 1000000\nConnection: close\n",
          b"0123456789")


def http_endless_header(peer: _Peer) -> None:
    """A response head that never ends: header lines for ever."""
    _http(peer, "HTTP/1.1 200 OK\n", _repeat(b"X-Filler: " + b"z" * 1000 + b"\r\n"),
          end_head=False)


def http_endless_body(peer: _Peer) -> None:
    """A close-delimited body of zeros up to :data:`MAX_SEND` (``--max-filesize`` stops it)."""
    _http(peer, "HTTP/1.1 200 OK\nConnection: close\n", _repeat(b"\0" * 65536))


def _gzip_bomb(size: int) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"\0" * (1 << 20)
    parts = [compressor.compress(block) for _ in range(size >> 20)]
    parts.append(compressor.flush())
    return b"".join(parts)


_BOMB: dict[int, bytes] = {}


def http_gzip_bomb(peer: _Peer) -> None:
    """256 MiB of zeros, gzip-compressed to about 250 KB (``--compressed`` decodes it)."""
    bomb = _BOMB.get(1 << 28)
    if bomb is None:
        bomb = _BOMB[1 << 28] = _gzip_bomb(1 << 28)
    _http(peer, f"HTTP/1.1 200 OK\nContent-Encoding: gzip\nContent-Length: {len(bomb)}\n"
          "Content-Type: application/octet-stream\n", bomb)


def _coded_bomb(coding: str, size: int) -> bytes:
    """``size`` zeros in ``coding`` (br, zstd), packed 1 MiB at a time; needs the
    ``anyurl[compression]`` packages, imported only here."""
    block = b"\0" * (1 << 20)
    if coding == "br":
        import brotli

        packer = brotli.Compressor(quality=5)
        parts = [packer.process(block) for _ in range(size >> 20)]
        parts.append(packer.finish())
    else:
        import zstandard

        obj = zstandard.ZstdCompressor(level=3).compressobj(size=size)
        parts = [obj.compress(block) for _ in range(size >> 20)]
        parts.append(obj.flush())
    return b"".join(parts)


def _http_coded_bomb(peer: _Peer, coding: str) -> None:
    bomb = _CODED_BOMB.get(coding)
    if bomb is None:
        bomb = _CODED_BOMB[coding] = _coded_bomb(coding, 1 << 28)
    _http(peer, f"HTTP/1.1 200 OK\nContent-Encoding: {coding}\nContent-Length: {len(bomb)}\n"
          "Content-Type: application/octet-stream\n", bomb)


_CODED_BOMB: dict[str, bytes] = {}


def http_br_bomb(peer: _Peer) -> None:
    """256 MiB of zeros, brotli-compressed to a few hundred bytes (``--compressed`` with the
    brotli package decodes it)."""
    _http_coded_bomb(peer, "br")


def http_zstd_bomb(peer: _Peer) -> None:
    """256 MiB of zeros, zstd-compressed to about 8 KB (``--compressed`` with the zstandard
    package decodes it)."""
    _http_coded_bomb(peer, "zstd")


def http_redirect_to_refused_port(peer: _Peer) -> None:
    """A redirect to ``http://127.0.0.1:25/``: a port of SMTP."""
    _http(peer, "HTTP/1.1 302 Found\nLocation: http://127.0.0.1:25/\nContent-Length: 0\n")


def http_redirect_to_file(peer: _Peer) -> None:
    """A redirect to ``file:///etc/passwd``: another scheme, never followed."""
    _http(peer, "HTTP/1.1 302 Found\nLocation: file:///etc/passwd\nContent-Length: 0\n")


def http_escape_sequences(peer: _Peer) -> None:
    """An error status whose reason phrase carries terminal escape sequences."""
    _http(peer, f"HTTP/1.1 500 {ESCAPES.replace(chr(7), '')}\nContent-Length: 0\n")


def http_slowloris(peer: _Peer) -> None:
    """A body announced as 100 bytes, sent one byte every two seconds."""
    if peer.request_head() is None:
        return
    peer.send(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
    for _ in range(100):
        if not peer.send(b"."):
            return
        if peer.stop.wait(2.0):
            return


def plain_to_tls(peer: _Peer) -> None:
    """Plain HTTP answered to whatever comes (a TLS ClientHello for https://)."""
    peer.sock.settimeout(5)
    try:
        peer.sock.recv(65536)
    except OSError:
        return
    peer.send(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


# -- Gopher ---------------------------------------------------------------------------


def gopher_endless_menu(peer: _Peer) -> None:
    """A menu of items for ever, never ending with ``.``."""
    if peer.line() is None:
        return
    item = b"0A file\t/file\t127.0.0.1\t70\r\n" * 64
    peer.stream(_repeat(item))


def gopher_endless_line(peer: _Peer) -> None:
    """A menu whose first line never ends."""
    if peer.line() is None:
        return
    peer.stream(_repeat(b"i" + b"w" * 65535))


def gopher_escape_menu(peer: _Peer) -> None:
    """A menu whose display strings carry terminal escape sequences."""
    if peer.line() is None:
        return
    peer.send(f"0{ESCAPES}\t/x\t127.0.0.1\t70\r\ni{ESCAPES}\t\terror.host\t1\r\n.\r\n"
              .encode())


# -- NNTP -----------------------------------------------------------------------------


def nntp_endless_article(peer: _Peer) -> None:
    """An article body that never ends with ``.``."""
    if not peer.send(b"200 hostile news\r\n"):
        return
    while (line := peer.line()) is not None:
        verb = line.split(b" ", 1)[0].upper()
        if verb == b"GROUP":
            peer.send(b"211 1 1 1 test\r\n")
        elif verb in (b"ARTICLE", b"BODY"):
            peer.send(b"220 1 <a@b> article\r\nSubject: x\r\n\r\n")
            peer.stream(_repeat(b"line of the endless article\r\n" * 1000))
            return
        elif verb == b"QUIT":
            peer.send(b"205 bye\r\n")
            return
        else:
            peer.send(b"500 what\r\n")


BEHAVIOURS: dict[str, Behaviour] = {b.name: b for b in [
    Behaviour("ftp-endless-reply", "ftp", ftp_endless_reply,
              description=ftp_endless_reply.__doc__ or ""),
    Behaviour("ftp-endless-line", "ftp", ftp_endless_line,
              description=ftp_endless_line.__doc__ or ""),
    Behaviour("ftp-size-digits", "ftp", ftp_size_digits,
              description=ftp_size_digits.__doc__ or ""),
    Behaviour("ftp-pasv-refused-port", "ftp", ftp_pasv_to_refused_port,
              description=ftp_pasv_to_refused_port.__doc__ or ""),
    Behaviour("ftp-escapes", "ftp", ftp_escape_sequences, path="/dir/file",
              description=ftp_escape_sequences.__doc__ or ""),
    Behaviour("http-lying-length", "http", http_lying_length,
              description=http_lying_length.__doc__ or ""),
    Behaviour("http-endless-header", "http", http_endless_header,
              description=http_endless_header.__doc__ or ""),
    Behaviour("http-endless-body", "http", http_endless_body,
              description=http_endless_body.__doc__ or ""),
    Behaviour("http-gzip-bomb", "http", http_gzip_bomb,
              description=http_gzip_bomb.__doc__ or ""),
    Behaviour("http-br-bomb", "http", http_br_bomb,
              description=http_br_bomb.__doc__ or ""),
    Behaviour("http-zstd-bomb", "http", http_zstd_bomb,
              description=http_zstd_bomb.__doc__ or ""),
    Behaviour("http-redirect-refused-port", "http", http_redirect_to_refused_port,
              description=http_redirect_to_refused_port.__doc__ or ""),
    Behaviour("http-redirect-file", "http", http_redirect_to_file,
              description=http_redirect_to_file.__doc__ or ""),
    Behaviour("http-escapes", "http", http_escape_sequences,
              description=http_escape_sequences.__doc__ or ""),
    Behaviour("http-slowloris", "http", http_slowloris,
              description=http_slowloris.__doc__ or ""),
    Behaviour("https-plain", "https", plain_to_tls, path="/",
              description=plain_to_tls.__doc__ or ""),
    Behaviour("gopher-endless-menu", "gopher", gopher_endless_menu, path="/1/",
              description=gopher_endless_menu.__doc__ or ""),
    Behaviour("gopher-endless-line", "gopher", gopher_endless_line, path="/1/",
              description=gopher_endless_line.__doc__ or ""),
    Behaviour("gopher-escapes", "gopher", gopher_escape_menu, path="/1/",
              description=gopher_escape_menu.__doc__ or ""),
    Behaviour("nntp-endless-article", "nntp", nntp_endless_article, path="/test/1",
              description=nntp_endless_article.__doc__ or ""),
]}


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
                self.behaviour.run(_Peer(sock, self._listener.stop))
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


class CrossOriginRedirect:
    """Two HTTP servers on two ports of 127.0.0.1, recording every request head: the
    first answers each request with ``status`` and a ``Location`` on the second, which
    answers ``200`` with ``ok``. What the second receives is what a client hands to
    another origin after a redirect (a token in ``Authorization`` or ``Cookie`` must not
    be there unless the client was told to trust the target). A context manager::

        with CrossOriginRedirect() as pair:
            run_client(pair.url, headers={"Authorization": "Bearer t"})
            assert not any(b"Bearer" in line for line in pair.heads(pair.target))
    """

    def __init__(self, status: int = 302, *, host: str = "127.0.0.1"):
        self.status = status
        self._lock = threading.Lock()
        self._heads: dict[int, list[list[bytes]]] = {}
        self.target = HostileServer(
            Behaviour("http-redirect-target", "http", self._answer, path="/landing",
                      description="records each request head, answers 200 ok"),
            host=host)
        self.origin = HostileServer(
            Behaviour("http-redirect-cross-origin", "http", self._redirect, path="/start",
                      description="records each request head, redirects to another port"),
            host=host)

    @property
    def url(self) -> str:
        """The URL a client starts at (on :attr:`origin`)."""
        return self.origin.url

    def heads(self, server: HostileServer) -> list[list[bytes]]:
        """The request heads ``server`` received so far, in order, one list of lines each."""
        with self._lock:
            return list(self._heads.get(server.port, []))

    def _record(self, port: int, peer: _Peer) -> bool:
        head = peer.request_head()
        if head is None:
            return False
        with self._lock:
            self._heads.setdefault(port, []).append(head)
        return True

    def _redirect(self, peer: _Peer) -> None:
        while self._record(self.origin.port, peer):
            if not peer.send(f"HTTP/1.1 {self.status} Moved\r\nLocation: {self.target.url}"
                             "\r\nContent-Length: 0\r\n\r\n".encode()):
                return

    def _answer(self, peer: _Peer) -> None:
        while self._record(self.target.port, peer):
            if not peer.send(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n"):
                return

    def __enter__(self) -> CrossOriginRedirect:
        self.target.start()
        self.origin.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.origin.close()
        self.target.close()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anyurl.testing.hostile NAME [--host H] [--port N]``."""
    return serve_behaviour(
        "hostile", __doc__, BEHAVIOURS,
        lambda behaviour, host, port: HostileServer(behaviour, host=host, port=port),
        lambda server: server.url, argv)


if __name__ == "__main__":
    raise SystemExit(main())
