"""Servers that do not speak WAIS back (issue 29, :mod:`anyurl.schemes.wais.hostile`):
a silent one ends at the Init's own deadline, saying the server may not speak WAIS, not
at the read timeout; a short answer that is no WAIS header is recognised at once."""

from __future__ import annotations

import subprocess
import sys

import anyio
import pytest

from anyurl.config import Config
from anyurl.errors import ProtocolError, TransferTimeout
from anyurl.options import WAISOptions
from anyurl.resolver import Resolver
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.wais.hostile import BEHAVIOURS, HostileWAISServer
from tests.cli.test_curl_options import _env

pytestmark = pytest.mark.anyio

#: Long enough that a test reaching it would fail its guard: what must not be waited.
READ_TIMEOUT = 30.0


async def _fetch(url: str, *, init_timeout: float) -> None:
    options = FetchOptions(schemes=(WAISOptions(init_timeout=init_timeout),))
    async with Resolver(Config(read_timeout=READ_TIMEOUT), warn=lambda _: None) as resolver:
        await resolver.fetch(url, options)


async def test_a_silent_server_ends_at_the_inits_deadline() -> None:
    with HostileWAISServer(BEHAVIOURS["silent"]) as server:
        with anyio.fail_after(20):  # a guard for the old behaviour, not a measured time
            with pytest.raises(TransferTimeout) as caught:
                await _fetch(server.url(), init_timeout=0.3)
        received = list(server.received)
    assert caught.value.exit_code == 28
    message = caught.value.message
    assert "within 0.3 s" in message and "may not speak WAIS (Z39.50-1988)" in message
    assert "read timeout" not in message and "read_timeout" not in (caught.value.hint or "")
    assert len(received) == 1 and received[0][10:12] == b"z2"  # our Init, one connection


@pytest.mark.parametrize("name", ["short-junk", "short-zero-junk"])
async def test_a_short_answer_that_is_not_wais_is_recognised_at_once(name: str) -> None:
    with HostileWAISServer(BEHAVIOURS[name]) as server:
        with anyio.fail_after(20):  # a guard for the old behaviour, not a measured time
            with pytest.raises(ProtocolError) as caught:
                # The Init's deadline as long as the read timeout: only recognising
                # the answer ends the request before it.
                await _fetch(server.url(), init_timeout=READ_TIMEOUT)
    assert caught.value.exit_code == 8
    assert "not a WAIS message" in caught.value.message, caught.value.message


def test_the_command_says_the_server_may_not_speak_wais() -> None:
    with HostileWAISServer(BEHAVIOURS["silent"]) as server:
        r = subprocess.run([sys.executable, "-m", "anyurl", "get", "--read-timeout", "1",
                            server.url()], capture_output=True, timeout=60, env=_env())
    assert r.returncode == 28, r.stderr
    assert b"may not speak WAIS" in r.stderr and b"within 1 s" in r.stderr
    assert b"--read-timeout" not in r.stderr, r.stderr
