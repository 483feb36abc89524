"""What every scheme handler is: the interface the resolver dispatches to.

A handler is created once per :class:`~anyurl.resolver.Resolver` (so it may keep a
connection pool) and closed with it. For each URL the resolver calls
:meth:`SchemeHandler.open` with the parsed URL and the caller's
:class:`FetchOptions`; the handler connects, runs its protocol core and returns a
:class:`~anyurl.resource.Resource` whose chunks it streams from the connection.

Two things come from the resolver when it creates a handler:

* the :class:`Gate`, the resolver's one way of turning a URL into a handler and a
  permitted connection (registry, section 6 port policy, gateway routing). A handler
  that acts on another URL (an HTTP redirect, a Prospero access method, a gateway's
  inner URL) asks the gate; it never reads the registry or builds a handler itself;
* the :class:`~anyurl.net.transport.Dialer` its connections are opened with: direct, or
  through a gateway's CONNECT tunnel when the handler runs inside one.
"""

from __future__ import annotations

import dataclasses
import enum
import socket
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO, ClassVar, Literal, Protocol, TypeVar

from anyurl.config import Config
from anyurl.errors import AnyURLError, OptionError
from anyurl.net.transport import DIRECT, Dialer
from anyurl.options import SchemeOptions
from anyurl.resource import Resource, ResourceInfo
from anyurl.url import URL

if TYPE_CHECKING:  # links are a mirror's: not imported by every start
    from anyurl.links import Link

__all__ = ["FetchOptions", "Gate", "PasswordCallback", "Presentation", "SchemeHandler",
           "Trace"]

_O = TypeVar("_O", bound=SchemeOptions)

#: Receives one line of protocol dialogue: "> CWD pub" (sent) or "< 250 OK" (received).
Trace = Callable[[str], None]
#: Asked for a password when the URL has a user but none, and the server wants one.
PasswordCallback = Callable[[URL], Awaitable[str | None]]


class Presentation(enum.Enum):
    """How a resource is shown to a person (``anyurl serve``'s page of it): the answer of
    :meth:`SchemeHandler.presentation`, so that no consumer keeps a list of kinds."""

    #: A document to read, shown in the page (a Gopher text file, an article, a report).
    TEXT = "text"
    #: A listing of other resources, shown with its links (a menu, a directory).
    LISTING = "listing"
    #: Something asked with a term first (a Gopher search item): a search form.
    SEARCH_FORM = "search form"
    #: A file, saved as it is (a download).
    DOWNLOAD = "download"


#: Content types whose documents name other resources whatever their scheme: HTML pages
#: and style sheets (what they import and paint are requisites of the pages they style).
_LINKING_TYPES = frozenset({"text/html", "application/xhtml+xml", "text/css"})
_PAGE_TYPES = frozenset({"text/html", "application/xhtml+xml"})


def _media_type(info: ResourceInfo) -> str:
    return (info.content_type or "").split(";")[0].strip().lower()


@dataclass
class FetchOptions:
    """Per-request choices; handlers ignore what does not apply to their scheme."""

    #: Resume: start the transfer at this byte offset (FTP REST, HTTP Range).
    offset: int = 0
    #: The validator (ETag / Last-Modified) of the partial data, for HTTP If-Range.
    if_range: str | None = None
    #: Only bytes ``first`` to ``last`` (inclusive; None: to the end) of the resource
    #: (``-r``): HTTP Range, FTP REST and a byte count. A server that cannot serve a
    #: range sends the whole resource (as curl writes it).
    byte_range: tuple[int, int | None] | None = None
    #: Protocol dialogue, passwords masked by the handler.
    trace: Trace | None = None
    password_callback: PasswordCallback | None = None
    #: A search term for gopher type 7 (and WAIS) when the URL carries none.
    search: str | None = None
    #: The raw bytes the server sent, rather than a rendering (gopher menus).
    raw: bool = False
    #: How a menu, listing or report is rendered when not ``raw``: text, or JSON lines.
    format: Literal["text", "json"] = "text"
    #: Typed options of the schemes (:mod:`anyurl.options`), at most one per class.
    schemes: tuple[SchemeOptions, ...] = ()
    #: Set by the HTTP handler when a redirect leaves it through the gate: the URLs
    #: visited so far, so the chain's length and loops are counted across handlers.
    redirect_chain: tuple[URL, ...] = ()
    #: Connections to the server that :meth:`SchemeHandler.open_batch` may use at once:
    #: the per-host slots its caller holds for the batch (the downloader lends what a
    #: host has spare to a handler with ``batch_connections``). FTP opens that many
    #: files side by side; others ignore it.
    connections: int = 1

    def get(self, kind: type[_O]) -> _O:
        """The options of class ``kind`` that were given, else its defaults; type-checked."""
        for given in self.schemes:
            if type(given) is kind:
                given.check()
                return given
        return kind()

    def for_url(self, url: URL) -> FetchOptions:
        """These options with the trace of ``url``'s own dialogue.

        A handler that works on several URLs at once (FTP's side-by-side round of a
        batch) calls this for each, so each URL's lines reach its own record whatever
        runs beside it: a trace that keeps a dialogue per URL (the mirror's, for its
        WARC metadata records) has ``of(url)``, which gives that URL's trace. Any other
        trace is kept as it is.
        """
        of = getattr(self.trace, "of", None)
        return self if of is None else dataclasses.replace(self, trace=of(url))

    def with_scheme(self, *given: SchemeOptions) -> FetchOptions:
        """A copy with ``given`` replacing options of the same classes."""
        kinds = {type(g) for g in given}
        kept = tuple(o for o in self.schemes if type(o) not in kinds)
        return dataclasses.replace(self, schemes=kept + tuple(given))

    def __post_init__(self) -> None:
        kinds = [type(o) for o in self.schemes]
        for o in self.schemes:
            if not isinstance(o, SchemeOptions):
                raise OptionError(f"FetchOptions.schemes holds {o!r}, not a SchemeOptions")
        if len(set(kinds)) != len(kinds):
            raise OptionError("FetchOptions.schemes holds two options of the same class")


class Gate(Protocol):
    """The resolver's one gate; handlers get it as :attr:`SchemeHandler.gate`.

    Every URL anyurl acts on passes here: the registry (built-in, plug-in and
    registered handlers), the section 6 port policy, the gateway routing.
    """

    def admit(self, url: URL | str) -> URL:
        """Parse ``url`` (text is parsed once, here) and apply the port policy.

        Raises :class:`~anyurl.errors.URLError` or :class:`~anyurl.errors.PolicyRefused`.
        """
        ...

    def handler_for(self, url: URL) -> SchemeHandler:
        """The handler that serves an admitted ``url`` (a gateway's, when one is routed)."""
        ...

    async def open_resource(self, url: URL | str, options: FetchOptions) -> Resource:
        """:meth:`admit`, :meth:`handler_for`, then the handler's ``open``."""
        ...

    def private_handler(self, scheme: str, dialer: Dialer) -> SchemeHandler:
        """A new handler of ``scheme``'s registered class, of the caller's own.

        It connects with ``dialer`` (a gateway's tunnel) and pools apart from the
        resolver's handlers; the caller closes it. Never a gateway handler.
        """
        ...


class SchemeHandler(ABC):
    """A scheme handler; subclasses set ``schemes`` and implement :meth:`open`."""

    schemes: ClassVar[tuple[str, ...]] = ()
    #: The class of this handler's typed options (``options.get(self.options_type)``).
    options_type: ClassVar[type[SchemeOptions]] = SchemeOptions
    #: Whether :meth:`open_batch` does better than one :meth:`open` after another (HTTP
    #: and NNTP pipeline; FTP keeps one positioned control connection and one task):
    #: the downloader then hands it a host's URLs as batches, and
    #: otherwise opens them one by one over up to ``per_host`` connections.
    batches: ClassVar[bool] = False
    #: Whether one :meth:`open_batch` opens several connections to its server when
    #: ``FetchOptions.connections`` allows (FTP, which cannot pipeline): the downloader
    #: then lends a batch the host's spare slots. A pipelining handler needs one
    #: connection a batch, and its lanes keep their own slots.
    batch_connections: ClassVar[bool] = False

    def __init__(
        self,
        config: Config,
        *,
        warn: Callable[[str], None] | None = None,
        gate: Gate | None = None,
        dialer: Dialer = DIRECT,
    ):
        self.config = config
        self.warn = warn or (lambda message: None)
        self._gate = gate
        if config.ip_version in (4, 6) and dialer.tunnel is None and not dialer.family:
            # -4/-6: every connection of this handler, FTP data connections too.
            dialer = Dialer(family=socket.AF_INET if config.ip_version == 4
                            else socket.AF_INET6)
        #: Opens this handler's connections: directly, or through a gateway's tunnel.
        self.dialer = dialer

    @property
    def gate(self) -> Gate:
        """The resolver's gate, for URLs this handler derives (redirects, follows)."""
        if self._gate is None:
            raise AnyURLError(
                f"{type(self).__name__} was created without a resolver, so it cannot "
                "open another URL",
                hint="Create handlers through anyurl.Resolver (register them there).",
            )
        return self._gate

    @abstractmethod
    async def open(self, url: URL, options: FetchOptions) -> Resource:
        """Connect and start the transfer; errors are :class:`AnyURLError` subclasses."""

    async def open_batch(
        self, urls: Iterable[URL], options: FetchOptions
    ) -> AsyncGenerator[tuple[URL, Resource | AnyURLError], None]:
        """Open many URLs: one ``(url, outcome)`` per URL, in the order given.

        The contract every handler keeps (the downloader, a mirror, a program holding
        many URLs rely on it):

        * ``urls`` were admitted and routed to this handler by the resolver's gate;
          ``options`` apply to all of them.
        * ``outcome`` is an open :class:`Resource` (as :meth:`open` returns it) or the
          :class:`AnyURLError` that URL met, which fails that URL only; only
          cancellation and errors that are bugs propagate.
        * The caller reads (or closes) each resource before asking for the next item:
          a handler may stream them from one connection. Asking for the next item
          closes the previous resource (a pipelining handler reads and drops its
          rest); reading it afterwards raises :class:`~anyurl.errors.StreamClosed`.
        * Closing the iterator early (``aclose``, ``break``) releases the connections.

        This default opens one URL after another with :meth:`open`; handlers whose
        protocol can have many requests in flight (HTTP/1.1, NNTP) override it and
        set :attr:`batches`.
        """
        for url in urls:
            try:
                resource = await self.open(url, options)
            except AnyURLError as exc:
                yield url, exc
                continue
            try:
                yield url, resource
            finally:
                await resource.aclose()

    def plan(self, url: URL, options: FetchOptions) -> list[str]:
        """What :meth:`open` would send, passwords masked, without any I/O.

        Each line is a command exactly as it goes on the wire (``CWD pub``), except
        lines that start with ``*`` or stand in parentheses, which describe a step whose
        bytes depend on the server (``(then RETR through the tunnel)``), and a leading
        ``CONNECT ... (to gateway)`` line for a tunnelled URL. ``PASS`` and
        ``Authorization`` values are masked.
        """
        raise AnyURLError(
            f"no dry-run plan for {url.scheme}: URLs",
            hint="plan() is available for schemes whose dialogue is fixed by the URL.",
            remedy=("plan",),
        )

    def links(self, info: ResourceInfo, body: bytes) -> list[Link]:
        """The URLs a fetched resource points to; [] for a plain file.

        A menu's items, a listing's entries, a page's links, each once (as
        :class:`~anyurl.links.Link`: absolute URL text, ``"page"`` or ``"file"``, a label).
        ``info`` is the resource's :class:`ResourceInfo` and ``body`` its bytes as
        fetched with ``FetchOptions(raw=True)``: the server's own listing, not a
        rendering. Reading a resource's links is its scheme's business (a mirror
        knows no format), so each handler that serves listings overrides this; it
        does no I/O, and never raises for a body it cannot read (it finds no links).
        """
        return []

    def streams_links(self, info: ResourceInfo) -> bool:
        """Whether :meth:`links_from_file` reads the resource ``info`` describes a piece
        at a time (a mirror then never holds it whole); False: a mirror reads the saved
        file's bytes and hands them to :meth:`links`, as :meth:`links_from_file` does by
        default."""
        return False

    def links_from_file(self, info: ResourceInfo, file: BinaryIO) -> list[Link]:
        """What :meth:`links` finds in the saved resource ``file`` (opened for binary
        reading at its start, no larger than the mirror's bound). The default reads it
        whole; a scheme whose link finder can read a file in pieces overrides this and
        :meth:`streams_links`, and finds the very same links."""
        return self.links(info, file.read())

    # -- what a resource is: the questions the mirror, serve and -w ask ----------------
    # Each has a default that reads only what every scheme shares (a content type); a
    # scheme whose resources are listings, texts or searches answers in its handler.

    def is_listing(self, info: ResourceInfo) -> bool:
        """Whether the resource lists others as a directory does (an FTP directory, a
        Gopher menu): a mirror saves it as its crawl's index file inside a directory of
        its own name. A page that merely links (an HTML page) is no listing."""
        return False

    def has_links(self, info: ResourceInfo) -> bool:
        """Whether :meth:`links` may find anything in the resource, so that a mirror
        reads it back (it does not read every file it saves): a listing, and a
        document of a type that links (HTML, CSS), unless the scheme says more."""
        return self.is_listing(info) or _media_type(info) in _LINKING_TYPES

    def presentation(self, info: ResourceInfo) -> Presentation:
        """How the resource is shown to a person (``anyurl serve``). Asked with the
        :class:`ResourceInfo` of a fetch, or before any fetch with ``ResourceInfo(url=
        url)`` alone: a URL that cannot be fetched without a term answers
        :attr:`Presentation.SEARCH_FORM` then."""
        if self.is_listing(info):
            return Presentation.LISTING
        if _media_type(info) in _PAGE_TYPES:
            return Presentation.TEXT
        return Presentation.DOWNLOAD

    def search_url(self, url: URL, term: str) -> str | None:
        """``url`` asked with the search ``term`` (escaped as the scheme writes a term
        in a URL), or None when the URL takes no term; the target of a search form."""
        return None

    def render(self, info: ResourceInfo, body: bytes) -> str | None:
        """A rendering for people of a listing fetched raw (a Gopher menu as text with
        URLs), or None when the raw bytes are as readable as it gets. ``anyurl mirror
        --render`` saves it beside the raw listing; no I/O."""
        return None

    async def aclose(self) -> None:  # noqa: B027 - optional hook, most handlers pool nothing
        """Release pooled connections; called when the resolver closes."""
