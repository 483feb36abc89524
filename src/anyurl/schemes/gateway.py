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

The policy (which URL goes through which gateway) is :mod:`anyurl.net.routing`; the
resolver's gate applies it once per URL and dispatches here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import BinaryIO

from anyurl.config import Config
from anyurl.errors import AnyURLError
from anyurl.links import Link
from anyurl.net.routing import Gateway, gateway_for
from anyurl.net.transport import DIRECT, Dialer, Stream
from anyurl.resource import Resource, ResourceInfo
from anyurl.schemes.base import FetchOptions, Gate, Presentation, SchemeHandler, Trace
from anyurl.schemes.http import (
    HTTP_SCHEMES,
    HTTPHandler,
    Route,
    basic_credentials,
    direct_route,
    open_tunnel,
)
from anyurl.url import URL

__all__ = ["GatewayHandler"]


class GatewayTunnel:
    """The CONNECT tunnel through one gateway, handed to a tunnelled handler's :class:`Dialer`.

    An explicit object the inner handler holds: every connection it opens (an FTP data
    connection too) goes through it. ``trace`` is the dialogue sink of the request
    being opened, so ``-v`` shows each CONNECT.
    """

    def __init__(self, gateway: URL):
        self.gateway = gateway
        self.trace: Trace | None = None

    async def __call__(
        self, host: str, port: int, *, url: URL, connect_timeout: float | None,
        read_timeout: float | None,
    ) -> Stream:
        return await open_tunnel(self.gateway, host, port, url=url,
                                 connect_timeout=connect_timeout, read_timeout=read_timeout,
                                 trace=self.trace)


class GatewayHandler(SchemeHandler):
    """Fetches URLs of any scheme through one gateway (RFC 1738 section 4).

    The resolver's gate decides, once per URL, that a gateway serves it
    (:func:`anyurl.net.routing.gateway_for`) and sends it here; there is one instance per
    gateway. In GET mode (and for http URLs) the HTTP machinery of :class:`HTTPHandler`
    does the work with a route to the gateway; in tunnel mode the scheme's own handler
    runs with a :class:`Dialer` holding the gateway's tunnel. That handler comes from the
    gate (:meth:`~anyurl.schemes.base.Gate.private_handler`: the registered class, a
    plug-in's too) and is private to this one, so its pooled connections, all
    tunnelled, never mix with direct ones.
    """

    schemes = ()

    def __init__(
        self,
        config: Config,
        *,
        warn: Callable[[str], None] | None = None,
        gate: Gate | None = None,
        dialer: Dialer = DIRECT,
        gateway: Gateway | None = None,
    ):
        super().__init__(config, warn=warn, gate=gate, dialer=dialer)
        #: The gateway the resolver chose (None: decided per URL, for a handler built
        #: outside a resolver).
        self.gateway = gateway
        self.http = HTTPHandler(config, warn=warn, router=self.route, gate=gate)
        self._tunnelled: dict[str, tuple[SchemeHandler, GatewayTunnel]] = {}

    def _gateway(self, url: URL) -> Gateway | None:
        if self.gateway is not None:
            return self.gateway
        return gateway_for(self.config.gateways, url)

    def route(self, url: URL) -> Route:
        """Where an HTTP request for ``url`` goes: the gateway, a tunnel, or direct."""
        gateway = self._gateway(url)
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

    def tunnelled_handler(self, scheme: str, gateway: Gateway) -> tuple[SchemeHandler,
                                                                         GatewayTunnel]:
        """This gateway's own handler of ``scheme``, connecting through the tunnel."""
        found = self._tunnelled.get(scheme)
        if found is None:
            tunnel = GatewayTunnel(gateway.url)
            found = (self.gate.private_handler(scheme, Dialer(tunnel)), tunnel)
            self._tunnelled[scheme] = found
        return found

    def plan(self, url: URL, options: FetchOptions) -> list[str]:
        gateway = self._gateway(url)
        if gateway is None or url.scheme in HTTP_SCHEMES or not gateway.tunnel:
            return self.http.plan(url, options)
        lines = [f"CONNECT {url.connect_host}:{url.effective_port} HTTP/1.1 "
                 f"(to {gateway.url.masked()})"]
        try:
            lines += self.tunnelled_handler(url.scheme, gateway)[0].plan(url, options)
        except AnyURLError:
            lines.append(f"(then {url.scheme} through the tunnel)")
        return lines

    def _answering(self, url: URL) -> SchemeHandler:
        """The handler that knows what ``url``'s resource is: the HTTP answer's (an HTML
        page) in GET mode, the scheme's own handler's in tunnel mode."""
        gateway = self._gateway(url)
        if url.scheme in HTTP_SCHEMES or (gateway is not None and not gateway.tunnel):
            return self.http
        if gateway is None:  # no_proxy matched: the scheme's own handler fetched it
            return self.gate.handler_for(url)
        return self.tunnelled_handler(url.scheme, gateway)[0]

    def links(self, info: ResourceInfo, body: bytes) -> list[Link]:
        """The links of what came through the gateway, as :meth:`_answering` reads them."""
        return self._answering(info.url).links(info, body)

    def streams_links(self, info: ResourceInfo) -> bool:
        """Whether its links are read from the file in pieces, as :meth:`_answering` says."""
        return self._answering(info.url).streams_links(info)

    def links_from_file(self, info: ResourceInfo, file: BinaryIO) -> list[Link]:
        """The links of the saved file, as :meth:`_answering` reads them."""
        return self._answering(info.url).links_from_file(info, file)

    def is_listing(self, info: ResourceInfo) -> bool:
        """Whether it is a listing, as :meth:`_answering` says."""
        return self._answering(info.url).is_listing(info)

    def has_links(self, info: ResourceInfo) -> bool:
        """Whether it links, as :meth:`_answering` says."""
        return self._answering(info.url).has_links(info)

    def presentation(self, info: ResourceInfo) -> Presentation:
        """How it is shown, as :meth:`_answering` says."""
        return self._answering(info.url).presentation(info)

    def search_url(self, url: URL, term: str) -> str | None:
        """The search URL, as :meth:`_answering` writes it."""
        return self._answering(url).search_url(url, term)

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        gateway = self._gateway(url)
        if gateway is None:  # built outside a resolver, and no_proxy matched
            return await self.gate.open_resource(url, options)
        if url.scheme in HTTP_SCHEMES or not gateway.tunnel:
            return await self.http.open(url, options)
        handler, tunnel = self.tunnelled_handler(url.scheme, gateway)
        tunnel.trace = options.trace
        return await handler.open(url, options)

    async def aclose(self) -> None:
        handlers, self._tunnelled = [h for h, _ in self._tunnelled.values()], {}
        try:
            await self.http.aclose()
        finally:
            for handler in handlers:
                await handler.aclose()
