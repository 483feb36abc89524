"""The telnet view (RFC 1738 3.8): a service only, so an empty one.

Imported when the view is first asked for (:mod:`anyurl.url.views`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anyurl.url.grammar import Grammar, Reader

if TYPE_CHECKING:
    from anyurl.url.model import URL

__all__ = ["TelnetPart"]


@dataclass(frozen=True)
class TelnetPart:
    """Telnet URLs name a service only; user and password are advisory (3.8)."""

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json`` (empty)."""
        return {}


# -- its grammar (section 5), which the parser asks for (anyurl.url.grammar) ----------


def _path(reader: Reader, url: URL, start: int, end: int) -> URL:
    """Nothing: ``telneturl = "telnet://" login [ "/" ]``."""
    raw = reader.s[start:end]
    if raw:
        raise reader.fail("a telnet URL has nothing after the final '/'", start)
    return url.replace(path=reader.norm(raw))


#: Section 3.8's telneturl, whose login may hold a password.
GRAMMARS = {"telnet": Grammar(ip=True, login=True, part="the telnet URL", path=_path)}
