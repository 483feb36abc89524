"""The fixed cost of the ``anyurl`` command: Python's start, imports, one small fetch.

Usage::

    PYTHONPATH=src python bench/startup.py                        # medians of 7
    PYTHONPATH=src python bench/startup.py --repeat 15
    PYTHONPATH=src python bench/startup.py --baseline /tmp/before/src  # A/B, alternating

It starts the private nginx of ``bench/run.py`` on 127.0.0.1 with one 1 KiB file,
byte-compiles anyurl as an installed package is (``bench/compiled.py``), and times, each
``--repeat`` times and alternately (so that drift of the machine hits every command
alike): ``python -c pass`` (the floor: Python and this machine's ``site``), a bare GET of
the file on anyio and h11 with nothing of anyurl (the floor of the stack anyurl is built
on), ``python -m anyurl --version``, ``python -m anyurl get -s URL`` of the 1 KiB file,
and ``curl -sS URL``. Bodies go to ``/dev/null``. Wall and CPU seconds (user + system,
of the child, from ``wait4``: microseconds, where GNU time rounds to 10 ms) are medians;
``least`` is the smallest CPU time, steadier than the median on a loaded machine.

It then prints how many modules each Python command leaves in ``sys.modules`` and the
anyurl modules (and the heavy ones of ``HEAVY``) a plain ``get`` imported: what
``tests/unit/test_startup.py`` guards without timing.

Every figure includes what this interpreter's ``site`` runs at start. It times ``python
-S -c pass`` too (no ``site``) and lists the ``.pth`` files of its site directories that
import code: an interpreter whose ``site-packages`` holds such files (a sandbox's
certificate hook importing certifi, an editable install's finder) costs more at every
start than the venv of a user's install, and the difference says how much. Run it on a
clean venv (``python -m venv``, ``pip install -e .``) for a user's figures.

Timings are of this machine on this day: record them in ``bench/README.md`` with the date,
the machine and its load, and never assert them in a test.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from compiled import compile_anyurl  # bench/compiled.py
from nginx import start_nginx, stop_nginx  # bench/nginx.py

#: Modules a plain ``get`` of one http URL has no use for (see tests/unit/test_startup.py).
HEAVY = ("email", "http.cookiejar", "html.parser", "json", "rich", "warcio", "h2",
         "difflib", "hashlib", "mimetypes", "secrets", "anyurl.downloads.warc",
         "anyurl.schemes.ftp", "anyurl.schemes.gopher", "anyurl.schemes.news")

#: The stack's floor: one GET on anyio and h11 with nothing of anyurl (argv: port, path).
FLOOR = """
import sys
import anyio, h11

async def main(port, path):
    async with await anyio.connect_tcp("127.0.0.1", port) as s:
        c = h11.Connection(h11.CLIENT)
        await s.send(c.send(h11.Request(method="GET", target=path, headers=[("Host", "x")]))
                     + c.send(h11.EndOfMessage()))
        while True:
            e = c.next_event()
            if e is h11.NEED_DATA:
                c.receive_data(await s.receive())
            elif isinstance(e, h11.Data):
                sys.stdout.buffer.write(e.data)
            elif isinstance(e, h11.EndOfMessage):
                break

anyio.run(main, int(sys.argv[1]), sys.argv[2])
"""

#: Run in a child: a command's run, then its module count and names on stderr.
COUNT = """
import sys
sys.argv = ["anyurl", *sys.argv[1:]]
from anyurl.cli.main import main
try:
    main()
finally:
    print(len(sys.modules), " ".join(sorted(sys.modules)), file=sys.stderr)
"""


def importing_pth_files() -> list[str]:
    """The ``.pth`` files of this interpreter's site directories that run an import at
    every start (``site`` executes their lines beginning with ``import``), each with its
    first such line."""
    import site

    found = []
    for directory in [*site.getsitepackages(), site.getusersitepackages()]:
        if not Path(directory).is_dir():
            continue
        for pth in sorted(Path(directory).glob("*.pth")):
            lines = [line for line in pth.read_text(errors="replace").splitlines()
                     if line.startswith(("import ", "import\t"))]
            if lines:
                found.append(f"{pth}: {lines[0][:70]}")
    return found


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one run, stdout to /dev/null."""
    started = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        proc = subprocess.Popen(argv, stdout=sink, stderr=subprocess.PIPE, env=env)
        assert proc.stderr is not None
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {err.decode(errors='replace')[-300:]}")
    return wall, usage.ru_utime + usage.ru_stime


def modules_after(args: list[str], env: dict[str, str]) -> list[str]:
    """The names in ``sys.modules`` after ``anyurl ARGS`` ran (``[]``: ``-c pass``)."""
    code = COUNT if args else ("import sys; print(len(sys.modules), "
                               "' '.join(sorted(sys.modules)), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code, *args], env=env, check=True,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return proc.stderr.strip().splitlines()[-1].split()[1:]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=7, help="runs per command (default 7)")
    ap.add_argument("--baseline", metavar="SRC",
                    help="another anyurl source tree (its src/) timed alternately with this one")
    args = ap.parse_args()
    if not shutil.which("curl"):
        raise SystemExit("curl is not installed (apt-get install curl)")
    compile_anyurl()
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: the .pyc files are used
    base_env = None
    if args.baseline:
        import compileall

        compileall.compile_dir(str(Path(args.baseline) / "anyurl"), quiet=1)
        base_env = dict(env, PYTHONPATH=args.baseline)

    root = Path(tempfile.mkdtemp(prefix="anyurl-startup-"))
    os.chmod(root, 0o755)
    www = root / "www"
    www.mkdir()
    os.chmod(www, 0o755)
    (www / "bin1k.dat").write_bytes(os.urandom(1024))
    os.chmod(www / "bin1k.dat", 0o644)
    nginx = None
    try:
        nginx, [port] = start_nginx(root, www)
        url = f"http://127.0.0.1:{port}/bin1k.dat"
        py = sys.executable
        commands: list[tuple[str, list[str], dict[str, str]]] = [
            ("python -S -c pass", [py, "-S", "-c", "pass"], env),
            ("python -c pass", [py, "-c", "pass"], env),
            ("anyio+h11 GET (floor)", [py, "-c", FLOOR, str(port), "/bin1k.dat"], env),
            ("anyurl --version", [py, "-m", "anyurl", "--version"], env),
            ("anyurl get -s URL", [py, "-m", "anyurl", "get", "-s", url], env),
            ("curl -sS URL", ["curl", "-sS", url], env),
        ]
        if base_env is not None:
            commands[-1:-1] = [
                ("before: --version", [py, "-m", "anyurl", "--version"], base_env),
                ("before: get -s URL", [py, "-m", "anyurl", "get", "-s", url], base_env)]
        times: dict[str, tuple[list[float], list[float]]] = {c[0]: ([], []) for c in commands}
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
              f"{time.strftime('%Y-%m-%d %H:%M')}; {args.repeat} runs each", flush=True)
        for _ in range(2):  # warm the page cache and nginx
            for _name, argv, e in commands:
                run_once(argv, e)
        for i in range(args.repeat):
            for name, argv, e in (commands if i % 2 == 0 else reversed(commands)):
                wall, cpu = run_once(argv, e)
                times[name][0].append(wall)
                times[name][1].append(cpu)
        floor = statistics.median(times["python -c pass"][1])
        print(f"\n{'command':22}{'wall s':>9}{'CPU s':>9}{'least':>8}{'CPU - python':>14}"
              "  CPU of each run")
        for name, (walls, cpus) in times.items():
            cpu = statistics.median(cpus)
            extra = (f"{cpu - floor:14.3f}" if name not in ("curl -sS URL", "python -S -c pass")
                     else f"{'':>14}")
            print(f"{name:22}{statistics.median(walls):9.3f}{cpu:9.3f}{min(cpus):8.3f}{extra}  "
                  + " ".join(f"{c:.3f}" for c in cpus))
        site_cost = floor - statistics.median(times["python -S -c pass"][1])
        pth = importing_pth_files()
        print(f"\nsite: {site_cost:.3f} s of CPU at every start of this interpreter "
              "(python -c pass - python -S -c pass)")
        if pth:
            print("  .pth files that import at start (their cost is in every row above; a "
                  "fresh venv has setuptools' distutils-precedence.pth, which costs "
                  "nothing, and an editable install's finder):")
            for line in pth:
                print(f"    {line}")
        else:
            print("  no .pth file imports at start: a venv's site, as a user's install has")
        print()
        plain = modules_after([], env)
        for label, a, e in [("python -c pass", [], env),
                            ("anyurl --version", ["--version"], env),
                            ("anyurl get -s URL", ["get", "-s", url], env),
                            *([("before: get -s URL", ["get", "-s", url], base_env)]
                              if base_env is not None else [])]:
            names = modules_after(a, e) if a else plain
            ours = [n for n in names if n == "anyurl" or n.startswith("anyurl.")]
            print(f"modules after {label:20} {len(names):4d} ({len(set(names) - set(plain))} "
                  f"more than python, {len(ours)} of anyurl)")
            if a and a[0] == "get":
                heavy = [h for h in HEAVY if h in names]
                print(f"    heavy modules imported: {', '.join(heavy) or 'none'}")
                print(f"    anyurl modules: {' '.join(n.removeprefix('anyurl.') for n in ours)}")
    finally:
        if nginx is not None:
            stop_nginx(nginx)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
