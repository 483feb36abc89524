"""``anyurl serve`` against the real peers: pages, downloads, the proxy, the door, replay.

The gateway runs as the command a user starts (a subprocess printing its ready URL);
requests go through ``http.client``, which sends the path and the ``Host`` exactly as
given. The replay runs in a network namespace of its own (``unshare -n``, loopback only),
so that nothing it shows can come from the peers: the network is off.
"""

from __future__ import annotations

import base64
import html
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from anyurl.schemes.wais.loopback import build_documents
from anyurl.serve.app import TOKEN_PARAM, cookie_name
from tests.peers import data

pytestmark = [pytest.mark.integration]

SRC = Path(__file__).resolve().parents[2] / "src"
ROOT = SRC.parent


#: hello.txt as gophernicus sends a text item: with CRLF line ends.
CRLF_HELLO = data.HELLO_TEXT.replace(b"\n", b"\r\n")


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=f"{SRC}{os.pathsep}{ROOT}{os.pathsep}"
                f"{os.environ.get('PYTHONPATH', '')}", NETRC=os.devnull)


@dataclass
class Served:
    """A running ``anyurl serve``: its port, token and process."""

    port: int
    token: str | None
    proc: subprocess.Popen[bytes]

    def request(self, path: str, *, headers: dict[str, str] | None = None,
                token: bool = True, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
        """``path`` as sent (raw), with the token as a Bearer unless ``token=False``."""
        given = {"Host": f"127.0.0.1:{self.port}"}
        if token and self.token:
            given["Authorization"] = f"Bearer {self.token}"
        given.update(headers or {})
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            for k, v in given.items():
                conn.putheader(k, v)
            conn.endheaders()
            resp = conn.getresponse()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
        finally:
            conn.close()


def start_serve(*args: str, prefix: tuple[str, ...] = ()) -> Served:
    """Start ``anyurl serve ARGS`` and wait for its ready URL (its first stdout line)."""
    proc = subprocess.Popen([*prefix, sys.executable, "-m", "anyurl", "serve", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(),
                            stdin=subprocess.DEVNULL, start_new_session=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode().strip()
    m = re.match(r"http://127\.0\.0\.1:(\d+)/(?:\?" + TOKEN_PARAM + r"=(\S+))?$", line)
    if not m:
        stop(proc)
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise AssertionError(f"no ready URL from anyurl serve: {line!r} {err}")
    served = Served(int(m.group(1)), m.group(2), proc)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", served.port), timeout=1).close()
            return served
        except OSError:
            time.sleep(0.05)
    stop(proc)
    raise AssertionError("anyurl serve did not listen")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop a process this test started, and its session (the serve, a socat)."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def peer_urls(peers: Any) -> dict[str, str]:
    """The start URLs of the walk: a Gopher hole, an FTP tree, a newsgroup, a WAIS base."""
    gopher, ftp = peers["gophernicus"], peers["vsftpd"]
    news, wais = peers["leafnode"], peers["wais"]
    return {"gopher": f"gopher://{gopher.hostport}/1/pub/",
            "ftp": f"ftp://{ftp.hostport}/pub/",
            "news": f"nntp://{news.hostport}/{news.extra.get('group', 'anyurl.test')}",
            "wais": f"wais://{wais.hostport}/demo",
            "wais_search": f"wais://{wais.hostport}/demo?gopher"}


def mirror_to_warc(peers: Any, where: Path, *, refresh: bool = False) -> Path:
    """``anyurl mirror --warc --warc-cdx`` of the walk's start URLs (twice: a refresh
    records revisits); the WARC file."""
    urls = peer_urls(peers)
    warc = where / "archive.warc.gz"
    starts = [urls["gopher"], urls["ftp"], urls["news"], urls["wais_search"]]
    for _ in range(2 if refresh else 1):
        done = subprocess.run(
            [sys.executable, "-m", "anyurl", "mirror", "-s", "--wait", "0", "-o",
             str(where), "--warc", str(warc), "--warc-cdx", *starts],
            capture_output=True, timeout=180, env=_env(), stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stderr.decode()
    return warc


@pytest.fixture(scope="module")
def served(peers: Any) -> Iterator[Served]:
    s = start_serve("--max-size", "512K", "--timeout", "30")
    try:
        yield s
    finally:
        stop(s.proc)


def links_of(page: bytes) -> list[str]:
    return [h.replace("&amp;", "&") for h in re.findall(rb'href="([^"]+)"', page)
            for h in [h.decode()]]


# -- pages and downloads ---------------------------------------------------------------


def test_gopher_menu_is_a_page_whose_links_come_back_through_the_gateway(
        served: Served, peers: Any) -> None:
    url = peer_urls(peers)["gopher"]
    status, headers, body = served.request("/" + url)
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert "script-src" not in headers["content-security-policy"]
    assert "default-src 'none'" in headers["content-security-policy"]
    text = body.decode()
    assert "(TXT)  readme.txt" in text  # the handler's own rendering
    readme = f"/gopher://{peers['gophernicus'].hostport}/0/pub/readme.txt"
    assert readme in links_of(body)
    # A text item (type 0) is read in the page, as Lynx and every Gopher client show it.
    status, headers, got = served.request(readme)
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert "content-disposition" not in headers
    first = data.expected_bytes("pub/readme.txt").decode().splitlines()[0]
    assert f"<pre>{html.escape(first)}" in got.decode()
    # gophernicus sends it with CRLF line ends: its raw bytes are those it sent.
    status, headers, got = served.request("/_raw" + readme)
    assert status == 200 and got == data.expected_bytes("pub/readme.txt").replace(b"\n", b"\r\n")
    assert headers["content-disposition"].startswith("attachment")
    assert headers["content-type"] == "text/plain"


def test_ftp_tree_listing_and_file_download(served: Served, peers: Any) -> None:
    url = peer_urls(peers)["ftp"]
    status, _, body = served.request("/" + url)
    assert status == 200
    semi = f"/ftp://{peers['vsftpd'].hostport}/pub/semi%3Bcolon.txt"
    assert semi in links_of(body)
    status, headers, got = served.request(semi)
    assert got == data.expected_bytes("pub/semi;colon.txt")
    assert "filename*=UTF-8''semi%3Bcolon.txt" in headers["content-disposition"]
    assert headers["content-security-policy"] == "default-src 'none'; sandbox"


def test_raw_link_gives_the_servers_bytes(served: Served, peers: Any) -> None:
    url = peer_urls(peers)["gopher"]
    status, headers, body = served.request("/_raw/" + url)
    assert status == 200 and headers["content-type"] == "application/gopher-menu"
    assert b"\treadme.txt" in body or b"readme.txt\t" in body


def test_newsgroup_and_article(served: Served, peers: Any) -> None:
    url = peer_urls(peers)["news"]
    status, _, body = served.request("/" + url)
    assert status == 200 and b"First article" in body
    article = "/" + url + "/2"
    assert article in links_of(body)
    status, _, page = served.request(article)
    assert status == 200 and b"Subject: Dots" in page and b"..two dots" in page


def test_wais_search_form_and_result(served: Served, peers: Any) -> None:
    base = peer_urls(peers)["wais"]
    status, _, body = served.request("/" + base)
    assert status == 200 and b'id="search"' in body
    status, headers, _ = served.request(f"/_search?url={base}&q=gopher")
    assert status == 303 and headers["location"] == "/" + base + "?gopher"
    status, _, result = served.request(headers["location"])
    assert status == 200 and b"gopher.txt" in result
    doc = next(h for h in links_of(result) if "/TEXT/" in h and "gopher.txt" in h)
    status, _, got = served.request(doc)
    wais = peers["wais"]
    expected = {d.name: d.content for d in build_documents(wais.host, wais.port)}
    assert status == 200 and got == expected["gopher.txt"]


def test_telnet_is_a_link_not_a_connection(served: Served) -> None:
    status, _, body = served.request("/telnet://127.0.0.1/")
    assert status == 200 and b'href="telnet://127.0.0.1/"' in body


# -- the door --------------------------------------------------------------------------


def test_token_is_needed_and_the_ready_url_sets_the_cookie(served: Served, peers: Any) -> None:
    url = "/" + peer_urls(peers)["gopher"]
    status, _, body = served.request(url, token=False)
    assert status == 403 and b"token" in body
    status, _, _ = served.request(url, token=False,
                                  headers={"Authorization": "Bearer wrong"})
    assert status == 403
    status, headers, _ = served.request(f"{url}?{TOKEN_PARAM}={served.token}", token=False)
    assert status == 303 and headers["location"] == url
    cookie = headers["set-cookie"]
    assert cookie.startswith(f"{cookie_name(served.port)}={served.token}")
    assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
    status, _, _ = served.request(url, token=False, headers={
        "Cookie": f"{cookie_name(served.port)}={served.token}"})
    assert status == 200


def test_foreign_host_is_refused(served: Served) -> None:
    # DNS rebinding: a name of the attacker's resolving to 127.0.0.1.
    status, _, body = served.request("/", headers={"Host": f"rebind.example:{served.port}"})
    assert status == 403 and b"DNS rebinding" in body


def test_file_urls_are_refused_unless_asked(served: Served, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"not for the web\n")
    status, _, body = served.request(f"/file://{secret}")
    assert status == 403 and b"not for the web" not in body and b"--allow-file" in body
    allowed = start_serve("--no-token", "--allow-file")
    try:
        status, _, got = allowed.request(f"/file://{secret}")
        assert status == 200 and got == b"not for the web\n"
    finally:
        stop(allowed.proc)


def test_port_policy_applies(served: Served) -> None:
    status, _, body = served.request("/gopher://127.0.0.1:25/1/")
    assert status == 403 and b"port 25" in body
    assert b"--allow-port 25" in body and b"Config(" not in body  # the gateway's words


def test_size_limit_applies(served: Served, peers: Any) -> None:
    assert peers.large_size > 512 * 1024  # the gateway's --max-size is 512K
    # FTP announces the size (SIZE): refused before a byte is sent.
    status, _, body = served.request(f"/ftp://{peers['vsftpd'].hostport}/large.dat")
    assert status == 413 and b"--max-size" in body
    # Gopher announces none: the stream is cut at the limit, never a short file that
    # looks whole.
    with pytest.raises(http.client.IncompleteRead) as cut:
        served.request(f"/gopher://{peers['gophernicus'].hostport}/9/large.dat")
    assert len(cut.value.partial) <= 512 * 1024


# -- the section 4 proxy ---------------------------------------------------------------


def test_curl_through_the_gateway_as_its_proxy(served: Served, peers: Any) -> None:
    curl = shutil.which("curl")
    assert curl, "curl is installed with the peers (scripts/install-peers.sh)"
    url = f"ftp://{peers['vsftpd'].hostport}/pub/readme.txt"
    out = subprocess.run([curl, "-sS", "-f", "-x", f"http://127.0.0.1:{served.port}",
                          "-U", f"anyurl:{served.token}", url],
                         capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == data.expected_bytes("pub/readme.txt")
    # curl tunnels gopher (CONNECT), so the absolute form is asked for explicitly.
    gopher = f"gopher://{peers['gophernicus'].hostport}/0/hello.txt"
    out = subprocess.run([curl, "-sS", "-f", "--request-target", gopher, "-H",
                          "Proxy-Authorization: Basic " + base64.b64encode(
                              f"anyurl:{served.token}".encode()).decode(),
                          f"http://127.0.0.1:{served.port}/"], capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == CRLF_HELLO


def test_proxy_request_needs_the_token(served: Served, peers: Any) -> None:
    url = f"ftp://{peers['vsftpd'].hostport}/pub/readme.txt"
    status, headers, _ = served.request(url, token=False,
                                        headers={"Host": peers["vsftpd"].hostport})
    assert status == 407 and "proxy-authenticate" in headers


def test_anyurl_gateway_option_uses_it(served: Served, peers: Any) -> None:
    gopher = f"gopher://{peers['gophernicus'].hostport}/0/hello.txt"
    out = subprocess.run(
        [sys.executable, "-m", "anyurl", "get", "--gateway",
         f"gopher=http://anyurl:{served.token}@127.0.0.1:{served.port}/", gopher],
        capture_output=True, timeout=60, env=_env(), stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    assert out.stdout == CRLF_HELLO


# -- replay ----------------------------------------------------------------------------


def replay_offline(warc: Path, paths: list[str], out: Path, *,
                   index: bool = True) -> dict[str, Any]:
    """Serve ``warc`` in a network namespace of its own and request ``paths`` there;
    status and body of each, as JSON."""
    if not index:
        for cdxj in warc.parent.glob("*.cdxj"):
            cdxj.unlink()
    script = f"""
import json, subprocess, sys
sys.path[:0] = {[str(SRC), str(ROOT)]!r}
from tests.integration.test_serve import start_serve, stop
s = start_serve("--no-token", "--warc", {str(warc)!r})
found = {{}}
try:
    for path in {paths!r}:
        status, headers, body = s.request(path)
        found[path] = [status, body.decode("utf-8", "replace")]
finally:
    stop(s.proc)
open({str(out)!r}, "w").write(json.dumps(found))
"""
    done = subprocess.run(["unshare", "-n", "sh", "-c",
                           f"ip link set lo up && exec {sys.executable} -c \"$0\"", script],
                          capture_output=True, timeout=120, env=_env())
    assert done.returncode == 0, done.stderr.decode()
    result: dict[str, Any] = json.loads(out.read_text())
    return result


@pytest.mark.parametrize("index", [True, False], ids=["cdxj", "scan"])
def test_replay_with_the_network_off(peers: Any, tmp_path: Path, index: bool) -> None:
    urls = peer_urls(peers)
    warc = mirror_to_warc(peers, tmp_path / "m", refresh=index)
    gopher = peers["gophernicus"].hostport
    readme = f"/gopher://{gopher}/0/pub/readme.txt"
    paths = ["/" + urls["gopher"], readme, "/_raw" + readme, "/" + urls["ftp"], "/" + urls["news"],
             "/" + urls["news"] + "/2", "/" + urls["wais_search"], "/",
             "/" + urls["gopher"].replace("/pub/", "/nothere/")]
    got = replay_offline(warc, paths, tmp_path / "out.json", index=index)
    status, menu = got["/" + urls["gopher"]]
    assert status == 200 and 'id="banner"' in menu and "captured 2" in menu
    assert readme in menu
    first = data.expected_bytes("pub/readme.txt").decode().splitlines()[0]
    assert got[readme][0] == 200 and f"<pre>{html.escape(first)}" in got[readme][1]
    assert got["/_raw" + readme] == [200, data.expected_bytes("pub/readme.txt").decode().replace(
        "\n", "\r\n")]
    assert "semi%3Bcolon.txt" in got["/" + urls["ftp"]][1]
    assert f'/{urls["news"]}/2"' in got["/" + urls["news"]][1]
    assert "..two dots" in got["/" + urls["news"] + "/2"][1]
    assert "gopher.txt" in got["/" + urls["wais_search"]][1]
    assert urls["ftp"] in got["/"][1]
    assert got[paths[-1]][0] == 404


def test_serve_runs_on_trio_too(peers: Any) -> None:
    # Issue 33: serve ran on asyncio only in the tests.
    on_trio = start_serve("--no-token", "--backend", "trio")
    try:
        status, _, body = on_trio.request(f"/ftp://{peers['vsftpd'].hostport}/pub/readme.txt")
        raw_status, _, raw = on_trio.request(
            f"/_raw/ftp://{peers['vsftpd'].hostport}/pub/readme.txt")
    finally:
        stop(on_trio.proc)
    assert status == 200 and raw_status == 200
    assert raw == data.expected_bytes("pub/readme.txt")
    assert data.expected_bytes("pub/readme.txt").decode().strip() in body.decode()


@pytest.fixture(scope="module")
def gopherplus() -> Iterator[str]:
    """anyurl's loopback Gopher+ server (it has a type-7 search item): its host:port."""
    proc = subprocess.Popen([sys.executable, "-m", "anyurl.schemes.gopher.loopback", "--host",
                             "127.0.0.1", "--port", "0"], stdout=subprocess.PIPE, env=_env(),
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().decode()
        yield line.rsplit(" ", 1)[-1].strip()
    finally:
        stop(proc)


def test_gopher_search_item_is_a_search_form(served: Served, gopherplus: str) -> None:
    # A type 7 item without a term: a page with a search form, not an error asking for
    # --search (docs/serve.md); the form's target asks again with the term.
    item = f"gopher://{gopherplus}/7/search"
    status, headers, body = served.request("/" + item)
    assert status == 200 and headers["content-type"].startswith("text/html")
    page = body.decode()
    assert 'id="search"' in page and 'action="/_search"' in page
    assert f'name="url" value="{item}"' in page and "--search" not in page
    status, headers, _ = served.request(f"/_search?url={item}&q=gopher+rfc")
    assert status == 303 and headers["location"] == f"/{item}%09gopher%20rfc"
    status, _, result = served.request(headers["location"])
    assert status == 200 and 'id="search"' in result.decode()  # search again
    assert "gopher" in result.decode() and 'id="links"' in result.decode()
