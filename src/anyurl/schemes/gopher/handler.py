"""The gopher scheme (RFC 1738 3.4): Gopher and Gopher+ items, menus, searches and forms.

One TCP connection per request, driven by the sans-I/O core
:mod:`anyurl.protocols.gopher`. What comes back depends on the item:

* menus (type ``1``, search results of type ``7``) are parsed and rendered as readable
  text, or as JSON items with their URLs (``options.format == "json"``); the
  parsed items are also in ``resource.info.extra["items"]``;
* text and binary items stream in large chunks with bounded memory; a Gopher+ ``+n``
  header sets ``info.size``, so a short body is a :class:`PartialTransfer`;
* attribute requests (``!``, ``$``) are parsed into
  :class:`~anyurl.protocols.gopher.ItemAttributes` (``info.extra["attributes"]``) and
  rendered, views listed with the strings ``--view`` takes;
* an item with a form (Gopher+ string ``?``) is done in two connections: the ``!``
  attributes for the ``+ASK`` block, then the filled-in form of 3.4.9. The answers come
  from ``GopherOptions.answers``: a mapping {prompt: value}, or a callback (sync or
  async) given the :class:`~anyurl.protocols.gopher.AskForm` that returns one;
* ``h`` items whose selector is ``URL:<url>`` and telnet (``8``) items are links: no
  connection, the body is the target URL and ``info.extra["target"]`` holds it.

``options.raw`` gives the bytes the server sent, header and terminator included.

:meth:`GopherHandler.links` reads such a menu back into the URLs of its items, for a
recursive mirror: each fetchable item's gopher URL (RFC 1738 3.4), and the http(s)
target of a ``URL:`` item.
"""

from __future__ import annotations

import inspect
import json
import mimetypes
import re
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import anyio

from anyurl.errors import (
    AnyURLError,
    PartialTransfer,
    ProtocolError,
    RemoteFileNotFound,
    ServerError,
    URLError,
)
from anyurl.links import FILE, PAGE, Link, checked
from anyurl.net.bulk import RawBody
from anyurl.net.transport import DEFAULT_RECEIVE_SIZE, Stream
from anyurl.options import GopherOptions
from anyurl.protocols.gopher import (
    MENU_TYPES,
    NEED_DATA,
    AskForm,
    Data,
    EndOfData,
    FormError,
    Framing,
    GopherReplyError,
    ItemAttributes,
    MenuItem,
    MenuParser,
    NeedData,
    PlusError,
    PlusHeader,
    ResponseReader,
    answer_lines,
    build_request,
    error_item_message,
    form_request,
    framing_for_type,
    parse_attributes,
    parse_menu,
)
from anyurl.resource import Resource, ResourceExtra, ResourceInfo, iterate_bytes
from anyurl.schemes.base import FetchOptions, SchemeHandler
from anyurl.schemes.gopher.render import render_attributes, render_menu
from anyurl.url import URL, GopherPath, quote
from anyurl.url.charset import UCHAR_PLAIN, display

__all__ = ["GopherHandler"]

#: Bytes of a text or binary answer looked at before streaming it, to recognise the
#: one-line type-3 error item servers send for a missing selector.
PEEK_SIZE = 4096
#: Largest menu or attribute answer held in memory.
MAX_LISTING = 64 * 1024 * 1024
#: Menu items kept in ``info.extra["items"]``; a longer menu streams on, unkept.
MAX_KEPT_ITEMS = 10_000

_CONTENT_TYPES = {
    "0": "text/plain", "1": "application/gopher-menu", "4": "application/mac-binhex40",
    "6": "text/x-uuencode", "9": "application/octet-stream", "5": "application/octet-stream",
    "g": "image/gif", "I": "image/*", "h": "text/html", "s": "audio/*", "<": "audio/*",
    "P": "application/pdf", "M": "multipart/mixed", ";": "video/*", ":": "image/*",
}
#: Item types a mirror does not follow: information lines, errors, CSO phone books,
#: telnet and tn3270 sessions (nothing to fetch), searches (they need a search term),
#: and Gopher+ alternate-server lines (``+``: the item above, again, elsewhere).
_NOT_LINKS = frozenset({"i", "3", "2", "8", "T", "7", "+"})
#: The targets of ``URL:`` items a mirror follows (the convention's own: web pages).
_URL_ITEM_SCHEMES = frozenset({"http", "https"})

_NOT_FETCHABLE = {
    "2": ("a CSO phone-book item", "Use a ph/qi client for it."),
    "T": ("a tn3270 session item", "Use a tn3270 client for it."),
    "i": ("an information line", "It has nothing to fetch."),
}


def _show(wire: bytes) -> str:
    """A request for the trace: one line, TABs and CR LF written out."""
    return wire.decode("utf-8", "backslashreplace").removesuffix("\r\n").replace(
        "\t", "<TAB>").replace("\r\n", "<CRLF>")


class _Exchange:
    """One request on one connection: the stream, the reader and error mapping."""

    def __init__(self, stream: Stream, reader: ResponseReader, url: URL,
                 options: FetchOptions):
        self.stream = stream
        self.reader = reader
        self.url = url
        self.options = options
        self.header: int | None = None

    def trace(self, line: str) -> None:
        if self.options.trace is not None:
            self.options.trace(line)

    async def next_event(self) -> PlusHeader | Data | EndOfData | PlusError:
        while True:
            try:
                event = self.reader.next_event()
            except GopherReplyError as exc:
                raise ProtocolError(
                    f"the gopher server of {self.url.masked()} sent an unreadable answer: {exc}",
                    url=self.url,
                ) from None
            if isinstance(event, NeedData):
                self.reader.receive_data(await self.stream.receive(DEFAULT_RECEIVE_SIZE))
                continue
            if isinstance(event, PlusHeader):
                self.header = event.size
                self.trace(f"< +{event.size}")
            elif isinstance(event, PlusError):
                self.trace(f"< -{'-1' if self.reader.framing is Framing.DOT else '-2'} "
                           f"{event.first_line} {event.message}".rstrip())
            return event


class GopherHandler(SchemeHandler):
    """gopher: URLs, Gopher+ included."""

    schemes = ("gopher",)
    options_type = GopherOptions

    # -- what to send ---------------------------------------------------------------------

    def _parts(self, url: URL) -> GopherPath:
        parts = url.parts
        assert isinstance(parts, GopherPath)
        return parts

    def _plus(self, url: URL, parts: GopherPath, options: FetchOptions) -> str | None:
        view = options.get(GopherOptions).view
        if not view:
            return parts.gopher_plus
        if parts.gopher_plus not in (None, "+"):
            raise URLError(
                f"{url.masked()} already asks for {parts.gopher_plus!r}, which a view cannot "
                "be combined with",
                url=url,
                hint="Drop GopherOptions(view=...), or the Gopher+ string (%09%09...) "
                "from the URL.", remedy=("gopher_view",),
            )
        if any(c in str(view) for c in "\t\r\n"):
            raise URLError(f"the view {view!r} for {url.masked()} contains a TAB or line end",
                           url=url, hint="Give a view as +VIEWS lists it: TYPE [LANGUAGE].")
        return "+" + str(view)

    def _search(self, url: URL, parts: GopherPath, options: FetchOptions,
                plus: str | None) -> str | None:
        search = parts.search if parts.search is not None else options.search
        if search is not None and any(c in search for c in "\t\r\n"):
            raise URLError(
                f"the search {search!r} for {url.masked()} contains a TAB or line end, which "
                "would end the gopher request early", url=url,
                hint="Give the search words on one line.",
            )
        if (parts.gophertype == "7" and search is None
                and not (plus and plus[:1] in ("!", "$", "?"))):
            raise URLError(
                f"{url.masked()} is a gopher search item and needs a search term",
                url=url,
                hint="This is a search item: give a term as FetchOptions(search=...) "
                "(or in the URL after %09).", remedy=("search",),
            )
        return search

    def _link(self, url: URL, parts: GopherPath) -> str | None:
        """The URL an ``h``/``URL:`` or telnet item stands for (no gopher transaction)."""
        if parts.gophertype == "h" and parts.selector.startswith("URL:"):
            return parts.selector[4:].strip()
        if parts.gophertype == "8":
            login = quote(parts.selector) + "@" if parts.selector else ""
            port = url.effective_port
            return f"telnet://{login}{url.host}" + (f":{port}" if port != 23 else "") + "/"
        return None

    def _check_fetchable(self, url: URL, parts: GopherPath) -> None:
        gtype = parts.gophertype
        if gtype == "3":
            raise RemoteFileNotFound(
                f"{url.masked()} is a gopher error item: {parts.selector!r}", url=url,
                hint="Error items only carry a message; there is nothing to fetch.",
            )
        if gtype in _NOT_FETCHABLE:
            what, hint = _NOT_FETCHABLE[gtype]
            raise URLError(f"{url.masked()} is {what}, not a gopher document", url=url,
                           hint=hint)

    def render(self, info: ResourceInfo, body: bytes) -> str | None:
        """A menu fetched raw, rendered as ``anyurl get`` shows one (text with URLs)."""
        if info.kind != "menu" or not (info.content_type or "").startswith(
                "application/gopher-menu"):
            return None
        try:
            return render_menu(parse_menu(_without_terminator(body)))
        except GopherReplyError:
            return None

    def links(self, info: ResourceInfo, body: bytes) -> list[Link]:
        """The items of a menu as they were sent (``raw``, or ``render=False``).

        Type ``1`` items (menus) are ``"page"``, the fetchable others (``0``, ``9``,
        ``g``, ``I``, ``h`` ...) ``"file"``, each as the gopher URL of RFC 1738 3.4
        (``gopher://host:port/<type><selector %-escaped>``, the parser's
        :meth:`~anyurl.protocols.gopher.MenuItem.url`). An item whose selector is
        ``URL:http://...`` (the ``h`` convention) is its http or https target, a
        ``"page"``; a ``URL:`` item of another scheme is left out, as are information
        lines, errors, telnet, tn3270 and CSO items, searches (``7``: no search term to
        give) and Gopher+ alternate-server lines. An item with a Gopher+ form (``?``)
        cannot be fetched without answers: its attribute block (``%09%09!``, which holds
        the ``+ASK`` form) is linked instead, as a ``"file"``, so a mirror keeps the form.
        The label is the item's display string. A rendered menu (text, JSON) has no
        links: fetch with ``raw`` to read them. A Gopher+ item (``+``) carries its
        attribute block's URL (``%09%09!``) in ``Link.more``; that block, fetched raw,
        links to the item's alternate views.
        """
        if info.kind == "attributes":
            return self._view_links(info, body)
        if info.kind != "menu" or not (info.content_type or "").startswith(
                "application/gopher-menu"):
            return []
        try:
            items = parse_menu(_without_terminator(body))
        except GopherReplyError:
            return []  # a line longer than any menu line: not a menu
        links = []
        for item in items:
            gtype = item.fetch_type
            if item.is_info or item.type in _NOT_LINKS or gtype in _NOT_LINKS:
                continue
            label = (display(item.display) or "").strip() or None
            if item.selector.startswith("URL:"):
                target = item.selector[4:].strip()
                if target.partition(":")[0].lower() not in _URL_ITEM_SCHEMES:
                    continue
                kind = PAGE
            else:
                found = item.url()
                if found is None:
                    continue
                if item.plus == "?":
                    # A +ASK form: fetching the item needs answers a mirror has not got;
                    # its attribute block holds the form (+ASK), so that is saved.
                    base = found.removesuffix("%09%09?")
                    links.append(Link(base + "%09%09!", FILE, label))
                    continue
                target, kind = found, PAGE if gtype == "1" else FILE
                if item.plus == "+" and gtype != "1":
                    # Gopher+: the attribute block names the item's alternate views
                    links.append(Link(target, kind, label, more=(target + "%09%09!",)))
                    continue
            links.append(Link(target, kind, label))
        return checked(links)

    def _view_links(self, info: ResourceInfo, body: bytes) -> list[Link]:
        """The alternate views of a Gopher+ item, from its ``!`` attribute block (as
        fetched raw): one URL per view but the first (the item itself), each asking for
        that view (``%09%09+text/plain%20De_DE``)."""
        url = info.url
        parts = url.parts
        if not isinstance(parts, GopherPath) or parts.gopher_plus != "!":
            return []
        text = body
        if text.startswith(b"+"):  # the Gopher+ header line of the raw answer
            first, _, rest = text.partition(b"\n")
            if first.strip(b"+-\r").isdigit():
                text = rest
        try:
            attrs = parse_attributes(text)
        except GopherReplyError:
            return []
        links = []
        item_url = str(url).split("%09", 1)[0]
        for attributes in attrs[:1]:
            if attributes.block("+ASK") is not None:
                continue  # a form's views need its answers: the block itself is the copy
            for view in attributes.views[1:]:
                view_text = quote(view.view_string, UCHAR_PLAIN | {"/"})
                links.append(Link(f"{item_url}%09%09+{view_text}", FILE, view.view_string))
        return checked(links)

    def plan(self, url: URL, options: FetchOptions) -> list[str]:
        parts = self._parts(url)
        link = self._link(url, parts)
        if link is not None:
            return [f"no connection: the item is a link to {link}"]
        self._check_fetchable(url, parts)
        plus = self._plus(url, parts, options)
        search = self._search(url, parts, options, plus)
        steps = [f"connect to {url.connect_host}:{url.effective_port}"]
        if plus == "?":
            attrs = build_request(GopherPath(parts.gophertype, parts.selector, None, None),
                                  gopher_plus="!")
            steps += [
                f"> {_show(attrs)}",
                "read the +ASK block, fill in the form from the answers given",
                f"connect to {url.connect_host}:{url.effective_port}",
                f"> {_show(form_request(parts.selector, [], search=search or None))}"
                " (with one line per answer before the '.')",
            ]
            return steps
        wire = build_request(parts, search=search, gopher_plus=plus)
        steps.append(f"> {_show(wire)}")
        return steps

    # -- open ------------------------------------------------------------------------------

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        parts = self._parts(url)
        link = self._link(url, parts)
        if link is not None:
            info = ResourceInfo(url=url, size=len(link) + 2, content_type="text/uri-list",
                                kind="link", extra={"target": link})
            return Resource(info, iterate_bytes(link.encode() + b"\r\n"))
        self._check_fetchable(url, parts)
        plus = self._plus(url, parts, options)
        search = self._search(url, parts, options, plus)
        gtype = parts.gophertype
        if plus == "?":
            return await self._form(url, parts, search, options)
        wire = build_request(parts, search=search, gopher_plus=plus)
        if plus is not None and plus[:1] in ("!", "$"):
            exchange = await self._send(url, wire, options, Framing.DOT, gopher_plus=True)
            return await self._attributes(exchange)
        is_menu = gtype in MENU_TYPES and (plus is None or plus == "+" or "menu" in plus)
        framing = Framing.DOT if is_menu else framing_for_type(gtype)
        exchange = await self._send(url, wire, options, framing, gopher_plus=plus is not None)
        if is_menu:
            return await self._menu(exchange)
        view = plus[1:].split(" ")[0] if plus and plus.startswith("+") and len(plus) > 1 else None
        return await self._content(exchange, parts, view)

    async def _send(self, url: URL, wire: bytes, options: FetchOptions, framing: Framing,
                    *, gopher_plus: bool) -> _Exchange:
        port = url.effective_port
        assert port is not None
        stream = await self.dialer.connect_tcp(
            url.connect_host, port, url=url,
            connect_timeout=self.config.connect_timeout,
            read_timeout=self.config.read_timeout,
            what="the gopher server",
        )
        exchange = _Exchange(stream, ResponseReader(framing, gopher_plus=gopher_plus), url,
                             options)
        try:
            exchange.trace(f"> {_show(wire)}")
            await stream.send(wire)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await stream.aclose()
            raise
        return exchange

    # -- answers held in memory: menus, attributes ----------------------------------------------

    async def _collect(self, exchange: _Exchange) -> bytes:
        parts: list[bytes] = []
        total = 0
        try:
            while True:
                event = await exchange.next_event()
                if isinstance(event, PlusError):
                    raise self._plus_error(exchange.url, event)
                if isinstance(event, Data):
                    total += len(event.data)
                    if total > MAX_LISTING:
                        raise ProtocolError(
                            f"the gopher listing of {exchange.url.masked()} is larger than "
                            f"{MAX_LISTING} bytes", url=exchange.url)
                    parts.append(event.data)
                elif isinstance(event, EndOfData):
                    if event.short:
                        raise self._partial(exchange.url, event)
                    return b"".join(parts)
        finally:
            with anyio.CancelScope(shield=True):
                await exchange.stream.aclose()

    async def _raw(self, exchange: _Exchange, info: ResourceInfo) -> Resource:
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

    def _rendered(self, url: URL, text: Callable[[], str], data: Callable[[], Any],
                  options: FetchOptions, kind: str, extra: ResourceExtra) -> Resource:
        """The listing as text or JSON (only the one asked for is built: menus can be long)."""
        if options.format == "json":
            body = (json.dumps(data(), indent=2, ensure_ascii=False) + "\n").encode()
            ctype = "application/json"
        else:
            body = text().encode("utf-8", "surrogateescape")
            ctype = "text/plain; charset=utf-8"
        info = ResourceInfo(url=url, size=len(body), total_size=len(body), content_type=ctype,
                            kind=kind, extra=extra)
        return Resource(info, iterate_bytes(body))

    async def _menu(self, exchange: _Exchange) -> Resource:
        """A menu rendered item by item as it arrives: memory does not grow with its size.

        The first items are read before the resource is returned, so that a menu holding
        only an error item is an error, not a listing. ``info.extra["items"]`` collects
        the parsed items (the first :data:`MAX_KEPT_ITEMS`; ``items_truncated`` says when
        there were more).
        """
        url = exchange.url
        if exchange.options.raw:
            return await self._raw(exchange, ResourceInfo(
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
                    raise self._plus_error(url, event)
                if isinstance(event, Data):
                    held += len(event.data)
                    head_bytes.append(event.data)
                    head += self._menu_items(url, parser, event.data)
                elif isinstance(event, EndOfData):
                    if event.short:
                        raise self._partial(url, event)
                    head += parser.close()
                    ended = True
                    break
            if ended:
                self._raise_error_item(url, head)
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
                        items = self._menu_items(url, parser, event.data)
                    elif isinstance(event, EndOfData):
                        if event.short:
                            raise self._partial(url, event)
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

    @staticmethod
    def _menu_items(url: URL, parser: MenuParser, data: bytes) -> list[MenuItem]:
        try:
            return parser.feed(data)
        except GopherReplyError as exc:
            raise ProtocolError(
                f"the gopher server of {url.masked()} sent an unreadable menu: {exc}",
                url=url) from None

    async def _attributes(self, exchange: _Exchange) -> Resource:
        url = exchange.url
        if exchange.options.raw:
            return await self._raw(exchange, ResourceInfo(
                url=url, content_type="application/gopher+-attributes", kind="attributes"))
        body = await self._collect(exchange)
        attrs = parse_attributes(body)
        if not attrs:
            self._raise_error_item(url, parse_menu(body))
            if not body.strip():
                raise ProtocolError(
                    f"the gopher server of {url.masked()} answered the Gopher+ attribute "
                    "request with nothing", url=url,
                    hint="The server may not speak Gopher+: fetch the item without !/$.")
            # A gopher0 server ignores the Gopher+ string and sends the item itself: that
            # body is passed through, never turned into an empty answer.
            self.warn(f"the gopher server of {url.masked()} sent no Gopher+ attributes "
                      "(it may not speak Gopher+); passing its answer through")
            info = ResourceInfo(url=url, size=len(body), total_size=len(body),
                                content_type="application/octet-stream", kind="file")
            return Resource(info, iterate_bytes(body))
        if (not exchange.options.get(GopherOptions).render
                and exchange.options.format != "json"):
            info = ResourceInfo(url=url, size=len(body), total_size=len(body),
                                content_type="application/gopher+-attributes",
                                kind="attributes", extra={"attributes": attrs})
            return Resource(info, iterate_bytes(body))
        return self._rendered(url, lambda: render_attributes(attrs),
                              lambda: [a.to_json() for a in attrs],
                              exchange.options, "attributes", {"attributes": attrs})

    # -- streamed answers: text and binary items --------------------------------------------

    async def _content(self, exchange: _Exchange, parts: GopherPath,
                       view: str | None) -> Resource:
        url = exchange.url
        name = parts.selector.rstrip("/").rsplit("/", 1)[-1] or None
        ctype = view or (mimetypes.guess_type(name)[0] if name else None) or _CONTENT_TYPES.get(
            parts.gophertype)
        info = ResourceInfo(url=url, content_type=ctype, filename=name)
        if exchange.options.raw:
            return await self._raw(exchange, info)
        head: list[bytes] = []
        held = 0
        end: EndOfData | None = None
        try:
            while held < PEEK_SIZE:
                event = await exchange.next_event()
                if isinstance(event, PlusError):
                    raise self._plus_error(url, event)
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
                self._raise_error_item(url, parse_menu(b"".join(head)))
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

    # -- +ASK forms ---------------------------------------------------------------------------

    async def _form(self, url: URL, parts: GopherPath, search: str | None,
                    options: FetchOptions) -> Resource:
        wire = build_request(GopherPath(parts.gophertype, parts.selector, None, None),
                             gopher_plus="!")
        attrs_exchange = await self._send(url, wire, options, Framing.DOT, gopher_plus=True)
        body = await self._collect(attrs_exchange)
        attrs = parse_attributes(body)
        if not attrs:
            self._raise_error_item(url, parse_menu(body))
        form = self._find_form(attrs, parts.selector)
        if form is None:
            raise ProtocolError(
                f"{url.masked()} is marked as a Gopher+ form (?) but its attributes have no "
                "+ASK block",
                url=url,
                hint="Fetch it without the form: replace the final ? of the URL with +.",
            )
        lines, file, secrets = await self._answers(url, form, options)
        view = options.get(GopherOptions).view or ""
        wire = form_request(parts.selector, lines, file=file, search=search or None,
                            view=str(view))
        head = wire.split(b"\r\n", 1)[0] + b"\r\n"
        shown = [("****" if line in secrets else line) for line in lines]
        exchange = await self._send(url, head, options, framing_for_type(parts.gophertype),
                                    gopher_plus=True)
        try:
            for line in ["+-1", *shown, "."]:
                exchange.trace(f"> {line}")
            await exchange.stream.send(wire[len(head):])
        except BaseException:
            with anyio.CancelScope(shield=True):
                await exchange.stream.aclose()
            raise
        if parts.gophertype in MENU_TYPES:
            return await self._menu(exchange)
        return await self._content(exchange, parts, str(view).split(" ")[0] or None)

    @staticmethod
    def _find_form(attrs: tuple[ItemAttributes, ...], selector: str) -> AskForm | None:
        ordered = sorted(attrs, key=lambda a: a.info is None or a.info.selector != selector)
        for item in ordered:
            if item.ask is not None:
                return item.ask
        return None

    async def _answers(self, url: URL, form: AskForm,
                       options: FetchOptions) -> tuple[list[str], bytes | None, set[str]]:
        """The data block lines, the file, and the AskP answers (masked in the trace)."""
        source = options.get(GopherOptions).answers
        prompts = ", ".join(repr(q.prompt) for q in form.answerable)
        if source is None:
            raise AnyURLError(
                f"{url.masked()} is a Gopher+ form asking {prompts}, and no answers were given",
                url=url,
                hint="Give the answers as GopherOptions(answers=...), a mapping of each "
                "prompt to its answer.", remedy=("answers",),
            )
        answers: Any = source
        if callable(source):
            answers = source(form)
            if inspect.isawaitable(answers):
                answers = await answers
        if not isinstance(answers, Mapping):
            raise AnyURLError(f"the answers for the form of {url.masked()} are not a mapping "
                              "of prompt to answer", url=url)
        answers = dict(answers)
        for q in form.answerable:
            value = answers.get(q.prompt)
            if q.kind == "ChooseF" and isinstance(value, str):
                answers[q.prompt] = await anyio.Path(value).read_bytes()
        secrets = {str(answers[q.prompt]) for q in form.answerable
                   if q.secret and answers.get(q.prompt)}
        try:
            lines, file = answer_lines(form, answers)
        except FormError as exc:
            raise AnyURLError(
                f"the answers do not fill in the form of {url.masked()}: {exc}", url=url,
                hint=f"The form asks {prompts}; give each in GopherOptions(answers=...).",
                remedy=("answers_prompts", prompts),
            ) from None
        return lines, file, secrets

    # -- errors --------------------------------------------------------------------------------

    def _raise_error_item(self, url: URL, items: list[MenuItem]) -> None:
        message = error_item_message(items)
        if message is not None:
            parts = self._parts(url)
            hint = "Check the selector; fetch the server's root menu to browse."
            if parts.gopher_plus is None:
                hint += " (A Gopher+ item with a form needs %09%09? at the end of its URL.)"
            raise RemoteFileNotFound(
                f"the gopher server of {url.masked()} says: {message!r}", url=url, hint=hint,
            )

    def _plus_error(self, url: URL, event: PlusError) -> AnyURLError:
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

    def _partial(self, url: URL, event: EndOfData) -> PartialTransfer:
        return PartialTransfer(
            f"the gopher answer for {url.masked()} ended after {event.received} of the "
            f"{event.announced} bytes announced",
            received=event.received, expected=event.announced, url=url,
            hint="Try again; the server closed the connection early.",
        )


_TERMINATOR = re.compile(rb"(?:\A|\n)\.\r?(?:\n|\Z)")


def _without_terminator(body: bytes) -> bytes:
    """A raw menu up to its terminating line: a lone ``.`` ends a menu (RFC 1436 3.8);
    it is no item, and what a server sends after it is not part of the menu."""
    found = _TERMINATOR.search(body)
    if found is None:
        return body
    return body[: found.start() + (1 if found.group().startswith(b"\n") else 0)]
