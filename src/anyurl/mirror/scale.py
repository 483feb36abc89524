"""Scale-out on a Dask distributed cluster: many URLs, sharded by host, one worker per host.

``anyurl get -i URLS --dask tcp://scheduler:8786`` and :func:`fetch_many_dask` give each
host (scheme, host, port) to one worker of the cluster, by load (:func:`assign`: the
hosts with the most URLs first, each to the worker with the least work so far), and cut
a host's URLs into tasks of at most ``chunk`` URLs that run one after the other (each
waits for the one before), so that one host is spoken to by one worker at a time while
the scheduler balances what is left: a worker that is done early takes the next task of
a host whose last task has finished. Each task runs an ordinary
:class:`~anyurl.downloads.downloader.Downloader` over its URLs: per-host politeness (``per_host``
at once, retries with backoff, FTP connection reuse) holds across the cluster, and a
failure is retried by that downloader; a task that dies with its worker is retried by
Dask on another (``retries``). Tasks are submitted as one batch and their results
collected as they complete.

Each worker writes its files under the output directory (which all workers must see:
a shared file system, or each machine's own disk when the results are collected
later) and its own ``manifest-<worker>.jsonl``; the caller gets one
:class:`ShardResult` per URL. Mirrors on Dask use the same sharding
(:func:`mirror_dask`): each worker crawls its hosts with their own SQLite state beside
their part of the tree, so a cluster resumes as one machine does; links to hosts a
worker does not own travel back through the scheduler to the owner's next task.

Dask (``pip install 'anyurl[dask]'``) is imported only here.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["CHUNK", "ShardResult", "assign", "chunks", "fetch_many_dask", "mirror_dask",
           "shard_key"]

#: What makes an authority more than ``host[:port]`` to :func:`shard_key` (then parsed).
_NOT_PLAIN = re.compile(r"[@\[\]%?#;\\ ]")

#: URLs of one host in one task: small enough that the scheduler can balance the rest,
#: large enough that a task's start-up (a resolver, a downloader) is spread thin.
CHUNK = 2000


@dataclass(frozen=True)
class ShardResult:
    """The outcome of one URL on the cluster."""

    url: str
    worker: str
    exit_code: int
    bytes: int = 0
    file: str | None = None
    error: str | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class _Task:
    """What one worker is asked to do (it must pickle)."""

    urls: tuple[str, ...]
    output_dir: str
    config: dict[str, Any] = field(default_factory=dict)
    retry: int = 3
    per_host: int = 2
    parallel: int = 8
    remote_name: bool = True
    #: The async library the worker runs the task on (anyio's name: asyncio or trio).
    backend: str = "asyncio"


def shard_key(url: str) -> str:
    """The host a URL is sharded by: ``scheme://host:port`` (lower-cased), from its text.

    A plain ``scheme://host[:port]/...`` of section 3.1's common syntax is read with
    string operations (the caller of a cluster of 32,000 URLs would spend a second
    parsing them); anything else (a user, an IPv6 literal, an escape, another scheme)
    goes through the parser. Either way the key only places the URL: the worker's
    resolver admits it through the gate.
    """
    from anyurl.numbers import is_ascii_digits
    from anyurl.url.parse import ip_based

    scheme, sep, rest = url.partition("://")
    if sep and ip_based(scheme):  # section 3.1's common syntax
        authority = rest.split("/", 1)[0]
        host, colon, port = authority.partition(":")
        if (host and not _NOT_PLAIN.search(authority)
                and (not colon or (is_ascii_digits(port) and len(port) <= 5))):
            from anyurl.registry import default_port

            scheme = scheme.lower()
            effective = int(port) if colon else default_port(scheme)
            return f"{scheme}://{host.lower()}:{effective or ''}"
    return _parsed_key(url)


def _parsed_key(url: str) -> str:
    from anyurl.url import parse

    try:
        parsed = parse(url)
    except Exception:  # an unparsable URL fails on whichever worker gets it
        return url
    return f"{parsed.scheme}://{(parsed.host or '').lower()}:{parsed.effective_port or ''}"


def _by_host(urls: Iterable[str]) -> dict[str, list[str]]:
    """``urls`` grouped by :func:`shard_key`, each group in the order given."""
    hosts: dict[str, list[str]] = {}
    for url in urls:
        hosts.setdefault(shard_key(url), []).append(url)
    return hosts


def assign(urls: Iterable[str], workers: list[str]) -> dict[str, list[str]]:
    """Worker address -> its URLs: every URL of one host to the same worker, the work
    balanced by URL count.

    Hosts are taken from the one with the most URLs down (ties by the SHA-256 of the
    host), each given to the worker with the fewest URLs so far (ties by address), as
    the longest-processing-time rule schedules: eight equal hosts on eight workers get
    one each, where a hash put two on one and none on another. The answer depends only
    on the URLs and the set of workers, not on their order.
    """
    hosts = _by_host(urls)
    return {worker: [url for host in owned for url in hosts[host]]
            for worker, owned in _place({h: len(u) for h, u in hosts.items()},
                                        workers).items()}


def _place(work: dict[str, int], workers: list[str]) -> dict[str, list[str]]:
    """Worker address -> the hosts it owns, from each host's amount of ``work`` (see
    :func:`assign`); workers without any are left out."""
    if not workers:
        raise ValueError("the Dask cluster has no workers")
    ordered = sorted(set(workers))
    load = dict.fromkeys(ordered, 0)
    owned: dict[str, list[str]] = {w: [] for w in ordered}
    for host in sorted(work, key=lambda h: (-work[h], hashlib.sha256(h.encode()).digest())):
        worker = min(ordered, key=lambda w: (load[w], w))
        owned[worker].append(host)
        load[worker] += work[host]
    return {w: h for w, h in owned.items() if h}


def chunks(urls: list[str], size: int) -> list[list[str]]:
    """``urls`` in consecutive pieces of at most ``size`` (the tasks of one host)."""
    size = max(1, size)
    return [urls[i : i + size] for i in range(0, len(urls), size)]


@contextmanager
def _connected(scheduler: Any) -> Iterator[Any]:
    """A client of ``scheduler`` (an address), closed after; a given Client as it is."""
    from distributed import Client

    if isinstance(scheduler, Client):
        yield scheduler
        return
    client = Client(scheduler)
    try:
        yield client
    finally:
        client.close()


def _run_shard(task: _Task, after: Any = None) -> list[dict[str, Any]]:
    """On a worker: fetch the task's URLs with a downloader; one dict per URL. ``after``
    is the result of the host's previous task, which this one waits for (unused)."""
    import anyio

    from anyurl.config import Config
    from anyurl.downloads.downloader import Downloader, DownloadPolicy, Job
    from anyurl.downloads.names import remote_name
    from anyurl.downloads.output import held_directories
    from anyurl.resolver import Resolver

    worker = _worker_name()
    out = Path(task.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    manifest = out / f"manifest-{_safe(worker)}.jsonl"

    async def main() -> list[dict[str, Any]]:
        config = Config(**task.config) if task.config else Config()
        async with Resolver(config, warn=lambda m: None, note=lambda m: None) as resolver:
            policy = DownloadPolicy(parallel=task.parallel, per_host=task.per_host,
                                    retry=task.retry, clobber=True, create_dirs=True,
                                    resume=True)
            jobs = []
            for i, text in enumerate(task.urls):
                try:
                    url = resolver.parse(text)
                    host = (url.host or "localhost").lower()
                    port = f"_{url.port}" if url.port else ""
                    target = out / _safe(host + port) / remote_name(url)
                except Exception:
                    target = out / "_unparsable" / f"{i}"
                # ``tree``: the output directory is the shard's, as a mirror's root is
                # (no link below it followed), and a resuming run batches a tree's jobs:
                # one pipelined connection per lane, not one request at a time.
                jobs.append(Job(text, target, named_by_user=False, tree=out))
            # A task is a batch of one host's files into one directory: the directories
            # walked for the first file are held for the rest (not walked per file).
            with held_directories():
                results = await Downloader(resolver, policy).run(jobs)
        rows = []
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        for r in results:
            # ShardResult's fields (a dict for the trip back: asdict costs ~20 us a URL)
            rows.append(dict(
                url=r.job.shown, worker=worker, exit_code=r.exit_code, bytes=r.bytes,
                file=os.fsdecode(r.job.target) if r.ok and r.job.target else None,
                error=str(r.error) if r.error else None, seconds=round(r.seconds, 3),
                time=now))
        with open(manifest, "a", encoding="utf-8") as f:
            f.write("".join(json.dumps(row) + "\n" for row in rows))  # one write a task
        return rows

    return anyio.run(main, backend=task.backend)


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return socket.gethostname()


def _safe(text: str) -> str:
    from anyurl.downloads.names import safe_name

    return safe_name(text.replace("://", "_").replace(":", "_").replace("/", "_"))


def fetch_many_dask(
    urls: Iterable[str],
    scheduler: Any,
    output_dir: str | os.PathLike[str],
    *,
    config: dict[str, Any] | None = None,
    retry: int = 3,
    per_host: int = 2,
    parallel: int = 8,
    task_retries: int = 2,
    chunk: int = CHUNK,
    backend: str = "asyncio",
) -> list[ShardResult]:
    """Fetch ``urls`` on the Dask cluster at ``scheduler`` (an address such as
    ``tcp://10.0.0.1:8786``, or a ``distributed.Client``) into ``output_dir``.

    ``config`` holds :class:`~anyurl.config.Config` fields for the workers' resolvers
    (plain values: it travels to them); ``chunk`` is the most URLs of one host in one
    task; ``backend`` the async library the workers run it on (asyncio or trio). Blocks
    until every URL has a result; results come in the order tasks finish.
    """
    with _connected(scheduler) as client:
        from distributed import as_completed

        workers = list(client.scheduler_info()["workers"])
        futures = []
        hosts = _by_host(urls)  # each URL's key once
        for worker, owned in _place({h: len(u) for h, u in hosts.items()},
                                    workers).items():
            for host in owned:
                previous: Any = None
                for piece in chunks(hosts[host], chunk):
                    task = _Task(tuple(piece), os.fspath(output_dir), dict(config or {}),
                                 retry, per_host, parallel, backend=backend)
                    # The host's tasks run one after the other: each waits for the one
                    # before (its rows are handed over, a few hundred KB at most).
                    previous = client.submit(
                        _run_shard, task, previous, workers=[worker],
                        allow_other_workers=True, pure=False, retries=task_retries)
                    futures.append(previous)
        rows = [row for _, batch in as_completed(futures, with_results=True)
                for row in batch]
    return [ShardResult(**{k: v for k, v in row.items() if k != "time"}) for row in rows]


def _run_mirror(start: tuple[str, ...], root: str, options: dict[str, Any],
                config: dict[str, Any], warc_name: str | None = None,
                found: tuple[tuple[str, int], ...] = (),
                backend: str = "asyncio") -> dict[str, Any]:
    """On a worker: crawl one host into ``root`` (this worker's part of the mirror),
    from ``start`` and the links other hosts' crawls ``found`` for it; the links it finds
    for other hosts come back in the report's ``foreign``."""
    import anyio

    from anyurl.config import Config
    from anyurl.mirror import Mirror, MirrorOptions
    from anyurl.resolver import Resolver

    key = shard_key(start[0] if start else found[0][0])

    async def main() -> dict[str, Any]:
        warc = Path(root) / warc_name if warc_name else None
        mirror_options = MirrorOptions(root=Path(root), warc=warc, **options)
        async with Resolver(Config(**config) if config else Config(), warn=lambda m: None,
                            note=lambda m: None) as resolver:
            mirror = Mirror(resolver, mirror_options,
                            owns=lambda url: shard_key(str(url)) == key)
            summary = await mirror.run(list(start), found)
        import sniffio

        return {"worker": _worker_name(), "root": root, "host": key, "found": summary.found,
                "backend": sniffio.current_async_library(),
                "done": summary.done, "failed": summary.failed, "bytes": summary.bytes,
                "fetched_now": summary.fetched_now,
                "not_modified_now": summary.not_modified_now,
                "errors": list(summary.errors), "failed_now": summary.failed_now,
                "links_found": summary.links_found, "links_skipped": summary.links_skipped,
                "refreshed": summary.refreshed, "outcomes": summary.outcomes,
                "gone": summary.gone, "foreign": summary.foreign}

    return anyio.run(main, backend=backend)


def mirror_dask(
    start: Iterable[str],
    scheduler: Any,
    output_dir: str | os.PathLike[str],
    *,
    options: dict[str, Any] | None = None,
    config: dict[str, Any] | None = None,
    task_retries: int = 2,
    warc_name: str | None = None,
    backend: str = "asyncio",
) -> list[dict[str, Any]]:
    """Mirror ``start`` on the cluster: each host is crawled by the worker that owns it,
    into ``output_dir/<host>/`` with its own state (resumable per host).

    ``options`` are :class:`~anyurl.mirror.MirrorOptions` fields other than ``root``;
    ``backend`` is the async library each crawl runs on (asyncio or trio).
    The frontier crosses hosts through the scheduler: a crawl hands back the links it
    found for hosts it does not own (with ``span_hosts``), and they go, in the next
    round, to the tasks of the workers that own those hosts; rounds end when no crawl
    found anything new. One report per host and round.
    """
    with _connected(scheduler) as client:
        workers = list(client.scheduler_info()["workers"])
        pending: dict[str, tuple[list[str], list[tuple[str, int]]]] = {}
        for url in start:
            pending.setdefault(shard_key(url), ([], []))[0].append(url)
        seen: set[str] = set(start)
        reports: list[dict[str, Any]] = []
        while pending:
            futures = []
            owners = _place(dict.fromkeys(pending, 1), workers)  # a crawl a host
            for worker, hosts in owners.items():
                for host in hosts:
                    urls, found = pending[host]
                    root = os.path.join(os.fspath(output_dir), _safe(host))
                    futures.append(client.submit(
                        _run_mirror, tuple(urls), root, dict(options or {}),
                        dict(config or {}), warc_name, tuple(found), backend,
                        workers=[worker],
                        allow_other_workers=True, pure=False, retries=task_retries))
            pending = {}
            for report in client.gather(futures):
                reports.append(report)
                for url, depth in report["foreign"]:
                    if url not in seen:
                        seen.add(url)
                        pending.setdefault(shard_key(url), ([], []))[1].append((url, depth))
        return reports
