"""The x-finger handler: one query per connection, the answer streamed as it comes."""

from __future__ import annotations

from collections.abc import AsyncIterator

from anyurl.resource import Resource, ResourceInfo
from anyurl.schemes.base import FetchOptions, SchemeHandler
from anyurl.url import URL
from anyurl_finger.protocol import query

__all__ = ["FingerHandler"]


class FingerHandler(SchemeHandler):
    """``x-finger://host/user``: what the finger server says about the user."""

    schemes = ("x-finger",)

    def plan(self, url: URL, options: FetchOptions) -> list[str]:
        return [query(url).decode("utf-8", "replace").rstrip("\r\n")]

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        line = query(url)
        port = url.effective_port  # 79 from the descriptor, unless the URL gives one
        assert port is not None
        stream = await self.dialer.connect_tcp(
            url.connect_host, port, url=url, connect_timeout=self.config.connect_timeout,
            read_timeout=self.config.read_timeout, what="the finger server")
        if options.trace:
            options.trace(f"> {line.decode('utf-8', 'replace').rstrip()}")
        await stream.send(line)

        async def answer() -> AsyncIterator[bytes]:
            while chunk := await stream.receive():
                yield chunk

        info = ResourceInfo(url=url, content_type="text/plain")
        return Resource(info, answer(), on_close=stream.aclose)
