"""Servers whose numbers are not ASCII digits: a Gopher port ``²``, a status ``2²0``, a
``Retry-After: ²``, a robots.txt ``Crawl-delay: ²``, an NNTP greeting ``2²0``.

``str.isdigit()`` takes ``²`` and ``int()`` refuses it, so each of these once ended
``anyurl get`` or ``anyurl mirror`` in an internal error (and a mirror stopped again at
each resume). A client that reads numbers as ASCII digits only (docs/architecture.md,
"Numbers") answers each with a protocol error, or ignores the field. The behaviours are
:class:`anyurl.testing.hostile.Behaviour` objects, served by its ``HostileServer``::

    from anyurl.testing.hostile import HostileServer
    from anyurl.testing.hostile_numbers import BEHAVIOURS

    with HostileServer(BEHAVIOURS["gopher-port-superscript"]) as server:
        run_client(server.url)

or from a shell: ``python -m anyurl.testing.hostile_numbers gopher-port-superscript``.
"""

from __future__ import annotations

from collections.abc import Sequence

from anyurl.testing._server import serve_behaviour
from anyurl.testing.hostile import Behaviour, HostileServer, _Peer

__all__ = ["BEHAVIOURS", "main"]

#: Digits that str.isdigit() takes and int() refuses, or int() takes as another number.
SUPERSCRIPT_TWO = "²"
ARABIC_THREE = "٣"


def _own_port(peer: _Peer) -> int:
    return int(peer.sock.getsockname()[1])


def gopher_port_superscript(peer: _Peer) -> None:
    """A menu whose items name the ports ``²``, ``٣`` and ``１``, beside one good item
    (``/good``, on this server); the good item is ``hello``."""
    selector = peer.line()
    if selector is None:
        return
    if selector == b"/good":
        peer.send(b"hello\r\n.\r\n")
        return
    port = _own_port(peer)
    peer.send(f"0Good\t/good\t127.0.0.1\t{port}\r\n"
              f"1Superscript\t/bad\t127.0.0.1\t{SUPERSCRIPT_TWO}\r\n"
              f"0Arabic\t/bad\t127.0.0.1\t{ARABIC_THREE}\r\n"
              f"0Fullwidth\t/bad\t127.0.0.1\t\uff11\r\n.\r\n".encode())


def _http_answer(peer: _Peer, head: str, body: bytes = b"") -> bool:
    """``head`` in ISO 8859-1, as a client decodes HTTP's head: ``²`` is one octet, B2."""
    if peer.request_head() is None:
        return False
    return peer.send(f"{head}\r\nContent-Length: {len(body)}\r\n\r\n".encode("latin-1")
                     + body)


def http_status_superscript(peer: _Peer) -> None:
    """Answers ``HTTP/1.1 2²0 OK`` to every request."""
    while _http_answer(peer, f"HTTP/1.1 2{SUPERSCRIPT_TWO}0 OK", b"x"):
        pass


def http_retry_after_superscript(peer: _Peer) -> None:
    """Answers ``503`` with ``Retry-After: ²`` (and again to every retry)."""
    while _http_answer(peer, f"HTTP/1.1 503 Busy\r\nRetry-After: {SUPERSCRIPT_TWO}",
                       b"busy\n"):
        pass


def http_robots_superscript(peer: _Peer) -> None:
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


def nntp_code_superscript(peer: _Peer) -> None:
    """Greets with ``2²0 news`` instead of ``200``."""
    peer.send(f"2{SUPERSCRIPT_TWO}0 news\r\n".encode())
    peer.wait_closed(2)


BEHAVIOURS: dict[str, Behaviour] = {b.name: b for b in [
    Behaviour("gopher-port-superscript", "gopher", gopher_port_superscript, path="/1/",
              description=gopher_port_superscript.__doc__ or ""),
    Behaviour("http-status-superscript", "http", http_status_superscript,
              description=http_status_superscript.__doc__ or ""),
    Behaviour("http-retry-after-superscript", "http", http_retry_after_superscript,
              description=http_retry_after_superscript.__doc__ or ""),
    Behaviour("http-robots-superscript", "http", http_robots_superscript, path="/",
              description=http_robots_superscript.__doc__ or ""),
    Behaviour("nntp-code-superscript", "nntp", nntp_code_superscript, path="/test/1",
              description=nntp_code_superscript.__doc__ or ""),
]}


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anyurl.testing.hostile_numbers NAME [--host H] [--port N]``."""
    return serve_behaviour(
        "hostile_numbers", __doc__, BEHAVIOURS,
        lambda behaviour, host, port: HostileServer(behaviour, host=host, port=port),
        lambda server: server.url, argv)


if __name__ == "__main__":
    raise SystemExit(main())
