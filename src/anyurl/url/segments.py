"""Dot segments of hierarchical paths (RFC 3986 5.2.4), ``%2e`` counting as ``.``.

RFC 1738 gives ``.`` and ``..`` no meaning, but servers resolve them: ``/np/../out.txt``
is ``/out.txt`` to an HTTP or FTP server. Whoever judges or names a URL by its path (a
mirror's scope and its tree) removes them first; each scheme's descriptor says whether
its paths are hierarchical (http, ftp, file) or opaque (a Gopher selector).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from anyurl.url.model import URL

__all__ = ["has_dot_segment", "remove_dot_segments", "without_dot_segments"]


def _dot(segment: str) -> str | None:
    """``"."`` or ``".."`` when ``segment`` is one, written plainly or with ``%2e``."""
    plain = segment.lower().replace("%2e", ".")
    return plain if plain in (".", "..") else None


def remove_dot_segments(path: str) -> str:
    """``path`` (absolute: it starts with ``/``) without ``.`` and ``..`` segments, as
    RFC 3986 5.2.4 removes them; ``%2e`` is a ``.`` (an escaped slash is data: ``%2F``
    never splits a segment).

    >>> remove_dot_segments("/np/../out.txt"), remove_dot_segments("/a/%2E%2e/b/.")
    ('/out.txt', '/b/')
    """
    segments = path.split("/")[1:]
    out: list[str] = []
    for i, segment in enumerate(segments):
        dot = _dot(segment)
        last = i == len(segments) - 1
        if dot is None:
            out.append(segment)
            continue
        if dot == ".." and out:
            out.pop()
        if last:
            out.append("")  # "/a/.." is the directory "/", not the file "/a"
    return "/" + "/".join(out)


def has_dot_segment(path: str) -> bool:
    """Whether any ``/``-separated segment of ``path`` is ``.`` or ``..`` (``%2e`` too)."""
    return any(_dot(segment) for segment in path.split("/"))


def without_dot_segments(url: URL, tail_at: int | None = None) -> URL:
    """``url`` with the dot segments of its path removed; the path's text from
    ``tail_at`` on (a query, an FTP ``;type=``) is kept as written."""
    path = url.path
    if not path:
        return url
    head, tail = (path, "") if tail_at is None else (path[:tail_at], path[tail_at:])
    clean = remove_dot_segments("/" + head)[1:]
    return url if clean == head else url.replace(path=clean + tail)
