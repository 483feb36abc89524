"""Many small https files from one nginx: HTTP/2 multiplexed, HTTP/1.1 pipelined, curl.

    python bench/h2_batch.py                 # 2,000 x 1 KiB, one run of each client
    python bench/h2_batch.py --files 500 --size 4K --repeat 3
    python bench/h2_batch.py --files 300 --rtt 20   # through bench/relay.py

It starts a private nginx on 127.0.0.1 with a throw-away self-signed certificate and two
TLS listeners (``ssl http2``, and ``ssl`` only), writes the files, then runs each client
as one command over the whole list, bodies to stdout (a file, whose size is checked):

* ``anyurl get`` (default: the batch offers h2 by ALPN and multiplexes, issue 21),
* ``anyurl get --http1.1`` (HTTP/1.1 pipelined on the same listener),
* ``curl --http2`` (one connection, one stream after another) and ``curl --http2 -Z``
  (parallel: curl multiplexes its transfers on one connection).

For each: wall seconds, CPU seconds of the process (user + system) and the connections
nginx saw (its access log, ``$connection``). One process per run; the load average is
printed with the results so a row can be read against the machine's state.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from nginx import free_port, parse_size

REPO = Path(__file__).resolve().parents[1]

CONF = """
daemon off;
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log;
events {{ worker_connections 1024; }}
http {{
    log_format conn '$connection $server_protocol';
    access_log {root}/access.log conn;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    default_type application/octet-stream;
    client_body_temp_path {root}/tmp;
    proxy_temp_path {root}/tmp;
    fastcgi_temp_path {root}/tmp;
    uwsgi_temp_path {root}/tmp;
    scgi_temp_path {root}/tmp;
    ssl_certificate {root}/cert.pem;
    ssl_certificate_key {root}/key.pem;
    server {{
        listen 127.0.0.1:{h2} ssl http2;
        listen 127.0.0.1:{h1} ssl;
        root {root}/www;
    }}
}}
"""


def start(root: Path, files: int, size: int) -> tuple[subprocess.Popen[bytes], int, int]:
    www = root / "www"
    (www / "s").mkdir(parents=True)
    (root / "tmp").mkdir()
    for path in (root, www, www / "s"):
        path.chmod(0o755)
    for i in range(files):
        (www / "s" / f"f{i:05d}").write_bytes(bytes([65 + i % 26]) * size)
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(root / "key.pem"), "-out", str(root / "cert.pem")],
        check=True, capture_output=True)
    h2, h1 = free_port(), free_port()
    (root / "nginx.conf").write_text(CONF.format(root=root, h2=h2, h1=h1))
    proc = subprocess.Popen(["nginx", "-c", str(root / "nginx.conf"), "-p", str(root)])
    import socket

    for _ in range(200):
        try:
            for port in (h1, h2):
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            break
        except OSError:
            time.sleep(0.05)
    return proc, h2, h1


def run(argv: list[str], out: Path, log: Path) -> tuple[float, float, int, set[str]]:
    """(wall s, CPU s, bytes written, connections seen by nginx) of one command."""
    seen = len(log.read_text().splitlines()) if log.exists() else 0
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    with out.open("wb") as f:
        subprocess.run(argv, stdout=f, stderr=subprocess.DEVNULL, check=True, cwd=REPO)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = log.read_text().splitlines()[seen:]
    connections = {line.split()[0] + " " + line.split()[1] for line in lines}
    return wall, cpu, out.stat().st_size, connections


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--files", type=int, default=2000)
    p.add_argument("--size", default="1K")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--rtt", type=float, default=0.0, metavar="MS",
                   help="reach nginx through bench/relay.py, adding this round trip")
    args = p.parse_args()
    size = parse_size(args.size)
    root = Path(tempfile.mkdtemp(prefix="anyurl-h2bench-", dir="/tmp"))
    proc, h2, _h1 = start(root, args.files, size)
    env_path = str(REPO / "src")
    os.environ["PYTHONPATH"] = env_path + os.pathsep + os.environ.get("PYTHONPATH", "")
    relay = None
    port = h2
    try:
        if args.rtt:
            import socket

            port = free_port()
            relay = subprocess.Popen([sys.executable, str(REPO / "bench" / "relay.py"),
                                      str(port), "127.0.0.1", str(h2), str(args.rtt / 2)])
            for _ in range(200):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                    break
                except OSError:
                    time.sleep(0.05)
        cert = str(root / "cert.pem")
        urls = [f"https://127.0.0.1:{port}/s/f{i:05d}" for i in range(args.files)]
        listing = root / "urls.txt"
        listing.write_text("\n".join(urls) + "\n")
        anyurl = [sys.executable, "-m", "anyurl", "get", "-s", "--cacert", cert]
        curl = ["curl", "-s", "--cacert", cert]
        clients = {
            "anyurl (h2 multiplexed)": [*anyurl, "-i", str(listing)],
            "anyurl --http1.1 (pipelined)": [*anyurl, "--http1.1", "-i", str(listing)],
            "curl --http2 (one connection, serial)": [*curl, "--http2", *urls],
            "curl --http2 -Z (multiplexed)": [*curl, "--http2", "-Z", "--parallel-max",
                                              "64", *urls],
        }
        out = root / "out"
        log = root / "access.log"
        rtt = f", {args.rtt:g} ms round trip (relay)" if args.rtt else ""
        print(f"{args.files} x {size} B over https from nginx{rtt}, load average "
              f"{os.getloadavg()[0]:.2f}, {time.strftime('%Y-%m-%d %H:%M')}")
        print(f"{'client':40} {'wall s':>8} {'CPU s':>8} {'conns':>6}  protocols")
        for name, argv in clients.items():
            for _ in range(args.repeat):
                wall, cpu, written, conns = run(argv, out, log)
                assert written == args.files * size, (name, written)
                protocols = sorted({c.split()[1] for c in conns})
                print(f"{name:40} {wall:8.3f} {cpu:8.3f} {len(conns):6d}  "
                      f"{','.join(protocols)}")
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    finally:
        if relay is not None:
            relay.terminate()
            relay.wait(timeout=10)
        proc.terminate()
        proc.wait(timeout=10)
        import shutil

        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
