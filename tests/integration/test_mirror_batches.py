"""A mirror fetches a server's URLs in batches (issue 21): pipelined through the handler's
``open_batch`` over at most ``--per-host`` connections, and a crawl killed in the middle
of a batch resumes without losing a file or keeping one twice.

The site is the scripted HTTP server of tests/integration/test_http.py, which numbers its
connections and answers pipelined requests in order, as nginx does.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from warcio.archiveiterator import ArchiveIterator

from anyurl.mirror import Mirror, MirrorOptions
from anyurl.mirror.engine import MANIFEST_NAME, STATE_NAME
from anyurl.resolver import Resolver
from anyurl.schemes.http.handler import HTTPHandler
from tests.integration.batch_sizes import count_batches
from tests.integration.test_http import Reply, ScriptedServer

SRC = Path(__file__).resolve().parents[2] / "src"
FILES = 60


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer()
    links = "".join(f'<a href="f{i:02d}.txt">{i}</a>' for i in range(FILES))
    srv.routes["/p/"] = lambda q: Reply(headers=[("Content-Type", "text/html")],
                                        body=links.encode())
    for i in range(FILES):
        srv.routes[f"/p/f{i:02d}.txt"] = lambda q, i=i: Reply(body=f"file {i}\n".encode())
    yield srv
    srv.close()


def test_many_files_of_one_host_are_pipelined_over_per_host_connections(
        server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    batches = count_batches(monkeypatch, HTTPHandler)
    out = tmp_path / "m"

    async def crawl() -> Any:
        async with Resolver() as resolver:
            return await Mirror(resolver, MirrorOptions(root=out, robots=False)).run(
                [server.url("/p/")])

    summary = anyio.run(crawl)
    assert summary.done == FILES + 1 and summary.failed == 0
    # The 60 files reached the handler together: a batch per connection, not 60 opens.
    assert sum(batches) == FILES and len(batches) <= 2, batches
    files = [q for q in server.requests if q.path.startswith("/p/f")]
    assert len(files) == FILES  # each fetched once
    assert len({q.connection for q in files}) <= 2  # --per-host's default
    base = out / "http" / f"127.0.0.1_{server.port}" / "p"
    assert all((base / f"f{i:02d}.txt").read_bytes() == f"file {i}\n".encode()
               for i in range(FILES))
    manifest = [json.loads(x) for x in (out / MANIFEST_NAME).read_text().splitlines()]
    assert len(manifest) == FILES + 1


def test_a_crawl_killed_in_the_middle_of_a_batch_resumes_without_loss_or_duplicate(
        server: ScriptedServer, tmp_path: Path) -> None:
    stall = FILES - 10  # the second connection's batch stalls at this file
    server.routes[f"/p/f{stall}.txt"] = lambda q: Reply(body=b"late\n", delay=30)
    out = tmp_path / "m"
    warc = out / "site.warc.gz"
    env = dict(os.environ, PYTHONPATH=f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               NETRC=os.devnull)
    argv = [sys.executable, "-m", "anyurl", "mirror", "-s", "--no-robots", "-o", str(out),
            "--warc", str(warc)]
    proc = subprocess.Popen([*argv, server.url("/p/")], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not any(q.path == f"/p/f{stall}.txt" for q in server.requests):
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.02)
        time.sleep(0.3)  # the other connection's files are written meanwhile
    finally:
        proc.kill()  # kill -9, in the middle of the batch
        proc.wait()
    with sqlite3.connect(out / STATE_NAME) as db:
        statuses = dict(db.execute("SELECT url, status FROM urls").fetchall())
    assert statuses[server.url("/p/")] == "done"
    assert statuses[server.url(f"/p/f{stall}.txt")] == "running"  # the batch was cut
    server.routes[f"/p/f{stall}.txt"] = lambda q: Reply(body=b"late\n")
    again = subprocess.run(argv, env=env, capture_output=True, timeout=60)  # resumed
    assert again.returncode == 0, again.stderr
    base = out / "http" / f"127.0.0.1_{server.port}" / "p"
    for i in range(FILES):
        expected = b"late\n" if i == stall else f"file {i}\n".encode()
        assert (base / f"f{i:02d}.txt").read_bytes() == expected
    manifest = [json.loads(x)["url"] for x in (out / MANIFEST_NAME).read_text().splitlines()]
    assert sorted(manifest) == sorted(
        [server.url("/p/")] + [server.url(f"/p/f{i:02d}.txt") for i in range(FILES)])
    with open(warc, "rb") as f:
        responses = [r.rec_headers.get_header("WARC-Target-URI") for r in ArchiveIterator(f)
                     if r.rec_type == "response"]
    assert sorted(responses) == sorted(manifest)  # one record set per URL
    with sqlite3.connect(out / STATE_NAME) as db:
        assert {s for (s,) in db.execute("SELECT status FROM urls")} == {"done"}
    assert not list((out / ".anyurl-partial").glob("*"))


class _Killed(Exception):
    """Stands for a kill between a batch's manifest lines and its state transaction."""


def test_manifest_lines_of_urls_not_yet_recorded_are_cut_when_the_crawl_resumes(
        server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The manifest's lines are written before the state records their URLs done; a crawl
    stopped between the two fetches those URLs again and lists each of them once."""
    from anyurl.mirror.state import CrawlState

    out = tmp_path / "m"
    (out).mkdir()
    (out / MANIFEST_NAME).write_text('{"url": "kept from before"}\n')
    original = CrawlState.recorded
    calls = []

    def recorded(self: CrawlState, marks: Any, *args: Any) -> None:
        calls.append(1)
        if len(calls) == 2:  # the first batch of files: its lines are on disk already
            raise _Killed
        original(self, marks, *args)

    monkeypatch.setattr(CrawlState, "recorded", recorded)

    async def crawl() -> Any:
        async with Resolver() as resolver:
            return await Mirror(resolver, MirrorOptions(root=out, robots=False)).run(
                [server.url("/p/")])

    with pytest.raises(BaseException) as stopped:
        anyio.run(crawl)
    assert stopped.group_contains(_Killed) if isinstance(stopped.value, BaseExceptionGroup) \
        else isinstance(stopped.value, _Killed)
    listed = (out / MANIFEST_NAME).read_text().splitlines()
    assert len(listed) > 2  # the unrecorded batch's lines were written
    monkeypatch.setattr(CrawlState, "recorded", original)
    summary = anyio.run(crawl)
    assert summary.failed == 0
    urls = [json.loads(x)["url"] for x in (out / MANIFEST_NAME).read_text().splitlines()]
    assert urls[0] == "kept from before"
    assert sorted(urls[1:]) == sorted(
        [server.url("/p/")] + [server.url(f"/p/f{i:02d}.txt") for i in range(FILES)])


def test_two_urls_of_a_batch_saved_in_one_place_are_both_fetched(
        server: ScriptedServer, tmp_path: Path) -> None:
    """``d/`` and ``d/index.html`` are one file in the tree: the downloader refuses two
    jobs of one run writing one file, so the second goes after the batch."""
    page = "".join(f'<a href="f{i:02d}.txt">{i}</a>' for i in range(10))
    server.routes["/q/"] = lambda q: Reply(
        headers=[("Content-Type", "text/html")],
        body=(page + '<a href="d/">d</a><a href="d/index.html">i</a>').encode())
    for i in range(10):
        server.routes[f"/q/f{i:02d}.txt"] = lambda q, i=i: Reply(body=f"file {i}\n".encode())
    server.routes["/q/d/"] = lambda q: Reply(headers=[("Content-Type", "text/html")],
                                             body=b"<p>d</p>")
    server.routes["/q/d/index.html"] = server.routes["/q/d/"]
    out = tmp_path / "m"

    async def crawl() -> Any:
        async with Resolver() as resolver:
            return await Mirror(resolver, MirrorOptions(root=out, robots=False)).run(
                [server.url("/q/")])

    summary = anyio.run(crawl)
    assert (summary.done, summary.failed) == (13, 0), summary.errors
    base = out / "http" / f"127.0.0.1_{server.port}" / "q"
    assert (base / "d" / "index.html").read_bytes() == b"<p>d</p>"


def test_a_partial_file_leaves_the_batch_and_is_continued(
        server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A resuming run batches a tree's jobs; one whose staged ``.part`` holds bytes (a
    crawl killed while writing it) is continued with a range request of its own."""
    from anyurl.downloads.downloader import Downloader, DownloadPolicy, Job
    from anyurl.downloads.output import staged_part
    from tests.hostile.test_mirror_hostile import ranged

    body = b"0123456789" * 100
    server.routes["/p/f07.txt"] = ranged(body)
    tree = tmp_path / "m"
    targets = [tree / "p" / f"f{i:02d}.txt" for i in range(20)]
    part = staged_part(tree, targets[7])
    part.parent.mkdir(parents=True)
    part.write_bytes(body[:400])
    batches = count_batches(monkeypatch, HTTPHandler)

    async def run() -> Any:
        async with Resolver() as resolver:
            policy = DownloadPolicy(resume=True, clobber=True, create_dirs=True)
            jobs = [Job(server.url(f"/p/f{i:02d}.txt"), target, named_by_user=False,
                        tree=tree) for i, target in enumerate(targets)]
            return await Downloader(resolver, policy).run(jobs)

    results = anyio.run(run)
    assert all(r.ok for r in results), [r.error for r in results if not r.ok]
    assert sum(batches) == 19  # every file but the partial one, batched
    asked = [q for q in server.requests if q.path == "/p/f07.txt"]
    assert [q.headers.get("range") for q in asked] == ["bytes=400-"]
    assert targets[7].read_bytes() == body
    assert all(targets[i].read_bytes() == f"file {i}\n".encode() for i in range(20) if i != 7)
