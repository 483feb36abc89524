"""A small ftp file is read whole before ``open`` returns (issue 21), on real servers.

SIZE said at most ``WHOLE_AT_MOST`` bytes in image type: the body, the 226 and the
control connection's return to the pool are done by ``open``, and the resource is a
body in memory (``Resource.take_whole``) that the downloader writes without an
iterator. A larger file, TYPE A and a body that is not what SIZE said still stream.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from anyurl.errors import PartialTransfer
from anyurl.options import FTPOptions
from anyurl.resolver import Resolver
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.ftp import control
from anyurl.schemes.ftp.handler import WHOLE_AT_MOST, FTPHandler
from tests.hostile.test_ftp_stalls import StallingServer
from tests.integration.test_ftp import base, config, ftp_peers  # noqa: F401
from tests.peers import data as peer_data

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


@pytest.mark.parametrize("server", ["vsftpd", "pure-ftpd", "pyftpdlib"])
async def test_a_small_file_is_read_whole_and_its_login_pooled(ftp_peers: Any,  # noqa: F811
                                                                server: str) -> None:
    lines: list[str] = []
    async with Resolver(config(), warn=lambda m: None) as resolver:
        handler = resolver.handler_for(resolver.admit(base(ftp_peers, server)))
        assert isinstance(handler, FTPHandler)
        async with resolver.open(base(ftp_peers, server) + "bin1k.dat",
                                 FetchOptions(trace=lines.append)) as res:
            # The 226 is in and the login is back in the pool before a byte is read.
            assert lines[-1].startswith("< 226")
            assert sum(len(c) for c in handler.pool.idle.values()) == 1
            assert res.take_whole() == peer_data.expected_bytes("bin1k.dat")
        assert await resolver.fetch(base(ftp_peers, server) + "hello.txt") == (
            peer_data.expected_bytes("hello.txt"))
        assert handler.stats == {"connections": 1, "reused": 1}


async def test_a_large_file_and_type_a_stream(ftp_peers: Any) -> None:  # noqa: F811
    assert peer_data.large_size_from_env() > WHOLE_AT_MOST
    async with Resolver(config(), warn=lambda m: None) as resolver:
        async with resolver.open(base(ftp_peers, "vsftpd") + peer_data.LARGE_NAME) as res:
            assert res.take_whole() is None
            async for _chunk in res:
                break
        options = FetchOptions(schemes=(FTPOptions(ascii="on"),))
        async with resolver.open(base(ftp_peers, "vsftpd") + "hello.txt", options) as res:
            assert res.take_whole() is None
            assert await res.read() == peer_data.expected_bytes("hello.txt").replace(
                b"\r\n", b"\n")


@pytest.mark.parametrize(("sent", "said"), [(100_000, 4), (1024, 2048)])
async def test_a_body_not_as_size_said_streams_every_byte(tmp_path: Path, sent: int,
                                                          said: int) -> None:
    """Longer than SIZE said (and than the limit) or shorter: the bytes read so far
    come first, then the rest; a raw body is not offered past them (copy_to)."""
    body = bytes(i % 251 for i in range(sent))
    target = tmp_path / "out"
    with StallingServer("none", body, said) as server:
        async with (
            Resolver(config(), warn=lambda m: None) as resolver,
            resolver.open(f"ftp://127.0.0.1:{server.port}/f") as res,
        ):
            assert res.take_whole() is None
            fd = os.open(target, os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                if sent < said:
                    with pytest.raises(PartialTransfer) as caught:
                        await res.copy_to(fd)
                    assert (caught.value.received, caught.value.expected) == (sent, said)
                else:
                    assert await res.copy_to(fd) == sent
            finally:
                os.close(fd)
    assert target.read_bytes() == body


async def test_a_late_goodbye_is_no_read_timeout_of_the_file(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Without reuse the login says QUIT as soon as the file is read (inside the file's
    step on trio): a 221 slower than the read timeout ends the goodbye, not the file.

    The server holds the 221 until the test is over, and the goodbye's own bound is
    set past the read timeout, so the wait for the 221 meets the read timeout. That
    timeout is wide (3 s, not the server's pace) because the file's own replies must
    not meet it."""
    read_timeout = 3.0
    monkeypatch.setattr(control, "GOODBYE_TIMEOUT", read_timeout + 1.0)
    answer_quit = threading.Event()
    with StallingServer("none", hold_quit=answer_quit) as server:
        try:
            async with Resolver(config(idle_timeout=0, read_timeout=read_timeout),
                                warn=lambda m: None) as resolver:
                assert await resolver.fetch(f"ftp://127.0.0.1:{server.port}/f") == b"data"
            assert server.quit_seen.is_set()  # the goodbye was said, and not answered
        finally:
            answer_quit.set()


async def _batch(handler: FTPHandler, urls: list[str], connections: int, *,
                 stop_after: int | None = None) -> list[bytes | Exception]:
    from anyurl.url import parse

    got: list[bytes | Exception] = []
    batch = handler.open_batch([parse(u) for u in urls],
                               FetchOptions(connections=connections))
    try:
        async for _url, outcome in batch:
            if isinstance(outcome, Exception):
                got.append(outcome)
            else:
                got.append(await outcome.read())
            if stop_after is not None and len(got) == stop_after:
                break
    finally:
        await batch.aclose()
    return got


@pytest.mark.parametrize("connections", [1, 2, 3])
async def test_a_batch_goes_over_its_control_connections_in_order(
        ftp_peers: Any, connections: int) -> None:  # noqa: F811
    """A host's files are opened ``connections`` at a time on as many logins and handed
    over in the order given, a missing file failing only itself, a big one streaming."""
    root = base(ftp_peers, "vsftpd")
    names = [f"many/file{i:03d}.txt" for i in range(12)]
    names[4] = "no-such-file.txt"
    names[7] = peer_data.LARGE_NAME
    handler = FTPHandler(config())
    try:
        got = await _batch(handler, [root + n for n in names], connections)
    finally:
        await handler.aclose()
    for name, outcome in zip(names, got, strict=True):
        if name == "no-such-file.txt":
            assert isinstance(outcome, Exception)
        elif name == peer_data.LARGE_NAME:
            assert isinstance(outcome, bytes)
            assert hashlib.sha256(outcome).hexdigest() == peer_data.large_sha256(
                peer_data.large_size_from_env())
        else:
            assert outcome == peer_data.expected_bytes(name), name
    assert handler.stats["connections"] == connections


async def test_a_batch_left_early_closes_what_it_opened_ahead(ftp_peers: Any) -> None:  # noqa: F811
    root = base(ftp_peers, "vsftpd")
    handler = FTPHandler(config())
    try:
        got = await _batch(handler, [root + f"many/file{i:03d}.txt" for i in range(9)], 3,
                           stop_after=1)
        assert got == [peer_data.expected_bytes("many/file000.txt")]
        # The two files opened beside the first were closed, their logins pooled: the
        # next batch reuses them instead of logging in again.
        again = await _batch(handler, [root + f"many/file{i:03d}.txt" for i in range(3)], 3)
        assert again == [peer_data.expected_bytes(f"many/file{i:03d}.txt") for i in range(3)]
        assert handler.stats["connections"] == 3
    finally:
        await handler.aclose()


async def test_a_body_equal_to_the_saved_file_leaves_it_in_place(tmp_path: Path) -> None:
    """A tree's job whose body has the digest the caller names (``Job.same_as``: a
    mirror's refresh of an unchanged listing) leaves the file there as it is, given the
    job's time; a file of another size, or another digest, is written as always."""
    from anyurl.downloads.downloader import Downloader, DownloadPolicy, Job
    from anyurl.downloads.output import held_directories
    from anyurl.schemes.ftp.loopback import running_ftp_server

    served = tmp_path / "served"
    served.mkdir()
    bodies = {"same": b"same bytes\n", "cut": b"cut short locally\n", "new": b"new\n"}
    for name, body in bodies.items():
        (served / name).write_bytes(body)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "same").write_bytes(bodies["same"])
    (tree / "cut").write_bytes(bodies["cut"][:3])
    (tree / "new").write_bytes(b"old\n")
    before = {name: (tree / name).stat().st_ino for name in bodies}
    policy = DownloadPolicy(parallel=1, per_host=1, resume=True, clobber=True,
                            create_dirs=True)
    with running_ftp_server(served) as port:
        async with Resolver(config(), warn=lambda m: None) as resolver:
            jobs = [Job(f"ftp://127.0.0.1:{port}/{name}", tree / name, named_by_user=False,
                        tree=tree, digest=True, mtime=1_500_000_000.0,
                        same_as=hashlib.sha256(bodies[name] if name != "new"
                                               else b"old\n").hexdigest())
                    for name in bodies]
            with held_directories():
                results = await Downloader(resolver, policy).run(jobs)
    assert [r.error for r in results] == [None, None, None]
    assert [r.sha256 for r in results] == [hashlib.sha256(b).hexdigest()
                                           for b in bodies.values()]
    assert {name: (tree / name).read_bytes() for name in bodies} == bodies
    assert (tree / "same").stat().st_ino == before["same"]  # not written again
    assert (tree / "cut").stat().st_ino != before["cut"]    # its size differs: written
    assert (tree / "new").stat().st_ino != before["new"]    # another digest: written
    assert {(tree / name).stat().st_mtime for name in bodies} == {1_500_000_000.0}
