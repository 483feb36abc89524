"""Trust, second round (issue 20): credentials stay with their origin across redirects.

A recording server pair of :mod:`anyurl.testing.hostile` (two ports of 127.0.0.1: the
first redirects to the second) shows what the client hands to another origin, for
``anyurl get`` and for the library, on both backends.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import anyurl
from anyurl.options import HTTPOptions
from anyurl.schemes.base import FetchOptions
from anyurl.testing.hostile import CrossOriginRedirect
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
