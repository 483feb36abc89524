"""What every scheme handler is: the interface the resolver dispatches to.

A handler is created once per :class:`~anyurl.resolver.Resolver` (so it may keep a
connection pool) and closed with it. For each URL the resolver calls
:meth:`SchemeHandler.open` with the parsed URL and the caller's
:class:`FetchOptions`; the handler connects, runs its protocol core and returns a
:class:`~anyurl.resource.Resource` whose chunks it streams from the connection.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from anyurl.config import Config
from anyurl.errors import AnyURLError
from anyurl.resource import Resource
from anyurl.url import URL

__all__ = ["FetchOptions", "PasswordCallback", "SchemeHandler", "Trace"]

#: Receives one line of protocol dialogue: "> CWD pub" (sent) or "< 250 OK" (received).
Trace = Callable[[str], None]
#: Asked for a password when the URL has a user but none, and the server wants one.
PasswordCallback = Callable[[URL], Awaitable[str | None]]


@dataclass
class FetchOptions:
    """Per-request choices; handlers ignore what does not apply to their scheme."""

    #: Resume: start the transfer at this byte offset (FTP REST, HTTP Range).
    offset: int = 0
    #: The validator (ETag / Last-Modified) of the partial data, for HTTP If-Range.
    if_range: str | None = None
    #: Protocol dialogue, passwords masked by the handler.
    trace: Trace | None = None
    password_callback: PasswordCallback | None = None
    #: A search term for gopher type 7 (and WAIS) when the URL carries none.
    search: str | None = None
    #: The raw bytes the server sent, rather than a rendering (gopher menus).
    raw: bool = False
    #: Scheme-specific options by name (``view``, ``answers``, ``passive`` ...).
    extra: Mapping[str, Any] = field(default_factory=dict)


class SchemeHandler(ABC):
    """A scheme handler; subclasses set ``schemes`` and implement :meth:`open`."""

    schemes: ClassVar[tuple[str, ...]] = ()

    def __init__(self, config: Config, *, warn: Callable[[str], None] | None = None):
        self.config = config
        self.warn = warn or (lambda message: None)

    @abstractmethod
    async def open(self, url: URL, options: FetchOptions) -> Resource:
        """Connect and start the transfer; errors are :class:`AnyURLError` subclasses."""

    def plan(self, url: URL, options: FetchOptions) -> list[str]:
        """The exact dialogue :meth:`open` would send, passwords masked, no I/O."""
        raise AnyURLError(
            f"no dry-run plan for {url.scheme}: URLs",
            hint="--plan is available for schemes whose dialogue is fixed by the URL.",
        )

    async def aclose(self) -> None:  # noqa: B027 - optional hook, most handlers pool nothing
        """Release pooled connections; called when the resolver closes."""
