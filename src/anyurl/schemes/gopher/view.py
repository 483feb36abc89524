"""The gopher view (RFC 1738 3.4): type, selector, search and Gopher+ string, decoded.

Imported when the view is first asked for (:mod:`anyurl.url.views`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anyurl.url.charset import XCHAR_PLAIN, decode, display, escape_unsafe
from anyurl.url.grammar import Grammar, Reader
from anyurl.url.parse import SEARCH, WIRE_BREAK

if TYPE_CHECKING:
    from anyurl.url.model import URL

__all__ = ["GopherPath", "gopher_path", "gopher_plus_problem", "split_gopher_path"]


def split_gopher_path(path: str | None) -> tuple[str, str, str | None, str | None]:
    """Split a raw gopher-path into raw (gtype, selector, search, gopher+ string)."""
    if not path:
        return "1", "", None, None
    n = 3 if path[0] == "%" and len(path) >= 3 else 1
    gtype, rest = path[:n], path[n:]
    parts = re.split("%09", rest, maxsplit=2)
    selector = parts[0]
    search = parts[1] if len(parts) > 1 else None
    plus = parts[2] if len(parts) > 2 else None
    return gtype, selector, search, plus


#: Section 3.4.9's filled-in form, the one Gopher+ string that may hold CR LF:
#: ``+[view]<TAB>1`` CR LF, ``+-1`` CR LF, the answer lines (none of them a lone ``.``)
#: and the ``.`` line that ends the data block, with nothing after it.
_GOPHER_FORM = re.compile(
    r"\+[^\t\r\n\x00]*\t1\r\n\+-1\r\n(?:(?!\.\r\n)[^\r\n\x00]*\r\n)*\.\r\n\Z")


def gopher_plus_problem(plus: str) -> str | None:
    """Why the decoded Gopher+ string ``plus`` must not be sent, or None.

    A CR, LF or NUL in it would end the request line early and smuggle in more
    (RFC 1738 section 6), except in exactly the shape of section 3.4.9's form, where the
    line breaks are the data block's own.
    """
    if not any(c in plus for c in "\r\n\x00") or _GOPHER_FORM.match(plus):
        return None
    return ("a CR, LF or NUL in a Gopher+ string would end the request line early; only "
            "section 3.4.9's filled-in form (+<TAB>1, +-1, the answer lines, '.') carries "
            "line breaks")


@dataclass(frozen=True)
class GopherPath:
    """``<gophertype><selector>%09<search>%09<gopher+_string>`` of section 3.4, decoded."""

    gophertype: str
    selector: str
    search: str | None
    gopher_plus: str | None

    def request_line(self) -> str:
        """What section 3.4 says to send before CR LF: selector [TAB search [TAB plus]]."""
        line = self.selector
        if self.search is not None or self.gopher_plus is not None:
            line += "\t" + (self.search or "")
        if self.gopher_plus is not None:
            line += "\t" + self.gopher_plus
        return line

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        return {
            "gophertype": display(self.gophertype),
            "selector": display(self.selector),
            "search": display(self.search),
            "gopher_plus": display(self.gopher_plus),
        }


def gopher_path(path: str | None) -> GopherPath:
    """The :class:`GopherPath` of a raw gopher-path (empty: type 1, the root menu)."""
    gtype, selector, search, plus = split_gopher_path(path)
    return GopherPath(
        gophertype=decode(gtype),
        selector=decode(selector),
        search=None if search is None else decode(search),
        gopher_plus=None if plus is None else decode(plus),
    )


# -- its grammar (section 5), which the parser asks for (anyurl.url.grammar) ----------


def _wire_end(reader: Reader, start: int, end: int) -> int:
    """A Gopher+ string may hold CR LF only as section 3.4.9's form: it is checked as
    such, and section 6's check ends before it."""
    s = reader.s
    if not s.startswith("//", start):
        return end
    slash = s.find("/", start + 2, end)
    if slash < 0:
        return end
    raw = s[slash + 1 : end]
    first = raw.find("%09", 3 if raw[:1] == "%" else 1)
    second = -1 if first < 0 else raw.find("%09", first + 3)
    if second < 0:
        return end
    stop = slash + 1 + second
    problem = gopher_plus_problem(decode(raw[second + 3 :]))
    if problem is not None:
        m = WIRE_BREAK.search(s, stop + 3, end)
        raise reader.fail(problem, stop + 3 if m is None else m.start())
    return stop


def _path(reader: Reader, url: URL, start: int, end: int) -> URL:
    """``gtype selector [%09 search [%09 gopher+_string]]``: ``*xchar`` but the search.

    Section 5 writes the gopher search with the very ``search`` rule of http's
    (``uchar`` and ``;:@&=``), so strict mode refuses a raw ``/`` or ``?`` there
    (issue 29), in text order with the ``xchar`` checks of the other parts so the
    first problem is the one named. Lenient mode writes them ``%2F`` and ``%3F``:
    the search reaches the server decoded, so the escape changes nothing it is sent.
    """
    raw = reader.s[start:end]
    gtype, selector, search, _ = split_gopher_path(raw)
    if search is None:
        reader.check_chars(start, end, XCHAR_PLAIN, "the url-path")
        return url.replace(path=reader.norm(raw))
    search_start = start + len(gtype) + len(selector) + len("%09")
    search_end = search_start + len(search)
    reader.check_chars(start, search_start, XCHAR_PLAIN, "the url-path")
    reader.check_chars(search_start, search_end, SEARCH, "the gopher search")
    reader.check_chars(search_end, end, XCHAR_PLAIN, "the url-path")
    path = reader.norm(raw)
    if not reader.strict:
        gtype, selector, search, plus = split_gopher_path(path)
        path = (f"{gtype}{selector}%09{escape_unsafe(search or '', SEARCH)}"
                + ("" if plus is None else f"%09{plus}"))
    return url.replace(path=path)


#: Section 3.4's gopherurl, and Gopher+'s string after a second tab.
GRAMMARS = {"gopher": Grammar(ip=True, part="the gopher type, selector or search",
                              wire_end=_wire_end, path=_path)}
