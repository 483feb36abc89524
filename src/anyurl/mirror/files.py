"""The files a crawl keeps in its tree: each step by descriptors, never through a link.

What the mirror does to a saved file beyond the downloader's write: a listing saved at
its name moved into its directory (:func:`into_directory`), the digest and the server's
time (:func:`sha256`, :func:`set_time`), a page read back, bounded, for its links
(:func:`read_page`, :func:`streamed_links`), a rendering beside a listing. Every path is
below the mirror's root and reached without following a link
(:mod:`anyurl.downloads.output`): a link planted in the tree is never written through.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from anyurl.downloads.output import open_directory, open_in_tree, text_below
from anyurl.errors import LocalWriteError
from anyurl.mirror.paths import index_name

if TYPE_CHECKING:
    from anyurl.links import Link
    from anyurl.resource import ResourceInfo
    from anyurl.schemes.base import SchemeHandler

__all__ = ["HASH_PIECE", "INLINE_HASH", "MAX_PAGE", "into_directory", "read_page",
           "refuse_link", "relative_name", "set_time", "sha256", "streamed_links",
           "unless_a_directory", "write_beside"]

#: A page is read back for its links up to this size; a larger one is kept, not parsed.
MAX_PAGE = 16 << 20
#: A file up to this size is hashed (and its time set) in the event loop: a worker
#: thread's hop costs more than reading a small file back from the page cache.
INLINE_HASH = 64 << 10
#: How much of a saved file :func:`sha256` reads at a time.
HASH_PIECE = 256 << 10


def unless_a_directory(path: Path, scheme: str) -> Path:
    """``path``, or its directory's index when a directory is already there.

    A listing named without its ``/`` (an FTP symlink in ``LIST``, a start URL typed so)
    is saved at its name and moved into its directory once it is known to be a listing
    (:func:`into_directory`); a run killed after that move, with files of the listing
    below it, leaves the directory where the URL's file would go. Its resumed fetch goes
    into that directory, as the first run's did, instead of failing on it. Only the last
    component is looked at (never followed): the write itself walks the tree safely.
    """
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            return path / index_name(scheme)
    except OSError:
        pass
    return path


def refuse_link(path: Path, what: str) -> None:
    """Refuse, before the crawl starts, a symbolic link (or a non-file) planted where
    the mirror appends its own records (exit 23)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISLNK(mode) or not stat.S_ISREG(mode):
        kind = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
        raise LocalWriteError(f"the mirror's {what} {str(path)!r} is {kind}; not "
                              "writing through it", hint="Remove it, or name another file.")


def relative_name(root: Path, path: Path) -> str:
    """``os.fsdecode(path.relative_to(root))`` for a path built below ``root``: its text
    after the root's, without pathlib's parse of both."""
    rest = text_below(root, path)
    return os.fsdecode(rest if rest is not None else path.relative_to(root))


def into_directory(root: Path, path: Path, index: str) -> Path:
    """Move a listing saved as a file (``pub``) to ``pub/<index>``: what it lists goes in
    ``pub/`` (an FTP or Gopher directory named without its final ``/``). Every step from
    a descriptor of the directory, reached without following links
    (:mod:`anyurl.downloads.output`)."""
    parent = open_directory(root, path.parent)
    try:
        temporary = path.name + ".anyurl-moving"
        os.replace(path.name, temporary, src_dir_fd=parent, dst_dir_fd=parent)
        try:
            os.mkdir(path.name, 0o777, dir_fd=parent)
        except FileExistsError:
            pass  # a directory already (a link is refused below)
        inner = open_directory(root, path)
        try:
            os.replace(temporary, index, src_dir_fd=parent, dst_dir_fd=inner)
        finally:
            os.close(inner)
    finally:
        os.close(parent)
    return path / index


def sha256(root: Path, path: Path, modified: float | None = None) -> tuple[str, int]:
    """The saved file's SHA-256 and size; with ``modified``, the file then gets the
    server's modification time (as ``wget -N`` does), through the same descriptor."""
    digest = hashlib.sha256()
    size = 0
    # one buffer read into, not a new 1 MiB bytes per read: those come back from a
    # worker thread's malloc arena only in part, and each thread keeps its own
    with open(open_in_tree(root, path, os.O_RDONLY), "rb", buffering=0) as f:
        buffer = bytearray(min(HASH_PIECE, os.fstat(f.fileno()).st_size + 1))
        view = memoryview(buffer)
        while count := f.readinto(buffer):
            digest.update(view[:count])
            size += count
        if modified is not None:
            try:
                os.utime(f.fileno(), (modified, modified))
            except (OSError, OverflowError, ValueError):
                pass  # a time the file system cannot hold: the file keeps its own
    return digest.hexdigest(), size


def set_time(root: Path, path: Path, modified: float) -> None:
    """Give the saved file at ``path`` the server's time (its directory reached without
    following a link, the file itself not followed either)."""
    directory = open_directory(root, path.parent)
    try:
        os.utime(path.name, (modified, modified), dir_fd=directory, follow_symlinks=False)
    except (OSError, OverflowError, ValueError):
        pass  # a time the file system cannot hold: the file keeps its own
    finally:
        os.close(directory)


def read_page(root: Path, path: Path) -> bytes | None:
    """The page at ``path`` for its links; None when larger than :data:`MAX_PAGE`."""
    with open(open_in_tree(root, path, os.O_RDONLY), "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > MAX_PAGE:
            return None
        return f.read(size + 1)  # (not MAX_PAGE + 1: a buffer that big for every page)


def streamed_links(root: Path, path: Path, handler: SchemeHandler,
                    info: ResourceInfo) -> list[Link]:
    """The links of the page at ``path``, which ``handler`` reads in pieces; [] when
    larger than :data:`MAX_PAGE`."""
    with open(open_in_tree(root, path, os.O_RDONLY), "rb") as f:
        if os.fstat(f.fileno()).st_size > MAX_PAGE:
            return []
        return handler.links_from_file(info, f)


def write_beside(root: Path, path: Path, text: str) -> None:
    """A rendering beside its listing (``gophermap.txt``), never through a link."""
    fd = open_in_tree(root, path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    with open(fd, "w", encoding="utf-8") as f:
        f.write(text)
