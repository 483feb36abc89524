"""Where an HTTP request goes and how it is written: routes, request-targets, headers.

A :class:`Route` is the pool's key: the host we speak HTTP with, TLS or not, and how
the request-target is written (the whole URL for a GET-mode gateway, RFC 1738 section
4) or whether a ``CONNECT`` tunnel comes first (:mod:`anyurl.schemes.http.tunnel`).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass

from anyurl.errors import UnsupportedScheme, URLError
from anyurl.schemes.http.view import HTTPPath
from anyurl.url import DEFAULT_PORTS, URL, mask

__all__ = [
    "HTTP_SCHEMES",
    "USER_AGENT",
    "Route",
    "Router",
    "basic_credentials",
    "direct_route",
    "host_header",
    "mask_header",
    "masked_target",
    "request_target",
]

USER_AGENT = "anyurl/0.1"
HTTP_SCHEMES = ("http", "https")


@dataclass(frozen=True)
class Route:
    """Where a request goes: the host we speak HTTP with, and how the target is written.

    For a direct request ``host``/``port`` are the URL's. Through a gateway in GET mode they
    are the gateway's and ``absolute_form`` is set. With ``tunnel`` set, the connection to
    the URL's own host is made through that gateway's ``CONNECT`` first.
    """

    host: str
    port: int
    tls: bool
    server_hostname: str | None = None
    absolute_form: bool = False
    tunnel: URL | None = None
    #: ``Proxy-Authorization`` for a GET-mode gateway that wants a login.
    proxy_authorization: str | None = None
    #: The TLS choices a connection was made with (verification, CAs, client
    #: certificate): part of the pool's key, so a request that verifies never reuses a
    #: connection opened with ``verify=False``.
    tls_settings: tuple[object, ...] = ()


Router = Callable[[URL], Route]


def direct_route(url: URL) -> Route:
    """The route of an http/https URL fetched without a gateway."""
    if url.scheme not in HTTP_SCHEMES:
        raise UnsupportedScheme(
            f"the HTTP handler cannot fetch {url.masked()} without a gateway",
            url=url,
            hint=f"Configure a gateway for {url.scheme}: ({url.scheme}_proxy).",
        )
    host = url.connect_host
    if not host:
        raise URLError(f"{url.masked()} has no host", url=url)
    return Route(host=host, port=url.effective_port or 80, tls=url.scheme == "https",
                 server_hostname=host)


def basic_credentials(user: str, password: str | None) -> str:
    """The value of an ``Authorization: Basic`` header (RFC 7617, UTF-8)."""
    token = f"{user}:{password or ''}".encode()
    return "Basic " + base64.b64encode(token).decode("ascii")


def _default_port(url: URL) -> int | None:
    return DEFAULT_PORTS.get(url.scheme)


def host_header(url: URL) -> str:
    """``Host`` for ``url``: the host, with the port when it is not the scheme's default."""
    host = url.host or ""
    if url.port is not None and url.port != _default_port(url):
        host += f":{url.port}"
    return host


def request_target(url: URL, route: Route) -> str:
    """The request-target: origin form ``/path?search``, or the whole URL for a gateway."""
    if route.absolute_form:
        # The gateway needs everything, login included, to reach the resource; the
        # fragment is the client's business (section 2.2.5 of RFC 1738's successors).
        return str(url.without_fragment())
    parts = url.parts
    assert isinstance(parts, HTTPPath)
    return parts.target


def mask_header(name: str, value: str) -> str:
    """A header value safe to print: credentials masked."""
    if name.lower() in ("authorization", "proxy-authorization"):
        scheme = value.split(" ", 1)[0]
        return f"{scheme} ****"
    return value


def masked_target(url: URL, route: Route) -> str:
    """The request-target as printed (a gateway's absolute URL with its password masked)."""
    return url.without_fragment().masked() if route.absolute_form else request_target(url, route)


def origin(url: URL) -> tuple[str, str, int]:
    """Scheme, host and port: where credentials written in a URL may be sent."""
    return (url.scheme, (url.host or "").lower(), url.effective_port or 0)


def mask_text(text: str) -> str:
    """URL text with any password masked, whether or not it parses."""
    return mask(text)
