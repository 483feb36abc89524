"""Servers whose numbers are not ASCII digits: a Gopher port ``²``, a status ``2²0``, a
``Retry-After: ²``, a robots.txt ``Crawl-delay: ²``, an NNTP greeting ``2²0``.

``str.isdigit()`` takes ``²`` and ``int()`` refuses it, so each of these once ended
``anyurl get`` or ``anyurl mirror`` in an internal error (and a mirror stopped again at
each resume). A client that reads numbers as ASCII digits only (docs/architecture.md,
"Numbers") answers each with a protocol error, or ignores the field. Each scheme keeps
its own, as the ``NUMBERS`` of its ``hostile`` module (``anyurl.schemes.<name>.hostile``);
:data:`BEHAVIOURS` here gathers them all. They are :class:`anyurl.testing.hostile.Behaviour`
objects, served by its ``HostileServer``::

    from anyurl.testing.hostile import HostileServer
    from anyurl.testing.hostile_numbers import BEHAVIOURS

    with HostileServer(BEHAVIOURS["gopher-port-superscript"]) as server:
        run_client(server.url)

or from a shell: ``python -m anyurl.testing.hostile_numbers gopher-port-superscript``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from anyurl.testing._server import serve_behaviour
from anyurl.testing.hostile import Behaviour, HostileServer, gathered

__all__ = ["ARABIC_THREE", "BEHAVIOURS", "SUPERSCRIPT_TWO", "main"]

#: Digits that str.isdigit() takes and int() refuses, or int() takes as another number.
SUPERSCRIPT_TWO = "²"
ARABIC_THREE = "٣"


#: Every known scheme's behaviours whose numbers are not ASCII digits, by name.
BEHAVIOURS: Mapping[str, Behaviour] = gathered("NUMBERS")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anyurl.testing.hostile_numbers NAME [--host H] [--port N]``."""
    return serve_behaviour(
        "hostile_numbers", __doc__, BEHAVIOURS,
        lambda behaviour, host, port: HostileServer(behaviour, host=host, port=port),
        lambda server: server.url, argv)


if __name__ == "__main__":
    raise SystemExit(main())
