"""Numbered multi-line replies, as FTP (RFC 959 4.2) and SMTP (RFC 5321 4.2) write them.

Both protocols answer a command with a three-digit code and text, on one line or
several; they differ in what may stand between the first and the last line:

* **FTP** (RFC 959 4.2): the first line is ``ddd-text``; the reply ends only with a line
  ``ddd<SP>text`` of the *same* code. Lines in between are free text, even ones that
  start with digits: a bare ``230`` line, or ``211-`` inside a ``214-`` reply, is text,
  not an end (a reader that ended there would take the rest of the reply for the answer
  to the next command and stay one reply behind for ever). A single-line reply may be a
  bare ``ddd``. The control connection is a Telnet connection, so Telnet commands
  (``IAC ...``) are removed from the text.
* **SMTP** (RFC 5321 4.2): every line carries the code (2yz to 5yz), ``ddd-text`` until
  the last, ``ddd<SP>text`` or a bare ``ddd``; a line with another code is a protocol
  error.

Strategy: one :class:`ReplyReader`, told the :class:`Grammar`, in the sans-I/O manner of
the cores (``receive_data``, ``next_event`` returning a :class:`Reply`,
:class:`ConnectionClosed` or :data:`NEED_DATA`). It is bounded: a line longer than
:data:`MAX_LINE` or a reply longer than :data:`MAX_REPLY` is an error, so a server that
never ends a reply cannot make memory grow. The reader has no error classes of its own:
each core hands it its ``<Proto>ReplyError`` and ``<Proto>CommandError``, so an FTP
reply that breaks the grammar is an ``FTPReplyError`` like any other FTP fault.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from anyurl.numbers import is_ascii_digits
from anyurl.protocols.common import (
    NEED_DATA,
    ConnectionClosed,
    LocalProtocolError,
    NeedData,
    RemoteProtocolError,
)

__all__ = [
    "MAX_LINE",
    "MAX_REPLY",
    "Grammar",
    "Reply",
    "ReplyReader",
    "strip_iac",
]

#: The longest reply line accepted.
MAX_LINE = 64 * 1024
#: The most bytes one (multi-line) reply may hold: a long STAT or HELP fits, an endless
#: reply does not.
MAX_REPLY = 1 << 20

_IAC = 0xFF
_CODE = re.compile(rb"[0-9]{3}")


class Grammar(enum.Enum):
    """Which of the two reply grammars a reader applies (each core says which is its)."""

    #: RFC 959 4.2's: free text between the first line and the last (which repeats the
    #: first's code), a bare ``ddd`` allowed, Telnet commands removed (FTP's).
    FREE_TEXT = "free-text"
    #: RFC 5321 4.2's: every line carries the code, 2yz to 5yz (SMTP's).
    CODED_LINES = "coded-lines"


@dataclass(frozen=True)
class Reply:
    """One complete reply: its ``code`` and its ``lines`` exactly as received.

    ``lines`` keep the code prefix (``"220-Welcome"``, ``"220 ready"``) so a message can
    quote the server exactly; the properties give the parts with one meaning each.
    """

    code: int
    lines: tuple[str, ...]

    @property
    def category(self) -> int:
        """The first digit: 1 preliminary, 2 done, 3 intermediate, 4 transient, 5 permanent."""
        return self.code // 100

    @property
    def text(self) -> str:
        """The text after the code of the first line (``"Entering Passive Mode (...)"``)."""
        return self.lines[0][4:] if self.lines else ""

    @property
    def all_text(self) -> str:
        """Every line's text, code prefixes removed, joined with newlines."""
        prefix = f"{self.code:03d}"
        out = []
        for line in self.lines:
            coded = line.startswith(prefix) and line[3:4] in ("", " ", "-")
            out.append(line[4:] if coded else line)
        return "\n".join(out)

    @property
    def line(self) -> str:
        """The line to quote in a message: the last line, unless it is only the code."""
        last = self.lines[-1] if self.lines else f"{self.code:03d}"
        if len(self.lines) > 1 and len(last.strip()) <= 3:
            return self.lines[0]
        return last

    def __str__(self) -> str:
        return " / ".join(self.lines)


def strip_iac(line: bytes) -> bytes:
    """Drop Telnet IAC sequences: ``IAC IAC`` is a literal 0xFF, option talk is dropped."""
    if _IAC not in line:
        return line
    out = bytearray()
    i = 0
    n = len(line)
    while i < n:
        b = line[i]
        if b != _IAC:
            out.append(b)
            i += 1
            continue
        nxt = line[i + 1] if i + 1 < n else None
        if nxt == _IAC:
            out.append(_IAC)
            i += 2
        elif nxt is not None and 251 <= nxt <= 254:  # WILL WONT DO DONT <option>
            i += 3
        else:  # IP, DM, AYT ... or a lone IAC at the end
            i += 2
    return bytes(out)


class ReplyReader:
    """Frames replies out of a byte stream.

    Feed bytes with :meth:`receive_data` (``b""`` for the end of the stream) and take
    events with :meth:`next_event` until it returns :data:`NEED_DATA`. Bytes that are
    not a reply of the grammar (or too long to be one) raise ``reply_error``; bytes fed
    after the end of the stream raise ``command_error`` (our side's mistake).
    """

    def __init__(self, grammar: Grammar, *, max_line: int = MAX_LINE,
                 max_reply: int = MAX_REPLY,
                 reply_error: type[RemoteProtocolError] = RemoteProtocolError,
                 command_error: type[LocalProtocolError] = LocalProtocolError):
        self.grammar = grammar
        self._free_text = grammar is Grammar.FREE_TEXT
        self.reply_error = reply_error
        self.command_error = command_error
        self.max_line = max_line
        self.max_reply = max_reply
        self._buffer = bytearray()
        self._scan_from = 0
        self._lines: list[str] = []
        self._size = 0
        self._code: bytes | None = None
        self._eof = False

    @property
    def pending(self) -> bool:
        """Whether any bytes of a reply are buffered (a partial or complete reply)."""
        return bool(self._buffer) or bool(self._lines)

    @property
    def buffered(self) -> int:
        """Octets of an unfinished reply held (its lines without their line ends)."""
        return len(self._buffer) + (self._size if self._lines else 0)

    def receive_data(self, data: bytes) -> None:
        """Bytes from the server; ``b""`` when it closed the connection."""
        if self._eof and data:
            raise self.command_error("data received after the end of the stream")
        if not data:
            self._eof = True
            return
        self._buffer += data

    def _next_line(self) -> bytes | None:
        end = self._buffer.find(b"\n", self._scan_from)
        if end < 0:
            self._scan_from = len(self._buffer)
            if len(self._buffer) > self.max_line:
                raise self.reply_error(f"a reply line longer than {self.max_line} bytes")
            return None
        if end > self.max_line:
            raise self.reply_error(f"a reply line longer than {self.max_line} bytes")
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        self._scan_from = 0
        if line.endswith(b"\r"):
            line = line[:-1]
        return strip_iac(line) if self._free_text else line

    def next_event(self) -> Reply | ConnectionClosed | NeedData:
        """The next complete reply, the close of the connection, or :data:`NEED_DATA`.

        A one-line reply at the front of the buffer (``ddd text``, no Telnet command:
        all but a few replies of a file's dialogue) is taken in one step; everything
        else goes line by line through the grammar. Both give the same reply."""
        if self._code is None and self._buffer:
            reply = self._one_line()
            if reply is not None:
                return reply
        while True:
            raw = self._next_line()
            if raw is None:
                if self._eof:
                    partial = self.buffered
                    self._buffer.clear()
                    self._lines.clear()
                    self._code = None
                    return ConnectionClosed(expected=not partial, partial=partial)
                return NEED_DATA
            reply = self._line(raw)
            if reply is not None:
                return reply

    def _one_line(self) -> Reply | None:
        """A one-line reply at the front of the buffer, taken whole; None when the
        front is anything else (the line-by-line grammar decides then)."""
        buffer = self._buffer
        end = buffer.find(b"\n")
        if not 4 <= end <= self.max_line or buffer[3] != 0x20:
            return None
        raw = bytes(buffer[:end])
        if (not is_ascii_digits(raw[:3]) or _IAC in raw
                or not (self._free_text or raw[0] in b"2345")):
            return None
        if end + 1 == len(buffer):
            buffer.clear()
        else:
            del buffer[: end + 1]
        self._scan_from = 0
        if raw[-1] == 0x0D:
            raw = raw[:-1]
        return Reply(int(raw[:3]), (raw.decode("utf-8", "surrogateescape"),))

    def _line(self, raw: bytes) -> Reply | None:
        text = raw.decode("utf-8", "surrogateescape")
        coded = bool(_CODE.fullmatch(raw[:3])) and raw[3:4] in (b"", b" ", b"-")
        if self._code is None:  # the first line of a reply
            if not coded or (not self._free_text and raw[:1] not in b"2345"):
                raise self.reply_error(f"not a reply line: {text[:80]!r}")
            if raw[3:4] == b"-":
                self._code = raw[:3]
                self._lines = [text]
                self._size = len(raw)
                return None
            return Reply(int(raw[:3]), (text,))
        self._size += len(raw)
        if self._size > self.max_reply:
            raise self.reply_error(
                f"a {self._code.decode()} reply longer than {self.max_reply} bytes")
        self._lines.append(text)
        if self._free_text:
            # RFC 959 4.2: only "ddd<SP>" with the opening code ends the reply.
            ends = raw[:3] == self._code and raw[3:4] == b" "
        else:
            if not coded or raw[:3] != self._code:
                raise self.reply_error(
                    f"reply line {text[:80]!r} does not continue the {self._code.decode()} "
                    "reply")
            ends = raw[3:4] != b"-"
        if not ends:
            return None
        reply = Reply(int(self._code), tuple(self._lines))
        self._code = None
        self._lines = []
        self._size = 0
        return reply
