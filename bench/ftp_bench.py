"""FTP download speed: anyurl against curl, wget, urllib and aioftp, in one run.

Usage::

    python bench/ftp_bench.py                    # 1 GiB from a private vsftpd peer, to /dev/null
    python bench/ftp_bench.py --size 64M --repeat 5
    python bench/ftp_bench.py --url ftp://127.0.0.1:2121/large.dat   # a server of yours
    python bench/ftp_bench.py --small 200 --size 0   # only the 200-small-files comparison

Each client runs in its own process (Python start-up is counted, as a user meets it) and
the runs are interleaved, so drift of the machine hits every client alike. For each client
it prints the median wall time, throughput, the ratio to curl's median time, and the peak
resident memory of the process (GNU time's ``%M``, else ``wait4``).

Small files: ``--small N`` fetches ``many/file000.txt`` ... of the peers' data root in one
process: anyurl reusing its control connection (the 3.2.5 pool), anyurl with reuse off
(``idle_timeout=0``: a login per file), and curl given all the URLs at once (it reuses the
connection too).

Without ``--url`` it starts the vsftpd peer of ``tests/peers`` in a private temporary run
directory with a large file of ``--size`` bytes, and stops it and removes it at the end.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from compiled import compile_anyurl  # bench/compiled.py

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

ANYURL = """
import os, sys, anyio
from anyurl.config import Config
from anyurl.resolver import Resolver

async def main():
    out = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    n = 0
    async with Resolver(Config(use_netrc=False), warn=lambda m: None) as r:
        async with r.open(sys.argv[1]) as res:
            async for chunk in res:
                n += os.write(out, chunk)
    print(n)

anyio.run(main, backend=sys.argv[3])
"""

URLLIB = """
import os, sys, urllib.request
out = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
n = 0
with urllib.request.urlopen(sys.argv[1]) as f:
    while chunk := f.read(1 << 20):
        n += os.write(out, chunk)
print(n)
"""

AIOFTP = """
import asyncio, os, sys, urllib.parse, aioftp
async def main():
    u = urllib.parse.urlsplit(sys.argv[1])
    out = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    n = 0
    async with aioftp.Client.context(u.hostname, u.port or 21, user="anonymous",
                                     password="bench@example.org") as client:
        async with client.download_stream(u.path.lstrip("/")) as stream:
            async for block in stream.iter_by_block(1 << 20):
                n += os.write(out, block)
    print(n)
asyncio.run(main())
"""

ANYURL_MANY = """
import sys, anyio
from anyurl.config import Config
from anyurl.resolver import Resolver

async def main():
    idle = float(sys.argv[2])
    urls = sys.argv[3:]
    n = 0
    async with Resolver(Config(use_netrc=False, idle_timeout=idle), warn=lambda m: None) as r:
        for url in urls:
            n += len(await r.fetch(url))
    print(n)

anyio.run(main, backend=sys.argv[1])
"""


@dataclass
class Client:
    name: str
    argv: list[str]
    times: list[float] = field(default_factory=list)
    rss_kib: list[int] = field(default_factory=list)
    received: list[int] = field(default_factory=list)


GNU_TIME = "/usr/bin/time"


def run(argv: list[str]) -> tuple[float, int, str]:
    """Wall time, peak RSS (KiB) and stdout of one process.

    The peak comes from GNU time when it is installed: a child forked straight from this
    (Python, ~25 MiB) process would report at least our own RSS, which Linux keeps in
    ``ru_maxrss`` across ``execve``; GNU time is small, so its child's figure is the
    client's own. Without it, ``wait4``'s figure is an upper bound.
    """
    rss_file = None
    if os.path.exists(GNU_TIME):
        fd, rss_file = tempfile.mkstemp(prefix="ftp-bench-rss-")
        os.close(fd)
        argv = [GNU_TIME, "-f", "%M", "-o", rss_file, *argv]
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate()
    elapsed = time.perf_counter() - started
    try:
        if proc.returncode != 0:
            raise SystemExit(f"{argv} failed ({proc.returncode}): {err.decode()[-800:]}")
        if rss_file is not None:
            rss = int(Path(rss_file).read_text().split()[-1])
        else:
            rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    finally:
        if rss_file is not None:
            os.unlink(rss_file)
    return elapsed, rss, out.decode().strip()


def parse_size(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if text[-1:].upper() in units:
        return int(float(text[:-1]) * units[text[-1].upper()])
    return int(text)


def anyurl_cli(url: str, sink: str, backend: str) -> list[str]:
    """The ``anyurl`` command as a user runs it, body to ``sink`` like ``curl -o``."""
    return ["sh", "-c", 'exec "$0" -m anyurl get -s --backend "$3" "$1" > "$2"',
            sys.executable, url, sink, backend]


def large_clients(url: str, sink: str) -> list[Client]:
    py = sys.executable
    clients = [
        Client("curl", ["curl", "-sS", "-o", sink, "-w", "%{size_download}", url]),
        Client("anyurl CLI (asyncio)", anyurl_cli(url, sink, "asyncio")),
        Client("anyurl CLI (trio)", anyurl_cli(url, sink, "trio")),
        Client("anyurl API (asyncio)", [py, "-c", ANYURL, url, sink, "asyncio"]),
        Client("anyurl API (trio)", [py, "-c", ANYURL, url, sink, "trio"]),
        Client("wget", ["wget", "-q", "-O", sink, url]),
        Client("urllib", [py, "-c", URLLIB, url, sink]),
        Client("aioftp", [py, "-c", AIOFTP, url, sink]),
    ]
    return clients


def measure(clients: list[Client], repeat: int) -> None:
    for _ in range(repeat):
        for client in clients:  # interleaved: drift hits everyone alike
            elapsed, rss, out = run(client.argv)
            client.times.append(elapsed)
            client.rss_kib.append(rss)
            if out.isdigit():
                client.received.append(int(out))


def report(title: str, clients: list[Client], size: int | None) -> None:
    base = statistics.median(clients[0].times)
    if size is None and clients[0].received:
        size = clients[0].received[0]  # --url: curl says how big the file is
    print(f"\n{title}")
    print(f"{'client':22} {'median s':>9} {'MiB/s':>9} {'x curl':>7} {'peak RSS MiB':>13}")
    for client in clients:
        t = statistics.median(client.times)
        rate = f"{size / t / (1 << 20):9.1f}" if size else f"{'-':>9}"
        rss = max(client.rss_kib) / 1024
        print(f"{client.name:22} {t:9.3f} {rate} {t / base:7.2f} {rss:13.1f}")
        if size and client.received and any(n != size for n in client.received):
            print(f"  !! {client.name} received {client.received}, expected {size}")


def main() -> None:
    compile_anyurl()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", default="1G", help="large file size (1G, 64M, bytes; 0: skip)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--url", help="ftp URL of a large file on a server of yours")
    ap.add_argument("--small", type=int, default=200, help="small files to fetch (0: skip)")
    ap.add_argument("--sink", default=os.devnull, help="where downloads go (default /dev/null)")
    args = ap.parse_args()
    size = parse_size(args.size)

    state = None
    run_dir = None
    if args.url:
        large_url = args.url
        root_url = large_url.rsplit("/", 1)[0] + "/"
    else:
        from tests.peers import launcher

        # A private run directory: `python -m tests.peers start` empties .peers/ as a whole.
        run_dir = Path(tempfile.mkdtemp(prefix="anyurl-ftp-bench-"))
        print(f"starting the vsftpd peer with a {size} byte file in {run_dir} ...")
        state = launcher.start(["vsftpd"], run_dir, large_size=max(size, 1))
        peer = state["peers"]["vsftpd"]
        if peer["status"] != "running":
            raise SystemExit(peer["error"])
        root_url = f"ftp://{peer['host']}:{peer['port']}/"
        large_url = root_url + "large.dat"
    try:
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus; sink {args.sink}")
        if size:
            clients = large_clients(large_url, args.sink)
            measure(clients, args.repeat)
            known = None if args.url else size
            report(f"{large_url}, median of {args.repeat}", clients, known)
        if args.small:
            urls = [f"{root_url}many/file{i:03d}.txt" for i in range(args.small)]
            py = sys.executable
            curl_argv = ["curl", "-sS"]
            for url in urls:
                curl_argv += ["-o", os.devnull, url]
            clients = [
                Client("curl (one process)", curl_argv),
                Client("anyurl reuse asyncio", [py, "-c", ANYURL_MANY, "asyncio", "15", *urls]),
                Client("anyurl reuse trio", [py, "-c", ANYURL_MANY, "trio", "15", *urls]),
                Client("anyurl no reuse", [py, "-c", ANYURL_MANY, "asyncio", "0", *urls]),
            ]
            measure(clients, args.repeat)
            report(f"{args.small} small files from {root_url}many/, one process each, "
                   f"median of {args.repeat}", clients, None)
    finally:
        if run_dir is not None:
            from tests.peers import launcher

            launcher.stop(run_dir, log=lambda *_: None)
            shutil.rmtree(run_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
