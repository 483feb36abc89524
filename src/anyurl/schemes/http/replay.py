"""HTTP's replay: an archived page rewritten so that it replays inside the gateway as
the site it was, as pywb does (the http descriptor's ``replay``; ``anyurl serve
--replay``, :mod:`anyurl.serve.site`).

An archived page names its stylesheets, images, scripts and links by their live
addresses; shown as it is, a browser would fetch them from the live web (or fail to).
Every such URL is rewritten to the gateway's address of its archived capture, which the
gateway gives (an :class:`Addresses`: ``/_replay/<timestamp>/<absolute URL>`` for a URL
of a scheme that replays as a site, the gateway's own page for another it opens).

What is rewritten, as pywb's ``HTMLRewriter`` and ``CSSRewriter`` do:

* HTML attributes that hold a URL (``href``, ``src``, ``action``, ``formaction``,
  ``poster``, ``background``, ``object data``, ``xlink:href``), the candidate lists
  ``srcset`` and ``imagesrcset``, the URL of ``<meta http-equiv=refresh>``, ``style``
  attributes and ``<style>`` elements as CSS, and ``<iframe srcdoc>`` as HTML;
* ``<base href>``: URLs are resolved against it, and it is itself rewritten, so that URLs a
  script makes at run time resolve inside the replay too;
* CSS ``url()``, ``@import "..."`` and ``image-set("...")``, found by tinycss2's tokenizer
  (so a ``url()`` in a comment or a string is left alone).

Scripts are left as they are (only a ``<script src>`` is rewritten); the page's
``Content-Security-Policy`` (the gateway's :data:`anyurl.serve.site.REPLAY_CSP`) keeps
whatever a script builds from being fetched live. A stylesheet's ``integrity`` and a
``<meta http-equiv=Content-Security-Policy>`` are renamed (``data-archived-...``): the
first would refuse the rewritten stylesheet, the second the rewritten addresses.

Only what must change changes: the page is spliced at the places of the start tags and
style texts that were rewritten, every other byte is kept (comments, scripts, entities,
the original attribute quoting of the tags left alone). The page is decoded in its own
charset and encoded back in it; bytes that do not decode survive the round trip
(``surrogateescape``).

Which pages and stylesheets are rewritten is :func:`rewritten_as`'s answer (their
content type, or the browser's ``Sec-Fetch-Dest: style``).
"""

from __future__ import annotations

import codecs
import importlib
import re
from dataclasses import dataclass
from html import escape
from html.parser import HTMLParser
from typing import Any, Protocol

__all__ = ["Addresses", "rewrite_body", "rewrite_css", "rewrite_html", "rewrite_refresh",
           "rewrite_srcset", "rewritten_as"]

#: Whitespace a browser strips around a URL (and tab, LF, CR it drops inside one).
_WS = " \t\n\r\f"
_HTML_TYPES = ("text/html", "application/xhtml+xml")


class Addresses(Protocol):
    """Where one archived document's URLs replay: the gateway's map of them, resolved
    against the document's URL (or its ``<base href>``) near its capture's time."""

    def rebased(self, href: str) -> Addresses:
        """The map of a document whose ``<base href>`` is ``href``."""
        ...

    def url(self, ref: str, *, embed: bool = True) -> str:
        """``ref``'s replay address; ``embed`` for a resource the page loads (an image,
        a stylesheet), not one it navigates to (a link, a form, a frame)."""
        ...


def rewritten_as(content_type: str | None, dest: str | None) -> str | None:
    """How a capture's payload is rewritten: ``"html"``, ``"css"`` (by its content type,
    or because the browser loads it as a stylesheet: ``Sec-Fetch-Dest: style``, which
    stands for pywb's ``cs_`` modifier), or None: served as archived."""
    base = (content_type or "").split(";")[0].strip().lower()
    if base in _HTML_TYPES:
        return "html"
    if base == "text/css" or (dest or "").lower() == "style":
        return "css"
    return None


# -- srcset and refresh --------------------------------------------------------------------


def rewrite_srcset(value: str, urls: Addresses) -> str:
    """A ``srcset`` candidate list (``a.png 1x, b.png 2x``) with each URL rewritten and
    its descriptors kept, parsed as the HTML standard parses it (a URL runs to
    whitespace; a comma ending it ends the candidate; descriptors run to a comma
    outside parentheses)."""
    out: list[str] = []
    at, end = 0, len(value)
    while at < end:
        while at < end and (value[at] in _WS or value[at] == ","):
            at += 1
        if at >= end:
            break
        start = at
        while at < end and value[at] not in _WS:
            at += 1
        url = value[start:at]
        descriptors = ""
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            start, depth = at, 0
            while at < end and (value[at] != "," or depth):
                depth += {"(": 1, ")": -1}.get(value[at], 0)
                at += 1
            descriptors = value[start:at].strip(_WS)
        out.append(urls.url(url) + (" " + descriptors if descriptors else ""))
    return ", ".join(out)


_REFRESH = re.compile(r"""^(\s*[\d.]*\s*[;,]?\s*(?:url\s*=\s*)?)(['"]?)(.*?)\2(\s*)$""",
                      re.IGNORECASE | re.DOTALL)


def rewrite_refresh(value: str, urls: Addresses) -> str:
    """``<meta http-equiv=refresh content="5; url=next.html">`` with its URL rewritten."""
    m = _REFRESH.match(value)
    if m is None or not m.group(3):
        return value
    lead, quote_, url, tail = m.groups()
    return f"{lead}{quote_}{urls.url(url, embed=False)}{quote_}{tail}"


# -- CSS -----------------------------------------------------------------------------------


def rewrite_css(text: str, urls: Addresses) -> str:
    """``text`` (a stylesheet, a ``<style>`` element or a ``style`` attribute) with every
    ``url()``, ``@import`` string and ``image-set()`` string rewritten; all else kept."""
    # tinycss2 ships no type information: imported by name, it is Any to the type
    # checker without a per-module setting in pyproject.toml.
    tinycss2: Any = importlib.import_module("tinycss2")
    nodes = tinycss2.parse_component_value_list(text, skip_comments=True)
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|[\r\n\f]", text)]
    edits: list[tuple[int, int, str]] = []
    _css_edits(nodes, _Source(text, starts), urls, edits)
    return _splice(text, edits)


@dataclass(frozen=True)
class _Source:
    """A CSS text and where its lines start, as tinycss2 counts them (CR LF, CR, LF and
    FF each end a line), to turn a token's line and column into an offset."""

    text: str
    starts: list[int]

    def offset(self, node: Any) -> int:
        return int(self.starts[node.source_line - 1] + node.source_column - 1)

    def string_end(self, start: int) -> int:
        """The end of the quoted string starting at ``start``."""
        text, quote_ = self.text, self.text[start]
        at = start + 1
        while at < len(text) and text[at] != quote_ and text[at] not in "\r\n\f":
            at += 2 if text[at] == "\\" else 1
        return min(at + 1, len(text))

    def url_end(self, start: int) -> int:
        """The end of the unquoted ``url(...)`` starting at ``start``."""
        text, at = self.text, start
        while at < len(text) and text[at] != ")":
            at += 2 if text[at] == "\\" else 1
        return min(at + 1, len(text))


def _css_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ") + '"'


def _css_edits(nodes: list[Any], source: _Source, urls: Addresses,
               edits: list[tuple[int, int, str]]) -> None:
    """The rewrites of a token tree's URLs, as (start, end, text) of ``source``."""
    after_import = False
    for node in nodes:
        kind = node.type
        if kind in ("whitespace", "comment"):
            continue
        if kind == "url":
            start = source.offset(node)
            edits.append((start, source.url_end(start),
                          f"url({_css_string(urls.url(node.value))})"))
        elif kind == "string" and after_import:
            start = source.offset(node)
            edits.append((start, source.string_end(start), _css_string(urls.url(node.value))))
        elif kind == "function":
            if node.lower_name in ("url", "src", "image-set", "-webkit-image-set"):
                for arg in node.arguments:
                    if arg.type == "string":
                        start = source.offset(arg)
                        edits.append((start, source.string_end(start),
                                      _css_string(urls.url(arg.value))))
            _css_edits([a for a in node.arguments if a.type != "string"], source, urls, edits)
        elif kind in ("{} block", "[] block", "() block"):
            _css_edits(node.content, source, urls, edits)
        after_import = kind == "at-keyword" and node.lower_value == "import"


def _splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    """``text`` with each ``(start, end, replacement)`` of ``edits`` applied."""
    out: list[str] = []
    at = 0
    for start, end, new in sorted(edits):
        if start < at:
            continue  # nested in an edit already made
        out += [text[at:start], new]
        at = end
    out.append(text[at:])
    return "".join(out)


# -- HTML ----------------------------------------------------------------------------------

#: Attributes that hold one URL, on any element (``data`` only on ``<object>``).
_URL_ATTRS = frozenset({"href", "src", "action", "formaction", "poster", "background",
                        "xlink:href", "data", "codebase"})
#: Elements whose URL is navigated to (a page), not loaded into the page.
_NAVIGATED = frozenset({"a", "area", "form", "iframe", "frame"})


class _BaseFinder(HTMLParser):
    """The first ``<base href>`` of a page: it applies to every URL of the page, those
    before it too."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.href: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "base" and self.href is None:
            self.href = next((v for k, v in attrs if k == "href" and v is not None), None)


class _Rewriter(HTMLParser):
    """Finds the start tags and ``<style>`` texts to rewrite, as edits of the page's
    text at the places the parser reports (its lines are counted by LF)."""

    def __init__(self, text: str, urls: Addresses) -> None:
        super().__init__(convert_charrefs=True)
        self.text = text
        self.urls = urls
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.edits: list[tuple[int, int, str]] = []
        self._style: tuple[int, list[str]] | None = None

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.starts[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag, attrs, closed=False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag, attrs, closed=True)

    def handle_data(self, data: str) -> None:
        if self._style is not None:
            self._style[1].append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "style" and self._style is not None:
            start, chunks = self._style
            css = "".join(chunks)
            rewritten = rewrite_css(css, self.urls)
            if rewritten != css:
                self.edits.append((start, start + len(css), rewritten))
            self._style = None

    def _tag(self, tag: str, attrs: list[tuple[str, str | None]], *, closed: bool) -> None:
        raw = self.get_starttag_text() or ""
        start = self._offset()
        new = [(name, self._attr(tag, name, value, attrs)) for name, value in attrs]
        if tag == "style" and not closed:
            self._style = (start + len(raw), [])
        if new != attrs or any(_renamed(tag, name, value) for name, value in attrs):
            self.edits.append((start, start + len(raw), _start_tag(tag, new, closed=closed)))

    def _attr(self, tag: str, name: str, value: str | None,
              attrs: list[tuple[str, str | None]]) -> str | None:
        """An attribute's value as replayed (see the module's docstring)."""
        if value is None:
            return None
        urls = self.urls
        if name in _URL_ATTRS and (name != "data" or tag == "object"):
            return urls.url(value, embed=tag not in _NAVIGATED and "action" not in name)
        if name in ("srcset", "imagesrcset"):
            return rewrite_srcset(value, urls)
        if name == "style":
            return rewrite_css(value, urls)
        if name == "srcdoc" and tag == "iframe":
            return rewrite_html(value, urls)
        if tag == "meta" and name == "content":
            equiv = dict(attrs).get("http-equiv") or ""
            if equiv.lower() == "refresh":
                return rewrite_refresh(value, urls)
        return value


def _renamed(tag: str, name: str, value: str | None) -> bool:
    """Whether an attribute is renamed in the replay: a stylesheet's ``integrity``, a
    ``<meta>`` policy's ``http-equiv``."""
    if tag == "link":
        return name == "integrity"
    return (tag == "meta" and name == "http-equiv"
            and (value or "").strip().lower().startswith("content-security-policy"))


def _start_tag(tag: str, attrs: list[tuple[str, str | None]], *, closed: bool) -> str:
    """A start tag written anew: attributes double-quoted and escaped, a stylesheet's
    ``integrity`` and a meta CSP's ``http-equiv`` renamed (see the module's docstring)."""
    parts = [f"<{tag}"]
    for name, value in attrs:
        if _renamed(tag, name, value):
            name = "data-archived-" + name
        parts.append(f" {name}" if value is None else f' {name}="{escape(value)}"')
    parts.append(" />" if closed else ">")
    return "".join(parts)


def rewrite_html(text: str, urls: Addresses) -> str:
    """``text`` (an archived HTML page, decoded) with its URLs rewritten; everything
    else as it was."""
    finder = _BaseFinder()
    finder.feed(text)
    finder.close()
    if finder.href is not None:
        urls = urls.rebased(finder.href)
    parser = _Rewriter(text, urls)
    parser.feed(text)
    parser.close()
    if parser._style is not None:  # a <style> never closed runs to the end
        parser.handle_endtag("style")
    return _splice(text, parser.edits)


# -- bytes ---------------------------------------------------------------------------------

_META_CHARSET = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)""",
                           re.IGNORECASE)
_CSS_CHARSET = re.compile(rb'@charset "([A-Za-z0-9_.:\-]+)";')


def _charset(body: bytes, content_type: str | None, how: str) -> str:
    """The codec a page or stylesheet is read in: the HTTP header's charset, a byte
    order mark, ``<meta charset>`` in the first 1024 bytes (``@charset`` for CSS), else
    UTF-8 (a browser's locale default aside: undecodable bytes survive anyway)."""
    found: str | None = None
    m = re.search(r"charset\s*=\s*[\"']?([^\s;\"']+)", content_type or "", re.IGNORECASE)
    if m:
        found = m.group(1)
    elif body.startswith(codecs.BOM_UTF8):
        found = "utf-8-sig"
    elif body.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        found = "utf-16"
    else:
        head = (_META_CHARSET.search(body[:1024]) if how == "html"
                else _CSS_CHARSET.match(body))
        if head:
            found = head.group(1).decode("ascii")
    try:
        return codecs.lookup(found or "utf-8").name
    except LookupError:
        return "utf-8"


def _unencodable(exc: UnicodeError) -> tuple[str | bytes, int]:
    """The encoding error handler of rewritten pages: the bytes a decoding kept as
    surrogates go back as they were; a character the charset lacks (one an entity
    stood for, now in a rewritten attribute) becomes a character reference."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    chunk = exc.object[exc.start:exc.end]
    if all(0xDC80 <= ord(c) <= 0xDCFF for c in chunk):
        return bytes(ord(c) - 0xDC00 for c in chunk), exc.end
    return "".join(f"&#{ord(c)};" for c in chunk), exc.end


codecs.register_error("anyurl-replay", _unencodable)


def rewrite_body(body: bytes, content_type: str | None, how: str, urls: Addresses) -> bytes:
    """An archived payload rewritten as ``how`` says (``"html"`` or ``"css"``), in the
    charset it was written in."""
    charset = _charset(body, content_type, how)
    text = body.decode(charset, "surrogateescape")
    new = rewrite_html(text, urls) if how == "html" else rewrite_css(text, urls)
    if new == text:
        return body
    return new.encode(charset, "anyurl-replay")
