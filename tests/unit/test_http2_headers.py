"""The pure parts of the HTTP/2 path: request header blocks and response heads."""

from __future__ import annotations

import pytest

from anyurl.schemes.http.http2 import request_headers, response_head


def test_request_headers_pseudo_first_host_as_authority() -> None:
    block = request_headers("https", "/a%20b?q=1", [
        ("Host", "example.org:8443"), ("User-Agent", "anyurl/0.1"), ("Accept", "*/*"),
        ("Range", "bytes=10-"), ("If-Range", '"v1"'), ("Connection", "keep-alive"),
    ])
    assert block == [
        (":method", "GET"), (":scheme", "https"), (":authority", "example.org:8443"),
        (":path", "/a%20b?q=1"), ("user-agent", "anyurl/0.1"), ("accept", "*/*"),
        ("range", "bytes=10-"), ("if-range", '"v1"'),
    ]


@pytest.mark.parametrize("name", ["Connection", "Keep-Alive", "Proxy-Connection",
                                  "Transfer-Encoding", "Upgrade"])
def test_request_headers_drop_connection_specific(name: str) -> None:
    block = request_headers("http", "/", [("Host", "h"), (name, "x")])
    assert [k for k, _ in block] == [":method", ":scheme", ":authority", ":path"]


@pytest.mark.parametrize("headers", [
    pytest.param([(b":status", b"206"), (b"content-range", b"bytes 4-9/10")], id="bytes"),
    pytest.param([(":status", "206"), ("content-range", "bytes 4-9/10")], id="str"),
])
def test_response_head(headers: list[tuple[bytes | str, bytes | str]]) -> None:
    head = response_head(headers)
    assert head.status == 206
    assert head.status_line == "HTTP/2 206"
    assert head.header("content-range") == "bytes 4-9/10"
    assert head.headers == [("content-range", "bytes 4-9/10")]


@pytest.mark.parametrize("headers", [
    pytest.param([(b"content-length", b"3")], id="missing"),
    pytest.param([(b":status", b"20")], id="short"),
    pytest.param([(b":status", b"2OO")], id="not-digits"),
])
def test_response_head_refuses_bad_status(headers: list[tuple[bytes | str, bytes | str]]) -> None:
    with pytest.raises(ValueError, match="status"):
        response_head(headers)
