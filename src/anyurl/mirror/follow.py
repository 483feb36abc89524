"""Following links: what a saved page names, judged against the crawl's scope and queued.

A resource that lists others (a menu, a listing, an HTML page, a news group) is read
back, bounded (:data:`~.files.MAX_PAGE`), and its handler names the links
(:meth:`~anyurl.schemes.base.SchemeHandler.links`); :class:`Follower` judges each as the
crawl stores it (:func:`~.scope.canonical`), against the :class:`~.scope.Scope` and the
crawl's share of a cluster (``owns``), and queues those in scope in the state, in one
statement per page. A redirect's target is judged the same way (:mod:`.outcomes`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio

from anyurl.errors import AnyURLError
from anyurl.links import Link
from anyurl.mirror.files import read_page, streamed_links, write_beside
from anyurl.mirror.scope import Scope, canonical
from anyurl.mirror.state import CrawlState, Entry
from anyurl.mirror.summary import MirrorSummary
from anyurl.resolver import Resolver
from anyurl.resource import ResourceInfo
from anyurl.url import URL

__all__ = ["QUEUED_KEPT", "Follower"]

#: Links a crawl remembers having queued (:attr:`Follower.queued`), so that a link every
#: page names is judged and queued once, not once a page.
QUEUED_KEPT = 1 << 15


class Follower:
    """The links of one run's pages and redirects, judged and queued."""

    def __init__(self, resolver: Resolver, root: Path, scope: Scope,
                 owns: Callable[[URL], bool] | None, summary: MirrorSummary,
                 signal: Callable[[], None], *, render: bool, views: bool,
                 retr_symlinks: bool):
        self.resolver = resolver
        self.root = root
        #: ``MirrorOptions``' switches: a rendering beside each listing; each link's
        #: alternate views followed too (``Link.more``); a listed symbolic link fetched
        #: as what it points to.
        self.render = render
        self.views = views
        self.retr_symlinks = retr_symlinks
        self.scope = scope
        #: Which URLs this crawl fetches itself (None: all in scope): see ``Mirror.owns``.
        self.owns = owns
        #: The run's summary: links found and skipped, foreign links, are counted there.
        self.summary = summary
        #: Wake idle workers: a link joined the frontier (``Mirror._signal``).
        self.signal = signal
        #: Links (URL text, depth, requisite) that this run judged in scope and queued:
        #: found again (every page of a site names its index, its style sheets), the
        #: same judgement and a queueing that is a no-op (the state keeps a URL once a
        #: generation) are skipped. At most :data:`QUEUED_KEPT`.
        self.queued: set[tuple[str, int, bool]] = set()

    async def follow(self, state: CrawlState, entry: Entry, url: URL, info: ResourceInfo,
                      path: Path, *, small: bool = False) -> None:
        """Queue the links of the page saved at ``path`` (``small``: known to be at most
        :data:`~.files.INLINE_HASH` bytes, read in the loop rather than in a worker thread)."""
        handler = self.resolver.handler_for(url)
        if not self.render and handler.streams_links(info):
            # read a piece at a time as it is parsed, in the loop as a small file's
            # digest is (the page was just written: its pages are in the cache)
            links = streamed_links(self.root, path, handler, info)
        else:
            body = read_page(self.root, path) if small else \
                await anyio.to_thread.run_sync(read_page, self.root, path)
            if body is None:
                return
            if self.render:
                text = handler.render(info, body)
                if text is not None:
                    beside = path.with_name(path.name + ".txt")
                    await anyio.to_thread.run_sync(write_beside, self.root, beside, text)
            links = handler.links(info, body)
        found: list[tuple[str, int, str | None, int | None, float | None, str | None]] = []
        named = list(links)
        if self.views:
            named += [Link(more) for link in links for more in link.more]
        self.summary.links_found += len(named)
        depth = entry.depth + 1
        queued = self.queued
        admitted: list[tuple[str, int, bool]] = []
        for link in named:
            key = (link.url, depth, link.requisite)
            if key in queued:
                continue  # judged and queued already this run: the same again changes nothing
            try:
                target = self.link(link.url)
            except AnyURLError:
                self.summary.links_skipped += 1
                continue  # a page may name what RFC 1738 cannot parse: not ours to fetch
            if self.judge(target, depth, requisite=link.requisite):
                admitted.append(key)
                if link.target is not None and self.retr_symlinks:
                    # what it points to, fetched: the link's own size and time are not its
                    found.append((str(target), depth, entry.url, None, None, link.target))
                else:
                    found.append((str(target), depth, entry.url, link.size, link.modified,
                                  link.target))
        if found:
            # a refresh settles at once what the listing shows unchanged, of the server
            # just listed (its URLs passed the gate there): one statement per entry
            state.add_many(found, settle=entry.url)
            self.signal()
            if len(queued) + len(admitted) > QUEUED_KEPT:
                queued.clear()  # (bounded: forgetting costs only the judging and a no-op)
            queued.update(admitted)

    def judge(self, target: URL, depth: int, *, requisite: bool = False) -> bool:
        """Whether ``target`` (a found link or a redirect's target, ``depth`` links from
        a start URL; a page's ``requisite``) joins this crawl's frontier; one in scope
        that another crawl owns goes to :attr:`MirrorSummary.foreign`."""
        if not self.scope.admits(target, depth, requisite=requisite):
            self.summary.links_skipped += 1
            return False
        if self.owns is not None and not self.owns(target):
            self.summary.foreign.append((str(target), depth))
            return False
        return True

    def link(self, text: str) -> URL:
        """A URL a page (or a redirect) names, as the crawl judges, stores and names it:
        parsed as the resolver parses, without its fragment, its dot segments removed
        (:func:`~.scope.canonical`). It still passes the gate when it is fetched."""
        return canonical(self.resolver.parse(text).without_fragment())
