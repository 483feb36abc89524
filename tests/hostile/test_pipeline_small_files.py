"""Small pipelined bodies saved by the downloader's batches (issue 21).

A plain 200 whose whole body arrived with its head is a resource over bytes, and the
downloader writes it with one open, write and close (no ``.part`` writer). What the
user gets must be what the streamed way gives: the bytes, ``-R``'s time, the size limit
(exit 63, no file), the same bytes to stdout in order. The server answers every
request with the request's path, pipelined, with a ``Last-Modified`` date.
"""

from __future__ import annotations

import io
import os
from email.utils import parsedate_to_datetime
from pathlib import Path

import pytest

from anyurl.downloads.downloader import Downloader, DownloadPolicy, Job
from anyurl.errors import FileSizeExceeded
from anyurl.resolver import Resolver
from anyurl.resource import Resource
from anyurl.testing.hostile import Behaviour, HostileServer

pytestmark = [pytest.mark.anyio]

DATE = "Tue, 01 Sep 2026 10:00:00 GMT"
N = 12


def pipelining() -> Behaviour:
    def run(peer) -> None:  # type: ignore[no-untyped-def]
        while True:
            head = peer.request_head()
            if not head:
                return
            body = head[0].split()[1] * 10
            if not peer.send(f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n"
                             f"Last-Modified: {DATE}\r\n\r\n".encode() + body):
                return
    return Behaviour("http-pipelining", "http", run)


def _urls(port: int) -> list[str]:
    return [f"http://127.0.0.1:{port}/f{i}" for i in range(N)]


async def test_small_bodies_reach_their_files_as_streamed_ones_do(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[bool] = []
    take = Resource.take_whole

    def counting(self: Resource) -> bytes | None:
        whole = take(self)
        taken.append(whole is not None)
        return whole

    monkeypatch.setattr(Resource, "take_whole", counting)
    with HostileServer(pipelining()) as server:
        async with Resolver(warn=lambda m: None) as r:
            downloader = Downloader(r, DownloadPolicy(remote_time=True))
            jobs = [Job(u, tmp_path / f"f{i}", index=i) for i, u in enumerate(_urls(server.port))]
            results = await downloader.run(jobs)
    assert all(res.ok for res in results), [res.error for res in results]
    assert any(taken)  # the fast path ran (the first answers may arrive apart)
    when = parsedate_to_datetime(DATE).timestamp()
    for i in range(N):
        assert (tmp_path / f"f{i}").read_bytes() == f"/f{i}".encode() * 10
        assert os.stat(tmp_path / f"f{i}").st_mtime == when
        assert results[i].bytes == len(f"/f{i}") * 10
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"f{i}" for i in range(N))


async def test_the_size_limit_holds_for_a_body_in_memory(tmp_path: Path) -> None:
    with HostileServer(pipelining()) as server:
        async with Resolver(warn=lambda m: None) as r:
            downloader = Downloader(r, DownloadPolicy(max_filesize=30, retry=0))
            jobs = [Job(u, tmp_path / f"f{i}", index=i) for i, u in enumerate(_urls(server.port))]
            results = await downloader.run(jobs)
    # /f0 ... /f9 make 30 bytes, /f10 and /f11 make 40: refused, and no file is left
    assert [res.ok for res in results] == [True] * 10 + [False] * 2
    assert all(isinstance(res.error, FileSizeExceeded) for res in results[10:])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"f{i}" for i in range(10))


async def test_small_bodies_reach_stdout_in_order() -> None:
    out = io.BytesIO()
    with HostileServer(pipelining()) as server:
        async with Resolver(warn=lambda m: None) as r:
            downloader = Downloader(r, DownloadPolicy(), sink=out)
            results = await downloader.run([Job(u, None, index=i)
                                            for i, u in enumerate(_urls(server.port))])
    assert all(res.ok for res in results)
    assert out.getvalue() == b"".join(f"/f{i}".encode() * 10 for i in range(N))
