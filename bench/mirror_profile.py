"""Where a mirror of many small files spends its time: wall, CPU and a cProfile.

Usage::

    PYTHONPATH=src python bench/mirror_profile.py                 # loopback, 300 files
    PYTHONPATH=src python bench/mirror_profile.py --rtt-ms 20     # through bench/relay.py
    PYTHONPATH=src python bench/mirror_profile.py --files 1000 --repeat 5 --top 40
    PYTHONPATH=src python bench/mirror_profile.py --pydoc         # python3-doc, a real site

It serves ``bench/rtt/index.html`` (a page linking ``--files`` files of 1 KiB, as
``bench/run.py``'s mirror-rtt20 row does) from nginx on 127.0.0.1, optionally through the
relay, runs ``anyurl mirror -s`` (the anyurl on ``PYTHONPATH``, byte-compiled first) of
it ``--repeat`` times into a fresh directory (median wall and CPU, user + system of the
child), then once in this process under cProfile with the process clock
(``time.process_time``): the functions with the most own time, and the count of a few
calls that cost per file (``open``, SQLite statements, thread hops). The relay prints
how many connections the mirror opened. ``--pydoc`` mirrors Debian's python3-doc instead
(``bench/run.py``'s mirror-pydoc row: 1,065 files, 530 pages, nginx with its MIME types),
from the site's root. Read the profile as shares: cProfile slows small
functions more than big ones.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from compiled import compile_anyurl  # bench/compiled.py
from nginx import free_port, start_nginx, stop_nginx  # bench/nginx.py
from run import PYDOC, add_small_files  # bench/run.py

REPO = Path(__file__).resolve().parents[1]


def timed(broken_links: bool, argv: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one child run (exit 22, a 404 in the
    crawl, is a run done when the site has ``broken_links``)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run(argv, cwd=cwd, check=False, stdout=subprocess.DEVNULL)
    if done.returncode not in ((0, 22) if broken_links else (0,)):
        raise SystemExit(f"the mirror failed: exit status {done.returncode}")
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rtt-ms", type=float, default=0.0,
                        help="a round trip added by bench/relay.py (half each way)")
    parser.add_argument("--pydoc", action="store_true",
                        help="mirror python3-doc (the mirror-pydoc row's site)")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument("--save", metavar="FILE", help="also write the profile (pstats)")
    args = parser.parse_args()
    compile_anyurl()  # the anyurl on PYTHONPATH, as bench/run.py does
    root = Path(tempfile.mkdtemp(prefix="anyurl-mirror-profile-"))
    root.chmod(0o755)  # nginx's workers read www as another user
    relay: subprocess.Popen[bytes] | None = None
    nginx = None
    try:
        if args.pydoc:
            www = next(p.resolve() for p in sorted(Path("/").glob(PYDOC.lstrip("/")))
                       if (p / "_static" / "pydoctheme.css").is_file())
            args.files = sum(1 for p in www.rglob("*") if p.is_file())
        else:
            www = root / "www"
            add_small_files(www, 0, 0, args.files)
        nginx, (port,) = start_nginx(root, www, mime_types=args.pydoc)
        if args.rtt_ms:
            relay_port = free_port()
            relay = subprocess.Popen([sys.executable, str(Path(__file__).with_name("relay.py")),
                                      str(relay_port), "127.0.0.1", str(port),
                                      str(args.rtt_ms / 2), str(root / "connections")])
            time.sleep(0.5)
            port = relay_port
        start = f"http://127.0.0.1:{port}/" if args.pydoc \
            else f"http://127.0.0.1:{port}/bench/rtt/index.html"
        import anyurl

        env_src = str(Path(anyurl.__file__).parents[1])
        walls, cpus = [], []
        for _ in range(args.repeat):
            out = root / "out"
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir()
            wall, cpu = timed(args.pydoc, [sys.executable, "-c",
                               f"import sys; sys.path.insert(0, {env_src!r}); "
                               "from anyurl.cli.main import main; sys.exit(main())",
                               "mirror", "-s", start, "-o", "site"], out)
            walls.append(wall)
            cpus.append(cpu)
            files = sum(1 for _ in (out / "site").rglob("f0*"))
            if not args.pydoc and files != args.files:
                raise SystemExit(f"the mirror saved {files} of {args.files} files")
        what = f"python3-doc ({args.files} files)" if args.pydoc else f"{args.files} x 1 KiB"
        print(f"anyurl mirror of {what}"
              f"{f' at a {args.rtt_ms:g} ms round trip' if args.rtt_ms else ', loopback'}: "
              f"wall {statistics.median(walls):.3f} s, CPU {statistics.median(cpus):.3f} s "
              f"(median of {args.repeat}; {statistics.median(cpus) / args.files * 1e6:.0f} "
              "us of CPU a file with start-up)")
        if relay is not None:
            print(f"connections accepted by the relay in all: "
                  f"{(root / 'connections').read_text()}")
        if args.no_profile:
            return
        sys.path.insert(0, env_src)
        from anyurl.cli.main import main as cli_main

        out = root / "out-profile"
        out.mkdir()
        os.chdir(out)
        profile = cProfile.Profile(time.process_time)
        profile.enable()
        try:
            cli_main(["mirror", "-s", start, "-o", "site"])
        except SystemExit:
            pass
        profile.disable()
        if args.save:
            profile.dump_stats(args.save)
        text = io.StringIO()
        stats = pstats.Stats(profile, stream=text)
        stats.sort_stats("tottime").print_stats(args.top)
        print(text.getvalue())
        counted = {"open": 0, "execute": 0, "run_sync": 0, "__fspath__": 0, "_parse_path": 0}
        for (_file, _line, name), (_cc, nc, _tt, _ct, _callers) in \
                stats.stats.items():  # type: ignore[attr-defined]
            for key in counted:
                if name == key or name.endswith(f" '{key}' of") or f"'{key}'" in name \
                        or name == f"<built-in method posix.{key}>" \
                        or name == f"<method '{key}' of 'sqlite3.Connection' objects>":
                    counted[key] += nc
        print("calls per file:", ", ".join(f"{k} {v / args.files:.1f}"
                                           for k, v in counted.items()))
    finally:
        if relay is not None:
            relay.kill()
            relay.wait()
        if nginx is not None:
            stop_nginx(nginx)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
