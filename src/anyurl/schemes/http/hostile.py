"""HTTP servers that misbehave on purpose (:mod:`anyurl.testing.hostile` serves them).

:data:`BEHAVIOURS`, the trust boundary's: a length that lies, a head or a body without
end, compression bombs, redirects to a refused port and to ``file:``, escape sequences,
a byte every two seconds, plain HTTP where TLS was expected. :data:`NUMBERS`: a status,
a ``Retry-After`` and a robots.txt whose numbers are not ASCII digits. The pipelines'
(issue 29): :func:`http_extra_response` (keep-alive HTTP/1.1 whose answer to one path is
followed by an unsolicited ``HTTP/1.1 200 OK``, in the same write, as a smuggled
response would come) and :func:`h2_cross_stream` (HTTP/2 that, after ending a stream,
sends DATA on it again, ``closed``, or HEADERS and DATA on a stream the client never
opened, ``unopened``); every body is the request's own path, so an answer given to the
wrong URL shows, and the extra body is :data:`~anyurl.testing.hostile.EXTRA`.
:class:`CrossOriginRedirect` records what a client hands another origin::

    from anyurl.schemes.http.hostile import BEHAVIOURS, http_extra_response
    from anyurl.testing.hostile import HostileServer

    with HostileServer(http_extra_response(b"/a")) as server: ...
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Iterator
from types import TracebackType

from anyurl.testing.hostile import ESCAPES, EXTRA, Asked, Behaviour, HostileServer, Peer, repeat
from anyurl.testing.hostile_numbers import ARABIC_THREE, SUPERSCRIPT_TWO

__all__ = ["BEHAVIOURS", "NUMBERS", "CrossOriginRedirect", "h2_cross_stream",
           "http_extra_response"]


def _http(peer: Peer, head: str, body: Iterator[bytes] | bytes = b"", *,
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


def http_lying_length(peer: Peer) -> None:
    """``Content-Length: 1000000`` and 10 bytes, then the connection closes."""
    _http(peer, "HTTP/1.1 200 OK\nContent-Length: 1000000\nConnection: close\n",
          b"0123456789")


def http_endless_header(peer: Peer) -> None:
    """A response head that never ends: header lines for ever."""
    _http(peer, "HTTP/1.1 200 OK\n", repeat(b"X-Filler: " + b"z" * 1000 + b"\r\n"),
          end_head=False)


def http_endless_body(peer: Peer) -> None:
    """A close-delimited body of zeros up to :data:`MAX_SEND` (``--max-filesize`` stops it)."""
    _http(peer, "HTTP/1.1 200 OK\nConnection: close\n", repeat(b"\0" * 65536))


def _gzip_bomb(size: int) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"\0" * (1 << 20)
    parts = [compressor.compress(block) for _ in range(size >> 20)]
    parts.append(compressor.flush())
    return b"".join(parts)


_BOMB: dict[int, bytes] = {}


def http_gzip_bomb(peer: Peer) -> None:
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


def _http_coded_bomb(peer: Peer, coding: str) -> None:
    bomb = _CODED_BOMB.get(coding)
    if bomb is None:
        bomb = _CODED_BOMB[coding] = _coded_bomb(coding, 1 << 28)
    _http(peer, f"HTTP/1.1 200 OK\nContent-Encoding: {coding}\nContent-Length: {len(bomb)}\n"
          "Content-Type: application/octet-stream\n", bomb)


_CODED_BOMB: dict[str, bytes] = {}


def http_br_bomb(peer: Peer) -> None:
    """256 MiB of zeros, brotli-compressed to a few hundred bytes (``--compressed`` with the
    brotli package decodes it)."""
    _http_coded_bomb(peer, "br")


def http_zstd_bomb(peer: Peer) -> None:
    """256 MiB of zeros, zstd-compressed to about 8 KB (``--compressed`` with the zstandard
    package decodes it)."""
    _http_coded_bomb(peer, "zstd")


def http_redirect_to_refused_port(peer: Peer) -> None:
    """A redirect to ``http://127.0.0.1:25/``: a port of SMTP."""
    _http(peer, "HTTP/1.1 302 Found\nLocation: http://127.0.0.1:25/\nContent-Length: 0\n")


def http_redirect_to_file(peer: Peer) -> None:
    """A redirect to ``file:///etc/passwd``: another scheme, never followed."""
    _http(peer, "HTTP/1.1 302 Found\nLocation: file:///etc/passwd\nContent-Length: 0\n")


def http_escape_sequences(peer: Peer) -> None:
    """An error status whose reason phrase carries terminal escape sequences."""
    _http(peer, f"HTTP/1.1 500 {ESCAPES.replace(chr(7), '')}\nContent-Length: 0\n")


def http_slowloris(peer: Peer) -> None:
    """A body announced as 100 bytes, sent one byte every two seconds."""
    if peer.request_head() is None:
        return
    peer.send(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
    for _ in range(100):
        if not peer.send(b"."):
            return
        if peer.stop.wait(2.0):
            return


def plain_to_tls(peer: Peer) -> None:
    """Plain HTTP answered to whatever comes (a TLS ClientHello for https://)."""
    peer.sock.settimeout(5)
    try:
        peer.sock.recv(65536)
    except OSError:
        return
    peer.send(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

BEHAVIOURS: dict[str, Behaviour] = {b.name: b for b in [
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
]}


def _http_head_answer(peer: Peer, head: str, body: bytes = b"") -> bool:
    """``head`` in ISO 8859-1, as a client decodes HTTP's head: ``²`` is one octet, B2."""
    if peer.request_head() is None:
        return False
    return peer.send(f"{head}\r\nContent-Length: {len(body)}\r\n\r\n".encode("latin-1")
                     + body)


def http_status_superscript(peer: Peer) -> None:
    """Answers ``HTTP/1.1 2²0 OK`` to every request."""
    while _http_head_answer(peer, f"HTTP/1.1 2{SUPERSCRIPT_TWO}0 OK", b"x"):
        pass


def http_retry_after_superscript(peer: Peer) -> None:
    """Answers ``503`` with ``Retry-After: ²`` (and again to every retry)."""
    while _http_head_answer(peer, f"HTTP/1.1 503 Busy\r\nRetry-After: {SUPERSCRIPT_TWO}",
                       b"busy\n"):
        pass


def http_robots_superscript(peer: Peer) -> None:
    """A site whose robots.txt says ``Crawl-delay: ²`` and ``Request-rate: ٣/1``; its
    page ``/`` links to ``/a.txt``."""
    while (head := peer.request_head()) is not None:
        target = head[0].split(b" ")[1] if head and b" " in head[0] else b"/"
        if target == b"/robots.txt":
            body = (f"User-agent: *\nCrawl-delay: {SUPERSCRIPT_TWO}\n"
                    f"Request-rate: {ARABIC_THREE}/1\nDisallow: /private\n").encode()
            kind = "text/plain"
        elif target == b"/a.txt":
            body, kind = b"a\n", "text/plain"
        else:
            body, kind = b'<html><a href="/a.txt">a</a></html>', "text/html"
        if not peer.send(f"HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\n"
                         f"Content-Length: {len(body)}\r\n\r\n".encode() + body):
            return


NUMBERS: dict[str, Behaviour] = {b.name: b for b in [
    Behaviour("http-status-superscript", "http", http_status_superscript,
              description=http_status_superscript.__doc__ or ""),
    Behaviour("http-retry-after-superscript", "http", http_retry_after_superscript,
              description=http_retry_after_superscript.__doc__ or ""),
    Behaviour("http-robots-superscript", "http", http_robots_superscript, path="/",
              description=http_robots_superscript.__doc__ or ""),
]}


def _http_answer(body: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


def _http_paths(peer: Peer, asked: Asked) -> Iterator[tuple[bytes, bool]]:
    """(path, more) for each request, ``more`` when another request came with it."""
    while True:
        head = peer.request_head()
        if not head:
            return
        path = head[0].split()[1]
        asked.asked(path)
        yield path, b"\r\n\r\n" in peer.buffered


def http_extra_response(after: bytes, asked: Asked | None = None) -> Behaviour:
    """Keep-alive HTTP/1.1 answering each path with itself as the body; the answer to
    ``after`` is followed by an unsolicited ``200`` with :data:`EXTRA`.

    The answers of requests that arrived together go in one write (the extra with
    them), so what a client can see at the end of its window does not depend on
    timing; every connection misbehaves the same way."""
    asked = asked if asked is not None else Asked()

    def run(peer: Peer) -> None:
        asked.connected()
        out = bytearray()
        for path, more in _http_paths(peer, asked):
            out += _http_answer(path)
            if path == after:
                out += _http_answer(EXTRA)
            if not more:
                if not peer.send(bytes(out)):
                    return
                out.clear()

    return Behaviour("http-extra-response", "http", run, path=after.decode(),
                     description=http_extra_response.__doc__ or "")


def h2_cross_stream(where: str, asked: Asked | None = None) -> Behaviour:
    """HTTP/2 (prior knowledge) answering each stream with its path as the body; after
    ending the first stream it sends :data:`EXTRA` again on that stream (``where`` is
    ``"closed"``) or as a response on a stream the client never opened (``"unopened"``:
    HEADERS and DATA on the stream id after the highest the client could have used).
    Frames are written by hand: h2 would refuse to send them."""
    asked = asked if asked is not None else Asked()

    def run(peer: Peer) -> None:
        asked.connected()
        _h2_serve(peer, asked, where)

    return Behaviour(f"h2-cross-stream-{where}", "http", run, path="/f0",
                     description=h2_cross_stream.__doc__ or "")


def _h2_serve(peer: Peer, asked: Asked, where: str) -> None:
    import h2.config
    import h2.connection
    import h2.events
    import h2.exceptions
    from hyperframe.frame import DataFrame, HeadersFrame

    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
    conn.initiate_connection()
    sock = peer.sock
    sock.settimeout(10)
    sock.sendall(conn.data_to_send())
    crossed = False
    while not peer.stop.is_set():
        try:
            data = sock.recv(65536)
            events = conn.receive_data(data) if data else []
        except (OSError, h2.exceptions.ProtocolError):
            return
        if not data:
            return
        out = b""
        for event in events:
            if not isinstance(event, h2.events.RequestReceived):
                continue
            sid = event.stream_id
            path = dict(event.headers or []).get(b":path", b"/")
            asked.asked(path)
            try:
                conn.send_headers(sid, [(":status", "200"),
                                        ("content-length", str(len(path)))])
                conn.send_data(sid, path, end_stream=True)
            except h2.exceptions.ProtocolError:
                continue  # reset by the client meanwhile
            out += conn.data_to_send()
            if not crossed:
                crossed = True
                target = sid if where == "closed" else sid + 100
                if where != "closed":
                    head = HeadersFrame(target, flags=["END_HEADERS"])
                    head.data = conn.encoder.encode([(":status", "200")])
                    out += head.serialize()
                frame = DataFrame(target, flags=["END_STREAM"])
                frame.data = EXTRA
                out += frame.serialize()
        out += conn.data_to_send()
        try:
            sock.sendall(out)
        except OSError:
            return


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

    def _record(self, port: int, peer: Peer) -> bool:
        head = peer.request_head()
        if head is None:
            return False
        with self._lock:
            self._heads.setdefault(port, []).append(head)
        return True

    def _redirect(self, peer: Peer) -> None:
        while self._record(self.origin.port, peer):
            if not peer.send(f"HTTP/1.1 {self.status} Moved\r\nLocation: {self.target.url}"
                             "\r\nContent-Length: 0\r\n\r\n".encode()):
                return

    def _answer(self, peer: Peer) -> None:
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
