"""What a scheme is, in one place: the descriptor every scheme provides.

A :class:`SchemeSpec` says everything the rest of anyurl needs to know about a scheme:
its names and default port, how its URLs read (the parsed view), which handler speaks
it, how a URL becomes a local file name, whether a mirror follows links to it and how it
walks its listings, whether ``-u`` and the ``<scheme>_proxy`` variables apply, what the
browser gateway does with it, and what ``anyurl demo`` shows of it. The built-in schemes
each keep theirs in ``anyurl/schemes/<name>/spec.py``; a plug-in publishes one under the
``anyurl.schemes`` entry-point group and gets the same treatment
(:mod:`anyurl.registry` reads both).

This module is data only: it imports no handler, no I/O and nothing of anyurl, not even
for the type checker, so that the registry sits at the bottom of the house with no loop
through it. The descriptor's functions take and give URLs, but the URL model lives above
(it asks the registry for its scheme's port and view): so the descriptors are generic in
the URL type, ``U``, bounded by :class:`SchemeURL`, the little of a URL this module's own
defaults read. A scheme's ``spec`` module passes functions of ``URL`` and the type checker
holds every function of one descriptor to that one type; what the registry hands back is
a descriptor of ``Any`` URL (``SchemeSpec`` written bare), as the registry cannot name the
model. Options in a demo case are generic the same way (:class:`DemoOptions`).
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol

__all__ = ["Crawl", "CrawlFetch", "DemoCase", "DemoOptions", "DemoServer", "Flags",
           "RunState", "SchemeSpec", "SchemeURL", "directory_of", "plain_path_key",
           "plain_tree_path"]


class SchemeURL(Protocol):
    """What this module's defaults read of a URL (:class:`anyurl.url.URL` has it)."""

    @property
    def path(self) -> str | None:
        """The url-path as written (``None`` when there is none)."""
        ...


class DemoOptions(Protocol):
    """What a demo case's options are (:class:`anyurl.options.SchemeOptions` is it)."""

    def check(self) -> None:
        """Raise :class:`~anyurl.errors.OptionError` for a field of the wrong type."""
        ...


if TYPE_CHECKING:
    from typing_extensions import TypeVar

    #: The URL type a descriptor's functions take; bare ``SchemeSpec`` is of ``Any``.
    U = TypeVar("U", bound=SchemeURL, default=Any)
    #: The options type of a demo case; bare ``DemoCase`` is of ``Any``.
    Opt = TypeVar("Opt", bound=DemoOptions, default=Any)
else:  # typing's TypeVar takes a default from Python 3.13 on; at run time none is needed
    U = typing.TypeVar("U", bound=SchemeURL)
    Opt = typing.TypeVar("Opt", bound=DemoOptions)


def plain_path_key(url: SchemeURL) -> str:
    """The URL's path as written, rooted (``/a/b``): the default :attr:`Crawl.path_key`."""
    return "/" + (url.path or "")


def plain_tree_path(url: SchemeURL) -> tuple[list[str], bool]:
    """The whole path as one name, a file: the default :attr:`Crawl.tree_path`."""
    return [url.path or ""], False


def directory_of(key: str) -> str:
    """The directory part of a path key, ``/a/`` of ``/a/b``: a start URL's crawl prefix."""
    return key[: key.rfind("/") + 1] or "/"


def _unchanged(url: U) -> U:
    return url


@dataclass(frozen=True)
class CrawlFetch:
    """What a mirror tells a scheme's :attr:`Crawl.fetch_options` about its fetches."""

    #: The size the listing that named a URL gave, or None (a listing's sizes stand for
    #: a ``SIZE`` command, as wget takes them).
    listed_size: Callable[[Any], int | None]


@dataclass(frozen=True)
class Crawl(Generic[U]):
    """How ``anyurl mirror`` walks a scheme's resources (present: the mirror follows it).

    The mirror asks the handler what a resource is (``is_listing``, ``has_links``,
    ``links``: :class:`~anyurl.schemes.base.SchemeHandler`) and this descriptor how the
    scheme's tree is walked and fetched.
    """

    #: The file a listing (a directory, a menu, a page with children) is saved as.
    index_name: str = ".index"
    #: What a tree of the scheme is called, for people (``"a Gopher hole"``): ``anyurl
    #: mirror``'s one-line help names what it copies so; "": not named there.
    called: str = ""
    #: Where the URL lands in the mirror's tree below ``<scheme>/<host>``: its path's
    #: segments as the scheme splits them, decoded (each is made safe afterwards), and
    #: whether it names a directory (saved as :attr:`index_name` inside it).
    tree_path: Callable[[U], tuple[list[str], bool]] = plain_tree_path
    #: The URL's path as the scheme splits it, rooted ("/a/b"), for prefix comparisons:
    #: a crawl stays under its start URL's directory.
    path_key: Callable[[U], str] = plain_path_key
    #: The start URL's prefix; by default the directory of its :attr:`path_key`.
    start_prefix: Callable[[U], str] | None = None
    #: The URL as the crawl judges, stores and names it (dot segments removed from a
    #: hierarchical path); by default as written.
    canonical: Callable[[U], U] = _unchanged
    #: URLs that no server-and-path scope can hold but that belong to any crawl of this
    #: family (a news article by its Message-ID names no server).
    anywhere: Callable[[U], bool] | None = None
    #: URLs never in scope whatever their prefix (a Gopher selector with a ``..``).
    refused: Callable[[U], bool] | None = None
    #: The family ``--span-hosts`` keeps a crawl within (https is http's); by default
    #: the scheme's own name.
    family: str | None = None
    #: Whether robots.txt rules apply (RFC 9309: to http and https).
    robots: bool = False
    #: The scheme options of the mirror's fetches of this scheme, made from the user's:
    #: what a walk needs of the handler (FTP's MLSD listings and listed sizes, Gopher's
    #: menus as sent); None: the user's as they are.
    fetch_options: Callable[[tuple[Any, ...], CrawlFetch],
                            tuple[Any, ...]] | None = None
    #: URLs a mirror saves as the document itself, not as the server framed it (a
    #: Gopher+ view: its Gopher+ header and framing go); None: every fetch is raw.
    document: Callable[[U], bool] | None = None
    #: Whether a refresh asks with a conditional request (``If-None-Match``,
    #: ``If-Modified-Since``) and takes a "not modified" answer as unchanged.
    revalidates: bool = False


@dataclass(frozen=True)
class DemoServer:
    """A loopback server ``anyurl demo`` starts: ``python -m MODULE --host 127.0.0.1
    --port {port} ARGS`` (``{data}`` in ARGS is the demo's data directory)."""

    module: str
    args: tuple[str, ...] = ()
    udp: bool = False
    #: Modules it needs besides its own (a missing one skips the scheme's cases).
    requires: tuple[str, ...] = ()


@dataclass(frozen=True)
class DemoCase(Generic[Opt]):
    """One URL ``anyurl demo`` fetches: ``{port}`` is its server's port, ``{data}`` the
    data directory; ``config`` gives settings from the server's port."""

    url: str
    what: str = ""
    server: DemoServer | None = None
    options: tuple[Opt, ...] = ()
    config: Callable[[int], dict[str, Any]] | None = None


@dataclass(frozen=True)
class RunState:
    """What a scheme's flags ask a run to keep for all its transfers and write back when
    it ends (HTTP's cookie jar of ``-b FILE``/``-c FILE``): made once of the namespace
    by :attr:`Flags.state`; :attr:`Flags.options` finds it in the namespace as
    :attr:`name`."""

    #: The namespace attribute ``options`` reads it as (HTTP's ``"cookie_file"``).
    name: str
    #: What is kept (HTTP's :class:`~anyurl.schemes.http.cookies.CookieFile`).
    value: Any
    #: The flags that ask for it (``"-b FILE and -c FILE"``) and what it is (``"one
    #: cookie jar"``), as a refusal names them: one process keeps it, so a run spread
    #: over several (``--dask``) refuses them.
    flags: str
    what: str
    #: Write it back when the run ends, raising an :class:`~anyurl.errors.AnyURLError`
    #: that says what could not be written; None: it is only read.
    save: Callable[[], None] | None = None


@dataclass(frozen=True)
class Flags:
    """A scheme's own command-line flags, as a pytest plug-in adds its options with
    ``pytest_addoption(parser)``: each command of :attr:`commands` gives ``add`` an
    argparse argument group of the scheme's (shown in ``--help``), and ``options`` the
    parsed namespace, from which it makes the scheme's typed options (None: nothing
    given). A built-in scheme's are declared so too (``anyurl/schemes/<name>/flags.py``).

    The flags several schemes share under curl's names (``-k``, ``--cacert``,
    ``--capath``, ``--ssl``, ``-I``, ``-d`` ...) are the command line's; ``options``
    reads them from the namespace too, and makes what they mean for its scheme.
    """

    add: Callable[[Any], None]
    options: Callable[[Any], DemoOptions | None]
    #: The commands that add the flags and ask ``options`` (``"get"``, ``"mirror"``).
    commands: tuple[str, ...] = ("get", "mirror")
    #: The options the command line's shared flags alone make, for a command that has
    #: none of the scheme's own (not in :attr:`commands`: ``mirror``, ``serve``); it
    #: reads the namespace with defaults (a command may lack a shared flag); None: none.
    shared: Callable[[Any], DemoOptions | None] | None = None
    #: The run's configuration the flags set (``--nntp-server`` is the config file's
    #: ``nntp_server``): :class:`~anyurl.config.Config` fields and their values.
    config: Callable[[Any], Mapping[str, Any]] | None = None
    #: A command's own ``add`` where its flags are not those of the others (HTTP's for
    #: ``mirror``: the request headers, the cookies, ``--compressed``); ``options`` reads
    #: a flag its command lacks as the flag's default.
    add_for: Mapping[str, Callable[[Any], None]] = field(default_factory=dict)
    #: A command's own ``options`` where its flags make other options than the others'
    #: (FTP's for ``mirror``: those of the shared flags alone, its ``--retr-symlinks``
    #: being the crawl's); None: the command's flags make none of the scheme's options.
    options_for: Mapping[str, Callable[[Any], DemoOptions | None] | None] = field(
        default_factory=dict)
    #: The crawl's settings its ``mirror`` flags set (Gopher's ``--gopher-views`` is the
    #: :class:`~anyurl.mirror.MirrorOptions` field ``gopher_views``): fields and their
    #: values, for a scheme whose :attr:`commands` has ``mirror``.
    mirror: Callable[[Any], Mapping[str, Any]] | None = None
    #: What the run keeps for all its transfers, made once of the namespace and a
    #: warning callback (None: warnings are not said), for a command of
    #: :attr:`commands`; None (or it gives None): nothing is kept.
    state: Callable[[Any, Callable[[str], None] | None], RunState | None] | None = None
    #: What the shared flags it reads mean for this scheme, by the flag's long name
    #: (``{"--head": "HEAD, print the response head"}``): their help says it, scheme by
    #: scheme.
    shared_help: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SchemeSpec(Generic[U]):
    """One scheme's descriptor (see the module docstring); the first name is its own."""

    #: The scheme names it serves, lower case: ``("news", "nntp")`` share one handler.
    names: tuple[str, ...]
    #: The handler (a :class:`~anyurl.schemes.base.SchemeHandler` subclass), or
    #: ``"module:Class"`` imported when first needed.
    handler: str | type
    #: One line for people: what the scheme fetches.
    summary: str = ""
    #: A URL of the scheme as a person writes one (``gopher://gopher.example.org/1/``):
    #: the examples of ``anyurl parse --help`` and the browser gateway's address box.
    example: str = ""
    #: The port a URL without one connects to (RFC 1738 section 3); None: no network.
    default_port: int | None = None
    #: Its names that speak TLS from the first byte, each with the name of the same
    #: scheme without TLS (``{"https": "http"}``): a TLS handshake that fails on such a
    #: URL suggests the plain one.
    plain_names: Mapping[str, str] = field(default_factory=dict)
    #: The typed, decoded view of a URL's scheme part (``url.parts``); None: generic.
    view: Callable[[U], Any] | None = None
    #: The module of its view's classes and functions (``FTPPath``, ``ftp_path``): the
    #: names of its ``__all__`` are :mod:`anyurl.url`'s and :mod:`anyurl.url.views`'s too.
    view_module: str | None = None
    #: The module of its typed options (a :class:`~anyurl.options.SchemeOptions`): the
    #: names of its ``__all__`` are :mod:`anyurl.options`'s too.
    options_module: str | None = None
    #: The file name ``-O`` saves a URL under, before it is made safe; None (or ""):
    #: the URL's host, else the scheme's name.
    local_name: Callable[[U], str] | None = None
    #: Host name prefixes that make a URL written without a scheme this scheme's, as
    #: curl guesses (``ftp.example.org/pub`` is ftp); the longest that matches wins, and
    #: ``""`` matches every host (http's: a bare host is otherwise http).
    host_prefixes: tuple[str, ...] = ()
    #: Whether ``-u``/``auth`` set the URL's login (its ``user:password@``).
    login: bool = False
    #: Whether the ``<scheme>_proxy`` variables (and ``-x``) route it through a gateway.
    proxied: bool = False
    #: Whether its requests travel over UDP (Prospero's ARDP): a SOCKS proxy carries TCP
    #: only here, so a URL routed through one is refused rather than sent around it.
    udp: bool = False
    #: Whether a link found in a document may lead to it (an HTML ``href``, a Gopher
    #: ``URL:`` item): False for what acts rather than fetches (mailto sends mail, telnet
    #: opens a session) and for ``file:``, which only a local document may name.
    followable: bool = True
    #: Whether a server's status (an HTTP status, an FTP reply code) in a
    #: :class:`~anyurl.errors.ServerError` means a retry may succeed (``--retry``).
    transient_status: Callable[[int], bool] | None = None
    #: Whether ``-R`` asks the file's time before the transfer (FTP's ``MDTM``, on the
    #: control connection the transfer then reuses) rather than reading it from the
    #: response (HTTP's ``Last-Modified``).
    time_asked_first: bool = False
    #: The scheme options of a request for a resource's facts alone, its size and time
    #: without its body (FTP's ``SIZE`` and ``MDTM``), made from the given ones: how
    #: ``-R`` asks the time first (:attr:`time_asked_first`); None: no such request.
    head: Callable[[tuple[Any, ...]], tuple[Any, ...]] | None = None
    #: How a WARC file records a transfer: ``"response"``, an HTTP response record and
    #: its request record; ``"resource"``, a resource record and the protocol dialogue
    #: as a metadata record.
    warc_record: str = "resource"
    #: The module that replays the scheme's archived documents as the site they were in
    #: ``anyurl serve --replay`` (HTTP's: its pages and stylesheets with their URLs
    #: rewritten to the replay's, :class:`anyurl.serve.site.SiteReplay`); None: a capture
    #: is shown as the gateway shows a live fetch.
    replay: str | None = None
    #: What a stored copy of a URL is, where no handler opened it (a WARC record that
    #: ``anyurl serve --replay`` shows): the kind its handler's ``open`` would have said
    #: (:attr:`~anyurl.resource.ResourceInfo.kind`: ``"menu"``, ``"directory"``,
    #: ``"article"``, ``"report"`` ...) and the ``extra`` the copy implies, read from the
    #: URL, the content type (lower case, no parameters; "" when none) and the protocol
    #: dialogue recorded with it; None: a file, with no extra.
    stored_kind: Callable[[U, str, Sequence[str]],
                          tuple[str, Mapping[str, Any]]] | None = None
    #: How a mirror walks it; None: a mirror fetches such a URL but finds no links.
    crawl: Crawl[U] | None = None
    #: Why the browser gateway shows the URL as a link instead of fetching it, or None.
    not_in_browser: str | None = None
    #: The URL to fetch instead of one naming another host, when the configuration asks
    #: (``file_ftp_fallback``: RFC 1738 3.10's ``file://host/`` once meant ftp), or None.
    remote_fallback: Callable[[U], U | None] | None = None
    #: The :class:`~anyurl.config.Config` switch (a bool field) that turns
    #: :attr:`remote_fallback` on; None: it needs none.
    remote_fallback_setting: str | None = None
    #: What ``anyurl demo`` fetches to show the scheme.
    demo: tuple[DemoCase[Any], ...] = field(default=())
    #: Its own command-line flags (a built-in's in its ``flags`` module, which the
    #: registry lists so that the command line reads them without this descriptor).
    flags: Flags | None = None
    #: What the command line says of its errors in its own words: a remedy key (an
    #: error's ``remedy``) or a hint its handler gives, to the advice ``anyurl get``
    #: prints instead ({0}: the remedy's argument).
    cli_hints: Mapping[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The scheme's own name (its first)."""
        return self.names[0]
