"""HTTP/1.1 pipelining: many GET (or HEAD) requests in flight on one connection.

h11 keeps one request in flight per connection (a client may not send the next request
before the response to the last one ended), so a pipelined connection needs its own
response reader. This module has two parts:

* :class:`ResponseReader`, sans-I/O (bytes in, heads and body pieces out): it splits the
  byte stream of consecutive responses into heads and bodies, framed by
  ``Content-Length``, ``chunked`` or the close of the connection. It is strict: anything
  h11 would accept only leniently, or that could frame a body two ways (both
  ``Content-Length`` and ``Transfer-Encoding``, two different lengths, a chunk line
  ended by a bare LF, a transfer coding other than ``chunked``, an obsolete line
  folding) is :class:`Malformed`, and the handler then serves that server one request at
  a time through h11, which decides what the response means.
* :class:`PipelinedConnection`: the reader over a :class:`~anyurl.net.transport.Stream`,
  and :class:`Exchange`, one response of it shaped as the handler's
  :class:`~.interfaces.Connection`, so the handler's response logic (status errors,
  resume, decoding, HEAD, the kernel move of big bodies) is the one of
  :meth:`~.handler.HTTPHandler.open`.

Why not httptools (llhttp)? Measured on the development machine, parsing nginx's head
of 9 headers and a 1 KiB body took 3.2 µs a response with httptools (its callbacks
into Python cost most of that) and 4.4 µs with :func:`parse_head` below: 2.4 ms over
2,000 files, against about 30 µs a file of the rest of the work. llhttp cannot be told
that a response answers a HEAD (it waits for the announced body) nor where one message
ended within a buffer, both of which a pipelining client needs; so no new dependency.

The batch logic (windows, re-sending, remembering servers that mis-answer) lives with
the handler (:meth:`~.handler.HTTPHandler.open_batch`).

A response belongs to a request (issue 29)
------------------------------------------
HTTP/1.1 has no request identifiers: the n-th response answers the n-th request, and a
server that answers one request twice (or a smuggled response) shifts every later
body onto the URL after its own. What can be told: a window is written only when the
last is answered, so when its last response has been read nothing may follow it
(:meth:`PipelinedConnection.out_of_step`: the read buffer, and on a plain socket a
peek at the kernel's); a response in excess of the window shows there, wherever in
the window it came, because every later answer moved one place on. The handler holds
a window's small bodies and errors until that check passes; when it fails, the window
is asked again one request at a time on a new connection and the route is served that
way from then on. What cannot be told: an extra response that arrives after that
check (it is then taken for the next window's first request; the shift then shows at
the end of a later window, or when the idle connection is taken from the pool, but
the bodies handed over meanwhile are wrong), a response in a window that also carries
a body too big to hold (a streamed body is handed over as it comes, before its window
is checked), bytes still encrypted under TLS (only the decrypted buffer is looked at),
and answers in the wrong order in the right number. ``--no-pipeline`` is the remedy.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from typing import Final

from anyurl.errors import (
    AnyURLError,
    ConnectionLost,
    PartialTransfer,
    ProtocolError,
    StreamClosed,
)
from anyurl.net.transport import DEFAULT_RECEIVE_SIZE, Stream
from anyurl.numbers import is_ascii_digits
from anyurl.schemes.http.interfaces import Response
from anyurl.schemes.http.routes import Route
from anyurl.url import URL

__all__ = [
    "FAR",
    "MAX_DEPTH",
    "MAX_HEAD",
    "NEAR_DEPTH",
    "SMALL_BODY",
    "Exchange",
    "Malformed",
    "PipelinedConnection",
    "ResponseReader",
    "keeps_alive",
    "moved_on",
    "parse_head",
]

#: The most requests in flight on one connection over a long path (a round trip of
#: :data:`FAR` or more): a window's round trip is what such a path costs, so 300 files
#: at 20 ms take 3 windows rather than 11.
MAX_DEPTH: Final = 128
#: The most in flight on a short path (loopback, a LAN). nginx reads 32 pipelined
#: requests of this size in one read; deeper windows saved no round trip worth having
#: here and met 40 ms stalls of the server's coalescing (wall time above CPU time).
NEAR_DEPTH: Final = 32
#: A round trip (request written to response head read) from which a path is long.
FAR: Final = 0.005
#: The longest response head accepted (h11's limit too).
MAX_HEAD: Final = 16 * 1024
#: The largest body the handler takes whole out of the read buffer
#: (:meth:`PipelinedConnection.whole_body`) instead of streaming it.
SMALL_BODY: Final = 64 * 1024
#: A body still unread when the batch moves on is read and dropped up to this size;
#: a longer one costs less to abandon with its connection (its requests are re-sent).
DRAIN_LIMIT: Final = 64 * 1024


#: Linux's option to send the ACKs owed now rather than after the delayed-ACK timer
#: (None where the platform has none: there the kernel's own timing stands).
_QUICKACK: Final[int | None] = getattr(socket, "TCP_QUICKACK", None)


class Malformed(Exception):
    """The server's bytes are not a response this reader frames (see the module)."""


#: What a body piece reader returns when the body has ended.
END: Final = b""


def parse_head(head: bytes) -> Response:
    """A response head (status line and header lines, without the blank line).

    Names are lower-cased, values stripped; :class:`Malformed` for anything but
    ``HTTP/1.x NNN reason`` and ``name: value`` lines.
    """
    text = head.decode("latin-1")  # decodes any byte
    lines = text.split("\r\n")
    if text.count("\n") != len(lines) - 1:  # a bare LF somewhere
        bad = next(line for line in lines if "\n" in line)
        raise Malformed(f"not a header line: {bad[:80]!r}")
    version, _, rest = lines[0].partition(" ")
    code, _, reason = rest.partition(" ")
    if version not in ("HTTP/1.1", "HTTP/1.0") or len(code) != 3 or not is_ascii_digits(code):
        raise Malformed(f"not an HTTP/1.x status line: {lines[0][:80]!r}")
    headers: list[tuple[str, str]] = []
    append = headers.append
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        # One test for the common line: a name that neither starts nor ends with
        # blank space (an obsolete folding starts with it), then the colon.
        if not colon or name.strip(" \t") != name or not name:
            raise Malformed(f"not a header line: {line[:80]!r}")
        append((name.lower(), value.strip(" \t")))
    return Response(status=int(code), reason=reason, http_version=version[5:],
                    headers=headers)


def keeps_alive(response: Response) -> bool:
    """Whether the connection stays open after ``response`` (HTTP/1.1 without
    ``Connection: close``), as h11 decides."""
    if response.http_version != "1.1":
        return False
    value = response.header("connection")
    return value is None or "close" not in {t.strip().lower() for t in value.split(",")}


class ResponseReader:
    """Consecutive responses of one connection, sans-I/O.

    Feed bytes with :meth:`receive_data` (``b""`` for the end of the stream); take a
    head with :meth:`next_head` (None: more bytes needed), then :meth:`start_body` with
    the request's method, and pieces with :meth:`next_piece` until it returns
    :data:`END`. A piece never extends past its body, so what follows is the next
    response's.
    """

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.eof = False
        #: "length", "chunked", "close" or "none" for the current body.
        self.mode = "none"
        #: Bytes left of a counted body or of the current chunk.
        self.left = 0
        self._chunk_state = "size"  # size, data, crlf, trailer
        self.body_done = True

    def receive_data(self, data: bytes) -> None:
        """Bytes from the server; ``b""`` when it closed its side."""
        if data:
            self.buffer += data
        else:
            self.eof = True

    def next_head(self) -> Response | None:
        """The next final response head (1xx skipped), or None until more bytes come."""
        buffer = self.buffer
        while True:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(buffer) > MAX_HEAD:
                    raise Malformed("a response head longer than 16 KiB")
                if self.eof and buffer:
                    raise Malformed("the connection closed in the middle of a head")
                return None
            if end > MAX_HEAD:
                raise Malformed("a response head longer than 16 KiB")
            head = bytes(buffer[:end])
            del buffer[: end + 4]
            response = parse_head(head)
            if response.status == 101:
                raise Malformed("a protocol switch nobody asked for")
            if response.status >= 200:
                return response

    def start_body(self, response: Response, method: str) -> None:
        """Frame the body of ``response`` to a ``method`` request (RFC 9112 6.3)."""
        self.body_done = False
        codings = response.header("transfer-encoding")
        lengths = {v for k, v in response.headers if k == "content-length"}
        if method == "HEAD" or response.status in (204, 304):
            self.mode = "none"
            return
        if codings is not None:
            if lengths:
                raise Malformed("both Transfer-Encoding and Content-Length")
            if codings.strip().lower() != "chunked" or len(
                    [k for k, _ in response.headers if k == "transfer-encoding"]) > 1:
                raise Malformed(f"a transfer coding this reader does not frame: {codings!r}")
            self.mode = "chunked"
            self._chunk_state = "size"
            return
        if lengths:
            if len(lengths) > 1 or not all(is_ascii_digits(v) and len(v) < 20 for v in lengths):
                raise Malformed(f"a Content-Length of {sorted(lengths)!r}")
            self.mode = "length"
            self.left = int(next(iter(lengths)))
            return
        self.mode = "close"  # until the server closes

    def next_piece(self) -> bytes | None:
        """The next bytes of the body, :data:`END` when it has ended, None for more.

        A body cut by the close of the connection raises :class:`EOFError` (the caller
        names the URL), a broken chunk framing :class:`Malformed`.
        """
        if self.body_done:
            return END
        mode = self.mode
        buffer = self.buffer
        if mode == "none":
            self.body_done = True
            return END
        if mode == "length":
            if not self.left:
                self.body_done = True
                return END
            if not buffer:
                if self.eof:
                    raise EOFError
                return None
            n = min(self.left, len(buffer))
            piece = bytes(buffer[:n])
            del buffer[:n]
            self.left -= n
            return piece
        if mode == "close":
            if buffer:
                piece = bytes(buffer)
                buffer.clear()
                return piece
            if self.eof:
                self.body_done = True
                return END
            return None
        return self._chunked()

    def _chunked(self) -> bytes | None:
        buffer = self.buffer
        while True:
            state = self._chunk_state
            if state == "data":
                if not buffer:
                    if self.eof:
                        raise EOFError
                    return None
                n = min(self.left, len(buffer))
                piece = bytes(buffer[:n])
                del buffer[:n]
                self.left -= n
                if not self.left:
                    self._chunk_state = "crlf"
                return piece
            line_end = buffer.find(b"\r\n")
            if line_end < 0:
                if b"\n" in buffer or len(buffer) > 4096:
                    raise Malformed("a chunk line not ended by CRLF")
                if self.eof:
                    raise EOFError
                return None
            line = bytes(buffer[:line_end])
            del buffer[: line_end + 2]
            if b"\n" in line or b"\r" in line:
                raise Malformed("a bare CR or LF in chunked framing")
            if state == "crlf":
                if line:
                    raise Malformed("chunk data longer than its size")
                self._chunk_state = "size"
            elif state == "size":
                size = line.split(b";", 1)[0].strip(b" \t")
                if not size or len(size) > 16 or size.strip(b"0123456789abcdefABCDEF"):
                    raise Malformed(f"a chunk size of {size[:20]!r}")
                self.left = int(size, 16)
                self._chunk_state = "data" if self.left else "trailer"
            elif line:  # a trailer field: read and dropped, as h11 keeps none either
                if b":" not in line or line[:1] in b" \t":
                    raise Malformed("a trailer line that is not a field")
            else:
                self.body_done = True
                return END


def moved_on(url: URL) -> StreamClosed:
    """The error for a body read after its batch moved on to the next response."""
    return StreamClosed(f"the body of {url.masked()} was read after its batch moved on",
                        url=url, hint="Read each resource of open_batch before asking for "
                        "the next.")


class PipelinedConnection:
    """A :class:`ResponseReader` over a stream; the handler's batch drives it."""

    def __init__(self, stream: Stream, key: Route, cycles: int = 0):
        self.stream = stream
        self.key = key
        self.reader = ResponseReader()
        #: Responses completed on this connection before and during the batch.
        self.cycles = cycles
        #: Responses read on it in this batch.
        self.answered = 0
        #: Set when the connection cannot carry another response (a body abandoned or
        #: cut, a close-delimited body, the server's ``Connection: close``).
        self.finished = False
        #: The exchange whose body is being read (None between bodies).
        self.current: Exchange | None = None

    async def fill(self) -> None:
        """Read what the server sent next into the reader.

        Before waiting, the kernel is asked to acknowledge at once (``TCP_QUICKACK``):
        a pipelining client writes nothing while its window is answered, so no ACK
        rides on a request, and a server whose last segment waits for one (Nagle's
        algorithm; nginx with ``tcp_nopush``) would wait out the 40 ms delayed ACK.
        Measured on loopback against nginx: 0 to 35 such waits in a run of 2,000
        files (up to 1.4 s of a 1.9 s run) before, none after.
        """
        sock = self.stream.plain_socket
        if sock is not None and _QUICKACK is not None:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, _QUICKACK, 1)
            except OSError:  # pragma: no cover - not a TCP socket after all
                pass
        self.reader.receive_data(await self.stream.receive(DEFAULT_RECEIVE_SIZE))

    async def head(self) -> Response:
        """The next response head; :class:`ConnectionLost` when the server closed
        first, :class:`Malformed` for bytes that are not a response."""
        reader = self.reader
        while True:
            response = reader.next_head()
            if response is not None:
                return response
            if reader.eof:
                raise ConnectionLost(
                    f"the server of {self.stream.url.masked()} closed the connection "
                    "without a response", url=self.stream.url)
            await self.fill()

    def exchange(self, response: Response, method: str, url: URL) -> Exchange:
        """The response just read, shaped as the handler's connection."""
        self.reader.start_body(response, method)
        exchange = Exchange(self, response, url)
        self.current = exchange
        self.answered += 1
        return exchange

    def whole_body(self, length: str | None) -> bytes | None:
        """The whole body of the response whose head was just read, taken out of the
        buffer, when ``length`` (its one ``Content-Length``, no ``Transfer-Encoding``:
        the caller checked) is at most :data:`SMALL_BODY` bytes and all of them are
        already read; the connection then stands after it. None otherwise, with
        nothing consumed: the caller goes on with :meth:`exchange`.

        What :meth:`exchange` and a read of the body to its end come to, without the
        per-response :class:`Exchange` and body iterator: small responses arrive many
        to a read, and each such object costs more than parsing the head.
        """
        if length is None or len(length) > 6 or not is_ascii_digits(length):
            return None
        n = int(length)
        reader = self.reader
        buffer = reader.buffer
        if n > SMALL_BODY or len(buffer) < n:
            return None
        data = bytes(buffer[:n])
        del buffer[:n]
        reader.mode = "length"
        reader.left = 0
        reader.body_done = True
        self.current = None
        self.answered += 1
        self.cycles += 1
        return data

    async def drain(self) -> bytes | None:
        """Read and drop what is left of the current body (up to :data:`DRAIN_LIMIT`;
        beyond it, or on any failure, the connection is finished). The body when it
        was all read here, else None."""
        exchange = self.current
        if exchange is None:
            return None
        exchange.detached = True
        if exchange.offered and not exchange.started and not exchange.done:
            self.finished = True
        kept: list[bytes] | None = None if exchange.started or exchange.done else []
        if not exchange.done and not self.finished:
            dropped = 0
            try:
                async for piece in exchange.pieces():
                    dropped += len(piece)
                    if dropped > DRAIN_LIMIT:
                        self.finished = True
                        kept = None
                        break
                    if kept is not None:
                        kept.append(bytes(piece))
            except (AnyURLError, Malformed):
                self.finished = True
                kept = None
        self.current = None
        return None if kept is None else b"".join(kept)

    def out_of_step(self) -> bool:
        """Whether bytes wait that no request asked for: to be asked when every
        response sent for is read (a window answered), before more requests go.

        A response beyond the requests written means the server answered one of them
        twice, or answered something else: the responses read in that window may
        each belong to the request before them (STYLE 26; see the handler's batch)."""
        return bool(self.reader.buffer) or self.stream.bytes_waiting()

    async def aclose(self) -> None:
        """Close the stream."""
        self.finished = True
        await self.stream.aclose()


class Exchange:
    """One response of a :class:`PipelinedConnection`, as a :class:`~.interfaces.Connection`.

    Its body is valid until the batch moves on (it is then :attr:`detached`); closing
    it only says that the handler is done with it: what is left is drained (or the
    connection given up) by the batch before the next response is read.
    """

    http_version = "1.1"

    def __init__(self, pipe: PipelinedConnection, response: Response, url: URL):
        self.pipe = pipe
        self.response = response
        self.url = url
        self.key = pipe.key
        self.stream = pipe.stream
        self.cycles = pipe.cycles
        self.done = False
        self.detached = False
        #: Offered for a kernel move (:meth:`raw_body`) / read as chunks (:meth:`pieces`).
        self.offered = False
        self.started = False

    async def request(self, scheme: str, target: str, headers: list[tuple[str, str]],
                      method: str = "GET", body: bytes | None = None) -> Response:
        """Not for an exchange: its request went out with the batch's window."""
        raise StreamClosed(f"a pipelined exchange of {self.url.masked()} cannot send",
                           url=self.url)

    async def pieces(self) -> AsyncIterator[bytes]:
        """The body's bytes as they arrive (errors named for this URL)."""
        pipe = self.pipe
        reader = pipe.reader
        self.started = True
        try:
            while True:
                try:
                    piece = reader.next_piece()
                except EOFError:
                    raise PartialTransfer(
                        f"the server closed the connection before the end of the body of "
                        f"{self.url.masked()}", url=self.url,
                        hint="Try again with resume (resume=True) to continue where it "
                        "stopped.") from None
                except Malformed as exc:
                    raise ProtocolError(
                        f"the server of {self.url.masked()} broke HTTP/1.1: {exc}",
                        url=self.url) from None
                if piece is None:
                    pipe.stream.url = self.url
                    await pipe.fill()
                    continue
                if piece is END:
                    break
                yield piece
        except BaseException:
            pipe.finished = True  # cut, cancelled or broken: nothing more on it
            raise
        self.done = True
        pipe.cycles += 1
        if reader.mode == "close":
            pipe.finished = True

    def body(self, response: Response) -> AsyncIterator[bytes]:
        """The body, until the batch moves on (then :class:`StreamClosed`).

        :meth:`pieces` itself, not an async generator around it: one fewer per file
        (each costs the event loop's first-iteration hook and finaliser)."""
        if self.detached:
            return self._detached()
        return self.pieces()

    async def _detached(self) -> AsyncIterator[bytes]:
        raise moved_on(self.url)
        yield b""  # pragma: no cover - an async generator, as body() promises

    async def discard(self, response: Response) -> bytes | None:
        """Drop the body (a redirect's, an error page): the batch drains it, and gives
        it back when it was read whole (an error page for an archive)."""
        return await self.pipe.drain()

    def raw_body(self, response: Response) -> tuple[bytes, int] | None:
        """(bytes already read, bytes still on the socket) of a counted body of at least
        :data:`DRAIN_LIMIT` bytes whose bytes after the buffer are all its own, for a
        move by the kernel (:mod:`anyurl.net.bulk`); :meth:`raw_done` settles it after."""
        reader = self.pipe.reader
        if (reader.mode != "length" or reader.left < DRAIN_LIMIT or self.detached
                or self.stream.plain_socket is None or len(reader.buffer) > reader.left):
            return None
        # Once offered, a body closed unread may have been moved in part: the batch
        # gives its connection up rather than reading on at an unknown place.
        self.offered = True
        return bytes(reader.buffer), reader.left - len(reader.buffer)

    def raw_done(self, response: Response) -> None:
        """The raw body has moved: the connection stands after it."""
        reader = self.pipe.reader
        reader.buffer.clear()
        reader.left = 0
        reader.body_done = True
        self.done = True
        self.pipe.cycles += 1

    @property
    def reusable(self) -> bool:
        """Never by the pool: the batch gives the connection back when it ends."""
        return False

    def next_cycle(self) -> None:
        """Nothing: the batch keeps the connection (see :attr:`reusable`)."""

    async def aclose(self) -> None:
        """The handler is done with this response; an unread rest is the batch's to drain."""
