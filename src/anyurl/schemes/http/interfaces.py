"""What the HTTP handler asks of a connection, whatever HTTP version it speaks.

The handler decides what responses mean (status mapping, redirects, resume, decoding);
a connection only moves one request and its response. Both :class:`~.http11.HTTP11Connection`
(h11) and :class:`~.http2.H2Connection` (h2) implement :class:`Connection`, so the handler
never branches on the connection's type, as httpcore's ``interfaces.py`` keeps its pool
apart from ``http11.py`` and ``http2.py``.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeAlias

from anyurl.net.transport import Stream
from anyurl.numbers import ascii_int
from anyurl.schemes.http.routes import Route

if TYPE_CHECKING:
    from typing_extensions import TypeIs

    from anyurl.schemes.http.forms import Form

__all__ = ["Body", "Connection", "Response", "is_form"]

#: A request body: bytes (``-d``), or a multipart form streamed from its files (``-F``).
Body: TypeAlias = "bytes | Form"


def is_form(body: object) -> TypeIs[Form]:
    """Whether ``body`` is a ``-F`` form, without importing the forms module (and its
    dataclasses) for a request that has none: a Form exists only once it is imported."""
    forms = sys.modules.get("anyurl.schemes.http.forms")
    return forms is not None and isinstance(body, forms.Form)


@dataclass
class Response:
    """A response head: status, reason, version and headers (names lower-cased)."""

    status: int
    reason: str
    http_version: str
    headers: list[tuple[str, str]]

    @property
    def status_line(self) -> str:
        """``HTTP/1.1 200 OK``, as the server put it."""
        return f"HTTP/{self.http_version} {self.status} {self.reason}".rstrip()

    def header(self, name: str) -> str | None:
        """The first value of header ``name`` (lower case), or None."""
        for key, value in self.headers:
            if key == name:
                return value
        return None

    @property
    def content_length(self) -> int | None:
        """The body's announced length (None when chunked or not given)."""
        if self.header("transfer-encoding") is not None:
            return None
        value = self.header("content-length")
        return None if value is None else ascii_int(value.strip(" \t"), max_digits=19)


class Connection(Protocol):
    """One HTTP connection of the pool: one request at a time, then back to the pool."""

    #: ``"1.1"`` or ``"2"``.
    http_version: str
    #: The route it was opened for (the pool's key).
    key: Route
    stream: Stream
    #: Responses completed on it; a stale pooled connection (``cycles > 0``) is retried.
    cycles: int

    async def request(self, scheme: str, target: str, headers: list[tuple[str, str]],
                      method: str = "GET", body: Body | None = None) -> Response:
        """Send ``method target`` with ``headers`` (and ``body``); the response head.

        A connection that ends before a response is :class:`~anyurl.errors.ConnectionLost`.
        """
        ...

    def body(self, response: Response) -> AsyncIterator[bytes]:
        """The body of ``response`` as it arrives; a short one is PartialTransfer."""
        ...

    async def discard(self, response: Response) -> bytes | None:
        """Drop the rest of ``response``'s body: cheaply, or by giving up the connection.

        The body when it was read whole (a short error page, which an archive keeps);
        None when it was given up or never read (a reset stream, a long body)."""
        ...

    @property
    def reusable(self) -> bool:
        """Whether the last exchange ended so that another request may follow."""
        ...

    def next_cycle(self) -> None:
        """Ready the connection for its next request (called by the pool)."""
        ...

    async def aclose(self) -> None:
        """Close the connection and its stream."""
        ...
