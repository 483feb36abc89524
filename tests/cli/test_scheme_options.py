"""Scheme options of `anyurl get` reach their handlers, against the real peers."""

from __future__ import annotations

import email
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.peers.pytest_plugin import Peers

pytestmark = pytest.mark.integration


def anyurl(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "anyurl", *args], input=stdin,
                          capture_output=True, timeout=120)


def test_view_selects_a_gopher_plus_alternate_view(peers: Peers) -> None:
    p = peers["gopherplus"]
    url = f"gopher://{p.host}:{p.port}/0/hello.txt%09%09+"
    default = anyurl("-s", url)
    german = anyurl("-s", "--view", "text/plain De_DE", url)
    assert default.returncode == german.returncode == 0, german.stderr
    assert default.stdout != german.stdout
    assert b"deutsche" in german.stdout


def test_answers_file_fills_in_an_ask_form(peers: Peers, tmp_path: Path) -> None:
    p = peers["gopherplus"]
    url = f"gopher://{p.host}:{p.port}/0/form%09%09?"
    missing = anyurl("-s", url, "--answers", str(tmp_path / "none.json"))
    assert missing.returncode == 2  # the file does not exist: a usage error
    form = anyurl("-sS", url + "", "--answers", str(_write(tmp_path, {"x": "y"})))
    assert form.returncode != 0
    assert b"--answers" in form.stderr
    assert b"Your name?" in form.stderr


def _write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(data))
    return path


def test_mailto_with_subject_data_and_relay(peers: Peers) -> None:
    p = peers["aiosmtpd"]
    maildir = Path(str(p.extra["maildir"]))
    before = set(maildir.rglob("*")) if maildir.exists() else set()
    r = anyurl("-s", "--mail-from", "tester@anyurl.test", "--smtp-relay", f"{p.host}:{p.port}",
               "--subject", "options test",
               "--data", "first line\n.starts with a dot\n", "mailto:someone@example.org")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(b"250")
    deadline = time.monotonic() + 10
    new: list[Path] = []
    while time.monotonic() < deadline and not new:
        new = [f for f in set(maildir.rglob("*")) - before if f.is_file()]
        time.sleep(0.1)
    messages = [email.message_from_bytes(f.read_bytes()) for f in new]
    [msg] = [m for m in messages if m["Subject"] == "options test"]
    body = msg.get_payload(decode=True)
    assert isinstance(body, bytes)
    assert b".starts with a dot" in body


def test_mailto_body_from_stdin(peers: Peers) -> None:
    p = peers["aiosmtpd"]
    r = anyurl("-s", "--mail-from", "tester@anyurl.test", "--smtp-relay", f"{p.host}:{p.port}",
               "--data-file", "-",
               "mailto:someone@example.org", stdin=b"from stdin\n")
    assert r.returncode == 0, r.stderr


def test_gateway_option_is_validated() -> None:
    r = anyurl("--gateway", "nonsense", "file:///etc/hostname")
    assert r.returncode == 2
    assert b"SCHEME=URL" in r.stderr


def test_nntp_server_option_for_news_urls(peers: Peers) -> None:
    p = peers["leafnode"]
    r = anyurl("-s", "--allow-port", str(p.port), "--nntp-server", f"{p.host}:{p.port}",
               "news:anyurl.test")
    assert r.returncode == 0, r.stderr
    assert b"anyurl.test" in r.stdout


def test_telnet_command_after_login(peers: Peers) -> None:
    p = peers["telnetd"]
    r = anyurl("-s", "--telnet-command", "echo anyurl-$((6*7))", "--idle", "1.5",
               f"telnet://{p.user}:{p.password}@{p.host}:{p.port}/")
    assert r.returncode == 0, r.stderr
    assert b"anyurl-42" in r.stdout
    assert str(p.password).encode() not in r.stdout + r.stderr


@pytest.mark.parametrize(
    ("flags", "url", "type_line"),
    [
        ((), "ftp://h/pub/readme.txt", "TYPE I"),
        (("-B",), "ftp://h/pub/readme.txt", "TYPE A"),
        (("--use-ascii",), "ftp://h/pub/x.tar.gz", "TYPE A"),
        (("--ftp-ascii",), "ftp://h/pub/readme.txt", "TYPE A"),
        (("--ftp-ascii",), "ftp://h/pub/readme.txt;type=i", "TYPE I"),
        (("--ftp-ascii-guess",), "ftp://h/pub/readme.txt", "TYPE A"),
        (("--ftp-ascii-guess",), "ftp://h/pub/x.tar.gz", "TYPE I"),
    ],
)
def test_ftp_type_flags_in_the_plan(flags: tuple[str, ...], url: str, type_line: str) -> None:
    """Image type unless -B/--use-ascii/--ftp-ascii or the name guess is asked for."""
    r = anyurl("get", "--plan", *flags, url)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.decode().splitlines()
    assert [line for line in lines if line.startswith("TYPE ")] == [type_line]
    assert ("SIZE readme.txt" in lines or "SIZE x.tar.gz" in lines) == (type_line == "TYPE I")
