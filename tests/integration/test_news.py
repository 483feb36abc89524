"""news: and nntp: end to end, against the real leafnode peer and the loopback server.

Every behaviour test runs on both servers (``news_backend``) and both anyio backends.
leafnode is an RFC 977-era server (no CAPABILITIES, no AUTHINFO, 430 for a missing
article number); the loopback server is RFC 3977 (CAPABILITIES, 423) and can demand
AUTHINFO or act as an old server, for the cases no packaged server shows.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

import anyurl
from anyurl import Resolver
from anyurl.config import Config
from anyurl.errors import (
    LoginDenied,
    RemoteAccessDenied,
    RemoteFileNotFound,
    ServerError,
    URLError,
)
from anyurl.options import NewsOptions
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.news.handler import news_server
from anyurl.schemes.news.loopback import SAMPLE_ARTICLES, NNTPServer, NNTPServerConfig, make_article
from anyurl.url import parse
from tests.peers import data
from tests.peers.table import NEWS_FQDN, NEWS_GROUP

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

SUBJECTS = {1: "First article", 2: "Dots", 3: "Third article"}
DOT_BODY = b"A body with dots:\n.a line starting with a dot\n..two dots\n.\nend\n"


@dataclass
class Backend:
    """A running news server with the anyurl.test group of three articles."""

    name: str
    host: str
    port: int
    expected: Callable[[int], bytes]  # the article's text with LF line ends
    server: NNTPServer | None = None  # the loopback server, to inspect what it received

    @property
    def hostport(self) -> str:
        return f"{self.host}:{self.port}"

    def nntp(self, path: str) -> str:
        return f"nntp://{self.hostport}/{path}"

    def config(self, **changes: Any) -> Config:
        settings: dict[str, Any] = {"nntp_server": self.hostport,
                                     "allowed_ports": frozenset({self.port})}
        return Config(**{**settings, **changes})


def loopback_text(number: int) -> bytes:
    return b"\n".join(SAMPLE_ARTICLES[number - 1].lines()) + b"\n"


@asynccontextmanager
async def loopback(config: NNTPServerConfig | None = None) -> AsyncIterator[Backend]:
    server = NNTPServer(config)
    async with anyio.create_task_group() as tg:
        port = await tg.start(server.serve, "127.0.0.1", 0)
        try:
            yield Backend("loopback", "127.0.0.1", port, loopback_text, server)
        finally:
            tg.cancel_scope.cancel()


@pytest.fixture(params=["leafnode", "loopback"])
def backend_name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def serving(backend_name: str, request: pytest.FixtureRequest) -> Callable[[], Any]:
    """``async with serving() as backend``: leafnode from the peers, or a fresh loopback."""

    @asynccontextmanager
    async def start() -> AsyncIterator[Backend]:
        if backend_name == "loopback":
            async with loopback() as backend:
                yield backend
            return
        peer = request.getfixturevalue("peers")["leafnode"]
        assert peer.extra["group"] == NEWS_GROUP
        yield Backend("leafnode", peer.host, peer.port,
                      lambda n: data.news_article(NEWS_GROUP, NEWS_FQDN, n))

    return start


# -- articles --------------------------------------------------------------------------------


async def test_article_by_message_id(serving: Callable[[], Any]) -> None:
    async with serving() as backend, Resolver(backend.config()) as r:
        for number in (1, 2, 3):
            assert await r.fetch(f"news:article{number}@anyurl.test") == backend.expected(number)


async def test_article_by_message_id_in_brackets_lenient(serving: Callable[[], Any]) -> None:
    async with serving() as backend, Resolver(backend.config()) as r:
        assert await r.fetch("news:<article3@anyurl.test>") == backend.expected(3)


async def test_article_by_number_keeps_dot_lines(serving: Callable[[], Any]) -> None:
    async with serving() as backend, Resolver(backend.config()) as r, \
            r.open(backend.nntp(f"{NEWS_GROUP}/2")) as res:
        body = await res.read()
        assert res.info.kind == "article"
        assert res.info.extra["message_id"] == "<article2@anyurl.test>"
    assert body == backend.expected(2)
    assert body.endswith(b"\n\n" + DOT_BODY)


async def test_raw_article_is_the_wire_form(serving: Callable[[], Any]) -> None:
    async with serving() as backend, Resolver(backend.config()) as r:
        raw = await r.fetch(backend.nntp(f"{NEWS_GROUP}/2"), FetchOptions(raw=True))
    assert raw == backend.expected(2).replace(b"\n", b"\r\n")


async def test_news_url_with_host(serving: Callable[[], Any]) -> None:
    async with serving() as backend, Resolver(backend.config(nntp_server=None)) as r:
        got = await r.fetch(f"news://{backend.hostport}/article1@anyurl.test")
    assert got == backend.expected(1)


# -- listings --------------------------------------------------------------------------------


async def test_group_listing(serving: Callable[[], Any]) -> None:
    async with serving() as backend, Resolver(backend.config()) as r:
        async with r.open(f"news:{NEWS_GROUP}") as res:
            text = (await res.read()).decode()
            assert res.info.kind == "directory"
            assert (res.info.extra["count"], res.info.extra["low"],
                    res.info.extra["high"]) == (3, 1, 3)
        assert text.startswith(f"{NEWS_GROUP} on {backend.hostport}: 3 articles, numbers 1-3")
        for number, subject in SUBJECTS.items():
            assert f"\n{number}  {subject}\n" in text
            assert f"    Date: Sat, 01 Jan 2000 00:00:{number:02d} +0000\n" in text
            assert f"    news:article{number}@anyurl.test\n" in text
            assert f"    {backend.nntp(f'{NEWS_GROUP}/{number}')}\n" in text
        assert text.count("From: Anyurl Tests <tests@") == 3
        # The URLs in the listing work.
        assert await r.fetch(backend.nntp(f"{NEWS_GROUP}/3")) == backend.expected(3)


async def test_nntp_group_url_is_a_listing(serving: Callable[[], Any]) -> None:
    async with serving() as backend, Resolver(backend.config(nntp_server=None)) as r:
        text = (await r.fetch(backend.nntp(NEWS_GROUP))).decode()
    assert "\n2  Dots\n" in text


async def test_group_listing_json(serving: Callable[[], Any]) -> None:
    async with serving() as backend, Resolver(backend.config()) as r:
        doc = json.loads(await r.fetch(f"news:{NEWS_GROUP}",
                                       FetchOptions(format="json")))
    assert doc["group"] == NEWS_GROUP and doc["count"] == 3
    assert [a["number"] for a in doc["articles"]] == [1, 2, 3]
    assert [a["subject"] for a in doc["articles"]] == list(SUBJECTS.values())
    assert doc["articles"][1]["news_url"] == "news:article2@anyurl.test"
    assert doc["articles"][1]["url"] == backend.nntp(f"{NEWS_GROUP}/2")


async def test_group_listing_raw_is_the_overview(serving: Callable[[], Any]) -> None:
    async with serving() as backend, Resolver(backend.config()) as r:
        raw = await r.fetch(f"news:{NEWS_GROUP}", FetchOptions(raw=True))
    lines = raw.split(b"\r\n")
    assert lines[-1] == b"" and len(lines) == 4
    assert [line.split(b"\t")[:2] for line in lines[:3]] == [
        [str(n).encode(), s.encode()] for n, s in SUBJECTS.items()]


async def test_group_listing_limit_shows_the_newest(serving: Callable[[], Any]) -> None:
    async with serving() as backend, Resolver(backend.config()) as r:
        options = FetchOptions(schemes=(NewsOptions(limit=2),))
        text = (await r.fetch(f"news:{NEWS_GROUP}", options)).decode()
    assert "showing 2-3" in text
    assert "\n1  " not in text and "\n2  Dots\n" in text and "\n3  Third" in text


async def test_all_groups(serving: Callable[[], Any]) -> None:
    async with serving() as backend, Resolver(backend.config()) as r:
        text = (await r.fetch("news:*")).decode()
        raw = await r.fetch("news:*", FetchOptions(raw=True))
    assert text.startswith(f"Newsgroups on {backend.hostport}:")
    assert f"{NEWS_GROUP}  1-3  " in text
    assert f"nntp://{backend.hostport}/{NEWS_GROUP}\n" in text
    assert any(line.split()[:3] == [NEWS_GROUP.encode(), b"3", b"1"]
               for line in raw.split(b"\r\n"))


# -- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "codes"),
    [
        pytest.param("news:nosuch@anyurl.test", ("430",), id="message-id"),
        pytest.param("{nntp}/anyurl.test/99", ("423", "430"), id="article-number"),
        pytest.param("{nntp}/no.such.group/1", ("411",), id="group-of-article"),
        pytest.param("news:no.such.group", ("411",), id="group-listing"),
    ],
)
async def test_missing_is_remote_file_not_found(
    serving: Callable[[], Any], url: str, codes: tuple[str, ...]
) -> None:
    async with serving() as backend, Resolver(backend.config()) as r:
        with pytest.raises(RemoteFileNotFound) as info:
            await r.fetch(url.format(nntp=f"nntp://{backend.hostport}"))
    assert info.value.exit_code == 78
    message = str(info.value)
    assert any(f": {code} " in message for code in codes), message
    assert backend.hostport in message


async def test_missing_article_exits_78_from_the_cli(serving: Callable[[], Any]) -> None:
    async with serving() as backend:
        env = {**os.environ, "PYTHONPATH": str(Path(anyurl.__file__).parents[1])}
        argv = [sys.executable, "-m", "anyurl", "get", "--allow-port", str(backend.port),
                backend.nntp(f"{NEWS_GROUP}/99")]
        proc = await anyio.run_process(argv, env=env, check=False)
        ok = await anyio.run_process([*argv[:-1], backend.nntp(f"{NEWS_GROUP}/1")],
                                     env=env, check=False)
    assert proc.returncode == 78, proc.stderr
    assert b"No such article" in proc.stderr or b"No article" in proc.stderr
    assert ok.returncode == 0 and ok.stdout == backend.expected(1)


@pytest.mark.parametrize(
    "url",
    [
        pytest.param("news:abc%0D%0AQUIT@anyurl.test", id="news-message-id"),
        pytest.param("news:abc%0AGROUP%20x@anyurl.test", id="news-lf"),
        pytest.param("{nntp}/any%0D%0AQUIT/1", id="nntp-group"),
    ],
)
async def test_crlf_in_url_is_refused_before_connecting(
    serving: Callable[[], Any], url: str
) -> None:
    async with serving() as backend, Resolver(backend.config()) as r:
        text = url.format(nntp=f"nntp://{backend.hostport}")
        with pytest.raises(URLError) as info:
            await r.fetch(parse(text, strict=False))
        with pytest.raises(URLError):
            r.plan(parse(text, strict=False))
    assert "CR" in str(info.value) or "\\r" in str(info.value) or "\\n" in str(info.value)
    if backend.server is not None:
        assert backend.server.connections == 0


# -- dialogue --------------------------------------------------------------------------------


async def test_trace_and_quit(serving: Callable[[], Any]) -> None:
    lines: list[str] = []
    async with serving() as backend, Resolver(backend.config()) as r:
        await r.fetch(backend.nntp(f"{NEWS_GROUP}/1"), FetchOptions(trace=lines.append))
    sent = [line[2:] for line in lines if line.startswith("> ")]
    assert sent[0] == "CAPABILITIES"
    assert sent[-3:] == [f"GROUP {NEWS_GROUP}", "ARTICLE 1", "QUIT"]
    assert lines[-1].startswith("< 205")


async def test_plan(serving: Callable[[], Any]) -> None:
    async with serving() as backend, Resolver(backend.config()) as r:
        assert r.plan(backend.nntp(f"{NEWS_GROUP}/2")) == [
            "CAPABILITIES", "MODE READER", f"GROUP {NEWS_GROUP}", "ARTICLE 2", "QUIT"]
        assert r.plan("news:article1@anyurl.test")[-2:] == [
            "ARTICLE <article1@anyurl.test>", "QUIT"]
        assert r.plan(f"news:{NEWS_GROUP}")[-3:] == [
            f"GROUP {NEWS_GROUP}", "OVER <low>-<high>", "QUIT"]
        assert r.plan("news:*")[-2:] == ["LIST", "QUIT"]


# -- loopback only: what leafnode cannot show ---------------------------------------------


async def test_quit_is_sent_when_an_article_is_abandoned() -> None:
    async with loopback() as backend, Resolver(backend.config()) as r:
        async with r.open(backend.nntp(f"{NEWS_GROUP}/2")):
            pass  # closed without reading the article
        assert backend.server is not None
        with anyio.fail_after(5):
            while backend.server.received[-1:] != ["QUIT"]:
                await anyio.sleep(0.01)
        assert backend.server.received[-2:] == ["ARTICLE 2", "QUIT"]


async def test_quit_is_sent_after_an_error() -> None:
    async with loopback() as backend, Resolver(backend.config()) as r:
        with pytest.raises(RemoteFileNotFound):
            await r.fetch("news:nosuch@anyurl.test")
        assert backend.server is not None
        assert backend.server.received[-2:] == ["ARTICLE <nosuch@anyurl.test>", "QUIT"]


AUTH = NNTPServerConfig(user="fred", password="flint stone")


async def test_auth_required_without_credentials_is_login_denied() -> None:
    async with loopback(AUTH) as backend, Resolver(backend.config()) as r:
        with pytest.raises(LoginDenied) as info:
            await r.fetch("news:article1@anyurl.test")
    assert info.value.exit_code == 67
    assert "requires authentication" in str(info.value)


async def test_auth_with_credentials_from_the_lenient_url() -> None:
    warnings: list[str] = []
    lines: list[str] = []
    async with loopback(AUTH) as backend, Resolver(backend.config(), warn=warnings.append) as r:
        url = f"nntp://fred:flint%20stone@{backend.hostport}/{NEWS_GROUP}/2"
        got = await r.fetch(parse(url, strict=False), FetchOptions(trace=lines.append))
    assert got == loopback_text(2)
    assert "> AUTHINFO PASS ****" in lines
    assert not any("flint" in line for line in lines + warnings)
    assert any("clear text" in w for w in warnings)


async def test_auth_on_480_with_credentials_from_options() -> None:
    async with loopback(AUTH) as backend, Resolver(backend.config()) as r:
        options = FetchOptions(schemes=(NewsOptions(user="fred", password="flint stone"),))
        assert await r.fetch(f"news:{NEWS_GROUP}", options)
        assert backend.server is not None
        assert "AUTHINFO PASS ****" in backend.server.received


async def test_password_callback_on_381() -> None:
    asked: list[str] = []

    async def callback(url: Any) -> str:
        asked.append(url.masked())
        return "flint stone"

    async with loopback(AUTH) as backend, Resolver(backend.config()) as r:
        options = FetchOptions(schemes=(NewsOptions(user="fred"),), password_callback=callback)
        assert await r.fetch("news:article1@anyurl.test", options) == loopback_text(1)
    assert len(asked) == 1


async def test_wrong_password_is_login_denied_and_masked() -> None:
    async with loopback(AUTH) as backend, Resolver(backend.config()) as r:
        url = parse(f"nntp://fred:wrong@{backend.hostport}/{NEWS_GROUP}/1", strict=False)
        with pytest.raises(LoginDenied) as info:
            await r.fetch(url)
    assert "481" in str(info.value) and "wrong" not in str(info.value)
    assert info.value.exit_code == 67


async def test_old_server_gets_mode_reader_and_xover() -> None:
    lines: list[str] = []
    async with loopback(NNTPServerConfig(rfc977=True)) as backend, \
            Resolver(backend.config()) as r:
        text = (await r.fetch(f"news:{NEWS_GROUP}", FetchOptions(trace=lines.append))).decode()
    assert "\n2  Dots\n" in text
    sent = [line[2:] for line in lines if line.startswith("> ")]
    assert sent[:2] == ["CAPABILITIES", "MODE READER"]
    assert "OVER 1-3" in sent and "XOVER 1-3" in sent


@pytest.mark.parametrize(
    ("greeting", "error", "exit_code"),
    [(502, RemoteAccessDenied, 9), (400, ServerError, 22)],
    ids=["502-access-denied", "400-server-error"],
)
async def test_refusing_greeting(greeting: int, error: type[Exception], exit_code: int) -> None:
    async with loopback(NNTPServerConfig(greeting=greeting)) as backend, \
            Resolver(backend.config()) as r:
        with pytest.raises(error) as info:
            await r.fetch("news:article1@anyurl.test")
    assert f"{greeting} service not available" in str(info.value)
    assert getattr(info.value, "exit_code", None) == exit_code


async def test_large_article_streams_in_chunks() -> None:
    body = b"".join(b".%07d dotted line of a large article\n" % i for i in range(80_000))
    article = make_article("big.group", 1, "Large", body)
    config = NNTPServerConfig(group="big.group", articles=(article,))
    async with loopback(config) as backend, Resolver(backend.config()) as r, \
            r.open(backend.nntp("big.group/1")) as res:
        chunks = [chunk async for chunk in res]
    assert len(chunks) > 1
    assert max(len(c) for c in chunks) < len(body)
    assert b"".join(chunks) == b"\n".join(article.lines()) + b"\n"


async def test_empty_group_listing() -> None:
    async with loopback() as backend, Resolver(backend.config()) as r:
        text = (await r.fetch("news:anyurl.empty")).decode()
    assert text == f"anyurl.empty on {backend.hostport}: no articles\n"


# -- which server a news: URL goes to --------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "extra", "config", "env", "expected"),
    [
        pytest.param("news://h1:120/g", {"server": "h2"}, "h3", "h4", ("h1", 120, "the URL"),
                     id="url-host-first"),
        pytest.param("news:g", {"server": "h2:121"}, "h3", "h4",
                     ("h2", 121, "the server option"), id="option"),
        pytest.param("news:g", {}, "h3:122", "h4", ("h3", 122, "the nntp_server setting"),
                     id="config"),
        pytest.param("news:g", {}, None, "h4", ("h4", 119, "$NNTPSERVER"), id="env"),
        pytest.param("news:g", {}, None, "[::1]:123", ("::1", 123, "$NNTPSERVER"), id="env-v6"),
        pytest.param("news:g", {}, None, None, ("localhost", 119, "the default"),
                     id="default"),
    ],
)
def test_news_server_order(url: str, extra: dict[str, str], config: str | None,
                           env: str | None, expected: tuple[str, int, str]) -> None:
    environ = {} if env is None else {"NNTPSERVER": env}
    got = news_server(parse(url), FetchOptions(schemes=(NewsOptions(**extra),)),
                      Config(nntp_server=config), environ)
    assert got == expected


def test_nntpserver_environment_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NNTPSERVER", "news.example.org:1190")
    assert news_server(parse("news:a.b"), FetchOptions(), Config())[:2] == (
        "news.example.org", 1190)


@pytest.mark.parametrize("which", ["group", "list"])
async def test_a_raw_listing_renders_as_get_shows_it(serving: Callable[[], Any],
                                                      which: str) -> None:
    """``render`` (for ``mirror --render`` and ``anyurl serve``) reads a raw group or
    group list back into exactly what ``anyurl get`` shows."""
    async with serving() as backend, Resolver(backend.config()) as r:
        url = backend.nntp(NEWS_GROUP) if which == "group" else "news:*"
        async with r.open(url, FetchOptions(raw=True)) as res:
            raw, info = await res.read(), res.info
        async with r.open(url) as res:
            shown = (await res.read()).decode("utf-8")
        rendered = r.handler_for(r.admit(url)).render(info, raw)
    assert rendered == shown
    assert rendered.count("nntp://") >= 1
