"""The options of news: and nntp: URLs (:class:`NewsOptions`), imported when first asked for
(:mod:`anyurl.options`, PEP 562).
"""

from __future__ import annotations

from dataclasses import dataclass

from anyurl.options import SchemeOptions

__all__ = ["NewsOptions"]


@dataclass(frozen=True)
class NewsOptions(SchemeOptions):
    """news: and nntp: URLs (RFC 1738 3.6, 3.7)."""

    #: The server for ``news:`` URLs (``host``, ``host:port``, ``[v6]:port``).
    server: str | None = None
    #: AUTHINFO login when the URL carries none and the server asks for one.
    user: str | None = None
    password: str | None = None
    #: A group listing shows the newest N articles; 0 lists them all.
    limit: int = 1000
