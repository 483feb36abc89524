"""Gopher+ attribute answers (``!`` for one item, ``$`` for a whole menu): parsed into
:class:`~anyurl.protocols.gopher.ItemAttributes` and rendered.

The parsed attributes are in ``info.extra["attributes"]``; they are shown as text
(:func:`~.render.render_attributes`, the views listed with the strings ``--view``
takes), as JSON, or as the server sent them (``GopherOptions(render=False)``, ``raw``).
A gopher0 server ignores the Gopher+ string and sends the item itself: that body is
passed through, with a warning.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from anyurl.errors import ProtocolError
from anyurl.protocols.gopher import parse_attributes, parse_menu
from anyurl.resource import Resource, ResourceExtra, ResourceInfo, iterate_bytes
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.gopher.exchange import Exchange, as_sent, collect, raise_error_item
from anyurl.schemes.gopher.options import GopherOptions
from anyurl.schemes.gopher.render import render_attributes
from anyurl.url import URL

__all__ = ["attributes"]


async def attributes(exchange: Exchange, warn: Callable[[str], None]) -> Resource:
    """The attribute answer of ``exchange``, parsed and rendered as its options ask;
    ``warn`` hears of a server that sent no attributes."""
    url = exchange.url
    if exchange.options.raw:
        return await as_sent(exchange, ResourceInfo(
            url=url, content_type="application/gopher+-attributes", kind="attributes"))
    body = await collect(exchange)
    attrs = parse_attributes(body)
    if not attrs:
        raise_error_item(url, parse_menu(body))
        if not body.strip():
            raise ProtocolError(
                f"the gopher server of {url.masked()} answered the Gopher+ attribute "
                "request with nothing", url=url,
                hint="The server may not speak Gopher+: fetch the item without !/$.")
        # A gopher0 server ignores the Gopher+ string and sends the item itself: that
        # body is passed through, never turned into an empty answer.
        warn(f"the gopher server of {url.masked()} sent no Gopher+ attributes "
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
    return _rendered(url, lambda: render_attributes(attrs),
                     lambda: [a.to_json() for a in attrs],
                     exchange.options, "attributes", {"attributes": attrs})


def _rendered(url: URL, text: Callable[[], str], data: Callable[[], Any],
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
