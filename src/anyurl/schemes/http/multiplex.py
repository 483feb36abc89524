"""HTTP/2 multiplexing for batches: a route's GET (or HEAD) requests as concurrent streams.

The handler's ``open_batch`` hands a route's URLs here when the batch
speaks HTTP/2 (``HTTPOptions(http2=True)``, or by default on https when the server picks
``h2`` by ALPN; see docs/schemes/http.md). One connection carries up to a window of
streams at once and the responses come out in the order of the URLs, under
:meth:`~anyurl.schemes.base.SchemeHandler.open_batch`'s contract.

Decisions:

* **No reader task.** As in :mod:`.http2`, the consumer drives the connection: waiting
  for a head or reading a body reads the socket once and sorts what came into the
  streams it belongs to (:meth:`Multiplexer.pump`). Nothing differs between asyncio and
  trio, and nothing runs when nobody reads.
* **Memory is bounded by flow control, not by buffers.** Batch streams start with a
  small window (:data:`SMALL_WINDOW`, by SETTINGS_INITIAL_WINDOW_SIZE), and DATA is
  acknowledged (WINDOW_UPDATE) only once the caller has taken it: the data of a stream
  nobody reads yet is at most its window, so at most :data:`MAX_STREAMS` windows wait
  in memory, however large the bodies. The stream being read gets the large window of
  :data:`~.http2.STREAM_WINDOW` when its body is longer than the small one, since its
  bytes leave as fast as they come: it holds one DATA frame at most (up to
  :data:`~.http2.MAX_FRAME_SIZE`). h2 refuses a server that sends past a window.
* **Streams in flight.** Up to :data:`MAX_STREAMS`, and never more than the server's
  SETTINGS_MAX_CONCURRENT_STREAMS: a new connection opens one stream until the server's
  settings have arrived. A stream counts until the caller is done with its response.
* **What fails what.** A stream reset fails its URL only (``REFUSED_STREAM``, which
  says the server did not process it, is sent again). A GOAWAY lets the streams up to
  its last-stream-id finish (:class:`~.http2.ClientConnection`); the URLs of later
  streams are sent again on a new connection, as the pipeline re-sends unanswered
  requests. A connection that closes or breaks sends the URLs the caller has not seen
  again, unless it was new and answered none (then its first URL gets the error, as
  in the pipeline).
* **What a response means stays** the handler's, asked through the
  :class:`~.seam.HandlerSeam` it hands in (this module never imports the handler): a
  redirect goes, as it was answered, to the one redirect loop (:mod:`.redirects`), which
  asks its target on a request of its own and not the redirect again; status errors,
  HEAD and decoding are :func:`~.responses.to_resource` on a :class:`StreamExchange`,
  the stream shaped as the handler's connection.
* **The connection goes back to the pool** when the batch ends cleanly (no GOAWAY, not
  broken; streams still open are reset), its stream window raised again for the
  one-stream requests of the handler's ``open``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from typing import TYPE_CHECKING, Final

import anyio
import h2.events
import h2.exceptions
import h2.settings
from h2.errors import ErrorCodes

from anyurl.errors import (
    AnyURLError,
    ConnectionLost,
    OptionError,
    PartialTransfer,
    ProtocolError,
    StreamClosed,
    TransferTimeout,
)
from anyurl.net.transport import DEFAULT_RECEIVE_SIZE
from anyurl.resource import Resource
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.http.batch import Outcome, pipelined
from anyurl.schemes.http.http2 import (
    STREAM_WINDOW,
    H2Connection,
    _code_name,
    request_headers,
    response_head,
)
from anyurl.schemes.http.interfaces import Body, Connection, Response
from anyurl.schemes.http.options import HTTPOptions
from anyurl.schemes.http.redirects import REDIRECT_STATUSES
from anyurl.schemes.http.routes import Route, mask_header, masked_target, request_target
from anyurl.url import URL

if TYPE_CHECKING:
    from anyurl.schemes.http.seam import HandlerSeam

__all__ = ["MAX_STREAMS", "SMALL_WINDOW", "Multiplexer", "StreamExchange", "multiplexed"]

#: Receive window of a batch's streams: what a stream not yet read may hold in memory.
SMALL_WINDOW: Final = 64 * 1024
#: The most streams of a batch in flight on one connection (the server may allow fewer).
MAX_STREAMS: Final = 64
#: How often one URL is sent again (refused, or its connection went away) before its
#: last error is its outcome.
MAX_TRIES: Final = 3

class _Stream:
    """One request's stream: its head, the DATA the caller has not taken, its end."""

    __slots__ = ("buffered", "chunks", "dropped", "ended", "error", "head", "received",
                 "refused", "stream_id", "url")

    def __init__(self, stream_id: int, url: URL):
        self.stream_id = stream_id
        self.url = url
        self.head: Response | None = None
        #: (data, flow-controlled length) not yet taken by the caller.
        self.chunks: deque[tuple[bytes, int]] = deque()
        self.buffered = 0
        self.received = 0
        self.ended = False  # END_STREAM or a reset
        self.error: AnyURLError | None = None  # reset (not REFUSED_STREAM), bad head
        self.refused = False  # unprocessed by the server: safe to send again
        self.dropped = False  # nobody will read it


class Multiplexer:
    """An :class:`~.http2.H2Connection` carrying many streams for a batch.

    It takes the connection's h2 state over for the batch's length; :meth:`release`
    gives it back to the pool (or closes it).
    """

    def __init__(self, conn: H2Connection):
        self.conn = conn
        self.h2 = conn.h2
        self.stream = conn.stream
        #: Streams the caller is not done with, by id.
        self.streams: dict[int, _Stream] = {}
        #: The server's SETTINGS have arrived (a pooled connection's long ago).
        self.settled = conn.cycles > 0
        self.reused = conn.cycles > 0
        #: The last-stream-id of the server's GOAWAY, once sent.
        self.goaway: int | None = None
        #: Nothing more will arrive (closed, broken, timed out).
        self.dead = False
        #: What ended it, when it was an error (a framing error, a timeout).
        self.failure: AnyURLError | None = None
        #: Responses handed to the caller.
        self.answered = 0
        #: Body bytes held for streams, now and at most (tests read them).
        self.buffered = 0
        self.peak_buffered = 0
        #: The most streams in flight at once.
        self.peak_streams = 0
        # Events a pooled connection read past its last stream (late DATA of a reset
        # one, a GOAWAY): sorted as any, so their bytes go back to the windows.
        while conn._events:
            self._sort(conn._events.popleft())
        self.h2.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: SMALL_WINDOW})

    def limit(self) -> int:
        """The most streams in flight: ours, the server's, one before its SETTINGS."""
        if not self.settled:
            return 1
        return min(MAX_STREAMS, self.h2.remote_settings.max_concurrent_streams)

    def room(self) -> int:
        """How many more streams may be opened now."""
        if self.dead or self.goaway is not None:
            return 0
        return self.limit() - len(self.streams)

    def open(self, url: URL, headers: list[tuple[str, str]]) -> _Stream:
        """A new stream carrying a request without a body (sent with the next flush)."""
        stream_id = self.h2.get_next_available_stream_id()
        self.h2.send_headers(stream_id, headers, end_stream=True)
        stream = self.streams[stream_id] = _Stream(stream_id, url)
        self.peak_streams = max(self.peak_streams, len(self.streams))
        return stream

    async def flush(self) -> None:
        """Send what h2 has queued (requests, WINDOW_UPDATEs, resets, acknowledgements)."""
        data = self.h2.data_to_send()
        if data and not self.dead:
            try:
                await self.stream.send(data)
            except AnyURLError as exc:
                self._die(exc)

    def _die(self, failure: AnyURLError | None) -> None:
        self.dead = True
        if self.failure is None:
            self.failure = failure

    async def pump(self) -> None:
        """Flush, then read once and sort the events into their streams."""
        await self.flush()
        if self.dead:
            return
        try:
            data = await self.stream.receive(DEFAULT_RECEIVE_SIZE)
        except AnyURLError as exc:  # a read timeout, a reset connection
            self._die(exc)
            return
        not_h2 = self.conn.not_http2(data)  # an answer to prior knowledge that is not h2
        if not data or not_h2 is not None:
            self._die(not_h2)
            return
        try:
            events = self.h2.receive_data(data)
        except h2.exceptions.ProtocolError as exc:
            self._die(self.conn._framing_error(exc))
            return
        for event in events:
            self._sort(event)
        await self.flush()

    def _sort(self, event: h2.events.Event) -> None:
        if isinstance(event, h2.events.DataReceived):
            flow = event.flow_controlled_length or 0
            stream = self.streams.get(event.stream_id or 0)
            if stream is None or stream.dropped:
                if flow:  # a dropped stream's: back to the connection's window
                    self.h2.acknowledge_received_data(flow, event.stream_id or 0)
                return
            data = event.data or b""
            stream.chunks.append((data, flow))
            stream.buffered += len(data)
            stream.received += len(data)
            self.buffered += len(data)
            self.peak_buffered = max(self.peak_buffered, self.buffered)
        elif isinstance(event, h2.events.ResponseReceived):
            stream = self.streams.get(event.stream_id or 0)
            if stream is not None:
                try:
                    stream.head = response_head(event.headers or [])
                except ValueError as exc:
                    stream.error = ProtocolError(
                        f"the server of {stream.url.masked()} broke HTTP/2: {exc}",
                        url=stream.url)
        elif isinstance(event, h2.events.StreamEnded):
            stream = self.streams.get(event.stream_id or 0)
            if stream is not None:
                stream.ended = True
        elif isinstance(event, h2.events.StreamReset):
            stream = self.streams.get(event.stream_id or 0)
            if stream is not None and not stream.dropped:
                stream.ended = True
                if event.error_code == ErrorCodes.REFUSED_STREAM and stream.head is None:
                    stream.refused = True
                else:
                    stream.error = ProtocolError(
                        f"the server of {stream.url.masked()} reset the HTTP/2 stream: "
                        f"RST_STREAM {_code_name(event.error_code)}", url=stream.url)
        elif isinstance(event, h2.events.ConnectionTerminated):
            last = event.last_stream_id or 0
            self.goaway = last if self.goaway is None else min(self.goaway, last)
            for stream in self.streams.values():
                if stream.stream_id > last and stream.head is None:
                    stream.refused = True
                    stream.ended = True
        elif isinstance(event, h2.events.RemoteSettingsChanged):
            self.settled = True

    def take(self, stream: _Stream) -> tuple[bytes, int] | None:
        """The oldest DATA of ``stream`` not yet taken, or None."""
        if not stream.chunks:
            return None
        data, flow = stream.chunks.popleft()
        stream.buffered -= len(data)
        self.buffered -= len(data)
        return data, flow

    def consumed(self, stream: _Stream, flow: int) -> None:
        """The caller took ``flow`` bytes of ``stream``: the server may send as many more
        (WINDOW_UPDATE with the next flush, as h2 batches them)."""
        if flow:
            self.h2.acknowledge_received_data(flow, stream.stream_id)

    def widen(self, stream: _Stream) -> None:
        """Give the stream being read the large window (its bytes leave as they come)."""
        try:
            self.h2.increment_flow_control_window(STREAM_WINDOW - SMALL_WINDOW,
                                                  stream.stream_id)
        except h2.exceptions.ProtocolError:
            pass  # the stream has ended meanwhile: nothing more to let in

    def drop(self, stream: _Stream) -> None:
        """Nobody will read ``stream``: reset it if the server has not ended it, give its
        held bytes back to the windows. No I/O: the reset goes with the next flush."""
        if stream.dropped:
            return
        stream.dropped = True
        while (piece := self.take(stream)) is not None:
            self.consumed(stream, piece[1])
        if not stream.ended and not self.dead:
            try:
                self.h2.reset_stream(stream.stream_id, ErrorCodes.CANCEL)
            except h2.exceptions.ProtocolError:
                pass  # closed on h2's side already
        self.streams.pop(stream.stream_id, None)

    def done(self, stream: _Stream) -> None:
        """The caller has read ``stream`` to its end."""
        self.streams.pop(stream.stream_id, None)

    async def release(self, keep: Callable[[Connection], Awaitable[None]]) -> None:
        """Back to the pool when it can carry more requests, else closed."""
        for stream in list(self.streams.values()):
            self.drop(stream)
        conn = self.conn
        if self.dead or self.goaway is not None:
            conn._broken = True
            await conn.aclose()
            return
        self.h2.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: STREAM_WINDOW})
        await self.flush()
        if self.dead:
            conn._broken = True
            await conn.aclose()
            return
        conn.cycles += self.answered
        conn._stream_id = None
        conn._ended = False
        await keep(conn)

    async def aclose(self) -> None:
        """Close the connection."""
        self.dead = True
        await self.conn.aclose()


class StreamExchange:
    """One stream's response as the handler's :class:`~.interfaces.Connection`.

    Its body is valid until the batch moves on (then :class:`StreamClosed`); closing it
    drops what is left (a reset), never the connection, which is the batch's.
    """

    http_version = "2"

    def __init__(self, mux: Multiplexer, stream: _Stream, url: URL, cycles: int):
        self.mux = mux
        self.s = stream
        self.url = url
        self.key: Route = mux.conn.key
        self.stream = mux.stream
        self.cycles = cycles
        self.finished = False
        self.detached = False

    async def request(self, scheme: str, target: str, headers: list[tuple[str, str]],
                      method: str = "GET", body: Body | None = None) -> Response:
        """Not for an exchange: its request went out with the batch."""
        raise StreamClosed(f"a multiplexed stream of {self.url.masked()} cannot send",
                           url=self.url)

    def body(self, response: Response) -> AsyncIterator[bytes]:
        """The stream's DATA as the caller takes it; until the batch moves on."""
        if self.detached:
            return self._detached()
        return self._pieces(response)

    async def _pieces(self, response: Response) -> AsyncIterator[bytes]:
        mux, stream = self.mux, self.s
        length = response.content_length
        while True:
            piece = mux.take(stream)
            if piece is not None:
                data, flow = piece
                if data:
                    yield data
                mux.consumed(stream, flow)  # acknowledged once taken
                continue
            if stream.error is not None:
                self.finished = True
                mux.drop(stream)
                raise stream.error
            if stream.ended:
                break
            if self.detached or stream.dropped:
                raise StreamClosed(f"the body of {self.url.masked()} was closed",
                                   url=self.url)
            if mux.dead:
                self.finished = True
                mux.drop(stream)
                if mux.failure is not None:  # a timeout, a framing error: as it is
                    raise mux.failure
                of = f" of {length}" if length is not None else ""
                raise PartialTransfer(
                    f"the server of {self.url.masked()} closed the connection after "
                    f"{stream.received}{of} bytes of the body",
                    received=stream.received, expected=length, url=self.url,
                    hint="Try again with resume (resume=True) to continue where it stopped.")
            mux.stream.url = self.url
            await mux.pump()
        self.finished = True
        mux.done(stream)

    async def _detached(self) -> AsyncIterator[bytes]:
        raise StreamClosed(
            f"the body of {self.url.masked()} was read after its batch moved on",
            url=self.url,
            hint="Read each resource of open_batch before asking for the next.")
        yield b""  # pragma: no cover - an async generator, as body() promises

    async def discard(self, response: Response) -> bytes | None:
        """Drop the body (a redirect's, an error page): a reset, the connection stays;
        nothing of it is kept (None)."""
        self.finish()
        return None

    def finish(self) -> None:
        """Done with this response: whatever is left is dropped."""
        if not self.finished:
            self.finished = True
            self.mux.drop(self.s)

    @property
    def reusable(self) -> bool:
        """Never by the pool: the batch gives the connection back when it ends."""
        return False

    def next_cycle(self) -> None:
        """Nothing: the batch keeps the connection (see :attr:`reusable`)."""

    async def aclose(self) -> None:
        """The handler is done with this response (no I/O: a reset waits for a flush)."""
        self.finish()


class _Request:
    """One URL of the batch: its header block once prepared, its stream once sent."""

    __slots__ = ("error", "h2_headers", "headers", "stream", "target", "tries", "url")

    def __init__(self, url: URL):
        self.url = url
        self.headers: list[tuple[str, str]] | None = None
        self.h2_headers: list[tuple[str, str]] = []
        self.target = ""
        self.error: AnyURLError | None = None
        self.stream: _Stream | None = None
        self.tries = 0


def _prepare(seam: HandlerSeam, request: _Request, route: Route, options: FetchOptions,
             method: str) -> None:
    current = request.url.without_fragment()
    try:
        headers = seam.headers(current, route, options)
        request.h2_headers = request_headers(current.scheme, request_target(current, route),
                                             headers, method)
        request.headers = headers
        request.target = masked_target(current, route)
    except AnyURLError as exc:
        request.error = exc
        request.headers = []


def _send_more(seam: HandlerSeam, mux: Multiplexer, queue: deque[_Request], route: Route,
               options: FetchOptions, method: str) -> None:
    """Open streams for the first unsent URLs of ``queue``, as the window allows."""
    room = mux.room()
    head = queue[0] if queue else None
    if (room <= 0 and head is not None and head.stream is None and head.error is None
            and mux.streams and not mux.dead and mux.goaway is None):
        # The first URL goes out again (refused) with the window full of later ones,
        # which cannot be read before it: the last one sent gives its place up.
        last = next(r for r in reversed(queue) if r.stream is not None)
        assert last.stream is not None
        mux.drop(last.stream)
        last.stream = None
        room = mux.room()
    if room <= 0:
        return
    trace = options.trace
    for request in queue:
        if room <= 0:
            break
        if request.stream is not None or request.error is not None:
            continue
        if request.headers is None:
            _prepare(seam, request, route, options, method)
            if request.error is not None:
                continue
        try:
            request.stream = mux.open(request.url, request.h2_headers)
        except h2.exceptions.TooManyStreamsError:
            break  # the server lowered its limit: the next round
        except h2.exceptions.ProtocolError as exc:
            request.error = OptionError(
                f"the request for {request.url.masked()} cannot be written: {exc}",
                url=request.url)
            continue
        room -= 1
        if trace:
            trace(f"> {method} {request.target} HTTP/2 (stream {request.stream.stream_id})")


def multiplexed(
    seam: HandlerSeam, route: Route, urls: list[URL], options: FetchOptions, method: str
) -> AsyncGenerator[Outcome, None]:
    """One route's URLs as streams of HTTP/2 connections (see the module docstring).

    The first connection is asked for HTTP/2 (ALPN on https); when the server picks
    HTTP/1.1 the URLs go to the pipeline (:func:`.batch.pipelined`) on that connection.
    """
    return _MultiplexRun(seam, route, urls, options, method).run()


class _MultiplexRun:
    """One route's multiplexed batch: the state of its loop, and each turn of the loop
    cut where it decides something (as :class:`.batch.PipelineRun` is)."""

    def __init__(self, seam: HandlerSeam, route: Route, urls: list[URL],
                 options: FetchOptions, method: str):
        self.seam = seam
        self.route = route
        self.options = options
        self.method = method
        self.trace = options.trace
        self.queue: deque[_Request] = deque(_Request(url) for url in urls)
        self.mux: Multiplexer | None = None
        #: The response handed over last, until the caller moves on.
        self.exchange: StreamExchange | None = None

    async def run(self) -> AsyncGenerator[Outcome, None]:
        """The loop: each URL in order, its outcome yielded when known."""
        queue = self.queue
        try:
            while queue:
                request = queue[0]
                if request.headers is None:  # before connecting, as open() does
                    _prepare(self.seam, request, self.route, self.options, self.method)
                if request.error is not None:
                    queue.popleft()
                    yield request.url, request.error
                    continue
                if self.mux is None:
                    try:
                        conn = await self.seam.connect(
                            self.route, request.url, self.trace, True,
                            self.options.get(HTTPOptions).http2_prior_knowledge)
                    except AnyURLError as exc:
                        queue.popleft()
                        yield request.url, exc  # the next URL tries its own connection
                        continue
                    if not isinstance(conn, H2Connection):
                        # The server chose HTTP/1.1 (ALPN): pipelined on this connection.
                        await self.seam.keep(conn)
                        async with aclosing(pipelined(self.seam, self.route,
                                                      [r.url for r in queue], self.options,
                                                      self.method)) as items:
                            async for item in items:
                                yield item
                        return
                    self.mux = Multiplexer(conn)
                outcome = await self.turn(request, self.mux)
                if outcome is not None:
                    yield request.url, outcome
                if self.exchange is not None:
                    self.detach()
        finally:
            if self.exchange is not None:
                self.detach()
            if self.mux is not None:
                with anyio.CancelScope(shield=True):
                    await self.mux.release(self.seam.keep)

    def detach(self) -> None:
        """The caller moved past the response handed over last."""
        assert self.exchange is not None
        self.exchange.detached = True
        self.exchange.finish()
        self.exchange = None

    async def turn(self, request: _Request, mux: Multiplexer) -> Resource | AnyURLError | None:
        """Send what the window allows and read until ``request`` (the first URL) is
        decided: its outcome, or None when it is to be asked again (or its request
        could not be written: the loop's top yields that error)."""
        while True:
            _send_more(self.seam, mux, self.queue, self.route, self.options, self.method)
            stream = request.stream
            if (request.error is not None or stream is None or stream.head is not None
                    or stream.error is not None or stream.refused or mux.dead):
                break
            mux.stream.url = request.url
            await mux.pump()
        if request.error is not None:
            return None
        stream = request.stream
        if stream is not None and stream.error is not None:
            self.queue.popleft()
            mux.drop(stream)
            return stream.error
        if (stream is not None and stream.head is not None and not stream.refused
                and (stream.ended or not mux.dead)):
            self.queue.popleft()
            return await self.answered(request, stream, stream.head, mux)
        if stream is None and not mux.dead and mux.goaway is None:
            # No room although no stream is ahead of it: the server allows none.
            self.queue.popleft()
            return ProtocolError(
                f"the server of {request.url.masked()} allows no HTTP/2 stream "
                "(SETTINGS_MAX_CONCURRENT_STREAMS 0)", url=request.url)
        if stream is not None and stream.refused and not mux.dead and mux.goaway is None:
            # REFUSED_STREAM on a connection that goes on: send it again there.
            mux.drop(stream)
            request.stream = None
            request.tries += 1
            if request.tries >= MAX_TRIES:
                self.queue.popleft()
                return ProtocolError(
                    f"the server of {request.url.masked()} refused its HTTP/2 stream "
                    f"{request.tries} times", url=request.url)
            return None
        return await self.gone(request, mux)

    async def answered(self, request: _Request, stream: _Stream, response: Response,
                       mux: Multiplexer) -> Resource | AnyURLError:
        """``request``'s response: what it means (the handler's answer)."""
        trace = self.trace
        if trace:
            trace(f"< {response.status_line}")
            for k, v in response.headers:
                trace(f"< {k}: {v}")
        cycles = mux.conn.cycles + mux.answered
        mux.answered += 1
        exchange = self.exchange = StreamExchange(mux, stream, request.url, cycles)
        length = response.content_length
        if self.method != "HEAD" and (length is None or length > SMALL_WINDOW):
            mux.widen(stream)
        sent = {"method": self.method, "target": request.target, "http_version": "2",
                "headers": [(k, mask_header(k, v)) for k, v in request.headers or []],
                "body": None}
        if response.status in REDIRECT_STATUSES and response.header("location") and trace:
            trace("* a redirect: following it one request at a time")
        # (a StreamExchange is shaped as the handler's connection: the redirect loop
        # discards an answered redirect's body and releases it)
        return await self.seam.answer(request.url, exchange, response, self.options,
                                      self.method, sent)

    async def gone(self, request: _Request, mux: Multiplexer) -> AnyURLError | None:
        """The connection is going (GOAWAY) or gone before ``request``'s response: what
        the caller has not seen is sent again on a new one, unless the connection
        answered nothing (or timed out, or this URL was tried enough): then its error."""
        answered = mux.answered or mux.reused
        failure = mux.failure
        goaway = mux.goaway
        await mux.aclose()
        self.mux = None
        for waiting in self.queue:
            waiting.stream = None
        request.tries += 1
        if isinstance(failure, TransferTimeout) or not answered or (
                request.tries >= MAX_TRIES):
            self.queue.popleft()
            return failure or ConnectionLost(
                f"the server of {request.url.masked()} "
                + ("ended the connection (GOAWAY)" if goaway is not None
                   else "closed the connection") + " without a response",
                url=request.url)
        if self.trace:
            self.trace("* the server ended the HTTP/2 connection with requests unanswered; "
                       "sending them again on a new one")
        return None
