"""The options of prospero: URLs (:class:`ProsperoOptions`), imported when first asked for
(:mod:`anyurl.options`, PEP 562).
"""

from __future__ import annotations

from dataclasses import dataclass

from anyurl.options import SchemeOptions

__all__ = ["ProsperoOptions"]


@dataclass(frozen=True)
class ProsperoOptions(SchemeOptions):
    """prospero: URLs (RFC 1738 3.11)."""

    #: Fetch the object through its first usable access method, through the resolver.
    follow: bool = False
    #: The name asserted in AUTHENTICATE; None: ``anonymous`` (never the local login).
    user: str | None = None
    #: ARDP: seconds before the first retransmission, and how many retransmissions.
    ardp_timeout: float = 4.0
    ardp_retries: int = 3
