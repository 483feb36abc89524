"""anyurl-finger: the ``x-finger`` scheme for anyurl, as an example plug-in.

``SPEC`` is all anyurl reads (through the ``anyurl.schemes`` entry point): the handler
is imported only when a URL needs it.
"""

from __future__ import annotations

from anyurl.registry.spec import DemoCase, DemoServer, SchemeSpec
from anyurl.url import URL, decode

__all__ = ["SPEC"]


def _local_name(url: URL) -> str:
    """``-O`` saves ``x-finger://host/alice`` as ``alice``."""
    return decode((url.path or "").strip("/")) or "users"


SPEC = SchemeSpec(
    names=("x-finger",),
    handler="anyurl_finger.handler:FingerHandler",
    summary="what a finger server (RFC 1288) says about a user",
    default_port=79,
    local_name=_local_name,
    demo=(DemoCase("x-finger://127.0.0.1:{port}/alice", "a finger query (RFC 1288)",
                   DemoServer("anyurl_finger.server")),),
)
