"""``-w``: curl's variables that apply to a transfer here, side by side with curl; the
others refused before anything is fetched (issue 23, point 4)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.devices import null_device
from tests.cli.test_curl_options import anyurl, curl
from tests.integration.test_http import Reply, ScriptedServer, fixed, redirect
from tests.peers.data import LARGE_NAME
from tests.peers.pytest_plugin import Peers

pytestmark = pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")


@pytest.fixture
def server() -> ScriptedServer:
    srv = ScriptedServer()
    yield srv  # type: ignore[misc]
    srv.close()


def test_redirects_scheme_and_urls_as_curl(server: ScriptedServer, tmp_path: Path) -> None:
    server.routes["/a"] = redirect("/b", 302)
    server.routes["/b"] = redirect("/c", 301)
    server.routes["/c"] = fixed(b"done")
    fmt = ("%{num_redirects} %{scheme} %{http_code} %{url} %{url_effective} %{exitcode} "
           "%{size_download} %{http_version} %{urlnum}|%{errormsg}|\\n")
    ours = anyurl("-sS", "-L", "-o", str(tmp_path / "a"), "-w", fmt, server.url("/a"))
    theirs = curl("-sS", "-L", "-o", str(tmp_path / "b"), "-w", fmt, server.url("/a"))
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout
    assert ours.stdout.startswith(b"2 HTTP 200 ")


def test_times_are_numbers_in_order(server: ScriptedServer) -> None:
    server.routes["/c"] = fixed(b"done")
    r = anyurl("-sS", "-w", "\\n%{time_starttransfer} %{time_total} %{speed_download}",
               server.url("/c"))
    body, line = r.stdout.split(b"\n")
    start, total, speed = line.split()
    assert body == b"done" and b"%" not in line
    assert 0 <= float(start) <= float(total)
    assert int(speed) >= 0


def test_json_has_curls_names_and_types(server: ScriptedServer, tmp_path: Path) -> None:
    server.routes["/c"] = fixed(b"done")
    ours = json.loads(anyurl("-sS", "-o", str(tmp_path / "a"), "-w", "%{json}",
                             server.url("/c")).stdout)
    theirs = json.loads(curl("-sS", "-o", str(tmp_path / "b"), "-w", "%{json}",
                             server.url("/c")).stdout)
    same = ("http_code", "response_code", "exitcode", "num_redirects", "size_download",
            "scheme", "url", "url_effective", "errormsg", "http_version", "urlnum")
    assert {k: ours[k] for k in same} == {k: theirs[k] for k in same}
    for name in ours:
        assert name in theirs, name
        assert type(ours[name]) is type(theirs[name]) or theirs[name] is None \
            or ours[name] is None, name


def test_a_failed_transfer_fills_errormsg(peers: Peers) -> None:
    r = anyurl("-s", "-w", "%{http_code} %{errormsg}", peers["nginx"].url("no/such"))
    assert r.stdout.startswith(b"404 ") and b"404 Not Found" in r.stdout


@pytest.mark.parametrize("variable", ["%{time_connect}", "%{nonsense}", "%{header{etag}}"])
def test_an_unknown_variable_is_refused_before_connecting(server: ScriptedServer,
                                                          variable: str) -> None:
    server.routes["/c"] = fixed(b"done")
    r = anyurl("-sS", "-w", f"x {variable}", server.url("/c"))
    assert r.returncode == 2 and r.stdout == b""
    assert variable.encode() in r.stderr and b"%{num_redirects}" in r.stderr
    assert server.requests == []


@pytest.mark.parametrize("raw", [
    b"HTTP/1.1 404 Gone\x1b[2J\x07\r\nContent-Type: text/x\x9b31m\r\nContent-Length: 0\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Type: text/x\x9b31m\x1b]0;t\r\nContent-Length: 1\r\n\r\nx",
])
def test_text_of_the_server_or_the_url_is_written_inert(server: ScriptedServer,
                                                        tmp_path: Path, raw: bytes) -> None:
    server.routes["/c"] = lambda r: Reply(raw=raw)
    target = tmp_path / "name\x1b[31m\x9b"
    fmt = "%{content_type}|%{errormsg}|%{filename_effective}|%{url_effective}|%{url}\\n"
    r = anyurl("-s", "-o", str(target), "-w", fmt, server.url("/c"))
    assert r.returncode in (0, 22), r.stderr
    line = r.stdout.decode()
    assert line.endswith("\n") and line.count("\n") == 1  # the template's \n stays
    assert not any(ch < " " or "\x7f" <= ch <= "\x9f" for ch in line[:-1]), line
    content_type, errormsg, filename, _, _ = line[:-1].split("|")
    assert filename.endswith("name\\x1b[31m\\x9b")
    if r.returncode == 22:  # no content_type: the transfer failed; its reason is shown
        assert "Gone\\x1b[2J\\x07" in errormsg
        return
    assert content_type == "text/x\\x9b31m\\x1b]0;t"
    # %{json} was inert already: every control a \uNNNN.
    r = anyurl("-s", "-o", str(target), "-w", "%{json}", server.url("/c"))
    assert json.loads(r.stdout)["content_type"] == "text/x\x9b31m\x1b]0;t"
    assert all(32 <= byte < 127 for byte in r.stdout)


@pytest.mark.parametrize("path", ["bin1k.dat", LARGE_NAME, "pub/"],
                         ids=["small", "streamed", "listing"])
def test_ftp_response_code_is_the_last_reply_as_curl(peers: Peers, path: str) -> None:
    # curl's response_code (and http_code) of an FTP transfer is the server's last reply:
    # 226 after a completed RETR or listing (the whole-file, streamed and listing paths of
    # the FTP transfer); it was 0 here.
    url = f"ftp://{peers['vsftpd'].host}:{peers['vsftpd'].port}/{path}"
    fmt = "%{response_code} %{http_code}"
    ours = anyurl("-s", "-o", null_device(), "-w", fmt, url)
    theirs = curl("-s", "-o", "/dev/null", "-w", fmt, url)
    assert ours.stdout == theirs.stdout, (ours.stdout, theirs.stdout, ours.stderr)
    assert ours.stdout == b"226 226"


@pytest.mark.parametrize(("userinfo", "path", "code", "exit_code"), [
    ("", "no-such-file.txt", b"550", 78),
    ("", "no-such-dir/file.txt", b"550", 9),
    ("nobody-here:wrong@", "bin1k.dat", b"530", 67),
], ids=["retr", "cwd", "login"])
def test_ftp_response_code_of_a_refusal_is_the_refusing_reply(
        peers: Peers, userinfo: str, path: str, code: bytes, exit_code: int) -> None:
    # A refused RETR, CWD or login: curl's response_code is the reply that refused it
    # (550, 530); it was 0 here. The exit codes stay curl's own.
    url = f"ftp://{userinfo}{peers['vsftpd'].host}:{peers['vsftpd'].port}/{path}"
    fmt = "%{response_code} %{exitcode}"
    ours = anyurl("-s", "-o", null_device(), "-w", fmt, url)
    theirs = curl("-s", "-o", "/dev/null", "-w", fmt, url)
    assert ours.stdout == theirs.stdout, (ours.stdout, theirs.stdout, ours.stderr)
    assert ours.stdout == code + b" " + str(exit_code).encode()
