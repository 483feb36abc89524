"""Local file names for remote resources (``-O``): scheme-aware and safe.

The name comes from the decoded URL (the handler's suggestion first), then is made
harmless: no ``/`` or ``\\``, no ``..`` or leading dot-only names, no control
characters, never empty. ``;type=`` is already gone (the ftp view strips it), a
gopher type character is not part of the selector's last segment, and a Message-ID
loses its angle brackets and ``@`` becomes ``_at_``.
"""

from __future__ import annotations

import re

from anyurl.url import (
    URL,
    FilePath,
    FTPPath,
    GopherPath,
    HTTPPath,
    NewsPart,
    NNTPPath,
    WAISPath,
    decode,
)

__all__ = ["remote_name", "safe_name"]

_UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\]")


def safe_name(name: str, fallback: str = "index") -> str:
    """``name`` made safe as a single path component in the current directory."""
    name = _UNSAFE.sub("_", name).strip()
    name = name.lstrip(".") if set(name) <= {"."} else name
    if name in ("", ".", ".."):
        return fallback
    return name[:255]


def _last(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def remote_name(url: URL, suggested: str | None = None) -> str:
    """The file name ``-O`` saves ``url`` under."""
    if suggested:
        return safe_name(_last(suggested))
    parts = url.parts
    name = ""
    if isinstance(parts, FTPPath):
        name = parts.name or (parts.cwd[-1] if parts.cwd else "")
    elif isinstance(parts, HTTPPath):
        name = _last(decode(parts.hpath or ""))
    elif isinstance(parts, GopherPath):
        name = _last(parts.selector)
    elif isinstance(parts, FilePath):
        name = _last(parts.path)
    elif isinstance(parts, NewsPart):
        name = (parts.message_id or parts.group or "").strip("<>").replace("@", "_at_")
    elif isinstance(parts, NNTPPath):
        name = f"{parts.group or 'news'}.{parts.article}" if parts.article else parts.group or ""
    elif isinstance(parts, WAISPath):
        name = parts.wpath or parts.database or ""
    return safe_name(name, fallback=safe_name(url.host or url.scheme))
