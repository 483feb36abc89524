"""One HTTP/1.1 connection: h11's state machine over a transport stream.

h11 does the framing (request serialisation, response parsing, chunked and
close-delimited bodies, keep-alive bookkeeping). One exception, for speed: a body with
a ``Content-Length`` is read straight from the stream, counting bytes, because h11
appends every received block to a buffer and slices it out again, two copies of each
byte that measured at about 70% of the time of a loopback download. h11 has parsed the
head by then; a fresh h11 connection takes over for the next request.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import h11

from anyurl.errors import AnyURLError, ConnectionLost, PartialTransfer, ProtocolError
from anyurl.net.transport import DEFAULT_RECEIVE_SIZE, Stream
from anyurl.numbers import ascii_int
from anyurl.schemes.http.interfaces import Body, Response, is_form
from anyurl.schemes.http.routes import Route

__all__ = ["DRAIN_LIMIT", "HTTP11Connection"]

#: A redirect or error body up to this size is read and dropped so that the connection
#: can be reused; a longer one is cheaper to abandon with its connection.
DRAIN_LIMIT = 64 * 1024


class HTTP11Connection:
    """One HTTP/1.1 connection (:class:`~.interfaces.Connection`)."""

    http_version = "1.1"

    def __init__(self, stream: Stream, key: Route):
        self.stream = stream
        self.key = key
        self.h11 = h11.Connection(h11.CLIENT)
        self.cycles = 0  # responses completed on this connection
        #: Set when a body was read past h11 (:meth:`_counted_body`): None while h11
        #: keeps the state, else whether the response allows another request.
        self.bypassed: bool | None = None
        self.keep_alive = True
        #: The method of the current request: a response to HEAD has no body, whatever
        #: its Content-Length says.
        self.method = "GET"

    async def _send(self, *events: Any) -> None:
        data = b"".join(self.h11.send(event) or b"" for event in events)
        if data:
            await self.stream.send(data)

    async def _next_event(self) -> Any:
        conn = self.h11
        while True:
            state = conn.their_state
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError as exc:
                raise self._protocol_error(exc, state) from exc
            if event is h11.NEED_DATA:
                conn.receive_data(await self.stream.receive(DEFAULT_RECEIVE_SIZE))
                continue
            return event

    def _protocol_error(self, exc: h11.RemoteProtocolError, state: object) -> AnyURLError:
        url = self.stream.url
        text = str(exc)
        if "complete message body" in text:
            return PartialTransfer(
                f"the server closed the connection before the end of the body of "
                f"{url.masked()} ({text.split('(', 1)[-1].rstrip(')')})",
                url=url,
                hint="Try again with resume (resume=True) to continue where it stopped.",
            )
        if state is h11.SEND_RESPONSE and "ConnectionClosed" in text:
            return ConnectionLost(
                f"the server of {url.masked()} closed the connection without a response",
                url=url,
            )
        return ProtocolError(f"the server of {url.masked()} broke HTTP/1.1: {text}", url=url)

    async def request(self, scheme: str, target: str, headers: list[tuple[str, str]],
                      method: str = "GET", body: Body | None = None) -> Response:
        """Send the request (``headers`` frame ``body``) and read the response head
        (1xx skipped, but the ``101`` of an upgrade the request asked for: the bytes
        after it are the new protocol's, :attr:`switched_data`)."""
        self.method = method
        events: list[Any] = [h11.Request(method=method, target=target, headers=headers)]
        if is_form(body):  # streamed from its files, a block at a time
            await self._send(*events)
            async for block in body.chunks():
                await self._send(h11.Data(data=block))
            events = []
        elif body:
            events.append(h11.Data(data=body))
        events.append(h11.EndOfMessage())
        await self._send(*events)
        while True:
            event = await self._next_event()
            if isinstance(event, h11.InformationalResponse):
                if self.h11.their_state is h11.SWITCHED_PROTOCOL:
                    self.keep_alive = False  # no longer HTTP/1.1
                    return _head(event)
                continue
            if isinstance(event, h11.Response):
                return _head(event)
            if isinstance(event, h11.ConnectionClosed):
                raise ConnectionLost(
                    f"the server of {self.stream.url.masked()} closed the connection "
                    "without a response",
                    url=self.stream.url,
                )
            raise ProtocolError(  # pragma: no cover - h11 yields nothing else here
                f"unexpected {type(event).__name__} before the response of "
                f"{self.stream.url.masked()}",
                url=self.stream.url,
            )

    @property
    def switched_data(self) -> bytes:
        """What was read past a ``101 Switching Protocols``: the new protocol's."""
        return bytes(self.h11.trailing_data[0])

    def body(self, response: Response) -> AsyncIterator[bytes]:
        """Counted when the length is known and h11 expects a body, else h11's framing."""
        length = self._counted_length(response)
        if length is not None:
            return self._counted_body(response, length)
        return self._h11_body()  # h11 knows that HEAD, 204 and 304 have no body

    def _counted_length(self, response: Response) -> int | None:
        """The Content-Length of a body that is read past h11, None when h11 frames it
        (no length, or a response that has no body whatever its head says)."""
        length = response.content_length
        if (length is None or self.h11.their_state is not h11.SEND_BODY
                or self.method == "HEAD" or response.status in (204, 304)):
            return None
        return length

    def raw_body(self, response: Response) -> tuple[bytes, int] | None:
        """(bytes already read, bytes still on the socket) of a counted body that can
        be moved without Python (:mod:`anyurl.net.bulk`), else None. After the move,
        :meth:`raw_done` settles the connection as :meth:`_counted_body` does."""
        length = self._counted_length(response)
        if length is None or self.stream.plain_socket is None:
            return None
        leftover, _ = self.h11.trailing_data
        if len(leftover) > length:
            return None  # more than the body: let the chunked path see it
        return bytes(leftover), length - len(leftover)

    def raw_done(self, response: Response) -> None:
        """The raw body of ``response`` has moved: the connection is as after a read."""
        self.bypassed = _keep_alive(response)

    async def _h11_body(self) -> AsyncIterator[bytes]:
        """Chunked and close-delimited bodies, framed by h11."""
        while True:
            event = await self._next_event()
            if type(event) is h11.Data:
                yield event.data
            elif type(event) is h11.EndOfMessage or isinstance(event, h11.ConnectionClosed):
                return

    async def _counted_body(self, response: Response, length: int) -> AsyncIterator[bytes]:
        """A Content-Length body read straight from the stream, bypassing h11's buffer.

        Reads never ask for more than the rest of the body, so nothing of a following
        response is consumed.
        """
        leftover, _ = self.h11.trailing_data
        remaining = length
        if leftover:
            if len(leftover) > length:  # more than the body: not a clean HTTP/1.1 cycle
                self.keep_alive = False
            head = leftover[:length]
            remaining -= len(head)
            yield head
        stream = self.stream
        while remaining:
            data = await stream.receive(min(DEFAULT_RECEIVE_SIZE, remaining))
            if not data:
                raise PartialTransfer(
                    f"the server closed the connection after {length - remaining} of "
                    f"{length} bytes of the body of {stream.url.masked()}",
                    received=length - remaining, expected=length, url=stream.url,
                    hint="Try again with resume (resume=True) to continue where it stopped.",
                )
            remaining -= len(data)
            yield data
        self.bypassed = _keep_alive(response)

    async def discard(self, response: Response) -> bytes | None:
        """Read and drop a short body (to keep the connection); give up a long one.

        A response that has no body by its status (RFC 9112 section 6.3: 1xx, 204, 304)
        ends at its head, whatever its headers say: h11 knows, so it is drained (at once)
        and the connection kept; a refresh's 304s then share one connection.
        """
        length = response.header("content-length")
        size = None if length is None else ascii_int(length.strip(" \t"), max_digits=19)
        small = size is not None and size <= DRAIN_LIMIT
        bodiless = response.status < 200 or response.status in (204, 304)
        if not (small or bodiless) and response.header("transfer-encoding") is None:
            self.keep_alive = False
            return None
        pieces: list[bytes] = []
        received = 0
        try:
            while True:
                event = await self._next_event()
                if isinstance(event, h11.Data):
                    received += len(event.data)
                    if received > DRAIN_LIMIT:
                        self.keep_alive = False
                        return None
                    pieces.append(bytes(event.data))
                elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                    return b"".join(pieces)
        except AnyURLError:
            self.keep_alive = False
        return None

    @property
    def reusable(self) -> bool:
        """Both sides done with the cycle, and the server keeps the connection."""
        if not self.keep_alive:
            return False
        if self.bypassed is not None:
            return self.bypassed and self.h11.our_state is h11.DONE
        return self.h11.our_state is h11.DONE and self.h11.their_state is h11.DONE

    def next_cycle(self) -> None:
        """A new h11 cycle (or a new h11 state machine after a counted body)."""
        if self.bypassed is not None:
            # h11 never saw the body; a new state machine starts the next cycle.
            self.h11 = h11.Connection(h11.CLIENT)
            self.bypassed = None
        else:
            self.h11.start_next_cycle()
        self.cycles += 1

    async def aclose(self) -> None:
        """Close the stream."""
        await self.stream.aclose()


def _keep_alive(response: Response) -> bool:
    """Whether the server keeps the connection open after this response (as h11 decides)."""
    tokens = {t.strip().lower() for t in (response.header("connection") or "").split(",")}
    return "close" not in tokens and response.http_version >= "1.1"


def _head(event: h11.Response | h11.InformationalResponse) -> Response:
    return Response(
        status=event.status_code,
        reason=event.reason.decode("latin-1"),
        http_version=event.http_version.decode("ascii"),
        headers=[(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in event.headers],
    )
