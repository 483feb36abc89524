"""``text()``, ``json()`` and ``iter_lines()`` on what real servers send (issue 23)."""

from __future__ import annotations

import pytest

from anyurl import Resolver
from tests.peers import data
from tests.peers.pytest_plugin import Peers

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


@pytest.mark.parametrize("peer", ["nginx", "vsftpd"])
async def test_text_and_lines_of_a_real_server(peers: Peers, peer: str) -> None:
    url = peers[peer].url("hello.txt")
    expected = data.HELLO_TEXT.decode()
    async with Resolver() as resolver:
        async with resolver.open(url) as res:
            assert await res.text() == expected
        async with resolver.open(url) as res:
            assert [line async for line in res.iter_lines()] == expected.splitlines()
