"""The options a curl user types, run side by side with curl against the same servers.

Each test runs ``curl`` and ``anyurl get`` with the same options against the nginx and
vsftpd peers, the scripted HTTP server of ``tests/integration/test_http.py`` (which
records the requests it receives), or the TLS nginx of ``test_http2.py``, and compares
what matters: the bytes written, the request the server saw, the exit status.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_http import Reply, ScriptedServer, fixed, redirect
from tests.integration.test_http2 import H2Server
from tests.integration.test_http2 import server as tls_server  # noqa: F401 (fixture)
from tests.peers import data
from tests.peers.pytest_plugin import Peers

SRC = Path(__file__).resolve().parents[2] / "src"

pytestmark = pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, NETRC=os.devnull)
    env["PYTHONPATH"] = f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    return {**env, **extra}


def anyurl(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "anyurl", "get", *args], capture_output=True,
                          timeout=60, cwd=cwd, env=_env(**env), stdin=subprocess.DEVNULL)


def curl(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["curl", *args], capture_output=True, timeout=60, cwd=cwd,
                          env=_env(**env), stdin=subprocess.DEVNULL)


@pytest.fixture
def server() -> ScriptedServer:
    srv = ScriptedServer()
    yield srv  # type: ignore[misc]
    srv.close()


def both(server: ScriptedServer, *args: str) -> tuple[dict[str, object], dict[str, object]]:
    """Run curl, then anyurl, with ``args``; the request each made (method, headers, body)."""
    seen = []
    for run in (curl, anyurl):
        before = len(server.requests)
        r = run("-sS", *args)
        assert r.returncode == 0, (run.__name__, r.stderr)
        [request] = server.requests[before:]
        seen.append({"line": request.line.rsplit(" ", 1)[0], "headers": request.headers,
                     "body": request.body})
    return seen[0], seen[1]


# -- HTTP request control ------------------------------------------------------------------


def test_data_posts_form_encoded_as_curl(server: ScriptedServer, tmp_path: Path) -> None:
    server.routes["/form"] = fixed(b"ok")
    (tmp_path / "body.txt").write_bytes(b"line one\r\nline two\n")
    for args in (["-d", "a=1", "-d", "b=2"], ["-d", f"@{tmp_path / 'body.txt'}"],
                 ["--data-binary", f"@{tmp_path / 'body.txt'}"], ["-d", ""]):
        theirs, ours = both(server, *args, server.url("/form"))
        assert ours["line"] == theirs["line"] == "POST /form", args
        assert ours["body"] == theirs["body"], args
        for name in ("content-type", "content-length"):
            assert ours["headers"].get(name) == theirs["headers"].get(name), (args, name)


def test_method_headers_agent_referer_as_curl(server: ScriptedServer) -> None:
    server.routes["/h"] = fixed(b"ok")
    args = ["-X", "PUT", "-H", "X-One: 1", "-H", "Accept:", "-H", "X-Empty;",
            "-A", "agent/9", "-e", "http://example.org/from", server.url("/h")]
    theirs, ours = both(server, *args)
    assert ours["line"] == theirs["line"] == "PUT /h"
    for name in ("x-one", "x-empty", "user-agent", "referer"):
        assert ours["headers"].get(name) == theirs["headers"].get(name), name
    assert "accept" not in ours["headers"] and "accept" not in theirs["headers"]


def test_user_sends_basic_credentials_as_curl(server: ScriptedServer) -> None:
    server.routes["/secret"] = fixed(b"ok")
    theirs, ours = both(server, "-u", "alice:s3cret", server.url("/secret"))
    assert ours["headers"]["authorization"] == theirs["headers"]["authorization"]


def test_netrc_for_http(server: ScriptedServer, tmp_path: Path) -> None:
    server.routes["/n"] = fixed(b"ok")
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login bob password pw\n")
    netrc.chmod(0o600)
    before = len(server.requests)
    r = anyurl("-sS", "--netrc", server.url("/n"), NETRC=str(netrc))
    assert r.returncode == 0, r.stderr
    c = curl("-sS", "--netrc-file", str(netrc), server.url("/n"))
    assert c.returncode == 0
    ours, theirs = server.requests[before:]
    assert ours.headers["authorization"] == theirs.headers["authorization"]
    r = anyurl("-sS", server.url("/n"), NETRC=str(netrc))  # without --netrc: not read
    assert "authorization" not in server.requests[-1].headers


def test_post_redirected_by_303_becomes_a_get(server: ScriptedServer) -> None:
    server.routes["/post"] = redirect("/done", 303)
    server.routes["/done"] = fixed(b"done")
    r = anyurl("-sS", "-d", "x=1", server.url("/post"))
    assert (r.returncode, r.stdout) == (0, b"done"), r.stderr
    assert [q.line.split(" ")[0] for q in server.requests[-2:]] == ["POST", "GET"]
    assert server.requests[-1].body == b""


def test_crlf_in_a_header_is_refused_before_connecting(server: ScriptedServer) -> None:
    r = anyurl("-sS", "-H", "X-A: b\r\nInjected: yes", server.url("/x"))
    assert r.returncode == 2 and b"CR" in r.stderr
    assert server.requests == []


# -- HEAD, ranges, write-out against nginx and vsftpd ---------------------------------------


def test_head_prints_the_response_head(peers: Peers) -> None:
    url = peers["nginx"].url("hello.txt")
    ours, theirs = anyurl("-sS", "-I", url), curl("-sS", "-I", url)
    assert ours.returncode == theirs.returncode == 0
    assert ours.stdout.split(b"\r\n")[0] == theirs.stdout.split(b"\r\n")[0]
    assert ours.stdout.endswith(b"\r\n\r\n") and theirs.stdout.endswith(b"\r\n\r\n")
    names = {line.split(b":")[0].lower() for line in theirs.stdout.split(b"\r\n")[1:] if line}
    ours_names = {line.split(b":")[0] for line in ours.stdout.split(b"\r\n")[1:] if line}
    assert names == ours_names


def test_ftp_head_prints_size_and_time_as_curl(peers: Peers) -> None:
    url = peers["vsftpd"].url("bin1k.dat")
    ours, theirs = anyurl("-sS", "-I", url), curl("-sS", "-I", url)
    assert ours.returncode == theirs.returncode == 0
    assert ours.stdout == theirs.stdout
    assert b"Content-Length: 1024\r\n" in ours.stdout


@pytest.mark.parametrize("spec", ["0-9", "100-199", "1000-", "5-5"])
@pytest.mark.parametrize("peer,path", [("nginx", "bin1k.dat"), ("vsftpd", "bin1k.dat")])
def test_range_gives_curls_bytes(peers: Peers, peer: str, path: str, spec: str) -> None:
    url = peers[peer].url(path)
    ours, theirs = anyurl("-sS", "-r", spec, url), curl("-sS", "-r", spec, url)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout
    first, _, last = spec.partition("-")
    whole = data.expected_bytes(path)
    assert ours.stdout == whole[int(first): int(last) + 1 if last else None]


def test_range_and_continue_do_not_mix(peers: Peers) -> None:
    r = anyurl("-sS", "-r", "0-9", "-C", "-", "-o", "x", peers["nginx"].url("hello.txt"))
    assert r.returncode == 2


def test_write_out_variables_as_curl(peers: Peers, tmp_path: Path) -> None:
    url = peers["nginx"].url("hello.txt")
    fmt = "%{http_code} %{response_code} %{size_download} %{content_type} %{exitcode}\\n"
    ours = anyurl("-sS", "-o", str(tmp_path / "a"), "-w", fmt, url)
    theirs = curl("-sS", "-o", str(tmp_path / "b"), "-w", fmt, url)
    assert ours.stdout == theirs.stdout
    assert ours.stdout.startswith(b"200 200 ")
    ours = anyurl("-sS", "-o", str(tmp_path / "c"), "-w", "%{filename_effective}", url)
    assert ours.stdout == str(tmp_path / "c").encode()
    missing = peers["nginx"].url("no/such")
    ours = anyurl("-s", "-w", "%{http_code} %{exitcode}", missing)
    assert (ours.returncode, ours.stdout, ours.stderr) == (22, b"404 22", b"")


def test_silent_hides_errors_unless_show_error(peers: Peers) -> None:
    missing = peers["nginx"].url("no/such")
    assert anyurl("-s", missing).stderr == curl("-s", missing).stderr == b""
    assert b"404" in anyurl("-sS", missing).stderr


def test_curl_habits_are_accepted(peers: Peers) -> None:
    url = peers["nginx"].url("hello.txt")
    r = anyurl("-sSfL", "-m", "30", url)
    assert (r.returncode, r.stdout) == (0, data.expected_bytes("hello.txt"))


def test_ipv4_and_ipv6_only(peers: Peers) -> None:
    url = peers["nginx"].url("hello.txt")  # the peers listen on 127.0.0.1
    r = anyurl("-sS", "-4", url)
    assert (r.returncode, r.stdout) == (0, data.expected_bytes("hello.txt"))
    ours, theirs = anyurl("-sS", "-6", url), curl("-sS", "-6", url)
    assert ours.returncode == theirs.returncode == 7
    assert b"IPv4 address" in ours.stderr


# -- TLS: -k, --cacert, exit codes ------------------------------------------------------------


def test_tls_verification_and_insecure(tls_server: H2Server) -> None:  # noqa: F811
    url = f"https://127.0.0.1:{tls_server.h1tls}/small.txt"
    assert anyurl("-sS", url).returncode == curl("-sS", url).returncode == 60
    ours, theirs = anyurl("-sS", "-k", url), curl("-sS", "-k", url)
    assert ours.returncode == theirs.returncode == 0
    assert ours.stdout == theirs.stdout
    cafile = str(tls_server.root / "cert.pem")
    ours, theirs = anyurl("-sS", "--cacert", cafile, url), curl("-sS", "--cacert", cafile, url)
    assert (ours.returncode, ours.stdout) == (theirs.returncode, theirs.stdout) == (0, ours.stdout)
    assert anyurl("-sS", "--cacert", "/nonexistent.pem", url).returncode == 77
    assert anyurl("-sS", "-k", "--cert", "/nonexistent.pem", url).returncode == 58


def test_https_to_a_plain_port_is_35(peers: Peers) -> None:
    url = peers["nginx"].url("hello.txt", scheme="https")
    ours, theirs = anyurl("-sS", url), curl("-sS", url)
    assert ours.returncode == theirs.returncode == 35
    assert b"Traceback" not in ours.stderr and ours.stderr.startswith(b"anyurl: ")


_ = Reply  # the scripted server's reply type, for readers of the routes above


@pytest.mark.parametrize("args", [["-r", "3-"], ["-r", "2-4"], ["-C", "3"], ["-r", "10-"],
                                  ["-r", "20-"], ["-C", "11"]])
def test_ranges_of_a_file_url_as_curl(tmp_path: Path, args: list[str]) -> None:
    """-r and -C on file: URLs give curl's bytes and, beyond the end, its exit 36."""
    (tmp_path / "r.txt").write_bytes(b"abcdefghij")
    url = f"file://{tmp_path}/r.txt"
    ours, theirs = anyurl(*args, url), curl("-s", *args, url)
    assert (ours.returncode, ours.stdout) == (theirs.returncode, theirs.stdout)


@pytest.mark.parametrize("flags", [("-Z",), ("--parallel",), ("-Z", "--parallel-max", "3"),
                                   ("--parallel-max", "3", "-Z")],
                         ids=["Z", "parallel", "Z-max", "max-Z"])
def test_dash_z_takes_no_number_as_in_curl(peers: Peers, flags: tuple[str, ...]) -> None:
    # curl -Z URL URL: -Z is a switch there (--parallel-max N the number); it took the
    # first URL for its number here ("'http://...' is not a number").
    urls = [peers["nginx"].url("hello.txt"), peers["nginx"].url("many/file001.txt")]
    ours = anyurl("-sS", *flags, *urls)
    theirs = curl("-sS", *flags, *urls)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert sorted(ours.stdout.splitlines()) == sorted(theirs.stdout.splitlines())


def test_dash_z_with_a_number_and_its_mistakes() -> None:
    from anyurl.cli.main import _join_dash_values

    assert _join_dash_values(["get", "-Z", "20", "u"]) == ["get", "-Z", "20", "u"]
    assert _join_dash_values(["get", "-Z", "u"]) == ["get", "--parallel=50", "u"]
    assert _join_dash_values(["get", "u", "-Z"]) == ["get", "u", "--parallel=50"]
    r = anyurl("-Z", "٣", "http://127.0.0.1:9/")  # a number mistyped is still said so
    assert r.returncode == 2 and b"-Z/--parallel" in r.stderr
