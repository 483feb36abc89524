"""SOCKS proxies against real ones, dante (peers "dante" and "dante-login") and, for
SOCKS4 and 4a, OpenSSH's ``ssh -D`` ("openssh-socks"): every TCP scheme fetched through
them gives the same bytes as direct, an FTP passive data connection goes through the
proxy too (the proxy's log says so), https runs TLS over the tunnel, and a refusal or an
unreachable proxy exits with curl's codes, the password never shown."""

from __future__ import annotations

import http.server
import re
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from anyurl.config import Config
from anyurl.errors import ConnectFailed, ProxyError, ProxyNotResolved
from anyurl.resolver import Resolver
from tests.peers.table import LOCAL_PASSWORD, LOCAL_USER

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


def _proxy(peers: Any, *, login: bool = False, scheme: str = "socks5h") -> str:
    if login:
        peer = peers["dante-login"]
        return f"{scheme}://{LOCAL_USER}:{LOCAL_PASSWORD}@{peer.hostport}"
    return f"{scheme}://{peers['dante'].hostport}"


def _urls(peers: Any) -> dict[str, str]:
    return {
        "http": peers["nginx"].url("hello.txt"),
        "ftp": peers["vsftpd"].url("pub/readme.txt"),
        "gopher": peers["pygopherd"].url("0/hello.txt"),
        "nntp": f"nntp://{peers['leafnode'].hostport}/anyurl.test/1",
    }


def _connects(peers: Any, name: str) -> list[int]:
    """The target ports of the connections dante logged as passed."""
    log = Path(peers[name].logs["server"]).read_text(errors="replace")
    return [int(port) for port in re.findall(r"pass\(\d+\): tcp/connect \[: \S+ \S+ -> "
                                             r"\S+ [\d.]+\.(\d+)", log)]


@pytest.mark.parametrize("login", [False, True], ids=["no-login", "login"])
@pytest.mark.parametrize("scheme", ["socks5h", "socks5"])
async def test_every_scheme_through_dante_gives_the_direct_bytes(
        peers: Any, login: bool, scheme: str) -> None:
    urls = _urls(peers)
    async with Resolver(Config(), trust_env=False) as direct:
        expected = {name: await direct.fetch(url) for name, url in urls.items()}
    assert expected["nntp"] and expected["ftp"] == peers.expected("pub/readme.txt")
    name = "dante-login" if login else "dante"
    before = len(_connects(peers, name))
    async with Resolver(proxy=_proxy(peers, login=login, scheme=scheme),
                        trust_env=False) as r:
        for what, url in urls.items():
            assert await r.fetch(url) == expected[what], what
    ports = _connects(peers, name)[before:]
    lo, hi = peers["vsftpd"].passive_ports
    # The ftp control connection and its passive data connection both went through dante.
    assert peers["vsftpd"].port in ports
    assert any(lo <= port <= hi for port in ports), ports
    assert {peers["nginx"].port, peers["pygopherd"].port, peers["leafnode"].port} <= set(ports)


async def test_socks4_through_dante_with_the_name_resolved_here(peers: Any) -> None:
    """dante speaks SOCKS4 but not 4a (it connects to 0.0.0.255): socks4a is tested
    against OpenSSH below, and its request checked byte for byte in
    tests/unit/test_socks.py."""
    url = peers["nginx"].url("hello.txt").replace("127.0.0.1", "localhost")
    async with Resolver(proxy=_proxy(peers, scheme="socks4"), trust_env=False) as r:
        assert await r.fetch(url) == peers.expected("hello.txt")


def _ssh_requests(peers: Any) -> list[tuple[str, int]]:
    """(host, port) of each SOCKS4/4a request ``ssh -D`` logged, the host as the client
    sent it (a name for socks4a, an address for socks4)."""
    log = Path(peers["openssh-socks"].logs["output"]).read_text(errors="replace")
    return [(host, int(port)) for host, port in
            re.findall(r"dynamic request: socks4 host (\S+) port (\d+)", log)]


@pytest.mark.parametrize("scheme", ["socks4a", "socks4"])
async def test_socks4_and_4a_through_openssh(peers: Any, scheme: str) -> None:
    """OpenSSH's ``ssh -D`` (peer "openssh-socks") speaks SOCKS4a, which dante does not:
    with socks4a the proxy gets the name ("localhost") and resolves it, with socks4 the
    address resolved here; an FTP passive data connection goes through it too."""
    urls = {"http": peers["nginx"].url("hello.txt"), "ftp": peers["vsftpd"].url("pub/readme.txt"),
            "gopher": peers["pygopherd"].url("0/hello.txt")}
    urls = {what: url.replace("127.0.0.1", "localhost") for what, url in urls.items()}
    async with Resolver(Config(), trust_env=False) as direct:
        expected = {what: await direct.fetch(url) for what, url in urls.items()}
    assert expected["http"] == peers.expected("hello.txt")
    before = len(_ssh_requests(peers))
    proxy = f"{scheme}://{peers['openssh-socks'].hostport}"
    async with Resolver(proxy=proxy, trust_env=False) as r:
        for what, url in urls.items():
            assert await r.fetch(url) == expected[what], what
    requests = _ssh_requests(peers)[before:]
    host = "localhost" if scheme == "socks4a" else "127.0.0.1"
    wanted = {peers[name].port for name in ("nginx", "vsftpd", "pygopherd")}
    assert wanted <= {port for name, port in requests if name == host}, requests
    lo, hi = peers["vsftpd"].passive_ports
    assert any(lo <= port <= hi for _name, port in requests), requests
    if scheme == "socks4":  # every name was resolved here
        assert all(name == "127.0.0.1" for name, _port in requests), requests


@pytest.fixture(scope="module")
def https_server(peers: Any) -> Iterator[int]:
    """An https server with the certificate the leafnode-tls peer's test CA signed."""
    tls = Path(peers["leafnode-tls"].extra["cafile"]).parent
    root = peers.data_root

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(tls / "server.pem", tls / "server.key")
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_https_runs_tls_over_the_tunnel(peers: Any, https_server: int) -> None:
    cafile = peers["leafnode-tls"].extra["cafile"]
    url = f"https://localhost:{https_server}/hello.txt"
    before = len(_connects(peers, "dante-login"))
    done = subprocess.run([sys.executable, "-m", "anyurl", "get", "-s", "--cacert", cafile,
                           "--socks5-hostname", f"{LOCAL_USER}:{LOCAL_PASSWORD}@"
                           f"{peers['dante-login'].hostport}", url],
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == peers.expected("hello.txt")
    assert https_server in _connects(peers, "dante-login")[before:]
    # A certificate the CA did not sign is refused through the tunnel as directly (60).
    done = subprocess.run([sys.executable, "-m", "anyurl", "get", "-s", "-S", "-x",
                           _proxy(peers), url], capture_output=True, timeout=60)
    assert done.returncode == 60, done.stderr


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_all_proxy_and_no_proxy(peers: Any) -> None:
    url = peers["pygopherd"].url("0/hello.txt")
    env = {"ALL_PROXY": f"socks5h://127.0.0.1:{_closed_port()}", "PATH": "/usr/bin:/bin",
           "PYTHONPATH": ":".join(sys.path)}
    # A proxy that is not there: the fetch fails there (7) ...
    done = subprocess.run([sys.executable, "-m", "anyurl", "get", "-s", "-S", url],
                          capture_output=True, timeout=60, env=env)
    assert done.returncode == 7, done.stderr
    assert b"SOCKS proxy" in done.stderr
    # ... and NO_PROXY reaches the server directly.
    done = subprocess.run([sys.executable, "-m", "anyurl", "get", "-s", url],
                          capture_output=True, timeout=60, env={**env, "NO_PROXY": "127.0.0.1"})
    assert done.returncode == 0 and done.stdout == peers.expected("hello.txt")
    env["all_proxy"] = _proxy(peers)  # the lower-case name wins
    before = len(_connects(peers, "dante"))
    done = subprocess.run([sys.executable, "-m", "anyurl", "get", "-s", url],
                          capture_output=True, timeout=60, env=env)
    assert done.returncode == 0 and done.stdout == peers.expected("hello.txt")
    assert peers["pygopherd"].port in _connects(peers, "dante")[before:]


async def test_a_wrong_password_is_97_and_never_shown(peers: Any) -> None:
    proxy = f"socks5h://{LOCAL_USER}:not-the-pw@{peers['dante-login'].hostport}"
    async with Resolver(proxy=proxy, trust_env=False) as r:
        with pytest.raises(ProxyError) as caught:
            await r.fetch(peers["nginx"].url("hello.txt"))
    assert caught.value.exit_code == 97
    assert "not-the-pw" not in str(caught.value)
    assert f"{LOCAL_USER}:****@{peers['dante-login'].hostport}" in str(caught.value)
    no_login = f"socks5h://{peers['dante-login'].hostport}"
    async with Resolver(proxy=no_login, trust_env=False) as r:
        with pytest.raises(ProxyError, match="wants a login") as caught:
            await r.fetch(peers["nginx"].url("hello.txt"))
    done = subprocess.run([sys.executable, "-m", "anyurl", "get", "-s", "-S", "-x", proxy,
                           peers["nginx"].url("hello.txt")], capture_output=True, timeout=60)
    assert done.returncode == 97
    assert b"not-the-pw" not in done.stderr and b"****" in done.stderr


async def test_an_unreachable_proxy_is_7_and_an_unknown_name_5(peers: Any) -> None:
    port = _closed_port()
    async with Resolver(proxy=f"socks5h://u:pw@127.0.0.1:{port}", trust_env=False) as r:
        with pytest.raises(ConnectFailed, match="SOCKS proxy socks5h://u:\\*\\*\\*\\*@") as c:
            await r.fetch(peers["nginx"].url("hello.txt"))
    assert c.value.exit_code == 7
    async with Resolver(proxy="socks5h://no-such-proxy.invalid:1080", trust_env=False) as r:
        with pytest.raises(ProxyNotResolved) as caught:
            await r.fetch(peers["nginx"].url("hello.txt"))
    assert caught.value.exit_code == 5


async def test_the_port_policy_still_holds_for_the_target(peers: Any) -> None:
    from anyurl.errors import PolicyRefused

    before = len(_connects(peers, "dante"))
    async with Resolver(proxy=_proxy(peers), trust_env=False) as r:
        with pytest.raises(PolicyRefused):
            await r.fetch("gopher://127.0.0.1:25/0/x")
    assert _connects(peers, "dante")[before:] == []


async def test_telnet_and_wais_through_dante(peers: Any) -> None:
    # The two TCP schemes the test above leaves out: a scripted telnet session on the
    # real telnetd (its login and a command), and a WAIS search, through the proxy.
    from anyurl.schemes.base import FetchOptions
    from anyurl.schemes.telnet.options import TelnetOptions
    from tests.integration.test_wais import DATABASE

    telnetd, waisd = peers["telnetd"], peers["wais"]
    session = FetchOptions(schemes=(TelnetOptions(idle=1.0,
                                                  commands=("echo anyurl-$((6*7))",)),))
    search = f"wais://{waisd.host}:{waisd.port}/{DATABASE}?gopher%20minnesota"
    async with Resolver(Config(), trust_env=False, warn=lambda _: None) as direct:
        expected = await direct.fetch(search)
    before = len(_connects(peers, "dante"))
    async with Resolver(Config(connect_timeout=10, read_timeout=20), proxy=_proxy(peers),
                        trust_env=False, warn=lambda _: None) as r:
        url = f"telnet://{LOCAL_USER}:{LOCAL_PASSWORD}@{telnetd.host}:{telnetd.port}/"
        async with r.open(url, session) as res:
            transcript = await res.read()
        assert await r.fetch(search) == expected
    assert b"anyurl-42" in transcript
    assert {telnetd.port, waisd.port} <= set(_connects(peers, "dante")[before:])
