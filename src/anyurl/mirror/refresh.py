"""Refreshing a finished mirror: what changed on the server since the last run.

Running ``anyurl mirror`` again over a crawl that finished starts a new *generation*:
the start URLs are fetched again, and every URL their listings still name is checked
once more, the cheapest way its scheme allows (what ``wget -N`` does for HTTP and FTP):

* **HTTP**: a conditional request, ``If-None-Match`` with the stored ``ETag`` and
  ``If-Modified-Since`` with the stored ``Last-Modified`` (RFC 9110 13.1); ``304 Not
  Modified`` means unchanged, and nothing is transferred.
* **A listing that states size and time** (FTP ``MLSD`` facts, :class:`anyurl.links.Link`'s
  ``size`` and ``modified``): both equal to last time's means unchanged, and the file is
  not fetched at all.
* **A news article** is immutable (RFC 5536 3.1.3: an article is never changed, only
  cancelled or superseded by a new one): one saved before is not fetched again.
* **Everything else** (Gopher, WAIS, Prospero, an FTP server without ``MLSD``, an HTTP
  server without validators) is fetched again, and the SHA-256 of the new bytes against
  the stored one says whether it changed.

Listings, menus and pages are always fetched again (they are how new and deleted files
are found). A URL saved before that no listing names any more is *gone*: reported, and
its file kept. This module holds the decisions; the engine applies them.
"""

from __future__ import annotations

import email.utils
from dataclasses import dataclass
from typing import Final

__all__ = ["CHANGED", "NEW", "UNCHANGED", "Previous", "conditional_headers", "http_time",
           "unchanged_by_listing"]

#: What a URL turned out to be in this generation.
NEW: Final = "new"
CHANGED: Final = "changed"
UNCHANGED: Final = "unchanged"


@dataclass(frozen=True)
class Previous:
    """What the last completed fetch of a URL left in the crawl state."""

    sha256: str | None
    size: int | None
    kind: str | None
    #: The saved file, relative to the mirror's root (a listing's is inside its
    #: directory: ``pub/.listing``), None for a redirect.
    file: str | None = None
    #: HTTP validators of the saved response.
    etag: str | None = None
    last_modified: str | None = None
    #: The size and time the listing stated when the file was saved.
    listed_size: int | None = None
    listed_modified: float | None = None
    content_type: str | None = None
    #: The WARC record holding the payload (record id, target URI, date, payload
    #: digest), which a revisit record refers to; None when it was not archived.
    warc: tuple[str, str, str, str | None] | None = None


def conditional_headers(previous: Previous) -> tuple[tuple[str, str], ...]:
    """The request fields that let an HTTP server answer ``304`` for an unchanged
    resource: ``If-None-Match`` (the stronger check) and ``If-Modified-Since``."""
    fields: list[tuple[str, str]] = []
    if previous.etag:
        fields.append(("If-None-Match", previous.etag))
    if previous.last_modified:
        fields.append(("If-Modified-Since", previous.last_modified))
    return tuple(fields)


def unchanged_by_listing(previous: Previous, size: int | None, modified: float | None) -> bool:
    """Whether the listing's facts show the file unchanged: the same size and the same
    time as when it was saved (both known; a listing without them proves nothing)."""
    if size is None or modified is None:
        return False
    if previous.listed_size is None or previous.listed_modified is None:
        return False
    return size == previous.listed_size and modified == previous.listed_modified


def http_time(value: str | None) -> float | None:
    """POSIX seconds of an HTTP date (``Last-Modified``), None when it is not one."""
    if not value or not value.isascii():  # the email package reads other scripts' digits
        return None
    try:
        return email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
