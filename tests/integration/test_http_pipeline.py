"""HTTP/1.1 pipelining against the real nginx peer, through the handler's batch and
through the downloader's batches per host (issue 21). On asyncio and trio."""

from __future__ import annotations

from pathlib import Path

import pytest

from anyurl.downloads.downloader import Downloader, DownloadPolicy, Job
from anyurl.errors import AnyURLError, RemoteFileNotFound
from anyurl.options import HTTPOptions
from anyurl.resolver import Resolver
from anyurl.resource import Resource
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.http import HTTPHandler
from tests.peers import data

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


def _names() -> list[str]:
    names = [f"many/file{i:03d}.txt" for i in range(data.MANY_COUNT)]
    return [*(names * 4)[:200], "no/such/file", "bin1k.dat", data.LARGE_NAME, "hello.txt"]


async def test_nginx_batch_pipelines_on_one_connection(peers) -> None:  # type: ignore[no-untyped-def]
    nginx = peers["nginx"]
    names = _names()
    trace: list[str] = []
    got: list[bytes | AnyURLError] = []
    raw_offered = []
    async with Resolver(warn=lambda m: None) as r:
        urls = [r.admit(nginx.url(n)) for n in names]
        handler = r.handler_for(urls[0])
        assert isinstance(handler, HTTPHandler)
        async for url, outcome in handler.open_batch(urls, FetchOptions(trace=trace.append)):
            if isinstance(outcome, Resource):
                raw_offered.append(outcome.raw is not None)
                body = await outcome.read()
                got.append(body if url.path != data.LARGE_NAME else len(body))
            else:
                got.append(outcome)
        assert handler.connections_opened == 1
        assert not handler.serial_routes
    expected = [peers.expected(n) for n in names[:200]]
    assert got[:200] == expected
    assert isinstance(got[200], RemoteFileNotFound)
    assert got[201] == peers.expected("bin1k.dat")
    assert got[202] == peers.files[data.LARGE_NAME]["size"]
    assert got[203] == peers.expected("hello.txt")
    assert raw_offered[-2]  # the large body may still move by the kernel
    assert sum(line.endswith("(pipelined)") for line in trace) > 150


async def test_nginx_no_pipeline_sends_one_at_a_time(peers) -> None:  # type: ignore[no-untyped-def]
    nginx = peers["nginx"]
    trace: list[str] = []
    options = FetchOptions(trace=trace.append, schemes=(HTTPOptions(pipeline=False),))
    async with Resolver(warn=lambda m: None) as r:
        urls = [r.admit(nginx.url(n)) for n in _names()[:20]]
        handler = r.handler_for(urls[0])
        bodies = [await o.read() async for _u, o in handler.open_batch(urls, options)
                  if isinstance(o, Resource)]
    assert bodies == [peers.expected(n) for n in _names()[:20]]
    assert not any("pipelined" in line for line in trace)


async def test_downloader_batches_a_host_into_files(peers, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    nginx = peers["nginx"]
    names = [f"many/file{i:03d}.txt" for i in range(data.MANY_COUNT)]
    trace: list[str] = []
    options = FetchOptions(trace=trace.append)
    jobs = [Job(nginx.url(n), tmp_path / f"{k:04d}-{Path(n).name}", options)
            for k, n in enumerate(names * 5)]
    jobs.append(Job(nginx.url("no/such/file"), tmp_path / "missing"))
    async with Resolver(warn=lambda m: None) as r:
        results = await Downloader(r, DownloadPolicy(per_host=2)).run(jobs)
        handler = r.handler_for(r.admit(nginx.url("hello.txt")))
        assert isinstance(handler, HTTPHandler)
        assert handler.connections_opened <= 2
    assert [res.job for res in results] == jobs
    for res in results[:-1]:
        assert res.ok, res.error
        assert res.path is not None
        assert res.path.read_bytes() == peers.expected(names[int(res.path.name[:4]) % len(names)])
    assert isinstance(results[-1].error, RemoteFileNotFound)
    assert not (tmp_path / "missing").exists()
    assert not list(tmp_path.glob("*.part"))
