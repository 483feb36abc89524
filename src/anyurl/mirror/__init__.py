"""Recursive retrieval of every scheme: ``anyurl mirror``, resumable, polite, archived.

* :mod:`.state` keeps the crawl in SQLite (what was found, what is done), one file beside
  the mirror, so that the same command after Ctrl-C or ``kill -9`` goes on where it
  stopped and never fetches a completed URL twice;
* :mod:`.scope` decides which found URLs belong to the crawl;
* :mod:`.paths` maps a URL to its place in the local tree;
* :mod:`.robots` honours robots.txt for HTTP;
* :mod:`.engine` fetches through the resolver's one gate and the downloader (retries,
  ``.part`` files, rate limits), asks each scheme's handler for the links of what it
  fetched (:meth:`~anyurl.schemes.base.SchemeHandler.links`), and writes the manifest
  and, if asked, a WARC file.
"""

from anyurl.mirror.engine import Mirror, MirrorOptions, MirrorSummary
from anyurl.mirror.scope import Scope

__all__ = ["Mirror", "MirrorOptions", "MirrorSummary", "Scope"]
