"""A small ftp file is read whole before ``open`` returns (issue 21), on real servers.

SIZE said at most ``WHOLE_AT_MOST`` bytes in image type: the body, the 226 and the
control connection's return to the pool are done by ``open``, and the resource is a
body in memory (``Resource.take_whole``) that the downloader writes without an
iterator. A larger file, TYPE A and a body that is not what SIZE said still stream.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from anyurl.errors import PartialTransfer
from anyurl.options import FTPOptions
from anyurl.resolver import Resolver
from anyurl.schemes.base import FetchOptions
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


async def test_a_late_goodbye_is_no_read_timeout_of_the_file() -> None:
    """Without reuse the login says QUIT as soon as the file is read (inside the file's
    step on trio): a 221 slower than the read timeout ends the goodbye, not the file."""
    with StallingServer("none", quit_after=0.6) as server:
        async with Resolver(config(idle_timeout=0, read_timeout=0.3),
                            warn=lambda m: None) as resolver:
            assert await resolver.fetch(f"ftp://127.0.0.1:{server.port}/f") == b"data"
