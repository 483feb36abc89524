"""The benchmarks' private nginx: one config, started on free loopback ports, and stopped.

``bench/run.py``, ``bench/http_bench.py`` and ``bench/scale_bench.py`` serve their files
with it: ``sendfile`` and ``tcp_nopush`` as a production nginx has them, no access log,
keep-alive for a whole run, listening on 127.0.0.1 only.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

CONF = """
daemon off;
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    default_type application/octet-stream;
{types}    client_body_temp_path {root}/tmp;
    proxy_temp_path {root}/tmp;
    fastcgi_temp_path {root}/tmp;
    uwsgi_temp_path {root}/tmp;
    scgi_temp_path {root}/tmp;
    server {{
{listens}
        root {www};
    }}
}}
"""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def parse_size(text: str) -> int:
    """``1G``, ``64M``, ``512K`` or a number of bytes."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper().removesuffix("B").removesuffix("I")
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def start_nginx(root: Path, www: Path, hosts: int = 1, *, mime_types: bool = False
                ) -> tuple[subprocess.Popen[bytes], list[int]]:
    """nginx serving ``www`` on ``hosts`` free ports (config and logs in ``root``);
    returns once every port answers. Without ``mime_types`` only nginx's built-in types
    are known (``.html``, ``.gif``, ``.jpg``); with it, Debian's ``/etc/nginx/mime.types``
    (``.css`` is ``text/css``: a site's style sheets are read for their links)."""
    (root / "tmp").mkdir(exist_ok=True)
    ports = [free_port() for _ in range(hosts)]
    listens = "\n".join(f"        listen 127.0.0.1:{p} backlog=1024;" for p in ports)
    conf = root / "nginx.conf"
    types = "    include /etc/nginx/mime.types;\n" if mime_types else ""
    conf.write_text(CONF.format(root=root, www=www, listens=listens, types=types))
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    proc = subprocess.Popen([nginx, "-c", str(conf), "-p", str(root)],
                            stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            for port in ports:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return proc, ports
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("nginx did not start: is it installed (scripts/install-peers.sh)?")


def stop_nginx(proc: subprocess.Popen[bytes]) -> None:
    """A graceful stop (SIGQUIT), waited for."""
    proc.send_signal(signal.SIGQUIT)
    proc.wait(timeout=10)
