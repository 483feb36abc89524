"""The performance table of issue 13 in one run: anyurl against curl, as ratios.

Usage::

    python bench/run.py                    # every row, 3 paired runs, 1 GiB bodies
    python bench/run.py --size 256M --small 500 --repeat 5
    python bench/run.py --rows http-bulk,http-z20 --backends asyncio

It starts its own servers on 127.0.0.1 (nginx, and the vsftpd and gophernicus peers of
``tests/peers``, installed by ``scripts/install-peers.sh``) over a private temporary
directory, byte-compiles anyurl as an installed package would be, and for each row runs curl
and the ``anyurl`` command (once per anyio backend) alternately, so that drift of the machine
hits every client alike. Bodies go to this script's pipe-less stdout, ``/dev/null`` opened by
the parent (as ``> /dev/null`` in a shell): no client is given a device path to write.

It prints, per row and client: the median wall time, the ratio to curl's median, the median
CPU seconds (user + system of the client and its children) and its ratio to curl's, and the
peak resident set. The peak is GNU time's ``%M`` (``/usr/bin/time``, Debian's ``time``
package): a child forked straight from this Python process would report this process's own
RSS, which Linux keeps in ``ru_maxrss`` across ``execve``.

The rows are those of issue 13; ``--rows`` picks some of them:

=========== ===============================================================================
http-bulk   one ``--size`` body from nginx (Content-Length, no coding)
ftp-bulk    the same from vsftpd (TYPE I, passive)
ftps-bulk   the same from the vsftpd-tls peer: AUTH TLS, PROT P, the data connection in
            TLS resuming the control connection's session (``--ssl-reqd --cacert``)
gopher-bulk the same from gophernicus (item type 9)
http-small  ``--small`` 1 KiB files in one command, keep-alive
ftp-small   ``--small`` 1 KiB files in one command, one control connection reused
http-z20    ``--small`` 1 KiB files, ``-Z 20`` against ``curl -Z --parallel-max 20``
rss-z200    ``--many16k`` 16 KiB files saved with ``-O`` into a directory, ``-Z 200``
http-rtt20  ``--rtt-files`` 1 KiB files through ``bench/relay.py`` (10 ms each way, a
            20 ms round trip), both with their defaults: curl's one connection
http-rtt20-z the same against ``curl -Z --parallel-max 20`` (anyurl with its defaults)
mirror-rtt20 a page linking ``--rtt-files`` 1 KiB files through the relay: ``anyurl mirror``
            against ``wget -m -np``, each with its defaults (the ratios are to wget)
mirror-pydoc a real site: Debian's python3-doc (Python's documentation, 1,065 files, 530
            pages, Sphinx's CSS ``@import`` chain) from nginx with its MIME types:
            ``anyurl mirror`` against ``wget -m -np -p`` (ratios to wget; files saved)
mirror-ftpdoc an FTP archive: a copy of this machine's ``/usr/share/doc`` (thousands of
            files, directory and dangling symbolic links, dotfiles) served by vsftpd (no
            MLSD: ``LIST`` is read), ``anyurl mirror`` against ``wget -m -np``; then a
            refresh of both after ``--changed`` files grew (ratios to wget; files saved,
            FTP commands each run sent, by vsftpd's log)
dask        ``--dask-urls`` 4 KiB files over 8 nginx hosts fetched on Dask clusters of
            ``--dask-workers`` workers (``bench/scale_bench.py``): speed-ups over one worker,
            and the spread of URLs and CPU over the workers (needs ``anyurl[dask]``)
=========== ===============================================================================

The latency rows print how many connections the relay accepted from each client.

Timings are of this machine on this day: record them in ``bench/README.md`` with the date
and the machine, and never assert them in a test.
"""

from __future__ import annotations

import argparse
import collections
import filecmp
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from compiled import compile_anyurl  # bench/compiled.py
from nginx import parse_size, start_nginx, stop_nginx  # bench/nginx.py

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
# The anyurl measured is this checkout's, whatever another install (an editable one of
# an older clone) would give ``python -m anyurl``: its children inherit the path.
sys.path.insert(0, str(REPO / "src"))
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(REPO / "src"), *filter(None, [os.environ.get("PYTHONPATH")])])

GNU_TIME = "/usr/bin/time"

ROWS = ("http-bulk", "ftp-bulk", "ftps-bulk", "gopher-bulk", "http-small", "ftp-small", "http-z20",
        "rss-z200", "http-rtt20", "http-rtt20-z", "mirror-rtt20", "mirror-pydoc", "mirror-ftpdoc",
        "dask")
#: Where Debian's python3-doc puts Python's documentation (``python3.X``).
PYDOC = "/usr/share/doc/python3*/html"


@dataclass
class Client:
    name: str
    argv: list[str]
    #: a directory emptied before each run (files written with -O)
    scratch: Path | None = None
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    rss_kib: list[int] = field(default_factory=list)
    failed: str | None = None
    #: exit statuses that are a run done (a real site has broken links: wget's 8,
    #: anyurl's 22 for a 404)
    accept: frozenset[int] = frozenset({0})
    #: a vsftpd log (``log_ftp_protocol``): the FTP commands of each run are counted
    server_log: Path | None = None
    #: the commands of the last run, by verb
    commands: collections.Counter[str] = field(default_factory=collections.Counter)
    #: keep the scratch directory between runs (a refresh of the last run's mirror)
    keep: bool = False


def run_once(argv: list[str], cwd: Path | None, accept: frozenset[int] = frozenset({0})
             ) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds, peak RSS (KiB) and an error text ('' when it worked)."""
    fd, rss_file = tempfile.mkstemp(prefix="anyurl-bench-rss-")
    os.close(fd)
    timed = [GNU_TIME, "-f", "%M", "-o", rss_file, *argv] if os.path.exists(GNU_TIME) else argv
    started = time.perf_counter()
    with open(os.devnull, "wb") as sink:  # as `> /dev/null` in a shell
        proc = subprocess.Popen(timed, stdout=sink, stderr=subprocess.PIPE, cwd=cwd)
        assert proc.stderr is not None
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    try:
        text = Path(rss_file).read_text().split()
        rss = int(text[-1]) if text and text[-1].isdigit() else usage.ru_maxrss
    finally:
        os.unlink(rss_file)
    error = "" if proc.returncode in accept else (
        f"exit status {proc.returncode}: {err.decode(errors='replace')[-300:]}")
    return elapsed, usage.ru_utime + usage.ru_stime, rss, error


def measure(clients: list[Client], repeat: int) -> None:
    for i in range(repeat):
        for client in clients if i % 2 == 0 else list(reversed(clients)):
            run_client(client)


def run_client(client: Client) -> None:
    """One run of ``client`` (unless one failed before), its figures kept."""
    if client.failed:
        return
    if client.scratch is not None and not client.keep:
        shutil.rmtree(client.scratch, ignore_errors=True)
        client.scratch.mkdir(parents=True)
    log = client.server_log
    logged = log.stat().st_size if log is not None and log.exists() else 0
    wall, cpu, rss, error = run_once(client.argv, client.scratch, client.accept)
    if client.server_log is not None:
        client.commands = ftp_commands(client.server_log, logged)
    if error:
        client.failed = error
        return
    client.wall.append(wall)
    client.cpu.append(cpu)
    client.rss_kib.append(rss)


def report(row: str, title: str, clients: list[Client]) -> list[str]:
    """Print one row's table; return its lines for the summary."""
    base = clients[0]
    base_wall = statistics.median(base.wall) if base.wall else None
    base_cpu = statistics.median(base.cpu) if base.cpu else None
    lines = [f"\n[{row}] {title}",
             f"{'client':24}{'median s':>9}{'x curl':>8}{'cpu s':>8}{'cpu x':>7}"
             f"{'peak MiB':>10}  wall of each run"]
    for c in clients:
        if c.failed or not c.wall:
            lines.append(f"{c.name:24}  failed: {c.failed}")
            continue
        wall, cpu = statistics.median(c.wall), statistics.median(c.cpu)
        ratio = f"{wall / base_wall:8.2f}" if base_wall else f"{'':>8}"
        cpu_ratio = f"{cpu / base_cpu:7.2f}" if base_cpu else f"{'':>7}"
        runs = " ".join(f"{x:.2f}" for x in c.wall)
        lines.append(f"{c.name:24}{wall:9.3f}{ratio}{cpu:8.2f}{cpu_ratio}"
                     f"{max(c.rss_kib) / 1024:10.1f}  {runs}")
    print("\n".join(lines), flush=True)
    return lines


def anyurl(backend: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "anyurl", "get", "-s", "--backend", backend, *args]


def add_small_files(data_root: Path, small: int, many16k: int, rtt_files: int = 0) -> None:
    """`bench/small/fNNNNN` of 1 KiB and `bench/k16/fNNNNN` of 16 KiB, world-readable."""
    block = os.urandom(1 << 20)
    for sub, count, size in (("small", small, 1024), ("k16", many16k, 16384)):
        folder = data_root / "bench" / sub
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(count):
            start = (i * 4099) % (len(block) - size)
            (folder / f"f{i:05d}").write_bytes(block[start:start + size])
    # mirror-rtt20's site: a page linking rtt files of 1 KiB (no listing: nginx here has
    # no autoindex, and a page is what a mirror of a web site starts from)
    rtt = data_root / "bench" / "rtt"
    rtt.mkdir(parents=True, exist_ok=True)
    links = []
    for i in range(rtt_files):
        (rtt / f"f{i:05d}").write_bytes(block[i * 1031 % (len(block) - 1024):][:1024])
        links.append(f'<a href="f{i:05d}">f{i:05d}</a><br>')
    (rtt / "index.html").write_text("<html><body>\n" + "\n".join(links) + "\n</body></html>\n")
    for dirpath, _dirs, filenames in os.walk(data_root / "bench"):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            os.chmod(os.path.join(dirpath, name), 0o644)


def saved_files(scratch: Path) -> int:
    """Files a mirror saved under ``scratch`` (not anyurl's manifest, state and WARC)."""
    return sum(1 for p in scratch.rglob("*") if p.is_file()
               and p.name != "manifest.jsonl" and not p.name.startswith(".anyurl"))


def mirror_pydoc(root: Path, repeat: int) -> list[str]:
    """The mirror-pydoc row: python3-doc from its own nginx (Debian's MIME types), wget
    -m -np -p against anyurl mirror, each from the site's root, alternately."""
    docs = [p.resolve() for p in sorted(Path("/").glob(PYDOC.lstrip("/")))
            if (p / "_static" / "pydoctheme.css").is_file()]
    if not docs:
        raise SystemExit("python3-doc is not installed (scripts/install-peers.sh)")
    served = root / "pydoc-nginx"
    served.mkdir()
    nginx, [port] = start_nginx(served, docs[0], mime_types=True)
    try:
        start = f"http://127.0.0.1:{port}/"
        clients = [
            Client("wget -m -np -p", ["wget", "-q", "-m", "-np", "-p", start],
                   root / "out-wget-pydoc", accept=frozenset({0, 8})),
            Client("anyurl mirror", [sys.executable, "-m", "anyurl", "mirror", "-s", start,
                                     "-o", "site"], root / "out-mirror-pydoc",
                   accept=frozenset({0, 22}))]
        measure(clients, repeat)
    finally:
        stop_nginx(nginx)
    files = sum(1 for p in docs[0].rglob("*") if p.is_file())
    lines = report("mirror-pydoc", f"{docs[0]} ({files} files) from nginx: a real site, "
                   "each from its root (ratios to wget -m -np -p)", clients)
    counts = ", ".join(f"{c.name} {saved_files(c.scratch)}" for c in clients
                       if c.scratch is not None)
    lines.append(f"   files saved by the last run: {counts}")
    print(lines[-1], flush=True)
    return lines


def ftp_commands(log: Path, start: int) -> collections.Counter[str]:
    """The FTP commands vsftpd logged after byte ``start`` of its log, by verb."""
    marker = b'FTP command: Client "'
    counts: collections.Counter[str] = collections.Counter()
    with open(log, "rb") as f:
        f.seek(start)
        for line in f:
            at = line.find(marker)
            if at >= 0:
                rest = line[at + len(marker):].split(b'", "', 1)[-1]
                counts[rest.split(b" ", 1)[0].rstrip(b'"\n').decode(errors="replace")] += 1
    return counts


def _commands(client: Client) -> str:
    total = sum(client.commands.values())
    verbs = " ".join(f"{verb} {n}" for verb, n in client.commands.most_common())
    return f"{client.name}: {total} ({verbs})"


def _regular_files(tree: Path) -> list[Path]:
    """The regular files below ``tree``, no symbolic link followed."""
    return [Path(top, name) for top, _dirs, names in os.walk(tree) for name in names
            if os.path.isfile(os.path.join(top, name))
            and not os.path.islink(os.path.join(top, name))]


def _grow(tree: Path, count: int, round_: int) -> list[str]:
    """Append a line to ``count`` files spread over ``tree`` (a new size and time, as a
    changed file on an archive has); their paths below ``tree``."""
    files = sorted(_regular_files(tree))
    step = max(1, len(files) // max(1, count))
    grown = files[step // 2::step][:count]
    for path in grown:
        with open(path, "ab") as f:
            f.write(f"changed by bench/run.py, round {round_}\n".encode())
    return [os.fsdecode(p.relative_to(tree)) for p in grown]


def _ftpdoc_compare(tree: Path, wget_out: Path, mirror_out: Path) -> list[str]:
    """What each client saved of ``tree``: files, bytes equal to the served ones,
    symbolic links recorded (anyurl's manifest) or fetched as files (wget)."""
    lines = []
    for name, top in (("wget", wget_out), ("anyurl", mirror_out)):
        hosts = [p for p in top.glob("*/doc")] + [p for p in top.glob("site/ftp/*/doc")]
        if not hosts:
            lines.append(f"   {name}: nothing saved")
            continue
        saved = [p for p in _regular_files(hosts[0]) if p.name != ".listing"]
        same = differ = links = 0
        for p in saved:
            source = tree / p.relative_to(hosts[0])
            if source.is_symlink():
                links += 1
            if source.is_file() and filecmp.cmp(p, source, shallow=False):
                same += 1
            else:
                differ += 1
        lines.append(f"   {name}: {len(saved)} files (not .listing), {same} the same bytes "
                     f"as served, {differ} not, {links} saved through a symbolic link")
    manifest = mirror_out / "site" / "manifest.jsonl"
    if manifest.exists():
        kinds = collections.Counter(json.loads(line).get("kind")
                                    for line in manifest.read_text().splitlines())
        lines.append(f"   anyurl's manifest (all runs): {dict(kinds)}")
    return lines


def mirror_ftpdoc(root: Path, data_root: Path, ftp: str, server_log: Path, repeat: int,
                  changed: int) -> list[str]:
    """The mirror-ftpdoc row: a copy of /usr/share/doc served by vsftpd, ``wget -m -np``
    against ``anyurl mirror`` alternately; then ``repeat`` refreshes of both (the last
    mirror of each, kept) after ``changed`` files grew each time."""
    tree = data_root / "doc"
    if not tree.exists():
        subprocess.run(["cp", "-a", "/usr/share/doc", str(tree)], check=True)
    files = len(_regular_files(tree))
    links = sum(1 for top, dirs, names in os.walk(tree) for name in dirs + names
                if os.path.islink(os.path.join(top, name)))
    start = f"ftp://{ftp}/doc/"
    clients = [
        Client("wget -m -np", ["wget", "-q", "-m", "-np", start], root / "out-wget-ftpdoc",
               server_log=server_log),
        Client("anyurl mirror", [sys.executable, "-m", "anyurl", "mirror", "-s", start,
                                 "-o", "site"], root / "out-mirror-ftpdoc",
               server_log=server_log)]
    measure(clients, repeat)
    lines = report("mirror-ftpdoc", f"{start}: /usr/share/doc ({files} files, {links} "
                   "symbolic links) from vsftpd (ratios to wget -m -np)", clients)
    more = ["   FTP commands of the last run: " + "; ".join(map(_commands, clients)),
            *_ftpdoc_compare(tree, clients[0].scratch or root, clients[1].scratch or root)]
    print("\n".join(more), flush=True)
    lines.extend(more)
    for client in clients:  # the refresh runs start from the last mirror of each
        client.keep = True
        client.wall, client.cpu, client.rss_kib = [], [], []
    for i in range(repeat):  # both refresh after the same change, alternately first
        _grow(tree, changed, i)
        for client in clients if i % 2 == 0 else list(reversed(clients)):
            run_client(client)
    lines.extend(report("mirror-ftpdoc refresh", f"the same mirrors refreshed after "
                        f"{changed} files grew (ratios to wget)", clients))
    lines.append("   FTP commands of the last refresh: " + "; ".join(map(_commands, clients)))
    print("\n".join(lines[-1:]), flush=True)
    return lines


def real_tree_row(name: str, root: Path, state: dict, base: dict[str, str],
                  args: argparse.Namespace) -> list[str]:
    """The rows of a real tree against wget: mirror-pydoc (nginx) or mirror-ftpdoc."""
    if name == "mirror-pydoc":
        return mirror_pydoc(root, args.repeat)
    return mirror_ftpdoc(root, Path(state["data_root"]), base["vsftpd"],
                         Path(state["peers"]["vsftpd"]["logs"]["server"]), args.repeat,
                         args.changed)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", default="1G", help="bulk body size (default 1G)")
    ap.add_argument("--small", type=int, default=2000, help="small files (default 2000)")
    ap.add_argument("--many16k", type=int, default=2000,
                    help="16 KiB files for the -Z 200 memory row (default 2000)")
    ap.add_argument("--rtt-files", type=int, default=300,
                    help="1 KiB files of the latency rows (default 300)")
    ap.add_argument("--dask-urls", type=int, default=8000, help="files of the dask row")
    ap.add_argument("--dask-workers", default="1,2,8",
                    help="cluster sizes of the dask row, the first the reference")
    ap.add_argument("--changed", type=int, default=5,
                    help="files grown before each refresh of mirror-ftpdoc (default 5)")
    ap.add_argument("--repeat", type=int, default=3, help="paired runs per client")
    ap.add_argument("--backends", default="asyncio,trio")
    ap.add_argument("--rows", default=",".join(ROWS), help=f"some of {','.join(ROWS)}")
    args = ap.parse_args()
    rows = [r for r in args.rows.split(",") if r]
    unknown = set(rows) - set(ROWS)
    if unknown:
        ap.error(f"unknown rows: {', '.join(sorted(unknown))}")
    size = parse_size(args.size)
    backends = [b for b in args.backends.split(",") if b]
    if not shutil.which("curl"):
        raise SystemExit("curl is not installed (apt-get install curl)")

    compile_anyurl()
    from tests.peers import launcher

    root = Path(tempfile.mkdtemp(prefix="anyurl-bench-"))
    os.chmod(root, 0o755)
    need = [name for name, wanted in (("vsftpd", {"ftp-bulk", "ftp-small", "mirror-ftpdoc"}),
                                      ("vsftpd-tls", {"ftps-bulk"}),
                                      ("gophernicus", {"gopher-bulk"})) if wanted & set(rows)]
    nginx = None
    relay: subprocess.Popen[bytes] | None = None
    summary: list[str] = []
    try:
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, "
              f"{time.strftime('%Y-%m-%d %H:%M')}; starting servers in {root} ...", flush=True)
        state = launcher.start(need, root / "peers", large_size=size, log=lambda *_: None)
        data_root = Path(state["data_root"])
        add_small_files(data_root, max(args.small, args.rtt_files), args.many16k,
                        args.rtt_files)
        nginx, [port] = start_nginx(root, data_root)
        base = {"http": f"http://127.0.0.1:{port}/"}
        for name in need:
            peer = state["peers"][name]
            if peer["status"] != "running":
                raise SystemExit(f"{name}: {peer['error']}")
            base[name] = f"{peer['host']}:{peer['port']}"
        small = [f"bench/small/f{i:05d}" for i in range(max(args.small, args.rtt_files))]
        count_file = root / "relay-connections"
        if any(r.startswith(("http-rtt20", "mirror-rtt20")) for r in rows):
            relay_port = _free_port()
            relay = subprocess.Popen([sys.executable, str(Path(__file__).with_name("relay.py")),
                                      str(relay_port), "127.0.0.1", str(port), "10",
                                      str(count_file)])
            time.sleep(0.5)
        k16 = [f"bench/k16/f{i:05d}" for i in range(args.many16k)]

        def row(name: str, title: str, curl: list[str], ours: list[str],
                scratch: bool = False) -> None:
            clients = [Client("curl", ["curl", "-sS", *curl],
                              root / "out-curl" if scratch else None)]
            for b in backends:
                clients.append(Client(f"anyurl ({b})", anyurl(b, *ours),
                                      root / f"out-{b}" if scratch else None))
            measure(clients, args.repeat)
            summary.extend(report(name, title, clients))

        for name in rows:
            if name == "dask":
                from scale_bench import scale_rows  # bench/scale_bench.py

                print(f"\n== dask: {args.dask_urls} x 4 KiB over 8 hosts, clusters of "
                      f"{args.dask_workers} workers (speed-up over the first) ==", flush=True)
                lines = scale_rows(args.dask_urls, 8, 4096,
                                   [int(n) for n in args.dask_workers.split(",") if n])
                summary.extend([f"dask: {lines[0]}", *(f"   {line}" for line in lines[1:])])
                continue
            if name in ("mirror-pydoc", "mirror-ftpdoc"):
                summary.extend(real_tree_row(name, root, state, base, args))
                continue
            if name == "mirror-rtt20":
                start = f"http://127.0.0.1:{relay_port}/bench/rtt/index.html"
                clients = [
                    Client("wget -m", ["wget", "-q", "-m", "-np", start], root / "out-wget"),
                    Client("anyurl mirror", [sys.executable, "-m", "anyurl", "mirror", "-s",
                                             start, "-o", "site"], root / "out-mirror")]
                measure(clients, args.repeat)
                summary.extend(report(name, f"a page linking {args.rtt_files} x 1 KiB "
                                      "through a relay adding a 20 ms round trip, each "
                                      "with its defaults (ratios to wget -m)", clients))
                summary.append(f"   connections accepted by the relay in all: "
                               f"{count_file.read_text() if count_file.exists() else 0}")
                continue
            if name == "ftps-bulk":
                url = f"ftp://{base['vsftpd-tls']}/large.dat"
                tls = ["--ssl-reqd", "--cacert",
                       str(state["peers"]["vsftpd-tls"]["extra"]["cafile"])]
                row(name, f"{args.size} ftp body in TLS to stdout ({url})", [*tls, url],
                    [*tls, url])
            elif name.endswith("-bulk"):
                scheme = name.split("-")[0]
                url = {"http": base["http"] + "large.dat",
                       "ftp": f"ftp://{base.get('vsftpd')}/large.dat",
                       "gopher": f"gopher://{base.get('gophernicus')}/9/large.dat"}[scheme]
                row(name, f"{args.size} {scheme} body to stdout ({url})", [url], [url])
            elif name == "http-small":
                urls = [base["http"] + p for p in small]
                row(name, f"{args.small} x 1 KiB http, one command, keep-alive", urls, urls)
            elif name == "ftp-small":
                urls = [f"ftp://{base['vsftpd']}/{p}" for p in small]
                row(name, f"{args.small} x 1 KiB ftp, one command, reuse", urls, urls)
            elif name == "http-z20":
                urls = [base["http"] + p for p in small]
                row(name, f"{args.small} x 1 KiB http, -Z 20 against "
                    "curl -Z --parallel-max 20", ["-Z", "--parallel-max", "20", *urls],
                    ["-Z", "20", "--per-host", "20", *urls])
            elif name == "rss-z200":
                urls = [base["http"] + p for p in k16]
                row(name, f"{args.many16k} x 16 KiB http saved with -O, -Z 200 "
                    f"(goal: peak <= 64 MiB + 256 KiB x 200 = 114 MiB)",
                    ["-Z", "--parallel-max", "200", "--remote-name-all", *urls],
                    ["-Z", "200", "--per-host", "200", "-O", *urls], scratch=True)
            elif name.startswith("http-rtt20"):
                urls = [f"http://127.0.0.1:{relay_port}/{p}" for p in small[:args.rtt_files]]
                curl = ["-Z", "--parallel-max", "20", *urls] if name.endswith("-z") else urls
                row(name, f"{len(urls)} x 1 KiB http through a relay adding a 20 ms round "
                    "trip, " + ("curl -Z --parallel-max 20" if name.endswith("-z")
                                else "defaults"), curl, urls)
                summary.append(f"   connections accepted by the relay in all: "
                               f"{count_file.read_text() if count_file.exists() else 0}")
        print("\n== summary (" + time.strftime("%Y-%m-%d") + f", {os.cpu_count()} cpus, "
              f"median of {args.repeat}) ==")
        print("\n".join(summary))
    finally:
        if relay is not None:
            relay.kill()
            relay.wait()
        if nginx is not None:
            stop_nginx(nginx)
        launcher.stop(root / "peers", log=lambda *_: None)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
