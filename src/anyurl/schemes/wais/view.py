"""The wais view (RFC 1738 3.9): a database, a search or a document, decoded.

Imported when the view is first asked for (:mod:`anyurl.url.views`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anyurl.numbers import is_ascii_digits
from anyurl.url.charset import UCHAR_PLAIN, decode, display, escape_unsafe
from anyurl.url.grammar import Grammar, Reader
from anyurl.url.parse import SEARCH

if TYPE_CHECKING:
    from anyurl.url.model import URL

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


# -- its grammar (section 5), which the parser asks for (anyurl.url.grammar) ----------


#: A wpath in Lynx's record form (``1=host;2=/db;3=...;``), which holds raw slashes.
_LYNX_RECORDS = re.compile(r"(?:[0-9]{1,9}=[^;]*;)+")  # ASCII record types, int() safe


def _wire_end(reader: Reader, start: int, end: int) -> int:
    """A wpath is a document-id, binary octets any of which may be a CR or NUL
    (section 3.9), sent length-prefixed in Z39.50's encoding: never a line, so
    section 6's check ends before it."""
    s = reader.s
    if not s.startswith("//", start):
        return end
    slash = s.find("/", start + 2, end)
    db_end = -1 if slash < 0 else s.find("/", slash + 1, end)
    type_end = -1 if db_end < 0 else s.find("/", db_end + 1, end)
    if type_end >= 0 and s.find("?", slash, type_end) < 0:
        return type_end
    return end


def _path(reader: Reader, url: URL, start: int, end: int) -> URL:
    """``/database``, ``/database?search`` or ``/database/wtype/wpath``, in both modes.

    Section 5: ``database``, ``wtype`` and ``wpath`` are ``*uchar``, so each may be
    empty and none holds a ``/``. Lenient mode makes room for the two forms real
    clients wrote with slashes in the wpath, which the WAIS handler reads: CERN's
    ``/database/wtype/length/wpath`` (a decimal length segment) and Lynx's record
    form (``1=host;2=/db;...;``); any other ``/`` in a wpath is refused.
    """
    raw = reader.s[start:end]
    db, q, _ = raw.partition("?")
    pieces = db.split("/")
    shape = "a wais URL is /database, /database?search or /database/wtype/wpath"
    if q and len(pieces) != 1:
        raise reader.fail(f"{shape}: a search follows the database alone",
                          start + len(pieces[0]))
    if len(pieces) == 2:
        raise reader.fail(f"{shape}: the wpath is missing", start)
    if len(pieces) > 3:
        slash = start + len(pieces[0]) + len(pieces[1]) + len(pieces[2]) + 2
        wpath = "/".join(pieces[2:])
        cern = is_ascii_digits(pieces[2])
        tail = "/".join(pieces[3:])
        if reader.strict or not (_LYNX_RECORDS.fullmatch(wpath) or (
                cern and ("/" not in tail or _LYNX_RECORDS.fullmatch(tail)))):
            raise reader.fail(f"{shape}: '/' must be %-escaped in the wpath "
                              "(wpath = *uchar)", slash)
    if reader.strict:
        pos = start
        for piece in pieces:
            reader.check_chars(pos, pos + len(piece), UCHAR_PLAIN, "the wais path")
            pos += len(piece) + 1
        if q:  # section 5's one search rule, as http's (issue 29)
            reader.check_chars(start + len(db) + 1, end, SEARCH, "the wais search")
    # Lenient mode keeps a wpath's reserved characters as written: the forms real
    # clients wrote (Lynx's "1=host;2=db;..." records, CERN's
    # /wtype/length/wpath) carry meaning in them that the WAIS handler reads. A
    # search's '/' and '?' it writes %2F and %3F: the search is sent decoded.
    path = reader.norm(raw)
    if q and not reader.strict:
        db, _, search = path.partition("?")
        path = f"{db}?{escape_unsafe(search, SEARCH)}"
    return url.replace(path=path)


#: Section 3.9's waisurl.
GRAMMARS = {"wais": Grammar(
    ip=True, part="the wais database, search or type", wire_end=_wire_end, path=_path,
    needs_path="a wais URL needs '/' after the host (section 5: wais://hostport/database)")}
