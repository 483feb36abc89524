"""10,000 URLs on one process against two Dask workers on this machine.

Usage::

    python bench/scale_bench.py [--urls 10000] [--hosts 4] [--size 4096]

Starts nginx on 127.0.0.1 listening on ``--hosts`` ports (each port is a host to the
sharding: ``scheme://host:port``) over ``--urls`` small files, then fetches them all

* in one process: ``anyurl get -i LIST -O --output-dir DIR -Z 8 --per-host 2``;
* on a ``LocalCluster`` of two worker processes: ``anyurl.scale.fetch_many_dask`` with
  the same per-host limit (the cluster's start-up is timed apart).

and prints both wall times, URLs per second and the speed-up. Files go to a temporary
directory that is removed at the end.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from compiled import compile_anyurl  # bench/compiled.py

CONF = """
daemon off;
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    keepalive_requests 100000;
    default_type application/octet-stream;
    client_body_temp_path {root}/tmp; proxy_temp_path {root}/tmp;
    fastcgi_temp_path {root}/tmp; uwsgi_temp_path {root}/tmp; scgi_temp_path {root}/tmp;
    server {{
{listens}
        root {root}/www;
    }}
}}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--urls", type=int, default=10000)
    ap.add_argument("--hosts", type=int, default=4)
    ap.add_argument("--size", type=int, default=4096)
    args = ap.parse_args()
    compile_anyurl()
    root = Path(tempfile.mkdtemp(prefix="anyurl-scale-"))
    root.chmod(0o755)
    (root / "tmp").mkdir()
    www = root / "www"
    www.mkdir()
    block = os.urandom(args.size)
    for i in range(args.urls):
        (www / f"f{i:05d}").write_bytes(block)
    for path in (www, *www.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    ports = [free_port() for _ in range(args.hosts)]
    listens = "\n".join(f"        listen 127.0.0.1:{p} backlog=1024;" for p in ports)
    (root / "nginx.conf").write_text(CONF.format(root=root, listens=listens))
    nginx = subprocess.Popen([shutil.which("nginx") or "/usr/sbin/nginx", "-c",
                              str(root / "nginx.conf"), "-p", str(root)],
                             stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
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

        from anyurl.scale import fetch_many_dask

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
        nginx.send_signal(signal.SIGQUIT)
        nginx.wait(timeout=10)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
