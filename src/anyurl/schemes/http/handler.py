"""The HTTP handler: what HTTP responses mean for the http and https schemes (RFC 1738 3.3).

The handler speaks to a :class:`~.interfaces.Connection` (HTTP/1.1 in
:mod:`.http11`, HTTP/2 in :mod:`.http2`), taken from the :mod:`.pool` or opened along a
:class:`~.routes.Route` (through a :mod:`.tunnel` when a gateway says so); it never
branches on the connection's type. What stays here is what the responses mean:

* **An error page is never the file.** A 4xx/5xx response becomes an exception (404/410
  -> :class:`RemoteFileNotFound`, 401/403 -> :class:`LoginDenied`, others
  :class:`ServerError` with the status) unless the caller asks for the body
  (``HTTPOptions(keep_error_body=True)``), in which case the status is in ``info.extra``.
* **A resume never splices two versions.** ``Range`` goes out with ``If-Range`` (the
  validator of the partial data); a ``200`` answer means "start over" and the resource
  says so with ``offset == 0``. A ``206`` whose ``Content-Range`` starts elsewhere than
  asked is refused. ``416`` with the size equal to the offset means "already complete".
* **Redirects stay within HTTP, and pass the gate.** A ``Location`` naming another
  scheme (``ftp:``, ``file:``) is not followed: the error names the target, as curl
  refuses it too. Every other target passes the resolver's gate like a first URL: the
  section 6 port policy (a redirect to port 25 is refused), the registry and the
  gateway routing; when the gate gives the target to another handler (a gateway, a
  plug-in), it continues there with the chain so far (``FetchOptions.redirect_chain``).
  Credentials go only to the origin they were given for: the URL's login to its
  scheme, host and port, and the caller's ``Authorization``, ``Cookie`` and
  ``Proxy-Authorization`` headers to the first URL's, as curl does; any change of
  origin (https -> http included) leaves them behind unless
  ``HTTPOptions(location_trusted=True)`` (``--location-trusted``).
* **Cookies obey their own rules.** With ``HTTPOptions(cookies=jar)`` each request,
  a redirect target's too, carries what the jar (:mod:`anyurl.cookies`, the standard
  library's policy) holds for its URL, and each response's ``Set-Cookie`` is kept.

A pooled connection the server has closed meanwhile shows as a connection lost before
the response, and the request is sent again once on a fresh connection. Gateways
(RFC 1738 section 4) reuse this handler with a router that sends requests to the
gateway (``GET wais://host/db?q HTTP/1.1``) or through its ``CONNECT`` tunnel.
"""

from __future__ import annotations

import dataclasses
import ssl
import time
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Iterator
from contextlib import aclosing
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import unquote, urljoin

import anyio
import h11

from anyurl.config import Config
from anyurl.downloads.names import disposition_filename
from anyurl.errors import (
    AnyURLError,
    BadContentEncoding,
    ConnectionLost,
    LoginDenied,
    OptionError,
    PartialTransfer,
    ProtocolError,
    RemoteFileNotFound,
    ResumeFailed,
    ServerError,
    TooManyRedirects,
    TransferTimeout,
    UnsupportedScheme,
    URLError,
)
from anyurl.net.bulk import RawBody
from anyurl.net.tls import make_ssl_context
from anyurl.net.transport import DIRECT, Dialer
from anyurl.numbers import ascii_int, is_ascii_digits
from anyurl.options import HTTPOptions
from anyurl.resource import Resource, ResourceInfo, iterate_bytes
from anyurl.schemes.base import FetchOptions, Gate, SchemeHandler, Trace
from anyurl.schemes.http.decoding import (
    CodingError,
    Decoder,
    accept_encoding,
    decoder_for,
)
from anyurl.schemes.http.forms import Form
from anyurl.schemes.http.http11 import HTTP11Connection
from anyurl.schemes.http.interfaces import Body, Connection, Response
from anyurl.schemes.http.pipeline import (
    FAR,
    MAX_DEPTH,
    NEAR_DEPTH,
    Exchange,
    Malformed,
    PipelinedConnection,
    keeps_alive,
    moved_on,
)
from anyurl.schemes.http.pool import MAX_IDLE_PER_ROUTE, ConnectionPool
from anyurl.schemes.http.routes import (
    HTTP_SCHEMES,
    USER_AGENT,
    Route,
    Router,
    basic_credentials,
    direct_route,
    host_header,
    mask_header,
    mask_text,
    masked_target,
    origin,
    request_target,
)
from anyurl.schemes.http.tunnel import tunnel_to
from anyurl.url import URL, HTTPPath, parse

if TYPE_CHECKING:  # links are a mirror's: not imported by every start
    from anyurl.links import Link

__all__ = ["ORIGIN_BOUND_HEADERS", "REDIRECT_STATUSES", "HTTPHandler", "status_error",
           "with_jar_cookies", "without_origin_headers"]

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


class _BodyEnd:
    """Who gives a response's connection back: the body when read to its end (to the
    pool), otherwise whoever closes first (the body's ``finally`` or the Resource, which
    also covers a resource closed before its first chunk, when the body never ran)."""

    def __init__(self, conn: Connection):
        self.conn = conn
        self.released = False

    async def close(self) -> None:
        if not self.released:
            self.released = True
            await self.conn.aclose()


@dataclasses.dataclass
class _Step:
    """One URL of a pipelined batch: its request bytes once written, or its error."""

    url: URL
    data: bytes | None = None
    headers: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    error: AnyURLError | None = None
    #: Sent while another request was unanswered (pipelined).
    behind: bool = False
    #: The headers as printed (passwords masked), when a template made them.
    masked: list[tuple[str, str]] | None = None
    #: The request-target as printed, when a template made the request.
    shown_target: str | None = None


@dataclasses.dataclass
class _Template:
    """A route's request for one ``Host``, built once: the bytes before and after the
    target, and the headers (as sent and masked). Only for requests whose headers do
    not vary by URL (no login in the URL, no netrc, no cookie jar)."""

    head: bytes
    tail: bytes
    headers: list[tuple[str, str]]
    masked: list[tuple[str, str]]


#: What a batch hands over for each URL, in order.
_Outcome = tuple[URL, Resource | AnyURLError]


class _PipelineRun:
    """One route's pipelined batch (:meth:`HTTPHandler._pipelined`): the state of its
    loop, and each turn of the loop cut where it decides something.

    Every hand-over is a ``yield`` of an async generator the loop yields on at once,
    so the caller sees the outcomes in the same order and at the same moments as
    from one function: a streamed body is read before the connection moves past it,
    and :func:`_release` withdraws a body in memory only once the caller moved on.
    """

    def __init__(self, handler: HTTPHandler, route: Route, urls: list[URL],
                 options: FetchOptions, method: str):
        self.handler = handler
        self.route = route
        self.options = options
        self.http = options.get(HTTPOptions)
        self.trace = options.trace
        self.method = method
        self.todo: deque[_Step] = deque(_Step(url) for url in urls)
        self.inflight: deque[_Step] = deque()
        self.pipe: PipelinedConnection | None = None
        self.depth = 1
        self.cap = NEAR_DEPTH  # until a round trip shows a long path
        self.sent_at: float | None = None
        self.keep = False
        self.templates: dict[tuple[str, str | None, int | None], _Template | None] = {}
        # The window's outcomes not handed over yet: a small body or an error is held
        # until the window is answered with nothing after it (see open_batch).
        self.held: deque[tuple[_Step, Resource | AnyURLError]] = deque()

    def prepare(self, step: _Step) -> None:
        """``step``'s request bytes, or its error (:meth:`HTTPHandler._prepare`)."""
        self.handler._prepare(step, self.route, self.options, self.http, self.method,
                              self.templates)

    def mis_answered(self, why: str) -> None:
        """The route is served one request at a time from now on."""
        self.handler._mis_answered(self.route, self.trace, why)

    def ask_again(self) -> None:
        """What the window answered, and what it still owes, goes back to be asked."""
        self.todo.extendleft(reversed([*(s for s, _ in self.held), *self.inflight]))
        self.held.clear()
        self.inflight.clear()

    async def drop_pipe(self) -> None:
        """Close the connection; the next turn opens another."""
        if self.pipe is not None:
            await self.pipe.aclose()
            self.pipe = None

    async def serially(self) -> AsyncGenerator[_Outcome, None]:
        """The route mis-answered: the window's URLs and the rest, one request at a time."""
        await self.drop_pipe()
        self.ask_again()
        while self.todo:
            step = self.todo.popleft()
            yield step.url, await self.handler._open_one(step.url, self.options)

    async def turn(self) -> AsyncGenerator[_Outcome, None]:
        """Connect if need be, send a window, read its first answer and act on it."""
        if self.pipe is None:
            failed = await self.connect()
            if failed is not None:
                step = self.todo.popleft()
                yield step.url, failed  # the next URL tries its own connection
                return
        pipe = self.pipe
        assert pipe is not None
        step, wire = self.window()
        pipe.stream.url = step.url
        try:
            response = await self.head(pipe, step, wire)
        except Malformed as exc:
            self.mis_answered(f"its bytes are not a response ({exc})")
            return
        except TransferTimeout as exc:
            if step.behind or len(self.inflight) > 1:
                self.mis_answered("it did not answer pipelined requests")
                return
            self.inflight.popleft()
            await self.drop_pipe()
            for item in _release(self.held):
                yield item
            yield step.url, exc
            return
        except AnyURLError as exc:  # closed or broken before this response
            async with aclosing(self.broken(pipe, exc)) as items:
                async for item in items:
                    yield item
            return
        if response is None:  # a request that could not be written
            self.inflight.popleft()
            assert step.error is not None
            self.held.append((step, step.error))
            return
        async with aclosing(self.answered(pipe, step, response)) as items:
            async for item in items:
                yield item

    async def connect(self) -> AnyURLError | None:
        """A connection to pipeline on, or why the first URL's connection failed."""
        first = self.todo[0]
        if first.data is None and first.error is None:
            # Before connecting, as open() does (its warnings come first).
            self.prepare(first)
        try:
            self.pipe = await self.handler._pipe(self.route, first.url, self.trace)
        except AnyURLError as exc:
            return exc
        self.depth = 1
        return None

    def window(self) -> tuple[_Step, bytearray]:
        """The window's requests as one write, and the step whose answer comes first.

        A new window only when the last is answered: a server that drops a request it
        received along with another (it reads one per read) then stays silent and is
        caught by the read timeout; had more requests followed, their answers would
        have been taken for the dropped one's.
        """
        wire = bytearray()
        while self.todo and (not self.inflight or wire) and len(self.inflight) < self.depth:
            step = self.todo.popleft()
            if step.data is None:
                self.prepare(step)
            self.inflight.append(step)
            step.behind = len(self.inflight) > 1
            if step.error is None:
                wire += step.data or b""
                if self.trace:
                    self.trace(f"> {self.method} {masked_target(step.url, self.route)} "
                               f"HTTP/1.1{' (pipelined)' if step.behind else ''}")
        return self.inflight[0], wire

    async def head(self, pipe: PipelinedConnection, step: _Step,
                   wire: bytearray) -> Response | None:
        """Send ``wire``, read ``step``'s response head (None: ``step`` was not sent).

        A window's first answer measures the path's round trip, which sets how wide
        windows may open.
        """
        if wire:
            await pipe.stream.send(bytes(wire))
            self.sent_at = time.monotonic()
        if step.error is not None:
            return None
        response = await pipe.head()
        if self.sent_at is not None and not step.behind:
            far = time.monotonic() - self.sent_at >= FAR
            self.cap = MAX_DEPTH if far else NEAR_DEPTH
        self.sent_at = None
        return response

    async def broken(self, pipe: PipelinedConnection,
                     exc: AnyURLError) -> AsyncGenerator[_Outcome, None]:
        """The connection closed or broke before a response: what came before stands;
        the window is sent again on a new one if this one answered anything, else
        its first URL has the error."""
        answered = pipe.answered or pipe.cycles
        await self.drop_pipe()
        for item in _release(self.held):  # what came before the close stands
            yield item
        self.todo.extendleft(reversed(self.inflight))
        self.inflight.clear()
        if answered:
            if self.trace:
                self.trace("* the server closed the connection with requests "
                           "unanswered; sending them again on a new one")
            return
        step = self.todo.popleft()
        yield step.url, exc

    async def answered(self, pipe: PipelinedConnection, step: _Step,
                       response: Response) -> AsyncGenerator[_Outcome, None]:
        """``step``'s response: held (a small body, an error) or handed over (a
        stream); then the window's end is checked for bytes nobody asked for."""
        whole, index, reused = self.small_body(pipe, response)
        exchange: Exchange | None = None
        if whole is None:
            try:
                exchange = pipe.exchange(response, self.method, step.url)
            except Malformed as exc:
                self.mis_answered(f"its framing is ambiguous ({exc})")
                return
        self.inflight.popleft()
        self.read_keep_alive(step, response)
        sent = self.sent(step)
        if whole is not None:
            self.held.append((step, _small_resource(step.url, response, index, whole,
                                                    reused, sent)))
        else:
            assert exchange is not None
            outcome = await self.handler._pipelined_outcome(
                step.url, exchange, response, self.options, self.method, sent)
            if isinstance(outcome, Resource):  # a stream: handed over now
                for item in _release(self.held):
                    yield item
                yield step.url, outcome
            await pipe.drain()
            if not isinstance(outcome, Resource):
                self.held.append((step, outcome))
        if not pipe.finished and (not self.inflight or not self.keep) and pipe.out_of_step():
            # Bytes with no request outstanding: this window's answers may each be the
            # one before's. Asked again one at a time (the next turn).
            self.mis_answered("it sent a response nobody asked for")
            self.ask_again()
            return
        if not self.inflight or not self.keep or pipe.finished:
            for item in _release(self.held):
                yield item
        if not self.keep or pipe.finished:
            await self.drop_pipe()
            self.todo.extendleft(reversed(self.inflight))
            self.inflight.clear()

    def small_body(self, pipe: PipelinedConnection,
                   response: Response) -> tuple[bytes | None, dict[str, str], bool]:
        """A plain 200's whole body when it is small and already read, the head as a
        dict, and whether the connection was reused; (None, {}, False) otherwise.

        Taken out of the read buffer only with no content coding to undo (none sent,
        or decoding off); a name given twice goes the general way (the reader decides
        what two lengths mean).
        """
        if response.status != 200 or self.method != "GET":
            return None, {}, False
        index = dict(response.headers)
        if (len(index) != len(response.headers) or "transfer-encoding" in index
                or (self.http.decode_content and index.get("content-encoding"))):
            return None, index, False
        reused = pipe.cycles > 0
        return pipe.whole_body(index.get("content-length")), index, reused

    def read_keep_alive(self, step: _Step, response: Response) -> None:
        """Keep-alive opens the window; HTTP/1.0 ends pipelining on the route.

        Once a request sent behind another was answered rightly, the server
        pipelines: the window opens wide (a round trip per window is what a long path
        costs); until then, it doubles.
        """
        self.keep = keeps_alive(response)
        if self.keep:
            self.depth = self.cap if step.behind else min(self.cap, self.depth * 2)
        elif response.http_version != "1.1":
            self.handler.serial_routes.add(self.route)  # HTTP/1.0: nothing to pipeline
        if self.trace:
            self.trace(f"< {response.status_line}")
            for k, v in response.headers:
                self.trace(f"< {k}: {v}")

    def sent(self, step: _Step) -> dict[str, Any]:
        """The request as the resource's metadata shows it (passwords masked)."""
        return {"method": self.method,
                "target": step.shown_target or masked_target(step.url, self.route),
                "http_version": "1.1",
                "headers": list(step.masked) if step.masked is not None else
                [(k, mask_header(k, v)) for k, v in step.headers],
                "body": None}


class HTTPHandler(SchemeHandler):
    """http: and https: URLs, and the HTTP side of gateways (see the module docstring)."""

    schemes = HTTP_SCHEMES
    options_type = HTTPOptions
    batches: ClassVar[bool] = True

    def __init__(
        self,
        config: Config,
        *,
        warn: Callable[[str], None] | None = None,
        router: Router | None = None,
        gate: Gate | None = None,
        dialer: Dialer = DIRECT,
    ):
        super().__init__(config, warn=warn, gate=gate, dialer=dialer)
        self.router: Router = router or direct_route
        # Room for as many idle connections to a host as transfers may run on it at
        # once: with fewer, a -Z run closes and reopens connections all along.
        self.pool = ConnectionPool(max(MAX_IDLE_PER_ROUTE, config.per_host))
        #: Connections opened (not reused) so far; tests and ``-v`` read it.
        self.connections_opened = 0
        self._http2_available: bool | None = None
        self._contexts: dict[tuple[object, ...], ssl.SSLContext] = {}
        #: Routes whose server mis-answered pipelined requests (or speaks HTTP/1.0):
        #: served one request at a time for this handler's life.
        self.serial_routes: set[Route] = set()

    # -- requests --------------------------------------------------------------------

    def _headers(
        self, url: URL, route: Route, options: FetchOptions, authorization: str | None,
        body: Body | None = None,
    ) -> list[tuple[str, str]]:
        http = options.get(HTTPOptions)
        headers = [("Host", host_header(url)), ("User-Agent", USER_AGENT), ("Accept", "*/*")]
        if http.decode_content:
            headers.append(("Accept-Encoding", accept_encoding()))
        first, last = options.byte_range or (0, None)
        if options.byte_range is not None or options.offset:
            end = "" if last is None else str(last)
            headers.append(("Range", f"bytes={first + options.offset}-{end}"))
            if options.offset and options.if_range:
                headers.append(("If-Range", options.if_range))
        if authorization:
            headers.append(("Authorization", authorization))
        if route.proxy_authorization:
            headers.append(("Proxy-Authorization", route.proxy_authorization))
        if body is not None:
            headers.append(("Content-Type", body.content_type if isinstance(body, Form)
                            else "application/x-www-form-urlencoded"))
        headers = merge_headers(headers, http.headers)
        if http.cookies is not None and url.scheme in HTTP_SCHEMES:
            headers = with_jar_cookies(headers, http, url)
        if body is not None:  # framing is ours: a header of the caller cannot break it
            headers.append(("Content-Length", str(len(body))))
        return headers

    def links(self, info: ResourceInfo, body: bytes) -> list[Link]:
        """An HTML page's or a style sheet's links (:mod:`.html_links`): anchors, frames,
        images, scripts, style sheets and what they import, resolved against ``<base
        href>`` or the final URL; [] for other types."""
        from anyurl.schemes.http.html_links import document_links  # lxml: a mirror's only

        return document_links(info, body)

    def plan(self, url: URL, options: FetchOptions) -> list[str]:
        route = self.router(url)
        http = options.get(HTTPOptions)
        authorization, _ = self._credentials(url, http, quiet=True)
        method, body = request_method(http)
        lines = [f"{method} {masked_target(url, route)} HTTP/1.1"]
        lines += [f"{k}: {mask_header(k, v)}" for k, v in
                  self._headers(url, route, options, authorization, body)]
        if body:
            lines.append(f"({len(body)} bytes of body)")
        if route.tunnel is not None:
            lines.insert(0, f"CONNECT {route.host}:{route.port} HTTP/1.1 "
                            f"(to {route.tunnel.masked()})")
        return lines

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        return await self._follow(url, options)

    async def _follow(
        self, url: URL, options: FetchOptions,
        answered: tuple[Connection, Response, dict[str, Any]] | None = None,
    ) -> Resource:
        """The one redirect loop: request, and follow redirects through the gate.

        ``answered`` is the first request's exchange when it was already made (a
        pipelined batch's 3xx): the loop starts from that response instead of asking
        again."""
        current = url.without_fragment()
        visited = [*options.redirect_chain, current]
        first = visited[0]
        http = options.get(HTTPOptions)
        authorization, auth_origin = self._credentials(current, http)
        method, body = request_method(http)
        tls_settings = _tls_settings(http)
        max_redirects = self.config.max_redirects
        # The caller's credentials belong to the first URL's origin (curl's rule): on
        # any change of scheme, host or port they stay behind unless trusted. The rule
        # lives here, the one redirect loop, so get, mirror, the library and Dask
        # workers all follow it; the first URL of a chain handed over from another
        # handler (``redirect_chain``) is the origin, not the URL this call starts at.
        home = origin(first)
        foreign = options if http.location_trusted else without_origin_headers(options)
        while True:
            route = self.router(current)
            if route.tls and tls_settings != _DEFAULT_TLS:
                route = dataclasses.replace(route, tls_settings=tls_settings)
            at_home = origin(current) == home
            auth = (authorization if http.location_trusted or origin(current) == auth_origin
                    else None)
            if answered is not None:
                (conn, response, sent), answered = answered, None
            else:
                conn, response, sent = await self._exchange(
                    current, route, options if at_home else foreign, auth, method, body)
            if response.status in REDIRECT_STATUSES and response.header("location"):
                location = response.header("location") or ""
                await self._discard(conn, response)
                target = self._redirect_target(current, location, response)
                method, body = redirected_method(response.status, method, body, http)
                if len(visited) > max_redirects:
                    raise TooManyRedirects(
                        f"{first.masked()} redirected more than {max_redirects} times "
                        f"(last to {target.masked()})",
                        url=first,
                        hint="Raise max_redirects in the config if the chain is legitimate.",
                    )
                if target in visited:
                    chain = " -> ".join(u.masked() for u in [*visited, target])
                    raise TooManyRedirects(f"redirect loop: {chain}", url=first)
                # Every redirect target passes the resolver's gate: the port policy,
                # the registry and the gateway routing, as the first URL did.
                target = self.gate.admit(target)
                if options.trace:
                    options.trace(f"* following redirect to {target.masked()}")
                visited.append(target)
                handler = self.gate.handler_for(target)
                if handler is not self:  # a gateway or another handler serves it
                    onward = options if origin(target) == home else foreign
                    return await handler.open(
                        target, dataclasses.replace(onward, redirect_chain=tuple(visited[:-1])))
                if target.user is not None:
                    authorization, auth_origin = self._credentials(target, http)
                current = target
                continue
            return await self._resource(url, current, conn, response, options, method, sent)

    def _credentials(
        self, url: URL, http: HTTPOptions, *, quiet: bool = False
    ) -> tuple[str | None, tuple[str, str, int] | None]:
        """Basic credentials from the URL, else (with ``netrc``) from the netrc file,
        with the origin they may be sent to."""
        if url.user is None:
            if http.netrc and url.host:
                from anyurl.net.credentials import netrc_entry

                entry = netrc_entry(self.config, url.host, self.warn)
                if entry is not None:
                    return basic_credentials(entry.login, entry.password), origin(url)
            return None, None
        if url.password and not quiet and url.scheme == "http":
            self.warn(
                f"{url.masked()} carries a password: it is sent as HTTP Basic "
                "authentication, readable by anyone who can see the connection"
            )
        return basic_credentials(url.user, url.password), origin(url)

    def _redirect_target(self, current: URL, location: str, response: Response) -> URL:
        # urljoin resolves relative references (RFC 3986 5.2) on the text of the URL.
        absolute = urljoin(str(current), location.strip())
        scheme = absolute.split(":", 1)[0].lower()
        if scheme not in HTTP_SCHEMES:
            raise UnsupportedScheme(
                f"{current.masked()} answered '{response.status_line}' redirecting to "
                f"{mask_text(absolute)}, which is not an http or https URL; not following it",
                url=current,
                hint="Fetch that URL yourself if you trust it.",
            )
        try:
            return parse(absolute).without_fragment()
        except URLError as exc:
            raise ProtocolError(
                f"{current.masked()} redirected to {mask_text(absolute)!r}, "
                f"which is not a valid URL: {exc}",
                url=current,
            ) from exc

    def _wants_http2(self, route: Route, options: FetchOptions, body: Body | None) -> bool:
        """HTTP/2 when asked for, spoken to the origin (not a GET gateway), h2 installed,
        for a request without a body (see :meth:`.http2.HTTP2Connection.request`)."""
        if not options.get(HTTPOptions).http2 or route.absolute_form or body:
            return False
        if self._http2_available is None:
            try:
                import h2  # noqa: F401
            except ImportError:
                self._http2_available = False
                self.warn("HTTP/2 needs the h2 package (pip install 'anyurl[http2]'); "
                          "using HTTP/1.1")
            else:
                self._http2_available = True
        return self._http2_available

    async def _exchange(
        self, url: URL, route: Route, options: FetchOptions, authorization: str | None,
        method: str = "GET", body: Body | None = None,
    ) -> tuple[Connection, Response, dict[str, Any]]:
        """Send the request and read the response head, retrying once on a stale connection.

        The third value describes the request as sent (method, target, version, headers
        with credentials masked, body): a WARC ``request`` record is written from it.
        """
        headers = self._headers(url, route, options, authorization, body)
        target = request_target(url, route)
        trace = options.trace
        http2 = self._wants_http2(route, options, body)
        while True:
            conn = await self._connection(route, url, trace, http2=http2)
            if trace:
                trace(f"> {method} {masked_target(url, route)} HTTP/{conn.http_version}")
                for k, v in headers:
                    trace(f"> {k}: {mask_header(k, v)}")
                if body:
                    trace(f"> ({len(body)} bytes of body)")
            try:
                response = await conn.request(url.scheme, target, headers, method, body)
            except (ConnectionLost, PartialTransfer):
                await conn.aclose()
                if conn.cycles:  # a pooled connection the server had closed: try a new one
                    if trace:
                        trace("* pooled connection was closed by the server; reconnecting")
                    continue
                raise
            except BaseException:
                await conn.aclose()
                raise
            if trace:
                trace(f"< {response.status_line}")
                for k, v in response.headers:
                    trace(f"< {k}: {v}")
            jar = options.get(HTTPOptions).cookies
            if jar is not None and url.scheme in HTTP_SCHEMES:
                # Every response's cookies, a redirect's and an error's too, as curl keeps them.
                from anyurl.cookies import store_cookies

                store_cookies(jar, url, response.headers)
            sent = {"method": method, "target": masked_target(url, route),
                    "http_version": conn.http_version,
                    "headers": [(k, mask_header(k, v)) for k, v in headers],
                    "body": None if isinstance(body, Form) else body}
            return conn, response, sent

    # -- connections -----------------------------------------------------------------

    async def _connection(
        self, route: Route, url: URL, trace: Trace | None, *, http2: bool = False
    ) -> Connection:
        """A pooled connection for ``route`` or a new one; HTTP/2 only if ``http2``.

        With ``http2`` an http route speaks it with prior knowledge (h2c) and an https
        route when the server picks ``h2`` by ALPN; otherwise the connection is HTTP/1.1.
        """
        pooled = self.pool.take(route, http2=http2)
        while pooled is not None and pooled.http_version == "1.1" \
                and pooled.stream.bytes_waiting():
            # An idle HTTP/1.1 connection with bytes waiting is out of step (STYLE 26):
            # they would be taken for the next request's response.
            await pooled.aclose()
            pooled = self.pool.take(route, http2=http2)
        if pooled is not None:
            pooled.stream.url = url
            if trace:
                trace(f"* reusing HTTP/{pooled.http_version} connection to "
                      f"{route.host}:{route.port}")
            return pooled
        if trace:
            via = f" through {route.tunnel.masked()}" if route.tunnel else ""
            trace(f"* connecting to {route.host}:{route.port}{via}")
        dialer = Dialer(tunnel_to(route.tunnel, trace)) if route.tunnel else self.dialer
        stream = await dialer.connect_tcp(
            route.host, route.port, url=url,
            connect_timeout=self.config.connect_timeout,
            read_timeout=self.config.read_timeout,
            tls=route.tls, server_hostname=route.server_hostname,
            ssl_context=self._ssl_context(route.tls_settings) if route.tls else None,
            alpn_protocols=("h2", "http/1.1") if http2 and route.tls else None,
            what="the HTTP connection",
        )
        self.connections_opened += 1
        if http2 and (not route.tls or stream.alpn_protocol == "h2"):
            from anyurl.schemes.http.http2 import open_h2  # h2 only when asked for

            return await open_h2(stream, route)
        return HTTP11Connection(stream, route)

    def _ssl_context(self, settings: tuple[object, ...]) -> ssl.SSLContext | None:
        """The context for ``settings`` (see :func:`_tls_settings`); None: the default."""
        if not settings or settings == _DEFAULT_TLS:
            return None
        context = self._contexts.get(settings)
        if context is None:
            context = self._contexts[settings] = make_ssl_context(*settings)  # type: ignore[arg-type]
        return context

    async def _release(self, conn: Connection) -> None:
        """Back to the pool if the exchange ended cleanly, else closed."""
        await self.pool.release(conn)

    async def _discard(self, conn: Connection, response: Response) -> bytes | None:
        """Drop a body nobody wants (a redirect's, an error page) and release the
        connection; the body when it was read whole (``Connection.discard``)."""
        body = await conn.discard(response)
        await self._release(conn)
        return body

    # -- batches (pipelined) ---------------------------------------------------------

    async def open_batch(
        self, urls: Iterable[URL], options: FetchOptions
    ) -> AsyncGenerator[tuple[URL, Resource | AnyURLError], None]:
        """Open many http/https URLs, pipelining the GET (or HEAD) requests of one route.

        The contract of :meth:`SchemeHandler.open_batch`, and for HTTP:

        * Consecutive URLs of one route (scheme, host, port, gateway) go over one
          HTTP/1.1 connection (a pooled one, or a new one), their requests written
          ahead of the responses [RFC 9112 9.3.2]: the window opens at 1 and opens
          further only after a response shows HTTP/1.1 keep-alive, then doubles with
          each response, and opens fully once a request sent behind another was
          answered: to :data:`~.pipeline.NEAR_DEPTH` on a short path, to
          :data:`~.pipeline.MAX_DEPTH` when a window's first answer took
          :data:`~.pipeline.FAR` or more (a long path, where each window costs a
          round trip).
        * When the server closes (``Connection: close``, or silently) with requests
          unanswered, they are sent again on a new connection; a connection that
          answered none of them costs its first URL its error and no more.
        * A server whose bytes are not a response this reader frames strictly, or
          that stays silent past the read timeout with requests pipelined, or that
          answers HTTP/1.0, is remembered (:attr:`serial_routes`) and served one
          request at a time by :meth:`open` from then on, starting with the URLs
          still unanswered.
        * A response nobody asked for (bytes still there once a window's last response
          is read, :meth:`.pipeline.PipelinedConnection.out_of_step`) means the window's
          answers may each be the one before's: its small bodies and errors, held until
          then, are dropped, the window is asked again one request at a time on a new
          connection, and the route is served that way from then on (the same
          :attr:`serial_routes`). What this cannot see is in :mod:`.pipeline`'s
          docstring.
        * What a response means is :meth:`open`'s: a redirect goes, as it was
          answered, to the one redirect loop (:meth:`_follow`), which asks its target
          on a connection of its own and applies its rules (the gate, credentials
          only to their origin); errors, resume, decoding, HEAD and the kernel move of
          a big body are the same code. The one shortcut: a plain 200 to a GET whose small
          body is already read (see :meth:`_pipelined`) becomes
          :meth:`Resource.of_bytes <anyurl.resource.Resource.of_bytes>` with the
          metadata :meth:`_resource` would give it.
        * A route that speaks HTTP/2 (``http2=True``: prior knowledge on http, on https
          when the server picks ``h2`` by ALPN; :meth:`_offers_h2`) has its requests
          sent as concurrent streams of one connection instead (:mod:`.multiplex`),
          with the same meaning of responses.
        * Requests with a body, other methods, ranges and resumes, and
          ``HTTPOptions(pipeline=False)`` (``--no-pipeline``) are opened one at a
          time (the default of :class:`SchemeHandler`).
        """
        http = options.get(HTTPOptions)
        method, body = request_method(http)
        if (not http.pipeline or method not in ("GET", "HEAD") or body is not None
                or options.offset or options.byte_range is not None
                or options.redirect_chain or http.cookies is not None):
            async with aclosing(super().open_batch(urls, options)) as items:
                async for item in items:
                    yield item
            return
        async with aclosing(self._by_route(urls, options, method, _tls_settings(http))) \
                as items:
            async for item in items:
                yield item

    async def _by_route(
        self, urls: Iterable[URL], options: FetchOptions, method: str,
        tls_settings: tuple[object, ...],
    ) -> AsyncGenerator[tuple[URL, Resource | AnyURLError], None]:
        """Consecutive URLs of one route as one :meth:`_route_batch`, in order; a URL
        the router refuses has its error in its place."""
        group: list[URL] = []
        key: Route | None = None
        for url in urls:
            try:
                route = self.router(url)
            except AnyURLError as exc:
                if key is not None and group:
                    async with aclosing(self._route_batch(key, group, options, method)) as items:
                        async for item in items:
                            yield item
                group, key = [], None
                yield url, exc
                continue
            if route.tls and tls_settings != _DEFAULT_TLS:
                route = dataclasses.replace(route, tls_settings=tls_settings)
            if group and key is not None and route != key:
                async with aclosing(self._route_batch(key, group, options, method)) as items:
                    async for item in items:
                        yield item
                group = []
            key = route
            group.append(url)
        if group and key is not None:
            # Closed here, not by the garbage collector: the connection goes back to
            # the pool before the caller's next batch looks for one.
            async with aclosing(self._route_batch(key, group, options, method)) as items:
                async for item in items:
                    yield item

    def _route_batch(
        self, route: Route, urls: list[URL], options: FetchOptions, method: str
    ) -> AsyncGenerator[tuple[URL, Resource | AnyURLError], None]:
        """One route's URLs: HTTP/2 streams when the batch offers it, else pipelined."""
        if self._offers_h2(route, options):
            from anyurl.schemes.http.multiplex import multiplexed  # h2 only when used

            return multiplexed(self, route, urls, options, method)
        return self._pipelined(route, urls, options, method)

    def _offers_h2(self, route: Route, options: FetchOptions) -> bool:
        """Whether a batch on ``route`` asks for HTTP/2: only with ``http2=True``
        (``--http2``), as a single request does. By default a batch pipelines HTTP/1.1,
        also on https: measured, h2 and hpack in pure Python cost about 2.5 times the
        pipeline's CPU a small file on loopback and win no wall time over a 20 ms path
        (bench/README.md, "HTTP/2 multiplexing on https")."""
        return self._wants_http2(route, options, None)

    async def _pipelined(
        self, route: Route, urls: list[URL], options: FetchOptions, method: str
    ) -> AsyncGenerator[tuple[URL, Resource | AnyURLError], None]:
        """One route's URLs over a pipelined connection (see :meth:`open_batch`).

        The loop's state and each of its turns are :class:`_PipelineRun`'s; here are
        the loop and the end that gives the connection back (to the pool when it
        stands clean between responses) however the caller leaves.
        """
        run = _PipelineRun(self, route, urls, options, method)
        try:
            while run.todo or run.inflight:
                turn = run.serially() if route in self.serial_routes else run.turn()
                async with aclosing(turn) as items:
                    async for item in items:
                        yield item
            for item in _release(run.held):
                yield item
        finally:
            if run.pipe is not None:
                with anyio.CancelScope(shield=True):
                    await self._end_pipe(run.pipe, clean=run.keep and not run.inflight)

    async def _pipe(self, route: Route, url: URL, trace: Trace | None) -> PipelinedConnection:
        """A pooled HTTP/1.1 connection (at a clean boundary) or a new one, to pipeline on."""
        while True:
            conn = await self._connection(route, url, trace)
            if isinstance(conn, HTTP11Connection) and not conn.h11.trailing_data[0] \
                    and conn.h11.our_state is h11.IDLE:
                return PipelinedConnection(conn.stream, route, conn.cycles)
            await conn.aclose()  # pragma: no cover - the pool keeps clean ones only

    async def _end_pipe(self, pipe: PipelinedConnection, *, clean: bool) -> None:
        """Back to the pool as an h11 connection when it stands between responses."""
        current = pipe.current
        if (clean and not pipe.finished and (current is None or current.done)
                and not pipe.reader.eof and not pipe.out_of_step()):
            conn = HTTP11Connection(pipe.stream, pipe.key)
            conn.cycles = pipe.cycles
            await self.pool.keep(conn)
        else:
            await pipe.aclose()

    def _mis_answered(self, route: Route, trace: Trace | None, why: str) -> None:
        """Remember ``route`` as one to serve one request at a time."""
        self.serial_routes.add(route)
        if trace:
            trace(f"* {route.host}:{route.port} mis-answered pipelined requests ({why}); "
                  "one at a time from now on")

    def _prepare(self, step: _Step, route: Route, options: FetchOptions, http: HTTPOptions,
                 method: str,
                 templates: dict[tuple[str, str | None, int | None], _Template | None]
                 | None = None) -> None:
        """The request bytes of ``step`` (as h11 would write them), or its error.

        With ``templates`` (the batch's, by what ``Host`` is made of), a URL whose headers cannot
        differ from its neighbours' (no login in it, no netrc, no cookie jar) has its
        target put into a request built once; anything the template cannot write as
        this method would goes the general way below, which names the error.
        """
        current = step.url.without_fragment()
        if (templates is not None and current.user is None and not http.netrc
                and http.cookies is None):
            key = (current.scheme, current.host, current.port)
            template = templates.get(key)
            if template is None and key not in templates:
                template = templates[key] = self._template(current, route, options,
                                                           method)
            if template is not None:
                target = request_target(current, route)
                if not ("\0" in target or " " in target or "\n" in target):
                    try:
                        step.data = template.head + target.encode("latin-1") + template.tail
                    except UnicodeEncodeError:
                        pass
                    else:
                        step.headers = template.headers
                        step.masked = template.masked
                        if not route.absolute_form:  # else the URL, its password masked
                            step.shown_target = target
                        return
        try:
            authorization, _ = self._credentials(current, http)
            headers = self._headers(current, route, options, authorization)
            target = request_target(current, route)
            lines = [f"{method} {target} HTTP/1.1", *(f"{k}: {v}" for k, v in headers)]
            text = "\r\n".join(lines)
            if any(c in text for c in "\0") or " " in target or "\n" in target or any(
                    "\r" in k + v or "\n" in k + v for k, v in headers):
                raise OptionError(f"the request for {current.masked()} cannot be written")
            step.data = (text + "\r\n\r\n").encode("latin-1")
            step.headers = headers
        except UnicodeEncodeError:
            step.error = OptionError(
                f"the request for {current.masked()} has a header that is not Latin-1")
        except AnyURLError as exc:
            step.error = exc

    def _template(self, url: URL, route: Route, options: FetchOptions,
                  method: str) -> _Template | None:
        """The request of ``url``'s route and host with the target left out (see
        :meth:`_prepare`); None when its headers cannot be written (then each URL
        goes the general way, which names the error)."""
        try:
            headers = self._headers(url, route, options, None)
        except AnyURLError:
            return None
        lines = "\r\n".join(f"{k}: {v}" for k, v in headers)
        if "\0" in lines or any("\r" in k + v or "\n" in k + v for k, v in headers):
            return None
        try:
            tail = f" HTTP/1.1\r\n{lines}\r\n\r\n".encode("latin-1")
            head = f"{method} ".encode("latin-1")
        except UnicodeEncodeError:
            return None
        return _Template(head, tail, headers, [(k, mask_header(k, v)) for k, v in headers])

    async def _pipelined_outcome(
        self, url: URL, exchange: Exchange, response: Response, options: FetchOptions,
        method: str, sent: dict[str, Any],
    ) -> Resource | AnyURLError:
        """What a pipelined response means: :meth:`_resource`'s answer, or for a
        redirect the one redirect loop (:meth:`_follow`), started from this response:
        the target is asked on a connection of its own, the redirect not again."""
        if response.status in REDIRECT_STATUSES and response.header("location"):
            try:
                # (an Exchange is a Connection but for request()'s annotation, as below)
                return await self._follow(url, options,
                                          answered=(exchange, response, sent))  # type: ignore[arg-type]
            except AnyURLError as exc:
                return exc
        try:
            # (pipeline.Exchange.request is still annotated ``body: bytes | None``; it
            # never sends a body, a form included: the ignore goes with that annotation.)
            return await self._resource(url, url.without_fragment(), exchange,  # type: ignore[arg-type]
                                        response, options, method, sent)
        except AnyURLError as exc:
            return exc

    async def _open_one(self, url: URL, options: FetchOptions) -> Resource | AnyURLError:
        """:meth:`open`, its error returned."""
        try:
            return await self.open(url, options)
        except AnyURLError as exc:
            return exc

    async def aclose(self) -> None:
        await self.pool.aclose()

    # -- responses -------------------------------------------------------------------

    async def _resource(
        self, url: URL, final: URL, conn: Connection, response: Response,
        options: FetchOptions, method: str = "GET", sent: dict[str, Any] | None = None,
    ) -> Resource:
        status = response.status
        length = response.content_length
        offset = 0
        size = length
        total = length
        ranged = options.byte_range is not None
        if status == 206 and (options.offset or ranged):
            offset, size, total = self._check_content_range(final, response, options, conn)
        elif status == 416 and options.offset and not ranged:
            return await self._range_not_satisfiable(final, conn, response, options)
        elif status >= 300 and not options.get(HTTPOptions).keep_error_body:
            error = status_error(final, response)
            body = await self._discard(conn, response)  # a short page, for archives
            error.answer = {"request": sent, "status": response.status,
                            "reason": response.reason, "headers": list(response.headers),
                            "body": body}
            raise error
        elif status == 206:  # a range nobody asked for: the start is not the file's
            await conn.aclose()
            raise ProtocolError(
                f"{final.masked()} answered '{response.status_line}' to a request without "
                "Range", url=final)
        if method == "HEAD":
            return await self._head_resource(final, conn, response, sent)
        encoding = (response.header("content-encoding") or "").strip().lower()
        decoder = None
        if encoding and options.get(HTTPOptions).decode_content:
            try:
                decoder = decoder_for(encoding)
            except CodingError as exc:
                await conn.aclose()
                raise _bad_coding(final, exc) from None
            if decoder is not None:
                size = None  # the decoded size is not announced
        etag = response.header("etag")
        validator = etag if etag and not etag.startswith("W/") else response.header(
            "last-modified")
        info = ResourceInfo(
            url=final,
            size=size,
            total_size=total,
            offset=offset,
            content_type=response.header("content-type"),
            filename=_filename(final, response),
            validator=validator,
            status=status,
            reason=response.reason,
            headers=tuple(response.headers),
            extra={
                "status": status,
                "status_line": response.status_line,
                "headers": response.headers,
                "content_encoding": encoding or None,
                "decoded": decoder is not None,
                "connection_reused": conn.cycles > 0,
                "http_version": conn.http_version,
                "request": sent,
            },
        )
        end = _BodyEnd(conn)
        raw = self._raw_body(end, response) if decoder is None else None
        return Resource(info, self._body(end, response, decoder, final), on_close=end.close,
                        raw=raw)

    def _raw_body(self, end: _BodyEnd, response: Response) -> RawBody | None:
        """The body as bytes on the socket, for a move without Python (HTTP/1.1 with a
        Content-Length over plain TCP): see :mod:`anyurl.net.bulk`."""
        conn = end.conn
        if not isinstance(conn, HTTP11Connection | Exchange):
            return None
        found = conn.raw_body(response)
        if found is None:
            return None
        prefix, remaining = found

        async def finish(moved: int) -> None:
            conn.raw_done(response)
            end.released = True
            await self._release(conn)

        return RawBody(conn.stream, prefix, remaining, finish)

    async def _head_resource(self, final: URL, conn: Connection, response: Response,
                             sent: dict[str, Any] | None) -> Resource:
        """HEAD (``-I``): the response head is the resource, as curl prints it."""
        async for _ in conn.body(response):
            pass  # nothing: h11 and h2 know a HEAD response has no body
        await self._release(conn)
        head = (response.status_line + "\r\n"
                + "".join(f"{k}: {v}\r\n" for k, v in response.headers) + "\r\n")
        data = head.encode("latin-1", "replace")
        info = ResourceInfo(
            url=final, size=len(data), kind="headers", content_type="text/plain",
            status=response.status, reason=response.reason, headers=tuple(response.headers),
            extra={"status": response.status, "status_line": response.status_line,
                   "headers": response.headers, "http_version": conn.http_version,
                   "request": sent})
        return Resource(info, iterate_bytes(data))

    def _check_content_range(
        self, url: URL, response: Response, options: FetchOptions, conn: Connection
    ) -> tuple[int, int | None, int | None]:
        text = response.header("content-range") or ""
        try:
            unit, _, rest = text.partition(" ")
            span, _, total_text = rest.partition("/")
            first_text, _, last_text = span.partition("-")
            first, last = _range_number(first_text), _range_number(last_text)
            total = None if total_text.strip() == "*" else _range_number(total_text)
            if unit.lower() != "bytes":
                raise ValueError(unit)
        except ValueError:
            raise ResumeFailed(
                f"{url.masked()} answered '{response.status_line}' with Content-Range "
                f"{text!r}, which anyurl cannot use to resume",
                url=url,
            ) from None
        start = options.offset + (options.byte_range[0] if options.byte_range else 0)
        if first != start:
            raise ResumeFailed(
                f"{url.masked()} resumed at byte {first} (Content-Range {text!r}) where byte "
                f"{start} was asked for",
                url=url,
                hint="Download the file again from the start.",
            )
        if options.byte_range is not None:
            # The range is the resource: its bytes before this attempt are the offset.
            return options.offset, last - first + 1, options.offset + last - first + 1
        return first, last - first + 1, total

    async def _range_not_satisfiable(
        self, url: URL, conn: Connection, response: Response, options: FetchOptions
    ) -> Resource:
        text = response.header("content-range") or ""
        total_text = text.rpartition("/")[2].strip()
        await self._discard(conn, response)
        total = ascii_int(total_text, max_digits=19)
        if total == options.offset:
            # What we have is the whole file: nothing left to transfer.
            info = ResourceInfo(url=url, size=0, total_size=options.offset,
                                offset=options.offset, filename=_filename(url, response),
                                extra={"status": 416, "status_line": response.status_line,
                                       "already_complete": True})
            return Resource(info, _empty())
        size = f"; the file has {total} bytes" if total is not None else ""
        raise ResumeFailed(
            f"{url.masked()} answered '{response.status_line}' to a resume from byte "
            f"{options.offset}{size}",
            url=url,
            hint="The local partial file is larger than the remote one; download it again.",
        )

    async def _body(
        self, end: _BodyEnd, response: Response, decoder: Decoder | None, url: URL
    ) -> AsyncIterator[bytes]:
        conn = end.conn
        try:
            async for data in conn.body(response):
                if decoder is None:
                    if data:
                        yield data
                    continue
                try:
                    # One piece at a time, each bounded (decoding's DECODED_CHUNK): the
                    # consumer counts it against max_filesize before the next is made.
                    for piece in decoder.decode(data):
                        yield piece
                except CodingError as exc:
                    raise _bad_coding(url, exc) from None
            if decoder is not None:
                try:
                    for piece in decoder.finish():
                        yield piece
                except CodingError as exc:
                    raise _bad_coding(url, exc) from None
            end.released = True
            await self._release(conn)
        finally:
            await end.close()


# -- helpers -----------------------------------------------------------------------------


def _bad_coding(url: URL, exc: CodingError) -> BadContentEncoding:
    """The error for a body that does not decode (``--compressed``), naming the URL."""
    return BadContentEncoding(
        f"{url.masked()} sent a body that does not decode as {exc.coding}: {exc.reason}",
        url=url, hint="Fetch it without decode_content to keep the bytes as sent.",
        remedy=("compressed",))

#: Headers whose framing anyurl writes itself: a caller's would break the exchange.
_FRAMING = ("content-length", "transfer-encoding")


def merge_headers(
    defaults: list[tuple[str, str]], given: tuple[tuple[str, str | None], ...]
) -> list[tuple[str, str]]:
    """``defaults`` with the caller's ``given`` headers applied as curl's ``-H`` does.

    A given header replaces every default of the same name (case-insensitive) and
    follows them in the given order; a value of None only removes the default.
    ``Content-Length`` and ``Transfer-Encoding`` are anyurl's own (the body's framing).
    """
    if not given:
        return defaults
    names = {name.lower() for name, _ in given}
    for name in names & set(_FRAMING):
        raise OptionError(f"the {name} header is set by anyurl from the body; not replacing it")
    merged = [(k, v) for k, v in defaults if k.lower() not in names]
    merged += [(k, v) for k, v in given if v is not None]
    return merged


#: Headers of the caller that carry credentials for one origin (lowercase): dropped on
#: a redirect to another scheme, host or port unless ``HTTPOptions.location_trusted``.
ORIGIN_BOUND_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization"})


def without_origin_headers(options: FetchOptions) -> FetchOptions:
    """``options`` without the caller's :data:`ORIGIN_BOUND_HEADERS`: what may go to an
    origin other than the first URL's. A header removal (a value of None) goes too, so
    nothing of the caller's is said about credentials there."""
    http = options.get(HTTPOptions)
    kept = tuple((k, v) for k, v in http.headers if k.lower() not in ORIGIN_BOUND_HEADERS)
    if kept == http.headers:
        return options
    return options.with_scheme(dataclasses.replace(http, headers=kept))


def with_jar_cookies(
    headers: list[tuple[str, str]], http: HTTPOptions, url: URL
) -> list[tuple[str, str]]:
    """``headers`` with the jar's cookies for ``url`` (:mod:`anyurl.cookies`), in one
    ``Cookie`` header before the caller's own (``-b NAME=VALUE``, ``-H 'Cookie: ...'``),
    as curl sends them. A caller's ``-H 'Cookie:'`` (remove it) sends none at all."""
    if any(k.lower() == "cookie" and v is None for k, v in http.headers):
        return headers
    assert http.cookies is not None
    from anyurl.cookies import cookie_header

    jar = cookie_header(http.cookies, url)
    if not jar:
        return headers
    for i, (name, value) in enumerate(headers):
        if name.lower() == "cookie":
            return [*headers[:i], (name, f"{jar}; {value}" if value else jar),
                    *headers[i + 1:]]
    return [*headers, ("Cookie", jar)]


def request_method(http: HTTPOptions) -> tuple[str, Body | None]:
    """The method and body of a request: ``method`` if given, else HEAD for ``head``,
    POST with a ``body`` or a ``form`` (which wins), GET; a HEAD carries no body."""
    body: Body | None = http.form if http.form is not None else http.body
    method = http.method or ("HEAD" if http.head else "POST" if body is not None else "GET")
    return method, (None if method == "HEAD" else body)


def redirected_method(
    status: int, method: str, body: Body | None, http: HTTPOptions
) -> tuple[str, Body | None]:
    """The method and body after a redirect, as curl and browsers do: 303 turns
    anything but HEAD into a GET; 301 and 302 turn a POST into a GET, unless the
    method was given (``-X``); 307 and 308 keep both."""
    if method != "HEAD" and (status == 303 or (
            status in (301, 302) and method == "POST" and http.method is None)):
        return "GET", None
    return method, body


def _tls_settings(http: HTTPOptions) -> tuple[object, ...]:
    return (http.verify, http.cafile, http.capath, http.client_cert, http.client_key)


_DEFAULT_TLS = _tls_settings(HTTPOptions())



def _release(held: deque[tuple[_Step, Resource | AnyURLError]],
             ) -> Iterator[tuple[URL, Resource | AnyURLError]]:
    """Hand ``held`` over in order, emptying it; a body in memory not read by the time
    the next is asked for is withdrawn, as a stream's is."""
    while held:
        step, outcome = held.popleft()
        yield step.url, outcome
        if isinstance(outcome, Resource):
            outcome.withdraw(partial(moved_on, step.url))


def _small_resource(url: URL, response: Response, index: dict[str, str], data: bytes,
                    reused: bool, sent: dict[str, Any]) -> Resource:
    """A plain 200 of a pipelined window whose whole body was read
    (:meth:`~.pipeline.PipelinedConnection.whole_body`): what
    :meth:`HTTPHandler._resource` makes of it, with the head's ``index`` (each
    name once) and the body in memory."""
    final = url.without_fragment()
    size = len(data)
    encoding = (index.get("content-encoding") or "").strip().lower()
    etag = index.get("etag")
    headers = response.headers
    info = ResourceInfo(
        url=final,
        size=size,
        total_size=size,
        offset=0,
        content_type=index.get("content-type"),
        filename=_filename_from(final, index.get("content-disposition")),
        validator=etag if etag and not etag.startswith("W/") else index.get(
            "last-modified"),
        status=200,
        reason=response.reason,
        headers=tuple(headers),
        extra={
            "status": 200,
            "status_line": response.status_line,
            "headers": headers,
            "content_encoding": encoding or None,
            "decoded": False,
            "connection_reused": reused,
            "http_version": "1.1",
            "request": sent,
        },
    )
    return Resource.of_bytes(info, data)


def _filename(url: URL, response: Response) -> str | None:
    return _filename_from(url, response.header("content-disposition"))


def _filename_from(url: URL, disposition: str | None) -> str | None:
    """The name a ``Content-Disposition`` gives, else the URL's last path segment."""
    name = disposition_filename(disposition)
    if name is not None:
        return name
    parts = url.parts
    if isinstance(parts, HTTPPath) and parts.hpath:
        name = unquote(parts.hpath.rsplit("/", 1)[-1])
        return name or None
    return None


async def _empty() -> AsyncIterator[bytes]:
    return
    yield b""  # pragma: no cover - makes this an async generator


def status_error(url: URL, response: Response) -> AnyURLError:
    """The error for a status the handler does not follow or serve (``status`` set)."""
    error = _status_error(url, response)
    error.status = response.status
    if response.status in (429, 503):  # how long the server asks us to wait (RFC 9110 10.2.3)
        error.retry_after = retry_after_seconds(response.header("retry-after"))
    return error


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds a ``Retry-After`` value asks for: delay-seconds, or an HTTP date (from
    ``now``, the clock's time when None; a date passed is 0). None when absent or neither."""
    if value is None:
        return None
    text = value.strip()
    if is_ascii_digits(text):
        seconds = ascii_int(text, max_digits=18)  # longer: more than any retry waits
        return float("inf") if seconds is None else float(seconds)
    if not text.isascii():  # the email package reads other scripts' digits in a date
        return None
    import email.utils  # an HTTP date: rare, and the email package costs every start

    try:
        when = email.utils.parsedate_to_datetime(text).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def _range_number(text: str) -> int:
    """A ``Content-Range`` position or length: ASCII digits (RFC 9110 14.4); ValueError
    for anything else, ``+5`` or ``٣`` too, which ``int()`` alone would take."""
    number = ascii_int(text.strip(" \t"), max_digits=19)
    if number is None:
        raise ValueError(text)
    return number


def _status_error(url: URL, response: Response) -> AnyURLError:
    status = response.status
    line = response.status_line
    if status in (404, 410):
        return RemoteFileNotFound(f"{url.masked()} answered '{line}'", url=url,
                                  hint="Check the path; the file may have moved.")
    if status in (401, 403):
        hint = ("Give a user and password in the URL (http://user:password@host/) if the "
                "server wants a login." if status == 401 else
                "The server refuses to serve it to you.")
        return LoginDenied(f"{url.masked()} answered '{line}'", url=url, hint=hint)
    if status == 407:
        return LoginDenied(f"the gateway for {url.masked()} answered '{line}'", url=url,
                           hint="Put the gateway's user and password in its URL.")
    if status >= 400:
        return ServerError(f"{url.masked()} answered '{line}'", status=status, url=url,
                           hint="HTTPOptions(keep_error_body=True) returns what the server "
                           "sent.", remedy=("keep_error_body",))
    return ServerError(f"{url.masked()} answered '{line}'", status=status, url=url,
                       hint="The server did not send the file itself.")
