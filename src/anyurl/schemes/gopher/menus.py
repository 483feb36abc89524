"""Menus as they arrive (type ``1``, and the results of a type-``7`` search): streamed,
rendered item by item.

A menu is parsed by the core's :class:`~anyurl.protocols.gopher.MenuParser` and shown
as readable text (:func:`~.render.render_menu`), as JSON items with their URLs
(``options.format == "json"``), or passed on as the server framed it
(``GopherOptions(render=False)``, for files and pipes). Memory does not grow with a
menu's size: only the first :data:`MAX_KEPT_ITEMS` parsed items are kept, in
``info.extra["items"]``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import anyio

from anyurl.errors import ProtocolError
from anyurl.protocols.gopher import (
    Data,
    EndOfData,
    GopherReplyError,
    MenuItem,
    MenuParser,
    PlusError,
)
from anyurl.resource import Resource, ResourceExtra, ResourceInfo
from anyurl.schemes.gopher.exchange import (
    PEEK_SIZE,
    Exchange,
    as_sent,
    partial,
    plus_error,
    raise_error_item,
)
from anyurl.schemes.gopher.options import GopherOptions
from anyurl.schemes.gopher.render import render_menu
from anyurl.url import URL

__all__ = ["MAX_KEPT_ITEMS", "menu"]

#: Menu items kept in ``info.extra["items"]``; a longer menu streams on, unkept.
MAX_KEPT_ITEMS = 10_000


async def menu(exchange: Exchange) -> Resource:
    """A menu rendered item by item as it arrives: memory does not grow with its size.

    The first items are read before the resource is returned, so that a menu holding
    only an error item is an error, not a listing. ``info.extra["items"]`` collects
    the parsed items (the first :data:`MAX_KEPT_ITEMS`; ``items_truncated`` says when
    there were more).
    """
    url = exchange.url
    if exchange.options.raw:
        return await as_sent(exchange, ResourceInfo(
            url=url, content_type="application/gopher-menu", kind="menu"))
    stream = _MenuStream(exchange)
    try:
        await stream.peek()
    except BaseException:
        with anyio.CancelScope(shield=True):
            await exchange.stream.aclose()
        raise
    ctype = ("application/json" if stream.as_json else
             "application/gopher-menu" if stream.source else "text/plain; charset=utf-8")
    info = ResourceInfo(url=url, content_type=ctype, kind="menu", extra=stream.extra)
    return Resource(info, stream.chunks(), on_close=exchange.stream.aclose)


class _MenuStream:
    """One menu's items as they arrive: the first ones read ahead (:meth:`peek`), then
    the rest rendered as readable text, as JSON, or passed on as the server framed them
    (``source``: ``GopherOptions.render`` off, for files and pipes)."""

    def __init__(self, exchange: Exchange) -> None:
        self.exchange = exchange
        self.parser = MenuParser()
        self.as_json = exchange.options.format == "json"
        self.source = not self.as_json and not exchange.options.get(GopherOptions).render
        self.kept: list[MenuItem] = []
        self.extra: ResourceExtra = {"items": self.kept, "items_truncated": False}
        self.head: list[MenuItem] = []
        self.head_bytes: list[bytes] = []
        self.ended = False
        self.first = True

    async def peek(self) -> None:
        """Read until two items that are not ``i`` lines (or :data:`PEEK_SIZE` bytes,
        or the end): a menu that ends holding an error item raises it here."""
        url = self.exchange.url
        held = 0
        while held < PEEK_SIZE and sum(not i.is_info for i in self.head) < 2:
            event = await self.exchange.next_event()
            if isinstance(event, PlusError):
                raise plus_error(url, event)
            if isinstance(event, Data):
                held += len(event.data)
                self.head_bytes.append(event.data)
                self.head += _menu_items(url, self.parser, event.data)
            elif isinstance(event, EndOfData):
                if event.short:
                    raise partial(url, event)
                self.head += self.parser.close()
                self.ended = True
                break
        if self.ended:
            raise_error_item(url, self.head)

    def _keep(self, items: list[MenuItem]) -> None:
        room = MAX_KEPT_ITEMS - len(self.kept)
        self.kept.extend(items[:room])
        if len(items) > room:
            self.extra["items_truncated"] = True

    def _render(self, items: list[MenuItem]) -> bytes:
        self._keep(items)
        first, self.first = self.first, self.first and not items
        if not self.as_json:
            return render_menu(items).encode("utf-8", "surrogateescape")
        text = ",\n".join("  " + json.dumps(i.to_json(), ensure_ascii=False)
                          for i in items)
        return (("" if first else ",\n") + text).encode() if items else b""

    async def chunks(self) -> AsyncIterator[bytes]:
        try:
            if self.as_json:
                yield b"[\n"
            out = self._render(self.head)
            if self.source:
                out = b"".join(self.head_bytes)
                self.head_bytes.clear()
            if out:
                yield out
            while not self.ended:
                event = await self.exchange.next_event()
                if isinstance(event, Data):
                    items = _menu_items(self.exchange.url, self.parser, event.data)
                elif isinstance(event, EndOfData):
                    if event.short:
                        raise partial(self.exchange.url, event)
                    items = self.parser.close()
                    self.ended = True
                else:
                    continue
                out = self._render(items)
                if self.source:
                    out = event.data if isinstance(event, Data) else b""
                if out:
                    yield out
            if self.as_json:
                yield b"\n]\n"
        finally:
            with anyio.CancelScope(shield=True):
                await self.exchange.stream.aclose()


def _menu_items(url: URL, parser: MenuParser, data: bytes) -> list[MenuItem]:
    try:
        return parser.feed(data)
    except GopherReplyError as exc:
        raise ProtocolError(
            f"the gopher server of {url.masked()} sent an unreadable menu: {exc}",
            url=url) from None
