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


# -- options that need an extra: the pip command, never an internal error ----------------------

#: Every option of the command line that needs an extra, with the extra it names.
EXTRA_OPTIONS = [
    pytest.param(["get", "--backend", "trio", "{url}"], "trio", id="get-backend-trio"),
    pytest.param(["mirror", "--backend", "trio", "-o", "{tmp}/m", "{url}"], "trio",
                 id="mirror-backend-trio"),
    pytest.param(["serve", "--backend", "trio", "--port", "0"], "trio",
                 id="serve-backend-trio"),
    pytest.param(["demo", "--backend", "trio"], "trio", id="demo-backend-trio"),
    pytest.param(["get", "--dask", "tcp://127.0.0.1:9", "-O", "--output-dir", "{tmp}",
                  "{url}"], "dask", id="get-dask"),
    pytest.param(["mirror", "--dask", "tcp://127.0.0.1:9", "-o", "{tmp}/m", "{url}"], "dask",
                 id="mirror-dask"),
    pytest.param(["get", "--warc", "{tmp}/a.warc", "-o", "{tmp}/out", "{url}"], "warc",
                 id="get-warc"),
    pytest.param(["mirror", "--warc", "{tmp}/a.warc", "-o", "{tmp}/m", "{url}"], "warc",
                 id="mirror-warc"),
    pytest.param(["mirror", "--warc", "{tmp}/a.warc", "--warc-cdx", "-o", "{tmp}/m",
                  "{url}"], "warc", id="mirror-warc-cdx"),
    pytest.param(["serve", "--port", "0"], "serve", id="serve"),
]


@pytest.mark.parametrize(("argv", "extra"), EXTRA_OPTIONS)
def test_an_option_that_needs_an_extra_names_it(base_site: Path, tmp_path: Path,
                                                argv: list[str], extra: str) -> None:
    page = tmp_path / "f.txt"
    page.write_bytes(b"here\n")
    args = [a.format(url=page.as_uri(), tmp=tmp_path) for a in argv]
    done = _anyurl(base_site, *args)
    err = done.stderr.decode(errors="replace")
    assert "internal error" not in err and "Traceback" not in err, err
    assert f"pip install 'anyurl[{extra}]'" in err, err
    assert done.returncode == 2, err  # OptionError: what was asked cannot be done here


def test_http2_on_the_base_install_names_its_extra(base_site: Path) -> None:
    """``--http2`` without h2 warns with the pip command and falls back to HTTP/1.1."""
    import http.server
    import threading

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", "3")
            self.end_headers()
            self.wfile.write(b"ok\n")

        def log_message(self, *args: object) -> None:
            pass

    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        port = server.server_address[1]
        done = _anyurl(base_site, "get", "--http2", "--allow-port", str(port),
                       f"http://127.0.0.1:{port}/x")
        server.shutdown()
    err = done.stderr.decode(errors="replace")
    assert "internal error" not in err, err
    assert (done.returncode, done.stdout) == (0, b"ok\n"), err
    assert "pip install 'anyurl[http2]'" in err, err
