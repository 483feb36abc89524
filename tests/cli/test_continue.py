"""``-C -`` and ``-C OFFSET`` continue a partial file under its final name, as curl's ``-C -``
and wget's ``-c`` do, side by side with them against nginx, vsftpd and a scripted server
that records the ``Range`` it is sent (issue 23).

The write path's promise holds: the user's file is appended to only after the server
answered with the bytes that follow it; any other answer leaves it as it was.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_curl_options import anyurl, curl
from tests.integration.test_http import Reply, Request, ScriptedServer
from tests.peers import data
from tests.peers.pytest_plugin import Peers

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(shutil.which("curl") is None or shutil.which("wget") is None,
                                 reason="curl and wget are needed side by side")]

BODY = bytes(range(256)) * 40  # 10,240 bytes


def wget(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["wget", "-q", "--no-config", *args], capture_output=True,
                          timeout=60, cwd=cwd, stdin=subprocess.DEVNULL)


def ranged(request: Request) -> Reply:
    """The BODY, honouring one ``Range: bytes=N-`` as nginx does."""
    spec = request.headers.get("range", "")
    if spec.startswith("bytes=") and spec.endswith("-"):
        start = int(spec[len("bytes="):-1])
        return Reply(206, "Partial Content", body=BODY[start:], headers=[
            ("Content-Range", f"bytes {start}-{len(BODY) - 1}/{len(BODY)}")])
    return Reply(body=BODY)


def whole(request: Request) -> Reply:
    """The BODY, ignoring any ``Range`` (a server without byte ranges)."""
    return Reply(body=BODY)


@pytest.fixture
def server() -> ScriptedServer:
    srv = ScriptedServer()
    yield srv  # type: ignore[misc]
    srv.close()


def test_continue_the_final_file_of_nginx_as_curl_and_wget(peers: Peers, tmp_path: Path) -> None:
    """The issue's command: a 3,000,000-byte prefix of the large file, then ``-C - -O``."""
    url = peers["nginx"].url("large.dat")
    expected = b"".join(data.large_file_chunks(peers.large_size))
    tools = {"anyurl": lambda d: anyurl("-sS", "--json", "-C", "-", "-O", url, cwd=d),
             "curl": lambda d: curl("-sS", "-C", "-", "-O", url, cwd=d),
             "wget": lambda d: wget("-c", url, cwd=d)}
    for name, run in tools.items():
        directory = tmp_path / name
        directory.mkdir()
        (directory / "large.dat").write_bytes(expected[:3_000_000])
        r = run(directory)
        assert r.returncode == 0, (name, r.stderr)
        assert (directory / "large.dat").read_bytes() == expected, name
        assert sorted(p.name for p in directory.iterdir()) == ["large.dat"], name
        if name == "anyurl":  # only the missing bytes came over the wire
            line = json.loads(r.stdout)
            assert (line["resumed_from"], line["bytes"]) == (3_000_000,
                                                             len(expected) - 3_000_000)


def test_continue_sends_the_range_curl_and_wget_send(server: ScriptedServer,
                                                     tmp_path: Path) -> None:
    server.routes["/f.bin"] = ranged
    url = server.url("/f.bin")
    ranges = {}
    for name in ("anyurl", "curl", "wget"):
        directory = tmp_path / name
        directory.mkdir()
        (directory / "f.bin").write_bytes(BODY[:3000])
        before = len(server.requests)
        if name == "wget":
            r = wget("-c", url, cwd=directory)
        else:
            r = (anyurl if name == "anyurl" else curl)("-sS", "-C", "-", "-O", url, cwd=directory)
        assert r.returncode == 0, (name, r.stderr)
        [request] = server.requests[before:]
        ranges[name] = request.headers.get("range")
        assert (directory / "f.bin").read_bytes() == BODY, name
    assert ranges == {"anyurl": "bytes=3000-", "curl": "bytes=3000-", "wget": "bytes=3000-"}


def test_a_server_without_ranges_leaves_the_file_as_curl_does(server: ScriptedServer,
                                                             tmp_path: Path) -> None:
    """curl refuses (33) and keeps the file; so does anyurl (36, ResumeFailed), where the
    old code overwrote it. (wget 1.21 overwrites it.)"""
    server.routes["/f.bin"] = whole
    url = server.url("/f.bin")
    for run in (curl, anyurl):
        (tmp_path / "f.bin").write_bytes(b"mine")
        r = run("-sS", "-C", "-", "-o", "f.bin", url, cwd=tmp_path)
        assert r.returncode != 0, run.__name__
        assert (tmp_path / "f.bin").read_bytes() == b"mine", run.__name__
        assert not (tmp_path / "f.bin.part").exists()
    assert r.returncode == 36
    assert b"left as it was" in r.stderr and b"Run without -C" in r.stderr


def test_a_part_file_of_an_interrupted_run_is_continued_first(server: ScriptedServer,
                                                            tmp_path: Path) -> None:
    server.routes["/f.bin"] = ranged
    (tmp_path / "f.bin").write_bytes(b"an older copy")
    (tmp_path / "f.bin.part").write_bytes(BODY[:5000])
    before = len(server.requests)
    r = anyurl("-sS", "-C", "-", "-o", "f.bin", server.url("/f.bin"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert server.requests[before].headers["range"] == "bytes=5000-"
    assert (tmp_path / "f.bin").read_bytes() == BODY
    assert not (tmp_path / "f.bin.part").exists()


def test_the_exit_73_hint_is_true(server: ScriptedServer, tmp_path: Path) -> None:
    """73 says "-C to continue it"; doing so continues it."""
    server.routes["/f.bin"] = ranged
    (tmp_path / "f.bin").write_bytes(BODY[:100])
    r = anyurl("-sS", "-O", server.url("/f.bin"), cwd=tmp_path)
    assert r.returncode == 73 and b"-C to continue it" in r.stderr
    r = anyurl("-sS", "-C", "-", "-O", server.url("/f.bin"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert server.requests[-1].headers["range"] == "bytes=100-"
    assert (tmp_path / "f.bin").read_bytes() == BODY


def test_continue_at_an_offset_as_curl(server: ScriptedServer, tmp_path: Path) -> None:
    server.routes["/f.bin"] = ranged
    url = server.url("/f.bin")
    for run in (curl, anyurl):
        (tmp_path / "f.bin").write_bytes(BODY[:4096])
        r = run("-sS", "-C", "4096", "-o", "f.bin", url, cwd=tmp_path)
        assert r.returncode == 0, (run.__name__, r.stderr)
        assert server.requests[-1].headers["range"] == "bytes=4096-"
        assert (tmp_path / "f.bin").read_bytes() == BODY
        # to stdout: the bytes from the offset
        r = run("-sS", "-C", "10000", url)
        assert (r.returncode, r.stdout) == (0, BODY[10000:]), run.__name__
    # An offset that is not the file's size: curl appends anyway (a corrupt file);
    # anyurl refuses before connecting and leaves the file alone.
    before = len(server.requests)
    r = anyurl("-sS", "-C", "100", "-o", "f.bin", url, cwd=tmp_path)
    assert r.returncode == 36 and b"holds 10240 bytes, not 100" in r.stderr
    assert len(server.requests) == before
    assert (tmp_path / "f.bin").read_bytes() == BODY


def test_continue_an_ftp_file_as_curl(peers: Peers, tmp_path: Path) -> None:
    url = peers["vsftpd"].url("bin1k.dat")
    expected = peers.expected("bin1k.dat")
    for run in (curl, anyurl):
        (tmp_path / "bin1k.dat").write_bytes(expected[:300])
        r = run("-sS", "-v", "-C", "-", "-O", url, cwd=tmp_path)
        assert r.returncode == 0, (run.__name__, r.stderr)
        assert b"REST 300" in r.stderr, run.__name__
        assert (tmp_path / "bin1k.dat").read_bytes() == expected, run.__name__
    r = anyurl("-v", "-C", "-", "-O", url, cwd=tmp_path)  # complete: nothing to fetch
    assert r.returncode == 0 and b"REST" not in r.stderr.split(b"SIZE")[0]
    assert (tmp_path / "bin1k.dat").read_bytes() == expected


def test_a_retry_never_starts_a_continued_file_over(server: ScriptedServer,
                                                    tmp_path: Path) -> None:
    """The first answer is cut short after appending some bytes; the retry's server sends
    the whole file: the user's file keeps every byte, and nothing is truncated."""
    answers = []

    def cut_then_whole(request: Request) -> Reply:
        answers.append(request.headers.get("range"))
        if len(answers) == 1:
            start = int(request.headers["range"][len("bytes="):-1])
            head = (f"HTTP/1.1 206 Partial Content\r\nContent-Length: {len(BODY) - start}\r\n"
                    f"Content-Range: bytes {start}-{len(BODY) - 1}/{len(BODY)}\r\n\r\n")
            return Reply(raw=head.encode() + BODY[start:start + 1000], close=True)
        return Reply(body=BODY)

    server.routes["/f.bin"] = cut_then_whole
    (tmp_path / "f.bin").write_bytes(BODY[:2000])
    r = anyurl("-sS", "--retry", "1", "--retry-delay", "0", "-C", "-", "-o", "f.bin",
               server.url("/f.bin"), cwd=tmp_path)
    assert answers == ["bytes=2000-", "bytes=3000-"]
    assert r.returncode == 36, r.stderr
    assert (tmp_path / "f.bin").read_bytes() == BODY[:3000]
