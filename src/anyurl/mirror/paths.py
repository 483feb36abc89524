"""Where a URL lands in the local tree: ``<root>/<scheme>/<host>[_<port>]/<path>``.

The tree mirrors the URLs: each path segment as the scheme splits it (FTP's CWD
segments, an HTTP path, a Gopher selector without its type character, an NNTP group and
article number), decoded, and made safe as ``-O`` makes a name
(:func:`anyurl.names.safe_name`: no ``/``, no leading dots, no control characters), so
a URL can never place a file outside the mirror. What lists other things (an FTP
listing, a Gopher menu, an HTTP directory URL ending in ``/``, a news group) is saved
inside its directory under an index name: ``.listing``, ``gophermap``, ``index.html``,
``.group``. An HTTP query is kept in the name (``page@q=1``), as wget does.
"""

from __future__ import annotations

from pathlib import Path

from anyurl.names import remote_name, safe_name
from anyurl.url import (
    DEFAULT_PORTS,
    URL,
    FilePath,
    FTPPath,
    GopherPath,
    HTTPPath,
    NewsPart,
    NNTPPath,
    ProsperoPath,
    WAISPath,
    decode,
)

__all__ = ["INDEX_NAMES", "local_path"]

#: The file a listing-like resource of each scheme is saved under, in its directory.
INDEX_NAMES = {"http": "index.html", "https": "index.html", "ftp": ".listing",
               "gopher": "gophermap", "news": ".group", "nntp": ".group", "file": ".listing",
               "prospero": ".listing", "wais": ".catalogue"}


def local_path(root: Path, url: URL, *, index: bool = False) -> Path:
    """The file for ``url`` under ``root``; ``index``: it lists others (a directory)."""
    host = url.host or ""
    port = url.port
    server = safe_name(host.lower(), fallback="localhost") if host else "_"
    if port is not None and port != DEFAULT_PORTS.get(url.scheme):
        server += f"_{port}"
    segments, is_dir = _segments(url)
    clean = [safe_name(s, fallback="_") for s in segments if s]
    if index or is_dir or not clean:
        clean.append(INDEX_NAMES.get(url.scheme, ".index"))
    return root.joinpath(url.scheme, server, *clean)


def _segments(url: URL) -> tuple[list[str], bool]:
    """The decoded path segments of ``url`` and whether it names a directory."""
    parts = url.parts
    if isinstance(parts, HTTPPath):
        hpath = parts.hpath or ""
        segments = [decode(s) for s in hpath.split("/")]
        if parts.search is not None and segments:
            segments[-1] = f"{segments[-1]}@{decode(parts.search)}"
        return segments, hpath == "" or hpath.endswith("/")
    if isinstance(parts, FTPPath):
        return [*parts.cwd, parts.name], parts.name == "" or parts.typecode == "d"
    if isinstance(parts, GopherPath):
        selector = parts.selector
        segments = selector.split("/")
        plus = parts.gopher_plus
        if plus and segments:  # a Gopher+ request: beside the item, never over it
            if plus.startswith("+") and len(plus) > 1:
                segments[-1] += "@" + plus[1:]  # an alternate view: name@text_plain De_DE
            elif plus.startswith("!"):
                segments[-1] += ".attributes"
            return segments, False
        return segments, parts.gophertype == "1" or selector.endswith("/")
    if isinstance(parts, FilePath):
        return parts.path.split("/"), parts.path.endswith("/")
    if isinstance(parts, NNTPPath):
        article = str(parts.article) if parts.article else ""
        return [parts.group or "", article], not article
    if isinstance(parts, NewsPart):
        if parts.message_id:
            return ["articles", parts.message_id.strip("<>").replace("@", "_at_")], False
        return [parts.group or ""], True
    if isinstance(parts, WAISPath):
        if not parts.wpath:
            return [parts.database or ""], True
        # The document's own name, as -O names it (the local id of freeWAIS' docid), not
        # the flattened docid: that is about 180 characters of escapes.
        return [parts.database or "", remote_name(url)], False
    if isinstance(parts, ProsperoPath):
        return parts.hsoname.split("/"), parts.hsoname.endswith("/")
    return [url.path or ""], False
