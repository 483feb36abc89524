"""The gateway as an ASGI application (Starlette), and how it is served (hypercorn).

Every request passes :class:`Guard` first, the door of the gateway:

* **Host.** A request whose ``Host`` is not one of the gateway's own addresses is
  refused (403): a web page on another site cannot reach the gateway through a name it
  controls that resolves to 127.0.0.1 (DNS rebinding).
* **Another site.** A request a browser marks ``Sec-Fetch-Site: cross-site`` or
  ``same-site`` is refused (403): the token cookie is sent with every request to
  127.0.0.1, whatever its port, so a page of another local server (same-site: ports do
  not make sites) could otherwise use the gateway with the user's cookie.
* **Token.** Unless the gateway runs with ``token=None`` (``--no-token``), a request must
  carry the token: in the ``anyurl_token`` query parameter (the ready URL printed at
  start, as notebook servers print theirs; it is then set as a cookie and the browser is
  sent to the same address without it), in that cookie, or as ``Authorization: Bearer``.
* **Proxy requests** (RFC 1738 section 4: ``GET gopher://host/1/ HTTP/1.1``, the
  absolute form a client sends to its proxy) carry a ``Host`` naming the remote server,
  not the gateway, and a proxy client cannot add a query parameter or a cookie: they
  carry the token as ``Proxy-Authorization`` (Basic with the token as the password, as
  ``curl -x http://127.0.0.1:PORT -U anyurl:TOKEN`` sends it, or Bearer), else the
  answer is ``407``. They get the resource's bytes, as a proxy returns them.

Every answer leaves the door with the pages' security headers (a policy without
scripts, ``nosniff``, no referrer, no caching) unless it set its own: a refusal, a
redirect and a ``500`` as much as a page.

Then every URL goes through the resolver (port policy, registry, gateways), ``file:``
only when the gateway was told so; each request is limited in bytes (``max_size``), time
(``timeout``) and number at once (``max_requests``: more get ``429``).

A page is rendered in a worker thread (``anyio.to_thread``), never on the event loop: a
600 KB Gopher menu is work that grows with its size, and on the loop it held every other
request (``/`` included) until it was done. The render gets what is left of the request's
``timeout`` (a ``504`` after; the thread, which cannot be stopped, finishes unseen), and a
listing larger than ``max_page`` is not rendered at all: the answer (``413``) points at its
raw bytes.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import functools
import hmac
import logging
import math
import re
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from anyurl.config import Config
from anyurl.downloads.names import remote_name
from anyurl.errors import (
    AnyURLError,
    FileSizeExceeded,
    PolicyRefused,
    RemoteAccessDenied,
    RemoteFileNotFound,
    TransferTimeout,
    UnsupportedScheme,
    URLError,
)
from anyurl.options import SchemeOptions
from anyurl.registry import spec_for
from anyurl.resolver import Resolver
from anyurl.resource import Resource, ResourceInfo
from anyurl.schemes.base import FetchOptions, Presentation
from anyurl.serve import html, site
from anyurl.serve.replay import Archive
from anyurl.url import URL

__all__ = ["TOKEN_PARAM", "Guard", "ServeOptions", "build_app", "cookie_name", "serve"]

#: The query parameter that carries the token (the ready URL's).
TOKEN_PARAM = "anyurl_token"
#: How the handler says a resource is shown: these are pages (text and links), the rest
#: downloads.
_SHOWN = frozenset({Presentation.TEXT, Presentation.LISTING})


def not_fetched(url: URL) -> str | None:
    """Why the gateway shows ``url`` as a link rather than fetching it (a telnet session
    is interactive, a mailto: URL sends mail), as its scheme's descriptor says; or None."""
    spec = spec_for(url.scheme)
    return spec.not_in_browser if spec is not None else None


@dataclass
class ServeOptions:
    """What ``anyurl serve`` was asked: where to listen, the door's rules, the limits."""

    host: str = "127.0.0.1"
    #: 0: a free port, chosen when the socket is bound.
    port: int = 0
    #: The token a request must carry; None: none needed (``--no-token``).
    token: str | None = None
    #: Serve ``file:`` URLs (this machine's files) too.
    allow_file: bool = False
    #: More ``Host`` values to accept (a name the gateway is reached by), ``name:port``.
    allowed_hosts: tuple[str, ...] = ()
    #: Bytes of one response at most (a page's listing or a download).
    max_size: int = 256 * 1024 * 1024
    #: Bytes of a listing rendered as a page at most; a larger one is offered raw.
    max_page: int = 16 * 1024 * 1024
    #: Seconds one request may take, opening and transfer together.
    timeout: float = 120.0
    #: Requests served at once; more are answered 429.
    max_requests: int = 8
    #: Replay these WARC files instead of the network.
    warcs: tuple[Path, ...] = ()
    config: Config = field(default_factory=Config)
    #: The per-scheme options every live fetch gets: the certificate checks of
    #: ``--cacert``, ``--capath`` and ``-k`` (https, ftps, nntps).
    schemes: tuple[SchemeOptions, ...] = ()


def cookie_name(port: int) -> str:
    """The token cookie's name: per port, since cookies are per host, not per port."""
    return f"{TOKEN_PARAM}_{port}"


def _status_of(exc: AnyURLError) -> int:
    """The HTTP status a gateway answers for ``exc`` (a 5xx when the far side failed)."""
    if isinstance(exc, URLError | UnsupportedScheme):
        return 400
    if isinstance(exc, PolicyRefused | RemoteAccessDenied):
        return 403
    if isinstance(exc, RemoteFileNotFound):
        return 404
    if isinstance(exc, FileSizeExceeded):
        return 413
    if isinstance(exc, TransferTimeout):
        return 504
    return 502


class Guard:
    """The gateway's door around the application (see the module's docstring): Host,
    token, proxy requests; an ASGI middleware."""

    def __init__(self, app: Gateway, options: ServeOptions) -> None:
        self.app = app
        self.options = options
        self.port = options.port

    def own_hosts(self) -> set[str]:
        """The ``Host`` values the gateway answers to: its address and port (loopback
        by its names too) and the ones it was told of."""
        port = self.port
        hosts = {f"{self.options.host}:{port}", f"[{self.options.host}]:{port}"}
        if self.options.host in ("127.0.0.1", "::1", "localhost"):
            hosts |= {f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"}
        hosts |= set(self.options.allowed_hosts)
        return {h.lower() for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app.asgi(scope, receive, send)
            return
        started = False

        async def secured(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message = _with_security_headers(message)
            await send(message)

        try:
            await self._door(scope, receive, secured)
        except Exception:
            if not started:  # an answer all the same, with the headers, then the log
                await _page(html.error_page(
                    "", "The gateway failed on this request.",
                    "The gateway's log says why."), 500)(scope, receive, secured)
            raise

    async def _door(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The checks of the module's docstring, in order, then the gateway."""
        request = Request(scope, receive)
        raw_path: bytes = scope.get("raw_path") or scope["path"].encode()
        if not raw_path.startswith(b"/"):  # absolute form: a proxy request
            if not self._proxy_token(request):
                await Response(
                    "anyurl serve: a proxy request needs the gateway's token as "
                    "Proxy-Authorization (curl -x URL -U anyurl:TOKEN)\n", 407,
                    headers={"Proxy-Authenticate": 'Basic realm="anyurl serve"'},
                    media_type="text/plain")(scope, receive, send)
                return
            target = raw_path.decode("latin-1")
            query = scope.get("query_string") or b""
            if query:
                target += "?" + query.decode("latin-1")
            await self.app.proxy(target, scope, receive, send)
            return
        host = (request.headers.get("host") or "").lower()
        if host not in self.own_hosts():
            await Response(
                f"anyurl serve: refused a request for host {host!r}: this gateway "
                "answers only to its own address (DNS rebinding)\n", 403,
                media_type="text/plain")(scope, receive, send)
            return
        site = (request.headers.get("sec-fetch-site") or "").strip().lower()
        if site in ("cross-site", "same-site"):
            await _page(html.error_page(
                "", f"Refused a request from another site (Sec-Fetch-Site: {site}).",
                "Open the gateway's pages from its own address, not from another page."),
                403)(scope, receive, send)
            return
        if self.options.token is not None:
            given = request.query_params.get(TOKEN_PARAM)
            if given is not None and self._good(given):
                await self._set_cookie(request, scope, receive, send)
                return
            if not self._page_token(request):
                await HTMLResponse(html.error_page(
                    "", "This gateway needs its token.",
                    "Open the ready URL anyurl serve printed (it carries the token), "
                    "or run it with --no-token."), 403,
                    headers={"Content-Security-Policy": html.PAGE_CSP})(scope, receive, send)
                return
        await self.app.asgi(scope, receive, send)

    def _good(self, given: str) -> bool:
        token = self.options.token
        return token is not None and hmac.compare_digest(given.encode(), token.encode())

    def _page_token(self, request: Request) -> bool:
        cookie = request.cookies.get(cookie_name(self.port))
        if cookie is not None and self._good(cookie):
            return True
        auth = request.headers.get("authorization", "")
        return auth[:7].lower() == "bearer " and self._good(auth[7:].strip())

    def _proxy_token(self, request: Request) -> bool:
        if self.options.token is None:
            return True
        auth = request.headers.get("proxy-authorization", "")
        scheme, _, value = auth.partition(" ")
        if scheme.lower() == "bearer":
            return self._good(value.strip())
        if scheme.lower() == "basic":
            try:
                decoded = base64.b64decode(value.strip(), validate=True).decode()
            except (binascii.Error, UnicodeDecodeError):
                return False
            return self._good(decoded.partition(":")[2])
        return False

    async def _set_cookie(self, request: Request, scope: Scope, receive: Receive,
                          send: Send) -> None:
        """The token was in the URL: keep it as a cookie and send the browser to the
        same address without it (so it stays out of the address bar and history)."""
        query = _without_token(scope.get("query_string", b"").decode("latin-1"))
        raw_path = (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
        if raw_path.startswith(("//", "/\\")):
            raw_path = "/." + raw_path  # a path here, never another host's address
        location = raw_path + ("?" + query if query else "")
        response = RedirectResponse(location, 303)
        response.set_cookie(cookie_name(self.port), str(self.options.token), httponly=True,
                            samesite="strict", path="/")
        await response(scope, receive, send)


class Gateway:
    """The pages: ``/`` (a bar taking any URL; an archive's URLs), ``/<URL>`` (the
    resource: a page for a listing, a menu, an article, a download for a file; an
    archived web page in the replay's frame), ``/_raw/<URL>`` (its bytes as the server
    sent them), ``/_replay/<timestamp>/<URL>`` (an archived web site's resource as the
    site sent it, its URLs rewritten: :mod:`anyurl.serve.site`), ``/_go?url=`` and
    ``/_search?url=&q=`` (the bar's and a search form's targets)."""

    def __init__(self, options: ServeOptions) -> None:
        self.options = options
        self.resolver: Resolver | None = None
        self.archive: Archive | None = None
        self._busy = 0
        self.asgi = Starlette(
            routes=[Route("/", self.home), Route("/_go", self.go),
                    Route("/_search", self.search),
                    Route("/_raw/{rest:path}", self.raw),
                    Route("/_replay/{rest:path}", self.replayed),
                    Route("/{rest:path}", self.resource)],
            lifespan=self._lifespan)

    @contextlib.asynccontextmanager
    async def _lifespan(self, app: Starlette) -> AsyncIterator[None]:
        if self.options.warcs:
            self.archive = await anyio.to_thread.run_sync(
                lambda: Archive(self.options.warcs, max_size=self.options.max_size))
        async with Resolver(self._config()) as resolver:
            self.resolver = resolver
            yield

    def _config(self) -> Config:
        """The run's config: without ``--allow-file`` its scheme policy refuses ``file:``
        at the resolver's gate, so a ``file:`` URL a handler derives (a Prospero access
        method, a redirect, a Gopher ``URL:`` item) is refused as one typed is."""
        config = self.options.config
        if self.options.allow_file:
            return config
        return config.replace(protocols=config.protocols.refusing(
            "file", hint="Start anyurl serve with --allow-file to serve file: URLs."))

    # -- the target of a request -------------------------------------------------------

    @staticmethod
    def _target(request: Request, prefix: str) -> str:
        """The URL a path names: the raw path after ``prefix``, with the query string
        (a WAIS search's ``?words``) as sent, the token parameter left out."""
        raw: str = (request.scope.get("raw_path") or request.scope["path"].encode()).decode(
            "latin-1")
        target = raw[len(prefix):]
        kept = _without_token(request.scope.get("query_string", b"").decode("latin-1"))
        return target + ("?" + kept if kept else "")

    def _admit(self, text: str) -> URL:
        """``text`` through the resolver's gate (its scheme policy: :meth:`_config`)."""
        assert self.resolver is not None
        return self.resolver.admit(text)

    # -- pages -------------------------------------------------------------------------

    async def home(self, request: Request) -> Response:
        """The front page."""
        if self.archive is not None:
            note = ("Replaying " + ", ".join(str(w) for w in self.options.warcs) +
                    ": only archived URLs are shown, nothing is fetched.")
            return _page(html.home_page(note, self.archive.urls()))
        names = ", ".join(e.partition(":")[0] for e in html.browsed_examples())
        return _page(html.home_page(
            f"Type any URL of RFC 1738 ({names}) or open http://this-address/<URL>."))

    async def go(self, request: Request) -> Response:
        """The bar's target: the page of the URL typed. Only a URL with its scheme: the
        gateway's path of ``/evil.com`` would be ``//evil.com``, another host's address
        to a browser (an open redirect)."""
        text = (request.query_params.get("url") or "").strip()
        if not text:
            return RedirectResponse("/", 303)
        if _SCHEME.match(text) is None:
            return _page(html.error_page(
                text, f"{text!r} is not a URL: it has no scheme.",
                "Type the whole URL, with its scheme: "
                + ", ".join(html.browsed_examples()[:3]) + " ..."), 400)
        return RedirectResponse(html.gateway_href(quote(text, safe=_URL_SAFE)), 303)

    async def search(self, request: Request) -> Response:
        """A search form's target: the search URL of a Gopher item or WAIS database."""
        text = request.query_params.get("url") or ""
        try:
            url = self._admit(text)
        except AnyURLError as exc:
            return _error(text, exc)
        term = request.query_params.get("q") or ""
        assert self.resolver is not None
        searched = self.resolver.handler_for(url).search_url(url, term)
        return RedirectResponse(html.gateway_href(searched or str(url)), 303)

    async def resource(self, request: Request) -> Response:
        """``/<URL>``: a page for what lists others, a download for a file."""
        text = self._target(request, "/")
        try:
            url = self._admit(text)
            notice = not_fetched(url)
            if notice is not None:
                return _page(html.notice_page(url, notice))
            if self._shown(ResourceInfo(url=url)) is Presentation.SEARCH_FORM:
                return _page(html.render_page(html.Page(url, "", kind="search", search=True)))
            if self.archive is not None:
                deadline = anyio.current_time() + self.options.timeout
                capture = await anyio.to_thread.run_sync(self.archive.read, url)
                info, body = capture.info, capture.body
                if site.is_site_page(info):
                    return site.frame(capture)
                if self._shown(info) not in _SHOWN:
                    return _download(info, body)
                return await self._page_of(info, body, deadline, captured=capture.date)
            return await self._live(url, page=True)
        except AnyURLError as exc:
            return _error(text, exc)

    async def replayed(self, request: Request) -> Response:
        """``/_replay/<timestamp>/<URL>``: an archived web site's resource as the site sent
        it, its URLs rewritten to stay in the replay (:func:`anyurl.serve.site.replayed`),
        in a worker thread within ``timeout``; any other scheme's URL goes to its page."""
        text = self._target(request, "/_replay/")
        stamped = _STAMPED.match(text)
        try:
            if self.archive is None:
                raise RemoteFileNotFound(
                    "/_replay/ serves archived web sites", hint="Start anyurl serve with "
                    "--warc FILE, the WARC file anyurl mirror --warc wrote.")
            if stamped is None:
                raise URLError(f"{text!r}: a replay address is /_replay/TIMESTAMP/URL")
            stamp, text = stamped.groups()
            url = self._admit(text)
            if not site.is_site(url):
                return RedirectResponse(html.gateway_href(str(url)), 303)
            capture = await anyio.to_thread.run_sync(self.archive.read, url, stamp)
            if len(capture.body) > self.options.max_page:
                raise FileSizeExceeded(
                    f"{url.masked()} is {len(capture.body)} bytes, more than the gateway "
                    f"rewrites ({self.options.max_page})", hint="Raise anyurl serve "
                    f"--max-page, or download its bytes at {html.raw_href(str(url))}.")
            answer = functools.partial(site.replayed, capture, stamp,
                                       request.headers.get("sec-fetch-dest"))
            try:
                with anyio.fail_after(self.options.timeout):
                    return await anyio.to_thread.run_sync(answer, abandon_on_cancel=True)
            except TimeoutError:
                raise self._timeout(url) from None
        except AnyURLError as exc:
            return _framed(_error(text, exc))

    async def raw(self, request: Request) -> Response:
        """``/_raw/<URL>``: the bytes as the server sent them, as a download."""
        text = self._target(request, "/_raw/")
        try:
            url = self._admit(text)
            notice = not_fetched(url)
            if notice is not None:
                return _page(html.notice_page(url, notice))
            if self.archive is not None:
                capture = await anyio.to_thread.run_sync(self.archive.read, url)
                return _download(capture.info, capture.body)
            return await self._live(url, page=False)
        except AnyURLError as exc:
            return _error(text, exc)

    async def proxy(self, target: str, scope: Scope, receive: Receive, send: Send) -> None:
        """A proxy request (absolute form): the resource's bytes, as a proxy gives them;
        an error is a plain-text line with the status of :func:`_status_of`."""
        response: Response
        try:
            url = self._admit(target)
            if not_fetched(url) is not None:
                raise UnsupportedScheme(f"{url.masked()}: the gateway does not open "
                                        f"{url.scheme}: URLs")
            if self.archive is not None:
                capture = await anyio.to_thread.run_sync(self.archive.read, url)
                response = _download(capture.info, capture.body, attachment=False)
            else:
                response = await self._live(url, page=False, attachment=False)
        except AnyURLError as exc:
            response = Response(f"anyurl serve: {exc}\n", _status_of(exc),
                                media_type="text/plain")
        await response(scope, receive, send)

    # -- fetching ----------------------------------------------------------------------

    async def _live(self, url: URL, *, page: bool, attachment: bool = True) -> Response:
        """Fetch ``url`` raw, within the request limits: a page's bytes are read and
        rendered; a file is streamed (:class:`_Streamed`) as it arrives."""
        assert self.resolver is not None
        if self._busy >= self.options.max_requests:
            return _error(str(url), AnyURLError(
                f"the gateway is serving {self._busy} requests already",
                hint="Wait, or raise anyurl serve --max-requests."), status=429)
        self._busy += 1
        stack = contextlib.AsyncExitStack()
        release = True
        try:
            deadline = anyio.current_time() + self.options.timeout
            with anyio.fail_after(self.options.timeout):
                resource = await stack.enter_async_context(
                    self.resolver.open(url, FetchOptions(raw=True,
                                                         schemes=self.options.schemes)))
            if page and self._shown(resource.info) in _SHOWN:
                with anyio.fail_after(max(0.0, deadline - anyio.current_time())):
                    body = await resource.read(limit=self.options.max_size)
                return await self._page_of(resource.info, body, deadline)
            release = False
            return _Streamed(resource, stack, self, deadline, attachment=attachment)
        except TimeoutError:
            raise self._timeout(url) from None
        finally:
            if release:
                with anyio.CancelScope(shield=True):
                    await stack.aclose()
                self._busy -= 1

    def _shown(self, info: ResourceInfo) -> Presentation:
        """How ``info``'s resource is shown, as its handler says."""
        assert self.resolver is not None
        return self.resolver.handler_for(info.url).presentation(info)

    def _timeout(self, url: URL) -> TransferTimeout:
        return TransferTimeout(f"{url.masked()}: not done within the gateway's "
                               f"{self.options.timeout:g} seconds",
                               hint="Raise anyurl serve --timeout.")

    async def _page_of(self, info: ResourceInfo, body: bytes, deadline: float, *,
                       captured: str | None = None) -> Response:
        """The page of a listing, rendered in a worker thread by ``deadline`` so that the
        event loop serves other requests meanwhile; a listing over ``max_page`` bytes is
        refused (413) with the address of its raw bytes instead."""
        limit = self.options.max_page
        if len(body) > limit:
            return _error(str(info.url), FileSizeExceeded(
                f"{info.url.masked()} is {len(body)} bytes, more than the gateway shows "
                f"as a page ({limit})",
                hint=f"Download its bytes at {html.raw_href(str(info.url))}, or raise "
                "anyurl serve --max-page."), status=413)
        render = functools.partial(self._render, info, body, captured=captured)
        try:
            with anyio.fail_after(max(0.0, deadline - anyio.current_time())):
                text = await anyio.to_thread.run_sync(render, abandon_on_cancel=True)
        except TimeoutError:
            raise self._timeout(info.url) from None
        return _page(text)

    def _render(self, info: ResourceInfo, body: bytes, *, captured: str | None = None) -> str:
        """A page of ``info``'s resource as its handler renders it and finds its links
        (in a worker thread: it reads nothing but its arguments and the registry)."""
        assert self.resolver is not None
        handler = self.resolver.handler_for(info.url)
        text = handler.render(info, body)
        if text is None:
            text = body.decode("utf-8", "replace")
        links = handler.links(info, body)
        return html.render_page(html.Page(info.url, text, links, kind=info.kind,
                                          content_type=info.content_type,
                                          captured=captured,
                                          search=handler.search_url(info.url, "") is not None))


#: Characters kept as they are when a typed URL becomes a gateway path (what a URL may
#: hold); anything else (a space, a quote) is %-escaped.
_URL_SAFE = "!#$%&'()*+,-./:;=?@[]_~"
#: A replay address's timestamp and URL.
_STAMPED = re.compile(r"([0-9]{1,14})/(.+)", re.DOTALL)
#: A URL's scheme and its colon (RFC 1738 2.1), which a typed URL must start with.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")


def _without_token(query: str) -> str:
    """``query`` as sent, less the token parameter: every other byte kept (a search's
    ``gophers%20fox`` stays that, not a form's ``gophers+fox=``)."""
    return "&".join(part for part in query.split("&")
                    if part.partition("=")[0] != TOKEN_PARAM)


def _with_security_headers(message: Message) -> Message:
    """A response head with the pages' security headers it does not set itself."""
    headers = list(message.get("headers", []))
    present = {bytes(name).lower() for name, _ in headers}
    headers += [(name, value) for name, value in _SECURITY_HEADERS if name not in present]
    return {**message, "headers": headers}


def _page(text: str, status: int = 200) -> Response:
    return HTMLResponse(text, status, headers=_PAGE_HEADERS)


_PAGE_HEADERS = {"Content-Security-Policy": html.PAGE_CSP, "X-Content-Type-Options": "nosniff",
                 "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}
_SECURITY_HEADERS = [(k.lower().encode("latin-1"), v.encode("latin-1"))
                     for k, v in _PAGE_HEADERS.items()]


def _error(text: str, exc: AnyURLError, status: int | None = None) -> Response:
    """The page of an error: its message (the URL in it masked) and what to try, in the
    words of anyurl's options (``--allow-port N``), not the library's keywords."""
    from anyurl.cli.hints import cli_hint
    from anyurl.url import mask

    hint = cli_hint(exc)
    words = f"{exc.message.rstrip('.')}. {hint}" if hint else exc.message
    return _page(html.error_page(mask(text), words), status or _status_of(exc))


def _framed(response: Response) -> Response:
    """An error page of the replay, which may be shown in the replay's frame."""
    response.headers["Content-Security-Policy"] = html.PAGE_CSP.replace(
        "frame-ancestors 'none'", "frame-ancestors 'self'")
    return response


def _file_headers(info: ResourceInfo, *, attachment: bool) -> dict[str, str]:
    """A download's headers: its type, its name, and no way to run as a page here."""
    headers = {"Content-Type": info.content_type or "application/octet-stream",
               "Content-Security-Policy": html.RAW_CSP, "X-Content-Type-Options": "nosniff",
               "Cache-Control": "no-store"}
    if attachment:  # the name -O gives it (the scheme's, one rule for both)
        name = remote_name(info.url, info.filename)
        headers["Content-Disposition"] = f"attachment; filename*=UTF-8''{quote(name, safe='')}"
    return headers


def _download(info: ResourceInfo, body: bytes, *, attachment: bool = True) -> Response:
    """A replayed file's bytes as a download."""
    return Response(body, 200, headers=_file_headers(info, attachment=attachment))


class _Streamed(Response):
    """A live file streamed to the client as it arrives, within the request's deadline
    and size limit; the resource is closed (and the request counted done) at the end.

    It is sent in the task that opened the resource (Starlette awaits the endpoint and
    then calls its response in one task), as anyio's cancel scopes require.
    """

    def __init__(self, resource: Resource, stack: contextlib.AsyncExitStack,
                 gateway: Gateway, deadline: float, *, attachment: bool) -> None:
        super().__init__(None, 200)
        self.resource = resource
        self.stack = stack
        self.gateway = gateway
        self.deadline = deadline
        self.attachment = attachment

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        info = self.resource.info
        limit = self.gateway.options.max_size
        try:
            if info.size is not None and info.size > limit:
                exc = FileSizeExceeded(
                    f"{info.url.masked()} is {info.size} bytes, more than the gateway's "
                    f"limit of {limit}", hint="Raise anyurl serve --max-size.")
                await _error(str(info.url), exc)(scope, receive, send)
                return
            headers = _file_headers(info, attachment=self.attachment)
            if info.size is not None:
                headers["Content-Length"] = str(info.size)
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(k.lower().encode("latin-1"), v.encode("latin-1"))
                                    for k, v in headers.items()]})
            sent = 0
            with anyio.fail_after(max(0.0, self.deadline - anyio.current_time())):
                async for chunk in self.resource:
                    sent += len(chunk)
                    if sent > limit:
                        raise _Cut(f"{info.url.masked()}: more than {limit} bytes")
                    await send({"type": "http.response.body", "body": chunk,
                                "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except (AnyURLError, TimeoutError) as exc:
            # The head is sent: the only way to say "incomplete" is to cut the connection.
            raise _Cut(str(exc)) from None
        finally:
            with anyio.CancelScope(shield=True):
                await self.stack.aclose()
            self.gateway._busy -= 1


class _Cut(Exception):
    """A streamed download failed after its head was sent: the connection is cut, so
    the client sees an incomplete transfer, never a short file that looks whole."""


def build_app(options: ServeOptions) -> Guard:
    """The gateway's ASGI application: :class:`Gateway`'s pages behind :class:`Guard`.

    ``options.port`` must be the port it is reached at (the Host check compares it).
    """
    return Guard(Gateway(options), options)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (0: a free port), before the server
    starts, so that the ready URL names the port actually bound."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


async def serve(app: Guard, sock: socket.socket,
                shutdown: Callable[[], Awaitable[None]] | None = None) -> None:
    """Serve ``app`` on the bound ``sock`` with hypercorn, on the running async library
    (asyncio or trio), until ``shutdown`` returns (default: until cancelled)."""
    from hypercorn.config import Config as HypercornConfig

    from anyurl.net.transport import on_asyncio

    config = HypercornConfig()
    config.bind = [f"fd://{sock.fileno()}"]
    config.accesslog = None
    config.errorlog = _quiet_log()
    config.graceful_timeout = 1.0
    forever = shutdown or _forever
    if not on_asyncio():  # trio
        from hypercorn.trio import serve as trio_serve

        await trio_serve(app, config, shutdown_trigger=forever)  # type: ignore[arg-type]
    else:
        from hypercorn.asyncio import serve as asyncio_serve

        await asyncio_serve(app, config, shutdown_trigger=forever)  # type: ignore[arg-type]


async def _forever() -> None:
    await anyio.sleep(math.inf)


def _quiet_log() -> logging.Logger:
    """Hypercorn's error log as one line per failure on stderr (a cut download, a
    client gone), never a traceback."""
    logger = logging.getLogger("anyurl.serve")
    logger.propagate = False
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(_OneLine("anyurl serve: %(message)s"))
        logger.addHandler(handler)
    return logger


class _OneLine(logging.Formatter):
    """A record and its exception's message on one line, without the traceback."""

    def format(self, record: logging.LogRecord) -> str:
        """The message, then ``: `` and the exception's own text when there is one."""
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
                exc = exc.exceptions[0]
            text += f": {exc}"
        return f"anyurl serve: {text}"
