"""Gateways (RFC 1738 section 4): any scheme's URL fetched through an HTTP gateway.

Section 4 asks that clients "have provision for being configured to use specific gateway
locators for indirect access". anyurl has it for every scheme, in two modes:

* **GET mode** (the default): the gateway is asked for the whole URL as the request
  target, ``GET wais://host:210/db?query HTTP/1.1``, and the response body is the
  resource. This is how Lynx and the CERN proxies reached gopher, WAIS and news, and how
  ``http_proxy`` works for http URLs.
* **Tunnel mode**: ``CONNECT host:port`` to the gateway, then the scheme's own handler
  speaks its protocol through the tunnel. Every connection the handler opens (an FTP
  data connection too) is tunnelled. https URLs always use this mode (the gateway must
  not see inside TLS), as curl does.

Configuration: ``Config.gateways`` maps a scheme to its gateway URL; a gateway written
``tunnel+http://proxy:3128/`` selects tunnel mode for that scheme. The key ``no_proxy``
holds curl's list of hosts reached directly. :func:`gateways_from_environ` reads the
same from the environment (``http_proxy``, ``https_proxy``, ``ftp_proxy``,
``gopher_proxy``, ``wais_proxy``, ``news_proxy``, ``nntp_proxy``, ``prospero_proxy``,
``no_proxy``) as curl and Lynx do; like curl it reads only the lower-case
``http_proxy`` (a CGI program's ``HTTP_PROXY`` comes from a request header).

The resolver dispatches a URL here when :func:`gateway_for` finds a gateway for it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from anyurl.config import Config
from anyurl.errors import AnyURLError, UnsupportedScheme
from anyurl.gateways import Gateway, gateway_for
from anyurl.resource import Resource
from anyurl.schemes.base import FetchOptions, Gate, SchemeHandler
from anyurl.schemes.http import (
    HTTP_SCHEMES,
    HTTPHandler,
    Route,
    Tunnel,
    basic_credentials,
    direct_route,
    tunnel_to,
)
from anyurl.transport import DIRECT, Dialer, tunnelled
from anyurl.url import URL

__all__ = ["GatewayHandler"]

HandlerLookup = Callable[[str], SchemeHandler]


class GatewayHandler(SchemeHandler):
    """Fetches URLs of any scheme through the gateway configured for the scheme.

    The resolver sends a URL here when :func:`gateway_for` names a gateway for it. In GET
    mode (and for http URLs) the HTTP machinery of :class:`HTTPHandler` does the work with
    a route to the gateway; in tunnel mode the scheme's own handler runs with its
    connections tunnelled. Those handlers are private to this one (built from
    :data:`anyurl.schemes.BUILTIN_HANDLERS`, or ``handler_lookup``), so their pooled
    connections, all tunnelled, never mix with direct ones.
    """

    schemes = ()

    def __init__(
        self,
        config: Config,
        *,
        warn: Callable[[str], None] | None = None,
        handler_lookup: HandlerLookup | None = None,
        gate: Gate | None = None,
        dialer: Dialer = DIRECT,
        gateway: Gateway | None = None,
    ):
        super().__init__(config, warn=warn, gate=gate, dialer=dialer)
        #: The gateway the resolver chose for the URLs it sends here (None: decide per URL).
        self.gateway = gateway
        self.http = HTTPHandler(config, warn=warn, router=self.route, gate=gate)
        self._lookup = handler_lookup
        self._direct: dict[str, SchemeHandler] = {}

    def route(self, url: URL) -> Route:
        """Where an HTTP request for ``url`` goes: the gateway, a tunnel, or direct."""
        gateway = gateway_for(self.config.gateways, url)
        if gateway is None:
            return direct_route(url)
        gw = gateway.url
        authorization = (basic_credentials(gw.user, gw.password)
                         if gw.user is not None else None)
        if gateway.tunnel:
            direct = direct_route(url)  # tunnel mode applies to http(s) URLs here
            return Route(direct.host, direct.port, direct.tls, direct.server_hostname,
                         tunnel=gw)
        return Route(
            host=gw.connect_host,
            port=gw.effective_port or 80,
            tls=gw.scheme == "https",
            server_hostname=gw.connect_host,
            absolute_form=True,
            proxy_authorization=authorization,
        )

    def _gateway(self, url: URL) -> Gateway | None:
        return gateway_for(self.config.gateways, url)

    def direct_handler(self, scheme: str) -> SchemeHandler:
        """This gateway handler's own instance of ``scheme``'s handler (for tunnel mode)."""
        handler = self._direct.get(scheme)
        if handler is None:
            if self._lookup is not None:
                handler = self._lookup(scheme)
            else:
                from anyurl.resolver import _load
                from anyurl.schemes import BUILTIN_HANDLERS

                factory = BUILTIN_HANDLERS.get(scheme)
                if factory is None or scheme == "gateway":
                    raise UnsupportedScheme(
                        f"no handler for {scheme}: URLs to run through a tunnel",
                        hint=f"Use GET mode for {scheme} (a gateway URL without tunnel+).",
                    )
                handler = _load(factory)(self.config, warn=self.warn)
            self._direct[scheme] = handler
        return handler

    def plan(self, url: URL, options: FetchOptions) -> list[str]:
        gateway = self._gateway(url)
        if gateway is None or url.scheme in HTTP_SCHEMES or not gateway.tunnel:
            return self.http.plan(url, options)
        lines = [f"CONNECT {url.connect_host}:{url.effective_port} HTTP/1.1 "
                 f"(to {gateway.url.masked()})"]
        try:
            lines += self.direct_handler(url.scheme).plan(url, options)
        except AnyURLError:
            lines.append(f"then {url.scheme} through the tunnel")
        return lines

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        gateway = self._gateway(url)
        if url.scheme in HTTP_SCHEMES or (gateway is not None and not gateway.tunnel):
            return await self.http.open(url, options)
        if gateway is None:  # no_proxy matched: the scheme's own handler, directly
            return await self.direct_handler(url.scheme).open(url, options)
        tunnel = tunnel_to(gateway.url, options.trace)
        handler = self.direct_handler(url.scheme)
        with tunnelled(tunnel):
            resource = await handler.open(url, options)
        # Connections the handler opens while the body streams are tunnelled too.
        return Resource(resource.info, _in_tunnel(aiter(resource), tunnel),
                        on_close=resource.aclose)

    async def aclose(self) -> None:
        handlers, self._direct = list(self._direct.values()), {}
        try:
            await self.http.aclose()
        finally:
            for handler in handlers:
                await handler.aclose()


async def _in_tunnel(chunks: AsyncIterator[bytes], tunnel: Tunnel) -> AsyncIterator[bytes]:
    # A context variable set inside an async generator would leak to its consumer
    # across a yield, so it is set around each step instead.
    iterator = chunks.__aiter__()
    try:
        while True:
            with tunnelled(tunnel):
                try:
                    chunk = await iterator.__anext__()
                except StopAsyncIteration:
                    return
            yield chunk
    finally:
        aclose = getattr(iterator, "aclose", None)
        if aclose is not None:
            with tunnelled(tunnel):
                await aclose()
