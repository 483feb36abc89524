"""`anyurl get` and `anyurl mirror` against servers whose numbers are other scripts'
digits (anyurl.testing.hostile_numbers): a protocol error or the field ignored, one line
on stderr, never the internal error (exit 1, "internal error").
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from anyurl.testing.hostile import HostileServer
from anyurl.testing.hostile_numbers import BEHAVIOURS
from tests.cli.test_get_cli import _env


def _anyurl(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "anyurl", *args], capture_output=True,
                          stdin=subprocess.DEVNULL, env=_env(), timeout=120)


def _no_internal_error(r: subprocess.CompletedProcess[bytes]) -> None:
    assert b"internal error" not in r.stderr, r.stderr
    assert b"Traceback" not in r.stderr, r.stderr


@pytest.mark.parametrize(("name", "extra", "code"), [
    pytest.param("gopher-port-superscript", ["--render"], 0, id="gopher-menu-port"),
    pytest.param("http-status-superscript", [], 8, id="http-status-2²0"),
    pytest.param("http-retry-after-superscript", ["--retry", "1", "--retry-max-delay", "0.2"],
                 22, id="http-retry-after-²"),
    pytest.param("nntp-code-superscript", [], 8, id="nntp-greeting-2²0"),
])
def test_get(name: str, extra: list[str], code: int) -> None:
    with HostileServer(BEHAVIOURS[name]) as server:
        r = _anyurl("get", "--allow-port", str(server.port), "--connect-timeout", "5",
                    "--max-time", "30", "-o", "-", *extra, server.url)
    _no_internal_error(r)
    assert r.returncode == code, r.stderr
    if name == "gopher-port-superscript":
        # the item with a bad port is shown as text, not as a link to port 2 or 3
        assert b"Good" in r.stdout and b":2/" not in r.stdout and b":3/" not in r.stdout


def test_mirror_of_a_menu_with_a_superscript_port(tmp_path: Path) -> None:
    """The good item is fetched, the others are no links; a resume finds nothing to do
    and does not stop either."""
    out = tmp_path / "hole"
    with HostileServer(BEHAVIOURS["gopher-port-superscript"]) as server:
        first = _anyurl("mirror", "--wait", "0", "-o", str(out), "--no-robots",
                        "--allow-port", str(server.port), server.url)
        again = _anyurl("mirror", "--wait", "0", "-o", str(out), "--allow-port",
                        str(server.port))
    for r in (first, again):
        _no_internal_error(r)
        assert r.returncode == 0, r.stderr
    good = [p for p in out.rglob("good*") if p.is_file()]
    assert good and good[0].read_bytes().startswith(b"hello")


def test_mirror_with_a_superscript_crawl_delay(tmp_path: Path) -> None:
    """robots.txt's ``Crawl-delay: ²`` is ignored (as any other non-number); the file it
    is kept in does not stop the resume either."""
    out = tmp_path / "site"
    with HostileServer(BEHAVIOURS["http-robots-superscript"]) as server:
        first = _anyurl("mirror", "--wait", "0", "-o", str(out), "--allow-port",
                        str(server.port), server.url)
        again = _anyurl("mirror", "--wait", "0", "-o", str(out), "--allow-port",
                        str(server.port))
    for r in (first, again):
        _no_internal_error(r)
        assert r.returncode == 0, r.stderr
    assert [p.read_bytes() for p in out.rglob("a.txt")] == [b"a\n"]


def test_get_of_several_urls_pipelined_with_a_superscript_status(tmp_path: Path) -> None:
    """Several URLs of one host go as a pipelined batch, whose own reader parses the
    status line (a single URL's goes through h11)."""
    with HostileServer(BEHAVIOURS["http-status-superscript"]) as server:
        urls = [f"http://127.0.0.1:{server.port}/{n}" for n in range(3)]
        r = _anyurl("get", "--allow-port", str(server.port), "--connect-timeout", "5",
                    "--max-time", "30", "--output-dir", str(tmp_path), "-O", *urls)
    _no_internal_error(r)
    assert r.returncode == 8, r.stderr
