"""robots.txt for HTTP crawls (RFC 9309), read through the resolver like any URL.

Parsed with the standard library's :mod:`urllib.robotparser`. One file per origin,
fetched once per crawl through the resolver's gate (so its port policy holds), at most
512 KiB. As RFC 9309 2.3.1 says: a 4xx answer (no file) allows everything; a server
that cannot be reached or answers 5xx disallows everything for now (the URLs fail and
are retried on the next run with ``--retry-failed``).
"""

from __future__ import annotations

import urllib.robotparser

from anyurl.errors import AnyURLError, RemoteFileNotFound
from anyurl.resolver import Resolver
from anyurl.url import URL

__all__ = ["MAX_ROBOTS", "USER_AGENT", "Robots"]

MAX_ROBOTS = 512 << 10
USER_AGENT = "anyurl"


class Robots:
    """The robots.txt rules of the origins a crawl meets."""

    def __init__(self, resolver: Resolver, user_agent: str = USER_AGENT):
        self.resolver = resolver
        self.user_agent = user_agent
        self._rules: dict[tuple[str, str, int | None], urllib.robotparser.RobotFileParser] = {}

    async def allows(self, url: URL) -> bool:
        """Whether robots.txt lets this crawler fetch ``url`` (always, for non-HTTP)."""
        if url.scheme not in ("http", "https"):
            return True
        origin = (url.scheme, (url.host or "").lower(), url.effective_port)
        rules = self._rules.get(origin)
        if rules is None:
            rules = self._rules[origin] = await self._fetch(url)
        return rules.can_fetch(self.user_agent, str(url))

    async def _fetch(self, url: URL) -> urllib.robotparser.RobotFileParser:
        rules = urllib.robotparser.RobotFileParser()
        port = f":{url.port}" if url.port is not None else ""
        where = f"{url.scheme}://{url.host}{port}/robots.txt"
        try:
            async with self.resolver.open(where) as res:
                text = (await res.read(limit=MAX_ROBOTS)).decode("utf-8", "replace")
        except AnyURLError as exc:
            status = exc.status or 0
            if isinstance(exc, RemoteFileNotFound) or 400 <= status < 500:
                rules.parse([])  # no robots.txt: everything is allowed
            else:
                rules.parse(["User-agent: *", "Disallow: /"])
            return rules
        rules.parse(text.splitlines())
        return rules
