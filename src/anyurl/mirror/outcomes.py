"""What a fetch becomes: a saved file, an alias, a redirect, a 304, an error answer, a link.

:meth:`Outcomes.handle` keeps what one fetch brought, as the crawl records it: a file
(moved into its directory when it lists others, its digest and the server's time, a
manifest line, its WARC records, its links followed), the same file under a second name
(a refresh of the first, :meth:`~.fetching.Fetcher.as_alias`), a redirect (recorded,
its target judged as a found link), a ``304`` (the saved file stands), an error answer
(recorded as the server sent it), or a failure; a symbolic link a listing named is
recorded without a fetch. Each ends in the :class:`~.ledger.Ledger`'s mark, with WARC
under the :class:`~.archive.Archive`'s lock, in the order of the records.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from pathlib import Path

import anyio

from anyurl.downloads.downloader import TransferResult
from anyurl.errors import AnyURLError, LocalWriteError
from anyurl.mirror.archive import Archive, warc_record
from anyurl.mirror.files import INLINE_HASH, into_directory, relative_name, set_time, sha256
from anyurl.mirror.follow import Follower
from anyurl.mirror.ledger import Ledger
from anyurl.mirror.paths import index_name
from anyurl.mirror.refresh import CHANGED, NEW, UNCHANGED, Previous, http_time
from anyurl.mirror.state import CrawlState, Done, Entry, Saved, Unchanged
from anyurl.mirror.summary import MirrorSummary
from anyurl.mirror.watch import Redirected, RedirectWatch
from anyurl.resolver import Resolver
from anyurl.resource import ResourceInfo
from anyurl.url import URL, mask

__all__ = ["Outcomes"]


class Outcomes:
    """What each fetch of one run of a crawl becomes (see the module docstring)."""

    def __init__(self, resolver: Resolver, root: Path, ledger: Ledger, archive: Archive,
                 follower: Follower, summary: MirrorSummary,
                 index_saved: dict[str, Previous], signal: Callable[[], None]):
        self.resolver = resolver
        self.root = root
        self.ledger = ledger
        self.archive = archive
        self.follower = follower
        #: The run's summary: fetched, not modified and links are counted there.
        self.summary = summary
        #: What this run saved at each directory index (``d/index.html``), for
        #: :meth:`~.fetching.Fetcher.as_alias` (the same dict).
        self.index_saved = index_saved
        #: Wake idle workers: a redirect's target joined the frontier.
        self.signal = signal

    async def handle(self, state: CrawlState, entry: Entry, url: URL,
                      result: TransferResult, watch: RedirectWatch) -> None:
        """Keep what one fetch brought: a file, a redirect, a 304, or its failure."""
        dialogue = watch.dialogue
        previous = entry.previous
        if isinstance(result.error, Redirected):
            try:
                await self._redirected(state, entry, url, result.error, dialogue)
            except (AnyURLError, OSError) as exc:
                self.ledger.failed(entry.url, _local(url, exc))
            return
        if result.error is not None:
            if previous is not None and result.error.status == 304:
                try:
                    await self._not_modified(state, entry, url, previous, watch)
                except (AnyURLError, OSError) as exc:
                    self.ledger.failed(entry.url, _local(url, exc))
                return
            if result.error.status is not None:
                try:  # the server answered: its answer is an archive too
                    await self._error_answer(state, entry, url, result.error)
                except (AnyURLError, OSError) as exc:
                    self.ledger.failed(entry.url, _local(url, exc))
                return
            self.ledger.failed(entry.url, result.error)
            return
        try:
            await self._completed(state, entry, url, result, dialogue)
        except (AnyURLError, OSError) as exc:
            self.ledger.failed(entry.url, _local(url, exc))

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
            path = into_directory(self.root, path, index)
        modified = http_time(info.header("last-modified")) or entry.listed_modified
        # The digest and the server's time in one step: kept by the downloader as it
        # wrote a small file (its time given then, unless the server's differs); else
        # read back, in the loop for a small file, in one worker thread for a larger one
        # (the time set after the page is read: a listing's links come from it).
        if result.sha256 is not None:
            digest, size = result.sha256, result.bytes
            if modified is not None and modified != result.job.mtime:
                set_time(self.root, path, modified)
        elif result.bytes + result.resumed_from <= INLINE_HASH:
            digest, size = sha256(self.root, path, modified)
        else:
            digest, size = await anyio.to_thread.run_sync(sha256, self.root, path, modified)
        previous = entry.previous
        outcome = NEW if previous is None else (
            UNCHANGED if previous.sha256 == digest else CHANGED)
        relative = relative_name(self.root, path)
        if outcome != UNCHANGED:
            self.ledger.manifest({"url": info.url.masked(), "file": relative,
                                  "size": size, "sha256": digest, "kind": info.kind,
                                  "content_type": info.content_type, "status": info.status,
                                  "outcome": outcome,
                                  "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        saved = Saved(content_type=info.content_type, etag=info.header("etag"),
                      last_modified=info.header("last-modified"))
        done = Done(entry.url, relative, size, digest, info.kind, outcome, saved)
        if self.archive.warc is None:  # no records to keep in order: no lock (a checkpoint each)
            self.ledger.mark(done)
        else:
            saved = await self._archived(done, previous, info, path, dialogue)
        if path.name == index:  # before its links are found: they may name it again
            self.index_saved[relative] = Previous(
                sha256=digest, size=size, kind=info.kind, file=relative, etag=saved.etag,
                last_modified=saved.last_modified, content_type=info.content_type,
                warc=saved.warc)
        if page and entry.listed_target is None:  # once its records are written, so an
            # alias's revisit can refer to them; a directory reached through a symbolic
            # link (--retr-symlinks) is kept, not walked again, as wget does
            await self.follower.follow(state, entry, url, info, path, small=size <= INLINE_HASH)
        self.summary.fetched_now += 1

    async def _archived(self, done: Done, previous: Previous | None, info: ResourceInfo,
                        path: Path, dialogue: list[str]) -> Saved:
        """The WARC records of a completed URL (a revisit of the previous fetch's when
        unchanged), then the state's note of it (``done``, with where its payload's
        record is), in order under the WARC lock; what it saved, with that place."""
        saved = done.saved
        async with self.archive.lock:  # the record and the state's note of it, in order
            refers = previous.warc if previous is not None else None
            if done.outcome == UNCHANGED and refers is not None and refers[3]:
                written = await self.archive.revisit(info.url.masked(), refers, info)
                saved = dataclasses.replace(saved, warc=refers)
            else:
                written = await self.archive.result(info, path, dialogue)
                saved = dataclasses.replace(
                    saved, warc=(written.record_id, written.uri, written.date,
                                 written.payload_digest))
            self.ledger.mark(dataclasses.replace(done, saved=saved),
                       (str(written.file), written.end))
        return saved

    async def _not_modified(self, state: CrawlState, entry: Entry, url: URL,
                            previous: Previous, watch: RedirectWatch) -> None:
        """An HTTP server answered a refresh's conditional request with ``304``: the
        saved file stands; a page's links are read from it again (its links are
        checked in this generation too), and the WARC records a revisit."""
        head = watch.response(url)
        info = ResourceInfo(url=url, kind=previous.kind or "file", status=200,
                            content_type=previous.content_type)
        if previous.kind is not None and previous.file is not None \
                and self.resolver.handler_for(url).has_links(info):
            await self.follower.follow(state, entry, url, info, self.root / previous.file)
        async with self.archive.lock:
            end = None
            refers = previous.warc
            if self.archive.warc is not None and refers is not None and refers[3]:
                written = await self.archive.revisit(url.masked(), refers, head)
                end = (str(written.file), written.end)
            self.ledger.mark(Unchanged(entry.url), end)
        self.summary.not_modified_now += 1

    async def symlink(self, entry: Entry, url: URL) -> None:
        """A symbolic link a listing named: recorded (a manifest line of kind
        ``symlink`` with its target, a WARC ``metadata`` record), not fetched, as wget
        keeps a link rather than what it points to. Fetching it would copy a directory
        a second time under the link's name (and its links again, without end), and a
        dangling link would fail. A refresh finds it unchanged by its listed size and
        time (:func:`~.refresh.unchanged_by_listing`), as it does a file."""
        target = entry.listed_target
        outcome = NEW if entry.previous is None else CHANGED
        self.ledger.manifest({"url": url.masked(), "file": None, "size": 0, "sha256": None,
                              "kind": "symlink", "target": target, "content_type": None,
                              "status": None, "outcome": outcome,
                              "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        async with self.archive.lock:
            end = None
            if self.archive.warc is not None:
                body = json.dumps({"symlink": target}).encode()
                written = await self.archive.metadata(url.masked(), body)
                end = (str(written.file), written.end)
            self.ledger.mark(Done(entry.url, None, 0, None, "symlink", outcome), end)

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
        self.summary.links_found += 1
        try:
            target = self.follower.link(location)
        except AnyURLError:
            self.summary.links_skipped += 1  # recorded, not followed
        if (target is not None and self.follower.judge(target, entry.depth)
                and state.add(str(target), entry.depth, entry.url)):
            self.signal()
        self.ledger.manifest({"url": url.masked(), "file": None, "size": 0, "sha256": None,
                              "kind": "redirect", "content_type": info.content_type,
                              "status": info.status,
                              "location": target.masked() if target else mask(location),
                              "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        async with self.archive.lock:
            end = None
            if self.archive.warc is not None:
                written = await self.archive.redirect(info, dialogue)
                end = (str(written.file), written.end)
            self.ledger.mark(Done(entry.url, None, 0, None, "redirect",
                            NEW if entry.previous is None else UNCHANGED), end)
        self.summary.fetched_now += 1

    async def _error_answer(self, state: CrawlState, entry: Entry, url: URL,
                            error: AnyURLError) -> None:
        """An error answer (an HTTP 404, a 500 after its retries): a manifest line that
        says it is one (``"kind": "error"``, its status, no file), and with ``--warc``
        its request and response records as wget and Heritrix write them, the error
        page as the server sent it (``AnyURLError.body``) when it was read whole."""
        answer = error.answer or {}
        body = answer.get("body")
        payload = body if isinstance(body, bytes) else b""
        self.ledger.manifest({"url": url.masked(), "file": None, "size": len(payload),
                              "sha256": None, "kind": "error", "status": error.status,
                              "error": str(error),
                              "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        if self.archive.warc is None or not isinstance(answer.get("request"), dict) \
                or warc_record(url) != "response":
            self.ledger.failed(entry.url, error)
            return
        async with self.archive.lock:  # the records and the state's note of them, in order
            written = await self.archive.answer(url.masked(), answer, payload)
            self.ledger.failed(entry.url, error, (str(written.file), written.end))


def _local(url: URL, exc: AnyURLError | OSError) -> AnyURLError:
    """``exc`` as the error of ``url``: an OSError of the tree is a write error (23)."""
    if isinstance(exc, AnyURLError):
        return exc
    return LocalWriteError(f"cannot keep {url.masked()} in the mirror: {exc}")

