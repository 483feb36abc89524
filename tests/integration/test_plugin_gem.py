"""A plug-in scheme gets every feature a built-in gets: ``x-gem``, a Gemini-like line
protocol written here and registered only through the ``anyurl.schemes`` entry point.

The plug-in (:data:`PLUGIN`) is written into a temporary directory with a ``dist-info``
whose ``entry_points.txt`` names its descriptor, and that directory is put on the
``PYTHONPATH`` of the ``anyurl`` commands: anyurl finds it as it finds any installed
plug-in. A request is the URL and CR LF; the answer ``20 MIME`` and CR LF, then the body;
a page (``text/gemini``) links with ``=> URL label`` lines. It declares one flag of its
own, ``--gem-plain``. Nothing in anyurl names the scheme: the plug-in answers the
handler's questions (has links, how shown, local names) and anyurl asks.
"""

from __future__ import annotations

import gzip
import os
import re
import socketserver
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.test_serve import start_serve, stop

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]

PLUGIN = '''
"""x-gem: a Gemini-like scheme, as a third party would write it."""

from __future__ import annotations

import argparse
import posixpath
from collections.abc import AsyncIterator
from dataclasses import dataclass

from anyurl.errors import RemoteFileNotFound
from anyurl.links import Link
from anyurl.options import SchemeOptions
from anyurl.registry.spec import Crawl, DemoCase, DemoServer, Flags, SchemeSpec
from anyurl.resource import Resource, ResourceInfo
from anyurl.schemes.base import FetchOptions, Presentation, SchemeHandler
from anyurl.url import URL, decode


@dataclass(frozen=True)
class GemOptions(SchemeOptions):
    plain: bool = False


def _add(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--gem-plain", action="store_true",
                       help="x-gem: show a page's links as 'label <URL>'")


def _options(args: argparse.Namespace) -> GemOptions | None:
    return GemOptions(plain=True) if args.gem_plain else None


def _segments(url: URL) -> tuple[list[str], bool]:
    path = decode(url.path or "")
    return [s for s in path.split("/") if s], path == "" or path.endswith("/")


def _local_name(url: URL) -> str:
    segments, directory = _segments(url)
    return "index.gmi" if directory else segments[-1]


def _page(info: ResourceInfo) -> bool:
    return (info.content_type or "").startswith("text/gemini")


class GemHandler(SchemeHandler):
    schemes = ("x-gem",)
    options_type = GemOptions

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        stream = await self.dialer.connect_tcp(
            url.connect_host, url.effective_port or 1965, url=url,
            connect_timeout=self.config.connect_timeout,
            read_timeout=self.config.read_timeout, what="the x-gem server")
        await stream.send(str(url).encode() + b"\\r\\n")
        head = b""
        while b"\\r\\n" not in head:
            chunk = await stream.receive()
            if not chunk:
                break
            head += chunk
        line, _, rest = head.partition(b"\\r\\n")
        status, _, meta = line.decode().partition(" ")
        if status != "20":
            await stream.aclose()
            raise RemoteFileNotFound(f"{url.masked()}: {line.decode()}", url=url)
        plain = options.get(GemOptions).plain and not options.raw

        async def body() -> AsyncIterator[bytes]:
            data = rest
            while chunk := await stream.receive():
                data += chunk
            if plain:
                data = b"".join(_plain(x) for x in data.splitlines(keepends=True))
            yield data

        info = ResourceInfo(url=url, content_type=meta)
        return Resource(info, body(), on_close=stream.aclose)

    def has_links(self, info: ResourceInfo) -> bool:
        return _page(info)

    def presentation(self, info: ResourceInfo) -> Presentation:
        return Presentation.TEXT if _page(info) else Presentation.DOWNLOAD

    def links(self, info: ResourceInfo, body: bytes) -> list[Link]:
        if not _page(info):
            return []
        found = []
        base = str(info.url)
        for line in body.decode("utf-8", "replace").splitlines():
            if line.startswith("=>"):
                target, _, label = line[2:].strip().partition(" ")
                found.append(Link(_join(base, target), "page", label.strip()))
        return found


def _plain(line: bytes) -> bytes:
    if not line.startswith(b"=>"):
        return line
    target, _, label = line[2:].strip().partition(b" ")
    return label + b" <" + target + b">\\n"


def _join(base: str, target: str) -> str:
    if "://" in target:
        return target
    scheme, _, rest = base.partition("://")
    host, _, path = rest.partition("/")
    directory = "/" + path[: path.rfind("/") + 1] if "/" in path else "/"
    joined = target if target.startswith("/") else directory + target
    return f"{scheme}://{host}{posixpath.normpath(joined) if joined != '/' else '/'}"


SPEC = SchemeSpec(
    names=("x-gem",),
    handler=GemHandler,
    summary="pages of a Gemini-like line protocol",
    default_port=1965,
    local_name=_local_name,
    crawl=Crawl(index_name="index.gmi", tree_path=_segments),
    flags=Flags(add=_add, options=_options),
    demo=(DemoCase(url="x-gem://127.0.0.1:{port}/a.gmi", what="a page of the plug-in",
                   server=DemoServer("xgem_server")),),
)
'''

#: The x-gem server, a module of the plug-in's distribution too: ``anyurl demo`` starts it
#: as ``python -m xgem_server --host H --port P`` (the descriptor's ``DemoServer``), and
#: the tests run the same class in a thread.
SERVER = '''
"""A loopback x-gem server: python -m xgem_server --host 127.0.0.1 --port PORT."""

import argparse
import socketserver

PAGES = {
    "/": b"# Home\\n=> a.gmi Page A\\n=> /sub/c.gmi Page C\\n=> data.bin Some data\\n",
    "/a.gmi": b"# A\\n=> b.gmi To B\\n=> / Home\\n",
    "/b.gmi": b"# B\\n=> a.gmi Back to A\\n",
    "/sub/c.gmi": b"# C\\n=> /b.gmi To B\\n",
}
DATA = bytes(range(256)) * 4


class Gem(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        url = self.rfile.readline(1026).decode().strip()
        path = "/" + url.partition("://")[2].partition("/")[2]
        if path in PAGES:
            self.wfile.write(b"20 text/gemini\\r\\n" + PAGES[path])
        elif path == "/data.bin":
            self.wfile.write(b"20 application/octet-stream\\r\\n" + DATA)
        else:
            self.wfile.write(b"51 Not found\\r\\n")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=1965)
    args = ap.parse_args()
    with socketserver.ThreadingTCPServer((args.host, args.port), Gem) as server:
        server.serve_forever()
'''
_SERVER: dict[str, object] = {"__name__": "xgem_server"}
exec(compile(SERVER, "xgem_server.py", "exec"), _SERVER)
PAGES: dict[str, bytes] = _SERVER["PAGES"]  # type: ignore[assignment]
DATA: bytes = _SERVER["DATA"]  # type: ignore[assignment]
_Gem: type[socketserver.StreamRequestHandler] = _SERVER["Gem"]  # type: ignore[assignment]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plug-in, installed as a distribution with its entry point."""
    site = tmp_path_factory.mktemp("gem-site")
    (site / "xgem_plugin.py").write_text(PLUGIN)
    (site / "xgem_server.py").write_text(SERVER)
    info = site / "xgem_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: xgem-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[anyurl.schemes]\nx-gem = xgem_plugin:SPEC\n")
    return site


@pytest.fixture(scope="module")
def gem() -> Iterator[str]:
    """A running x-gem server: the URL of its home page."""
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Gem)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"x-gem://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def _anyurl(site: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join([str(site), str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "anyurl", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=60,
                          env={**os.environ, "PYTHONPATH": path})


def test_get_and_the_plugins_own_flag(site: Path, gem: str) -> None:
    done = _anyurl(site, "get", gem + "a.gmi")
    assert done.returncode == 0, done.stderr
    assert done.stdout == PAGES["/a.gmi"].decode()
    plain = _anyurl(site, "get", "--gem-plain", gem + "a.gmi")
    assert plain.returncode == 0, plain.stderr
    assert "To B <b.gmi>" in plain.stdout and "=>" not in plain.stdout


def test_help_shows_the_plugins_flag(site: Path) -> None:
    done = _anyurl(site, "get", "--help")
    assert done.returncode == 0, done.stderr
    assert "x-gem options" in done.stdout and "--gem-plain" in done.stdout


def test_dash_o_names_from_the_descriptor(site: Path, gem: str, tmp_path: Path) -> None:
    done = _anyurl(site, "get", "-O", gem + "sub/c.gmi", "-O", gem, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "c.gmi").read_bytes() == PAGES["/sub/c.gmi"]
    assert (tmp_path / "index.gmi").read_bytes() == PAGES["/"]


def test_parse_knows_its_port(site: Path) -> None:
    done = _anyurl(site, "parse", "x-gem://example.org/a.gmi")
    assert done.returncode == 0, done.stderr
    assert "x-gem" in done.stdout and "1965" in done.stdout


def test_mirror_follows_its_links_and_names_its_pages(site: Path, gem: str,
                                                      tmp_path: Path) -> None:
    warc = tmp_path / "gem.warc.gz"
    done = _anyurl(site, "mirror", gem, "-o", str(tmp_path / "m"), "--warc", str(warc))
    assert done.returncode == 0, done.stderr
    top = tmp_path / "m" / "x-gem" / f"127.0.0.1_{gem.rsplit(':', 1)[1].strip('/')}"
    saved = {p.relative_to(top).as_posix() for p in top.rglob("*") if p.is_file()}
    # pages under their own names (not b.gmi/index.gmi), the home page as the index
    assert saved == {"index.gmi", "a.gmi", "b.gmi", "sub/c.gmi", "data.bin"}
    assert (top / "b.gmi").read_bytes() == PAGES["/b.gmi"]
    assert (top / "data.bin").read_bytes() == DATA
    records = gzip.decompress(warc.read_bytes())
    for path in ("", "a.gmi", "b.gmi", "sub/c.gmi", "data.bin"):
        assert f"WARC-Target-URI: {gem}{path}\r\n".encode() in records, path


def test_serve_shows_pages_and_names_downloads(site: Path, gem: str) -> None:
    served = start_serve("--no-token", prefix=("env", f"PYTHONPATH={site}{os.pathsep}"
                                               f"{ROOT / 'src'}{os.pathsep}{ROOT}"))
    try:
        status, headers, body = served.request("/" + gem + "a.gmi")
        assert status == 200 and headers["content-type"].startswith("text/html")
        page = body.decode()
        assert "<pre># A" in page and f'href="/{gem}b.gmi"' in page
        status, headers, body = served.request("/" + gem + "data.bin")
        assert status == 200 and body == DATA
        assert re.search(r"filename\*=UTF-8''data\.bin", headers["content-disposition"])
    finally:
        stop(served.proc)


def test_mirror_takes_the_plugins_own_flag(site: Path, gem: str, tmp_path: Path) -> None:
    # The flag is the mirror's too: in its --help, and read into the plug-in's options
    # (a flag unknown to mirror was "unrecognized arguments" before).
    helped = _anyurl(site, "mirror", "--help")
    assert helped.returncode == 0, helped.stderr
    assert "x-gem options" in helped.stdout and "--gem-plain" in helped.stdout
    done = _anyurl(site, "mirror", "--gem-plain", gem + "data.bin", "-o", str(tmp_path / "m"))
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("shown", [("--completion", "bash"), ("--completion", "zsh"),
                                   ("--completion", "fish"), ("--man",)],
                         ids=["bash", "zsh", "fish", "man"])
def test_completion_and_man_page_know_the_plugins_flag(site: Path, shown: tuple[str, ...]
                                                       ) -> None:
    done = _anyurl(site, *shown)
    assert done.returncode == 0, done.stderr
    assert ("gem\\-plain" if shown == ("--man",) else "gem-plain") in done.stdout


def test_demo_starts_the_plugins_server_and_fetches_its_page(site: Path) -> None:
    # The descriptor's demo case: its own server started, its page fetched, as a
    # built-in's (and nothing of it named in anyurl).
    done = subprocess.run([sys.executable, "-m", "anyurl", "demo"], capture_output=True,
                          text=True, timeout=240, env={**os.environ, "PYTHONPATH": os.pathsep.join(
                              [str(site), str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])})
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"xgem_server +port \d+", done.stdout), done.stdout
    page = PAGES["/a.gmi"].decode().splitlines()[0]
    shown = done.stdout.split("x-gem://", 1)[1]
    assert f"{len(PAGES['/a.gmi'])} bytes in" in shown and f"| {page}" in shown, done.stdout
