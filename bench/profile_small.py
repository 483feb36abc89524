"""Where each microsecond of a small file goes: wall, CPU and a cProfile by area.

Usage::

    PYTHONPATH=src python bench/profile_small.py                 # http, http -Z 20, ftp
    PYTHONPATH=src python bench/profile_small.py --rows ftp-small --small 500 --repeat 5
    PYTHONPATH=src python bench/profile_small.py --to-disk       # -O into a directory

It starts the servers of ``bench/run.py`` (nginx, the vsftpd peer) on 127.0.0.1, runs the
``anyurl get`` command of each row ``--repeat`` times for its wall and CPU seconds (user
+ system, the child's), the same command with one URL for the fixed cost (start-up,
imports, the first connection), and once under cProfile. The profile's own time per
function (``tottime``) is summed by area (the file it is in) and scaled to the measured
CPU per URL: cProfile slows small functions more than big ones, so read the areas as
shares within about a factor of 1.5, not as timings. The table in ``bench/README.md``
is this script's output.
"""

from __future__ import annotations

import argparse
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from compiled import compile_anyurl  # bench/compiled.py
from nginx import start_nginx, stop_nginx  # bench/nginx.py
from run import add_small_files  # bench/run.py

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

#: Areas, first match wins: (name, substrings of a profiled function's file or name).
AREAS: list[tuple[str, tuple[str, ...]]] = [
    ("URL parse (anyurl.url)", ("anyurl/url/",)),
    ("resolver (admit, handler_for)", ("anyurl/resolver.py", "anyurl/net/routing.py",
                                       "anyurl/net/ports.py")),
    ("HTTP handler (request, Resource)", ("schemes/http/handler.py", "schemes/http/routes",
                                          "schemes/http/interfaces", "schemes/http/")),
    ("HTTP pipeline reader", ("schemes/http/pipeline.py",)),
    ("FTP handler and core", ("schemes/ftp/", "protocols/ftp.py", "protocols/replies.py")),
    ("downloader (jobs, batches, sink, .part)", ("anyurl/downloads/downloader.py",
                                                 "anyurl/downloads/output.py")),
    ("resource and options", ("anyurl/resource.py", "anyurl/options.py",
                              "anyurl/request.py", "anyurl/schemes/base.py")),
    ("CLI events, progress, --json", ("anyurl/cli/",)),
    ("transport (sockets)", ("anyurl/net/transport.py", "'send' of", "'recv' of",
                             "'recv_into' of", "'sendall' of", "'connect'")),
    ("event loop and anyio", ("asyncio/", "anyio/", "_weakrefset", "select.epoll",
                              "'run' of '_contextvars", "_asyncgen", "sniffio/",
                              "selectors.py", "weakref.py")),
    ("file system (open, write, rename)", ("posix.", "'write' of", "os.py", "pathlib",
                                           "built-in method posix")),
    ("imports and start-up", ("importlib", "<frozen", "marshal", "builtins.exec",
                              "__build_class__", "re/_", "dataclasses.py", "enum.py",
                              "typing.py", "argparse")),
]


#: The profiled child: cProfile timed by the process's CPU clock, not the wall clock. On
#: a loaded 2-core machine a ``send`` on loopback wakes the server, which may run first:
#: by the wall clock that time is the ``send``'s (147 µs a call in one FTP profile), by
#: the CPU clock it is nobody's of ours.
CHILD = """
import cProfile, runpy, sys, time
out = sys.argv[1]
sys.argv = ["anyurl", *sys.argv[4:]]  # after "-m anyurl"
prof = cProfile.Profile(time.process_time)
try:
    prof.runcall(runpy.run_module, "anyurl", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    if exc.code:
        raise
finally:
    prof.dump_stats(out)
"""


def area_of(func: tuple[str, int, str]) -> str:
    """The area of a pstats function key (file, line, name)."""
    text = f"{func[0]}:{func[2]}"
    for name, needles in AREAS:
        if any(n in text for n in needles):
            return name
    return "other"


def timed(argv: list[str], cwd: Path | None, src: str | None = None) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``argv`` (stdout to /dev/null), importing
    anyurl from ``src`` when given."""
    env = None if src is None else {**os.environ, "PYTHONPATH": src}
    started = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        proc = subprocess.Popen(argv, stdout=sink, stderr=subprocess.PIPE, cwd=cwd, env=env)
        assert proc.stderr is not None
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{argv[:6]} failed: {err.decode(errors='replace')[-400:]}")
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--small", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rows", default="http-small,http-z20,ftp-small")
    ap.add_argument("--to-disk", action="store_true", help="save with -O (the issue's budget)")
    ap.add_argument("--backend", default="asyncio")
    ap.add_argument("--baseline", metavar="SRC",
                    help="another anyurl (its src directory, e.g. a `git archive` of the "
                    "commit before) timed alternately with this one, as 'before'")
    args = ap.parse_args()
    compile_anyurl()
    from tests.peers import launcher

    root = Path(tempfile.mkdtemp(prefix="anyurl-prof-"))
    os.chmod(root, 0o755)
    rows = [r for r in args.rows.split(",") if r]
    need = ["vsftpd"] if "ftp-small" in rows else []
    nginx = None
    try:
        state = launcher.start(need, root / "peers", large_size=1 << 20, log=lambda *_: None)
        data_root = Path(state["data_root"])
        add_small_files(data_root, args.small, 0)
        nginx, [port] = start_nginx(root, data_root)
        names = [f"bench/small/f{i:05d}" for i in range(args.small)]
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load "
              f"{os.getloadavg()[0]:.2f}, {time.strftime('%Y-%m-%d %H:%M')}, "
              f"{args.small} files, {'-O to disk' if args.to_disk else 'to stdout'}")
        for row in rows:
            if row == "ftp-small":
                peer = state["peers"]["vsftpd"]
                urls = [f"ftp://{peer['host']}:{peer['port']}/{n}" for n in names]
            else:
                urls = [f"http://127.0.0.1:{port}/{n}" for n in names]
            extra = ["-Z", "20", "--per-host", "20"] if row == "http-z20" else []
            out = root / "out"
            if args.to_disk:
                extra += ["-O"]
            listing = root / "urls.txt"
            listing.write_text("\n".join(urls) + "\n")

            def argv(prefix: list[str], url_args: list[str],
                     extra: list[str] = extra) -> list[str]:
                return [*prefix, "-m", "anyurl", "get", "-s", "--backend", args.backend,
                        *extra, *url_args]

            def fresh(out: Path = out) -> Path | None:
                if not args.to_disk:
                    return None
                shutil.rmtree(out, ignore_errors=True)
                out.mkdir()
                return out

            walls, cpus, one_cpu = [], [], []
            base_walls, base_cpus, base_one = [], [], []
            for _ in range(args.repeat):
                w, c = timed(argv([sys.executable], ["-i", str(listing)]), fresh())
                walls.append(w)
                cpus.append(c)
                one_cpu.append(timed(argv([sys.executable], [urls[0]]), fresh())[1])
                if args.baseline:
                    w, c = timed(argv([sys.executable], ["-i", str(listing)]), fresh(),
                                 args.baseline)
                    base_walls.append(w)
                    base_cpus.append(c)
                    base_one.append(timed(argv([sys.executable], [urls[0]]), fresh(),
                                          args.baseline)[1])
            if args.baseline:
                b_wall, b_cpu, b_fixed = (statistics.median(base_walls),
                                          statistics.median(base_cpus),
                                          statistics.median(base_one))
                print(f"\n[{row}] before ({args.baseline}): wall {b_wall:.3f} s, CPU "
                      f"{b_cpu:.3f} s, one URL's CPU {b_fixed:.3f} s: "
                      f"{(b_cpu - b_fixed) / len(urls) * 1e6:.0f} us of CPU per URL")
            prof = root / f"{row}.prof"
            timed(argv([sys.executable, "-c", CHILD, str(prof)], ["-i", str(listing)]), fresh())
            wall, cpu, fixed = (statistics.median(walls), statistics.median(cpus),
                                statistics.median(one_cpu))
            per_url = (cpu - fixed) / len(urls) * 1e6
            print(f"\n[{row}] wall {wall:.3f} s, CPU {cpu:.3f} s, one URL's CPU {fixed:.3f} s:"
                  f" {per_url:.0f} us of CPU per URL beyond the fixed cost, "
                  f"wall - CPU {wall - cpu:+.3f} s")
            stats = pstats.Stats(str(prof))
            sums: dict[str, float] = {}
            raw = stats.stats  # type: ignore[attr-defined]
            for func, (_cc, _nc, tt, _ct, callers) in raw.items():
                area = area_of(func)
                if area == "other" and func[0] == "~" and callers:
                    # A builtin (len, str.lower, isinstance): its callers' time, shared
                    # in proportion to what each caller spent in it.
                    spent = sum(c[2] for c in callers.values()) or 1.0
                    for caller, c in callers.items():
                        name = area_of(caller)
                        sums[name] = sums.get(name, 0.0) + tt * c[2] / spent
                    continue
                sums[area] = sums.get(area, 0.0) + tt
            startup = sums.pop("imports and start-up", 0.0)
            total = sum(sums.values())
            print(f"{'area (cProfile tottime, start-up excluded)':44}{'share':>7}{'us/URL':>8}")
            for name, t in sorted(sums.items(), key=lambda kv: -kv[1]):
                print(f"{name:44}{t / total:7.0%}{t / total * per_url:8.0f}")
            print(f"{'(imports and start-up, profiled)':44}{'':7}{startup:7.2f}s")
    finally:
        if nginx is not None:
            stop_nginx(nginx)
        launcher.stop(root / "peers", log=lambda *_: None)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
