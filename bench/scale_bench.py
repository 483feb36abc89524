"""Scale-out on Dask: one worker against several, over hosts of equal work (issue 21).

Usage::

    python bench/scale_bench.py                            # 8 hosts, 8,000 x 4 KiB
    python bench/scale_bench.py --urls 32000 --hosts 8 --workers 1,2,8
    python bench/run.py --rows dask                        # the same, as run.py's row

Starts nginx on 127.0.0.1 listening on ``--hosts`` ports (each port is a host to the
sharding: ``scheme://host:port``) over ``--urls`` files of ``--size`` bytes, then fetches
them all with :func:`anyurl.mirror.scale.fetch_many_dask` on a ``LocalCluster`` of each
``--workers`` count (worker processes of one thread, started, and their imports made,
before the clock starts), with the same per-host limit, into a temporary directory
removed at the end.

For each count it prints the wall time of the fetch, the speed-up over one worker, and
how the work was spread, read from the workers themselves:

* ``URLs`` per worker (min/max: the assignment's balance; eight equal hosts on eight
  workers should be one host each);
* ``CPU`` seconds each worker process spent in the fetch (``getrusage`` before and after,
  asked of every worker): their sum is the work, their maximum the critical path;
* ``bound``: sum / max of those CPU seconds, the speed-up the spread allows once every
  worker has a core of its own (what this machine cannot show with fewer cores than
  workers: its wall speed-up is capped by the cores nginx and the workers share);
* the caller's CPU seconds (assigning, submitting, collecting the results).

Timings are of this machine on this day: record them in ``bench/README.md`` with the date,
the machine and its load, and never assert them in a test.
"""

from __future__ import annotations

import argparse
import logging
import os
import resource
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compiled import compile_anyurl  # bench/compiled.py
from nginx import start_nginx, stop_nginx  # bench/nginx.py

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))


@dataclass
class ScaleRun:
    """One cluster size's figures."""

    workers: int
    wall: float
    failed: int
    urls_per_worker: list[int]
    cpu_per_worker: list[float]
    caller_cpu: float

    @property
    def bound(self) -> float:
        """The speed-up the spread of work allows with a core per worker."""
        busiest = max(self.cpu_per_worker, default=0.0)
        return sum(self.cpu_per_worker) / busiest if busiest else 0.0


def _warm() -> None:
    """Import what a task uses, as a long-lived worker has (not counted in the fetch)."""
    import anyurl.downloads.downloader
    import anyurl.resolver
    import anyurl.schemes.http.handler  # noqa: F401


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_cluster(urls: list[str], out: Path, workers: int, per_host: int,
                parallel: int) -> ScaleRun:
    """Fetch ``urls`` on a fresh LocalCluster of ``workers`` processes."""
    from distributed import Client, LocalCluster

    from anyurl.mirror.scale import fetch_many_dask

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      host="127.0.0.1", dashboard_address="127.0.0.1:0",
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        client.wait_for_workers(workers)
        client.run(_warm)
        before: dict[str, Any] = client.run(_cpu_seconds)
        caller = _cpu_seconds()
        started = time.perf_counter()
        results = fetch_many_dask(urls, client, out, per_host=per_host, parallel=parallel)
        wall = time.perf_counter() - started
        caller = _cpu_seconds() - caller
        after: dict[str, Any] = client.run(_cpu_seconds)
    counts = {w: 0 for w in before}
    for r in results:
        counts[r.worker] = counts.get(r.worker, 0) + 1
    return ScaleRun(workers, wall, sum(1 for r in results if r.exit_code),
                    sorted(counts.values()), sorted(after[w] - before[w] for w in before),
                    caller)


def scale_rows(urls: int, hosts: int, size: int, counts: list[int], per_host: int = 2,
               parallel: int = 8, log: Any = print) -> list[str]:
    """Serve ``urls`` files over ``hosts`` nginx ports, fetch them on each cluster size
    of ``counts`` (the first is the reference), and return the summary lines."""
    compile_anyurl()
    root = Path(tempfile.mkdtemp(prefix="anyurl-scale-"))
    root.chmod(0o755)
    www = root / "www"
    www.mkdir()
    block = os.urandom(size)
    for i in range(urls):
        (www / f"f{i:05d}").write_bytes(block)
    for path in (www, *www.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    nginx, ports = start_nginx(root, www, hosts)
    lines: list[str] = []
    try:
        listed = [f"http://127.0.0.1:{ports[i % len(ports)]}/f{i:05d}" for i in range(urls)]
        runs: list[ScaleRun] = []
        for n in counts:
            run = run_cluster(listed, root / f"out{n}", n, per_host, parallel)
            shutil.rmtree(root / f"out{n}", ignore_errors=True)
            runs.append(run)
            one = runs[0].wall
            cpu = run.cpu_per_worker
            line = (f"{n} worker{'s' if n > 1 else ' '}: {run.wall:6.2f} s "
                    f"({urls / run.wall:6.0f} URLs/s), speed-up {one / run.wall:4.2f}; "
                    f"URLs/worker {run.urls_per_worker[0]}-{run.urls_per_worker[-1]}; "
                    f"CPU/worker {min(cpu):.2f}-{max(cpu):.2f} s (sum {sum(cpu):.2f}), "
                    f"bound {run.bound:4.2f}; caller CPU {run.caller_cpu:.2f} s; "
                    f"{run.failed} failed")
            log(line)
            lines.append(line)
    finally:
        stop_nginx(nginx)
        shutil.rmtree(root, ignore_errors=True)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    lines.insert(0, f"{urls} x {size} B over {hosts} hosts, per-host {per_host}, on "
                 f"{os.cpu_count()} cpus, load {load}")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--urls", type=int, default=8000)
    ap.add_argument("--hosts", type=int, default=8)
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--workers", default="1,2,8",
                    help="cluster sizes, the first the reference (default 1,2,8)")
    args = ap.parse_args()
    counts = [int(n) for n in args.workers.split(",") if n]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, "
          f"{time.strftime('%Y-%m-%d %H:%M')}", flush=True)
    print(scale_rows(args.urls, args.hosts, args.size, counts)[0])  # with the load


if __name__ == "__main__":
    main()
