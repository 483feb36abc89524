"""anyurl serve's trust and liveness (issue 29), driven as an ASGI application in-process:

* pages render in a worker thread, bounded in size and time: while one renders, ``/`` is
  answered (synchronised with events, never with sleeps);
* ``/_go`` refuses a URL without a scheme (``/evil.com`` was redirected to ``//evil.com``);
* a browser's ``Sec-Fetch-Site: cross-site``/``same-site`` request is refused;
* the token cookie's redirect keeps the query byte for byte;
* a refusal of the door and a ``500`` carry the pages' security headers.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from anyurl.schemes.gopher.loopback import serve_gopherplus
from anyurl.serve import html
from anyurl.serve.app import TOKEN_PARAM, Gateway, Guard, ServeOptions, cookie_name

pytestmark = pytest.mark.anyio

PORT = 8000
HOST = {"Host": f"127.0.0.1:{PORT}"}
SECURITY = {"content-security-policy": html.PAGE_CSP, "x-content-type-options": "nosniff",
            "referrer-policy": "no-referrer", "cache-control": "no-store"}

Answer = tuple[int, dict[str, str], bytes]


async def get(app: Guard, path: str, headers: dict[str, str] | None = None,
              query: str = "", *, fails: bool = False) -> Answer:
    """One GET through ``app``, as hypercorn hands it over: status, headers, body.
    ``fails``: the application raises after its answer (for the server's log)."""
    scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(),
             "query_string": query.encode(), "http_version": "1.1", "scheme": "http",
             "headers": [(k.lower().encode(), v.encode())
                         for k, v in {**HOST, **(headers or {})}.items()],
             "root_path": "", "server": ("127.0.0.1", PORT), "client": ("127.0.0.1", 1)}
    got: dict[str, Any] = {"body": b""}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            got["status"] = message["status"]
            got["headers"] = {k.decode(): v.decode() for k, v in message["headers"]}
        elif message["type"] == "http.response.body":
            got["body"] += message.get("body", b"")

    if fails:
        with pytest.raises(RuntimeError):
            await app(scope, receive, send)
    else:
        await app(scope, receive, send)
    return got["status"], got["headers"], got["body"]


@asynccontextmanager
async def gateway(**kw: Any) -> AsyncIterator[tuple[Guard, Gateway]]:
    """The gateway's application with its resolver started (its lifespan)."""
    options = ServeOptions(port=PORT, token=kw.pop("token", None), **kw)
    gw = Gateway(options)
    async with gw._lifespan(gw.asgi):
        yield Guard(gw, options), gw


class BlockedRender:
    """Stands for a slow render: says when it started, then waits for ``release``
    (a thread event) and notes whether it ran on the event loop's thread."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.loop_thread = threading.get_ident()
        self.threads: list[int] = []
        self.released_in_time = True

    def __call__(self, page: html.Page) -> str:
        self.threads.append(threading.get_ident())
        self.started.set()
        # On the event loop (the old code) this would hold every request; it gives up
        # so that the test fails instead of hanging.
        self.released_in_time = self.release.wait(timeout=30)
        return "<html>rendered</html>"


# -- pages off the event loop ------------------------------------------------------------


async def test_home_is_answered_while_a_big_page_renders(monkeypatch) -> None:
    render = BlockedRender()
    monkeypatch.setattr(html, "render_page", render)
    answers: dict[str, Answer] = {}
    async with serve_gopherplus() as server, gateway() as (app, _):

        async def big_page() -> None:
            answers["menu"] = await get(app, "/" + server.url("1/"))

        async with anyio.create_task_group() as tg:
            tg.start_soon(big_page)
            assert await anyio.to_thread.run_sync(render.started.wait, 30)
            answers["home"] = await get(app, "/")
            home_while_rendering = not render.release.is_set()
            render.release.set()
    assert answers["home"][0] == 200 and home_while_rendering
    assert render.released_in_time  # the render waited off the loop, for the test's event
    assert render.threads and render.threads[0] != render.loop_thread
    assert answers["menu"][0] == 200 and answers["menu"][2] == b"<html>rendered</html>"


async def test_a_render_past_the_requests_time_is_a_504(monkeypatch) -> None:
    render = BlockedRender()
    monkeypatch.setattr(html, "render_page", render)
    try:
        async with serve_gopherplus() as server, gateway(timeout=2.0) as (app, _):
            status, headers, body = await get(app, "/" + server.url("1/"))
    finally:
        render.release.set()
    assert render.started.is_set()
    assert status == 504 and b"not done within the gateway&#x27;s 2 seconds" in body
    assert headers["content-security-policy"] == html.PAGE_CSP


async def test_a_listing_over_max_page_is_offered_raw() -> None:
    async with serve_gopherplus() as server, gateway(max_page=64) as (app, _):
        url = server.url("1/")
        status, _, body = await get(app, "/" + url)
    assert status == 413
    assert f"/_raw/{url}".encode() in body and b"--max-page" in body


# -- /_go: no open redirect ---------------------------------------------------------------


@pytest.mark.parametrize("typed", ["/evil.com", "//evil.com", "evil.com/x", "\\\\evil.com",
                                   "  /evil.com"])
async def test_go_refuses_a_url_without_a_scheme(typed: str) -> None:
    async with gateway() as (app, _):
        status, headers, body = await get(app, "/_go", query="url=" + typed)
    assert status == 400 and "location" not in headers
    assert b"it has no scheme" in body
    assert {k: headers[k] for k in SECURITY} == SECURITY


async def test_go_sends_a_url_to_its_page() -> None:
    async with gateway() as (app, _):
        status, headers, _ = await get(app, "/_go", query="url=gopher://h/1/a%20b")
    assert status == 303 and headers["location"] == "/gopher://h/1/a%20b"


# -- the door -----------------------------------------------------------------------------


@pytest.mark.parametrize("site", ["cross-site", "same-site", "Cross-Site"])
async def test_a_request_from_another_site_is_refused(site: str) -> None:
    async with gateway(token="t0ken") as (app, _):
        cookie = {"Cookie": f"{cookie_name(PORT)}=t0ken", "Sec-Fetch-Site": site}
        status, headers, body = await get(app, "/", cookie)
        assert status == 403 and b"another site" in body
        assert {k: headers[k] for k in SECURITY} == SECURITY
        status, _, _ = await get(app, "/", {"Sec-Fetch-Site": site},
                                 query=f"{TOKEN_PARAM}=t0ken")
        assert status == 403  # nor may another site set the cookie


@pytest.mark.parametrize("site", ["same-origin", "none", None])
async def test_the_gateways_own_and_typed_requests_pass(site: str | None) -> None:
    async with gateway(token="t0ken") as (app, _):
        headers = {"Cookie": f"{cookie_name(PORT)}=t0ken"}
        if site is not None:
            headers["Sec-Fetch-Site"] = site
        assert (await get(app, "/", headers))[0] == 200


@pytest.mark.parametrize(("query", "kept"), [
    ("gophers%20fox&anyurl_token=t0ken", "gophers%20fox"),
    ("anyurl_token=t0ken&a=1&&b=%2B+c", "a=1&&b=%2B+c"),
    ("a=%C3%A9&anyurl_token=t0ken&z", "a=%C3%A9&z"),
    ("anyurl_token=t0ken", ""),
])
async def test_the_token_redirect_keeps_the_query_byte_for_byte(query: str, kept: str) -> None:
    async with gateway(token="t0ken") as (app, _):
        status, headers, _ = await get(app, "/wais://h/demo", query=query)
    assert status == 303
    assert headers["location"] == "/wais://h/demo" + ("?" + kept if kept else "")
    assert headers["set-cookie"].startswith(f"{cookie_name(PORT)}=t0ken;")
    assert {k: headers[k] for k in SECURITY} == SECURITY


async def test_the_token_redirect_never_names_another_host() -> None:
    async with gateway(token="t0ken") as (app, _):
        status, headers, _ = await get(app, "//evil.com", query=f"{TOKEN_PARAM}=t0ken")
    assert status == 303 and headers["location"] == "/.//evil.com"


@pytest.mark.parametrize("token", [None, "t0ken"])
async def test_refusals_carry_the_security_headers(token: str | None) -> None:
    async with gateway(token=token) as (app, _):
        status, headers, _ = await get(app, "/", {"Host": "evil.example:8000"})
        assert status == 403
        assert {k: headers[k] for k in SECURITY} == SECURITY
        if token:
            status, headers, _ = await get(app, "/")
            assert status == 403 and {k: headers[k] for k in SECURITY} == SECURITY


async def test_a_500_carries_the_security_headers(monkeypatch) -> None:
    async def broken(self: Gateway, request: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(Gateway, "home", broken)  # before the routes are made
    async with gateway() as (app, _):
        status, headers, _ = await get(app, "/", fails=True)
    assert status == 500
    assert {k: headers[k] for k in SECURITY} == SECURITY


async def test_a_failure_outside_the_pages_is_a_500_with_the_headers(monkeypatch) -> None:
    """A proxy request goes from the door to the gateway without Starlette: a bug there
    is still answered, by the door."""
    async def broken(self: Gateway, *args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(Gateway, "proxy", broken)
    async with gateway() as (app, _):
        status, headers, body = await get(app, "gopher://h/1/", fails=True)
    assert status == 500 and b"The gateway failed on this request." in body
    assert {k: headers[k] for k in SECURITY} == SECURITY
