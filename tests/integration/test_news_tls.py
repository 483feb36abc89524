"""NNTP over TLS against real servers: nntps:// and snews: through stunnel in front of
leafnode (peer "leafnode-tls", its certificate from a CA made when the peer started),
checked as https is (--cacert, -k, 60); STARTTLS asked of leafnode, which does not offer
it: --ssl-reqd ends with 64 and --ssl keeps the login out of the clear, as a recording
relay in front of leafnode shows."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from anyurl.errors import LoginDenied, TLSCertificateError, TLSNotOffered
from anyurl.options import NewsOptions
from anyurl.resolver import Resolver
from anyurl.schemes.base import FetchOptions
from anyurl.testing._server import ThreadedListener
from tests.peers.table import LOCAL_PASSWORD, LOCAL_USER

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


def _options(**given: Any) -> FetchOptions:
    return FetchOptions(schemes=(NewsOptions(**given),))


async def test_nntps_gives_the_bytes_of_nntp(peers: Any) -> None:
    tls, plain = peers["leafnode-tls"], peers["leafnode"]
    cafile = str(tls.extra["cafile"])
    async with Resolver(trust_env=False) as r:
        direct = {}
        for number in (1, 2):
            direct[number] = await r.fetch(f"nntp://{plain.hostport}/anyurl.test/{number}")
            assert b"Message-ID" in direct[number]
            assert await r.fetch(f"nntps://{tls.hostport}/anyurl.test/{number}",
                                 _options(cafile=cafile)) == direct[number]
        listing = await r.fetch("snews:anyurl.test",
                                _options(cafile=cafile, server=tls.hostport))
        assert b"First article" in listing
        # A certificate no CA of ours signed: 60, as https; -k takes it.
        with pytest.raises(TLSCertificateError) as caught:
            await r.fetch(f"nntps://{tls.hostport}/anyurl.test/1")
        assert caught.value.exit_code == 60
        assert await r.fetch(f"nntps://{tls.hostport}/anyurl.test/1",
                             _options(verify=False)) == direct[1]


async def test_nntps_through_a_socks_proxy(peers: Any) -> None:
    tls = peers["leafnode-tls"]
    proxy = f"socks5h://{LOCAL_USER}:{LOCAL_PASSWORD}@{peers['dante-login'].hostport}"
    options = _options(cafile=str(tls.extra["cafile"]))
    async with Resolver(trust_env=False) as direct:
        expected = await direct.fetch(f"nntps://{tls.hostport}/anyurl.test/3", options)
    async with Resolver(proxy=proxy, trust_env=False) as r:
        assert await r.fetch(f"nntps://{tls.hostport}/anyurl.test/3", options) == expected


class Relay:
    """Forwards to ``target`` and records what the client sent."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.sent = b""
        self._lock = threading.Lock()
        self._listener = ThreadedListener(self._serve, name="nntp-relay")
        self.port = self._listener.port
        self._listener.start()

    def _serve(self, client: socket.socket) -> None:
        with client, socket.create_connection(self.target, timeout=10) as server:
            def back() -> None:
                try:
                    while data := server.recv(65536):
                        client.sendall(data)
                except OSError:
                    pass
                try:
                    client.shutdown(socket.SHUT_WR)
                except OSError:
                    pass

            thread = threading.Thread(target=back, daemon=True)
            thread.start()
            try:
                while data := client.recv(65536):
                    with self._lock:
                        self.sent += data
                    server.sendall(data)
            except OSError:
                pass
            thread.join(10)

    def close(self) -> None:
        self._listener.close()


@pytest.fixture
def relay(peers: Any) -> Iterator[Relay]:
    relay = Relay(peers["leafnode"].address)
    yield relay
    relay.close()


async def test_ssl_reqd_without_starttls_is_64_before_any_login(relay: Relay) -> None:
    url = f"nntp://fred:flint@127.0.0.1:{relay.port}/anyurl.test/1"
    async with Resolver(trust_env=False) as r:
        with pytest.raises(TLSNotOffered) as caught:
            await r.fetch(url, _options(tls="require"))
    assert caught.value.exit_code == 64
    assert b"CAPABILITIES" in relay.sent and b"AUTHINFO" not in relay.sent
    assert b"flint" not in relay.sent


async def test_ssl_keeps_the_login_out_of_the_clear_unless_asked(relay: Relay) -> None:
    url = f"nntp://fred:flint@127.0.0.1:{relay.port}/anyurl.test/1"
    async with Resolver(trust_env=False, warn=lambda _: None) as r:
        with pytest.raises(LoginDenied, match="only inside TLS") as caught:
            await r.fetch(url, _options(tls="try"))
        assert caught.value.exit_code == 67
        assert b"AUTHINFO" not in relay.sent
        # Asked for, it goes in clear (leafnode has no AUTHINFO: the fetch goes on).
        body = await r.fetch(url, _options(tls="try", plain_auth=True))
    assert b"AUTHINFO USER fred" in relay.sent and body


def test_the_command_line_options(peers: Any, relay: Relay) -> None:
    tls = peers["leafnode-tls"]
    done = subprocess.run([sys.executable, "-m", "anyurl", "get", "-s", "-S", "--ssl-reqd",
                           f"nntp://127.0.0.1:{relay.port}/anyurl.test/1"],
                          capture_output=True, timeout=60)
    assert done.returncode == 64, done.stderr
    done = subprocess.run([sys.executable, "-m", "anyurl", "get", "-s", "-S", "--cacert",
                           str(tls.extra["cafile"]), f"nntps://{tls.hostport}/anyurl.test/2"],
                          capture_output=True, timeout=60)
    assert done.returncode == 0 and b"Message-ID" in done.stdout, done.stderr
    done = subprocess.run([sys.executable, "-m", "anyurl", "get", "-s", "-S", "--ssl",
                           f"nntp://u:secret@127.0.0.1:{relay.port}/anyurl.test/1"],
                          capture_output=True, timeout=60)
    assert done.returncode == 67 and b"--nntp-plain-auth" in done.stderr
    assert b"secret" not in done.stderr and b"AUTHINFO" not in relay.sent
