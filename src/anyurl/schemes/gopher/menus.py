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
    parser = MenuParser()
    as_json = exchange.options.format == "json"
    # The menu as the server framed it, for files and pipes (GopherOptions.render).
    source = not as_json and not exchange.options.get(GopherOptions).render
    head_bytes: list[bytes] = []
    kept: list[MenuItem] = []
    extra: ResourceExtra = {"items": kept, "items_truncated": False}
    head: list[MenuItem] = []
    ended = False
    try:
        held = 0
        while held < PEEK_SIZE and sum(not i.is_info for i in head) < 2:
            event = await exchange.next_event()
            if isinstance(event, PlusError):
                raise plus_error(url, event)
            if isinstance(event, Data):
                held += len(event.data)
                head_bytes.append(event.data)
                head += _menu_items(url, parser, event.data)
            elif isinstance(event, EndOfData):
                if event.short:
                    raise partial(url, event)
                head += parser.close()
                ended = True
                break
        if ended:
            raise_error_item(url, head)
    except BaseException:
        with anyio.CancelScope(shield=True):
            await exchange.stream.aclose()
        raise
    def keep(items: list[MenuItem]) -> None:
        room = MAX_KEPT_ITEMS - len(kept)
        kept.extend(items[:room])
        if len(items) > room:
            extra["items_truncated"] = True

    def render(items: list[MenuItem], first: bool) -> bytes:
        keep(items)
        if not as_json:
            return render_menu(items).encode("utf-8", "surrogateescape")
        text = ",\n".join("  " + json.dumps(i.to_json(), ensure_ascii=False)
                          for i in items)
        return (("" if first else ",\n") + text).encode() if items else b""

    async def chunks() -> AsyncIterator[bytes]:
        first = True
        try:
            if as_json:
                yield b"[\n"
            out = render(head, first)
            first = first and not head
            if source:
                out = b"".join(head_bytes)
                head_bytes.clear()
            if out:
                yield out
            while not ended:
                event = await exchange.next_event()
                if isinstance(event, Data):
                    items = _menu_items(url, parser, event.data)
                elif isinstance(event, EndOfData):
                    if event.short:
                        raise partial(url, event)
                    items = parser.close()
                else:
                    continue
                out = render(items, first)
                first = first and not items
                if source and isinstance(event, Data):
                    out = event.data
                elif source:
                    out = b""
                if out:
                    yield out
                if isinstance(event, EndOfData):
                    break
            if as_json:
                yield b"\n]\n"
        finally:
            with anyio.CancelScope(shield=True):
                await exchange.stream.aclose()

    ctype = ("application/json" if as_json else
             "application/gopher-menu" if source else "text/plain; charset=utf-8")
    info = ResourceInfo(url=url, content_type=ctype, kind="menu", extra=extra)
    return Resource(info, chunks(), on_close=exchange.stream.aclose)


def _menu_items(url: URL, parser: MenuParser, data: bytes) -> list[MenuItem]:
    try:
        return parser.feed(data)
    except GopherReplyError as exc:
        raise ProtocolError(
            f"the gopher server of {url.masked()} sent an unreadable menu: {exc}",
            url=url) from None
