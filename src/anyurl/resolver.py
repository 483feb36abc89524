"""The resolver: the one gate every URL passes, and the dispatcher behind it.

A URL's text is parsed once (:meth:`Resolver.admit`), checked against the section 6
port policy, routed to a gateway when section 4's configuration says so, and handed to
the handler of its scheme. Handlers that act on another URL (an HTTP redirect, a
Prospero access method, a gateway's inner URL) receive the resolver as their
:class:`~anyurl.schemes.base.Gate` and go through the same steps.

Handlers come from the scheme registry (:mod:`anyurl.registry`: each built-in
scheme's descriptor, and those of third-party packages under the ``anyurl.schemes``
entry-point group) and from :meth:`Resolver.register`, which overrides them for one
resolver. One handler
instance lives per resolver, so handlers may pool connections; closing the resolver
closes them.

:meth:`Resolver.download` is the downloader's (:mod:`anyurl.downloads.downloader`), which depends
on the resolver's shape only, never on this module.
"""

from __future__ import annotations

import importlib
import logging
import math
import os
import re
import socket
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING

import anyio

from anyurl import registry
from anyurl.config import Config
from anyurl.errors import AnyURLError, ProxyError, SchemeRefused, UnsupportedScheme
from anyurl.net.ports import check_port
from anyurl.net.transport import Dialer
from anyurl.registry.spec import SchemeSpec
from anyurl.request import Data, Headers, RequestDefaults, apply, headers_of
from anyurl.resource import Resource
from anyurl.schemes.base import FetchOptions, SchemeHandler
from anyurl.timeouts import Timeout, TimeoutTypes, timeout_of, total_expired, using
from anyurl.url import URL, mask, parse

__all__ = ["FetchResult", "Resolver"]

#: What in a URL's text may become a line break or NUL on a wire: checked again at the
#: gate for URLs that were built rather than parsed.
_MAY_BREAK_A_LINE = re.compile(r"%0[aAdD]|%00|[\r\n\0]")

if TYPE_CHECKING:
    from anyurl.downloads.downloader import Progress, TransferResult
    from anyurl.net.routing import Gateway

log = logging.getLogger("anyurl")

HandlerFactory = type[SchemeHandler] | str


@dataclass
class FetchResult:
    """One outcome of :meth:`Resolver.fetch_many`: ``data`` or ``error``."""

    url: str
    data: bytes | None = None
    error: AnyURLError | None = None


#: The handler of section 4's gateways: not a scheme of its own, so not in the registry.
_GATEWAY_HANDLER = "anyurl.schemes.gateway:GatewayHandler"


def _load(factory: HandlerFactory) -> type[SchemeHandler]:
    if isinstance(factory, str):
        module, _, name = factory.partition(":")
        cls = getattr(importlib.import_module(module), name)
        if not (isinstance(cls, type) and issubclass(cls, SchemeHandler)):
            raise TypeError(f"{factory} is not a SchemeHandler")
        return cls
    return factory


class Resolver:
    """Resolves URLs of any registered scheme; use as ``async with Resolver() as r``."""

    def __init__(
        self,
        config: Config | None = None,
        *,
        strict: bool = False,
        warn: Callable[[str], None] | None = None,
        note: Callable[[str], None] | None = None,
        headers: Headers | None = None,
        auth: tuple[str, str | None] | None = None,
        verify: bool | str = True,
        timeout: TimeoutTypes = None,
        trust_env: bool | None = None,
        proxy: str | None = None,
    ):
        config = config or Config()
        if proxy is not None:  # curl's -x: every proxied scheme; "" none at all
            from anyurl.net.routing import with_proxy

            config = config.replace(gateways=with_proxy(config.gateways, proxy),
                                    trust_env=bool(proxy.strip()) and config.trust_env)
        if config.trust_env if trust_env is None else trust_env:
            config = with_environ_gateways(config)
        self.config = config
        #: Carried by every request (httpx's ``Client`` defaults): see :mod:`anyurl.request`.
        self.defaults = RequestDefaults(headers=headers_of(headers), auth=auth,
                                        verify=verify, timeout=timeout)
        self.strict = strict
        self.warn = warn or log.warning
        #: Receives what is worth knowing but not a warning (a non-default port); the
        #: command line shows it with -v only. Default: the ``anyurl`` logger at DEBUG.
        self.note = note or log.debug
        self._factories: dict[str, HandlerFactory] = {"gateway": _GATEWAY_HANDLER}
        self._warned_ports: set[tuple[str, str, int]] = set()
        self._handlers: dict[tuple[HandlerFactory, Gateway | None], SchemeHandler] = {}

    # -- registry ----------------------------------------------------------------

    def register(self, scheme: str | SchemeSpec, handler: HandlerFactory | None = None) -> None:
        """Handle ``scheme`` with ``handler`` (a SchemeHandler class or "module:Class").

        A registered handler replaces a built-in or plug-in one for that scheme, in this
        resolver. Given a :class:`~anyurl.registry.spec.SchemeSpec` instead, the scheme
        becomes known as an installed plug-in's is (:func:`anyurl.registry.add`,
        for the whole process: its default port, its view, ``-O`` names, the mirror).
        """
        if isinstance(scheme, SchemeSpec):
            registry.add(scheme)
            for name in scheme.names:
                self._factories[name.lower()] = handler or scheme.handler
            return
        if handler is None:
            raise TypeError("register(scheme, handler): the handler is missing")
        self._factories[scheme.lower()] = handler

    @property
    def schemes(self) -> list[str]:
        """The schemes this resolver can open, sorted (plug-ins included)."""
        return sorted({*registry.names(), *self._factories})

    # -- the gate: every URL anyurl acts on passes here -----------------------------------

    def admit(self, url: URL | str) -> URL:
        """Parse ``url`` (once: a :class:`URL` is taken as it is) and apply section 6.

        ``file://otherhost/`` becomes ``ftp://otherhost/`` when the config asks for the
        historical fallback. A port of another protocol raises
        :class:`~anyurl.errors.PolicyRefused`; a non-default port is reported to ``warn``.
        """
        parsed = self.parse(url)
        if isinstance(url, URL) and _MAY_BREAK_A_LINE.search(str(url)):
            # A URL built, not parsed (URL(...), .replace()): its text passes the parser's
            # section 6 check too, and what is used is what the parser makes of it, so no
            # CR, LF or NUL reaches a server from it.
            parsed = parse(str(url), strict=self.strict)
        spec = registry.spec_for(parsed.scheme)
        if spec is not None and spec.remote_fallback and (
                spec.remote_fallback_setting is None
                or getattr(self.config, spec.remote_fallback_setting, False)):
            parsed = spec.remote_fallback(parsed) or parsed
        self._check_scheme(parsed)
        port = parsed.effective_port
        if port is not None and parsed.host:
            warning = check_port(
                parsed, port, registry.default_port(parsed.scheme), self.config.allowed_ports
            )
            where = (parsed.scheme, parsed.host.lower(), port)
            if warning and where not in self._warned_ports:
                self._warned_ports.add(where)  # once per resolver, not per URL or retry
                self.note(warning)  # a note, not a warning: such ports are common
        return parsed

    def _check_scheme(self, url: URL) -> None:
        """The run's scheme policy (:mod:`anyurl.scheme_policy`), for every URL admitted:
        the one typed and every one a handler or the mirror derives from it."""
        policy = self.config.protocols
        if not policy.allows(url.scheme):
            allowed = policy.names(self.schemes)
            raise SchemeRefused(
                f"{url.masked()}: {url.scheme}: URLs are not allowed in this run"
                + (f" (allowed: {', '.join(allowed)})" if allowed else ""),
                url=url, hint=policy.hint)

    def gateway_for(self, url: URL) -> Gateway | None:
        """The gateway routing of RFC 1738 section 4 for ``url`` (None: direct)."""
        if not self.config.gateways.get(url.scheme):
            return None
        from anyurl.net.routing import gateway_for  # a gateway's run only (its dataclass)

        return gateway_for(self.config.gateways, url)

    def handler_for(self, url: URL) -> SchemeHandler:
        """The handler for an admitted ``url``: its gateway's, or its scheme's."""
        gateway = self.gateway_for(url)
        if gateway is not None and gateway.socks:
            return self._socks_handler(url, gateway)
        if gateway is not None and "gateway" in self._factories:
            return self._instance("gateway", gateway=gateway)
        return self._instance(url.scheme, url=url)

    def _socks_handler(self, url: URL, proxy: Gateway) -> SchemeHandler:
        """The scheme's own handler connecting through the SOCKS ``proxy``: one per
        scheme and proxy, its pooled connections all through the proxy."""
        spec = registry.spec_for(url.scheme)
        if spec is not None and spec.udp:
            raise ProxyError(
                f"{url.masked()}: {url.scheme} runs over UDP, which the SOCKS proxy "
                f"{proxy.url.masked()} does not carry here", url=url,
                hint="Reach that host directly (no_proxy) or drop the proxy.")
        factory = self._factory(url.scheme)
        if factory is None:
            return self._instance(url.scheme, url=url)  # its error: no handler
        handler = self._handlers.get((factory, proxy))
        if handler is None:
            from anyurl.net.socks import SocksTunnel, parse_socks

            family = {4: socket.AF_INET, 6: socket.AF_INET6}.get(self.config.ip_version or 0, 0)
            dialer = Dialer(SocksTunnel(parse_socks(proxy.url), family))
            handler = _load(factory)(self.config, warn=self.warn, gate=self, dialer=dialer)
            self._handlers[(factory, proxy)] = handler
        return handler

    async def open_resource(self, url: URL | str, options: FetchOptions | None = None) -> Resource:
        """The gate's whole path for one URL: admit, choose the handler, open.

        The caller closes the resource (``async with`` or ``aclose()``); :meth:`open`
        does that for you.
        """
        parsed = self.admit(url)
        return await self.handler_for(parsed).open(parsed, options or FetchOptions())

    def private_handler(self, scheme: str, dialer: Dialer) -> SchemeHandler:
        """A new handler of ``scheme``'s registered class that connects with ``dialer``.

        For a gateway's tunnel mode: the handler's pooled connections, all tunnelled,
        never mix with the resolver's direct ones. The caller closes it.
        """
        factory = self._factory(scheme.lower())
        if factory is None or scheme.lower() == "gateway":
            raise UnsupportedScheme(
                f"no handler for {scheme}: URLs to run through a tunnel",
                hint=f"Use GET mode for {scheme} (a gateway URL without tunnel+).",
            )
        return _load(factory)(self.config, warn=self.warn, gate=self, dialer=dialer)

    def _factory(self, key: str) -> HandlerFactory | None:
        factory = self._factories.get(key)
        if factory is None:
            spec = registry.spec_for(key)
            factory = spec.handler if spec is not None else None
        return factory

    def _instance(
        self, key: str, *, url: URL | None = None, gateway: Gateway | None = None
    ) -> SchemeHandler:
        factory = self._factory(key)
        if factory is None:
            assert url is not None
            import difflib  # only on this error path

            known = [s for s in self.schemes if s != "gateway"]
            close = difflib.get_close_matches(url.scheme, known, n=1, cutoff=0.6)
            guess = f"Did you mean {close[0]}:? " if close else ""
            raise UnsupportedScheme(
                f"no handler for {url.scheme}: URLs ({url.masked()})",
                url=url,
                hint=f"{guess}anyurl handles {', '.join(known)}; a package can add "
                f"{url.scheme}: through the 'anyurl.schemes' entry point.",
            )
        cache_key: tuple[HandlerFactory, Gateway | None] = (factory, gateway)
        handler = self._handlers.get(cache_key)
        if handler is None:
            cls = _load(factory)
            if gateway is not None:
                handler = cls(self.config, warn=self.warn, gate=self,
                              gateway=gateway)  # type: ignore[call-arg]
            else:
                handler = cls(self.config, warn=self.warn, gate=self)
            self._handlers[cache_key] = handler
        return handler

    # -- the steps of one request ---------------------------------------------------

    def parse(self, url: URL | str) -> URL:
        """``url`` as a :class:`URL` (text parsed in this resolver's strictness)."""
        return url if isinstance(url, URL) else parse(url, strict=self.strict)

    def plan(self, url: URL | str, options: FetchOptions | None = None) -> list[str]:
        """What would be sent for ``url``, without connecting (``anyurl get --plan``)."""
        parsed = self.admit(url)
        return self.handler_for(parsed).plan(parsed, options or FetchOptions())

    @asynccontextmanager
    async def open(
        self, url: URL | str, options: FetchOptions | None = None, *,
        method: str | None = None, headers: Headers | None = None, data: Data | None = None,
        auth: tuple[str, str | None] | None = None, verify: bool | str | None = None,
        timeout: TimeoutTypes = None,
    ) -> AsyncIterator[Resource]:
        """Open ``url``: ``async with r.open(url) as res: async for chunk in res: ...``.

        The keywords are per-request choices as httpx takes them (:mod:`anyurl.request`).
        ``timeout`` (:class:`~anyurl.timeouts.Timeout`, or a number: the total deadline)
        bounds the opening and reading the body alike: its ``total`` runs from here to
        the body's last byte, and a step of reading past it raises
        :class:`~anyurl.errors.TransferTimeout` (28) from the iterator. Not given: the
        resolver's ``timeout``, else the config's (:meth:`Config.timeouts`).
        """
        url, options = self._request(url, options, method, headers, data, auth, verify)
        limits = self.timeout_for(timeout)
        deadline = (math.inf if limits.total is None
                    else anyio.current_time() + limits.total)
        with using(limits), anyio.CancelScope(deadline=deadline) as scope:
            resource = await self.open_resource(url, options)
        if scope.cancelled_caught:
            raise total_expired(url, limits.total)
        resource.limit_time(limits, None if limits.total is None else deadline)
        try:
            yield resource
        finally:
            with anyio.CancelScope(shield=True):
                await resource.aclose()

    def timeout_for(self, timeout: TimeoutTypes = None) -> Timeout:
        """The limits of a request given ``timeout``: over the resolver's ``timeout``,
        over the config's (:func:`anyurl.timeouts.timeout_of` says how)."""
        return timeout_of(timeout, timeout_of(self.defaults.timeout, self.config.timeouts()))

    async def fetch(
        self, url: URL | str, options: FetchOptions | None = None, *,
        method: str | None = None, headers: Headers | None = None, data: Data | None = None,
        auth: tuple[str, str | None] | None = None, verify: bool | str | None = None,
        timeout: TimeoutTypes = None,
    ) -> bytes:
        """The whole resource as bytes (for small resources); keywords as :meth:`open`,
        ``timeout`` for the whole request."""
        async with self.open(url, options, method=method, headers=headers, data=data,
                             auth=auth, verify=verify, timeout=timeout) as res:
            return await res.read(limit=self.config.max_filesize)

    def _request(
        self, url: URL | str, options: FetchOptions | None, method: str | None,
        headers: Headers | None, data: Data | None, auth: tuple[str, str | None] | None,
        verify: bool | str | None,
    ) -> tuple[URL | str, FetchOptions | None]:
        """The URL and options with this resolver's defaults and a call's keywords."""
        if self.defaults.empty and method is None and headers is None and data is None \
                and auth is None and verify is None:
            return url, options  # nothing to merge: no parse here, no copy
        return apply(self.parse(url), options, self.defaults, method=method,
                     headers=headers, data=data, auth=auth, verify=verify)

    async def download(
        self,
        url: URL | str,
        path: str | os.PathLike[str],
        *,
        resume: bool = False,
        clobber: bool | None = None,
        progress: Progress | None = None,
        options: FetchOptions | None = None,
    ) -> TransferResult:
        """Stream ``url`` into ``path`` via ``<path>.part``, renamed when complete.

        This is :func:`anyurl.downloads.downloader.download` (the downloader's one
        implementation); see there. Raises the transfer's error when it failed.
        """
        from anyurl.downloads.downloader import download

        return await download(self, url, path, resume=resume, clobber=clobber,
                              progress=progress, options=options)

    async def fetch_many(
        self, urls: Iterable[URL | str], *, limit: int | None = None
    ) -> AsyncIterator[FetchResult]:
        """Fetch many URLs, ``limit`` at a time, yielding each result as it finishes."""
        url_list = list(urls)
        send, receive = anyio.create_memory_object_stream[FetchResult](len(url_list) or 1)
        semaphore = anyio.Semaphore(limit or self.config.parallel)

        async def one(u: URL | str) -> None:
            async with semaphore:
                try:
                    u = self.parse(u)  # once; the text is masked from the parsed URL
                    result = FetchResult(u.masked(), data=await self.fetch(u))
                except AnyURLError as exc:
                    result = FetchResult(mask(u), error=exc)
                await send.send(result)

        async with anyio.create_task_group() as tg, send, receive:
            for u in url_list:
                tg.start_soon(one, u)
            for _ in url_list:
                yield await receive.receive()

    # -- helpers ---------------------------------------------------------------------

    async def aclose(self) -> None:
        handlers, self._handlers = list(self._handlers.values()), {}
        for handler in handlers:
            with anyio.CancelScope(shield=True):
                await handler.aclose()

    async def __aenter__(self) -> Resolver:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


def with_environ_gateways(config: Config) -> Config:
    """``config`` with the environment's gateways below its own (httpx's ``trust_env``):
    ``<scheme>_proxy``, ``all_proxy`` and ``no_proxy`` fill in what ``config.gateways``
    leaves unset, so what a program or the command line says (``-x``, ``--noproxy``,
    ``--gateway``, the config file) wins over the environment. The same config when
    the environment has none."""
    if not any(name.lower().endswith("_proxy") for name in os.environ):
        return config
    from anyurl.net.routing import gateways_from_environ

    found = gateways_from_environ()
    if not found:
        return config
    return config.replace(gateways={**found, **config.gateways})
