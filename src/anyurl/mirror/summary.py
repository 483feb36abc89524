"""What a run of a crawl reports: :class:`MirrorSummary` (URLs found, done and failed,
bytes, links, what a refresh found), plain data filled in by the crawl's parts
(:mod:`.engine`, :mod:`.ledger`, :mod:`.outcomes`, :mod:`.follow`) as they go; a
cluster's worker sends its fields back (:mod:`.scale`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from anyurl.errors import AnyURLError

__all__ = ["ERRORS_KEPT", "MirrorSummary"]

#: Failures a run keeps in :attr:`MirrorSummary.errors` (all of them are in the state).
ERRORS_KEPT = 20


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

