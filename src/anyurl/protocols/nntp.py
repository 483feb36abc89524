"""The NNTP client protocol core (RFC 977, 3977, 4643), sans-I/O, for ``news:``/``nntp:`` URLs.

Strategy
--------
NNTP is a strict request/response dialogue over one connection: the server greets, then
every command line gets one *response line* (``ddd text``), and some responses are
followed by a *data block*. Whether a block follows is not written in the response; it
is fixed per response code (and, for 211, per command: ``GROUP`` answers one line,
``LISTGROUP`` a block) [RFC 3977 3.2, 6.1.2]. That is why this core remembers the verb
of the command it is answering: :class:`NNTPClient` sends a :class:`Command`, and the
next response it parses is matched against that verb. Sending a second command with
:meth:`NNTPClient.send` while a response or block is still owed fails loudly
(:class:`NNTPCoreError`) instead of desynchronising the dialogue; transitions sit in
:data:`TRANSITIONS`.

Pipelining [RFC 3977 3.5]: :meth:`NNTPClient.pipeline` may send a command while earlier
ones are still owed an answer. The core keeps the commands sent and not yet answered in
order (:attr:`NNTPClient.owed`) and matches each response to the oldest of them, which
is all NNTP promises: one response per command, in the order sent. Two rules keep that
safe:

* nothing is sent after a command of :data:`PIPELINE_BARRIERS` until its response is
  read: RFC 3977 forbids pipelining after MODE READER, STARTTLS and AUTHINFO (they
  change what the connection may do), QUIT ends it, and GROUP/LISTGROUP change what an
  article number means (RFC 3977 3.5.1's example does pipeline after GROUP, but a
  client that waits for the 211 spends one round trip per group and never sends
  ``ARTICLE 12`` into a group that was refused);
* at most :data:`MAX_PIPELINE` commands are owed at once, so what a stalled server
  makes us buffer stays bounded.

When the server closes (or answers 400) with commands owed, :meth:`NNTPClient.unanswered`
lists those that got no response line at all, for the caller to send again on a new
connection; a command whose data block was cut is not among them (it was answered, in
part, and the caller has seen that part).

Data blocks are the subtle part [RFC 3977 3.1.1]:

* lines end with CRLF (a bare LF is accepted from broken servers, as nntplib does);
* a line starting with ``.`` was sent with one more ``.`` in front, which is removed;
* a line that is exactly ``.`` ends the block and is not data.

The core hands a block over as :class:`Data` events, each holding *every complete line
buffered so far*, unstuffed, each line ended by the ``newline`` the caller chose
(``b"\\r\\n"``, the wire form, or ``b"\\n"``, the local form), then one
:class:`EndOfData`. So a large article streams in bounded memory, and the terminator is
recognised even when it arrives one byte at a time (tests feed it that way).

Commands are :class:`Command` values; :meth:`Command.wire` refuses a CR, LF or NUL in
any argument and whitespace in arguments that must be one word (group names,
message-ids, numbers), because a decoded ``%0D%0A`` from a URL would otherwise end the
command line early and smuggle a second command (RFC 1738 section 6). A command line is
at most 512 octets including CRLF [RFC 3977 3.1]; longer ones are refused before they
are sent. Secret arguments (``AUTHINFO PASS``) are shown as ``****`` by
:meth:`Command.display`.

Around the state machine sit pure helpers: :func:`parse_group` (211),
:func:`parse_article_reply` (220-223), :func:`parse_overview_line` (OVER/XOVER),
:func:`parse_active_line` (LIST ACTIVE), :func:`parse_capabilities`, and
:func:`message_id_argument` (RFC 1738's bracket-less ids get their ``<>`` back).
Text is decoded as UTF-8 with ``surrogateescape``: octets round-trip unchanged.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from anyurl.numbers import ascii_int
from anyurl.protocols.common import (
    NEED_DATA,
    CommandLine,
    ConnectionClosed,
    CoreProtocolError,
    Data,
    EndOfData,
    LocalProtocolError,
    NeedData,
    RemoteProtocolError,
)
from anyurl.url import encode_wire

__all__ = [
    "BLOCK_CODES",
    "MASK",
    "MAX_COMMAND",
    "MAX_PIPELINE",
    "NEED_DATA",
    "PIPELINE_BARRIERS",
    "TRANSITIONS",
    "ActiveEntry",
    "ArticleReply",
    "Command",
    "ConnectionClosed",
    "Data",
    "EndOfData",
    "GroupInfo",
    "NNTPClient",
    "NNTPCommandError",
    "NNTPCoreError",
    "NNTPReplyError",
    "NeedData",
    "OverviewEntry",
    "Response",
    "State",
    "message_id_argument",
    "parse_active_line",
    "parse_article_reply",
    "parse_capabilities",
    "parse_group",
    "parse_overview_line",
]

CRLF: Final = b"\r\n"
#: Longest command line, CRLF included [RFC 3977 3.1].
MAX_COMMAND: Final = 512
#: A response line may be 512 octets [RFC 3977 3.1]; we allow far more from sloppy
#: servers, but not unbounded buffering.
MAX_RESPONSE_LINE: Final = 64 * 1024
#: Longest line inside a data block we buffer before calling the server broken.
MAX_DATA_LINE: Final = 1 << 20
MASK: Final = "****"
#: The most commands :meth:`NNTPClient.pipeline` lets be owed an answer at once.
MAX_PIPELINE: Final = 64
#: Verbs after which nothing is sent until their response is read (see the module
#: docstring): RFC 3977 3.5's and RFC 4643 2.2's "must not be pipelined", QUIT, and the
#: commands that select a group.
PIPELINE_BARRIERS: Final = frozenset(
    {"MODE", "AUTHINFO", "STARTTLS", "QUIT", "GROUP", "LISTGROUP"}
)

#: Response codes followed by a data block whatever the command [RFC 3977 3.2, and the
#: command sections; nntplib's ``_LONGRESP`` is the same set plus 282 for XGTITLE].
BLOCK_CODES: Final[frozenset[int]] = frozenset(
    {100, 101, 215, 220, 221, 222, 224, 225, 230, 231, 282}
)
#: 211 carries a block only as the answer to these [RFC 3977 6.1.2].
_BLOCK_211_VERBS: Final = frozenset({"LISTGROUP"})

#: Verbs whose (last) argument is a secret, masked in traces and plans.
_SECRET: Final = {("AUTHINFO", "PASS")}
#: Verbs whose arguments may contain spaces (a passphrase may); others are single words.
_FREE_TEXT: Final = frozenset({"AUTHINFO"})


class NNTPCoreError(CoreProtocolError):
    """Base of this core\'s errors: catch a side (:class:`NNTPReplyError`,
    :class:`NNTPCommandError`)."""


class NNTPReplyError(NNTPCoreError, RemoteProtocolError):
    """The server broke the protocol: bytes an NNTP client cannot accept."""


class NNTPCommandError(NNTPCoreError, LocalProtocolError):
    """Our side asked for something the protocol cannot say (a command)."""


# -- events --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Response:
    """A response line: ``code``, the ``text`` after it, and the whole ``line``.

    ``has_block`` says whether a data block follows (decided by code and command).
    """

    code: int
    text: str
    line: str
    has_block: bool = False

    @property
    def category(self) -> int:
        """The first digit of the code: 2 success, 3 send more, 4 and 5 failures."""
        return self.code // 100

    @property
    def arguments(self) -> list[str]:
        """The words after the code (a GROUP reply's count, low, high, name)."""
        return self.text.split()


Event = Response | Data | EndOfData | ConnectionClosed | NeedData


# -- commands --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Command(CommandLine):
    """One command line: ``verb`` and its ``args``, checked when turned into bytes."""

    verb: str
    args: tuple[str, ...] = ()

    @classmethod
    def of(cls, verb: str, *args: str) -> Command:
        """A command from its verb (upper-cased) and arguments."""
        return cls(verb.upper(), tuple(args))

    def check(self) -> None:
        """Raise :class:`NNTPCoreError` if the line could not be sent safely as one line."""
        secret = self._secret()
        for i, arg in enumerate(self.args):
            bad = next((c for c in arg if c in "\r\n\0"), None)
            if bad is not None:
                shown = MASK if secret and i == len(self.args) - 1 else arg
                raise NNTPCommandError(
                    f"{self.verb} argument {shown!r} contains {bad!r}, which would "
                    "end the command line early"
                )
            if arg == "":
                raise NNTPCommandError(f"{self.verb} has an empty argument")
            if self.verb not in _FREE_TEXT and any(c in arg for c in " \t"):
                raise NNTPCommandError(
                    f"{self.verb} argument {arg!r} contains a space or TAB, which would "
                    "split it into two arguments"
                )
        size = len(self._line()) + 2
        if size > MAX_COMMAND:
            raise NNTPCommandError(
                f"the {self.verb} command line would be {size} octets; NNTP allows "
                f"{MAX_COMMAND} including CRLF"
            )

    def _line(self) -> bytes:
        return encode_wire(" ".join((self.verb, *self.args)))

    def _secret(self) -> bool:
        return len(self.args) > 1 and (self.verb, self.args[0].upper()) in _SECRET

    def wire(self) -> bytes:
        """The octets to send, CRLF included."""
        self.check()
        return self._line() + CRLF

    def display(self) -> str:
        """The line as shown in traces and plans: secrets masked."""
        if self._secret():
            return " ".join((self.verb, *self.args[:-1], MASK))
        return " ".join((self.verb, *self.args))


def message_id_argument(message_id: str) -> str:
    """``<id>`` for the wire: RFC 1738 writes ids without brackets, NNTP needs them."""
    if message_id.startswith("<") and message_id.endswith(">"):
        return message_id
    return f"<{message_id}>"


# -- the state machine ---------------------------------------------------------------------


class State(enum.Enum):
    """Where the dialogue is: before the greeting, idle, awaiting a response, in a block, closed.
    """
    GREETING = "greeting"  # connected, the server speaks first
    IDLE = "idle"  # a command may be sent
    AWAITING_RESPONSE = "awaiting response"
    IN_BLOCK = "in block"  # reading a data block
    CLOSED = "closed"


#: Which event moves the client from a state to the next (``send`` is the only way out
#: of IDLE). A response whose code means "the server closes now" goes to CLOSED. With
#: commands pipelined, an answer that completes leaves the client awaiting the next
#: owed response ("... more owed") instead of idle.
TRANSITIONS: Final[Mapping[State, Mapping[str, State]]] = {
    State.GREETING: {"response": State.IDLE, "closing response": State.CLOSED,
                     "eof": State.CLOSED},
    State.IDLE: {"send": State.AWAITING_RESPONSE, "eof": State.CLOSED},
    State.AWAITING_RESPONSE: {"response": State.IDLE,
                              "response, more owed": State.AWAITING_RESPONSE,
                              "block response": State.IN_BLOCK,
                              "pipeline": State.AWAITING_RESPONSE,
                              "closing response": State.CLOSED, "eof": State.CLOSED},
    State.IN_BLOCK: {"end of block": State.IDLE,
                     "end of block, more owed": State.AWAITING_RESPONSE,
                     "pipeline": State.IN_BLOCK, "eof": State.CLOSED},
    State.CLOSED: {},
}


class NNTPClient:
    """The client side of one NNTP connection, bytes in and events out.

    ``receive_data(b"")`` reports end of stream. ``newline`` is what ends each line in
    :class:`Data` events (``b"\\n"`` for local text, ``b"\\r\\n"`` for the wire form);
    :meth:`set_newline` changes it between blocks.

    :meth:`send` sends one command when nothing is owed; :meth:`pipeline` sends one
    while others still are (the module docstring's rules). :attr:`owed` holds the
    commands sent and not yet completely answered, oldest first: :attr:`command` is
    the one the next response or block belongs to.
    """

    def __init__(self, *, newline: bytes = b"\r\n") -> None:
        self.state = State.GREETING
        self.newline = newline
        #: Commands sent whose response (or block) is not complete, oldest first.
        self.owed: deque[Command] = deque()
        self._head_answered = False  # owed[0]'s response line was read (its block is due)
        self._buffer = bytearray()
        self._eof = False
        self._events: deque[Event] = deque()
        self._quit_sent = False
        self._block_received = 0  # octets of Data in the current block

    @property
    def command(self) -> Command | None:
        """The command the next response or block line answers (None when none is owed)."""
        return self.owed[0] if self.owed else None

    def set_newline(self, newline: bytes) -> None:
        """What ends each line of the next blocks' :class:`Data` events (``b"\\n"`` for
        local text, ``b"\\r\\n"`` for the wire form)."""
        self.newline = newline

    def _move(self, how: str) -> None:
        try:
            self.state = TRANSITIONS[self.state][how]
        except KeyError:  # pragma: no cover - a bug in this module
            raise NNTPCommandError(f"no transition {how!r} from {self.state.value}") from None

    # -- sending -----------------------------------------------------------------------

    def send(self, command: Command) -> bytes:
        """The bytes for ``command``; only when the previous response is complete."""
        if self.state is not State.IDLE or self._events:
            raise NNTPCommandError(
                f"cannot send {command.verb} while {self.state.value}"
                + ("" if self.command is None else f" (after {self.command.verb})")
            )
        data = command.wire()
        self.owed.append(command)
        self._head_answered = False
        self._quit_sent = command.verb == "QUIT"
        self._move("send")
        return data

    def can_pipeline(self) -> bool:
        """Whether :meth:`pipeline` would accept a command now."""
        if self.state is State.IDLE:
            return True
        return (
            self.state in (State.AWAITING_RESPONSE, State.IN_BLOCK)
            and len(self.owed) < MAX_PIPELINE
            and not any(c.verb in PIPELINE_BARRIERS for c in self.owed)
        )

    def pipeline(self, command: Command) -> bytes:
        """The bytes for ``command``, sent before the owed responses arrive [RFC 3977 3.5].

        Refused (:class:`NNTPCommandError`) before the greeting, after the close, while a
        command of :data:`PIPELINE_BARRIERS` is owed, or with :data:`MAX_PIPELINE`
        commands owed. Its response is the next one after those owed now.
        """
        if not self.can_pipeline():
            barrier = next((c.verb for c in self.owed if c.verb in PIPELINE_BARRIERS), None)
            why = (f"{barrier} is not answered yet" if barrier is not None
                   else f"{len(self.owed)} commands are owed" if self.owed
                   else self.state.value)
            raise NNTPCommandError(f"cannot pipeline {command.verb}: {why}")
        data = command.wire()
        if not self.owed:
            self._head_answered = False
        self.owed.append(command)
        self._quit_sent = self._quit_sent or command.verb == "QUIT"
        self._move("send" if self.state is State.IDLE else "pipeline")
        return data

    @property
    def unsolicited(self) -> bool:
        """Whether bytes arrived that no command owed answers: NNTP sends nothing
        unasked after the greeting, so the dialogue is out of step (a response the
        next command would be matched with answers something else)."""
        return self.state is State.IDLE and bool(self._buffer)

    def unanswered(self) -> list[Command]:
        """The commands sent that got no response line, oldest first (see the module
        docstring): after a close, what may be sent again on a new connection."""
        owed = list(self.owed)
        return owed[1:] if self._head_answered else owed

    def _answered(self, how: str) -> None:
        """The oldest owed command is completely answered: drop it and move on."""
        if self.owed:
            self.owed.popleft()
        self._head_answered = False
        self._move(f"{how}, more owed" if self.owed else how)

    # -- receiving ---------------------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Bytes from the server (``b""`` when it closed the connection)."""
        if self._eof:
            if data:
                raise NNTPCommandError("data received after end of stream")
            return
        if data:
            self._buffer += data
        else:
            self._eof = True

    def next_event(self) -> Event:
        """The next response, block line or block end, or ``NEED_DATA``."""
        if self._events:
            return self._events.popleft()
        if self.state is State.IN_BLOCK:
            return self._read_block()
        if self.state in (State.GREETING, State.AWAITING_RESPONSE):
            return self._read_response()
        if self.state is State.CLOSED:
            return ConnectionClosed(expected=True)
        # IDLE: nothing is owed; unsolicited bytes are kept for later, EOF is reported.
        if self._eof:
            self._move("eof")
            return ConnectionClosed(expected=True)
        return NEED_DATA

    def _take_line(self, limit: int) -> bytes | None:
        end = self._buffer.find(b"\n")
        if end < 0:
            if len(self._buffer) > limit:
                raise NNTPReplyError(f"a line longer than {limit} octets")
            return None
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        return line[:-1] if line.endswith(b"\r") else line

    def _read_response(self) -> Event:
        line = self._take_line(MAX_RESPONSE_LINE)
        if line is None:
            if self._eof:
                expected = self._quit_sent
                self._move("eof")
                return ConnectionClosed(expected=expected, partial=len(self._buffer))
            return NEED_DATA
        text = line.decode("utf-8", "surrogateescape")
        code_text = text[:3]
        code = ascii_int(code_text)
        if len(text) < 3 or code is None or (len(text) > 3 and text[3] not in " \t"):
            raise NNTPReplyError(f"not an NNTP response line: {text[:80]!r}")
        greeting = self.state is State.GREETING
        head = self.command
        verb = head.verb if head is not None and not greeting else ""
        has_block = not greeting and (
            code in BLOCK_CODES or (code == 211 and verb in _BLOCK_211_VERBS)
        )
        closing = (greeting and code in (400, 502)) or (not greeting and code == 400) or (
            verb == "QUIT" and code == 205
        ) or (verb == "MODE" and code == 502)
        if has_block:
            self._head_answered = True
            self._move("block response")
        elif closing:
            if self.owed and not greeting:
                self.owed.popleft()
            self._head_answered = False
            self._move("closing response")
        else:
            self._answered("response")
        return Response(code, text[4:].strip(), text, has_block)

    def _read_block(self) -> Event:
        # Work on whole lines with bytes methods (C speed) rather than line by line:
        # find the terminator line, unstuff with one replace, fix the line ends.
        buf = self._buffer
        last = buf.rfind(b"\n")
        if last < 0:
            if self._eof:
                self._move("eof")
                return ConnectionClosed(expected=False, partial=len(buf))
            if len(buf) > MAX_DATA_LINE:
                raise NNTPReplyError(f"a data line longer than {MAX_DATA_LINE} octets")
            return NEED_DATA
        chunk = bytes(buf[: last + 1])  # complete lines only
        end = _terminator(chunk)
        if end is None:
            data, consumed = chunk, len(chunk)
        else:
            data, consumed = chunk[: end[0]], end[1]
        del buf[:consumed]
        if data[:1] == b".":
            data = data[1:]
        data = data.replace(b"\n.", b"\n")  # undo dot-stuffing: one "." per line start
        if self.newline == b"\n":
            data = data.replace(b"\r\n", b"\n")
        elif data.count(b"\n") != data.count(b"\r\n"):  # bare LF from a broken server
            data = data.replace(b"\r\n", b"\n").replace(b"\n", self.newline)
        self._block_received += len(data)
        if end is None:
            return Data(data) if data else NEED_DATA
        self._answered("end of block")
        end_of_data = EndOfData(self._block_received)
        self._block_received = 0
        if data:
            self._events.append(end_of_data)
            return Data(data)
        return end_of_data


def _terminator(chunk: bytes) -> tuple[int, int] | None:
    """(start, end) of the ``.`` line ending a block in ``chunk`` (whole lines), or None."""
    for line in (b".\r\n", b".\n"):
        if chunk.startswith(line):
            return 0, len(line)
    found = [(i + 1, i + 1 + len(line)) for line in (b".\r\n", b".\n")
             if (i := chunk.find(b"\n" + line)) >= 0]
    return min(found) if found else None


# -- parsing responses and block lines ------------------------------------------------------


@dataclass(frozen=True)
class GroupInfo:
    """``211 count low high group`` [RFC 3977 6.1.1]; an empty group may have
    ``high == low - 1``, all zeros, or count 0 with any marks."""

    count: int
    low: int
    high: int
    name: str

    @property
    def empty(self) -> bool:
        """Whether the group holds no article (RFC 3977 6.1.1's empty-group forms)."""
        return self.count == 0 or self.high < self.low or self.high == 0


#: Article numbers and counts are below 2**63 (RFC 3977 6.1.1): 19 digits; one more is
#: room for a leading zero, and a longer run is no number a server may send.
NUMBER_DIGITS = 20


def parse_group(response: Response) -> GroupInfo:
    """The count, low and high water marks and name of a 211 reply to GROUP."""
    args = response.arguments
    if response.code != 211 or len(args) < 3:
        raise NNTPReplyError(f"not a GROUP reply: {response.line!r}")
    count, low, high = (ascii_int(a, max_digits=NUMBER_DIGITS) for a in args[:3])
    if count is None or low is None or high is None:
        raise NNTPReplyError(f"GROUP reply without numbers: {response.line!r}")
    return GroupInfo(count, low, high, args[3] if len(args) > 3 else "")


@dataclass(frozen=True)
class ArticleReply:
    """``220 n <message-id>`` (also 221/222/223): number (0 when asked by id) and id."""

    number: int
    message_id: str | None


def parse_article_reply(response: Response) -> ArticleReply:
    """The article number and Message-ID of a 220-223 reply (0 and None when absent)."""
    args = response.arguments
    number = (ascii_int(args[0], max_digits=NUMBER_DIGITS) if args else None) or 0
    message_id = args[1] if len(args) > 1 and args[1].startswith("<") else None
    return ArticleReply(number, message_id)


@dataclass(frozen=True)
class OverviewEntry:
    """One OVER/XOVER line: the eight fixed fields [RFC 3977 8.3.2] and the rest."""

    number: int
    subject: str
    from_: str
    date: str
    message_id: str
    references: str
    bytes: int | None
    lines: int | None
    extra: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        """The overview line as a JSON object."""
        return {
            "number": self.number, "subject": self.subject, "from": self.from_,
            "date": self.date, "message_id": self.message_id,
            "references": self.references, "bytes": self.bytes, "lines": self.lines,
        }


def _int_or_none(text: str) -> int | None:
    text = text.strip()
    if text.startswith(":"):  # "Bytes: 123" style is not standard; ":bytes" labels are
        text = text[1:]
    return ascii_int(text, max_digits=NUMBER_DIGITS)


def parse_overview_line(line: bytes | str) -> OverviewEntry:
    """Parse one overview line (TAB-separated; trailing fields may be missing)."""
    text = line.decode("utf-8", "surrogateescape") if isinstance(line, bytes) else line
    text = text.rstrip("\r\n")
    fields = text.split("\t")
    number = ascii_int(fields[0].strip(), max_digits=NUMBER_DIGITS)
    if number is None:
        raise NNTPReplyError(f"overview line without an article number: {text[:80]!r}")
    fields += [""] * (8 - len(fields))
    return OverviewEntry(
        number=number,
        subject=fields[1],
        from_=fields[2],
        date=fields[3],
        message_id=fields[4],
        references=fields[5],
        bytes=_int_or_none(fields[6]),
        lines=_int_or_none(fields[7]),
        extra=tuple(fields[8:]),
    )


@dataclass(frozen=True)
class ActiveEntry:
    """One LIST ACTIVE line: ``group high low status`` (note: high before low)."""

    group: str
    high: int
    low: int
    status: str

    def to_json(self) -> dict[str, object]:
        """The LIST ACTIVE line as a JSON object."""
        return {"group": self.group, "high": self.high, "low": self.low,
                "status": self.status}


def parse_active_line(line: bytes | str) -> ActiveEntry:
    """One line of a LIST ACTIVE answer: group, high, low and status."""
    text = line.decode("utf-8", "surrogateescape") if isinstance(line, bytes) else line
    parts = text.split()
    if len(parts) < 3:
        raise NNTPReplyError(f"not a LIST ACTIVE line: {text[:80]!r}")
    high = ascii_int(parts[1], max_digits=NUMBER_DIGITS)
    low = ascii_int(parts[2], max_digits=NUMBER_DIGITS)
    if high is None or low is None:
        raise NNTPReplyError(f"not a LIST ACTIVE line: {text[:80]!r}")
    return ActiveEntry(parts[0], high, low, parts[3] if len(parts) > 3 else "")


def parse_capabilities(lines: Iterable[bytes | str]) -> dict[str, tuple[str, ...]]:
    """``{LABEL: (args...)}`` from a 101 block; labels upper-cased [RFC 3977 5.2]."""
    caps: dict[str, tuple[str, ...]] = {}
    for line in lines:
        text = line.decode("utf-8", "surrogateescape") if isinstance(line, bytes) else line
        words = text.split()
        if words:
            caps[words[0].upper()] = tuple(words[1:])
    return caps
