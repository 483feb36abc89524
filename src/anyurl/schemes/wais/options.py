"""The options of wais: URLs (:class:`WAISOptions`), imported when first asked for
(:mod:`anyurl.options`, PEP 562).
"""

from __future__ import annotations

from dataclasses import dataclass

from anyurl.options import SchemeOptions

__all__ = ["WAISOptions"]


@dataclass(frozen=True)
class WAISOptions(SchemeOptions):
    """wais: URLs (RFC 1738 3.9)."""

    #: The most documents a search asks the server for.
    max_documents: int = 100
    #: Seconds the server has to answer our Init, at most the read timeout: a server of
    #: Z39.50-1995 (yaz) takes WAIS' 1988 Init for a partial message and never answers,
    #: so waiting the whole read timeout (60 s) for it only delays the same failure.
    init_timeout: float = 10.0
