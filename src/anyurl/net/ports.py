"""Port policy of RFC 1738 section 6: a URL must not make us talk to another protocol.

"An example has been the use of gopher URLs to cause a rude message to be sent via a
SMTP server." A non-default port earns a warning; a port that belongs to another
line-based protocol (the WHATWG Fetch standard's "bad ports") is refused before any
byte is sent, unless the scheme itself lives there or the caller allows it.
"""

from __future__ import annotations

from anyurl.errors import PolicyRefused
from anyurl.url import URL

__all__ = ["BAD_PORTS", "check_port"]

#: https://fetch.spec.whatwg.org/#port-blocking
BAD_PORTS: frozenset[int] = frozenset({
    0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95,
    101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161,
    179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563,
    587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061,
    6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
})


def check_port(url: URL, port: int, default: int | None, allowed: frozenset[int]) -> str | None:
    """Refuse a bad port; return a warning text for a non-default one, else None."""
    if port == default:
        return None
    if port in BAD_PORTS and port not in allowed:
        raise PolicyRefused(
            f"refusing to connect to port {port} for {url.masked()}: that port belongs to "
            "another protocol, and a crafted URL could make it run commands there",
            url=url,
            hint=f"If you trust this URL, allow it with Config(allowed_ports={{{port}}}).",
            remedy=("allow_port", str(port)),
        )
    if default is None:
        return None
    return f"{url.masked()} uses port {port}, not the {url.scheme} default {default}"
