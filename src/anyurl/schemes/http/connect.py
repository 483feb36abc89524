"""Which connection a request goes on: a pooled one, or a new one along its route.

A :class:`Connector` is the handler's connection choice: the :mod:`.pool` first (an
idle HTTP/1.1 connection with bytes waiting is out of step and closed, STYLE 26), else
a new connection through the handler's ``Dialer`` or a gateway's :mod:`.tunnel`,
HTTP/2 when asked and spoken (prior knowledge on http, ALPN's ``h2`` on https), HTTP/1.1
otherwise (on http, :func:`.requests.exchange` asks that connection's first request to
``Upgrade: h2c``). It also keeps the TLS contexts of the ``verify``/``cafile``/client-certificate
settings a request asks for, and whether h2 is installed. Every request of the handler
(one alone, a redirect's, a pipelined or multiplexed batch's) connects here.
"""

from __future__ import annotations

import dataclasses
import ssl
from collections.abc import Callable

from anyurl.config import Config
from anyurl.net.tls import make_ssl_context
from anyurl.net.transport import Dialer
from anyurl.schemes.base import FetchOptions, Trace
from anyurl.schemes.http.http11 import HTTP11Connection
from anyurl.schemes.http.interfaces import Body, Connection, Response
from anyurl.schemes.http.options import HTTPOptions
from anyurl.schemes.http.pool import ConnectionPool
from anyurl.schemes.http.routes import Route
from anyurl.schemes.http.tunnel import tunnel_to
from anyurl.url import URL

__all__ = ["DEFAULT_TLS", "Connector", "tls_settings", "with_tls"]


def tls_settings(http: HTTPOptions) -> tuple[object, ...]:
    """What of ``http`` makes a TLS context (a route's ``tls_settings``)."""
    return (http.verify, http.cafile, http.capath, http.client_cert, http.client_key)


DEFAULT_TLS = tls_settings(HTTPOptions())


def with_tls(route: Route, settings: tuple[object, ...]) -> Route:
    """``route`` carrying ``settings`` when it is TLS and they are not the default: a
    connection made with other settings is another route's (the pool's key)."""
    if route.tls and settings != DEFAULT_TLS:
        return dataclasses.replace(route, tls_settings=settings)
    return route


class Connector:
    """One handler's connections: its pool, its dialer and what it opened."""

    def __init__(self, config: Config, pool: ConnectionPool, dialer: Dialer,
                 warn: Callable[[str], None]):
        self.config = config
        self.pool = pool
        self.dialer = dialer
        self.warn = warn
        #: Connections opened (not reused) so far; tests and ``-v`` read it.
        self.opened = 0
        self._http2_available: bool | None = None
        self._contexts: dict[tuple[object, ...], ssl.SSLContext] = {}

    def wants_http2(self, route: Route, options: FetchOptions, body: Body | None) -> bool:
        """HTTP/2 when asked for, spoken to the origin (not a GET gateway), h2 installed,
        for a request without a body (see :meth:`.http2.HTTP2Connection.request`)."""
        http = options.get(HTTPOptions)
        asked = http.http2 or (http.http2 is None and http.http2_prior_knowledge)
        if not asked or route.absolute_form or body:
            return False
        if self._http2_available is None:
            try:
                import h2  # noqa: F401
            except ImportError:
                self._http2_available = False
                self.warn("HTTP/2 needs the h2 package (pip install 'anyurl[http2]'); "
                          "using HTTP/1.1")
            else:
                self._http2_available = True
        return self._http2_available

    @staticmethod
    def prior_knowledge(route: Route, options: FetchOptions) -> bool:
        """Whether an http ``route`` sends the HTTP/2 preface without asking
        (``--http2-prior-knowledge``); else an HTTP/1.1 request asks ``Upgrade: h2c``."""
        return not route.tls and options.get(HTTPOptions).http2_prior_knowledge

    async def connection(
        self, route: Route, url: URL, trace: Trace | None, http2: bool = False,
        prior_knowledge: bool = False,
    ) -> Connection:
        """A pooled connection for ``route`` or a new one; HTTP/2 only if ``http2``.

        With ``http2`` an https route speaks it when the server picks ``h2`` by ALPN,
        an http route with ``prior_knowledge`` (h2c, the preface at once); a pooled HTTP/2
        connection (one an upgrade made, too) is taken either way. Otherwise a new
        connection is HTTP/1.1.
        """
        pooled = self.pool.take(route, http2=http2)
        while pooled is not None and pooled.http_version == "1.1" \
                and pooled.stream.bytes_waiting():
            # An idle HTTP/1.1 connection with bytes waiting is out of step (STYLE 26):
            # they would be taken for the next request's response.
            await pooled.aclose()
            pooled = self.pool.take(route, http2=http2)
        if pooled is not None:
            pooled.stream.url = url
            if trace:
                trace(f"* reusing HTTP/{pooled.http_version} connection to "
                      f"{route.host}:{route.port}")
            return pooled
        if trace:
            via = f" through {route.tunnel.masked()}" if route.tunnel else ""
            trace(f"* connecting to {route.host}:{route.port}{via}")
        dialer = Dialer(tunnel_to(route.tunnel, trace)) if route.tunnel else self.dialer
        stream = await dialer.connect_tcp(
            route.host, route.port, url=url,
            connect_timeout=self.config.connect_timeout,
            read_timeout=self.config.read_timeout,
            tls=route.tls, server_hostname=route.server_hostname,
            ssl_context=self.ssl_context(route.tls_settings) if route.tls else None,
            alpn_protocols=("h2", "http/1.1") if http2 and route.tls else None,
            what="the HTTP connection",
        )
        self.opened += 1
        if http2 and (stream.alpn_protocol == "h2" if route.tls else prior_knowledge):
            from anyurl.schemes.http.http2 import open_h2  # h2 only when asked for

            return await open_h2(stream, route, prior_knowledge=not route.tls)
        return HTTP11Connection(stream, route)

    def ssl_context(self, settings: tuple[object, ...]) -> ssl.SSLContext | None:
        """The context for ``settings`` (see :func:`tls_settings`); None: the default."""
        if not settings or settings == DEFAULT_TLS:
            return None
        context = self._contexts.get(settings)
        if context is None:
            context = self._contexts[settings] = make_ssl_context(*settings)  # type: ignore[arg-type]
        return context

    async def release(self, conn: Connection) -> None:
        """Back to the pool if the exchange ended cleanly, else closed."""
        await self.pool.release(conn)

    async def discard(self, conn: Connection, response: Response) -> bytes | None:
        """Drop a body nobody wants (a redirect's, an error page) and release the
        connection; the body when it was read whole (``Connection.discard``)."""
        body = await conn.discard(response)
        await self.release(conn)
        return body
