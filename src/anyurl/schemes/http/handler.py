"""The HTTP handler: the http and https schemes (RFC 1738 3.3), put together by idea.

The handler is the package's front: it holds one :class:`~.connect.Connector` (the
:mod:`.pool`, new connections along a :class:`~.routes.Route`, through a :mod:`.tunnel`
when a gateway says so, HTTP/2 when asked), and asks :mod:`.requests` how a request is
written, :mod:`.redirects` for the one redirect loop, :mod:`.responses` what a response
means, and :mod:`.batch` (pipelined HTTP/1.1) or :mod:`.multiplex` (HTTP/2 streams) to
run a route's batch, which reach back only through the :class:`~.seam.HandlerSeam` it
hands them. It speaks to a :class:`~.interfaces.Connection` and never branches on the
connection's type. What the responses mean, wherever it is written:

* **An error page is never the file.** A 4xx/5xx response becomes an exception (404/410
  -> :class:`RemoteFileNotFound`, 401/403 -> :class:`LoginDenied`, others
  :class:`ServerError` with the status) unless the caller asks for the body
  (``HTTPOptions(keep_error_body=True)``), in which case the status is in ``info.extra``.
* **A resume never splices two versions.** ``Range`` goes out with ``If-Range`` (the
  validator of the partial data); a ``200`` answer means "start over" and the resource
  says so with ``offset == 0``. A ``206`` whose ``Content-Range`` starts elsewhere than
  asked is refused. ``416`` with the size equal to the offset means "already complete".
* **Redirects stay within HTTP, and pass the gate.** A ``Location`` naming another
  scheme (``ftp:``, ``file:``) is not followed: the error names the target, as curl
  refuses it too. Every other target passes the resolver's gate like a first URL: the
  section 6 port policy (a redirect to port 25 is refused), the registry and the
  gateway routing; when the gate gives the target to another handler (a gateway, a
  plug-in), it continues there with the chain so far (``FetchOptions.redirect_chain``).
  Credentials go only to the origin they were given for: the URL's login to its
  scheme, host and port, and the caller's ``Authorization``, ``Cookie`` and
  ``Proxy-Authorization`` headers to the first URL's, as curl does; any change of
  origin (https -> http included) leaves them behind unless
  ``HTTPOptions(location_trusted=True)`` (``--location-trusted``).
* **Cookies obey their own rules.** With ``HTTPOptions(cookies=jar)`` each request,
  a redirect target's too, carries what the jar (:mod:`anyurl.schemes.http.cookies`, the standard
  library's policy) holds for its URL, and each response's ``Set-Cookie`` is kept.

A pooled connection the server has closed meanwhile shows as a connection lost before
the response, and the request is sent again once on a fresh connection. Gateways
(RFC 1738 section 4) reuse this handler with a router that sends requests to the
gateway (``GET wais://host/db?q HTTP/1.1``) or through its ``CONNECT`` tunnel.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Iterable
from contextlib import aclosing
from typing import TYPE_CHECKING, BinaryIO, ClassVar

from anyurl.config import Config
from anyurl.errors import AnyURLError
from anyurl.net.transport import DIRECT, Dialer
from anyurl.resource import Resource, ResourceInfo
from anyurl.schemes.base import FetchOptions, Gate, SchemeHandler, Trace
from anyurl.schemes.http.batch import Step as _Step  # (tests build one, by this name)
from anyurl.schemes.http.batch import Template, open_pipe, pipelined, prepare
from anyurl.schemes.http.connect import Connector, tls_settings, with_tls
from anyurl.schemes.http.options import HTTPOptions
from anyurl.schemes.http.pipeline import PipelinedConnection
from anyurl.schemes.http.pool import MAX_IDLE_PER_ROUTE, ConnectionPool
from anyurl.schemes.http.redirects import REDIRECT_STATUSES, Redirects
from anyurl.schemes.http.requests import (
    ORIGIN_BOUND_HEADERS,
    credentials,
    request_headers,
    request_method,
    with_jar_cookies,
    without_origin_headers,
)
from anyurl.schemes.http.responses import retry_after_seconds, status_error
from anyurl.schemes.http.routes import (
    HTTP_SCHEMES,
    Route,
    Router,
    direct_route,
    mask_header,
    masked_target,
)
from anyurl.schemes.http.seam import HandlerSeam
from anyurl.url import URL

if TYPE_CHECKING:  # links are a mirror's: not imported by every start
    from anyurl.links import Link

__all__ = ["ORIGIN_BOUND_HEADERS", "REDIRECT_STATUSES", "HTTPHandler", "retry_after_seconds",
           "status_error", "with_jar_cookies", "without_origin_headers"]


class HTTPHandler(SchemeHandler):
    """http: and https: URLs, and the HTTP side of gateways (see the module docstring)."""

    schemes = HTTP_SCHEMES
    options_type = HTTPOptions
    batches: ClassVar[bool] = True

    def __init__(
        self,
        config: Config,
        *,
        warn: Callable[[str], None] | None = None,
        router: Router | None = None,
        gate: Gate | None = None,
        dialer: Dialer = DIRECT,
    ):
        super().__init__(config, warn=warn, gate=gate, dialer=dialer)
        self.router: Router = router or direct_route
        # Room for as many idle connections to a host as transfers may run on it at
        # once: with fewer, a -Z run closes and reopens connections all along.
        self.pool = ConnectionPool(max(MAX_IDLE_PER_ROUTE, config.per_host))
        self.connector = Connector(config, self.pool, self.dialer, self.warn)
        self.redirects = Redirects(self, self.connector, self.router)
        #: Routes whose server mis-answered pipelined requests (or speaks HTTP/1.0):
        #: served one request at a time for this handler's life.
        self.serial_routes: set[Route] = set()

    @property
    def connections_opened(self) -> int:
        """Connections opened (not reused) so far; tests and ``-v`` read it."""
        return self.connector.opened

    def links(self, info: ResourceInfo, body: bytes) -> list[Link]:
        """An HTML page's or a style sheet's links (:mod:`.html_links`): anchors, frames,
        images, scripts, style sheets and what they import, resolved against ``<base
        href>`` or the final URL; [] for other types."""
        from anyurl.schemes.http.html_links import document_links  # lxml: a mirror's only

        return document_links(info, body)

    def streams_links(self, info: ResourceInfo) -> bool:
        """An HTML page's links are read from its saved file a piece at a time."""
        from anyurl.schemes.http.html_links import streams  # lxml: a mirror's only

        return streams(info)

    def links_from_file(self, info: ResourceInfo, file: BinaryIO) -> list[Link]:
        """:meth:`links` of the saved file, an HTML page read a piece at a time, so that a
        mirror never holds a page whole (:func:`.html_links.file_links`)."""
        from anyurl.schemes.http.html_links import file_links  # lxml: a mirror's only

        return file_links(info, file)

    def plan(self, url: URL, options: FetchOptions) -> list[str]:
        route = self.router(url)
        http = options.get(HTTPOptions)
        authorization, _ = credentials(url, http, self.config, self.warn, quiet=True)
        method, body = request_method(http)
        lines = [f"{method} {masked_target(url, route)} HTTP/1.1"]
        lines += [f"{k}: {mask_header(k, v)}" for k, v in
                  request_headers(url, route, options, authorization, body)]
        if body:
            lines.append(f"({len(body)} bytes of body)")
        if route.tunnel is not None:
            lines.insert(0, f"CONNECT {route.host}:{route.port} HTTP/1.1 "
                            f"(to {route.tunnel.masked()})")
        return lines

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        return await self.redirects.follow(url, options)

    # -- batches ---------------------------------------------------------------------

    async def open_batch(
        self, urls: Iterable[URL], options: FetchOptions
    ) -> AsyncGenerator[tuple[URL, Resource | AnyURLError], None]:
        """Open many http/https URLs, pipelining the GET (or HEAD) requests of one route.

        The contract of :meth:`SchemeHandler.open_batch`, and for HTTP:

        * Consecutive URLs of one route (scheme, host, port, gateway) go over one
          HTTP/1.1 connection (a pooled one, or a new one), their requests written
          ahead of the responses [RFC 9112 9.3.2]: the window opens at 1 and opens
          further only after a response shows HTTP/1.1 keep-alive, then doubles with
          each response, and opens fully once a request sent behind another was
          answered: to :data:`~.pipeline.NEAR_DEPTH` on a short path, to
          :data:`~.pipeline.MAX_DEPTH` when a window's first answer took
          :data:`~.pipeline.FAR` or more (a long path, where each window costs a
          round trip).
        * When the server closes (``Connection: close``, or silently) with requests
          unanswered, they are sent again on a new connection; a connection that
          answered none of them costs its first URL its error and no more.
        * A server whose bytes are not a response this reader frames strictly, or
          that stays silent past the read timeout with requests pipelined, or that
          answers HTTP/1.0, is remembered (:attr:`serial_routes`) and served one
          request at a time by :meth:`open` from then on, starting with the URLs
          still unanswered.
        * A response nobody asked for (bytes still there once a window's last response
          is read, :meth:`.pipeline.PipelinedConnection.out_of_step`) means the window's
          answers may each be the one before's: its small bodies and errors, held until
          then, are dropped, the window is asked again one request at a time on a new
          connection, and the route is served that way from then on (the same
          :attr:`serial_routes`). What this cannot see is in :mod:`.pipeline`'s
          docstring.
        * What a response means is :meth:`open`'s: a redirect goes, as it was
          answered, to the one redirect loop (:mod:`.redirects`), which asks its target
          on a connection of its own and applies its rules (the gate, credentials
          only to their origin); errors, resume, decoding, HEAD and the kernel move of
          a big body are the same code. The one shortcut: a plain 200 to a GET whose small
          body is already read (see :mod:`.batch`) becomes
          :meth:`Resource.of_bytes <anyurl.resource.Resource.of_bytes>` with the
          metadata :func:`.responses.to_resource` would give it.
        * A route that speaks HTTP/2 (``http2=True``: prior knowledge on http, on https
          when the server picks ``h2`` by ALPN; :meth:`_offers_h2`) has its requests
          sent as concurrent streams of one connection instead (:mod:`.multiplex`),
          with the same meaning of responses.
        * Requests with a body, other methods, ranges and resumes, and
          ``HTTPOptions(pipeline=False)`` (``--no-pipeline``) are opened one at a
          time (the default of :class:`SchemeHandler`).
        """
        http = options.get(HTTPOptions)
        method, body = request_method(http)
        if (not http.pipeline or method not in ("GET", "HEAD") or body is not None
                or options.offset or options.byte_range is not None
                or options.redirect_chain or http.cookies is not None):
            async with aclosing(super().open_batch(urls, options)) as items:
                async for item in items:
                    yield item
            return
        async with aclosing(self._by_route(urls, options, method, tls_settings(http))) \
                as items:
            async for item in items:
                yield item

    async def _by_route(
        self, urls: Iterable[URL], options: FetchOptions, method: str,
        settings: tuple[object, ...],
    ) -> AsyncGenerator[tuple[URL, Resource | AnyURLError], None]:
        """Consecutive URLs of one route as one :meth:`_route_batch`, in order; a URL
        the router refuses has its error in its place."""
        group: list[URL] = []
        key: Route | None = None
        for url in urls:
            try:
                route = self.router(url)
            except AnyURLError as exc:
                if key is not None and group:
                    async with aclosing(self._route_batch(key, group, options, method)) as items:
                        async for item in items:
                            yield item
                group, key = [], None
                yield url, exc
                continue
            route = with_tls(route, settings)
            if group and key is not None and route != key:
                async with aclosing(self._route_batch(key, group, options, method)) as items:
                    async for item in items:
                        yield item
                group = []
            key = route
            group.append(url)
        if group and key is not None:
            # Closed here, not by the garbage collector: the connection goes back to
            # the pool before the caller's next batch looks for one.
            async with aclosing(self._route_batch(key, group, options, method)) as items:
                async for item in items:
                    yield item

    def _route_batch(
        self, route: Route, urls: list[URL], options: FetchOptions, method: str
    ) -> AsyncGenerator[tuple[URL, Resource | AnyURLError], None]:
        """One route's URLs: HTTP/2 streams when the batch offers it, else pipelined;
        on http without prior knowledge the first URL asks to upgrade (:meth:`_h2c`)."""
        if self._offers_h2(route, options):
            if (not route.tls and not self.connector.prior_knowledge(route, options)
                    and not self.pool.has_http2(route)):
                return self._h2c(route, urls, options, method)
            from anyurl.schemes.http.multiplex import multiplexed  # h2 only when used

            return multiplexed(self._seam(), route, urls, options, method)
        return pipelined(self._seam(), route, urls, options, method)

    async def _h2c(
        self, route: Route, urls: list[URL], options: FetchOptions, method: str
    ) -> AsyncGenerator[tuple[URL, Resource | AnyURLError], None]:
        """An http batch with HTTP/2 asked, not known: the first URL alone, its request
        asking ``Upgrade: h2c`` (:func:`.requests.exchange`); the others as streams of
        the connection the server switched (back in the pool once the first is read),
        else pipelined over HTTP/1.1 as without HTTP/2."""
        first, rest = urls[0], urls[1:]
        try:
            outcome: Resource | AnyURLError = await self.open(first, options)
        except AnyURLError as exc:
            outcome = exc
        yield first, outcome
        if rest:
            async with aclosing(self._route_batch(route, rest, options, method)
                                if self.pool.has_http2(route)
                                else pipelined(self._seam(), route, rest, options, method)) \
                    as items:
                async for item in items:
                    yield item

    def _offers_h2(self, route: Route, options: FetchOptions) -> bool:
        """Whether a batch on ``route`` asks for HTTP/2: only with ``http2=True``
        (``--http2``), as a single request does. By default a batch pipelines HTTP/1.1,
        also on https: measured, h2 and hpack in pure Python cost about 2.5 times the
        pipeline's CPU a small file on loopback and win no wall time over a 20 ms path
        (bench/README.md, "HTTP/2 multiplexing on https")."""
        return self.connector.wants_http2(route, options, None)

    def _seam(self) -> HandlerSeam:
        """What a batch asks of this handler (:mod:`.seam`), read when the batch starts."""
        return HandlerSeam(connect=self.connector.connection, pipe=self._pipe,
                           headers=self._request_headers, answer=self.redirects.answer,
                           open=self.open, keep=self.pool.keep,
                           serial_routes=self.serial_routes)

    def _request_headers(self, url: URL, route: Route,
                         options: FetchOptions) -> list[tuple[str, str]]:
        """A batch request's headers: a single request's, its credentials included."""
        authorization, _ = credentials(url, options.get(HTTPOptions), self.config, self.warn)
        return request_headers(url, route, options, authorization)

    async def _pipe(self, route: Route, url: URL, trace: Trace | None) -> PipelinedConnection:
        """A clean HTTP/1.1 connection to pipeline on (:func:`.batch.open_pipe`); a test
        puts a scripted one in its place."""
        return await open_pipe(self.connector.connection, route, url, trace)

    def _prepare(self, step: _Step, route: Route, options: FetchOptions, http: HTTPOptions,
                 method: str,
                 templates: dict[tuple[str, str | None, int | None], Template | None]
                 | None = None) -> None:
        """``step``'s request bytes as a batch writes them (:func:`.batch.prepare`)."""
        prepare(step, route, options, http, method, self._request_headers, templates)

    async def aclose(self) -> None:
        await self.pool.aclose()
