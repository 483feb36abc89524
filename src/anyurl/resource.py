"""Resource: what a scheme handler returns, an async stream of byte chunks plus metadata.

Bodies flow in chunks with bounded memory: a handler hands over an async iterator
that reads from its connection as the consumer asks. ``Resource`` counts what passes
through and, when the stream ends short of the size the server announced, raises
:class:`~anyurl.errors.PartialTransfer` instead of ending quietly, so no handler can
forget that check. Closing the resource (``async with`` or :meth:`Resource.aclose`)
closes the iterator, which is where handlers release their connection.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any

from anyurl.errors import FileSizeExceeded, PartialTransfer
from anyurl.url import URL

if TYPE_CHECKING:
    from anyurl.bulk import RawBody

__all__ = ["Resource", "ResourceInfo"]


@dataclass
class ResourceInfo:
    """Metadata of an opened resource.

    ``size`` is the number of bytes the stream will yield when known (already reduced
    by ``offset`` for a resumed transfer); ``total_size`` the size of the whole remote
    object when known. ``offset`` is where the stream starts within the object (non-zero
    only when a resume was asked for and the server honoured it). ``kind`` says what the
    bytes are: ``"file"``, ``"directory"`` (a listing), ``"menu"``, ``"article"``,
    ``"headers"`` (an HTTP HEAD) ...

    ``url`` is the final URL (after redirects), ``filename`` the name the server or the
    URL suggests. For HTTP, ``status``, ``reason`` and ``headers`` (names lower-cased,
    in the order received; :meth:`header` looks one up) are the final response's; they
    are None and empty for the other schemes. ``extra`` holds what is particular to one
    handler (the protocol dialogue's details).
    """

    url: URL
    size: int | None = None
    total_size: int | None = None
    offset: int = 0
    content_type: str | None = None
    filename: str | None = None
    kind: str = "file"
    validator: str | None = None  # ETag / Last-Modified, for a safe resume later
    status: int | None = None
    reason: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    def header(self, name: str) -> str | None:
        """The first value of response header ``name`` (any case), or None."""
        key = name.lower()
        for k, v in self.headers:
            if k == key:
                return v
        return None


class Resource:
    """An opened resource; iterate it with ``async for chunk in resource``."""

    def __init__(
        self,
        info: ResourceInfo,
        chunks: AsyncIterator[bytes],
        *,
        on_close: Callable[[], Awaitable[None]] | None = None,
        raw: RawBody | None = None,
    ):
        self.info = info
        self._chunks = chunks
        self._on_close = on_close
        self._closed = False
        self.bytes_received = 0
        #: The body as plain bytes on a socket, when the handler can offer it so
        #: (:mod:`anyurl.bulk`): :meth:`copy_to` moves it without copying it through
        #: Python. Set only before anything was read; consumed by the first read.
        self.raw = raw

    @property
    def url(self) -> URL:
        """The URL the bytes come from (``info.url``: after redirects)."""
        return self.info.url

    def __aiter__(self) -> AsyncIterator[bytes]:
        self.raw = None  # read as chunks from now on
        return self._iterate()

    async def copy_to(self, fd: int, progress: Callable[[int], None] | None = None) -> int:
        """Write the whole body to the file descriptor ``fd``; the bytes written.

        With a raw body the kernel moves it (``splice``); otherwise the chunks are
        written in turn. ``progress(bytes so far)`` is called as it goes. A body that
        ends short of the announced size raises :class:`PartialTransfer`, as iterating
        does; an error of the target is the ``OSError`` of the write.
        """
        raw, self.raw = self.raw, None
        if raw is None:
            async for chunk in self:
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd, view):]
                if progress is not None:
                    progress(self.bytes_received)
            return self.bytes_received
        from anyurl.bulk import move

        done = 0
        if raw.prefix:
            view = memoryview(raw.prefix)
            while view:
                view = view[os.write(fd, view):]
            done = len(raw.prefix)
            if progress is not None:
                progress(done)

        def moved_so_far(n: int) -> None:
            self.bytes_received = done + n
            if progress is not None:
                progress(done + n)

        moved = await move(raw.stream, fd, raw.remaining, moved_so_far)
        self.bytes_received = done + moved
        expected = self.info.size
        if (raw.remaining is not None and moved < raw.remaining) or (
                expected is not None and self.bytes_received < expected):
            raise self._short(expected if expected is not None
                              else done + (raw.remaining or 0))
        await raw.finish(moved)
        return self.bytes_received

    async def _iterate(self) -> AsyncIterator[bytes]:
        async for chunk in self._chunks:
            if chunk:
                self.bytes_received += len(chunk)
                yield chunk
        expected = self.info.size
        if expected is not None and self.bytes_received < expected:
            raise self._short(expected)

    def _short(self, expected: int) -> PartialTransfer:
        """The error for a body that ended after :attr:`bytes_received` of ``expected``."""
        return PartialTransfer(
            f"transfer of {self.info.url.masked()} ended after {self.bytes_received} of "
            f"{expected} bytes",
            received=self.bytes_received,
            expected=expected,
            url=self.info.url,
            hint="Try again with resume (resume=True) to continue where it stopped.",
        )

    async def read(self, limit: int | None = None) -> bytes:
        """The whole body in memory; for small resources (use iteration for large ones).

        With ``limit``, more than ``limit`` bytes raise :class:`FileSizeExceeded` (63)
        as soon as they arrive, so a server cannot make this grow without bound.
        """
        if limit is not None and self.info.size is not None and self.info.size > limit:
            raise _too_large(self.info.url, self.info.size, limit)
        parts = []
        total = 0
        async for chunk in self:
            total += len(chunk)
            if limit is not None and total > limit:
                raise _too_large(self.info.url, total, limit)
            parts.append(chunk)
        return b"".join(parts)

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            aclose = getattr(self._chunks, "aclose", None)
            if aclose is not None:
                await aclose()
        finally:
            if self._on_close is not None:
                await self._on_close()

    async def __aenter__(self) -> Resource:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


def _too_large(url: URL, size: int, limit: int) -> FileSizeExceeded:
    return FileSizeExceeded(
        f"{url.masked()} is larger than the limit of {limit} bytes ({size} or more)",
        url=url, hint="Raise the limit if you want it anyway.", remedy=("max_filesize",))


async def iterate_bytes(data: bytes, chunk_size: int = 65536) -> AsyncIterator[bytes]:
    """An async iterator over ``data`` in chunks (for handlers with in-memory bodies)."""
    for i in range(0, len(data), chunk_size):
        yield data[i : i + chunk_size]
