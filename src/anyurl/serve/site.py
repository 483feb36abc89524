"""An archived site replayed as the site: its pages, styled, in the gateway.

A scheme whose descriptor names a ``replay`` module (HTTP's,
:mod:`anyurl.schemes.http.replay`) replays as a web site; two addresses serve its
captures (docs/serve.md, "Replaying a web site"):

* ``/<URL>`` of an archived page is the replay's top frame (:func:`frame`): the
  gateway's banner above an ``<iframe>`` holding the page, the way pywb frames it, so that
  the banner never enters the page's document, its styles or its scripts;
* ``/_replay/<timestamp>/<URL>`` (:func:`replayed`) is the capture of ``URL`` nearest to
  ``timestamp``, as the site sent it: its status, its content type, its bytes; a page
  or a stylesheet with its URLs rewritten by the scheme's ``replay`` module to their
  own addresses here (:class:`UrlMap`, :func:`replay_href`), a redirect's ``Location``
  too. It carries :data:`REPLAY_CSP`, so that nothing the page or its scripts name is
  fetched from the live web.

A URL of another scheme the gateway opens (``ftp:``, ``gopher:`` ...) leads to the
gateway's own page of it (``/<URL>``, or ``/_raw/<URL>`` for an embedded resource), which
in a replay is the archive's too; other schemes (``data:``, ``javascript:``, ``mailto:``)
and fragments are kept. Every other scheme keeps the gateway's renderings
(:mod:`anyurl.serve.html`).
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, replace
from typing import Protocol, cast
from urllib.parse import quote, urljoin

from starlette.responses import RedirectResponse, Response

from anyurl.resource import ResourceInfo
from anyurl.serve import html
from anyurl.serve.replay import Capture, timestamp
from anyurl.url import URL

__all__ = ["REPLAY_CSP", "SiteReplay", "UrlMap", "frame", "is_site", "is_site_page",
           "replay_href", "replayed", "replays_as_site", "rewritten_as"]

#: The policy of a replayed page: everything from the gateway (the archive), inline
#: styles and scripts and ``eval`` as the page had them, ``data:`` and ``blob:`` URLs;
#: nothing from any other host, forms posted only to the gateway, framed only by it.
REPLAY_CSP = ("default-src 'self' data: blob: 'unsafe-inline' 'unsafe-eval'; "
              "form-action 'self'; frame-ancestors 'self'; base-uri 'self'")

#: The prefix of the replay's addresses.
REPLAY_PREFIX = "/_replay/"
#: Characters kept as they are in a rewritten URL (what a URL may hold); anything else
#: (a space, a quote, a non-ASCII letter) is %-escaped as a browser escapes it.
_URL_SAFE = "!$%&'()*+,-./:;=?@[]_~"
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
#: Whitespace a browser strips around a URL (and tab, LF, CR it drops inside one).
_WS = " \t\n\r\f"


class SiteReplay(Protocol):
    """What a scheme's ``replay`` module (its descriptor's :attr:`SchemeSpec.replay
    <anyurl.registry.SchemeSpec.replay>`) does for the replay of its site."""

    def rewritten_as(self, content_type: str | None, dest: str | None) -> str | None:
        """How a capture's payload is rewritten (``"html"``: a page, shown in the
        replay's frame; another kind, as the module names it), or None: as archived."""
        ...

    def rewrite_body(self, body: bytes, content_type: str | None, how: str,
                     urls: UrlMap) -> bytes:
        """The payload with its URLs rewritten to ``urls``' addresses."""
        ...


def _replay_of(scheme: str) -> SiteReplay | None:
    """The ``replay`` module of ``scheme``'s descriptor, or None: it replays as the
    gateway shows a live fetch."""
    from anyurl.registry import spec_for

    spec = spec_for(scheme)
    if spec is None or spec.replay is None:
        return None
    return cast(SiteReplay, importlib.import_module(spec.replay))


def replays_as_site(scheme: str) -> bool:
    """Whether ``scheme``'s URLs replay as a web site: its descriptor names a ``replay``
    module (its records are exchanges whose pages name their resources)."""
    from anyurl.registry import spec_for

    spec = spec_for(scheme)
    return spec is not None and spec.replay is not None


def _gateway_opens(scheme: str) -> bool:
    """Whether the gateway shows ``scheme``'s URLs itself (its registry knows the scheme
    and does not leave it to the browser, as it does ``mailto:`` and ``telnet:``)."""
    from anyurl.registry import spec_for

    spec = spec_for(scheme)
    return spec is not None and spec.not_in_browser is None


def replay_href(timestamp: str, url: str) -> str:
    """The gateway's address of ``url``'s capture nearest to ``timestamp``."""
    return f"{REPLAY_PREFIX}{timestamp}/{url}"


def _clean(ref: str) -> str:
    """A URL as a browser reads an attribute: outer whitespace stripped, tab and
    newline dropped."""
    return re.sub(r"[\t\n\r]", "", ref.strip(_WS))


@dataclass(frozen=True)
class UrlMap:
    """How one archived document's URLs become replay addresses: resolved against
    ``base`` (the document's URL, or its ``<base href>``), captured near ``timestamp``
    (a scheme's ``replay`` module reads it as its ``Addresses``)."""

    base: str
    timestamp: str

    def rebased(self, href: str) -> UrlMap:
        """The map of a document whose ``<base href>`` is ``href``."""
        return replace(self, base=urljoin(self.base, _clean(href)))

    def url(self, ref: str, *, embed: bool = True) -> str:
        """``ref``'s replay address; ``embed`` for a resource the page loads (an image, a
        stylesheet), not one it navigates to (a link, a form, a frame)."""
        text = _clean(ref)
        if not text or text.startswith("#"):
            return ref
        given = _SCHEME.match(text)
        if given is not None:
            scheme = given.group(1).lower()
            if not replays_as_site(scheme) and not _gateway_opens(scheme):
                return ref
        absolute, hash_, fragment = urljoin(self.base, text).partition("#")
        absolute = quote(absolute, safe=_URL_SAFE)
        scheme = absolute.partition(":")[0].lower()
        if replays_as_site(scheme):
            out = replay_href(self.timestamp, absolute)
        elif not _gateway_opens(scheme):
            return ref
        else:
            out = ("/_raw/" if embed else "/") + absolute
        return out + hash_ + fragment


def is_site(url: URL) -> bool:
    """Whether ``url`` replays as a web site (its scheme's descriptor names a ``replay``
    module: HTTP's, whose records are HTTP exchanges)."""
    return replays_as_site(url.scheme)


def rewritten_as(info: ResourceInfo, dest: str | None) -> str | None:
    """How a capture's payload is rewritten, as its scheme's ``replay`` module says
    (``"html"``, ``"css"``), or None: served as archived."""
    replay = _replay_of(info.url.scheme)
    return replay.rewritten_as(info.content_type, dest) if replay is not None else None


def is_site_page(info: ResourceInfo) -> bool:
    """Whether a capture is a page of a web site (shown in the replay's frame)."""
    return rewritten_as(info, None) == "html"


def frame(capture: Capture) -> Response:
    """The top frame of an archived HTML page (see the module's docstring)."""
    url = capture.info.url
    stamp = timestamp(capture.date)
    return Response(html.frame_page(url, stamp, replay_href(stamp, str(url))), 200,
                    headers={"Content-Security-Policy": html.FRAME_CSP},
                    media_type="text/html")


def replayed(capture: Capture, wanted: str, dest: str | None) -> Response:
    """The answer at ``/_replay/<wanted>/<URL>`` (see the module's docstring). An HTML
    page captured at another time than ``wanted`` is redirected to its own timestamp,
    as pywb does, so that the address (and the banner that reads it) says which capture
    is shown; its stylesheets and images are served where they are asked for.

    Blocking work (a page is parsed): call it in a worker thread.
    """
    info = capture.info
    stamp = timestamp(capture.date)
    how = rewritten_as(info, dest)
    if how == "html" and stamp != wanted:
        return RedirectResponse(replay_href(stamp, str(info.url)), 302,
                                headers={"Content-Security-Policy": REPLAY_CSP})
    urls = UrlMap(str(info.url), stamp)
    headers = {"Content-Security-Policy": REPLAY_CSP}
    if info.content_type:
        headers["Content-Type"] = info.content_type
    status = info.status if info.status is not None and 200 <= info.status <= 599 else 200
    location = dict(info.headers).get("location")
    if 300 <= status < 400 and location:
        headers["Location"] = urls.url(location, embed=False)
        return Response(b"", status, headers=headers)
    body = capture.body
    replay = _replay_of(info.url.scheme)
    if how is not None and replay is not None:
        body = replay.rewrite_body(body, info.content_type, how, urls)
    return Response(body, status, headers=headers)
