"""`anyurl demo` (README's first command) fetches a URL of every scheme and stops its servers."""

from __future__ import annotations

import re
import socket
import subprocess
import sys

SCHEMES = ["file", "http", "ftp", "gopher", "news", "nntp", "wais", "prospero", "telnet",
           "mailto"]


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def test_demo_fetches_every_scheme_and_leaves_nothing_running() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "anyurl", "demo"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, out + err
    assert "FAILED" not in out
    assert "skipped" not in out
    for scheme in SCHEMES:
        assert re.search(rf"^{scheme}\s+\S+:", out, re.MULTILINE), scheme
    assert re.search(r"13 URLs of 10 schemes fetched", out)
    assert "Hello from anyurl" in out
    assert "250" in out  # the SMTP server accepted the mailto: message
    ports = {name: int(port) for name, port in re.findall(r"^  (\w+)\s+port (\d+)$", out,
                                                         re.MULTILINE)}
    assert len(ports) == 8  # http ftp gopher nntp wais prospero telnet smtp
    for name, port in ports.items():
        if name != "prospero":  # UDP
            assert not _listening(port), f"{name} still listening on {port}"


def test_demo_on_trio() -> None:
    r = subprocess.run([sys.executable, "-m", "anyurl", "demo", "--backend", "trio"],
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "FAILED" not in r.stdout
