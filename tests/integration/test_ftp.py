"""ftp: against real servers (vsftpd, pure-ftpd, pyftpdlib, aioftp's server), on both backends.

The RFC 1738 3.2 matrix runs against every FTP peer of `tests/peers`; the exact command
sequences are asserted line by line from the pyftpdlib peer's command log. Server quirks the
peers cannot show (no EPSV, a lying 227 address, a transfer cut short, ACCT) come from
pyftpdlib servers run in a thread by this module.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import anyio
import anyio.abc
import pytest

from anyurl.config import Config
from anyurl.errors import (
    AnyURLError,
    ConnectFailed,
    LoginDenied,
    PartialTransfer,
    RemoteAccessDenied,
    RemoteFileNotFound,
    ResumeFailed,
)
from anyurl.options import FTPOptions
from anyurl.resolver import Resolver
from anyurl.resource import ResourceInfo
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.ftp.handler import FTPHandler
from anyurl.url import URL
from tests.peers import data as peer_data
from tests.peers.table import ANONYMOUS_PASSWORD, LOCAL_PASSWORD, LOCAL_USER

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

FTP_PEERS = ("vsftpd", "pure-ftpd", "pyftpdlib", "aioftp")
EMAIL = ANONYMOUS_PASSWORD


# -- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ftp_peers(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The `peers` fixture of tests/peers/pytest_plugin.py when conftest loads that plugin;
    until then the same launcher, started here for the FTP peers only."""
    try:
        yield request.getfixturevalue("peers")
        return
    except pytest.FixtureLookupError:
        pass
    import json

    from tests.peers import launcher
    from tests.peers.pytest_plugin import Peers

    state_env = os.environ.get("ANYURL_PEERS_STATE")
    if state_env:
        yield Peers(json.loads(Path(state_env).read_text()), Path(state_env))
        return
    # A private run directory: `python -m tests.peers start` empties .peers/ as a whole.
    run_dir = Path(tempfile.mkdtemp(prefix="anyurl-ftp-peers-"))
    state = launcher.start(list(FTP_PEERS), run_dir, log=lambda *_: None)
    try:
        yield Peers(state, run_dir / launcher.STATE_NAME)
    finally:
        launcher.stop(run_dir, log=lambda *_: None)
        shutil.rmtree(run_dir, ignore_errors=True)


def config(**changes: Any) -> Config:
    settings: dict[str, Any] = {"anonymous_email": EMAIL, "use_netrc": False,
                                "connect_timeout": 10, "read_timeout": 20}
    return Config(**{**settings, **changes})


async def fetch(
    url: str, *, cfg: Config | None = None, **options: Any
) -> tuple[bytes, ResourceInfo]:
    async with (
        Resolver(cfg or config(), warn=lambda message: None) as resolver,
        resolver.open(url, FetchOptions(**options)) as resource,
    ):
        return await resource.read(), resource.info


def base(peers: Any, name: str, login: str = "") -> str:
    peer = peers[name]
    return f"ftp://{login}{peer.host}:{peer.port}/"


class CommandLog:
    """The pyftpdlib peer's log of received command lines, from now on, per session."""

    def __init__(self, peers: Any):
        self.path = Path(str(peers["pyftpdlib"].extra["command_log"]))
        self.start = self.path.stat().st_size

    def sessions(self) -> list[list[str]]:
        with self.path.open("rb") as f:
            f.seek(self.start)
            text = f.read().decode("utf-8", "surrogateescape")
        sessions: dict[str, list[str]] = {}
        for line in text.splitlines():
            session, _, command = line.partition(" ")
            sessions.setdefault(session, []).append(command)
        return list(sessions.values())


def anonymous(*commands: str) -> list[str]:
    return ["USER anonymous", f"PASS {EMAIL}", "PWD", *commands, "QUIT"]


# -- the RFC 1738 matrix on every server ------------------------------------------------------

FILES = [
    pytest.param("hello.txt", "hello.txt", id="text-name-type-i"),
    pytest.param("bin1k.dat", "bin1k.dat", id="binary-guessed-type-i"),
    pytest.param("pub/nested/deeper/file.txt", "pub/nested/deeper/file.txt", id="three-cwds"),
    pytest.param("pub/with%20space.txt", "pub/with space.txt", id="space"),
    pytest.param("pub/semi%3Bcolon.txt", "pub/semi;colon.txt", id="semicolon"),
    pytest.param("pub/per%25cent.txt", "pub/per%cent.txt", id="percent"),
    pytest.param("%2Fpub/readme.txt", "pub/readme.txt", id="rfc-absolute-cwd"),
    pytest.param("pub%2Fnested/deeper/file.txt", "pub/nested/deeper/file.txt",
                 id="encoded-slash-in-cwd"),
    pytest.param("pub/readme.txt;type=a", "pub/readme.txt", id="type-a"),
    pytest.param("bin1k.dat;type=i", "bin1k.dat", id="type-i"),
]


@pytest.mark.parametrize("server", FTP_PEERS)
@pytest.mark.parametrize(("path", "expected"), FILES)
async def test_retrieve(ftp_peers: Any, server: str, path: str, expected: str) -> None:
    body, info = await fetch(base(ftp_peers, server) + path)
    assert body == peer_data.expected_bytes(expected)
    assert info.kind == "file"
    assert info.filename == expected.rsplit("/", 1)[-1]


@pytest.mark.parametrize("server", FTP_PEERS)
async def test_large_binary_file_is_complete(ftp_peers: Any, server: str) -> None:
    digest = hashlib.sha256()
    received = 0
    async with (
        Resolver(config(), warn=lambda m: None) as resolver,
        resolver.open(base(ftp_peers, server) + peer_data.LARGE_NAME) as res,
    ):
        async for chunk in res:
            digest.update(chunk)
            received += len(chunk)
        info = res.info
    assert received == ftp_peers.large_size
    assert digest.hexdigest() == ftp_peers.files["large.dat"]["sha256"]
    if server != "aioftp":  # aioftp's server has no SIZE
        assert info.size == info.total_size == ftp_peers.large_size


@pytest.mark.parametrize("server", FTP_PEERS)
@pytest.mark.parametrize("path", ["pub/nested/;type=d", "pub/nested/", "pub/nested", "pub;type=d"])
async def test_directory_listing(ftp_peers: Any, server: str, path: str) -> None:
    """`;type=d` lists; so does a path ending in `/`, and a name RETR cannot get (Lynx)."""
    if path == "pub;type=d":
        body, info = await fetch(base(ftp_peers, server) + path)
        assert b"nested" in body and b"readme.txt" in body
    else:
        body, info = await fetch(base(ftp_peers, server) + path)
        assert b"deeper" in body
    assert info.kind == "directory"
    assert b"\r\n" not in body


@pytest.mark.parametrize("server", FTP_PEERS)
async def test_listing_of_many_files(ftp_peers: Any, server: str) -> None:
    body, _ = await fetch(base(ftp_peers, server) + "many/")
    names = {line.rsplit(b" ", 1)[-1] for line in body.splitlines()}
    assert {b"file%03d.txt" % i for i in range(peer_data.MANY_COUNT)} <= names


@pytest.mark.parametrize("server", FTP_PEERS)
async def test_null_cwd(ftp_peers: Any, server: str) -> None:
    """`//pub/readme.txt` sends `CWD ` with a null argument (RFC 1738 3.2.2) and lives with
    the answer: vsftpd refuses it (exit 9), the others go to the login directory."""
    url = base(ftp_peers, server) + "/pub/readme.txt"
    if server == "vsftpd":
        with pytest.raises(RemoteAccessDenied) as caught:
            await fetch(url)
        assert caught.value.exit_code == 9
        assert "CWD ''" in str(caught.value) and "550" in str(caught.value)
    else:
        body, _ = await fetch(url)
        assert body == peer_data.expected_bytes("pub/readme.txt")


@pytest.mark.parametrize("server", FTP_PEERS)
async def test_missing_file_is_78_and_missing_directory_is_9(ftp_peers: Any, server: str) -> None:
    with pytest.raises(RemoteFileNotFound) as missing:
        await fetch(base(ftp_peers, server) + "pub/no-such-file.bin")
    assert missing.value.exit_code == 78
    assert "RETR 'no-such-file.bin'" in str(missing.value)
    with pytest.raises(RemoteAccessDenied) as denied:
        await fetch(base(ftp_peers, server) + "no-such-dir/file.bin")
    assert denied.value.exit_code == 9
    assert "CWD 'no-such-dir'" in str(denied.value)


@pytest.mark.parametrize("server", FTP_PEERS)
async def test_local_user_and_wrong_password(ftp_peers: Any, server: str) -> None:
    lines: list[str] = []
    login = f"{LOCAL_USER}:{LOCAL_PASSWORD}@"
    body, _ = await fetch(base(ftp_peers, server, login) + "bin1k.dat", trace=lines.append)
    assert body == peer_data.expected_bytes("bin1k.dat")
    assert f"> USER {LOCAL_USER}" in lines and "> PASS ****" in lines
    assert not any(LOCAL_PASSWORD in line for line in lines)

    with pytest.raises(LoginDenied) as caught:
        await fetch(base(ftp_peers, server, f"{LOCAL_USER}:wrong-pw@") + "bin1k.dat")
    assert caught.value.exit_code == 67
    assert "wrong-pw" not in str(caught.value) and "****" in str(caught.value)
    assert "53" in str(caught.value)  # the server's reply line is quoted


@pytest.mark.parametrize("server", FTP_PEERS)
async def test_password_prompt(ftp_peers: Any, server: str) -> None:
    """A user without a password: the callback is asked once, the pool keeps the login."""
    asked: list[URL] = []

    async def ask(url: URL) -> str | None:
        asked.append(url)
        return LOCAL_PASSWORD

    url = base(ftp_peers, server, f"{LOCAL_USER}@") + "hello.txt"
    async with Resolver(config(), warn=lambda m: None) as resolver:
        for _ in range(2):
            async with resolver.open(url, FetchOptions(password_callback=ask)) as res:
                assert await res.read() == peer_data.expected_bytes("hello.txt")
    assert [u.user for u in asked] == [LOCAL_USER]

    async def refuse(url: URL) -> str | None:
        return None

    for options in ({}, {"password_callback": refuse}):
        with pytest.raises(LoginDenied, match="asks for the password"):
            await fetch(url, **options)


@pytest.mark.parametrize("server", FTP_PEERS)
async def test_resume_with_rest(ftp_peers: Any, server: str, tmp_path: Path) -> None:
    full = peer_data.expected_bytes("bin1k.dat")
    target = tmp_path / "bin1k.dat"
    (tmp_path / "bin1k.dat.part").write_bytes(full[:300])
    async with Resolver(config(), warn=lambda m: None) as resolver:
        result = await resolver.download(base(ftp_peers, server) + "bin1k.dat", target,
                                         resume=True)
    assert target.read_bytes() == full
    assert result.resumed_from == 300
    assert result.bytes == len(full) - 300


async def test_resume_edges(ftp_peers: Any) -> None:
    url = base(ftp_peers, "vsftpd") + "bin1k.dat"
    body, info = await fetch(url, offset=1024)
    assert body == b"" and info.offset == 1024 and info.size == 0
    with pytest.raises(ResumeFailed) as caught:
        await fetch(url, offset=2000)
    assert caught.value.exit_code == 36


@pytest.mark.parametrize("server", FTP_PEERS)
async def test_pool_reuses_one_login(ftp_peers: Any, server: str) -> None:
    paths = ["pub/nested/deeper/file.txt", "hello.txt", "pub/readme.txt", "bin1k.dat"] * 3
    async with Resolver(config(), warn=lambda m: None) as resolver:
        for path in paths:
            body = await resolver.fetch(base(ftp_peers, server) + path)
            assert body == peer_data.expected_bytes(path)
        handler = resolver.handler_for(resolver.parse(base(ftp_peers, server)))
        assert isinstance(handler, FTPHandler)
        assert handler.stats == {"connections": 1, "reused": len(paths) - 1}


async def test_pool_replaces_a_dead_or_lost_connection(ftp_peers: Any) -> None:
    """A pooled connection that died while idle, or cannot CWD back home, is replaced by a
    fresh login and the URL replayed; the caller sees only the right bytes."""
    root = base(ftp_peers, "vsftpd")
    lines: list[str] = []
    async with Resolver(config(), warn=lambda m: None) as resolver:
        await resolver.fetch(root + "pub/readme.txt")
        handler = resolver.handler_for(resolver.parse(root))
        assert isinstance(handler, FTPHandler)
        [pooled] = [c for controls in handler.pool.idle.values() for c in controls]
        # As if the server had timed it out: the connection breaks under us (a close of
        # our own would be a bug, StreamClosed, which the pool rightly does not retry).
        sock = pooled.stream.raw.extra(anyio.abc.SocketAttribute.raw_socket)
        sock.shutdown(socket.SHUT_RDWR)
        body = await resolver.fetch(root + "pub/nested/deeper/file.txt",
                                    FetchOptions(trace=lines.append))
        assert body == peer_data.expected_bytes("pub/nested/deeper/file.txt")
        [pooled] = [c for controls in handler.pool.idle.values() for c in controls]
        pooled.home = "/no-such-home"  # as if the login directory had gone
        body = await resolver.fetch(root + "hello.txt", FetchOptions(trace=lines.append))
        assert body == peer_data.expected_bytes("hello.txt")
        assert handler.stats == {"connections": 3, "reused": 2}
    assert any("dead; logging in again" in line for line in lines)
    assert any("cannot return to the login directory" in line for line in lines)


async def test_pool_idle_timeout_zero_reconnects(ftp_peers: Any) -> None:
    async with Resolver(config(idle_timeout=0), warn=lambda m: None) as resolver:
        for _ in range(3):
            await resolver.fetch(base(ftp_peers, "vsftpd") + "hello.txt")
        handler = resolver.handler_for(resolver.parse(base(ftp_peers, "vsftpd")))
        assert isinstance(handler, FTPHandler)
        assert handler.stats == {"connections": 3, "reused": 0}


@pytest.mark.parametrize("server", FTP_PEERS)
async def test_early_close_and_cancellation_abort(ftp_peers: Any, server: str) -> None:
    """A transfer given up half-way sends ABOR and QUIT and is never pooled."""
    url = base(ftp_peers, server) + peer_data.LARGE_NAME
    lines: list[str] = []
    async with Resolver(config(), warn=lambda m: None) as resolver:
        async with resolver.open(url, FetchOptions(trace=lines.append)) as res:
            async for _chunk in res:
                break
        assert lines[-2:] == ["> ABOR", "> QUIT"]
        with anyio.move_on_after(0.05) as scope:
            async with resolver.open(url) as res:
                async for _chunk in res:
                    await anyio.sleep(1)
        assert scope.cancelled_caught
        assert await resolver.fetch(base(ftp_peers, server) + "bin1k.dat") == (
            peer_data.expected_bytes("bin1k.dat"))
        handler = resolver.handler_for(resolver.parse(url))
        assert isinstance(handler, FTPHandler)
        assert handler.stats == {"connections": 3, "reused": 0}


@pytest.mark.parametrize("server", ["vsftpd", "pure-ftpd", "pyftpdlib"])
async def test_active_mode(ftp_peers: Any, server: str) -> None:
    lines: list[str] = []
    body, _ = await fetch(base(ftp_peers, server) + "pub/nested/deeper/file.txt",
                          schemes=(FTPOptions(passive=False),), trace=lines.append)
    assert body == peer_data.expected_bytes("pub/nested/deeper/file.txt")
    assert any(line.startswith("> EPRT |1|127.0.0.1|") for line in lines)


async def test_active_mode_refused_by_aioftp(ftp_peers: Any) -> None:
    """aioftp's server implements neither EPRT nor PORT: a clear error, exit 7."""
    with pytest.raises(ConnectFailed, match="PORT") as caught:
        await fetch(base(ftp_peers, "aioftp") + "bin1k.dat", schemes=(FTPOptions(passive=False),))
    assert caught.value.exit_code == 7


# -- exact command sequences, from the pyftpdlib peer's log ------------------------------------

SEQUENCES = [
    pytest.param("%2Fpub/readme.txt",
                 ["CWD /pub", "TYPE I", "SIZE readme.txt", "EPSV",
                  "RETR readme.txt"], id="rfc-absolute-cwd"),
    pytest.param("pub/readme.txt",
                 ["CWD pub", "TYPE I", "SIZE readme.txt", "EPSV",
                  "RETR readme.txt"], id="rfc-relative-cwd"),
    pytest.param("/pub/readme.txt",
                 ["CWD ", "CWD pub", "TYPE I", "SIZE readme.txt", "EPSV",
                  "RETR readme.txt"], id="rfc-null-cwd"),
    pytest.param("/hello.txt", ["CWD ", "TYPE I", "SIZE hello.txt", "EPSV",
                  "RETR hello.txt"],
                 id="empty-segment"),
    pytest.param("pub/nested;type=d", ["CWD pub", "EPSV", "NLST nested"], id="type-d"),
    pytest.param("pub/;type=d", ["CWD pub", "EPSV", "NLST"], id="type-d-empty-name"),
    pytest.param("pub/nested/", ["CWD pub", "CWD nested", "EPSV", "NLST"], id="trailing-slash"),
    pytest.param("pub/readme.txt;type=a", ["CWD pub", "TYPE A", "EPSV", "RETR readme.txt"],
                 id="type-a"),
    pytest.param("pub/readme.txt;type=i",
                 ["CWD pub", "TYPE I", "SIZE readme.txt", "EPSV", "RETR readme.txt"],
                 id="type-i"),
    pytest.param("pub/with%20space.txt", ["CWD pub", "TYPE I", "SIZE with space.txt", "EPSV",
                  "RETR with space.txt"],
                 id="space"),
    pytest.param("pub/semi%3Bcolon.txt", ["CWD pub", "TYPE I", "SIZE semi;colon.txt", "EPSV",
                  "RETR semi;colon.txt"],
                 id="semicolon"),
    pytest.param("pub/per%25cent.txt", ["CWD pub", "TYPE I", "SIZE per%cent.txt", "EPSV",
                  "RETR per%cent.txt"],
                 id="percent"),
    pytest.param("pub%2Fnested/deeper/file.txt",
                 ["CWD pub/nested", "CWD deeper", "TYPE I", "SIZE file.txt", "EPSV",
                  "RETR file.txt"],
                 id="encoded-slash"),
    pytest.param("pub/nested",
                 ["CWD pub", "TYPE I", "SIZE nested", "EPSV", "RETR nested", "CWD nested",
                  "EPSV", "NLST"], id="directory-without-slash"),
]


@pytest.mark.parametrize(("path", "commands"), SEQUENCES)
async def test_command_sequence(ftp_peers: Any, path: str, commands: list[str]) -> None:
    log = CommandLog(ftp_peers)
    await fetch(base(ftp_peers, "pyftpdlib") + path)
    assert log.sessions() == [anonymous(*commands)]


@pytest.mark.parametrize(("path", "commands"), [
    p for p in SEQUENCES if p.id != "directory-without-slash"])  # that one falls back
async def test_plan_is_the_dialogue_the_server_received(
    ftp_peers: Any, path: str, commands: list[str]
) -> None:
    """--plan and open() come from one command list: what the server logged is the plan."""
    log = CommandLog(ftp_peers)
    url = base(ftp_peers, "pyftpdlib") + path
    async with Resolver(config(), warn=lambda m: None) as resolver:
        planned = resolver.plan(url)
        async with resolver.open(url) as resource:
            await resource.read()
    [session] = log.sessions()
    assert [line for line in planned if not line.startswith("PASS")] == [
        line for line in session if not line.startswith("PASS")]


async def test_type_a_with_an_empty_name_lists_the_directory(ftp_peers: Any) -> None:
    log = CommandLog(ftp_peers)
    body, info = await fetch(base(ftp_peers, "pyftpdlib") + "pub/;type=a")
    assert info.kind == "directory" and b"readme.txt" in body
    assert log.sessions() == [anonymous("CWD pub", "EPSV", "NLST")]


async def test_command_sequence_of_errors(ftp_peers: Any) -> None:
    log = CommandLog(ftp_peers)
    with pytest.raises(RemoteFileNotFound):
        await fetch(base(ftp_peers, "pyftpdlib") + "pub/missing.bin")
    with pytest.raises(LoginDenied):
        await fetch(base(ftp_peers, "pyftpdlib", f"{LOCAL_USER}:bad@") + "hello.txt")
    assert log.sessions() == [
        anonymous("CWD pub", "TYPE I", "SIZE missing.bin", "EPSV", "RETR missing.bin",
                  "CWD missing.bin"),
        [f"USER {LOCAL_USER}", "PASS bad", "QUIT"],
    ]


async def test_command_sequence_of_pool_reuse_and_resume(ftp_peers: Any) -> None:
    """Reuse goes back with `CWD <what PWD said>` only when the next URL's directory is not
    where the connection already is, and sends TYPE only when it changes (RFC 1738 3.2.5:
    remembered, not guessed)."""
    log = CommandLog(ftp_peers)
    root = base(ftp_peers, "pyftpdlib")
    async with Resolver(config(), warn=lambda m: None) as resolver:
        await resolver.fetch(root + "pub/nested/deeper/file.txt")
        await resolver.fetch(root + "hello.txt;type=a")
        await resolver.fetch(root + "bin1k.dat")
        async with resolver.open(root + "pub/readme.txt;type=i", FetchOptions(offset=5)) as res:
            assert await res.read() == peer_data.expected_bytes("pub/readme.txt")[5:]
            assert res.info.offset == 5
    assert log.sessions() == [anonymous(
        "CWD pub", "CWD nested", "CWD deeper", "TYPE I", "SIZE file.txt", "EPSV",
        "RETR file.txt",
        "CWD /", "TYPE A", "EPSV", "RETR hello.txt",
        "TYPE I", "SIZE bin1k.dat", "EPSV", "RETR bin1k.dat",
        "CWD pub", "SIZE readme.txt", "EPSV", "REST 5", "RETR readme.txt",
    )]


async def test_reuse_in_the_same_directory_sends_no_cwd(ftp_peers: Any) -> None:
    log = CommandLog(ftp_peers)
    root = base(ftp_peers, "pyftpdlib")
    async with Resolver(config(), warn=lambda m: None) as resolver:
        for name in ("readme.txt;type=a", "readme.txt;type=a", "nested/deeper/file.txt"):
            await resolver.fetch(root + "pub/" + name)
    assert log.sessions() == [anonymous(
        "CWD pub", "TYPE A", "EPSV", "RETR readme.txt",
        "EPSV", "RETR readme.txt",  # same directory, same type: nothing to send again
        "CWD nested", "CWD deeper",  # a prefix: only the rest
        "TYPE I", "SIZE file.txt", "EPSV", "RETR file.txt",
    )]


async def test_reuse_goes_back_and_down_in_one_cwd(ftp_peers: Any) -> None:
    """A reused connection leaving its directory sends PWD's path joined with the next
    URL's segments as one CWD; a refused one gets the walk, which names the segment."""
    log = CommandLog(ftp_peers)
    root = base(ftp_peers, "pyftpdlib")
    async with Resolver(config(), warn=lambda m: None) as resolver:
        await resolver.fetch(root + "pub/nested/deeper/file.txt")
        await resolver.fetch(root + "pub/readme.txt")
        await resolver.fetch(root + "pub/nested/deeper/file.txt")
        with pytest.raises(RemoteAccessDenied) as denied:
            await resolver.fetch(root + "no-such-dir/x.txt")
    assert "no-such-dir" in str(denied.value)
    assert log.sessions() == [anonymous(
        "CWD pub", "CWD nested", "CWD deeper", "TYPE I", "SIZE file.txt", "EPSV",
        "RETR file.txt",
        "CWD /pub", "SIZE readme.txt", "EPSV", "RETR readme.txt",  # not a prefix: joined
        "CWD nested", "CWD deeper", "SIZE file.txt", "EPSV", "RETR file.txt",  # a prefix
        "CWD /no-such-dir", "CWD /", "CWD no-such-dir",  # refused: the walk says which
    )]


async def test_plan_is_what_is_sent(ftp_peers: Any) -> None:
    """`--plan` lists the commands a fresh connection sends, PASS masked."""
    log = CommandLog(ftp_peers)
    url = base(ftp_peers, "pyftpdlib") + "%2Fpub/nested/deeper/file.txt;type=i"
    async with Resolver(config(), warn=lambda m: None) as resolver:
        plan = resolver.plan(url)
        await resolver.fetch(url)
    [sent] = log.sessions()
    assert plan == [line if not line.startswith("PASS ") else "PASS ****" for line in sent]
    assert plan[:2] == ["USER anonymous", "PASS ****"]


async def test_password_prompt_sequence(ftp_peers: Any) -> None:
    log = CommandLog(ftp_peers)

    async def ask(url: URL) -> str | None:
        return LOCAL_PASSWORD

    await fetch(base(ftp_peers, "pyftpdlib", f"{LOCAL_USER}@") + "hello.txt",
                password_callback=ask)
    assert log.sessions() == [[f"USER {LOCAL_USER}", f"PASS {LOCAL_PASSWORD}", "PWD", "TYPE I",
                               "SIZE hello.txt", "EPSV", "RETR hello.txt", "QUIT"]]


# -- quirky servers: pyftpdlib in a thread ----------------------------------------------------


class _Truncated:
    """A file that ends early: the server sends fewer bytes than SIZE announced."""

    def __init__(self, f: Any, limit: int):
        self._f = f
        self._left = limit

    def read(self, n: int = -1) -> bytes:
        if self._left <= 0:
            return b""
        chunk: bytes = self._f.read(min(n if n >= 0 else self._left, self._left))
        self._left -= len(chunk)
        return chunk

    def __getattr__(self, name: str) -> Any:
        return getattr(self._f, name)


@pytest.fixture(scope="module")
def quirky(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    from pyftpdlib.authorizers import DummyAuthorizer
    from pyftpdlib.filesystems import AbstractedFS
    from pyftpdlib.handlers import FTPHandler as ServerHandler
    from pyftpdlib.ioloop import IOLoop
    from pyftpdlib.servers import FTPServer

    root = tmp_path_factory.mktemp("quirky")
    for rel, content in peer_data.small_files().items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(content)
    (root / "crlf.txt").write_bytes(CRLF_TEXT)

    authorizer = DummyAuthorizer()
    authorizer.add_anonymous(str(root))
    authorizer.add_user("acctuser", "acctpw", str(root), perm="elr")

    class Legacy(ServerHandler):  # no EPSV, and a 227 naming an address that is not ours
        proto_cmds: ClassVar[dict[str, Any]] = {
            k: v for k, v in ServerHandler.proto_cmds.items() if k != "EPSV"}
        masquerade_address = "10.255.0.1"

    class CutFS(AbstractedFS):
        def open(self, filename: str, mode: str) -> Any:
            f = super().open(filename, mode)
            return _Truncated(f, os.path.getsize(filename) // 2)

    class Cut(ServerHandler):
        abstracted_fs = CutFS
        use_sendfile = False

    class Account(ServerHandler):  # 332 after PASS: ACCT needed
        proto_cmds: ClassVar[dict[str, Any]] = {**ServerHandler.proto_cmds,
                      "ACCT": {"perm": None, "auth": False, "arg": True, "help": "ACCT"}}

        def ftp_PASS(self, line: str) -> None:
            if self.username == "acctuser" and not getattr(self, "acct_ok", False):
                self.pending_password = line
                self.respond("332 Need account for login.")
                return
            super().ftp_PASS(line)

        def ftp_ACCT(self, line: str) -> None:
            if line != "acct1":
                self.respond("530 Bad account.")
                return
            self.acct_ok = True
            super().ftp_PASS(self.pending_password)

    ioloop = IOLoop()
    servers = {}
    urls = {}
    for name, cls in (("legacy", Legacy), ("cut", Cut), ("account", Account),
                      ("plain", ServerHandler)):
        cls.authorizer = authorizer
        server = FTPServer(("127.0.0.1", 0), cls, ioloop=ioloop)
        servers[name] = server
        urls[name] = f"ftp://127.0.0.1:{server.address[1]}/"
    thread = threading.Thread(
        target=lambda: ioloop.loop(timeout=0.05, blocking=True), daemon=True)
    thread.start()
    try:
        yield urls
    finally:
        for server in servers.values():
            server.close_all()
        thread.join(5)


async def test_epsv_refused_falls_back_to_pasv_and_ignores_its_address(
    quirky: dict[str, str],
) -> None:
    lines: list[str] = []
    async with Resolver(config(), warn=lambda m: None) as resolver:
        for path in ("bin1k.dat", "pub/readme.txt"):
            async with resolver.open(quirky["legacy"] + path,
                                     FetchOptions(trace=lines.append)) as res:
                assert await res.read() == peer_data.expected_bytes(path)
    sent = [line for line in lines if line.startswith("> ")]
    # EPSV once; after its 500 the connection remembers and goes straight to PASV.
    assert sent.count("> EPSV") == 1 and sent.count("> PASV") == 2
    assert any("ignoring the address 10.255.0.1" in line for line in lines)


#: A text file with CR LF line ends, as a DOS or Windows archive holds it.
CRLF_TEXT = b"a\r\nb\r\n"


async def test_text_name_is_archived_byte_for_byte(quirky: dict[str, str]) -> None:
    """Issue 19: without ;type= a .txt file is fetched in image type, the server's 6 bytes
    (not 4 after CR LF became LF), and a resume of it is a REST, not a refetch."""
    lines: list[str] = []
    body, info = await fetch(quirky["plain"] + "crlf.txt", trace=lines.append)
    assert body == CRLF_TEXT
    assert info.size == len(CRLF_TEXT)
    assert "> TYPE I" in lines and "> TYPE A" not in lines
    lines.clear()
    async with (
        Resolver(config(), warn=lambda m: None) as resolver,
        resolver.open(quirky["plain"] + "crlf.txt",
                      FetchOptions(offset=3, trace=lines.append)) as res,
    ):
        assert await res.read() == CRLF_TEXT[3:]
        assert res.info.offset == 3
    assert "> REST 3" in lines


@pytest.mark.parametrize(
    ("path", "ascii", "expected"),
    [
        ("crlf.txt", "on", b"a\nb\n"),
        ("crlf.txt", "guess", b"a\nb\n"),
        ("crlf.txt;type=a", "off", b"a\nb\n"),
        ("crlf.txt;type=i", "on", CRLF_TEXT),
    ],
)
async def test_text_mode_when_asked(
    quirky: dict[str, str], path: str, ascii: str, expected: bytes,
) -> None:
    """TYPE A only when the URL (;type=a) or the caller (ascii=) asks; ;type=i wins."""
    body, _ = await fetch(quirky["plain"] + path, schemes=(FTPOptions(ascii=ascii),))
    assert body == expected


async def test_transfer_cut_short_is_partial(quirky: dict[str, str]) -> None:
    with pytest.raises(PartialTransfer) as caught:
        await fetch(quirky["cut"] + "bin1k.dat")
    assert caught.value.exit_code == 18
    assert (caught.value.received, caught.value.expected) == (512, 1024)


async def test_account_when_asked(quirky: dict[str, str], tmp_path: Path) -> None:
    netrc = tmp_path / "netrc"
    host = quirky["account"].split("/")[2].split(":")[0]
    netrc.write_text(f"machine {host} login acctuser password acctpw account acct1\n")
    lines: list[str] = []
    body, _ = await fetch(quirky["account"] + "hello.txt", trace=lines.append,
                          cfg=config(use_netrc=True, netrc_path=str(netrc)))
    assert body == peer_data.expected_bytes("hello.txt")
    assert [line for line in lines if line[:6] in ("> USER", "> PASS", "> ACCT")] == [
        "> USER acctuser", "> PASS ****", "> ACCT ****"]
    # The URL names the user and no account is known: login denied, not a hang.
    with pytest.raises(LoginDenied, match="account"):
        await fetch(quirky["account"].replace("//", "//acctuser:acctpw@") + "hello.txt")


async def test_netrc_gives_credentials(ftp_peers: Any, tmp_path: Path) -> None:
    netrc = tmp_path / "netrc"
    peer = ftp_peers["pyftpdlib"]
    netrc.write_text(f"machine {peer.host} login {LOCAL_USER} password {LOCAL_PASSWORD}\n")
    log = CommandLog(ftp_peers)
    body, _ = await fetch(base(ftp_peers, "pyftpdlib") + "hello.txt",
                          cfg=config(use_netrc=True, netrc_path=str(netrc)))
    assert body == peer_data.expected_bytes("hello.txt")
    assert log.sessions()[0][:2] == [f"USER {LOCAL_USER}", f"PASS {LOCAL_PASSWORD}"]


async def test_cr_lf_never_reaches_the_wire(ftp_peers: Any) -> None:
    """An encoded CR/LF is refused before connecting (RFC 1738 section 6)."""
    log = CommandLog(ftp_peers)
    for path in ("pub%0D%0ADELE%20x/file", "file%0A"):
        with pytest.raises(AnyURLError) as caught:
            await fetch(base(ftp_peers, "pyftpdlib") + path)
        assert caught.value.exit_code == 3
    assert log.sessions() == []


async def test_netrc_default_never_replaces_anonymous_login(
    ftp_peers: Any, tmp_path: Path
) -> None:
    """RFC 1738 3.2.1: no user in the URL is an anonymous login, whatever netrc's default."""
    netrc = tmp_path / "netrc"
    netrc.write_text(f"default login {LOCAL_USER} password {LOCAL_PASSWORD}\n")
    log = CommandLog(ftp_peers)
    cfg = config(use_netrc=True, netrc_path=str(netrc))
    await fetch(base(ftp_peers, "pyftpdlib") + "hello.txt", cfg=cfg)
    # a named user may take its password from the default entry
    await fetch(base(ftp_peers, "pyftpdlib", f"{LOCAL_USER}@") + "hello.txt", cfg=cfg)
    sessions = log.sessions()
    assert sessions[0][:2] == ["USER anonymous", f"PASS {EMAIL}"]
    assert sessions[1][:2] == [f"USER {LOCAL_USER}", f"PASS {LOCAL_PASSWORD}"]


@pytest.mark.parametrize("login", ["@", ":pw@"], ids=["empty-user", "empty-user-password"])
async def test_an_empty_user_is_anonymous(ftp_peers: Any, login: str) -> None:
    log = CommandLog(ftp_peers)
    await fetch(base(ftp_peers, "pyftpdlib", login) + "hello.txt")
    assert log.sessions()[0][:2] == ["USER anonymous", f"PASS {EMAIL}"]


def test_the_anonymous_password_is_configured_never_made_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("EMAIL", raising=False)
    assert Config().anonymous_password() == "anonymous@"
    monkeypatch.setenv("EMAIL", "me@example.net")
    assert Config().anonymous_password() == "me@example.net"
    assert Config(anonymous_email="set@example.org").anonymous_password() == "set@example.org"


@pytest.fixture
def deaf_data_port() -> Iterator[str]:
    """A server whose EPSV names a closed port and which never answers RETR: it waits
    for a data connection that cannot come (as a server behind a broken NAT does)."""
    from pyftpdlib.authorizers import DummyAuthorizer
    from pyftpdlib.handlers import FTPHandler as ServerHandler
    from pyftpdlib.ioloop import IOLoop
    from pyftpdlib.servers import FTPServer

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    root = tempfile.mkdtemp(prefix="anyurl-deaf-")
    authorizer = DummyAuthorizer()
    authorizer.add_anonymous(root)

    class Deaf(ServerHandler):
        def ftp_EPSV(self, line: str) -> None:
            self.respond(f"229 Entering Extended Passive Mode (|||{closed}|)")

        def ftp_RETR(self, file: str) -> None:
            pass  # no reply: the data connection never arrives

    Deaf.authorizer = authorizer
    ioloop = IOLoop()
    server = FTPServer(("127.0.0.1", 0), Deaf, ioloop=ioloop)
    thread = threading.Thread(
        target=lambda: ioloop.loop(timeout=0.05, blocking=True), daemon=True)
    thread.start()
    try:
        yield f"ftp://127.0.0.1:{server.address[1]}/"
    finally:
        server.close_all()
        thread.join(5)
        shutil.rmtree(root, ignore_errors=True)


async def test_a_refused_data_connection_fails_before_the_reply_is_awaited(
    deaf_data_port: str,
) -> None:
    """RETR goes out while the passive data connection is still being made (issue 21:
    one round trip less per file); the connection is finished before the reply is
    awaited, so a refused one is curl's 7 at once, not the read timeout (28) of a
    server that waits for it."""
    lines: list[str] = []
    with pytest.raises(ConnectFailed, match="could not connect") as caught:
        await fetch(deaf_data_port + "file.dat", cfg=config(read_timeout=5),
                    trace=lines.append)
    assert caught.value.exit_code == 7
    sent = [line for line in lines if line.startswith("> ")]
    assert "> RETR file.dat" in sent


async def test_who_logs_in_is_decided_per_login_not_per_url(
    quirky: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21: a URL served by a pooled control connection needs no login decision
    (netrc look-up included); three files, one login, one decision."""
    from anyurl.schemes.ftp import handler as ftp_handler

    decided: list[str] = []
    real = ftp_handler.login_for

    def counting(url: URL, config: Config, warn: Any) -> Any:
        decided.append(str(url))
        return real(url, config, warn)

    monkeypatch.setattr(ftp_handler, "login_for", counting)
    async with Resolver(config(), warn=lambda m: None) as resolver:
        for path in ("bin1k.dat", "hello.txt", "pub/readme.txt"):
            async with resolver.open(quirky["plain"] + path) as res:
                assert await res.read() == peer_data.expected_bytes(path)
    assert decided == [quirky["plain"] + "bin1k.dat"]
