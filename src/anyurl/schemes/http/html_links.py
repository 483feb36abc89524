"""The links of an HTML page or a style sheet, for :meth:`HTTPHandler.links` (a recursive
mirror's next URLs).

A page is parsed by one of two C parsers whose tokenizers follow the HTML Standard, so
comments, ``<script>``, ``<style>`` and ``<textarea>`` text, attribute quoting and
character references (``&copy=2`` in a URL stays as written) are theirs to get right, as
they are a browser's, and a ``href`` inside a comment or a string is never taken for a
link:

* a page up to :data:`TREE_MAX` (128 KiB: 429 of python3-doc's 530 pages, 43 % of its
  bytes) by Lexbor (selectolax), into a tree from which one CSS selection, in C, picks
  the elements that can name something (:func:`_from_tree`): Python sees those, not
  every element and piece of text. The tree costs 12 to 15 times its page while it
  lives (1.9 MiB at most here), which is why a bigger page is not read this way
  (``contents.html``'s takes 30 MiB);
* a bigger page by libxml2 (lxml 6 bundles libxml2 2.14) as a parser *target*
  (:class:`_Collector`, :func:`_from_events`): no tree, but a call into Python for every
  tag and text (a million each on python3-doc). libxml2 pulls the page (from its file,
  or the bytes) a few KiB at a time; its push parser (``feed``) would keep a copy of all
  it was fed (3 MiB more for the 2.6 MB ``contents.html``).

Both give the same links, label for label, on python3-doc's 530 pages
(``bench/html_links.py``) and on the cases of ``tests/unit/test_links.py``. Where the
Standard's tree construction and libxml2's events part, the events are read: a page
naming a ``<frame>`` or a ``<frameset>`` (a frame is dropped outside one, anything
else inside), an ``<image>`` (an ``<img>`` in a tree), a ``<template>``, an ``<svg>`` or
``<math>`` with more than drawing elements in it (foreign content, which libxml2 parses
as HTML: :data:`_TREE_DIFFERS`), or a table's part or a ``<body>`` with an attribute
that can name something (dropped outside a table, merged when late:
:data:`_LATE_TAGS`), so that a page's links do not depend on its size. What
differs still, as far as ``tests/unit/test_links.py`` finds (hand-made pages and a
property test over markup soup), is labels and order, not links, kinds or requisites: an anchor
misnested across blocks or a table (``<p><a>x<p>y</a>``) is labelled as a browser's
tree cuts it (``x``) by Lexbor, with all its text up to its end tag (``xy``) by
libxml2; and an element inside a ``<table>`` but outside its cells comes before the
table in the tree (the Standard's "foster parenting"), so its link comes earlier.
The extractor replaced :mod:`html.parser`, pure Python: on the 530 pages of Python's
documentation (50.7 MB) the events alone take about a quarter of its CPU, with the same
links plus the requisites. A style sheet (a ``text/css`` response, a ``<style>`` block,
a ``style=`` attribute) is read by :mod:`.css_links` (tinycss2).

What counts as a link is what a browser would load or go to. A *requisite*
(``Link.requisite``) is what a browser loads to render the page (wget's ``-p``, page
requisites): a mirror fetches it even outside the start directory or past the depth
limit, so that the saved page renders.

* ``<a href>``, ``<area href>``: ``"page"``;
* ``<iframe src>``, ``<frame src>``: ``"page"``, requisites; ``<meta http-equiv=refresh
  content="N; url=...">``: ``"page"``, a requisite (what the browser shows next);
* ``<img src srcset>``, ``<source src srcset>``, ``<video src poster>``, ``<audio
  src>``, ``<script src>``, ``<object data>``, ``<embed src>``, ``<input type=image
  src>``, a ``background`` attribute (``<body>``, ``<table>``, ``<td>``, ``<th>``),
  ``@import`` and ``url()`` in ``<style>`` blocks and ``style=`` attributes: ``"file"``,
  requisites;
* ``<link href>``: ``"file"`` (a style sheet, an icon, a manifest: requisites for rel
  stylesheet, icon, preload, modulepreload, manifest ...), but ``"page"`` for ``rel``
  alternate, next or prev; a ``dns-prefetch`` or ``preconnect`` hint names no resource;
* in a style sheet: ``@import`` (a style sheet) and ``url()`` (an image, a font):
  ``"file"``, requisites of the page the style sheet styles.

References are resolved as a browser resolves them: against the first ``<base href>``
(itself resolved against the page's URL), else against the final URL after redirects
(``info.url``); a style sheet's against its own URL. The fragment goes (it names a place
in a document, not another one), and so does a reference that is empty or only a
fragment (``href=""``, ``href="#top"``: the page itself), or that resolves to the page's
own URL. Only the schemes of :func:`~anyurl.links.retrievable` schemes are kept: no
``javascript:``, ``data:``, ``mailto:`` or ``telnet:``; ``file:`` only from a page that
is itself a local file, so that no remote page can make a mirror read this machine.

The page's text is the charset its ``Content-Type`` declares, else UTF-8 (a BOM wins);
a page that is not UTF-8 and says nothing keeps its other octets, which go back to the
server as written (``caf%E9.html``).

Bounded: a body of more than :data:`MAX_HTML` bytes (decoded, when it came with a
content coding the handler did not undo: gzip, deflate, br, zstd) is not read at all.
"""

from __future__ import annotations

import codecs
import io
import os
import re
from collections.abc import Callable
from typing import BinaryIO, Protocol
from urllib.parse import urljoin, urlsplit

from lxml import etree
from selectolax.lexbor import LexborHTMLParser, LexborNode

from anyurl.links import FILE, PAGE, Link, checked, retrievable, written
from anyurl.resource import ResourceInfo
from anyurl.schemes.http.css_links import css_references, declared_charset, style_references
from anyurl.schemes.http.decoding import CodingError, decoder_for
from anyurl.url.charset import display

__all__ = ["CSS_TYPES", "HTML_TYPES", "MAX_HTML", "css_links", "document_links", "file_links",
           "html_links", "streams"]

#: The largest page whose links are read: a parser's time and what it finds must not
#: grow without bound.
MAX_HTML = 16 * 1024 * 1024
#: Media types read as HTML (by the ``Content-Type`` the server sent, never by sniffing).
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
#: Media types read as a style sheet.
CSS_TYPES = frozenset({"text/css"})

#: ``<link rel>`` values naming another document of the same kind (a page, not a file).
_PAGE_RELS = frozenset({"alternate", "next", "prev", "previous"})
#: ``<link rel>`` values naming an origin to connect to early, not a resource at all.
_HINT_RELS = frozenset({"dns-prefetch", "preconnect"})
#: ``<link rel>`` values naming what the browser loads with the page.
_REQUISITE_RELS = frozenset({
    "stylesheet", "icon", "preload", "modulepreload", "manifest", "apple-touch-icon",
    "apple-touch-icon-precomposed", "mask-icon"})
#: Elements whose ``background`` attribute the browser still paints.
_BACKGROUNDS = frozenset({"body", "table", "td", "th"})
#: What the WHATWG URL parser strips from a reference before reading it.
_STRIP = " \t\n\r\f"
#: How much of a page is checked to be UTF-8 at a time.
_FEED = 256 << 10
#: A ``<meta http-equiv=refresh>`` content: the time, then the URL (the HTML Standard's
#: "shared declarative refresh steps"), with or without ``url=`` and quotes.
_REFRESH = re.compile(
    r"""[\s]*[0-9.]+[\s]*(?:[;,][\s]*)?(?:url[\s]*=[\s]*)?(?P<q>["']?)(?P<url>.*)""",
    re.IGNORECASE | re.DOTALL)
#: The octets of a page that are not UTF-8 and declare no charset, as Python decodes
#: them (``surrogateescape``): U+DC80 to U+DCFF.
_LONE = re.compile("[\udc80-\udcff]")

#: What a page says of one reference (the text of a :class:`_Found` key): where it was
#: first found, its first kind, whether it was ever a page, ever a requisite, and its
#: first label that is not blank with where that was found (None, None: none yet).
Group = list[object]


def _key(reference: str) -> str:
    """What a reference names, as :class:`_Resolver` first reads it: without the spaces
    around it, the tabs and line breaks in it and its fragment (``""``: the page)."""
    reference = reference.strip(_STRIP)
    if not reference.isprintable():  # (rare: skip three scans of every reference)
        for ch in "\t\n\r":
            reference = reference.replace(ch, "")
    return reference.split("#", 1)[0]


class _Found:
    """The references of a page grouped by what each names (:func:`_key`), in the order
    first found: an index names the same pages under thousands of fragments, and only
    what :func:`_links` merges is kept (kinds, requisite, the first label that is not
    blank), not a tuple per reference. Merging the groups of the URLs they resolve to
    gives what merging every reference in document order would."""

    def __init__(self) -> None:
        self.groups: dict[str, Group] = {}
        self._count = 0

    def add(self, reference: str, kind: str, label: str | None, requisite: bool) -> int:
        """Count one reference; its index in document order."""
        index = self._count
        self._count += 1
        key = _key(reference)
        group = self.groups.get(key)
        if group is None:
            self.groups[key] = [index, kind, kind == PAGE, requisite, None, None]
        else:
            group[2] = group[2] or kind == PAGE
            group[3] = group[3] or requisite
        self.label(key, index, label)
        return index

    def label(self, key: str, index: int, label: str | None) -> None:
        """The label of the reference found at ``index``, kept if it is the group's first
        that is not blank."""
        if label and label.strip():
            group = self.groups[key]
            first = group[4]
            if first is None or index < first:  # type: ignore[operator]
                group[4], group[5] = index, label


class _Collector:
    """The references of one page, in document order, as libxml2 reports its tags (a
    parser *target*: no tree is built, so a page costs the references found, not a DOM
    several times its size); :func:`_from_tree` hands it the elements of Lexbor's."""

    #: The target's ``data``: the list's own ``append``, a call in C for each of the
    #: page's text events (a million on python3-doc), most of which no one reads.
    data: Callable[[str], None]

    def __init__(self) -> None:
        self.base: str | None = None
        self.found = _Found()
        #: The text since the open ``<a>`` or ``<style>`` started (while neither is
        #: open, the text since the last tag, dropped at the next).
        self._text: list[str] = []
        self.data = self._text.append
        #: The open ``<a>``: its key and index in ``found``.
        self._anchor: tuple[str, int] | None = None
        #: Where the text of the open ``<style>`` starts in ``_text``, and how deep
        #: inside ``<template>`` we are (a template's content is not rendered, so
        #: nothing there is loaded).
        self._style: int | None = None
        self._template = 0
        self._tags: dict[str, Callable[[dict[str, str]], None]] = {
            "a": self._a, "area": self._area, "base": self._base,
            "iframe": self._frame, "frame": self._frame, "img": self._img,
            "script": self._script, "source": self._source, "video": self._video,
            "audio": self._script, "object": self._object, "embed": self._script,
            "input": self._input, "link": self._link, "meta": self._meta,
            "style": self._open_style}

    # -- the target's interface (lxml.etree.HTMLParser) ----------------------------------

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        if self._anchor is None and self._style is None:
            self._text.clear()  # (no one's text)
        if tag == "template":
            self._template += 1
        if self._template:
            return
        handle = self._tags.get(tag)
        if handle is not None:
            handle(attrs)
        if attrs:
            style = attrs.get("style")
            if style:
                self._css(style_references(style))
            background = attrs.get("background")
            if background is not None and tag in _BACKGROUNDS:
                self._add(background, FILE, None, True)

    def end(self, tag: str) -> None:
        if tag == "template":
            self._template = max(0, self._template - 1)
        elif tag == "a":
            self._close_anchor()
        elif tag == "style" and self._style is not None:
            self._css(css_references("".join(self._text[self._style:])))
            self._style = None

    def close(self) -> None:
        self._close_anchor()

    # -- what each tag names -------------------------------------------------------------

    def _add(self, reference: str | None, kind: str, label: str | None,
             requisite: bool) -> None:
        if reference is not None:
            self.found.add(reference, kind, label, requisite)

    def _css(self, references: list[str]) -> None:
        for reference in references:
            self.found.add(reference, FILE, None, True)

    def _srcset(self, srcset: str | None) -> None:
        for url in _candidates(srcset or ""):
            self._add(url, FILE, None, True)

    def _close_anchor(self) -> None:
        if self._anchor is None:
            return
        key, index = self._anchor
        self._anchor = None
        self.found.label(key, index, " ".join("".join(self._text).split()) or None)
        if self._style is None:
            self._text.clear()

    def _base(self, attrs: dict[str, str]) -> None:
        if self.base is None and "href" in attrs:
            self.base = attrs["href"]

    def _a(self, attrs: dict[str, str]) -> None:
        self._close_anchor()
        if "href" in attrs:
            index = self.found.add(attrs["href"], PAGE, None, False)
            self._anchor = (_key(attrs["href"]), index)

    def _area(self, attrs: dict[str, str]) -> None:
        self._add(attrs.get("href"), PAGE, attrs.get("alt"), False)

    def _frame(self, attrs: dict[str, str]) -> None:
        self._add(attrs.get("src"), PAGE, attrs.get("title"), True)

    def _img(self, attrs: dict[str, str]) -> None:
        self._add(attrs.get("src"), FILE, attrs.get("alt"), True)
        self._srcset(attrs.get("srcset"))
        if self._anchor is not None and attrs.get("alt"):
            self._text.append(attrs["alt"])  # an image link's label

    def _script(self, attrs: dict[str, str]) -> None:
        self._add(attrs.get("src"), FILE, None, True)

    def _source(self, attrs: dict[str, str]) -> None:
        self._add(attrs.get("src"), FILE, None, True)
        self._srcset(attrs.get("srcset"))

    def _video(self, attrs: dict[str, str]) -> None:
        self._add(attrs.get("src"), FILE, None, True)
        self._add(attrs.get("poster"), FILE, None, True)

    def _object(self, attrs: dict[str, str]) -> None:
        self._add(attrs.get("data"), FILE, None, True)

    def _input(self, attrs: dict[str, str]) -> None:
        if attrs.get("type", "").strip().lower() == "image":
            self._add(attrs.get("src"), FILE, attrs.get("alt"), True)

    def _link(self, attrs: dict[str, str]) -> None:
        rels = set(attrs.get("rel", "").lower().split())
        if rels & _HINT_RELS:
            return
        kind = PAGE if rels & _PAGE_RELS and "stylesheet" not in rels else FILE
        self._add(attrs.get("href"), kind, attrs.get("title"), bool(rels & _REQUISITE_RELS))

    def _meta(self, attrs: dict[str, str]) -> None:
        if attrs.get("http-equiv", "").strip().lower() != "refresh":
            return
        match = _REFRESH.match(attrs.get("content", ""))
        if match is None:
            return
        url = match["url"]
        if match["q"]:
            url = url.split(match["q"], 1)[0]
        self._add(url.strip(_STRIP) or None, PAGE, None, True)

    def _open_style(self, attrs: dict[str, str]) -> None:
        self._style = len(self._text)


def _candidates(srcset: str) -> list[str]:
    """The URLs of a ``srcset`` (``a.png 1x, b.png 2x``, ``c.png 640w``), as the HTML
    Standard splits it: a URL is a run of non-space characters (a comma inside one is
    the URL's, ``a,b.png``; commas at its end end the candidate), its descriptors run to
    the next comma outside parentheses."""
    urls = []
    at, end = 0, len(srcset)
    while at < end:
        while at < end and (srcset[at] in _STRIP or srcset[at] == ","):
            at += 1
        start = at
        while at < end and srcset[at] not in _STRIP:
            at += 1
        url = srcset[start:at]
        if not url:
            break
        if url.endswith(","):
            urls.append(url.rstrip(","))
            continue
        urls.append(url)
        depth = 0
        while at < end and (depth or srcset[at] != ","):
            depth += {"(": 1, ")": -1 if depth else 0}.get(srcset[at], 0)
            at += 1
    return urls


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


def _other_codec(charset: str | None) -> str | None:
    """The codec of a declared charset when it is not UTF-8 (None: read as UTF-8)."""
    if charset is None:
        return None
    try:
        name = codecs.lookup(charset).name
    except LookupError:
        return None
    return None if name == "utf-8" else name


def _text(body: bytes, charset: str | None) -> str:
    """A style sheet as text: its declared charset, else UTF-8 with every other octet
    kept (as lone surrogates, which the URL parser escapes as the very octets)."""
    if body.startswith(codecs.BOM_UTF8):
        return body[len(codecs.BOM_UTF8):].decode("utf-8", "surrogateescape")
    codec = _other_codec(charset)
    if codec is not None:
        return body.decode(codec, "replace")
    return body.decode("utf-8", "surrogateescape")


def _utf8(body: bytes) -> bool:
    """Whether ``body`` is UTF-8, checked a slice at a time: decoding a big page whole
    would hold a copy of it as text, a peak of its own, only to drop it."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(body)
    try:
        for at in range(0, len(body), _FEED):
            decoder.decode(view[at:at + _FEED])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _markup(body: bytes, charset: str | None) -> tuple[bytes, Callable[[str], str]]:
    """What libxml2 parses (UTF-8 bytes: the page's own when it is UTF-8), and how to
    give back a reference or label found in it the octets that were not UTF-8.

    A parser reads UTF-8 and turns every other octet into U+FFFD, which would lose
    ``caf\\xe9.html``. Such octets (``surrogateescape``'s lone surrogates, which no
    UTF-8 text holds) are handed to it as 128 private-use characters the page does not
    use, and turned back after.
    """
    if body.startswith(codecs.BOM_UTF8):
        body = body[len(codecs.BOM_UTF8):]
    else:
        codec = _other_codec(charset)
        if codec is not None:
            return body.decode(codec, "replace").encode("utf-8"), str
    if _utf8(body):
        return body, str
    text = body.decode("utf-8", "surrogateescape")
    for start in range(0xF0000, 0x110000, 0x80):
        if re.search(f"[{chr(start)}-{chr(start + 0x7F)}]", text) is None:
            there = {0xDC80 + i: start + i for i in range(0x80)}
            back = {start + i: 0xDC80 + i for i in range(0x80)}
            return (text.translate(there).encode("utf-8"),
                    lambda found, back=back: found.translate(back))
    return _LONE.sub("\ufffd", text).encode("utf-8"), str  # (every block taken: lose them)


#: References resolved on earlier pages, by the base's directory (:meth:`_Resolver.
#: _directory`), the reference and whether the page is local: the pages of one
#: directory name the same pages, style sheets and images. At most :data:`RESOLVED_KEPT`.
_RESOLVED: dict[tuple[tuple[str, str, str], str, bool], str | None] = {}
RESOLVED_KEPT = 4096
#: A reference whose result depends on the base's directory only, never on its last
#: segment or query: it has a path (it starts with none of ``?;#``, nor with a space or
#: control character, which :func:`urllib.parse.urljoin` strips) and no scheme, or a
#: scheme and an authority (``http:?q`` and ``http:`` take the base's path and query).
_BY_DIRECTORY = re.compile(r"[^?;#:/\x00-\x20][^:/]*(?:/|\Z)|/|[A-Za-z][A-Za-z0-9+.-]*://")


class _Resolver:
    """References resolved against one base, each distinct reference once (a page of
    an index names the same page under many fragments); one that resolves the same
    against every base of the directory is looked up in :data:`_RESOLVED` first."""

    def __init__(self, base: str, *, local: bool):
        self.base = base
        self.local = local
        self._done: dict[str, str | None] = {}
        self._directory = self._directory_of(base)

    @staticmethod
    def _directory_of(base: str) -> tuple[str, str, str] | None:
        """What of ``base`` a reference :data:`_BY_DIRECTORY` matches resolves against:
        its scheme, authority and path up to the last ``/`` (None: no cache)."""
        try:
            scheme, netloc, path, _, _ = urlsplit(base)
        except ValueError:
            return None
        return scheme, netloc, path[:path.rfind("/") + 1]

    def __call__(self, reference: str) -> str | None:
        """``reference`` resolved, escaped as RFC 1738 writes URLs; None to skip.

        The lenient parser of :mod:`anyurl.url` does the escaping (a space, ``|``, a
        non-ASCII character or a stray ``%`` become ``%XX``) and refuses what is no URL.
        """
        reference = reference.strip(_STRIP)
        if not reference.isprintable():  # (rare: skip three scans of every reference)
            for ch in "\t\n\r":
                reference = reference.replace(ch, "")
        reference = reference.split("#", 1)[0]
        if not reference:
            return None  # the page itself
        done = self._done
        if reference in done:
            return done[reference]
        directory = self._directory
        if directory is not None and _BY_DIRECTORY.match(reference):
            key = (directory, reference, self.local)
            if key in _RESOLVED:
                found = _RESOLVED[key]
            else:
                found = self._absolute(reference)
                if len(_RESOLVED) >= RESOLVED_KEPT:
                    _RESOLVED.clear()  # (bounded: forgetting costs a resolution again)
                _RESOLVED[key] = found
        else:
            found = self._absolute(reference)
        done[reference] = found
        return found

    def _absolute(self, reference: str) -> str | None:
        try:
            joined = urljoin(self.base, reference)
            scheme = urlsplit(joined).scheme.lower()
        except ValueError:  # an unclosed "[" in a host ...
            return None
        if not retrievable(scheme) and not (scheme == "file" and self.local):
            return None
        return written(joined)  # None: not a URL anyurl could fetch (no host ...)


def _links(info: ResourceInfo, base: str | None, found: _Found,
           restore: Callable[[str], str] = str) -> list[Link]:
    """The found references as links of the resource ``info`` describes, each URL once
    (merged as :func:`~anyurl.links.unique` merges them, in document order: the first
    kind unless one was a page, a requisite if one was, the first label that is not
    blank; an index page names the same URL thousands of times, and a :class:`Link`
    each would cost more than the parse)."""
    page = str(info.url.without_fragment())
    local = info.url.scheme == "file"
    resolve = _Resolver(page, local=local)
    if base is not None:
        resolve = _Resolver(resolve(restore(base)) or page, local=local)
    merged: dict[str, Group] = {}
    for key, group in found.groups.items():  # (in the order first found)
        url = resolve(restore(key))
        if url is None or url == page:
            continue
        before = merged.get(url)
        if before is None:
            merged[url] = list(group)
            continue
        before[2] = before[2] or group[2]
        before[3] = before[3] or group[3]
        if group[4] is not None and (before[4] is None
                                     or group[4] < before[4]):  # type: ignore[operator]
            before[4], before[5] = group[4], group[5]
    links = []
    for url, (_, kind, page_too, requisite, _, label) in merged.items():
        text = restore(str(label)).strip() if label else None
        links.append(Link(url, PAGE if page_too else str(kind),
                          display(text) if text else None, requisite=bool(requisite)))
    return checked(links)


def _plain(info: ResourceInfo, body: bytes, types: frozenset[str]
           ) -> tuple[bytes, str | None] | None:
    """The body to read and its declared charset, if it is one of ``types`` and within
    the bound; else None."""
    media, charset = _media_type(info.content_type)
    if media not in types or len(body) > MAX_HTML:
        return None
    plain = _plain_body(info, body)
    return None if plain is None else (plain, charset)


#: The largest page read from Lexbor's tree (:func:`_from_tree`), a bigger one from
#: libxml2's events (:func:`_from_events`): the tree costs 13 to 15 times its page while
#: it lives, the events the references found.
TREE_MAX = 128 << 10
#: The elements that can name something, which Lexbor selects from its tree in C, in
#: document order: those with an attribute the collector reads a reference from, and
#: ``<style>``. A superset (a ``<p data>``, an ``<img>`` with ``src`` but no handler's
#: reason to care) costs a ``start`` that finds nothing; matching by attribute name
#: alone takes 0.6 times matching each tag's own (``a[href],area[href],...``).
_NAMING = "[href],[src],[srcset],[data],[poster],[background],[style],[http-equiv],style"


#: Tags after which Lexbor's tree may name otherwise than libxml2's events, wherever
#: they are (a pattern searched for in the lower-cased page): a ``<frame>`` outside a
#: ``<frameset>`` is dropped by the HTML Standard's tree construction, and everything
#: but frames inside one; an ``<image>`` becomes an ``<img>``; a ``<template>``'s content
#: is apart from the document and ends only with its own end tag (libxml2 ends it with
#: its parent's); in an ``<svg>`` or ``<math>`` the Standard parses foreign content,
#: where libxml2 keeps to HTML's rules (a ``<title>`` or ``<style>`` there holds
#: elements, not text; ``<![CDATA[`` is a section; a ``<p>`` leaves the block ...), so
#: a block holding more than drawings (:data:`_UNLIKE`) counts. (A prefix is enough: a
#: ``<frameset>`` counts, and an ``<imagemap>``, which costs only speed.)
_TREE_DIFFERS = re.compile(rb"<(?:frame|image|template|(svg|math))")
#: In an ``<svg>`` or ``<math>`` block (to its end tag, or the page's end), a ``<`` that
#: is not one of the drawing elements both parsers read alike (icons are drawn with
#: these: python3-doc's 529 are paths).
_UNLIKE = re.compile(
    rb"<(?!/?(?:path|g|circle|rect|line|polyline|polygon|ellipse|defs|symbol|use|"
    rb"lineargradient|radialgradient|stop|clippath|mask|pattern)[\s/>])")
#: Tags the tree drops or merges where they come late, and libxml2 does not: a table's
#: parts outside a table; a ``<body>`` or ``<html>`` after what opened the body, whose
#: attributes go to the element already there (libxml2 drops the tag). They matter
#: only with an attribute that can name something (:data:`_NAMING_ATTRIBUTES`).
_LATE_TAGS = frozenset({b"body", b"html", b"head", b"caption", b"col", b"colgroup",
                        b"tbody", b"td", b"tfoot", b"th", b"thead", b"tr"})
#: A ``background``, or a ``style`` with a ``(`` (a ``url()``), in the lower-cased page
#: (two patterns, each found by its first letters: one with both is tried at every
#: byte, and takes 4 times as long).
_NAMING_ATTRIBUTES = (re.compile(rb"background"), re.compile(rb"style[^>]*?\("))
#: The name of the tag at the start of a slice.
_TAG_NAME = re.compile(rb"<([a-z0-9]+)")


def _tree_reads_alike(markup: bytes) -> bool:
    """Whether Lexbor's tree of ``markup`` names what libxml2's events name (labels
    and order aside, see the module docstring): nothing :data:`_TREE_DIFFERS` finds
    but drawings, and none of :data:`_LATE_TAGS` with an attribute that can name
    something."""
    page = markup.lower()
    for found in _TREE_DIFFERS.finditer(page):
        if found[1] is None:
            return False  # (a frame, an image, a template)
        end = page.find(b"</" + found[1], found.end())
        if _UNLIKE.search(page, found.end(), len(page) if end < 0 else end):
            return False
    for found in (m for pattern in _NAMING_ATTRIBUTES for m in pattern.finditer(page)):
        at = found.start()
        tag = page.rfind(b"<", 0, at)
        if tag >= 0 and page.find(b">", tag, at) < 0:  # (inside that tag)
            name = _TAG_NAME.match(page, tag)
            if name is not None and name[1] in _LATE_TAGS:
                return False
    return True


def _from_tree(markup: bytes) -> _Collector:
    """The references of a page Lexbor parsed into a tree, as a :class:`_Collector`
    finds them in libxml2's events, with no call into Python for the elements that
    name nothing (most of a page: libxml2 calls the target for each of them).

    Each element :data:`_NAMING` selects is given to the collector's ``start`` (an
    anchor without a ``style`` straight to its references, the most common case); an
    anchor's label is the text inside it, with the ``alt`` of its images where they
    stand; a ``<style>`` its text. A ``<template>``'s content is not in the tree's
    document, so not selected, as the collector skips it.
    """
    collector = _Collector()
    found = collector.found
    tree = LexborHTMLParser(markup)
    pictured = set()  # the anchors whose label holds an image's alt text
    for img in tree.css("a[href] img[alt]"):
        up = img.parent
        while up is not None and up.tag != "a":
            up = up.parent
        if up is not None:
            pictured.add(up.mem_id)
    for node in tree.css(_NAMING):
        tag = node.tag
        attrs = node.attributes
        if tag == "a" and "style" not in attrs:
            if "href" in attrs:  # (else selected for another attribute: no reference)
                label = _label(node) if node.mem_id in pictured else node.text()
                found.add(attrs["href"] or "", PAGE, " ".join(label.split()) or None,
                          False)
        elif tag != "template" and tag is not None:
            collector.start(tag, {name: value or "" for name, value in attrs.items()})
            if tag == "a":
                collector.data(_label(node) if node.mem_id in pictured else node.text())
                collector.end("a")
            elif tag == "style":
                collector.data(node.text())
                collector.end("style")
    return collector


def _label(anchor: LexborNode) -> str:
    """The text of an anchor with the ``alt`` of the images in it, in document order."""
    parts = []
    for node in anchor.traverse(include_text=True):
        if node.is_text_node:
            parts.append(node.text_content or "")
        elif node.tag == "img" and (alt := node.attributes.get("alt")):
            parts.append(alt)
    return "".join(parts)


def _parser(collector: _Collector) -> etree.HTMLParser:
    """libxml2's HTML parser reporting to ``collector``; UTF-8 said, so that a ``<meta
    charset>`` cannot override what the header said."""
    return etree.HTMLParser(target=collector, encoding="utf-8", no_network=True,
                            remove_comments=True, remove_pis=True, recover=True)


class _Source(Protocol):
    """What libxml2 pulls a page from."""

    def read(self, size: int = -1, /) -> bytes: ...


def _from_events(source: _Source) -> _Collector:
    """The references libxml2 reports to a :class:`_Collector` as it pulls the page from
    ``source`` (``read``, a few KiB at a time). Pulled, not pushed: libxml2's push parser
    (``feed``) keeps every byte given to it until the end, a copy of the page, where
    pulling keeps only the piece being read."""
    collector = _Collector()
    try:
        etree.parse(source, _parser(collector))
    except etree.LxmlError:
        pass  # what was found stands
    collector.close()
    return collector


def html_links(info: ResourceInfo, body: bytes) -> list[Link]:
    """The links of an HTML page (see the module docstring); [] for anything else."""
    readable = _plain(info, body, HTML_TYPES)
    if readable is None:
        return []
    markup, restore = _markup(*readable)
    if len(readable[0]) <= TREE_MAX and _tree_reads_alike(markup):
        # (the plain page's size, as file_links decides)
        collector = _from_tree(markup)
    else:
        collector = _from_events(io.BytesIO(markup))
    return _links(info, collector.base, collector.found, restore)


def css_links(info: ResourceInfo, body: bytes) -> list[Link]:
    """The links of a style sheet: its ``@import`` and ``url()`` references, each a
    requisite, resolved against its own URL; [] for anything else."""
    readable = _plain(info, body, CSS_TYPES)
    if readable is None:
        return []
    plain, charset = readable
    charset = charset or declared_charset(plain)
    found = _Found()
    for reference in css_references(_text(plain, charset)):
        found.add(reference, FILE, None, True)
    return _links(info, None, found)


def streams(info: ResourceInfo) -> bool:
    """Whether :func:`file_links` reads the resource a piece at a time: an HTML page."""
    return _media_type(info.content_type)[0] in HTML_TYPES


def file_links(info: ResourceInfo, file: BinaryIO) -> list[Link]:
    """:func:`document_links` of a saved file, an HTML page pulled from it by libxml2 a
    few KiB at a time when it is UTF-8 (as almost every page is): a big page costs the
    parser's state and the references found, never its bytes whole. A page in another
    charset, with a content coding left on, or with an octet that is not UTF-8 is read
    whole, as :func:`html_links` reads it; the links are the same either way."""
    media, charset = _media_type(info.content_type)
    coded = info.extra.get("content_encoding") and not info.extra.get("decoded")
    if media not in HTML_TYPES or coded or _other_codec(charset) is not None:
        return document_links(info, file.read())
    size = os.fstat(file.fileno()).st_size
    if size > MAX_HTML:
        return []
    if size <= TREE_MAX:  # (read from Lexbor's tree, whole)
        return html_links(info, file.read())
    links = _streamed(info, file)
    if links is None:  # not UTF-8 after all: the octets that are not are kept
        file.seek(0)
        links = html_links(info, file.read())
    return links


class _UTF8Reader:
    """A saved page as libxml2 pulls it, each piece checked to be UTF-8 on the way: once
    one is not (``utf8`` False), the page ends there for the parser, whose links are
    then not wanted."""

    def __init__(self, file: BinaryIO) -> None:
        self._file = file
        self._check = codecs.getincrementaldecoder("utf-8")()
        self.utf8 = True

    def read(self, size: int = -1, /) -> bytes:
        if not self.utf8:
            return b""
        chunk = self._file.read(size)
        try:
            self._check.decode(chunk, final=not chunk)
        except UnicodeDecodeError:
            self.utf8 = False
            return b""
        return chunk

    def rest_is_utf8(self) -> bool:
        """Whether what the parser did not read (it stopped at an error) is UTF-8 too."""
        while self.read(_FEED):
            pass
        return self.utf8


def _streamed(info: ResourceInfo, file: BinaryIO) -> list[Link] | None:
    """The links of a UTF-8 page pulled by libxml2 from its file (after a BOM); None
    when an octet is not UTF-8."""
    if file.read(len(codecs.BOM_UTF8)) != codecs.BOM_UTF8:
        file.seek(0)
    reader = _UTF8Reader(file)
    collector = _from_events(reader)
    if not reader.rest_is_utf8():
        return None
    return _links(info, collector.base, collector.found)


def document_links(info: ResourceInfo, body: bytes) -> list[Link]:
    """The links of an HTML page or a style sheet, by its ``Content-Type``."""
    media, _ = _media_type(info.content_type)
    if media in CSS_TYPES:
        return css_links(info, body)
    return html_links(info, body)
