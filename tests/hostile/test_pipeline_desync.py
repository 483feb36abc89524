"""Pipelines against servers that answer more than they were asked (issue 29).

Each server (:func:`anyurl.schemes.http.hostile.http_extra_response`, ``h2_cross_stream``,
:func:`anyurl.schemes.news.hostile.nntp_extra_article`) sends one answer nobody asked
for. Bytes that answer nothing must never become the next URL's body: the connection is
out of step, its window is fetched again one request at a time and the server is served
serially from then on (HTTP/1.1, NNTP); on HTTP/2 a frame on a stream nobody is reading
is the connection's error, never another stream's body. Every body names its URL, so a
shifted answer shows. On asyncio and trio.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from anyurl.cli.main import main
from anyurl.config import Config
from anyurl.downloads.downloader import Downloader, DownloadPolicy, Job
from anyurl.errors import AnyURLError, ProtocolError
from anyurl.options import HTTPOptions
from anyurl.resolver import Resolver
from anyurl.resource import Resource
from anyurl.schemes.base import FetchOptions, SchemeHandler
from anyurl.schemes.http.hostile import h2_cross_stream, http_extra_response
from anyurl.schemes.news.hostile import NNTP_GROUP, nntp_extra_article
from anyurl.testing.hostile import EXTRA, Asked, HostileServer

N = 12


async def _batch(urls: list[str], options: FetchOptions | None = None,
                 ) -> tuple[list[bytes | AnyURLError], SchemeHandler]:
    """Each URL's body (or error), read as the batch hands it over."""
    got: list[bytes | AnyURLError] = []
    async with Resolver(Config(read_timeout=2.0), warn=lambda m: None) as r:
        admitted = [r.admit(u) for u in urls]
        handler = r.handler_for(admitted[0])
        async for _url, outcome in handler.open_batch(admitted, options or FetchOptions()):
            got.append(await outcome.read() if isinstance(outcome, Resource) else outcome)
    return got, handler


# -- HTTP/1.1 -------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("after", [b"/f0", b"/f4"], ids=["window-end", "mid-window"])
async def test_an_unsolicited_http_response_is_no_urls_body(after: bytes) -> None:
    """/f0 is a window of its own (the first); /f4 is inside the third, whose answers
    then end one response past its last request."""
    asked = Asked()
    with HostileServer(http_extra_response(after, asked)) as server:
        urls = [f"http://127.0.0.1:{server.port}/f{i}" for i in range(N)]
        got, handler = await _batch(urls)
    assert got == [f"/f{i}".encode() for i in range(N)]
    assert len(handler.serial_routes) == 1  # type: ignore[attr-defined]
    # The window holding the extra was asked again, one request at a time.
    assert asked.requests.count(after) == 2
    assert asked.connections > 2


@pytest.mark.anyio
async def test_the_downloader_batch_saves_each_url_its_own_body(tmp_path: Path) -> None:
    """What a mirror's batch goes through (Downloader.run over one host's files)."""
    with HostileServer(http_extra_response(b"/f0")) as server:
        async with Resolver(Config(read_timeout=2.0), warn=lambda m: None) as r:
            jobs = [Job(f"http://127.0.0.1:{server.port}/f{i}", tmp_path / f"f{i}", index=i)
                    for i in range(N)]
            results = await Downloader(r, DownloadPolicy(retry=0)).run(jobs)
    assert all(res.ok for res in results), [res.error for res in results]
    for i in range(N):
        assert (tmp_path / f"f{i}").read_bytes() == f"/f{i}".encode()


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_get_dash_o_saves_each_url_its_own_body(
        backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's report: ``anyurl get -O .../a .../b .../c .../d``."""
    monkeypatch.setenv("HOME", str(tmp_path))  # no user config or netrc
    with HostileServer(http_extra_response(b"/a")) as server:
        base = f"http://127.0.0.1:{server.port}"
        status = main(["get", "-s", "--backend", backend, "--create-dirs",
                       "--output-dir", str(tmp_path / "out"), "-O", f"{base}/a", "-O", f"{base}/b",
                       "-O", f"{base}/c", "-O", f"{base}/d"])
    assert status == 0
    for name in "abcd":
        assert (tmp_path / "out" / name).read_bytes() == f"/{name}".encode()


# -- NNTP -------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize(("after", "extra"), [
    (1, b"220 0 <extra@pipe.test>"),
    (4, b"220 0 <extra@pipe.test>"),
    (None, None),
], ids=["number-0-window-end", "number-0-mid-window", "every-article-twice"])
async def test_an_unsolicited_220_is_no_articles_body(after: int | None,
                                                      extra: bytes | None) -> None:
    """After article 1 the extra comes with no command owed (the window's end); after
    article 4 inside a window, where it names no article asked for; answered twice,
    every article is followed by a 220 naming the one before the next asked."""
    asked = Asked()
    count = 8
    with HostileServer(nntp_extra_article(after, count, asked, extra_line=extra)) as server:
        urls = [f"nntp://127.0.0.1:{server.port}/{NNTP_GROUP}/{n}"
                for n in range(1, count + 1)]
        got, _handler = await _batch(urls)
    for n, body in enumerate(got, 1):
        assert isinstance(body, bytes), body
        assert EXTRA not in body
        assert body.endswith(f"article {n}\n".encode())
    assert asked.connections >= 2  # the connection out of step was given up


@pytest.mark.anyio
async def test_a_message_id_answered_by_none_is_refused() -> None:
    """Asked by message-id, a 220 must name the id asked for: one naming none, inside
    a window (after article 4), is not the next article's answer."""
    asked = Asked()
    with HostileServer(nntp_extra_article(4, 8, asked, extra_line=b"220 0")) as server:
        urls = [f"news://127.0.0.1:{server.port}/{n}@pipe.test" for n in range(1, 9)]
        got, _handler = await _batch(urls)
    for n, body in enumerate(got, 1):
        assert isinstance(body, bytes), body
        assert EXTRA not in body and body.endswith(f"article {n}\n".encode())
    assert asked.connections >= 2


# -- HTTP/2 -----------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("where", ["closed", "unopened"])
async def test_http2_data_never_crosses_to_another_stream(where: str) -> None:
    """Frames on a stream the server ended, or never had, fail the connection (its
    URLs not yet handed over go again on a new one): no URL gets them as its body."""
    asked = Asked()
    with HostileServer(h2_cross_stream(where, asked)) as server:
        urls = [f"http://127.0.0.1:{server.port}/f{i}" for i in range(N)]
        got, _handler = await _batch(urls, FetchOptions(schemes=(
            HTTPOptions(http2=True, http2_prior_knowledge=True),)))
    for i, body in enumerate(got):
        assert body == f"/f{i}".encode() or isinstance(body, ProtocolError), (i, body)
    errors = [str(body) for body in got if isinstance(body, ProtocolError)]
    assert errors and all("broke HTTP/2" in e for e in errors)
    assert asked.connections > 1
