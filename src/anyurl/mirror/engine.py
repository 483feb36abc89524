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

This module holds the crawl loop (:class:`Mirror`: the run, its workers and batches,
robots.txt and the per-host politeness, the progress report); each other idea has a
module of its own: :mod:`.fetching` (each fetch's options and job, a batch as one
downloader run), :mod:`.watch` (each fetch's dialogue, a redirect stopped),
:mod:`.outcomes` (what a fetch becomes), :mod:`.follow` (links judged and queued),
:mod:`.archive` (the WARC records), :mod:`.ledger` (the manifest and the state's marks),
:mod:`.files` (the saved files in the tree), :mod:`.summary` (what a run reports).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio

from anyurl.downloads.downloader import JOBS_PER_LANE, Downloader, DownloadPolicy, TransferResult
from anyurl.downloads.output import held_directories
from anyurl.errors import AnyURLError, LocalWriteError, OptionError
from anyurl.mirror.archive import Archive
from anyurl.mirror.fetching import Fetcher
from anyurl.mirror.files import MAX_PAGE, refuse_link
from anyurl.mirror.files import relative_name as _relative  # noqa: F401 (its old name)
from anyurl.mirror.follow import Follower
from anyurl.mirror.ledger import MANIFEST_NAME, Ledger
from anyurl.mirror.outcomes import Outcomes
from anyurl.mirror.refresh import Previous, unchanged_by_listing
from anyurl.mirror.robots import Robots
from anyurl.mirror.scope import Scope, canonical
from anyurl.mirror.state import CrawlState, Entry, Failed, Unchanged
from anyurl.mirror.summary import ERRORS_KEPT, MirrorSummary
from anyurl.mirror.watch import Events, Redirected, Trace
from anyurl.options import SchemeOptions
from anyurl.resolver import Resolver
from anyurl.url import URL, mask

__all__ = ["ERRORS_KEPT", "MANIFEST_NAME", "MAX_PAGE", "STATE_NAME", "Mirror", "MirrorOptions",
           "MirrorSummary", "Redirected"]

#: The crawl's SQLite file, in the mirror's root.
STATE_NAME = ".anyurl-mirror.sqlite"
#: URLs a worker takes from the state at once, per connection it may open to their
#: server (``per_host``): a batch pipelined over those connections (issue 21). A crawl
#: killed in the middle fetches at most the batches that were running again.
BATCH_PER_LANE = 128


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
        #: The WARC side: its records, and the lock that keeps them in order.
        self.archive = Archive(self.root)
        self.robots = Robots(resolver, archive=self.archive.robots if options.warc else None) \
            if options.robots else None
        self._host_busy: dict[str, int] = {}
        self._host_next: dict[str, float] = {}
        #: Set (and replaced) whenever a URL finishes or joins the frontier: idle workers
        #: look again.
        self._changed = anyio.Event()
        self._running = 0
        self._summary = MirrorSummary()
        #: The manifest lines and outcomes of finished URLs, until a batch ends.
        self._ledger = Ledger(self.root, self._summary)
        #: Every fetch's trace: each line goes to the watch of the URL it is about.
        self._trace = Trace(options.trace)
        #: Fetches ended since the last flush, and their bytes (for the progress line).
        self._unflushed = [0, 0]
        self._reported = 0.0
        self._state: CrawlState | None = None

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
        refuse_link(self.root / MANIFEST_NAME, "manifest")
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
            self._start(state, roots, found)
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
            if self.archive.warc is not None:
                self.archive.close()
                if self.options.warc_cdx:
                    summary.cdxj = await self.archive.index()
            return summary
        finally:
            self.archive.close()
            state.close()

    def _stored(self, state: CrawlState) -> list[URL]:
        text = state.setting("start")
        return [canonical(self.resolver.admit(u)) for u in json.loads(text)] if text else []

    def _start(self, state: CrawlState, roots: list[URL],
               found: Sequence[tuple[str, int]]) -> None:
        """Ready the crawl's state (a killed run's batches and manifest lines undone, a
        finished crawl's new generation, the URLs given queued) and this run's parts:
        the scope, the downloader, the WARC file, and the fetcher, the follower and the
        outcomes that share them."""
        self.scope = Scope(tuple(roots), self.options.max_depth, self.options.include,
                           self.options.exclude, self.options.span_hosts,
                           self.options.page_requisites)
        state.recover()
        self._ledger.cut_manifest(state)
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
        self.downloader = Downloader(self.resolver, policy, events=Events(self._fetched))
        if self.options.warc is not None:
            refuse_link(self.options.warc, "WARC file")
            self.archive.open(self.options.warc, self.options.warc_max_size,
                              state.warc_end())
        # What this run saved at each directory index (``d/index.html``), kept by the
        # outcomes: a second URL saved there is asked for as a refresh of it (as_alias).
        index_saved: dict[str, Previous] = {}
        options = self.options
        self._fetcher = Fetcher(self.root, options.schemes, options.login, options.trace,
                                self.downloader, self._trace, self.scope.roots, index_saved)
        follower = Follower(self.resolver, self.root, self.scope, self.owns, self._summary,
                            self._signal, render=options.render,
                            views=options.gopher_views, retr_symlinks=options.retr_symlinks)
        self._outcomes = Outcomes(self.resolver, self.root, self._ledger, self.archive,
                                  follower, self._summary, index_saved, self._signal)

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
                self._unflushed = [0, 0]
                self._ledger.flush(state)
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
                    self._ledger.mark(Failed(entry.url, 0, "disallowed by robots.txt"))
                    continue
            except AnyURLError as exc:
                self._ledger.failed(entry.url, exc)
                continue
            previous = entry.previous
            if previous is not None and (previous.kind == "article" or unchanged_by_listing(
                    previous, entry.listed_size, entry.listed_modified)):
                # An article never changes; a file whose listing states the same size and
                # time as when it was saved has not changed: neither is fetched again.
                self._ledger.mark(Unchanged(entry.url))
                continue
            if entry.listed_target is not None and not self.options.retr_symlinks:
                # a symbolic link: recorded, not fetched
                await self._outcomes.symlink(entry, url)
                continue
            todo.append((self._fetcher.as_alias(entry, url), url))
        if not todo:
            return
        host = (todo[0][1].host or "").lower()
        wait = self.options.wait
        if self.robots is not None:
            wait = max(wait, self.robots.crawl_delay(todo[0][1]))
        if wait or len(todo) == 1:
            for entry, url in todo:
                entry = self._fetcher.as_alias(entry, url)  # after what this batch kept
                await self._polite(host, wait)
                self._host_busy[host] = self._host_busy.get(host, 0) + 1
                try:
                    result, watch = await self._fetcher.fetch(url, entry.previous,
                                                              entry.listed_size)
                finally:
                    self._host_busy[host] -= 1
                    if wait:  # the pause runs from the end of this request
                        self._host_next[host] = max(self._host_next.get(host, 0.0),
                                                    time.monotonic() + wait)
                await self._outcomes.handle(state, entry, url, result, watch)
            return
        lanes = min(max(1, self.options.per_host), -(-len(todo) // JOBS_PER_LANE))
        self._host_busy[host] = self._host_busy.get(host, 0) + lanes
        try:
            fetched = await self._fetcher.fetch_many(todo, lanes)
        finally:
            self._host_busy[host] -= lanes
        later: list[tuple[Entry, URL]] = []
        for (entry, url), outcome in zip(todo, fetched, strict=True):
            if outcome is None:
                later.append((entry, url))
            else:
                await self._outcomes.handle(state, entry, url, *outcome)
        for entry, url in later:  # saved where another of the batch was: after it
            entry = self._fetcher.as_alias(entry, url)
            self._host_busy[host] = self._host_busy.get(host, 0) + 1
            try:
                result, watch = await self._fetcher.fetch(url, entry.previous, entry.listed_size)
            finally:
                self._host_busy[host] -= 1
            await self._outcomes.handle(state, entry, url, result, watch)

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
