"""The synchronous facade: the :class:`~anyurl.Resolver` methods as plain functions.

``anyurl.fetch(url)`` (also ``anyurl.get``), ``with anyurl.open(url) as res``,
``anyurl.download(url, path)`` and ``anyurl.fetch_many(urls)`` mirror
``Resolver.fetch``, ``open``, ``download`` and ``fetch_many``.

Each call runs the async resolver on its own event loop (asyncio by default) in a
blocking portal, so it can be used from scripts and threads without async code.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from anyurl.config import Config
from anyurl.downloader import TransferResult
from anyurl.resolver import FetchResult, Resolver
from anyurl.resource import ResourceInfo
from anyurl.schemes.base import FetchOptions
from anyurl.url import URL

__all__ = ["SyncResource", "download", "fetch", "fetch_many", "get", "open"]


def fetch(url: URL | str, options: FetchOptions | None = None, *,
          config: Config | None = None, backend: str = "asyncio", **request: Any) -> bytes:
    """Fetch ``url`` and return its bytes (``Resolver.fetch``; ``request`` keywords as
    it takes them: method, headers, data, auth, verify, timeout)."""
    from anyio.from_thread import start_blocking_portal

    with start_blocking_portal(backend) as portal:

        async def run() -> bytes:
            async with Resolver(config) as resolver:
                return await resolver.fetch(url, options, **request)

        return portal.call(run)


#: ``anyurl.get(url)``, the name people reach for first.
get = fetch


def fetch_many(
    urls: Iterable[URL | str],
    *,
    limit: int | None = None,
    config: Config | None = None,
    backend: str = "asyncio",
) -> list[FetchResult]:
    """Fetch many URLs, ``limit`` at a time; the results in the order they finished."""
    from anyio.from_thread import start_blocking_portal

    url_list = list(urls)
    with start_blocking_portal(backend) as portal:

        async def run() -> list[FetchResult]:
            async with Resolver(config) as resolver:
                return [r async for r in resolver.fetch_many(url_list, limit=limit)]

        return portal.call(run)


def download(
    url: URL | str,
    path: str | os.PathLike[str],
    *,
    resume: bool = False,
    config: Config | None = None,
    backend: str = "asyncio",
) -> TransferResult:
    """Download ``url`` to ``path`` (via ``path.part``, renamed when complete)."""
    from anyio.from_thread import start_blocking_portal

    with start_blocking_portal(backend) as portal:

        async def run() -> TransferResult:
            async with Resolver(config) as resolver:
                return await resolver.download(url, Path(path), resume=resume)

        return portal.call(run)


class SyncResource:
    """A resource opened by :func:`open`: iterate it for byte chunks, or ``read()``."""

    def __init__(self, info: ResourceInfo, chunks: Iterator[bytes]):
        self.info = info
        self._chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        return self._chunks

    def read(self) -> bytes:
        """The whole body in memory (for small resources; iterate for large ones)."""
        return b"".join(self._chunks)


@contextmanager
def open(
    url: URL | str,
    options: FetchOptions | None = None,
    *,
    config: Config | None = None,
    backend: str = "asyncio",
    **request: Any,
) -> Iterator[SyncResource]:
    """``with anyurl.open(url) as res: for chunk in res: ...`` (``request`` keywords as
    ``Resolver.open`` takes them)."""
    from anyio.from_thread import start_blocking_portal

    with start_blocking_portal(backend) as portal:
        resolver = Resolver(config)
        try:
            cm = resolver.open(url, options, **request)
            resource = portal.call(cm.__aenter__)
            iterator = resource.__aiter__()

            def chunks() -> Iterator[bytes]:
                while True:
                    try:
                        yield portal.call(iterator.__anext__)
                    except StopAsyncIteration:
                        return

            try:
                yield SyncResource(resource.info, chunks())
            finally:
                portal.call(cm.__aexit__, None, None, None)
        finally:
            portal.call(resolver.aclose)
