"""HTTP/2 for the http and https schemes: the ``h2`` library (sans-I/O) over anyurl's transport.

Strategy. HTTP/2 is an option (``HTTPOptions(http2=True)``), not a second HTTP client:
the handler (:mod:`anyurl.schemes.http.handler`) keeps every decision about what a
response means (status mapping, redirects, Range/If-Range resume, decoding) and asks a
:class:`~anyurl.schemes.http.interfaces.Connection` for three things only: send a request
and return its head, yield its body, drop its body. :class:`H2Connection` answers them
for HTTP/2 as :class:`~anyurl.schemes.http.http11.HTTP11Connection` does for HTTP/1.1, so
the two paths share everything above the framing.

How a connection is reached: ``http://`` asks with an HTTP/1.1 request carrying
``Upgrade: h2c`` and ``HTTP2-Settings`` (RFC 7540 3.2, :meth:`H2Connection.upgrade_header`),
as ``curl --http2`` does; after the server's ``101`` the connection speaks HTTP/2 and the
response to that request is stream 1's (:meth:`H2Connection.switched`), else HTTP/1.1 goes
on. With prior knowledge (``--http2-prior-knowledge``) the connection preface is sent at
once, no ``Upgrade`` round trip; a server that answers it with anything but HTTP/2 is
said not to speak HTTP/2 without TLS. ``https://`` offers ALPN ``h2, http/1.1`` and the
handler uses this module only when the server picks ``h2``.

Decisions:

* **One stream at a time per connection.** Each request takes a pooled connection for
  itself and reads its stream inline, as the consumer asks for chunks: no reader task,
  so no task group to own and nothing that differs between asyncio and trio. Connections
  are pooled per route like HTTP/1.1 ones; a batch of URLs (``open_batch``) multiplexes
  its requests over one connection instead (:mod:`.multiplex`).
* **Flow control follows consumption.** DATA is acknowledged after the consumer has taken
  the chunk, so the server can never be more than one window ahead of the reader; the
  window is large (:data:`STREAM_WINDOW`, and the connection window is raised at start)
  so a bulk transfer is bound by the network, not by WINDOW_UPDATE round trips. Memory
  stays at one receive of the transport, whatever the size.
* **Dropping a body keeps the connection.** A redirect or error body is cancelled with
  ``RST_STREAM``; the connection goes back to the pool, where HTTP/1.1 would have had to
  close it for a long body.
* **A GOAWAY lets the streams it names finish.** h2 closes its state machine on the
  server's GOAWAY and then refuses the DATA of the streams the server still answers
  (RFC 9113 6.8: those up to its last-stream-id complete), and our WINDOW_UPDATEs for
  them: :class:`ClientConnection` keeps it open, so a multiplexed batch
  (:mod:`.multiplex`) reads them to their end and sends only the others again.
* **Errors as for HTTP/1.1.** A connection that ends before the response is
  :class:`ConnectionLost` (so a stale pooled connection is retried once); one that ends
  inside a body, or a body shorter than its ``content-length`` (h2 checks it), is
  :class:`PartialTransfer`; a stream reset or a framing error is :class:`ProtocolError`
  naming the HTTP/2 error code.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Iterable

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings
from h2.errors import ErrorCodes
from h2.stream import StreamClosedBy
from hyperframe.frame import DataFrame, Frame, GoAwayFrame, HeadersFrame

from anyurl.errors import AnyURLError, ConnectionLost, PartialTransfer, ProtocolError
from anyurl.net.transport import DEFAULT_RECEIVE_SIZE, Stream
from anyurl.numbers import ascii_int
from anyurl.schemes.http.interfaces import Body, Response
from anyurl.schemes.http.routes import Route

__all__ = [
    "ALPN_PROTOCOLS",
    "CONNECTION_WINDOW",
    "STREAM_WINDOW",
    "ClientConnection",
    "H2Connection",
    "request_headers",
    "response_head",
]

#: What an https connection offers by ALPN when HTTP/2 is asked for, best first.
ALPN_PROTOCOLS = ("h2", "http/1.1")
#: Receive window of each stream (SETTINGS_INITIAL_WINDOW_SIZE). 16 MiB keeps a loopback
#: or long fat link busy; the bytes wait in the kernel's buffers, not in ours.
STREAM_WINDOW = 16 << 20
#: Receive window of the whole connection, raised with WINDOW_UPDATE at start (the
#: protocol starts every connection at 65,535 bytes whatever the settings say).
CONNECTION_WINDOW = 1 << 30
#: Largest DATA frame we accept (SETTINGS_MAX_FRAME_SIZE): fewer frames per MiB when the
#: server is willing to send big ones.
MAX_FRAME_SIZE = 1 << 20

#: Request headers HTTP/2 forbids (RFC 9113 8.2.2) or expresses as pseudo-headers.
_CONNECTION_SPECIFIC = frozenset(
    {"host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"}
)


def request_headers(
    scheme: str, target: str, headers: Iterable[tuple[str, str]], method: str = "GET"
) -> list[tuple[str, str]]:
    """The header block of a request for ``target``, from HTTP/1.1-style ``headers``.

    ``Host`` becomes ``:authority``; connection-specific headers are dropped; names are
    lower-cased, as HTTP/2 requires. Pseudo-headers come first.
    """
    authority = ""
    rest: list[tuple[str, str]] = []
    for name, value in headers:
        lower = name.lower()
        if lower == "host":
            authority = value
        elif lower not in _CONNECTION_SPECIFIC:
            rest.append((lower, value))
    pseudo = [(":method", method), (":scheme", scheme), (":authority", authority),
              (":path", target)]
    return pseudo + rest


def response_head(headers: Iterable[tuple[bytes | str, bytes | str]]) -> Response:
    """A response head (status, headers with lower-case names) from an HTTP/2 header block.

    Raises ValueError when ``:status`` is missing or not a three-digit number.
    """
    status: int | None = None
    fields: list[tuple[str, str]] = []
    for raw_name, raw_value in headers:
        name = raw_name.decode("latin-1") if isinstance(raw_name, bytes) else raw_name
        value = raw_value.decode("latin-1") if isinstance(raw_value, bytes) else raw_value
        if name == ":status":
            status = ascii_int(value) if len(value) == 3 else None
            if status is None:
                raise ValueError(f"invalid :status {value!r}")
        elif not name.startswith(":"):
            fields.append((name.lower(), value))
    if status is None:
        raise ValueError("no :status in the response")
    return Response(status=status, reason="", http_version="2", headers=fields)


class ClientConnection(h2.connection.H2Connection):
    """h2's connection, but one that keeps reading after the server's GOAWAY, and that
    refuses a stream's frames once the server has ended it.

    h2 moves to its closed state on GOAWAY and raises on every later frame, although
    the streams up to the GOAWAY's last-stream-id are still being answered (nginx says
    GOAWAY after ``keepalive_requests`` streams, then answers those it took). Here the
    GOAWAY is only reported (``ConnectionTerminated``); the caller opens no stream
    after it, and decides what the unprocessed streams become.

    HEADERS or DATA on a stream the server already ended (END_STREAM) answer nothing:
    RFC 9113 5.1 lets (RFC 7540 5.1 made) that a connection error of type
    STREAM_CLOSED, and it is one here. h2 4 only resets the stream while it still
    remembers it, dropping the bytes: they reach no other stream either way (streams
    are told apart by id, and an id is never used twice), but a server that sends a
    response nobody asked for is out of step, and its connection is not trusted with
    more requests. A frame on a stream the client never opened is h2's own connection
    error already; late DATA on a stream *we* reset is expected and stays h2's
    business (it is counted against the window and dropped).
    """

    def _receive_frame(self, frame: Frame) -> list[h2.events.Event]:
        sid = frame.stream_id
        if (sid and isinstance(frame, DataFrame | HeadersFrame)
                and self._stream_closed_by(sid) is StreamClosedBy.RECV_END_STREAM):
            error = h2.exceptions.ProtocolError(
                f"{type(frame).__name__[:-5].upper()} on stream {sid} after the server "
                "ended it")
            error.error_code = ErrorCodes.STREAM_CLOSED
            raise error
        return super()._receive_frame(frame)

    def _receive_goaway_frame(
        self, frame: GoAwayFrame
    ) -> tuple[list[Frame], list[h2.events.Event]]:
        self.clear_outbound_data_buffer()
        event = h2.events.ConnectionTerminated()
        event.error_code = h2.errors._error_code_from_int(frame.error_code)
        event.last_stream_id = frame.last_stream_id
        event.additional_data = frame.additional_data or None
        return [], [event]


class H2Connection:
    """One HTTP/2 connection carrying one stream at a time (see the module docstring).

    The surface mirrors ``http._Connection``: ``key``, ``cycles``, ``reusable``,
    ``next_cycle()``, ``aclose()``, and ``request`` / ``body`` / ``discard`` for what
    HTTP/1.1 does with h11 events.
    """

    http_version = "2"

    def __init__(self, stream: Stream, key: Route, *, prior_knowledge: bool = False):
        self.stream = stream
        self.key = key
        self.cycles = 0
        #: The preface went out unasked on a plain connection: a server that answers it
        #: with no HTTP/2 at all does not speak it without TLS.
        self.prior_knowledge = prior_knowledge
        self._heard = False  # the server's first bytes have arrived
        self._pending = b""  # bytes read past the 101 of an upgrade, not yet given to h2
        config = h2.config.H2Configuration(client_side=True, header_encoding=None)
        self.h2: h2.connection.H2Connection = ClientConnection(config=config)
        self._events: deque[h2.events.Event] = deque()
        self._stream_id: int | None = None
        self._ended = False  # the current stream is finished (ended or reset by us)
        self._broken = False  # GOAWAY, EOF or a framing error: never reuse

    async def start(self) -> None:
        """Send the connection preface, our settings and the bigger connection window."""
        self.h2.initiate_connection()
        await self._tune()

    def upgrade_header(self) -> str:
        """The ``HTTP2-Settings`` value of an ``Upgrade: h2c`` request (RFC 7540 3.2.1:
        base64url without padding), stream 1 set up as that request's; nothing is sent
        before the server's ``101`` (:meth:`switched`)."""
        payload = self.h2.initiate_upgrade_connection() or b""
        return payload.decode("ascii").rstrip("=")

    async def switched(self, trailing: bytes) -> Response:
        """After the server's ``101``: send the preface and our settings, and read the
        head of stream 1, the response to the upgrade request. ``trailing``: what was
        read past the ``101``, already HTTP/2."""
        self._pending = trailing
        self._stream_id = 1
        self._ended = False
        await self._tune()
        return await self._head(1)

    async def _tune(self) -> None:
        """Our settings and the connection window after the preface, then sent."""
        # As an update, not as initial values: h2 applies a setting to what it accepts
        # (the frame size limit, the windows of open streams) when the server acknowledges
        # it, and initial values are never acknowledged as changes. The server applies it
        # before it reads our request, so its first DATA already sees the larger limits.
        self.h2.update_settings({
            h2.settings.SettingCodes.ENABLE_PUSH: 0,
            h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: STREAM_WINDOW,
            h2.settings.SettingCodes.MAX_FRAME_SIZE: MAX_FRAME_SIZE,
        })
        self.h2.increment_flow_control_window(CONNECTION_WINDOW - 65535)
        # Frames up to our limit are accepted at once: h2 would apply it on the ACK,
        # and a server that sends its ACK and a large frame in one write (as a reply
        # to a request of the same write) would otherwise look like a framing error.
        self.h2.max_inbound_frame_size = MAX_FRAME_SIZE
        await self._flush()

    @property
    def url(self) -> str:
        """The URL of the current request, password masked (for messages)."""
        return self.stream.url.masked()

    async def _flush(self) -> None:
        data = self.h2.data_to_send()
        if data:
            await self.stream.send(data)

    async def _next_event(self) -> h2.events.Event | None:
        """The next event of the connection; None when the server has closed it."""
        while not self._events:
            data, self._pending = self._pending, b""
            data = data or await self.stream.receive(DEFAULT_RECEIVE_SIZE)
            not_h2 = self.not_http2(data)
            if not_h2 is not None:
                self._broken = True
                raise not_h2
            if not data:
                self._broken = True
                return None
            try:
                self._events.extend(self.h2.receive_data(data))
            except h2.exceptions.ProtocolError as exc:
                self._broken = True
                raise self._framing_error(exc) from exc
            # Settings and ping acknowledgements, window updates: h2 wrote them.
            await self._flush()
        return self._events.popleft()

    def not_http2(self, data: bytes) -> ProtocolError | None:
        """The error of a server that answers a preface sent unasked (prior knowledge)
        with no HTTP/2, when ``data`` (what it sent first; empty: it closed) says so.
        A server's first frame is its SETTINGS (type 4)."""
        if self._heard:
            return None
        self._heard = True
        if not self.prior_knowledge or (data and data[3:4] in (b"\x04", b"")):
            return None
        url = self.stream.url
        return ProtocolError(
            f"the server of {url.masked()} does not speak HTTP/2 without TLS (prior "
            "knowledge); drop --http2-prior-knowledge or use --http2", url=url)

    def _framing_error(self, exc: h2.exceptions.ProtocolError) -> AnyURLError:
        url = self.stream.url
        if (isinstance(exc, h2.exceptions.InvalidBodyLengthError)
                and exc.actual_length < exc.expected_length):
            return PartialTransfer(
                f"the HTTP/2 stream of {url.masked()} ended after {exc.actual_length} of "
                f"{exc.expected_length} bytes (content-length)",
                received=exc.actual_length, expected=exc.expected_length, url=url,
                hint="Try again with resume (resume=True) to continue where it stopped.",
            )
        return ProtocolError(f"the server of {url.masked()} broke HTTP/2: {exc}", url=url)

    def _terminated(self, event: h2.events.ConnectionTerminated) -> str:
        self._broken = True
        code = _code_name(event.error_code)
        extra = f" ({event.additional_data.decode('latin-1')})" if event.additional_data else ""
        return f"GOAWAY {code}{extra}"

    def _answered_after_goaway(self, event: h2.events.Event | None, stream_id: int) -> bool:
        """A graceful GOAWAY that names ``stream_id`` as processed: the stream goes on
        to its end, and the connection is not reused (see :class:`ClientConnection`)."""
        if (isinstance(event, h2.events.ConnectionTerminated)
                and event.error_code == ErrorCodes.NO_ERROR
                and (event.last_stream_id or 0) >= stream_id):
            self._broken = True
            return True
        return False

    def _reset(self, event: h2.events.StreamReset) -> ProtocolError:
        url = self.stream.url
        return ProtocolError(
            f"the server of {url.masked()} reset the HTTP/2 stream: "
            f"RST_STREAM {_code_name(event.error_code)}", url=url)

    def _other_stream(self, event: h2.events.Event, stream_id: int) -> bool:
        """Whether ``event`` belongs elsewhere (a finished or reset stream, the connection).

        DATA of an earlier stream still counts against the connection window: it is
        acknowledged here, or a long-lived pooled connection would slowly close up.
        """
        other = getattr(event, "stream_id", stream_id) != stream_id
        if other and isinstance(event, h2.events.DataReceived) and event.flow_controlled_length:
            self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        return other

    async def request(self, scheme: str, target: str, headers: list[tuple[str, str]],
                      method: str = "GET", body: Body | None = None) -> Response:
        """Send a request on a new stream and return the response head (1xx skipped).

        A body is not sent over HTTP/2 (the handler sends such requests over HTTP/1.1):
        it would need the flow-control windows of the upload direction.
        """
        assert not body, "request bodies go over HTTP/1.1"
        stream_id = self.h2.get_next_available_stream_id()
        self._stream_id = stream_id
        self._ended = False
        self.h2.send_headers(stream_id, request_headers(scheme, target, headers, method),
                             end_stream=True)
        await self._flush()
        return await self._head(stream_id)

    async def _head(self, stream_id: int) -> Response:
        """The response head of ``stream_id`` (1xx skipped)."""
        url = self.stream.url
        while True:
            event = await self._next_event()
            if self._answered_after_goaway(event, stream_id):
                continue
            if event is None or isinstance(event, h2.events.ConnectionTerminated):
                why = "closed the connection" if event is None else (
                    f"ended the connection ({self._terminated(event)})")
                raise ConnectionLost(
                    f"the server of {url.masked()} {why} without a response", url=url)
            if self._other_stream(event, stream_id):
                continue
            if isinstance(event, h2.events.ResponseReceived):
                try:
                    return response_head(event.headers or [])
                except ValueError as exc:
                    self._broken = True
                    raise ProtocolError(
                        f"the server of {url.masked()} broke HTTP/2: {exc}", url=url) from exc
            if isinstance(event, h2.events.StreamReset):
                self._ended = True
                raise self._reset(event)

    async def body(self, response: Response) -> AsyncIterator[bytes]:
        """The DATA of the current stream, acknowledged as the consumer takes it.

        The response's content-length names what was expected when the connection ends
        inside the body (h2 itself checks a body against it).
        """
        length = response.content_length
        url = self.stream.url
        stream_id = self._stream_id
        assert stream_id is not None, "body() before request()"
        received = 0
        while not self._ended:
            event = await self._next_event()
            if self._answered_after_goaway(event, stream_id):
                continue
            if event is None or isinstance(event, h2.events.ConnectionTerminated):
                why = "closed the connection" if event is None else self._terminated(event)
                of = f" of {length}" if length is not None else ""
                raise PartialTransfer(
                    f"the server of {url.masked()} {why} after {received}{of} bytes of the "
                    "body", received=received, expected=length, url=url,
                    hint="Try again with resume (resume=True) to continue where it stopped.")
            if self._other_stream(event, stream_id):
                continue
            if isinstance(event, h2.events.DataReceived):
                if event.data:
                    received += len(event.data)
                    yield event.data
                # Acknowledged once consumed: the window is what the reader can take.
                self.h2.acknowledge_received_data(event.flow_controlled_length or 0, stream_id)
                await self._flush()
            elif isinstance(event, h2.events.StreamEnded):
                self._ended = True
            elif isinstance(event, h2.events.StreamReset):
                self._ended = True
                raise self._reset(event)

    async def discard(self, response: Response) -> bytes | None:
        """Drop the rest of the current stream (RST_STREAM CANCEL); the connection stays.
        Nothing of the body is kept (None)."""
        if self._ended or self._stream_id is None:
            return None
        self._ended = True
        try:
            self.h2.reset_stream(self._stream_id, ErrorCodes.CANCEL)
        except h2.exceptions.StreamClosedError:
            return None  # the server had ended it; its last events wait unread, then skipped
        try:
            await self._flush()
        except AnyURLError:
            self._broken = True
        return None

    @property
    def reusable(self) -> bool:
        """Whether the stream ended cleanly and the connection is open for the next one."""
        return (self._ended and not self._broken
                and self.h2.state_machine.state is not h2.connection.ConnectionState.CLOSED)

    def next_cycle(self) -> None:
        """Ready for the next request: a new stream on the same connection."""
        self._stream_id = None
        self._ended = False
        self.cycles += 1

    async def aclose(self) -> None:
        if not self._broken:
            self._broken = True
            try:
                self.h2.close_connection()
                await self._flush()
            except (h2.exceptions.ProtocolError, AnyURLError):
                pass
        await self.stream.aclose()


async def open_h2(stream: Stream, key: Route, *, prior_knowledge: bool = False) -> H2Connection:
    """An :class:`H2Connection` on ``stream``, its preface sent; closes ``stream`` on error."""
    conn = H2Connection(stream, key, prior_knowledge=prior_knowledge)
    try:
        await conn.start()
    except BaseException:
        await stream.aclose()
        raise
    return conn


def _code_name(code: int | ErrorCodes | None) -> str:
    if code is None:
        return "(no code)"
    try:
        return ErrorCodes(code).name
    except ValueError:
        return f"error {int(code)}"
