"""Recursive retrieval of every scheme: ``anyurl mirror``, resumable, polite, archived.

* :mod:`.state` keeps the crawl in SQLite (what was found, what is done), one file beside
  the mirror, so that the same command after Ctrl-C or ``kill -9`` goes on where it
  stopped and never fetches a completed URL twice;
* :mod:`.scope` decides which found URLs belong to the crawl;
* :mod:`.paths` maps a URL to its place in the local tree;
* :mod:`.robots` honours robots.txt for HTTP;
* :mod:`.engine` runs the crawl loop: workers take one server's URLs a batch at a time,
  robots.txt and the per-host politeness let them through;
* :mod:`.fetching` fetches them through the resolver's one gate and the downloader
  (retries, ``.part`` files, rate limits), :mod:`.watch` keeping each one's dialogue;
* :mod:`.outcomes` keeps what each fetch brought (a file, a redirect, a 304, an error
  answer), :mod:`.files` its file in the tree, :mod:`.follow` queues the links each
  scheme's handler names (:meth:`~anyurl.schemes.base.SchemeHandler.links`);
* :mod:`.ledger` writes the manifest and records the outcomes, :mod:`.archive` the WARC
  records, if asked; :mod:`.summary` is what a run reports.
"""

from anyurl.mirror.engine import Mirror, MirrorOptions, MirrorSummary
from anyurl.mirror.scope import Scope

__all__ = ["Mirror", "MirrorOptions", "MirrorSummary", "Scope"]
