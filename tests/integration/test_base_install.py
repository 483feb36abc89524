"""What ``pip install anyurl`` gives: the base dependencies and nothing else.

The development machine and CI have every extra installed (and what those pull in, e.g.
trio's sniffio), so an import the base install cannot satisfy passes every other test:
the FTP reader once imported sniffio, which anyio no longer depends on, and a fresh
venv's ``anyurl get ftp://...`` failed with an internal error. Here the base
dependencies of ``pyproject.toml`` are installed (``pip install --target``) into a
temporary directory, and the command runs on them alone: ``python -I -S`` (no
site-packages), the directory and the source tree on ``sys.path``, against the real
servers of each scheme the base install speaks.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.peers import data
from tests.peers.table import NEWS_GROUP

pytestmark = [pytest.mark.integration]

REPO = Path(__file__).resolve().parents[2]

#: Runs the command with only the standard library, the base dependencies and anyurl.
RUN = """
import sys
sys.path[:0] = [{site!r}, {src!r}]
from anyurl.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture(scope="module")
def base_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("base-site")
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
         "--no-compile", "--target", str(site), *project["dependencies"]],
        capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        pytest.fail(f"pip could not install the base dependencies: {done.stderr[-800:]}",
                    pytrace=False)
    return site


def _anyurl(site: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    code = RUN.format(site=str(site), src=str(REPO / "src"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["NETRC"] = os.devnull
    return subprocess.run([sys.executable, "-I", "-S", "-c", code, *args],
                          capture_output=True, timeout=120, env=env)


def test_the_base_install_has_no_extra(base_site: Path) -> None:
    """The directory holds the base dependencies, not trio, sniffio or rich."""
    names = {p.name.split("-")[0].lower() for p in base_site.iterdir()}
    assert "anyio" in names and "h11" in names
    assert not names & {"trio", "sniffio", "rich", "h2", "warcio"}


@pytest.mark.parametrize("peer", ["vsftpd", "nginx", "gophernicus", "leafnode"])
def test_the_base_install_fetches_each_scheme(base_site: Path, peers: Any,
                                              peer: str) -> None:
    info = peers[peer]
    if peer == "gophernicus":
        # gophernicus sends a text file's lines with CR LF (RFC 1436), as test_gopher says
        url, expected = info.url("0/hello.txt"), data.HELLO_TEXT.replace(b"\n", b"\r\n")
    elif peer == "leafnode":  # an article, by its group and number
        url, expected = f"nntp://{info.hostport}/{NEWS_GROUP}/1", None
    else:
        url, expected = info.url("hello.txt"), data.HELLO_TEXT
    done = _anyurl(base_site, "get", "-sS", url)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    if expected is None:
        assert f"Message-ID: {data.news_message_id(1)}".encode() in done.stdout
    else:
        assert done.stdout == expected


def test_the_base_install_reads_a_file_url(base_site: Path, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"here\n")
    done = _anyurl(base_site, "get", "-sS", path.as_uri())
    assert (done.returncode, done.stdout) == (0, b"here\n"), done.stderr


@pytest.mark.parametrize("args", [["--help"], ["get", "--help"], ["mirror", "--help"],
                                  ["parse", "--json", "ftp://h/a;type=d"]])
def test_the_base_install_runs_the_command(base_site: Path, args: list[str]) -> None:
    done = _anyurl(base_site, *args)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert done.stdout


def test_the_base_install_mirrors(base_site: Path, peers: Any, tmp_path: Path) -> None:
    """``anyurl mirror`` (SQLite state, the tree, listings read back) on the base install."""
    out = tmp_path / "m"
    done = _anyurl(base_site, "mirror", "-s", peers["vsftpd"].url("pub/"), "-o", str(out))
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    saved = next(out.rglob("readme.txt"))
    assert saved.read_bytes() == data.expected_bytes("pub/readme.txt")
