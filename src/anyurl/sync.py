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
from anyurl.downloads.downloader import Progress, TransferResult
from anyurl.errors import FileSizeExceeded
from anyurl.resolver import FetchResult, Resolver
from anyurl.resource import (
    LINE_LIMIT,
    TEXT_LIMIT,
    LineSplitter,
    ResourceInfo,
    charset_of,
    decode_text,
    parse_json,
)
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
    progress: Progress | None = None,
) -> TransferResult:
    """Download ``url`` to ``path`` (via ``path.part``, renamed when complete).

    ``progress(done, total_or_None)`` is called as :meth:`Resolver.download` calls it,
    from the thread the download runs in (rich and tqdm bars may be updated from it).
    """
    from anyio.from_thread import start_blocking_portal

    with start_blocking_portal(backend) as portal:

        async def run() -> TransferResult:
            async with Resolver(config) as resolver:
                return await resolver.download(url, Path(path), resume=resume,
                                               progress=progress)

        return portal.call(run)


class SyncResource:
    """A resource opened by :func:`open`: iterate it for byte chunks, or ``read()``,
    ``text()``, ``json()``, ``iter_lines()`` as :class:`~anyurl.resource.Resource` has them."""

    def __init__(self, info: ResourceInfo, chunks: Iterator[bytes]):
        self.info = info
        self._chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        return self._chunks

    @property
    def encoding(self) -> str | None:
        """The content type's ``charset``, or None (text is then read as UTF-8)."""
        return charset_of(self.info.content_type)

    def read(self, limit: int | None = None) -> bytes:
        """The whole body in memory (for small resources; iterate for large ones); more
        than ``limit`` bytes raise :class:`~anyurl.errors.FileSizeExceeded` (63)."""
        parts = []
        total = 0
        for chunk in self._chunks:
            total += len(chunk)
            if limit is not None and total > limit:
                raise FileSizeExceeded(
                    f"{self.info.url.masked()} is larger than the limit of {limit} bytes "
                    f"({total} or more)", url=self.info.url,
                    hint="Raise the limit if you want it anyway.", remedy=("max_filesize",))
            parts.append(chunk)
        return b"".join(parts)

    def text(self, limit: int | None = TEXT_LIMIT, *, encoding: str | None = None,
             errors: str = "replace") -> str:
        """The body as text, as :meth:`Resource.text <anyurl.resource.Resource.text>`."""
        return decode_text(self.read(limit), encoding or self.encoding, errors)

    def json(self, limit: int | None = TEXT_LIMIT) -> Any:
        """The body parsed as JSON, as :meth:`Resource.json <anyurl.resource.Resource.json>`."""
        return parse_json(self.read(limit), self.encoding)

    def iter_lines(self, limit: int | None = LINE_LIMIT, *, encoding: str | None = None,
                   errors: str = "replace") -> Iterator[str]:
        """The body's lines as they arrive, as
        :meth:`Resource.iter_lines <anyurl.resource.Resource.iter_lines>`."""
        lines = LineSplitter(encoding or self.encoding, errors, limit, self.info.url)
        for chunk in self._chunks:
            yield from lines.feed(chunk)
        yield from lines.feed(b"", final=True)


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
