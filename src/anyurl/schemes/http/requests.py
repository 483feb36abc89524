"""What a request says: its method, body and headers, the credentials and to whom they go.

The handler's single requests, a redirect's, and a batch's (pipelined or multiplexed)
are all written from :func:`request_headers`, so a header is the same whichever way the
request travels. Credentials belong to an origin: :func:`credentials` gives the origin
with them, and :func:`without_origin_headers` is what may go elsewhere (curl's rule,
applied by the redirect loop, :mod:`.redirects`). :func:`exchange` sends one request on
a connection of the :class:`~.connect.Connector` and reads its response head.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from anyurl.config import Config
from anyurl.errors import ConnectionLost, OptionError, PartialTransfer
from anyurl.schemes.base import FetchOptions, Trace
from anyurl.schemes.http.connect import Connector
from anyurl.schemes.http.decoding import accept_encoding
from anyurl.schemes.http.http11 import HTTP11Connection
from anyurl.schemes.http.interfaces import Body, Connection, Response, is_form
from anyurl.schemes.http.options import HTTPOptions
from anyurl.schemes.http.routes import (
    HTTP_SCHEMES,
    USER_AGENT,
    Route,
    basic_credentials,
    host_header,
    mask_header,
    masked_target,
    origin,
    request_target,
)
from anyurl.url import URL

__all__ = ["ORIGIN_BOUND_HEADERS", "credentials", "exchange", "merge_headers",
           "redirected_method", "request_headers", "request_method", "with_jar_cookies",
           "without_origin_headers"]


def request_headers(
    url: URL, route: Route, options: FetchOptions, authorization: str | None,
    body: Body | None = None,
) -> list[tuple[str, str]]:
    """The headers of a request for ``url`` on ``route``: ours (Host, User-Agent,
    Accept, Accept-Encoding, Range, the credentials, the body's type), then the caller's
    (:func:`merge_headers`), the jar's cookies, and the body's framing last."""
    http = options.get(HTTPOptions)
    headers = [("Host", host_header(url)), ("User-Agent", USER_AGENT), ("Accept", "*/*")]
    if http.decode_content:
        headers.append(("Accept-Encoding", accept_encoding()))
    first, last = options.byte_range or (0, None)
    if options.byte_range is not None or options.offset:
        end = "" if last is None else str(last)
        headers.append(("Range", f"bytes={first + options.offset}-{end}"))
        if options.offset and options.if_range:
            headers.append(("If-Range", options.if_range))
    if authorization:
        headers.append(("Authorization", authorization))
    if route.proxy_authorization:
        headers.append(("Proxy-Authorization", route.proxy_authorization))
    if body is not None:
        headers.append(("Content-Type", body.content_type if is_form(body)
                        else "application/x-www-form-urlencoded"))
    headers = merge_headers(headers, http.headers)
    if http.cookies is not None and url.scheme in HTTP_SCHEMES:
        headers = with_jar_cookies(headers, http, url)
    if body is not None:  # framing is ours: a header of the caller cannot break it
        headers.append(("Content-Length", str(len(body))))
    return headers


def credentials(
    url: URL, http: HTTPOptions, config: Config, warn: Callable[[str], None], *,
    quiet: bool = False,
) -> tuple[str | None, tuple[str, str, int] | None]:
    """Basic credentials from the URL, else (with ``netrc``) from the netrc file,
    with the origin they may be sent to."""
    if url.user is None:
        if http.netrc and url.host:
            from anyurl.net.credentials import netrc_entry

            entry = netrc_entry(config, url.host, warn)
            if entry is not None:
                return basic_credentials(entry.login, entry.password), origin(url)
        return None, None
    if url.password and not quiet and url.scheme == "http":
        warn(
            f"{url.masked()} carries a password: it is sent as HTTP Basic "
            "authentication, readable by anyone who can see the connection"
        )
    return basic_credentials(url.user, url.password), origin(url)


async def exchange(
    connector: Connector, url: URL, route: Route, options: FetchOptions,
    authorization: str | None, method: str = "GET", body: Body | None = None,
) -> tuple[Connection, Response, dict[str, Any]]:
    """Send the request and read the response head, retrying once on a stale connection.

    The third value describes the request as sent (method, target, version, headers
    with credentials masked, body): a WARC ``request`` record is written from it.
    """
    headers = request_headers(url, route, options, authorization, body)
    target = request_target(url, route)
    trace = options.trace
    http2 = connector.wants_http2(route, options, body)
    prior = http2 and connector.prior_knowledge(route, options)
    while True:
        conn = await connector.connection(route, url, trace, http2, prior)
        upgrade = _h2c_upgrade(conn) if http2 and not prior else None
        sending = headers if upgrade is None else headers + upgrade.headers
        version = conn.http_version  # the request's, an upgrade's too
        if trace:
            trace(f"> {method} {masked_target(url, route)} HTTP/{version}")
            for k, v in sending:
                trace(f"> {k}: {mask_header(k, v)}")
            if body:
                trace(f"> ({len(body)} bytes of body)")
        try:
            response = await conn.request(url.scheme, target, sending, method, body)
            if upgrade is not None and response.status == 101:
                conn, response = await upgrade.switch(conn, response, trace)
        except (ConnectionLost, PartialTransfer):
            await conn.aclose()
            if conn.cycles:  # a pooled connection the server had closed: try a new one
                if trace:
                    trace("* pooled connection was closed by the server; reconnecting")
                continue
            raise
        except BaseException:
            await conn.aclose()
            raise
        if trace:
            trace(f"< {response.status_line}")
            for k, v in response.headers:
                trace(f"< {k}: {v}")
        jar = options.get(HTTPOptions).cookies
        if jar is not None and url.scheme in HTTP_SCHEMES:
            # Every response's cookies, a redirect's and an error's too, as curl keeps them.
            from anyurl.schemes.http.cookies import store_cookies

            store_cookies(jar, url, response.headers)
        sent = {"method": method, "target": masked_target(url, route),
                "http_version": version,
                "headers": [(k, mask_header(k, v)) for k, v in sending],
                "body": None if is_form(body) else body}
        return conn, response, sent


class _Upgrade:
    """An HTTP/1.1 request's ask for HTTP/2 on its connection (``Upgrade: h2c``, RFC 7540
    3.2): the headers it adds, and the HTTP/2 connection the server's ``101`` makes."""

    def __init__(self, conn: HTTP11Connection):
        from anyurl.schemes.http.http2 import H2Connection  # h2 only when asked for

        self.h2 = H2Connection(conn.stream, conn.key)
        self.headers = [("Connection", "Upgrade, HTTP2-Settings"), ("Upgrade", "h2c"),
                        ("HTTP2-Settings", self.h2.upgrade_header())]

    async def switch(self, conn: Connection, switching: Response,
                     trace: Trace | None) -> tuple[Connection, Response]:
        """The connection and response after the ``101``: HTTP/2's stream 1."""
        assert isinstance(conn, HTTP11Connection)
        if trace:
            trace(f"< {switching.status_line}")
            for k, v in switching.headers:
                trace(f"< {k}: {v}")
            trace("* upgraded to HTTP/2 (h2c)")
        self.h2.cycles = conn.cycles
        return self.h2, await self.h2.switched(conn.switched_data)


def _h2c_upgrade(conn: Connection) -> _Upgrade | None:
    """The upgrade to ask for on an HTTP/1.1 connection of an http route, else None."""
    if isinstance(conn, HTTP11Connection) and not conn.key.tls:
        return _Upgrade(conn)
    return None


#: Headers whose framing anyurl writes itself: a caller's would break the exchange.
_FRAMING = ("content-length", "transfer-encoding")


def merge_headers(
    defaults: list[tuple[str, str]], given: tuple[tuple[str, str | None], ...]
) -> list[tuple[str, str]]:
    """``defaults`` with the caller's ``given`` headers applied as curl's ``-H`` does.

    A given header replaces every default of the same name (case-insensitive) and
    follows them in the given order; a value of None only removes the default.
    ``Content-Length`` and ``Transfer-Encoding`` are anyurl's own (the body's framing).
    """
    if not given:
        return defaults
    names = {name.lower() for name, _ in given}
    for name in names & set(_FRAMING):
        raise OptionError(f"the {name} header is set by anyurl from the body; not replacing it")
    merged = [(k, v) for k, v in defaults if k.lower() not in names]
    merged += [(k, v) for k, v in given if v is not None]
    return merged


#: Headers of the caller that carry credentials for one origin (lowercase): dropped on
#: a redirect to another scheme, host or port unless ``HTTPOptions.location_trusted``.
ORIGIN_BOUND_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization"})


def without_origin_headers(options: FetchOptions) -> FetchOptions:
    """``options`` without the caller's :data:`ORIGIN_BOUND_HEADERS`: what may go to an
    origin other than the first URL's. A header removal (a value of None) goes too, so
    nothing of the caller's is said about credentials there."""
    http = options.get(HTTPOptions)
    kept = tuple((k, v) for k, v in http.headers if k.lower() not in ORIGIN_BOUND_HEADERS)
    if kept == http.headers:
        return options
    return options.with_scheme(dataclasses.replace(http, headers=kept))


def with_jar_cookies(
    headers: list[tuple[str, str]], http: HTTPOptions, url: URL
) -> list[tuple[str, str]]:
    """``headers`` with the jar's cookies for ``url`` (:mod:`anyurl.schemes.http.cookies`), in one
    ``Cookie`` header before the caller's own (``-b NAME=VALUE``, ``-H 'Cookie: ...'``),
    as curl sends them. A caller's ``-H 'Cookie:'`` (remove it) sends none at all."""
    if any(k.lower() == "cookie" and v is None for k, v in http.headers):
        return headers
    assert http.cookies is not None
    from anyurl.schemes.http.cookies import cookie_header

    jar = cookie_header(http.cookies, url)
    if not jar:
        return headers
    for i, (name, value) in enumerate(headers):
        if name.lower() == "cookie":
            return [*headers[:i], (name, f"{jar}; {value}" if value else jar),
                    *headers[i + 1:]]
    return [*headers, ("Cookie", jar)]


def request_method(http: HTTPOptions) -> tuple[str, Body | None]:
    """The method and body of a request: ``method`` if given, else HEAD for ``head``,
    POST with a ``body`` or a ``form`` (which wins), GET; a HEAD carries no body."""
    body: Body | None = http.form if http.form is not None else http.body
    method = http.method or ("HEAD" if http.head else "POST" if body is not None else "GET")
    return method, (None if method == "HEAD" else body)


def redirected_method(
    status: int, method: str, body: Body | None, http: HTTPOptions
) -> tuple[str, Body | None]:
    """The method and body after a redirect, as curl and browsers do: 303 turns
    anything but HEAD into a GET; 301 and 302 turn a POST into a GET, unless the
    method was given (``-X``); 307 and 308 keep both."""
    if method != "HEAD" and (status == 303 or (
            status in (301, 302) and method == "POST" and http.method is None)):
        return "GET", None
    return method, body
