"""The crawl's frontier and record, in SQLite (the standard library's): resumable.

One row per URL ever found: ``queued`` until a worker takes it (``running``; a worker
takes a batch of one server's URLs at once, :meth:`CrawlState.take_batch`), then ``done``
or ``failed``. Every change is committed at once (WAL journal), a batch's outcomes in one
transaction (:meth:`CrawlState.recorded`), so a crawl killed at any point (Ctrl-C,
``kill -9``, a power cut) loses at most the batches that were running: on the next start
they go back to ``queued`` (their ``.part`` files are continued), and a ``done`` URL is
never fetched again in that run of the crawl.

Runs of a finished crawl are *generations* (:mod:`anyurl.mirror.refresh`): a new one
queues the start URLs again, and a URL done in an older generation is queued again when
a listing of the new one names it, keeping what the last fetch left (digest, validators,
the listing's facts, its WARC record) for the checks that decide whether it changed.
The end of the last committed WARC record is kept with the ``done`` of the URLs whose
records end before it, in the same transaction, so a resumed crawl cuts its archive
back there (one URL, one record set).
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anyurl.errors import LocalWriteError
from anyurl.mirror.refresh import Previous

__all__ = ["CrawlState", "Done", "Entry", "Failed", "Unchanged"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS urls (
    url TEXT PRIMARY KEY,
    depth INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
    found_from TEXT,
    file TEXT,
    size INTEGER,
    sha256 TEXT,
    kind TEXT,
    exit_code INTEGER,
    error TEXT,
    added REAL NOT NULL,
    finished REAL
);
CREATE INDEX IF NOT EXISTS urls_status ON urls (status, added);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS robots (origin TEXT PRIMARY KEY, body TEXT NOT NULL,
                                   fetched REAL NOT NULL);
"""
#: Columns added after the first release of the schema: an older crawl gains them.
_ADDED_COLUMNS = (
    ("generation", "INTEGER NOT NULL DEFAULT 0"),
    ("outcome", "TEXT"),            # new, changed, unchanged: in its generation
    ("content_type", "TEXT"),
    ("etag", "TEXT"),               # HTTP validators of the saved response
    ("last_modified", "TEXT"),
    ("listed_size", "INTEGER"),     # what the latest listing naming it says
    ("listed_modified", "REAL"),
    ("saved_size", "INTEGER"),      # ... and what it said when the file was saved
    ("saved_modified", "REAL"),
    ("warc_id", "TEXT"),            # the record holding the payload (revisits refer to it)
    ("warc_uri", "TEXT"),
    ("warc_date", "TEXT"),
    ("warc_digest", "TEXT"),
    ("listed_target", "TEXT"),      # a symbolic link's target, as the listing names it
)

_DONE = ("UPDATE urls SET status = 'done', file = ?, size = ?, sha256 = ?, kind = ?, "
         "exit_code = 0, error = NULL, finished = ?, outcome = ?, content_type = ?, "
         "etag = ?, last_modified = ?, saved_size = listed_size, "
         "saved_modified = listed_modified WHERE url = ?")
#: A found URL queued, or queued again in a new generation; with ``:settle``, one
#: the listing shows unchanged (:meth:`CrawlState.add_many`) is done at once instead, as
#: ``_UNCHANGED`` would mark it. All right-hand sides read the row as it was before.
_SETTLED = ("(:settle AND kind IS NOT NULL AND (kind = 'article' OR ("
            "excluded.listed_size IS NOT NULL AND excluded.listed_modified IS NOT NULL "
            "AND saved_size = excluded.listed_size "
            "AND saved_modified = excluded.listed_modified)))")
_ADD = ("INSERT INTO urls (url, depth, status, found_from, added, generation, "
        "listed_size, listed_modified, listed_target) "
        "VALUES (:url, :depth, 'queued', :found_from, :added, :generation, :size, :modified, "
        ":target) "
        "ON CONFLICT (url) DO UPDATE SET "
        f"status = CASE WHEN {_SETTLED} THEN 'done' ELSE 'queued' END, "
        f"outcome = CASE WHEN {_SETTLED} THEN 'unchanged' ELSE outcome END, "
        f"finished = CASE WHEN {_SETTLED} THEN excluded.added ELSE finished END, "
        f"exit_code = CASE WHEN {_SETTLED} THEN 0 ELSE exit_code END, "
        f"error = CASE WHEN {_SETTLED} THEN NULL ELSE error END, "
        f"saved_size = CASE WHEN {_SETTLED} THEN excluded.listed_size ELSE saved_size END, "
        f"saved_modified = CASE WHEN {_SETTLED} THEN excluded.listed_modified "
        "ELSE saved_modified END, "
        "generation = excluded.generation, depth = MIN(depth, excluded.depth), "
        "listed_size = excluded.listed_size, "
        "listed_modified = excluded.listed_modified, "
        "listed_target = excluded.listed_target, added = excluded.added "
        "WHERE generation < excluded.generation AND status IN ('done', 'failed')")
_RECORD = ("UPDATE urls SET warc_id = ?, warc_uri = ?, warc_date = ?, warc_digest = ? "
           "WHERE url = ?")
_UNCHANGED = ("UPDATE urls SET status = 'done', exit_code = 0, error = NULL, finished = ?, "
              "outcome = 'unchanged', saved_size = listed_size, "
              "saved_modified = listed_modified WHERE url = ?")
_FAILED = ("UPDATE urls SET status = 'failed', exit_code = ?, error = ?, finished = ? "
           "WHERE url = ?")

#: The files SQLite keeps beside the database (WAL journal, shared memory, rollback).
_SIDE_FILES = ("-wal", "-shm", "-journal")


@dataclass(frozen=True)
class Entry:
    """A URL taken from the frontier: where it was found and how deep; in a refresh,
    what its last completed fetch left (``previous``), and what the listing that named
    it this time says of it (``listed_size``, ``listed_modified``, and ``listed_target``
    for a symbolic link, which is recorded rather than fetched)."""

    url: str
    depth: int
    found_from: str | None
    previous: Previous | None = None
    listed_size: int | None = None
    listed_modified: float | None = None
    listed_target: str | None = None


@dataclass(frozen=True)
class Saved:
    """What a completed fetch leaves in the state besides the file's digest."""

    content_type: str | None = None
    etag: str | None = None
    last_modified: str | None = None
    #: The WARC record holding the payload: (record id, target URI, date, payload digest).
    warc: tuple[str, str, str, str | None] | None = None
    #: Where the WARC file's last committed record ends: (file, offset).
    warc_end: tuple[str, int] | None = None


@dataclass(frozen=True)
class Done:
    """A completed URL, for :meth:`CrawlState.recorded` (as :meth:`CrawlState.done`)."""

    url: str
    file: str | None
    size: int
    sha256: str | None
    kind: str | None
    outcome: str | None = None
    saved: Saved = Saved()


@dataclass(frozen=True)
class Unchanged:
    """A URL a refresh found unchanged (as :meth:`CrawlState.unchanged`)."""

    url: str


@dataclass(frozen=True)
class Failed:
    """A URL that failed after its retries (as :meth:`CrawlState.failed`)."""

    url: str
    exit_code: int
    error: str


class CrawlState:
    """The SQLite file of one mirror (``<mirror>/.anyurl-mirror.sqlite``)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        # SQLite opens its files by name and follows links: a link planted at the
        # database or its journals would put the crawl (and its passwords) elsewhere.
        for name in (self.path, *(self.path.with_name(self.path.name + suffix)
                                  for suffix in _SIDE_FILES)):
            try:
                mode = os.lstat(name).st_mode
            except FileNotFoundError:
                continue
            if stat.S_ISLNK(mode) or not stat.S_ISREG(mode):
                what = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
                raise LocalWriteError(
                    f"the crawl's state {str(name)!r} is {what}; not following it",
                    hint="Remove it: anyurl keeps the crawl in a file of its own.")
        try:
            # The URLs may carry passwords (they are needed to resume): the user's only.
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                             0o600))
        except FileExistsError:
            pass  # the crawl to resume
        except OSError as exc:
            raise LocalWriteError(
                f"cannot create the crawl's state {str(self.path)!r}: {exc.strerror or exc}"
            ) from exc
        self._generation: int | None = None
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        have = {row[1] for row in self._db.execute("PRAGMA table_info(urls)")}
        for column, declaration in _ADDED_COLUMNS:
            if column not in have:
                self._db.execute(f"ALTER TABLE urls ADD COLUMN {column} {declaration}")

    def close(self) -> None:
        """Close the database (everything is committed already)."""
        self._db.close()

    # -- the crawl's settings (start URLs, scope): the same command resumes the same crawl --

    def setting(self, key: str) -> str | None:
        """A stored setting, or None."""
        row = self._db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        """Store a setting (replacing an older value)."""
        self._db.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                         (key, value))

    # -- robots.txt, once per crawl and origin ---------------------------------------------

    def robots(self, origin: str) -> tuple[str, float] | None:
        """The robots.txt kept for ``origin`` (``scheme://host:port``) and when it was
        fetched (seconds since the epoch), or None."""
        row = self._db.execute("SELECT body, fetched FROM robots WHERE origin = ?",
                               (origin,)).fetchone()
        return None if row is None else (str(row[0]), float(row[1]))

    def set_robots(self, origin: str, body: str, fetched: float) -> None:
        """Keep ``origin``'s robots.txt (an empty body: none, everything allowed)."""
        self._db.execute("INSERT OR REPLACE INTO robots (origin, body, fetched) "
                         "VALUES (?, ?, ?)", (origin, body, fetched))

    # -- the frontier ---------------------------------------------------------------------

    def recover(self) -> int:
        """Put back the URLs a killed crawl was fetching; how many."""
        return self._db.execute(
            "UPDATE urls SET status = 'queued' WHERE status = 'running'").rowcount

    @property
    def generation(self) -> int:
        """The crawl's current generation (0 until a finished crawl is refreshed); read
        once (this object is the only one writing it): every listing's links ask."""
        if self._generation is None:
            self._generation = int(self.setting("generation") or 0)
        return self._generation

    def finished(self) -> bool:
        """Whether the crawl has run to its end: URLs done or failed, none queued."""
        row = self._db.execute(
            "SELECT COUNT(*), SUM(status IN ('queued', 'running')) FROM urls").fetchone()
        return bool(row[0]) and not row[1]

    def new_generation(self) -> int:
        """Start refreshing a finished crawl: the next generation's number."""
        generation = self.generation + 1
        self.set_setting("generation", str(generation))
        self._generation = generation
        return generation

    def add(self, url: str, depth: int, found_from: str | None = None, *,
            size: int | None = None, modified: float | None = None) -> bool:
        """Queue ``url`` unless this generation found it already (one done in an older
        generation is queued again, to be checked); whether it was queued. ``size`` and
        ``modified`` are what the listing naming it says."""
        return self.add_many([(url, depth, found_from, size, modified)]) == 1

    def add_many(self, found: Iterable[tuple[str, int, str | None]
                                       | tuple[str, int, str | None, int | None,
                                               float | None]
                                       | tuple[str, int, str | None, int | None,
                                               float | None, str | None]],
                 *, settle: str | None = None) -> int:
        """Queue many URLs in one transaction (as :meth:`add`); how many were queued
        or settled. A sixth item is a symbolic link's target (the URL is the link).

        With ``settle`` (the URL of the listing naming them), a URL of that listing's
        server (scheme, host and port) done in an older generation that the listing shows
        unchanged is marked done and unchanged in this generation in the same
        statement (as :meth:`unchanged` would after taking it): an article, or a file
        whose listed size and time are those it had when saved
        (:func:`~anyurl.mirror.refresh.unchanged_by_listing`, the same rule in SQL).
        A refresh of an archive then costs one statement per listed entry, in one
        transaction per listing, for the entries that did not change, instead of a
        queueing, a taking, an entry and a mark each. Only the listing's own server's
        URLs: that server passed the gate when the listing was fetched (robots.txt is
        HTTP's, whose links state no size or time and name no article).
        """
        now = time.time()
        generation = self.generation
        server = None if settle is None else _server_of(settle)

        # Named parameters: :settle is read several times (numbered ones given as a
        # sequence are deprecated by sqlite3 from Python 3.12 and an error in 3.14).
        def rows() -> Iterator[dict[str, object]]:
            for item in found:
                size, modified = (item[3], item[4]) if len(item) >= 5 else (None, None)
                target = item[5] if len(item) == 6 else None
                settling = server is not None and _server_of(item[0]) == server
                yield {"url": item[0], "depth": item[1], "found_from": item[2],
                       "added": now, "generation": generation, "size": size,
                       "modified": modified, "target": target, "settle": settling}

        with self._db:
            self._db.execute("BEGIN")
            # one statement run over all rows (its rowcount is their sum), not a call each
            queued: int = self._db.executemany(_ADD, rows()).rowcount
        return queued

    def take(self, skip_hosts: frozenset[str] = frozenset()) -> Entry | None:
        """The oldest queued URL (not of ``skip_hosts``, when others wait), now running."""
        taken = self.take_batch(skip_hosts, 1)
        return taken[0] if taken else None

    def take_batch(self, skip_hosts: frozenset[str] = frozenset(),
                   limit: int = 1) -> list[Entry]:
        """Up to ``limit`` queued URLs of one server (scheme, host and port), the oldest
        first, now running, in one transaction: a worker fetches them as one batch (a
        pipelined connection). The server is the oldest queued URL's, or when its host
        is in ``skip_hosts`` (busy), the oldest of another host's, if any waits. A crawl
        killed before the batch is done puts it back (:meth:`recover`)."""
        window = max(64, 2 * limit)
        rows = self._db.execute(
            "SELECT url, depth, found_from, kind, file, sha256, size, etag, last_modified, "
            "saved_size, saved_modified, listed_size, listed_modified, content_type, "
            "listed_target, warc_id, warc_uri, warc_date, warc_digest FROM urls "
            "WHERE status = 'queued' "
            "ORDER BY added, rowid LIMIT ?", (window,)).fetchall()
        if not rows:
            return []
        chosen = rows[0]
        if skip_hosts:
            for row in rows:
                if _host_of(row[0]) not in skip_hosts:
                    chosen = row
                    break
        server = _server_of(chosen[0])
        batch = [row for row in rows if _server_of(row[0]) == server][:max(1, limit)]
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany("UPDATE urls SET status = 'running' WHERE url = ?",
                                 [(row[0],) for row in batch])
        return [_entry(row) for row in batch]

    def recorded(self, marks: Iterable[Done | Unchanged | Failed],
                 warc_end: tuple[str, int] | None = None,
                 manifest_end: int | None = None) -> None:
        """Record many finished URLs (as :meth:`done`, :meth:`unchanged` and
        :meth:`failed` do), the end of the WARC's last record and the manifest's size
        after their lines, in one transaction: a batch's bookkeeping costs one commit,
        not one per URL. A crawl killed before it runs fetches those URLs again, and
        cuts the archive and the manifest back to the last ends committed, so no URL
        is archived or listed twice."""
        now = time.time()
        done: list[tuple[object, ...]] = []
        records: list[tuple[object, ...]] = []
        unchanged: list[tuple[object, ...]] = []
        failed: list[tuple[object, ...]] = []
        for mark in marks:
            if isinstance(mark, Done):
                saved = mark.saved
                done.append((mark.file, mark.size, mark.sha256, mark.kind, now, mark.outcome,
                             saved.content_type, saved.etag, saved.last_modified, mark.url))
                if saved.warc is not None:
                    records.append((*saved.warc, mark.url))
            elif isinstance(mark, Unchanged):
                unchanged.append((now, mark.url))
            else:
                failed.append((mark.exit_code, mark.error, now, mark.url))
        with self._db:
            self._db.execute("BEGIN")
            if done:
                self._db.executemany(_DONE, done)
            if records:
                self._db.executemany(_RECORD, records)
            if unchanged:
                self._db.executemany(_UNCHANGED, unchanged)
            if failed:
                self._db.executemany(_FAILED, failed)
            self._keep_warc_end(Saved(warc_end=warc_end))
            if manifest_end is not None:
                self.set_setting("manifest_end", str(manifest_end))

    def done(self, url: str, *, file: str | None, size: int, sha256: str | None,
             kind: str | None, outcome: str | None = None, saved: Saved | None = None) -> None:
        """Record a completed URL: this generation does not fetch it again. ``saved``
        says what else to keep (validators, the WARC record); its ``warc_end`` is kept
        in the same transaction."""
        saved = saved or Saved()
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute(_DONE, (file, size, sha256, kind, time.time(), outcome,
                                     saved.content_type, saved.etag, saved.last_modified,
                                     url))
            if saved.warc is not None:
                self._db.execute(_RECORD, (*saved.warc, url))
            self._keep_warc_end(saved)

    def unchanged(self, url: str, saved: Saved | None = None) -> None:
        """Record a URL a refresh found unchanged: its file, digest and payload record
        stay; the listing's facts of this time are the saved ones now."""
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute(_UNCHANGED, (time.time(), url))
            self._keep_warc_end(saved or Saved())

    def _keep_warc_end(self, saved: Saved) -> None:
        if saved.warc_end is not None:
            self._db.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                             ("warc_end", json.dumps(list(saved.warc_end))))

    def manifest_end(self) -> int | None:
        """The manifest's size after the lines of the last URLs recorded, or None
        (a state that never noted it)."""
        text = self.setting("manifest_end")
        return None if text is None else int(text)

    def warc_end(self) -> tuple[str, int] | None:
        """Where the last committed WARC record ends, (file, offset), or None."""
        text = self.setting("warc_end")
        if text is None:
            return None
        file, end = json.loads(text)
        return str(file), int(end)

    def gone(self, limit: int = 20) -> tuple[int, list[str]]:
        """URLs saved in an older generation that no listing of this one named: how
        many, and the first ``limit`` of them (their files are kept)."""
        where = ("FROM urls WHERE status = 'done' AND generation < ? "
                 "AND kind IS NOT 'redirect'")
        generation = self.generation
        count = self._db.execute(f"SELECT COUNT(*) {where}", (generation,)).fetchone()[0]
        sample = self._db.execute(f"SELECT url {where} ORDER BY rowid LIMIT ?",
                                  (generation, limit)).fetchall()
        return int(count), [str(row[0]) for row in sample]

    def outcomes(self) -> dict[str, int]:
        """This generation's done URLs by outcome (new, changed, unchanged)."""
        rows = self._db.execute(
            "SELECT outcome, COUNT(*) FROM urls WHERE status = 'done' AND generation = ? "
            "GROUP BY outcome", (self.generation,))
        return {str(outcome): int(n) for outcome, n in rows if outcome is not None}

    def failed(self, url: str, *, exit_code: int, error: str) -> None:
        """Record a URL that failed after its retries (run the crawl with --retry-failed
        to try them again)."""
        self._db.execute(_FAILED, (exit_code, error, time.time(), url))

    def requeue_failed(self) -> int:
        """Queue the failed URLs again; how many."""
        return self._db.execute(
            "UPDATE urls SET status = 'queued', error = NULL WHERE status = 'failed'").rowcount

    def counts(self) -> dict[str, int]:
        """URLs per status (queued, running, done, failed), and ``bytes`` done."""
        counts = {"queued": 0, "running": 0, "done": 0, "failed": 0}
        for status, n in self._db.execute("SELECT status, COUNT(*) FROM urls GROUP BY status"):
            counts[str(status)] = int(n)
        total = self._db.execute("SELECT COALESCE(SUM(size), 0) FROM urls "
                                 "WHERE status = 'done'").fetchone()[0]
        counts["bytes"] = int(total)
        return counts

    def status_of(self, url: str) -> str | None:
        """The status of ``url``, None if it was never found."""
        row = self._db.execute("SELECT status FROM urls WHERE url = ?", (url,)).fetchone()
        return None if row is None else str(row[0])

    def rows(self, status: str | None = None) -> list[dict[str, object]]:
        """Every row (of one status), as dictionaries: for reports and tests."""
        cursor = self._db.execute(
            "SELECT * FROM urls" + (" WHERE status = ?" if status else "") + " ORDER BY rowid",
            (status,) if status else ())
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _host_of(url: str) -> str:
    rest = url.partition("://")[2]
    return rest.split("/", 1)[0].rpartition("@")[2].lower()


def _entry(row: Sequence[Any]) -> Entry:
    """An :class:`Entry` of a row of :meth:`CrawlState.take_batch`'s query."""
    (url, depth, source, kind, file, sha256, size, etag, last_modified, saved_size,
     saved_modified, listed_size, listed_modified, content_type, target, *warc) = row
    previous = None
    if kind is not None:  # done before: a refresh checks it
        record = tuple(warc) if warc[0] is not None else None
        previous = Previous(sha256=sha256, size=size, kind=kind, file=file, etag=etag,
                            last_modified=last_modified, listed_size=saved_size,
                            listed_modified=saved_modified, content_type=content_type,
                            warc=record)
    return Entry(url, int(depth), source, previous, listed_size, listed_modified, target)


def _server_of(url: str) -> str:
    """``scheme://host:port`` of a stored URL (without its login), lowercased."""
    scheme, _, rest = url.partition("://")
    return scheme.lower() + "://" + rest.split("/", 1)[0].rpartition("@")[2].lower()
