"""A small loopback telnet server (RFC 854): option negotiation, a login, a tiny shell.

For anyurl's tests, ``anyurl demo`` and users' tests that need a telnet peer without
installing telnetd. On connect it offers to echo and to suppress go-ahead (``IAC WILL
ECHO``, ``IAC WILL SGA``) and asks the client's terminal type (``IAC DO TTYPE``, then
``SB TTYPE SEND``); every other option is refused (``DO x`` gets ``WONT x``, ``WILL x``
gets ``DONT x``), and it answers only requests that change an option's state, so the
negotiation cannot loop. It then prints a banner and, when a user is configured, the
``login:`` and ``Password:`` prompts of a Unix login (the password is not echoed;
a wrong one gives ``Login incorrect`` and the prompt again, three times at most). After
the login comes a shell prompt (``$ ``) that understands:

``echo WORDS`` (``$USER`` and ``$TERM`` expanded) ``env`` ``whoami`` ``help``
``exit`` / ``logout`` / ``quit`` (the server closes the connection)

and answers anything else ``NAME: command not found``. A typed line is echoed when the
client let the server echo. The server is written independently of anyurl's telnet
core (:mod:`anyurl.protocols.telnet`), so a test against it checks the client against a
second reading of RFC 854, not against itself.

Every line typed is kept in :attr:`TelnetServer.received` (the password as ``****``),
every negotiation in :attr:`TelnetServer.negotiation` (``"< DO ECHO"`` received,
``"> WILL ECHO"`` sent) and every terminal type a client reported in
:attr:`TelnetServer.terminal_types`. In a test on either anyio backend::

    config = TelnetServerConfig(user="alice", password="secret")
    async with open_telnet_server(config) as server:
        url = f"telnet://alice:secret@127.0.0.1:{server.port}/"

(or ``port = await task_group.start(server.serve)`` in a task group of your own); from
synchronous code, ``with running_telnet_server(config) as server:`` runs it in a thread.
From a shell::

    python -m anyurl.schemes.telnet.loopback --host 127.0.0.1 --port 2323 [--user U [--password P]]
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from dataclasses import dataclass

import anyio
import anyio.abc

from anyurl.testing._server import SessionServer, command_line, serve_until_interrupted

__all__ = [
    "TelnetServer",
    "TelnetServerConfig",
    "open_telnet_server",
    "running_telnet_server",
    "serve_telnet",
]

# The bytes of RFC 854 and the options used here (RFC 857, 858, 1091), written out again
# rather than imported from the client core (see the module docstring).
IAC, DONT, DO, WONT, WILL, SB, GA, SE = 255, 254, 253, 252, 251, 250, 249, 240
ECHO, SGA, TTYPE = 1, 3, 24
TTYPE_IS, TTYPE_SEND = 0, 1
_VERBS = {DO: "DO", DONT: "DONT", WILL: "WILL", WONT: "WONT"}
_OPTIONS = {0: "BINARY", 1: "ECHO", 3: "SGA", 5: "STATUS", 24: "TTYPE", 31: "NAWS",
            32: "TSPEED", 33: "LFLOW", 34: "LINEMODE", 36: "OLD-ENVIRON", 39: "NEW-ENVIRON"}
#: Options the server performs itself, and options it lets the client perform.
_OURS = frozenset({ECHO, SGA})
_THEIRS = frozenset({SGA, TTYPE})
MAX_LINE = 1024
MASK = "****"


def _name(option: int) -> str:
    return _OPTIONS.get(option, str(option))


@dataclass
class TelnetServerConfig:
    """What the server asks and answers (see the module docstring)."""

    #: The login name; None: no login, the shell prompt at once.
    user: str | None = None
    #: The password; None: a login without a ``Password:`` prompt.
    password: str | None = None
    banner: str = "anyurl loopback telnet server"
    prompt: str = "$ "
    #: Ask the client's terminal type (``IAC DO TTYPE``).
    ask_terminal_type: bool = True
    #: Wrong logins before the server hangs up.
    max_attempts: int = 3


class _Connection:
    """One session: the byte-level parser, the negotiation state and the dialogue."""

    def __init__(self, server: TelnetServer, stream: anyio.abc.ByteStream):
        self.server = server
        self.config = server.config
        self.stream = stream
        self.state = "data"  # data, iac, verb, sb, sb-iac
        self.verb = 0
        self.sb = bytearray()
        self.line = bytearray()
        self.lines: deque[bytes] = deque()
        self.cr = False
        self.outgoing = bytearray()
        #: Options enabled on each side, and the requests we sent that await an answer.
        self.us: set[int] = set()
        self.them: set[int] = set()
        self.asked: set[tuple[int, int]] = set()
        self.terminal_type = "unknown"
        self.user = "nobody"

    # -- negotiation -----------------------------------------------------------------

    def _send_option(self, verb: int, option: int) -> None:
        self.outgoing += bytes((IAC, verb, option))
        self.server.negotiation.append(f"> {_VERBS[verb]} {_name(option)}")

    def _ask(self, verb: int, option: int) -> None:
        self.asked.add((verb, option))
        self._send_option(verb, option)

    def _negotiate(self, verb: int, option: int) -> None:
        self.server.negotiation.append(f"< {_VERBS[verb]} {_name(option)}")
        if verb in (DO, DONT):
            ours, agree, refuse, wanted = self.us, WILL, WONT, option in _OURS
            answered = (WILL, option) in self.asked or (WONT, option) in self.asked
            self.asked -= {(WILL, option), (WONT, option)}
        else:
            ours, agree, refuse, wanted = self.them, DO, DONT, option in _THEIRS
            answered = (DO, option) in self.asked or (DONT, option) in self.asked
            self.asked -= {(DO, option), (DONT, option)}
        if verb in (DO, WILL):
            if option in ours:
                return  # already on: never acknowledge an acknowledgement
            if wanted:
                ours.add(option)
                if not answered:
                    self._send_option(agree, option)
                if verb == WILL and option == TTYPE:
                    self.outgoing += bytes((IAC, SB, TTYPE, TTYPE_SEND, IAC, SE))
                    self.server.negotiation.append("> SB TTYPE SEND")
            elif not answered:
                self._send_option(refuse, option)
        elif option in ours:
            ours.discard(option)
            if not answered:
                self._send_option(refuse, option)

    def _subnegotiation(self, data: bytes) -> None:
        if len(data) >= 2 and data[0] == TTYPE and data[1] == TTYPE_IS:
            name = data[2:].decode("ascii", "replace")
            self.terminal_type = name
            self.server.terminal_types.append(name)
            self.server.negotiation.append(f"< SB TTYPE IS {name}")
        else:
            self.server.negotiation.append(f"< SB {_name(data[0]) if data else '?'} ...")

    # -- bytes in ----------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        """Parse ``data``: commands are answered into ``outgoing``, lines queued."""
        for byte in data:
            if self.state == "data":
                if byte == IAC:
                    self.state = "iac"
                else:
                    self._data(byte)
            elif self.state == "iac":
                if byte in _VERBS:
                    self.verb, self.state = byte, "verb"
                elif byte == SB:
                    self.sb.clear()
                    self.state = "sb"
                elif byte == IAC:  # an escaped 255 in the data
                    self._data(byte)
                    self.state = "data"
                else:  # NOP, GA, AYT ...: nothing to do for a line-at-a-time server
                    self.state = "data"
            elif self.state == "verb":
                self._negotiate(self.verb, byte)
                self.state = "data"
            elif self.state == "sb":
                if byte == IAC:
                    self.state = "sb-iac"
                else:
                    self.sb.append(byte)
            elif self.state == "sb-iac":
                if byte == SE:
                    self._subnegotiation(bytes(self.sb))
                    self.state = "data"
                else:  # IAC IAC inside a sub-negotiation is a data 255
                    self.sb.append(byte)
                    self.state = "sb"

    def _data(self, byte: int) -> None:
        if self.cr:
            self.cr = False
            if byte in (0, 10):  # CR NUL and CR LF both end the line
                return
        if byte in (13, 10):
            self.cr = byte == 13
            self.lines.append(bytes(self.line))
            self.line.clear()
        elif byte in (8, 127):
            del self.line[-1:]
        elif len(self.line) < MAX_LINE:
            self.line.append(byte)

    # -- the dialogue --------------------------------------------------------------------

    async def flush(self) -> None:
        if self.outgoing:
            data, self.outgoing = bytes(self.outgoing), bytearray()
            await self.stream.send(data)

    async def write(self, text: str) -> None:
        """Send ``text`` as NVT data (``\\n`` becomes ``CR LF``, 255 doubled)."""
        data = text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8")
        self.outgoing += data.replace(bytes((IAC,)), bytes((IAC, IAC)))
        await self.flush()

    async def prompt(self, text: str) -> None:
        await self.write(text)
        if SGA not in self.us:  # RFC 854's go-ahead: your turn to type
            self.outgoing += bytes((IAC, GA))
            await self.flush()

    async def read_line(self, *, hidden: bool = False) -> str | None:
        """The next typed line (echoed if the client lets us echo), None at the end."""
        while not self.lines:
            try:
                data = await self.stream.receive(4096)
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                return None
            self.feed(data)
            await self.flush()
        line = self.lines.popleft().decode("utf-8", "replace")
        self.server.received.append(MASK if hidden else line)
        if ECHO in self.us:
            await self.write(("" if hidden else line) + "\n")
        return line

    async def run(self) -> None:
        self._ask(WILL, ECHO)
        self._ask(WILL, SGA)
        if self.config.ask_terminal_type:
            self._ask(DO, TTYPE)
        await self.write(self.config.banner + "\n\n")
        if self.config.user is not None and not await self.login():
            return
        while True:
            await self.prompt(self.config.prompt)
            line = await self.read_line()
            if line is None:
                return
            answer = self.command(line)
            if answer is None:
                await self.write("Goodbye.\n")
                return
            await self.write(answer)

    async def login(self) -> bool:
        """The login prompts; True once the user is in."""
        for _ in range(self.config.max_attempts):
            await self.prompt("login: ")
            name = await self.read_line()
            if name is None:
                return False
            password: str | None = None
            if self.config.password is not None:
                await self.prompt("Password: ")
                password = await self.read_line(hidden=True)
                if password is None:
                    return False
            if name == self.config.user and password == self.config.password:
                self.user = name
                await self.write(f"Welcome, {name}.\n")
                return True
            await self.write("\nLogin incorrect\n")
        return False

    def command(self, line: str) -> str | None:
        """The shell's answer to ``line`` (with its line end), None to hang up."""
        words = line.split()
        if not words:
            return ""
        verb, args = words[0], words[1:]
        if verb in ("exit", "logout", "quit"):
            return None
        if verb == "echo":
            text = " ".join(args).replace("$USER", self.user)
            return text.replace("$TERM", self.terminal_type) + "\n"
        if verb == "env":
            return f"USER={self.user}\nTERM={self.terminal_type}\n"
        if verb == "whoami":
            return self.user + "\n"
        if verb == "help":
            return "commands: echo env whoami help exit\n"
        return f"{verb}: command not found\n"


class TelnetServer(SessionServer):
    """The server's configuration and what its sessions saw, shared by its connections."""

    def __init__(self, config: TelnetServerConfig | None = None):
        super().__init__()
        self.config = config or TelnetServerConfig()
        self.received: list[str] = []
        self.negotiation: list[str] = []
        self.terminal_types: list[str] = []

    async def session(self, stream: anyio.abc.ByteStream) -> None:
        """One telnet session: negotiation, the login, the shell until ``exit``."""
        await _Connection(self, stream).run()


async def serve_telnet(
    host: str = "127.0.0.1",
    port: int = 0,
    config: TelnetServerConfig | None = None,
    *,
    task_status: anyio.abc.TaskStatus[int] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Serve telnet sessions (as ``config`` says) until cancelled."""
    await TelnetServer(config).serve(host, port, task_status=task_status)


def open_telnet_server(
    config: TelnetServerConfig | None = None, host: str = "127.0.0.1", port: int = 0
) -> AbstractAsyncContextManager[TelnetServer]:
    """A :class:`TelnetServer` serving in the caller's event loop until the block exits."""
    return TelnetServer(config).open(host, port)


def running_telnet_server(
    config: TelnetServerConfig | None = None, host: str = "127.0.0.1", port: int = 0
) -> AbstractContextManager[TelnetServer]:
    """A :class:`TelnetServer` in a thread of its own; its port is ``server.port``."""
    return TelnetServer(config).running(host, port)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anyurl.schemes.telnet.loopback``: serve until interrupted."""
    parser = command_line("telnet", __doc__, 2323)
    parser.add_argument("--user", help="ask for a login as this user")
    parser.add_argument("--password", help="the password for --user (none: no prompt)")
    args = parser.parse_args(argv)
    server = TelnetServer(TelnetServerConfig(user=args.user, password=args.password))
    return serve_until_interrupted(lambda: server.open(args.host, args.port),
                                   backend=args.backend)


if __name__ == "__main__":
    raise SystemExit(main())
