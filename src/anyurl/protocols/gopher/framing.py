"""How a Gopher response ends, which the response does not say: the framing rules.

* a gopher0 menu (and a Gopher+ attribute block) ends at a line holding only ``.``; every
  other line that starts with ``.`` carries one stuffed dot to remove (RFC 1436
  appendix). A menu line always has a type and TABs, so a lone ``.`` cannot be an item:
  it is the end even if the server keeps the connection open. Servers may also just
  close, and that is a normal end, not an error;
* a document (text, HTML, every type that is neither a menu nor binary) ends when the
  server closes. Real servers send a file as it is stored: gophernicus and pygopherd
  neither end it with ``.`` nor double the dots of lines that start with one, so a file
  holding a line ``.`` (``socat.html`` in Debian's /usr/share/doc does, many times) or
  ``..`` (reStructuredText, troff) would be cut or changed by the RFC's reading. Here a
  lone ``.`` line is the terminator only when it is the last line before the close (a
  server that follows the RFC closes right after it), and nothing is unstuffed: every
  byte before the close is kept. The cost is on the other side: a gopher0 server that
  does double leading dots shows ``..`` where the file has ``.``, visibly and without
  loss;
* binary items (``9``, ``5``, ``g``, ``I``, ``s`` ...) have no terminator: they end when
  the server closes;
* a Gopher+ response (asked for with a Gopher+ string) starts with a header line that
  overrides these rules: ``+<n>`` exactly n bytes, ``+-1`` dot-terminated and unstuffed
  (the server says it frames as RFC 1436 does: UMN gopherd answers text so; the servers
  that send files as stored answer ``+n`` or ``+-2``, or no header), ``+-2`` until close,
  and ``--1`` / ``--2`` an error body framed the same way. A gopher0 server that ignores the
  Gopher+ string answers without a header, so a first line that is not exactly a
  header means "no header", and the item type decides the framing as for gopher0.

:class:`ResponseReader` implements this as a small state machine in the h11 style:
``receive_data(bytes)`` (``b""`` at end of stream), then ``next_event()`` until it
returns :data:`NEED_DATA`. Text is kept as the server sent it (CR LF is not rewritten);
only the terminator (and, in dot framing, the stuffed dots) is removed. A document's chunks pass on
as received: only a chunk's last line, when it could be the terminator (``.``, ``.\r``,
``.\r\n``, ``.\n`` at a line start), waits for the next read to say whether more
follows, so memory does not grow with the body. The body comes as the shared
:class:`~anyurl.protocols.common.Data` and
:class:`~anyurl.protocols.common.EndOfData` events (``announced`` is a ``+n`` header's
size; ``terminated`` False when the server closed without the ``.`` line).
"""

from __future__ import annotations

import enum
import re
from collections import deque
from dataclasses import dataclass
from typing import Final

from anyurl.numbers import ascii_int
from anyurl.protocols.common import (
    NEED_DATA,
    Data,
    EndOfData,
    NeedData,
)
from anyurl.protocols.gopher.errors import GopherCommandError, GopherReplyError

__all__ = [
    "BINARY_TYPES",
    "MENU_TYPES",
    "Data",
    "EndOfData",
    "Framing",
    "PlusError",
    "PlusHeader",
    "ReaderState",
    "ResponseReader",
    "framing_for_type",
]


#: Types answered with a menu (a search answers with one too).
MENU_TYPES: Final = frozenset("17")
#: Types read until the server closes. RFC 1436 names only 5 and 9; the others are
#: images, sounds, PDF and the Gopher+ movie/bitmap/sound types, all binary in practice.
BINARY_TYPES: Final = frozenset("59gIsP;:<dv")


#: Longest Gopher+ header line we wait for before deciding there is none.
_MAX_HEADER = 32
_HEADER = re.compile(rb"([+-])(-?[0-9]+)\r?\n")
#: Longest error body kept (a ``--2`` error is read until close).
_MAX_ERROR_BODY = 64 * 1024


@dataclass(frozen=True)
class PlusHeader:
    """A Gopher+ success header: ``size`` bytes follow, or -1 (dot-terminated), -2 (close)."""

    size: int


@dataclass(frozen=True)
class PlusError:
    """A Gopher+ error (``--1`` / ``--2``): code 1 not available, 2 try later, 3 moved.

    ``admin`` is the administrator's address from the first line, ``message`` the other
    lines joined; ``code`` is None when the first line does not start with a number.
    """

    code: int | None
    admin: str | None
    message: str
    first_line: str

    @property
    def text(self) -> str:
        """The server's words, for a one-sentence error message."""
        return self.message or self.first_line


Event = PlusHeader | Data | EndOfData | PlusError


class Framing(enum.Enum):
    """How a body ends."""

    DOT = "dot"  #: a menu, attribute block or +-1 body: at a lone "."; stuffed dots removed
    TEXT = "text"  #: a document: at the close; a last line "." before it dropped, no unstuffing
    CLOSE = "close"  #: when the server closes
    LENGTH = "length"  #: after exactly n bytes (Gopher+ ``+n``)


def framing_for_type(gophertype: str) -> Framing:
    """Framing of a gopher0 answer (no Gopher+ header): menus end at ".", binary types
    at the close, documents at the close less a last "." line."""
    if gophertype in MENU_TYPES:
        return Framing.DOT
    return Framing.CLOSE if gophertype in BINARY_TYPES else Framing.TEXT


class ReaderState(enum.Enum):
    """Where a response reader is: before the Gopher+ header, in the body, in an error text, done.
    """
    HEADER = "header"  #: waiting for the Gopher+ header line (or for proof there is none)
    BODY = "body"
    ERROR_BODY = "error-body"  #: collecting a ``--1``/``--2`` error text
    DONE = "done"


class ResponseReader:
    """Frames one Gopher response. Feed bytes, read events; one reader per request.

    ``fallback`` is the framing when no Gopher+ header arrives (and the only framing
    when ``gopher_plus`` is False). Events come in this order: an optional
    :class:`PlusHeader`, any number of :class:`Data`, then :class:`EndOfData`; or a
    single :class:`PlusError` instead of all of them.
    """

    def __init__(self, fallback: Framing = Framing.DOT, *, gopher_plus: bool = False):
        if fallback is Framing.LENGTH:
            raise GopherCommandError("LENGTH framing needs a Gopher+ header")
        self.state = ReaderState.HEADER if gopher_plus else ReaderState.BODY
        self.framing: Framing = fallback
        self.header: int | None = None
        self._buf = bytearray()
        self._chunks: deque[bytes] = deque()  # TEXT/CLOSE/LENGTH bodies, as received: no copy
        self._held = b""  # TEXT: a last line that may be the terminator, until more comes
        self._eof = False
        self._line_start = True
        self._received = 0
        self._remaining = 0
        self._expected: int | None = None
        self._terminated = True
        self._pending_end = False
        self._error_code: int | None = None

    # -- input ------------------------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Add bytes from the server; ``b""`` means it closed the connection."""
        if self._eof:
            if data:
                raise GopherCommandError("data received after end of stream")
            return
        if not data:
            self._eof = True
        elif self.state is ReaderState.DONE:
            return  # bytes after the end of the body (a +n answer with extra): ignored
        elif self.state is ReaderState.BODY and self.framing is not Framing.DOT:
            self._chunks.append(data)
        else:
            self._buf += data

    # -- output -----------------------------------------------------------------------

    def next_event(self) -> Event | NeedData:
        """The next event, or :data:`NEED_DATA`; after :class:`EndOfData` it is an error."""
        if self.state is ReaderState.HEADER:
            event = self._read_header()
            if event is not None:
                return event
        if self.state is ReaderState.BODY:
            return self._read_body()
        if self.state is ReaderState.ERROR_BODY:
            return self._read_error()
        raise GopherCommandError("the response is complete; no more events")

    def _read_header(self) -> PlusHeader | NeedData | None:
        buf = self._buf
        if not buf:
            if self._eof:
                self._enter_body(None)
                return None
            return NEED_DATA
        nl = buf.find(b"\n", 0, _MAX_HEADER)
        if buf[0] not in b"+-" or (nl < 0 and (len(buf) >= _MAX_HEADER or self._eof)):
            self._enter_body(None)  # no header: a gopher0 answer to a Gopher+ request
            return None
        if nl < 0:
            return NEED_DATA
        m = _HEADER.fullmatch(bytes(buf[: nl + 1]))
        if m is None:
            self._enter_body(None)
            return None
        del buf[: nl + 1]
        size = int(m.group(2))
        if m.group(1) == b"-":
            self._error_code = size
            self.state = ReaderState.ERROR_BODY
            self.framing = Framing.DOT if size == -1 else Framing.CLOSE
            if size >= 0:
                self.framing, self._remaining = Framing.LENGTH, size
            return None
        if size < -2:
            raise GopherReplyError(f"Gopher+ header {m.group(0).strip()!r} has no meaning")
        self.header = size
        self._enter_body(size)
        return PlusHeader(size)

    def _enter_body(self, size: int | None) -> None:
        self.state = ReaderState.BODY
        if size is not None:
            if size >= 0:
                self.framing, self._remaining, self._expected = Framing.LENGTH, size, size
            else:
                self.framing = Framing.DOT if size == -1 else Framing.CLOSE
        if self.framing is not Framing.DOT and self._buf:
            self._chunks.append(bytes(self._buf))
            self._buf.clear()

    def _end(self) -> EndOfData:
        self.state = ReaderState.DONE
        self._chunks.clear()
        self._buf.clear()
        return EndOfData(self._received, self._expected, self._terminated)

    def _read_body(self) -> Event | NeedData:
        if self._pending_end:
            return self._end()
        if self.framing is Framing.DOT:
            data, ended = self._unstuff()
            if ended:
                self._pending_end = True
            if data:
                self._received += len(data)
                return Data(data)
            if ended:
                return self._end()
            return NEED_DATA
        if self.framing is Framing.TEXT:
            return self._read_text()
        if self._chunks:
            chunk = self._chunks.popleft()
            if self.framing is Framing.LENGTH:
                if len(chunk) >= self._remaining:
                    chunk = chunk[: self._remaining]
                    self._chunks.clear()
                self._remaining -= len(chunk)
                if self._remaining == 0:
                    self._pending_end = True
            if not chunk:
                return self._read_body()
            self._received += len(chunk)
            return Data(chunk)
        if self.framing is Framing.LENGTH and self._remaining == 0:
            return self._end()
        if self._eof:
            if self.framing is Framing.LENGTH:
                self._terminated = False
            return self._end()
        return NEED_DATA

    @property
    def holds_terminator(self) -> bool:
        """A document's last line so far is ``.`` and its line end: the body is complete
        if the server sends nothing more (for a caller whose read timed out)."""
        return self.framing is Framing.TEXT and self._held in (b".\r\n", b".\n") \
            and not self._chunks

    def _read_text(self) -> Data | EndOfData | NeedData:
        """A document: each chunk passes on as received, less a last line that may be
        the terminator; that line waits for the next chunk (then it is content) or for
        the close (then it was the end, if it was whole)."""
        while self._chunks:
            data = self._chunks.popleft()
            line_start = self._line_start
            if self._held:
                data, line_start = self._held + data, True
            keep = _terminator_tail(data, line_start)
            if keep:
                data, self._held = data[:-keep], data[-keep:]
            else:
                self._held = b""
            if data:
                self._line_start = data[-1] == 0x0A
                self._received += len(data)
                return Data(data)
        if not self._eof:
            return NEED_DATA
        held, self._held = self._held, b""
        if held in (b".\r\n", b".\n"):
            return self._end()
        self._terminated = False
        if held:  # "." or ".\r" and then the close: a file's last bytes, kept
            self._received += len(held)
            self._pending_end = True
            return Data(held)
        return self._end()

    def _unstuff(self) -> tuple[bytes, bool]:
        """Dot-terminated framing over the buffer: (unstuffed bytes, terminator seen).

        Only positions right after a LF can hold a terminator or a stuffed dot, so the
        scan jumps from one ``\\n.`` to the next instead of walking every line.
        """
        buf = self._buf
        n = len(buf)
        out = bytearray()
        pos = 0
        ended = False
        while pos < n:
            if self._line_start:
                if buf[pos] == 0x2E:  # "."
                    rest = n - pos
                    if (rest >= 2 and buf[pos + 1] == 0x0A) or (
                        rest >= 3 and buf[pos + 1] == 0x0D and buf[pos + 2] == 0x0A
                    ):
                        ended = True
                        break
                    if rest == 1 or (rest == 2 and buf[pos + 1] == 0x0D):
                        if self._eof:  # "." or ".\r" and then the close: the end too
                            ended = True
                            break
                        break  # cannot tell yet
                    pos += 1  # a stuffed dot
                self._line_start = False
            j = buf.find(b"\n.", pos)
            if j >= 0:
                out += buf[pos : j + 1]
                pos = j + 1
                self._line_start = True
                continue
            out += buf[pos:n]
            self._line_start = buf[n - 1] == 0x0A
            pos = n
        if ended:
            buf.clear()
        else:
            del buf[:pos]
            if self._eof:
                out += buf  # an incomplete last line with no terminator
                buf.clear()
                self._terminated = False
                ended = True
        return bytes(out), ended

    def _read_error(self) -> PlusError | NeedData:
        body: bytes | None = None
        if self.framing is Framing.DOT:
            data, ended = self._unstuff()
            self._chunks.append(data)
            if ended:
                body = b"".join(self._chunks)
        elif self.framing is Framing.LENGTH:
            if len(self._buf) >= self._remaining or self._eof:
                body = bytes(self._buf[: self._remaining])
        elif self._eof:
            body = bytes(self._buf)
        if body is None:
            if len(self._buf) + sum(map(len, self._chunks)) > _MAX_ERROR_BODY:
                raise GopherReplyError("the Gopher+ error text is too long")
            return NEED_DATA
        self.state = ReaderState.DONE
        self._buf.clear()
        self._chunks.clear()
        return _parse_error(body)


#: The ends of a chunk that may be the start of a terminator line, by their last byte.
_TAILS: Final = {0x0A: (b".\r\n", b".\n"), 0x0D: (b".\r",), 0x2E: (b".",)}


def _terminator_tail(data: bytes, line_start: bool) -> int:
    """How many of ``data``'s last bytes are a line (at a line start: after a LF, or
    at ``data``'s start if ``line_start``) that is a prefix of ``.\r\n`` or ``.\n``."""
    for tail in _TAILS.get(data[-1], ()) if data else ():
        if data.endswith(tail):
            before = len(data) - len(tail)
            return len(tail) if (data[before - 1] == 0x0A if before else line_start) else 0
    return 0


def _parse_error(body: bytes) -> PlusError:
    text = body.decode("utf-8", "replace")
    lines = [line.strip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    first = lines[0] if lines else ""
    code: int | None = None
    m = re.match(r"([0-9]+)\s*(.*)", first)
    rest = first
    if m:
        code, rest = ascii_int(m.group(1), max_digits=9), m.group(2)
    admin_match = re.search(r"<([^<>]*)>", rest)
    admin = admin_match.group(1) if admin_match else (rest or None)
    message = " ".join(line for line in lines[1:] if line)
    return PlusError(code=code, admin=admin, message=message, first_line=first)
