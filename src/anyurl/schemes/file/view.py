"""The file view (RFC 1738 3.10): the path, decoded.

Imported when the view is first asked for (:mod:`anyurl.url.views`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from anyurl.url.charset import display

__all__ = ["FilePath"]


@dataclass(frozen=True)
class FilePath:
    """``file://<host>/<path>`` of section 3.10; ``path`` decoded with its leading ``/``."""

    path: str

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        return {"path": display(self.path)}
