"""The prospero view (RFC 1738 3.11): the hsoname and its fields, decoded.

Imported when the view is first asked for (:mod:`anyurl.url.views`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from anyurl.url.charset import decode, display

__all__ = ["ProsperoPath", "prospero_path"]


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
