"""Gopher speed: a large binary item (anyurl against curl) and many small menus at once.

Usage::

    python bench/gopher_bench.py                       # 1 GiB from a private gophernicus
    python bench/gopher_bench.py --size 256M --repeat 5
    python bench/gopher_bench.py --url gopher://127.0.0.1:7071/9/large.dat   # your server
    python bench/gopher_bench.py --size 0 --menus 1000 --concurrency 1,10,100

Large item: each client runs in its own process (Python start-up counted, as a user meets
it), writing to /dev/null; runs are interleaved so that drift of the machine hits both
alike. It prints the median wall time, throughput, the ratio to curl's median time (goal
<= 1.0) and the peak resident memory (``wait4``).

Menus: ``--menus N`` fetches the root menu N times from one anyurl process (parsed, as
``anyurl get`` does) with at most C at a time, for each C of ``--concurrency``, and prints
the rate; curl does the same with ``--parallel --parallel-max C`` as a reference. The menus
come from the loopback Gopher+ server by default (``--menu-server gopherplus``):
gophernicus runs one process per connection under socat and tops out near 10 menus/s,
which measures the server, not the client; ``--menu-server gophernicus`` measures it anyway.

Without ``--url`` it starts the gophernicus peer of ``tests/peers`` (with ``-nm``, so it does
not throttle) and the menu server in ``<ANYURL_PEERS_DIR or .peers>/bench-gopher`` and stops
them at the end.
"""

from __future__ import annotations

import argparse
import os
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

ANYURL_LARGE = """
import os, sys, anyio
from anyurl.config import Config
from anyurl.resolver import Resolver

async def main():
    out = os.open(sys.argv[2], os.O_WRONLY)
    n = 0
    async with Resolver(Config(), warn=lambda m: None) as r:
        async with r.open(sys.argv[1]) as res:
            async for chunk in res:
                n += os.write(out, chunk)
    print(n)

anyio.run(main, backend=sys.argv[3])
"""

ANYURL_MENUS = """
import sys, time, anyio
from anyurl.config import Config
from anyurl.resolver import Resolver

async def main():
    url, count, limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    limiter = anyio.CapacityLimiter(limit)
    sizes = []
    async with Resolver(Config(), warn=lambda m: None) as r:
        async def one():
            async with limiter:
                sizes.append(len(await r.fetch(url)))
        start = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for _ in range(count):
                tg.start_soon(one)
        elapsed = time.perf_counter() - start
    assert len(sizes) == count and min(sizes) > 0, sizes[:3]
    print(elapsed)

anyio.run(main, backend=sys.argv[4])
"""


@dataclass
class Client:
    name: str
    argv: list[str]
    times: list[float] = field(default_factory=list)
    rss_kib: list[int] = field(default_factory=list)


def run(argv: list[str]) -> tuple[float, int, str]:
    """Wall time, peak RSS (KiB, from wait4) and stdout of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[0]} failed ({proc.returncode}): {err.decode(errors='replace')}")
    return elapsed, usage.ru_maxrss, out.decode()


def parse_size(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper().removesuffix("IB").removesuffix("B")
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def anyurl_cli(url: str, backend: str) -> list[str]:
    """The ``anyurl`` command as a user runs it, body to /dev/null like ``curl -o``."""
    return ["sh", "-c", 'exec "$0" -m anyurl get -s --backend "$2" "$1" > /dev/null',
            sys.executable, url, backend]


def bench_large(url: str, size: int | None, repeat: int, backends: list[str]) -> None:
    env_python = [sys.executable, "-c", ANYURL_LARGE]
    clients = [Client("curl", ["curl", "-s", "-S", "-o", "/dev/null", url])]
    clients += [Client(f"anyurl CLI ({b})", anyurl_cli(url, b)) for b in backends]
    clients += [Client(f"anyurl API ({b})", [*env_python, url, "/dev/null", b]) for b in backends]
    for _ in range(repeat):
        for client in clients:
            elapsed, rss, out = run(client.argv)
            if client.name.startswith("anyurl API") and size is not None:
                assert int(out) == size, f"{client.name} got {out.strip()} of {size} bytes"
            client.times.append(elapsed)
            client.rss_kib.append(rss)
    curl = statistics.median(clients[0].times)
    print(f"\nlarge binary item {url} ({size if size is not None else '?'} bytes), "
          f"median of {repeat}")
    print(f"{'client':18} {'time s':>8} {'MiB/s':>8} {'ratio':>6} {'peak RSS MiB':>13}")
    for client in clients:
        t = statistics.median(client.times)
        rate = (size or 0) / t / (1 << 20) if size else float("nan")
        print(f"{client.name:18} {t:8.3f} {rate:8.0f} {t / curl:6.2f} "
              f"{max(client.rss_kib) / 1024:13.1f}")


def bench_menus(url: str, count: int, limits: list[int], backends: list[str]) -> None:
    print(f"\n{count} menu fetches of {url}")
    print(f"{'client':18} {'concurrency':>11} {'time s':>8} {'menus/s':>9}")
    with tempfile.NamedTemporaryFile("w", suffix=".curlrc", delete=False) as cfg:
        for _ in range(count):
            cfg.write(f'url = "{url}"\noutput = "/dev/null"\n')
    try:
        for limit in limits:
            for backend in backends:
                _, _, out = run([sys.executable, "-c", ANYURL_MENUS, url, str(count),
                                 str(limit), backend])
                t = float(out)
                print(f"{'anyurl (' + backend + ')':18} {limit:11} {t:8.3f} {count / t:9.0f}")
            args = ["curl", "-s", "-S", "-K", cfg.name]
            if limit > 1:
                args[1:1] = ["--parallel", "--parallel-max", str(limit)]
            t, _, _ = run(args)
            print(f"{'curl':18} {limit:11} {t:8.3f} {count / t:9.0f}")
    finally:
        os.unlink(cfg.name)


def main() -> None:
    compile_anyurl()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--url", help="a gopher URL of a large binary item (no private server)")
    parser.add_argument("--menu-url", help="the menu to fetch many times (default: the root)")
    parser.add_argument("--size", default="1G", help="size of the large item (0: skip it)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--menus", type=int, default=1000)
    parser.add_argument("--concurrency", default="1,10,100")
    parser.add_argument("--backends", default="asyncio,trio")
    parser.add_argument("--menu-server", default="gopherplus",
                        choices=["gopherplus", "gophernicus", "pygopherd"])
    args = parser.parse_args()
    size = parse_size(args.size)
    backends = [b for b in args.backends.split(",") if b]
    limits = [int(c) for c in args.concurrency.split(",") if c]

    run_dir = None
    if args.url:
        large_url = args.url
        menu_url = args.menu_url or args.url.split("/", 3)[0] + "//" + args.url.split("/")[2] + "/"
        expected: int | None = None
    else:
        from tests.peers import launcher

        run_dir = launcher.default_run_dir() / "bench-gopher"
        if launcher.read_state(run_dir):
            launcher.stop(run_dir, log=lambda *_: None)
        names = sorted({"gophernicus", args.menu_server})
        state = launcher.start(names, run_dir, large_size=max(size, 1), log=lambda *_: None)
        bases = {}
        for name in names:
            peer = state["peers"][name]
            if peer["status"] != "running":
                launcher.stop(run_dir, log=lambda *_: None)
                raise SystemExit(peer["error"])
            bases[name] = f"gopher://{peer['host']}:{peer['port']}/"
        large_url = bases["gophernicus"] + "9/large.dat"
        menu_url = args.menu_url or bases[args.menu_server]
        expected = size
    try:
        if size:
            bench_large(large_url, expected, args.repeat, backends)
        if args.menus:
            bench_menus(menu_url, args.menus, limits, backends)
    finally:
        if run_dir is not None:
            from tests.peers import launcher

            launcher.stop(run_dir, log=lambda *_: None)


if __name__ == "__main__":
    main()
