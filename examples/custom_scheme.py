"""Register a handler of your own for an ``x-`` scheme (RFC 1738 section 4).

    python examples/custom_scheme.py

``x-rot13:TEXT`` returns TEXT, %-decoded and rot13-encoded. A real handler would
connect with anyurl.net.transport.connect_tcp and drive a protocol; this one shows the
parts every handler has: ``schemes``, ``open`` returning a Resource with its size,
``plan`` for ``--plan``, and errors from anyurl.errors (they carry exit codes).

To make the scheme available to the ``anyurl`` command too, publish the class under
the entry-point group ``anyurl.schemes`` in your package's pyproject.toml::

    [project.entry-points."anyurl.schemes"]
    x-rot13 = "mypackage.rot13:Rot13Handler"
"""

from __future__ import annotations

import codecs
import tempfile
from pathlib import Path

import anyio

from anyurl import FetchOptions, Resolver, Resource, ResourceInfo, SchemeHandler
from anyurl.errors import URLError
from anyurl.resource import iterate_bytes
from anyurl.url import URL, decode


class Rot13Handler(SchemeHandler):
    """``x-rot13:<text>``: the text, rot13-encoded."""

    schemes = ("x-rot13",)

    def _text(self, url: URL) -> str:
        if not url.opaque:
            raise URLError(f"{url.masked()} has no text", url=url,
                           hint="Write it as x-rot13:Some%20text.")
        return decode(url.opaque)

    def plan(self, url: URL, options: FetchOptions) -> list[str]:
        return [f"rot13 {self._text(url)!r} (no connection)"]

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        body = codecs.encode(self._text(url), "rot13").encode()
        body = body[options.offset:]  # honour resume offsets when the scheme can
        info = ResourceInfo(url=url, size=len(body), total_size=len(body) + options.offset,
                            offset=options.offset, content_type="text/plain")
        return Resource(info, iterate_bytes(body))


async def main() -> None:
    async with Resolver() as resolver:
        resolver.register("x-rot13", Rot13Handler)  # or "mypackage.rot13:Rot13Handler"
        print(resolver.plan("x-rot13:Hello%2C%20world"))
        print((await resolver.fetch("x-rot13:Hello%2C%20world")).decode())
        with tempfile.TemporaryDirectory() as tmp:
            target = Path(tmp) / "secret.txt"
            await resolver.download("x-rot13:Uryyb%20ntnva", target)
            print(target.read_text())
        try:
            await resolver.fetch("x-rot13:")
        except URLError as exc:
            print(f"error (exit {exc.exit_code}): {exc}")


if __name__ == "__main__":
    anyio.run(main)
