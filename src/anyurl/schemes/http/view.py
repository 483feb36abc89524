"""The http view (RFC 1738 3.3): the path and the search part, raw.

Imported when the view is first asked for (:mod:`anyurl.url.views`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
