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
    #: STARTTLS (RFC 4642) on nntp: and news: URLs: "" never, "try" when the server
    #: offers it (``--ssl``), "require" (``--ssl-reqd``: exit 64 when it does not).
    #: nntps: and snews: are TLS from the first byte whatever this says.
    tls: str = ""
    #: Send AUTHINFO without TLS even though TLS was asked for and is not there
    #: (``--nntp-plain-auth``); otherwise a password never crosses in clear then.
    plain_auth: bool = False
    #: The certificate checks, as for https (``-k``, ``--cacert``, ``--capath``).
    verify: bool = True
    cafile: str | None = None
    capath: str | None = None
