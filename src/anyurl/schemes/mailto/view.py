"""The mailto view (RFC 1738 3.5): the address, decoded.

Imported when the view is first asked for (:mod:`anyurl.url.views`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from anyurl.url.charset import XCHAR_PLAIN, display
from anyurl.url.grammar import Grammar, Reader
from anyurl.url.model import URL

__all__ = ["MailtoPart"]


@dataclass(frozen=True)
class MailtoPart:
    """``mailto:<rfc822-addr-spec>`` of section 3.5, decoded."""

    address: str

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        return {"address": display(self.address)}


# -- its grammar (section 5), which the parser asks for (anyurl.url.grammar) ----------


def _opaque(reader: Reader, scheme: str, start: int, end: int, fragment: str | None) -> URL:
    """``encoded822addr``: an address, never ``//`` and a host."""
    raw = reader.s[start:end]
    if raw == "":
        raise reader.fail("a mailto URL needs an address", start)
    reader.check_chars(start, end, XCHAR_PLAIN, "the mail address")
    return URL(scheme, opaque=reader.norm(raw), fragment=fragment)


#: Section 3.5's mailtourl.
GRAMMARS = {"mailto": Grammar(part="the recipient address", slashes="never", opaque=_opaque)}
