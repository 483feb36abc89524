"""Servers that answer more than they were asked, for testing pipelines (issue 29).

A pipelining client ties a response to its request by position (HTTP/1.1) or by what
the response names (NNTP's article number and message-id, HTTP/2's stream id). Each
server here sends one answer nobody asked for, so a client that trusts position alone
hands every later URL the body of the one before it:

* :func:`http_extra_response`: keep-alive HTTP/1.1 whose answer to one path is followed
  by an unsolicited ``HTTP/1.1 200 OK`` (in the same write, as a smuggled response
  would come);
* :func:`nntp_extra_article`: an NNTP server whose article after one ``ARTICLE`` is
  followed by a second ``220`` (by default ``220 0 <...>``, a number no numbered
  ``ARTICLE`` is answered with);
* :func:`h2_cross_stream`: HTTP/2 that, after ending a stream, sends DATA on it again
  (``closed``) or HEADERS and DATA on a stream the client never opened (``unopened``).

Every body is the request's own name (an HTTP path, ``article N``), so an answer given
to the wrong URL shows; the extra body is :data:`EXTRA`. Run them as any behaviour of
:mod:`anyurl.testing.hostile`::

    with HostileServer(http_extra_response(b"/a")) as server: ...
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from anyurl.testing.hostile import Behaviour, _Peer

__all__ = [
    "EXTRA",
    "NNTP_GROUP",
    "Asked",
    "h2_cross_stream",
    "http_extra_response",
    "nntp_article",
    "nntp_extra_article",
]

#: The body of every answer nobody asked for.
EXTRA = b"EXTRA, answering nothing"


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


def _http_answer(body: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


def _http_paths(peer: _Peer, asked: Asked) -> Iterator[tuple[bytes, bool]]:
    """(path, more) for each request, ``more`` when another request came with it."""
    while True:
        head = peer.request_head()
        if not head:
            return
        path = head[0].split()[1]
        asked.asked(path)
        yield path, b"\r\n\r\n" in peer._buffer


def http_extra_response(after: bytes, asked: Asked | None = None) -> Behaviour:
    """Keep-alive HTTP/1.1 answering each path with itself as the body; the answer to
    ``after`` is followed by an unsolicited ``200`` with :data:`EXTRA`.

    The answers of requests that arrived together go in one write (the extra with
    them), so what a client can see at the end of its window does not depend on
    timing; every connection misbehaves the same way."""
    asked = asked if asked is not None else Asked()

    def run(peer: _Peer) -> None:
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


#: The group :func:`nntp_extra_article` serves, and its articles' message-ids.
NNTP_GROUP = "test.pipe"


def _message_id(number: int) -> str:
    return f"<{number}@pipe.test>"


def nntp_article(number: int) -> bytes:
    """The text of article ``number`` as the server sends it (head, blank, body)."""
    return (f"Message-ID: {_message_id(number)}\r\nSubject: {number}\r\n\r\n"
            f"article {number}\r\n").encode()


def _nntp_answer(verb: bytes, args: list[bytes], count: int) -> bytes:
    """The answer to one command (not QUIT)."""
    if verb == b"GROUP":
        return f"211 {count} 1 {count} {NNTP_GROUP}\r\n".encode()
    if verb == b"MODE":
        return b"200 reader\r\n"
    if verb != b"ARTICLE" or not args:
        return b"500 what\r\n"
    arg = args[0].decode("latin-1")
    by_id = arg.startswith("<")
    number = int(arg.strip("<>").split("@")[0]) if by_id else int(arg)
    if not 1 <= number <= count or (by_id and arg != _message_id(number)):
        return b"430 no such article\r\n" if by_id else b"423 no such article\r\n"
    shown = 0 if by_id else number
    return (f"220 {shown} {_message_id(number)}\r\n".encode() + nntp_article(number)
            + b".\r\n")


def nntp_extra_article(after: int | None, count: int = 8, asked: Asked | None = None,
                       *, extra_line: bytes | None = b"220 0 <extra@pipe.test>",
                       ) -> Behaviour:
    """An NNTP server of ``count`` articles in :data:`NNTP_GROUP` whose answer to the
    ARTICLE for article ``after`` (None: for every article) is followed, in the same
    write, by ``extra_line`` (None: the same ``220`` line again, an article answered
    twice) and an article of :data:`EXTRA`. Commands that arrived together are
    answered in one write."""
    asked = asked if asked is not None else Asked()
    wanted = None if after is None else (str(after).encode(), _message_id(after).encode())

    def run(peer: _Peer) -> None:
        asked.connected()
        if not peer.send(b"200 pipelines\r\n"):
            return
        out = bytearray()
        while (line := peer.line()) is not None:
            asked.asked(line)
            verb, *args = line.split()
            verb = verb.upper()
            if verb == b"QUIT":
                peer.send(bytes(out) + b"205 bye\r\n")
                return
            answer = _nntp_answer(verb, args, count)
            out += answer
            if answer.startswith(b"220") and (wanted is None or args[0] in wanted):
                first = answer[:answer.index(b"\r\n")] if extra_line is None else extra_line
                out += first + b"\r\nSubject: extra\r\n\r\n" + EXTRA + b"\r\n.\r\n"
            if b"\n" not in peer._buffer:
                if not peer.send(bytes(out)):
                    return
                out.clear()

    return Behaviour("nntp-extra-article", "nntp", run, path=f"/{NNTP_GROUP}/{after or 1}",
                     description=nntp_extra_article.__doc__ or "")


def h2_cross_stream(where: str, asked: Asked | None = None) -> Behaviour:
    """HTTP/2 (prior knowledge) answering each stream with its path as the body; after
    ending the first stream it sends :data:`EXTRA` again on that stream (``where`` is
    ``"closed"``) or as a response on a stream the client never opened (``"unopened"``:
    HEADERS and DATA on the stream id after the highest the client could have used).
    Frames are written by hand: h2 would refuse to send them."""
    asked = asked if asked is not None else Asked()

    def run(peer: _Peer) -> None:
        asked.connected()
        _h2_serve(peer, asked, where)

    return Behaviour(f"h2-cross-stream-{where}", "http", run, path="/f0",
                     description=h2_cross_stream.__doc__ or "")


def _h2_serve(peer: _Peer, asked: Asked, where: str) -> None:
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
