"""The FTP client protocol core (RFC 959, 1123, 2428, 3659), sans-I/O, for RFC 1738 URLs.

Strategy
--------
An ``ftp://`` URL is a small program of FTP commands (RFC 1738 section 3.2.2). This module
knows that program and the control-connection dialogue, and nothing about sockets: the
scheme's package (:mod:`anyurl.schemes.ftp`: its control and data modules) moves bytes
between it and the network, so every
framing rule here is tested by feeding bytes, one at a time and all at once.

The control connection is a strict alternation: the client sends one command and the
server answers with one *reply*, possibly preceded by one positive preliminary reply
(1yz, "the transfer starts now") for transfer commands. :class:`FTPClient` enforces that
alternation with explicit states (:class:`State`, transitions in :data:`TRANSITIONS`),
so a handler bug such as sending a command while a reply is still owed fails loudly
instead of desynchronising replies and commands forever after.

Reply framing (RFC 959 section 4.2) is the subtle part:

* a single-line reply is ``ddd<SP>text<CRLF>``;
* a multi-line reply starts ``ddd-text<CRLF>`` and ends at the first later line that
  starts with the *same* three digits followed by a space; lines in between are text
  even when they begin with other digits, or with the same digits and a hyphen;
* a line that is exactly ``ddd`` (no space, seen from sloppy servers) also ends a reply;
* decisions use the first digit only (RFC 1123 4.1.2.11); the text is for humans.

Lines end with CRLF; a bare LF is accepted too (liberal in what we accept). Telnet
``IAC`` sequences are dropped from reply lines (RFC 1123 4.1.2.12 forbids us to
negotiate, but a server may still send them). Reply text is decoded as UTF-8 with
``surrogateescape``, the same convention as :func:`anyurl.url.encode_wire`, so a
directory name from a ``257`` reply round-trips to the exact octets in a later ``CWD``.

Commands are :class:`Command` values; :meth:`Command.wire` refuses a CR or LF inside an
argument whatever the URL parser already checked, because an embedded line end would
smuggle a second command onto the wire (RFC 1738 section 6).

Typecode guessing (RFC 1738 section 3.2.3)
------------------------------------------
Without ``;type=``, the client must guess. anyurl's rule, :func:`retrieval_for`:

* an empty name (the URL ends with ``/`` or has no path) is a directory: it is listed
  with ``NLST`` (or ``MLSD`` when the caller asks for it: :data:`LISTING_VERBS`);
* any other name is fetched in image type, ``TYPE I``: the server's bytes unchanged, as
  curl and wget fetch it. A guess from the name would alter an archive: a ``.txt`` file
  with CR LF fetched in ``TYPE A`` is saved with LF, so its length, its digest and a
  WARC record differ from the server's file, and a byte offset (``REST``) means nothing;
* the caller may ask otherwise (:data:`ASCII_MODES`): ``"on"`` fetches every such name
  in ``TYPE A`` (curl's ``-B``), ``"guess"`` applies the name guess the RFC suggests
  (:func:`guess_type`: a suffix in :data:`TEXT_SUFFIXES` is text).

An explicit ``;type=a`` or ``;type=i`` is always obeyed.
"""

from __future__ import annotations

import datetime
import enum
import re
import time
from dataclasses import dataclass
from typing import Final, Literal

from anyurl.numbers import ascii_int, is_ascii_digits
from anyurl.protocols.common import (
    NEED_DATA,
    CommandLine,
    ConnectionClosed,
    CoreProtocolError,
    LocalProtocolError,
    NeedData,
    RemoteProtocolError,
)
from anyurl.protocols.replies import (
    Grammar,
    Reply,
    ReplyReader,
)
from anyurl.schemes.ftp.view import FTPPath
from anyurl.url import encode_wire

__all__ = [
    "ASCII_MODES",
    "LISTING_VERBS",
    "NEED_DATA",
    "TEXT_SUFFIXES",
    "TRANSITIONS",
    "ASCIIDecoder",
    "Command",
    "ConnectionClosed",
    "FTPClient",
    "FTPCommandError",
    "FTPCoreError",
    "FTPReplyError",
    "ListEntry",
    "NeedData",
    "Reply",
    "ReplyReader",
    "Retrieval",
    "State",
    "fact_size",
    "fact_time",
    "format_eprt",
    "format_port",
    "guess_type",
    "parse_213_size",
    "parse_227",
    "parse_229",
    "parse_257",
    "parse_list",
    "parse_mlsd",
    "parse_nlst",
    "read_list",
    "retrieval_commands",
    "retrieval_for",
]


#: How a name without ``;type=`` is fetched: ``"off"`` in image type (the default, as
#: curl and wget do: the archive holds the server's bytes), ``"on"`` in ``TYPE A``
#: (curl's ``-B``/``--use-ascii``), ``"guess"`` by the name (:func:`guess_type`).
ASCII_MODES: Final[tuple[str, ...]] = ("off", "on", "guess")

#: Suffixes guessed to be text (``TYPE A``) under ``ascii="guess"``.
TEXT_SUFFIXES: Final[frozenset[str]] = frozenset(
    {
        "txt", "text", "asc", "md", "rst", "me", "1st", "readme", "faq", "doc",
        "htm", "html", "xml", "json", "csv", "tsv", "css", "js",
        "c", "h", "cc", "cpp", "hpp", "py", "pl", "sh", "tcl", "java", "el", "lisp",
        "tex", "bib", "ps", "eps", "diff", "patch", "conf", "cfg", "ini", "log", "lst",
    }
)

#: Verbs whose argument is a secret: shown as ``****`` in traces and plans.
SECRET_VERBS: Final[frozenset[str]] = frozenset({"PASS", "ACCT"})
MASK = "****"

#: Commands that open a data connection: a 1yz preliminary reply may precede the final one.
TRANSFER_VERBS: Final[frozenset[str]] = frozenset({"RETR", "NLST", "LIST", "STOR", "MLSD"})


class FTPCoreError(CoreProtocolError):
    """Base of this core\'s errors: catch a side (:class:`FTPReplyError`,
    :class:`FTPCommandError`)."""


class FTPReplyError(FTPCoreError, RemoteProtocolError):
    """The server broke the protocol: bytes an FTP client cannot accept."""


class FTPCommandError(FTPCoreError, LocalProtocolError):
    """Our side asked for something the protocol cannot say (a command)."""


# -- events -------------------------------------------------------------------------------


Event = Reply | ConnectionClosed


# -- commands -----------------------------------------------------------------------------


_VERB = re.compile(r"[A-Za-z]{3,4}")


@dataclass(frozen=True)
class Command(CommandLine):
    """One command line: ``verb`` and an optional ``argument``.

    ``argument=None`` sends the verb alone (``PWD``); ``argument=""`` sends the verb, a
    space and nothing (``CWD `` with a null argument, as RFC 1738 3.2.2 asks for an empty
    ``<cwd>`` segment).
    """

    verb: str
    argument: str | None = None

    def wire(self) -> bytes:
        """The exact octets to send, CRLF included; refuses an embedded line end."""
        if not _VERB.fullmatch(self.verb):
            raise FTPCommandError(f"not an FTP command verb: {self.verb!r}")
        if self.argument is None:
            return self.verb.encode("ascii") + b"\r\n"
        arg = encode_wire(self.argument)
        if b"\r" in arg or b"\n" in arg:
            raise FTPCommandError(
                f"refusing to send {self.verb} with a CR or LF in its argument: it would "
                "end the command line early"
            )
        return self.verb.encode("ascii") + b" " + arg + b"\r\n"

    def display(self) -> str:
        """The command for traces and plans, secrets masked."""
        if self.argument is None:
            return self.verb
        if self.verb.upper() in SECRET_VERBS:
            return f"{self.verb} {MASK}"
        return f"{self.verb} {self.argument}"

    @property
    def is_transfer(self) -> bool:
        """Whether the command opens a data transfer (RETR, NLST, LIST, MLSD ...)."""
        return self.verb.upper() in TRANSFER_VERBS



# -- the client state machine ------------------------------------------------------------


class State(enum.Enum):
    """Where the control dialogue stands, from the client's side."""

    AWAIT_GREETING = "await-greeting"  # connected; the 220 (maybe after 120s) is owed
    IDLE = "idle"  # the client may send the next command
    AWAIT_REPLY = "await-reply"  # a command was sent; its reply is owed
    AWAIT_TRANSFER_END = "await-transfer-end"  # a 1yz came; the final reply is owed
    CLOSED = "closed"  # the server hung up or said 421; nothing more to do


# (state, reply category) -> next state. Category 0 stands for ConnectionClosed. A 421
# ("closing control connection") always leads to CLOSED and is handled before the table.
TRANSITIONS: Final[dict[tuple[State, int], State]] = {
    (State.AWAIT_GREETING, 1): State.AWAIT_GREETING,
    (State.AWAIT_GREETING, 2): State.IDLE,
    (State.AWAIT_GREETING, 4): State.CLOSED,
    (State.AWAIT_GREETING, 5): State.CLOSED,
    (State.AWAIT_REPLY, 1): State.AWAIT_TRANSFER_END,
    (State.AWAIT_REPLY, 2): State.IDLE,
    (State.AWAIT_REPLY, 3): State.IDLE,
    (State.AWAIT_REPLY, 4): State.IDLE,
    (State.AWAIT_REPLY, 5): State.IDLE,
    (State.AWAIT_TRANSFER_END, 2): State.IDLE,
    (State.AWAIT_TRANSFER_END, 4): State.IDLE,
    (State.AWAIT_TRANSFER_END, 5): State.IDLE,
}


class FTPClient:
    """The client side of one control connection.

    ``receive_data(bytes)`` / ``next_event()`` for what the server says, ``send(Command)``
    for what we say. States and transitions are in :class:`State` and :data:`TRANSITIONS`;
    out-of-order use raises :class:`FTPCoreError`.
    """

    def __init__(self) -> None:
        self.state = State.AWAIT_GREETING
        self.command: Command | None = None  # the command whose reply is owed
        self._reader = ReplyReader(Grammar.FREE_TEXT, reply_error=FTPReplyError,
                                   command_error=FTPCommandError)

    def receive_data(self, data: bytes) -> None:
        """Bytes from the control connection (``b""`` when the server closed it)."""
        self._reader.receive_data(data)

    @property
    def pending(self) -> bool:
        """Whether any bytes of a reply are buffered: without them :meth:`next_event`
        can only say ``NEED_DATA`` (unless the connection ended), so a caller may read
        first and ask once."""
        return self._reader.pending

    @property
    def buffered(self) -> int:
        """Octets received and not yet handed out as replies (a reader that feeds the
        core while nobody asks bounds itself by this)."""
        return self._reader.buffered

    def next_event(self) -> Event | NeedData:
        """The next reply (or ``ConnectionClosed``), or ``NEED_DATA``; the state follows it."""
        event = self._reader.next_event()
        if isinstance(event, NeedData):
            return event
        if isinstance(event, ConnectionClosed):
            # Expected while idle or after a 421; with a reply owed it cuts the dialogue.
            expected = event.expected and self.state in (State.IDLE, State.CLOSED)
            self.state = State.CLOSED
            return ConnectionClosed(expected=expected, partial=event.partial)
        if event.code == 421:
            self.state = State.CLOSED
            return event
        if self.state in (State.IDLE, State.CLOSED):
            raise FTPReplyError(f"a reply nobody asked for: {event.line!r}")
        if self.state is State.AWAIT_TRANSFER_END and event.category in (1, 3):
            raise FTPReplyError(f"reply {event.line!r} after a preliminary reply")
        nxt = TRANSITIONS.get((self.state, event.category))
        if nxt is None:
            raise FTPReplyError(f"reply {event.line!r} is not allowed here")
        if (
            nxt is State.AWAIT_TRANSFER_END
            and self.command is not None
            and not self.command.is_transfer
        ):
            # A 1yz to a command that opens no data connection: RFC 959 allows it only
            # for transfers, but tolerate it and keep waiting for the real reply.
            nxt = State.AWAIT_REPLY
        self.state = nxt
        if nxt is State.IDLE:
            self.command = None
        return event

    def send(self, command: Command) -> bytes:
        """The bytes of ``command``; only when no reply is owed."""
        if self.state is not State.IDLE:
            raise FTPCommandError(f"cannot send {command.verb} in state {self.state.value}")
        data = command.wire()
        self.state = State.AWAIT_REPLY
        self.command = command
        return data

    def send_abort(self) -> bytes:
        """``ABOR`` during a transfer (or any time): the state becomes CLOSED for reuse.

        After an abort the replies owed (426 then 226, in server-dependent order) are not
        worth reading: the handler drops the connection, so the core refuses more commands.
        """
        self.state = State.CLOSED
        return Command("ABOR").wire()


# -- reply parsers ------------------------------------------------------------------------

_PASV = re.compile(r"(\d{1,3}),(\d{1,3}),(\d{1,3}),(\d{1,3}),(\d{1,3}),(\d{1,3})", re.ASCII)
_EPSV = re.compile(r"\((.)\1\1(\d{1,5})\1\)", re.ASCII)


def parse_227(reply: Reply) -> tuple[str, int]:
    """``(host, port)`` of a ``227`` reply; the six numbers are found anywhere in the text."""
    m = _PASV.search(reply.all_text)
    if m is None:
        raise FTPReplyError(f"no h1,h2,h3,h4,p1,p2 in the PASV reply {reply.line!r}")
    nums = [int(x) for x in m.groups()]
    if any(n > 255 for n in nums):
        raise FTPReplyError(f"a number above 255 in the PASV reply {reply.line!r}")
    return ".".join(str(n) for n in nums[:4]), nums[4] * 256 + nums[5]


def parse_229(reply: Reply) -> int:
    """The port of a ``229 ... (|||port|)`` reply (RFC 2428 section 3)."""
    m = _EPSV.search(reply.all_text)
    if m is None:
        raise FTPReplyError(f"no (|||port|) in the EPSV reply {reply.line!r}")
    port = int(m.group(2))
    if not 0 < port < 65536:
        raise FTPReplyError(f"port {port} out of range in the EPSV reply {reply.line!r}")
    return port


def parse_257(reply: Reply) -> str | None:
    """The directory of a ``257 "dir" ...`` reply (``""`` inside is one quote), or None."""
    text = reply.text
    if not text.startswith('"'):
        return None
    out = []
    i = 1
    while i < len(text):
        ch = text[i]
        if ch == '"':
            if text[i + 1 : i + 2] == '"':
                out.append('"')
                i += 2
                continue
            return "".join(out)
        out.append(ch)
        i += 1
    return None


#: A SIZE answer longer than this is no file size (2**64 has 20 digits).
MAX_SIZE_DIGITS = 20


def parse_213_size(reply: Reply) -> int | None:
    """The size of a ``213 <digits>`` SIZE reply, or None when the text is not a number.

    Raises :class:`FTPReplyError` for a number of more than :data:`MAX_SIZE_DIGITS`
    digits: a server claiming such a size is lying, and converting 5000 digits is a
    cost (and, past 4300, an error) a server must not be able to impose.
    """
    text = reply.text.strip()
    if not is_ascii_digits(text):
        return None
    size = ascii_int(text, max_digits=MAX_SIZE_DIGITS)
    if size is None:
        raise FTPReplyError(f"a SIZE reply of {len(text)} digits: {reply.line[:40]!r}...")
    return size


def format_port(host: str, port: int) -> str:
    """The argument of ``PORT``: ``h1,h2,h3,h4,p1,p2``."""
    return ",".join([*host.split("."), str(port >> 8), str(port & 0xFF)])


def format_eprt(host: str, port: int) -> str:
    """The argument of ``EPRT``: ``|1|host|port|`` or ``|2|host|port|`` for IPv6."""
    family = 2 if ":" in host else 1
    return f"|{family}|{host}|{port}|"


# -- ASCII type ---------------------------------------------------------------------------


class ASCIIDecoder:
    """CRLF to ``\\n`` for ``TYPE A`` data, in C-speed ``bytes.replace`` per chunk.

    A CR that ends a chunk is held back until the next chunk shows whether an LF
    follows; a CR not followed by LF is data and is kept.
    """

    def __init__(self) -> None:
        self._held_cr = False

    def feed(self, chunk: bytes) -> bytes:
        """``chunk`` with CR LF as LF; a CR at the end waits for the next chunk."""
        if self._held_cr:
            chunk = b"\r" + chunk
            self._held_cr = False
        if chunk.endswith(b"\r"):
            chunk = chunk[:-1]
            self._held_cr = True
        return chunk.replace(b"\r\n", b"\n")

    def flush(self) -> bytes:
        held, self._held_cr = self._held_cr, False
        return b"\r" if held else b""


# -- the RFC 1738 program ----------------------------------------------------------------

Mode = Literal["list", "A", "I"]

#: The listing command of each listing mode (``FTPOptions.listing``): names only
#: (``NLST``, RFC 959), or one line of facts per entry (``MLSD``, RFC 3659 7), which
#: says what is a directory. A server without the one asked for gets the next in
#: line (each on 500 or 502): NLST, then LIST for names; MLSD, then LIST (asked as
#: ``LIST -a``, read by :func:`read_list` for types, sizes, times and link targets, as
#: wget and curl read it), then NLST, for facts.
LISTING_VERBS: Final[dict[str, tuple[str, ...]]] = {
    "nlst": ("NLST", "LIST"),
    "mlsd": ("MLSD", "LIST", "NLST"),
}


def guess_type(name: str) -> Literal["A", "I"]:
    """``"A"`` for a name with a text suffix, else ``"I"``: RFC 1738 3.2.3's guess.

    Used only when asked (``ascii="guess"``): the guess changes the bytes of every text
    file with CR LF, which an archive must not do (see the module docstring).
    """
    base = name.rsplit("/", 1)[-1]
    if "." not in base:
        return "I"
    suffix = base.rsplit(".", 1)[-1].lower()
    return "A" if suffix in TEXT_SUFFIXES else "I"


@dataclass(frozen=True)
class Retrieval:
    """What an ftp url-path asks for: the CWD steps, the name and how to fetch it.

    ``guessed`` is true when the URL had no typecode, so ``mode`` is anyurl's guess;
    only then may a failed ``RETR`` be retried as a directory listing.
    """

    cwd: tuple[str, ...]
    name: str
    mode: Mode
    guessed: bool


def retrieval_for(parts: FTPPath, ascii: str = "off") -> Retrieval:
    """The retrieval of RFC 1738 3.2.2-3.2.3 for a decoded url-path.

    ``ascii`` (one of :data:`ASCII_MODES`) decides the type of a file named without a
    typecode; image type by default, so the bytes saved are the server's.
    """
    if ascii not in ASCII_MODES:
        raise FTPCommandError(f"ascii={ascii!r} is not one of {', '.join(ASCII_MODES)}")
    for segment in (*parts.cwd, parts.name):
        if "\r" in segment or "\n" in segment:
            raise FTPCommandError("a CR or LF in an ftp path segment would end a command early")
    if parts.typecode == "d":
        return Retrieval(parts.cwd, parts.name, "list", guessed=False)
    if parts.typecode in ("a", "i") and parts.name == "":
        # ";type=a" on a directory path names no file: SIZE and RETR would go out with
        # no argument. The URL names the directory, so it is listed, as for ";type=d".
        return Retrieval(parts.cwd, "", "list", guessed=False)
    if parts.typecode in ("a", "i"):
        return Retrieval(parts.cwd, parts.name, "A" if parts.typecode == "a" else "I", False)
    if parts.name == "":
        return Retrieval(parts.cwd, "", "list", guessed=True)
    if ascii == "guess":
        return Retrieval(parts.cwd, parts.name, guess_type(parts.name), guessed=True)
    return Retrieval(parts.cwd, parts.name, "A" if ascii == "on" else "I", guessed=True)


def retrieval_commands(
    retrieval: Retrieval,
    *,
    offset: int = 0,
    data_command: Command = Command("EPSV"),
    ask_size: bool = True,
    listing: str = "NLST",
) -> list[Command]:
    """The commands after login for one retrieval, in order, on the happy path.

    The one source of both ``--plan`` and the handler's dialogue: the handler walks this
    list, sending each command and deciding on its reply, so the two cannot drift.
    ``data_command`` stands where the data connection is opened (EPSV, or EPRT in active
    mode; the handler may fall back to PASV or PORT there).

    CWD per segment; then ``NLST [name]`` for a listing (``listing`` names another
    listing verb: ``MLSD``), else ``TYPE``, ``SIZE`` (image
    type only: in ASCII type the count depends on line-end conversion), the data
    connection command, ``REST`` when resuming an image transfer (it must be the last
    command before the transfer, RFC 3659 5.3) and ``RETR``.
    """
    commands = [Command("CWD", segment) for segment in retrieval.cwd]
    if retrieval.mode == "list":
        commands.append(data_command)
        commands.append(Command(listing, retrieval.name or None))
        return commands
    commands.append(Command("TYPE", retrieval.mode))
    if retrieval.mode == "I" and ask_size:
        commands.append(Command("SIZE", retrieval.name))
    commands.append(data_command)
    if offset and retrieval.mode == "I":
        commands.append(Command("REST", str(offset)))
    commands.append(Command("RETR", retrieval.name))
    return commands


# -- listings -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ListEntry:
    """One entry of a directory listing: its name, and whether it is a directory.

    ``is_directory`` is None when the listing does not say (``NLST`` gives names only).
    ``facts`` are an MLSD line's facts, names lower-cased (``("type", "file")``).
    ``size`` and ``modified`` (POSIX seconds) are what a ``LIST`` line says (for
    ``MLSD`` see :func:`fact_size` and :func:`fact_time`); ``target`` is a symbolic
    link's (``LIST``'s ``name -> target``): the entry is the link, neither a file nor
    a directory, and its size and time are the link's own.
    """

    name: str
    is_directory: bool | None = None
    facts: tuple[tuple[str, str], ...] = ()
    size: int | None = None
    modified: float | None = None
    target: str | None = None


def _lines(body: bytes) -> list[str]:
    """A listing's lines, CR LF or LF ended, as text that keeps every octet."""
    text = body.decode("utf-8", "surrogateescape")
    return [line.removesuffix("\r") for line in text.split("\n")]


def _usable(name: str) -> bool:
    return name not in ("", ".", "..") and "\0" not in name


def parse_nlst(body: bytes) -> list[ListEntry]:
    """The names of an ``NLST`` listing, one per line.

    A server answering ``NLST dir`` may write each name with the directory in front
    (``dir/name``, as vsftpd does): only the last segment is the entry's name. ``.``
    and ``..`` are not entries.
    """
    entries = []
    for line in _lines(body):
        name = line.rstrip("/").rsplit("/", 1)[-1]
        if _usable(name):
            entries.append(ListEntry(name))
    return entries


def parse_mlsd(body: bytes) -> list[ListEntry]:
    """The entries of an ``MLSD`` listing (RFC 3659 7.2): ``fact=value;...<SP>name``.

    Fact values hold no space, so the first space ends the facts and everything after
    it, spaces and ``;`` included, is the name. ``type=cdir`` (the directory itself)
    and ``type=pdir`` (its parent) are not entries; ``dir`` is a directory; ``file`` and
    anything else (``OS.unix=slink``) are not known to be. A line without a space, or
    whose facts do not end with ``;``, is not an entry.
    """
    entries = []
    for line in _lines(body):
        facts_text, sep, name = line.partition(" ")
        if not sep or not _usable(name) or (facts_text and not facts_text.endswith(";")):
            continue  # facts are "fact=value;" each, so they end with ";"
        facts = []
        for fact in facts_text.split(";"):
            key, eq, value = fact.partition("=")
            if eq:
                facts.append((key.strip().lower(), value))
        kind = dict(facts).get("type", "").lower()
        if kind in ("cdir", "pdir"):
            continue
        entries.append(ListEntry(name, kind == "dir", tuple(facts)))
    return entries


def fact_size(entry: ListEntry) -> int | None:
    """An MLSD entry's ``size`` fact in bytes (RFC 3659 7.5.7), None when absent or not
    a number."""
    value = dict(entry.facts).get("size", "")
    return ascii_int(value, max_digits=MAX_SIZE_DIGITS)


def fact_time(entry: ListEntry) -> float | None:
    """An MLSD entry's ``modify`` fact (RFC 3659 2.3: ``YYYYMMDDHHMMSS[.sss]``, UTC) as
    POSIX seconds, None when absent or not a time."""
    value = dict(entry.facts).get("modify", "")
    whole, _, fraction = value.partition(".")
    if len(whole) != 14 or not is_ascii_digits(whole) or (
            fraction and not is_ascii_digits(fraction)):
        return None
    try:
        moment = datetime.datetime.strptime(whole, "%Y%m%d%H%M%S").replace(
            tzinfo=datetime.UTC)
    except ValueError:
        return None
    return moment.timestamp() + (float("0." + fraction) if fraction else 0.0)


#: ``ls -l`` months, the anchor of a Unix ``LIST`` line (the name follows the date).
_MONTHS: Final[dict[str, int]] = {m.lower(): n for n, m in enumerate((
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)}
#: The mode field of an ``ls -l`` line: the type letter, nine permission letters and
#: an optional ACL or extended-attribute mark (``+``, ``.``, ``@``).
_UNIX_MODE = re.compile(r"[-dlbcpsD][-rwxsStTlL?]{9}[+.@]?")
_UNIX_TIME = re.compile(r"([0-9]{1,2}):([0-9]{2})")
#: A DOS (IIS) line: ``MM-DD-YY[YY]  HH:MM[AM|PM]  <DIR> | size  name``.
_DOS_LINE = re.compile(
    r"([0-9]{2})-([0-9]{2})-([0-9]{2}|[0-9]{4}) +([0-9]{1,2}):([0-9]{2}) *([AaPp][Mm])?"
    r" +(<DIR>|[0-9]+) +(.+)")
#: How many digits a ``LIST`` size may have (as ``SIZE``'s).
_LIST_SIZE_DIGITS = 20


def _utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> float | None:
    """POSIX seconds of a UTC date, None when it is no date (``Feb 30``)."""
    try:
        return datetime.datetime(year, month, day, hour, minute,
                                 tzinfo=datetime.UTC).timestamp()
    except ValueError:
        return None


def _unix_time(month: int, day_text: str, clock: str, now: float) -> float | None:
    """The time of ``Mon DD HH:MM`` or ``Mon DD YYYY``, as UTC (servers list in UTC by
    default: vsftpd, pure-ftpd). Without a year, ``ls`` means the last six months:
    wget's rule takes this year, or last year for a month later than this one."""
    day = ascii_int(day_text, max_digits=2)
    if day is None:
        return None
    if len(clock) == 4 and is_ascii_digits(clock):
        return _utc(int(clock), month, day)
    hhmm = _UNIX_TIME.fullmatch(clock)
    if hhmm is None:
        return None
    today = datetime.datetime.fromtimestamp(now, datetime.UTC)
    year = today.year - 1 if month > today.month else today.year
    return _utc(year, month, day, int(hhmm[1]), int(hhmm[2]))


def _unix_line(line: str, now: float) -> ListEntry | bool | None:
    """One ``ls -l`` line: its entry; True for a line of the form that is no entry
    (``.``, ``..``, a device, a FIFO, a socket); False for a line not of the form.

    ``mode links owner [group] size Mon DD HH:MM|YYYY name``: the month is the anchor
    (the owner or group may be missing, a device has ``major, minor`` for its size),
    and the name is everything after the one space that follows the time or year, so
    a name keeps its own spaces. A link's name ends at the first `` -> ``.
    """
    words = [(m.group(), m.end()) for m in re.finditer(r"[^ ]+", line)]
    if not words or not _UNIX_MODE.fullmatch(words[0][0]):
        return False
    for n in range(3, len(words) - 3):
        month = _MONTHS.get(words[n][0].lower())
        if month is not None and len(words[n + 1][0]) <= 2 and is_ascii_digits(
                words[n + 1][0]) and (
                ":" in words[n + 2][0] or len(words[n + 2][0]) == 4):
            break
    else:
        return False
    kind = line[0]
    name = line[words[n + 2][1] + 1:]
    if kind not in "-dl":
        return True  # a device, FIFO, socket or door: nothing to fetch
    target = None
    if kind == "l":
        name, _, target = name.partition(" -> ")
    if not _usable(name):
        return True
    return ListEntry(name, kind == "d", size=ascii_int(words[n - 1][0],
                                                       max_digits=_LIST_SIZE_DIGITS),
                     modified=_unix_time(month, words[n + 1][0], words[n + 2][0], now),
                     target=target)


def _dos_line(line: str) -> ListEntry | bool | None:
    """One DOS/IIS line (``01-16-02  11:14AM  <DIR>  name``): its entry, or False.

    A two-digit year is 19YY from 70 on, else 20YY (wget's rule); the time is taken
    as UTC, as the server gives it.
    """
    found = _DOS_LINE.fullmatch(line)
    if found is None:
        return False
    month, day, year, hour, minute = (int(found[k]) for k in range(1, 6))
    if len(found[3]) == 2:
        year += 1900 if year >= 70 else 2000
    meridiem = (found[6] or "").lower()
    if meridiem:
        hour = hour % 12 + (12 if meridiem == "pm" else 0)
    name = found[8]
    if not _usable(name):
        return True
    directory = found[7] == "<DIR>"
    return ListEntry(name, directory,
                     size=None if directory else ascii_int(found[7],
                                                           max_digits=_LIST_SIZE_DIGITS),
                     modified=_utc(year, month, day, hour, minute))


def read_list(body: bytes, *, now: float | None = None) -> list[ListEntry] | None:
    """The entries of a ``LIST`` listing, or None when its format is not one read here.

    ``LIST`` output has no standard (RFC 959 4.1.3: "the information ... may be
    hardware or system dependent"), so it is read as wget (``src/ftp-ls.c``) and curl
    (``lib/ftplistparser.c``) read it: the Unix ``ls -l`` form nearly every server
    writes (vsftpd, pure-ftpd, ProFTPD ...: :func:`_unix_line`) and the DOS form of
    IIS (:func:`_dos_line`). An entry says whether it is a directory, its size, its
    time (POSIX seconds; ``now`` dates a ``Mon DD HH:MM`` without a year) and, for a
    symbolic link, its target. ``total 12``, ``.`` and ``..``, devices and FIFOs are
    no entries; a listing with lines but none of a known form is None, so the caller
    can ask ``NLST`` for the names at least.
    """
    when = time.time() if now is None else now
    entries: list[ListEntry] = []
    known = False
    unknown = False
    for line in _lines(body):
        if not line.strip() or line.startswith("total "):
            continue
        entry = _unix_line(line, when)
        if entry is False:
            entry = _dos_line(line)
        if entry is False:
            unknown = True
            continue
        known = True
        if isinstance(entry, ListEntry):
            entries.append(entry)
    return None if unknown and not known else entries


def parse_list(body: bytes, *, now: float | None = None) -> list[ListEntry]:
    """The entries of a ``LIST`` listing (:func:`read_list`); none when its format is
    not read here."""
    return read_list(body, now=now) or []
