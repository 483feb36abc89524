"""The ftp scheme (RFC 1738 section 3.2): run the URL's FTP program over anyio streams.

The dialogue itself lives in the sans-I/O core :mod:`anyurl.protocols.ftp`; this module
connects, feeds it bytes, opens data connections and maps replies to
:mod:`anyurl.errors`. For ``ftp://user@host/a/b/name;type=i`` it sends, in order::

    USER user / PASS ... / ACCT ...     as the server asks (331, 332); anonymous without a user
    PWD                                 remember the login directory, for connection reuse
    CWD a / CWD b                       one per <cwd> segment, decoded, even an empty one
    TYPE I / SIZE name                  SIZE only in image type: it checks completeness
    EPSV (PASV on 5xx) or EPRT/PORT     a fresh data connection per transfer
    REST n                              only when resuming an image transfer
    RETR name                           or NLST [name] for a listing (MLSD [name] with
                                        FTPOptions(listing="mlsd"))

Login (3.2.1): the URL's user and password; without a user, ``~/.netrc`` (or
``Config.netrc_path``), else ``anonymous`` with ``Config.anonymous_email`` as password.
A user without a password who is asked for one (331) gets it from
``FetchOptions.password_callback``; without a callback the login fails with
:class:`~anyurl.errors.LoginDenied` (exit 67) at once rather than hanging.

Passive mode connects to the *control connection's peer* whatever address a 227 reply
names (as curl and ftplib do): that defeats FTP bounce and broken NAT answers alike.

Replies map to errors as curl does: 530 :class:`LoginDenied` (67); a refused CWD
:class:`RemoteAccessDenied` (9); a refused RETR :class:`RemoteFileNotFound` (78); 421
and 426 :class:`ConnectionLost` (56), 425 :class:`ConnectFailed` (7); a transfer whose
final reply is not 2yz, or that delivers fewer bytes than SIZE announced,
:class:`PartialTransfer` (18). Messages quote the server's reply line and the masked URL.

Connection reuse (3.2.5): a control connection whose transfer completed cleanly is kept
per (host, port, user, password) for ``Config.idle_timeout`` seconds. Before it serves
the next URL it is returned to the login directory with ``CWD <dir PWD reported after
login>`` (skipped when the previous URL made no CWD); a connection whose PWD reply could
not be parsed is never reused, and one that turns out dead (EOF, 421, a refused CWD) is
replaced by a fresh login transparently. Expired connections are closed when the pool is
next touched or when the resolver closes.
"""

from __future__ import annotations

import mimetypes
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass

import anyio

from anyurl.bulk import RawBody
from anyurl.config import Config
from anyurl.credentials import netrc_entry
from anyurl.errors import (
    AnyURLError,
    ConnectFailed,
    ConnectionLost,
    LoginDenied,
    PartialTransfer,
    PolicyRefused,
    ProtocolError,
    RemoteAccessDenied,
    RemoteFileNotFound,
    ResumeFailed,
    ServerError,
    URLError,
)
from anyurl.links import FILE, PAGE, Link, checked
from anyurl.options import FTPOptions
from anyurl.ports import BAD_PORTS
from anyurl.protocols.common import LocalProtocolError, RemoteProtocolError
from anyurl.protocols.ftp import (
    LISTING_VERBS,
    ASCIIDecoder,
    Command,
    ConnectionClosed,
    FTPClient,
    ListEntry,
    NeedData,
    Reply,
    Retrieval,
    State,
    fact_size,
    fact_time,
    format_eprt,
    format_port,
    parse_213_size,
    parse_227,
    parse_229,
    parse_257,
    parse_list,
    parse_mlsd,
    parse_nlst,
    retrieval_commands,
    retrieval_for,
)
from anyurl.resource import Resource, ResourceInfo, iterate_bytes
from anyurl.schemes.base import FetchOptions, Gate, SchemeHandler, Trace
from anyurl.transport import (
    DEFAULT_RECEIVE_SIZE,
    DIRECT,
    Dialer,
    Listener,
    Stream,
    open_listener,
)
from anyurl.url import URL, FTPPath, quote
from anyurl.url.charset import UCHAR_PLAIN, display

__all__ = ["FTPHandler"]

DEFAULT_PORT = 21
#: Replies on the control connection are short; a small read is plenty.
CONTROL_RECEIVE_SIZE = 65536
#: How long QUIT and ABOR may take when we are closing anyway.
GOODBYE_TIMEOUT = 2.0

PoolKey = tuple[str, int, str | None, str | None]

#: What an fsegment of RFC 1738 3.2.2 may hold unescaped; ``;``, ``/`` and ``?`` are
#: always escaped in a name (``;type=`` and a CWD step must not appear from one).
_FSEGMENT = UCHAR_PLAIN | frozenset(":@&=")


@dataclass(frozen=True)
class _Login:
    user: str
    password: str | None
    account: str | None
    anonymous: bool


class _Stale(Exception):
    """A pooled connection cannot be brought back to its login directory: log in again."""


class _Control:
    """One control connection: a transport stream and the core, plus what we learnt."""

    def __init__(self, stream: Stream, key: PoolKey, url: URL):
        self.stream = stream
        self.key = key
        self.url = url
        self.core = FTPClient()
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
        self.eprt: bool | None = None
        self.size: bool | None = None
        self.idle_since = 0.0
        self.replies_this_use = 0

    def note(self, text: str) -> None:
        if self.trace is not None:
            self.trace(f"* {text}")

    async def read_reply(self) -> Reply:
        """The next complete reply; EOF is :class:`ConnectionLost`."""
        while True:
            try:
                event = self.core.next_event()
            except RemoteProtocolError as exc:
                raise ProtocolError(
                    f"ftp server of {self.url.masked()} broke the protocol: {exc}", url=self.url
                ) from exc
            if isinstance(event, NeedData):
                self.core.receive_data(await self.stream.receive(CONTROL_RECEIVE_SIZE))
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

    async def command(self, command: Command) -> Reply:
        """Send ``command`` and return its first reply (a 1yz for a starting transfer)."""
        try:
            data = self.core.send(command)
        except LocalProtocolError as exc:
            raise URLError(f"cannot send {command.verb} for {self.url.masked()}: {exc}") from exc
        if self.trace is not None:
            self.trace(f"> {command.display()}")
        await self.stream.send(data)
        return await self.read_reply()

    async def goodbye(self, *, abort: bool = False) -> None:
        """ABOR (when a transfer is cut) and QUIT, best effort, then close the stream."""
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
        with anyio.CancelScope(shield=True):
            await self.stream.aclose()


class _DataChannel:
    """A data connection: connected already (passive) or still to be accepted (active)."""

    def __init__(self, stream: Stream | None, listener: Listener | None, stack: AsyncExitStack):
        self._stream = stream
        self._listener = listener
        self._stack = stack

    async def connected(self, timeout: float | None) -> Stream:
        if self._stream is None:
            assert self._listener is not None
            self._stream = await self._listener.accept(timeout)
            await self._stack.aclose()  # the listener: one connection is all we take
            self._listener = None
        return self._stream

    async def aclose(self) -> None:
        with anyio.CancelScope(shield=True):
            if self._stream is not None:
                await self._stream.aclose()
            await self._stack.aclose()


class _Transfer:
    """Streams one data connection into a Resource and settles the control connection."""

    def __init__(
        self,
        handler: FTPHandler,
        control: _Control,
        data: Stream,
        decoder: ASCIIDecoder | None,
        url: URL,
        final: Reply | None = None,
    ):
        self.handler = handler
        #: The transfer's final reply when it came before the data (a 2yz to RETR).
        self.final = final
        self.control = control
        self.data = data
        self.decoder = decoder
        self.url = url
        self.received = 0
        self.completed = False

    async def chunks(self) -> AsyncIterator[bytes]:
        receive = self.data.receive
        decoder = self.decoder
        size = DEFAULT_RECEIVE_SIZE
        if decoder is None:
            # Image type: hand the kernel's buffers on untouched, no per-byte work.
            while chunk := await receive(size):
                self.received += len(chunk)
                yield chunk
        else:
            while chunk := await receive(size):
                self.received += len(chunk)
                text = decoder.feed(chunk)
                if text:
                    yield text
            tail = decoder.flush()
            if tail:
                yield tail
        await self.settle(self.received)

    async def settle(self, received: int) -> None:
        """After the data connection's end: close it, and read the transfer's final
        reply (a 2yz, or the data was not all of it)."""
        self.received = received
        await self.data.aclose()
        reply = self.final or await self.control.read_reply()
        if reply.category != 2:
            raise PartialTransfer(
                f"ftp server ended the transfer of {self.url.masked()} after {self.received} "
                f"bytes with: {reply.line}",
                received=self.received,
                url=self.url,
                hint="Try again with resume (resume=True) to continue where it stopped.",
            )
        self.completed = True

    async def close(self) -> None:
        with anyio.CancelScope(shield=True):
            await self.data.aclose()
            if self.completed:
                await self.handler._release(self.control)
            else:
                await self.control.goodbye(abort=True)


async def _limited(chunks: AsyncIterator[bytes], count: int | None) -> AsyncIterator[bytes]:
    """``chunks`` cut after ``count`` bytes (all of them for None); the rest is closed."""
    if count is None:
        async for chunk in chunks:
            yield chunk
        return
    left = count
    try:
        while left > 0:
            try:
                chunk = await chunks.__anext__()
            except StopAsyncIteration:
                return
            if len(chunk) >= left:
                yield chunk[:left]
                return
            left -= len(chunk)
            yield chunk
    finally:
        aclose = getattr(chunks, "aclose", None)
        if aclose is not None:
            await aclose()


def _empty() -> AsyncIterator[bytes]:
    async def gen() -> AsyncIterator[bytes]:
        return
        yield b""  # pragma: no cover

    return gen()


class FTPHandler(SchemeHandler):
    """``ftp:`` URLs: RFC 1738 3.2 exactly, with a pool of logged-in control connections."""

    schemes = ("ftp",)
    options_type = FTPOptions
    #: FTP cannot pipeline, but a host's files handed over as a batch (the default
    #: :meth:`open_batch`: one after another on a logged-in, positioned control
    #: connection) skip the downloader's task, gate and options per file: 2,000 files
    #: of 1 KiB took about 30 % less CPU than one job at a time (``bench/README.md``).
    batches = True

    def __init__(
        self,
        config: Config,
        *,
        warn: Callable[[str], None] | None = None,
        gate: Gate | None = None,
        dialer: Dialer = DIRECT,
    ) -> None:
        super().__init__(config, warn=warn, gate=gate, dialer=dialer)
        self._idle: dict[PoolKey, list[_Control]] = {}
        self._prompted: dict[PoolKey, str] = {}
        #: Counters for tests and the benchmark: logins made and connections reused.
        self.stats = {"connections": 0, "reused": 0}

    def _listing_verbs(self, options: FetchOptions,
                       control: _Control | None = None) -> tuple[str, ...]:
        """The listing commands to try in order (``FTPOptions.listing``); MLSD is left
        out on a connection whose server already said it has none."""
        verbs = LISTING_VERBS[options.get(FTPOptions).listing]
        if control is not None and control.mlsd is False:
            verbs = tuple(v for v in verbs if v != "MLSD")
        return verbs

    def _passive(self, options: FetchOptions) -> bool:
        chosen = options.get(FTPOptions).passive
        return self.config.ftp_passive if chosen is None else chosen

    # -- what the URL asks for ---------------------------------------------------------

    def _retrieval(self, url: URL, options: FetchOptions) -> Retrieval:
        parts = url.parts
        if not isinstance(parts, FTPPath):
            raise URLError(f"{url.masked()} is not an ftp URL", url=url)
        for value in (url.user, url.password):
            if value is not None and ("\r" in value or "\n" in value):
                raise URLError(
                    f"{url.masked()} has a CR or LF in its user or password, which would end "
                    "the USER or PASS command early",
                    url=url,
                )
        try:
            return retrieval_for(parts, options.get(FTPOptions).ascii)
        except LocalProtocolError as exc:
            raise URLError(f"{url.masked()}: {exc}", url=url) from exc

    def _key(self, url: URL) -> PoolKey:
        port = url.effective_port or DEFAULT_PORT
        return (url.connect_host.lower(), port, url.user, url.password)

    def _login(self, url: URL) -> _Login:
        """Who to log in as: the URL, else netrc, else anonymous (RFC 1738 3.2.1)."""
        user, password, account = url.user, url.password, None
        if user == "":
            user = None  # ftp://@host/ and ftp://:pw@host/: no name, so anonymous (3.2.1)
            password = None
        if user is None or password is None:
            entry = netrc_entry(self.config, url.connect_host, self.warn, user=user)
            if entry is not None:
                user = entry.login
                password = (entry.password or "") if password is None else password
                account = entry.account
        if user is None:
            return _Login("anonymous", self.config.anonymous_password(), None, True)
        return _Login(user, password, account, False)

    def plan(self, url: URL, options: FetchOptions) -> list[str]:
        retrieval = self._retrieval(url, options)
        login = self._login(url)
        passive = self._passive(options)
        offset = options.offset if retrieval.mode == "I" else 0
        data_command = Command("EPSV") if passive else Command("EPRT", "|1|<address>|<port>|")
        commands = [Command("USER", login.user), Command("PASS", "")]
        if login.account is not None:
            commands.append(Command("ACCT", login.account))
        commands.append(Command("PWD"))
        commands += retrieval_commands(retrieval, offset=offset, data_command=data_command,
                                       listing=self._listing_verbs(options)[0])
        commands.append(Command("QUIT"))
        # PASS is listed although a server may not ask for it (230 right after USER).
        return [command.display() for command in commands]

    # -- links ---------------------------------------------------------------------------

    def links(self, info: ResourceInfo, body: bytes) -> list[Link]:
        """The entries of a directory listing, as ftp: URLs of that directory.

        Each entry's URL is the listed directory's URL path with the entry's name as one
        more segment, %-escaped as RFC 1738 3.2.2 asks (``/`` and ``;`` in a name are
        data, never separators): the same login, the same CWD steps. An ``MLSD`` listing
        (``FTPOptions(listing="mlsd")``) says what is a directory: those get a ``/`` at
        the end (a listing again) and the kind ``"page"``, files ``"file"`` with the
        ``size`` and ``modify`` facts (a refreshed mirror compares them), and its
        ``cdir``/``pdir`` lines are not entries. An ``NLST`` listing says nothing of the
        kind, so every name is a ``"file"`` (fetching a directory's name still lists
        it: a RETR refused for a name without a typecode is retried as a directory). A
        ``LIST`` listing (a server without NLST) is read where it has the Unix form.
        """
        parts = info.url.parts
        if info.kind != "directory" or not isinstance(parts, FTPPath):
            return []
        command = info.extra.get("command")
        entries: list[ListEntry]
        if command == "MLSD":
            entries = parse_mlsd(body)
        elif command == "LIST":
            entries = parse_list(body)
        else:
            entries = parse_nlst(body)
        directory = (*parts.cwd, parts.name) if parts.name else parts.cwd
        prefix = "".join(quote(segment, _FSEGMENT) + "/" for segment in directory)
        base = info.url.without_fragment()
        links = []
        for entry in entries:
            path = prefix + quote(entry.name, _FSEGMENT)
            if entry.is_directory:
                links.append(Link(str(base.replace(path=path + "/")), PAGE, display(entry.name)))
            else:
                links.append(Link(str(base.replace(path=path)), FILE, display(entry.name),
                                  size=fact_size(entry), modified=fact_time(entry)))
        return checked(links)

    # -- the pool --------------------------------------------------------------------------

    async def _acquire(
        self, url: URL, login: _Login, options: FetchOptions, *, fresh: bool = False
    ) -> tuple[_Control, bool]:
        key = self._key(url)
        if fresh:
            return await self._connect(url, login, options), False
        idle = self._idle.get(key, [])
        now = time.monotonic()
        chosen: _Control | None = None
        for control in list(idle):
            if chosen is None and now - control.idle_since <= self.config.idle_timeout:
                chosen = control
                idle.remove(control)
        for control in list(idle):  # whatever is left has expired
            if now - control.idle_since > self.config.idle_timeout:
                idle.remove(control)
                await control.goodbye()
        if chosen is not None:
            chosen.trace = options.trace
            chosen.url = url
            chosen.replies_this_use = 0
            chosen.note(
                f"reusing the control connection to {key[0]}:{key[1]} "
                f"(idle {now - chosen.idle_since:.1f} s)"
            )
            self.stats["reused"] += 1
            return chosen, True
        return await self._connect(url, login, options), False

    async def _release(self, control: _Control) -> None:
        reusable = (
            control.home is not None
            and control.core.state is State.IDLE
            and self.config.idle_timeout > 0
        )
        if not reusable:
            await control.goodbye()
            return
        control.idle_since = time.monotonic()
        control.trace = None
        self._idle.setdefault(control.key, []).append(control)

    async def aclose(self) -> None:
        idle, self._idle = self._idle, {}
        for controls in idle.values():
            for control in controls:
                await control.goodbye()

    # -- connecting and logging in ---------------------------------------------------------

    async def _connect(self, url: URL, login: _Login, options: FetchOptions) -> _Control:
        host = url.connect_host
        port = url.effective_port or DEFAULT_PORT
        stream = await self.dialer.connect_tcp(
            host,
            port,
            url=url,
            connect_timeout=self.config.connect_timeout,
            read_timeout=self.config.read_timeout,
            what="the ftp control connection",
        )
        control = _Control(stream, self._key(url), url)
        control.trace = options.trace
        self.stats["connections"] += 1
        try:
            await self._greet_and_login(control, url, login, options)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await control.goodbye()
            raise
        return control

    async def _greet_and_login(
        self, control: _Control, url: URL, login: _Login, options: FetchOptions
    ) -> None:
        while True:
            greeting = await control.read_reply()
            if greeting.category != 1:  # 120 "ready in n minutes": keep waiting
                break
        if greeting.category != 2:
            raise ServerError(
                f"ftp server of {url.masked()} refused the connection: {greeting.line}",
                status=greeting.code,
                url=url,
            )
        reply = await control.command(Command("USER", login.user))
        if reply.category == 3 and reply.code != 332:
            password = login.password
            if password is None:
                password = await self._ask_password(url, reply, options)
            reply = await control.command(Command("PASS", password))
        if reply.code == 332:
            account = login.account or options.get(FTPOptions).account
            if not isinstance(account, str):
                raise LoginDenied(
                    f"ftp server of {url.masked()} asks for an account for user "
                    f"{login.user!r}: {reply.line}",
                    url=url,
                    hint="Give one in ~/.netrc ('account NAME').",
                )
            reply = await control.command(Command("ACCT", account))
        if reply.category != 2:
            raise LoginDenied(
                f"ftp server of {url.masked()} refused the login of user {login.user!r}: "
                f"{reply.line}",
                url=url,
                hint="Check the user name and password (in the URL or ~/.netrc).",
            )
        pwd = await control.command(Command("PWD"))
        control.home = parse_257(pwd) if pwd.code == 257 else None
        if control.home is None:
            control.note("the login directory is unknown: this connection will not be reused")
        control.cwd = ()
        control.type = None

    async def _ask_password(self, url: URL, reply: Reply, options: FetchOptions) -> str:
        key = self._key(url)
        known = self._prompted.get(key)
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
        self._prompted[key] = password
        return password

    # -- one URL ---------------------------------------------------------------------------

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        retrieval = self._retrieval(url, options)
        login = self._login(url)
        offset = options.offset
        brange = options.byte_range
        if brange is not None and retrieval.mode != "I":
            self.warn(f"not fetching a range of {url.masked()}: byte offsets only hold in "
                      "image type (RFC 3659 5.1); fetching it whole")
            brange = None
        if brange is not None:
            offset += brange[0]  # REST to the range's first byte (and what a retry has)
        if offset and retrieval.mode != "I":
            self.warn(
                f"not resuming {url.masked()}: byte offsets only hold in image type "
                "(RFC 3659 5.1); fetching it whole"
            )
            offset = 0
        resource = await self._open_at(url, retrieval, login, offset, options)
        if brange is None or resource.info.kind != "file":
            return resource
        return await self._ranged(resource, url, offset, brange, options)

    async def _ranged(self, resource: Resource, url: URL, offset: int,
                      brange: tuple[int, int | None], options: FetchOptions) -> Resource:
        """``-r``: REST to the first byte, and the transfer cut after the last."""
        info = resource.info
        if info.offset != offset:  # the server refused REST: the data starts at byte 0
            await resource.aclose()
            raise ResumeFailed(
                f"the ftp server of {url.masked()} refused REST {offset}: it cannot send "
                "a range", url=url, hint="Fetch the whole file without -r.")
        last = brange[1]
        count = None if last is None else last - offset + 1
        if count is not None and info.size is not None:
            count = min(count, info.size)
        size = count if count is not None else info.size
        ranged = ResourceInfo(
            url=info.url, size=size,
            total_size=None if size is None else options.offset + size,
            offset=options.offset, content_type=info.content_type,
            filename=info.filename, kind=info.kind, extra=dict(info.extra))
        chunks = resource.__aiter__()
        return Resource(ranged, _limited(chunks, count), on_close=resource.aclose)

    async def _open_at(self, url: URL, retrieval: Retrieval, login: _Login,
                       offset: int, options: FetchOptions) -> Resource:
        for attempt in (1, 2):
            control, reused = await self._acquire(url, login, options, fresh=attempt == 2)
            try:
                return await self._retrieve(control, url, retrieval, offset, options, reused)
            except _Stale as exc:
                with anyio.CancelScope(shield=True):
                    await control.goodbye()
                control.note(f"cannot return to the login directory ({exc}); logging in again")
            except ConnectionLost:
                # A pooled connection may have died while idle: its first reply tells.
                # Then replay the URL on a fresh login, once.
                stale = reused and control.replies_this_use == 0 and attempt == 1
                with anyio.CancelScope(shield=True):
                    await control.goodbye()
                if not stale:
                    raise
                control.note("the pooled connection was dead; logging in again")
            except (RemoteAccessDenied, RemoteFileNotFound, ResumeFailed):
                # The server said no, and the dialogue is intact: keep the login.
                with anyio.CancelScope(shield=True):
                    await self._release(control)
                raise
            except BaseException:
                with anyio.CancelScope(shield=True):
                    await control.goodbye(abort=control.core.state is not State.IDLE)
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    async def _head(self, control: _Control, url: URL, retrieval: Retrieval,
                    size: int | None) -> Resource:
        """``-I``: SIZE (already asked) and MDTM, as curl prints them for ftp."""
        modified: str | None = None
        command = Command("MDTM", retrieval.name)
        reply = await control.command(command)
        stamp = reply.line[4:].strip() if reply.code == 213 else ""
        try:
            when = time.strptime(stamp[:14], "%Y%m%d%H%M%S")
            modified = time.strftime("%a, %d %b %Y %H:%M:%S GMT", when)
        except ValueError:
            pass  # no MDTM (502), or an answer that is not a time: not printed
        await self._release(control)
        lines = []
        if modified is not None:
            lines.append(f"Last-Modified: {modified}\r\n")
        if size is not None:
            lines.append(f"Content-Length: {size}\r\n")
        lines.append("Accept-ranges: bytes\r\n")
        data = "".join(lines).encode("ascii")
        info = ResourceInfo(url=url, size=len(data), kind="headers", content_type="text/plain",
                            filename=retrieval.name or None,
                            extra={"remote_size": size, "modified": modified})
        return Resource(info, iterate_bytes(data))

    def _refused(
        self,
        reply: Reply,
        command: Command,
        url: URL,
        default: type[AnyURLError],
        hint: str | None = None,
    ) -> AnyURLError:
        what = command.verb if command.argument is None else f"{command.verb} {command.argument!r}"
        message = f"ftp server refused {what} for {url.masked()}: {reply.line}"
        if reply.code == 425:
            return ConnectFailed(
                message, url=url, hint="A firewall may block the data connection; try "
                "the other mode (passive/active).")
        if reply.code in (421, 426):
            return ConnectionLost(message, url=url, hint="Try again.")
        if reply.code == 530:
            return LoginDenied(message, url=url, hint="Check the user name and password.")
        if default is ServerError:
            return ServerError(message, status=reply.code, url=url, hint=hint)
        return default(message, url=url, hint=hint)

    async def _retrieve(
        self,
        control: _Control,
        url: URL,
        retrieval: Retrieval,
        offset: int,
        options: FetchOptions,
        reused: bool,
    ) -> Resource:
        # Reuse that knows where it is: when the connection already walked a prefix of
        # this URL's CWD segments from the login directory, only the rest is walked;
        # otherwise it goes back to the login directory first (3.2.5).
        walked = control.cwd
        if walked is not None and retrieval.cwd[: len(walked)] == walked:
            skip = len(walked)
        else:
            skip = 0
            if reused:
                assert control.home is not None
                back = Command("CWD", control.home)
                reply = await control.command(back)
                if reply.category != 2:
                    # We cannot get back reliably: log in afresh instead.
                    raise _Stale(reply.line)
            control.cwd = ()
        if skip:
            control.note(f"already in {'/'.join(walked or ())!r} from the login directory: "
                         f"{skip} CWD not sent again")
        # The core's command list is the dialogue (and --plan's): walk it in order.
        data_marker = Command("EPSV")
        commands = retrieval_commands(retrieval, offset=offset, data_command=data_marker,
                                      ask_size=control.size is not False,
                                      listing=self._listing_verbs(options, control)[0])
        size: int | None = None
        channel: _DataChannel | None = None
        data: Stream | None = None
        final: Reply | None = None
        try:
            for command in commands:
                verb = command.verb
                if command is data_marker:
                    if options.get(FTPOptions).head and retrieval.mode != "list":
                        return await self._head(control, url, retrieval, size)
                    channel = await self._open_data(control, url, options)
                elif verb == "CWD":
                    if skip:
                        skip -= 1
                        continue
                    reply = await control.command(command)
                    if reply.category == 2 and control.cwd is not None:
                        control.cwd = (*control.cwd, command.argument or "")
                    if reply.category != 2:
                        raise self._refused(
                            reply, command, url, RemoteAccessDenied,
                            hint="Each path segment is one CWD from the login directory; "
                            "start the path with %2F for an absolute directory.",
                        )
                elif verb in ("NLST", "MLSD"):
                    opened, channel = channel, None
                    return await self._list(control, url, retrieval.name, options, opened)
                elif verb == "TYPE":
                    if control.type == command.argument:
                        continue  # already in that type on this connection
                    reply = await control.command(command)
                    if reply.category != 2:
                        raise self._refused(reply, command, url, ServerError)
                    control.type = command.argument
                elif verb == "SIZE":
                    reply = await control.command(command)
                    if reply.code == 213:
                        try:
                            size = parse_213_size(reply)
                        except RemoteProtocolError as exc:
                            raise _weird(url, exc) from exc
                        control.size = True
                    elif reply.code in (500, 502):
                        control.size = False  # not implemented: do not ask this server again
                    # A 550 to SIZE proves nothing (RFC 3659 4.2): RETR will tell.
                    complete = self._resume_check(url, offset, size, retrieval, control)
                    if complete is not None:
                        return complete
                elif verb == "REST":
                    reply = await control.command(command)
                    if reply.code != 350:
                        self.warn(
                            f"ftp server refused REST {offset} for {url.masked()} "
                            f"({reply.line}); fetching it whole"
                        )
                        offset = 0
                elif verb == "RETR":
                    assert channel is not None
                    reply = await control.command(command)
                    if reply.category != 1:
                        listing = await self._retr_refused(control, url, retrieval, channel,
                                                           command, reply, options)
                        if listing is not None:
                            return listing
                        final = reply
                    data = await channel.connected(self.config.connect_timeout)
                else:  # pragma: no cover - retrieval_commands yields nothing else
                    raise AssertionError(f"no step for {verb}")
        except BaseException:
            if channel is not None and data is None:
                await channel.aclose()
            raise
        assert data is not None
        info = ResourceInfo(
            url=url,
            size=None if size is None else size - offset,
            total_size=size,
            offset=offset,
            content_type=mimetypes.guess_type(retrieval.name)[0],
            filename=retrieval.name or None,
            kind="file",
            extra={"type": retrieval.mode},
        )
        decoder = ASCIIDecoder() if retrieval.mode == "A" else None
        transfer = _Transfer(self, control, data, decoder, url, final)
        raw = None
        if decoder is None and data.plain_socket is not None:
            # Image type on plain TCP: the data connection's bytes are the file's, to be
            # moved by the kernel up to the server's close (anyurl.bulk).
            raw = RawBody(data, b"", None, transfer.settle)
        return Resource(info, transfer.chunks(), on_close=transfer.close, raw=raw)

    def _resume_check(self, url: URL, offset: int, size: int | None, retrieval: Retrieval,
                      control: _Control) -> Resource | None:
        """After SIZE: refuse a resume past the end; an empty resource if already complete."""
        if not offset or size is None:
            return None
        if offset > size:
            raise ResumeFailed(
                f"cannot resume {url.masked()} at byte {offset}: the file has {size} bytes",
                url=url,
                hint="The remote file shrank or changed; download it again from the start.",
            )
        if offset < size:
            return None
        control.note("the file is already complete; nothing to transfer")
        info = ResourceInfo(
            url=url, size=0, total_size=size, offset=offset,
            content_type=mimetypes.guess_type(retrieval.name)[0],
            filename=retrieval.name or None,
        )
        return Resource(info, _empty(), on_close=lambda: self._release(control))

    async def _retr_refused(
        self, control: _Control, url: URL, retrieval: Retrieval, channel: _DataChannel,
        command: Command, reply: Reply, options: FetchOptions,
    ) -> Resource | None:
        """RETR answered without a 1yz: a listing (Lynx's guess), a transfer already
        over (2yz: the data are waiting on the data connection), or the refusal."""
        if reply.category == 2:
            control.note(f"RETR answered {reply.line} with no preliminary reply: the data "
                         "were sent at once")
            return None
        await channel.aclose()
        if reply.code in (450, 550) and retrieval.guessed:
            # Lynx's heuristic: a name that cannot be retrieved may be a directory.
            cwd = Command("CWD", retrieval.name)
            again = await control.command(cwd)
            if again.category == 2:
                control.cwd = None  # in a directory no URL segment names: unknown
                return await self._list(control, url, "", options)
        raise self._refused(
            reply, command, url, RemoteFileNotFound,
            hint="Check the file name; names are case-sensitive on most servers.",
        )

    async def _list(
        self, control: _Control, url: URL, name: str, options: FetchOptions,
        opened: _DataChannel | None = None,
    ) -> Resource:
        """``NLST [name]`` (``MLSD [name]`` first with ``FTPOptions(listing="mlsd")``);
        the next command when the server does not implement one (500/502), LIST last.

        ``opened`` is a data connection already opened for the first command (the step
        before it in the command list). An MLSD listing is passed on as sent: RFC 3659
        7.2 sends it as if in ``TYPE L 8``, so its CR LF are the format, not a text
        conversion; NLST and LIST use an implied ``TYPE A`` (RFC 1123 4.1.2.7).
        """
        reply: Reply | None = None
        verbs = self._listing_verbs(options, control)
        for verb in verbs:
            channel = opened or await self._open_data(control, url, options)
            opened = None
            command = Command(verb, name or None)
            try:
                reply = await control.command(command)
                if reply.category == 1:
                    data = await channel.connected(self.config.connect_timeout)
                    break
            except BaseException:
                await channel.aclose()
                raise
            await channel.aclose()
            if reply.code not in (500, 502):
                raise self._refused(reply, command, url, RemoteFileNotFound)
            if verb == "MLSD":
                control.mlsd = False  # not implemented: NLST, now and on this connection
                control.note("the server has no MLSD: listing with NLST")
        else:
            assert reply is not None
            raise self._refused(reply, command, url, RemoteFileNotFound)
        if verb == "MLSD":
            control.mlsd = True
        info = ResourceInfo(
            url=url, content_type="text/plain", kind="directory", filename=None,
            extra={"command": verb},
        )
        # NLST and LIST use an implied TYPE AN (RFC 1123 4.1.2.7): convert line ends.
        decoder = None if verb == "MLSD" else ASCIIDecoder()
        transfer = _Transfer(self, control, data, decoder, url)
        return Resource(info, transfer.chunks(), on_close=transfer.close)

    async def _open_data(
        self, control: _Control, url: URL, options: FetchOptions
    ) -> _DataChannel:
        """A data connection: EPSV, else PASV; or EPRT, else PORT in active mode."""
        passive = self._passive(options)
        stack = AsyncExitStack()
        if passive:
            host = control.stream.remote_address[0]
            port: int | None = None
            if control.epsv is not False:
                command = Command("EPSV")
                reply = await control.command(command)
                if reply.code == 229:
                    port = _port_229(url, reply)
                    control.epsv = True
                elif reply.category == 5:
                    control.epsv = False  # fall back to PASV, now and on this connection
                else:
                    raise self._refused(reply, command, url, ProtocolError)
            if port is None:
                command = Command("PASV")
                reply = await control.command(command)
                if reply.code != 227:
                    raise self._refused(
                        reply, command, url, ConnectFailed,
                        hint="The server refuses passive mode; try active mode.",
                    )
                named, port = _address_227(url, reply)
                if named != host:
                    control.note(
                        f"ignoring the address {named} of the 227 reply; connecting to the "
                        f"control connection's peer {host}"
                    )
            if port in BAD_PORTS and port not in self.config.allowed_ports:
                # Section 6 holds for the data port too: a server must not be able to
                # make us connect to its SMTP port any more than a URL can.
                raise PolicyRefused(
                    f"refusing the ftp data connection of {url.masked()} to port {port}: "
                    "the server named a port that belongs to another protocol",
                    url=url, hint=f"If you trust this server, allow it with "
                    f"Config(allowed_ports={{{port}}}).", remedy=("allow_port", str(port)))
            stream = await self.dialer.connect_tcp(
                host,
                port,
                url=url,
                connect_timeout=self.config.connect_timeout,
                read_timeout=self.config.read_timeout,
                what="the ftp data connection",
            )
            return _DataChannel(stream, None, stack)
        local = control.stream.local_address[0]
        try:
            listener = await stack.enter_async_context(
                open_listener(local, url=url, read_timeout=self.config.read_timeout)
            )
            lhost, lport = listener.address
            done = False
            if control.eprt is not False or ":" in lhost:
                command = Command("EPRT", format_eprt(lhost, lport))
                reply = await control.command(command)
                if reply.category == 2:
                    done = control.eprt = True
                elif reply.category == 5 and ":" not in lhost:
                    control.eprt = False
                else:
                    raise self._refused(reply, command, url, ConnectFailed)
            if not done:
                command = Command("PORT", format_port(lhost, lport))
                reply = await control.command(command)
                if reply.category != 2:
                    raise self._refused(
                        reply, command, url, ConnectFailed,
                        hint="The server refuses active mode; try passive mode.",
                    )
        except BaseException:
            await stack.aclose()
            raise
        return _DataChannel(None, listener, stack)


def _weird(url: URL, exc: Exception) -> ProtocolError:
    return ProtocolError(f"ftp server of {url.masked()} sent {exc}", url=url)


def _port_229(url: URL, reply: Reply) -> int:
    try:
        return parse_229(reply)
    except RemoteProtocolError as exc:
        raise _weird(url, exc) from exc


def _address_227(url: URL, reply: Reply) -> tuple[str, int]:
    try:
        return parse_227(reply)
    except RemoteProtocolError as exc:
        raise _weird(url, exc) from exc
