"""One gopher request on one connection: the dialogue over the core, and what its
answers mean when they are errors.

Gopher has no session: each request is one TCP connection that the server closes after
the answer (RFC 1436 2). :func:`send` connects and writes the request line;
:class:`Exchange` reads the answer as the sans-I/O core
(:class:`~anyurl.protocols.gopher.ResponseReader`) frames it, tracing Gopher+ headers
and errors. An answer is then held whole (:func:`collect`, bounded by
:data:`MAX_LISTING`) or passed on as the server sent it (:func:`raw`). The error answers
(a type-3 error item, a Gopher+ ``--1``/``--2``, a short ``+n`` body) become the
exceptions of :mod:`anyurl.errors` here, for every kind of item alike.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio

from anyurl.config import Config
from anyurl.errors import (
    AnyURLError,
    PartialTransfer,
    ProtocolError,
    RemoteFileNotFound,
    ServerError,
    TransferTimeout,
)
from anyurl.net.transport import DEFAULT_RECEIVE_SIZE, Dialer, Stream
from anyurl.protocols.gopher import (
    NEED_DATA,
    Data,
    EndOfData,
    Framing,
    GopherReplyError,
    MenuItem,
    NeedData,
    PlusError,
    PlusHeader,
    ResponseReader,
    error_item_message,
)
from anyurl.resource import Resource, ResourceInfo
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.gopher.view import GopherPath
from anyurl.url import URL

__all__ = [
    "MAX_LISTING",
    "PEEK_SIZE",
    "Exchange",
    "as_sent",
    "collect",
    "partial",
    "plus_error",
    "raise_error_item",
    "send",
    "show",
]

#: Bytes of a text or binary answer looked at before streaming it, to recognise the
#: one-line type-3 error item servers send for a missing selector.
PEEK_SIZE = 4096
#: Largest menu or attribute answer held in memory.
MAX_LISTING = 64 * 1024 * 1024


def show(wire: bytes) -> str:
    """A request for the trace: one line, TABs and CR LF written out."""
    return wire.decode("utf-8", "backslashreplace").removesuffix("\r\n").replace(
        "\t", "<TAB>").replace("\r\n", "<CRLF>")


class Exchange:
    """One request on one connection: the stream, the reader and error mapping."""

    def __init__(self, stream: Stream, reader: ResponseReader, url: URL,
                 options: FetchOptions):
        self.stream = stream
        self.reader = reader
        self.url = url
        self.options = options
        self.header: int | None = None

    def trace(self, line: str) -> None:
        """Show ``line`` in the request's trace (``-v``), if one is kept."""
        if self.options.trace is not None:
            self.options.trace(line)

    async def next_event(self) -> PlusHeader | Data | EndOfData | PlusError:
        """The answer's next event, reading from the stream as the core needs."""
        while True:
            try:
                event = self.reader.next_event()
            except GopherReplyError as exc:
                raise ProtocolError(
                    f"the gopher server of {self.url.masked()} sent an unreadable answer: {exc}",
                    url=self.url,
                ) from None
            if isinstance(event, NeedData):
                self.reader.receive_data(await self._receive())
                continue
            if isinstance(event, PlusHeader):
                self.header = event.size
                self.trace(f"< +{event.size}")
            elif isinstance(event, PlusError):
                self.trace(f"< -{'-1' if self.reader.framing is Framing.DOT else '-2'} "
                           f"{event.first_line} {event.message}".rstrip())
            return event


    async def _receive(self) -> bytes:
        """The next bytes; the close (``b""``) also when a document's last line is
        ``.`` and the server then sends nothing until the read timeout: a server that
        ends texts as RFC 1436 says but keeps the connection open is done."""
        try:
            return await self.stream.receive(DEFAULT_RECEIVE_SIZE)
        except TransferTimeout:
            if not self.reader.holds_terminator:
                raise
            self.trace("* the server sent a '.' line and then nothing: taken as the end")
            return b""


async def send(dialer: Dialer, config: Config, url: URL, wire: bytes, options: FetchOptions,
               framing: Framing, *, gopher_plus: bool) -> Exchange:
    """Connect to ``url``'s server and send the request ``wire``; the answer is read
    as ``framing`` says (a Gopher+ request may be answered with a ``+n`` header)."""
    port = url.effective_port
    assert port is not None
    stream = await dialer.connect_tcp(
        url.connect_host, port, url=url,
        connect_timeout=config.connect_timeout,
        read_timeout=config.read_timeout,
        what="the gopher server",
    )
    exchange = Exchange(stream, ResponseReader(framing, gopher_plus=gopher_plus), url,
                        options)
    try:
        exchange.trace(f"> {show(wire)}")
        await stream.send(wire)
    except BaseException:
        with anyio.CancelScope(shield=True):
            await stream.aclose()
        raise
    return exchange


async def collect(exchange: Exchange) -> bytes:
    """The whole answer in memory (a menu or attribute block, up to :data:`MAX_LISTING`)."""
    parts: list[bytes] = []
    total = 0
    try:
        while True:
            event = await exchange.next_event()
            if isinstance(event, PlusError):
                raise plus_error(exchange.url, event)
            if isinstance(event, Data):
                total += len(event.data)
                if total > MAX_LISTING:
                    raise ProtocolError(
                        f"the gopher listing of {exchange.url.masked()} is larger than "
                        f"{MAX_LISTING} bytes", url=exchange.url)
                parts.append(event.data)
            elif isinstance(event, EndOfData):
                if event.short:
                    raise partial(exchange.url, event)
                return b"".join(parts)
    finally:
        with anyio.CancelScope(shield=True):
            await exchange.stream.aclose()


async def as_sent(exchange: Exchange, info: ResourceInfo) -> Resource:
    """The bytes as the server sent them, up to the end its framing says."""

    async def chunks() -> AsyncIterator[bytes]:
        reader = exchange.reader
        try:
            while True:
                data = await exchange.stream.receive(DEFAULT_RECEIVE_SIZE)
                if not data:
                    return
                yield data
                reader.receive_data(data)
                while (event := reader.next_event()) is not NEED_DATA:
                    if isinstance(event, EndOfData | PlusError):
                        return
        except GopherReplyError:
            # Raw output needs no framing beyond this point: read to the close.
            while data := await exchange.stream.receive(DEFAULT_RECEIVE_SIZE):
                yield data
        finally:
            with anyio.CancelScope(shield=True):
                await exchange.stream.aclose()

    info.size = None
    return Resource(info, chunks(), on_close=exchange.stream.aclose)


# -- errors --------------------------------------------------------------------------------


def raise_error_item(url: URL, items: list[MenuItem]) -> None:
    """Raise :class:`~anyurl.errors.RemoteFileNotFound` if ``items`` is the error item a
    server sends for a selector it has not got."""
    message = error_item_message(items)
    if message is not None:
        parts = url.parts
        assert isinstance(parts, GopherPath)
        hint = "Check the selector; fetch the server's root menu to browse."
        if parts.gopher_plus is None:
            hint += " (A Gopher+ item with a form needs %09%09? at the end of its URL.)"
        raise RemoteFileNotFound(
            f"the gopher server of {url.masked()} says: {message!r}", url=url, hint=hint,
        )


def plus_error(url: URL, event: PlusError) -> AnyURLError:
    """The error a Gopher+ ``--1``/``--2`` answer stands for, by its code."""
    text = event.text
    if event.code == 2:
        return ServerError(
            f"the gopher server of {url.masked()} is busy: {text!r}", status=2, url=url,
            hint="The server asks to try again later.",
        )
    if event.code == 3:
        return RemoteFileNotFound(
            f"the gopher item {url.masked()} has moved: {text!r}", url=url,
            hint="Fetch the new location the server names.",
        )
    if event.code in (1, None):
        return RemoteFileNotFound(
            f"the gopher server of {url.masked()} says the item is not available: "
            f"{text!r}", url=url,
        )
    return ServerError(
        f"the gopher server of {url.masked()} answered error {event.code}: {text!r}",
        status=event.code, url=url,
    )


def partial(url: URL, event: EndOfData) -> PartialTransfer:
    """A Gopher+ ``+n`` body that ended short: a partial transfer (exit 18)."""
    return PartialTransfer(
        f"the gopher answer for {url.masked()} ended after {event.received} of the "
        f"{event.announced} bytes announced",
        received=event.received, expected=event.announced, url=url,
        hint="Try again; the server closed the connection early.",
    )
