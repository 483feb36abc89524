"""anyurl serve's parts without a server: the HTML pages, search URLs, replayed info,
and the door (Host, token, proxy token) driven as an ASGI application."""

from __future__ import annotations

import base64
from typing import Any

import anyio
import pytest

from anyurl.errors import URLError
from anyurl.links import Link
from anyurl.resolver import Resolver
from anyurl.serve import html
from anyurl.serve.app import TOKEN_PARAM, Guard, ServeOptions, cookie_name
from anyurl.serve.replay import replay_info
from anyurl.url import parse

# -- pages ------------------------------------------------------------------------------


def test_remote_text_and_labels_are_escaped() -> None:
    page = html.Page(parse("gopher://h/1/"),
                     "(TXT)  <script>alert(1)</script>  <gopher://h/0/x>\n",
                     [Link("gopher://h/0/x", "file", '"><script>alert(2)</script>')])
    out = html.render_page(page)
    assert "<script" not in out
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out
    assert '&quot;&gt;&lt;script&gt;alert(2)' in out


def test_urls_in_the_text_and_links_lead_through_the_gateway() -> None:
    page = html.Page(parse("gopher://h/1/"), "(DIR)  pub  <gopher://h/1/pub/>\n",
                     [Link("ftp://h/pub/a%20b.txt", "file", "a b.txt")])
    out = html.render_page(page)
    assert '<a href="/gopher://h/1/pub/">&lt;gopher://h/1/pub/&gt;</a>' in out
    assert '<a href="/ftp://h/pub/a%20b.txt">a b.txt</a>' in out
    assert '<a id="raw" href="/_raw/gopher://h/1/">' in out


def test_password_is_masked_on_the_page() -> None:
    out = html.render_page(html.Page(parse("ftp://u:secret@h/pub/"), ""))
    assert "<h1>ftp://u:****@h/pub/</h1>" in out and "<title>ftp://u:****@h/pub/" in out


def test_replay_banner() -> None:
    out = html.render_page(html.Page(parse("gopher://h/1/"), "", captured="2026-01-02T03:04Z"))
    assert 'id="banner"' in out and "captured 2026-01-02T03:04Z" in out
    assert 'id="banner"' not in html.render_page(html.Page(parse("gopher://h/1/"), ""))


def _search_url(url: str, term: str) -> str | None:
    """What the gateway's ``/_search`` asks: the URL's handler, for the URL with ``term``."""
    return Resolver().handler_for(parse(url)).search_url(parse(url), term)


@pytest.mark.parametrize(("url", "term", "expected"), [
    ("gopher://h/7find", "rfc 1738", "gopher://h/7find%09rfc%201738"),
    ("gopher://h/7find%09old", "new", "gopher://h/7find%09new"),
    ("wais://h:210/db", "gopher minnesota", "wais://h:210/db?gopher%20minnesota"),
    ("wais://h:210/db?old", "a\tb", "wais://h:210/db?a%09b"),
])
def test_search_urls(url: str, term: str, expected: str) -> None:
    assert _search_url(url, term) == expected
    parse(expected)  # and the result parses


def test_search_term_with_a_line_end_is_refused_by_the_gate() -> None:
    # %-escaped, the CR and LF stay data; the parser (the gate) refuses them (section 6).
    text = _search_url("wais://h:210/db", "a\r\nQUIT")
    assert text == "wais://h:210/db?a%0D%0AQUIT"
    with pytest.raises(URLError):
        parse(text)


@pytest.mark.parametrize("url", ["gopher://h/1/", "wais://h/db/TEXT/x", "ftp://h/pub/",
                                 "http://h/search"])
def test_not_searchable(url: str) -> None:
    assert _search_url(url, "x") is None


def test_a_search_form_only_on_a_page_that_takes_a_term() -> None:
    assert 'id="search"' in html.render_page(html.Page(parse("gopher://h/7f"), "", search=True))
    assert 'id="search"' not in html.render_page(html.Page(parse("gopher://h/7f"), ""))


# -- replayed info ----------------------------------------------------------------------


def test_replayed_ftp_listing_takes_the_dialogues_last_listing_command() -> None:
    record = {"content_type": "text/plain", "body": b"a\nb\n",
              "dialogue": ["> MLSD", "< 500 Unknown command.", "> NLST", "< 226 OK"]}
    info = replay_info(parse("ftp://h/pub/"), record)
    assert info.kind == "directory" and info.extra == {"command": "NLST"}
    assert replay_info(parse("ftp://h/pub/a.txt"), {"dialogue": ["> RETR a.txt"]}).kind \
        == "file"


def test_replayed_kinds_of_other_schemes() -> None:
    assert replay_info(parse("gopher://h/1/"),
                       {"content_type": "application/gopher-menu"}).kind == "menu"
    group = replay_info(parse("nntp://h:119/alt.test"), {"content_type": "text/plain"})
    assert group.kind == "directory"
    assert group.extra == {"group": "alt.test", "server": "h:119"}
    assert replay_info(parse("nntp://h/alt.test/2"), {}).kind == "article"
    assert replay_info(parse("news:abc@example.org"), {}).kind == "article"
    assert replay_info(parse("wais://h/db?x"), {}).kind == "directory"


# -- the door ---------------------------------------------------------------------------


class _Inner:
    """Stands for the gateway's pages: answers 200 and notes what reached it."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def asgi(self, scope: Any, receive: Any, send: Any) -> None:
        self.seen.append(scope["path"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"inner"})

    async def proxy(self, target: str, scope: Any, receive: Any, send: Any) -> None:
        self.seen.append("proxy " + target)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"proxied"})


def call(guard: Guard, path: str, headers: dict[str, str],
         query: str = "") -> tuple[int, dict[str, str]]:
    """One request through ``guard``; its status and headers."""
    scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(),
             "query_string": query.encode(), "http_version": "1.1", "scheme": "http",
             "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
             "root_path": "", "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 1)}
    got: dict[str, Any] = {}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            got["status"] = message["status"]
            got["headers"] = {k.decode(): v.decode() for k, v in message["headers"]}

    anyio.run(guard, scope, receive, send)
    return got["status"], got["headers"]


def guard(token: str | None = "t0ken", **kw: Any) -> tuple[Guard, _Inner]:
    inner = _Inner()
    return Guard(inner, ServeOptions(port=8000, token=token, **kw)), inner  # type: ignore[arg-type]


HOST = {"Host": "127.0.0.1:8000"}


def test_foreign_host_never_reaches_the_pages() -> None:
    g, inner = guard(token=None)
    for host in ("evil.example:8000", "127.0.0.1:8001", "127.0.0.1", ""):
        assert call(g, "/", {"Host": host})[0] == 403
    assert inner.seen == []
    for host in ("127.0.0.1:8000", "localhost:8000", "LOCALHOST:8000"):
        assert call(g, "/", {"Host": host})[0] == 200


def test_allowed_host_is_accepted() -> None:
    g, _ = guard(token=None, allowed_hosts=("gw.lan:8000",))
    assert call(g, "/", {"Host": "gw.lan:8000"})[0] == 200


def test_token_in_cookie_or_bearer_and_from_the_ready_url() -> None:
    g, inner = guard()
    assert call(g, "/gopher://h/1/", HOST)[0] == 403
    assert call(g, "/", {**HOST, "Cookie": f"{cookie_name(8000)}=wrong"})[0] == 403
    assert call(g, "/", {**HOST, "Authorization": "Bearer wrong"})[0] == 403
    assert inner.seen == []
    assert call(g, "/", {**HOST, "Cookie": f"{cookie_name(8000)}=t0ken"})[0] == 200
    assert call(g, "/", {**HOST, "Authorization": "Bearer t0ken"})[0] == 200
    status, headers = call(g, "/wais://h/db", HOST, query=f"x=1&{TOKEN_PARAM}=t0ken")
    assert status == 303 and headers["location"] == "/wais://h/db?x=1"
    assert headers["set-cookie"].startswith(f"{cookie_name(8000)}=t0ken;")
    assert call(g, "/", HOST, query=f"{TOKEN_PARAM}=wrong")[0] == 403


def test_no_token_mode() -> None:
    g, _ = guard(token=None)
    assert call(g, "/", HOST)[0] == 200


def test_proxy_requests_need_proxy_authorization() -> None:
    g, inner = guard()
    target = "gopher://h:70/1/"
    assert call(g, target, {"Host": "h:70"})[0] == 407
    basic = base64.b64encode(b"anyurl:t0ken").decode()
    wrong = base64.b64encode(b"anyurl:nope").decode()
    assert call(g, target, {"Host": "h:70", "Proxy-Authorization": f"Basic {wrong}"})[0] == 407
    assert call(g, target, {"Host": "h:70", "Proxy-Authorization": "Basic !!"})[0] == 407
    assert inner.seen == []
    assert call(g, target, {"Host": "h:70", "Proxy-Authorization": f"Basic {basic}"})[0] == 200
    assert call(g, target, {"Host": "h:70", "Proxy-Authorization": "Bearer t0ken"})[0] == 200
    assert inner.seen == ["proxy " + target, "proxy " + target]
