"""The links of an HTML page, for :meth:`HTTPHandler.links` (a recursive mirror's next URLs).

Read with the standard library's :class:`html.parser.HTMLParser`, a real tokenizer:
comments, ``<script>`` text, attribute quoting and character references are its
business, so a ``href`` inside a comment or a string is never taken for a link. What
counts as a link is what a browser would load or go to:

* ``<a href>``, ``<area href>``, ``<iframe src>``, ``<frame src>``: ``"page"`` (a
  document with links of its own);
* ``<img src>``, ``<script src>``, ``<source src>``: ``"file"``;
* ``<link href>``: ``"file"`` (a style sheet, an icon), but ``"page"`` for ``rel``
  alternate, next or prev; a ``dns-prefetch`` or ``preconnect`` hint names no resource.

References are resolved as a browser resolves them: against the first ``<base href>``
(itself resolved against the page's URL), else against the final URL after redirects
(``info.url``). The fragment goes (it names a place in a document, not another one),
and so does a reference that is empty or only a fragment (``href=""``, ``href="#top"``:
the page itself), or that resolves to the page's own URL. Only the schemes of
:func:`~anyurl.links.retrievable` schemes are kept: no ``javascript:``, ``data:``,
``mailto:`` or ``telnet:``; ``file:`` only from a page that is itself a local file, so
that no remote page can make a mirror read this machine.

Bounded: a body of more than :data:`MAX_HTML` bytes (decoded, when it came with a
content coding the handler did not undo: gzip, deflate, br, zstd) is not read at all.
"""

from __future__ import annotations

import codecs
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

from anyurl.errors import URLError
from anyurl.links import FILE, PAGE, Link, checked, retrievable
from anyurl.resource import ResourceInfo
from anyurl.schemes.http.decoding import CodingError, decoder_for
from anyurl.url import parse
from anyurl.url.charset import display

__all__ = ["HTML_TYPES", "MAX_HTML", "html_links"]

#: The largest page whose links are read: a mirror holds the body in memory anyway, but
#: a parser's time and the list it builds must not grow without bound.
MAX_HTML = 16 * 1024 * 1024
#: Media types read as HTML (by the ``Content-Type`` the server sent, never by sniffing).
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})

#: ``<link rel>`` values naming another document of the same kind (a page, not a file).
_PAGE_RELS = frozenset({"alternate", "next", "prev", "previous"})
#: ``<link rel>`` values naming an origin to connect to early, not a resource at all.
_HINT_RELS = frozenset({"dns-prefetch", "preconnect"})
#: What the WHATWG URL parser strips from a reference before reading it.
_STRIP = " \t\n\r\f"


class _Collector(HTMLParser):
    """The references of one page, in document order: ``(reference, kind, label)``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.base: str | None = None
        self.found: list[tuple[str, str, str | None]] = []
        #: The open ``<a>``: its index in ``found`` and the text seen inside it so far.
        self._anchor: tuple[int, list[str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values: dict[str, str] = {}
        for name, value in attrs:
            if value is not None:
                values.setdefault(name, value)  # the first of a repeated attribute counts
        if tag == "base":
            if self.base is None and "href" in values:
                self.base = values["href"]
        elif tag == "a":
            self._close_anchor()
            if "href" in values:
                self.found.append((values["href"], PAGE, None))
                self._anchor = (len(self.found) - 1, [])
        elif tag == "area":
            self._add(values.get("href"), PAGE, values.get("alt"))
        elif tag in ("iframe", "frame"):
            self._add(values.get("src"), PAGE, values.get("title"))
        elif tag == "img":
            self._add(values.get("src"), FILE, values.get("alt"))
            if self._anchor is not None and values.get("alt"):
                self._anchor[1].append(values["alt"])  # an image link's label
        elif tag in ("script", "source"):
            self._add(values.get("src"), FILE, None)
        elif tag == "link":
            rels = set(values.get("rel", "").lower().split())
            if rels & _HINT_RELS:
                return
            kind = PAGE if rels & _PAGE_RELS and "stylesheet" not in rels else FILE
            self._add(values.get("href"), kind, values.get("title"))

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self._close_anchor()

    def handle_data(self, data: str) -> None:
        if self._anchor is not None:
            self._anchor[1].append(data)

    def close(self) -> None:
        super().close()
        self._close_anchor()

    def _add(self, reference: str | None, kind: str, label: str | None) -> None:
        if reference is not None:
            self.found.append((reference, kind, label))

    def _close_anchor(self) -> None:
        if self._anchor is None:
            return
        index, parts = self._anchor
        self._anchor = None
        reference, kind, _ = self.found[index]
        self.found[index] = (reference, kind, " ".join("".join(parts).split()) or None)


def _media_type(content_type: str | None) -> tuple[str, str | None]:
    """``(type/subtype, charset)`` of a Content-Type value, lower-cased."""
    media, *params = (content_type or "").split(";")
    charset = None
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip('"').strip("'").lower() or None
    return media.strip().lower(), charset


def _plain_body(info: ResourceInfo, body: bytes) -> bytes | None:
    """The page's bytes without a content coding the handler left on; None if unreadable."""
    encoding = info.extra.get("content_encoding")
    if not encoding or info.extra.get("decoded"):
        return body
    out: list[bytes] = []
    total = 0
    try:
        decoder = decoder_for(str(encoding))
        if decoder is None:
            return None  # a coding whose package is not installed, or unknown
        for pieces in (decoder.decode(body), decoder.finish()):
            for piece in pieces:
                total += len(piece)
                if total > MAX_HTML:
                    return None
                out.append(piece)
    except CodingError:
        return None
    return b"".join(out)


def _text(body: bytes, charset: str | None) -> str:
    """The page as text: its declared charset, else UTF-8 with every other octet kept.

    Octets that are not UTF-8 become lone surrogates, which the URL parser escapes as
    the very octets (``%E9``): a reference goes back to the server as it was written.
    """
    if body.startswith(codecs.BOM_UTF8):
        return body[len(codecs.BOM_UTF8):].decode("utf-8", "surrogateescape")
    if charset is not None:
        try:
            codec = codecs.lookup(charset)
        except LookupError:
            codec = None
        if codec is not None and codec.name != "utf-8":
            return body.decode(codec.name, "replace")
    return body.decode("utf-8", "surrogateescape")


def _absolute(base: str, reference: str, *, local: bool) -> str | None:
    """``reference`` resolved against ``base``, escaped as RFC 1738 writes URLs; None to skip.

    The lenient parser of :mod:`anyurl.url` does the escaping (a space, ``|``, a
    non-ASCII character or a stray ``%`` become ``%XX``) and refuses what is no URL.
    """
    reference = reference.strip(_STRIP)
    for ch in "\t\n\r":
        reference = reference.replace(ch, "")
    reference = reference.split("#", 1)[0]
    if not reference:
        return None  # the page itself
    try:
        joined = urljoin(base, reference)
        scheme = urlsplit(joined).scheme.lower()
    except ValueError:  # an unclosed "[" in a host ...
        return None
    if not retrievable(scheme) and not (scheme == "file" and local):
        return None
    try:
        return str(parse(joined).without_fragment())
    except URLError:
        return None  # not a URL anyurl could fetch (a port out of range, no host ...)


def html_links(info: ResourceInfo, body: bytes) -> list[Link]:
    """The links of an HTML page (see the module docstring); [] for anything else."""
    media, charset = _media_type(info.content_type)
    if media not in HTML_TYPES or len(body) > MAX_HTML:
        return []
    plain = _plain_body(info, body)
    if plain is None:
        return []
    collector = _Collector()
    collector.feed(_text(plain, charset))
    collector.close()
    page = str(info.url.without_fragment())
    local = info.url.scheme == "file"
    base = page
    if collector.base is not None:
        base = _absolute(page, collector.base, local=local) or page
    links = []
    for reference, kind, label in collector.found:
        url = _absolute(base, reference, local=local)
        if url is not None and url != page:
            label = label.strip() if label else None
            links.append(Link(url, kind, display(label) if label else None))
    return checked(links)
