"""A menu or attribute block as it was sent (fetched ``raw``, or saved by a mirror), read
back: its links, for a recursive mirror, and its rendering.

:func:`menu_links` gives each fetchable item's gopher URL (RFC 1738 3.4), and the
http(s) target of a ``URL:`` item; :func:`view_links` the alternate views a Gopher+
attribute block names; :func:`render_saved_menu` the text ``anyurl get`` shows for a
menu. The handler's ``links()`` and ``render()`` are these.
"""

from __future__ import annotations

import re

from anyurl.links import FILE, PAGE, Link, checked
from anyurl.numbers import is_ascii_digits
from anyurl.protocols.gopher import GopherReplyError, parse_attributes, parse_menu
from anyurl.resource import ResourceInfo
from anyurl.schemes.gopher.render import render_menu
from anyurl.schemes.gopher.view import GopherPath
from anyurl.url import quote
from anyurl.url.charset import UCHAR_PLAIN, display

__all__ = ["menu_links", "render_saved_menu", "view_links", "without_terminator"]

#: Item types a mirror does not follow: information lines, errors, CSO phone books,
#: telnet and tn3270 sessions (nothing to fetch), searches (they need a search term),
#: and Gopher+ alternate-server lines (``+``: the item above, again, elsewhere).
_NOT_LINKS = frozenset({"i", "3", "2", "8", "T", "7", "+"})
#: The targets of ``URL:`` items a mirror follows (the convention's own: web pages).
_URL_ITEM_SCHEMES = frozenset({"http", "https"})


def render_saved_menu(info: ResourceInfo, body: bytes) -> str | None:
    """A menu fetched raw, rendered as ``anyurl get`` shows one (text with URLs)."""
    if info.kind != "menu" or not (info.content_type or "").startswith(
            "application/gopher-menu"):
        return None
    try:
        return render_menu(parse_menu(without_terminator(body)))
    except GopherReplyError:
        return None


def menu_links(info: ResourceInfo, body: bytes) -> list[Link]:
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
        return view_links(info, body)
    if info.kind != "menu" or not (info.content_type or "").startswith(
            "application/gopher-menu"):
        return []
    try:
        items = parse_menu(without_terminator(body))
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


def view_links(info: ResourceInfo, body: bytes) -> list[Link]:
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
        if is_ascii_digits(first.strip(b"+-\r")):
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


_TERMINATOR = re.compile(rb"(?:\A|\n)\.\r?(?:\n|\Z)")


def without_terminator(body: bytes) -> bytes:
    """A raw menu up to its terminating line: a lone ``.`` ends a menu (RFC 1436 3.8);
    it is no item, and what a server sends after it is not part of the menu."""
    found = _TERMINATOR.search(body)
    if found is None:
        return body
    return body[: found.start() + (1 if found.group().startswith(b"\n") else 0)]
