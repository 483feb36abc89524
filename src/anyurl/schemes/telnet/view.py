"""The telnet view (RFC 1738 3.8): a service only, so an empty one.

Imported when the view is first asked for (:mod:`anyurl.url.views`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["TelnetPart"]


@dataclass(frozen=True)
class TelnetPart:
    """Telnet URLs name a service only; user and password are advisory (3.8)."""

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json`` (empty)."""
        return {}
