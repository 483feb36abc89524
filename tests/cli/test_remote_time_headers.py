"""``-R`` (the server's modification time on the saved file) and ``-D`` (the response heads
as they arrived), side by side with curl against nginx, vsftpd and a scripted server
(issue 23)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.cli.test_curl_options import anyurl, curl
from tests.integration.test_http import Reply, Request, ScriptedServer
from tests.peers.pytest_plugin import Peers

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")]

STAMP = "Sun, 06 Nov 1994 08:49:37 GMT"
STAMP_SECONDS = 784111777


@pytest.fixture
def server() -> ScriptedServer:
    srv = ScriptedServer()
    yield srv  # type: ignore[misc]
    srv.close()


def dated(request: Request) -> Reply:
    return Reply(body=b"dated\n", headers=[("Last-Modified", STAMP)])


def test_remote_time_from_last_modified_as_curl(server: ScriptedServer, tmp_path: Path) -> None:
    server.routes["/d.txt"] = dated
    ours = anyurl("-sS", "-R", "-o", "ours.txt", server.url("/d.txt"), cwd=tmp_path)
    theirs = curl("-sS", "-R", "-o", "theirs.txt", server.url("/d.txt"), cwd=tmp_path)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert (tmp_path / "ours.txt").stat().st_mtime == STAMP_SECONDS
    assert (tmp_path / "theirs.txt").stat().st_mtime == STAMP_SECONDS
    assert not (tmp_path / "ours.txt.part").exists()


def test_without_remote_time_the_file_is_dated_now(server: ScriptedServer,
                                                    tmp_path: Path) -> None:
    server.routes["/d.txt"] = dated
    assert anyurl("-sS", "-o", "ours.txt", server.url("/d.txt"), cwd=tmp_path).returncode == 0
    assert (tmp_path / "ours.txt").stat().st_mtime != STAMP_SECONDS


def test_remote_time_without_a_date_keeps_the_file(server: ScriptedServer,
                                                   tmp_path: Path) -> None:
    server.routes["/n.txt"] = lambda rq: Reply(body=b"undated\n",
                                               headers=[("Last-Modified", "not a date")])
    ours = anyurl("-sS", "-R", "-o", "ours.txt", server.url("/n.txt"), cwd=tmp_path)
    assert ours.returncode == 0, ours.stderr
    assert (tmp_path / "ours.txt").read_bytes() == b"undated\n"


def test_remote_time_of_nginx_as_curl(peers: Peers, tmp_path: Path) -> None:
    url = peers["nginx"].url("hello.txt")
    assert anyurl("-sS", "-R", "-o", "ours", url, cwd=tmp_path).returncode == 0
    assert curl("-sS", "-R", "-o", "theirs", url, cwd=tmp_path).returncode == 0
    original = int((peers.data_root / "hello.txt").stat().st_mtime)
    assert (tmp_path / "ours").stat().st_mtime == (tmp_path / "theirs").stat().st_mtime \
        == original


def test_remote_time_of_vsftpd_by_mdtm_as_curl(peers: Peers, tmp_path: Path) -> None:
    url = peers["vsftpd"].url("hello.txt")
    ours = anyurl("-sS", "-v", "-R", "-o", "ours", url, cwd=tmp_path)
    assert ours.returncode == 0, ours.stderr
    assert b"> MDTM hello.txt" in ours.stderr
    assert curl("-sS", "-R", "-o", "theirs", url, cwd=tmp_path).returncode == 0
    original = int((peers.data_root / "hello.txt").stat().st_mtime)
    assert (tmp_path / "ours").stat().st_mtime == (tmp_path / "theirs").stat().st_mtime \
        == original
    # Without -R no MDTM is sent.
    plain = anyurl("-sS", "-v", "-o", "plain", url, cwd=tmp_path)
    assert plain.returncode == 0 and b"MDTM" not in plain.stderr


def heads(data: bytes) -> list[list[str]]:
    """The heads of a -D file: lines of each, status line first, names lower-cased."""
    blocks = data.decode().split("\r\n\r\n")
    assert blocks[-1] == ""
    out = []
    for block in blocks[:-1]:
        lines = block.split("\r\n")
        out.append([lines[0], *sorted(
            f"{k.lower()}:{v}" for k, _, v in (line.partition(":") for line in lines[1:]))])
    return out


def test_dump_header_of_a_redirect_chain_as_curl(server: ScriptedServer, tmp_path: Path) -> None:
    server.routes["/a"] = lambda rq: Reply(302, "Found", headers=[("Location", "/b"),
                                                                  ("X-Step", "one")])
    server.routes["/b"] = dated
    ours = anyurl("-sS", "-D", "ours.h", "-o", "ours.txt", server.url("/a"), cwd=tmp_path)
    theirs = curl("-sSL", "-D", "theirs.h", "-o", "theirs.txt", server.url("/a"), cwd=tmp_path)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    mine, curls = (heads((tmp_path / n).read_bytes()) for n in ("ours.h", "theirs.h"))
    assert [h[0] for h in mine] == [h[0] for h in curls] == ["HTTP/1.1 302 Found",
                                                             "HTTP/1.1 200 OK"]
    assert mine == curls
    assert "x-step: one" in mine[0] and f"last-modified: {STAMP}" in mine[1]


def test_dump_header_to_stdout_comes_before_the_body(server: ScriptedServer) -> None:
    server.routes["/d.txt"] = dated
    ours = anyurl("-sS", "-D", "-", server.url("/d.txt"))
    theirs = curl("-sS", "-D", "-", server.url("/d.txt"))
    assert ours.returncode == theirs.returncode == 0
    for out in (ours.stdout, theirs.stdout):
        head, _, body = out.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200 OK\r\n") and body == b"dated\n"


def test_dump_header_of_an_error_answer(server: ScriptedServer, tmp_path: Path) -> None:
    ours = anyurl("-sS", "-D", "ours.h", "-o", "x", server.url("/missing"), cwd=tmp_path)
    theirs = curl("-sSf", "-D", "theirs.h", "-o", "x", server.url("/missing"), cwd=tmp_path)
    assert ours.returncode == theirs.returncode == 22
    assert (tmp_path / "ours.h").read_bytes().startswith(b"HTTP/1.1 404 Not Found\r\n")
    assert heads((tmp_path / "ours.h").read_bytes()) == heads((tmp_path / "theirs.h").read_bytes())


def test_dump_header_of_ftp_is_the_servers_replies_as_curl(peers: Peers, tmp_path: Path) -> None:
    url = peers["vsftpd"].url("hello.txt")
    assert anyurl("-sS", "-D", "ours.h", "-o", "ours", url, cwd=tmp_path).returncode == 0
    assert curl("-sS", "-D", "theirs.h", "-o", "theirs", url, cwd=tmp_path).returncode == 0
    ours = (tmp_path / "ours.h").read_bytes().split(b"\r\n")
    theirs = (tmp_path / "theirs.h").read_bytes().split(b"\r\n")
    assert ours[0] == theirs[0] and ours[0].startswith(b"220 ")  # the greeting first
    codes = [line[:3] for line in ours if line]
    assert codes[0] == b"220" and b"230" in codes and b"150" in codes and codes[-1] == b"226"
    assert not any(line.startswith((b"USER", b"PASS", b"> ")) for line in ours)


def test_dump_header_file_that_cannot_be_written(server: ScriptedServer, tmp_path: Path) -> None:
    server.routes["/d.txt"] = dated
    missing = os.fspath(tmp_path / "no" / "such" / "dir" / "h")
    ours = anyurl("-sS", "-D", missing, server.url("/d.txt"))
    assert ours.returncode == 23, ours.stderr
    assert b"-D" in ours.stderr and b"Traceback" not in ours.stderr
