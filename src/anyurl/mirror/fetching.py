"""Fetching a crawl's URLs: each fetch's options, its job, a batch as one downloader run.

:class:`Fetcher` turns the URLs a worker took into the downloader's jobs: each saved at
its place in the tree (:func:`~.paths.local_path`, or where the last fetch saved it),
as the server sent it unless its scheme calls it a document, with what the scheme's
walk needs (``Crawl.fetch_options``), a refresh's conditional headers, the user's
credentials only for the start URLs' servers, and a :class:`~.watch.RedirectWatch` of
its own dialogue. One server's batch goes to the downloader as one run
(:meth:`Fetcher.fetch_many`), whose batches reach the handler's ``open_batch``
together; what each fetch brought is kept by :mod:`.outcomes`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import anyio

from anyurl.downloads.downloader import Downloader, Job, TransferResult
from anyurl.mirror.files import relative_name, unless_a_directory
from anyurl.mirror.paths import crawl_of, index_name, local_path
from anyurl.mirror.refresh import Previous, conditional_headers
from anyurl.mirror.state import Entry
from anyurl.mirror.watch import MirrorJob, RedirectWatch, Trace
from anyurl.options import HTTPOptions, SchemeOptions
from anyurl.registry import CrawlFetch
from anyurl.request import with_login
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.http.handler import without_origin_headers
from anyurl.url import URL

__all__ = ["PATHS_KEPT", "Fetcher"]

#: Places in the tree worked out for URLs about to be fetched (:meth:`Fetcher.local_path`):
#: more than the batches of all workers hold at once.
PATHS_KEPT = 1 << 13


class Fetcher:
    """The fetches of one run of a crawl, through its downloader."""

    def __init__(self, root: Path, schemes: tuple[SchemeOptions, ...],
                 login: tuple[str, str | None] | None, echo: Callable[[str], None] | None,
                 downloader: Downloader, trace: Trace, roots: tuple[URL, ...],
                 index_saved: dict[str, Previous]):
        self.root = root
        #: The user's scheme options, ``-u``'s login, ``-v``'s echo (``MirrorOptions``).
        self.schemes = schemes
        self.login = login
        self.echo = echo
        self.downloader = downloader
        #: Every fetch's trace: each line goes to the watch of the URL it is about.
        self.trace = trace
        #: The start URLs: their servers alone get the user's login and credentials.
        self.roots = roots
        #: What this run saved at each directory index (``d/index.html``), kept by
        #: :mod:`.outcomes`: a second URL saved there (``d/`` and ``d/index.html``) is
        #: asked for as a refresh of it (:meth:`as_alias`). Index files only: bounded by
        #: the directories, not URLs.
        self.index_saved = index_saved
        #: Each URL's place in the tree between :meth:`as_alias` and :meth:`_job`.
        self._paths: dict[str, Path] = {}

    def fetch_options(self, url: URL, previous: Previous | None,
                       trace: Callable[[str], None]) -> FetchOptions:
        """The options of one fetch: the user's, as the server sent it unless the scheme
        calls the URL a document (:attr:`Crawl.document`), what the scheme's walk needs
        (:attr:`Crawl.fetch_options`), a refresh's conditional headers, credential
        headers only to the start URLs' servers."""
        crawl = crawl_of(url.scheme)
        document = crawl.document is not None and crawl.document(url)
        schemes = self.schemes
        if crawl.fetch_options is not None:
            schemes = crawl.fetch_options(schemes, CrawlFetch(self.trace.listed_size))
        options = FetchOptions(raw=not document, trace=trace, schemes=schemes)
        http = options.get(HTTPOptions)
        if previous is not None and crawl.revalidates:
            http = dataclasses.replace(http, headers=http.headers + conditional_headers(previous))
            options = options.with_scheme(http)
        if not http.location_trusted and not self.of_start_server(url):
            # The user's Authorization, Cookie and Proxy-Authorization are for the start
            # URLs' servers, as a redirect's rule has it (curl's --location-trusted).
            options = without_origin_headers(options)
        return options

    def as_alias(self, entry: Entry, url: URL) -> Entry:
        """``entry`` as a refresh of what this run already saved where it goes.

        ``d/`` and ``d/index.html`` are one file under two names (a redirect-free alias,
        wget's ``index.html``): the second is asked for conditionally with the first's
        validators, so a ``304`` (or the same digest, where the server gives none) says
        it is the same file, which is then listed once in the manifest and archived as a
        ``revisit`` of the first's record instead of fetched and listed again.
        """
        if entry.previous is not None or not self.index_saved:
            return entry  # nothing saved at an index yet: no path to work out again
        target = unless_a_directory(self.local_path(url), url.scheme)
        if target.name != index_name(url.scheme):
            return entry
        saved = self.index_saved.get(relative_name(self.root, target))
        return entry if saved is None else dataclasses.replace(entry, previous=saved)

    def local_path(self, url: URL, *, again: bool = False) -> Path:
        """:func:`~.paths.local_path` of ``url``, worked out once for the two asking
        it of one fetch: :meth:`as_alias` keeps it, :meth:`_job` (``again``) takes it
        back. At most :data:`PATHS_KEPT` are kept between the two."""
        key = str(url)
        if again:
            kept = self._paths.pop(key, None)
            if kept is not None:
                return kept
        path = local_path(self.root, url)
        if not again:
            if len(self._paths) >= PATHS_KEPT:
                self._paths.clear()  # (some asked for and never fetched: bounded)
            self._paths[key] = path
        return path

    def _job(self, url: URL, previous: Previous | None, options: FetchOptions,
             watch: RedirectWatch, mtime: float | None = None) -> MirrorJob:
        # A refresh writes where the last fetch saved (a listing moved into its directory).
        # The downloader keeps a small file's digest as it writes it, and gives it the
        # listed time (``mtime``) by its descriptor: the outcome need not read it back.
        # A refresh's body equal to the saved file (``same_as``: a listing that did not
        # change) leaves that file as it is rather than writing it again.
        target = self.root / previous.file if previous is not None and previous.file \
            else unless_a_directory(self.local_path(url, again=True), url.scheme)
        same_as = previous.sha256 if previous is not None and previous.file else None
        job = MirrorJob(self._login(url), target, options, named_by_user=False,
                        tree=self.root, digest=True, mtime=mtime, watch=watch,
                        same_as=same_as)
        self.trace.watches[str(job.url)] = watch  # until the fetch ends (Trace.of)
        return job

    async def fetch(self, url: URL, previous: Previous | None = None,
                    listed_size: int | None = None,
                    ) -> tuple[TransferResult, RedirectWatch]:
        """Fetch ``url`` alone (a refresh's conditional request, a URL kept after another
        saved at its place, one at a time with a pause asked): the result and the watch
        of its dialogue."""
        watch = RedirectWatch(url, [], self.echo, listed_size)
        options = self.fetch_options(url, previous, self.trace)
        job = self._job(url, previous, options, watch)
        try:
            return await self.downloader.transfer(job), watch
        finally:
            self.trace.watches.pop(str(job.url), None)

    async def fetch_many(self, todo: list[tuple[Entry, URL]], lanes: int,
                         ) -> list[tuple[TransferResult, RedirectWatch] | None]:
        """Fetch one server's URLs (in the order of ``todo``) over up to ``lanes``
        connections: as one run of the downloader, whose batches reach the handler's
        ``open_batch`` together, each job's trace lines reaching its own watch
        (:class:`~.watch.Trace`). A refresh's conditional requests (headers of their own
        per URL, shown by ``-v``) go one by one, ``lanes`` at a time. A URL saved where
        another of the batch is (``d/`` and ``d/index.html``) is not fetched here (None
        in its place): the caller asks for it once the other is kept, as its alias
        (:meth:`as_alias`); the downloader refuses two jobs of one run writing one file."""
        fetched: list[tuple[TransferResult, RedirectWatch] | None] = [None] * len(todo)
        jobs: list[Job] = []
        watches: list[tuple[int, RedirectWatch]] = []
        alone: list[int] = []
        shared: dict[tuple[str, bool, bool], FetchOptions] = {}
        targets: set[Path] = set()
        for i, (entry, url) in enumerate(todo):
            if entry.previous is not None and crawl_of(url.scheme).revalidates:
                alone.append(i)
                continue
            watch = RedirectWatch(url, [], self.echo, entry.listed_size)
            document = crawl_of(url.scheme).document
            key = (url.scheme, document is not None and document(url),
                   self.of_start_server(url))
            options = shared.get(key) or shared.setdefault(
                key, self.fetch_options(url, None, self.trace))
            job = self._job(url, entry.previous, options, watch, entry.listed_modified)
            target = job.target
            assert target is not None
            if target in targets:
                self.trace.watches.pop(str(job.url), None)
                continue  # None: the caller's, after the one saved there
            targets.add(target)
            jobs.append(job)
            watches.append((i, watch))
        if jobs:
            try:
                results = await self.downloader.run(jobs)
            finally:
                for done in jobs:
                    self.trace.watches.pop(str(done.url), None)
            for (i, watch), result in zip(watches, results, strict=True):
                fetched[i] = (result, watch)
        if alone:
            queue = iter(alone)

            async def lane() -> None:
                for i in queue:
                    entry, url = todo[i]
                    fetched[i] = await self.fetch(url, entry.previous, entry.listed_size)

            async with anyio.create_task_group() as tg:
                for _ in range(min(lanes, len(alone))):
                    tg.start_soon(lane)
        return fetched

    def _login(self, url: URL) -> URL:
        """``url`` with ``-u``'s login when it is of a start URL's server and names none
        (the state keeps the URL without it)."""
        login = self.login
        if login is None or url.user is not None or not self.of_start_server(url):
            return url
        return with_login(url, login)

    def of_start_server(self, url: URL) -> bool:
        """Whether ``url`` has the scheme, host and port of a start URL."""
        server = (url.scheme, (url.host or "").lower(), url.effective_port)
        return any(server == (r.scheme, (r.host or "").lower(), r.effective_port)
                   for r in self.roots)
