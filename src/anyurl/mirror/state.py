"""The crawl's frontier and record, in SQLite (the standard library's): resumable.

One row per URL ever found: ``queued`` until a worker takes it (``running``), then
``done`` or ``failed``. Every change is committed at once (WAL journal), so a crawl
killed at any point (Ctrl-C, ``kill -9``, a power cut) loses at most the transfers that
were running: on the next start they go back to ``queued`` (their ``.part`` files are
continued), and a ``done`` URL is never fetched again.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from anyurl.errors import LocalWriteError

__all__ = ["CrawlState", "Entry"]

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
#: The files SQLite keeps beside the database (WAL journal, shared memory, rollback).
_SIDE_FILES = ("-wal", "-shm", "-journal")


@dataclass(frozen=True)
class Entry:
    """A URL taken from the frontier: where it was found and how deep."""

    url: str
    depth: int
    found_from: str | None


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
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

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

    def add(self, url: str, depth: int, found_from: str | None = None) -> bool:
        """Queue ``url`` unless it was ever found before; whether it is new."""
        cursor = self._db.execute(
            "INSERT OR IGNORE INTO urls (url, depth, status, found_from, added) "
            "VALUES (?, ?, 'queued', ?, ?)", (url, depth, found_from, time.time()))
        return cursor.rowcount == 1

    def add_many(self, found: Iterable[tuple[str, int, str | None]]) -> int:
        """Queue many URLs in one transaction; how many were new."""
        now = time.time()
        with self._db:
            self._db.execute("BEGIN")
            new = 0
            for url, depth, source in found:
                new += self._db.execute(
                    "INSERT OR IGNORE INTO urls (url, depth, status, found_from, added) "
                    "VALUES (?, ?, 'queued', ?, ?)", (url, depth, source, now)).rowcount
        return new

    def take(self, skip_hosts: frozenset[str] = frozenset()) -> Entry | None:
        """The oldest queued URL (not of ``skip_hosts``, when others wait), now running."""
        rows = self._db.execute(
            "SELECT url, depth, found_from FROM urls WHERE status = 'queued' "
            "ORDER BY added, rowid LIMIT 64").fetchall()
        if not rows:
            return None
        chosen = rows[0]
        if skip_hosts:
            for row in rows:
                if _host_of(row[0]) not in skip_hosts:
                    chosen = row
                    break
        self._db.execute("UPDATE urls SET status = 'running' WHERE url = ?", (chosen[0],))
        return Entry(chosen[0], int(chosen[1]), chosen[2])

    def done(self, url: str, *, file: str | None, size: int, sha256: str | None,
             kind: str | None) -> None:
        """Record a completed URL: it is never fetched again by this crawl."""
        self._db.execute(
            "UPDATE urls SET status = 'done', file = ?, size = ?, sha256 = ?, kind = ?, "
            "exit_code = 0, error = NULL, finished = ? WHERE url = ?",
            (file, size, sha256, kind, time.time(), url))

    def failed(self, url: str, *, exit_code: int, error: str) -> None:
        """Record a URL that failed after its retries (run the crawl with --retry-failed
        to try them again)."""
        self._db.execute(
            "UPDATE urls SET status = 'failed', exit_code = ?, error = ?, finished = ? "
            "WHERE url = ?", (exit_code, error, time.time(), url))

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
