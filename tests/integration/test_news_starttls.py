"""NNTP STARTTLS (RFC 4642) against a real server, on both backends: INN 2.7's nnrpd
(peer "inn"), which lists STARTTLS among its capabilities before TLS, answers 382,
and takes logins only inside TLS (``require_encryption``: AUTHINFO USER gets 483 in
clear), and serves nothing to a reader who has not logged in.

``--ssl-reqd`` / ``--ssl`` upgrade the connection, then AUTHINFO, GROUP, ARTICLE (by
number and by message-id) and a pipelined batch work inside TLS; the certificate is
checked as for https (60 with another CA, ``-k`` takes it); and a recording relay in
front of nnrpd shows that nothing but CAPABILITIES and STARTTLS crosses in clear: no
login, no password, no group name.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from anyurl.errors import LoginDenied, TLSCertificateError
from anyurl.options import NewsOptions
from anyurl.resolver import Resolver
from anyurl.schemes.base import FetchOptions
from tests.integration.test_news_pipeline import batch
from tests.integration.test_news_tls import Relay
from tests.peers import data
from tests.peers.table import LOCAL_PASSWORD, LOCAL_USER, NEWS_FQDN, NEWS_GROUP

pytestmark = [pytest.mark.integration]

SRC = Path(__file__).resolve().parents[2] / "src"
LOGIN = f"{LOCAL_USER}:{LOCAL_PASSWORD}@"
#: What may cross the relay in clear: the client's half of the dialogue before TLS.
CLEAR = b"CAPABILITIES\r\nSTARTTLS\r\n"


def _expected(number: int) -> bytes:
    return data.news_article(NEWS_GROUP, NEWS_FQDN, number)


def _options(peers: Any, trace: list[str] | None = None, **given: Any) -> FetchOptions:
    given.setdefault("cafile", str(peers["inn"].extra["cafile"]))
    return FetchOptions(schemes=(NewsOptions(**given),),
                        trace=trace.append if trace is not None else None)


def _in_clear(relay: Relay) -> bytes:
    """What the client sent before the TLS handshake (whose first byte is 0x16)."""
    return relay.sent.split(b"\x16", 1)[0]


@pytest.fixture
def relay(peers: Any) -> Iterator[Relay]:
    relay = Relay(peers["inn"].address)
    yield relay
    relay.close()


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["require", "try"])
async def test_starttls_then_login_and_articles_inside_tls(
        peers: Any, relay: Relay, mode: str) -> None:
    base = f"nntp://{LOGIN}127.0.0.1:{relay.port}"
    trace: list[str] = []
    async with Resolver(trust_env=False) as r:
        assert await r.fetch(f"{base}/{NEWS_GROUP}/2", _options(peers, trace, tls=mode)) \
            == _expected(2)
        listing = await r.fetch(f"{base}/{NEWS_GROUP}", _options(peers, tls=mode))
        by_id = await r.fetch(f"news:{data.news_message_id(3)}", _options(
            peers, tls=mode, server=f"127.0.0.1:{relay.port}", user=LOCAL_USER,
            password=LOCAL_PASSWORD))
    assert b"First article" in listing and b"Dots" in listing
    assert by_id == _expected(3)
    order = [line for line in trace if line.startswith(("> ", "* TLS"))]
    assert order[:5] == ["> CAPABILITIES", "> STARTTLS", "* TLS started (STARTTLS)",
                         "> CAPABILITIES", f"> AUTHINFO USER {LOCAL_USER}"]
    assert "< 382 Begin TLS negotiation now" in trace
    # Three connections, each in clear only up to STARTTLS; the rest is TLS records.
    assert relay.sent.count(CLEAR) == 3 and _in_clear(relay) == CLEAR
    for secret in (b"AUTHINFO", LOCAL_PASSWORD.encode(), NEWS_GROUP.encode(), b"ARTICLE"):
        assert secret not in relay.sent


@pytest.mark.anyio
async def test_pipelined_articles_inside_tls(peers: Any, relay: Relay) -> None:
    trace: list[str] = []
    urls = [f"nntp://{LOGIN}127.0.0.1:{relay.port}/{NEWS_GROUP}/{n}" for n in (1, 2, 3)]
    async with Resolver(trust_env=False) as r:
        got = await batch(r, urls, _options(peers, trace, tls="require"))
    assert got == [(url, _expected(n)) for n, url in zip((1, 2, 3), urls, strict=True)]
    # ARTICLE 3 went out before the answer to ARTICLE 2 came: pipelined, inside TLS.
    assert trace.index("> ARTICLE 3") < trace.index(
        f"< 220 2 {data.news_message_id(2)} article")
    assert trace.index("* TLS started (STARTTLS)") < trace.index("> ARTICLE 1")
    assert _in_clear(relay) == CLEAR and b"ARTICLE" not in relay.sent


@pytest.mark.anyio
async def test_the_certificate_is_checked(peers: Any, relay: Relay) -> None:
    url = f"nntp://{LOGIN}127.0.0.1:{relay.port}/{NEWS_GROUP}/1"
    other_ca = str(peers["leafnode-tls"].extra["cafile"])  # a test CA, not INN's
    async with Resolver(trust_env=False) as r:
        for options in (_options(peers, tls="require", cafile=other_ca),
                        FetchOptions(schemes=(NewsOptions(tls="require"),))):
            with pytest.raises(TLSCertificateError) as caught:
                await r.fetch(url, options)
            assert caught.value.exit_code == 60
        assert b"AUTHINFO" not in relay.sent
        # -k: no check, and still TLS before the login.
        assert await r.fetch(url, _options(peers, tls="require", verify=False, cafile=None)) \
            == _expected(1)
    assert relay.sent.count(CLEAR) == 3 and LOCAL_PASSWORD.encode() not in relay.sent


@pytest.mark.anyio
async def test_a_wrong_password_inside_tls_is_67(peers: Any) -> None:
    inn = peers["inn"]
    async with Resolver(trust_env=False) as r:
        with pytest.raises(LoginDenied, match="481") as caught:
            await r.fetch(f"nntp://{LOCAL_USER}:wrong@{inn.hostport}/{NEWS_GROUP}/1",
                          _options(peers, tls="require"))
    assert caught.value.exit_code == 67


@pytest.mark.anyio
async def test_without_tls_the_server_takes_no_login(peers: Any, relay: Relay) -> None:
    async with Resolver(trust_env=False, warn=lambda _: None) as r:
        with pytest.raises(LoginDenied, match="only inside TLS: 483") as caught:
            await r.fetch(f"nntp://{LOGIN}127.0.0.1:{relay.port}/{NEWS_GROUP}/1")
    assert caught.value.exit_code == 67 and caught.value.remedy == ("nntp_tls",)
    # The user name went out in clear (the server only then says 483); the password never.
    assert f"AUTHINFO USER {LOCAL_USER}".encode() in relay.sent
    assert LOCAL_PASSWORD.encode() not in relay.sent


def _anyurl(*args: str) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, NETRC=os.devnull,
               PYTHONPATH=f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    return subprocess.run([sys.executable, "-m", "anyurl", "get", "-s", "-S", *args],
                          capture_output=True, timeout=120, env=env, stdin=subprocess.DEVNULL)


def test_the_command_line(peers: Any) -> None:
    inn = peers["inn"]
    url = f"nntp://{LOGIN}{inn.hostport}/{NEWS_GROUP}/2"
    cafile = str(inn.extra["cafile"])
    done = _anyurl("--ssl-reqd", "--cacert", cafile, url)
    assert done.returncode == 0 and done.stdout == _expected(2), done.stderr
    done = _anyurl("--ssl-reqd", "--cacert", str(peers["leafnode-tls"].extra["cafile"]), url)
    assert done.returncode == 60, done.stderr
    done = _anyurl("--ssl-reqd", "-k", url)
    assert done.returncode == 0 and done.stdout == _expected(2), done.stderr
    done = _anyurl(url)
    assert done.returncode == 67 and b"--ssl-reqd" in done.stderr, done.stderr
    assert LOCAL_PASSWORD.encode() not in done.stderr
