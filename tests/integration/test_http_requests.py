"""Per-request options as an httpx user writes them, and typed response metadata.

Against the scripted server of ``test_http.py``, which records each request it receives.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from anyurl import sync
from anyurl.errors import OptionError, RemoteFileNotFound, TransferTimeout
from anyurl.options import HTTPOptions
from anyurl.request import RequestDefaults, apply
from anyurl.resolver import Resolver
from anyurl.schemes.base import FetchOptions
from anyurl.url import parse
from tests.integration.test_http import Reply, ScriptedServer, fixed, redirect

pytestmark = pytest.mark.anyio


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer()
    yield srv
    srv.close()


async def test_method_headers_data_auth_per_request(server: ScriptedServer) -> None:
    server.routes["/p"] = fixed(b"posted")
    async with Resolver(headers={"X-Default": "d", "Accept": None},
                        note=lambda m: None) as r:
        body = await r.fetch(server.url("/p"), method="put", headers={"X-Call": "c"},
                             data={"a": "1 2", "b": "&"}, auth=("u", "p w"))
    assert body == b"posted"
    [req] = server.requests
    assert req.line.startswith("PUT /p ")
    assert req.body == b"a=1+2&b=%26"
    assert req.headers["content-type"] == "application/x-www-form-urlencoded"
    assert req.headers["x-default"] == "d" and req.headers["x-call"] == "c"
    assert "accept" not in req.headers  # None removes anyurl's own header
    assert req.headers["authorization"] == "Basic dTpwIHc="


async def test_typed_metadata(server: ScriptedServer) -> None:
    server.routes["/a"] = redirect("/b", 301)
    server.routes["/b"] = lambda q: Reply(headers=[("Content-Type", "text/plain"),
                                                   ("X-Thing", "yes")], body=b"hello")
    async with Resolver() as r, r.open(server.url("/a")) as res:
        assert await res.read() == b"hello"
        info = res.info
    assert (info.status, info.reason) == (200, "OK")
    assert str(info.url) == server.url("/b")
    assert info.header("X-THING") == "yes" and info.content_type == "text/plain"
    assert info.size == 5 and info.filename == "b"
    assert info.extra["request"]["method"] == "GET"


async def test_head_and_redirected_post(server: ScriptedServer) -> None:
    server.routes["/f"] = fixed(b"0123456789")
    server.routes["/post"] = redirect("/f", 302)
    async with Resolver() as r:
        async with r.open(server.url("/f"), method="HEAD") as res:
            head = await res.read()
        assert head.startswith(b"HTTP/1.1 200 OK\r\n") and res.info.kind == "headers"
        # A body on HEAD would hang a reader that trusted Content-Length: nothing read.
        assert await r.fetch(server.url("/post"), data=b"x") == b"0123456789"
    assert [q.line.split()[0] for q in server.requests] == ["HEAD", "POST", "GET"]


async def test_error_status_is_typed(server: ScriptedServer) -> None:
    async with Resolver() as r:
        with pytest.raises(RemoteFileNotFound) as info:
            await r.fetch(server.url("/missing"))
    assert info.value.status == 404


async def test_timeout_is_a_timeout_error(server: ScriptedServer) -> None:
    server.routes["/slow"] = lambda q: Reply(body=b"late", delay=2.0)
    async with Resolver() as r:
        with pytest.raises(TimeoutError) as info:
            await r.fetch(server.url("/slow"), timeout=0.3)
    assert isinstance(info.value, TransferTimeout) and info.value.exit_code == 28


async def test_byte_range(server: ScriptedServer) -> None:
    server.routes["/r"] = lambda q: Reply(
        206, "Partial Content", headers=[("Content-Range", "bytes 2-4/10")], body=b"234")
    async with Resolver() as r:
        got = await r.fetch(server.url("/r"), FetchOptions(byte_range=(2, 4)))
    assert got == b"234"
    assert server.requests[0].headers["range"] == "bytes=2-4"


def test_sync_facade_takes_the_same_keywords(server: ScriptedServer) -> None:
    server.routes["/s"] = fixed(b"sync")
    assert sync.fetch(server.url("/s"), headers=[("X-S", "1")]) == b"sync"
    assert server.requests[0].headers["x-s"] == "1"


def test_apply_is_free_without_choices() -> None:
    url = parse("http://example.org/")
    options = FetchOptions()
    assert apply(url, options, RequestDefaults()) == (url, options)
    with pytest.raises(OptionError):
        apply(url, None, RequestDefaults(), verify=3)  # type: ignore[arg-type]
    _, opts = apply(url, None, RequestDefaults(verify="/ca.pem"))
    assert opts is not None and opts.get(HTTPOptions).cafile == "/ca.pem"
    ftp, _ = apply(parse("ftp://example.org/f"), None, RequestDefaults(auth=("a", None)))
    assert ftp.user == "a" and ftp.password is None
    gopher, _ = apply(parse("gopher://example.org/"), None, RequestDefaults(auth=("a", "b")))
    assert gopher.user is None  # no login in gopher URLs


def test_header_injection_is_refused() -> None:
    with pytest.raises(OptionError):
        HTTPOptions(headers=(("X", "a\r\nB: c"),)).check()
    with pytest.raises(OptionError):
        HTTPOptions(method="GET /x").check()
