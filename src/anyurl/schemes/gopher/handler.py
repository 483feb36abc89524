"""The gopher scheme (RFC 1738 3.4): what a gopher: URL means, run over the other modules.

One TCP connection per request (:mod:`.exchange`), driven by the sans-I/O core
:mod:`anyurl.protocols.gopher`. :class:`GopherHandler` reads the URL (its type, selector,
search and Gopher+ string, with ``GopherOptions(view=...)`` and ``FetchOptions.search``),
refuses what cannot be fetched, and hands the answer to the module for its kind:

* menus (type ``1``, search results of type ``7``) are parsed and rendered as readable
  text, or as JSON items with their URLs (``options.format == "json"``); the
  parsed items are also in ``resource.info.extra["items"]`` (:mod:`.menus`);
* text and binary items stream in large chunks with bounded memory; a Gopher+ ``+n``
  header sets ``info.size``, so a short body is a :class:`PartialTransfer`
  (:mod:`.content`);
* attribute requests (``!``, ``$``) are parsed into
  :class:`~anyurl.protocols.gopher.ItemAttributes` (``info.extra["attributes"]``) and
  rendered, views listed with the strings ``--view`` takes (:mod:`.attributes`);
* an item with a form (Gopher+ string ``?``) is done in two connections: the ``!``
  attributes for the ``+ASK`` block, then the filled-in form of 3.4.9. The answers come
  from ``GopherOptions.answers``: a mapping {prompt: value}, or a callback (sync or
  async) given the :class:`~anyurl.protocols.gopher.AskForm` that returns one
  (:mod:`.forms`);
* ``h`` items whose selector is ``URL:<url>`` and telnet (``8``) items are links: no
  connection, the body is the target URL and ``info.extra["target"]`` holds it.

``options.raw`` gives the bytes the server sent, header and terminator included.

:meth:`GopherHandler.links` reads such a menu back into the URLs of its items, for a
recursive mirror: each fetchable item's gopher URL (RFC 1738 3.4), and the http(s)
target of a ``URL:`` item (:mod:`.menu_links`).
"""

from __future__ import annotations

from anyurl.errors import RemoteFileNotFound, URLError
from anyurl.links import Link
from anyurl.protocols.gopher import (
    MENU_TYPES,
    Framing,
    build_request,
    form_request,
    framing_for_type,
)
from anyurl.resource import Resource, ResourceInfo, iterate_bytes
from anyurl.schemes.base import FetchOptions, Presentation, SchemeHandler
from anyurl.schemes.gopher.attributes import attributes
from anyurl.schemes.gopher.content import content
from anyurl.schemes.gopher.exchange import send, show
from anyurl.schemes.gopher.forms import fill_in
from anyurl.schemes.gopher.menu_links import menu_links, render_saved_menu
from anyurl.schemes.gopher.menus import menu
from anyurl.schemes.gopher.options import GopherOptions
from anyurl.schemes.gopher.view import GopherPath
from anyurl.url import URL, quote

__all__ = ["GopherHandler"]

_NOT_FETCHABLE = {
    "2": ("a CSO phone-book item", "Use a ph/qi client for it."),
    "T": ("a tn3270 session item", "Use a tn3270 client for it."),
    "i": ("an information line", "It has nothing to fetch."),
}


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

    def is_listing(self, info: ResourceInfo) -> bool:
        """A menu (type 1, a search's answer) is a listing; an attribute block, which
        lists one item's views, links without being one."""
        return info.kind == "menu"

    def has_links(self, info: ResourceInfo) -> bool:
        """Menus and attribute blocks (their views) link, and an HTML item (``h``)."""
        return info.kind == "attributes" or super().has_links(info)

    def presentation(self, info: ResourceInfo) -> Presentation:
        """As Gopher clients show items: a menu and an attribute block with their links,
        a text file (type 0) read in the page, a search item (type 7) without a term as
        a search form, anything else a download."""
        if info.kind in ("menu", "attributes"):
            return Presentation.LISTING
        parts = info.url.parts
        if isinstance(parts, GopherPath) and not (parts.gopher_plus or "").startswith("+"):
            if parts.gophertype == "7" and parts.search is None:
                return Presentation.SEARCH_FORM
            if parts.gophertype == "0":
                return Presentation.TEXT
        return super().presentation(info)

    def search_url(self, url: URL, term: str) -> str | None:
        """A search item asked with ``term``: ``gopher://h/7sel%09term`` (RFC 1738 3.4),
        a search of its own replaced, the term %-escaped (a TAB or a CR stays data)."""
        parts = url.parts
        if not isinstance(parts, GopherPath) or parts.gophertype != "7":
            return None
        from urllib.parse import quote as escape_all

        return str(url).split("%09", 1)[0] + "%09" + escape_all(term, safe="")

    def render(self, info: ResourceInfo, body: bytes) -> str | None:
        """A menu fetched raw, rendered (:func:`~.menu_links.render_saved_menu`)."""
        return render_saved_menu(info, body)

    def links(self, info: ResourceInfo, body: bytes) -> list[Link]:
        """The items of a menu, or the views of an attribute block, as they were sent
        (:func:`~.menu_links.menu_links`)."""
        return menu_links(info, body)

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
                f"> {show(attrs)}",
                "read the +ASK block, fill in the form from the answers given",
                f"connect to {url.connect_host}:{url.effective_port}",
                f"> {show(form_request(parts.selector, [], search=search or None))}"
                " (with one line per answer before the '.')",
            ]
            return steps
        wire = build_request(parts, search=search, gopher_plus=plus)
        steps.append(f"> {show(wire)}")
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
            return await fill_in(self.dialer, self.config, url, parts, search, options)
        wire = build_request(parts, search=search, gopher_plus=plus)
        if plus is not None and plus[:1] in ("!", "$"):
            exchange = await send(self.dialer, self.config, url, wire, options, Framing.DOT,
                                  gopher_plus=True)
            return await attributes(exchange, self.warn)
        is_menu = gtype in MENU_TYPES and (plus is None or plus == "+" or "menu" in plus)
        # A menu asked for in another view (Gopher+ "+text/plain") is a document.
        framing = (Framing.DOT if is_menu else
                   Framing.TEXT if gtype in MENU_TYPES else framing_for_type(gtype))
        exchange = await send(self.dialer, self.config, url, wire, options, framing,
                              gopher_plus=plus is not None)
        if is_menu:
            return await menu(exchange)
        view = plus[1:].split(" ")[0] if plus and plus.startswith("+") and len(plus) > 1 else None
        return await content(exchange, parts, view)
