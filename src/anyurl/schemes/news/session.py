"""One NNTP connection and its dialogue: greeting, CAPABILITIES, MODE READER, AUTHINFO.

A :class:`Session` is a transport stream and the sans-I/O core
(:class:`~anyurl.protocols.nntp.NNTPClient`) together, plus what the server offered;
:func:`connect` opens one, greeted and set up (:func:`setup`), as the handler's module
docstring lists.

Credentials: RFC 1738's nntp syntax has none, so they come from the URL only when it was
parsed leniently (``nntp://user:password@host/...``), else from ``NewsOptions.user`` /
``NewsOptions.password``, else, when the server asks (480), from ``~/.netrc`` (when
``Config.use_netrc``) and ``FetchOptions.password_callback``. Credentials given
explicitly are sent right after MODE READER (so ``--plan`` shows them, password masked),
and after STARTTLS when TLS was asked (``NewsOptions.tls``); a password sent without
TLS (no nntps:, no STARTTLS) makes the handler warn that it crosses the network in
clear text (once per server, :class:`Logins`). A server that does not know AUTHINFO
(500/502/503) is then used without logging in.

Responses map to errors as the rest of anyurl does (:func:`error`): 411 (no such group),
423 (no such article number), 430 (no such message-id) and 420 raise
:class:`RemoteFileNotFound` (exit 78); 481, 482 and a 480 that cannot be answered raise
:class:`LoginDenied` (67); a 502 greeting (the server serves only local clients, as RFC
1738 3.7 warns) :class:`RemoteAccessDenied` (9); 400 and other 4xx/5xx
:class:`ServerError` (22); 483 to AUTHINFO (logins only inside TLS, RFC 4642)
:class:`LoginDenied` (67) with a hint to ask for STARTTLS; a connection lost in the
middle of an article :class:`PartialTransfer` (18). Every message quotes the server's
response line and the masked URL.
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator, Callable

import anyio

from anyurl.config import Config
from anyurl.errors import (
    AnyURLError,
    ConnectionLost,
    LoginDenied,
    PartialTransfer,
    ProtocolError,
    RemoteAccessDenied,
    RemoteFileNotFound,
    ServerError,
    TLSNotOffered,
    URLError,
)
from anyurl.net.credentials import netrc_entry
from anyurl.net.tls import make_ssl_context
from anyurl.net.transport import Dialer, Stream
from anyurl.protocols.common import LocalProtocolError, RemoteProtocolError
from anyurl.protocols.nntp import (
    Command,
    ConnectionClosed,
    Data,
    EndOfData,
    GroupInfo,
    NeedData,
    NNTPClient,
    Response,
    State,
    parse_capabilities,
    parse_group,
)
from anyurl.schemes.base import FetchOptions, Trace
from anyurl.schemes.news.options import NewsOptions
from anyurl.schemes.news.target import Target
from anyurl.url import URL

__all__ = ["GOODBYE_TIMEOUT", "NOT_FOUND", "RECEIVE_SIZE", "Logins", "Session", "authenticate",
           "connect", "error", "mode_reader", "request", "select_group", "setup"]

RECEIVE_SIZE = 65536
#: The schemes in TLS from the first byte (port 563).
TLS_SCHEMES = ("nntps", "snews")
#: How long QUIT may take when we are closing anyway.
GOODBYE_TIMEOUT = 2.0
#: Response codes meaning "that article or group is not here".
NOT_FOUND = frozenset({411, 420, 423, 430})


class Logins:
    """What one handler's sessions share for logging in: the config (``~/.netrc``), the
    warning sink, and the servers already warned that a password crosses in clear text."""

    def __init__(self, config: Config, warn: Callable[[str], None]) -> None:
        self.config = config
        self.warn = warn
        self.warned_cleartext: set[tuple[str, int]] = set()


class Session:
    """One NNTP connection: a transport stream, the core, and what the server offered."""

    def __init__(self, stream: Stream, url: URL, target: Target, trace: Trace | None,
                 logins: Logins):
        self.stream = stream
        self.url = url
        self.target = target
        self.trace = trace
        self.logins = logins
        self.core = NNTPClient()
        self.capabilities: dict[str, tuple[str, ...]] | None = None
        self.authenticated = False
        self.over_verb = "OVER"
        #: Whether the connection is in TLS (nntps:, snews:, or after STARTTLS).
        self.tls = False
        #: "" (no TLS asked), "try" (--ssl), "require" (--ssl-reqd, nntps:, snews:).
        self.tls_wanted = ""
        #: AUTHINFO may cross without TLS although TLS was asked (--nntp-plain-auth).
        self.plain_auth = False
        #: The certificate checks for TLS (None: no TLS asked).
        self.ssl_context: ssl.SSLContext | None = None

    def what(self) -> str:
        """The server, as error messages name it."""
        return f"nntp server {self.target.hostport}"

    async def _event(self) -> Response | Data | EndOfData:
        while True:
            try:
                event = self.core.next_event()
            except RemoteProtocolError as exc:
                raise ProtocolError(
                    f"{self.what()} broke the protocol for {self.url.masked()}: {exc}",
                    url=self.url,
                ) from exc
            if isinstance(event, NeedData):
                self.core.receive_data(await self.stream.receive(RECEIVE_SIZE))
                continue
            if isinstance(event, ConnectionClosed):
                raise ConnectionLost(
                    f"{self.what()} closed the connection for {self.url.masked()}",
                    url=self.url,
                )
            return event

    async def response(self) -> Response:
        """The next response line (traced)."""
        event = await self._event()
        if not isinstance(event, Response):  # pragma: no cover - the core orders events
            raise ProtocolError(f"{self.what()} sent data where a response was due")
        if self.trace is not None:
            self.trace(f"< {event.line}")
        return event

    async def command(self, command: Command) -> Response:
        """Send ``command`` (checked by the core, traced) and read its response."""
        if self.core.state is State.CLOSED:
            raise ConnectionLost(
                f"{self.what()} closed the connection before {command.verb} for "
                f"{self.url.masked()}",
                url=self.url,
            )
        try:
            data = self.core.send(command)
        except LocalProtocolError as exc:
            raise URLError(f"cannot send {command.verb} for {self.url.masked()}: {exc}",
                           url=self.url) from exc
        if self.trace is not None:
            self.trace(f"> {command.display()}")
        await self.stream.send(data)
        return await self.response()

    async def blocks(self) -> AsyncIterator[bytes]:
        """The data block of the last response, in chunks of whole lines."""
        while True:
            try:
                event = await self._event()
            except ConnectionLost:
                raise PartialTransfer(
                    f"{self.what()} closed the connection in the middle of the data for "
                    f"{self.url.masked()}",
                    url=self.url,
                    hint="Try again; the server may have been restarted.",
                ) from None
            if isinstance(event, EndOfData):
                if self.trace is not None:
                    self.trace("< .")
                return
            if isinstance(event, Data):
                yield event.data

    async def read_block(self) -> bytes:
        """The data block of the last response, whole (for short blocks only)."""
        return b"".join([chunk async for chunk in self.blocks()])

    async def goodbye(self) -> None:
        """QUIT (best effort, briefly) and close; mid-block, QUIT is sent without waiting."""
        with anyio.CancelScope(shield=True), anyio.move_on_after(GOODBYE_TIMEOUT):
            try:
                if self.core.state is State.IDLE:
                    await self.command(Command.of("QUIT"))
                elif self.core.state is not State.CLOSED:
                    if self.trace is not None:
                        self.trace("> QUIT")
                    await self.stream.send(Command.of("QUIT").wire())
            except AnyURLError:
                pass
        with anyio.CancelScope(shield=True):
            await self.stream.aclose()


async def connect(dialer: Dialer, config: Config, logins: Logins, url: URL, target: Target,
                  options: FetchOptions, *, login: bool = False) -> Session:
    """A connection to ``target``'s server, greeted, set up and (``login``, or with
    credentials) logged in; closed again if any of that fails."""
    trace = options.trace
    if trace is not None and url.scheme in ("news", "snews"):
        trace(f"* news server {target.hostport} (from {target.source})")
    given = options.get(NewsOptions)
    implicit = url.scheme in TLS_SCHEMES
    context = (make_ssl_context(given.verify, given.cafile, given.capath)
               if implicit or given.tls else None)
    stream = await dialer.connect_tcp(
        target.host,
        target.port,
        url=url,
        connect_timeout=config.connect_timeout,
        read_timeout=config.read_timeout,
        tls=implicit, server_hostname=target.host, ssl_context=context,
        what=f"the nntp connection to {target.hostport}",
    )
    session = Session(stream, url, target, trace, logins)
    session.tls = implicit
    session.tls_wanted = "require" if implicit else given.tls
    session.plain_auth = given.plain_auth
    session.ssl_context = context
    try:
        await setup(session, options)
        if login and not session.authenticated:
            await authenticate(session, options, proactive=False)
    except BaseException:
        await session.goodbye()
        raise
    return session


async def setup(session: Session, options: FetchOptions) -> None:
    """The greeting, CAPABILITIES, MODE READER when wanted, and a login at once when
    the target carries credentials."""
    url, target = session.url, session.target
    greeting = await session.response()
    if greeting.code == 502:
        raise RemoteAccessDenied(
            f"{session.what()} refused service for {url.masked()}: {greeting.line}",
            url=url,
            hint="Many news servers serve only their local clients (RFC 1738 3.7).",
        )
    if greeting.code not in (200, 201):
        raise ServerError(
            f"{session.what()} is not available for {url.masked()}: {greeting.line}",
            status=greeting.code, url=url, hint="Try again later.",
        )
    await capabilities(session)
    if session.tls_wanted and not session.tls:
        await start_tls(session)
    wants_mode = (
        session.capabilities is None
        or ("MODE-READER" in session.capabilities and "READER" not in session.capabilities)
    )
    if session.capabilities is not None and "OVER" not in session.capabilities:
        session.over_verb = "XOVER"
    if wants_mode:
        await mode_reader(session, options)
    if target.user is not None and not session.authenticated:
        await authenticate(session, options, proactive=True)


async def capabilities(session: Session) -> None:
    """CAPABILITIES [RFC 3977 5.2]; None kept for a server without it (leafnode)."""
    caps = await session.command(Command.of("CAPABILITIES"))
    session.capabilities = None
    if caps.code == 101:
        session.capabilities = parse_capabilities(
            (await session.read_block()).splitlines()
        )


async def start_tls(session: Session) -> None:
    """STARTTLS [RFC 4642] when the server lists it; otherwise, with ``--ssl-reqd``,
    :class:`TLSNotOffered` (64) before any login. After the handshake the capabilities
    are asked again, as RFC 4642 2.2.2 says (the server may offer more inside TLS)."""
    url = session.url
    if session.capabilities is None or "STARTTLS" not in session.capabilities:
        if session.tls_wanted == "require":
            raise TLSNotOffered(
                f"{session.what()} does not offer STARTTLS (RFC 4642) for {url.masked()}",
                url=url, hint="nntps:// (port 563) may be served; or drop ssl_reqd.")
        if session.trace is not None:
            session.trace("* the server offers no STARTTLS; going on without TLS")
        return
    reply = await session.command(Command.of("STARTTLS"))
    if reply.code != 382:
        if session.tls_wanted == "require":
            raise TLSNotOffered(f"{session.what()} refused STARTTLS for {url.masked()}: "
                                f"{reply.line}", url=url)
        return
    await session.stream.start_tls(session.target.host, session.ssl_context)
    session.tls = True
    if session.trace is not None:
        session.trace("* TLS started (STARTTLS)")
    await capabilities(session)


async def mode_reader(session: Session, options: FetchOptions) -> None:
    """MODE READER [RFC 3977 5.3], logging in first when the server asks."""
    reply = await session.command(Command.of("MODE", "READER"))
    if reply.code == 480:  # some servers want AUTHINFO first (as nntplib handles)
        await authenticate(session, options, proactive=False)
        reply = await session.command(Command.of("MODE", "READER"))
    if reply.code == 502:  # no reading service here; the server closes [3977 5.3.1]
        raise RemoteAccessDenied(
            f"{session.what()} offers no reading service for {session.url.masked()}: "
            f"{reply.line}",
            url=session.url,
        )
    if reply.code == 400:
        raise error(session, reply, "MODE READER")
    # Otherwise (200/201, or 5xx from a server that needs no mode switch): go on.


async def _credentials(
    session: Session, options: FetchOptions
) -> tuple[str | None, str | None]:
    target = session.target
    user, password = target.user, target.password
    if user is None:  # the host's own entry only: never netrc's default (see netrc_entry)
        entry = netrc_entry(session.logins.config, target.host, session.logins.warn)
        if entry is not None:
            user, password = entry.login, entry.password
    return user, password


async def authenticate(
    session: Session, options: FetchOptions, *, proactive: bool
) -> None:
    """AUTHINFO USER/PASS [RFC 4643 2.3]; proactive logins tolerate servers without it."""
    url = session.url
    user, password = await _credentials(session, options)
    if user is None:
        raise LoginDenied(
            f"{session.what()} requires authentication for {url.masked()} and no user "
            "name was given",
            url=url,
            hint="Give a user and password (nntp://user:password@host/... parsed "
            "leniently, the user/password options, or ~/.netrc).",
        )
    if session.tls_wanted and not session.tls and not session.plain_auth:
        raise LoginDenied(
            f"{session.what()} has no TLS for {url.masked()}, and the login of {user!r} "
            "is sent only inside TLS when TLS was asked for", url=url,
            hint="NewsOptions(plain_auth=True) sends it in clear all the same.",
            remedy=("nntp_plain_auth",))
    for value in (user, password):
        if value is not None and any(c in value for c in "\r\n\0"):
            raise URLError(f"the nntp user or password for {url.masked()} contains a "
                           "CR, LF or NUL", url=url)
    reply = await session.command(Command.of("AUTHINFO", "USER", user))
    if reply.code == 483:  # logins only inside TLS [RFC 4642 2.2.2], as INN's require_encryption
        raise LoginDenied(
            f"{session.what()} takes the login of {user!r} for {url.masked()} only inside "
            f"TLS: {reply.line}", url=url,
            hint="NewsOptions(tls='require') asks for STARTTLS first; nntps:// is TLS from "
            "the first byte.", remedy=("nntp_tls",))
    if proactive and reply.code in (500, 501, 502, 503) and not session.authenticated:
        if session.trace is not None:
            session.trace("* the server has no AUTHINFO; going on without logging in")
        return
    if reply.code == 381:
        if password is None and options.password_callback is not None:
            password = await options.password_callback(
                url.replace(user=user) if url.host else url
            )
        if password is None:
            raise LoginDenied(
                f"{session.what()} wants a password for user {user!r} for {url.masked()}",
                url=url,
                hint="Give one in the URL (lenient parsing), the password option or "
                "~/.netrc.",
            )
        key = (session.target.host, session.target.port)
        if not session.tls and key not in session.logins.warned_cleartext:
            session.logins.warned_cleartext.add(key)
            session.logins.warn(f"sending the NNTP password for {user!r} to "
                      f"{session.target.hostport} in clear text (no TLS)")
        reply = await session.command(Command.of("AUTHINFO", "PASS", password))
    if reply.code == 281:
        session.authenticated = True
        return
    raise LoginDenied(
        f"{session.what()} rejected the login of {user!r} for {url.masked()}: "
        f"{reply.line}",
        url=url,
        hint="Check the user name and password.",
    )


async def request(
    session: Session, options: FetchOptions, command: Command
) -> Response:
    """Send ``command``; on 480 log in and send it once more [RFC 4643 2.2]."""
    reply = await session.command(command)
    if reply.code == 480 and not session.authenticated:
        await authenticate(session, options, proactive=False)
        reply = await session.command(command)
    if reply.code == 480:
        raise LoginDenied(
            f"{session.what()} still requires authentication for {command.verb} of "
            f"{session.url.masked()}: {reply.line}",
            url=session.url,
        )
    return reply


def error(session: Session, reply: Response, what: str) -> AnyURLError:
    """The error a refusing ``reply`` to ``what`` means (the module docstring's table)."""
    url = session.url
    text = f"{session.what()} answered {what} for {url.masked()} with: {reply.line}"
    if reply.code in NOT_FOUND:
        return RemoteFileNotFound(text, url=url)
    if reply.code in (481, 482):
        return LoginDenied(text, url=url)
    if reply.code == 502:
        return RemoteAccessDenied(text, url=url)
    if reply.code == 400:
        return ServerError(text, status=400, url=url, hint="Try again later.")
    if reply.category in (4, 5):
        return ServerError(text, status=reply.code, url=url)
    return ProtocolError(text, url=url)


async def select_group(session: Session, options: FetchOptions) -> GroupInfo:
    """GROUP the target's group: its count and range, or the refusal as an error."""
    group = session.target.group
    assert group is not None
    reply = await request(session, options, Command.of("GROUP", group))
    if reply.code != 211:
        raise error(session, reply, f"GROUP {group}")
    try:
        return parse_group(reply)
    except RemoteProtocolError as exc:
        raise ProtocolError(f"{session.what()}: {exc} for {session.url.masked()}",
                            url=session.url) from exc
