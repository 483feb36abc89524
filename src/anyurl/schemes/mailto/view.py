"""The mailto view (RFC 1738 3.5): the address, decoded.

Imported when the view is first asked for (:mod:`anyurl.url.views`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from anyurl.url.charset import display

__all__ = ["MailtoPart"]


@dataclass(frozen=True)
class MailtoPart:
    """``mailto:<rfc822-addr-spec>`` of section 3.5, decoded."""

    address: str

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        return {"address": display(self.address)}
