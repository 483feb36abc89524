"""The telnet scheme (RFC 1738 section 3.8): a transcript of a non-interactive session.

A ``telnet://[user[:password]@]host[:port]/`` URL names an interactive service, not a
data object, and its user and password "are advisory only: clients accessing a telnet
URL merely advise the user of the suggested username and password". Lynx, for one,
shows that advice and hands the terminal to a telnet program. anyurl has no terminal to
hand over in a pipeline, so it does the automated equivalent of a user taking the
advice: it opens the session, answers option negotiation (see
:mod:`anyurl.protocols.telnet`), and when the server prompts ``login:`` or
``Password:`` it types the URL's user and password. It warns that it is doing so, and
says when the URL carried a password (which it never prints: the trace shows ``****``).

What :meth:`TelnetHandler.open` returns is the *transcript*: the server's terminal data
with Telnet commands removed and ``CR LF`` as ``\\n``, streamed as it arrives. The
session ends when the server closes the connection or has been quiet for
``TelnetOptions.idle`` seconds (default :data:`DEFAULT_IDLE`; ``None`` waits for the
server to close, bounded by the read timeout). ``TelnetOptions.commands`` are lines to
type, one each time the server goes quiet after the login (the shell prompt has
arrived); the session ends at the next quiet period after the last one.

Failure modes: a second ``login:`` prompt after ours, or "Login incorrect", is
:class:`~anyurl.errors.LoginDenied` (67) quoting the server; a ``Password:`` prompt
when the URL has no password and no password callback answers is LoginDenied as well
(we would otherwise sit at the prompt). A user, password or command containing CR, LF
or NUL is refused before connecting (section 6: it would type a second line).

Interactive use (relaying a terminal) is not what this handler does: run a terminal
client (``telnet host port``) for that.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

import anyio

from anyurl.errors import LoginDenied, OptionError, URLError
from anyurl.net.transport import Stream
from anyurl.protocols.telnet import (
    ECHO,
    NEED_DATA,
    SGA,
    CommandReceived,
    ConnectionClosed,
    Data,
    Negotiation,
    Subnegotiation,
    TelnetClient,
    option_name,
)
from anyurl.resource import Resource, ResourceInfo
from anyurl.schemes.base import FetchOptions, SchemeHandler, Trace
from anyurl.schemes.telnet.options import TelnetOptions
from anyurl.url import URL

__all__ = ["DEFAULT_IDLE", "DEFAULT_TERMINAL_TYPE", "TelnetHandler"]

DEFAULT_PORT = 23
#: Seconds of silence that end a non-interactive session (and trigger the next command).
DEFAULT_IDLE = 2.0
#: What we tell a server that asks our terminal type: no cursor addressing, please.
DEFAULT_TERMINAL_TYPE = "DUMB"
MASK = "****"

_LOGIN_PROMPT = re.compile(rb"(?i)(?:login|user ?name|user)\s*:\s*\Z")
_PASSWORD_PROMPT = re.compile(rb"(?i)(?:password|passwd|passphrase)\s*:\s*\Z")
_LOGIN_FAILED = re.compile(rb"(?i)login incorrect|authentication fail|access denied")
#: How much of the current line is kept for prompt matching.
_TAIL = 512


@dataclass
class _Settings:
    idle: float | None
    commands: tuple[str, ...]
    terminal_type: str | None
    login: bool


def _check_line(value: str, what: str, url: URL) -> None:
    """Section 6: a decoded CR, LF or NUL would type a second line; refuse before connecting."""
    if any(c in value for c in "\r\n\x00"):
        raise URLError(
            f"refusing {url.masked()}: the {what} contains a line break or NUL that would "
            "be typed as a separate line",
            url=url,
        )


class TelnetHandler(SchemeHandler):
    """``telnet:`` URLs: log in as advised and stream what the server says."""

    schemes = ("telnet",)
    options_type = TelnetOptions

    def _settings(self, url: URL, options: FetchOptions) -> _Settings:
        given = options.get(TelnetOptions)
        idle = given.idle
        if idle is not None:
            idle = float(idle)
            if idle <= 0:
                raise OptionError(f"telnet option idle={idle!r}: must be positive seconds "
                                  "or None")
        commands = given.commands
        login = given.login
        if login:
            if url.user is not None:
                _check_line(url.user, "user name", url)
            if url.password is not None:
                _check_line(url.password, "password", url)
        for command in commands:
            _check_line(command, f"command {command!r}", url)
        terminal_type = given.terminal_type
        return _Settings(idle, commands, terminal_type, login)

    def plan(self, url: URL, options: FetchOptions) -> list[str]:
        s = self._settings(url, options)
        port = url.effective_port or DEFAULT_PORT
        lines = [f"connect to {url.connect_host} port {port}"]
        offered = [f"WILL {option_name(SGA)}"]
        if s.terminal_type:
            offered.append(f"WILL TTYPE (IS {s.terminal_type.upper()})")
        lines.append(
            f"answer negotiation: DO {option_name(ECHO)}, DO {option_name(SGA)} for the server;"
            f" {', '.join(offered)}; refuse every other option"
        )
        if s.login and url.user is not None:
            lines.append(f"on a 'login:' prompt: {url.user}")
        if s.login and (url.password is not None or url.user is not None):
            secret = MASK if url.password is not None else "<asked>"
            lines.append(f"on a 'Password:' prompt: {secret}")
        lines.extend(f"when the server is quiet: {c}" for c in s.commands)
        if s.idle is None:
            lines.append("read until the server closes")
        else:
            lines.append(f"read until the server closes or is quiet for {s.idle:g} s")
        return lines

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        settings = self._settings(url, options)
        if path := (url.path or "").strip("/"):
            self.warn(f"{url.masked()}: a telnet URL names a service; ignoring the path {path!r}")
        if settings.login and url.user is not None:
            self.warn(
                f"{url.masked()}: RFC 1738 gives a telnet URL's user and password as advice; "
                "anyurl follows it by answering the server's login prompts"
            )
            if url.password is not None:
                self.warn(
                    f"{url.masked()} carries a password (not shown); passwords in URLs end "
                    "up in shell histories and logs"
                )
        port = url.effective_port or DEFAULT_PORT
        stream = await self.dialer.connect_tcp(
            url.connect_host,
            port,
            url=url,
            connect_timeout=self.config.connect_timeout,
            read_timeout=self.config.read_timeout,
            what="the telnet connection",
        )
        session = _Session(self, url, options, settings, stream)
        info = ResourceInfo(
            url=url,
            content_type="text/plain",
            kind="transcript",
            extra={"host": url.connect_host, "port": port},
        )
        return Resource(info, session.run(), on_close=stream.aclose)


class _Session:
    """One automated session: drive the core, type the login and commands, yield data."""

    def __init__(
        self,
        handler: TelnetHandler,
        url: URL,
        options: FetchOptions,
        settings: _Settings,
        stream: Stream,
    ):
        self.handler = handler
        self.url = url
        self.options = options
        self.settings = settings
        self.stream = stream
        self.trace: Trace | None = options.trace
        self.core = TelnetClient(terminal_type=settings.terminal_type)
        self.tail = bytearray()  # the current (unfinished) line, for prompt matching
        self.recent = bytearray()  # the last few lines, to quote in errors
        self.user_sent = False
        #: A login or password prompt was seen. A server that shows none before it goes
        #: quiet wants no login: the URL's user was advice only (RFC 1738 3.8), and the
        #: commands are typed anyway.
        self.prompted = False
        self.no_login_asked = False
        self.password_sent = False
        self.warned_login = False
        self.typing = False  # commands have started: prompts are no longer login prompts
        # After the password, quiet does not end the session until the server has said
        # something (login programs pause seconds before "Login incorrect").
        self.awaiting_verdict = False
        self.pending = list(settings.commands)
        # While set, output is held back until a line end, so that an echo of the
        # password (a server should not echo it, but may) can be masked.
        self.holding: bytearray | None = None
        self.password_bytes = (url.password or "").encode("utf-8", "surrogateescape")

    def _note(self, line: str) -> None:
        if self.trace is not None:
            self.trace(line)

    async def _flush(self) -> None:
        out = self.core.data_to_send()
        if out:
            await self.stream.send(out)

    async def _type(self, line: str, shown: str) -> None:
        self._note(f"> {shown}")
        self.core.send_data(line.encode("utf-8", "surrogateescape") + b"\n")
        self.tail.clear()
        await self._flush()

    async def run(self) -> AsyncIterator[bytes]:
        try:
            while True:
                data: bytes | None = None
                if self.settings.idle is None or self.awaiting_verdict:
                    data = await self.stream.receive()
                else:
                    with anyio.move_on_after(self.settings.idle):
                        data = await self.stream.receive()
                if data is None:  # quiet
                    if self.holding is not None:
                        yield self._release()
                    if self.pending and not self._logged_in() and not self.prompted:
                        self.no_login_asked = True
                        self._note("* no login prompt came; the URL's user is advice only "
                                   "(RFC 1738 3.8): typing the commands")
                    if self.pending and self._logged_in():
                        command = self.pending.pop(0)
                        self.typing = True
                        await self._type(command, command)
                        continue
                    self._note("* the server is quiet; ending the session")
                    return
                self.core.receive_data(data)
                out = self._events()
                await self._flush()
                if out:
                    yield out
                if self.core.closed:
                    if self.holding is not None:
                        yield self._release()
                    self._note("* the server closed the connection")
                    return
                await self._prompts()
        finally:
            with anyio.CancelScope(shield=True):
                await self.stream.aclose()

    def _logged_in(self) -> bool:
        """Whether commands may be typed: no login asked for, or ours was sent."""
        return (not self.settings.login or self.url.user is None or self.user_sent
                or self.no_login_asked)

    def _events(self) -> bytes:
        """Drain the core's events; return the transcript bytes to hand on."""
        out = bytearray()
        while True:
            event = self.core.next_event()
            if event is NEED_DATA:
                break
            if isinstance(event, Data):
                self._remember(event.data)
                if event.data.strip():
                    self.awaiting_verdict = False
                if self.holding is not None:
                    self.holding += event.data
                    if b"\n" in self.holding:
                        out += self._release()
                else:
                    out += event.data
            elif isinstance(event, Negotiation):
                self._note(f"< {event}")
                if event.reply_text:
                    self._note(f"> {event.reply_text}")
            elif isinstance(event, Subnegotiation):
                self._note(f"< {event}")
                if event.answered and self.core.terminal_type:
                    self._note(f"> IAC SB TTYPE IS {self.core.terminal_type.upper()} IAC SE")
            elif isinstance(event, CommandReceived):
                self._note(f"< {event}")
            elif isinstance(event, ConnectionClosed):
                pass
        return bytes(out)

    def _release(self) -> bytes:
        held = bytes(self.holding or b"")
        self.holding = None
        if self.password_bytes:
            held = held.replace(self.password_bytes, MASK.encode())
        return held

    def _remember(self, data: bytes) -> None:
        self.recent += data
        del self.recent[:-2048]
        line_end = data.rfind(b"\n")
        if line_end >= 0:
            self.tail[:] = data[line_end + 1 :]
        else:
            self.tail += data
        del self.tail[:-_TAIL]

    def _quote(self) -> str:
        lines = [ln.strip() for ln in bytes(self.recent).decode("utf-8", "replace").splitlines()]
        lines = [ln for ln in lines if ln]
        for line in reversed(lines):
            if _LOGIN_FAILED.search(line.encode()):
                return line
        return lines[-2] if len(lines) >= 2 else (lines[-1] if lines else "")

    async def _prompts(self) -> None:
        if not self.settings.login or self.typing:
            return
        tail = bytes(self.tail).rstrip(b"\r")
        url = self.url
        host = f"{url.connect_host}"
        if _LOGIN_PROMPT.search(tail):
            self.prompted = True
            if url.user is None:
                if not self.warned_login:
                    self.warned_login = True
                    self.handler.warn(
                        f"the telnet server at {host} asks for a login; give one in the URL "
                        "(telnet://user@host/) to have anyurl answer it"
                    )
                return
            if self.user_sent:
                raise LoginDenied(
                    f"the telnet server at {host} refused the login of {url.user!r} "
                    f"({self._quote()!r}) for {url.masked()}",
                    url=url,
                    hint="Check the user and password in the URL.",
                )
            self.user_sent = True
            self.handler.warn(f"typed the user {url.user!r} at the login prompt of {host}")
            await self._type(url.user, url.user)
        elif _PASSWORD_PROMPT.search(tail):
            self.prompted = True
            if self.password_sent:
                raise LoginDenied(
                    f"the telnet server at {host} asked for the password again "
                    f"({self._quote()!r}) for {url.masked()}",
                    url=url,
                    hint="Check the user and password in the URL.",
                )
            password = url.password
            if password is None and self.options.password_callback is not None:
                password = await self.options.password_callback(url)
                if password is not None:
                    _check_line(password, "password", url)
                    self.password_bytes = password.encode("utf-8", "surrogateescape")
            if password is None:
                raise LoginDenied(
                    f"the telnet server at {host} asks for a password and {url.masked()} "
                    "has none",
                    url=url,
                    hint="Put it in the URL (telnet://user:password@host/) or run "
                    "interactively.",
                )
            self.password_sent = True
            self.awaiting_verdict = True
            self.holding = bytearray()
            self.handler.warn(f"typed the password ({MASK}) at the password prompt of {host}")
            await self._type(password, MASK)
