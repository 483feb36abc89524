"""Scale-out on Dask: a LocalCluster of two worker processes against the loopback peers.

The same transfers and mirrors as on one machine, sharded by host: every URL of a host
on one worker (so per-host politeness holds across the cluster), files exact, each
worker's manifest, a mirror that resumes on the cluster without fetching again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.batch_sizes import count_batches
from tests.peers import data

pytestmark = [pytest.mark.integration]

distributed = pytest.importorskip("distributed", reason="pip install 'anyurl[dask]'")

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=True,
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                  silence_logs=logging.ERROR,
                                  env={"NETRC": os.devnull}) as local, \
            distributed.Client(local) as client:
        client.wait_for_workers(2)
        yield client


def _sha(blob: bytes) -> str:
    return hashlib.sha256(blob).hexdigest()


def test_assign_keeps_each_host_on_one_worker() -> None:
    from anyurl.mirror.scale import assign, shard_key

    urls = [f"http://h{i % 7}.example:80/f{i}" for i in range(70)]
    workers = ["tcp://10.0.0.2:1", "tcp://10.0.0.1:1"]
    shards = assign(urls, workers)
    assert sum(len(v) for v in shards.values()) == 70
    owner = {shard_key(u): w for w, us in shards.items() for u in us}
    assert len(owner) == 7  # one owner per host
    again = assign(list(reversed(urls)), list(reversed(workers)))  # any order: same owners
    assert {w: set(u) for w, u in again.items()} == {w: set(u) for w, u in shards.items()}
    assert shard_key("http://H0.example/x") == shard_key("http://h0.example:80/y")


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_fetch_many_on_two_workers(cluster: Any, peers: Any, tmp_path: Path,
                                   backend: str) -> None:
    from anyurl.mirror.scale import fetch_many_dask, shard_key

    names = [f"many/file{i:03d}.txt" for i in range(0, 40)]
    urls = [peers["nginx"].url(n) for n in names] + [peers["vsftpd"].url(n) for n in names] \
        + [peers["pygopherd"].url("0/" + n) for n in names[:10]]
    results = fetch_many_dask(urls, cluster, tmp_path, retry=1, backend=backend)
    assert len(results) == len(urls)
    assert all(r.exit_code == 0 for r in results), [r.error for r in results if r.error]
    per_host: dict[str, set[str]] = {}
    for r in results:
        per_host.setdefault(shard_key(r.url), set()).add(r.worker)
        name = Path(r.file or "").name
        assert Path(r.file or "").read_bytes().replace(b"\r\n", b"\n") == \
            data.expected_bytes(f"many/{name}")
    assert all(len(workers) == 1 for workers in per_host.values())  # one owner per host
    manifests = list(tmp_path.glob("manifest-*.jsonl"))
    lines = [json.loads(x) for m in manifests for x in m.read_text().splitlines()]
    assert len(lines) == len(urls)


def test_get_cli_with_dask(cluster: Any, peers: Any, tmp_path: Path) -> None:
    address = cluster.scheduler.address
    listing = tmp_path / "urls.txt"
    listing.write_text("\n".join(peers["vsftpd"].url(f"many/file{i:03d}.txt")
                                 for i in range(20)) + "\n")
    env = dict(os.environ, PYTHONPATH=f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    r = subprocess.run([sys.executable, "-m", "anyurl", "get", "-i", str(listing), "--dask",
                        address, "-O", "--output-dir", str(tmp_path / "out"),
                        "--backend", "trio"],  # the workers run on it too
                       capture_output=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert b"20 of 20 URLs done" in r.stderr
    saved = list((tmp_path / "out").rglob("file0*.txt"))
    assert len(saved) == 20
    no_o = subprocess.run([sys.executable, "-m", "anyurl", "get", "--dask", address,
                           peers["vsftpd"].url("hello.txt")], capture_output=True, env=env)
    assert no_o.returncode == 2


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_mirror_on_the_cluster_resumes_without_refetching(cluster: Any, peers: Any,
                                                         tmp_path: Path, backend: str) -> None:
    from anyurl.mirror.scale import mirror_dask

    start = [peers["vsftpd"].url("pub/"), peers["pygopherd"].url("1/pub")]
    options = {"wait": 0.0}
    reports = mirror_dask(start, cluster, tmp_path, options=options, backend=backend)
    assert len(reports) == 2 and all(not r["errors"] for r in reports)
    assert {r["backend"] for r in reports} == {backend}  # each crawl ran on it
    expected = {p[4:]: m["sha256"] for p, m in peers.files.items() if p.startswith("pub/")}
    for report in reports:
        root = Path(report["root"])
        got = {}
        for path in root.rglob("*"):
            if path.is_file() and path.name not in (".listing", "gophermap") and \
                    path.suffix not in (".sqlite", ".jsonl") and "-wal" not in path.name \
                    and "-shm" not in path.name:
                rel = path.relative_to(root).as_posix().split("/pub/", 1)[1]
                got[rel] = _sha(path.read_bytes())
        assert got == expected, report["root"]
    again = mirror_dask(start, cluster, tmp_path, options={**options, "refresh": False},
                        backend=backend)
    assert [r["fetched_now"] for r in again] == [0, 0]  # every URL was done already
    refreshed = mirror_dask(start, cluster, tmp_path, options=options, backend=backend)
    for report in refreshed:  # checked again: nothing new, nothing changed on the servers
        assert report["outcomes"].get("unchanged", 0) == report["done"]
        assert not report["gone"]


def test_mirror_on_the_cluster_copies_a_site_and_a_newsgroup_with_warc(
        cluster: Any, peers: Any, tmp_path: Path) -> None:
    """The other trees of test_mirror.py, on the cluster: nginx's site and leafnode's
    group, each on the worker that owns its host, each with its own WARC file."""
    from warcio.archiveiterator import ArchiveIterator

    from anyurl.mirror.scale import mirror_dask

    nginx, news = peers["nginx"], peers["leafnode"]
    start = [nginx.url("pub/"), f"nntp://{news.host}:{news.port}/anyurl.test"]
    reports = mirror_dask(start, cluster, tmp_path, options={"wait": 0.0},
                          warc_name="mirror.warc.gz")
    assert len(reports) == 2 and all(not r["errors"] for r in reports)
    site = next(Path(r["root"]) for r in reports if str(nginx.port) in r["root"])
    expected = {p[4:]: m["sha256"] for p, m in peers.files.items() if p.startswith("pub/")}
    got = {}
    for path in site.rglob("*"):
        if path.is_file() and "/http/" in path.as_posix() and path.name != "index.html":
            got[path.as_posix().split("/pub/", 1)[1]] = _sha(path.read_bytes())
    assert got == expected
    group = next(r for r in reports if str(news.port) in r["root"])
    articles = [json.loads(line) for line in
                (Path(group["root"]) / "manifest.jsonl").read_text().splitlines()
                if '"article"' in line]
    assert len(articles) == len(data.NEWS_ARTICLES)
    for report in reports:
        warc = Path(report["root"]) / "mirror.warc.gz"
        assert subprocess.run(["warcio", "check", str(warc)]).returncode == 0
        with open(warc, "rb") as f:
            kinds = {record.rec_type for record in ArchiveIterator(f)}
        assert "warcinfo" in kinds and ({"response", "request"} <= kinds or "resource" in kinds)


def test_links_to_another_host_go_to_its_owner(cluster: Any, peers: Any,
                                               tmp_path: Path) -> None:
    """--span-hosts on the cluster: a page on one host links to files on nginx; the
    nginx files are fetched by the worker that owns nginx, in a later round."""
    from anyurl.mirror.scale import mirror_dask, shard_key
    from tests.integration.test_http import Reply, ScriptedServer

    nginx = peers["nginx"]
    page = (f'<html><a href="{nginx.url("pub/readme.txt")}">r</a>'
            f'<a href="{nginx.url("hello.txt")}">h</a></html>').encode()
    server = ScriptedServer()
    try:
        server.routes["/start.html"] = lambda q: Reply(
            headers=[("Content-Type", "text/html")], body=page)
        reports = mirror_dask([server.url("/start.html")], cluster, tmp_path,
                              options={"wait": 0.0, "span_hosts": True, "robots": False})
    finally:
        server.close()
    hosts = [r["host"] for r in reports]
    assert hosts[0] == shard_key(server.url("/start.html"))
    assert shard_key(nginx.url()) in hosts[1:]  # the second round, on nginx's owner
    nginx_root = Path(next(r["root"] for r in reports if r["host"] == shard_key(nginx.url())))
    saved = {p.name: p.read_bytes() for p in nginx_root.rglob("*.txt")}
    assert saved == {"readme.txt": data.expected_bytes("pub/readme.txt"),
                     "hello.txt": data.expected_bytes("hello.txt")}


def test_a_mirror_survives_a_killed_worker_without_refetching(peers: Any,
                                                             tmp_path: Path) -> None:
    """SIGKILL the worker process that crawls a host: Dask runs the task again (on the
    restarted or the other worker), which resumes from the host's state: every URL once."""
    import signal
    import sqlite3
    import threading
    import time

    from anyurl.mirror.engine import MANIFEST_NAME, STATE_NAME
    from anyurl.mirror.scale import mirror_dask, shard_key

    peer = peers["vsftpd"]
    start = peer.url("many/")
    outcome: list[Any] = []
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                  silence_logs=logging.ERROR,
                                  env={"NETRC": os.devnull}) as local, \
            distributed.Client(local) as client:
        client.wait_for_workers(2)

        def crawl() -> None:
            try:
                outcome.append(mirror_dask([start], client, tmp_path,
                                           options={"wait": 0.05, "parallel": 1}))
            except Exception as exc:  # reported below
                outcome.append(exc)

        thread = threading.Thread(target=crawl)
        thread.start()
        state = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = list(tmp_path.glob(f"*/{STATE_NAME}"))
            if found:
                state = found[0]
                try:
                    with sqlite3.connect(state) as db:
                        done = db.execute("SELECT COUNT(*) FROM urls "
                                          "WHERE status = 'done'").fetchone()[0]
                except sqlite3.Error:
                    done = 0
                if done >= 5:
                    break
            time.sleep(0.05)
        assert state is not None, "the crawl did not start"
        pids = client.run(os.getpid)  # worker address -> pid
        busy = [w for w, tasks in client.processing().items() if tasks]
        assert busy, "no worker is crawling"
        os.kill(pids[busy[0]], signal.SIGKILL)
        thread.join(timeout=180)
    assert outcome and not isinstance(outcome[0], Exception), outcome
    root = state.parent
    entries = [json.loads(x) for x in (root / MANIFEST_NAME).read_text().splitlines()]
    urls = [e["url"] for e in entries]
    # Each URL once: lines written for URLs the state had not recorded at the kill are
    # cut off when the crawl resumes (they are fetched and listed again).
    assert sorted(set(urls)) == sorted(urls) and len(urls) == data.MANY_COUNT + 1
    [report] = outcome[0]
    assert report["host"] == shard_key(start)
    assert report["fetched_now"] < data.MANY_COUNT + 1  # the task that ran again resumed
    files = {p.name: p.read_bytes() for p in root.rglob("file*.txt")}
    assert len(files) == data.MANY_COUNT
    assert all(files[f"file{i:03d}.txt"] == data.expected_bytes(f"many/file{i:03d}.txt")
               for i in range(data.MANY_COUNT))


def test_assign_balances_hosts_by_their_urls() -> None:
    """Eight equal hosts on eight workers: one each (a hash gave [2,1,1,1,1,1,1,0]);
    unequal hosts: the biggest first, each to the least loaded worker."""
    from anyurl.mirror.scale import assign, chunks, shard_key

    workers = [f"tcp://10.0.0.{i}:1" for i in range(8)]
    urls = [f"http://h{h}.example/f{i}" for h in range(8) for i in range(100)]
    shards = assign(urls, workers)
    assert sorted(len(v) for v in shards.values()) == [100] * 8
    assert all(len({shard_key(u) for u in v}) == 1 for v in shards.values())
    sizes = {"a": 600, "b": 300, "c": 300, "d": 200, "e": 100}
    urls = [f"http://{h}.example/f{i}" for h, n in sizes.items() for i in range(n)]
    loads = sorted(len(v) for v in assign(urls, workers[:2]).values())
    assert loads == [700, 800]  # a+e | b+c+d: as even as whole hosts allow
    assert chunks(list("abcde"), 2) == [["a", "b"], ["c", "d"], ["e"]]


def test_fetch_many_cuts_a_host_into_tasks(cluster: Any, peers: Any, tmp_path: Path) -> None:
    """A host's URLs in several tasks, one after the other: every URL once."""
    from anyurl.mirror.scale import fetch_many_dask

    urls = [peers["nginx"].url(f"many/file{i:03d}.txt") for i in range(30)]
    results = fetch_many_dask(urls, cluster, tmp_path, retry=1, chunk=7)
    assert sorted(r.url for r in results) == sorted(urls)
    assert all(r.exit_code == 0 for r in results), [r.error for r in results if r.error]


def test_a_task_pipelines_its_hosts_urls_and_stays_in_its_tree(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A task's URLs reach the handler as batches (pipelined on the host's connections),
    not one request each; a link planted in the output directory is not followed."""
    from anyurl.mirror.scale import _run_shard, _safe, _Task
    from anyurl.schemes.http.handler import HTTPHandler
    from tests.integration.test_http import Reply, ScriptedServer

    server = ScriptedServer()
    try:
        for i in range(40):
            server.routes[f"/f{i:02d}"] = lambda q, i=i: Reply(body=f"file {i}\n".encode())
        batches = count_batches(monkeypatch, HTTPHandler)
        out = tmp_path / "out"
        urls = tuple(server.url(f"/f{i:02d}") for i in range(40))
        rows = _run_shard(_Task(urls, os.fspath(out), {}, 0, 2, 8))
        # Again, with the host's directory replaced by a link to a directory outside.
        host_dir = out / _safe(f"127.0.0.1_{server.port}")
        saved = {p.name: p.read_bytes() for p in host_dir.iterdir()}
        shutil.rmtree(host_dir)
        outside = tmp_path / "outside"
        outside.mkdir()
        host_dir.symlink_to(outside)
        again = _run_shard(_Task(urls[:3], os.fspath(out), {}, 0, 2, 8))
    finally:
        server.close()
    assert all(row["exit_code"] == 0 for row in rows)
    assert saved == {f"f{i:02d}": f"file {i}\n".encode() for i in range(40)}
    assert max(batches) > 1, batches  # batched, not one request each
    assert all(row["exit_code"] == 23 for row in again)  # the link is refused
    assert not list(outside.iterdir())
