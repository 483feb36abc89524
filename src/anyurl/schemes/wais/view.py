"""The wais view (RFC 1738 3.9): a database, a search or a document, decoded.

Imported when the view is first asked for (:mod:`anyurl.url.views`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from anyurl.url.charset import decode, display

__all__ = ["WAISPath", "wais_path"]


@dataclass(frozen=True)
class WAISPath:
    """``<database>[?<search>]`` or ``<database>/<wtype>/<wpath>`` of section 3.9."""

    database: str | None
    search: str | None
    wtype: str | None
    wpath: str | None

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        return {
            "database": display(self.database),
            "search": display(self.search),
            "wtype": display(self.wtype),
            "wpath": display(self.wpath),
        }


def wais_path(path: str | None) -> WAISPath:
    """The :class:`WAISPath` of a raw wais url-path: a search, a document or a database."""
    if path is None:
        return WAISPath(None, None, None, None)
    if "?" in path:
        db, _, search = path.partition("?")
        return WAISPath(decode(db), decode(search), None, None)
    if "/" in path:
        db, _, rest = path.partition("/")
        wtype, _, wpath = rest.partition("/")
        return WAISPath(decode(db), None, decode(wtype), decode(wpath))
    return WAISPath(decode(path), None, None, None)
