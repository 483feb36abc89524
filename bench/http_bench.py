"""HTTP download speed: anyurl against curl, wget, httpx, aiohttp and urllib, in one run.

Usage::

    python bench/http_bench.py                      # 1 GiB from a private nginx, to /dev/null
    python bench/http_bench.py --size 256M --repeat 5 --to-file
    python bench/http_bench.py --url http://127.0.0.1:8080/big.bin   # a server of yours
    python bench/http_bench.py --small 200          # 200 small files from one host

Each client runs in its own process (so Python start-up is counted for the Python clients,
as a user meets it) and the runs are interleaved (paired) so that drift of the machine hits
every client alike. For each client it prints the median wall time, throughput, the ratio to
curl's median time, and the peak resident memory of the process (from ``wait4``).

Without ``--url`` it starts nginx on a free loopback port serving a generated file (and,
with ``--small``, many small ones) from a temporary directory, and stops it at the end.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

from compiled import compile_anyurl  # bench/compiled.py
from nginx import parse_size, start_nginx, stop_nginx  # bench/nginx.py

# Each Python client is a tiny program: argv = url, output path ("-" for /dev/null).
CLIENTS: dict[str, str] = {
    "anyurl": """
        import sys, anyio
        from anyurl.resolver import Resolver
        url, out = sys.argv[1], sys.argv[2]
        async def main():
            async with Resolver(warn=lambda m: None) as r:
                if out == "-":
                    async with r.open(url) as res:
                        async for chunk in res:
                            pass
                else:
                    await r.download(url, out)
        anyio.run(main, backend=sys.argv[3] if len(sys.argv) > 3 else "asyncio")
    """,
    "httpx": """
        import sys, httpx
        url, out = sys.argv[1], sys.argv[2]
        with httpx.Client() as c, c.stream("GET", url) as r:
            f = open(out, "wb") if out != "-" else None
            for chunk in r.iter_bytes():
                if f: f.write(chunk)
    """,
    "aiohttp": """
        import sys, asyncio, aiohttp
        url, out = sys.argv[1], sys.argv[2]
        async def main():
            async with aiohttp.ClientSession() as s, s.get(url) as r:
                f = open(out, "wb") if out != "-" else None
                async for chunk in r.content.iter_chunked(1 << 20):
                    if f: f.write(chunk)
        asyncio.run(main())
    """,
    "urllib": """
        import sys, urllib.request
        url, out = sys.argv[1], sys.argv[2]
        f = open(out, "wb") if out != "-" else None
        with urllib.request.urlopen(url) as r:
            while chunk := r.read(1 << 20):
                if f: f.write(chunk)
    """,
}

SMALL_CLIENTS: dict[str, str] = {
    "anyurl": """
        import sys, anyio
        from anyurl.resolver import Resolver
        urls = sys.argv[1:]
        async def main():
            async with Resolver(warn=lambda m: None) as r:
                for u in urls:
                    await r.fetch(u)
        anyio.run(main)
    """,
}


@dataclass
class Result:
    name: str
    times: list[float] = field(default_factory=list)
    #: user + system CPU seconds: steadier than wall time on a busy machine.
    cpu: list[float] = field(default_factory=list)
    peak_kib: int = 0
    failed: str | None = None


def serve_files(root: Path, size: int, small: int) -> tuple[subprocess.Popen[bytes], int]:
    """``big.bin`` of ``size`` bytes and ``small`` small files, served by nginx."""
    www = root / "www"
    (www / "small").mkdir(parents=True)
    block = os.urandom(1 << 20)
    with open(www / "big.bin", "wb") as f:
        left = size
        while left > 0:
            f.write(block[: min(left, len(block))])
            left -= len(block)
    for i in range(small):
        (www / "small" / f"f{i}.txt").write_bytes(block[i * 64 : i * 64 + 2048])
    # nginx workers run as an unprivileged user: let them read the tree.
    for path in (root, www, www / "small"):
        path.chmod(0o755)
    proc, [port] = start_nginx(root, www)
    return proc, port


def run(cmd: list[str]) -> tuple[float, float, int, int]:
    """Wall seconds, CPU seconds, peak RSS in KiB, exit status of one child process."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, proc.returncode


def have_module(name: str) -> bool:
    probe = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True)
    return probe.returncode == 0


def commands(url: str, out: str, backends: list[str]) -> dict[str, list[str]]:
    target = os.devnull if out == "-" else out
    cmds: dict[str, list[str]] = {}
    if shutil.which("curl"):
        cmds["curl"] = ["curl", "-s", "-f", "-o", target, url]
    if shutil.which("wget"):
        cmds["wget"] = ["wget", "-q", "-O", target, url]
    for backend in backends:
        # The command as a user runs it (body to the target, like curl -o), then the API.
        cmds[f"anyurl-cli/{backend}"] = [
            "sh", "-c", 'exec "$0" -m anyurl get -s --backend "$3" "$1" > "$2"',
            sys.executable, url, target, backend]
    for backend in backends:
        cmds[f"anyurl/{backend}"] = [sys.executable, "-c", textwrap.dedent(CLIENTS["anyurl"]),
                                     url, out, backend]
    for name in ("httpx", "aiohttp"):
        if have_module(name):
            cmds[name] = [sys.executable, "-c", textwrap.dedent(CLIENTS[name]), url, out]
    cmds["urllib"] = [sys.executable, "-c", textwrap.dedent(CLIENTS["urllib"]), url, out]
    # What a Python client pays before its first byte: subtract it to compare transfer loops.
    cmds["(python+anyurl import)"] = [sys.executable, "-c",
                                      "import anyurl.resolver, anyurl.schemes.http"]
    return cmds


def report(title: str, results: dict[str, Result], size: int | None) -> None:
    base = results.get("curl")
    base_t = statistics.median(base.times) if base and base.times else None
    print(f"\n{title}")
    base_cpu = statistics.median(base.cpu) if base and base.cpu else None
    print(f"{'client':<24}{'median s':>9}{'MiB/s':>7}{'x curl':>7}{'cpu s':>7}"
          f"{'cpu x curl':>11}{'peak MiB':>9}  wall of each run")
    for r in results.values():
        if r.failed or not r.times:
            print(f"{r.name:<24}  failed: {r.failed}")
            continue
        t = statistics.median(r.times)
        c = statistics.median(r.cpu)
        rate = (f"{size / t / (1 << 20):7.0f}" if size and not r.name.startswith("(")
                else f"{'':>7}")
        ratio = f"{t / base_t:7.2f}" if base_t else f"{'':>7}"
        cpu_ratio = f"{c / base_cpu:11.2f}" if base_cpu else f"{'':>11}"
        runs = " ".join(f"{x:.2f}" for x in r.times)
        print(f"{r.name:<24}{t:9.3f}{rate}{ratio}{c:7.2f}{cpu_ratio}"
              f"{r.peak_kib / 1024:9.1f}  {runs}")


def bench(cmds: dict[str, list[str]], repeat: int,
          target: Path | None = None) -> dict[str, Result]:
    """Run every command ``repeat`` times, alternating the order.

    With a ``target`` file, each run starts without it and with the page cache written
    back: otherwise a client pays for the previous one's file (replacing a 1 GiB file
    frees its pages, and dirty pages are flushed while the next client runs).
    """
    results = {name: Result(name) for name in cmds}
    for i in range(repeat):
        order = list(cmds) if i % 2 == 0 else list(reversed(cmds))
        for name in order:
            r = results[name]
            if r.failed:
                continue
            if target is not None:
                for leftover in (target, target.with_name(target.name + ".part")):
                    leftover.unlink(missing_ok=True)
                os.sync()
            elapsed, cpu, peak, code = run(cmds[name])
            if code != 0:
                r.failed = f"exit status {code}"
                continue
            r.times.append(elapsed)
            r.cpu.append(cpu)
            r.peak_kib = max(r.peak_kib, peak)
    return results


def main() -> None:
    compile_anyurl()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", default="1G", help="size of the generated file (default 1G)")
    ap.add_argument("--url", help="download this URL instead of starting nginx")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--to-file", action="store_true", help="also write to a file on disk")
    ap.add_argument("--small", type=int, default=0, metavar="N",
                    help="also fetch N small files from one host over keep-alive")
    ap.add_argument("--backends", default="asyncio,trio",
                    help="anyio backends for anyurl (default asyncio,trio)")
    args = ap.parse_args()
    size = parse_size(args.size)
    backends = [b for b in args.backends.split(",") if b]
    root = Path(tempfile.mkdtemp(prefix="anyurl-bench-"))
    proc = None
    try:
        if args.url:
            url, shown_size = args.url, None
        else:
            proc, port = serve_files(root, size, args.small)
            url, shown_size = f"http://127.0.0.1:{port}/big.bin", size
        print(f"downloading {url} ({args.size}), {args.repeat} paired runs per client")
        report("to /dev/null", bench(commands(url, "-", backends), args.repeat), shown_size)
        if args.to_file:
            out = str(root / "out.bin")
            report(f"to a file ({out})",
                   bench(commands(url, out, backends), args.repeat, Path(out)), shown_size)
        if args.small and proc is not None:
            urls = [f"http://127.0.0.1:{port}/small/f{i}.txt" for i in range(args.small)]
            small_cmds = {
                "curl": ["curl", "-s", "-f", *[x for u in urls for x in ("-o", os.devnull, u)]],
                "anyurl": [sys.executable, "-c", textwrap.dedent(SMALL_CLIENTS["anyurl"]),
                           *urls],
            }
            report(f"{args.small} small files, one process, keep-alive",
                   bench(small_cmds, args.repeat), None)
    finally:
        if proc is not None:
            stop_nginx(proc)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
