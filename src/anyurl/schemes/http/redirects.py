"""The one redirect loop: a request, and its redirects followed through the gate.

Every request of the handler that may be answered by a redirect ends here, a single
request's, a pipelined or multiplexed batch's (started from the redirect as answered),
so the rules below hold for ``get``, the mirror, the library and Dask workers alike:

* a target is an http or https URL (another scheme is refused, named in the error);
* every target passes the resolver's gate as a first URL does (port policy, registry,
  gateway routing); one the gate gives to another handler continues there with the
  chain so far (``FetchOptions.redirect_chain``);
* the caller's credentials belong to the first URL's origin (curl's rule): the URL's
  login goes to its own origin, the caller's ``Authorization``, ``Cookie`` and
  ``Proxy-Authorization`` to the first URL's, unless ``location_trusted``;
* 303 (and 301/302 after a POST) turns the request into a GET (:mod:`.requests`);
  a loop, or more than ``max_redirects``, is :class:`~anyurl.errors.TooManyRedirects`.
"""

from __future__ import annotations

import dataclasses
from typing import Any
from urllib.parse import urljoin

from anyurl.errors import (
    AnyURLError,
    ProtocolError,
    TooManyRedirects,
    UnsupportedScheme,
    URLError,
)
from anyurl.resource import Resource
from anyurl.schemes.base import FetchOptions, SchemeHandler
from anyurl.schemes.http.connect import Connector, tls_settings, with_tls
from anyurl.schemes.http.interfaces import Connection, Response
from anyurl.schemes.http.options import HTTPOptions
from anyurl.schemes.http.requests import (
    credentials,
    exchange,
    redirected_method,
    request_method,
    without_origin_headers,
)
from anyurl.schemes.http.responses import to_resource
from anyurl.schemes.http.routes import HTTP_SCHEMES, Router, mask_text, origin
from anyurl.url import URL, parse

__all__ = ["REDIRECT_STATUSES", "Redirects", "redirect_target"]

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


class Redirects:
    """One handler's redirect loop: its gate, its connections and its router."""

    def __init__(self, handler: SchemeHandler, connector: Connector, router: Router):
        self.handler = handler
        self.connector = connector
        self.router = router

    def _credentials(
        self, url: URL, http: HTTPOptions
    ) -> tuple[str | None, tuple[str, str, int] | None]:
        return credentials(url, http, self.handler.config, self.handler.warn)

    async def follow(
        self, url: URL, options: FetchOptions,
        answered: tuple[Connection, Response, dict[str, Any]] | None = None,
    ) -> Resource:
        """The one redirect loop: request, and follow redirects through the gate.

        ``answered`` is the first request's exchange when it was already made (a
        pipelined batch's 3xx): the loop starts from that response instead of asking
        again."""
        current = url.without_fragment()
        visited = [*options.redirect_chain, current]
        first = visited[0]
        http = options.get(HTTPOptions)
        authorization, auth_origin = self._credentials(current, http)
        method, body = request_method(http)
        settings = tls_settings(http)
        max_redirects = self.handler.config.max_redirects
        # The caller's credentials belong to the first URL's origin (curl's rule): on
        # any change of scheme, host or port they stay behind unless trusted. The rule
        # lives here, the one redirect loop, so get, mirror, the library and Dask
        # workers all follow it; the first URL of a chain handed over from another
        # handler (``redirect_chain``) is the origin, not the URL this call starts at.
        home = origin(first)
        foreign = options if http.location_trusted else without_origin_headers(options)
        while True:
            route = with_tls(self.router(current), settings)
            at_home = origin(current) == home
            auth = (authorization if http.location_trusted or origin(current) == auth_origin
                    else None)
            if answered is not None:
                (conn, response, sent), answered = answered, None
            else:
                conn, response, sent = await exchange(
                    self.connector, current, route, options if at_home else foreign, auth,
                    method, body)
            if response.status in REDIRECT_STATUSES and response.header("location"):
                location = response.header("location") or ""
                await self.connector.discard(conn, response)
                target = redirect_target(current, location, response)
                method, body = redirected_method(response.status, method, body, http)
                if len(visited) > max_redirects:
                    raise TooManyRedirects(
                        f"{first.masked()} redirected more than {max_redirects} times "
                        f"(last to {target.masked()})",
                        url=first,
                        hint="Raise max_redirects in the config if the chain is legitimate.",
                    )
                if target in visited:
                    chain = " -> ".join(u.masked() for u in [*visited, target])
                    raise TooManyRedirects(f"redirect loop: {chain}", url=first)
                # Every redirect target passes the resolver's gate: the port policy,
                # the registry and the gateway routing, as the first URL did.
                target = self.handler.gate.admit(target)
                if options.trace:
                    options.trace(f"* following redirect to {target.masked()}")
                visited.append(target)
                handler = self.handler.gate.handler_for(target)
                if handler is not self.handler:  # a gateway or another handler serves it
                    onward = options if origin(target) == home else foreign
                    return await handler.open(
                        target, dataclasses.replace(onward, redirect_chain=tuple(visited[:-1])))
                if target.user is not None:
                    authorization, auth_origin = self._credentials(target, http)
                current = target
                continue
            return await to_resource(self.connector, url, current, conn, response, options,
                                     method, sent)

    async def answer(
        self, url: URL, conn: Connection, response: Response, options: FetchOptions,
        method: str, sent: dict[str, Any],
    ) -> Resource | AnyURLError:
        """What a batch's response means, its error returned: the redirect loop started
        from it for a redirect (its target asked on a request of its own, the redirect
        not again), else :func:`~.responses.to_resource`'s answer."""
        try:
            if response.status in REDIRECT_STATUSES and response.header("location"):
                return await self.follow(url, options, answered=(conn, response, sent))
            return await to_resource(self.connector, url, url.without_fragment(), conn,
                                     response, options, method, sent)
        except AnyURLError as exc:
            return exc


def redirect_target(current: URL, location: str, response: Response) -> URL:
    """The URL ``location`` names, read against ``current``: an http or https URL, or
    the error that says why it is not followed."""
    # urljoin resolves relative references (RFC 3986 5.2) on the text of the URL.
    absolute = urljoin(str(current), location.strip())
    scheme = absolute.split(":", 1)[0].lower()
    if scheme not in HTTP_SCHEMES:
        raise UnsupportedScheme(
            f"{current.masked()} answered '{response.status_line}' redirecting to "
            f"{mask_text(absolute)}, which is not an http or https URL; not following it",
            url=current,
            hint="Fetch that URL yourself if you trust it.",
        )
    try:
        return parse(absolute).without_fragment()
    except URLError as exc:
        raise ProtocolError(
            f"{current.masked()} redirected to {mask_text(absolute)!r}, "
            f"which is not a valid URL: {exc}",
            url=current,
        ) from exc
