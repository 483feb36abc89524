"""The downloader: many URLs at once, each retried, resumed, and bounded in time and rate.

This is the engine behind ``anyurl get``; embed it when a program fetches many URLs.

How a run goes
--------------
Every :class:`Job` (a URL and a target file, or ``None`` for the run's ``sink``,
stdout in the CLI) runs as its own task. Two limits bound the run: at most
``parallel`` transfers at once, and at most ``per_host`` of them to one host (a
server that sees eight logins from one client at once may well refuse the ninth).
A job takes its host's slot *before* a global one, so jobs queued behind a busy host
never hold global slots that other hosts could use. Jobs that write to the sink run
one after the other in the order given, so their bytes never interleave; jobs that
write files run in parallel with them.

Files are written as ``FILE.part`` and renamed when complete, so a failed, timed-out
or cancelled transfer (Ctrl-C) never leaves a truncated file under its final name;
the ``.part`` is what ``resume=True`` (``-C``) continues in a later run. Without a
``.part``, ``resume=True`` continues a partial ``FILE`` itself, as curl's ``-C -`` and
wget's ``-c`` do: appended in place, and only once the server has answered with the
bytes that follow it (anything else fails with ResumeFailed and leaves it untouched).

Retries
-------
A transfer that fails *transiently* (:func:`is_transient`: a timeout, a connection
lost or refused, fewer bytes than announced, HTTP 408/429/5xx, FTP 4xx), or with any
error under ``retry_all_errors``, is tried again after ``retry_delay`` seconds, then
twice that, and so on up to ``retry_max_delay``, each wait spread by ``retry_jitter``;
a server's ``Retry-After`` (429, 503) makes the wait at least that long, up to
``retry_max_delay``. A retry *resumes*: it asks the scheme for the bytes after those
already written (FTP ``REST``, HTTP ``Range`` with ``If-Range`` on the validator the
first response gave) and starts over only when the server cannot continue; bytes
already sent to the sink are skipped, not repeated, when a server restarts from zero.

Time and rate
-------------
``max_time`` bounds each attempt; ``stall_timeout`` fails an attempt when no byte
arrives for that long (both exit 28, and both retried). One cancel scope per attempt
carries a deadline that moves forward with every chunk, so a stall costs no extra
task. ``limit_rate`` caps each transfer's average rate (bytes per second, as curl's
``--limit-rate``): after each chunk the transfer sleeps until it is back under the cap.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import anyio

from anyurl.config import Config
from anyurl.downloads.output import (
    Placement,
    TargetPlan,
    finish_part,
    open_in_place,
    open_part,
    part_size,
    plan_target,
    same_size_file,
    staged_names,
)
from anyurl.errors import (
    AnyURLError,
    ConnectFailed,
    ConnectionLost,
    FileExists,
    FileSizeExceeded,
    LocalWriteError,
    OptionError,
    PartialTransfer,
    PolicyRefused,
    ProtocolError,
    ResumeFailed,
    ServerError,
    StreamClosed,
    TLSHandshakeFailed,
    TransferTimeout,
    URLError,
)
from anyurl.registry import spec_for
from anyurl.resource import Resource, ResourceInfo
from anyurl.schemes.base import FetchOptions
from anyurl.url import URL, mask

__all__ = [
    "DownloadEvents",
    "DownloadPolicy",
    "Downloader",
    "Job",
    "Opener",
    "Progress",
    "Sink",
    "TransferResult",
    "download",
    "is_transient",
    "remote_time",
]

#: Called with (bytes so far, total or None) as a download goes.
Progress = Callable[[int, int | None], None]


class Opener(Protocol):
    """What the downloader needs of a :class:`~anyurl.resolver.Resolver`.

    The downloader depends on this shape, not on the resolver module, so that the
    resolver can offer :meth:`~anyurl.resolver.Resolver.download` without an import
    cycle.
    """

    config: Config

    def parse(self, url: URL | str) -> URL:
        """``url`` as a parsed URL (text is parsed in the resolver's strictness)."""
        ...

    def open(
        self, url: URL | str, options: FetchOptions | None = None
    ) -> AbstractAsyncContextManager[Resource]: ...



class Sink(Protocol):
    """Where jobs without a target file write: ``sys.stdout.buffer``, a BytesIO ..."""

    def write(self, data: bytes, /) -> object:
        """Write ``data`` (all of it); an OSError is reported as LocalWriteError."""
        ...

    def flush(self) -> object: ...


def _random() -> float:
    """``random.random()``: the module (and its hashing and bisect imports) only for a
    retry's jitter, never at start."""
    import random

    return random.random()


@dataclass(frozen=True)
class DownloadPolicy:
    """How a run behaves; :meth:`from_config` takes the defaults from a :class:`Config`.

    The fields a :class:`Config` has too are the same settings: their defaults are
    Config's (one place), and :meth:`from_config` copies every one of them.
    """

    parallel: int = Config.parallel
    per_host: int = Config.per_host
    #: Further attempts after the first, for transient failures only.
    retry: int = Config.retry
    retry_delay: float = Config.retry_delay
    retry_max_delay: float = Config.retry_max_delay
    #: How each wait is spread so that many clients do not retry in step: ``"equal"``
    #: (half the wait, plus a random part of the other half), ``"full"`` (a random part
    #: of the whole wait) or ``"none"`` (exactly the doubled wait, as curl waits).
    retry_jitter: str = Config.retry_jitter
    #: Retry after any error, not only transient ones (curl's ``--retry-all-errors``).
    retry_all_errors: bool = Config.retry_all_errors
    #: The random source of the jitter, a float in [0, 1) per call: pass
    #: ``random.Random(seed).random`` for waits a test can predict.
    random: Callable[[], float] = dataclasses.field(default=_random, compare=False,
                                                    repr=False)
    stall_timeout: float | None = Config.stall_timeout
    max_time: float | None = Config.max_time
    #: Bytes per second, per transfer.
    limit_rate: float | None = Config.limit_rate
    #: The most bytes one transfer may deliver (after decoding): FileSizeExceeded (63).
    max_filesize: int | None = Config.max_filesize
    #: Continue an existing ``FILE.part``, else a partial ``FILE`` in place (``-C``).
    resume: bool = False
    #: Overwrite an existing target: None (the default) replaces a target the caller
    #: named and keeps one whose name came from the remote side (:mod:`anyurl.downloads.output`).
    clobber: bool | None = None
    #: Create missing directories of target files.
    create_dirs: bool = False
    #: Give a saved file the server's modification time (curl's ``-R``): HTTP
    #: ``Last-Modified``; FTP ``MDTM``, asked for (before ``RETR``) only then.
    remote_time: bool = False

    @classmethod
    def from_config(cls, config: Config, **changes: Any) -> DownloadPolicy:
        """A policy whose limits come from ``config`` (every field both have), changed by
        ``changes``."""
        values: dict[str, Any] = {name: getattr(config, name) for name in _CONFIG_FIELDS}
        values.update(changes)
        return cls(**values)

    def backoff(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (1 for the first).

        The wait doubles from ``retry_delay`` up to ``retry_max_delay``, spread by
        ``retry_jitter``. A server's ``Retry-After`` (``retry_after`` seconds, from a 429
        or 503) is honoured: the wait is at least that long, but never longer than
        ``retry_max_delay``, so a server cannot park a run for a day.
        """
        wait = float(min(self.retry_delay * 2 ** (retry - 1), self.retry_max_delay))
        if self.retry_jitter == "full":
            wait *= self.random()
        elif self.retry_jitter == "equal":
            wait = wait / 2 + wait / 2 * self.random()
        elif self.retry_jitter != "none":
            raise OptionError(f"retry_jitter={self.retry_jitter!r} is not 'equal', 'full' "
                              "or 'none'")
        if retry_after is not None:
            wait = max(wait, min(retry_after, self.retry_max_delay))
        return wait

    def retries(self, error: AnyURLError, url: URL | None) -> bool:
        """Whether ``error`` is worth another attempt: a transient one
        (:func:`is_transient`), or any error at all with ``retry_all_errors`` but those
        of the caller's own making (a URL or option that cannot be used, a target that
        must not be written), which no attempt can change."""
        if self.retry_all_errors:
            return not isinstance(error, URLError | OptionError | FileExists | PolicyRefused
                                  | StreamClosed)
        return is_transient(error, url)


#: The settings a :class:`DownloadPolicy` shares with :class:`Config`: copied by
#: :meth:`DownloadPolicy.from_config`, never listed by hand.
_CONFIG_FIELDS = tuple(sorted({f.name for f in dataclasses.fields(DownloadPolicy)}
                              & {f.name for f in dataclasses.fields(Config)}))


@dataclass
class Job:
    """One URL to fetch: into ``target`` (via ``target.part``), or the sink when None."""

    url: URL | str
    target: Path | None = None
    #: Options for this URL (the downloader sets ``offset`` and ``if_range`` itself).
    options: FetchOptions | None = None
    #: Position in the run, set by :meth:`Downloader.run`.
    index: int = 0
    #: False when the target's name came from the remote side (``-O``): such a name is
    #: never followed through a link and not overwritten by default.
    named_by_user: bool = True
    #: A directory above ``target`` (a mirror's root) below which no symbolic link is
    #: followed, for directories as for files (:mod:`anyurl.downloads.output`).
    tree: Path | None = None
    #: Keep the SHA-256 of a body written whole from memory (a batch's small file
    #: from byte 0): :attr:`TransferResult.sha256`, so the caller need not read the
    #: file back to hash it.
    digest: bool = False
    #: POSIX seconds given to the saved file through its descriptor, before the rename,
    #: when ``remote_time`` gives none (a mirror's listed time); None: the file's own.
    mtime: float | None = None
    #: The SHA-256 (hex) of the file already at ``target`` (a mirror's refresh: the
    #: last fetch's): a body written whole from memory whose digest is this one leaves
    #: that file as it is (given ``mtime``) when it has the body's size, instead of
    #: writing the same bytes again and renaming them over it. Needs ``digest``.
    same_as: str | None = None

    @property
    def shown(self) -> str:
        """The URL with its password masked."""
        return mask(self.url)


@dataclass
class TransferResult:
    """The outcome of one :class:`Job`: ``error`` is None when it succeeded."""

    job: Job
    #: Bytes received in this run (a resumed file holds ``resumed_from`` more).
    bytes: int = 0
    #: Bytes that were already in the ``.part`` file when the run started.
    resumed_from: int = 0
    seconds: float = 0.0
    attempts: int = 0
    error: AnyURLError | None = None
    info: ResourceInfo | None = None
    #: The SHA-256 (hex) of the whole saved file, kept while it was written when the
    #: job asked (:attr:`Job.digest`); None when not kept (a body moved by the kernel
    #: or written in pieces, a resumed file, a retried job).
    sha256: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the job succeeded."""
        return self.error is None

    @property
    def url(self) -> URL | str:
        """The URL the resource came from (after redirects when it was opened)."""
        return self.info.url if self.info is not None else self.job.url

    @property
    def path(self) -> Path | None:
        """The file written, or None for the sink."""
        return self.job.target

    @property
    def exit_code(self) -> int:
        """0 for success, else the error's exit code (curl's numbering)."""
        return 0 if self.error is None else self.error.exit_code

    def to_json(self) -> dict[str, Any]:
        """One line of ``anyurl get --json``: url (masked), status, bytes, seconds, file, error."""
        return {
            "url": self.job.shown,
            "status": "ok" if self.ok else "failed",
            "exit_code": self.exit_code,
            "bytes": self.bytes,
            "resumed_from": self.resumed_from,
            "seconds": round(self.seconds, 3),
            "attempts": self.attempts,
            # Only a file that is there: a failed job wrote nothing under its name.
            "file": os.fsdecode(self.job.target) if self.ok and self.job.target else None,
            "error": None if self.error is None else str(self.error),
        }


class DownloadEvents:
    """What a run reports as it goes; subclass and override what you need (all no-ops).

    The methods run in the event loop, between chunks: keep them quick.
    """

    def opening(self, job: Job) -> None:
        """An attempt of ``job`` is about to open its resource (for a batched job: the
        batch's next item is asked for). Called in the task that opens it, so what the
        handler reports there (``FetchOptions.trace``) is of this job until the next
        ``opening`` in that task (a mirror keeps each URL's dialogue so)."""

    def started(self, job: Job, info: ResourceInfo, have: int) -> None:
        """An attempt of ``job`` opened its resource; ``have`` bytes were already there."""

    def progress(self, job: Job, done: int, total: int | None) -> None:
        """``done`` bytes of ``job`` are written, of ``total`` when known."""

    def retrying(self, job: Job, error: AnyURLError, retry: int, delay: float,
                 resume_at: int) -> None:
        """``job`` failed with ``error``; retry number ``retry`` starts in ``delay`` seconds."""

    def finished(self, result: TransferResult) -> None:
        """``result.job`` is done, for good (succeeded, or failed after its last attempt)."""


def is_transient(error: AnyURLError, url: URL | None = None) -> bool:
    """Whether another attempt may succeed where this one failed.

    An error may decide for itself with a boolean ``transient`` attribute. Otherwise:
    timeouts, lost or refused connections and short transfers are transient; so are the
    statuses the URL's scheme's descriptor calls transient
    (:attr:`~anyurl.registry.spec.SchemeSpec.transient_status`: HTTP 408, 425, 429, 500,
    502, 503, 504 and FTP 4xx replies, RFC 959's "transient negative completion"). A
    name that does not resolve, a refused login, a missing
    file, a failed TLS handshake or certificate, and a stream our own code closed
    (:class:`~anyurl.errors.StreamClosed`) are not.
    """
    flag = getattr(error, "transient", None)
    if isinstance(flag, bool):
        return flag
    if isinstance(error, TLSHandshakeFailed):
        return False
    if isinstance(error, TransferTimeout | ConnectionLost | ConnectFailed | PartialTransfer):
        return True
    if isinstance(error, ServerError) and error.status is not None:
        spec = spec_for(url.scheme) if url is not None else None
        if spec is not None and spec.transient_status is not None:
            return spec.transient_status(error.status)
    return False


@dataclass
class _State:
    """What survives from one attempt of a job to the next."""

    #: The .part file was written by this run (so a retry may continue it).
    part_ours: bool = False
    #: Bytes delivered to the sink so far (a sink retry skips them).
    written: int = 0
    received: int = 0
    resumed_from: int | None = None
    #: The server could not continue where asked: later attempts start from byte 0.
    no_resume: bool = False
    validator: str | None = None
    info: ResourceInfo | None = None
    #: How the target is written, decided before the first connection.
    plan: TargetPlan | None = None
    #: The whole file's SHA-256, when kept as it was written (:attr:`Job.digest`).
    sha256: str | None = None


class _Watch:
    """One cancel scope for an attempt: a fixed ``max_time`` and a moving stall deadline."""

    def __init__(self, job: Job, max_time: float | None, stall: float | None):
        self.job = job
        self.max_time = max_time
        self.stall = stall
        self.hard = float("inf")
        #: None without either limit (the default): nothing to cancel, and no cancel
        #: scope to enter and leave per file (about 5 µs each of a small file's cost).
        self.scope: anyio.CancelScope | None = None
        if max_time is None and stall is None:
            return
        now = anyio.current_time()
        if max_time is not None:
            self.hard = now + max_time
        self.scope = anyio.CancelScope(deadline=self.hard)
        # Moving a deadline costs a timer update in the event loop; on a fast transfer a
        # chunk arrives every few hundred microseconds, so the stall clock is restarted
        # at most this often (a stall is still noticed within 1/10 of its limit).
        self._granularity = min(0.05, stall / 10) if stall is not None else 0.0
        self._last = float("-inf")
        self.touch()

    def touch(self) -> None:
        """A byte arrived (or the transfer was opened): the stall clock starts again."""
        if self.stall is None:
            return
        now = anyio.current_time()
        if now - self._last < self._granularity:
            return
        self._last = now
        assert self.scope is not None
        self.scope.deadline = min(self.hard, now + self.stall)

    def __enter__(self) -> _Watch:
        if self.scope is not None:
            self.scope.__enter__()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self.scope is None:
            return
        self.scope.__exit__(*exc_info)
        if self.scope.cancelled_caught:
            if anyio.current_time() >= self.hard:
                raise TransferTimeout(
                    f"{self.job.shown} took longer than the time limit of "
                    f"{self.max_time:g} seconds", hint="Raise max_time if it needs longer.",
                    remedy=("max_time",))
            raise TransferTimeout(
                f"{self.job.shown} stalled: no byte arrived for {self.stall:g} seconds",
                hint="Raise stall_timeout if the server is merely slow.",
                remedy=("stall_timeout",))


class _Pace:
    """``limit_rate``: sleep after each chunk until the average rate is back under the cap.

    ``clock`` and ``sleep`` are the event loop's (a test gives a virtual clock)."""

    def __init__(self, rate: float | None, *,
                 clock: Callable[[], float] = anyio.current_time,
                 sleep: Callable[[float], Awaitable[None]] = anyio.sleep):
        self.rate = rate
        self.clock = clock
        self.sleep = sleep
        self.start = clock()
        self.count = 0

    async def __call__(self, n: int) -> None:
        if not self.rate:
            return
        self.count += n
        ahead = self.count / self.rate - (self.clock() - self.start)
        if ahead > 0:
            await self.sleep(ahead)


#: Bytes of write buffers one run may hold at once, shared by its parallel transfers.
WRITE_BUFFER_BUDGET = 16 << 20


class _PartWriter:
    """The ``.part`` file, written in batches: one worker-thread call per ``BATCH`` bytes.

    A thread hop per network chunk (``anyio.open_file``) cost more than the transfer
    itself: 5.9 s of CPU for 1 GiB from nginx, against 2.4 s for the same bytes to
    stdout. Chunks are copied into one reused buffer (holding on to the chunks instead
    made glibc hand their memory back and fault it in again: 250,000 page faults per
    GiB), and the full buffer goes to disk in a worker thread, so disk waits stay off
    the event loop. Closing writes what is pending: after any failure the file holds
    every byte received, which is what a resume counts on.

    The buffer is what a transfer costs in memory, so it is sized to what is needed:
    never more than the body's announced size, and never more than the run's budget
    (:data:`WRITE_BUFFER_BUDGET`) shared among its parallel transfers, so ``-Z 400`` of
    small files does not hold 400 buffers of 4 MiB.
    """

    BATCH = 4 << 20
    #: The smallest batch: below this the thread hops cost more than they save.
    MIN_BATCH = 64 << 10
    #: A slow transfer still reaches the disk this often (someone may be watching it grow).
    INTERVAL = 0.5

    def __init__(self, fd: int, capacity: int = BATCH, *, inline: bool = False):
        self._fd = fd
        self._capacity = max(1, capacity)
        #: Write in the event loop's thread: for a small body one ``write`` to the page
        #: cache costs microseconds, a worker-thread hop ten times that.
        self._inline = inline
        self._buffer: memoryview | None = None  # allocated on the first write
        self._used = 0
        self._flushed = anyio.current_time()

    @classmethod
    def capacity_for(cls, size: int | None, parallel: int) -> int:
        """The batch for a body of ``size`` bytes (None: unknown) among ``parallel``."""
        share = max(cls.MIN_BATCH, min(cls.BATCH, WRITE_BUFFER_BUDGET // max(1, parallel)))
        return share if size is None else max(1, min(share, size))

    async def write(self, chunk: bytes) -> None:
        size = len(chunk)
        if self._used + size > self._capacity:
            await self.flush()
        if size >= self._capacity:
            await self._write(memoryview(chunk))
            return
        if self._buffer is None:
            self._buffer = memoryview(bytearray(self._capacity))
        self._buffer[self._used : self._used + size] = chunk
        self._used += size
        if anyio.current_time() - self._flushed >= self.INTERVAL:
            await self.flush()

    async def flush(self) -> None:
        self._flushed = anyio.current_time()
        if self._used and self._buffer is not None:
            pending, self._used = self._buffer[: self._used], 0
            await self._write(pending)

    async def _write(self, data: memoryview) -> None:
        if self._inline:
            _write_all(self._fd, data)
        else:
            await anyio.to_thread.run_sync(_write_all, self._fd, data)

    def fileno(self) -> int:
        """The file's descriptor (flush first: bytes may wait in the buffer)."""
        return self._fd

    #: POSIX seconds given to the file once its last bytes are written (``remote_time``).
    mtime: float | None = None

    async def aclose(self) -> None:
        try:
            await self.flush()
            if self.mtime is not None:  # by descriptor: no name, no link is followed
                _set_time(self._fd, self.mtime)
        finally:
            os.close(self._fd)


def _set_time(fd: int, mtime: float) -> None:
    """Give the file ``fd`` the modification (and access) time ``mtime``; a time the
    file system cannot hold leaves it its own."""
    try:
        os.utime(fd, (mtime, mtime))
    except (OverflowError, ValueError):
        pass


def _time_asked_first(url: URL) -> bool:
    """Whether ``-R`` asks ``url``'s time before its transfer (its descriptor says so)."""
    spec = spec_for(url.scheme)
    return spec is not None and spec.time_asked_first


def _not_continued(job: Job, path: Path, offset: int, kept: int) -> ResumeFailed:
    """The server did not send the bytes after a partial file being continued in place."""
    sent = "the whole resource" if kept == 0 else f"bytes from {kept}"
    return ResumeFailed(
        f"{job.shown} cannot be continued: the server sent {sent}, not the bytes after "
        f"the {offset} already in {str(path)!r}, which is left as it was",
        url=job.shown,
        hint="Remove the file (or pass clobber=True without resume) to fetch it whole.",
        remedy=("continue_whole", str(path)))


def _write_error(part: Path, exc: OSError) -> LocalWriteError:
    return LocalWriteError(f"cannot write {str(part)!r}: {exc.strerror or exc}")


def _write_all(fd: int, data: memoryview) -> None:
    while data:
        data = data[os.write(fd, data) :]


class _Claims(dict[str, int]):
    """The targets of one run, by absolute path, each with the job writing it."""

    cwd: str | None = None

    def key(self, target: Path) -> str:
        """``os.path.abspath(target)``, the working directory asked once per run (a
        ``getcwd`` call per file otherwise, for a mirror's relative tree)."""
        if self.cwd is None:
            self.cwd = os.getcwd()
        return os.path.normpath(os.path.join(self.cwd, target))


class Downloader:
    """Runs jobs through a resolver (an :class:`Opener`) under a :class:`DownloadPolicy`.

    ::

        async with Resolver() as resolver:
            downloader = Downloader(resolver, DownloadPolicy(parallel=8, retry=3))
            for result in await downloader.run([Job(url, Path(name)) for url, name in pairs]):
                print(result.to_json())

    ``sink`` receives the bytes of jobs without a target (a binary file object such as
    ``sys.stdout.buffer``). Nothing is raised for a failed job: each
    :class:`TransferResult` carries its error. Cancelling the run (a cancel scope,
    Ctrl-C) stops every transfer, closes its connection and leaves its ``.part``.
    """

    def __init__(
        self,
        resolver: Opener,
        policy: DownloadPolicy | None = None,
        *,
        events: DownloadEvents | None = None,
        sink: Sink | None = None,
    ):
        self.resolver = resolver
        self.policy = policy or DownloadPolicy.from_config(resolver.config)
        self.events = events or DownloadEvents()
        self.sink = sink
        # Made on first use: anyio's primitives need the running event loop, and a
        # downloader may be built before it starts (it then stays in that loop).
        self._global_slots: anyio.Semaphore | None = None
        self._hosts: dict[str, anyio.Semaphore] = {}
        #: Target directories found writable in this run (``plan_target``'s ``checked``).
        self._checked_dirs: set[tuple[Path, bool]] = set()

    async def run(self, jobs: Iterable[Job]) -> list[TransferResult]:
        """Run every job; the results come back in the order of ``jobs``."""
        job_list = list(jobs)
        results: list[TransferResult | None] = [None] * len(job_list)
        claimed = _Claims()
        previous_sink: anyio.Event | None = None

        # Tasks are started as slots free up, not all at once: a list of a million URLs
        # holds a window of tasks, not a million coroutines. The window is wide enough
        # that jobs waiting for a busy host do not keep the other hosts' jobs waiting.
        # It is refilled in batches, when half of it is free: waking the loop below for
        # each finished job cost a scheduling pass per URL.
        window = max(64, 8 * self.policy.parallel)
        running = 0
        half_free = anyio.Event()
        batches = _Batches(self)
        # Consecutive sink jobs of one host with equal options: one batch in the chain.
        sink_run: list[tuple[Job, URL]] = []
        sink_key: tuple[int, str, int | None] | None = None
        sink_handler: Any = None

        async def one(i: int, job: Job, after: anyio.Event | None,
                      done: anyio.Event | None) -> None:
            nonlocal running
            try:
                if after is not None:
                    await after.wait()
                results[i] = await self.transfer(job)
            finally:
                running -= 1
                if running <= window // 2:
                    half_free.set()
                if done is not None:
                    done.set()

        async with anyio.create_task_group() as tg:
            for i, job in enumerate(job_list):
                if running >= window:
                    half_free = anyio.Event()
                    await half_free.wait()
                job.index = i
                if job.target is not None:
                    key = claimed.key(job.target)
                    if key in claimed:
                        error = FileExists(
                            f"{str(job.target)!r} is also where URL {claimed[key] + 1} of this "
                            f"run goes; not writing {job.shown} there too",
                            hint="Give the URLs different names with -o, or separate runs.")
                        refused = TransferResult(job, error=error)
                        results[i] = refused
                        self.events.finished(refused)
                        continue
                    claimed[key] = i
                    if batches.take(job):
                        continue
                    running += 1
                    tg.start_soon(one, i, job, None, None)
                else:
                    found = batches.qualify(job)
                    if found is not None and sink_run and found[0] == sink_key and \
                            sink_run[0][0].options == job.options:
                        sink_run.append((job, found[1]))
                        continue
                    if sink_run:  # the run of batched sink jobs ends here
                        previous_sink = batches.start_sink(tg, sink_handler, sink_run,
                                                           previous_sink, results)
                        sink_run = []
                    if found is not None:
                        sink_key, sink_handler = found[0], found[2]
                        sink_run = [(job, found[1])]
                        continue
                    done = anyio.Event()
                    running += 1
                    tg.start_soon(one, i, job, previous_sink, done)
                    previous_sink = done
            if sink_run:
                batches.start_sink(tg, sink_handler, sink_run, previous_sink, results)
            batches.start(tg, results)
        return [r for r in results if r is not None]

    async def transfer(self, job: Job) -> TransferResult:
        """Run one job to its end, with retries; never raises an :class:`AnyURLError`."""
        started = time.monotonic()
        state = _State()
        attempts = 0
        url: URL | None = None
        error: AnyURLError | None = None
        while True:
            attempts += 1
            try:
                if url is None:  # the text is parsed once per transfer, not per attempt
                    url = self.resolver.parse(job.url)
                await self._attempt_in_slots(job, url, state, attempts)
                error = None
                break
            except AnyURLError as exc:
                error = exc
                if isinstance(exc, ResumeFailed) and (state.part_ours or job.target is None):
                    state.no_resume = True  # our own resume failed: ask from byte 0 next time
                elif not self.policy.retries(exc, url):
                    break
                if attempts > self.policy.retry:
                    break
                delay = self.policy.backoff(attempts, exc.retry_after)
                self.events.retrying(job, exc, attempts, delay, self._resume_point(job, state))
                await anyio.sleep(delay)
        if error is not None:
            _drop_frames(error)
        result = TransferResult(
            job,
            bytes=state.received,
            resumed_from=state.resumed_from or 0,
            seconds=time.monotonic() - started,
            attempts=attempts,
            error=error,
            info=state.info,
        )
        self.events.finished(result)
        return result

    # -- batched jobs (see _Batches) ------------------------------------------------

    def _finish(self, job: Job, state: _State, error: AnyURLError | None, started: float,
                attempts: int, results: list[TransferResult | None]) -> TransferResult:
        """The result of a batched job, reported and stored at its place."""
        if error is not None:
            _drop_frames(error)
        result = TransferResult(job, bytes=state.received, resumed_from=state.resumed_from or 0,
                                seconds=time.monotonic() - started, attempts=attempts,
                                error=error, info=state.info,
                                sha256=state.sha256 if error is None else None)
        self.events.finished(result)
        results[job.index] = result
        return result

    async def _retry(self, job: Job, url: URL, state: _State, error: AnyURLError,
                     started: float, *, in_slots: bool = True) -> TransferResult:
        """A batched job that failed (or could not be batched) continues as
        :meth:`transfer` would: retried after a backoff, resumed from its ``.part``."""
        attempts = 1
        if error is _NOT_BATCHED:
            attempts, error_or_none = 0, None
        else:
            error_or_none = error
        while True:
            if error_or_none is not None:
                if isinstance(error_or_none, ResumeFailed) and state.part_ours:
                    state.no_resume = True
                elif (not self.policy.retries(error_or_none, url)
                      or attempts > self.policy.retry):
                    break
                delay = self.policy.backoff(attempts, error_or_none.retry_after)
                self.events.retrying(job, error_or_none, attempts, delay,
                                     self._resume_point(job, state))
                await anyio.sleep(delay)
            attempts += 1
            try:
                if in_slots:
                    await self._attempt_in_slots(job, url, state, attempts)
                else:  # the caller holds the host's slot and a global one
                    await self._attempt(job, url, state, attempts)
                error_or_none = None
                break
            except AnyURLError as exc:
                error_or_none = exc
        results: list[TransferResult | None] = [None] * (job.index + 1)
        return self._finish(job, state, error_or_none, started, attempts, results)

    async def _write_batched(self, job: Job, state: _State, res: Resource,
                             watch: _Watch) -> None:
        """A batch's resource into the job's ``.part``, renamed when complete: what
        :meth:`_attempt_to_file` does after opening, for a job that starts at byte 0."""
        policy = self.policy
        plan = self._plan(job, state, policy)
        part = plan.part
        state.resumed_from = 0
        state.sha256 = None
        try:
            watch.touch()
            info = res.info
            kept = self._opened(job, info, 0, state)
            total = _total(info, kept)
            limit = _SizeLimit(job, policy.max_filesize, total)
            self.events.started(job, info, kept)
            whole = res.take_whole()
            if whole is not None and self._same_whole(job, info, whole, plan, state, total):
                return  # the file there already holds these bytes
            if whole is not None:  # a small body in memory: one open, write and close
                digest = self._save_whole(job, info, whole, plan, state, kept, total,
                                          limit, watch.touch)
                finish_part(plan)
                state.sha256 = digest
                return
            try:
                small = info.size is not None and info.size <= _PartWriter.MIN_BATCH
                if small:
                    fd = open_part(part, kept, plan.tree)
                else:
                    fd = await anyio.to_thread.run_sync(open_part, part, kept, plan.tree)
                f = _PartWriter(fd, _PartWriter.capacity_for(info.size, policy.parallel),
                                inline=small)
            except OSError as exc:
                raise _write_error(part, exc) from exc
            state.part_ours = True
            capped = limit.limit is not None
            try:
                if _can_move(res, None, capped, total):
                    await f.flush()
                    await self._move(job, res, f.fileno(), state, kept, total, watch.touch,
                                     part=part)
                else:
                    await self._write_chunks(job, res, f, part, state, kept, total,
                                             limit if capped else None, None, watch.touch)
                f.mtime = remote_time(info) if policy.remote_time else job.mtime
            finally:
                with anyio.CancelScope(shield=True):
                    try:
                        await f.aclose()
                    except OSError as exc:
                        raise _write_error(part, exc) from exc
        finally:
            if not res.close_now():
                with anyio.CancelScope(shield=True):
                    await res.aclose()
        finish_part(plan)

    def _same_whole(self, job: Job, info: ResourceInfo, data: bytes, plan: TargetPlan,
                    state: _State, total: int | None) -> bool:
        """Whether a body in memory is the file already at the target
        (:attr:`Job.same_as`): then that file stays (given its time) and the job
        succeeds as if written, with the digest kept (:attr:`TransferResult.sha256`)."""
        if job.same_as is None or not job.digest:
            return False
        import hashlib  # a mirror's only: the downloader alone does not hash

        digest = hashlib.sha256(data).hexdigest()
        if digest != job.same_as or (self.policy.max_filesize is not None
                                     and len(data) > self.policy.max_filesize):
            return False
        mtime = remote_time(info) if self.policy.remote_time else job.mtime
        if not same_size_file(plan, len(data), mtime):
            return False
        state.received += len(data)
        state.sha256 = digest
        self.events.progress(job, len(data), total)
        return True

    def _save_whole(self, job: Job, info: ResourceInfo, data: bytes, plan: TargetPlan,
                    state: _State, kept: int, total: int | None, limit: _SizeLimit,
                    touch: Callable[[], None]) -> str | None:
        """A body already in memory (:meth:`Resource.take_whole`) into the job's
        ``.part``: what the :class:`_PartWriter` and :meth:`_write_chunks` do for one
        chunk, without their buffer, clock or shielded close. Returns the file's
        SHA-256 when the job asked (:attr:`Job.digest`) and the body is all of it."""
        part = plan.part
        try:
            fd = open_part(part, kept, plan.tree)
        except OSError as exc:
            raise _write_error(part, exc) from exc
        state.part_ours = True
        try:
            if data:
                n = len(data)
                if limit.limit is not None:
                    limit.check(n)
                try:
                    _write_all(fd, memoryview(data))
                except OSError as exc:
                    raise _write_error(part, exc) from exc
                state.received += n
                self.events.progress(job, n, total)
                touch()
            mtime = remote_time(info) if self.policy.remote_time else job.mtime
            if mtime is not None:  # by descriptor: no name, no link is followed
                try:
                    _set_time(fd, mtime)
                except OSError as exc:
                    raise _write_error(part, exc) from exc
        finally:
            try:
                os.close(fd)
            except OSError as exc:
                raise _write_error(part, exc) from exc
        if not job.digest or kept:
            return None
        import hashlib  # a mirror's only: the downloader alone does not hash

        return hashlib.sha256(data).hexdigest()

    async def _write_batched_to_sink(self, job: Job, state: _State, res: Resource,
                                     watch: _Watch) -> None:
        """A batch's resource to the sink: what :meth:`_attempt_to_sink` does after
        opening, for a job at its first attempt."""
        sink = self.sink
        state.resumed_from = 0
        try:
            if sink is None:
                raise LocalWriteError(f"no file and no output stream for {job.shown}")
            watch.touch()
            info = res.info
            kept = self._opened(job, info, 0, state)
            total = _total(info, kept)
            limit = _SizeLimit(job, self.policy.max_filesize, total)
            self.events.started(job, info, 0)
            capped = limit.limit is not None
            sink_fd = _sink_fd(sink) if _can_move(res, None, capped, total) else None
            if sink_fd is not None:
                await self._move_to_sink(job, res, sink, sink_fd, state, 0, total,
                                         watch.touch)
                return
            progress = self.events.progress
            touch = watch.touch

            def put(chunk: bytes) -> None:
                n = len(chunk)
                state.received += n
                if capped:
                    limit.check(state.received)
                _write_to_sink(sink, job, chunk)
                state.written += n
                progress(job, state.written, total)
                touch()

            whole = res.take_whole()  # a small body in memory: no iterator
            if whole is None:
                async for chunk in res:
                    put(chunk)
            elif whole:
                put(whole)
            _write_to_sink(sink, job, None)
        finally:
            if not res.close_now():  # a body in memory: no shielded scope per file
                with anyio.CancelScope(shield=True):
                    await res.aclose()

    # -- one attempt ---------------------------------------------------------------

    def _host_slot(self, url: URL) -> anyio.Semaphore | None:
        if not url.host:
            return None  # file:, news: via the configured server ... no host to spare
        key = url.host.lower()
        slot = self._hosts.get(key)
        if slot is None:
            slot = self._hosts[key] = anyio.Semaphore(max(1, self.policy.per_host))
        return slot

    async def _attempt_in_slots(self, job: Job, url: URL, state: _State, attempt: int) -> None:
        if self._global_slots is None:
            self._global_slots = anyio.Semaphore(max(1, self.policy.parallel))
        host_slot = self._host_slot(url)
        if host_slot is None:
            async with self._global_slots:
                await self._attempt(job, url, state, attempt)
        else:  # the host's slot first: a job queued for a busy host holds no global slot
            async with host_slot, self._global_slots:
                await self._attempt(job, url, state, attempt)

    def _options(self, job: Job, offset: int, state: _State) -> FetchOptions:
        options = job.options
        if_range = state.validator if offset else None
        if options is not None and options.offset == offset and options.if_range == if_range:
            return options  # nothing to change: no copy per attempt
        options = dataclasses.replace(options) if options else FetchOptions()
        options.offset = offset
        options.if_range = if_range
        return options

    def _plan(self, job: Job, state: _State, policy: DownloadPolicy) -> TargetPlan:
        if state.plan is None:
            assert job.target is not None
            state.plan = plan_target(job.target, named_by_user=job.named_by_user,
                                     clobber=policy.clobber, resume=policy.resume,
                                     create_dirs=policy.create_dirs, tree=job.tree,
                                     checked=self._checked_dirs)
        return state.plan

    def _part_size(self, job: Job, state: _State) -> int:
        plan = self._plan(job, state, self.policy)
        if plan.placement is Placement.IN_PLACE:
            return 0  # a device or FIFO: nothing to continue
        if plan.placement is Placement.CONTINUE:
            return part_size(plan.path)  # the user's partial file itself (-C)
        return part_size(plan.part, plan.tree)

    def _resume_point(self, job: Job, state: _State) -> int:
        """Where the next attempt of ``job`` asks the server to start."""
        if state.no_resume:
            return 0
        if job.target is None:
            return state.written
        return self._part_size(job, state) if self.policy.resume or state.part_ours else 0

    async def _attempt(self, job: Job, url: URL, state: _State, attempt: int) -> None:
        self.events.opening(job)
        if job.target is None:
            await self._attempt_to_sink(job, url, state)
        else:
            await self._attempt_to_file(job, job.target, url, state, attempt)

    async def _attempt_to_file(
        self, job: Job, target: Path, url: URL, state: _State, attempt: int
    ) -> None:
        policy = self.policy
        plan = self._plan(job, state, policy)  # before connecting: refusals cost nothing
        in_place = plan.placement is Placement.IN_PLACE
        # -C on a final FILE without FILE.part: appended in place, never renamed over.
        continuing = plan.placement is Placement.CONTINUE
        part = plan.path if in_place or continuing else plan.part
        offset = self._resume_point(job, state)
        if state.resumed_from is None:
            state.resumed_from = offset
        asked_time = None
        if policy.remote_time and not in_place and _time_asked_first(url):
            asked_time = await self._asked_time(job, url)
        with _Watch(job, policy.max_time, policy.stall_timeout) as watch:
            async with self.resolver.open(url, self._options(job, offset, state)) as res:
                watch.touch()
                info = res.info
                kept = self._opened(job, info, offset, state)
                if continuing and kept != offset:
                    # Nothing is written: the user's file is only ever appended to
                    # with the bytes that follow it.
                    raise _not_continued(job, plan.path, offset, kept)
                total = _total(info, kept)
                limit = _SizeLimit(job, policy.max_filesize, total)
                self.events.started(job, info, kept)
                try:
                    capacity = _PartWriter.capacity_for(info.size, policy.parallel)
                    # A small regular file is opened and written without thread hops
                    # (they were most of the cost of -Z 200 of 16 KiB files); a device
                    # or FIFO may block, and a large body's batches wait on the disk.
                    small = (not in_place and info.size is not None
                             and info.size <= _PartWriter.MIN_BATCH)
                    if in_place:
                        fd = await anyio.to_thread.run_sync(open_in_place, part)
                    elif small:
                        fd = open_part(part, kept, plan.tree)
                    else:
                        fd = await anyio.to_thread.run_sync(open_part, part, kept, plan.tree)
                    f = _PartWriter(fd, capacity, inline=small)
                except OSError as exc:
                    raise _write_error(part, exc) from exc
                # A continued final file is the user's, not ours: a failed resume of it
                # never makes a retry start over from byte 0 (which would truncate it).
                state.part_ours = not continuing
                done = kept
                pace = _Pace(policy.limit_rate) if policy.limit_rate else None
                capped = limit.limit is not None
                touch = watch.touch
                try:
                    if _can_move(res, pace, capped, total):
                        # The kernel moves the body into the file (anyurl.net.bulk).
                        await f.flush()
                        await self._move(job, res, f.fileno(), state, done, total, touch,
                                         part=part)
                    else:
                        await self._write_chunks(job, res, f, part, state, done, total,
                                                 limit if capped else None, pace, touch)
                    if policy.remote_time and not in_place:
                        f.mtime = remote_time(info) if asked_time is None else asked_time
                    elif not in_place:
                        f.mtime = job.mtime
                finally:
                    with anyio.CancelScope(shield=True):
                        try:
                            await f.aclose()
                        except OSError as exc:
                            raise _write_error(part, exc) from exc
        if not (in_place or continuing):
            finish_part(plan)

    async def _write_chunks(
        self, job: Job, res: Resource, f: _PartWriter, part: Path, state: _State, done: int,
        total: int | None, limit: _SizeLimit | None, pace: _Pace | None,
        touch: Callable[[], None],
    ) -> None:
        """``res`` chunk by chunk into ``f``. The loop runs once per network chunk
        (thousands per GiB): checks that are off (no size limit, no rate limit) cost
        nothing here."""
        progress = self.events.progress
        async for chunk in res:
            n = len(chunk)
            if limit is not None:
                limit.check(done + n)
            try:  # only the write: a read's TransferTimeout is a TimeoutError
                await f.write(chunk)
            except OSError as exc:
                raise _write_error(part, exc) from exc
            done += n
            state.received += n
            progress(job, done, total)
            touch()
            if pace is not None:
                await pace(n)
                touch()

    async def _move_to_sink(self, job: Job, res: Resource, sink: Sink, fd: int,
                            state: _State, start: int, total: int | None,
                            touch: Callable[[], None]) -> None:
        """:meth:`_move` into the output; a write error there marks the output broken
        (a closed pipe: the next jobs do not write to it)."""
        try:
            await self._move(job, res, fd, state, start, total, touch, part=None)
        except LocalWriteError:
            broken = getattr(sink, "broken", None)
            if broken is not None:
                broken()
            raise

    async def _move(self, job: Job, res: Resource, fd: int, state: _State, start: int,
                    total: int | None, touch: Callable[[], None],
                    part: Path | None) -> int:
        """``res``'s raw body to ``fd`` by the kernel; its bytes. Progress, stall clock
        and counts as the chunk loops keep them; an error of the target is a write error
        (of ``part``, or of the output), an error of the network stays the network's."""
        received, written = state.received, state.written
        progress = self.events.progress

        def moved(n: int) -> None:
            state.received = received + n
            state.written = written + n
            progress(job, start + n, total)
            touch()

        try:
            return await res.copy_to(fd, moved)
        except AnyURLError:
            raise  # the network's (a timeout is also an OSError: not a write error)
        except OSError as exc:
            if part is not None:
                raise _write_error(part, exc) from exc
            raise LocalWriteError(
                f"cannot write {job.shown} to the output: {exc.strerror or exc}") from exc

    async def _asked_time(self, job: Job, url: URL) -> float | None:
        """``remote_time`` for a scheme that asks it first (FTP's ``MDTM``, on the control
        connection the transfer then reuses, as curl's ``-R`` asks it before ``RETR``):
        a request for the facts alone, as its descriptor makes one (``head``); None when
        it has none, or the server does not say or refuses (the transfer then says what
        is wrong)."""
        spec = spec_for(url.scheme)
        if spec is None or spec.head is None:
            return None
        options = job.options or FetchOptions()
        head = dataclasses.replace(options, schemes=spec.head(options.schemes), offset=0,
                                   if_range=None, byte_range=None)
        try:
            async with self.resolver.open(url, head) as res:
                return remote_time(res.info)
        except AnyURLError:
            return None

    @staticmethod
    def _opened(job: Job, info: ResourceInfo, offset: int, state: _State) -> int:
        """Where the server started (0 unless it honoured ``offset``); remembered for
        the next attempt together with the validator a resume must send."""
        kept = info.offset if offset else 0
        if kept > offset:
            raise ProtocolError(
                f"{job.shown} resumed at byte {kept}, beyond the {offset} bytes asked for")
        state.info = info
        state.validator = info.validator or (state.validator if kept else None)
        return kept

    async def _attempt_to_sink(self, job: Job, url: URL, state: _State) -> None:
        sink = self.sink
        if sink is None:
            raise LocalWriteError(f"no file and no output stream for {job.shown}")
        offset = self._resume_point(job, state)
        if state.resumed_from is None:
            state.resumed_from = 0
        with _Watch(job, self.policy.max_time, self.policy.stall_timeout) as watch:
            async with self.resolver.open(url, self._options(job, offset, state)) as res:
                watch.touch()
                info = res.info
                kept = self._opened(job, info, offset, state)
                # The server started before what was already sent: drop those bytes.
                skip = state.written - kept
                total = _total(info, kept)
                limit = _SizeLimit(job, self.policy.max_filesize, total)
                self.events.started(job, info, offset)
                pace = _Pace(self.policy.limit_rate) if self.policy.limit_rate else None
                capped = limit.limit is not None
                progress = self.events.progress
                touch = watch.touch
                position = kept  # where this attempt's bytes are in the resource
                sink_fd = _sink_fd(sink) if not skip and _can_move(
                    res, pace, capped, total) else None
                if sink_fd is not None:
                    # The kernel moves the body to the output (anyurl.net.bulk).
                    await self._move_to_sink(job, res, sink, sink_fd, state, state.written,
                                             total, touch)
                    return
                # The loop runs once per network chunk (thousands per GiB): checks that
                # are off (no size limit, no rate limit) cost nothing here.
                async for chunk in res:
                    n = len(chunk)
                    position += n
                    if capped:
                        limit.check(position)
                    state.received += n
                    if skip:
                        dropped = min(skip, n)
                        skip -= dropped
                        chunk = chunk[dropped:]
                    if chunk:
                        _write_to_sink(sink, job, chunk)
                        state.written += len(chunk)
                    progress(job, state.written, total)
                    touch()
                    if pace is not None:
                        await pace(n)
                        touch()
                _write_to_sink(sink, job, None)



# -- batches per host (issue 21) -----------------------------------------------------------

#: The most jobs of one host handed to its handler in one ``open_batch`` call: a lane
#: holds its slots for a batch, so a long list is cut where other work may interleave.
BATCH_SIZE = 256
#: A host's jobs go over ``per_host`` lanes (connections) at most, one per this many.
JOBS_PER_LANE = 8


class _Batches:
    """The jobs of a run that go to their handler as batches (``open_batch``).

    A job qualifies when it writes a regular file (the sink's jobs, which must come out in
    order, are batched apart: consecutive ones of one host), its handler batches
    (:attr:`SchemeHandler.batches`: HTTP and NNTP pipeline, FTP goes file after file on one
    positioned control connection) and the run does not resume (``-C``; a tree's jobs, a
    mirror's, do: one whose ``.part`` holds bytes leaves its batch to be continued) or cap
    rates, nor asks an ftp file's ``MDTM`` first (``-R``); everything else runs as one task
    per job, as before. A host's jobs are cut into batches of consecutive jobs with equal
    options and taken by up to ``per_host`` lanes, each lane holding the host's slot and a
    global one while its batch runs: one connection each. Per job nothing changes: the target is
    planned before the first byte, written as ``.part`` and renamed, its events and result
    are its own, and a transient failure is retried (resumed) by
    :meth:`Downloader._attempt_in_slots` as any job's is.
    """

    def __init__(self, downloader: Downloader):
        self.downloader = downloader
        resolver = downloader.resolver
        policy = downloader.policy
        defaults = getattr(resolver, "defaults", None)
        self.admit: Callable[[URL | str], URL] | None = getattr(resolver, "admit", None)
        self.handler_for: Callable[[URL], Any] | None = getattr(resolver, "handler_for", None)
        self.enabled = (self.admit is not None and self.handler_for is not None
                        and (defaults is None or getattr(defaults, "empty", False))
                        and not policy.limit_rate)
        #: A resuming run batches a tree's jobs only (a mirror's): their ``.part`` is
        #: looked at before the batch, where ``-C`` of a user's file is not batched.
        self.resume = policy.resume
        self.groups: dict[tuple[int, str, int | None], list[tuple[Job, URL]]] = {}

    def qualify(self, job: Job) -> tuple[tuple[int, str, int | None], URL, Any] | None:
        """(host key, admitted URL, handler) of a job whose handler batches, else None."""
        if not self.enabled or self.resume:
            return None
        assert self.admit is not None and self.handler_for is not None
        try:
            url = self.admit(job.url)
            handler = self.handler_for(url)
        except AnyURLError:
            return None  # the job's own task reports it
        options = job.options
        if (not getattr(handler, "batches", False) or not url.host
                or (options is not None and (options.offset or options.if_range))):
            return None
        return (id(handler), url.host.lower(), url.port), url, handler

    def take(self, job: Job) -> bool:
        """Keep ``job`` for a batch if it qualifies (then it is this class's to run)."""
        if not self.enabled or job.target is None or (self.resume and job.tree is None):
            return False
        assert self.admit is not None and self.handler_for is not None
        try:
            url = self.admit(job.url)
            handler = self.handler_for(url)
        except AnyURLError:
            return False  # the job's own task reports it
        if not getattr(handler, "batches", False) or not url.host:
            return False
        if self.downloader.policy.remote_time and _time_asked_first(url):
            return False  # -R asks the time first (Downloader._asked_time): one at a time
        options = job.options
        if options is not None and (options.offset or options.if_range):
            return False
        key = (id(handler), url.host.lower(), url.port)
        self.groups.setdefault(key, []).append((job, url))
        return True

    def start_sink(self, tg: anyio.abc.TaskGroup, handler: Any, items: list[tuple[Job, URL]],
                   after: anyio.Event | None, results: list[TransferResult | None],
                   ) -> anyio.Event:
        """Start a run of sink jobs after ``after``; the event set when it is done. A
        single job runs as it would unbatched (a batch of one saves nothing)."""
        done = anyio.Event()
        if len(items) == 1:
            tg.start_soon(self._single, items[0][0], after, done, results)
        else:
            tg.start_soon(self.sink_run, handler, items, after, done, results)
        return done

    async def _single(self, job: Job, after: anyio.Event | None, done: anyio.Event | None,
                      results: list[TransferResult | None]) -> None:
        try:
            if after is not None:
                await after.wait()
            results[job.index] = await self.downloader.transfer(job)
        finally:
            if done is not None:
                done.set()

    def start(self, tg: anyio.abc.TaskGroup, results: list[TransferResult | None]) -> None:
        """Start the lanes of every host (a host of one job: that job's own task)."""
        for jobs in self.groups.values():
            if len(jobs) == 1:
                tg.start_soon(self._single, jobs[0][0], None, None, results)
                continue
            handler = self.handler_for(jobs[0][1]) if self.handler_for else None
            chunks: list[list[tuple[Job, URL]]] = []
            for job, url in jobs:
                last = chunks[-1] if chunks else None
                if (last is None or len(last) >= BATCH_SIZE
                        or last[0][0].options != job.options):
                    chunks.append([])
                chunks[-1].append((job, url))
            lanes = max(1, min(self.downloader.policy.per_host,
                               -(-len(jobs) // JOBS_PER_LANE)))
            # Cut so that every lane has work: a short list goes in equal parts.
            if len(chunks) < lanes:
                size = -(-len(jobs) // lanes)
                chunks = [part[k:k + size] for part in chunks for k in range(0, len(part), size)]
            queue = list(reversed(chunks))
            for _ in range(min(lanes, len(queue))):
                tg.start_soon(self._lane, handler, queue, results)
        self.groups = {}

    async def sink_run(self, handler: Any, items: list[tuple[Job, URL]],
                       after: anyio.Event | None, done: anyio.Event,
                       results: list[TransferResult | None]) -> None:
        """Consecutive jobs to the sink, one host's, as one batch in the sink's order:
        a transient failure is retried before the next job writes a byte."""
        downloader = self.downloader
        policy = downloader.policy
        try:
            if after is not None:
                await after.wait()
            slot = downloader._host_slot(items[0][1])
            if downloader._global_slots is None:
                downloader._global_slots = anyio.Semaphore(max(1, policy.parallel))
            assert slot is not None
            options = items[0][0].options or FetchOptions()
            pos = 0
            async with slot, downloader._global_slots, \
                    _spare(slot, handler, policy.per_host) as extra:
                if extra:
                    options = dataclasses.replace(options, connections=1 + extra)
                while pos < len(items):
                    batch = handler.open_batch([url for _, url in items[pos:]], options)
                    try:
                        while pos < len(items):
                            job, url = items[pos]
                            pos += 1
                            state = _State()
                            started = time.monotonic()
                            try:
                                with _Watch(job, policy.max_time, policy.stall_timeout) as w:
                                    downloader.events.opening(job)
                                    _url, outcome = await batch.__anext__()
                                    if isinstance(outcome, AnyURLError):
                                        raise outcome
                                    await downloader._write_batched_to_sink(job, state,
                                                                            outcome, w)
                            except AnyURLError as exc:
                                if policy.retries(exc, url) and policy.retry > 0:
                                    # In order: retried here, on a connection of its own.
                                    results[job.index] = await downloader._retry(
                                        job, url, state, exc, started, in_slots=False)
                                    break  # a new batch for the rest
                                downloader._finish(job, state, exc, started, 1, results)
                                continue
                            downloader._finish(job, state, None, started, 1, results)
                    finally:
                        with anyio.CancelScope(shield=True):
                            await batch.aclose()
        finally:
            done.set()

    async def _lane(self, handler: Any, queue: list[list[tuple[Job, URL]]],
                    results: list[TransferResult | None]) -> None:
        downloader = self.downloader
        while queue:
            chunk = queue.pop()
            retry: list[tuple[Job, URL, _State, AnyURLError, float]] = []
            slot = downloader._host_slot(chunk[0][1])
            if downloader._global_slots is None:
                downloader._global_slots = anyio.Semaphore(max(1, downloader.policy.parallel))
            assert slot is not None
            async with slot, downloader._global_slots, \
                    _spare(slot, handler, downloader.policy.per_host) as extra:
                await self._batch(handler, chunk, results, retry, 1 + extra)
            for job, url, state, error, started in retry:  # out of the slots: they retake them
                results[job.index] = await downloader._retry(job, url, state, error, started)

    async def _batch(self, handler: Any, chunk: list[tuple[Job, URL]],
                     results: list[TransferResult | None],
                     retry: list[tuple[Job, URL, _State, AnyURLError, float]],
                     connections: int = 1) -> None:
        """One ``open_batch`` over ``chunk`` (again over what is left after an error
        that ended the handler's iterator)."""
        downloader = self.downloader
        policy = downloader.policy
        items: list[tuple[Job, URL, _State]] = []
        staged = _staged(chunk) if policy.resume else None
        for job, url in chunk:
            state = _State()
            try:
                plan = downloader._plan(job, state, policy)
            except AnyURLError as exc:
                downloader._finish(job, state, exc, time.monotonic(), 1, results)
                continue
            try:
                partial = (policy.resume and plan.placement is Placement.PART_AND_RENAME
                           and (staged is None or plan.part.name in staged)
                           and downloader._part_size(job, state) > 0)
            except AnyURLError as exc:
                downloader._finish(job, state, exc, time.monotonic(), 1, results)
                continue
            if plan.placement is not Placement.PART_AND_RENAME or partial:
                # In place, or a .part to continue: the job's own attempt, out of the batch.
                retry.append((job, url, state, _NOT_BATCHED, time.monotonic()))
                continue
            items.append((job, url, state))
        options = chunk[0][0].options or FetchOptions()
        if connections > 1:
            options = dataclasses.replace(options, connections=connections)
        pos = 0
        while pos < len(items):
            batch = handler.open_batch([url for _, url, _ in items[pos:]], options)
            try:
                while pos < len(items):
                    job, url, state = items[pos]
                    pos += 1
                    started = time.monotonic()
                    inside = True
                    try:
                        with _Watch(job, policy.max_time, policy.stall_timeout) as watch:
                            downloader.events.opening(job)
                            _url, outcome = await batch.__anext__()
                            inside = False
                            if isinstance(outcome, AnyURLError):
                                raise outcome
                            await downloader._write_batched(job, state, outcome, watch)
                    except AnyURLError as exc:
                        if policy.retries(exc, url) and policy.retry > 0:
                            retry.append((job, url, state, exc, started))
                        else:
                            downloader._finish(job, state, exc, started, 1, results)
                        if inside:
                            break  # the iterator ended with it: a new one for the rest
                        continue
                    downloader._finish(job, state, None, started, 1, results)
            finally:
                with anyio.CancelScope(shield=True):
                    await batch.aclose()


def _staged(chunk: list[tuple[Job, URL]]) -> frozenset[str] | None:
    """The staging directory's names when every job of ``chunk`` is of one tree (a
    mirror's batch): a ``.part`` not among them has nothing to continue. Listed when
    the batch starts; the jobs' own parts are made after that, by these jobs. None:
    look at each job's ``.part`` itself."""
    trees = {job.tree for job, _ in chunk}
    if len(trees) != 1:
        return None
    tree = trees.pop()
    if tree is None:
        return None
    try:
        return staged_names(tree)
    except (OSError, AnyURLError):
        return None  # the jobs' own looks report what is wrong


@asynccontextmanager
async def _spare(slot: anyio.Semaphore, handler: Any, per_host: int) -> AsyncIterator[int]:
    """Within a batch of ``handler`` that holds one of a host's ``slot`` s: the others
    it can take now, without waiting (at most ``per_host - 1``), lent to the batch for
    its connections (``FetchOptions.connections``) and given back after. Only a handler
    that opens several connections a batch (``batch_connections``: FTP) borrows; a
    pipelining one's lanes keep a slot each. A slot another lane holds or waits for
    stays its own: nothing here waits."""
    wanted = per_host - 1 if getattr(handler, "batch_connections", False) else 0
    taken = 0
    try:
        while taken < wanted:
            try:
                slot.acquire_nowait()
            except anyio.WouldBlock:
                break
            taken += 1
        yield taken
    finally:
        for _ in range(taken):
            slot.release()


#: The error a job that was not batched carries into :meth:`Downloader._retry`.
_NOT_BATCHED = AnyURLError("not batched")


def _drop_frames(error: BaseException) -> None:
    """Drop the tracebacks of ``error`` and the exceptions chained to it.

    A result keeps its error for the caller (its message, exit code, status), but a
    traceback keeps every frame it passed alive, with their locals (the connection, the
    resource, the options): about 12 KiB per failed URL, 169 MiB for ``get -i`` of
    12,000 failing URLs. Nothing shows a traceback to a user.
    """
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        exc = pending.pop()
        if exc is None or id(exc) in seen:
            continue
        seen.add(id(exc))
        exc.__traceback__ = None
        pending += [exc.__cause__, exc.__context__]


#: A raw body smaller than this goes through the chunk loop: setting up a kernel move
#: (a pipe, a worker thread) cost more than copying a small body (2,000 bodies of 1 KiB
#: took 1.15 s moved, 0.74 s copied).
MOVE_AT_LEAST = 1 << 20


def _can_move(res: Resource, pace: object, capped: bool, total: int | None) -> bool:
    """Whether ``res`` goes by the kernel: a raw body of at least :data:`MOVE_AT_LEAST`
    bytes (or of unknown size), no rate limit, and a size limit only when the size is
    known (checked before the first byte)."""
    size = res.info.size
    return (res.raw is not None and pace is None and (not capped or total is not None)
            and (size is None or size >= MOVE_AT_LEAST))


def _write_to_sink(sink: Sink, job: Job, chunk: bytes | None) -> None:
    """Write ``chunk`` to the output (None: flush it); an OSError is the job's write
    error (exit 23)."""
    try:
        if chunk is None:
            sink.flush()
        else:
            sink.write(chunk)
    except OSError as exc:
        raise LocalWriteError(f"cannot write {job.shown} to the output: "
                              f"{exc.strerror or exc}") from exc


def _sink_fd(sink: Sink) -> int | None:
    """The descriptor behind ``sink``, its buffer flushed first; None if it has none."""
    fileno = getattr(sink, "fileno", None)
    if fileno is None:
        return None
    try:
        sink.flush()
        fd = fileno()
    except (OSError, ValueError):  # io.UnsupportedOperation (BytesIO) is both
        return None
    return fd if isinstance(fd, int) else None


class _SizeLimit:
    """``max_filesize``: refused from the announced size, else stopped as bytes arrive."""

    def __init__(self, job: Job, limit: int | None, announced: int | None):
        self.job = job
        self.limit = limit
        if limit is not None and announced is not None and announced > limit:
            raise self._error(announced)

    def check(self, size: int) -> None:
        if self.limit is not None and size > self.limit:
            raise self._error(size)

    def _error(self, size: int) -> FileSizeExceeded:
        return FileSizeExceeded(
            f"{self.job.shown} is larger than the limit of {self.limit} bytes "
            f"({size} or more)", hint="Raise max_filesize if you want it anyway.",
            remedy=("max_filesize",))


def remote_time(info: ResourceInfo) -> float | None:
    """POSIX seconds of the modification time the server gave for ``info``: HTTP's
    ``Last-Modified``, or an ftp ``MDTM`` (``info.extra["modified"]``, the same date
    format); None when it gave none or not a date."""
    value = info.header("last-modified") or info.extra.get("modified")
    if not isinstance(value, str) or not value or not value.isascii():  # dates: ASCII
        return None
    import email.utils  # -R only: the email package costs every start 7 ms

    try:
        return email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def _total(info: ResourceInfo, kept: int) -> int | None:
    if info.total_size is not None:
        return info.total_size
    return None if info.size is None else kept + info.size


async def download(
    resolver: Opener,
    url: URL | str,
    path: str | os.PathLike[str],
    *,
    resume: bool = False,
    clobber: bool | None = None,
    progress: Progress | None = None,
    options: FetchOptions | None = None,
) -> TransferResult:
    """Stream ``url`` into ``path`` via ``<path>.part``, renamed when complete.

    The one implementation of a single download (:meth:`Resolver.download` is this):
    one :class:`Job` through a :class:`Downloader` whose retries, stall and rate
    limits come from the resolver's config. With ``resume=True`` an existing ``.part``
    file is continued where it ends (if the scheme and server allow it; otherwise it
    starts over); without a ``.part``, an existing ``path`` is continued in place, and
    left as it was (:class:`~anyurl.errors.ResumeFailed`) when the server cannot send
    the bytes after it. ``progress`` is called with (bytes so far, total or None).
    Raises the job's :class:`~anyurl.errors.AnyURLError` when it failed.
    """

    class Events(DownloadEvents):
        def progress(self, job: Job, done: int, total: int | None) -> None:
            if progress is not None:
                progress(done, total)

    policy = dataclasses.replace(
        DownloadPolicy.from_config(resolver.config), resume=resume, clobber=clobber,
        parallel=1,
    )
    [result] = await Downloader(resolver, policy, events=Events()).run(
        [Job(url, Path(path), options)]
    )
    if result.error is not None:
        raise result.error
    return result
