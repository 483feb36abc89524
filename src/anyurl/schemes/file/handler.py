"""The file scheme (RFC 1738 3.10): files of the machine interpreting the URL.

``file:///path`` and ``file://localhost/path`` read a local file (a directory gives a
listing, one name a line, directories marked with a trailing ``/``; :meth:`FileHandler.links`
turns it into the entries' file: URLs). Any other host
names a file on *another* machine, which this scheme gives no way to reach: that is
an error (exit 3, as curl), unless the resolver was asked for the historical
fallback of retrying it as ``ftp://`` (``Config.file_ftp_fallback``).

A regular file is read in a worker thread, in large chunks. Anything else that can be
read (a FIFO, a character device, a socket) may block for ever, so it is opened
without blocking and read when the event loop says it is readable: ``--max-time``,
Ctrl-C and cancellation stop the wait, and a FIFO with no writer yet simply waits for
one. A path holding a NUL byte (``%00``) cannot name a file and is refused (exit 3).
"""

from __future__ import annotations

import errno
import mimetypes
import os
import stat
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import anyio
import anyio.lowlevel

from anyurl.errors import (
    FileReadError,
    LocalFileNotFound,
    ResumeFailed,
    UnsupportedHost,
    URLError,
)
from anyurl.resource import Resource, ResourceInfo, iterate_bytes
from anyurl.schemes.base import FetchOptions, SchemeHandler
from anyurl.schemes.file.spec import is_local_host
from anyurl.schemes.file.view import FilePath
from anyurl.url import URL, encode_wire, quote
from anyurl.url.charset import UCHAR_PLAIN, display

if TYPE_CHECKING:
    from anyurl.links import Link

__all__ = ["FileHandler", "is_local_host"]

CHUNK_SIZE = 120 << 10  # see transport.DEFAULT_RECEIVE_SIZE: larger reads page-fault
#: What a path segment of a file: URL may hold unescaped (RFC 1738 3.10, 3.2.2's fsegment).
_FSEGMENT = UCHAR_PLAIN | frozenset(":@&=")


class FileHandler(SchemeHandler):
    """``file:`` URLs: local files, directories as listings, FIFOs and devices streamed."""

    schemes = ("file",)

    def local_path(self, url: URL) -> bytes:
        """The local path of ``url`` as bytes (UnsupportedHost: another host; URLError: NUL)."""
        if not is_local_host(url.host):
            raise UnsupportedHost(
                f"{url.masked()} names a file on host {url.host!r}, which the file scheme "
                "cannot reach",
                url=url,
                hint="Use file:///path for a local file, or an ftp:// URL for that host "
                "(Config.file_ftp_fallback retries it as ftp).", remedy=("file_ftp_fallback",),
            )
        parts = url.parts
        assert isinstance(parts, FilePath)
        path = encode_wire(parts.path)
        if b"\0" in path:
            raise URLError(f"{url.masked()} holds a NUL byte (%00), which no file name can",
                           url=url)
        return path

    def is_listing(self, info: ResourceInfo) -> bool:
        """A directory's listing is one."""
        return info.kind == "directory"

    def links(self, info: ResourceInfo, body: bytes) -> list[Link]:
        """A directory listing's entries as file: URLs; directories (``name/``) are pages.

        Each URL is the directory's with the entry's name as one more segment, escaped
        octet for octet (a name that is not UTF-8 keeps its bytes), on the same host as
        written (none, or ``localhost``).
        """
        parts = info.url.parts
        if info.kind != "directory" or not isinstance(parts, FilePath):
            return []
        from anyurl.links import FILE, PAGE, Link, checked  # a mirror's walk only

        directory = parts.path.removesuffix("/")
        prefix = "/".join(quote(segment, _FSEGMENT) for segment in directory.split("/"))
        base = info.url.without_fragment()
        links = []
        for line in body.split(b"\n"):
            name = line.decode("utf-8", "surrogateescape")
            is_dir = name.endswith("/")
            name = name.removesuffix("/")
            if name in ("", ".", "..") or "/" in name:
                continue
            path = (prefix + "/" + quote(name, _FSEGMENT)).removeprefix("/")
            links.append(Link(str(base.replace(path=path + ("/" if is_dir else ""))),
                              PAGE if is_dir else FILE, display(name)))
        return checked(links)

    def plan(self, url: URL, options: FetchOptions) -> list[str]:
        path = self.local_path(url)
        start = options.byte_range[0] if options.byte_range else options.offset
        last = options.byte_range[1] if options.byte_range else None
        return [f"open {os.fsdecode(path)!r} for reading" + (
            f", from byte {start}" if start else "") + (
            f" to byte {last}" if last is not None else "")]

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        path = self.local_path(url)
        shown = os.fsdecode(path)
        try:
            st = await anyio.to_thread.run_sync(os.stat, path)
        except OSError as exc:
            raise self._error(url, shown, exc) from exc
        if stat.S_ISDIR(st.st_mode):
            listing = await anyio.to_thread.run_sync(_listing, path)
            info = ResourceInfo(url=url, size=len(listing), total_size=len(listing),
                                content_type="text/plain", kind="directory",
                                filename=None)
            return Resource(info, iterate_bytes(listing))
        if not stat.S_ISREG(st.st_mode):
            return await self._open_special(url, path, shown)
        offset, end = options.offset, st.st_size
        if options.byte_range is not None:  # -r FIRST-[LAST], as curl reads a file: range
            first, last = options.byte_range
            offset = first
            end = st.st_size if last is None else max(first, min(last + 1, st.st_size))
        if offset > st.st_size:  # curl: "failed to resume file:// transfer" (36)
            raise ResumeFailed(
                f"{shown!r} of {url.masked()} has {st.st_size} bytes: it cannot be read "
                f"from byte {offset}", url=url)
        name = os.path.basename(shown) or None
        info = ResourceInfo(
            url=url,
            size=end - offset,
            total_size=st.st_size,
            offset=offset,
            content_type=mimetypes.guess_type(shown)[0],
            filename=name,
        )
        try:
            f = await anyio.open_file(os.fsdecode(path), "rb")
        except OSError as exc:
            raise self._error(url, shown, exc) from exc
        return Resource(info, _chunks(f, offset, end - offset))

    async def _open_special(self, url: URL, path: bytes, shown: str) -> Resource:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
        except OSError as exc:
            raise self._error(url, shown, exc) from exc
        info = ResourceInfo(url=url, filename=os.path.basename(shown) or None)
        return Resource(info, _special_chunks(fd, url, shown))

    def _error(self, url: URL, shown: str, exc: OSError) -> Exception:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return LocalFileNotFound(f"{shown!r} of {url.masked()} does not exist", url=url)
        return FileReadError(
            f"cannot read {shown!r} of {url.masked()}: {exc.strerror or exc}", url=url
        )


async def _chunks(f: anyio.AsyncFile[bytes], offset: int, count: int) -> AsyncIterator[bytes]:
    """``count`` bytes from ``offset`` (fewer if the file shrank meanwhile)."""
    try:
        if offset:
            await f.seek(offset)
        while count > 0:
            chunk = await f.read(min(CHUNK_SIZE, count))
            if not chunk:
                return
            count -= len(chunk)
            yield chunk
    finally:
        with anyio.CancelScope(shield=True):
            await f.aclose()


async def _special_chunks(fd: int, url: URL, shown: str) -> AsyncIterator[bytes]:
    """Read a FIFO, device or socket when the event loop reports it readable.

    Waiting *before* each read matters for a FIFO: with no writer yet, a read says
    end-of-file at once, while Linux reports the FIFO readable only once a writer has
    written or come and gone. A device that cannot be polled (``/dev/zero``) is read
    directly; it never blocks.
    """
    pollable = True
    try:
        while True:
            if pollable:
                try:
                    await anyio.wait_readable(fd)
                except OSError:
                    pollable = False
            try:
                chunk = os.read(fd, CHUNK_SIZE)
            except BlockingIOError:
                await anyio.sleep(0 if pollable else 0.01)
                continue
            except OSError as exc:
                raise FileReadError(
                    f"cannot read {shown!r} of {url.masked()}: {exc.strerror or exc}", url=url
                ) from exc
            if not chunk:
                return
            yield chunk
            if not pollable:
                await anyio.lowlevel.checkpoint()
    finally:
        os.close(fd)


def _listing(path: bytes) -> bytes:
    lines = []
    with os.scandir(path) as it:
        for entry in sorted(it, key=lambda e: e.name):
            name = entry.name
            lines.append(name + b"/" if entry.is_dir() else name)
    return b"".join(line + b"\n" for line in lines)
