"""The gopher view (RFC 1738 3.4): type, selector, search and Gopher+ string, decoded.

Imported when the view is first asked for (:mod:`anyurl.url.views`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from anyurl.url.charset import decode, display

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
