"""The wais scheme's descriptor (RFC 1738 3.9): port 210, databases and documents."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from anyurl.registry.spec import Crawl, DemoCase, DemoServer, SchemeSpec
from anyurl.schemes.wais.view import WAISPath, wais_path
from anyurl.url.model import URL

__all__ = ["SPEC"]


def _local_name(url: URL) -> str:
    """A WAIS document's own file name (the local id of freeWAIS' docid record 3), else
    the last segment of its wpath, else the database; never the whole mangled docid."""
    parts = url.parts
    if not isinstance(parts, WAISPath):
        return ""
    if not parts.wpath:
        return parts.database or ""
    from anyurl.protocols import wais  # the docid's grammar is the core's

    records = wais.docid_records(wais.wpath_to_docid(parts.wpath)) or ()
    for kind, value in records:
        if kind == 3:  # "0 105 /srv/docs/gopher.txt": size, then the path
            local = value.decode("latin-1").strip()
            return local.rsplit("/", 1)[-1] if local else parts.database or ""
    return parts.wpath.rstrip("/").rsplit("/", 1)[-1] or parts.database or ""


def _tree_path(url: URL) -> tuple[list[str], bool]:
    parts = url.parts
    if isinstance(parts, WAISPath) and not parts.wpath and parts.search:
        # Each search of a database is a catalogue of its own: two searches of one
        # database mirrored together no longer write one demo/.catalogue.
        return [parts.database or "", f"search@{parts.search}"], True
    if not isinstance(parts, WAISPath) or not parts.wpath:
        return [getattr(parts, "database", None) or ""], True
    # The document's own name, as -O names it (the local id of freeWAIS' docid), not
    # the flattened docid: that is about 180 characters of escapes.
    from anyurl.downloads.names import remote_name

    return [parts.database or "", remote_name(url)], False


def _stored_kind(url: URL, content_type: str, dialogue: Sequence[str],
                 ) -> tuple[str, dict[str, Any]]:
    """A stored search (a database, without a document's type), by the URL."""
    parts = url.parts
    if isinstance(parts, WAISPath) and parts.database and parts.wtype is None:
        return "directory", {}
    return "file", {}


SPEC = SchemeSpec(
    names=("wais",),
    handler="anyurl.schemes.wais.handler:WAISHandler",
    summary="WAIS searches and documents (Z39.50-1988 as WAIS speaks it)",
    example="wais://wais.example.org:210/db?query",
    default_port=210,
    view=lambda url: wais_path(url.path),
    view_module="anyurl.schemes.wais.view",
    options_module="anyurl.schemes.wais.options",
    local_name=_local_name,
    proxied=True,
    stored_kind=_stored_kind,
    crawl=Crawl(index_name=".catalogue", tree_path=_tree_path),
    demo=(DemoCase("wais://127.0.0.1:{port}/demo?gopher",
                   "a Z39.50 search of the 'demo' database",
                   DemoServer("anyurl.schemes.wais.loopback")),),
)
