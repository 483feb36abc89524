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

A page's *requisites* (``Link.requisite``: its style sheets and what they import, its
images, scripts and frames, wget's ``-p``) are what it needs to render: one on a server
the crawl may visit is taken even above the start directory and up to
:data:`REQUISITE_HOPS` links past the depth limit, so that a saved page renders
(``page_requisites=False``, ``--no-page-requisites``, turns that off). The patterns still
apply to it.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field

from anyurl.mirror.paths import crawl_of
from anyurl.registry import spec_for
from anyurl.registry.spec import directory_of
from anyurl.url import URL
from anyurl.url.segments import remove_dot_segments

__all__ = ["REQUISITE_HOPS", "Scope", "canonical", "path_key", "remove_dot_segments"]

#: How far past the depth limit a chain of requisites is followed: a page at the limit,
#: its style sheet, what that imports (Python's documentation: pydoctheme.css imports
#: default.css, classic.css, then basic.css) and their images; a frame's frame. A bound,
#: so that no server can lead a crawl with a depth limit on without end.
REQUISITE_HOPS = 8


def canonical(url: URL) -> URL:
    """``url`` as the crawl judges, stores and names it: without dot segments in a
    hierarchical path (http, https, ftp, file: the query and an FTP ``;type=`` are
    kept as they are), as its scheme's descriptor says. Other schemes' paths (a Gopher
    selector) are returned as written.
    """
    found: URL = crawl_of(url.scheme).canonical(url)  # the registry's Crawl is of Any URL
    return found


def path_key(url: URL) -> str:
    """The path of ``url`` as its scheme splits it, for prefix comparisons ("/a/b")."""
    return crawl_of(url.scheme).path_key(url)


def _directory(url: URL) -> str:
    """The prefix a start URL's crawl stays under."""
    crawl = crawl_of(url.scheme)
    if crawl.start_prefix is not None:
        return crawl.start_prefix(url)
    return directory_of(crawl.path_key(url))


def _family(scheme: str) -> str:
    spec = spec_for(scheme)
    if spec is None:
        return scheme
    return (spec.crawl.family if spec.crawl is not None else None) or spec.name


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
    #: Take a page's requisites above the start directory and past the depth limit.
    page_requisites: bool = True
    _prefixes: dict[tuple[str, str, int | None], list[str]] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for root in self.roots:
            self._prefixes.setdefault(_server(root), []).append(_directory(root))

    def admits(self, url: URL, depth: int, *, requisite: bool = False) -> bool:
        """Whether ``url``, found ``depth`` links from a start URL, is crawled; a
        ``requisite`` of a page the crawl fetched (see the module docstring) is not held
        to the start directory, and to the depth limit only :data:`REQUISITE_HOPS` on."""
        requisite = requisite and self.page_requisites
        if self.max_depth is not None and depth > self.max_depth + (
                REQUISITE_HOPS if requisite else 0):
            return False
        text = str(url)
        if any(fnmatch.fnmatchcase(text, pattern) for pattern in self.exclude):
            return False
        if self.include and not any(fnmatch.fnmatchcase(text, p) for p in self.include):
            return False
        if self.span_hosts:
            return _family(url.scheme) in {_family(r.scheme) for r in self.roots}
        crawl = crawl_of(url.scheme)
        if crawl.anywhere is not None and crawl.anywhere(url):
            # (a news article by its Message-ID names no server): in scope in a crawl of
            # its family, which named it
            family = _family(url.scheme)
            return any(_family(r.scheme) == family for r in self.roots)
        prefixes = self._prefixes.get(_server(url))
        if prefixes is None:
            return False
        if crawl.refused is not None and crawl.refused(url):
            return False  # (an opaque selector that names "..": under no start menu)
        if requisite:
            return True  # anywhere on a start URL's server
        key = crawl.path_key(url)
        return any(key.startswith(prefix) or key + "/" == prefix for prefix in prefixes)
