"""Which URLs belong to a crawl: the start URLs' servers, under their paths, to a depth.

By default a found URL is in scope when it has the scheme, host and port of a start URL
and its path lies under that start URL's directory (the path up to its last ``/``; for
a Gopher menu, its selector). ``span_hosts`` lifts the server rule; ``include`` and
``exclude`` are shell patterns (``fnmatch``) on the URL's text, exclude winning; a depth
limit counts links followed from a start URL. Paths compare as each scheme splits them
(RFC 1738 3.2.2, 3.3, 3.4): an FTP URL's CWD segments, an HTTP path, a Gopher selector.

Every URL the crawl meets (a start URL, a link a page names, a redirect's target) is
first made canonical by :func:`canonical`: the dot segments of a hierarchical path
(http, https, ftp, file) are removed as RFC 3986 5.2.4 removes them, ``%2e`` counting
as ``.``, so that ``/np/../out.txt`` and ``/np/%2e%2e/out.txt`` are judged, stored and
named as the ``/out.txt`` a server resolves them to. A Gopher selector is opaque (RFC
1436: only the server knows what it means) and is requested as written; but a selector
with a ``.`` or ``..`` segment is not "under" the start selector, so the path rule
refuses it.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field

from anyurl.url import URL, FilePath, FTPPath, GopherPath, HTTPPath, NewsPart, NNTPPath

__all__ = ["Scope", "canonical", "path_key", "remove_dot_segments"]

#: Schemes whose paths are hierarchical: dot segments mean "this" and "the parent".
HIERARCHICAL = frozenset({"http", "https", "ftp", "file"})


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


def canonical(url: URL) -> URL:
    """``url`` as the crawl judges, stores and names it: without dot segments in a
    hierarchical path (http, https, ftp, file: the query and an FTP ``;type=`` are
    kept as they are). Other schemes' paths (a Gopher selector) are returned as written.
    """
    if url.scheme not in HIERARCHICAL or not url.path:
        return url
    path = url.path
    tail = ""
    if url.scheme in ("http", "https") and "?" in path:
        path, question, search = path.partition("?")
        tail = question + search
    elif url.scheme == "ftp" and ";type=" in path.rsplit("/", 1)[-1]:
        path, semicolon, typecode = path.rpartition(";")
        tail = semicolon + typecode
    clean = remove_dot_segments("/" + path)[1:]
    return url if clean == path else url.replace(path=clean + tail)


def _has_dot_segment(selector: str) -> bool:
    return any(_dot(segment) for segment in selector.split("/"))


def path_key(url: URL) -> str:
    """The path of ``url`` as its scheme splits it, for prefix comparisons ("/a/b")."""
    parts = url.parts
    if isinstance(parts, HTTPPath):
        return "/" + (parts.hpath or "")
    if isinstance(parts, FTPPath):
        return "/" + "/".join([*parts.cwd, parts.name])
    if isinstance(parts, GopherPath):
        selector = parts.selector
        return selector if selector.startswith("/") else "/" + selector
    if isinstance(parts, FilePath):
        return parts.path
    if isinstance(parts, NNTPPath):
        return "/" + (parts.group or "") + "/"
    if isinstance(parts, NewsPart):
        return "/" + (parts.group or "") + "/" if parts.group else "/"
    return "/" + (url.path or "")


def _directory(url: URL) -> str:
    """The prefix a start URL's crawl stays under."""
    key = path_key(url)
    parts = url.parts
    if isinstance(parts, GopherPath) and parts.gophertype == "1":
        return key if key.endswith("/") else key + "/"  # a menu: what is below it
    if isinstance(parts, NewsPart | NNTPPath):
        return key
    return key[: key.rfind("/") + 1] or "/"


def _family(scheme: str) -> str:
    return {"https": "http", "nntp": "news"}.get(scheme, scheme)


def _server(url: URL) -> tuple[str, str, int | None]:
    return (url.scheme, (url.host or "").lower(), url.effective_port)


@dataclass(frozen=True)
class Scope:
    """The rules of one crawl (see the module docstring)."""

    roots: tuple[URL, ...]
    max_depth: int | None = None
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    span_hosts: bool = False
    _prefixes: dict[tuple[str, str, int | None], list[str]] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for root in self.roots:
            self._prefixes.setdefault(_server(root), []).append(_directory(root))

    def admits(self, url: URL, depth: int) -> bool:
        """Whether ``url``, found ``depth`` links from a start URL, is crawled."""
        if self.max_depth is not None and depth > self.max_depth:
            return False
        text = str(url)
        if any(fnmatch.fnmatchcase(text, pattern) for pattern in self.exclude):
            return False
        if self.include and not any(fnmatch.fnmatchcase(text, p) for p in self.include):
            return False
        if self.span_hosts:
            return _family(url.scheme) in {_family(r.scheme) for r in self.roots}
        if isinstance(url.parts, NewsPart) and url.parts.message_id:
            # An article by its Message-ID names no server: it is in scope when found
            # in a crawl of news (its group's listing named it).
            return any(r.scheme in ("news", "nntp") for r in self.roots)
        prefixes = self._prefixes.get(_server(url))
        if prefixes is None:
            return False
        if isinstance(url.parts, GopherPath) and _has_dot_segment(url.parts.selector):
            return False  # an opaque selector that names "..": not under any start menu
        key = path_key(url)
        return any(key.startswith(prefix) or key + "/" == prefix for prefix in prefixes)
