"""The news: and nntp: schemes (RFC 1738 sections 3.6 and 3.7) over NNTP.

The dialogue lives in the sans-I/O core :mod:`anyurl.protocols.nntp`; this module picks
the server, connects, drives the core and maps responses to :mod:`anyurl.errors`.

What each URL sends, after the greeting (200/201; 400 and 502 end the attempt)::

    CAPABILITIES                      learn READER / MODE-READER / OVER
    MODE READER                       when CAPABILITIES lists MODE-READER, or is unknown (500)
    AUTHINFO USER u / AUTHINFO PASS   at once when credentials were given, else on a 480
    news:<id@host>       ARTICLE <id@host>
    news:group           GROUP group, then OVER low-high (XOVER when OVER is unknown)
    news:*               LIST
    nntp://h/group/n     GROUP group, then ARTICLE n
    nntp://h/group       as news:group, on that host (an extension: RFC 1738 has no such form)
    QUIT                 when the resource is closed, also after an error or a cancel

Which server a ``news:`` URL goes to (RFC 1738 3.6: news URLs name none), first match:

1. the host of a ``news://host:port/...`` URL (a later, host-qualified form, accepted);
2. ``FetchOptions.extra["server"]`` (``host``, ``host:port`` or ``[v6]:port``);
3. :attr:`Config.nntp_server` (the config file's ``nntp_server``);
4. the ``NNTPSERVER`` environment variable, the convention of tin, slrn and Lynx;
5. ``localhost``.

anyurl's own settings come before the environment variable shared with every other
newsreader: a user who configured anyurl means that server. ``nntp:`` URLs always name
their host (port 119 unless written).

Credentials: RFC 1738's nntp syntax has none, so they come from the URL only when it was
parsed leniently (``nntp://user:password@host/...``), else from ``NewsOptions.user`` /
``NewsOptions.password``, else, when the server asks (480), from ``~/.netrc`` (when
``Config.use_netrc``) and ``FetchOptions.password_callback``. Credentials given
explicitly are sent right after MODE READER (so ``--plan`` shows them, password masked);
NNTP here has no TLS, so the handler warns that the password crosses the network in
clear text. A server that does not know AUTHINFO (500/502/503) is then used without
logging in.

Responses map to errors as the rest of anyurl does: 411 (no such group), 423 (no such
article number), 430 (no such message-id) and 420 raise :class:`RemoteFileNotFound`
(exit 78); 481, 482 and a 480 that cannot be answered raise :class:`LoginDenied` (67);
a 502 greeting (the server serves only local clients, as RFC 1738 3.7 warns)
:class:`RemoteAccessDenied` (9); 400 and other 4xx/5xx :class:`ServerError` (22); a
connection lost in the middle of an article :class:`PartialTransfer` (18). Every
message quotes the server's response line and the masked URL.

Output: an article streams as it arrives, dot-stuffing undone, lines ended with ``\\n``
(``FetchOptions.raw``: CRLF, the wire form). A group listing is rendered as readable text
(number, subject, From, Date and each article's ``nntp:`` and ``news:`` URLs), or as JSON
with ``FetchOptions.format == "json"``; ``raw`` gives the server's OVER/LIST lines as sent
(CRLF, unstuffed). ``NewsOptions.limit`` caps a group listing to the newest N articles
(default :data:`DEFAULT_LISTING_LIMIT`, 0 for all).

:meth:`NewsHandler.links` reads those raw listings back into URLs for a recursive mirror:
a group's articles, and ``news:*``'s groups. :meth:`NewsHandler.open_batch` then fetches
many of them over one connection, their ARTICLE commands pipelined [RFC 3977 3.5] (its
docstring is the contract); a group listing is one OVER and needs no pipelining.
"""

from __future__ import annotations

import copy
import json
import os
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Mapping
from contextlib import aclosing
from dataclasses import dataclass
from typing import ClassVar, Literal

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
    StreamClosed,
    TransferTimeout,
    URLError,
)
from anyurl.links import FILE, PAGE, Link, checked
from anyurl.net.credentials import netrc_entry
from anyurl.net.transport import DIRECT, Dialer, Stream
from anyurl.options import NewsOptions
from anyurl.protocols.common import LocalProtocolError, RemoteProtocolError
from anyurl.protocols.nntp import (
    ActiveEntry,
    Command,
    ConnectionClosed,
    Data,
    EndOfData,
    GroupInfo,
    NeedData,
    NNTPClient,
    OverviewEntry,
    Response,
    State,
    message_id_argument,
    parse_active_line,
    parse_article_reply,
    parse_capabilities,
    parse_group,
    parse_overview_line,
)
from anyurl.resource import Resource, ResourceExtra, ResourceInfo
from anyurl.schemes.base import FetchOptions, Gate, SchemeHandler, Trace
from anyurl.url import URL, NewsPart, NNTPPath, quote
from anyurl.url.charset import UCHAR_PLAIN, display

__all__ = ["DEFAULT_LISTING_LIMIT", "DEFAULT_PORT", "DEFAULT_SERVER", "MAX_DEPTH",
           "NewsHandler", "news_server"]

DEFAULT_PORT = 119
DEFAULT_SERVER = "localhost"
#: A group listing shows at most this many of the newest articles unless told otherwise.
DEFAULT_LISTING_LIMIT = 1000
RECEIVE_SIZE = 65536
#: How long QUIT may take when we are closing anyway.
GOODBYE_TIMEOUT = 2.0
#: The most ARTICLE commands a batch keeps in flight on one connection (open_batch).
MAX_DEPTH = 32
#: Response codes meaning "that article or group is not here".
NOT_FOUND = frozenset({411, 420, 423, 430})

Kind = Literal["article-id", "article-number", "group", "list"]


@dataclass(frozen=True)
class _Target:
    """What a URL asks of which server, decoded and checked."""

    kind: Kind
    host: str
    port: int
    source: str  # where the server came from, for messages
    group: str | None = None
    number: int | None = None
    message_id: str | None = None
    user: str | None = None
    password: str | None = None

    @property
    def hostport(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == DEFAULT_PORT else f"{host}:{self.port}"

    def main_commands(self) -> list[Command]:
        """The commands after setup; OVER's range is known only after GROUP."""
        if self.kind == "article-id":
            assert self.message_id is not None
            return [Command.of("ARTICLE", message_id_argument(self.message_id))]
        if self.kind == "list":
            return [Command.of("LIST")]
        assert self.group is not None
        if self.kind == "article-number":
            return [Command.of("GROUP", self.group), Command.of("ARTICLE", str(self.number))]
        return [Command.of("GROUP", self.group), Command.of("OVER", "<low>-<high>")]


def _split_server(text: str) -> tuple[str, int | None]:
    """``host``, ``host:port``, ``[v6]``, ``[v6]:port`` or a bare IPv6 address."""
    text = text.strip()
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            raise ValueError(f"unclosed '[' in news server {text!r}")
        rest = text[end + 1 :]
        if rest and not (rest.startswith(":") and rest[1:].isdigit()):
            raise ValueError(f"bad port in news server {text!r}")
        return text[1:end], int(rest[1:]) if rest else None
    if text.count(":") == 1:
        host, port = text.split(":")
        if not port.isdigit():
            raise ValueError(f"bad port in news server {text!r}")
        return host, int(port)
    return text, None


def news_server(
    url: URL,
    options: FetchOptions,
    config: Config,
    environ: Mapping[str, str] | None = None,
) -> tuple[str, int, str]:
    """``(host, port, source)`` for ``url``: the order of the module docstring."""
    if url.host:
        return url.connect_host, url.effective_port or DEFAULT_PORT, "the URL"
    env = os.environ if environ is None else environ
    candidates = (
        (options.get(NewsOptions).server, "the server option"),
        (config.nntp_server, "the nntp_server setting"),
        (env.get("NNTPSERVER"), "$NNTPSERVER"),
    )
    for value, source in candidates:
        if value:
            try:
                host, port = _split_server(str(value))
            except ValueError as exc:
                raise URLError(f"{exc} (from {source}) for {url.masked()}", url=url) from None
            if host:
                return host, port or DEFAULT_PORT, source
    return DEFAULT_SERVER, DEFAULT_PORT, "the default"


class _Session:
    """One NNTP connection: a transport stream, the core, and what the server offered."""

    def __init__(self, stream: Stream, url: URL, target: _Target, trace: Trace | None):
        self.stream = stream
        self.url = url
        self.target = target
        self.trace = trace
        self.core = NNTPClient()
        self.capabilities: dict[str, tuple[str, ...]] | None = None
        self.authenticated = False
        self.over_verb = "OVER"

    def what(self) -> str:
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
        event = await self._event()
        if not isinstance(event, Response):  # pragma: no cover - the core orders events
            raise ProtocolError(f"{self.what()} sent data where a response was due")
        if self.trace is not None:
            self.trace(f"< {event.line}")
        return event

    async def command(self, command: Command) -> Response:
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


class NewsHandler(SchemeHandler):
    """``news:`` and ``nntp:`` URLs: RFC 1738 3.6 and 3.7 over NNTP (RFC 3977)."""

    schemes = ("news", "nntp")
    options_type = NewsOptions
    batches: ClassVar[bool] = True

    def __init__(
        self,
        config: Config,
        *,
        warn: Callable[[str], None] | None = None,
        gate: Gate | None = None,
        dialer: Dialer = DIRECT,
    ) -> None:
        super().__init__(config, warn=warn, gate=gate, dialer=dialer)
        self._warned_cleartext: set[tuple[str, int]] = set()
        #: Servers (host, port) that mis-answered pipelined commands: one at a time.
        self._serial: set[tuple[str, int]] = set()

    # -- what the URL asks for ---------------------------------------------------------

    def _target(self, url: URL, options: FetchOptions) -> _Target:
        parts = url.parts
        given = options.get(NewsOptions)
        user = url.user if url.user is not None else given.user
        password = url.password if url.password is not None else given.password
        if isinstance(parts, NewsPart):
            host, port, source = news_server(url, options, self.config)
            if parts.message_id is not None:
                target = _Target("article-id", host, port, source,
                                 message_id=parts.message_id, user=user, password=password)
            elif parts.group == "*":
                target = _Target("list", host, port, source, user=user, password=password)
            elif parts.group:
                target = _Target("group", host, port, source, group=parts.group,
                                 user=user, password=password)
            else:
                raise URLError(f"{url.masked()} names no newsgroup or message-id", url=url)
        elif isinstance(parts, NNTPPath):
            if not url.host:
                raise URLError(f"{url.masked()} names no host", url=url)
            if not parts.group:
                raise URLError(
                    f"{url.masked()} names no newsgroup",
                    url=url,
                    hint="Write nntp://host/group/number (RFC 1738 3.7), or news:* for all "
                    "groups.",
                )
            host, port = url.connect_host, url.effective_port or DEFAULT_PORT
            kind: Kind = "group" if parts.article is None else "article-number"
            if url.path and "/" in url.path and parts.article is None:
                raise URLError(f"{url.masked()}: the article must be a decimal number",
                               url=url)
            target = _Target(kind, host, port, "the URL", group=parts.group,
                             number=parts.article, user=user, password=password)
        else:
            raise URLError(f"{url.masked()} is not a news: or nntp: URL", url=url)
        self._check(url, target)
        return target

    def _check(self, url: URL, target: _Target) -> None:
        """Refuse, before connecting, anything that cannot go on the wire as one line."""
        commands = target.main_commands()
        if target.user is not None:
            commands.append(Command.of("AUTHINFO", "USER", target.user))
        if target.password is not None:
            commands.append(Command.of("AUTHINFO", "PASS", target.password))
        for command in commands:
            if command.args and command.args[-1] == "<low>-<high>":
                continue
            try:
                command.check()
            except LocalProtocolError as exc:
                raise URLError(f"refusing {url.masked()}: {exc}", url=url,
                               hint="RFC 1738 section 6: a decoded CR or LF must not reach "
                               "the server as a line end.") from exc

    def links(self, info: ResourceInfo, body: bytes) -> list[Link]:
        """A raw group listing's articles, or a raw ``news:*`` listing's groups.

        Each article of an ``OVER`` listing is one ``"file"`` link, labelled with its
        subject, in the form of the URL that listed it: from ``nntp://host/group`` the
        article number, ``nntp://host/group/n`` (RFC 1738 3.7); from ``news:group`` the
        message-id, ``news:<id>`` (3.6), which the same server (the one ``news:`` URLs
        are sent to) answers, with the host kept for ``news://host/group``. An article
        whose message-id no URL can carry gets the nntp form on the server that listed
        it (``info.extra["server"]``). Each group of ``news:*`` is a ``"page"``:
        ``news:group`` (``news://host/group``). A rendered listing has no links: fetch
        with ``raw`` to read them.
        """
        if info.kind != "directory" or info.content_type != "text/plain":
            return []  # a rendering (its type carries a charset, or is JSON)
        url, parts = info.url, info.url.parts
        server = str(info.extra.get("server") or "")
        lines = [line for line in body.split(b"\n") if line.strip()]
        links = []
        if isinstance(parts, NewsPart) and parts.group == "*":
            for line in lines:
                try:
                    name = parse_active_line(line.rstrip(b"\r")).group
                except RemoteProtocolError:
                    continue
                text = _news_form(url, quote(name, _GROUP_SAFE))
                links.append(Link(text, PAGE, display(name)))
            return checked(links)
        group = info.extra.get("group")
        if not isinstance(group, str) or not group or not server:
            return []
        for line in lines:
            try:
                entry = parse_overview_line(line)
            except RemoteProtocolError:
                continue
            path = f"{quote(group, _GROUP_SAFE)}/{entry.number}"
            article: str | None = None
            if isinstance(parts, NNTPPath):
                article = str(url.replace(path=path, fragment=None))
            elif (mid := _news_url(entry.message_id)) is not None:
                article = _news_form(url, mid.removeprefix("news:"))
            if article is None:
                article = f"nntp://{server}/{path}"
            links.append(Link(article, FILE, display(entry.subject.strip()) or None))
        return checked(links)

    def render(self, info: ResourceInfo, body: bytes) -> str | None:
        """A raw group listing (``OVER``) or ``news:*`` listing (``LIST``) as ``anyurl get``
        shows it: the group's line, then each article's number, subject, sender, date and
        URLs; or each group with its range, status and URL. None for anything else."""
        if info.kind != "directory" or info.content_type != "text/plain":
            return None
        server = str(info.extra.get("server") or "")
        host, _, port = server.rpartition(":") if server.rpartition(":")[2].isdigit() \
            else (server, "", "")
        if not host:
            return None
        lines = [line.rstrip(b"\r") for line in body.split(b"\n") if line.strip()]
        parts = info.url.parts
        if isinstance(parts, NewsPart) and parts.group == "*":
            target = _Target("list", host.strip("[]"), int(port or DEFAULT_PORT), "listing")
            out = [f"Newsgroups on {target.hostport}:\n\n"]
            for line in lines:
                try:
                    out.append(_render_active(target, parse_active_line(line)))
                except RemoteProtocolError:
                    continue
            return "".join(out)
        group = info.extra.get("group")
        if not isinstance(group, str) or not group:
            return None
        target = _Target("group", host.strip("[]"), int(port or DEFAULT_PORT), "listing",
                         group=group)
        entries = []
        for line in lines:
            try:
                entries.append(parse_overview_line(line))
            except RemoteProtocolError:
                continue
        extra = info.extra
        numbers = [e.number for e in entries]
        group_info = GroupInfo(count=int(extra.get("count") or len(entries)),
                               low=int(extra.get("low") or min(numbers, default=0)),
                               high=int(extra.get("high") or max(numbers, default=0)),
                               name=group)
        low = min(numbers, default=group_info.low)
        return _group_header(target, group_info, max(low, group_info.low)) + "".join(
            _render_entry(target, e) for e in entries)

    def plan(self, url: URL, options: FetchOptions) -> list[str]:
        target = self._target(url, options)
        lines = ["CAPABILITIES", "MODE READER"]
        if target.user is not None:
            lines += [f"AUTHINFO USER {target.user}", "AUTHINFO PASS ****"]
        lines += [c.display() for c in target.main_commands()]
        lines.append("QUIT")
        return lines

    # -- opening -----------------------------------------------------------------------

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        target = self._target(url, options)
        session = await self._connect(url, target, options)
        try:
            if target.kind == "list":
                return await self._list(session, options)
            if target.kind == "group":
                return await self._group_listing(session, options)
            return await self._article(session, options)
        except BaseException:
            await session.goodbye()
            raise

    async def _connect(self, url: URL, target: _Target, options: FetchOptions,
                       *, login: bool = False) -> _Session:
        """A connection to ``target``'s server, greeted, set up and (``login``, or with
        credentials) logged in; closed again if any of that fails."""
        trace = options.trace
        if trace is not None and url.scheme == "news":
            trace(f"* news server {target.hostport} (from {target.source})")
        stream = await self.dialer.connect_tcp(
            target.host,
            target.port,
            url=url,
            connect_timeout=self.config.connect_timeout,
            read_timeout=self.config.read_timeout,
            what=f"the nntp connection to {target.hostport}",
        )
        session = _Session(stream, url, target, trace)
        try:
            await self._setup(session, options)
            if login and not session.authenticated:
                await self._authenticate(session, options, proactive=False)
        except BaseException:
            await session.goodbye()
            raise
        return session

    async def _setup(self, session: _Session, options: FetchOptions) -> None:
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
        caps = await session.command(Command.of("CAPABILITIES"))
        if caps.code == 101:
            session.capabilities = parse_capabilities(
                (await session.read_block()).splitlines()
            )
        wants_mode = (
            session.capabilities is None
            or ("MODE-READER" in session.capabilities and "READER" not in session.capabilities)
        )
        if session.capabilities is not None and "OVER" not in session.capabilities:
            session.over_verb = "XOVER"
        if wants_mode:
            await self._mode_reader(session, options)
        if target.user is not None and not session.authenticated:
            await self._authenticate(session, options, proactive=True)

    async def _mode_reader(self, session: _Session, options: FetchOptions) -> None:
        reply = await session.command(Command.of("MODE", "READER"))
        if reply.code == 480:  # some servers want AUTHINFO first (as nntplib handles)
            await self._authenticate(session, options, proactive=False)
            reply = await session.command(Command.of("MODE", "READER"))
        if reply.code == 502:  # no reading service here; the server closes [3977 5.3.1]
            raise RemoteAccessDenied(
                f"{session.what()} offers no reading service for {session.url.masked()}: "
                f"{reply.line}",
                url=session.url,
            )
        if reply.code == 400:
            raise self._error(session, reply, "MODE READER")
        # Otherwise (200/201, or 5xx from a server that needs no mode switch): go on.

    async def _credentials(
        self, session: _Session, options: FetchOptions
    ) -> tuple[str | None, str | None]:
        target = session.target
        user, password = target.user, target.password
        if user is None:  # the host's own entry only: never netrc's default (see netrc_entry)
            entry = netrc_entry(self.config, target.host, self.warn)
            if entry is not None:
                user, password = entry.login, entry.password
        return user, password

    async def _authenticate(
        self, session: _Session, options: FetchOptions, *, proactive: bool
    ) -> None:
        """AUTHINFO USER/PASS [RFC 4643 2.3]; proactive logins tolerate servers without it."""
        url = session.url
        user, password = await self._credentials(session, options)
        if user is None:
            raise LoginDenied(
                f"{session.what()} requires authentication for {url.masked()} and no user "
                "name was given",
                url=url,
                hint="Give a user and password (nntp://user:password@host/... parsed "
                "leniently, the user/password options, or ~/.netrc).",
            )
        for value in (user, password):
            if value is not None and any(c in value for c in "\r\n\0"):
                raise URLError(f"the nntp user or password for {url.masked()} contains a "
                               "CR, LF or NUL", url=url)
        reply = await session.command(Command.of("AUTHINFO", "USER", user))
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
            if key not in self._warned_cleartext:
                self._warned_cleartext.add(key)
                self.warn(f"sending the NNTP password for {user!r} to "
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

    async def _request(
        self, session: _Session, options: FetchOptions, command: Command
    ) -> Response:
        """Send ``command``; on 480 log in and send it once more [RFC 4643 2.2]."""
        reply = await session.command(command)
        if reply.code == 480 and not session.authenticated:
            await self._authenticate(session, options, proactive=False)
            reply = await session.command(command)
        if reply.code == 480:
            raise LoginDenied(
                f"{session.what()} still requires authentication for {command.verb} of "
                f"{session.url.masked()}: {reply.line}",
                url=session.url,
            )
        return reply

    def _error(self, session: _Session, reply: Response, what: str) -> AnyURLError:
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

    async def _select_group(self, session: _Session, options: FetchOptions) -> GroupInfo:
        group = session.target.group
        assert group is not None
        reply = await self._request(session, options, Command.of("GROUP", group))
        if reply.code != 211:
            raise self._error(session, reply, f"GROUP {group}")
        try:
            return parse_group(reply)
        except RemoteProtocolError as exc:
            raise ProtocolError(f"{session.what()}: {exc} for {session.url.masked()}",
                                url=session.url) from exc

    # -- articles -----------------------------------------------------------------------

    async def _article(self, session: _Session, options: FetchOptions) -> Resource:
        target, url = session.target, session.url
        if target.kind == "article-number":
            await self._select_group(session, options)
            command = Command.of("ARTICLE", str(target.number))
        else:
            assert target.message_id is not None
            command = Command.of("ARTICLE", message_id_argument(target.message_id))
        session.core.set_newline(b"\r\n" if options.raw else b"\n")
        reply = await self._request(session, options, command)
        if reply.code != 220:
            raise self._error(session, reply, command.display())
        info = parse_article_reply(reply)
        if target.kind == "article-number":
            filename = f"{target.group}.{target.number}"
        else:
            filename = (target.message_id or "article").replace("/", "_")
        resource_info = ResourceInfo(
            url=url,
            content_type="message/rfc822",
            filename=filename,
            kind="article",
            extra={"server": target.hostport, "message_id": info.message_id,
                   "number": info.number or target.number, "group": target.group},
        )
        return Resource(resource_info, session.blocks(), on_close=session.goodbye)

    # -- batches of articles (pipelined) --------------------------------------------------

    async def open_batch(
        self, urls: Iterable[URL], options: FetchOptions
    ) -> AsyncGenerator[tuple[URL, Resource | AnyURLError], None]:
        """Open many ``news:``/``nntp:`` URLs, pipelining the articles of one server.

        The contract, for a caller holding many URLs (a mirror of a group, ``get`` of
        many articles):

        * ``urls`` are URLs the resolver's gate admitted and routed to this handler
          (``Resolver.admit``, ``Resolver.handler_for``); ``options`` apply to all.
        * One ``(url, outcome)`` is yielded per URL, **in the order given**, the URL
          object itself as given. ``outcome`` is an open :class:`Resource` (as
          :meth:`open` returns) or the :class:`AnyURLError` that URL met: a missing
          article (423/430, or its group refused with 411) fails that URL only. Only
          cancellation and errors that are bugs propagate.
        * Consecutive article URLs (``nntp://host/group/n``, ``news:id``) on the same
          server and with the same credentials go over **one connection**, their
          ``ARTICLE`` commands pipelined [RFC 3977 3.5]: after a ``GROUP`` (sent when
          the group changes, and answered before anything follows it) up to
          :data:`MAX_DEPTH` commands are in flight; the window opens at 1 on each
          connection and doubles with each article answered, so an ``AUTHINFO`` the
          server asks for (480) is met before anything is pipelined. Any other URL (a
          group listing, ``news:*``) is opened with :meth:`open` on a connection of
          its own, at its place in the order.
        * Articles stream from the shared connection, so the caller reads (or
          closes) each yielded resource before asking for the next item; asking for
          the next item reads and drops what is left unread of the previous article;
          reading that resource afterwards raises :class:`StreamClosed`.
        * When the server closes (or answers 400) with commands unanswered, those are
          sent again on a new connection, set up from the start. A connection that
          answered none of them is not replaced: the URLs left get its error. An
          article whose body was cut is not sent again; its resource raises
          :class:`PartialTransfer` while being read.
        * A server that mis-answers (a 220 for another article number or message-id
          than the one asked, or silence past the read timeout with commands
          pipelined) is remembered for this handler's life and served one command at
          a time from then on, starting with a new connection.
        * Closing the iterator early (``aclose``, ``break``) sends QUIT and closes the
          connection; resources already yielded and not read must not be read after.
        """
        pending: list[tuple[URL, _Target]] = []
        for url in urls:
            try:
                target = self._target(url, options)
            except AnyURLError as exc:
                async with aclosing(self._batch_run(pending, options)) as run:
                    async for outcome in run:
                        yield outcome
                pending = []
                yield url, exc
                continue
            if target.kind not in ("article-id", "article-number"):
                async with aclosing(self._batch_run(pending, options)) as run:
                    async for outcome in run:
                        yield outcome
                pending = []
                try:
                    resource: Resource | AnyURLError = await self.open(url, options)
                except AnyURLError as exc:
                    resource = exc
                yield url, resource
                if isinstance(resource, Resource):
                    await resource.aclose()
                continue
            if pending and _batch_key(pending[0][1]) != _batch_key(target):
                async with aclosing(self._batch_run(pending, options)) as run:
                    async for outcome in run:
                        yield outcome
                pending = []
            pending.append((url, target))
        async with aclosing(self._batch_run(pending, options)) as run:
            async for outcome in run:
                yield outcome

    async def _batch_run(
        self, items: list[tuple[URL, _Target]], options: FetchOptions
    ) -> AsyncGenerator[tuple[URL, Resource | AnyURLError], None]:
        """One server's articles over one pipelined connection (replaced as
        :meth:`open_batch` says)."""
        if not items:
            return
        first_url, first = items[0]
        key = (first.host, first.port)
        todo = _plan(items)
        inflight: deque[_Step] = deque()
        failed_groups: dict[str, tuple[Response, URL]] = {}
        session: _Session | None = None
        login = False
        newline = b"\r\n" if options.raw else b"\n"
        try:
            while todo or inflight:
                if session is None:
                    try:
                        session = await self._connect(first_url, first, options, login=login)
                    except AnyURLError as exc:
                        for step in (*inflight, *todo):
                            if step.url is not None:
                                yield step.url, exc
                        return
                    session.core.set_newline(newline)
                    answered = 0
                    depth = 1
                # Fill the window: one write for all the commands it takes.
                window = 1 if key in self._serial else depth
                wire = bytearray()
                while todo and len(inflight) < window and session.core.can_pipeline():
                    step = todo.popleft()
                    failed = failed_groups.get(step.group or "")
                    if failed is not None and step.url is None:
                        continue  # that group's GROUP was refused: nothing to select
                    if failed is not None and step.number is not None:
                        step.refused = failed[0]
                    else:
                        wire += session.core.pipeline(step.command)
                        if session.trace is not None:
                            session.trace(f"> {step.command.display()}")
                    inflight.append(step)
                if not inflight:
                    continue
                step = inflight[0]
                session.url = step.url or session.url
                lost: AnyURLError | None = None
                reply: Response | None = None
                try:
                    if wire:
                        await session.stream.send(bytes(wire))
                    if step.refused is None:
                        reply = await session.response()
                except AnyURLError as exc:  # closed, timed out, or not NNTP
                    lost = exc
                if lost is None and step.refused is not None:
                    inflight.popleft()  # answered here: its group was refused
                    assert step.url is not None
                    yield step.url, self._error(session, step.refused,
                                                f"GROUP {step.group}")
                    continue
                if reply is not None and reply.code == 400:  # the server is leaving
                    lost = self._error(session, reply, step.command.display())
                if reply is not None and lost is None and reply.code == 480 \
                        and not session.authenticated:
                    if len(inflight) == 1 and session.core.state is State.IDLE:
                        try:
                            await self._authenticate(session, options, proactive=False)
                        except AnyURLError as exc:
                            lost = exc
                        else:
                            todo.appendleft(inflight.popleft())
                            continue
                    else:
                        # Pipelined commands met a login demand: a new connection logs
                        # in first (progress of a kind: the next connection differs).
                        login, answered = True, answered + 1
                        lost = LoginDenied(
                            f"{session.what()} asked for a login in the middle of a "
                            f"batch, at {session.url.masked()}", url=session.url)
                if reply is not None and lost is None and not _answers(step, reply):
                    lost = ProtocolError(f"{session.what()} answered "
                                         f"{step.command.display()} for "
                                         f"{session.url.masked()} with another article: "
                                         f"{reply.line}", url=session.url)
                    if key in self._serial:  # even one at a time: that URL fails
                        inflight.popleft()
                        assert step.url is not None
                        yield step.url, lost
                    else:  # lost count of what we pipelined: one at a time from now on
                        self._serial.add(key)
                        self.warn(f"{session.what()} answered {step.command.display()} "
                                  f"with {reply.line!r}; pipelining with it is off")
                    answered += 1
                if isinstance(lost, TransferTimeout) and len(session.core.owed) > 1 \
                        and key not in self._serial:
                    # Silence with commands pipelined: a server that throws away what
                    # follows a command (RFC 3977 3.5 warns of them). One at a time.
                    self._serial.add(key)
                    self.warn(f"{session.what()} did not answer pipelined commands; "
                              "pipelining with it is off")
                    answered += 1
                if lost is not None:
                    left = [s for s in (*inflight, *todo) if s.url is not None]
                    await session.goodbye()
                    session = None
                    inflight.clear()
                    if answered == 0:  # nothing came back on that connection: give up
                        for s in left:
                            assert s.url is not None
                            yield s.url, _for_url(lost, s.url)
                        return
                    todo = _replan(left)
                    continue
                assert reply is not None
                inflight.popleft()
                if step.url is None:  # GROUP
                    if reply.code != 211:
                        failed_groups[step.group or ""] = (reply, session.url)
                    continue
                answered += 1
                if reply.code != 220:
                    yield step.url, self._error(session, reply, step.command.display())
                    continue
                depth = min(MAX_DEPTH, depth * 2)
                body = _Body(session, step.url)
                resource = Resource(self._article_info(step, reply), body.chunks())
                yield step.url, resource
                if not await body.finish():  # the connection broke in (or after) it
                    left = [s for s in (*inflight, *todo) if s.url is not None]
                    await session.goodbye()
                    session = None
                    inflight.clear()
                    todo = _replan(left)
        finally:
            if session is not None:
                await session.goodbye()

    def _article_info(self, step: _Step, reply: Response) -> ResourceInfo:
        """What an article's resource says about it (as :meth:`_article` does)."""
        target = step.target
        assert step.url is not None and target is not None
        info = parse_article_reply(reply)
        if target.kind == "article-number":
            filename = f"{target.group}.{target.number}"
        else:
            filename = (target.message_id or "article").replace("/", "_")
        return ResourceInfo(
            url=step.url,
            content_type="message/rfc822",
            filename=filename,
            kind="article",
            extra={"server": target.hostport, "message_id": info.message_id,
                   "number": info.number or target.number, "group": target.group},
        )

    # -- listings -----------------------------------------------------------------------

    def _limit(self, options: FetchOptions) -> int:
        return max(0, options.get(NewsOptions).limit)

    async def _group_listing(self, session: _Session, options: FetchOptions) -> Resource:
        target, url = session.target, session.url
        group = await self._select_group(session, options)
        limit = self._limit(options)
        low = group.low
        if limit and group.high - low + 1 > limit:
            low = group.high - limit + 1
        fmt = options.format
        base_info: ResourceExtra = {
            "server": target.hostport, "group": group.name or target.group,
            "count": group.count, "low": group.low, "high": group.high}
        info = ResourceInfo(
            url=url,
            content_type="text/plain" if options.raw else (
                "application/json" if fmt == "json" else "text/plain; charset=utf-8"),
            filename=target.group,
            kind="directory",
            extra=base_info.copy(),
        )
        if group.empty:
            chunks = _single(b"" if options.raw else self._render_group(
                target, group, [], fmt, low))
            await session.goodbye()
            return Resource(info, chunks)
        reply = await self._request(
            session, options, Command.of(session.over_verb, f"{low}-{group.high}")
        )
        if reply.code in (500, 501) and session.over_verb == "OVER":
            session.over_verb = "XOVER"
            reply = await self._request(
                session, options, Command.of("XOVER", f"{low}-{group.high}")
            )
        if reply.code in (420, 423):  # no articles in that range: an empty listing
            chunks = _single(b"" if options.raw else self._render_group(
                target, group, [], fmt, low))
            return Resource(info, chunks, on_close=session.goodbye)
        if reply.code != 224:
            raise self._error(session, reply, f"{session.over_verb} {low}-{group.high}")
        if options.raw:
            return Resource(info, session.blocks(), on_close=session.goodbye)
        return Resource(info, self._stream_group(session, group, fmt, low),
                        on_close=session.goodbye)

    async def _stream_group(
        self, session: _Session, group: GroupInfo, fmt: str, low: int
    ) -> AsyncIterator[bytes]:
        target = session.target
        if fmt == "json":
            # The same document _render_group builds, written as the overview arrives:
            # memory does not grow with the number of articles a server sends.
            head = self._render_group(target, group, [], fmt, low).decode(
                "utf-8", "surrogateescape")
            cut = head.rindex('"articles": []') + len('"articles": [')
            yield head[:cut].encode("utf-8", "surrogateescape")
            first = True
            async for chunk in session.blocks():
                for e in self._overview(session, chunk):
                    item = {**e.to_json(), "url": _article_url(target, e.number),
                            "news_url": _news_url(e.message_id)}
                    text = json.dumps(item, indent=2, ensure_ascii=False).replace(
                        "\n", "\n    ")
                    yield (("\n    " if first else ",\n    ") + text).encode(
                        "utf-8", "surrogateescape")
                    first = False
            yield ("\n  " if not first else "").encode() + head[cut:].encode(
                "utf-8", "surrogateescape")
            return
        yield _group_header(target, group, low).encode("utf-8", "surrogateescape")
        async for chunk in session.blocks():
            out = "".join(_render_entry(target, e) for e in self._overview(session, chunk))
            if out:
                yield out.encode("utf-8", "surrogateescape")

    def _overview(self, session: _Session, chunk: bytes) -> list[OverviewEntry]:
        entries = []
        for line in chunk.split(b"\r\n"):
            if not line:
                continue
            try:
                entries.append(parse_overview_line(line))
            except RemoteProtocolError as exc:
                raise ProtocolError(f"{session.what()}: {exc} for {session.url.masked()}",
                                    url=session.url) from exc
        return entries

    def _render_group(self, target: _Target, group: GroupInfo, entries: list[OverviewEntry],
                      fmt: str, low: int) -> bytes:
        if fmt == "json":
            doc = {
                "server": target.hostport, "group": group.name or target.group,
                "count": group.count, "low": group.low, "high": group.high,
                "articles": [
                    {**e.to_json(), "url": _article_url(target, e.number),
                     "news_url": _news_url(e.message_id)}
                    for e in entries
                ],
            }
            return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode(
                "utf-8", "surrogateescape")
        text = _group_header(target, group, low) + "".join(
            _render_entry(target, e) for e in entries)
        return text.encode("utf-8", "surrogateescape")

    async def _list(self, session: _Session, options: FetchOptions) -> Resource:
        target, url = session.target, session.url
        reply = await self._request(session, options, Command.of("LIST"))
        if reply.code != 215:
            raise self._error(session, reply, "LIST")
        fmt = options.format
        info = ResourceInfo(
            url=url,
            content_type="text/plain" if options.raw else (
                "application/json" if fmt == "json" else "text/plain; charset=utf-8"),
            filename="active",
            kind="directory",
            extra={"server": target.hostport},
        )
        if options.raw:
            return Resource(info, session.blocks(), on_close=session.goodbye)
        return Resource(info, self._stream_list(session, fmt), on_close=session.goodbye)

    async def _stream_list(self, session: _Session, fmt: str) -> AsyncIterator[bytes]:
        target = session.target
        entries: list[ActiveEntry] = []
        if fmt == "text":
            yield f"Newsgroups on {target.hostport}:\n\n".encode()
        async for chunk in session.blocks():
            batch = []
            for line in chunk.split(b"\r\n"):
                if not line:
                    continue
                try:
                    batch.append(parse_active_line(line))
                except RemoteProtocolError as exc:
                    raise ProtocolError(
                        f"{session.what()}: {exc} for {session.url.masked()}",
                        url=session.url) from exc
            if fmt == "json":
                entries += batch
                continue
            out = "".join(_render_active(target, e) for e in batch)
            if out:
                yield out.encode("utf-8", "surrogateescape")
        if fmt == "json":
            doc = {"server": target.hostport, "groups": [
                {**e.to_json(), "url": _group_url(target, e.group)} for e in entries]}
            yield (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode(
                "utf-8", "surrogateescape")


# -- batches --------------------------------------------------------------------------------


@dataclass
class _Step:
    """One command of a batch: a GROUP (``url`` None) or an article's ARTICLE."""

    command: Command
    url: URL | None = None
    target: _Target | None = None
    group: str | None = None  # the group a GROUP selects, or an ARTICLE n reads
    number: int | None = None  # ARTICLE n's number
    refused: Response | None = None  # its group's refusal, answered without sending


def _batch_key(target: _Target) -> tuple[str, int, str | None, str | None]:
    """Article URLs with the same key can share one connection."""
    return target.host, target.port, target.user, target.password


def _plan(items: Iterable[tuple[URL, _Target]]) -> deque[_Step]:
    """The commands for ``items`` in order, a GROUP wherever the group changes."""
    steps: deque[_Step] = deque()
    group: str | None = None
    for url, target in items:
        if target.kind == "article-number":
            assert target.group is not None
            if target.group != group:
                group = target.group
                steps.append(_Step(Command.of("GROUP", group), group=group))
            steps.append(_Step(Command.of("ARTICLE", str(target.number)), url, target,
                               group=group, number=target.number))
        else:
            assert target.message_id is not None
            steps.append(_Step(Command.of("ARTICLE", message_id_argument(target.message_id)),
                               url, target))
    return steps


def _replan(steps: Iterable[_Step]) -> deque[_Step]:
    """:func:`_plan` again for the article steps of ``steps`` (on a new connection)."""
    return _plan([(s.url, s.target) for s in steps
                  if s.url is not None and s.target is not None])


def _answers(step: _Step, reply: Response) -> bool:
    """Whether ``reply`` can be the answer to ``step``: a 220 names the article asked for.

    Servers put the number (0 when asked by message-id) and the message-id in a 220; a
    pipelined answer naming another article means the server lost count of our
    commands. Other codes cannot be told apart (a 423 names nothing)."""
    if step.url is None:  # GROUP: a 211 names the group
        args = reply.arguments
        return reply.code != 211 or len(args) < 4 or args[3] == step.group
    if reply.code != 220:
        return True
    info = parse_article_reply(reply)
    if step.number is not None:
        return info.number in (0, step.number)
    assert step.target is not None and step.target.message_id is not None
    return info.message_id is None or info.message_id == message_id_argument(
        step.target.message_id)


def _for_url(error: AnyURLError, url: URL) -> AnyURLError:
    """``error`` for ``url``: the same class and words, naming that URL instead."""
    shown = url.masked()
    if error.url is None or error.url == shown:
        return error
    clone = copy.copy(error)
    clone.args = tuple(a.replace(error.url, shown) if isinstance(a, str) else a
                       for a in error.args)
    clone.message = error.message.replace(error.url, shown)
    clone.url = shown
    return clone


class _Body:
    """An article streamed from a batch's connection, valid until the batch moves on."""

    def __init__(self, session: _Session, url: URL):
        self.session = session
        self.url = url
        self.done = False  # its terminating "." was read
        self.broken = False  # the connection failed in it
        self.detached = False  # the batch moved on: reading now would read another's

    async def chunks(self) -> AsyncIterator[bytes]:
        """The article's lines as they arrive (the resource's stream)."""
        session = self.session
        while self.detached or not self.done:
            if self.detached:
                raise StreamClosed(
                    f"the article {self.url.masked()} was read after its batch moved on",
                    url=self.url,
                    hint="Read each resource of open_batch before asking for the next.",
                )
            try:
                event = await session._event()
            except ConnectionLost:
                self.broken = True
                raise PartialTransfer(
                    f"{session.what()} closed the connection in the middle of "
                    f"{self.url.masked()}",
                    url=self.url,
                    hint="Try again; the server may have been restarted.",
                ) from None
            if isinstance(event, EndOfData):
                self.done = True
                if session.trace is not None:
                    session.trace("< .")
            elif isinstance(event, Data):
                yield event.data

    async def finish(self) -> bool:
        """Read and drop what the caller left of the article; False if the connection
        broke in it (so the batch needs a new one)."""
        self.detached = True
        while not (self.done or self.broken):
            try:
                event = await self.session._event()
            except AnyURLError:  # closed, timed out, or not NNTP: the connection is done
                self.broken = True
                break
            self.done = isinstance(event, EndOfData)
        return not self.broken


# -- rendering ----------------------------------------------------------------------------



async def _single(data: bytes) -> AsyncIterator[bytes]:
    if data:
        yield data


_GROUP_SAFE = UCHAR_PLAIN - frozenset("/")
_ID_SAFE = UCHAR_PLAIN | frozenset(";/?:&=@")


def _group_url(target: _Target, group: str) -> str:
    return f"nntp://{target.hostport}/{quote(group, _GROUP_SAFE)}"


def _article_url(target: _Target, number: int) -> str:
    assert target.group is not None
    return f"{_group_url(target, target.group)}/{number}"


def _news_url(message_id: str) -> str | None:
    mid = message_id.strip()
    if not (mid.startswith("<") and mid.endswith(">") and "@" in mid):
        return None
    return "news:" + quote(mid[1:-1], _ID_SAFE)


def _news_form(url: URL, grouppart: str) -> str:
    """``news:<grouppart>``, or ``news://host/<grouppart>`` when ``url`` names a host."""
    if url.host is None:
        return f"news:{grouppart}"
    return str(url.replace(path=grouppart, fragment=None))


def _group_header(target: _Target, group: GroupInfo, low: int) -> str:
    name = group.name or target.group
    if group.empty:
        return f"{name} on {target.hostport}: no articles\n"
    shown = "" if low == group.low else f", showing {low}-{group.high}"
    return (f"{name} on {target.hostport}: {group.count} articles, numbers "
            f"{group.low}-{group.high}{shown}\n")


def _render_entry(target: _Target, entry: OverviewEntry) -> str:
    lines = [f"\n{entry.number}  {entry.subject}",
             f"    From: {entry.from_}",
             f"    Date: {entry.date}",
             f"    {_article_url(target, entry.number)}"]
    news = _news_url(entry.message_id)
    if news:
        lines.append(f"    {news}")
    return "\n".join(lines) + "\n"


def _render_active(target: _Target, entry: ActiveEntry) -> str:
    status = {"y": "posting", "n": "read-only", "m": "moderated"}.get(entry.status,
                                                                       entry.status)
    return (f"{entry.group}  {entry.low}-{entry.high}  {status}  "
            f"{_group_url(target, entry.group)}\n")
