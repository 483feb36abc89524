"""The gateway's HTML: a handler's rendering wrapped as an escaped page whose links lead
back through the gateway.

Nothing here knows a scheme's format. The text of a page is what the scheme's handler
gives (:meth:`~anyurl.schemes.base.SchemeHandler.render`, or the raw listing when the
handler has no rendering: the bytes are as readable as they get), its links are the
handler's :meth:`~anyurl.schemes.base.SchemeHandler.links`, and the URLs written in the
text (a rendered Gopher menu's ``<gopher://...>``, a WAIS result's document URLs) are
found as :func:`anyurl.url.text.find_urls` finds URLs in any text. Every byte from the
remote side is HTML-escaped, and the page carries no script: the gateway's
Content-Security-Policy forbids scripts altogether.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from anyurl.links import Link
from anyurl.url import URL
from anyurl.url.text import find_urls

__all__ = ["FRAME_CSP", "PAGE_CSP", "RAW_CSP", "Page", "error_page", "frame_page",
           "gateway_href", "home_page", "render_page"]

#: The Content-Security-Policy of every gateway page: no script at all, styles only the
#: gateway's own (inline), forms only to the gateway, never framed.
PAGE_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; "
            "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
#: The policy of raw bytes and downloads: a sandbox (an opaque origin, no script), in
#: case a browser shows remote HTML in place of saving it.
RAW_CSP = "default-src 'none'; sandbox"

#: The one script of the gateway (the replay's top frame, :func:`frame_page`): when the
#: archived page in the frame goes to another replayed page (a link clicked), the banner
#: and the address bar follow it, as pywb's frame does. It only reads the frame's address.
_FRAME_SCRIPT = (
    "(function(){var f=document.getElementById('replay');"
    "function d(s){try{return decodeURI(s);}catch(e){return s;}}"
    "f.addEventListener('load',function(){var l,m;"
    "try{l=f.contentWindow.location;}catch(e){return;}"
    "m=/^\\/_replay\\/([0-9]+)\\/(.*)$/.exec(l.pathname+l.search);if(!m)return;"
    "document.getElementById('url').textContent=d(m[2]);"
    "document.getElementById('captured').textContent=m[1];"
    "document.getElementById('raw').href='/_raw/'+m[2];"
    "try{document.title=f.contentDocument.title||d(m[2]);}catch(e){}"
    "history.replaceState(null,'','/'+m[2]+l.hash);});})();")
#: The policy of the replay's top frame: the gateway's own styles, the frame of the
#: archived page from the gateway, the one script above by its hash.
FRAME_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; "
             "frame-src 'self'; script-src 'sha256-"
             + base64.b64encode(hashlib.sha256(_FRAME_SCRIPT.encode()).digest()).decode()
             + "'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")

_STYLE = """
body{font-family:sans-serif;margin:1em 2em;max-width:70em}
pre{background:#f6f6f0;padding:.8em;border:1px solid #ddd;overflow-x:auto;line-height:1.35}
.bar input[name=url]{width:70%;font-family:monospace}
.banner{background:#fff3c4;border:1px solid #e0c060;padding:.4em .8em}
.meta{color:#555}
.replay{margin:0;height:100vh;display:flex;flex-direction:column;max-width:none}
.replay .banner{margin:0;font-size:90%}
.replay iframe{flex:1;border:0;width:100%}
.error{background:#fde8e8;border:1px solid #e0a0a0;padding:.4em .8em}
small{color:#777;font-family:monospace}
"""


def gateway_href(url: str) -> str:
    """The gateway's path for ``url`` (absolute URL text as RFC 1738 writes it): the URL
    after a ``/``, ``/gopher://host/1/dir``. Its characters are already those a URL may
    hold, so the path is the URL as it is; :func:`escape` makes it an attribute."""
    return "/" + url


def raw_href(url: str) -> str:
    """The path of ``url``'s raw bytes, as the server sent them (a download)."""
    return "/_raw/" + url


@dataclass(frozen=True)
class Page:
    """What one gateway page shows: the URL, the handler's text and links, and, for a
    replayed record, when it was captured."""

    url: URL
    text: str
    links: Sequence[Link] = ()
    kind: str = "file"
    content_type: str | None = None
    #: The capture date of a replayed record (``WARC-Date``); None for a live fetch.
    captured: str | None = None
    #: Whether the URL takes a search term (its handler's ``search_url``): the page has
    #: a search form, whose target (``/_search``) asks the handler for the search URL.
    search: bool = False


def _linked_text(text: str) -> str:
    """``text`` escaped, each URL written in it an anchor to the gateway's page of it."""
    out: list[str] = []
    at = 0
    for found in find_urls(text):
        if found.start < at:
            continue
        out.append(escape(text[at:found.start]))
        out.append(f'<a href="{escape(gateway_href(found.url))}">'
                   f"{escape(text[found.start:found.end])}</a>")
        at = found.end
    out.append(escape(text[at:]))
    return "".join(out)


def _head(title: str) -> str:
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
            f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>\n")


@functools.cache
def browsed_examples() -> tuple[str, ...]:
    """A URL of each scheme the gateway shows as pages (its descriptor's example; not a
    scheme it only links to, nor ``file:``, which is no server's)."""
    from anyurl.registry import specs

    return tuple(dict.fromkeys(
        spec.example for spec in specs()
        if spec.example and spec.not_in_browser is None and spec.default_port is not None))


def _bar(url: str) -> str:
    starts = ", ".join(e[: e.index(":") + (3 if "://" in e else 1)] for e in browsed_examples())
    return ('<form class="bar" action="/_go" method="get">'
            f'<a href="/">anyurl</a> <input name="url" value="{escape(url)}" '
            f'placeholder="any URL: {escape(starts)} ..."> '
            '<button type="submit">Go</button></form>\n')


def render_page(page: Page) -> str:
    """The HTML of ``page``: the search bar, the capture banner of a replayed record,
    the URL (password masked) with a link to its raw bytes, a search form when the URL
    takes a term (a Gopher search item, a WAIS database), the text in ``<pre>`` with its
    URLs linked, then every link the handler found, labelled as the resource labels it."""
    url = page.url
    text = str(url)
    parts = [_head(url.masked()), _bar(url.masked())]
    if page.captured:
        parts.append(f'<p class="banner" id="banner">Replayed from the archive: captured '
                     f"{escape(page.captured)}</p>\n")
    parts.append(f"<h1>{escape(url.masked())}</h1>\n")
    described = ", ".join(x for x in (page.kind, page.content_type) if x)
    parts.append(f'<p class="meta">{escape(described)} &middot; '
                 f'<a id="raw" href="{escape(raw_href(text))}">raw bytes</a></p>\n')
    if page.search:
        parts.append('<form id="search" action="/_search" method="get">'
                     f'<input type="hidden" name="url" value="{escape(text)}">'
                     '<input name="q" placeholder="search words"> '
                     '<button type="submit">Search</button></form>\n')
    if page.text:
        parts.append(f"<pre>{_linked_text(page.text)}</pre>\n")
    if page.links:
        parts.append('<h2>Links</h2>\n<ul id="links">\n')
        for link in page.links:
            label = link.text if link.text and link.text.strip() else link.url
            more = "".join(f' <a class="more" href="{escape(gateway_href(m))}">[views]</a>'
                           for m in link.more)
            parts.append(f'<li><a href="{escape(gateway_href(link.url))}">'
                         f"{escape(label.strip())}</a>{more} "
                         f"<small>{escape(link.kind)}</small></li>\n")
        parts.append("</ul>\n")
    parts.append("</body></html>\n")
    return "".join(parts)


def error_page(url: str, message: str, hint: str | None = None) -> str:
    """A page saying what went wrong with ``url`` (masked by the caller) and what to try."""
    body = f'<p class="error" id="error">{escape(message)}</p>\n'
    if hint:
        body += f"<p>{escape(hint)}</p>\n"
    return _head("anyurl: error") + _bar(url) + body + "</body></html>\n"


def home_page(note: str, urls: Sequence[tuple[str, str]] = ()) -> str:
    """The gateway's front page: the bar that takes any URL, ``note`` (what is served),
    and for a replay each archived URL with its capture date."""
    parts = [_head("anyurl serve"), _bar(""), "<h1>anyurl serve</h1>\n",
             f"<p>{escape(note)}</p>\n"]
    if urls:
        parts.append('<h2>Archived</h2>\n<ul id="archived">\n')
        for url, date in urls:
            parts.append(f'<li><a href="{escape(gateway_href(url))}">{escape(url)}</a> '
                         f"<small>{escape(date)}</small></li>\n")
        parts.append("</ul>\n")
    parts.append("</body></html>\n")
    return "".join(parts)


def notice_page(url: URL, message: str) -> str:
    """A page for a URL the gateway does not fetch (``telnet:`` opens a session,
    ``mailto:`` sends mail): ``message`` and the URL itself as a link for the
    browser's own handler."""
    text = str(url)
    return (_head(url.masked()) + _bar(url.masked()) + f"<h1>{escape(url.masked())}</h1>\n"
            f'<p id="notice">{escape(message)}</p>\n'
            f'<p><a id="direct" href="{escape(text)}">{escape(url.masked())}</a></p>\n'
            "</body></html>\n")


def frame_page(url: URL, timestamp: str, src: str) -> str:
    """The replay's top frame of an archived HTTP page, as pywb's frame: the banner (the
    URL, when it was captured, its raw bytes, the archive's front page) above an
    ``<iframe>`` that shows the page itself from ``src`` (its ``/_replay/`` address), so
    that nothing of the gateway enters the page's own document."""
    text = url.masked()
    when = escape(timestamp)
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{escape(text)}'
            f"</title><style>{_STYLE}</style></head>\n"
            '<body class="replay">\n<p class="banner" id="banner">'
            '<a href="/">anyurl</a> replay of <b id="url">'
            f'{escape(text)}</b>: captured <span id="captured">{when}</span> &middot; '
            f'<a id="raw" href="{escape(raw_href(str(url)))}">raw bytes</a></p>\n'
            f'<iframe id="replay" name="replay" src="{escape(src)}"></iframe>\n'
            f"<script>{_FRAME_SCRIPT}</script>\n</body></html>\n")
