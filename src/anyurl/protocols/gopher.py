"""Gopher (RFC 1436) and Gopher+ as a sans-I/O core: request bytes out, response events in.

How a Gopher response ends is not said by the response itself but by what was asked
for, which is why framing is the subtle part of this protocol:

* a gopher0 menu or text item ends at a line holding only ``.``; every other line that
  starts with ``.`` carries one stuffed dot to remove (RFC 1436 appendix). Servers may
  also just close, and that is a normal end, not an error;
* binary items (``9``, ``5``, ``g``, ``I``, ``s`` ...) have no terminator: they end when
  the server closes;
* a Gopher+ response (asked for with a Gopher+ string) starts with a header line that
  overrides both rules: ``+<n>`` exactly n bytes, ``+-1`` dot-terminated (unstuffed as
  gopher0 text), ``+-2`` until close, and ``--1`` / ``--2`` an error body framed the
  same way. A gopher0 server that ignores the Gopher+ string answers without a header,
  so a first line that is not exactly a header means "no header", and the item type
  decides the framing as for gopher0.

:class:`ResponseReader` implements this as a small state machine in the h11 style:
``receive_data(bytes)`` (``b""`` at end of stream), then ``next_event()`` until it
returns :data:`NEED_DATA`. It never sees a socket. Around it sit pure functions for the
rest of the protocol: :func:`build_request` (RFC 1738 section 3.4), :class:`MenuParser`
(menu lines, keeping malformed ones as info lines), :func:`parse_attributes` (the
``+INFO``/``+ADMIN``/``+VIEWS``/``+ABSTRACT``/``+ASK`` blocks of ``!`` and ``$``
responses), :func:`parse_ask` and :func:`form_request` (the filled-in form of RFC 1738
section 3.4.9).

Text is kept as the server sent it (CR LF is not rewritten); only the terminator and
the stuffed dots are removed. Decoded strings (display strings, selectors) use UTF-8
with ``surrogateescape``, so a selector goes back to the server octet for octet.
"""

from __future__ import annotations

import enum
import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from anyurl.protocols.common import (
    NEED_DATA,
    LocalProtocolError,
    NeedData,
    RemoteProtocolError,
)
from anyurl.url import GopherPath, encode_wire, quote
from anyurl.url.charset import RESERVED, UCHAR_PLAIN, display

__all__ = [
    "BINARY_TYPES",
    "MENU_TYPES",
    "NEED_DATA",
    "TYPE_LABELS",
    "AskForm",
    "AttributeBlock",
    "Data",
    "EndOfData",
    "FormError",
    "Framing",
    "GopherProtocolError",
    "GopherRequestError",
    "ItemAttributes",
    "MenuItem",
    "MenuParser",
    "NeedData",
    "PlusError",
    "PlusHeader",
    "Question",
    "ReaderState",
    "ResponseReader",
    "View",
    "answer_lines",
    "build_request",
    "data_block",
    "error_item_message",
    "form_request",
    "framing_for_type",
    "parse_ask",
    "parse_attributes",
    "parse_menu",
    "parse_menu_line",
    "render_attributes",
    "render_menu",
]

CRLF: Final = b"\r\n"

#: Types answered with a menu (a search answers with one too).
MENU_TYPES: Final = frozenset("17")
#: Types read until the server closes. RFC 1436 names only 5 and 9; the others are
#: images, sounds, PDF and the Gopher+ movie/bitmap/sound types, all binary in practice.
BINARY_TYPES: Final = frozenset("59gIsP;:<dv")

#: Short labels for rendering menus (RFC 1436 3.8 and the de-facto types).
TYPE_LABELS: Final[Mapping[str, str]] = {
    "0": "TXT", "1": "DIR", "2": "CSO", "3": "ERR", "4": "HQX", "5": "DOS",
    "6": "UUE", "7": "FIND", "8": "TEL", "9": "BIN", "+": "MIRR", "T": "3270",
    "g": "GIF", "I": "IMG", "h": "HTML", "s": "SND", "P": "PDF", "M": "MIME",
    ";": "MOV", ":": "BMP", "<": "SND", "d": "DOC", "w": "WWW", "c": "CAL", "e": "EVT",
}

#: Longest Gopher+ header line we wait for before deciding there is none.
_MAX_HEADER = 32
_HEADER = re.compile(rb"([+-])(-?[0-9]+)\r?\n")
#: Longest error body kept (a ``--2`` error is read until close).
_MAX_ERROR_BODY = 64 * 1024


class GopherProtocolError(RemoteProtocolError):
    """The server's bytes break the protocol (the handler maps it to ProtocolError)."""


class GopherRequestError(LocalProtocolError, ValueError):
    """A request we must not send (a TAB, CR or LF in a selector) or a reader misused."""


class FormError(ValueError):
    """The answers given do not fill in the +ASK form (missing, or not a valid choice)."""


# -- requests (RFC 1738 3.4) -------------------------------------------------------------


def build_request(path: GopherPath, *, search: str | None = None,
                  gopher_plus: str | None = None) -> bytes:
    """The bytes to send for ``path``: selector [TAB search] [TAB gopher+] CR LF.

    ``search`` is used when the URL has none (the CLI's ``--search``); ``gopher_plus``
    replaces the URL's Gopher+ string (``--view`` asks for ``+<view>``). An empty search
    field is dropped in front of a Gopher+ string except for type 7: RFC 1738 3.4.3 makes
    the URL carry one, but a Gopher+ server reads ``sel<TAB><TAB>+`` as an (empty) search,
    and dropping it turns the URL of 3.4.9 into exactly the bytes 3.4.9 says to send. A
    Gopher+ string that carries a data block (3.4.9) already ends with CR LF.
    """
    if path.search is not None:
        search = path.search
    plus = gopher_plus if gopher_plus is not None else path.gopher_plus
    for name, value in (("selector", path.selector), ("search", search)):
        if value is not None and any(c in value for c in "\t\r\n"):
            raise GopherRequestError(f"a gopher {name} may not contain TAB, CR or LF: {value!r}")
    line = path.selector
    if plus is None:
        if search is not None:
            line += "\t" + search
    else:
        if search or (search is not None and path.gophertype == "7"):
            line += "\t" + search
        elif path.gophertype == "7" and plus[:1] in ("!", "$"):
            line += "\t"  # attributes of a search item: sel<TAB><TAB>! (G+ appendix II)
        line += "\t" + plus
    data = encode_wire(line)
    if not data.endswith(CRLF):
        data += CRLF
    return data


def _stuff(line: bytes) -> bytes:
    return b"." + line if line.startswith(b".") else line


def data_block(lines: Sequence[str], file: bytes | None = None) -> bytes:
    """A client data block: ``+-1``, the lines, an optional file, and the ``.`` line.

    Lines that start with ``.`` are stuffed so that an answer of ``.`` cannot end the
    block early (the server unstuffs ``+-1`` data as it would gopher0 text).
    """
    out = bytearray(b"+-1\r\n")
    for text in lines:
        out += _stuff(encode_wire(text)) + CRLF
    if file:
        for raw in file.splitlines(keepends=True):
            out += _stuff(raw.rstrip(b"\r\n")) + CRLF
    out += b".\r\n"
    return bytes(out)


def form_request(selector: str, lines: Sequence[str], *, file: bytes | None = None,
                 search: str | None = None, view: str = "") -> bytes:
    """The filled-in form of RFC 1738 3.4.9: ``sel<TAB>+<TAB>1`` CR LF and a data block.

    For a search item the words come before the Gopher+ field (G+ 2.4).
    """
    head = selector + (f"\t{search}" if search else "") + f"\t+{view}\t1"
    if any(c in head for c in "\r\n"):
        raise GopherRequestError(f"a gopher selector may not contain CR or LF: {selector!r}")
    return encode_wire(head) + CRLF + data_block(lines, file)


# -- response events ------------------------------------------------------------------------


@dataclass(frozen=True)
class PlusHeader:
    """A Gopher+ success header: ``size`` bytes follow, or -1 (dot-terminated), -2 (close)."""

    size: int


@dataclass(frozen=True)
class Data:
    """Body bytes, with the terminator removed and dots unstuffed where framing says so."""

    data: bytes


@dataclass(frozen=True)
class EndOfData:
    """The body is over. ``expected`` is the announced ``+n`` size, if any.

    ``terminated`` is False when the server closed without the ``.`` line, which RFC 1436
    allows; ``received < expected`` is a short body (a partial transfer).
    """

    received: int
    expected: int | None = None
    terminated: bool = True

    @property
    def short(self) -> bool:
        return self.expected is not None and self.received < self.expected


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

    DOT = "dot"  #: at a line holding only "."; stuffed dots removed
    CLOSE = "close"  #: when the server closes
    LENGTH = "length"  #: after exactly n bytes (Gopher+ ``+n``)


def framing_for_type(gophertype: str) -> Framing:
    """Framing of a gopher0 answer (no Gopher+ header): binary types until close, else dot."""
    return Framing.CLOSE if gophertype in BINARY_TYPES else Framing.DOT


class ReaderState(enum.Enum):
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
            raise GopherRequestError("LENGTH framing needs a Gopher+ header")
        self.state = ReaderState.HEADER if gopher_plus else ReaderState.BODY
        self.framing: Framing = fallback
        self.header: int | None = None
        self._buf = bytearray()
        self._chunks: deque[bytes] = deque()  # CLOSE/LENGTH bodies, as received: no copy
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
                raise GopherRequestError("data received after end of stream")
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
        raise GopherRequestError("the response is complete; no more events")

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
            raise GopherProtocolError(f"Gopher+ header {m.group(0).strip()!r} has no meaning")
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
                raise GopherProtocolError("the Gopher+ error text is too long")
            return NEED_DATA
        self.state = ReaderState.DONE
        self._buf.clear()
        self._chunks.clear()
        return _parse_error(body)


def _parse_error(body: bytes) -> PlusError:
    text = body.decode("utf-8", "replace")
    lines = [line.strip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    first = lines[0] if lines else ""
    code: int | None = None
    m = re.match(r"(\d+)\s*(.*)", first)
    rest = first
    if m:
        code, rest = int(m.group(1)), m.group(2)
    admin_match = re.search(r"<([^<>]*)>", rest)
    admin = admin_match.group(1) if admin_match else (rest or None)
    message = " ".join(line for line in lines[1:] if line)
    return PlusError(code=code, admin=admin, message=message, first_line=first)


# -- menus ------------------------------------------------------------------------------------


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


_URL_SAFE = UCHAR_PLAIN | RESERVED
#: Host names and addresses a menu line may name (anything else gets no URL: it could not
#: be parsed back, and a space or "@" in a host would change what the URL means).
_HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9.])?|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*")


@dataclass(frozen=True)
class MenuItem:
    """One menu line: ``<type><display>TAB<selector>TAB<host>TAB<port>[TAB<plus>...]``.

    ``plus`` is the Gopher+ marker of the fifth field (``"+"`` or ``"?"``), ``extra`` every
    field after the port. A line that is not a menu line is kept as an info line
    (``type == "i"``) with ``malformed`` set, so one bad line does not lose a listing.
    ``primary_type`` is the type a ``+`` (mirror) line stands for: the type of the item
    before it.
    """

    type: str
    display: str
    selector: str = ""
    host: str = ""
    port: int | None = None
    plus: str | None = None
    extra: tuple[str, ...] = ()
    malformed: bool = False
    primary_type: str | None = None

    @property
    def is_info(self) -> bool:
        return self.type == "i" or self.malformed

    @property
    def fetch_type(self) -> str:
        """The type to fetch the item as (a mirror line's primary type)."""
        return self.primary_type or self.type

    def url(self) -> str | None:
        """The item as a URL: a gopher URL, the target of ``h``/``URL:``, a telnet URL
        for type 8; None for info lines, errors and what no URL can name (CSO, tn3270)."""
        gtype = self.fetch_type
        if gtype == "h" and self.selector.startswith("URL:"):
            target = self.selector[4:].strip()
            return target or None
        if (self.is_info or gtype in ("3", "2", "T", "i") or self.port is None
                or not _HOST.fullmatch(self.host)):
            return None
        host = self.host
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"
        if gtype == "8":
            login = quote(self.selector) + "@" if self.selector else ""
            text = f"telnet://{login}{host}" + (f":{self.port}" if self.port != 23 else "") + "/"
        else:
            port = f":{self.port}" if self.port != 70 else ""
            text = f"gopher://{host}{port}/{quote(gtype, _URL_SAFE)}"
            text += quote(self.selector, _URL_SAFE)
            if self.plus == "?":
                text += "%09%09?"  # RFC 1738 3.4.4: an item with a +ASK form
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "type": display(self.type),
            "display": display(self.display),
            "selector": display(self.selector),
            "host": display(self.host),
            "port": self.port,
            "gopher_plus": self.plus,
            "url": self.url(),
            "info": self.is_info,
            "malformed": self.malformed,
        }


def parse_menu_line(raw: bytes, primary_type: str | None = None) -> MenuItem:
    """One menu line (without its line end); never raises."""
    line = _text(raw)
    fields = line.split("\t")
    if len(fields) < 4 or not fields[0]:
        return MenuItem("i", line.replace("\t", " "), malformed=bool(line))
    first, selector, host, port_text, *extra = fields
    gtype, name = first[0], first[1:]
    port_text = port_text.strip()
    if not port_text.isdigit() or int(port_text) > 65535:
        if gtype == "i":
            return MenuItem("i", name, selector, host.strip(), None, None, tuple(extra))
        return MenuItem("i", line.replace("\t", " "), malformed=True)
    plus = extra[0].strip() if extra and extra[0].strip() in ("+", "?") else None
    return MenuItem(
        type=gtype, display=name, selector=selector, host=host.strip(), port=int(port_text),
        plus=plus, extra=tuple(extra),
        primary_type=primary_type if gtype == "+" else None,
    )


class MenuParser:
    """Menu lines from body bytes in any chunking (LF or CR LF line ends)."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._primary: str | None = None

    def _item(self, raw: bytes) -> MenuItem:
        item = parse_menu_line(raw.rstrip(b"\r"), self._primary)
        if item.type != "+" and not item.is_info:
            self._primary = item.type
        return item

    def feed(self, data: bytes) -> list[MenuItem]:
        self._buf += data
        end = self._buf.rfind(b"\n")
        if end < 0:
            return []
        lines = bytes(self._buf[:end]).split(b"\n")
        del self._buf[: end + 1]
        return [self._item(line) for line in lines]

    def close(self) -> list[MenuItem]:
        """The last line when the body did not end with a line end."""
        rest = bytes(self._buf).rstrip(b"\r")
        self._buf.clear()
        if not rest or rest == b".":
            return []
        return [self._item(rest)]


def parse_menu(body: bytes) -> list[MenuItem]:
    """Every item of a whole menu body (terminator already removed by the reader)."""
    parser = MenuParser()
    items = parser.feed(body)
    items += parser.close()
    return items


def error_item_message(items: Sequence[MenuItem]) -> str | None:
    """The text of an answer that is only an error item (``3``), else None.

    Servers answer a missing selector with a one-line menu holding a type-3 item, even
    when a text or binary item was asked for (pygopherd, gophernicus). Info lines around
    it are allowed; any other real item means it is a menu that happens to list an error.
    """
    real = [item for item in items if not item.is_info]
    if len(real) == 1 and real[0].type == "3":
        return display(real[0].display) or "error"
    return None


def render_menu(items: Iterable[MenuItem]) -> str:
    """A menu as readable text: a type label, the display string, the item's URL."""
    out = []
    for item in items:
        name = display(item.display) or ""
        if item.is_info:
            out.append(f"       {name}".rstrip())
            continue
        label = "(" + TYPE_LABELS.get(item.fetch_type, "?" + (display(item.type) or "")) + ")"
        line = f"{label:<7}{name}"
        if item.plus == "?":
            line += " [form]"
        url = item.url()
        if url:
            line += f"  <{url}>"
        out.append(line)
    return "".join(line + "\n" for line in out)


# -- attributes (Gopher+ ! and $) ------------------------------------------------------------


@dataclass(frozen=True)
class AttributeBlock:
    """One attribute block: ``+NAME: value`` and its lines (leading space removed)."""

    name: str
    value: str
    lines: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "value": display(self.value),
                "lines": [display(line) for line in self.lines]}


@dataclass(frozen=True)
class View:
    """One line of ``+VIEWS``: content type, optional language and approximate size."""

    content_type: str
    language: str | None = None
    size: str | None = None

    @property
    def view_string(self) -> str:
        """What ``--view`` takes and the request sends after ``+`` (UMN VIgetViewnLang)."""
        return self.content_type + (f" {self.language}" if self.language else "")

    def to_json(self) -> dict[str, Any]:
        return {"content_type": self.content_type, "language": self.language,
                "size": self.size, "view": self.view_string}


_ASK_KINDS = {k.lower(): k for k in
              ("Ask", "AskP", "AskL", "AskF", "Select", "Choose", "ChooseF", "Note")}
_NO_ANSWER = frozenset({"Note", "AskF"})


@dataclass(frozen=True)
class Question:
    """One line of a +ASK form. ``kind`` is normalised (``Ask``, ``AskP``, ``AskL``,
    ``AskF``, ``Select``, ``Choose``, ``ChooseF``, ``Note``) or kept as sent if unknown."""

    kind: str
    prompt: str
    default: str | None = None
    choices: tuple[str, ...] = ()

    @property
    def needs_answer(self) -> bool:
        """False for text shown only (``Note``), local file names (``AskF``), unknowns."""
        return self.kind in _ASK_KINDS.values() and self.kind not in _NO_ANSWER

    @property
    def secret(self) -> bool:
        return self.kind == "AskP"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "prompt": display(self.prompt),
                "default": display(self.default), "choices": [display(c) for c in self.choices],
                "needs_answer": self.needs_answer}


@dataclass(frozen=True)
class AskForm:
    """A parsed +ASK block: the questions in the order their answers are sent."""

    questions: tuple[Question, ...]

    @property
    def answerable(self) -> tuple[Question, ...]:
        return tuple(q for q in self.questions if q.needs_answer)

    def to_json(self) -> dict[str, Any]:
        return {"questions": [q.to_json() for q in self.questions]}


def parse_ask(lines: Iterable[str]) -> AskForm:
    """The questions of a +ASK block (``Kind: prompt[TAB default-or-choices...]``)."""
    questions = []
    for line in lines:
        if not line.strip():
            continue
        kind_text, sep, rest = line.partition(":")
        if not sep:
            questions.append(Question("Note", line.strip()))
            continue
        kind = _ASK_KINDS.get(kind_text.strip().lower(), kind_text.strip())
        rest = rest[1:] if rest.startswith(" ") else rest
        prompt, *values = rest.split("\t")
        default: str | None = None
        choices: tuple[str, ...] = ()
        if kind in ("Choose", "ChooseF"):
            choices = tuple(values)
        elif values:
            default = "\t".join(values)
        if kind == "Select":
            # UMN form.c: the default 0/1 follows the last ':' of the prompt.
            head, colon, flag = prompt.rpartition(":")
            if colon and flag.strip() in ("0", "1"):
                prompt, default = head, flag.strip()
        questions.append(Question(kind, prompt.strip(), default, choices))
    return AskForm(tuple(questions))


_TRUE = {"1", "yes", "true", "on", "y"}
_FALSE = {"0", "no", "false", "off", "n", ""}


def answer_lines(form: AskForm, answers: Mapping[str, Any]) -> tuple[list[str], bytes | None]:
    """The lines of the data block for ``answers`` ({prompt: value}), and the file if any.

    Values: text for ``Ask``/``AskP``; a list of lines (or text with line ends) for
    ``AskL``, sent as a count and the lines (G+ 2.8); a bool or ``0``/``1``/yes/no for
    ``Select``; one of the choices for ``Choose``; the file's bytes for ``ChooseF``.
    A question without an answer takes its default; without one it is an error naming
    every such prompt.
    """
    lines: list[str] = []
    file: bytes | None = None
    missing: list[str] = []
    for q in form.answerable:
        value = answers.get(q.prompt)
        if value is None:
            value = q.default
        if value is None:
            missing.append(q.prompt)
            continue
        if q.kind == "AskL":
            items = value.splitlines() if isinstance(value, str) else [str(v) for v in value]
            lines.append(str(len(items)))
            lines.extend(_one_line(q, v) for v in items)
        elif q.kind == "Select":
            flag = str(value).strip().lower() if not isinstance(value, bool) else str(int(value))
            if flag not in _TRUE | _FALSE:
                raise FormError(f"the answer to {q.prompt!r} must be yes or no, not {value!r}")
            lines.append("1" if flag in _TRUE else "0")
        elif q.kind == "Choose":
            lines.append(_choice(q, str(value)))
        elif q.kind == "ChooseF":
            if file is not None:
                raise FormError("a +ASK form may send only one file")
            if not isinstance(value, bytes | bytearray):
                raise FormError(f"the answer to {q.prompt!r} must be the file's bytes")
            file = bytes(value)
        else:
            lines.append(_one_line(q, str(value)))
    if missing:
        raise FormError("no answer for " + ", ".join(repr(p) for p in missing))
    return lines, file


def _one_line(q: Question, value: str) -> str:
    if "\r" in value or "\n" in value:
        raise FormError(f"the answer to {q.prompt!r} must be one line")
    return value


def _choice(q: Question, value: str) -> str:
    if value in q.choices:
        return value
    folded = [c for c in q.choices if c.lower() == value.lower()]
    if len(folded) == 1:
        return folded[0]
    raise FormError(
        f"{value!r} is not a choice of {q.prompt!r} (choose one of "
        + ", ".join(repr(c) for c in q.choices) + ")"
    )


@dataclass(frozen=True)
class ItemAttributes:
    """The attribute blocks of one item; ``info`` is its ``+INFO`` menu line."""

    info: MenuItem | None
    blocks: tuple[AttributeBlock, ...] = field(default=())

    def block(self, name: str) -> AttributeBlock | None:
        """The block called ``name`` (``"+VIEWS"`` or ``"VIEWS"``); exact case first."""
        want = name if name.startswith("+") else "+" + name
        for b in self.blocks:
            if b.name == want:
                return b
        for b in self.blocks:
            if b.name.lower() == want.lower():
                return b
        return None

    @property
    def views(self) -> tuple[View, ...]:
        b = self.block("+VIEWS")
        if b is None:
            return ()
        views = []
        for line in b.lines:
            head, _, tail = line.partition(":")
            if not head.strip():
                continue
            ctype, _, lang = head.strip().partition(" ")
            m = re.search(r"<([^>]*)>", tail)
            views.append(View(ctype, lang.strip() or None, m.group(1) if m else None))
        return tuple(views)

    @property
    def abstract(self) -> str | None:
        b = self.block("+ABSTRACT")
        return None if b is None else "\n".join(b.lines).strip("\n")

    @property
    def admin(self) -> dict[str, str]:
        b = self.block("+ADMIN")
        out: dict[str, str] = {}
        for line in b.lines if b else ():
            key, sep, value = line.partition(":")
            if sep:
                out[key.strip()] = value.strip()
        return out

    @property
    def ask(self) -> AskForm | None:
        b = self.block("+ASK")
        return None if b is None else parse_ask(b.lines)

    def to_json(self) -> dict[str, Any]:
        ask = self.ask
        return {
            "info": self.info.to_json() if self.info else None,
            "views": [v.to_json() for v in self.views],
            "admin": self.admin,
            "abstract": display(self.abstract),
            "ask": ask.to_json() if ask else None,
            "blocks": [b.to_json() for b in self.blocks],
        }


def parse_attributes(body: bytes) -> tuple[ItemAttributes, ...]:
    """The items of a ``!`` (one item) or ``$`` (every item of a menu) answer.

    A line starting with ``+`` opens a block (its name runs to ``:``, a space or the end
    of the line: G+ 2.8 writes ``+ADMIN`` without a colon); lines starting with a space
    are its value lines. Each ``+INFO`` begins a new item. Other lines are kept as value
    lines of the open block, since being lenient costs nothing here.
    """
    items: list[ItemAttributes] = []
    info: MenuItem | None = None
    blocks: list[AttributeBlock] = []
    name: str | None = None
    value = ""
    lines: list[str] = []

    def close_block() -> None:
        nonlocal name, lines
        if name is not None:
            blocks.append(AttributeBlock(name, value, tuple(lines)))
        name, lines = None, []

    def close_item() -> None:
        nonlocal info, blocks
        close_block()
        if info is not None or blocks:
            items.append(ItemAttributes(info, tuple(blocks)))
        info, blocks = None, []

    texts = [_text(raw.rstrip(b"\r")) for raw in body.split(b"\n")]
    while texts and texts[-1].strip() in ("", "."):
        texts.pop()  # a "." line when the server framed the answer as gopher0 text
    for line in texts:
        if line.startswith("+"):
            m = re.match(r"(\+[^:\s]*):?\s?(.*)", line)
            assert m is not None
            new_name, new_value = m.group(1), m.group(2)
            if new_name == "+INFO":
                close_item()
                info = parse_menu_line(encode_wire(new_value))
            close_block()
            name, value = new_name, new_value
        elif name is not None and line:
            lines.append(line[1:] if line.startswith(" ") else line)
    close_item()
    return tuple(items)


def render_attributes(items: Iterable[ItemAttributes]) -> str:
    """Attributes as readable text: each item, its views (as ``--view`` takes them),
    then every block with its lines indented."""
    out: list[str] = []
    for attrs in items:
        if attrs.info is not None:
            out.extend(render_menu([attrs.info]).splitlines())
        for view in attrs.views:
            size = f"  ({view.size})" if view.size else ""
            out.append(f"  view: {view.view_string}{size}")
        for b in attrs.blocks:
            if b.name == "+INFO" or (b.name == "+VIEWS" and attrs.views):
                continue  # the views are listed above, as --view takes them
            out.append(f"  {b.name}:" + (f" {display(b.value)}" if b.value else ""))
            out.extend(f"    {display(line)}".rstrip() for line in b.lines)
        out.append("")
    return "\n".join(out)


