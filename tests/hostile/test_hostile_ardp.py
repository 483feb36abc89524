"""ARDP servers that ask the client to wait, again and again (issue 29): the request's
waits share one deadline, the read timeout, so it ends with exit 28 after a bounded
number of retransmissions however the server repeats its waits
(:mod:`anyurl.schemes.prospero.hostile`)."""

from __future__ import annotations

import subprocess
import sys

import anyio
import pytest

from anyurl.config import Config
from anyurl.errors import TransferTimeout
from anyurl.options import ProsperoOptions
from anyurl.resolver import Resolver
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.prospero.hostile import BEHAVIOURS, HostileARDPServer
from tests.cli.test_curl_options import _env

pytestmark = pytest.mark.anyio

READ_TIMEOUT = 0.5
ARDP_TIMEOUT = 0.05
#: Retransmissions fit in the deadline at most this often: each waits for a timer of at
#: least ARDP_TIMEOUT on the same clock, after the first transmission.
MOST_REQUESTS = int(READ_TIMEOUT / ARDP_TIMEOUT) + 1


@pytest.mark.parametrize("name", sorted(BEHAVIOURS))
async def test_the_waits_of_a_request_share_one_deadline(name: str) -> None:
    trace: list[str] = []
    options = FetchOptions(trace=trace.append, schemes=(
        ProsperoOptions(ardp_timeout=ARDP_TIMEOUT, ardp_retries=2),))
    with HostileARDPServer(BEHAVIOURS[name]) as server:
        # A guard for the old behaviour (which never ended), not a measured time.
        with anyio.fail_after(20):
            async with Resolver(Config(read_timeout=READ_TIMEOUT),
                                warn=lambda _: None) as resolver:
                with pytest.raises(TransferTimeout) as caught:
                    await resolver.fetch(server.url(), options)
        requests = server.requests
    assert caught.value.exit_code == 28
    assert "kept asking to wait" in caught.value.message, caught.value.message
    assert 1 <= requests <= MOST_REQUESTS, (requests, trace)


def test_the_command_says_the_server_kept_it_waiting() -> None:
    with HostileARDPServer(BEHAVIOURS["wait-each-time"]) as server:
        r = subprocess.run([sys.executable, "-m", "anyurl", "get", "--read-timeout", "0.5",
                            server.url()], capture_output=True, timeout=60, env=_env())
        requests = server.requests
    assert r.returncode == 28, r.stderr
    assert b"kept asking to wait" in r.stderr and b"0.5 s" in r.stderr
    assert requests == 1  # ardp_timeout's 4 s never ran out before the 0.5 s deadline
