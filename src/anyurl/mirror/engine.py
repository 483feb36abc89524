"""The crawl: take URLs, fetch them through the downloader, save them, follow their links.

Workers (``parallel`` of them) take URLs from the :class:`~.state.CrawlState` a batch at
a time: up to :data:`BATCH_PER_LANE` per connection of one server
(:meth:`~.state.CrawlState.take_batch`), fetched as one run of the downloader, whose
batches reach the handler's ``open_batch`` together (HTTP/1.1 and NNTP pipeline them).
Each URL passes the resolver's one gate (port policy, registry, gateways) when it
is opened, robots.txt for HTTP, and the per-host politeness (at most ``per_host``
connections at once; with ``wait`` seconds between two requests to a host, one URL at a
time); it is fetched by the
:class:`~anyurl.downloads.downloader.Downloader` into its place in the tree (retries with backoff,
partial files, kept in ``<root>/.anyurl-partial/``, continued after a kill,
``--limit-rate``) as the server sent it
(``FetchOptions(raw=True)``: a menu or listing is saved as served). A resource that lists
others (a menu, a listing, an HTML page, a news group) is read back, bounded, and its
handler names the links (:meth:`~anyurl.schemes.base.SchemeHandler.links`): those in
:class:`~.scope.Scope` join the frontier. Each completed URL adds a line to
``manifest.jsonl`` (URL, file, size, SHA-256, time) and, when asked, records to a WARC
file; then the state marks it done, in the same transaction as it notes where the
WARC's last record ends (a batch's URLs in one transaction, after their manifest lines),
and the manifest's size after their lines, so a crawl that is killed at any point resumes
without fetching a done URL again, fetches the URLs of an unfinished batch again and cuts
off the records and manifest lines written for them: each URL is listed and archived
once.

Running it again over a finished crawl refreshes it (:mod:`~.refresh`): a new
generation checks every URL that its listings still name, fetches what is new or
changed, records an unchanged payload as a WARC ``revisit``, keeps the server's
modification time on saved files, and reports what the server no longer lists.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import stat
import time
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urljoin

import anyio

from anyurl.downloads.downloader import (
    JOBS_PER_LANE,
    Downloader,
    DownloadEvents,
    DownloadPolicy,
    Job,
    TransferResult,
)
from anyurl.downloads.output import held_directories, open_directory, open_in_tree
from anyurl.errors import AnyURLError, LocalWriteError, OptionError
from anyurl.links import Link
from anyurl.mirror.paths import crawl_of, index_name, local_path
from anyurl.mirror.refresh import (
    CHANGED,
    NEW,
    UNCHANGED,
    Previous,
    conditional_headers,
    http_time,
    unchanged_by_listing,
)
from anyurl.mirror.robots import Robots
from anyurl.mirror.scope import Scope, canonical
from anyurl.mirror.state import CrawlState, Done, Entry, Failed, Saved, Unchanged
from anyurl.numbers import ascii_int
from anyurl.options import HTTPOptions, SchemeOptions
from anyurl.registry import CrawlFetch, spec_for
from anyurl.request import with_login
from anyurl.resolver import Resolver
from anyurl.resource import ResourceInfo
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.http.handler import without_origin_headers
from anyurl.url import URL, mask

if TYPE_CHECKING:
    from anyurl.downloads.warc import WARCOutput, Written
    from anyurl.schemes.base import SchemeHandler

__all__ = ["MAX_PAGE", "STATE_NAME", "Mirror", "MirrorOptions", "MirrorSummary", "Redirected"]

#: The crawl's SQLite file, in the mirror's root.
STATE_NAME = ".anyurl-mirror.sqlite"
MANIFEST_NAME = "manifest.jsonl"
#: A page is read back for its links up to this size; a larger one is kept, not parsed.
MAX_PAGE = 16 << 20
#: Failures a run keeps in :attr:`MirrorSummary.errors` (all of them are in the state).
ERRORS_KEPT = 20
#: URLs a worker takes from the state at once, per connection it may open to their
#: server (``per_host``): a batch pipelined over those connections (issue 21). A crawl
#: killed in the middle fetches at most the batches that were running again.
BATCH_PER_LANE = 128
#: A file up to this size is hashed (and its time set) in the event loop: a worker
#: thread's hop costs more than reading a small file back from the page cache.
INLINE_HASH = 64 << 10
#: How much of a saved file :func:`_sha256` reads at a time.
HASH_PIECE = 256 << 10
#: Links a crawl remembers having queued (:attr:`Mirror._queued`), so that a link every
#: page names is judged and queued once, not once a page.
QUEUED_KEPT = 1 << 15
#: Places in the tree worked out for URLs about to be fetched (:meth:`Mirror._local_path`):
#: more than the batches of all workers hold at once.
PATHS_KEPT = 1 << 13


@dataclass(frozen=True)
class MirrorOptions:
    """How a mirror runs (the ``anyurl mirror`` options)."""

    root: Path
    max_depth: int | None = None
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    span_hosts: bool = False
    robots: bool = True
    parallel: int = 4
    per_host: int = 2
    #: Seconds between two requests to one host.
    wait: float = 0.0
    retry: int = 3
    limit_rate: float | None = None
    warc: Path | None = None
    #: Queue the URLs that failed in an earlier run again.
    retry_failed: bool = False
    #: Save a rendering beside each listing its handler can render (``gophermap.txt``).
    render: bool = False
    #: Gopher+: also fetch each item's attribute block and its alternate views.
    gopher_views: bool = False
    #: Fetch a page's requisites (its style sheets, images, scripts, frames) even above
    #: the start directory or past the depth limit (:class:`~.scope.Scope`).
    page_requisites: bool = True
    #: Run again over a finished crawl: check every URL and fetch what changed (else a
    #: finished crawl only takes the URLs it is given that it never found).
    refresh: bool = True
    #: Roll the WARC file over at this size (``site-00001.warc.gz`` ...).
    warc_max_size: int | None = None
    #: Write the CDXJ index of the WARC files beside them (``site.cdxj``) at the end.
    warc_cdx: bool = False
    #: The user's scheme options (``-H``, ``-A``, ``-k``, ``--cacert`` ...): the mirror
    #: adds its own (MLSD listings, raw menus) on top of them.
    schemes: tuple[SchemeOptions, ...] = ()
    #: ``-u``: the login for URLs of the start URLs' servers that name none.
    login: tuple[str, str | None] | None = None
    #: ``-v``: each protocol line (passwords masked by the handlers), as ``get -v``.
    trace: Callable[[str], None] | None = None
    #: ``--retr-symlinks`` (wget's): fetch what a listed symbolic link points to, as a
    #: file of its own, instead of recording the link (``"kind": "symlink"``).
    retr_symlinks: bool = False


@dataclass
class MirrorSummary:
    """What a run did: URLs found, done and failed (all runs of the crawl), bytes."""

    found: int = 0
    done: int = 0
    failed: int = 0
    bytes: int = 0
    #: URLs whose body this run fetched (a 304's saved file is not counted here).
    fetched_now: int = 0
    #: URLs a server answered with ``304 Not Modified`` this run: checked, not fetched.
    not_modified_now: int = 0
    #: URLs that failed in this run (each is in the state, with its error).
    failed_now: int = 0
    #: The first :data:`ERRORS_KEPT` failures of this run as (URL, message): a sample to
    #: show, bounded (a crawl of 20,000 broken links must not hold 20,000 exceptions).
    errors: list[tuple[str, str]] = field(default_factory=list)
    #: The same sample as the errors themselves, for a caller that words them its own
    #: way (the command line); not sent across a cluster.
    failures: list[tuple[str, AnyURLError]] = field(default_factory=list)
    #: The exit code of this run's first failure (0: none).
    first_exit_code: int = 0
    #: Links found in this run's pages and redirects, and those of them not followed
    #: (out of scope, or not URLs RFC 1738 can parse): when every link was skipped the
    #: crawl says so, rather than reporting "1 done" as if there were nothing more.
    links_found: int = 0
    links_skipped: int = 0
    #: Links in scope that this crawl does not own (``Mirror(owns=...)``), with their
    #: depth: on a cluster, they go to the worker that owns their host.
    foreign: list[tuple[str, int]] = field(default_factory=list)
    #: This run refreshed a finished crawl (a new generation).
    refreshed: bool = False
    #: URLs of the current generation by what they turned out to be: ``new``,
    #: ``changed``, ``unchanged`` (in a first crawl, all are new).
    outcomes: dict[str, int] = field(default_factory=dict)
    #: URLs saved before that no listing names any more (their files are kept), and a
    #: sample of them; counted when the generation has run to its end.
    gone: int = 0
    gone_sample: list[str] = field(default_factory=list)
    #: The CDXJ index written (``warc_cdx``), or None.
    cdxj: Path | None = None

    @property
    def exit_code(self) -> int:
        """0 when nothing failed in this run, else the first failure's code."""
        return self.first_exit_code


class Mirror:
    """One crawl into ``options.root`` (see the module docstring)."""

    def __init__(self, resolver: Resolver, options: MirrorOptions,
                 progress: Callable[[dict[str, int], str | None], None] | None = None,
                 owns: Callable[[URL], bool] | None = None):
        self.resolver = resolver
        #: Which URLs this crawl fetches itself (None: all in scope); the others are
        #: handed back in :attr:`MirrorSummary.foreign` (anyurl.mirror.scale shards by host).
        self.owns = owns
        self.options = options
        self.progress = progress
        self.root = options.root
        self.robots = Robots(resolver, archive=self._archive_robots if options.warc else None) \
            if options.robots else None
        self._host_busy: dict[str, int] = {}
        self._host_next: dict[str, float] = {}
        #: Set (and replaced) whenever a URL finishes or joins the frontier: idle workers
        #: look again.
        self._changed = anyio.Event()
        self._running = 0
        self._warc: WARCOutput | None = None
        self._warc_lock = anyio.Lock()
        self._summary = MirrorSummary()
        #: Every fetch's trace: each line goes to the watch of the URL it is about.
        self._trace = _Trace(options.trace)
        #: What this run saved at each directory index (``d/index.html``): a second URL
        #: saved there (``d/`` and ``d/index.html``) is asked for as a refresh of it
        #: (:meth:`_as_alias`). Index files only: bounded by the directories, not URLs.
        self._index_saved: dict[str, Previous] = {}
        #: Outcomes and manifest lines of finished URLs, written by :meth:`_flush`.
        self._pending: list[Done | Unchanged | Failed] = []
        self._pending_end: tuple[str, int] | None = None
        self._manifest_lines: list[str] = []
        #: Fetches ended since the last flush, and their bytes (for the progress line).
        self._unflushed = [0, 0]
        self._reported = 0.0
        self._state: CrawlState | None = None
        #: Links (URL text, depth, requisite) that this run judged in scope and queued:
        #: found again (every page of a site names its index, its style sheets), the
        #: same judgement and a queueing that is a no-op (the state keeps a URL once a
        #: generation) are skipped. At most :data:`QUEUED_KEPT`.
        self._queued: set[tuple[str, int, bool]] = set()
        #: Each URL's place in the tree between :meth:`_as_alias` and :meth:`_job`.
        self._paths: dict[str, Path] = {}

    async def run(self, start: list[str],
                  found: Sequence[tuple[str, int]] = ()) -> MirrorSummary:
        """Crawl from the ``start`` URLs (or resume the crawl already in ``root``);
        ``found`` are links another crawl found for this one, with their depth."""
        if not start and not found and not (self.root / STATE_NAME).exists():
            # Nothing to crawl and nothing to resume: a usage error, and nothing is
            # made (no directory, no empty state left behind in the working directory).
            raise OptionError(f"no URL to mirror, and {str(self.root)!r} holds no crawl "
                              "to resume", hint="Give the URLs to mirror, or -o DIR of "
                              "an earlier mirror to resume it.")
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LocalWriteError(f"cannot create the mirror's directory {str(self.root)!r}: "
                                  f"{exc.strerror or exc}") from exc
        _refuse_link(self.root / MANIFEST_NAME, "manifest")
        state = self._state = CrawlState(self.root / STATE_NAME)
        if self.robots is not None:
            self.robots.state = state  # robots.txt once per crawl and origin, kept there
        try:
            roots = [canonical(self.resolver.admit(u)) for u in start] if start \
                else self._stored(state)
            if not roots and found:
                roots = [canonical(self.resolver.admit(found[0][0]))]
            if not roots:
                raise LocalWriteError(f"{str(self.root)!r} holds no crawl to resume",
                                      hint="Give the URLs to mirror.")
            state.set_setting("start", json.dumps([str(r) for r in roots]))
            self.scope = Scope(tuple(roots), self.options.max_depth, self.options.include,
                               self.options.exclude, self.options.span_hosts,
                               self.options.page_requisites)
            state.recover()
            self._cut_manifest(state)
            if self.options.retry_failed:
                state.requeue_failed()
            if self.options.refresh and not found and state.finished():
                state.new_generation()  # a finished crawl: check it all again
                self._summary.refreshed = True
            for root in roots:
                state.add(str(root), 0)
            for url, depth in found:
                state.add(url, depth)
            policy = DownloadPolicy(
                parallel=max(1, self.options.parallel), per_host=max(1, self.options.per_host),
                retry=self.options.retry, limit_rate=self.options.limit_rate, resume=True,
                clobber=True, create_dirs=True)
            self.downloader = Downloader(self.resolver, policy, events=_Events(self._fetched))
            if self.options.warc is not None:
                from anyurl.downloads.warc import WARCOutput

                _refuse_link(self.options.warc, "WARC file")
                end = state.warc_end()
                self._warc = WARCOutput(
                    self.options.warc, append=True, max_size=self.options.warc_max_size,
                    cut_at=(Path(end[0]), end[1]) if end else None)
            async with anyio.create_task_group() as tg:
                for _ in range(max(1, self.options.parallel)):
                    tg.start_soon(self._worker, state)
            counts = state.counts()
            summary = self._summary
            summary.found = sum(counts[k] for k in ("queued", "running", "done", "failed"))
            summary.done, summary.failed = counts["done"], counts["failed"]
            summary.bytes = counts["bytes"]
            summary.outcomes = state.outcomes()
            if state.finished():
                summary.gone, summary.gone_sample = state.gone()
            if self._warc is not None:
                self._warc.close()
                if self.options.warc_cdx:
                    summary.cdxj = await anyio.to_thread.run_sync(
                        _index, self._warc.files, cdxj_path(self._warc.first))
            return summary
        finally:
            if self._warc is not None:
                self._warc.close()
            state.close()

    def _stored(self, state: CrawlState) -> list[URL]:
        text = state.setting("start")
        return [canonical(self.resolver.admit(u)) for u in json.loads(text)] if text else []

    # -- workers ------------------------------------------------------------------------

    async def _worker(self, state: CrawlState) -> None:
        per_host = max(1, self.options.per_host)
        # One URL at a time with a pause asked (--wait); else a batch of one server's
        # URLs, as many as its connections pipeline at once.
        limit = 1 if self.options.wait else BATCH_PER_LANE * per_host
        while True:
            busy = frozenset(h for h, n in self._host_busy.items() if n >= per_host)
            entries = state.take_batch(busy, limit)
            if not entries:
                if self._running == 0:
                    self._changed.set()  # nothing queued, nothing that could queue more
                    return
                await self._changed.wait()
                continue
            self._running += 1
            try:
                with held_directories():
                    await self._batch(state, entries)
            finally:
                self._running -= 1
                self._flush(state)
                self._signal()
                self._report(state, mask(entries[-1].url))

    def _signal(self) -> None:
        changed, self._changed = self._changed, anyio.Event()
        changed.set()

    def _report(self, state: CrawlState, current: str | None = None) -> None:
        """Give the progress callback the counts, and the URL just finished (masked),
        at most 5 times a second as :meth:`_fetched` does: the counts are two scans
        of the state, and a refresh of an archive ends a batch per few listings."""
        if self.progress is None:
            return
        now = time.monotonic()
        if self._reported and now - self._reported < 0.2:
            return
        self._reported = now
        self.progress(state.counts(), current)

    def _fetched(self, result: TransferResult) -> None:
        """A fetch ended: the progress line shows it (at most 5 times a second), its
        counts ahead of the state by the URLs a batch has not recorded yet."""
        if self.progress is None or self._state is None:
            return
        self._unflushed[0] += 1
        self._unflushed[1] += result.bytes
        now = time.monotonic()
        if now - self._reported < 0.2:
            return
        self._reported = now
        counts = self._state.counts()
        moved = min(self._unflushed[0], counts["running"])
        counts["running"] -= moved
        counts["done"] += moved
        counts["bytes"] += self._unflushed[1]
        self.progress(counts, mask(result.job.url))

    def _mark(self, mark: Done | Unchanged | Failed,
              warc_end: tuple[str, int] | None = None) -> None:
        """Keep a finished URL's outcome for the next :meth:`_flush` (with WARC, called
        under the WARC lock, in the order of the records, with where its records end)."""
        self._pending.append(mark)
        if warc_end is not None:
            self._pending_end = warc_end

    def _flush(self, state: CrawlState) -> None:
        """The manifest lines, then the outcomes of the URLs finished so far, in one
        transaction with the end of the last WARC record written: a URL is done only
        once its line and its records are written, and a crawl killed before this
        fetches it again (its records and its manifest line cut off first, by
        :meth:`_cut_manifest` and the WARC writer's ``cut_at``)."""
        lines, self._manifest_lines = self._manifest_lines, []
        manifest_end: int | None = None
        if lines:
            fd = open_in_tree(self.root, self.root / MANIFEST_NAME,
                              os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            with open(fd, "a", encoding="utf-8") as manifest:
                manifest.write("".join(lines))
                manifest.flush()
                manifest_end = os.fstat(fd).st_size
        self._unflushed = [0, 0]
        marks, self._pending = self._pending, []
        end, self._pending_end = self._pending_end, None
        if marks or end is not None or manifest_end is not None:
            state.recorded(marks, end, manifest_end)

    def _cut_manifest(self, state: CrawlState) -> None:
        """Cut the manifest back to its size after the last URLs recorded: the lines
        a killed crawl wrote for URLs it had not recorded go (those URLs are fetched
        again and listed again). A crawl's first run notes the size it starts from,
        so lines that were there before it stay."""
        path = self.root / MANIFEST_NAME
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            size = 0
        end = state.manifest_end()
        if end is None or size < end:  # none noted yet, or shortened by hand: start here
            state.set_setting("manifest_end", str(size))
        elif size > end:
            fd = open_in_tree(self.root, path, os.O_WRONLY)
            try:
                os.ftruncate(fd, end)
            finally:
                os.close(fd)

    async def _batch(self, state: CrawlState, entries: list[Entry]) -> None:
        """Fetch a batch of one server's URLs: those robots.txt allows and a refresh
        does not find unchanged by their listing go to the downloader together (its
        batches reach the handler's ``open_batch``: one pipelined connection per lane,
        at most ``per_host``); with a pause asked (``--wait``, ``Crawl-delay``) one at a
        time. Then each URL is kept as it alone would be."""
        todo: list[tuple[Entry, URL]] = []
        for entry in entries:
            try:
                url = self.resolver.admit(entry.url)
                if self.robots is not None and not await self.robots.allows(url):
                    self._mark(Failed(entry.url, 0, "disallowed by robots.txt"))
                    continue
            except AnyURLError as exc:
                self._failed(state, entry.url, exc)
                continue
            previous = entry.previous
            if previous is not None and (previous.kind == "article" or unchanged_by_listing(
                    previous, entry.listed_size, entry.listed_modified)):
                # An article never changes; a file whose listing states the same size and
                # time as when it was saved has not changed: neither is fetched again.
                self._mark(Unchanged(entry.url))
                continue
            if entry.listed_target is not None and not self.options.retr_symlinks:
                # a symbolic link: recorded, not fetched
                await self._symlink(entry, url)
                continue
            todo.append((self._as_alias(entry, url), url))
        if not todo:
            return
        host = (todo[0][1].host or "").lower()
        wait = self.options.wait
        if self.robots is not None:
            wait = max(wait, self.robots.crawl_delay(todo[0][1]))
        if wait or len(todo) == 1:
            for entry, url in todo:
                entry = self._as_alias(entry, url)  # after what this batch kept
                await self._polite(host, wait)
                self._host_busy[host] = self._host_busy.get(host, 0) + 1
                try:
                    result, watch = await self._fetch(url, entry.previous, entry.listed_size)
                finally:
                    self._host_busy[host] -= 1
                    if wait:  # the pause runs from the end of this request
                        self._host_next[host] = max(self._host_next.get(host, 0.0),
                                                    time.monotonic() + wait)
                await self._handle(state, entry, url, result, watch)
            return
        lanes = min(max(1, self.options.per_host), -(-len(todo) // JOBS_PER_LANE))
        self._host_busy[host] = self._host_busy.get(host, 0) + lanes
        try:
            fetched = await self._fetch_many(todo, lanes)
        finally:
            self._host_busy[host] -= lanes
        later: list[tuple[Entry, URL]] = []
        for (entry, url), outcome in zip(todo, fetched, strict=True):
            if outcome is None:
                later.append((entry, url))
            else:
                await self._handle(state, entry, url, *outcome)
        for entry, url in later:  # saved where another of the batch was: after it
            entry = self._as_alias(entry, url)
            self._host_busy[host] = self._host_busy.get(host, 0) + 1
            try:
                result, watch = await self._fetch(url, entry.previous, entry.listed_size)
            finally:
                self._host_busy[host] -= 1
            await self._handle(state, entry, url, result, watch)

    async def _handle(self, state: CrawlState, entry: Entry, url: URL,
                      result: TransferResult, watch: _RedirectWatch) -> None:
        """Keep what one fetch brought: a file, a redirect, a 304, or its failure."""
        dialogue = watch.dialogue
        previous = entry.previous
        if isinstance(result.error, Redirected):
            try:
                await self._redirected(state, entry, url, result.error, dialogue)
            except (AnyURLError, OSError) as exc:
                self._failed(state, entry.url, _local(url, exc))
            return
        if result.error is not None:
            if previous is not None and result.error.status == 304:
                try:
                    await self._not_modified(state, entry, url, previous, watch)
                except (AnyURLError, OSError) as exc:
                    self._failed(state, entry.url, _local(url, exc))
                return
            if result.error.status is not None:
                try:  # the server answered: its answer is an archive too
                    await self._error_answer(state, entry, url, result.error)
                except (AnyURLError, OSError) as exc:
                    self._failed(state, entry.url, _local(url, exc))
                return
            self._failed(state, entry.url, result.error)
            return
        try:
            await self._completed(state, entry, url, result, dialogue)
        except (AnyURLError, OSError) as exc:
            self._failed(state, entry.url, _local(url, exc))

    async def _polite(self, host: str, wait: float) -> None:
        """Wait for ``host``'s next free moment; with a pause asked (``--wait``, a
        ``Crawl-delay``), take it, so that the next request waits its turn too."""
        while True:
            now = time.monotonic()
            delay = self._host_next.get(host, 0.0) - now
            if delay <= 0:
                if wait:
                    self._host_next[host] = now + wait
                return
            await anyio.sleep(delay)

    def _fetch_options(self, url: URL, previous: Previous | None,
                       trace: Callable[[str], None]) -> FetchOptions:
        """The options of one fetch: the user's, as the server sent it unless the scheme
        calls the URL a document (:attr:`Crawl.document`), what the scheme's walk needs
        (:attr:`Crawl.fetch_options`), a refresh's conditional headers, credential
        headers only to the start URLs' servers."""
        crawl = crawl_of(url.scheme)
        document = crawl.document is not None and crawl.document(url)
        schemes = self.options.schemes
        if crawl.fetch_options is not None:
            schemes = crawl.fetch_options(schemes, CrawlFetch(self._trace.listed_size))
        options = FetchOptions(raw=not document, trace=trace, schemes=schemes)
        http = options.get(HTTPOptions)
        if previous is not None and crawl.revalidates:
            http = dataclasses.replace(http, headers=http.headers + conditional_headers(previous))
            options = options.with_scheme(http)
        if not http.location_trusted and not self._of_start_server(url):
            # The user's Authorization, Cookie and Proxy-Authorization are for the start
            # URLs' servers, as a redirect's rule has it (curl's --location-trusted).
            options = without_origin_headers(options)
        return options

    def _as_alias(self, entry: Entry, url: URL) -> Entry:
        """``entry`` as a refresh of what this run already saved where it goes.

        ``d/`` and ``d/index.html`` are one file under two names (a redirect-free alias,
        wget's ``index.html``): the second is asked for conditionally with the first's
        validators, so a ``304`` (or the same digest, where the server gives none) says
        it is the same file, which is then listed once in the manifest and archived as a
        ``revisit`` of the first's record instead of fetched and listed again.
        """
        if entry.previous is not None or not self._index_saved:
            return entry  # nothing saved at an index yet: no path to work out again
        target = _unless_a_directory(self._local_path(url), url.scheme)
        if target.name != index_name(url.scheme):
            return entry
        saved = self._index_saved.get(_relative(self.root, target))
        return entry if saved is None else dataclasses.replace(entry, previous=saved)

    def _local_path(self, url: URL, *, again: bool = False) -> Path:
        """:func:`~.paths.local_path` of ``url``, worked out once for the two asking
        it of one fetch: :meth:`_as_alias` keeps it, :meth:`_job` (``again``) takes it
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
             watch: _RedirectWatch, mtime: float | None = None) -> _MirrorJob:
        # A refresh writes where the last fetch saved (a listing moved into its directory).
        # The downloader keeps a small file's digest as it writes it, and gives it the
        # listed time (``mtime``) by its descriptor: _completed need not read it back.
        # A refresh's body equal to the saved file (``same_as``: a listing that did not
        # change) leaves that file as it is rather than writing it again.
        target = self.root / previous.file if previous is not None and previous.file \
            else _unless_a_directory(self._local_path(url, again=True), url.scheme)
        same_as = previous.sha256 if previous is not None and previous.file else None
        job = _MirrorJob(self._login(url), target, options, named_by_user=False,
                         tree=self.root, digest=True, mtime=mtime, watch=watch,
                         same_as=same_as)
        self._trace.watches[str(job.url)] = watch  # until the fetch ends (_Trace.of)
        return job

    async def _fetch(self, url: URL, previous: Previous | None = None,
                     listed_size: int | None = None,
                     ) -> tuple[TransferResult, _RedirectWatch]:
        watch = _RedirectWatch(url, [], self.options.trace, listed_size)
        options = self._fetch_options(url, previous, self._trace)
        job = self._job(url, previous, options, watch)
        try:
            return await self.downloader.transfer(job), watch
        finally:
            self._trace.watches.pop(str(job.url), None)

    async def _fetch_many(self, todo: list[tuple[Entry, URL]], lanes: int,
                          ) -> list[tuple[TransferResult, _RedirectWatch] | None]:
        """Fetch one server's URLs (in the order of ``todo``) over up to ``lanes``
        connections: as one run of the downloader, whose batches reach the handler's
        ``open_batch`` together, each job's trace lines reaching its own watch
        (:class:`_Trace`). A refresh's conditional requests (headers of their own per
        URL, shown by ``-v``) go one by one, ``lanes`` at a time. A URL saved where
        another of the batch is (``d/`` and ``d/index.html``) is not fetched here (None
        in its place): the caller asks for it once the other is kept, as its alias
        (:meth:`_as_alias`); the downloader refuses two jobs of one run writing one file."""
        fetched: list[tuple[TransferResult, _RedirectWatch] | None] = [None] * len(todo)
        jobs: list[Job] = []
        watches: list[tuple[int, _RedirectWatch]] = []
        alone: list[int] = []
        shared: dict[tuple[str, bool, bool], FetchOptions] = {}
        targets: set[Path] = set()
        for i, (entry, url) in enumerate(todo):
            if entry.previous is not None and crawl_of(url.scheme).revalidates:
                alone.append(i)
                continue
            watch = _RedirectWatch(url, [], self.options.trace, entry.listed_size)
            document = crawl_of(url.scheme).document
            key = (url.scheme, document is not None and document(url),
                   self._of_start_server(url))
            options = shared.get(key) or shared.setdefault(
                key, self._fetch_options(url, None, self._trace))
            job = self._job(url, entry.previous, options, watch, entry.listed_modified)
            target = job.target
            assert target is not None
            if target in targets:
                self._trace.watches.pop(str(job.url), None)
                continue  # None: the caller's, after the one saved there
            targets.add(target)
            jobs.append(job)
            watches.append((i, watch))
        if jobs:
            try:
                results = await self.downloader.run(jobs)
            finally:
                for done in jobs:
                    self._trace.watches.pop(str(done.url), None)
            for (i, watch), result in zip(watches, results, strict=True):
                fetched[i] = (result, watch)
        if alone:
            queue = iter(alone)

            async def lane() -> None:
                for i in queue:
                    entry, url = todo[i]
                    fetched[i] = await self._fetch(url, entry.previous, entry.listed_size)

            async with anyio.create_task_group() as tg:
                for _ in range(min(lanes, len(alone))):
                    tg.start_soon(lane)
        return fetched

    def _login(self, url: URL) -> URL:
        """``url`` with ``-u``'s login when it is of a start URL's server and names none
        (the state keeps the URL without it)."""
        login = self.options.login
        if login is None or url.user is not None or not self._of_start_server(url):
            return url
        return with_login(url, login)

    def _of_start_server(self, url: URL) -> bool:
        """Whether ``url`` has the scheme, host and port of a start URL."""
        server = (url.scheme, (url.host or "").lower(), url.effective_port)
        return any(server == (r.scheme, (r.host or "").lower(), r.effective_port)
                   for r in self.scope.roots)

    def _failed(self, state: CrawlState, url: str, error: AnyURLError,
                warc_end: tuple[str, int] | None = None) -> None:
        self._mark(Failed(url, error.exit_code, str(error)), warc_end)
        summary = self._summary
        summary.failed_now += 1
        if not summary.first_exit_code:
            summary.first_exit_code = error.exit_code or 1
        if len(summary.errors) < ERRORS_KEPT:
            summary.errors.append((mask(url), str(error)))
            summary.failures.append((mask(url), error))

    # -- a completed URL ----------------------------------------------------------------

    async def _completed(self, state: CrawlState, entry: Entry, url: URL,
                         result: TransferResult, dialogue: list[str]) -> None:
        info = result.info
        assert info is not None and result.job.target is not None
        target = result.job.target
        path = target if isinstance(target, Path) else Path(target)
        handler = self.resolver.handler_for(url)
        page = handler.has_links(info)
        index = index_name(url.scheme)
        if handler.is_listing(info) and path.name != index:
            # a rename, a mkdir and a rename, by descriptors: in the loop (a thread hop
            # a directory cost more than the calls)
            path = _into_directory(self.root, path, index)
        modified = http_time(info.header("last-modified")) or entry.listed_modified
        # The digest and the server's time in one step: kept by the downloader as it
        # wrote a small file (its time given then, unless the server's differs); else
        # read back, in the loop for a small file, in one worker thread for a larger one
        # (the time set after the page is read: a listing's links come from it).
        if result.sha256 is not None:
            digest, size = result.sha256, result.bytes
            if modified is not None and modified != result.job.mtime:
                _set_time(self.root, path, modified)
        elif result.bytes + result.resumed_from <= INLINE_HASH:
            digest, size = _sha256(self.root, path, modified)
        else:
            digest, size = await anyio.to_thread.run_sync(_sha256, self.root, path, modified)
        previous = entry.previous
        outcome = NEW if previous is None else (
            UNCHANGED if previous.sha256 == digest else CHANGED)
        relative = _relative(self.root, path)
        if outcome != UNCHANGED:
            self._manifest({"url": info.url.masked(), "file": relative,
                            "size": size, "sha256": digest, "kind": info.kind,
                            "content_type": info.content_type, "status": info.status,
                            "outcome": outcome,
                            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        saved = Saved(content_type=info.content_type, etag=info.header("etag"),
                      last_modified=info.header("last-modified"))
        done = Done(entry.url, relative, size, digest, info.kind, outcome, saved)
        if self._warc is None:  # no records to keep in order: no lock (a checkpoint each)
            self._mark(done)
        else:
            saved = await self._archived(done, previous, info, path, dialogue)
        if path.name == index:  # before its links are found: they may name it again
            self._index_saved[relative] = Previous(
                sha256=digest, size=size, kind=info.kind, file=relative, etag=saved.etag,
                last_modified=saved.last_modified, content_type=info.content_type,
                warc=saved.warc)
        if page and entry.listed_target is None:  # once its records are written, so an
            # alias's revisit can refer to them; a directory reached through a symbolic
            # link (--retr-symlinks) is kept, not walked again, as wget does
            await self._follow(state, entry, url, info, path, small=size <= INLINE_HASH)
        self._summary.fetched_now += 1

    async def _archived(self, done: Done, previous: Previous | None, info: ResourceInfo,
                        path: Path, dialogue: list[str]) -> Saved:
        """The WARC records of a completed URL (a revisit of the previous fetch's when
        unchanged), then the state's note of it (``done``, with where its payload's
        record is), in order under the WARC lock; what it saved, with that place."""
        saved = done.saved
        async with self._warc_lock:  # the record and the state's note of it, in order
            refers = previous.warc if previous is not None else None
            if done.outcome == UNCHANGED and refers is not None and refers[3]:
                written = await self._revisit(info.url.masked(), refers, info)
                saved = dataclasses.replace(saved, warc=refers)
            else:
                written = await self._archive(info, path, dialogue)
                saved = dataclasses.replace(
                    saved, warc=(written.record_id, written.uri, written.date,
                                 written.payload_digest))
            self._mark(dataclasses.replace(done, saved=saved),
                       (str(written.file), written.end))
        return saved

    async def _not_modified(self, state: CrawlState, entry: Entry, url: URL,
                            previous: Previous, watch: _RedirectWatch) -> None:
        """An HTTP server answered a refresh's conditional request with ``304``: the
        saved file stands; a page's links are read from it again (its links are
        checked in this generation too), and the WARC records a revisit."""
        head = watch.response(url)
        info = ResourceInfo(url=url, kind=previous.kind or "file", status=200,
                            content_type=previous.content_type)
        if previous.kind is not None and previous.file is not None \
                and self.resolver.handler_for(url).has_links(info):
            await self._follow(state, entry, url, info, self.root / previous.file)
        async with self._warc_lock:
            end = None
            refers = previous.warc
            if self._warc is not None and refers is not None and refers[3]:
                written = await self._revisit(url.masked(), refers, head)
                end = (str(written.file), written.end)
            self._mark(Unchanged(entry.url), end)
        self._summary.not_modified_now += 1

    async def _symlink(self, entry: Entry, url: URL) -> None:
        """A symbolic link a listing named: recorded (a manifest line of kind
        ``symlink`` with its target, a WARC ``metadata`` record), not fetched, as wget
        keeps a link rather than what it points to. Fetching it would copy a directory
        a second time under the link's name (and its links again, without end), and a
        dangling link would fail. A refresh finds it unchanged by its listed size and
        time (:func:`unchanged_by_listing`), as it does a file."""
        target = entry.listed_target
        outcome = NEW if entry.previous is None else CHANGED
        self._manifest({"url": url.masked(), "file": None, "size": 0, "sha256": None,
                        "kind": "symlink", "target": target, "content_type": None,
                        "status": None, "outcome": outcome,
                        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        async with self._warc_lock:
            end = None
            if self._warc is not None:
                warc = self._warc
                body = json.dumps({"symlink": target}).encode()

                def write() -> Written:
                    return warc.write_metadata(url.masked(), body)

                written = await anyio.to_thread.run_sync(write)
                end = (str(written.file), written.end)
            self._mark(Done(entry.url, None, 0, None, "symlink", outcome), end)

    def _manifest(self, line: dict[str, object]) -> None:
        """A line for ``manifest.jsonl``, appended by :meth:`_flush` (never through a
        link planted there) before the state marks its URL done."""
        self._manifest_lines.append(json.dumps(line) + "\n")

    async def _follow(self, state: CrawlState, entry: Entry, url: URL, info: ResourceInfo,
                      path: Path, *, small: bool = False) -> None:
        """Queue the links of the page saved at ``path`` (``small``: known to be at most
        :data:`INLINE_HASH` bytes, read in the loop rather than in a worker thread)."""
        handler = self.resolver.handler_for(url)
        if not self.options.render and handler.streams_links(info):
            # read a piece at a time as it is parsed, in the loop as a small file's
            # digest is (the page was just written: its pages are in the cache)
            links = _streamed_links(self.root, path, handler, info)
        else:
            body = _read_page(self.root, path) if small else \
                await anyio.to_thread.run_sync(_read_page, self.root, path)
            if body is None:
                return
            if self.options.render:
                text = handler.render(info, body)
                if text is not None:
                    beside = path.with_name(path.name + ".txt")
                    await anyio.to_thread.run_sync(_write_beside, self.root, beside, text)
            links = handler.links(info, body)
        found: list[tuple[str, int, str | None, int | None, float | None, str | None]] = []
        named = list(links)
        if self.options.gopher_views:
            named += [Link(more) for link in links for more in link.more]
        self._summary.links_found += len(named)
        depth = entry.depth + 1
        queued = self._queued
        admitted: list[tuple[str, int, bool]] = []
        for link in named:
            key = (link.url, depth, link.requisite)
            if key in queued:
                continue  # judged and queued already this run: the same again changes nothing
            try:
                target = self._link(link.url)
            except AnyURLError:
                self._summary.links_skipped += 1
                continue  # a page may name what RFC 1738 cannot parse: not ours to fetch
            if self._judge(target, depth, requisite=link.requisite):
                admitted.append(key)
                if link.target is not None and self.options.retr_symlinks:
                    # what it points to, fetched: the link's own size and time are not its
                    found.append((str(target), depth, entry.url, None, None, link.target))
                else:
                    found.append((str(target), depth, entry.url, link.size, link.modified,
                                  link.target))
        if found:
            # a refresh settles at once what the listing shows unchanged, of the server
            # just listed (its URLs passed the gate there): one statement per entry
            state.add_many(found, settle=entry.url)
            self._signal()
            if len(queued) + len(admitted) > QUEUED_KEPT:
                queued.clear()  # (bounded: forgetting costs only the judging and a no-op)
            queued.update(admitted)

    def _judge(self, target: URL, depth: int, *, requisite: bool = False) -> bool:
        """Whether ``target`` (a found link or a redirect's target, ``depth`` links from
        a start URL; a page's ``requisite``) joins this crawl's frontier; one in scope
        that another crawl owns goes to :attr:`MirrorSummary.foreign`."""
        if not self.scope.admits(target, depth, requisite=requisite):
            self._summary.links_skipped += 1
            return False
        if self.owns is not None and not self.owns(target):
            self._summary.foreign.append((str(target), depth))
            return False
        return True

    # -- a redirect ---------------------------------------------------------------------

    async def _redirected(self, state: CrawlState, entry: Entry, url: URL,
                          redirect: Redirected, dialogue: list[str]) -> None:
        """``url`` answered with a redirect, which the fetch did not follow: its target
        is judged as a link found at the same depth (as wget does), so a redirect to
        another host or out of the start directory is not followed, and one in scope is
        fetched under its own name. The manifest records the redirect (status and
        location); the state marks ``url`` done, with nothing on disk."""
        info = redirect.info
        location = redirect.location
        target: URL | None = None
        self._summary.links_found += 1
        try:
            target = self._link(location)
        except AnyURLError:
            self._summary.links_skipped += 1  # recorded, not followed
        if (target is not None and self._judge(target, entry.depth)
                and state.add(str(target), entry.depth, entry.url)):
            self._signal()
        self._manifest({"url": url.masked(), "file": None, "size": 0, "sha256": None,
                        "kind": "redirect", "content_type": info.content_type,
                        "status": info.status,
                        "location": target.masked() if target else mask(location),
                        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        async with self._warc_lock:
            end = None
            if self._warc is not None:
                written = await self._archive_redirect(info, dialogue)
                end = (str(written.file), written.end)
            self._mark(Done(entry.url, None, 0, None, "redirect",
                            NEW if entry.previous is None else UNCHANGED), end)
        self._summary.fetched_now += 1

    async def _error_answer(self, state: CrawlState, entry: Entry, url: URL,
                            error: AnyURLError) -> None:
        """An error answer (an HTTP 404, a 500 after its retries): a manifest line that
        says it is one (``"kind": "error"``, its status, no file), and with ``--warc``
        its request and response records as wget and Heritrix write them, the error
        page as the server sent it (``AnyURLError.body``) when it was read whole."""
        answer = error.answer or {}
        body = answer.get("body")
        payload = body if isinstance(body, bytes) else b""
        self._manifest({"url": url.masked(), "file": None, "size": len(payload),
                        "sha256": None, "kind": "error", "status": error.status,
                        "error": str(error),
                        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        if self._warc is None or not isinstance(answer.get("request"), dict) \
                or _warc_record(url) != "response":
            self._failed(state, entry.url, error)
            return
        async with self._warc_lock:  # the records and the state's note of them, in order
            written = await self._archive_answer(url.masked(), answer, payload)
            self._failed(state, entry.url, error, (str(written.file), written.end))

    async def _archive_answer(self, target: str, answer: dict[str, object],
                              payload: bytes) -> Written:
        """The request and response records of an error answer (``AnyURLError.answer``)
        to the URL ``target`` (masked); the caller holds the WARC lock."""
        warc = self._warc
        assert warc is not None
        request = answer["request"]
        assert isinstance(request, dict)
        headers = answer.get("headers")

        def write() -> Written:
            warc.write_http(target, method=request["method"],
                            request_target=request["target"],
                            http_version=request["http_version"],
                            request_headers=list(request["headers"]), request_body=None,
                            status=int(str(answer.get("status"))),
                            reason=str(answer.get("reason") or ""),
                            response_headers=list(headers) if isinstance(headers, list) else [],
                            payload=payload)
            assert warc.last is not None
            return warc.last

        return await anyio.to_thread.run_sync(write)

    async def _archive_robots(self, answer: ResourceInfo | AnyURLError, body: bytes) -> None:
        """robots.txt as the crawl asked it, in the WARC as any request is (wget and
        Heritrix record it too): its response, or its error answer (a 404)."""
        if self._warc is None:
            return
        async with self._warc_lock:
            if isinstance(answer, AnyURLError):
                if answer.answer is not None and isinstance(answer.answer.get("request"), dict):
                    await self._archive_answer(str(answer.url), answer.answer, body)
                return
            if _warc_record(answer.url) == "response":
                warc = self._warc
                await anyio.to_thread.run_sync(
                    lambda: warc.write_result(answer, io.BytesIO(body)))

    async def _archive_redirect(self, info: ResourceInfo, dialogue: list[str]) -> Written:
        """The WARC records of a redirect: a ``response`` with the 3xx head (no body was
        read) and the ``request`` as the dialogue shows it was sent."""
        warc = self._warc
        assert warc is not None
        method, target, version, fields = _request_of(dialogue)

        def write() -> Written:
            warc.write_http(info.url.masked(), method=method, request_target=target,
                            http_version=version, request_headers=fields,
                            request_body=None, status=info.status or 0,
                            reason=info.reason or "", response_headers=list(info.headers),
                            payload=b"")
            assert warc.last is not None
            return warc.last

        return await anyio.to_thread.run_sync(write)

    def _link(self, text: str) -> URL:
        """A URL a page (or a redirect) names, as the crawl judges, stores and names it:
        parsed as the resolver parses, without its fragment, its dot segments removed
        (:func:`~.scope.canonical`). It still passes the gate when it is fetched."""
        return canonical(self.resolver.parse(text).without_fragment())

    async def _archive(self, info: ResourceInfo, path: Path, dialogue: list[str]) -> Written:
        """The records of a fetched resource (the caller holds the WARC lock)."""
        warc = self._warc
        assert warc is not None

        def write() -> Written:
            with open(open_in_tree(self.root, path, os.O_RDONLY), "rb") as payload:
                warc.write_result(info, payload, dialogue)
            assert warc.last is not None
            return warc.last

        return await anyio.to_thread.run_sync(write)

    async def _revisit(self, url: str, refers: tuple[str, str, str, str | None],
                       head: ResourceInfo) -> Written:
        """A ``revisit`` record of ``url``, whose payload is the one ``refers`` recorded
        (the caller holds the WARC lock); an HTTP revisit keeps the new response head."""
        warc = self._warc
        assert warc is not None
        from anyurl.downloads.warc import Written

        record_id, uri, date, digest = refers
        earlier = Written(record_id, uri, date, digest, warc.path, 0)
        http = None
        if head.status is not None and _warc_record(head.url) == "response":
            http = (head.status, head.reason or "", list(head.headers))

        def write() -> Written:
            warc.write_revisit(url, refers_to=earlier, content_type=head.content_type,
                               http_status=http)
            assert warc.last is not None
            return warc.last

        return await anyio.to_thread.run_sync(write)


def _warc_record(url: URL) -> str:
    """How the WARC records ``url``'s transfers (its descriptor's ``warc_record``)."""
    spec = spec_for(url.scheme)
    return spec.warc_record if spec is not None else "resource"


def _unless_a_directory(path: Path, scheme: str) -> Path:
    """``path``, or its directory's index when a directory is already there.

    A listing named without its ``/`` (an FTP symlink in ``LIST``, a start URL typed so)
    is saved at its name and moved into its directory once it is known to be a listing
    (:func:`_into_directory`); a run killed after that move, with files of the listing
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


class _RedirectWatch:
    """A trace (``FetchOptions.trace``) that keeps the dialogue and stops the fetch at the
    first redirect the HTTP handler is about to follow, raising :class:`Redirected` with
    the 3xx response read back from the dialogue (status line and headers). A line costs
    an append and a prefix test: the head is read back only when it is asked for."""

    def __init__(self, url: URL, dialogue: list[str],
                 echo: Callable[[str], None] | None = None, listed_size: int | None = None):
        self.url = url
        self.dialogue = dialogue
        self.echo = echo
        #: The size the listing naming the URL gave (:meth:`_Trace.listed_size`).
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


#: The watch of the URL whose fetch the current task is opening (:class:`_Events`).
_WATCH: ContextVar[_RedirectWatch | None] = ContextVar("anyurl_mirror_watch", default=None)


@dataclass
class _MirrorJob(Job):
    """A mirror's job: the downloader's, with the watch of its URL's dialogue."""

    watch: _RedirectWatch | None = None


class _Trace:
    """The trace of every fetch of a crawl (``FetchOptions.trace``, one object, so that a
    batch's jobs have equal options): each line goes to the watch of the job being
    opened in the task that reports it (:class:`_Events` notes it), so each URL of a
    batch keeps its own dialogue and redirect, as if fetched alone (the requests
    pipelined behind it are named in its dialogue too); ``-v`` shows every line."""

    def __init__(self, echo: Callable[[str], None] | None):
        self.echo = echo
        #: The watch of each URL of the batches under way, for :meth:`of`.
        self.watches: dict[str, _RedirectWatch] = {}

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


class _Events(DownloadEvents):
    """Notes, per task, which job's dialogue the handler is reporting (see
    :class:`_Trace`), and tells the mirror of each fetch that ends (its progress line
    moves while a batch runs)."""

    def __init__(self, fetched: Callable[[TransferResult], None]):
        self.fetched = fetched

    def opening(self, job: Job) -> None:
        """``job`` opens now in this task: the lines that follow are its."""
        _WATCH.set(job.watch if isinstance(job, _MirrorJob) else None)

    def finished(self, result: TransferResult) -> None:
        """The job is done: lines that follow (a connection's close) are no URL's."""
        job = result.job
        if isinstance(job, _MirrorJob) and _WATCH.get() is job.watch:
            _WATCH.set(None)
        self.fetched(result)


def _request_of(dialogue: list[str]) -> tuple[str, str, str, list[tuple[str, str]]]:
    """The last request the dialogue shows (``> GET /a HTTP/1.1``, ``> Host: h``):
    method, target, version and header fields (credentials are masked when written)."""
    method, target, version = "GET", "/", "HTTP/1.1"
    fields: list[tuple[str, str]] = []
    for line in dialogue:
        if not line.startswith("> "):
            continue
        text = line[2:]
        words = text.split(" ")
        if len(words) == 3 and words[2].startswith("HTTP/"):
            (method, target, version), fields = words, []
        elif ":" in text:
            name, _, value = text.partition(":")
            fields.append((name.strip(), value.strip()))
    return method, target, version, fields


def cdxj_path(warc: Path) -> Path:
    """The CDXJ index beside a WARC file: ``site.warc.gz`` -> ``site.cdxj``."""
    name = warc.name
    for suffix in (".warc.gz", ".warc", ".gz"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return warc.with_name(name + ".cdxj")


def _index(warcs: list[Path], target: Path) -> Path:
    from anyurl.downloads.warc import write_cdxj

    return write_cdxj(warcs, target)


def _local(url: URL, exc: AnyURLError | OSError) -> AnyURLError:
    """``exc`` as the error of ``url``: an OSError of the tree is a write error (23)."""
    if isinstance(exc, AnyURLError):
        return exc
    return LocalWriteError(f"cannot keep {url.masked()} in the mirror: {exc}")


def _refuse_link(path: Path, what: str) -> None:
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


def _relative(root: Path, path: Path) -> str:
    """``os.fsdecode(path.relative_to(root))`` for a path built below ``root``: its text
    after the root's, without pathlib's parse of both."""
    top, full = os.fspath(root), os.fspath(path)
    if full.startswith(top) and full[len(top):len(top) + 1] == os.sep and top != os.sep:
        return os.fsdecode(full[len(top) + 1:])
    return os.fsdecode(path.relative_to(root))


def _into_directory(root: Path, path: Path, index: str) -> Path:
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


def _sha256(root: Path, path: Path, modified: float | None = None) -> tuple[str, int]:
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


def _set_time(root: Path, path: Path, modified: float) -> None:
    """Give the saved file at ``path`` the server's time (its directory reached without
    following a link, the file itself not followed either)."""
    directory = open_directory(root, path.parent)
    try:
        os.utime(path.name, (modified, modified), dir_fd=directory, follow_symlinks=False)
    except (OSError, OverflowError, ValueError):
        pass  # a time the file system cannot hold: the file keeps its own
    finally:
        os.close(directory)


def _read_page(root: Path, path: Path) -> bytes | None:
    """The page at ``path`` for its links; None when larger than :data:`MAX_PAGE`."""
    with open(open_in_tree(root, path, os.O_RDONLY), "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > MAX_PAGE:
            return None
        return f.read(size + 1)  # (not MAX_PAGE + 1: a buffer that big for every page)


def _streamed_links(root: Path, path: Path, handler: SchemeHandler,
                    info: ResourceInfo) -> list[Link]:
    """The links of the page at ``path``, which ``handler`` reads in pieces; [] when
    larger than :data:`MAX_PAGE`."""
    with open(open_in_tree(root, path, os.O_RDONLY), "rb") as f:
        if os.fstat(f.fileno()).st_size > MAX_PAGE:
            return []
        return handler.links_from_file(info, f)


def _write_beside(root: Path, path: Path, text: str) -> None:
    """A rendering beside its listing (``gophermap.txt``), never through a link."""
    fd = open_in_tree(root, path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    with open(fd, "w", encoding="utf-8") as f:
        f.write(text)
