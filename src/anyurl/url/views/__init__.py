"""Typed, decoded views of a URL's scheme-specific part (RFC 1738 sections 3.2 to 3.11).

A :class:`~anyurl.url.model.URL` keeps its url-path as written (still %-encoded), since
decoding a reserved character changes what it means. Each scheme's view splits that
path where the scheme's BNF splits it and only then decodes the pieces: an ``ftp`` path
``a%2Fb/c`` is one CWD ``a/b`` and the name ``c``, never three segments.

Views are computed from a URL that has already passed the parser, so they do not
validate; :mod:`anyurl.url.parse` refuses what a view could not represent.

Each scheme's view lives in a module of its own (``views.ftp``, ``views.http`` ...),
imported when one of its names is first asked for here (PEP 562): a dataclass costs
about a millisecond to create, and ``anyurl get`` of an http URL has no use for the
other nine. ``from anyurl.url.views import FTPPath`` works as it always did. What the
parser needs of the ftp and gopher grammars (splitting a path, checking a Gopher+
string) and the generic view stay here.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from anyurl.url.views.file import FilePath
    from anyurl.url.views.ftp import FTPPath
    from anyurl.url.views.ftp import ftp_path as ftp_path
    from anyurl.url.views.gopher import GopherPath
    from anyurl.url.views.gopher import gopher_path as gopher_path
    from anyurl.url.views.http import HTTPPath
    from anyurl.url.views.http import http_path as http_path
    from anyurl.url.views.mailto import MailtoPart
    from anyurl.url.views.news import NewsPart, NNTPPath
    from anyurl.url.views.news import news_part as news_part
    from anyurl.url.views.news import nntp_path as nntp_path
    from anyurl.url.views.prospero import ProsperoPath
    from anyurl.url.views.prospero import prospero_path as prospero_path
    from anyurl.url.views.telnet import TelnetPart
    from anyurl.url.views.wais import WAISPath
    from anyurl.url.views.wais import wais_path as wais_path

__all__ = [
    "FTPPath",
    "FilePath",
    "GenericPart",
    "GopherPath",
    "HTTPPath",
    "MailtoPart",
    "NNTPPath",
    "NewsPart",
    "ProsperoPath",
    "TelnetPart",
    "WAISPath",
    "gopher_plus_problem",
]

_FTP_TYPE = re.compile(r";type=([^;/]*)\Z", re.IGNORECASE)


def split_ftp_path(path: str | None) -> tuple[str, str | None]:
    """Split a raw ftp url-path into the raw fpath and the typecode (lowercased)."""
    if path is None:
        return "", None
    m = _FTP_TYPE.search(path)
    if m is None:
        return path, None
    return path[: m.start()], m.group(1).lower()


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
class GenericPart:
    """Any other scheme: ``schemepart`` as written (section 5's genericurl)."""

    schemepart: str

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        return {"schemepart": self.schemepart}


#: Where each scheme's view and the function that builds it live, imported on first use.
_LAZY: dict[str, str] = {
    "FTPPath": "anyurl.url.views.ftp",
    "ftp_path": "anyurl.url.views.ftp",
    "HTTPPath": "anyurl.url.views.http",
    "http_path": "anyurl.url.views.http",
    "GopherPath": "anyurl.url.views.gopher",
    "gopher_path": "anyurl.url.views.gopher",
    "MailtoPart": "anyurl.url.views.mailto",
    "NewsPart": "anyurl.url.views.news",
    "news_part": "anyurl.url.views.news",
    "NNTPPath": "anyurl.url.views.news",
    "nntp_path": "anyurl.url.views.news",
    "TelnetPart": "anyurl.url.views.telnet",
    "WAISPath": "anyurl.url.views.wais",
    "wais_path": "anyurl.url.views.wais",
    "FilePath": "anyurl.url.views.file",
    "ProsperoPath": "anyurl.url.views.prospero",
    "prospero_path": "anyurl.url.views.prospero",
}

if TYPE_CHECKING:
    View: TypeAlias = (
        FTPPath
        | HTTPPath
        | GopherPath
        | MailtoPart
        | NewsPart
        | NNTPPath
        | TelnetPart
        | WAISPath
        | FilePath
        | ProsperoPath
        | GenericPart
    )


def __getattr__(name: str) -> Any:
    """A scheme's view (or ``View``, the union of them all), imported when first asked."""
    if name == "View":
        value: Any = GenericPart
        for other in (n for n in _LAZY if n[0].isupper()):
            value = value | __getattr__(other)
    elif name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, "View"})
