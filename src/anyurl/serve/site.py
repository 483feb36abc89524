"""An archived HTTP site replayed as the site: its pages, styled, in the gateway.

Two addresses serve an archived HTTP capture (docs/serve.md, "Replaying a web site"):

* ``/<URL>`` of an archived HTML page is the replay's top frame (:func:`frame`): the
  gateway's banner above an ``<iframe>`` holding the page, the way pywb frames it, so that
  the banner never enters the page's document, its styles or its scripts;
* ``/_replay/<timestamp>/<URL>`` (:func:`replayed`) is the capture of ``URL`` nearest to
  ``timestamp``, as the site sent it: its status, its content type, its bytes; an HTML
  page or a stylesheet with its URLs rewritten to their own ``/_replay/`` addresses
  (:mod:`anyurl.serve.rewrite`), a redirect's ``Location`` too. It carries
  :data:`~anyurl.serve.rewrite.REPLAY_CSP`, so that nothing the page or its scripts name
  is fetched from the live web.

Every other scheme keeps the gateway's renderings (:mod:`anyurl.serve.html`).
"""

from __future__ import annotations

from starlette.responses import RedirectResponse, Response

from anyurl.resource import ResourceInfo
from anyurl.serve import html
from anyurl.serve.replay import Capture, timestamp
from anyurl.serve.rewrite import (
    REPLAY_CSP,
    UrlMap,
    replay_href,
    replays_as_site,
    rewrite_body,
)
from anyurl.url import URL

__all__ = ["frame", "is_site", "is_site_page", "replayed", "rewritten_as"]

_HTML_TYPES = ("text/html", "application/xhtml+xml")


def is_site(url: URL) -> bool:
    """Whether ``url`` replays as a web site (an ``http:`` or ``https:`` URL: its scheme
    is archived as HTTP exchanges)."""
    return replays_as_site(url.scheme)


def _base_type(info: ResourceInfo) -> str:
    return (info.content_type or "").split(";")[0].strip().lower()


def is_site_page(info: ResourceInfo) -> bool:
    """Whether a capture is an HTML page of a web site (shown in the replay's frame)."""
    return is_site(info.url) and _base_type(info) in _HTML_TYPES


def rewritten_as(info: ResourceInfo, dest: str | None) -> str | None:
    """How a capture's payload is rewritten: ``"html"``, ``"css"`` (by its content type,
    or because the browser loads it as a stylesheet: ``Sec-Fetch-Dest: style``, which
    stands for pywb's ``cs_`` modifier), or None: served as archived."""
    base = _base_type(info)
    if base in _HTML_TYPES:
        return "html"
    if base == "text/css" or (dest or "").lower() == "style":
        return "css"
    return None


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
    if how is not None:
        body = rewrite_body(body, info.content_type, how, urls)
    return Response(body, status, headers=headers)
