"""Text and binary items (types ``0``, ``9``, ``g``, ``I`` ...): streamed in large chunks
with bounded memory.

The first :data:`~.exchange.PEEK_SIZE` bytes are read before the resource is returned,
to tell the one-line type-3 error item servers send for a missing selector from a
document. A Gopher+ ``+n`` header sets ``info.size``, so a body that ends short is a
:class:`~anyurl.errors.PartialTransfer`. A gopher0 binary item over a plain socket is
handed on as a :class:`~anyurl.net.bulk.RawBody`: after the peek, the bytes up to the
server's close are the file's, moved by the kernel.
"""

from __future__ import annotations

import mimetypes
from collections.abc import AsyncIterator

import anyio

from anyurl.net.bulk import RawBody
from anyurl.protocols.gopher import Data, EndOfData, Framing, PlusError, parse_menu
from anyurl.resource import Resource, ResourceInfo
from anyurl.schemes.gopher.exchange import (
    PEEK_SIZE,
    Exchange,
    as_sent,
    plus_error,
    raise_error_item,
)
from anyurl.schemes.gopher.view import GopherPath

__all__ = ["content"]

_CONTENT_TYPES = {
    "0": "text/plain", "1": "application/gopher-menu", "4": "application/mac-binhex40",
    "6": "text/x-uuencode", "9": "application/octet-stream", "5": "application/octet-stream",
    "g": "image/gif", "I": "image/*", "h": "text/html", "s": "audio/*", "<": "audio/*",
    "P": "application/pdf", "M": "multipart/mixed", ";": "video/*", ":": "image/*",
}


async def content(exchange: Exchange, parts: GopherPath, view: str | None) -> Resource:
    """The item ``parts`` names, streamed; ``view`` is the Gopher+ view asked for, its
    content type."""
    url = exchange.url
    name = parts.selector.rstrip("/").rsplit("/", 1)[-1] or None
    ctype = view or (mimetypes.guess_type(name)[0] if name else None) or _CONTENT_TYPES.get(
        parts.gophertype)
    info = ResourceInfo(url=url, content_type=ctype, filename=name)
    if exchange.options.raw:
        return await as_sent(exchange, info)
    head: list[bytes] = []
    held = 0
    end: EndOfData | None = None
    try:
        while held < PEEK_SIZE:
            event = await exchange.next_event()
            if isinstance(event, PlusError):
                raise plus_error(url, event)
            if isinstance(event, Data):
                head.append(event.data)
                held += len(event.data)
            elif isinstance(event, EndOfData):
                end = event
                break
    except BaseException:
        with anyio.CancelScope(shield=True):
            await exchange.stream.aclose()
        raise
    if end is not None:
        with anyio.CancelScope(shield=True):
            await exchange.stream.aclose()
        if exchange.header is None and head and head[0].startswith(b"3"):
            raise_error_item(url, parse_menu(b"".join(head)))
    if exchange.header is not None and exchange.header >= 0:
        info.size = info.total_size = exchange.header
    raw = None
    if (end is None and exchange.header is None and exchange.reader.framing is Framing.CLOSE
            and exchange.stream.plain_socket is not None):
        # A gopher0 binary item: after the peek, the bytes up to the server's close
        # are the file's, moved by the kernel (anyurl.net.bulk).
        stream = exchange.stream

        async def finish(moved: int) -> None:
            await stream.aclose()

        raw = RawBody(stream, b"".join(head), None, finish)

    async def chunks() -> AsyncIterator[bytes]:
        try:
            for chunk in head:
                yield chunk
            head.clear()
            if end is not None:
                return
            while True:
                event = await exchange.next_event()
                if isinstance(event, Data):
                    yield event.data
                elif isinstance(event, EndOfData):
                    return  # a short +n body: Resource raises PartialTransfer
        finally:
            with anyio.CancelScope(shield=True):
                await exchange.stream.aclose()

    return Resource(info, chunks(), on_close=exchange.stream.aclose, raw=raw)
