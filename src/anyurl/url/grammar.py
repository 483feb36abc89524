"""What the RFC 1738 parser asks of a scheme: its part of section 5's grammar.

Section 5 is one grammar, but each scheme has its own productions: whether its
schemepart is section 3.1's ``//<login>/<url-path>``, whether its login may hold a user
and password, and how its url-path reads (an ftp ``;type=``, an http search, a newsgroup,
a WAIS database ...). :mod:`anyurl.url.parse` holds what every scheme shares and asks the
scheme for the rest: a :class:`Grammar`, which the scheme's view module (its descriptor's
:attr:`~anyurl.registry.SchemeSpec.view_module`) publishes as ``GRAMMARS``, one for each
of its names read by a grammar of its own (a name over TLS is read as its plain name,
:attr:`~anyurl.registry.SchemeSpec.plain_names`). A scheme without one is read as
section 5's generic ``scheme ":" *xchar`` (or ``//`` and a host, when one reads so), a
plug-in's as a built-in's.

A grammar's functions read the text through a :class:`Reader`, the parser itself: they
check characters against a production, escape what lenient mode accepts, and raise the
parser's :class:`~anyurl.errors.URLSyntaxError` at a position of the text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from anyurl.errors import URLSyntaxError
    from anyurl.url.model import URL

__all__ = ["Grammar", "Reader"]


class Reader(Protocol):
    """The parser as a grammar reads with it."""

    #: The unwrapped text of the URL.
    s: str
    #: Strict mode: every character is checked against its production.
    strict: bool

    def fail(self, problem: str, i: int) -> URLSyntaxError:
        """The error ``problem`` at character ``i`` of :attr:`s` (for ``raise``)."""
        ...

    def check_chars(self, start: int, end: int, allowed: frozenset[str], what: str) -> None:
        """Strict: every character of ``s[start:end]`` is in ``allowed`` or a %XX escape."""
        ...

    def norm(self, raw: str, keep: frozenset[str] = ...) -> str:
        """``raw`` as written (strict), or with what must be escaped escaped (lenient)."""
        ...


@dataclass(frozen=True)
class Grammar:
    """One scheme's productions of section 5 (see the module docstring)."""

    #: Its schemepart is section 3.1's ``//<user>:<password>@<host>:<port>/<url-path>``.
    ip: bool = False
    #: Its login may carry a user and password (section 5's ``login``: ftp, telnet);
    #: strict mode refuses them elsewhere.
    login: bool = False
    #: What a section 6 error calls the part after the host ("the ftp path"); "": the
    #: scheme's URL.
    part: str = ""
    #: For a schemepart of ``*xchar`` that starts with ``//``: tried as a login and host
    #: first (``"maybe"``, news://host/group as later RFCs write it), only in lenient
    #: mode (``"lenient"``), or never (``"never"``).
    slashes: Literal["maybe", "lenient", "never"] = "maybe"
    #: The problem when the URL ends at its host (no ``/``), or None: allowed.
    needs_path: str | None = None
    #: Lenient mode reads ``//host?search`` as an empty path and the search.
    search_after_host: bool = False
    #: Where section 6's check of encoded CR, LF and NUL ends, given the schemepart's
    #: start and end (the parts after it travel encoded); None: the whole schemepart.
    wire_end: Callable[[Reader, int, int], int] | None = None
    #: The url-path (after the host's ``/``): ``path(reader, url, start, end)`` gives the
    #: URL with it; None: ``*xchar``.
    path: Callable[[Reader, URL, int, int], URL] | None = None
    #: A schemepart without ``//`` (or one not read as a host): ``opaque(reader, scheme,
    #: start, end, fragment)`` gives the URL; None: ``*xchar``.
    opaque: Callable[[Reader, str, int, int, str | None], URL] | None = None
    #: A URL of a host, a port and a path of letters, digits, ``-._/`` reads as written
    #: (the parser's fast path may take it).
    plain: bool = False
