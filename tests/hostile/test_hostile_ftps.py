"""FTP servers that fail AUTH TLS (:mod:`anyurl.schemes.ftp.hostile_tls`): with TLS
required, a refusal is curl's 64 and a broken handshake 35, each before any USER (the
server's record of the commands shows none, and no password byte); with TLS only tried,
a refusal is no error and the login goes on in clear, as curl's --ssl does. Servers that
fail the TLS of the private data connection (closed, garbage, or a 522 after the
handshake) are 35 too, for a file and a listing, never a partial transfer (18). Both
backends, and the command line."""

from __future__ import annotations

import subprocess
import sys

import anyio
import pytest

from anyurl.config import Config
from anyurl.errors import LoginDenied, TLSHandshakeFailed, TLSNotOffered
from anyurl.options import FTPOptions
from anyurl.resolver import Resolver
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.ftp.hostile_tls import BEHAVIOURS, HostileFTPSServer
from tests.cli.test_curl_options import _env

pytestmark = pytest.mark.anyio

PASSWORD = "s3cret-never-in-clear"


def _url(server: HostileFTPSServer) -> str:
    return f"ftp://fred:{PASSWORD}@127.0.0.1:{server.port}/pub/file.txt"


AUTH_FAILURES = sorted(name for name, b in BEHAVIOURS.items() if b.data is None)
DATA_FAILURES = sorted(name for name, b in BEHAVIOURS.items() if b.data is not None)


@pytest.mark.parametrize("name", AUTH_FAILURES)
async def test_tls_required_fails_before_any_login(name: str) -> None:
    behaviour = BEHAVIOURS[name]
    expected = {64: TLSNotOffered, 35: TLSHandshakeFailed}[behaviour.exit_code]
    with HostileFTPSServer(behaviour) as server:
        async with Resolver(Config(read_timeout=30), trust_env=False) as r:
            with anyio.fail_after(20):  # a guard against a hang, not a measured time
                with pytest.raises(expected) as caught:
                    await r.fetch(_url(server),
                                  FetchOptions(schemes=(FTPOptions(tls="require"),)))
        commands, received = server.commands[0], server.received[0]
    assert caught.value.exit_code == behaviour.exit_code
    assert PASSWORD not in str(caught.value)
    assert commands[0] == "AUTH TLS"
    assert not any(c.upper().startswith(("USER", "PASS")) for c in commands), commands
    assert PASSWORD.encode() not in received


@pytest.mark.parametrize("name", ["refuse-auth", "unknown-auth"])
async def test_tls_tried_goes_on_in_clear_when_refused(name: str) -> None:
    with HostileFTPSServer(BEHAVIOURS[name]) as server:
        async with Resolver(trust_env=False) as r:
            with pytest.raises(LoginDenied):  # the server refuses every login
                await r.fetch(_url(server), FetchOptions(schemes=(FTPOptions(tls="try"),)))
        commands = server.commands[0]
    assert commands[:2] == ["AUTH TLS", "USER fred"]


@pytest.mark.parametrize("path", ["pub/file.txt", "pub/"], ids=["file", "listing"])
@pytest.mark.parametrize("name", DATA_FAILURES)
async def test_a_data_connections_failed_tls_is_35(name: str, path: str) -> None:
    with HostileFTPSServer(BEHAVIOURS[name]) as server:
        async with Resolver(Config(read_timeout=30), trust_env=False) as r:
            with anyio.fail_after(20):  # a guard against a hang, not a measured time
                with pytest.raises(TLSHandshakeFailed) as caught:
                    await r.fetch(
                        f"ftp://fred:{PASSWORD}@127.0.0.1:{server.port}/{path}",
                        FetchOptions(schemes=(FTPOptions(tls="require", verify=False),)))
        commands = server.commands[0]
    assert caught.value.exit_code == 35
    assert "data connection" in str(caught.value) and PASSWORD not in str(caught.value)
    if name == "data-522":
        assert "522 SSL connection failed" in str(caught.value)
    assert commands[:5] == ["AUTH TLS", "USER fred", f"PASS {PASSWORD}", "PBSZ 0", "PROT P"]
    assert any(c.startswith(("RETR", "LIST", "MLSD", "NLST")) for c in commands), commands


@pytest.mark.parametrize("name", ["refuse-auth", "garbage-after-auth", "data-522"])
def test_the_command_line_exits_64_or_35_with_one_line(name: str) -> None:
    behaviour = BEHAVIOURS[name]
    with HostileFTPSServer(behaviour) as server:
        done = subprocess.run(
            [sys.executable, "-m", "anyurl", "get", "-s", "-S", "--ssl-reqd", "-k",
             _url(server)], capture_output=True, timeout=60, env=_env())
        commands = server.commands[0]
    assert done.returncode == behaviour.exit_code, done.stderr
    assert done.stderr.count(b"\n") == 1 and b"Traceback" not in done.stderr
    assert PASSWORD.encode() not in done.stderr
    # Before a TLS login, no USER; after one (data-*), the data connection failed.
    assert any(c.startswith("USER") for c in commands) == (behaviour.data is not None)
