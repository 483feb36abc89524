"""Where a URL lands in the local tree: ``<root>/<scheme>/<host>[_<port>]/<path>``.

The tree mirrors the URLs: each path segment as the scheme splits it (FTP's CWD
segments, an HTTP path, a Gopher selector without its type character, an NNTP group and
article number), decoded, and made safe as ``-O`` makes a name
(:func:`anyurl.downloads.names.safe_name`: no ``/``, no control characters, no ``.`` or
``..``), so a URL can never place a file outside the mirror. Unlike ``-O``, a leading dot
is kept (``.htaccess``, ``.config/``: inside its own tree a mirror keeps a remote name as
it is), and only a name that would be one of the mirror's own files (``.listing``,
``.group``, ``.anyurl-*``) is escaped, its dot written ``%2E`` (:func:`tree_name`).
What lists other things (an FTP listing, a Gopher menu, an HTTP directory URL ending in
``/``, a news group) is saved inside its directory under an index name: ``.listing``,
``gophermap``, ``index.html``, ``.group``. An HTTP query is kept in the name
(``page@q=1``), as wget does. Each scheme's descriptor says how
(:class:`~anyurl.registry.spec.Crawl`'s ``tree_path`` and ``index_name``).
"""

from __future__ import annotations

from pathlib import Path

from anyurl.downloads.names import safe_name
from anyurl.registry import spec_for
from anyurl.registry.spec import Crawl
from anyurl.url import DEFAULT_PORTS, URL

__all__ = ["crawl_of", "index_name", "local_path", "tree_name"]

#: Names of the mirror's own files start so (the state, the partial files' directory).
OWN_PREFIX = ".anyurl"

_NO_CRAWL = Crawl()


def crawl_of(scheme: str) -> Crawl:
    """How the mirror walks ``scheme`` (its descriptor's :class:`Crawl`, else defaults)."""
    spec = spec_for(scheme)
    return spec.crawl if spec is not None and spec.crawl is not None else _NO_CRAWL


def index_name(scheme: str) -> str:
    """The file a listing of ``scheme`` is saved under, in its directory."""
    return crawl_of(scheme).index_name


def local_path(root: Path, url: URL, *, index: bool = False) -> Path:
    """The file for ``url`` under ``root``; ``index``: it lists others (a directory)."""
    host = url.host or ""
    port = url.port
    server = safe_name(host.lower(), fallback="localhost") if host else "_"
    if port is not None and port != DEFAULT_PORTS.get(url.scheme):
        server += f"_{port}"
    crawl = crawl_of(url.scheme)
    segments, is_dir = crawl.tree_path(url)
    clean = [tree_name(s, crawl.index_name) for s in segments if s]
    if index or is_dir or not clean:
        clean.append(crawl.index_name)
    return root.joinpath(url.scheme, server, *clean)


def tree_name(segment: str, index: str) -> str:
    """A remote name as a mirror's tree keeps it: made safe, its leading dot kept, and
    ``%2E`` for that dot when it would be a file of the mirror's own: ``index``, where
    its directory's listing is saved (a server's ``.listing`` file must not replace the
    listing), or a name of the mirror's state and partial files (``.anyurl-*``).
    """
    name = safe_name(segment, fallback="_", dots=True)
    if name.startswith(".") and (name == index or name.startswith(OWN_PREFIX)):
        return "%2E" + name[1:]
    return name
