"""Idle connections kept per route for the next request (keep-alive, HTTP/2 reuse).

A connection comes back after a response only when it says the exchange ended cleanly
(:attr:`~.interfaces.Connection.reusable`); anything else is closed. At most
:data:`MAX_IDLE_PER_ROUTE` wait per route. An HTTP/1.1 request never takes an HTTP/2
connection (it did not ask for HTTP/2); an HTTP/2 request takes either.
"""

from __future__ import annotations

from anyurl.schemes.http.interfaces import Connection
from anyurl.schemes.http.routes import Route

__all__ = ["MAX_IDLE_PER_ROUTE", "ConnectionPool"]

#: Idle connections kept per route.
MAX_IDLE_PER_ROUTE = 4


class ConnectionPool:
    """The idle connections of one handler, by route."""

    def __init__(self, max_idle_per_route: int = MAX_IDLE_PER_ROUTE):
        self.max_idle_per_route = max_idle_per_route
        self._idle: dict[Route, list[Connection]] = {}

    def take(self, route: Route, *, http2: bool) -> Connection | None:
        """The most recently used idle connection for ``route``, or None."""
        idle = self._idle.get(route, [])
        for conn in reversed(idle):
            if http2 or conn.http_version == "1.1":
                idle.remove(conn)
                return conn
        return None

    def has_http2(self, route: Route) -> bool:
        """Whether an idle HTTP/2 connection waits for ``route``."""
        return any(conn.http_version == "2" for conn in self._idle.get(route, []))

    async def release(self, conn: Connection) -> None:
        """Keep ``conn`` for the next request if it is reusable and there is room."""
        if conn.reusable:
            conn.next_cycle()
            idle = self._idle.setdefault(conn.key, [])
            if len(idle) < self.max_idle_per_route:
                idle.append(conn)
                return
        await conn.aclose()

    async def keep(self, conn: Connection) -> None:
        """Keep ``conn``, ready for a request as it is (a pipelined batch's connection
        after its last response), if there is room; else close it."""
        idle = self._idle.setdefault(conn.key, [])
        if len(idle) < self.max_idle_per_route:
            idle.append(conn)
            return
        await conn.aclose()

    async def aclose(self) -> None:
        """Close every idle connection."""
        idle, self._idle = self._idle, {}
        for conns in idle.values():
            for conn in conns:
                await conn.aclose()
