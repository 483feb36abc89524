"""The file view (RFC 1738 3.10): the path, decoded.

Imported when the view is first asked for (:mod:`anyurl.url.views`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from anyurl.url.charset import display
from anyurl.url.grammar import Grammar

__all__ = ["FilePath"]


@dataclass(frozen=True)
class FilePath:
    """``file://<host>/<path>`` of section 3.10; ``path`` decoded with its leading ``/``."""

    path: str

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        return {"path": display(self.path)}


# -- its grammar (section 5), which the parser asks for (anyurl.url.grammar) ----------


#: Section 3.10's fileurl: ``//`` and a host (maybe empty), no login, no port; the
#: parser reads its path (and lenient ``file:/path``) itself.
GRAMMARS = {"file": Grammar(ip=True, part="the file path")}
