"""The http and https schemes (RFC 1738 3.3): HTTP/1.1 through h11 over anyurl's transport.

Strategy. h11 does the framing (request serialisation, response parsing, Content-Length,
chunked and close-delimited bodies, keep-alive bookkeeping); this module only moves bytes
between h11 and a :class:`~anyurl.transport.Stream`, and decides what the responses mean.
Speed comes from the size of what moves: the transport receives up to 1 MiB at a time, so
h11's per-event cost is paid a few thousand times per GiB rather than per packet.

Three decisions shape the rest:

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
  Credentials from the URL go only to the host they were written for.

Connections are pooled per route (scheme, host, port, and the gateway when there is one)
and reused while h11 says both sides are done with a cycle. A pooled connection the
server has closed meanwhile is detected by an empty first read and the request is sent
again once on a fresh connection.

Gateways (RFC 1738 section 4) reuse this module: a :class:`Route` says where the bytes go
and whether the request-target is the absolute URL (``GET wais://host/db?q HTTP/1.1``) or
whether a ``CONNECT`` tunnel comes first (:func:`open_tunnel`).
"""

from __future__ import annotations

import base64
import dataclasses
import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import unquote, urljoin

import h11

from anyurl.config import Config
from anyurl.errors import (
    AnyURLError,
    ConnectFailed,
    ConnectionLost,
    LoginDenied,
    PartialTransfer,
    ProtocolError,
    RemoteFileNotFound,
    ResumeFailed,
    ServerError,
    TooManyRedirects,
    UnsupportedScheme,
    URLError,
)
from anyurl.options import HTTPOptions
from anyurl.resource import Resource, ResourceInfo
from anyurl.schemes.base import FetchOptions, Gate, SchemeHandler, Trace
from anyurl.transport import (
    DEFAULT_RECEIVE_SIZE,
    DIRECT,
    Dialer,
    Stream,
    Tunnel,
    connect_tcp,
)
from anyurl.url import DEFAULT_PORTS, URL, HTTPPath, mask, parse

if TYPE_CHECKING:
    from anyurl.schemes.http2 import H2Connection

__all__ = [
    "HTTPHandler",
    "Route",
    "Tunnel",
    "basic_credentials",
    "direct_route",
    "open_tunnel",
    "tunnel_to",
]

USER_AGENT = "anyurl/0.1"
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
#: A redirect or error body up to this size is read and dropped so that the connection
#: can be reused; a longer one is cheaper to abandon with its connection.
DRAIN_LIMIT = 64 * 1024
#: Idle connections kept per route.
MAX_IDLE_PER_ROUTE = 4
HTTP_SCHEMES = ("http", "https")


@dataclass(frozen=True)
class Route:
    """Where a request goes: the host we speak HTTP with, and how the target is written.

    For a direct request ``host``/``port`` are the URL's. Through a gateway in GET mode they
    are the gateway's and ``absolute_form`` is set. With ``tunnel`` set, the connection to
    the URL's own host is made through that gateway's ``CONNECT`` first.
    """

    host: str
    port: int
    tls: bool
    server_hostname: str | None = None
    absolute_form: bool = False
    tunnel: URL | None = None
    #: ``Proxy-Authorization`` for a GET-mode gateway that wants a login.
    proxy_authorization: str | None = None


Router = Callable[[URL], Route]


def direct_route(url: URL) -> Route:
    """The route of an http/https URL fetched without a gateway."""
    if url.scheme not in HTTP_SCHEMES:
        raise UnsupportedScheme(
            f"the HTTP handler cannot fetch {url.masked()} without a gateway",
            url=url,
            hint=f"Configure a gateway for {url.scheme}: ({url.scheme}_proxy).",
        )
    host = url.connect_host
    if not host:
        raise URLError(f"{url.masked()} has no host", url=url)
    return Route(host=host, port=url.effective_port or 80, tls=url.scheme == "https",
                 server_hostname=host)


def basic_credentials(user: str, password: str | None) -> str:
    """The value of an ``Authorization: Basic`` header (RFC 7617, UTF-8)."""
    token = f"{user}:{password or ''}".encode()
    return "Basic " + base64.b64encode(token).decode("ascii")


def _default_port(url: URL) -> int | None:
    return DEFAULT_PORTS.get(url.scheme)


def host_header(url: URL) -> str:
    """``Host`` for ``url``: the host, with the port when it is not the scheme's default."""
    host = url.host or ""
    if url.port is not None and url.port != _default_port(url):
        host += f":{url.port}"
    return host


def request_target(url: URL, route: Route) -> str:
    """The request-target: origin form ``/path?search``, or the whole URL for a gateway."""
    if route.absolute_form:
        # The gateway needs everything, login included, to reach the resource; the
        # fragment is the client's business (section 2.2.5 of RFC 1738's successors).
        return str(url.without_fragment())
    parts = url.parts
    assert isinstance(parts, HTTPPath)
    return parts.target


def _mask_header(name: str, value: str) -> str:
    if name.lower() in ("authorization", "proxy-authorization"):
        scheme = value.split(" ", 1)[0]
        return f"{scheme} ****"
    return value


def _masked_target(url: URL, route: Route) -> str:
    return url.without_fragment().masked() if route.absolute_form else request_target(url, route)


@dataclass
class _Response:
    status: int
    reason: str
    http_version: str
    headers: list[tuple[str, str]]

    @property
    def status_line(self) -> str:
        return f"HTTP/{self.http_version} {self.status} {self.reason}".rstrip()

    def header(self, name: str) -> str | None:
        for key, value in self.headers:
            if key == name:
                return value
        return None


class _Connection:
    """One HTTP/1.1 connection: a transport stream and the h11 state machine over it."""

    http_version = "1.1"

    def __init__(self, stream: Stream, key: Route):
        self.stream = stream
        self.key = key
        self.h11 = h11.Connection(h11.CLIENT)
        self.cycles = 0  # responses completed on this connection
        #: Set when a body was read past h11 (HTTPHandler._counted_body): None while
        #: h11 keeps the state, else whether the response allows another request.
        self.bypassed: bool | None = None
        self.keep_alive = True

    async def send(self, *events: Any) -> None:
        data = b"".join(self.h11.send(event) or b"" for event in events)
        if data:
            await self.stream.send(data)

    async def next_event(self) -> Any:
        conn = self.h11
        while True:
            state = conn.their_state
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError as exc:
                raise self._protocol_error(exc, state) from exc
            if event is h11.NEED_DATA:
                conn.receive_data(await self.stream.receive(DEFAULT_RECEIVE_SIZE))
                continue
            return event

    def _protocol_error(self, exc: h11.RemoteProtocolError, state: object) -> AnyURLError:
        url = self.stream.url
        text = str(exc)
        if "complete message body" in text:
            return PartialTransfer(
                f"the server closed the connection before the end of the body of "
                f"{url.masked()} ({text.split('(', 1)[-1].rstrip(')')})",
                url=url,
                hint="Try again with resume (-C) to continue where it stopped.",
            )
        if state is h11.SEND_RESPONSE and "ConnectionClosed" in text:
            return ConnectionLost(
                f"the server of {url.masked()} closed the connection without a response",
                url=url,
            )
        return ProtocolError(f"the server of {url.masked()} broke HTTP/1.1: {text}", url=url)

    @property
    def reusable(self) -> bool:
        if not self.keep_alive:
            return False
        if self.bypassed is not None:
            return self.bypassed and self.h11.our_state is h11.DONE
        return self.h11.our_state is h11.DONE and self.h11.their_state is h11.DONE

    def next_cycle(self) -> None:
        if self.bypassed is not None:
            # h11 never saw the body; a new state machine starts the next cycle.
            self.h11 = h11.Connection(h11.CLIENT)
            self.bypassed = None
        else:
            self.h11.start_next_cycle()
        self.cycles += 1

    async def aclose(self) -> None:
        await self.stream.aclose()


#: A pooled connection: HTTP/1.1, or HTTP/2 (anyurl.schemes.http2) when asked for.
_AnyConnection: TypeAlias = "_Connection | H2Connection"


class _BodyEnd:
    """Who gives a response's connection back: the body when read to its end (to the
    pool), otherwise whoever closes first (the body's ``finally`` or the Resource, which
    also covers a resource closed before its first chunk, when the body never ran)."""

    def __init__(self, conn: _AnyConnection):
        self.conn = conn
        self.released = False

    async def close(self) -> None:
        if not self.released:
            self.released = True
            await self.conn.aclose()


class HTTPHandler(SchemeHandler):
    """http: and https: URLs, and the HTTP side of gateways (see the module docstring)."""

    schemes = HTTP_SCHEMES
    options_type = HTTPOptions

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
        self._idle: dict[Route, list[_AnyConnection]] = {}
        #: Connections opened (not reused) so far; tests and ``-v`` read it.
        self.connections_opened = 0
        self._http2_available: bool | None = None

    # -- requests --------------------------------------------------------------------

    def _headers(
        self, url: URL, route: Route, options: FetchOptions, authorization: str | None
    ) -> list[tuple[str, str]]:
        headers = [("Host", host_header(url)), ("User-Agent", USER_AGENT), ("Accept", "*/*")]
        if options.get(HTTPOptions).decode_content:
            headers.append(("Accept-Encoding", "gzip, deflate"))
        if options.offset:
            headers.append(("Range", f"bytes={options.offset}-"))
            if options.if_range:
                headers.append(("If-Range", options.if_range))
        if authorization:
            headers.append(("Authorization", authorization))
        if route.proxy_authorization:
            headers.append(("Proxy-Authorization", route.proxy_authorization))
        return headers

    def plan(self, url: URL, options: FetchOptions) -> list[str]:
        route = self.router(url)
        authorization = basic_credentials(url.user, url.password) if url.user else None
        lines = [f"GET {_masked_target(url, route)} HTTP/1.1"]
        lines += [f"{k}: {_mask_header(k, v)}" for k, v in
                  self._headers(url, route, options, authorization)]
        if route.tunnel is not None:
            lines.insert(0, f"CONNECT {route.host}:{route.port} HTTP/1.1 "
                            f"(to {route.tunnel.masked()})")
        return lines

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        current = url.without_fragment()
        visited = [*options.redirect_chain, current]
        first = visited[0]
        authorization, auth_origin = self._credentials(current)
        max_redirects = self.config.max_redirects
        while True:
            route = self.router(current)
            auth = authorization if _origin(current) == auth_origin else None
            conn, response = await self._exchange(current, route, options, auth)
            if response.status in REDIRECT_STATUSES and response.header("location"):
                location = response.header("location") or ""
                await self._discard(conn, response)
                target = self._redirect_target(current, location, response)
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
                    return await handler.open(
                        target, dataclasses.replace(options, redirect_chain=tuple(visited[:-1])))
                if target.user is not None:
                    authorization, auth_origin = self._credentials(target)
                current = target
                continue
            return await self._resource(url, current, conn, response, options)

    def _credentials(self, url: URL) -> tuple[str | None, tuple[str, str, int] | None]:
        if url.user is None:
            return None, None
        if url.password:
            self.warn(
                f"{url.masked()} carries a password: it is sent as HTTP Basic "
                "authentication, readable by anyone who can see the connection"
            )
        return basic_credentials(url.user, url.password), _origin(url)

    def _redirect_target(self, current: URL, location: str, response: _Response) -> URL:
        # urljoin resolves relative references (RFC 3986 5.2) on the text of the URL.
        absolute = urljoin(str(current), location.strip())
        scheme = absolute.split(":", 1)[0].lower()
        if scheme not in HTTP_SCHEMES:
            raise UnsupportedScheme(
                f"{current.masked()} answered '{response.status_line}' redirecting to "
                f"{_mask_text(absolute)}, which is not an http or https URL; not following it",
                url=current,
                hint="Fetch that URL yourself if you trust it.",
            )
        try:
            return parse(absolute).without_fragment()
        except URLError as exc:
            raise ProtocolError(
                f"{current.masked()} redirected to {_mask_text(absolute)!r}, "
                f"which is not a valid URL: {exc}",
                url=current,
            ) from exc

    def _wants_http2(self, route: Route, options: FetchOptions) -> bool:
        """HTTP/2 when asked for, spoken to the origin (not a GET gateway), h2 installed."""
        if not options.get(HTTPOptions).http2 or route.absolute_form:
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
        self, url: URL, route: Route, options: FetchOptions, authorization: str | None
    ) -> tuple[_AnyConnection, _Response]:
        """Send the request and read the response head, retrying once on a stale connection."""
        headers = self._headers(url, route, options, authorization)
        target = request_target(url, route)
        trace = options.trace
        http2 = self._wants_http2(route, options)
        while True:
            conn = await self._connection(route, url, trace, http2=http2)
            if trace:
                trace(f"> GET {_masked_target(url, route)} HTTP/{conn.http_version}")
                for k, v in headers:
                    trace(f"> {k}: {_mask_header(k, v)}")
            try:
                if isinstance(conn, _Connection):
                    await conn.send(h11.Request(method="GET", target=target, headers=headers),
                                    h11.EndOfMessage())
                    response = await self._read_head(conn)
                else:
                    response = await conn.request(url.scheme, target, headers)
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
            return conn, response

    async def _read_head(self, conn: _Connection) -> _Response:
        while True:
            event = await conn.next_event()
            if isinstance(event, h11.InformationalResponse):
                continue
            if isinstance(event, h11.Response):
                return _Response(
                    status=event.status_code,
                    reason=event.reason.decode("latin-1"),
                    http_version=event.http_version.decode("ascii"),
                    headers=[(k.decode("latin-1").lower(), v.decode("latin-1"))
                             for k, v in event.headers],
                )
            if isinstance(event, h11.ConnectionClosed):
                raise ConnectionLost(
                    f"the server of {conn.stream.url.masked()} closed the connection "
                    "without a response",
                    url=conn.stream.url,
                )
            raise ProtocolError(  # pragma: no cover - h11 yields nothing else here
                f"unexpected {type(event).__name__} before the response of "
                f"{conn.stream.url.masked()}",
                url=conn.stream.url,
            )

    # -- connections -----------------------------------------------------------------

    async def _connection(
        self, route: Route, url: URL, trace: Trace | None, *, http2: bool = False
    ) -> _AnyConnection:
        """A pooled connection for ``route`` or a new one; HTTP/2 only if ``http2``.

        With ``http2`` an http route speaks it with prior knowledge (h2c) and an https
        route when the server picks ``h2`` by ALPN; otherwise the connection is HTTP/1.1.
        """
        idle = self._idle.get(route, [])
        for conn in reversed(idle):
            if http2 or isinstance(conn, _Connection):
                idle.remove(conn)
                conn.stream.url = url
                if trace:
                    trace(f"* reusing HTTP/{conn.http_version} connection to "
                          f"{route.host}:{route.port}")
                return conn
        if trace:
            via = f" through {route.tunnel.masked()}" if route.tunnel else ""
            trace(f"* connecting to {route.host}:{route.port}{via}")
        dialer = Dialer(tunnel_to(route.tunnel, trace)) if route.tunnel else self.dialer
        stream = await dialer.connect_tcp(
            route.host, route.port, url=url,
            connect_timeout=self.config.connect_timeout,
            read_timeout=self.config.read_timeout,
            tls=route.tls, server_hostname=route.server_hostname,
            alpn_protocols=("h2", "http/1.1") if http2 and route.tls else None,
            what="the HTTP connection",
        )
        self.connections_opened += 1
        if http2 and (not route.tls or stream.alpn_protocol == "h2"):
            from anyurl.schemes.http2 import open_h2

            return await open_h2(stream, route)
        return _Connection(stream, route)

    async def _release(self, conn: _AnyConnection) -> None:
        """Back to the pool if h11 says the cycle finished cleanly, else closed."""
        if conn.reusable:
            conn.next_cycle()
            idle = self._idle.setdefault(conn.key, [])
            if len(idle) < MAX_IDLE_PER_ROUTE:
                idle.append(conn)
                return
        await conn.aclose()

    async def _discard(self, conn: _AnyConnection, response: _Response) -> None:
        """Drop a body nobody wants (a redirect's, an error page) and release the connection."""
        if not isinstance(conn, _Connection):  # HTTP/2: reset the stream, keep the connection
            await conn.discard()
            await self._release(conn)
            return
        length = response.header("content-length")
        small = length is not None and length.isdigit() and int(length) <= DRAIN_LIMIT
        if not small and response.header("transfer-encoding") is None:
            await conn.aclose()
            return
        received = 0
        try:
            while True:
                event = await conn.next_event()
                if isinstance(event, h11.Data):
                    received += len(event.data)
                    if received > DRAIN_LIMIT:
                        await conn.aclose()
                        return
                elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                    break
        except AnyURLError:
            await conn.aclose()
            return
        await self._release(conn)

    async def aclose(self) -> None:
        idle, self._idle = self._idle, {}
        for conns in idle.values():
            for conn in conns:
                await conn.aclose()

    # -- responses -------------------------------------------------------------------

    async def _resource(
        self, url: URL, final: URL, conn: _AnyConnection, response: _Response,
        options: FetchOptions,
    ) -> Resource:
        status = response.status
        length = _content_length(response)
        offset = 0
        size = length
        total = length
        if status == 206 and options.offset:
            offset, size, total = self._check_content_range(final, response, options, conn)
        elif status == 416 and options.offset:
            return await self._range_not_satisfiable(final, conn, response, options)
        elif status >= 300 and not options.get(HTTPOptions).keep_error_body:
            await self._discard(conn, response)
            raise _status_error(final, response)
        elif status == 206:  # a range nobody asked for: the start is not the file's
            await conn.aclose()
            raise ProtocolError(
                f"{final.masked()} answered '{response.status_line}' to a request without "
                "Range", url=final)
        encoding = (response.header("content-encoding") or "").strip().lower()
        decoder = None
        if encoding and options.get(HTTPOptions).decode_content:
            decoder = _decoder(encoding)
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
            extra={
                "status": status,
                "status_line": response.status_line,
                "headers": response.headers,
                "content_encoding": encoding or None,
                "decoded": decoder is not None,
                "connection_reused": conn.cycles > 0,
                "http_version": conn.http_version,
            },
        )
        end = _BodyEnd(conn)
        return Resource(info, self._body(end, response, decoder), on_close=end.close)

    def _check_content_range(
        self, url: URL, response: _Response, options: FetchOptions, conn: _AnyConnection
    ) -> tuple[int, int | None, int | None]:
        text = response.header("content-range") or ""
        try:
            unit, _, rest = text.partition(" ")
            span, _, total_text = rest.partition("/")
            first_text, _, last_text = span.partition("-")
            first, last = int(first_text), int(last_text)
            total = None if total_text.strip() == "*" else int(total_text)
            if unit.lower() != "bytes":
                raise ValueError(unit)
        except ValueError:
            raise ResumeFailed(
                f"{url.masked()} answered '{response.status_line}' with Content-Range "
                f"{text!r}, which anyurl cannot use to resume",
                url=url,
            ) from None
        if first != options.offset:
            raise ResumeFailed(
                f"{url.masked()} resumed at byte {first} (Content-Range {text!r}) where byte "
                f"{options.offset} was asked for",
                url=url,
                hint="Download the file again from the start.",
            )
        return first, last - first + 1, total

    async def _range_not_satisfiable(
        self, url: URL, conn: _AnyConnection, response: _Response, options: FetchOptions
    ) -> Resource:
        text = response.header("content-range") or ""
        total_text = text.rpartition("/")[2].strip()
        await self._discard(conn, response)
        if total_text.isdigit() and int(total_text) == options.offset:
            # What we have is the whole file: nothing left to transfer.
            info = ResourceInfo(url=url, size=0, total_size=options.offset,
                                offset=options.offset, filename=_filename(url, response),
                                extra={"status": 416, "status_line": response.status_line,
                                       "already_complete": True})
            return Resource(info, _empty())
        size = f"; the file has {total_text} bytes" if total_text.isdigit() else ""
        raise ResumeFailed(
            f"{url.masked()} answered '{response.status_line}' to a resume from byte "
            f"{options.offset}{size}",
            url=url,
            hint="The local partial file is larger than the remote one; download it again.",
        )

    async def _body(
        self, end: _BodyEnd, response: _Response, decoder: _Decoder | None
    ) -> AsyncIterator[bytes]:
        conn = end.conn
        try:
            length = _content_length(response)
            if not isinstance(conn, _Connection):
                chunks = conn.body(length)
            elif length is not None and conn.h11.their_state is h11.SEND_BODY:
                chunks = self._counted_body(conn, response, length)
            else:
                chunks = self._h11_body(conn)
            async for data in chunks:
                if decoder is not None:
                    data = decoder.decompress(data)
                if data:
                    yield data
            if decoder is not None:
                tail = decoder.flush()
                if tail:
                    yield tail
            end.released = True
            await self._release(conn)
        finally:
            await end.close()

    async def _h11_body(self, conn: _Connection) -> AsyncIterator[bytes]:
        """Chunked and close-delimited bodies, framed by h11."""
        while True:
            event = await conn.next_event()
            if type(event) is h11.Data:
                yield event.data
            elif type(event) is h11.EndOfMessage or isinstance(event, h11.ConnectionClosed):
                return

    async def _counted_body(
        self, conn: _Connection, response: _Response, length: int
    ) -> AsyncIterator[bytes]:
        """A Content-Length body read straight from the stream, bypassing h11's buffer.

        Why: h11 appends every received block to a bytearray and slices it out again, two
        copies of each byte that measured at ~70% of the time of a loopback download.
        Counting bytes is all the framing a Content-Length body has; h11 has parsed the
        head, and a fresh h11 connection takes over for the next cycle (see _release).
        Reads never ask for more than the rest of the body, so nothing of a following
        response is consumed.
        """
        leftover, _ = conn.h11.trailing_data
        remaining = length
        if leftover:
            if len(leftover) > length:  # more than the body: not a clean HTTP/1.1 cycle
                conn.keep_alive = False
            head = leftover[:length]
            remaining -= len(head)
            yield head
        stream = conn.stream
        while remaining:
            data = await stream.receive(min(DEFAULT_RECEIVE_SIZE, remaining))
            if not data:
                raise PartialTransfer(
                    f"the server closed the connection after {length - remaining} of "
                    f"{length} bytes of the body of {stream.url.masked()}",
                    received=length - remaining, expected=length, url=stream.url,
                    hint="Try again with resume (-C) to continue where it stopped.",
                )
            remaining -= len(data)
            yield data
        conn.bypassed = _keep_alive(response)


# -- helpers -----------------------------------------------------------------------------


def _origin(url: URL) -> tuple[str, str, int]:
    return (url.scheme, (url.host or "").lower(), url.effective_port or 0)


def _mask_text(text: str) -> str:
    return mask(text)


def _keep_alive(response: _Response) -> bool:
    """Whether the server keeps the connection open after this response (as h11 decides)."""
    tokens = {t.strip().lower() for t in (response.header("connection") or "").split(",")}
    return "close" not in tokens and response.http_version >= "1.1"


def _content_length(response: _Response) -> int | None:
    if response.header("transfer-encoding") is not None:
        return None
    value = response.header("content-length")
    return int(value) if value is not None and value.strip().isdigit() else None


def _filename(url: URL, response: _Response) -> str | None:
    disposition = response.header("content-disposition") or ""
    for part in disposition.split(";"):
        key, _, value = part.strip().partition("=")
        if key.lower() == "filename" and value:
            name = value.strip().strip('"').replace("\\", "/").rsplit("/", 1)[-1]
            if name not in ("", ".", ".."):
                return name
    parts = url.parts
    if isinstance(parts, HTTPPath) and parts.hpath:
        name = unquote(parts.hpath.rsplit("/", 1)[-1])
        return name or None
    return None


_Decoder = Any  # zlib.Decompress: not exposed as a type by typeshed


def _decoder(encoding: str) -> _Decoder | None:
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return _DeflateDecoder()
    return None


class _DeflateDecoder:
    """``deflate`` is meant to be zlib-wrapped, but some servers send raw deflate."""

    def __init__(self) -> None:
        self._first = True
        self._obj = zlib.decompressobj()

    def decompress(self, data: bytes) -> bytes:
        if self._first:
            self._first = False
            try:
                return self._obj.decompress(data)
            except zlib.error:
                self._obj = zlib.decompressobj(-zlib.MAX_WBITS)
        return self._obj.decompress(data)

    def flush(self) -> bytes:
        return self._obj.flush()


async def _empty() -> AsyncIterator[bytes]:
    return
    yield b""  # pragma: no cover - makes this an async generator


def _status_error(url: URL, response: _Response) -> AnyURLError:
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
    hint = ("--keep-error-body saves what the server sent." if status >= 400 else
            "The server did not send the file itself.")
    return ServerError(f"{url.masked()} answered '{line}'", status=status, url=url, hint=hint)


# -- CONNECT tunnels -------------------------------------------------------------------


def tunnel_to(gateway: URL, trace: Trace | None = None) -> Tunnel:
    """A :class:`~anyurl.transport.Tunnel` through ``gateway``'s CONNECT."""

    async def tunnel(
        host: str, port: int, *, url: URL, connect_timeout: float | None,
        read_timeout: float | None,
    ) -> Stream:
        return await open_tunnel(gateway, host, port, url=url, connect_timeout=connect_timeout,
                                 read_timeout=read_timeout, trace=trace)

    return tunnel


async def open_tunnel(
    gateway: URL,
    host: str,
    port: int,
    *,
    url: URL,
    connect_timeout: float | None,
    read_timeout: float | None,
    trace: Trace | None = None,
) -> Stream:
    """Connect to ``gateway`` and ask it to ``CONNECT host:port``; the stream is then raw.

    A refusal is :class:`ConnectFailed` (407: :class:`LoginDenied`) quoting the status line.
    """
    gw_host = gateway.connect_host
    gw_port = gateway.effective_port or 80
    stream = await connect_tcp(
        gw_host, gw_port, url=url, connect_timeout=connect_timeout,
        read_timeout=read_timeout, tls=gateway.scheme == "https", server_hostname=gw_host,
        what="the gateway connection",
    )
    authority = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    headers = [("Host", authority), ("User-Agent", USER_AGENT)]
    if gateway.user is not None:
        headers.append(("Proxy-Authorization", basic_credentials(gateway.user, gateway.password)))
    conn = h11.Connection(h11.CLIENT)
    try:
        if trace:
            trace(f"> CONNECT {authority} HTTP/1.1")
            for k, v in headers:
                trace(f"> {k}: {_mask_header(k, v)}")
        await stream.send(conn.send(h11.Request(method="CONNECT", target=authority,
                                                headers=headers)) or b"")
        conn.send(h11.EndOfMessage())  # a CONNECT has no body: nothing to send
        while True:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError as exc:
                raise ProtocolError(
                    f"the gateway {gateway.masked()} broke HTTP/1.1 answering CONNECT "
                    f"{authority}: {exc}", url=url) from exc
            if event is h11.NEED_DATA:
                conn.receive_data(await stream.receive(65536))
                continue
            if isinstance(event, h11.InformationalResponse):
                continue
            if isinstance(event, h11.ConnectionClosed):
                raise ConnectFailed(
                    f"the gateway {gateway.masked()} closed the connection when asked to "
                    f"CONNECT {authority} for {url.masked()}", url=url)
            if isinstance(event, h11.Response):
                line = (f"HTTP/{event.http_version.decode()} {event.status_code} "
                        f"{event.reason.decode('latin-1')}").rstrip()
                if trace:
                    trace(f"< {line}")
                if 200 <= event.status_code < 300:
                    break
                if event.status_code == 407:
                    raise LoginDenied(
                        f"the gateway {gateway.masked()} answered '{line}' to CONNECT "
                        f"{authority} for {url.masked()}",
                        url=url, hint="Put the gateway's user and password in its URL.")
                raise ConnectFailed(
                    f"the gateway {gateway.masked()} answered '{line}' to CONNECT "
                    f"{authority} for {url.masked()}", url=url,
                    hint="The gateway may not allow tunnels to that port.")
            raise ProtocolError(  # pragma: no cover
                f"unexpected {type(event).__name__} from the gateway {gateway.masked()}",
                url=url)
    except BaseException:
        await stream.aclose()
        raise
    # Whatever followed the 200's head is the first data of the tunnelled protocol.
    stream.unreceive(conn.trailing_data[0])
    return stream
