"""A small ftp file is read whole before ``open`` returns (issue 21), on real servers.

SIZE said at most ``WHOLE_AT_MOST`` bytes in image type: the body, the 226 and the
control connection's return to the pool are done by ``open``, and the resource is a
body in memory (``Resource.take_whole``) that the downloader writes without an
iterator. A larger file, TYPE A and a body that is not what SIZE said still stream.
"""

from __future__ import annotations

from typing import Any

import pytest

from anyurl.options import FTPOptions
from anyurl.resolver import Resolver
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.ftp.handler import WHOLE_AT_MOST, FTPHandler
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
