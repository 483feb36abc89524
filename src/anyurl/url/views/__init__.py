"""Typed, decoded views of a URL's scheme-specific part (RFC 1738 sections 3.2 to 3.11).

A :class:`~anyurl.url.model.URL` keeps its url-path as written (still %-encoded), since
decoding a reserved character changes what it means. Each scheme's view splits that
path where the scheme's BNF splits it and only then decodes the pieces: an ``ftp`` path
``a%2Fb/c`` is one CWD ``a/b`` and the name ``c``, never three segments.

Views are computed from a URL that has already passed the parser, so they do not
validate; :mod:`anyurl.url.parse` refuses what a view could not represent.

Each scheme's view lives in its scheme's package (``anyurl/schemes/<name>/view.py``,
the module its descriptor's ``view_module`` names), imported when one of its names is
first asked for here (PEP 562), found through :mod:`anyurl.registry`: a dataclass costs
about a millisecond to create, and ``anyurl get`` of an http URL has no use for the
others. ``from anyurl.url.views import FTPPath`` works for every scheme, a plug-in's
too; anyurl's own modules import a view from its module, which the type checker reads.
What the parser needs of the ftp and gopher grammars (splitting a path, checking a
Gopher+ string), the generic view and :class:`SchemeView` stay here.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from anyurl.lazy import lazy_names

__all__ = ["GenericPart", "SchemeView", "gopher_plus_problem"]

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


class SchemeView(Protocol):
    """What every view is (``url.parts``): ``anyurl parse --json`` shows it."""

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        ...


@dataclass(frozen=True)
class GenericPart:
    """Any other scheme: ``schemepart`` as written (section 5's genericurl)."""

    schemepart: str

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        return {"schemepart": self.schemepart}


def _view_module(name: str) -> str | None:
    """The module of a scheme's view name: the registry asks the scheme the name reads as
    first (``FTPPath``, ``ftp_path``: ftp), then every scheme."""
    from anyurl import registry

    guess = re.sub(r"(Path|Part|_path|_part)\Z", "", name).lower()
    return registry.lender(name, "view_module", guess)


def _every_view_name() -> list[str]:
    from anyurl import registry

    return [*registry.lent_names("view_module"), "View"]


_lent, __dir__ = lazy_names(__name__, globals(), _view_module, _every_view_name)

if TYPE_CHECKING:
    #: A URL's view, as the type checker knows it (a scheme's own view class narrows it).
    View: TypeAlias = SchemeView


def __getattr__(name: str) -> Any:
    """A scheme's view, or ``View``: the union of every known scheme's view classes."""
    if name != "View":
        return _lent(name)
    from anyurl import registry

    value: Any = GenericPart
    for other, module in registry.lent_names("view_module").items():
        if other[0].isupper():
            value = value | getattr(importlib.import_module(module), other)
    globals()[name] = value
    return value
