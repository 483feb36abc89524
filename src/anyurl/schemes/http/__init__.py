"""The http and https schemes, split by idea as httpcore is.

====================  ==========================================================
``handler``           :class:`HTTPHandler`: the front that puts the parts together
``connect``           the connection choice: the pool, a new connection along a
                      route (through a tunnel, HTTP/2 when asked), TLS contexts
``requests``          how a request is written: headers, credentials and their
                      origin, methods; one exchange on a connection
``redirects``         the one redirect loop, through the gate
``responses``         a response as a Resource: status errors, ranges, HEAD, decoding
``interfaces``        the one :class:`~.interfaces.Connection` interface and the
                      response head both HTTP versions give
``http11``            one HTTP/1.1 connection over h11
``http2``             one HTTP/2 connection over h2 (imported only when asked for)
``pipeline``          pipelined HTTP/1.1: a strict response reader, the batch's connection
``batch``             a route's pipelined batch: windows, held answers, serial routes
``multiplex``         a batch's requests as concurrent streams of one HTTP/2 connection
``seam``              what a batch asks of the handler, handed in by it
``pool``              idle connections per route
``routes``            where a request goes and how its target and headers are written
``tunnel``            CONNECT tunnels through a gateway
``decoding``          content codings: gzip, deflate, br, zstd (output-bounded)
``spec``              the scheme's descriptor (:class:`~anyurl.registry.spec.SchemeSpec`),
                      which the registry reads
``view``              its URL's parts as section 3 reads them (``url.parts``)
``options``           its typed options (:mod:`anyurl.options` lends them)
``loopback``          a loopback server of the scheme, for tests and ``anyurl demo``
====================  ==========================================================

Importing the package imports none of them: its names below are imported when first
asked for, so the URL model's ``anyurl.schemes.http.spec`` (the default port and view
that ``anyurl parse`` reads) and ``options`` bring no handler, no h11 and no ssl.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anyurl.lazy import lazy_names

if TYPE_CHECKING:
    from anyurl.schemes.http.handler import REDIRECT_STATUSES, HTTPHandler, status_error
    from anyurl.schemes.http.routes import (
        HTTP_SCHEMES,
        USER_AGENT,
        Route,
        Router,
        basic_credentials,
        direct_route,
        host_header,
        request_target,
    )
    from anyurl.schemes.http.tunnel import open_tunnel, tunnel_to

__all__ = [
    "HTTP_SCHEMES",
    "REDIRECT_STATUSES",
    "USER_AGENT",
    "HTTPHandler",
    "Route",
    "Router",
    "basic_credentials",
    "direct_route",
    "host_header",
    "open_tunnel",
    "request_target",
    "status_error",
    "tunnel_to",
]

#: Where each name of the package lives, imported on first use.
_LAZY: dict[str, str] = {
    **dict.fromkeys(("REDIRECT_STATUSES", "HTTPHandler", "status_error"),
                    "anyurl.schemes.http.handler"),
    **dict.fromkeys(("HTTP_SCHEMES", "USER_AGENT", "Route", "Router", "basic_credentials",
                     "direct_route", "host_header", "request_target"),
                    "anyurl.schemes.http.routes"),
    **dict.fromkeys(("open_tunnel", "tunnel_to"), "anyurl.schemes.http.tunnel"),
}


__getattr__, __dir__ = lazy_names(__name__, globals(), _LAZY)
