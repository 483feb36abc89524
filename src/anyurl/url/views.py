"""Typed, decoded views of a URL's scheme-specific part (RFC 1738 sections 3.2 to 3.11).

A :class:`~anyurl.url.model.URL` keeps its url-path as written (still %-encoded), since
decoding a reserved character changes what it means. Each scheme's view splits that
path where the scheme's BNF splits it and only then decodes the pieces: an ``ftp`` path
``a%2Fb/c`` is one CWD ``a/b`` and the name ``c``, never three segments.

Views are computed from a URL that has already passed the parser, so they do not
validate; :mod:`anyurl.url.parse` refuses what a view could not represent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from anyurl.url.charset import decode, display

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


@dataclass(frozen=True)
class FTPPath:
    """``<cwd1>/.../<cwdN>/<name>;type=<typecode>`` of section 3.2.2, decoded."""

    cwd: tuple[str, ...]
    name: str
    typecode: str | None  # "a", "i", "d" (lowercased) or None when omitted

    @property
    def is_directory(self) -> bool:
        """A listing is meant: ``;type=d``, or no typecode and an empty name."""
        return self.typecode == "d" or (self.typecode is None and self.name == "")

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        return {
            "cwd": [display(c) for c in self.cwd],
            "name": display(self.name),
            "typecode": self.typecode,
        }


def split_ftp_path(path: str | None) -> tuple[str, str | None]:
    """Split a raw ftp url-path into the raw fpath and the typecode (lowercased)."""
    if path is None:
        return "", None
    m = _FTP_TYPE.search(path)
    if m is None:
        return path, None
    return path[: m.start()], m.group(1).lower()


def ftp_path(path: str | None) -> FTPPath:
    """The :class:`FTPPath` of a raw ftp url-path (None: the login directory)."""
    fpath, typecode = split_ftp_path(path)
    segments = [decode(s) for s in fpath.split("/")]
    return FTPPath(cwd=tuple(segments[:-1]), name=segments[-1], typecode=typecode)


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


def gopher_path(path: str | None) -> GopherPath:
    """The :class:`GopherPath` of a raw gopher-path (empty: type 1, the root menu)."""
    gtype, selector, search, plus = split_gopher_path(path)
    return GopherPath(
        gophertype=decode(gtype),
        selector=decode(selector),
        search=None if search is None else decode(search),
        gopher_plus=None if plus is None else decode(plus),
    )


@dataclass(frozen=True)
class MailtoPart:
    """``mailto:<rfc822-addr-spec>`` of section 3.5, decoded."""

    address: str

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        return {"address": display(self.address)}


@dataclass(frozen=True)
class NewsPart:
    """``news:<group>``, ``news:<message-id>`` or ``news:*`` of section 3.6."""

    group: str | None
    message_id: str | None

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        return {"group": display(self.group), "message_id": display(self.message_id)}


def news_part(grouppart: str) -> NewsPart:
    """The :class:`NewsPart` of a raw grouppart: a message-id if it holds ``@``."""
    if "@" in grouppart:
        return NewsPart(None, decode(grouppart))
    return NewsPart(decode(grouppart), None)


@dataclass(frozen=True)
class NNTPPath:
    """``<newsgroup-name>/<article-number>`` of section 3.7."""

    group: str | None
    article: int | None

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        return {"group": display(self.group), "article": self.article}


def nntp_path(path: str | None) -> NNTPPath:
    """The :class:`NNTPPath` of a raw nntp url-path (a non-numeric article: None)."""
    if not path:
        return NNTPPath(None, None)
    group, sep, article = path.partition("/")
    number = int(article) if sep and article.isdigit() else None
    return NNTPPath(decode(group), number)


@dataclass(frozen=True)
class TelnetPart:
    """Telnet URLs name a service only; user and password are advisory (3.8)."""

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json`` (empty)."""
        return {}


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


@dataclass(frozen=True)
class FilePath:
    """``file://<host>/<path>`` of section 3.10; ``path`` decoded with its leading ``/``."""

    path: str

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        return {"path": display(self.path)}


@dataclass(frozen=True)
class ProsperoPath:
    """``<hsoname>;<field>=<value>...`` of section 3.11, decoded."""

    hsoname: str
    fields: tuple[tuple[str, str], ...]

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        return {
            "hsoname": display(self.hsoname),
            "fields": [[display(k), display(v)] for k, v in self.fields],
        }


def prospero_path(path: str | None) -> ProsperoPath:
    """The :class:`ProsperoPath` of a raw prospero url-path and its field specs."""
    if path is None:
        return ProsperoPath("", ())
    ppath, *specs = path.split(";")
    fields = []
    for spec in specs:
        name, _, value = spec.partition("=")
        fields.append((decode(name), decode(value)))
    return ProsperoPath(decode(ppath), tuple(fields))


@dataclass(frozen=True)
class GenericPart:
    """Any other scheme: ``schemepart`` as written (section 5's genericurl)."""

    schemepart: str

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        return {"schemepart": self.schemepart}


View = (
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
