"""SOCKS proxies that lie (:mod:`anyurl.testing.hostile_socks`): every lie ends in
curl's 97 with the proxy named, at once (no read timeout waited), on both backends and
from the command line; a proxy that answers a byte at a time still works, and no byte
of its reply is taken for the target's."""

from __future__ import annotations

import subprocess
import sys

import anyio
import pytest

from anyurl.config import Config
from anyurl.errors import ProxyError
from anyurl.resolver import Resolver
from anyurl.testing.hostile_socks import BEHAVIOURS, DRIBBLE_BODY, HostileSOCKSServer
from tests.cli.test_curl_options import _env

pytestmark = pytest.mark.anyio

#: Long enough that a test reaching it would fail its guard: what must not be waited.
READ_TIMEOUT = 30.0
#: The target: nothing listens there, and nothing should try (the proxy answers for it).
TARGET = "gopher://target.invalid:70/9/file"

LIARS = [name for name in BEHAVIOURS if name != "dribble"]


@pytest.mark.parametrize("name", LIARS)
async def test_a_lying_proxy_is_97_at_once(name: str) -> None:
    behaviour = BEHAVIOURS[name]
    with HostileSOCKSServer(behaviour) as proxy:
        async with Resolver(Config(read_timeout=READ_TIMEOUT), proxy=proxy.url,
                            trust_env=False) as r:
            with anyio.fail_after(20):  # a guard, not a measured time
                with pytest.raises(ProxyError) as caught:
                    await r.fetch(TARGET)
        received = list(proxy.received)
    assert caught.value.exit_code == 97
    message = str(caught.value)
    assert behaviour.words in message
    assert proxy.url in message and "target.invalid:70" in message
    assert received[0][:3] == b"\x05\x01\x00"  # our greeting: no login offered


async def test_a_proxy_answering_a_byte_at_a_time_still_tunnels() -> None:
    with HostileSOCKSServer(BEHAVIOURS["dribble"]) as proxy:
        async with Resolver(proxy=proxy.url, trust_env=False) as r:
            with anyio.fail_after(20):
                body = await r.fetch(TARGET)
        received = list(proxy.received)
    # Exactly the target's bytes: none of the reply's ten, and the name went to the proxy.
    assert body == DRIBBLE_BODY
    assert b"\x03\x0etarget.invalid\x00\x46" in received[0]
    assert received[0].endswith(b"file\r\n")


@pytest.mark.parametrize("name", ["garbage-success", "close-mid-reply"])
def test_the_command_line_says_one_line_and_exits_97(name: str) -> None:
    with HostileSOCKSServer(BEHAVIOURS[name]) as proxy:
        done = subprocess.run(
            [sys.executable, "-m", "anyurl", "get", "-s", "-S", "--socks5-hostname",
             f"joe:pw-{name}@127.0.0.1:{proxy.port}", TARGET],
            capture_output=True, timeout=60, env=_env())
    assert done.returncode == 97, done.stderr
    assert b"Traceback" not in done.stderr
    assert b"joe:****@127.0.0.1" in done.stderr and b"pw-" not in done.stderr
