"""``-x``/``--proxy`` and ``--noproxy`` side by side with curl, and the environment's
proxy variables read by the library (``trust_env``, as httpx reads them)."""

from __future__ import annotations

import shutil

import pytest

from anyurl.config import Config
from anyurl.resolver import Resolver
from anyurl.url import parse
from tests.cli.test_curl_options import anyurl, curl
from tests.integration.test_http import ScriptedServer, fixed

pytestmark = pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")

PROXY_VARIABLES = ("http_proxy", "https_proxy", "ftp_proxy", "gopher_proxy", "all_proxy",
                   "ALL_PROXY", "no_proxy", "NO_PROXY", "FTP_PROXY", "HTTPS_PROXY")


@pytest.fixture
def proxy() -> ScriptedServer:
    srv = ScriptedServer()
    srv.routes["http://example.invalid/x"] = fixed(b"through the proxy")
    yield srv  # type: ignore[misc]
    srv.close()


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def test_proxy_option_as_curl(proxy: ScriptedServer) -> None:
    for run in (curl, anyurl):
        before = len(proxy.requests)
        r = run("-sS", "-x", f"127.0.0.1:{proxy.port}", "http://example.invalid/x")
        assert (r.returncode, r.stdout) == (0, b"through the proxy"), (run.__name__, r.stderr)
        [request] = proxy.requests[before:]
        assert request.line == "GET http://example.invalid/x HTTP/1.1", run.__name__
        assert request.headers["host"] == "example.invalid"


def test_proxy_option_wins_over_the_environment(proxy: ScriptedServer) -> None:
    env = {"http_proxy": "http://127.0.0.1:9/"}  # nothing listens there
    for run in (curl, anyurl):
        r = run("-sS", "-x", f"http://127.0.0.1:{proxy.port}", "http://example.invalid/x",
                **env)
        assert r.returncode == 0, (run.__name__, r.stderr)


def test_noproxy_and_the_environment(proxy: ScriptedServer) -> None:
    direct = ScriptedServer()
    try:
        direct.routes["/d"] = fixed(b"direct")
        for run in (curl, anyurl):
            # http_proxy from the environment, as curl reads it; --noproxy goes around it.
            r = run("-sS", "http://example.invalid/x",
                    http_proxy=f"http://127.0.0.1:{proxy.port}")
            assert r.stdout == b"through the proxy", (run.__name__, r.stderr)
            r = run("-sS", "--noproxy", "127.0.0.1", direct.url("/d"),
                    http_proxy="http://127.0.0.1:9/")
            assert r.stdout == b"direct", (run.__name__, r.stderr)
            r = run("-sS", direct.url("/d"), http_proxy="http://127.0.0.1:9/",
                    no_proxy="localhost,127.0.0.0/8")
            assert r.stdout == b"direct", (run.__name__, r.stderr)
            # all_proxy serves every scheme without a variable of its own.
            r = run("-sS", "http://example.invalid/x",
                    ALL_PROXY=f"http://127.0.0.1:{proxy.port}")
            assert r.stdout == b"through the proxy", (run.__name__, r.stderr)
    finally:
        direct.close()


def test_the_library_reads_the_environment_as_httpx(monkeypatch: pytest.MonkeyPatch) -> None:
    url = parse("http://example.org/")
    ftp = parse("ftp://example.org/f")
    monkeypatch.setenv("http_proxy", "http://env-proxy:3128")
    monkeypatch.setenv("all_proxy", "http://every:8080")
    monkeypatch.setenv("no_proxy", "internal.example")
    gateway = Resolver().gateway_for(url)
    assert gateway is not None and gateway.url.host == "env-proxy"
    assert Resolver().gateway_for(ftp).url.host == "every"  # type: ignore[union-attr]
    assert Resolver().gateway_for(parse("http://a.internal.example/")) is None
    # Off by option, on the resolver or in the config.
    assert Resolver(trust_env=False).gateway_for(url) is None
    assert Resolver(Config(trust_env=False)).gateway_for(url) is None
    # What the program (or config file) says wins over the environment.
    mine = Config(gateways={"http": "http://mine:1"})
    assert Resolver(mine).gateway_for(url).url.host == "mine"  # type: ignore[union-attr]
    assert Resolver(mine).gateway_for(ftp).url.host == "every"  # type: ignore[union-attr]


def test_a_bad_proxy_is_refused_before_connecting() -> None:
    r = anyurl("-x", "ftp://proxy:21/", "http://example.invalid/x")
    assert r.returncode == 3 and b"gateway" in r.stderr and b"Traceback" not in r.stderr
