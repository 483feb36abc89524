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
The generic view and :class:`SchemeView` are this module's own.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from anyurl.lazy import lazy_names

__all__ = ["GenericPart", "SchemeView"]

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
