"""The ftp view (RFC 1738 3.2.2): the CWD steps, the name and the typecode, decoded.

Imported when the view is first asked for (:mod:`anyurl.url.views`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anyurl.url.charset import decode, display
from anyurl.url.grammar import Grammar, Reader
from anyurl.url.parse import FSEGMENT, segments

if TYPE_CHECKING:
    from anyurl.url.model import URL

__all__ = ["FTPPath", "ftp_path", "split_ftp_path"]


_FTP_TYPE = re.compile(r";type=([^;/]*)\Z", re.IGNORECASE)


def split_ftp_path(path: str | None) -> tuple[str, str | None]:
    """Split a raw ftp url-path into the raw fpath and the typecode (lowercased)."""
    if path is None:
        return "", None
    m = _FTP_TYPE.search(path)
    if m is None:
        return path, None
    return path[: m.start()], m.group(1).lower()


@dataclass(frozen=True)
class FTPPath:
    """``<cwd1>/.../<cwdN>/<name>;type=<typecode>`` of section 3.2.2, decoded."""

    cwd: tuple[str, ...]
    name: str
    typecode: str | None  # "a", "i", "d" (lowercased) or None when omitted

    @property
    def is_directory(self) -> bool:
        """A listing is meant: ``;type=d``, or no typecode and an empty name."""
        return self.typecode == "d" or (self.typecode is None and self.name == "")

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        return {
            "cwd": [display(c) for c in self.cwd],
            "name": display(self.name),
            "typecode": self.typecode,
        }


def ftp_path(path: str | None) -> FTPPath:
    """The :class:`FTPPath` of a raw ftp url-path (None: the login directory)."""
    fpath, typecode = split_ftp_path(path)
    segments = [decode(s) for s in fpath.split("/")]
    return FTPPath(cwd=tuple(segments[:-1]), name=segments[-1], typecode=typecode)


# -- its grammar (section 5), which the parser asks for (anyurl.url.grammar) ----------


def _path(reader: Reader, url: URL, start: int, end: int) -> URL:
    """``fpath [ ";type=" ftptype ]``: ``fsegment``s, and a typecode of a, i or d."""
    s = reader.s
    raw = s[start:end]
    fpath, typecode = split_ftp_path(raw)
    if typecode is not None and typecode not in ("a", "i", "d"):
        pos = start + len(fpath) + len(";type=")
        raise reader.fail(f"unknown ftp typecode {typecode!r} (expected a, i or d)", pos)
    for seg_start, seg_end in segments(start, start + len(fpath), s, "/"):
        reader.check_chars(seg_start, seg_end, FSEGMENT, f"an {url.scheme} path segment")
    tail = raw[len(fpath):]
    return url.replace(path=reader.norm(fpath, FSEGMENT | frozenset("/")) + tail)


#: Section 3.2's ftpurl (ftps is read as ftp), whose login may hold a password.
GRAMMARS = {"ftp": Grammar(ip=True, login=True, part="the ftp path", path=_path, plain=True)}
