"""A small loopback NNTP server (RFC 3977 reader subset, RFC 4643 AUTHINFO) on anyio.

For anyurl's tests, ``anyurl demo`` and users' tests that need a news server without
installing one. It serves one group of a few articles held in memory (by default
:data:`SAMPLE_GROUP` with :data:`SAMPLE_ARTICLES`; article 2 has body lines starting
with ``.``, so dot-stuffing is exercised), and speaks:

``CAPABILITIES`` ``MODE READER`` ``AUTHINFO USER|PASS`` ``GROUP`` ``LISTGROUP``
``ARTICLE|HEAD|BODY|STAT`` (number, ``<message-id>`` or current) ``OVER|XOVER``
``LIST [ACTIVE|NEWSGROUPS|OVERVIEW.FMT]`` ``DATE`` ``HELP`` ``QUIT``

Behaviour switches (:class:`NNTPServerConfig`) let tests meet the servers of the real
world: ``user``/``password`` make every reading command answer 480 until AUTHINFO
succeeds; ``rfc977`` answers CAPABILITIES and OVER with 500 as a 1980s server would
(XOVER still works); ``greeting`` sends 400/502 and closes. Pipelined commands
[RFC 3977 3.5] are answered in order, as real servers do; ``close_after`` closes a
connection after answering that many commands (a per-connection limit: pipelined
commands beyond it are left unanswered), and ``discard_pipelined`` throws away what
arrived after a command line before answering it, as RFC 3977 3.5 says some servers
do (a pipelining client waits for answers that never come). Every command line received
is kept in :attr:`NNTPServer.received` (AUTHINFO PASS masked), so a test can check what
reached the wire. Run it with::

    python -m anyurl.schemes.news.loopback --host 127.0.0.1 --port 1119 [--user U --password P]
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import anyio
import anyio.abc

from anyurl.numbers import ascii_int
from anyurl.testing._server import SessionServer, command_line, serve_until_interrupted

__all__ = [
    "SAMPLE_ARTICLES",
    "SAMPLE_GROUP",
    "Article",
    "NNTPServer",
    "NNTPServerConfig",
    "generated_articles",
    "make_article",
    "serve_nntp",
]

SAMPLE_GROUP = "anyurl.test"
MAX_LINE = 512


@dataclass(frozen=True)
class Article:
    """An article: its number in the group, its ``<message-id>``, and its text in lines."""

    number: int
    message_id: str
    headers: tuple[tuple[str, str], ...]
    body: tuple[bytes, ...]

    def header(self, name: str) -> str:
        """The value of header ``name`` (without case), empty if absent."""
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return ""

    def head_lines(self) -> list[bytes]:
        """The header lines, ``Name: value``, as bytes."""
        return [f"{k}: {v}".encode() for k, v in self.headers]

    def lines(self) -> list[bytes]:
        """The whole article: header lines, an empty line, the body lines."""
        return [*self.head_lines(), b"", *self.body]

    @property
    def size(self) -> int:
        """Its size in octets on the wire, each line with its CR LF."""
        return sum(len(line) + 2 for line in self.lines())


def make_article(group: str, number: int, subject: str, body: bytes,
                 *, domain: str = "anyurl.test") -> Article:
    """An article of ``group`` with deterministic headers; ``body`` uses LF line ends."""
    message_id = f"<article{number}@{domain}>"
    lines = tuple(body.split(b"\n")[:-1] if body.endswith(b"\n") else body.split(b"\n"))
    headers = (
        ("Path", "localhost!not-for-mail"),
        ("From", "Anyurl Tests <tests@anyurl.invalid>"),
        ("Newsgroups", group),
        ("Subject", subject),
        ("Date", f"Sat, 01 Jan 2000 00:00:{number:02d} +0000"),
        ("Message-ID", message_id),
        ("Lines", str(len(lines))),
    )
    return Article(number, message_id, headers, lines)


def generated_articles(count: int, *, group: str = SAMPLE_GROUP,
                       size: int = 1024) -> tuple[Article, ...]:
    """``count`` articles numbered from 1, each with a body of about ``size`` octets
    (lines of 64), for benchmarks and tests of many articles."""
    line = b"x" * 63 + b"\n"
    body = line * max(1, size // len(line))
    return tuple(make_article(group, n, f"Article {n}", body) for n in range(1, count + 1))


SAMPLE_ARTICLES: tuple[Article, ...] = (
    make_article(SAMPLE_GROUP, 1, "First article", b"The first article of anyurl.test.\n"),
    make_article(SAMPLE_GROUP, 2, "Dots",
                 b"A body with dots:\n.a line starting with a dot\n..two dots\n.\nend\n"),
    make_article(SAMPLE_GROUP, 3, "Third article", b"The third and last article.\n"),
)


@dataclass
class NNTPServerConfig:
    """What the server serves and how it behaves (see the module docstring)."""

    group: str = SAMPLE_GROUP
    articles: Sequence[Article] = SAMPLE_ARTICLES
    #: Extra groups for LIST: name -> articles (may be empty).
    other_groups: dict[str, Sequence[Article]] = field(
        default_factory=lambda: {"anyurl.empty": ()}
    )
    user: str | None = None
    password: str | None = None
    rfc977: bool = False
    greeting: int = 200
    #: Close each connection after answering this many commands (None: never).
    close_after: int | None = None
    #: Drop the text received after each command line before answering it.
    discard_pipelined: bool = False


class _Connection:
    def __init__(self, server: NNTPServer, stream: anyio.abc.ByteStream):
        self.server = server
        self.config = server.config
        self.stream = stream
        self.group: str | None = None
        self.current: int | None = None
        self.authenticated = self.config.user is None
        self.pending_user: str | None = None
        self.buffer = b""

    async def reply(self, line: str) -> None:
        await self.stream.send(line.encode("utf-8", "surrogateescape") + b"\r\n")

    async def block(self, line: str, lines: Sequence[bytes]) -> None:
        out = [line.encode("utf-8", "surrogateescape")]
        out += [b"." + x if x.startswith(b".") else x for x in lines]
        out.append(b".")
        await self.stream.send(b"\r\n".join(out) + b"\r\n")

    async def read_line(self) -> bytes | None:
        while b"\n" not in self.buffer:
            try:
                data = await self.stream.receive(4096)
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                return None
            self.buffer += data
            if len(self.buffer) > 64 * 1024:
                return None
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def articles(self, group: str | None = None) -> Sequence[Article]:
        name = group or self.group
        if name == self.config.group:
            return self.config.articles
        return self.config.other_groups.get(name or "", ())

    def groups(self) -> dict[str, Sequence[Article]]:
        return {self.config.group: self.config.articles, **self.config.other_groups}

    def find(self, spec: str) -> tuple[Article | None, str | None]:
        """(article, error reply) for ``<id>``, a number, or the current article."""
        if spec.startswith("<"):
            for arts in self.groups().values():
                for art in arts:
                    if art.message_id == spec:
                        return art, None
            return None, "430 No article with that message-id"
        if self.group is None:
            return None, "412 No newsgroup selected"
        if spec == "":
            if self.current is None:
                return None, "420 Current article number is invalid"
            number = self.current
        elif (asked := ascii_int(spec, max_digits=20)) is not None:
            number = asked
        else:
            return None, "501 Syntax error"
        for art in self.articles():
            if art.number == number:
                self.current = number
                return art, None
        return None, "423 No article with that number"

    async def run(self) -> None:
        greeting = self.config.greeting
        if greeting in (400, 502):
            await self.reply(f"{greeting} service not available")
            return
        await self.reply(f"{greeting} anyurl loopback NNTP server ready")
        answered = 0
        while True:
            if self.config.close_after is not None and answered >= self.config.close_after:
                return
            raw = await self.read_line()
            if raw is None:
                return
            if b"\n" in self.buffer:  # the next command came before this one's answer
                self.server.pipelined += 1
            if self.config.discard_pipelined:
                self.buffer = b""
            answered += 1
            line = raw.rstrip(b"\r").decode("utf-8", "surrogateescape")
            words = line.split()
            verb = words[0].upper() if words else ""
            shown = line
            if verb == "AUTHINFO" and len(words) > 2 and words[1].upper() == "PASS":
                shown = "AUTHINFO PASS ****"
            self.server.received.append(shown)
            if len(raw) + 1 > MAX_LINE:
                await self.reply("501 Command line too long")
                continue
            if not await self.dispatch(verb, words[1:], line):
                return

    async def dispatch(self, verb: str, args: list[str], line: str) -> bool:
        cfg = self.config
        if verb == "QUIT":
            await self.reply("205 closing connection")
            return False
        if verb == "CAPABILITIES" and not cfg.rfc977:
            caps = ["VERSION 2", "IMPLEMENTATION anyurl.schemes.news.loopback", "READER",
                    "LIST ACTIVE NEWSGROUPS OVERVIEW.FMT", "OVER"]
            if cfg.user is not None and not self.authenticated:
                caps.append("AUTHINFO USER")
            await self.block("101 Capability list:", [c.encode() for c in caps])
            return True
        if verb == "MODE" and args[:1] and args[0].upper() == "READER":
            await self.reply("201 reader mode, posting prohibited")
            return True
        if verb == "AUTHINFO":
            await self.authinfo(args, line)
            return True
        if verb == "DATE":
            await self.reply("111 " + time.strftime("%Y%m%d%H%M%S", time.gmtime()))
            return True
        if verb == "HELP":
            await self.block("100 Help text follows", [b"anyurl loopback NNTP server"])
            return True
        if verb in ("GROUP", "LISTGROUP", "ARTICLE", "HEAD", "BODY", "STAT", "OVER",
                    "XOVER", "LIST"):
            if not self.authenticated:
                await self.reply("480 Authentication required")
                return True
            if verb == "OVER" and cfg.rfc977:
                await self.reply("500 Unknown command")
                return True
            await getattr(self, "cmd_" + verb.lower())(args)
            return True
        await self.reply("500 Unknown command")
        return True

    async def authinfo(self, args: list[str], line: str) -> None:
        cfg = self.config
        sub = args[0].upper() if args else ""
        if cfg.user is None or self.authenticated:
            await self.reply("502 Command unavailable")
            return
        if sub == "USER" and len(args) > 1:
            self.pending_user = line.split(None, 2)[2]
            await self.reply("381 Password required")
        elif sub == "PASS" and len(args) > 1:
            if self.pending_user is None:
                await self.reply("482 Authentication commands issued out of sequence")
                return
            password = line.split(None, 2)[2]
            if self.pending_user == cfg.user and password == cfg.password:
                self.authenticated = True
                await self.reply("281 Authentication accepted")
            else:
                self.pending_user = None
                await self.reply("481 Authentication failed")
        else:
            await self.reply("501 Syntax error")

    async def cmd_group(self, args: list[str]) -> None:
        if len(args) != 1 or args[0] not in self.groups():
            await self.reply("411 No such newsgroup")
            return
        self.group = args[0]
        arts = self.articles()
        if arts:
            low, high = arts[0].number, arts[-1].number
            self.current = low
            await self.reply(f"211 {len(arts)} {low} {high} {self.group}")
        else:
            self.current = None
            await self.reply(f"211 0 1 0 {self.group}")

    async def cmd_listgroup(self, args: list[str]) -> None:
        if args:
            await self.cmd_group(args[:1])
            if self.group != args[0]:
                return
        elif self.group is None:
            await self.reply("412 No newsgroup selected")
            return
        arts = self.articles()
        low = arts[0].number if arts else 1
        high = arts[-1].number if arts else 0
        await self.block(f"211 {len(arts)} {low} {high} {self.group}",
                         [str(a.number).encode() for a in arts])

    async def _article(self, args: list[str], code: int, part: str) -> None:
        art, error = self.find(args[0] if args else "")
        if art is None:
            await self.reply(error or "423 No such article")
            return
        number = 0 if args and args[0].startswith("<") else art.number
        first = f"{code} {number} {art.message_id}"
        if part == "stat":
            await self.reply(first)
        elif part == "head":
            await self.block(first, art.head_lines())
        elif part == "body":
            await self.block(first, list(art.body))
        else:
            await self.block(first, art.lines())

    async def cmd_article(self, args: list[str]) -> None:
        await self._article(args, 220, "article")

    async def cmd_head(self, args: list[str]) -> None:
        await self._article(args, 221, "head")

    async def cmd_body(self, args: list[str]) -> None:
        await self._article(args, 222, "body")

    async def cmd_stat(self, args: list[str]) -> None:
        await self._article(args, 223, "stat")

    async def cmd_over(self, args: list[str]) -> None:
        if self.group is None:
            await self.reply("412 No newsgroup selected")
            return
        arts = self.articles()
        spec = args[0] if args else (str(self.current) if self.current else "")
        low_text, dash, high_text = spec.partition("-")
        low, high_given = ascii_int(low_text, max_digits=20), ascii_int(high_text, max_digits=20)
        if low is None or (high_text and high_given is None):
            await self.reply("501 Syntax error")
            return
        high = high_given if high_given is not None else (1 << 62 if dash else low)
        chosen = [a for a in arts if low <= a.number <= high]
        if not chosen:
            await self.reply("423 No articles in that range")
            return
        lines = []
        for a in chosen:
            fields = [str(a.number), a.header("Subject"), a.header("From"), a.header("Date"),
                      a.message_id, a.header("References"), str(a.size), str(len(a.body))]
            lines.append("\t".join(fields).encode("utf-8", "surrogateescape"))
        await self.block("224 Overview information follows", lines)

    async def cmd_xover(self, args: list[str]) -> None:
        await self.cmd_over(args)

    async def cmd_list(self, args: list[str]) -> None:
        keyword = args[0].upper() if args else "ACTIVE"
        groups = self.groups()
        if keyword == "ACTIVE":
            lines = []
            for name, arts in groups.items():
                low = arts[0].number if arts else 1
                high = arts[-1].number if arts else 0
                lines.append(f"{name} {high} {low} n".encode())
            await self.block("215 list of newsgroups follows", lines)
        elif keyword == "NEWSGROUPS":
            await self.block("215 descriptions follow",
                             [f"{name}\tanyurl test group".encode() for name in groups])
        elif keyword == "OVERVIEW.FMT":
            await self.block("215 Order of fields in overview database.",
                             [b"Subject:", b"From:", b"Date:", b"Message-ID:",
                              b"References:", b":bytes", b":lines"])
        else:
            await self.reply("501 Unknown LIST keyword")


class NNTPServer(SessionServer):
    """The server state shared by its connections: configuration and a command log."""

    def __init__(self, config: NNTPServerConfig | None = None):
        super().__init__()
        self.config = config or NNTPServerConfig()
        self.received: list[str] = []
        #: Commands that had arrived before the previous command's answer was sent.
        self.pipelined = 0

    async def session(self, stream: anyio.abc.ByteStream) -> None:
        """One NNTP session, from the greeting to QUIT or the client's going."""
        await _Connection(self, stream).run()


async def serve_nntp(
    host: str = "127.0.0.1",
    port: int = 0,
    config: NNTPServerConfig | None = None,
    *,
    task_status: anyio.abc.TaskStatus[int] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Serve the sample group (or ``config``) until cancelled."""
    await NNTPServer(config).serve(host, port, task_status=task_status)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anyurl.schemes.news.loopback``: serve until interrupted."""
    parser = command_line("nntp", __doc__, 1119)
    parser.add_argument("--user", help="require AUTHINFO USER/PASS with this user")
    parser.add_argument("--password", help="the password for --user")
    parser.add_argument("--rfc977", action="store_true",
                        help="behave as an old server: no CAPABILITIES, no OVER (XOVER only)")
    parser.add_argument("--close-after", type=int, metavar="N",
                        help="close each connection after answering N commands")
    parser.add_argument("--discard-pipelined", action="store_true",
                        help="throw away what follows a command line, as some old servers do")
    parser.add_argument("--articles", type=int, metavar="N",
                        help="serve N generated articles in the group instead of the sample")
    args = parser.parse_args(argv)
    config = NNTPServerConfig(user=args.user, password=args.password, rfc977=args.rfc977,
                              close_after=args.close_after,
                              discard_pipelined=args.discard_pipelined)
    if args.articles:
        config.articles = generated_articles(args.articles)
    server = NNTPServer(config)
    return serve_until_interrupted(lambda: server.open(args.host, args.port),
                                   backend=args.backend)


if __name__ == "__main__":
    raise SystemExit(main())
