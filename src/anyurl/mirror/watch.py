"""The dialogue of each fetch of a crawl: who hears a protocol line, and a redirect stopped.

The mirror fetches a batch of one server's URLs as one run of the downloader, whose
handler may pipeline them on one connection: :class:`Trace` is the one trace object of
every fetch (``FetchOptions.trace``: a batch's jobs keep equal options), and
:class:`Events` notes in each task which job's lines follow, so each URL keeps its own
dialogue in its :class:`RedirectWatch`, as if fetched alone. The watch stops a fetch at
the first redirect the HTTP handler is about to follow (:class:`Redirected`): the crawl
judges the target as a found link instead (:mod:`.outcomes`). A line costs an append
and a prefix test; the response head is read back from the dialogue only when asked.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from urllib.parse import urljoin

from anyurl.downloads.downloader import DownloadEvents, Job, TransferResult
from anyurl.errors import AnyURLError
from anyurl.numbers import ascii_int
from anyurl.resource import ResourceInfo
from anyurl.url import URL, mask

__all__ = ["Events", "MirrorJob", "RedirectWatch", "Redirected", "Trace"]


class Redirected(AnyURLError):
    """Raised by a mirror's fetch (never to the user) when the server redirects: the
    crawl judges the target as a found link instead of following it in the fetch."""

    transient = False  # not retried by the downloader

    def __init__(self, info: ResourceInfo, location: str):
        super().__init__(f"{info.url.masked()} redirects ({info.status}) to "
                         f"{mask(location)}", url=info.url)
        #: The 3xx response: its status, reason and headers (the ``Location`` among them).
        self.info = info
        #: Where it leads: the ``Location`` resolved against the URL.
        self.location = location


class RedirectWatch:
    """A trace (``FetchOptions.trace``) that keeps the dialogue and stops the fetch at the
    first redirect the HTTP handler is about to follow, raising :class:`Redirected` with
    the 3xx response read back from the dialogue (status line and headers). A line costs
    an append and a prefix test: the head is read back only when it is asked for."""

    def __init__(self, url: URL, dialogue: list[str],
                 echo: Callable[[str], None] | None = None, listed_size: int | None = None):
        self.url = url
        self.dialogue = dialogue
        self.echo = echo
        #: The size the listing naming the URL gave (:meth:`Trace.listed_size`).
        self.listed_size = listed_size

    def _head(self) -> tuple[tuple[int, str] | None, list[tuple[str, str]]]:
        """The last response head the dialogue shows: (status, reason) and its fields."""
        lines = self.dialogue
        for start in range(len(lines) - 1, -1, -1):
            if lines[start].startswith("< HTTP/"):
                break
        else:
            return None, []
        version_status_reason = lines[start][2:].split(" ", 2)
        reason = version_status_reason[2] if len(version_status_reason) > 2 else ""
        code = ascii_int(version_status_reason[1]) if len(version_status_reason) > 1 else None
        status: tuple[int, str] | None = None if code is None else (code, reason)
        headers = []
        for line in lines[start + 1:]:
            if line.startswith("< ") and ":" in line:
                name, _, value = line[2:].partition(":")
                headers.append((name.strip().lower(), value.strip()))
        return status, headers

    def response(self, url: URL) -> ResourceInfo:
        """The last response head the dialogue showed (status, reason, headers)."""
        found, headers = self._head()
        status, reason = found or (None, None)
        return ResourceInfo(url=url, status=status, reason=reason, headers=tuple(headers))

    def __call__(self, line: str) -> None:
        self.dialogue.append(line)
        if self.echo is not None:
            self.echo(line)
        if line.startswith("* following redirect to "):
            status, headers = self._head()
            if status is None:
                return
            info = ResourceInfo(url=self.url, status=status[0], reason=status[1],
                                headers=tuple(headers), kind="redirect")
            location = info.header("location") or line[len("* following redirect to "):]
            raise Redirected(info, urljoin(str(self.url), location.strip()))


#: The watch of the URL whose fetch the current task is opening (:class:`Events`).
_WATCH: ContextVar[RedirectWatch | None] = ContextVar("anyurl_mirror_watch", default=None)


@dataclass
class MirrorJob(Job):
    """A mirror's job: the downloader's, with the watch of its URL's dialogue."""

    watch: RedirectWatch | None = None


class Trace:
    """The trace of every fetch of a crawl (``FetchOptions.trace``, one object, so that a
    batch's jobs have equal options): each line goes to the watch of the job being
    opened in the task that reports it (:class:`Events` notes it), so each URL of a
    batch keeps its own dialogue and redirect, as if fetched alone (the requests
    pipelined behind it are named in its dialogue too); ``-v`` shows every line."""

    def __init__(self, echo: Callable[[str], None] | None):
        self.echo = echo
        #: The watch of each URL of the batches under way, for :meth:`of`.
        self.watches: dict[str, RedirectWatch] = {}

    def __call__(self, line: str) -> None:
        watch = _WATCH.get()
        if watch is not None:
            watch(line)  # which echoes it
        elif self.echo is not None:
            self.echo(line)

    def listed_size(self, url: URL) -> int | None:
        """The size the listing gave for ``url`` (``FTPOptions.listed_size``): the FTP
        handler fetches such a file without asking ``SIZE``. One method of the one
        trace object, so that a batch's jobs keep equal options."""
        watch = self.watches.get(str(url))
        return None if watch is None else watch.listed_size

    def of(self, url: URL) -> Callable[[str], None]:
        """The trace of ``url``'s own dialogue (``FetchOptions.for_url``): a handler that
        opens several URLs side by side names the URL each line is of, since the task
        that reports it may not be the one its job was opened in."""
        watch = self.watches.get(str(url))
        return self if watch is None else watch


class Events(DownloadEvents):
    """Notes, per task, which job's dialogue the handler is reporting (see
    :class:`Trace`), and tells the mirror of each fetch that ends (its progress line
    moves while a batch runs)."""

    def __init__(self, fetched: Callable[[TransferResult], None]):
        self.fetched = fetched

    def opening(self, job: Job) -> None:
        """``job`` opens now in this task: the lines that follow are its."""
        _WATCH.set(job.watch if isinstance(job, MirrorJob) else None)

    def finished(self, result: TransferResult) -> None:
        """The job is done: lines that follow (a connection's close) are no URL's."""
        job = result.job
        if isinstance(job, MirrorJob) and _WATCH.get() is job.watch:
            _WATCH.set(None)
        self.fetched(result)
