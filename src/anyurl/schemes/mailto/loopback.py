"""A small loopback SMTP server (RFC 5321 subset) on anyio that keeps what it receives.

For anyurl's tests, ``anyurl demo`` and users' tests that need a mail relay without
installing one (the integration tests also use aiosmtpd, in tests/peers). It speaks:

``EHLO`` (``250-8BITMIME``, ``250-SIZE``, ``250 HELP``) ``HELO`` ``MAIL FROM:<a>``
``RCPT TO:<b>`` ``DATA`` (dot-stuffing undone) ``RSET`` ``NOOP`` ``VRFY`` (252)
``HELP`` ``QUIT``

in the order RFC 5321 requires (``503`` otherwise), and keeps every message accepted as
a :class:`ReceivedMessage` in :attr:`SMTPServer.messages` (envelope sender, recipients,
the data as received) and every command line in :attr:`SMTPServer.received`. Behaviour
switches (:class:`SMTPServerConfig`) give a test the servers of the real world:
``refuse`` answers ``RCPT`` for those addresses with 550, ``greeting`` 554 refuses the
session, ``ehlo=False`` answers ``EHLO`` with 502 as an RFC 821 server would (clients
fall back to ``HELO``), ``max_size`` bounds a message (552 beyond it).

In a test on either anyio backend::

    async with open_smtp_server() as server:
        config = Config(smtp_relay=f"127.0.0.1:{server.port}")
        ...
    [message] = server.messages

(or ``port = await task_group.start(server.serve)`` in a task group of your own); from
synchronous code, ``with running_smtp_server() as server:`` runs it in a thread. From a
shell, printing a line for each message received::

    python -m anyurl.schemes.mailto.loopback --host 127.0.0.1 --port 2525
"""

from __future__ import annotations

import email
import email.message
import email.policy
from collections.abc import Awaitable, Callable, Collection, Sequence
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from dataclasses import dataclass, field

import anyio
import anyio.abc

from anyurl.testing._server import SessionServer, command_line, serve_until_interrupted

__all__ = [
    "ReceivedMessage",
    "SMTPServer",
    "SMTPServerConfig",
    "open_smtp_server",
    "running_smtp_server",
    "serve_smtp",
]

#: RFC 5321 4.5.3.1.4 and .6: a command line, and a text line, of at most 512 and 1000 octets.
MAX_COMMAND = 512
MAX_TEXT_LINE = 1000


@dataclass(frozen=True)
class ReceivedMessage:
    """One message the server accepted: its envelope and its data (``CR LF`` lines)."""

    sender: str
    recipients: tuple[str, ...]
    data: bytes
    #: The name the client gave in EHLO or HELO.
    helo: str

    def message(self) -> email.message.EmailMessage:
        """The data parsed as a message (:mod:`email`, default policy, ``\\n`` line ends)."""
        data = self.data.replace(b"\r\n", b"\n")
        msg = email.message_from_bytes(data, policy=email.policy.default)
        assert isinstance(msg, email.message.EmailMessage)
        return msg


@dataclass
class SMTPServerConfig:
    """How the server answers (see the module docstring)."""

    #: The name in the greeting and EHLO reply.
    hostname: str = "anyurl.test"
    #: Recipients refused with 550 (compared without case).
    refuse: Collection[str] = field(default_factory=tuple)
    #: 220 to serve; 554 refuses the session (RFC 5321 3.1), 421 is "try later".
    greeting: int = 220
    #: False: answer EHLO with 502, as a server of RFC 821 only.
    ehlo: bool = True
    #: The largest message accepted, in bytes (announced as SIZE).
    max_size: int = 10 << 20


class _Session:
    """One SMTP session: read command lines, answer them, collect the message."""

    def __init__(self, server: SMTPServer, stream: anyio.abc.ByteStream):
        self.server = server
        self.config = server.config
        self.stream = stream
        self.buffer = b""
        self.client_name: str | None = None
        self.sender: str | None = None
        self.recipients: list[str] = []

    async def reply(self, code: int, *lines: str) -> None:
        text = lines or ("",)
        out = [f"{code}-{line}" for line in text[:-1]] + [f"{code} {text[-1]}"]
        await self.stream.send("".join(f"{line}\r\n" for line in out).encode("utf-8"))

    async def read_line(self, limit: int) -> bytes | None:
        """The next line without its line end; None when the client has gone."""
        while b"\n" not in self.buffer:
            try:
                data = await self.stream.receive(65536)
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                return None
            self.buffer += data
            if len(self.buffer) > limit + 65536 and b"\n" not in self.buffer:
                return None
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.rstrip(b"\r")

    def reset(self) -> None:
        self.sender = None
        self.recipients = []

    async def run(self) -> None:
        host = self.config.hostname
        if self.config.greeting != 220:
            await self.reply(self.config.greeting, f"{host} no SMTP service here")
            if self.config.greeting == 421:
                return
        else:
            await self.reply(220, f"{host} anyurl loopback SMTP server ready")
        while True:
            raw = await self.read_line(MAX_COMMAND)
            if raw is None:
                return
            line = raw.decode("utf-8", "replace")
            self.server.received.append(line)
            verb, _, arg = line.partition(" ")
            verb = verb.upper()
            if self.config.greeting != 220 and verb != "QUIT":
                await self.reply(503, "bad sequence of commands: this server refused you")
                continue
            if len(raw) + 2 > MAX_COMMAND:
                await self.reply(500, "line too long")
                continue
            if verb == "QUIT":
                await self.reply(221, f"{host} closing connection")
                return
            handler = self.commands().get(verb)
            if handler is None:
                await self.reply(500, f"command {verb!r} not recognized")
            else:
                await handler(arg.strip())

    def commands(self) -> dict[str, Callable[[str], Awaitable[None]]]:
        return {"EHLO": self.ehlo, "HELO": self.helo, "MAIL": self.mail, "RCPT": self.rcpt,
                "DATA": self.data, "RSET": self.rset, "NOOP": self.noop, "VRFY": self.vrfy,
                "HELP": self.help}

    async def ehlo(self, arg: str) -> None:
        if not self.config.ehlo:
            await self.reply(502, "EHLO not implemented; say HELO")
            return
        if not arg:
            await self.reply(501, "EHLO needs a domain")
            return
        self.client_name = arg
        self.reset()
        await self.reply(250, f"{self.config.hostname} greets {arg}", "8BITMIME",
                         f"SIZE {self.config.max_size}", "HELP")

    async def helo(self, arg: str) -> None:
        if not arg:
            await self.reply(501, "HELO needs a domain")
            return
        self.client_name = arg
        self.reset()
        await self.reply(250, f"{self.config.hostname} greets {arg}")

    async def mail(self, arg: str) -> None:
        if self.client_name is None:
            await self.reply(503, "say EHLO or HELO first")
        elif self.sender is not None:
            await self.reply(503, "nested MAIL command")
        elif (address := _path(arg, "FROM:")) is None:
            await self.reply(501, "syntax: MAIL FROM:<address>")
        else:
            self.sender = address
            await self.reply(250, "OK")

    async def rcpt(self, arg: str) -> None:
        if self.sender is None:
            await self.reply(503, "need MAIL before RCPT")
        elif (address := _path(arg, "TO:")) is None or not address:
            await self.reply(501, "syntax: RCPT TO:<address>")
        elif address.lower() in {r.lower() for r in self.config.refuse}:
            await self.reply(550, f"no such user: {address}")
        else:
            self.recipients.append(address)
            await self.reply(250, "OK")

    async def data(self, arg: str) -> None:
        if self.sender is None or not self.recipients:
            await self.reply(503, "need MAIL and RCPT before DATA")
            return
        await self.reply(354, "end data with <CR><LF>.<CR><LF>")
        lines: list[bytes] = []
        size = 0
        while True:
            raw = await self.read_line(MAX_TEXT_LINE)
            if raw is None:
                return
            if raw == b".":
                break
            if raw.startswith(b"."):
                raw = raw[1:]  # RFC 5321 4.5.2: undo the transparency dot
            size += len(raw) + 2
            if size <= self.config.max_size:
                lines.append(raw)
        if size > self.config.max_size:
            await self.reply(552, f"message exceeds {self.config.max_size} bytes")
        else:
            data = b"".join(line + b"\r\n" for line in lines)
            message = ReceivedMessage(self.sender, tuple(self.recipients), data,
                                      self.client_name or "")
            self.server.messages.append(message)
            self.server.on_message(message)
            await self.reply(250, f"OK: queued as {len(self.server.messages)}")
        self.reset()

    async def rset(self, arg: str) -> None:
        self.reset()
        await self.reply(250, "OK")

    async def noop(self, arg: str) -> None:
        await self.reply(250, "OK")

    async def vrfy(self, arg: str) -> None:
        await self.reply(252, "cannot VRFY user, but will accept message and attempt delivery")

    async def help(self, arg: str) -> None:
        await self.reply(214, "commands: EHLO HELO MAIL RCPT DATA RSET NOOP VRFY HELP QUIT")


def _path(arg: str, keyword: str) -> str | None:
    """The address of ``FROM:<a> [params]`` / ``TO:<b>``, None if malformed."""
    if not arg.upper().startswith(keyword):
        return None
    rest = arg[len(keyword):].strip()
    if not rest.startswith("<") or ">" not in rest:
        return None
    return rest[1:rest.index(">")]


class SMTPServer(SessionServer):
    """The server's configuration and what it received, shared by its sessions."""

    def __init__(
        self,
        config: SMTPServerConfig | None = None,
        on_message: Callable[[ReceivedMessage], None] | None = None,
    ):
        super().__init__()
        self.config = config or SMTPServerConfig()
        #: Every message accepted, in order.
        self.messages: list[ReceivedMessage] = []
        #: Every command line received (message data excluded).
        self.received: list[str] = []
        self._on_message = on_message

    def on_message(self, message: ReceivedMessage) -> None:
        """Called for each message accepted (after it is in :attr:`messages`)."""
        if self._on_message is not None:
            self._on_message(message)

    async def session(self, stream: anyio.abc.ByteStream) -> None:
        """One SMTP session, from the greeting to QUIT or the client's going."""
        await _Session(self, stream).run()


async def serve_smtp(
    host: str = "127.0.0.1",
    port: int = 0,
    config: SMTPServerConfig | None = None,
    *,
    task_status: anyio.abc.TaskStatus[int] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Accept mail (as ``config`` says) until cancelled."""
    await SMTPServer(config).serve(host, port, task_status=task_status)


def open_smtp_server(
    config: SMTPServerConfig | None = None, host: str = "127.0.0.1", port: int = 0
) -> AbstractAsyncContextManager[SMTPServer]:
    """A :class:`SMTPServer` serving in the caller's event loop until the block exits."""
    return SMTPServer(config).open(host, port)


def running_smtp_server(
    config: SMTPServerConfig | None = None, host: str = "127.0.0.1", port: int = 0
) -> AbstractContextManager[SMTPServer]:
    """An :class:`SMTPServer` in a thread of its own; its port is ``server.port``."""
    return SMTPServer(config).running(host, port)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anyurl.schemes.mailto.loopback``: accept mail until interrupted."""
    parser = command_line("smtp", __doc__, 2525)
    parser.add_argument("--refuse", action="append", default=[], metavar="ADDRESS",
                        help="answer RCPT for this address with 550 (repeatable)")
    args = parser.parse_args(argv)

    def show(message: ReceivedMessage) -> None:
        print(f"message from <{message.sender}> to {', '.join(message.recipients)}: "
              f"{len(message.data)} bytes", flush=True)

    server = SMTPServer(SMTPServerConfig(refuse=tuple(args.refuse)), on_message=show)
    return serve_until_interrupted(lambda: server.open(args.host, args.port),
                                   backend=args.backend)


if __name__ == "__main__":
    raise SystemExit(main())
