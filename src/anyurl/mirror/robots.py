"""robots.txt for HTTP crawls (RFC 9309), read through the resolver like any URL.

Parsed with the standard library's :mod:`urllib.robotparser` (imported only for a file
that has lines: it imports :mod:`urllib.request`, :mod:`http.client` and :mod:`email`,
2.2 MiB of a mirror's peak that a site without robots.txt never needs). One file per origin,
fetched once per crawl through the resolver's gate (so its port policy holds), at most
512 KiB: the workers of a crawl wait for the one fetch under way, and the file is kept
in the crawl's state with the time it was fetched, so a resumed crawl (or the next Dask
task of the same host) reads it from there rather than asking again, until it is
:data:`MAX_AGE` old (RFC 9309 2.4: caches SHOULD NOT be kept longer than 24 hours). As
RFC 9309 2.3.1 says: a 4xx answer (no file) allows everything; a server that cannot be
reached or answers 5xx disallows everything for now (the URLs fail and are retried on
the next run with ``--retry-failed``; that answer is not kept). A ``Crawl-delay`` line
(not in RFC 9309, but what site operators write to ask for fewer requests) sets the
pause between two requests to the host, when it is longer than ``--wait``.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol

import anyio

from anyurl.errors import (
    AnyURLError,
    ConnectFailed,
    HostNotResolved,
    PolicyRefused,
    ProxyError,
    RemoteFileNotFound,
)
from anyurl.mirror.paths import crawl_of
from anyurl.mirror.state import CrawlState
from anyurl.numbers import is_ascii_digits
from anyurl.resolver import Resolver
from anyurl.resource import ResourceInfo
from anyurl.url import URL

if TYPE_CHECKING:
    import urllib.robotparser

__all__ = ["MAX_AGE", "MAX_CRAWL_DELAY", "MAX_ROBOTS", "USER_AGENT", "Robots"]

MAX_ROBOTS = 512 << 10
USER_AGENT = "anyurl"
#: Seconds a kept robots.txt is used before it is fetched again.
MAX_AGE = 24 * 3600.0
#: The longest ``Crawl-delay`` honoured (a site asking for more is waited on this long).
MAX_CRAWL_DELAY = 60.0


def refuses_nothing(text: str) -> bool:
    """Whether a robots.txt of ``text`` allows every URL to every crawler: it has no
    ``Disallow`` line with a path (RFC 9309 2.2.2: an empty one disallows nothing; an
    empty file, or none at all, allows everything).

    Then the parser's ``can_fetch`` (a parse, unquote and quote of each URL) is not
    needed: a mirror of a site without robots.txt would ask it once per file.
    """
    for line in text.splitlines():
        name, _, value = line.split("#", 1)[0].partition(":")
        if name.strip().lower() == "disallow" and value.strip():
            return False
    return True


class _Rules(Protocol):
    """What a crawl asks of an origin's rules (:class:`urllib.robotparser.RobotFileParser`)."""

    def can_fetch(self, useragent: str, url: str) -> bool: ...

    def crawl_delay(self, useragent: str) -> str | None: ...


class _AllowAll:
    """The rules of an origin whose robots.txt is missing (a 4xx) or has no lines:
    what :class:`~urllib.robotparser.RobotFileParser` makes of such a file (every URL
    allowed, no ``Crawl-delay``), without importing it."""

    def can_fetch(self, useragent: str, url: str) -> bool:
        """Every URL may be fetched."""
        return True

    def crawl_delay(self, useragent: str) -> str | None:
        """No pause is asked."""
        return None


def _parsed(lines: list[str]) -> urllib.robotparser.RobotFileParser:
    """A robots.txt's rules, read by the standard library's parser."""
    import urllib.robotparser

    rules = urllib.robotparser.RobotFileParser()
    rules.parse(lines)
    return rules


def _rules_of(text: str) -> _Rules:
    """The rules of a robots.txt of ``text`` (its numbers checked first)."""
    if not text.strip():
        return _AllowAll()
    return _parsed(_ascii_numbers(text))


class Robots:
    """The robots.txt rules of the origins a crawl meets (kept in ``state`` when given)."""

    def __init__(self, resolver: Resolver, user_agent: str = USER_AGENT,
                 state: CrawlState | None = None,
                 archive: Callable[[ResourceInfo | AnyURLError, bytes],
                                   Awaitable[None]] | None = None):
        self.resolver = resolver
        #: Told each robots.txt answer as it came (the response's head and body, or the
        #: error answer and its page), for the crawl's archive; None: not archived.
        self.archive = archive
        self.user_agent = user_agent
        #: Where the files are kept between runs (the crawl's state), or None.
        self.state = state
        self._rules: dict[str, _Rules] = {}
        #: Origins whose robots.txt refuses nothing (none, or no Disallow with a
        #: path): their URLs are not matched one by one.
        self._open: set[str] = set()
        self._locks: dict[str, anyio.Lock] = {}
        #: Origins whose robots.txt could not be asked at all (no answer: the host is not
        #: resolved, the connection refused): the error, which each URL there fails with.
        self._unreachable: dict[str, AnyURLError] = {}

    async def allows(self, url: URL) -> bool:
        """Whether robots.txt lets this crawler fetch ``url`` (always, for non-HTTP).

        When the server cannot be reached at all, the error of that (exit 6, 7 ...) is
        raised, for this URL and every later one of the origin: its URLs fail as the
        fetch itself would, not as "disallowed" with no exit status."""
        if not crawl_of(url.scheme).robots:
            return True
        origin = f"{url.scheme}://{(url.host or '').lower()}:{url.effective_port}"
        if origin in self._open:
            return True
        rules = self._rules.get(origin)
        if rules is None:
            # One fetch per origin: the other workers wait for it rather than ask too.
            async with self._locks.setdefault(origin, anyio.Lock()):
                rules = self._rules.get(origin)
                if rules is None and origin not in self._unreachable:
                    try:
                        rules, text = await self._load(url, origin)
                    except AnyURLError as exc:
                        self._unreachable[origin] = exc
                        raise
                    self._rules[origin] = rules
                    if text is not None and refuses_nothing(text):
                        self._open.add(origin)
            if rules is None:
                raise self._unreachable[origin]
        return rules.can_fetch(self.user_agent, str(url))

    def crawl_delay(self, url: URL) -> float:
        """The ``Crawl-delay`` (seconds between two requests) that the robots.txt read for
        ``url``'s origin asks of this crawler, capped at :data:`MAX_CRAWL_DELAY`; 0 when
        it asks none (or was not read: call :meth:`allows` first)."""
        origin = f"{url.scheme}://{(url.host or '').lower()}:{url.effective_port}"
        rules = self._rules.get(origin)
        if rules is None:
            return 0.0
        try:
            delay = rules.crawl_delay(self.user_agent)
        except (TypeError, ValueError):
            return 0.0
        if delay is None:
            return 0.0
        try:
            return min(max(float(delay), 0.0), MAX_CRAWL_DELAY)
        except (TypeError, ValueError):
            return 0.0

    async def _load(self, url: URL, origin: str) -> tuple[_Rules, str | None]:
        """The rules kept in the state when fresh, else fetched (and kept when final),
        with their text (None: the file could not be had, and everything is refused)."""
        kept = self.state.robots(origin) if self.state is not None else None
        if kept is not None and time.time() - kept[1] < MAX_AGE:
            return _rules_of(kept[0]), kept[0]
        body = await self._fetch(url)
        if body is None:
            return _parsed(["User-agent: *", "Disallow: /"]), None  # unreachable: not kept
        if self.state is not None:
            self.state.set_robots(origin, body, time.time())
        return _rules_of(body), body

    async def _fetch(self, url: URL) -> str | None:
        """The file's text ("" when there is none: 4xx); None when the server answered
        with an error (5xx: RFC 9309 2.3.1.4, everything is disallowed). An error with no
        answer from the server (not resolved, refused, timed out) is raised."""
        port = f":{url.port}" if url.port is not None else ""
        where = f"{url.scheme}://{url.host}{port}/robots.txt"
        try:
            async with self.resolver.open(where) as res:
                body = await res.read(limit=MAX_ROBOTS)
                if self.archive is not None:
                    await self.archive(res.info, body)
                return body.decode("utf-8", "replace")
        except AnyURLError as exc:
            if self.archive is not None and exc.answer is not None:
                page = exc.answer.get("body")
                await self.archive(exc, page if isinstance(page, bytes) else b"")
            status = exc.status or 0
            if isinstance(exc, RemoteFileNotFound) or 400 <= status < 500:
                return ""  # no robots.txt: everything is allowed
            if exc.status is None and isinstance(exc, _NO_ANSWER):
                raise
            return None


#: Errors that mean no server answered for robots.txt (so none will for the URL): the
#: URL fails with them, as its own fetch would.
_NO_ANSWER = (HostNotResolved, ConnectFailed, ProxyError, PolicyRefused)

#: The fields urllib.robotparser reads numbers from, with ``int()``.
_NUMBER_FIELDS = ("crawl-delay", "request-rate")


def _ascii_numbers(text: str) -> list[str]:
    """``text``'s lines without a ``Crawl-delay`` or ``Request-rate`` whose numbers are not
    ASCII digits (at most 18 of them): urllib.robotparser tests them with ``isdigit()``
    and converts them with ``int()``, so ``Crawl-delay: ²`` raised ValueError from the
    parse (a mirror stopped there, and again on each resume: the file is kept) and
    ``Crawl-delay: ٣`` was taken as 3. Such a line is ignored, as the parser ignores any
    other value that is not a number."""
    kept = []
    for line in text.splitlines():
        field, colon, value = line.partition(":")
        if colon and field.strip().lower() in _NUMBER_FIELDS:
            numbers = value.split("#", 1)[0].strip().split("/")
            if not all(is_ascii_digits(n.strip()) and len(n.strip()) <= 18 for n in numbers):
                continue
        kept.append(line)
    return kept
