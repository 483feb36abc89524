"""What a crawl records of its finished URLs: ``manifest.jsonl`` and the state's marks.

A finished URL's manifest line and its outcome (done, unchanged, failed) are kept until
the worker's batch ends, then :meth:`Ledger.flush` writes the lines and has the state
record the outcomes in one transaction, with where the last WARC record ends and the
manifest's size after the lines: a URL is done only once its line and its records are
written, and a crawl killed before that fetches it again, its manifest lines cut off
first (:meth:`Ledger.cut_manifest`) as the WARC writer cuts its records.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from anyurl.downloads.output import open_in_tree
from anyurl.errors import AnyURLError
from anyurl.mirror.state import CrawlState, Done, Failed, Unchanged
from anyurl.mirror.summary import ERRORS_KEPT, MirrorSummary
from anyurl.url import mask

__all__ = ["MANIFEST_NAME", "Ledger"]

MANIFEST_NAME = "manifest.jsonl"


class Ledger:
    """The manifest lines and outcomes of a crawl's finished URLs, until :meth:`flush`."""

    def __init__(self, root: Path, summary: MirrorSummary):
        self.root = root
        #: The run's summary: a failure is counted there (and a sample of them kept).
        self.summary = summary
        #: Outcomes and manifest lines of finished URLs, written by :meth:`flush`.
        self._pending: list[Done | Unchanged | Failed] = []
        self._pending_end: tuple[str, int] | None = None
        self._manifest_lines: list[str] = []

    def mark(self, mark: Done | Unchanged | Failed,
             warc_end: tuple[str, int] | None = None) -> None:
        """Keep a finished URL's outcome for the next :meth:`flush` (with WARC, called
        under the WARC lock, in the order of the records, with where its records end)."""
        self._pending.append(mark)
        if warc_end is not None:
            self._pending_end = warc_end

    def failed(self, url: str, error: AnyURLError,
               warc_end: tuple[str, int] | None = None) -> None:
        """Mark ``url`` failed with ``error``, counted in the run's summary."""
        self.mark(Failed(url, error.exit_code, str(error)), warc_end)
        summary = self.summary
        summary.failed_now += 1
        if not summary.first_exit_code:
            summary.first_exit_code = error.exit_code or 1
        if len(summary.errors) < ERRORS_KEPT:
            summary.errors.append((mask(url), str(error)))
            summary.failures.append((mask(url), error))

    def manifest(self, line: dict[str, object]) -> None:
        """A line for ``manifest.jsonl``, appended by :meth:`flush` (never through a
        link planted there) before the state marks its URL done."""
        self._manifest_lines.append(json.dumps(line) + "\n")

    def flush(self, state: CrawlState) -> None:
        """The manifest lines, then the outcomes of the URLs finished so far, in one
        transaction with the end of the last WARC record written: a URL is done only
        once its line and its records are written, and a crawl killed before this
        fetches it again (its records and its manifest line cut off first, by
        :meth:`cut_manifest` and the WARC writer's ``cut_at``)."""
        lines, self._manifest_lines = self._manifest_lines, []
        manifest_end: int | None = None
        if lines:
            fd = open_in_tree(self.root, self.root / MANIFEST_NAME,
                              os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            with open(fd, "a", encoding="utf-8") as manifest:
                manifest.write("".join(lines))
                manifest.flush()
                manifest_end = os.fstat(fd).st_size
        marks, self._pending = self._pending, []
        end, self._pending_end = self._pending_end, None
        if marks or end is not None or manifest_end is not None:
            state.recorded(marks, end, manifest_end)

    def cut_manifest(self, state: CrawlState) -> None:
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
