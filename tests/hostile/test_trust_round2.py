"""Trust, second round (issue 20): credentials stay with their origin across redirects,
and an encoded CR, LF or NUL never reaches a server.

A recording server pair of :mod:`anyurl.schemes.http.hostile` (two ports of 127.0.0.1: the
first redirects to the second) shows what the client hands to another origin, for
``anyurl get`` and for the library, on both backends.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

import anyurl
from anyurl.options import HTTPOptions, MailtoOptions
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.http.hostile import CrossOriginRedirect
from anyurl.testing.hostile import Behaviour, HostileServer
from anyurl.url import WAISPath, decode
from tests.cli.test_get_cli import _env

BACKENDS = ["asyncio", "trio"]
SECRETS = [b"Authorization: Bearer s3cret", b"Cookie: session=s3cret",
           b"Proxy-Authorization: Basic s3cret"]
HEADERS = {"Authorization": "Bearer s3cret", "Cookie": "session=s3cret",
           "Proxy-Authorization": "Basic s3cret", "X-Trace": "kept"}


def _has(heads: list[list[bytes]], line: bytes) -> bool:
    return any(h.lower() == line.lower() for head in heads for h in head)


def _get(pair: CrossOriginRedirect, backend: str,
         *extra: str) -> subprocess.CompletedProcess[bytes]:
    headers = [a for name, value in HEADERS.items() for a in ("-H", f"{name}: {value}")]
    return subprocess.run(
        [sys.executable, "-m", "anyurl", "get", "--backend", backend, "-o", "-",
         "--allow-port", str(pair.origin.port), "--allow-port", str(pair.target.port),
         *headers, *extra, pair.url],
        capture_output=True, stdin=subprocess.DEVNULL, env=_env(), timeout=60)


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
@pytest.mark.parametrize("backend", BACKENDS)
def test_get_drops_credential_headers_on_another_port(backend: str, status: int) -> None:
    with CrossOriginRedirect(status) as pair:
        r = _get(pair, backend)
        first, second = pair.heads(pair.origin), pair.heads(pair.target)
    assert r.returncode == 0, r.stderr
    assert r.stdout == b"ok\n"
    for secret in SECRETS:
        assert _has(first, secret), first  # the first origin gets what it was given
        assert not _has(second, secret), second  # another port is another origin
    assert _has(second, b"X-Trace: kept")  # other headers follow, as curl's do


@pytest.mark.parametrize("backend", BACKENDS)
def test_get_location_trusted_keeps_them(backend: str) -> None:
    with CrossOriginRedirect() as pair:
        r = _get(pair, backend, "--location-trusted")
        second = pair.heads(pair.target)
    assert r.returncode == 0, r.stderr
    for secret in SECRETS:
        assert _has(second, secret), second


@pytest.mark.parametrize("trusted", [False, True])
def test_get_login_of_u_follows_only_when_trusted(trusted: bool) -> None:
    with CrossOriginRedirect() as pair:
        r = subprocess.run(
            [sys.executable, "-m", "anyurl", "get", "-o", "-",
             "--allow-port", str(pair.origin.port), "--allow-port", str(pair.target.port),
             "-u", "user:pw", *(["--location-trusted"] if trusted else []), pair.url],
            capture_output=True, stdin=subprocess.DEVNULL, env=_env(), timeout=60)
        first, second = pair.heads(pair.origin), pair.heads(pair.target)
    assert r.returncode == 0, r.stderr
    assert _has(first, b"Authorization: Basic dXNlcjpwdw==")
    assert _has(second, b"Authorization: Basic dXNlcjpwdw==") is trusted, second


def _config(pair: CrossOriginRedirect) -> anyurl.Config:
    return anyurl.Config(allowed_ports=frozenset({pair.origin.port, pair.target.port}))


@pytest.mark.parametrize("backend", BACKENDS)
def test_library_headers_keyword_stays_with_its_origin(backend: str) -> None:
    with CrossOriginRedirect() as pair:
        body = anyurl.fetch(pair.url, headers=HEADERS, config=_config(pair), backend=backend)
        first, second = pair.heads(pair.origin), pair.heads(pair.target)
    assert body == b"ok\n"
    for secret in SECRETS:
        assert _has(first, secret)
        assert not _has(second, secret), second
    assert _has(second, b"X-Trace: kept")


@pytest.mark.parametrize("trusted", [False, True])
def test_library_http_options_and_the_opt_in(trusted: bool) -> None:
    options = FetchOptions(schemes=(HTTPOptions(headers=tuple(HEADERS.items()),
                                                location_trusted=trusted),))
    with CrossOriginRedirect(307) as pair:
        body = anyurl.fetch(pair.url, options, config=_config(pair))
        second = pair.heads(pair.target)
    assert body == b"ok\n"
    for secret in SECRETS:
        assert _has(second, secret) is trusted, second


# -- point 2: an encoded CR, LF or NUL never reaches a server ------------------------------

#: A scheme's URL from its login to its path, ``{h}`` the recording server's host:port.
_IP_TAIL = {"ftp": "/f", "http": "/", "gopher": "/0x", "nntp": "/grp/1", "telnet": "/",
            "wais": "/db", "prospero": "/x"}
#: Every part of every scheme that reaches a server decoded, ``{x}`` the code to smuggle.
WIRE_PARTS = [
    *[p for s, tail in _IP_TAIL.items() for p in (
        (f"{s}-user", f"{s}://a{{x}}b@{{h}}{tail}"),
        (f"{s}-password", f"{s}://u:a{{x}}b@{{h}}{tail}"),
        (f"{s}-host", f"{s}://h{{x}}.example{tail}"),
        (f"{s}-port", f"{s}://127.0.0.1:8{{x}}{tail}"))],
    ("ftp-cwd", "ftp://{h}/d{x}/f"),
    ("ftp-name", "ftp://{h}/d/f{x}"),
    ("ftp-typecode", "ftp://{h}/f;type=a{x}"),
    ("gopher-type", "gopher://{h}/{x}sel"),
    ("gopher-selector", "gopher://{h}/0a{x}b"),
    ("gopher-search", "gopher://{h}/7s%09a{x}b"),
    ("gopher-plus", "gopher://{h}/0a%09%09+text/plain{x}INJ"),
    ("gopher-plus-after-search", "gopher://{h}/7s%09w%09+{x}"),
    ("gopher-form-line", "gopher://{h}/0a%09%09+%091%0D%0A+-1%0D%0Av{x}.%0D%0AI%0D%0A.%0D%0A"),
    ("gopher-after-form", "gopher://{h}/0a%09%09+%091%0D%0A+-1%0D%0Av%0D%0A.%0D%0AI{x}"),
    ("news-group", "news:a{x}b"),
    ("news-message-id", "news:a{x}b@host.example"),
    ("news-message-id-host", "news:a@host{x}.example"),
    ("news-bracketed-id", "news:<a{x}b@host.example>"),
    ("nntp-group", "nntp://{h}/a{x}b/1"),
    ("nntp-article", "nntp://{h}/grp/1{x}"),
    ("telnet-path", "telnet://{h}/{x}"),
    ("mailto-local", "mailto:a{x}b@example.org"),
    ("mailto-domain", "mailto:a@exa{x}mple.org"),
    ("wais-database", "wais://{h}/d{x}b"),
    ("wais-search", "wais://{h}/db?a{x}b"),
    ("wais-type", "wais://{h}/db/T{x}/p"),
    ("prospero-name", "prospero://{h}/a{x}b"),
    ("prospero-field-name", "prospero://{h}/a;f{x}=v"),
    ("prospero-field-value", "prospero://{h}/a;f=v{x}"),
    ("file-path", "file:///tmp/anyurl-wire-test/a{x}b"),
    ("file-host", "file://h{x}/x"),
]
#: The parts that travel still %-encoded (section 3.3): sent as written, never decoded.
ENCODED_PARTS = [("http-path", "http://{h}/a{x}b"), ("http-search", "http://{h}/p?q={x}")]
CODES = ["%0D", "%0A", "%00", "%0d%0a"]
#: A wais wpath is a binary document-id (any octet), sent length-prefixed: kept.
BINARY_PARTS = [("wais-path", "wais://{h}/db/TEXT/p{x}")]


class _Recorder:
    """A TCP server that records every connection and its bytes, answering HTTP 200."""

    def __init__(self) -> None:
        self.received: list[bytes] = []
        self.server = HostileServer(Behaviour("record", "http", self._run))

    def _run(self, peer: Any) -> None:
        head = peer.request_head()
        self.received.append(b"\n".join(head or []))
        peer.send(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")


def _fetch(text: str, port: int) -> bytes:
    config = anyurl.Config(allowed_ports=frozenset({port}), nntp_server=f"127.0.0.1:{port}",
                           smtp_relay=f"127.0.0.1:{port}", connect_timeout=5,
                           read_timeout=5)
    options = FetchOptions(schemes=(MailtoOptions(body=b"x"),))
    return anyurl.fetch(text, options, config=config)


def test_every_decoded_part_of_every_scheme_refuses_cr_lf_nul() -> None:
    """The one walk over every part (issue 20, point 2): each refused with exit 3 before
    a connection is made; the http path and search, which are sent still encoded, are
    sent with the escape as written and no raw CR, LF or NUL."""
    recorder = _Recorder()
    with recorder.server as server:
        host = f"127.0.0.1:{server.port}"
        accepted = []
        for name, template in WIRE_PARTS:
            for code in CODES:
                text = template.format(h=host, x=code)
                try:
                    _fetch(text, server.port)
                except anyurl.AnyURLError as exc:
                    if exc.exit_code == 3 and isinstance(exc, anyurl.URLSyntaxError):
                        continue
                    accepted.append(f"{name}: {text} -> {type(exc).__name__} {exc}")
                else:
                    accepted.append(f"{name}: {text} was fetched")
        assert accepted == []
        assert recorder.received == []  # not one connection, so not one byte
        for name, template in ENCODED_PARTS:
            for code in CODES:
                assert _fetch(template.format(h=host, x=code), server.port) == b"ok", name
                line = recorder.received[-1].split(b"\n")[0]
                assert code.encode() in line and not any(c in line for c in b"\r\0"), line
        for name, template in BINARY_PARTS:
            for code in CODES:
                view = anyurl.parse(template.format(h=host, x=code)).parts
                assert isinstance(view, WAISPath) and view.wpath == "p" + decode(code), name


@pytest.mark.parametrize("url", ["gopher://h/0a%09%09+text/plain%0D%0AINJ",
                                 "gopher://h/7s%09w%09+%0AINJ"])
def test_plan_refuses_a_line_break_in_gopher_plus(url: str) -> None:
    r = subprocess.run([sys.executable, "-m", "anyurl", "get", "--plan", url],
                       capture_output=True, stdin=subprocess.DEVNULL, env=_env(), timeout=60)
    assert r.returncode == 3, r.stderr
    assert b"INJ" not in r.stdout and b"Gopher+ string" in r.stderr, r.stderr


@pytest.mark.parametrize("path", ["0a%0D%0AINJ", "0a\r\nINJ", "0a%00b"])
def test_a_built_url_is_checked_again_at_the_gate(path: str) -> None:
    """A URL made with ``replace`` (not parsed) passes the same section 6 check at the
    resolver's gate; an http path, which travels still encoded, keeps its %0D."""
    from anyurl.errors import URLError
    from anyurl.resolver import Resolver
    from anyurl.url import parse

    built = parse("gopher://127.0.0.1/0a").replace(path=path)
    if "%" in path:
        with pytest.raises(URLError):
            Resolver().admit(built)
    else:  # raw line breaks are the Appendix's folding: dropped, never sent
        assert str(Resolver().admit(built)) == "gopher://127.0.0.1/0aINJ"
    assert str(Resolver().admit(parse("http://127.0.0.1/a%0Db"))) == "http://127.0.0.1/a%0Db"
