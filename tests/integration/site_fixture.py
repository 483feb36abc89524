"""A small styled web site on a real nginx, and its WARC file written by ``anyurl mirror``.

The site has what an archivist's replay must bring back: a page whose stylesheet
``@import``s another and paints a background image with ``url()``, an ``<img>``, a script,
a link to a second page (and one to a page that was never archived).

nginx is started here with Debian's ``/etc/nginx/mime.types`` rather than the peers' nginx
(tests/peers/servers.py), whose ``types`` map only ``.txt``, ``.html`` and ``.dat``: there a
stylesheet is ``application/octet-stream``, which a browser refuses to apply, and the
replay must serve each resource with the content type the site sent.
"""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.integration.test_serve import _env, stop

NGINX = "/usr/sbin/nginx"
MIME_TYPES = "/etc/nginx/mime.types"


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A PNG image of one colour (8-bit RGB), made by hand."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    row = b"\x00" + bytes(rgb) * width
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(row * height)) + chunk(b"IEND", b""))


INDEX = b"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>The archived site</title>
<link rel="stylesheet" href="css/site.css">
<script src="/js/app.js"></script>
</head>
<body>
<!-- a comment naming <img src="img/never.png"> is left as it is -->
<h1 id="title">Caf\xc3\xa9 &amp; friends</h1>
<div id="hero" class="hero">hero</div>
<img id="logo" src="img/logo.png" alt="logo" srcset="img/logo.png 1x">
<p><a id="second" href="page2.html">The second page</a>
<a id="missing" href="http://archived.invalid/never.html">never archived</a>
<a id="top" href="#title">top</a></p>
</body></html>
"""
PAGE2 = b"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Second page</title>
<link rel="stylesheet" href="css/site.css"></head>
<body><p id="back"><a href="index.html">back</a></p></body></html>
"""
SITE_CSS = b"""@import "theme.css";
/* url(../img/never.png) stays a comment */
.hero { background-image: url(../img/bg.png); height: 40px; width: 40px; }
"""
THEME_CSS = b"body { color: rgb(1, 2, 3); }\r\n"
APP_JS = b"document.documentElement.setAttribute('data-script', 'ran');\n"
LOGO = png(7, 5, (200, 30, 30))
BACKGROUND = png(4, 4, (30, 30, 200))

SITE: dict[str, bytes] = {
    "index.html": INDEX, "page2.html": PAGE2, "css/site.css": SITE_CSS,
    "css/theme.css": THEME_CSS, "js/app.js": APP_JS, "img/logo.png": LOGO,
    "img/bg.png": BACKGROUND,
}


@dataclass
class Site:
    """The running site and where its archive is."""

    base: str
    root: Path
    warc: Path

    def url(self, path: str) -> str:
        return self.base + path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_nginx(root: Path, prefix: Path) -> tuple[subprocess.Popen[bytes], int]:
    """nginx serving ``root`` on a free loopback port, in the foreground (no master:
    no user switch, so it reads a test's private directory)."""
    assert os.access(NGINX, os.X_OK), "nginx is installed with the peers (nginx-light)"
    assert os.path.isfile(MIME_TYPES), "Debian's nginx-common ships /etc/nginx/mime.types"
    port = _free_port()
    prefix.mkdir(parents=True, exist_ok=True)
    conf = prefix / "nginx.conf"
    conf.write_text(f"""daemon off;
master_process off;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log info;
events {{ worker_connections 64; }}
http {{
    include {MIME_TYPES};
    default_type application/octet-stream;
    access_log {prefix}/access.log;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    server {{ listen 127.0.0.1:{port}; root {root}; }}
}}
""")
    proc = subprocess.Popen([NGINX, "-p", f"{prefix}/", "-c", str(conf),
                             "-e", str(prefix / "error.log")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            assert proc.poll() is None, (prefix / "error.log").read_text()
            time.sleep(0.05)
    stop(proc)
    raise AssertionError("nginx did not listen")


def mirrored_site(where: Path) -> Iterator[Site]:
    """The site served, archived by ``anyurl mirror --warc --warc-cdx``, and stopped.

    The stylesheet's own references (``@import``, ``url()``) are given as start URLs too:
    the mirror's link extraction reads HTML only (CSS is being added in
    ``anyurl.schemes.http.html_links``), and what the replay is tested on here is the
    replay, whatever found the URLs.
    """
    root = where / "www"
    for name, blob in SITE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(blob)
    proc, port = start_nginx(root, where / "nginx")
    try:
        base = f"http://127.0.0.1:{port}/"
        warc = where / "m" / "site.warc.gz"
        done = subprocess.run(
            [sys.executable, "-m", "anyurl", "mirror", "-s", "--wait", "0", "-o",
             str(where / "m"), "--warc", str(warc), "--warc-cdx", base + "index.html",
             base + "css/theme.css", base + "img/bg.png"],
            capture_output=True, timeout=120, env=_env(), stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stderr.decode()
    finally:
        stop(proc)
    # The site is gone: whatever the replay shows comes from the archive.
    yield Site(base, root, warc)
