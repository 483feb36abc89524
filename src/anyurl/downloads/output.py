"""Where a download's bytes land: the write path's rules, checked before connecting.

A download never destroys what it does not own and never leaves a lie on disk:

* **A new or regular target** is written as ``FILE.part`` and renamed over ``FILE`` only
  when complete (atomic on one file system), so a failed, timed-out or interrupted
  transfer leaves ``FILE`` as it was.
* **A target that is not a regular file** (a character or block device such as
  ``/dev/null``, a FIFO, a socket, ``/dev/stdout``) is written *in place*: opened for
  writing, never truncated by a rename, never removed. Nothing can be resumed there.
* **A symbolic link the user named** (``-o LINK``) is followed as curl follows it. When
  the link leads to a regular file (or to nothing yet), the ``.part`` goes beside the
  file it leads to and is renamed over that file, so the link stays and the file
  behind it is replaced atomically. A link through ``/dev`` or ``/proc`` (``/dev/stdout``
  and ``/dev/fd/N`` are such links) is written in place.
* **A name chosen by the remote side** (``-O``, a mirror's file) is never followed: a
  link planted at that name is an existing file like any other (refused without
  ``--clobber``, then replaced itself, never written through), and a device or FIFO
  there is refused. A ``FILE.part`` that is a symbolic link or not a regular file is
  refused in every case, ``-C`` included (``O_NOFOLLOW``), so no link planted in the
  output directory can lead a write outside it.
* **A tree** (``tree=``: a mirror's directory) is walked one directory at a time from
  a held descriptor (``os.open(name, O_NOFOLLOW, dir_fd=...)``): no symbolic link below
  the tree's root is followed, whether it stands for a directory (``OUT/http ->
  /elsewhere``) or a file, so nothing a crawl writes, renames or reads back lands
  outside it. The root itself is the user's and may be a link. A tree's ``.part``
  files are kept in its staging directory (``.anyurl-partial/``), where no remote
  name can land. Within :func:`held_directories` (a mirror's batch) a directory walked
  so is walked once: its descriptor is kept and duplicated for the next file there, and
  a walk starts from the deepest directory on its way that is kept (a sibling's walk
  opens one name, not every component from the root).
* **Continuing** (``resume=True``, ``-C``): an existing ``FILE.part`` is continued (it is
  anyurl's own, from an interrupted run). Without one, a regular ``FILE`` is continued
  *in place*, as curl's ``-C -`` and wget's ``-c`` do (:attr:`Placement.CONTINUE`): the
  downloader appends to it only after the server agreed to send exactly the bytes after
  its end (HTTP 206 for that range, FTP ``REST`` accepted); any other answer leaves it
  as it was. It is never truncated and never renamed over.
* **Overwriting** (:class:`Overwrite`): a target the caller named is replaced (curl's
  ``-o``); a remote-chosen name is not, unless asked (``--clobber``). The CLI, the
  :class:`~anyurl.downloads.downloader.Downloader` and ``Resolver.download`` share this default.
* **Checked before connecting**: a directory as target, a missing directory (the
  message suggests ``--create-dirs``), an unwritable one.
"""

from __future__ import annotations

import enum
import errno
import fcntl
import os
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from anyurl.errors import FileExists, LocalWriteError

__all__ = [
    "PART_SUFFIX",
    "STAGING_DIR",
    "Placement",
    "TargetPlan",
    "finish_part",
    "held_directories",
    "open_directory",
    "open_in_place",
    "open_in_tree",
    "open_part",
    "part_size",
    "plan_target",
    "same_size_file",
    "staged_names",
    "staged_part",
    "text_below",
]

PART_SUFFIX = ".part"
#: The directory, in a tree's root, of its partial downloads (see :func:`staged_part`).
STAGING_DIR = ".anyurl-partial"
#: Link hops followed before giving up (the kernel's own limit is 40).
_MAX_HOPS = 40
#: Link targets under these are kernel objects (a pipe, a terminal): written in place.
_SPECIAL_ROOTS = ("/dev/", "/proc/")


class Placement(enum.Enum):
    """How a target is written."""

    #: ``FILE.part``, renamed over ``FILE`` when complete.
    PART_AND_RENAME = "part"
    #: Opened and written where it is: a device, a FIFO, a socket, a terminal.
    IN_PLACE = "in-place"
    #: The user's partial ``FILE`` itself, appended to where it ends (``-C`` without a
    #: ``FILE.part``), once the server has agreed to send the bytes after it.
    CONTINUE = "continue"


@dataclass(frozen=True)
class TargetPlan:
    """What :func:`plan_target` decided for one target."""

    placement: Placement
    #: The file the bytes finally live in (a link the user named is resolved).
    path: Path
    #: The directory no symbolic link below which is followed (a mirror's root), or None.
    tree: Path | None = None

    @cached_property
    def part(self) -> Path:
        """The ``.part`` file: beside :attr:`path`, or in a tree, in its staging
        directory (:func:`staged_part`), where no remote name can land. (Computed once:
        a download asks for it to open and again to rename.)"""
        if self.tree is not None:
            return staged_part(self.tree, self.path)
        return self.path.with_name(self.path.name + PART_SUFFIX)


def staged_part(tree: Path, path: Path) -> Path:
    """Where the partial download of ``path`` (below ``tree``) is kept: in
    ``tree/.anyurl-partial/``, named by a digest of ``path`` relative to ``tree``.

    Beside the file, ``NAME.part`` could be a remote name too (a listing with ``f.bin``
    and ``f.bin.part``: one would resume from the other's bytes). No sanitised remote
    name starts with a dot (:func:`anyurl.downloads.names.safe_name`), so nothing a server names
    can land in the staging directory, and the digest of the relative path is the
    same in the next run: a crawl killed with ``kill -9`` continues the same file.
    """
    relative = os.fsencode(_relative(tree, path))
    import hashlib  # a mirror's staging only: _hashlib (OpenSSL) costs every start 2 ms

    digest = hashlib.sha256(relative).hexdigest()[:40]
    return tree.joinpath(STAGING_DIR, digest + PART_SUFFIX)


def text_below(tree: Path, path: Path) -> str | None:
    """``path``'s text after ``tree``'s when it was built below it (``tree / a / b``, a
    mirror's every target), else None (then ask ``os.path``, whose ``abspath`` asks
    the kernel for the working directory when the tree is relative, ``-o site``).

    A ``Path`` holds no ``.``, empty or trailing component, so that text is already
    normal; one with a ``..`` component is left to the caller's own rule."""
    top, full = os.fspath(tree), os.fspath(path)
    if full.startswith(top) and full[len(top):len(top) + 1] == os.sep and top != os.sep:
        rest = full[len(top) + 1:]
        if rest and ".." not in rest.split(os.sep):
            return rest
    return None


def _relative(tree: Path, path: Path) -> str:
    """``path`` relative to ``tree``, as ``os.path.relpath`` of both made absolute says
    (the text after the tree's for a path built below it: :func:`text_below`)."""
    rest = text_below(tree, path)
    if rest is not None:
        return rest
    return os.path.relpath(os.path.abspath(path), os.path.abspath(tree))


def _is_special(mode: int) -> bool:
    return stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _resolve_link(path: Path) -> tuple[Path, bool]:
    """Follow ``path``'s links: (the last path, whether a hop went through /dev or /proc)."""
    current = Path(os.path.abspath(path))
    for _ in range(_MAX_HOPS):
        if str(current).startswith(_SPECIAL_ROOTS):
            return current, True
        try:
            if not stat.S_ISLNK(os.lstat(current).st_mode):
                return current, False
            link = os.readlink(current)
        except FileNotFoundError:
            return current, False
        current = Path(os.path.abspath(current.parent / link))
    raise LocalWriteError(f"{str(path)!r} is a chain of more than {_MAX_HOPS} links")


def plan_target(
    target: Path,
    *,
    named_by_user: bool,
    clobber: bool | None,
    resume: bool = False,
    create_dirs: bool = False,
    tree: Path | None = None,
    checked: set[tuple[Path, bool]] | None = None,
) -> TargetPlan:
    """Decide how ``target`` is written, or raise before anything is fetched.

    ``clobber`` None is the shared default: replace a target the user named, keep one
    whose name came from the remote side. ``resume`` continues an existing ``.part``,
    or else an existing regular, non-empty target in place (:attr:`Placement.CONTINUE`),
    so an existing target is no reason to refuse. Raises :class:`FileExists` (73) or
    :class:`LocalWriteError` (23); creates missing directories with ``create_dirs``.
    With ``tree`` (a directory above ``target``) nothing below ``tree`` is followed:
    the directories are walked and created without following links, and a link at the
    target is an existing file like any other.

    ``checked``, a set the caller keeps for one run of many targets, remembers the
    directories found writable: 2,000 files saved with ``-O`` into one directory check
    it once (a directory removed during the run then fails at the ``.part``'s open,
    a :class:`LocalWriteError` too).
    """
    replace = named_by_user if clobber is None else clobber
    shown = repr(str(target))
    if tree is not None:
        return _plan_in_tree(target if isinstance(target, Path) else Path(target), tree,
                             replace or resume, create_dirs)
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise LocalWriteError(f"cannot use {shown} as the output: {exc.strerror or exc}") from exc
    path = Path(target)
    if st is not None and stat.S_ISLNK(st.st_mode) and named_by_user:
        path, through_special = _resolve_link(target)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            st = None  # a dangling link: the file it names is created
        except OSError as exc:
            raise LocalWriteError(
                f"cannot use {shown} as the output: {exc.strerror or exc}") from exc
        if through_special or (st is not None and _is_special(st.st_mode)):
            if st is None:
                raise LocalWriteError(f"{shown} leads to {str(path)!r}, which does not exist")
            return TargetPlan(Placement.IN_PLACE, path)
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise LocalWriteError(
                f"{shown} is a directory",
                hint="Name a file inside it.", remedy=("output_is_directory",))
        if _is_special(st.st_mode):
            if not named_by_user:
                raise FileExists(
                    f"{shown} exists and is not a regular file; not writing a remote "
                    "name into it")
            return TargetPlan(Placement.IN_PLACE, path)
        if not (replace or resume):
            raise FileExists(f"{shown} exists; not overwriting it",
                             hint="Pass clobber=True to overwrite it, or resume=True to "
                             "continue it.", remedy=("clobber",))
    where = (path.parent, create_dirs)
    if checked is None or where not in checked:
        _check_directory(path.parent, create_dirs)
        if checked is not None:
            checked.add(where)
    plan = TargetPlan(Placement.PART_AND_RENAME, path)
    if (resume and st is not None and stat.S_ISREG(st.st_mode) and st.st_size > 0
            and not os.path.lexists(plan.part)):
        # Only a regular file is continued: a link at a remote name (st is the link's
        # own lstat) is never written through.
        return TargetPlan(Placement.CONTINUE, path)
    return plan


def _plan_in_tree(target: Path, tree: Path, replace: bool, create_dirs: bool) -> TargetPlan:
    """:func:`plan_target` for a target below ``tree``: walked without following links."""
    shown = repr(str(target))
    directory = open_directory(tree, target.parent, create=create_dirs)
    try:
        st = os.stat(target.name, dir_fd=directory, follow_symlinks=False)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise LocalWriteError(f"cannot use {shown} as the output: {exc.strerror or exc}") from exc
    finally:
        os.close(directory)
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise LocalWriteError(f"{shown} is a directory",
                                  hint="Remove it, or mirror into another directory.")
        if _is_special(st.st_mode):
            raise FileExists(f"{shown} exists and is not a regular file; not writing a "
                             "remote name into it")
        if not replace:
            raise FileExists(f"{shown} exists; not overwriting it",
                             hint="Pass clobber=True to overwrite it, or resume=True to "
                             "continue it.", remedy=("clobber",))
    return TargetPlan(Placement.PART_AND_RENAME, target, tree)


def _below(tree: Path, path: Path) -> tuple[str, ...]:
    """The components of ``path`` below ``tree`` (``path`` must lie below it)."""
    if path == tree:
        return ()
    rest = text_below(tree, path)
    if rest is not None:
        return tuple(rest.split(os.sep))
    try:
        relative = Path(os.path.abspath(path)).relative_to(os.path.abspath(tree))
    except ValueError:
        raise LocalWriteError(f"{str(path)!r} is not inside {str(tree)!r}") from None
    parts = relative.parts
    if ".." in parts:
        raise LocalWriteError(f"{str(path)!r} is not inside {str(tree)!r}")
    return parts


def _link_refused(path: Path | str, tree: Path) -> LocalWriteError:
    return LocalWriteError(
        f"{str(path)!r} is a symbolic link inside {str(tree)!r}; not following it",
        hint="Remove the link: nothing anyurl writes in a mirror goes through a link.")


class _Held:
    """Directory descriptors of trees, reached by :func:`open_directory`'s walk, kept
    for :func:`held_directories`: (tree, directory) -> descriptor, at most ``limit``."""

    def __init__(self, limit: int):
        self.limit = limit
        self.fds: dict[tuple[str, str], int] = {}
        self.lock = threading.Lock()  # the downloader opens in worker threads too

    def get(self, key: tuple[str, str]) -> int | None:
        """A duplicate of the descriptor kept for ``key``, or None; a hit makes it
        the last to be closed when the limit is reached (the ancestors a walk keeps
        stay while their subdirectories are written)."""
        with self.lock:
            fd = self.fds.pop(key, None)
            if fd is None:
                return None
            self.fds[key] = fd
            return os.dup(fd)

    def keep(self, key: tuple[str, str], fd: int) -> None:
        with self.lock:
            if key in self.fds:
                return
            if len(self.fds) >= self.limit:
                os.close(self.fds.pop(next(iter(self.fds))))
            self.fds[key] = os.dup(fd)

    def nearest(self, tree: Path, parts: tuple[str, ...]) -> tuple[int, int] | None:
        """The deepest kept directory of ``tree`` among ``tree/parts[:k]`` (k < the
        whole), as (a duplicate of its descriptor, k), or None."""
        top = os.fspath(tree)
        for k in range(len(parts) - 1, -1, -1):
            fd = self.get((top, _joined(top, parts[:k])))
            if fd is not None:
                return fd, k
        return None

    def close(self) -> None:
        with self.lock:
            for fd in self.fds.values():
                os.close(fd)
            self.fds.clear()


_HELD: ContextVar[_Held | None] = ContextVar("anyurl_held_directories", default=None)


@contextmanager
def held_directories(limit: int = 32) -> Iterator[None]:
    """Within this block (and the tasks and threads started in it), a directory of a
    tree that :func:`open_directory` walked is not walked again: its descriptor is kept
    (at most ``limit`` of them, closed at the end) and a duplicate is returned.

    A mirror's batch saves many files in one directory; each walk from the root costs
    an ``open`` and a ``close`` per component, several walks a file. The guarantee
    stands: a kept descriptor was reached without following a link, and it names that
    directory, not a path, so a link planted at its name afterwards is not followed
    either. Keep the block short (a batch): a directory moved out of the tree while it
    runs would still be written.
    """
    held = _Held(limit)
    token = _HELD.set(held)
    try:
        yield
    finally:
        _HELD.reset(token)
        held.close()


def open_directory(tree: Path, directory: Path, *, create: bool = False) -> int:
    """A descriptor of ``directory`` (``tree`` or below it), reached one component at a
    time from ``tree`` with ``O_NOFOLLOW``, creating missing ones with ``create``.

    A symbolic link (or a non-directory) on the way is refused (:class:`LocalWriteError`,
    23), so the descriptor is always of a directory inside ``tree``. The caller closes it.
    Within :func:`held_directories` a directory walked before is not walked again.
    """
    held = _HELD.get()
    if held is None:
        return _walk(tree, directory, create)
    key = (os.fspath(tree), os.fspath(directory))
    fd = held.get(key)
    if fd is None:
        fd = _walk(tree, directory, create, held)
        held.keep(key, fd)
    return fd


def _walk(tree: Path, directory: Path, create: bool, held: _Held | None = None) -> int:
    """:func:`open_directory`'s walk, one component at a time: from ``tree``, or from
    the deepest directory on the way that ``held`` keeps (reached by such a walk),
    keeping there each directory it opens."""
    parts = _below(tree, directory)
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
    start = held.nearest(tree, parts) if held is not None else None
    top = os.fspath(tree)
    if start is not None:
        fd, done = start
    else:
        fd, done = _open_tree(tree, create), 0
        if held is not None:
            held.keep((top, top), fd)
    try:
        for i in range(done, len(parts)):
            name = parts[i]
            try:
                inner = os.open(name, flags | os.O_NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(name, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass  # another worker made it, or a link was planted: opened below
                inner = _open_directory_at(fd, name, tree.joinpath(*parts[:i + 1]), tree)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    inner = _open_directory_at(fd, name, tree.joinpath(*parts[:i + 1]), tree)
                else:
                    raise LocalWriteError(
                        f"cannot use the directory {str(tree.joinpath(*parts[:i + 1]))!r}: "
                        f"{exc.strerror or exc}") from exc
            os.close(fd)
            fd = inner
            if held is not None and i < len(parts) - 1:  # the last: the caller keeps it
                held.keep((top, _joined(top, parts[:i + 1])), fd)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _joined(top: str, parts: tuple[str, ...]) -> str:
    """``os.fspath(Path(top).joinpath(*parts))`` without the paths (``parts`` from
    :func:`_below`): the keys of :class:`_Held`, as :func:`open_directory` makes them of
    the directory it is asked for. A walk made a :class:`Path` per component."""
    if not parts:
        return top
    if top == os.curdir:
        return os.sep.join(parts)
    return os.path.join(top, *parts)


def _open_tree(tree: Path, create: bool) -> int:
    """A descriptor of the tree's root (the user's: it may be a link)."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
    try:
        return os.open(tree, flags)
    except OSError as exc:
        if create and isinstance(exc, FileNotFoundError):
            _check_directory(tree, True)
            return os.open(tree, flags)
        raise LocalWriteError(
            f"cannot use the directory {str(tree)!r}: {exc.strerror or exc}") from exc


def _open_directory_at(fd: int, name: str, walked: Path, tree: Path) -> int:
    """``name`` in the directory ``fd`` as a directory, or the reason it is not one."""
    try:
        return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | os.O_NOFOLLOW,
                       dir_fd=fd)
    except OSError as exc:
        mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode \
            if exc.errno in (errno.ELOOP, errno.ENOTDIR) else 0
        if stat.S_ISLNK(mode):
            raise _link_refused(walked, tree) from None
        if mode:
            raise LocalWriteError(
                f"{str(walked)!r} is in the way of a directory and is not one",
                hint="Remove it, or mirror into another directory.") from None
        raise LocalWriteError(
            f"cannot use the directory {str(walked)!r}: {exc.strerror or exc}") from exc


def open_in_tree(tree: Path, path: Path, flags: int, mode: int = 0o666, *,
                 create_dirs: bool = False) -> int:
    """Open ``path`` (below ``tree``) with ``flags``, following no symbolic link below
    ``tree``: its directories as :func:`open_directory` walks them, the file itself with
    ``O_NOFOLLOW``. A link is refused (:class:`LocalWriteError`, 23).

    Blocking, briefly on a local disk. The caller closes the descriptor.
    """
    directory = open_directory(tree, path.parent, create=create_dirs)
    try:
        return os.open(path.name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode,
                       dir_fd=directory)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _link_refused(path, tree) from None
        raise
    finally:
        os.close(directory)


def finish_part(plan: TargetPlan) -> None:
    """Rename the complete ``plan.part`` over ``plan.path`` (atomic on one file system);
    in a tree, from and to directories reached without following links."""
    part = plan.part
    try:
        if plan.tree is None:
            os.replace(part, plan.path)
            return
        source = open_directory(plan.tree, part.parent)
        try:
            target = open_directory(plan.tree, plan.path.parent, create=True)
            try:
                os.replace(part.name, plan.path.name, src_dir_fd=source, dst_dir_fd=target)
            finally:
                os.close(target)
        finally:
            os.close(source)
    except OSError as exc:
        raise LocalWriteError(
            f"cannot rename {str(part)!r} to {str(plan.path)!r}: {exc.strerror or exc}"
        ) from exc


def same_size_file(plan: TargetPlan, size: int, mtime: float | None) -> bool:
    """Whether ``plan.path`` is a regular file of ``size`` bytes (not followed if a
    link; in a tree, its directory reached without following links); if so, it gets
    ``mtime`` when one is given. For a body known to equal the file's (a refresh's
    unchanged digest): the file is left as it is, not written again and renamed over.
    Renaming over a file is not cheap: ext4 (``auto_da_alloc``, on by default) starts
    writing the new file's data out then, and in a profile of a refresh that read 990
    unchanged listings, those renames were 16 % of the main thread's time."""
    try:
        if plan.tree is None:
            st = os.lstat(plan.path)
            if not stat.S_ISREG(st.st_mode) or st.st_size != size:
                return False
            if mtime is not None:
                os.utime(plan.path, (mtime, mtime), follow_symlinks=False)
            return True
        directory = open_directory(plan.tree, plan.path.parent)
        try:
            name = plan.path.name
            st = os.stat(name, dir_fd=directory, follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode) or st.st_size != size:
                return False
            if mtime is not None:
                os.utime(name, (mtime, mtime), dir_fd=directory, follow_symlinks=False)
            return True
        finally:
            os.close(directory)
    except (OSError, OverflowError, ValueError, LocalWriteError):
        return False  # not there, not reachable, or a time it cannot hold: write it


def _check_directory(directory: Path, create: bool) -> None:
    directory = directory if str(directory) else Path(".")
    if create:
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LocalWriteError(
                f"cannot create directory {str(directory)!r}: {exc.strerror or exc}") from exc
    if not directory.is_dir():
        raise LocalWriteError(
            f"the directory {str(directory)!r} does not exist",
            hint="Create it, or pass create_dirs=True.", remedy=("create_dirs",))
    if not os.access(directory, os.W_OK | os.X_OK):
        raise LocalWriteError(f"cannot write in the directory {str(directory)!r}: "
                              "permission denied")


def staged_names(tree: Path) -> frozenset[str]:
    """The names in ``tree``'s staging directory (:func:`staged_part`), none when there
    is none: a batch's jobs whose ``.part`` is not among them have nothing to continue,
    and need no look of their own (one listing, not a ``stat`` per file). The tree is
    reached as :func:`open_directory` reaches it, and a link planted at the staging
    directory is not followed (no names: each part's own open refuses it)."""
    top = open_directory(tree, tree)
    try:
        # its own descriptor, not a held one's duplicate: reading entries moves the
        # offset that duplicates share
        directory = os.open(STAGING_DIR, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
                            | os.O_CLOEXEC, dir_fd=top)
    except OSError:
        return frozenset()  # none (or not a directory: the part's own open says so)
    finally:
        os.close(top)
    try:
        with os.scandir(directory) as entries:
            return frozenset(entry.name for entry in entries)
    finally:
        os.close(directory)


def part_size(part: Path, tree: Path | None = None) -> int:
    """Bytes in an existing ``.part`` (0 when none); a link or a non-file is refused.
    With ``tree``, its directories are reached without following links."""
    try:
        if tree is None:
            st = os.lstat(part)
        else:
            directory = open_directory(tree, part.parent)
            try:
                st = os.stat(part.name, dir_fd=directory, follow_symlinks=False)
            finally:
                os.close(directory)
    except FileNotFoundError:
        return 0
    _check_part_mode(part, st.st_mode)
    return st.st_size


def _check_part_mode(part: Path, mode: int) -> None:
    if stat.S_ISLNK(mode):
        raise LocalWriteError(
            f"{str(part)!r} is a symbolic link; not following it",
            hint="Remove it: anyurl writes .part files itself and never through a link.")
    if not stat.S_ISREG(mode):
        raise LocalWriteError(f"{str(part)!r} exists and is not a regular file",
                              hint="Remove it or choose another output name.")


def open_part(part: Path, offset: int, tree: Path | None = None) -> int:
    """Open ``part`` for writing at ``offset`` (truncated there), never through a link
    (with ``tree``, no link below it either: see :func:`open_in_tree`).

    Blocking, briefly on a local disk: the downloader calls it in a worker thread,
    except for a small body, where the thread hop costs more than the open.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    if not offset:
        flags |= os.O_TRUNC
    try:
        if tree is None:
            fd = os.open(part, flags | os.O_NONBLOCK, 0o666)
        else:
            fd = open_in_tree(tree, part, flags | os.O_NONBLOCK, 0o666, create_dirs=True)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            _check_part_mode(part, stat.S_IFLNK)
        raise
    try:
        _check_part_mode(part, os.fstat(fd).st_mode)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        if offset:
            os.ftruncate(fd, offset)
            os.lseek(fd, offset, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_in_place(path: Path) -> int:
    """Open a device, FIFO or socket for writing as it is: no create, no truncation.

    A FIFO with no reader fails at once (rather than blocking beyond ``--max-time``).
    Blocking otherwise: call it in a worker thread.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise LocalWriteError(
                f"nothing is reading the FIFO {str(path)!r}",
                hint="Start the reader first.") from exc
        raise
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    return fd
