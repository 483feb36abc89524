"""FTP over TLS (RFC 4217) against real servers, on both backends: vsftpd with AUTH TLS
required for logins and data and ``require_ssl_reuse=YES`` (peer "vsftpd-tls"), vsftpd
with implicit TLS (ftps://, "vsftpd-implicit"), pure-ftpd with ``--tls=3``
("pure-ftpd-tls"), each with a certificate of a test CA made when it started.

The bytes are those of plain ftp and of curl; each data connection resumes the control
connection's TLS session (vsftpd refuses one that does not, which a test shows by
taking the reuse away); certificates are checked as for https (60, -k, --cacert); a
plain and a TLS connection never serve each other from the pool; a mirror, a WARC and a
resume (REST) work over TLS; and a recording relay in front of vsftpd shows the login
password never crossing in clear when TLS is required, while it does cross without TLS.
"""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from anyurl.errors import AnyURLError, LoginDenied, TLSCertificateError, TLSHandshakeFailed
from anyurl.net.transport import Stream
from anyurl.options import FTPOptions
from anyurl.resolver import Resolver
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.ftp.control import Control
from anyurl.testing._server import ThreadedListener
from tests.integration.test_mirror_refresh import mirrored, run_mirror
from tests.peers import data as peer_data
from tests.peers.table import LOCAL_PASSWORD, LOCAL_USER

pytestmark = [pytest.mark.integration]

SRC = Path(__file__).resolve().parents[2] / "src"
#: (peer, scheme, TLS mode, login): each server as it wants to be spoken to.
TLS_PEERS = {
    "vsftpd-tls": ("ftp", "require", ""),
    "vsftpd-implicit": ("ftps", "", ""),
    "pure-ftpd-tls": ("ftp", "require", f"{LOCAL_USER}:{LOCAL_PASSWORD}@"),
}
#: The same server without TLS.
PLAIN = {"vsftpd-tls": "vsftpd", "vsftpd-implicit": "vsftpd", "pure-ftpd-tls": "pure-ftpd"}
FILES = ("pub/readme.txt", "bin1k.dat", "pub/")


def _url(peers: Any, name: str, path: str) -> str:
    scheme, _, login = TLS_PEERS[name]
    return f"{scheme}://{login}{peers[name].hostport}/{path}"


def _options(peers: Any, name: str, **given: Any) -> FetchOptions:
    tls = TLS_PEERS[name][1]
    given.setdefault("cafile", str(peers[name].extra["cafile"]))
    return FetchOptions(schemes=(FTPOptions(tls=tls, **given),))


def _env() -> dict[str, str]:
    return dict(os.environ, NETRC=os.devnull,
                PYTHONPATH=f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")


def _anyurl(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "anyurl", "get", "-s", "-S", *args],
                          capture_output=True, timeout=120, env=_env(),
                          stdin=subprocess.DEVNULL)


@pytest.mark.anyio
@pytest.mark.parametrize("name", sorted(TLS_PEERS))
async def test_ftps_gives_the_bytes_of_plain_ftp(peers: Any, name: str) -> None:
    plain = peers[PLAIN[name]]
    login = TLS_PEERS[name][2]
    async with Resolver(trust_env=False) as r:
        for path in FILES:
            expected = await r.fetch(f"ftp://{login}{plain.hostport}/{path}")
            got = await r.fetch(_url(peers, name, path), _options(peers, name))
            if path.endswith("/"):  # a listing (NLST): the same names as without TLS
                assert got == expected and b"readme.txt" in got, path
            else:
                assert got == expected == peers.expected(path), path


@pytest.mark.anyio
@pytest.mark.parametrize("name", ["vsftpd-tls", "vsftpd-implicit"])
async def test_the_large_file_streams_whole_over_tls(peers: Any, name: str) -> None:
    digest, received = hashlib.sha256(), 0
    async with Resolver(trust_env=False) as r, \
            r.open(_url(peers, name, peer_data.LARGE_NAME), _options(peers, name)) as res:
        async for chunk in res:
            digest.update(chunk)
            received += len(chunk)
    assert received == peers.large_size
    assert digest.hexdigest() == peers.files["large.dat"]["sha256"]


@pytest.mark.anyio
async def test_each_data_connection_resumes_the_control_connections_session(
        peers: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """vsftpd (require_ssl_reuse=YES) takes our data connections: several files on one
    control connection, each its own data connection. Without the session it refuses
    them, so the test would fail if the reuse were not what makes it work."""
    name = "vsftpd-tls"
    async with Resolver(trust_env=False) as r:
        for path in ("pub/readme.txt", "bin1k.dat", "hello.txt", "pub/"):
            assert await r.fetch(_url(peers, name, path), _options(peers, name))
        handler = r.handler_for(r.admit(_url(peers, name, "x")))
        assert handler.stats == {"connections": 1, "reused": 3}  # type: ignore[attr-defined]

    async def without_reuse(self: Control, data: Stream) -> None:
        await data.start_tls(self.url.connect_host, self.tls_context)  # no session

    monkeypatch.setattr(Control, "protect", without_reuse)
    async with Resolver(trust_env=False) as r:
        with pytest.raises(AnyURLError) as caught:
            await r.fetch(_url(peers, name, "bin1k.dat"), _options(peers, name))
    # The handshake itself passes; vsftpd then checks the reuse and answers 522: the
    # data connection's TLS failed, curl's 35 (not a partial transfer, 18).
    assert "522 SSL connection failed: session reuse required" in str(caught.value)
    assert isinstance(caught.value, TLSHandshakeFailed) and caught.value.exit_code == 35


@pytest.mark.anyio
@pytest.mark.parametrize("name", ["vsftpd-tls", "vsftpd-implicit"])
async def test_a_certificate_of_an_unknown_ca_is_60_and_k_takes_it(peers: Any,
                                                                  name: str) -> None:
    url = _url(peers, name, "pub/readme.txt")
    async with Resolver(trust_env=False) as r:
        with pytest.raises(TLSCertificateError) as caught:
            await r.fetch(url, _options(peers, name, cafile=None))
        assert caught.value.exit_code == 60
        body = await r.fetch(url, _options(peers, name, cafile=None, verify=False))
    assert body == peers.expected("pub/readme.txt")


@pytest.mark.anyio
async def test_a_plain_and_a_tls_connection_never_serve_each_other(peers: Any) -> None:
    """vsftpd-tls refuses an anonymous login without TLS: had the pool lent the TLS
    connection of the first fetch to the plain second one, the second would pass."""
    name = "vsftpd-tls"
    url = _url(peers, name, "pub/readme.txt")
    async with Resolver(trust_env=False) as r:
        assert await r.fetch(url, _options(peers, name)) == peers.expected("pub/readme.txt")
        with pytest.raises(LoginDenied, match="encryption"):
            await r.fetch(url)
        assert await r.fetch(url, _options(peers, name, cafile=peers[name].extra["cafile"]))


def test_the_command_line_gives_the_bytes_curl_gives(peers: Any, tmp_path: Path) -> None:
    tls, implicit = peers["vsftpd-tls"], peers["vsftpd-implicit"]
    for peer, args in (
        (tls, ["--ssl-reqd", f"ftp://{tls.hostport}/bin1k.dat"]),
        (implicit, [f"ftps://{implicit.hostport}/bin1k.dat"]),
        (tls, ["--ssl-reqd", f"ftp://{tls.hostport}/pub/"]),
    ):
        ca = ["--cacert", str(peer.extra["cafile"])]
        ours = _anyurl(*ca, *args)
        theirs = subprocess.run(["curl", "-sS", *ca, *args], capture_output=True, timeout=60)
        assert ours.returncode == theirs.returncode == 0, (ours.stderr, theirs.stderr)
        if args[-1].endswith("/"):  # curl lists with LIST, anyurl with NLST by default
            assert b"readme.txt" in ours.stdout and b"readme.txt" in theirs.stdout
        else:
            assert ours.stdout == theirs.stdout == peers.expected("bin1k.dat")
    bad = _anyurl("--ssl-reqd", f"ftp://{tls.hostport}/bin1k.dat")
    assert bad.returncode == 60 and bad.stderr.count(b"\n") == 1, bad.stderr


def test_resume_with_rest_over_tls(peers: Any, tmp_path: Path) -> None:
    peer = peers["vsftpd-implicit"]
    whole = peers.expected("bin1k.dat")
    target = tmp_path / "bin1k.dat"
    target.write_bytes(whole[:300])
    done = _anyurl("-v", "--cacert", str(peer.extra["cafile"]), "-C", "-", "-o", str(target),
                   f"ftps://{peer.hostport}/bin1k.dat")
    assert done.returncode == 0, done.stderr
    assert b"> REST 300" in done.stderr
    assert target.read_bytes() == whole


def test_a_mirror_and_its_warc_over_tls(peers: Any, tmp_path: Path) -> None:
    for name, scheme, args in (("vsftpd-tls", "ftp", ["--ssl-reqd"]),
                               ("vsftpd-implicit", "ftps", [])):
        peer = peers[name]
        out, warc = tmp_path / name, tmp_path / f"{name}.warc.gz"
        url = f"{scheme}://{peer.hostport}/pub/"
        done = run_mirror("-v", *args, "--cacert", str(peer.extra["cafile"]), "-o", str(out),
                          "--warc", str(warc), url)
        assert done.returncode == 0, done.stderr[-3000:]
        assert "PROT P" in done.stderr
        base = out / scheme / next(p.name for p in (out / scheme).iterdir()) / "pub"
        expected = {p.relative_to(Path(peer.data_root) / "pub").as_posix(): p.read_bytes()
                    for p in (Path(peer.data_root) / "pub").rglob("*") if p.is_file()}
        assert mirrored(base) == expected
        from warcio.archiveiterator import ArchiveIterator

        with warc.open("rb") as f:
            targets = [rec.rec_headers.get_header("WARC-Target-URI")
                       for rec in ArchiveIterator(f) if rec.rec_type == "resource"]
        assert f"{url}readme.txt" in targets


class _Relay:
    """Forwards a control connection to ``target``, recording both directions."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.seen = b""
        self._lock = threading.Lock()
        self._listener = ThreadedListener(self._serve, name="ftps-relay")
        self.port = self._listener.port
        self._listener.start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                with self._lock:
                    self.seen += data
                dst.sendall(data)
        except OSError:
            pass
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def _serve(self, client: socket.socket) -> None:
        with client, socket.create_connection(self.target, timeout=10) as server:
            back = threading.Thread(target=self._pump, args=(server, client), daemon=True)
            back.start()
            self._pump(client, server)
            back.join(10)

    def close(self) -> None:
        self._listener.close()


@pytest.fixture
def relays(peers: Any) -> Iterator[dict[str, _Relay]]:
    made = {name: _Relay(peers[name].address) for name in ("vsftpd", "vsftpd-tls")}
    yield made
    for relay in made.values():
        relay.close()


def test_no_password_crosses_in_clear_when_tls_is_required(
        peers: Any, relays: dict[str, _Relay]) -> None:
    password = LOCAL_PASSWORD.encode()
    cafile = str(peers["vsftpd-tls"].extra["cafile"])
    for name, args in (("vsftpd-tls", ["--ssl-reqd", "--cacert", cafile]), ("vsftpd", [])):
        url = f"ftp://{LOCAL_USER}:{LOCAL_PASSWORD}@127.0.0.1:{relays[name].port}/pub/readme.txt"
        done = _anyurl(*args, url)
        assert done.returncode == 0, done.stderr
        assert done.stdout == peers.expected("pub/readme.txt")
    assert b"AUTH TLS" in relays["vsftpd-tls"].seen
    assert password not in relays["vsftpd-tls"].seen
    assert b"USER" not in relays["vsftpd-tls"].seen
    # The relay would have seen it: without TLS it crosses as it is.
    assert b"PASS " + password in relays["vsftpd"].seen



def test_serve_lists_and_downloads_over_implicit_tls(peers: Any,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """``anyurl serve`` shows an ftps:// tree and hands out its files as for ftp://; the
    test CA is trusted as a system CA would be (OpenSSL's ``SSL_CERT_FILE``)."""
    from tests.integration.test_serve import links_of, start_serve, stop

    peer = peers["vsftpd-implicit"]
    monkeypatch.setenv("SSL_CERT_FILE", str(peer.extra["cafile"]))
    served = start_serve("--max-size", "512K", "--timeout", "30")
    try:
        status, _, body = served.request(f"/ftps://{peer.hostport}/pub/")
        assert status == 200, body
        link = f"/ftps://{peer.hostport}/pub/semi%3Bcolon.txt"
        assert link in links_of(body)
        status, _, got = served.request(link)
    finally:
        stop(served.proc)
    assert status == 200 and got == peers.expected("pub/semi;colon.txt")
