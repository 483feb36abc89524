"""What a batch of requests asks of the handler that runs it: :class:`HandlerSeam`.

A route's batch is pipelined over HTTP/1.1 (:mod:`.batch`) or multiplexed over HTTP/2
(:mod:`.multiplex`), but what its responses mean, how its requests are written and
where its connections come from are the handler's, the same as for a single request.
The handler hands those in as one small object, so the batch modules never import the
handler (nor reach into it): the import graph stays a tree, and a batch can be driven
in a test with a scripted connection in place of a real one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anyurl.errors import AnyURLError
    from anyurl.resource import Resource
    from anyurl.schemes.base import FetchOptions, Trace
    from anyurl.schemes.http.interfaces import Connection, Response
    from anyurl.schemes.http.pipeline import PipelinedConnection
    from anyurl.schemes.http.routes import Route
    from anyurl.url import URL

__all__ = ["HandlerSeam"]


class HandlerSeam:
    """The handler's parts a batch uses (a plain class: created per batch, cheaply)."""

    __slots__ = ("answer", "connect", "headers", "keep", "open", "pipe", "serial_routes")

    def __init__(
        self, *,
        connect: Callable[[Route, URL, Trace | None, bool, bool], Awaitable[Connection]],
        pipe: Callable[[Route, URL, Trace | None], Awaitable[PipelinedConnection]],
        headers: Callable[[URL, Route, FetchOptions], list[tuple[str, str]]],
        answer: Callable[[URL, Connection, Response, FetchOptions, str, dict[str, Any]],
                         Awaitable[Resource | AnyURLError]],
        open: Callable[[URL, FetchOptions], Awaitable[Resource]],
        keep: Callable[[Connection], Awaitable[None]],
        serial_routes: set[Route],
    ):
        #: A pooled or new connection for a route; HTTP/2 when the first flag asks and
        #: the server speaks it, the second: with prior knowledge on http
        #: (:meth:`.connect.Connector.connection`).
        self.connect = connect
        #: A clean HTTP/1.1 connection to pipeline on (pooled or new).
        self.pipe = pipe
        #: A request's headers, its credentials included, as a single request's.
        self.headers = headers
        #: What an answered response means, its error returned: the one redirect loop
        #: started from it, or the resource (:meth:`.redirects.Redirects.answer`).
        self.answer = answer
        #: One URL alone, as the handler opens it (a route served one at a time).
        self.open = open
        #: Keep a connection standing between responses in the pool, else close it.
        self.keep = keep
        #: Routes served one request at a time from now on (the handler's own set).
        self.serial_routes = serial_routes
