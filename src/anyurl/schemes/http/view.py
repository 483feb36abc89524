"""The http view (RFC 1738 3.3): the path and the search part, raw.

Imported when the view is first asked for (:mod:`anyurl.url.views`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anyurl.url.grammar import Grammar, Reader
from anyurl.url.parse import HSEGMENT, SEARCH, segments

if TYPE_CHECKING:
    from anyurl.url.model import URL

__all__ = ["HTTPPath", "http_path"]


@dataclass(frozen=True)
class HTTPPath:
    """``<path>?<searchpart>`` of section 3.3, raw (HTTP sends them encoded)."""

    hpath: str | None
    search: str | None

    @property
    def target(self) -> str:
        """The request-target: ``/`` + hpath [+ ``?`` + search]."""
        t = "/" + (self.hpath or "")
        if self.search is not None:
            t += "?" + self.search
        return t

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        return {"hpath": self.hpath, "search": self.search}


def http_path(path: str | None) -> HTTPPath:
    """The :class:`HTTPPath` of a raw http url-path (None: the root, no search)."""
    if path is None:
        return HTTPPath(None, None)
    hpath, sep, search = path.partition("?")
    return HTTPPath(hpath, search if sep else None)


# -- its grammar (section 5), which the parser asks for (anyurl.url.grammar) ----------


_PATH_START = re.compile("[/?]")


def _wire_end(reader: Reader, start: int, end: int) -> int:
    """An http path and search travel still %-encoded (section 3.3): section 6's check
    ends at the host."""
    s = reader.s
    m = _PATH_START.search(s, start + 2, end) if s.startswith("//", start) else None
    return end if m is None else m.start()


def _path(reader: Reader, url: URL, start: int, end: int) -> URL:
    """``hpath [ "?" search ]``: ``hsegment``s, and section 5's one search rule."""
    s = reader.s
    raw = s[start:end]
    q = raw.find("?")
    hpath_end = end if q < 0 else start + q
    for seg_start, seg_end in segments(start, hpath_end, s, "/"):
        reader.check_chars(seg_start, seg_end, HSEGMENT, "the http path")
    if q >= 0:
        reader.check_chars(hpath_end + 1, end, SEARCH, "the http search part")
    return url.replace(path=reader.norm(raw))


#: http and https: section 3.3's httpurl; lenient mode reads ``//host?search``.
_HTTP = Grammar(ip=True, search_after_host=True, wire_end=_wire_end, path=_path, plain=True)
GRAMMARS = {"http": _HTTP, "https": _HTTP}
