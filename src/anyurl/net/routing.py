"""Gateway policy (RFC 1738 section 4): which URL goes through which gateway.

Section 4 asks that clients "have provision for being configured to use specific gateway
locators for indirect access". This module decides, once per URL, whether a gateway is
used and which; the resolver's gate applies it, and
:class:`~anyurl.schemes.gateway.GatewayHandler` speaks to the gateway. Two modes:

* **GET mode** (the default): the gateway is asked for the whole URL as the request
  target, ``GET wais://host:210/db?query HTTP/1.1``; this is how Lynx and the CERN
  proxies reached gopher, WAIS and news, and how ``http_proxy`` works for http URLs.
* **Tunnel mode**: ``CONNECT host:port`` to the gateway, then the scheme's own handler
  speaks its protocol through the tunnel. A gateway written ``tunnel+http://proxy:3128/``
  selects it; https URLs always use it (the gateway must not see inside TLS), as curl.

A SOCKS proxy written in the same places (``socks5h://host:1080``, ``socks5://``,
``socks4a://``, ``socks4://``, in ``-x``, ``all_proxy``, ``<scheme>_proxy`` or
``[gateways]``) is no gateway: the scheme's own handler speaks its own protocol through
the proxy's relay (:mod:`anyurl.net.socks`); :attr:`Gateway.socks` tells the gate.

Configuration: ``Config.gateways`` maps a scheme to its gateway URL; the key
``no_proxy`` holds curl's list of hosts reached directly. :func:`gateways_from_environ`
reads the same from the environment (``http_proxy``, ``https_proxy``, ``ftp_proxy``,
``gopher_proxy``, ``wais_proxy``, ``news_proxy``, ``nntp_proxy``, ``prospero_proxy``,
``no_proxy``) as curl and Lynx do; like curl it reads only the lower-case
``http_proxy`` (a CGI program's ``HTTP_PROXY`` comes from a request header).
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass

from anyurl.errors import URLError
from anyurl.registry import specs
from anyurl.url import URL, parse

__all__ = [
    "GATEWAY_URL_SCHEMES",
    "NO_PROXY_KEY",
    "Gateway",
    "gateway_for",
    "gateway_schemes",
    "gateways_from_environ",
    "is_socks_text",
    "parse_gateway",
    "proxy_bypassed",
    "socks_schemes",
    "with_proxy",
]

#: The schemes a gateway is written in (RFC 1738 section 4: a gateway is an HTTP
#: server), the plain one first: URLs of the second are always tunnelled (CONNECT).
GATEWAY_URL_SCHEMES = ("http", "https")
#: The SOCKS proxies' schemes (:data:`anyurl.net.socks.SOCKS_SCHEMES`, not imported
#: here: that module imports socksio, which a run without a SOCKS proxy never loads).
SOCKS_SCHEMES = ("socks5h", "socks5", "socks4a", "socks4")



def gateway_schemes() -> list[str]:
    """The schemes whose ``<scheme>_proxy`` variable anyurl reads (and ``-x`` routes):
    those whose descriptor says ``proxied``, plug-ins too."""
    return [name for spec in specs() if spec.proxied for name in spec.names]

def socks_schemes() -> list[str]:
    """The schemes a SOCKS proxy of ``-x`` or ``all_proxy`` serves: every scheme that
    connects to its URL's host over TCP (a default port, not UDP), telnet too, which no HTTP
    gateway can carry."""
    return [name for spec in specs() if spec.default_port is not None and not spec.udp
            for name in spec.names]


def _proxy_schemes(proxy: str) -> list[str]:
    return socks_schemes() if is_socks_text(proxy) else gateway_schemes()


def is_socks_text(text: str) -> bool:
    """Whether ``text`` (a proxy as written) names a SOCKS proxy, not an HTTP gateway."""
    scheme, sep, _ = text.strip().partition("://")
    return bool(sep) and scheme.lower() in SOCKS_SCHEMES


TUNNEL_PREFIX = "tunnel+"
NO_PROXY_KEY = "no_proxy"


@dataclass(frozen=True)
class Gateway:
    """A gateway locator: where it is, and whether the scheme is tunnelled through it."""

    url: URL
    tunnel: bool

    @property
    def socks(self) -> bool:
        """Whether this is a SOCKS proxy (:mod:`anyurl.net.socks`), not an HTTP gateway."""
        return self.url.scheme in SOCKS_SCHEMES

    @property
    def text(self) -> str:
        """The gateway as written in configuration, password masked."""
        return (TUNNEL_PREFIX if self.tunnel else "") + self.url.masked()


def parse_gateway(text: str, *, scheme: str = "") -> Gateway:
    """``http://proxy:3128/``, ``proxy:3128`` (http assumed, as curl) or ``tunnel+http://...``;
    or a SOCKS proxy, ``socks5h://proxy:1080`` (a tunnel by nature)."""
    raw = text.strip()
    if is_socks_text(raw):
        try:
            url = parse(raw)
        except URLError as exc:
            raise URLError(f"the SOCKS proxy for {scheme or 'a'} URLs is not a URL: {exc}",
                           hint="Write it as socks5h://host:1080.") from exc
        if not url.host:
            raise URLError(f"the SOCKS proxy {url.masked()} names no host",
                           hint="Write it as socks5h://host:1080.")
        return Gateway(url=url, tunnel=True)
    tunnel = raw.lower().startswith(TUNNEL_PREFIX)
    if tunnel:
        raw = raw[len(TUNNEL_PREFIX) :]
    if "://" not in raw:
        raw = "http://" + raw
    try:
        url = parse(raw)
    except URLError as exc:
        raise URLError(f"the gateway {text!r} for {scheme or 'a'} URLs is not a URL: {exc}",
                       hint="Write it as http://host:port/.") from exc
    if url.scheme not in GATEWAY_URL_SCHEMES or not url.host:
        raise URLError(
            f"the gateway {text!r} for {scheme or 'a'} URLs is not an http URL",
            hint="A gateway is an HTTP server: write it as http://host:port/.",
        )
    # https URLs are always tunnelled: a gateway must not see inside TLS.
    return Gateway(url=url, tunnel=tunnel or scheme == "https")


def gateways_from_environ(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The gateways mapping (as ``Config.gateways``) that the environment asks for.

    Empty values are ignored. Only the lower-case ``http_proxy`` counts (curl's rule
    against "httpoxy"); for the other schemes the lower-case name wins over the upper.
    ``all_proxy`` (or ``ALL_PROXY``) serves every scheme without a variable of its own.
    """
    env = os.environ if environ is None else environ
    found: dict[str, str] = {}
    every = (env.get("all_proxy", "").strip() or env.get("ALL_PROXY", "").strip())
    schemes = gateway_schemes()
    if every and is_socks_text(every):  # a SOCKS all_proxy serves every TCP scheme
        schemes += [name for name in socks_schemes() if name not in schemes]
    for scheme in schemes:
        names = [f"{scheme}_proxy"] if scheme == "http" else [f"{scheme}_proxy",
                                                              f"{scheme.upper()}_PROXY"]
        for name in names:
            value = env.get(name, "").strip()
            if value:
                found[scheme] = value
                break
        else:
            if every:  # curl's all_proxy: for every scheme without a variable of its own
                found[scheme] = every
    no_proxy = (env.get("no_proxy") or env.get("NO_PROXY") or "").strip()
    if no_proxy:
        found[NO_PROXY_KEY] = no_proxy
    return found


def with_proxy(gateways: Mapping[str, str], proxy: str | None) -> dict[str, str]:
    """``gateways`` with curl's ``-x`` over them: ``proxy`` for every proxied scheme
    (checked first: a malformed one is refused before anything is sent); ``""`` removes
    every gateway but ``no_proxy``; None changes nothing."""
    if proxy is None:
        return dict(gateways)
    if not proxy.strip():
        return {k: v for k, v in gateways.items() if k == NO_PROXY_KEY}
    parse_gateway(proxy)
    return {**gateways, **dict.fromkeys(_proxy_schemes(proxy), proxy.strip())}


def proxy_bypassed(host: str | None, no_proxy: str | None) -> bool:
    """Whether ``no_proxy`` (curl's syntax) says to reach ``host`` directly.

    Entries are separated by commas or spaces: ``*`` matches every host; a name matches
    itself and its subdomains (``example.org`` and ``.example.org`` both match
    ``www.example.org``); an IP address or CIDR block matches addresses in it. A
    ``:port`` suffix on an entry is ignored.
    """
    if not no_proxy or not host:
        return False
    name = host.strip("[]").lower().rstrip(".")
    try:
        address: ipaddress.IPv4Address | ipaddress.IPv6Address | None = (
            ipaddress.ip_address(name))
    except ValueError:
        address = None
    for entry in no_proxy.replace(",", " ").split():
        entry = entry.strip().lower()
        if entry == "*":
            return True
        if entry.startswith("[") and "]" in entry:
            entry = entry[1 : entry.index("]")]
        elif entry.count(":") == 1:
            entry = entry.split(":", 1)[0]
        if address is not None:
            try:
                if address in ipaddress.ip_network(entry, strict=False):
                    return True
            except ValueError:
                pass
            continue
        entry = entry.lstrip(".").rstrip(".")
        if entry and (name == entry or name.endswith("." + entry)):
            return True
    return False


def gateway_for(gateways: Mapping[str, str], url: URL) -> Gateway | None:
    """The gateway to use for ``url``, or None (none configured, or ``no_proxy`` matches)."""
    text = gateways.get(url.scheme)
    if not text:
        return None
    if proxy_bypassed(url.host, gateways.get(NO_PROXY_KEY)):
        return None
    return parse_gateway(text, scheme=url.scheme)
