"""10,000 URLs on one process against two Dask workers on this machine.

Usage::

    python bench/scale_bench.py [--urls 10000] [--hosts 4] [--size 4096]

Starts nginx on 127.0.0.1 listening on ``--hosts`` ports (each port is a host to the
sharding: ``scheme://host:port``) over ``--urls`` small files, then fetches them all

* in one process: ``anyurl get -i LIST -O --output-dir DIR -Z 8 --per-host 2``;
* on a ``LocalCluster`` of two worker processes: ``anyurl.mirror.scale.fetch_many_dask`` with
  the same per-host limit (the cluster's start-up is timed apart).

and prints both wall times, URLs per second and the speed-up. Files go to a temporary
directory that is removed at the end.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from compiled import compile_anyurl  # bench/compiled.py
from nginx import start_nginx, stop_nginx  # bench/nginx.py


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--urls", type=int, default=10000)
    ap.add_argument("--hosts", type=int, default=4)
    ap.add_argument("--size", type=int, default=4096)
    args = ap.parse_args()
    compile_anyurl()
    root = Path(tempfile.mkdtemp(prefix="anyurl-scale-"))
    root.chmod(0o755)
    www = root / "www"
    www.mkdir()
    block = os.urandom(args.size)
    for i in range(args.urls):
        (www / f"f{i:05d}").write_bytes(block)
    for path in (www, *www.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    nginx, ports = start_nginx(root, www, args.hosts)
    try:
        urls = [f"http://127.0.0.1:{ports[i % len(ports)]}/f{i:05d}" for i in range(args.urls)]
        listing = root / "urls.txt"
        listing.write_text("\n".join(urls) + "\n")
        out1 = root / "one"
        started = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "anyurl", "get", "-s", "-i", str(listing),
                            "-O", "--output-dir", str(out1), "--create-dirs", "-Z", "8",
                            "--per-host", "2"], capture_output=True)
        one = time.perf_counter() - started
        assert r.returncode == 0, r.stderr[-2000:]
        print(f"one process:        {one:7.2f} s  {args.urls / one:8.0f} URLs/s", flush=True)

        from distributed import Client, LocalCluster

        from anyurl.mirror.scale import fetch_many_dask

        started = time.perf_counter()
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          host="127.0.0.1", dashboard_address="127.0.0.1:0",
                          silence_logs=logging.ERROR) as cluster, \
                Client(cluster) as client:
            client.wait_for_workers(2)
            boot = time.perf_counter() - started
            started = time.perf_counter()
            results = fetch_many_dask(urls, client, root / "two", per_host=2, parallel=8)
            two = time.perf_counter() - started
        failed = sum(1 for x in results if x.exit_code)
        print(f"two Dask workers:   {two:7.2f} s  {args.urls / two:8.0f} URLs/s "
              f"(cluster start-up {boot:.2f} s apart; {failed} failed)")
        print(f"speed-up: {one / two:.2f}x on {os.cpu_count()} cpus, {args.hosts} hosts, "
              f"{args.size} B files")
    finally:
        stop_nginx(nginx)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
