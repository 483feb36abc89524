"""The file scheme and the resolver's download path, on asyncio and trio."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from anyurl import Resolver
from anyurl.errors import (
    FileExists,
    PartialTransfer,
    PolicyRefused,
    RemoteFileNotFound,
    UnsupportedHost,
    UnsupportedScheme,
)
from anyurl.resource import Resource, ResourceInfo, iterate_bytes
from anyurl.schemes.base import FetchOptions, SchemeHandler
from anyurl.url import URL, quote

pytestmark = pytest.mark.anyio


def file_url(path: Path) -> str:
    return "file://" + quote(str(path), frozenset("/abcdefghijklmnopqrstuvwxyz0123456789._-"))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "b.txt").write_bytes(b"bee\n")
    (tmp_path / "a.txt").write_bytes(b"hello\n")
    (tmp_path / "with space;semi%.txt").write_bytes(b"odd name\n")
    (tmp_path / "big.bin").write_bytes(os.urandom(3 * 1024 * 1024 + 17))
    return tmp_path


async def test_fetch_file(tree: Path) -> None:
    async with Resolver() as r:
        assert await r.fetch(file_url(tree / "a.txt")) == b"hello\n"
        assert await r.fetch("file://localhost" + str(tree / "a.txt")) == b"hello\n"


async def test_name_with_space_semicolon_percent(tree: Path) -> None:
    url = file_url(tree / "with space;semi%.txt")
    assert "%20" in url and "%3B" in url and "%25" in url
    async with Resolver() as r:
        assert await r.fetch(url) == b"odd name\n"


async def test_large_file_streams_in_chunks(tree: Path) -> None:
    data = (tree / "big.bin").read_bytes()
    async with Resolver() as r, r.open(file_url(tree / "big.bin")) as res:
        assert res.info.size == len(data)
        chunks = [c async for c in res]
    assert len(chunks) > 1
    assert b"".join(chunks) == data


async def test_directory_gives_a_listing(tree: Path) -> None:
    async with Resolver() as r, r.open(file_url(tree) + "/") as res:
        assert res.info.kind == "directory"
        listing = (await res.read()).decode()
    assert listing.splitlines() == ["a.txt", "big.bin", "dir/", "with space;semi%.txt"]


async def test_missing_file_is_37_as_in_curl(tree: Path) -> None:
    async with Resolver() as r:
        with pytest.raises(RemoteFileNotFound) as info:  # a "not found" still
            await r.fetch(file_url(tree / "nope"))
    assert info.value.exit_code == 37  # curl's FILE_COULDNT_READ_FILE


async def test_other_host_is_refused_with_exit_3() -> None:
    async with Resolver() as r:
        with pytest.raises(UnsupportedHost) as info:
            await r.fetch("file://elsewhere.example/etc/motd")
    assert info.value.exit_code == 3
    assert "elsewhere.example" in str(info.value)


async def test_unknown_scheme_is_exit_1() -> None:
    async with Resolver() as r:
        with pytest.raises(UnsupportedScheme) as info:
            await r.fetch("x-nothing:abc")
    assert info.value.exit_code == 1
    assert "x-nothing" in str(info.value)


async def test_bad_port_refused_before_dispatch() -> None:
    warnings: list[str] = []
    async with Resolver(warn=warnings.append) as r:
        with pytest.raises(PolicyRefused) as info:
            await r.fetch("gopher://127.0.0.1:25/0hello")
        assert "25" in str(info.value)


async def test_download_renames_only_when_complete(tree: Path, tmp_path: Path) -> None:
    target = tmp_path / "out" / "copy.bin"
    target.parent.mkdir()
    seen: list[tuple[int, int | None]] = []
    async with Resolver() as r:
        result = await r.download(file_url(tree / "big.bin"), target,
                                  progress=lambda n, t: seen.append((n, t)))
    assert target.read_bytes() == (tree / "big.bin").read_bytes()
    assert not (target.parent / "copy.bin.part").exists()
    assert result.bytes == target.stat().st_size
    assert seen[-1] == (target.stat().st_size, target.stat().st_size)


async def test_download_resumes_a_part_file(tree: Path, tmp_path: Path) -> None:
    data = (tree / "big.bin").read_bytes()
    target = tmp_path / "resumed.bin"
    (tmp_path / "resumed.bin.part").write_bytes(data[:1000])
    async with Resolver() as r:
        result = await r.download(file_url(tree / "big.bin"), target, resume=True)
    assert result.resumed_from == 1000
    assert result.bytes == len(data) - 1000
    assert target.read_bytes() == data


async def test_download_refuses_to_clobber(tree: Path, tmp_path: Path) -> None:
    target = tmp_path / "exists.txt"
    target.write_bytes(b"mine")
    async with Resolver() as r:
        with pytest.raises(FileExists):
            await r.download(file_url(tree / "a.txt"), target, clobber=False)
    assert target.read_bytes() == b"mine"


class ShortHandler(SchemeHandler):
    """Announces 10 bytes and delivers 4: a transfer cut short."""

    schemes = ("x-short",)

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        return Resource(ResourceInfo(url=url, size=10), iterate_bytes(b"abcd"))


async def test_short_stream_is_partial_transfer_and_no_final_file(tmp_path: Path) -> None:
    target = tmp_path / "short.bin"
    async with Resolver() as r:
        r.register("x-short", ShortHandler)
        with pytest.raises(PartialTransfer) as info:
            await r.download("x-short:thing", target)
    assert info.value.exit_code == 18
    assert (info.value.received, info.value.expected) == (4, 10)
    assert not target.exists()
    assert (tmp_path / "short.bin.part").read_bytes() == b"abcd"


async def test_registered_x_scheme_and_string_factory() -> None:
    async with Resolver() as r:
        r.register("x-short", "tests.integration.test_file:ShortHandler")
        with pytest.raises(PartialTransfer):
            await r.fetch("x-short:y")


def test_sync_facade_mirrors_the_resolver(tree: Path, tmp_path: Path) -> None:
    import anyurl

    url = file_url(tree / "a.txt")
    assert anyurl.fetch(url) == anyurl.get(url) == b"hello\n"
    with anyurl.open(url) as res:
        assert res.read() == b"hello\n"
    results = anyurl.fetch_many([url, file_url(tree / "nope")], limit=2)
    outcomes = {r.url: (r.data, type(r.error).__name__) for r in results}
    assert outcomes == {url: (b"hello\n", "NoneType"),
                        file_url(tree / "nope"): (None, "LocalFileNotFound")}
    done = anyurl.download(url, tmp_path / "copy.txt", backend="trio")
    assert done.path.read_bytes() == b"hello\n"
