"""Gopher menus (RFC 1436 3.8): one item a line, parsed leniently, each with its URL.

Decoded strings (display strings, selectors) use UTF-8 with ``surrogateescape``, so a
selector goes back to the server octet for octet.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from anyurl.numbers import ascii_int
from anyurl.protocols.gopher.errors import GopherReplyError
from anyurl.url import quote
from anyurl.url.charset import RESERVED, UCHAR_PLAIN, display

__all__ = [
    "MAX_MENU_LINE",
    "MenuItem",
    "MenuParser",
    "error_item_message",
    "parse_menu",
    "parse_menu_line",
]


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
        """Whether the line is only text to show (type ``i``, or a line that is not a menu item).
        """
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
        """The item as a JSON object (``--json``); bytes that are not UTF-8 shown escaped."""
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
    port = ascii_int(port_text.strip(), max_digits=5)
    if port is None or port > 65535:
        if gtype == "i":
            return MenuItem("i", name, selector, host.strip(), None, None, tuple(extra))
        return MenuItem("i", line.replace("\t", " "), malformed=True)
    plus = extra[0].strip() if extra and extra[0].strip() in ("+", "?") else None
    return MenuItem(
        type=gtype, display=name, selector=selector, host=host.strip(), port=port,
        plus=plus, extra=tuple(extra),
        primary_type=primary_type if gtype == "+" else None,
    )


#: The longest menu line accepted: a line that never ends is an error, not memory.
MAX_MENU_LINE = 64 * 1024


class MenuParser:
    """Menu lines from body bytes in any chunking (LF or CR LF line ends).

    A line longer than :data:`MAX_MENU_LINE` is a :class:`GopherReplyError`.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._primary: str | None = None

    def _item(self, raw: bytes) -> MenuItem:
        item = parse_menu_line(raw.rstrip(b"\r"), self._primary)
        if item.type != "+" and not item.is_info:
            self._primary = item.type
        return item

    def feed(self, data: bytes) -> list[MenuItem]:
        """The menu items completed by ``data`` (a line longer than any menu line is an error)."""
        self._buf += data
        end = self._buf.rfind(b"\n")
        if end < 0:
            if len(self._buf) > MAX_MENU_LINE:
                raise GopherReplyError(f"a menu line longer than {MAX_MENU_LINE} bytes")
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
