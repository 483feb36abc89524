"""The prospero scheme's descriptor (RFC 1738 3.11): port 1525, over ARDP on UDP."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from anyurl.registry.spec import Crawl, DemoCase, DemoServer, SchemeSpec
from anyurl.schemes.prospero.flags import FLAGS
from anyurl.schemes.prospero.view import ProsperoPath, prospero_path
from anyurl.url.model import URL

__all__ = ["SPEC"]

def _local_name(url: URL) -> str:
    """An object's name: the last segment of its hsoname (``/pub/README`` is README),
    as ``-O`` and ``anyurl serve`` name its download; never the host."""
    parts = url.parts
    hsoname = parts.hsoname if isinstance(parts, ProsperoPath) else url.path or ""
    return hsoname.rstrip("/").rsplit("/", 1)[-1]


def _tree_path(url: URL) -> tuple[list[str], bool]:
    parts = url.parts
    if not isinstance(parts, ProsperoPath):
        return [url.path or ""], False
    return parts.hsoname.split("/"), parts.hsoname.endswith("/")


def _stored_kind(url: URL, content_type: str, dialogue: Sequence[str],
                 ) -> tuple[str, dict[str, Any]]:
    """A stored report (the object's report as text), by its content type."""
    return ("report" if content_type.startswith("text/") else "file"), {}


SPEC = SchemeSpec(
    names=("prospero",),
    flags=FLAGS,
    handler="anyurl.schemes.prospero.handler:ProsperoHandler",
    summary="Prospero directory objects and their access methods",
    example="prospero://prospero.example.org//pub/README",
    default_port=1525,
    view=lambda url: prospero_path(url.path),
    view_module="anyurl.schemes.prospero.view",
    options_module="anyurl.schemes.prospero.options",
    local_name=_local_name,
    proxied=True,
    udp=True,
    stored_kind=_stored_kind,
    crawl=Crawl(index_name=".listing", tree_path=_tree_path),
    demo=(DemoCase("prospero://127.0.0.1:{port}//pub/README",
                   "GET-OBJECT-INFO over ARDP/UDP: access methods as URLs",
                   DemoServer("anyurl.schemes.prospero.loopback", udp=True)),),
)
