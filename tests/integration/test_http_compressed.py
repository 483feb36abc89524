"""``--compressed`` with br and zstd (and gzip under them) from a loopback server, on asyncio
and trio, and side by side with ``curl --compressed`` (built here with brotli and zstd):
the same request header, the same bytes, the same exit code for a corrupt body."""

from __future__ import annotations

import gzip
import hashlib
import shutil
from collections.abc import Iterator
from pathlib import Path

import brotli
import pytest
import zstandard

from anyurl.errors import BadContentEncoding, FileSizeExceeded
from anyurl.options import HTTPOptions
from anyurl.resolver import Resolver
from anyurl.schemes.base import FetchOptions
from tests.cli.test_curl_options import anyurl, curl
from tests.integration.test_http import ScriptedServer, fixed

pytestmark = [pytest.mark.integration]

TEXT = b"".join(b"line %d of a page anyurl fetches compressed\n" % i for i in range(20000))

PACKED = {
    "br": brotli.compress(TEXT),
    "zstd": zstandard.ZstdCompressor(level=10).compress(TEXT),
    "gzip, br": brotli.compress(gzip.compress(TEXT)),
}

COMPRESSED = FetchOptions(schemes=(HTTPOptions(decode_content=True),))


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer()
    for name, (coding, body) in {"br": ("br", PACKED["br"]), "zstd": ("zstd", PACKED["zstd"]),
                                 "stacked": ("gzip, br", PACKED["gzip, br"])}.items():
        srv.routes[f"/{name}"] = fixed(body, headers=[("Content-Encoding", coding),
                                                      ("Content-Type", "text/plain")])
    srv.routes["/corrupt"] = fixed(PACKED["zstd"][:40] + b"\xff" * 64 + PACKED["zstd"][104:],
                                   headers=[("Content-Encoding", "zstd")])
    srv.routes["/short"] = fixed(PACKED["br"][:len(PACKED["br"]) // 2],
                                 headers=[("Content-Encoding", "br")])
    yield srv
    srv.close()


@pytest.mark.anyio
@pytest.mark.parametrize("path", ["br", "zstd", "stacked"])
async def test_br_and_zstd_are_decoded_when_asked(server: ScriptedServer, path: str) -> None:
    async with Resolver(warn=lambda m: None) as r:
        assert await r.fetch(server.url(f"/{path}")) == PACKED[
            {"stacked": "gzip, br"}.get(path, path)]  # as sent without --compressed
        async with r.open(server.url(f"/{path}"), COMPRESSED) as res:
            body = await res.read()
            assert res.info.extra["decoded"] and res.info.size is None
    assert body == TEXT
    assert server.requests[-1].headers["accept-encoding"] == "deflate, gzip, br, zstd"
    assert "accept-encoding" not in server.requests[0].headers


@pytest.mark.anyio
async def test_a_corrupt_body_names_the_url_and_the_coding(server: ScriptedServer) -> None:
    async with Resolver(warn=lambda m: None) as r:
        for path, coding, why in (("/corrupt", "zstd", ""), ("/short", "br", "ends before")):
            with pytest.raises(BadContentEncoding) as caught:
                await r.fetch(server.url(path), COMPRESSED)
            text = str(caught.value)
            assert server.url(path) in text and f"decode as {coding}" in text
            assert why in text
            assert caught.value.exit_code == 61


@pytest.mark.anyio
@pytest.mark.parametrize("coding", ["br", "zstd"])
async def test_a_bomb_stops_at_max_filesize(server: ScriptedServer, coding: str) -> None:
    zeros = bytes(64 << 20)
    bomb = (brotli.compress(zeros, quality=5) if coding == "br"
            else zstandard.ZstdCompressor().compress(zeros))
    server.routes["/bomb"] = fixed(bomb, headers=[("Content-Encoding", coding)])
    async with Resolver(warn=lambda m: None) as r:
        with pytest.raises(FileSizeExceeded):
            async with r.open(server.url("/bomb"), COMPRESSED) as res:
                await res.read(limit=1 << 20)


# -- side by side with curl -----------------------------------------------------------------

needs_curl = pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@needs_curl
@pytest.mark.parametrize("path", ["br", "zstd", "stacked"])
def test_the_same_bytes_as_curl_compressed(server: ScriptedServer, tmp_path: Path,
                                           path: str) -> None:
    url = server.url(f"/{path}")
    theirs = curl("-sS", "--compressed", "-o", str(tmp_path / "curl.out"), url)
    assert theirs.returncode == 0, theirs.stderr
    curl_asked = server.requests[-1].headers["accept-encoding"]
    ours = anyurl("-sS", "--compressed", "-o", str(tmp_path / "anyurl.out"), url)
    assert ours.returncode == 0, ours.stderr
    assert server.requests[-1].headers["accept-encoding"] == curl_asked
    assert _digest(tmp_path / "anyurl.out") == _digest(tmp_path / "curl.out")
    assert (tmp_path / "anyurl.out").read_bytes() == TEXT


@needs_curl
def test_a_corrupt_body_exits_61_as_curl(server: ScriptedServer, tmp_path: Path) -> None:
    url = server.url("/corrupt")
    theirs = curl("-sS", "--compressed", "-o", str(tmp_path / "curl.out"), url)
    ours = anyurl("-sS", "--compressed", "-o", str(tmp_path / "anyurl.out"), url)
    assert ours.returncode == theirs.returncode == 61, (ours.stderr, theirs.stderr)
    assert b"zstd" in ours.stderr and url.encode() in ours.stderr
    assert b"without --compressed" in ours.stderr  # the hint in the command's words
    assert not (tmp_path / "anyurl.out").exists()
