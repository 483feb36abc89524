"""Typed per-scheme options: one frozen dataclass per handler.

A request's common choices (resume offset, trace, output format) are fields of
:class:`~anyurl.schemes.base.FetchOptions`; what only one scheme understands is one of
the classes below, given in ``FetchOptions.schemes``::

    FetchOptions(schemes=(FTPOptions(passive=False), HTTPOptions(http2=True)))

A handler takes the instance of its own class (``options.get(FTPOptions)``, the defaults
when none was given) and ignores the others, so one ``FetchOptions`` serves a run of
URLs of several schemes, as the command line builds it. A misspelt field is a
``TypeError`` where the dataclass is built; a field of the wrong type is a
:class:`~anyurl.errors.OptionError` when the handler opens (:meth:`SchemeOptions.check`).

This module imports no handler, so the command line and programs can build options
without paying for the protocol code they do not use.
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Union

from anyurl.errors import OptionError

if TYPE_CHECKING:
    from http.cookiejar import CookieJar

    from anyurl.schemes.http.forms import Form

__all__ = [
    "AnswerSource",
    "FTPOptions",
    "GopherOptions",
    "HTTPOptions",
    "MailtoOptions",
    "NewsOptions",
    "ProsperoOptions",
    "SchemeOptions",
    "TelnetOptions",
    "WAISOptions",
]


@dataclass(frozen=True)
class SchemeOptions:
    """Base of every handler's options; subclasses are frozen dataclasses."""

    #: The name messages give these options: the class's name less ``Options``,
    #: lower case (``FTPOptions``: "ftp"), unless a subclass sets its own.
    label: ClassVar[str] = "scheme"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "label" not in cls.__dict__:
            cls.label = cls.__name__.removesuffix("Options").lower() or "scheme"

    def check(self) -> None:
        """Raise :class:`OptionError` for a field whose value has not the declared type.

        The check is shallow (a ``tuple[str, ...]`` must be a tuple, a mapping a
        mapping, a callable callable): enough to catch ``idle="2"`` or ``passive=1``
        from a program that built the options from untyped data.
        """
        if self.__dict__.get("_checked"):
            return  # frozen: once checked, always right (the check runs per request)
        hints = typing.get_type_hints(type(self), localns=self._hint_names())
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if not _conforms(value, hints[f.name]):
                raise OptionError(
                    f"{self.label} option {f.name}={value!r} is not of type "
                    f"{_type_name(hints[f.name])}"
                )
        object.__setattr__(self, "_checked", True)

    @classmethod
    def _hint_names(cls) -> dict[str, Any]:
        """Names of the field types imported only when checked (kept out of the import
        of this module, which the command line pays for at every start)."""
        return {}


def _conforms(value: object, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if hint is Any:
        return True
    if origin in (Union, types.UnionType):
        return any(_conforms(value, arg) for arg in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin is not None:
        if origin in (Callable, typing.get_origin(Callable[[], None])):
            return callable(value)
        return isinstance(value, origin)
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True


def _loaded_class(module: str, name: str) -> type:
    """``module.name`` if ``module`` is imported, else a stand-in class of that name.

    Only a type check's namespace uses it: a value cannot be an instance of a class
    whose module was never imported, so the stand-in gives the same answer (and the same
    name in an error) without importing the module."""
    loaded = sys.modules.get(module)
    if loaded is not None:
        cls: type = getattr(loaded, name)
        return cls
    return type(name, (), {"__module__": module})


def _type_name(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


#: Gopher+ form answers: {prompt: value}, or a callback given the form that returns them.
AnswerSource = Mapping[str, str] | Callable[[Any], Awaitable[Mapping[str, str]]]


@dataclass(frozen=True)
class FTPOptions(SchemeOptions):
    """ftp: URLs (RFC 1738 3.2)."""

    #: Passive (EPSV/PASV) or active (EPRT/PORT) data connections; None: ``Config.ftp_passive``.
    passive: bool | None = None
    #: The ``ACCT`` text for servers that ask for an account after ``PASS``.
    account: str | None = None
    #: ``-I``: no transfer; the resource is the file's size (``SIZE``) and modification
    #: time (``MDTM``) as curl prints them (``Content-Length:``, ``Last-Modified:``).
    head: bool = False
    #: How a directory is listed: ``"nlst"``, its names one a line (RFC 959), or
    #: ``"mlsd"``, one line of facts per entry as the server sent it (RFC 3659 7), which
    #: says which names are directories (what a recursive mirror needs). A server without
    #: MLSD (500, 502) is listed with NLST instead; ``info.extra["command"]`` says which.
    listing: str = "nlst"
    #: The type of a file named without ``;type=``: ``"off"``, image type (``TYPE I``,
    #: the server's bytes, as curl and wget fetch), ``"on"``, ``TYPE A`` with CR LF
    #: turned into LF (curl's ``-B``, ``--ftp-ascii``), or ``"guess"``, RFC 1738 3.2.3's
    #: guess from the name (``.txt`` and other text suffixes in ``TYPE A``). A URL's own
    #: ``;type=a``/``;type=i`` always wins.
    ascii: str = "off"

    def check(self) -> None:
        """The type check, a ``listing`` and an ``ascii`` mode anyurl knows."""
        super().check()
        if self.listing not in ("nlst", "mlsd"):
            raise OptionError(f"ftp option listing={self.listing!r} is not 'nlst' or 'mlsd'")
        if self.ascii not in ("off", "on", "guess"):
            raise OptionError(f"ftp option ascii={self.ascii!r} is not 'off', 'on' or 'guess'")


@dataclass(frozen=True)
class HTTPOptions(SchemeOptions):
    """http: and https: URLs (RFC 1738 3.3)."""

    #: Ask for gzip/deflate (``Accept-Encoding``) and decode the body (``--compressed``).
    decode_content: bool = False
    #: HTTP/2 (needs the ``h2`` package). True (``--http2``): prior knowledge for
    #: http, ALPN for https, every request, a batch's as concurrent streams of one
    #: connection. None, the default, and False (``--http1.1``): HTTP/1.1, a batch
    #: pipelined (measured faster here than h2 in pure Python: bench/README.md).
    http2: bool | None = None
    #: Return a 4xx/5xx body as the resource instead of raising (``--keep-error-body``).
    keep_error_body: bool = False
    #: The request method (``-X``); None: GET, POST when there is a ``body``, HEAD
    #: with ``head``. An explicit method is kept across redirects, as curl keeps it.
    method: str | None = None
    #: Request headers in order (``-H``, ``-A``, ``-e``). One replaces anyurl's header
    #: of the same name (``Host``, ``User-Agent``, ``Accept``); a value of None removes
    #: it (curl's ``-H 'Accept:'``). CR and LF are refused (:meth:`check`).
    headers: tuple[tuple[str, str | None], ...] = ()
    #: A request body (``-d``, ``--data-binary``): sent with POST unless ``method`` says
    #: otherwise, with curl's ``Content-Type: application/x-www-form-urlencoded``
    #: unless ``headers`` give one. A 301, 302 or 303 turns it into a GET without it.
    body: bytes | None = None
    #: HEAD (``-I``): the resource is the response head, as curl prints it.
    head: bool = False
    #: Verify the server's certificate and name (``-k`` turns it off).
    verify: bool = True
    #: CA certificates to trust instead of the system's (``--cacert``, ``--capath``).
    cafile: str | None = None
    capath: str | None = None
    #: A client certificate (PEM, ``--cert``) and its key when not in the same file.
    client_cert: str | None = None
    client_key: str | None = None
    #: Look the host up in ``~/.netrc`` when the URL has no user (``--netrc``).
    netrc: bool = False
    #: Keep the caller's ``Authorization``, ``Cookie`` and ``Proxy-Authorization``
    #: headers, and the URL's or ``-u`` login, after a redirect to another scheme, host
    #: or port (curl's ``--location-trusted``). False, the default: they go to the
    #: first URL's origin only, so a redirect cannot hand a token to another server or
    #: send it in clear text after an https -> http redirect.
    location_trusted: bool = False
    #: Pipeline the GET and HEAD requests of a batch (``Downloader`` runs, a mirror) on
    #: a keep-alive HTTP/1.1 connection (``--no-pipeline`` turns it off): see
    #: docs/schemes/http.md.
    pipeline: bool = True
    #: The cookie jar of the requests (``-b``, ``-c``; :mod:`anyurl.cookies`): its
    #: cookies go to the URLs their domain, path and ``Secure`` flag allow, redirect
    #: targets included, and every response's ``Set-Cookie`` is kept in it. One jar
    #: in the options of many URLs is shared by them. None: no cookie engine (a
    #: ``Cookie`` header in ``headers`` is still sent, to the first URL's origin only).
    cookies: CookieJar | None = None
    #: A multipart/form-data body (``-F``; :class:`anyurl.schemes.http.forms.Form`),
    #: streamed from its files; it wins over ``body``, and is POSTed unless ``method``
    #: says otherwise. A 301, 302 or 303 turns it into a GET without it, as ``body``.
    form: Form | None = None

    @classmethod
    def _hint_names(cls) -> dict[str, Any]:
        # The classes themselves when their modules are loaded; else a stand-in no value
        # is an instance of. No CookieJar or Form can exist before its module is
        # imported, so the check answers alike, and a plain http get never imports
        # http.cookiejar (urllib.request, http.client) or the forms (email, mimetypes).
        return {"CookieJar": _loaded_class("http.cookiejar", "CookieJar"),
                "Form": _loaded_class("anyurl.schemes.http.forms", "Form")}

    def check(self) -> None:
        """The type check, and no CR or LF in a method or header (RFC 1738 section 6:
        nothing smuggled into the request)."""
        super().check()
        texts = [self.method or ""]
        for name, value in self.headers:
            texts += [name, value or ""]
            if not name or any(c in name for c in " \t:"):
                raise OptionError(f"http header name {name!r} is not a token")
        if any(c in t for t in texts for c in "\r\n\0"):
            raise OptionError("http method and headers may not contain CR, LF or NUL")
        if self.method is not None and (not self.method or not self.method.isascii()
                                        or any(not (c.isalnum() or c in "!#$%&'*+-.^_`|~")
                                               for c in self.method)):
            raise OptionError(f"http method {self.method!r} is not a token")


@dataclass(frozen=True)
class GopherOptions(SchemeOptions):
    """gopher: URLs and Gopher+ (RFC 1738 3.4, RFC 1436)."""

    #: The Gopher+ view to fetch, ``'TYPE LANG'`` as in ``'text/plain De_DE'``.
    view: str | None = None
    #: Answers to a Gopher+ ``+ASK`` form.
    answers: AnswerSource | None = None
    #: Menus and attribute blocks rendered as text with URLs (True), or saved as the
    #: server framed them (False: the terminating ``.`` removed, dot-stuffing undone),
    #: which is what the command line writes to files and pipes (``--render`` forces it).
    render: bool = True


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


@dataclass(frozen=True)
class TelnetOptions(SchemeOptions):
    """telnet: URLs (RFC 1738 3.8)."""

    #: Lines typed after login, in order.
    commands: tuple[str, ...] = ()
    #: End the session when the server has been quiet this long; None waits for it to close.
    idle: float | None = 2.0
    #: Type the URL's user and password into the server's login prompts (advisory, 3.8).
    login: bool = True
    #: What TERMINAL-TYPE answers (RFC 1091); None refuses the option (WONT TTYPE).
    terminal_type: str | None = "DUMB"


@dataclass(frozen=True)
class MailtoOptions(SchemeOptions):
    """mailto: URLs (RFC 1738 3.5): the message to submit."""

    subject: str | None = None
    #: The body; None with ``body_from_stdin`` unset is an error (no default body).
    body: bytes | None = None
    body_from_stdin: bool = False
    #: ``host[:port]`` of the SMTP relay; None: ``Config.smtp_relay``, else localhost:25.
    relay: str | None = None
    #: Envelope sender and From:; None: ``Config.mail_from``, else ``anonymous_email``.
    mail_from: str | None = None
    #: The name given in EHLO/HELO; None: this machine's name.
    helo: str | None = None


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


@dataclass(frozen=True)
class WAISOptions(SchemeOptions):
    """wais: URLs (RFC 1738 3.9)."""

    #: The most documents a search asks the server for.
    max_documents: int = 100
