"""The gopher view (RFC 1738 3.4): type, selector, search and Gopher+ string, decoded.

Imported when the view is first asked for (:mod:`anyurl.url.views`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from anyurl.url.charset import decode, display
from anyurl.url.views import split_gopher_path

__all__ = ["GopherPath", "gopher_path"]


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
