"""One FTP control connection: the command/reply dialogue, the login, where it stands.

A :class:`Control` is a transport stream and the sans-I/O core
(:class:`~anyurl.protocols.ftp.FTPClient`) together, plus what the dialogue taught us
about the server and the connection's state: the login directory PWD reported, the CWD
steps walked from it, the TYPE set, and which optional commands (EPSV, EPRT, SIZE, MLSD)
the server has. Its bytes reach the core through a :class:`~.reader.ControlReader`
(on asyncio registered with the loop for the connection's life, not per reply).

Login (RFC 1738 3.2.1): the URL's user and password; without a user, ``~/.netrc`` (or
``Config.netrc_path``), else ``anonymous`` with ``Config.anonymous_email`` as password
(:func:`login_for`). A user without a password who is asked for one (331) gets it from
``FetchOptions.password_callback``; without a callback the login fails with
:class:`~anyurl.errors.LoginDenied` (exit 67) at once rather than hanging.

TLS (RFC 4217): ftps:// is TLS from the first byte (implicit, port 990); on ftp:// with
``FTPOptions(tls="try"|"require")`` (``--ssl``, ``--ssl-reqd``) ``AUTH TLS`` is the first
command after the greeting, before ``USER``: refused, "require" is
:class:`~anyurl.errors.TLSNotOffered` (64) before any login, "try" goes on in clear as
curl does. In TLS, ``PBSZ 0`` and ``PROT P`` follow the login, and each data connection
is a TLS client resuming the control connection's session (:meth:`Control.protect`): the
servers that require reuse (vsftpd's default) refuse any other.

Replies map to errors as curl does (:func:`refused`): 530 :class:`LoginDenied` (67); a
refused CWD :class:`RemoteAccessDenied` (9); 421 and 426 :class:`ConnectionLost` (56),
425 :class:`ConnectFailed` (7); otherwise the error the step names. Messages quote the
server's reply line and the masked URL.
"""

from __future__ import annotations

import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import anyio

from anyurl.config import Config
from anyurl.errors import (
    AnyURLError,
    ConnectFailed,
    ConnectionLost,
    LoginDenied,
    ProtocolError,
    RemoteAccessDenied,
    ServerError,
    TLSCertificateError,
    TLSHandshakeFailed,
    TLSNotOffered,
    URLError,
)
from anyurl.net.credentials import netrc_entry
from anyurl.net.tls import make_ssl_context
from anyurl.net.transport import Dialer, Stream
from anyurl.protocols.common import LocalProtocolError, RemoteProtocolError
from anyurl.protocols.ftp import (
    Command,
    ConnectionClosed,
    FTPClient,
    NeedData,
    Reply,
    State,
    parse_213_size,
    parse_257,
)
from anyurl.schemes.base import FetchOptions, Trace
from anyurl.schemes.ftp.options import FTPOptions
from anyurl.schemes.ftp.reader import RECEIVE_SIZE, ControlReader
from anyurl.url import URL

__all__ = [
    "CONTROL_RECEIVE_SIZE",
    "DATA_TLS_HINT",
    "DEFAULT_PORT",
    "GOODBYE_TIMEOUT",
    "Control",
    "Login",
    "PoolKey",
    "Stale",
    "connect",
    "ftp_options",
    "key_for",
    "login_for",
    "refused",
    "tls_mode",
    "weird",
]

DEFAULT_PORT = 21
#: Replies on the control connection are short; a small read is plenty.
CONTROL_RECEIVE_SIZE = RECEIVE_SIZE
#: How long QUIT and ABOR may take when we are closing anyway.
GOODBYE_TIMEOUT = 2.0

#: What to try when a data connection's TLS fails (RFC 4217 10), handshake or 522.
DATA_TLS_HINT = ("The server may want each data connection to resume the control "
                 "connection's TLS session, or not speak TLS on it; try again, or the "
                 "other mode (passive/active).")

#: The scheme whose connections are TLS from the first byte (RFC 4217's implicit FTPS).
IMPLICIT_SCHEME = "ftps"

#: Whose login on which server a control connection holds, and in what TLS: (host, port,
#: user, password, :func:`tls_mode`); a plain and a TLS connection never serve each other.
PoolKey = tuple[str, int, str | None, str | None, str]


def tls_mode(url: URL, options: FetchOptions) -> str:
    """"implicit" for ftps://, else ``FTPOptions.tls`` ("", "try", "require")."""
    return "implicit" if url.scheme == IMPLICIT_SCHEME else ftp_options(options).tls


def key_for(url: URL, tls: str = "") -> PoolKey:
    """The login ``url`` asks for: a connection of the same key can serve it."""
    port = url.effective_port or DEFAULT_PORT
    return (url.connect_host.lower(), port, url.user, url.password, tls)


@dataclass(frozen=True)
class Login:
    """Who to log in as, decided before connecting (:func:`login_for`)."""

    user: str
    password: str | None
    account: str | None
    anonymous: bool


def login_for(url: URL, config: Config, warn: Callable[[str], None]) -> Login:
    """Who to log in as: the URL, else netrc, else anonymous (RFC 1738 3.2.1)."""
    user, password, account = url.user, url.password, None
    if user == "":
        user = None  # ftp://@host/ and ftp://:pw@host/: no name, so anonymous (3.2.1)
        password = None
    if user is None or password is None:
        entry = netrc_entry(config, url.connect_host, warn, user=user)
        if entry is not None:
            user = entry.login
            password = (entry.password or "") if password is None else password
            account = entry.account
    if user is None:
        return Login("anonymous", config.anonymous_password(), None, True)
    return Login(user, password, account, False)


_DEFAULT_OPTIONS = FTPOptions()


def ftp_options(options: FetchOptions) -> FTPOptions:
    """``options.get(FTPOptions)``, without building the defaults afresh for each of a
    file's look-ups when no scheme options were given (they are frozen: one will do)."""
    return options.get(FTPOptions) if options.schemes else _DEFAULT_OPTIONS


class Stale(Exception):
    """A pooled connection cannot be brought back to its login directory: log in again."""


def weird(url: URL, exc: Exception) -> ProtocolError:
    """A reply the core could not read (a 227, 229 or 213 out of form), as an error."""
    return ProtocolError(f"ftp server of {url.masked()} sent {exc}", url=url)


def refused(
    reply: Reply,
    command: Command,
    url: URL,
    default: type[AnyURLError],
    hint: str | None = None,
) -> AnyURLError:
    """The error for ``command`` refused with ``reply``: by its code where curl has one
    (425, 421/426, 530), else ``default`` with ``hint``; its status is the reply's code
    (``-w '%{response_code}'`` is 550 for a refused RETR, as curl's)."""
    what = command.verb if command.argument is None else f"{command.verb} {command.argument!r}"
    message = f"ftp server refused {what} for {url.masked()}: {reply.line}"
    error: AnyURLError
    if reply.code == 425:
        error = ConnectFailed(
            message, url=url, hint="A firewall may block the data connection; try "
            "the other mode (passive/active).")
    elif reply.code in (421, 426):
        error = ConnectionLost(message, url=url, hint="Try again.")
    elif reply.code == 530:
        error = LoginDenied(message, url=url, hint="Check the user name and password.")
    else:
        error = default(message, url=url, hint=hint)
    error.status = reply.code  # curl's -w %{response_code}: the reply that failed it
    return error


class Control:
    """One control connection: a transport stream and the core, plus what we learnt."""

    def __init__(self, stream: Stream, key: PoolKey, url: URL):
        self.stream = stream
        self.key = key
        self.url = url
        self.core = FTPClient()
        #: Reads the stream into the core for the connection's life (:mod:`.reader`).
        self.reader = ControlReader(stream, self.core)
        self.trace: Trace | None = None
        self.home: str | None = None  # what PWD said after login
        #: The CWD segments this connection walked from the login directory (RFC 1738
        #: 3.2.5: remembered, never guessed); None when unknown (a Lynx-style CWD into a
        #: name). ``()`` is the login directory itself.
        self.cwd: tuple[str, ...] | None = ()
        #: The TYPE last set on this connection (None: not set yet).
        self.type: str | None = None
        self.epsv: bool | None = None  # None: not tried yet
        self.mlsd: bool | None = None  # None: not tried yet (FTPOptions.listing="mlsd")
        #: Whether ``LIST -a`` lists here (None: not tried yet); refused, plain ``LIST``.
        self.list_a: bool | None = None
        #: False once a ``LIST`` here was of a form not read (then NLST lists).
        self.list_form: bool | None = None
        self.eprt: bool | None = None
        self.size: bool | None = None
        self.idle_since = 0.0
        self.replies_this_use = 0
        #: The certificate checks of this connection's TLS (None: no TLS asked).
        self.tls_context: ssl.SSLContext | None = None
        #: Whether the control connection is in TLS, and the data connections too
        #: (``PROT P`` accepted: :meth:`protect`).
        self.tls = False
        self.private_data = False

    def note(self, text: str) -> None:
        """A line of our own in the trace (``* text``), when tracing."""
        if self.trace is not None:
            self.trace(f"* {text}")

    async def read_reply(self) -> Reply:
        """The next complete reply; EOF is :class:`ConnectionLost`.

        Replies already received (the loop reader of :mod:`.reader` feeds the core
        whenever bytes come) are handed out without waiting; with nothing buffered it
        reads (:meth:`.reader.ControlReader.fill`) before asking the core (one call of
        the parser per reply, not two: a reply usually comes in one read)."""
        core = self.core
        if not core.pending and core.state is not State.CLOSED:
            await self.reader.fill()
        while True:
            try:
                event = core.next_event()
            except RemoteProtocolError as exc:
                raise ProtocolError(
                    f"ftp server of {self.url.masked()} broke the protocol: {exc}", url=self.url
                ) from exc
            if isinstance(event, NeedData):
                await self.reader.fill()
                continue
            if isinstance(event, ConnectionClosed):
                raise ConnectionLost(
                    f"ftp server of {self.url.masked()} closed the control connection",
                    url=self.url,
                    hint="The server may limit connections or idle time; try again.",
                )
            if self.trace is not None:
                for line in event.lines:
                    self.trace(f"< {line}")
            self.replies_this_use += 1
            if event.code == 421:
                raise ConnectionLost(
                    f"ftp server of {self.url.masked()} is closing the connection: {event.line}",
                    url=self.url,
                    hint="The server is busy or shutting down; try again later.",
                )
            return event

    async def command(
        self, command: Command, *, meanwhile: Callable[[], Awaitable[None]] | None = None
    ) -> Reply:
        """Send ``command`` and return its first reply (a 1yz for a starting transfer);
        ``meanwhile`` runs after the send, before the reply is awaited (a passive data
        connection's handshake, :meth:`.data.DataChannel.ready`)."""
        try:
            data = self.core.send(command)
        except LocalProtocolError as exc:
            raise URLError(f"cannot send {command.verb} for {self.url.masked()}: {exc}") from exc
        if self.trace is not None:
            self.trace(f"> {command.display()}")
        await self.stream.send(data)
        if meanwhile is not None:
            await meanwhile()
        return await self.read_reply()

    async def goodbye(self, *, abort: bool = False) -> None:
        """ABOR (when a transfer is cut) and QUIT, best effort, then close the stream."""
        self.reader.leave_step()  # bounded here, never by the file's read timeout
        with anyio.CancelScope(shield=True), anyio.move_on_after(GOODBYE_TIMEOUT):
            try:
                if abort and self.core.state is not State.CLOSED:
                    data = self.core.send_abort() + Command("QUIT").wire()
                    if self.trace is not None:
                        self.trace("> ABOR")
                        self.trace("> QUIT")
                    await self.stream.send(data)
                elif self.core.state is State.IDLE:
                    await self.command(Command("QUIT"))
            except AnyURLError:
                pass
        self.reader.close()
        with anyio.CancelScope(shield=True):
            await self.stream.aclose()

    # -- logging in ------------------------------------------------------------------------

    async def log_in(
        self, login: Login, options: FetchOptions, prompted: dict[PoolKey, str]
    ) -> None:
        """Greeting, USER/PASS/ACCT as the server asks, then PWD: the login directory
        this connection comes back to before serving another URL (3.2.5).

        ``prompted`` holds the passwords asked for per key, so that the next login of
        the same key does not ask again."""
        url = self.url
        while True:
            greeting = await self.read_reply()
            if greeting.category != 1:  # 120 "ready in n minutes": keep waiting
                break
        if greeting.category != 2:
            raise ServerError(
                f"ftp server of {url.masked()} refused the connection: {greeting.line}",
                status=greeting.code,
                url=url,
            )
        if self.key[4] in ("try", "require") and not self.tls:
            await self.start_tls()
        reply = await self.command(Command("USER", login.user))
        if reply.category == 3 and reply.code != 332:
            password = login.password
            if password is None:
                password = await _ask_password(url, reply, options, prompted)
            reply = await self.command(Command("PASS", password))
        if reply.code == 332:
            account = login.account or ftp_options(options).account
            if not isinstance(account, str):
                raise LoginDenied(
                    f"ftp server of {url.masked()} asks for an account for user "
                    f"{login.user!r}: {reply.line}",
                    url=url,
                    hint="Give one in ~/.netrc ('account NAME').",
                )
            reply = await self.command(Command("ACCT", account))
        if reply.category != 2:
            denied = LoginDenied(
                f"ftp server of {url.masked()} refused the login of user {login.user!r}: "
                f"{reply.line}",
                url=url,
                hint="Check the user name and password (in the URL or ~/.netrc).",
            )
            denied.status = reply.code  # -w %{response_code}: 530, as curl's
            raise denied
        if self.tls:
            await self.private()
        pwd = await self.command(Command("PWD"))
        self.home = parse_257(pwd) if pwd.code == 257 else None
        if self.home is None:
            self.note("the login directory is unknown: this connection will not be reused")
        self.cwd = ()
        self.type = None

    # -- TLS (RFC 4217) ---------------------------------------------------------------------

    async def start_tls(self) -> None:
        """``AUTH TLS`` and the handshake, before any login; a refusal is
        :class:`TLSNotOffered` (64) when TLS is required, else a note (and the login
        goes on in clear, as curl's ``--ssl``)."""
        command = Command("AUTH", "TLS")
        reply = await self.command(command)
        if reply.code not in (234, 334):  # 334: RFC 2228's older "ADAT" form
            if self.key[4] == "require":
                raise TLSNotOffered(
                    f"ftp server of {self.url.masked()} refused AUTH TLS: {reply.line}",
                    url=self.url, hint="The server may serve ftps:// (port 990); or "
                    "drop --ssl-reqd to log in without TLS.")
            self.note("the server refused AUTH TLS; going on without TLS")
            return
        assert self.tls_context is not None
        self.reader.close()  # the handshake's bytes are the TLS layer's, not replies
        await self.stream.start_tls(self.url.connect_host, self.tls_context)
        self.reader = ControlReader(self.stream, self.core)  # now through TLS
        self.tls = True
        self.note("TLS started (AUTH TLS)")

    async def private(self) -> None:
        """``PBSZ 0`` and ``PROT P`` (RFC 4217 9): data connections in TLS too. Refused,
        with TLS required that is :class:`TLSNotOffered`; else the data go in clear."""
        for command in (Command("PBSZ", "0"), Command("PROT", "P")):
            reply = await self.command(command)
            if reply.category != 2:
                if self.key[4] in ("require", "implicit"):
                    raise refused(reply, command, self.url, TLSNotOffered,
                                  hint="The server will not protect the data connections.")
                self.note("the data connections stay in clear")
                return
        self.private_data = True

    async def protect(self, data: Stream) -> None:
        """The TLS handshake of a data connection (we are its TLS client whichever side
        connected, RFC 4217 10.2), resuming the control connection's session: vsftpd
        (``require_ssl_reuse``) refuses a data connection that does not, as proof that
        whoever connected is the client that logged in. Under TLS 1.3 the session comes
        after the handshake; the login's replies read over TLS have brought it.

        A failed handshake is :class:`TLSHandshakeFailed` (35) that says it was the
        data connection's (a certificate not accepted stays
        :class:`TLSCertificateError`, 60)."""
        try:
            await data.start_tls(self.url.connect_host, self.tls_context,
                                 self.stream.tls_session)
        except TLSCertificateError:
            raise
        except TLSHandshakeFailed as exc:
            cause = exc.__cause__
            closed = cause is None or isinstance(cause, anyio.EndOfStream
                                                 | anyio.BrokenResourceError)
            raise TLSHandshakeFailed(
                f"the TLS handshake of the data connection for {self.url.masked()} failed: "
                f"{'the server closed it' if closed else cause}", url=self.url,
                hint=DATA_TLS_HINT) from exc

    # -- where it stands -------------------------------------------------------------------

    async def position(self, cwd: tuple[str, ...], reused: bool) -> int:
        """Ready to walk ``cwd`` from the login directory; how many of its CWD steps are
        walked already (and are not to be sent again).

        Reuse that knows where it is: when the connection already walked a prefix of
        ``cwd`` from the login directory, only the rest is walked; otherwise a reused
        connection goes back to the login directory first (3.2.5), in the same CWD as
        the walk down when it can (:meth:`_walk_at_once`), and :class:`Stale` says it
        cannot."""
        walked = self.cwd
        if walked is not None and cwd[: len(walked)] == walked:
            skip = len(walked)
        else:
            skip = 0
            if reused:
                assert self.home is not None
                if await self._walk_at_once(cwd):
                    return len(cwd)
                back = Command("CWD", self.home)
                reply = await self.command(back)
                if reply.category != 2:
                    # We cannot get back reliably: log in afresh instead.
                    raise Stale(reply.line)
            self.cwd = ()
        if skip:
            self.note(f"already in {'/'.join(walked or ())!r} from the login directory: "
                      f"{skip} CWD not sent again")
        return skip

    async def _walk_at_once(self, cwd: tuple[str, ...]) -> bool:
        """Go back to the login directory and down ``cwd`` with one ``CWD``: the path
        PWD reported (a Unix path: it starts with ``/``) joined with the segments by
        ``/``, where a reused connection would send ``CWD <home>`` and one CWD per
        segment (a mirror moving from directory to directory sent three CWDs where one
        does: ``CWD /doc/pkg``). Only segments that are plain names (not empty, no
        ``/``, not ``.`` or ``..``) are joined; whether it worked (a refusal changes
        nothing on the server: the caller then walks one segment at a time, as a fresh
        login does, so a missing directory is reported by the segment that is)."""
        home = self.home
        if not cwd or home is None or not home.startswith("/") or any(
                not segment or "/" in segment or segment in (".", "..") for segment in cwd):
            return False
        reply = await self.command(Command("CWD", home.rstrip("/") + "/" + "/".join(cwd)))
        if reply.category != 2:
            return False
        self.cwd = cwd
        return True

    async def change_directory(self, command: Command) -> None:
        """One CWD step of the URL, remembered; a refusal is :class:`RemoteAccessDenied`."""
        reply = await self.command(command)
        if reply.category == 2 and self.cwd is not None:
            self.cwd = (*self.cwd, command.argument or "")
        if reply.category != 2:
            raise refused(
                reply, command, self.url, RemoteAccessDenied,
                hint="Each path segment is one CWD from the login directory; "
                "start the path with %2F for an absolute directory.",
            )

    async def set_type(self, command: Command) -> None:
        """TYPE, unless the connection is in that type already."""
        if self.type == command.argument:
            return  # already in that type on this connection
        reply = await self.command(command)
        if reply.category != 2:
            raise refused(reply, command, self.url, ServerError)
        self.type = command.argument

    async def ask_size(self, command: Command) -> int | None:
        """SIZE: the file's size, or None when the server cannot say (not asked again
        on this connection when it has no SIZE)."""
        size: int | None = None
        reply = await self.command(command)
        if reply.code == 213:
            try:
                size = parse_213_size(reply)
            except RemoteProtocolError as exc:
                raise weird(self.url, exc) from exc
            self.size = True
        elif reply.code in (500, 502):
            self.size = False  # not implemented: do not ask this server again
        # A 550 to SIZE proves nothing (RFC 3659 4.2): RETR will tell.
        return size


async def connect(dialer: Dialer, config: Config, url: URL, options: FetchOptions) -> Control:
    """A new control connection to ``url``'s server, not yet logged in: in TLS at once
    for ftps://, with the certificate checks of https for any TLS asked."""
    mode = tls_mode(url, options)
    context = None
    if mode:
        given = ftp_options(options)
        context = make_ssl_context(given.verify, given.cafile, given.capath)
    stream = await dialer.connect_tcp(
        url.connect_host,
        url.effective_port or DEFAULT_PORT,
        url=url,
        connect_timeout=config.connect_timeout,
        read_timeout=config.read_timeout,
        tls=mode == "implicit", server_hostname=url.connect_host, ssl_context=context,
        what="the ftp control connection",
    )
    control = Control(stream, key_for(url, mode), url)
    control.trace = options.trace
    control.tls_context = context
    control.tls = mode == "implicit"
    return control


async def _ask_password(
    url: URL, reply: Reply, options: FetchOptions, prompted: dict[PoolKey, str]
) -> str:
    key = key_for(url)  # whatever the TLS: the same login's password
    known = prompted.get(key)
    if known is not None:
        return known
    callback = options.password_callback
    password = None
    if callback is not None:
        password = await callback(url)
    if password is None:
        raise LoginDenied(
            f"ftp server of {url.masked()} asks for the password of user {url.user!r} "
            f"({reply.line}) and none was given",
            url=url,
            hint="Put it in the URL (ftp://user:password@host/) or ~/.netrc, or run "
            "anyurl on a terminal to be asked for it.",
        )
    if "\r" in password or "\n" in password:
        raise LoginDenied(
            f"the password given for {url.masked()} has a line end, which cannot be sent",
            url=url,
        )
    prompted[key] = password
    return password
