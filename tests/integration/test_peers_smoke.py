"""One smoke test per peer: each answers with its real protocol (ftplib, urllib, smtplib, sockets).

These prove the peers themselves work, before anyurl's handlers exist; they use no anyurl code.
"""

from __future__ import annotations

import ftplib
import hashlib
import io
import mailbox
import smtplib
import socket
import time
import urllib.request
from pathlib import Path

import pytest

from tests.peers import data
from tests.peers.table import ANONYMOUS_PASSWORD, ANONYMOUS_USER, NEWS_GROUP

pytestmark = pytest.mark.integration

TIMEOUT = 10
FTP_PEERS = ["vsftpd", "pure-ftpd", "pyftpdlib", "aioftp"]


def ftp_connect(peer) -> ftplib.FTP:
    ftp = ftplib.FTP(timeout=TIMEOUT)
    ftp.connect(peer.host, peer.port)
    return ftp


def ftp_retr(ftp: ftplib.FTP, path: str) -> bytes:
    out = io.BytesIO()
    ftp.retrbinary(f"RETR {path}", out.write)
    return out.getvalue()


def recv_all(sock: socket.socket) -> bytes:
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def gopher(peer, request: bytes) -> bytes:
    with socket.create_connection(peer.address, timeout=TIMEOUT) as sock:
        sock.sendall(request)
        return recv_all(sock)


# -- FTP ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", FTP_PEERS)
def test_ftp_anonymous_retr(peers, name):
    peer = peers[name]
    ftp = ftp_connect(peer)
    try:
        assert ftp.getwelcome().startswith("220")
        ftp.login(ANONYMOUS_USER, ANONYMOUS_PASSWORD)
        assert ftp_retr(ftp, "hello.txt") == data.HELLO_TEXT
        assert ftp_retr(ftp, "bin1k.dat") == peers.expected("bin1k.dat")
        ftp.cwd("pub")
        assert ftp_retr(ftp, "semi;colon.txt") == peers.expected("pub/semi;colon.txt")
    finally:
        ftp.close()


@pytest.mark.parametrize("name", FTP_PEERS)
def test_ftp_local_user(peers, name):
    peer = peers[name]
    ftp = ftp_connect(peer)
    try:
        ftp.login(peer.user, peer.password)
        ftp.cwd("pub")
        listing: list[str] = []
        ftp.retrlines("LIST", listing.append)  # aioftp has no NLST
        for name in ("with space.txt", "semi;colon.txt", "per%cent.txt"):
            assert any(line.endswith(" " + name) for line in listing), listing
        assert ftp_retr(ftp, "with space.txt") == peers.expected("pub/with space.txt")
        assert ftp_retr(ftp, "per%cent.txt") == peers.expected("pub/per%cent.txt")
    finally:
        ftp.close()


@pytest.mark.parametrize("name", FTP_PEERS)
def test_ftp_wrong_password_is_refused(peers, name):
    peer = peers[name]
    ftp = ftp_connect(peer)
    try:
        with pytest.raises(ftplib.error_perm, match=r"^530"):
            ftp.login(peer.user, "not-the-password")
    finally:
        ftp.close()


def test_ftp_many_files_listing(peers):
    ftp = ftp_connect(peers["vsftpd"])
    try:
        ftp.login(ANONYMOUS_USER, ANONYMOUS_PASSWORD)
        names = ftp.nlst("many")
    finally:
        ftp.close()
    assert len(names) == data.MANY_COUNT


def test_pyftpdlib_logs_every_command_in_order(peers):
    peer = peers["pyftpdlib"]
    ftp = ftp_connect(peer)
    try:
        ftp.login(ANONYMOUS_USER, ANONYMOUS_PASSWORD)
        ftp.cwd("pub")
        ftp.cwd("nested")
        ftp.retrbinary("RETR deeper/file.txt", lambda _: None)
        ftp.quit()
    finally:
        ftp.close()
    lines = Path(peer.extra["command_log"]).read_text(encoding="utf-8").splitlines()
    session = lines[-1].split(" ", 1)[0]
    commands = [line.split(" ", 1)[1] for line in lines if line.split(" ", 1)[0] == session]
    verbs = [c.split(" ", 1)[0] for c in commands]
    assert commands[:2] == [f"USER {ANONYMOUS_USER}", f"PASS {ANONYMOUS_PASSWORD}"]
    assert [c for c in commands if c.split(" ", 1)[0] in ("CWD", "TYPE", "RETR")] == [
        "CWD pub", "CWD nested", "TYPE I", "RETR deeper/file.txt"]
    assert verbs[-1] == "QUIT"


# -- HTTP ---------------------------------------------------------------------------------------


def test_nginx_get_and_range(peers):
    peer = peers["nginx"]
    with urllib.request.urlopen(peer.url("hello.txt"), timeout=TIMEOUT) as response:
        assert response.status == 200
        assert response.read() == data.HELLO_TEXT
    request = urllib.request.Request(peer.url("bin1k.dat"), headers={"Range": "bytes=100-199"})
    with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
        assert response.status == 206
        assert response.headers["Content-Range"] == "bytes 100-199/1024"
        assert response.read() == peers.expected("bin1k.dat")[100:200]


def test_nginx_large_file_matches_manifest(peers):
    peer = peers["nginx"]
    digest = hashlib.sha256()
    size = 0
    with urllib.request.urlopen(peer.url(data.LARGE_NAME), timeout=TIMEOUT) as response:
        while chunk := response.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
    expected = peers.files[data.LARGE_NAME]
    assert size == expected["size"] == peers.large_size
    assert digest.hexdigest() == expected["sha256"] == data.large_sha256(peers.large_size)


def test_nginx_escaped_names(peers):
    peer = peers["nginx"]
    for path, escaped in [("pub/with space.txt", "pub/with%20space.txt"),
                          ("pub/semi;colon.txt", "pub/semi%3Bcolon.txt"),
                          ("pub/per%cent.txt", "pub/per%25cent.txt")]:
        with urllib.request.urlopen(peer.url(escaped), timeout=TIMEOUT) as response:
            assert response.read() == peers.expected(path)


# -- Gopher -------------------------------------------------------------------------------------


def test_pygopherd_menu_and_gopher_plus(peers):
    peer = peers["pygopherd"]
    menu = gopher(peer, b"\r\n").decode()
    assert f"1pub\t/pub\t127.0.0.1\t{peer.port}" in menu
    # Gopher+: "+" answers with a "+-2" (ends at close) header, then the menu.
    plus = gopher(peer, b"\t+\r\n").decode()
    assert plus.startswith("+-")
    assert "/hello.txt" in plus
    # "!" gives the attribute blocks, +ASK included.
    info = gopher(peer, b"/gopherplus/survey.txt\t!\r\n").decode()
    assert "+INFO:" in info and "+ASK:" in info and "Ask: What is your name?" in info
    about = gopher(peer, b"/gopherplus/about.txt\t!\r\n").decode()
    assert "+ABSTRACT:" in about
    assert gopher(peer, b"/hello.txt\r\n").startswith(data.HELLO_TEXT)


def test_gophernicus_menu_and_file(peers):
    peer = peers["gophernicus"]
    menu = gopher(peer, b"\r\n").decode()
    assert f"\t/pub/\t127.0.0.1\t{peer.port}" in menu
    # gophernicus sends text (type 0) with CRLF line ends, binaries as they are.
    assert gopher(peer, b"/hello.txt\r\n") == data.HELLO_TEXT.replace(b"\n", b"\r\n")
    assert gopher(peer, b"/bin1k.dat\r\n") == peers.expected("bin1k.dat")


# -- NNTP ---------------------------------------------------------------------------------------


class LineReader:
    def __init__(self, sock: socket.socket) -> None:
        self.file = sock.makefile("rb")

    def line(self) -> bytes:
        line = self.file.readline()
        assert line.endswith(b"\r\n"), line
        return line[:-2]

    def multiline(self) -> list[bytes]:
        lines = []
        while (line := self.line()) != b".":
            lines.append(line[1:] if line.startswith(b".") else line)  # undo dot-stuffing
        return lines


def test_leafnode_group_and_article(peers):
    peer = peers["leafnode"]
    count = len(data.NEWS_ARTICLES)
    with socket.create_connection(peer.address, timeout=TIMEOUT) as sock:
        reader = LineReader(sock)
        assert reader.line().startswith(b"200")
        sock.sendall(f"GROUP {NEWS_GROUP}\r\n".encode())
        assert reader.line().split()[:5] == [b"211", str(count).encode(), b"1",
                                             str(count).encode(), NEWS_GROUP.encode()]
        sock.sendall(b"ARTICLE 2\r\n")
        assert reader.line().startswith(b"220 2 " + data.news_message_id(2).encode())
        lines = reader.multiline()
        body = lines[lines.index(b"") + 1:]
        assert b"\n".join(body) + b"\n" == data.NEWS_ARTICLES[1][1]
        sock.sendall(f"BODY {data.news_message_id(1)}\r\n".encode())
        assert reader.line().startswith(b"222")
        assert b"\n".join(reader.multiline()) + b"\n" == data.NEWS_ARTICLES[0][1]
        sock.sendall(b"QUIT\r\n")
        assert reader.line().startswith(b"205")


def test_inn_offers_starttls_and_serves_articles_inside_it(peers):
    """nnrpd lists STARTTLS, refuses a login in clear (483) and reading without one
    (480); after STARTTLS (382, then ssl's handshake) and the login, it serves."""
    import ssl

    peer = peers["inn"]
    count = len(data.NEWS_ARTICLES)
    context = ssl.create_default_context(cafile=str(peer.extra["cafile"]))
    with socket.create_connection(peer.address, timeout=TIMEOUT) as plain:
        reader = LineReader(plain)
        assert reader.line().startswith(b"20")
        plain.sendall(b"CAPABILITIES\r\n")
        assert reader.line().startswith(b"101")
        assert b"STARTTLS" in reader.multiline()
        plain.sendall(b"AUTHINFO USER " + peer.user.encode() + b"\r\n")
        assert reader.line().startswith(b"483")
        plain.sendall(f"GROUP {NEWS_GROUP}\r\n".encode())
        assert reader.line().startswith(b"480")
        plain.sendall(b"STARTTLS\r\n")
        assert reader.line().startswith(b"382")
        with context.wrap_socket(plain, server_hostname=peer.host) as sock:
            reader = LineReader(sock)
            for command, code in ((f"AUTHINFO USER {peer.user}", b"381"),
                                  (f"AUTHINFO PASS {peer.password}", b"281"),
                                  (f"GROUP {NEWS_GROUP}", f"211 {count} 1 {count}".encode())):
                sock.sendall(command.encode() + b"\r\n")
                assert reader.line().startswith(code), command
            sock.sendall(b"ARTICLE 2\r\n")
            assert reader.line().startswith(b"220 2 " + data.news_message_id(2).encode())
            lines = reader.multiline()
            assert b"\n".join(lines[lines.index(b"") + 1:]) + b"\n" == data.NEWS_ARTICLES[1][1]


def test_openssh_socks4a_connects_by_name(peers):
    """``ssh -D`` answers a SOCKS4a CONNECT to "localhost" (resolved by the proxy)."""
    proxy, nginx = peers["openssh-socks"], peers["nginx"]
    with socket.create_connection(proxy.address, timeout=TIMEOUT) as sock:
        sock.sendall(b"\x04\x01" + nginx.port.to_bytes(2, "big") + b"\x00\x00\x00\x01"
                     + b"anyurl\x00localhost\x00")
        reply = sock.recv(8)
        assert reply[:2] == b"\x00\x5a", reply  # granted
        sock.sendall(b"GET /hello.txt HTTP/1.0\r\nHost: localhost\r\n\r\n")
        assert recv_all(sock).endswith(data.HELLO_TEXT)


# -- Telnet -------------------------------------------------------------------------------------

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240


class TelnetClient:
    """Refuses every option the server offers and collects the text it sends."""

    def __init__(self, address: tuple[str, int]) -> None:
        self.sock = socket.create_connection(address, timeout=TIMEOUT)
        self.text = b""
        self.pending = b""

    def read_until(self, marker: bytes, timeout: float = TIMEOUT) -> bytes:
        deadline = time.monotonic() + timeout
        while marker not in self.text:
            if time.monotonic() > deadline:
                raise AssertionError(f"no {marker!r} from telnet server; got {self.text!r}")
            chunk = self.sock.recv(4096)
            if not chunk:
                raise AssertionError(f"telnet server closed; got {self.text!r}")
            self._feed(chunk)
        return self.text

    def _feed(self, chunk: bytes) -> None:
        buf = self.pending + chunk
        self.pending = b""
        i = 0
        while i < len(buf):
            byte = buf[i]
            if byte != IAC:
                self.text += bytes([byte])
                i += 1
                continue
            if i + 1 >= len(buf):
                self.pending = buf[i:]
                return
            command = buf[i + 1]
            if command in (DO, DONT, WILL, WONT):
                if i + 2 >= len(buf):
                    self.pending = buf[i:]
                    return
                option = buf[i + 2]
                if command == DO:
                    self.sock.sendall(bytes([IAC, WONT, option]))
                elif command == WILL:
                    self.sock.sendall(bytes([IAC, DONT, option]))
                i += 3
            elif command == SB:
                end = buf.find(bytes([IAC, SE]), i)
                if end < 0:
                    self.pending = buf[i:]
                    return
                i = end + 2
            elif command == IAC:
                self.text += b"\xff"
                i += 2
            else:
                i += 2

    def send_line(self, line: str) -> None:
        self.sock.sendall(line.encode() + b"\r\n")

    def close(self) -> None:
        self.sock.close()


def test_telnetd_login(peers):
    peer = peers["telnetd"]
    client = TelnetClient(peer.address)
    try:
        client.read_until(b"login: ")
        client.send_line(peer.user)
        client.read_until(b"Password: ")
        client.send_line(peer.password)
        client.read_until(b"$ ")
        client.send_line("echo peer-$((6*7))")
        client.read_until(b"peer-42")
        client.send_line("exit")
    finally:
        client.close()


def test_telnetlib3_banner(peers):
    client = TelnetClient(peers["telnetlib3"].address)
    try:
        client.read_until(b"Ready.")
    finally:
        client.close()


# -- SMTP ---------------------------------------------------------------------------------------


def test_aiosmtpd_accepts_and_stores_a_message(peers):
    peer = peers["aiosmtpd"]
    subject = f"anyurl smoke {time.time_ns()}"
    with smtplib.SMTP(peer.host, peer.port, timeout=TIMEOUT) as smtp:
        code, _features = smtp.ehlo("anyurl-tests")
        assert code == 250
        smtp.sendmail("tests@anyurl-tests.internal", ["someone@anyurl-tests.internal"],
                      f"Subject: {subject}\r\nTo: someone@anyurl-tests.internal\r\n\r\n"
                      ".a line starting with a dot\r\n")
    box = mailbox.Maildir(str(peer.extra["maildir"]), create=False)
    messages = [m for m in box if m["Subject"] == subject]
    assert len(messages) == 1
    assert messages[0].get_payload().startswith(".a line starting with a dot")
