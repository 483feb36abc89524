"""The HTTP handler's decisions without a network: requests it would send, status mapping,
content decoding, and the gateway configuration (environment, ``no_proxy``, dispatch)."""

from __future__ import annotations

import pytest

from anyurl.config import Config
from anyurl.errors import (
    LoginDenied,
    RemoteFileNotFound,
    ServerError,
    URLError,
)
from anyurl.net.routing import gateway_for, gateways_from_environ, parse_gateway, proxy_bypassed
from anyurl.options import HTTPOptions
from anyurl.resolver import Resolver
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.gateway import GatewayHandler
from anyurl.schemes.http import HTTPHandler, basic_credentials, host_header, status_error
from anyurl.schemes.http.decoding import accept_encoding
from anyurl.schemes.http.interfaces import Response
from anyurl.url import parse

# -- requests -------------------------------------------------------------------------------


def test_plan_is_the_request_head() -> None:
    handler = HTTPHandler(Config())
    lines = handler.plan(parse("http://example.org:8080/a/b%20c?x=1#frag"), FetchOptions())
    assert lines[0] == "GET /a/b%20c?x=1 HTTP/1.1"
    assert "Host: example.org:8080" in lines
    assert not any(line.startswith("Range") for line in lines)
    assert not any(line.startswith("Accept-Encoding") for line in lines)


def test_plan_resume_sends_range_and_if_range() -> None:
    lines = HTTPHandler(Config()).plan(
        parse("http://example.org/f"), FetchOptions(offset=100, if_range='"abc"')
    )
    assert "Range: bytes=100-" in lines
    assert 'If-Range: "abc"' in lines


def test_plan_masks_basic_credentials() -> None:
    lines = HTTPHandler(Config()).plan(parse("http://joe:secret@example.org/"), FetchOptions())
    assert "Authorization: Basic ****" in lines
    assert not any("secret" in line or basic_credentials("joe", "secret") in line
                   for line in lines)


def test_decode_content_asks_for_gzip() -> None:
    lines = HTTPHandler(Config()).plan(parse("http://example.org/"),
                                       FetchOptions(schemes=(HTTPOptions(decode_content=True),)))
    assert f"Accept-Encoding: {accept_encoding()}" in lines
    assert accept_encoding().startswith("deflate, gzip")  # curl's order


@pytest.mark.parametrize(
    ("url", "host"),
    [
        pytest.param("http://example.org/", "example.org", id="default-port-omitted"),
        pytest.param("http://example.org:80/", "example.org", id="explicit-default-omitted"),
        pytest.param("http://example.org:8080/", "example.org:8080", id="other-port"),
        pytest.param("https://example.org:443/", "example.org", id="https-default"),
        pytest.param("http://[::1]:8080/", "[::1]:8080", id="ipv6"),
        pytest.param("gopher://example.org:7070/1", "example.org:7070", id="gateway-target"),
    ],
)
def test_host_header(url: str, host: str) -> None:
    assert host_header(parse(url)) == host


def test_basic_credentials_are_rfc7617() -> None:
    assert basic_credentials("Aladdin", "open sesame") == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="
    assert basic_credentials("joe", None) == "Basic am9lOg=="


# -- responses ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "reason", "kind", "exit_code"),
    [
        pytest.param(404, "Not Found", RemoteFileNotFound, 22, id="404"),
        pytest.param(410, "Gone", RemoteFileNotFound, 22, id="410"),
        pytest.param(401, "Unauthorized", LoginDenied, 22, id="401"),
        pytest.param(403, "Forbidden", LoginDenied, 22, id="403"),
        pytest.param(407, "Proxy Authentication Required", LoginDenied, 22, id="407"),
        pytest.param(400, "Bad Request", ServerError, 22, id="400"),
        pytest.param(500, "Internal Server Error", ServerError, 22, id="500"),
        pytest.param(503, "Service Unavailable", ServerError, 22, id="503"),
    ],
)
def test_status_mapping(status: int, reason: str, kind: type, exit_code: int) -> None:
    """The class says which answer; the exit code is 22 for every HTTP error (curl -f)."""
    url = parse("http://joe:secret@example.org/f")
    error = status_error(url, Response(status, reason, "1.1", []))
    assert type(error) is kind
    assert error.exit_code == exit_code
    assert f"'HTTP/1.1 {status} {reason}'" in str(error)
    assert "secret" not in str(error)
    if kind is ServerError:
        assert isinstance(error, ServerError) and error.status == status


# -- gateway configuration ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "no_proxy", "bypassed"),
    [
        pytest.param("example.org", "", False, id="empty"),
        pytest.param("example.org", "*", True, id="star"),
        pytest.param("example.org", "example.org", True, id="exact"),
        pytest.param("www.example.org", "example.org", True, id="subdomain"),
        pytest.param("www.example.org", ".example.org", True, id="leading-dot"),
        pytest.param("badexample.org", "example.org", False, id="not-a-suffix-match"),
        pytest.param("EXAMPLE.org", "example.ORG", True, id="case"),
        pytest.param("example.org", "localhost, example.org:8080", True, id="port-ignored"),
        pytest.param("10.1.2.3", "10.0.0.0/8", True, id="cidr"),
        pytest.param("11.1.2.3", "10.0.0.0/8", False, id="cidr-outside"),
        pytest.param("127.0.0.1", "127.0.0.1", True, id="ip"),
        pytest.param("[::1]", "::1", True, id="ipv6"),
        pytest.param("[::1]", "[::1]:80", True, id="ipv6-bracketed-entry"),
    ],
)
def test_no_proxy(host: str, no_proxy: str, bypassed: bool) -> None:
    assert proxy_bypassed(host, no_proxy) is bypassed


def test_gateways_from_environ_reads_scheme_proxies() -> None:
    env = {
        "http_proxy": "proxy:3128",
        "HTTPS_PROXY": "http://secure-proxy:3128",
        "wais_proxy": "http://wais-gw:8001/",
        "GOPHER_PROXY": "http://gopher-gw/",
        "gopher_proxy": "http://lower-wins/",
        "news_proxy": "",
        "no_proxy": "localhost,.internal",
    }
    assert gateways_from_environ(env) == {
        "http": "proxy:3128",
        "https": "http://secure-proxy:3128",
        "wais": "http://wais-gw:8001/",
        "gopher": "http://lower-wins/",
        "no_proxy": "localhost,.internal",
    }


def test_upper_case_http_proxy_is_ignored_as_curl_does() -> None:
    assert gateways_from_environ({"HTTP_PROXY": "http://evil:80/"}) == {}


@pytest.mark.parametrize(
    ("text", "scheme", "url", "tunnel"),
    [
        pytest.param("proxy:3128", "http", "http://proxy:3128", False, id="bare-host-port"),
        pytest.param("http://gw:8001/", "wais", "http://gw:8001/", False, id="get-mode"),
        pytest.param("tunnel+http://gw:3128", "ftp", "http://gw:3128", True, id="tunnel"),
        pytest.param("http://gw:3128", "https", "http://gw:3128", True, id="https-tunnels"),
    ],
)
def test_parse_gateway(text: str, scheme: str, url: str, tunnel: bool) -> None:
    gateway = parse_gateway(text, scheme=scheme)
    assert str(gateway.url) == url
    assert gateway.tunnel is tunnel


def test_gateway_must_be_http() -> None:
    with pytest.raises(URLError, match="not an http URL"):
        parse_gateway("ftp://gw/", scheme="gopher")


def test_gateway_for_honours_no_proxy() -> None:
    gateways = {"gopher": "http://gw:8001/", "no_proxy": "inside.example"}
    assert gateway_for(gateways, parse("gopher://outside.example/1")) is not None
    assert gateway_for(gateways, parse("gopher://host.inside.example/1")) is None
    assert gateway_for(gateways, parse("ftp://outside.example/")) is None


def test_resolver_dispatches_to_the_gateway_unless_no_proxy() -> None:
    config = Config(gateways={"http": "http://gw:3128/", "wais": "http://gw:8001/",
                              "no_proxy": "direct.example"})
    resolver = Resolver(config)
    assert isinstance(resolver.handler_for(parse("wais://w.example/db?x")), GatewayHandler)
    assert isinstance(resolver.handler_for(parse("http://far.example/")), GatewayHandler)
    direct = resolver.handler_for(parse("http://direct.example/"))
    assert type(direct) is HTTPHandler


def test_gateway_plan_uses_absolute_form() -> None:
    config = Config(gateways={"wais": "http://u:pw@gw:8001/", "gopher": "tunnel+http://gw:3128"})
    handler = GatewayHandler(config)
    lines = handler.plan(parse("wais://wais.example:210/db?query"), FetchOptions())
    assert lines[0] == "GET wais://wais.example:210/db?query HTTP/1.1"
    assert "Host: wais.example" in lines
    assert "Proxy-Authorization: Basic ****" in lines
    tunnel = handler.plan(parse("gopher://g.example/1"), FetchOptions())
    assert tunnel[0].startswith("CONNECT g.example:70 HTTP/1.1")


def test_gateway_target_keeps_login_but_masks_it_when_shown() -> None:
    handler = GatewayHandler(Config(gateways={"ftp": "http://gw:8001/"}))
    lines = handler.plan(parse("ftp://joe:secret@ftp.example/pub/f.txt"), FetchOptions())
    assert lines[0] == "GET ftp://joe:****@ftp.example/pub/f.txt HTTP/1.1"
    from anyurl.schemes.http import request_target

    route = handler.route(parse("ftp://joe:secret@ftp.example/pub/f.txt"))
    assert route.absolute_form
    assert request_target(parse("ftp://joe:secret@ftp.example/pub/f.txt#x"), route) == (
        "ftp://joe:secret@ftp.example/pub/f.txt")
