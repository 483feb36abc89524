"""``Resource.text()``, ``.json()`` and ``.iter_lines()`` (and the sync facade's), bounded
and decoded by the content type's charset, as httpx users expect (issue 23)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

import anyurl
from anyurl.errors import FileSizeExceeded
from anyurl.resource import LineSplitter, Resource, ResourceInfo, charset_of
from anyurl.sync import SyncResource
from anyurl.url import parse

URL = parse("http://example.org/x")


async def _chunks(data: bytes, size: int) -> AsyncIterator[bytes]:
    for i in range(0, len(data), size):
        yield data[i:i + size]


def resource(data: bytes, content_type: str | None = None, size: int = 1) -> Resource:
    """A resource giving ``data`` ``size`` bytes at a time (1: every split is tried)."""
    return Resource(ResourceInfo(URL, content_type=content_type), _chunks(data, size))


def sync_resource(data: bytes, content_type: str | None = None) -> SyncResource:
    def chunks() -> Iterator[bytes]:
        for i in range(len(data)):
            yield data[i:i + 1]

    return SyncResource(ResourceInfo(URL, content_type=content_type), chunks())


def test_charset_of_a_content_type() -> None:
    assert charset_of("text/plain; charset=ISO-8859-1") == "ISO-8859-1"
    assert charset_of('text/html; charset="utf-8"; q=1') == "utf-8"
    assert charset_of("text/plain") is None and charset_of(None) is None


@pytest.mark.anyio
async def test_text_by_the_charset_else_utf8() -> None:
    word = "Grüße, ½"
    assert await resource(word.encode("latin-1"), "text/plain; charset=iso-8859-1").text() \
        == word
    assert await resource(word.encode()).text() == word
    assert await resource(word.encode(), "text/plain; charset=no-such-codec").text() == word
    assert await resource(b"ok \xff").text() == "ok \ufffd"  # replaced, not raised
    assert await resource(word.encode("latin-1")).text(encoding="latin-1") == word


@pytest.mark.anyio
async def test_text_and_json_are_bounded() -> None:
    with pytest.raises(FileSizeExceeded):
        await resource(b"x" * 101, size=10).text(limit=100)
    with pytest.raises(FileSizeExceeded):
        await resource(b"[" + b"1," * 100 + b"1]", size=10).json(limit=100)
    assert await resource(b"x" * 100, size=7).text(limit=100) == "x" * 100


@pytest.mark.anyio
async def test_json_in_utf8_utf16_and_a_named_charset() -> None:
    value = {"name": "Grüße", "n": [1, 2]}
    text = json.dumps(value, ensure_ascii=False)
    assert await resource(text.encode(), "application/json").json() == value
    assert await resource(text.encode("utf-16")).json() == value
    assert await resource(text.encode("latin-1"), "application/json; charset=latin-1"
                          ).json() == value
    with pytest.raises(ValueError):
        await resource(b"<html>").json()


@pytest.mark.anyio
async def test_iter_lines_splits_on_lf_crlf_and_cr_only() -> None:
    body = "one\r\ntwo\nthree\rfour\x0cstill four\r\n\r\nlast é".encode()
    for size in (1, 2, 3, 1000):  # a CR LF or a UTF-8 sequence cut in two
        got = [line async for line in resource(body, size=size).iter_lines()]
        assert got == ["one", "two", "three", "four\x0cstill four", "", "last é"], size
    assert [line async for line in resource(b"a\nb\n").iter_lines()] == ["a", "b"]
    assert [line async for line in resource(b"").iter_lines()] == []


@pytest.mark.anyio
async def test_iter_lines_refuses_an_endless_line() -> None:
    lines = resource(b"short\n" + b"y" * 50, size=8).iter_lines(limit=20)
    assert await lines.__anext__() == "short"
    with pytest.raises(FileSizeExceeded, match="line longer than the limit of 20"):
        await lines.__anext__()


def test_a_held_cr_is_not_a_line_twice() -> None:
    lines = LineSplitter(None, "strict", None, URL)
    assert lines.feed(b"a\r") == []
    assert lines.feed(b"\nb\r") == ["a"]
    assert lines.feed(b"c") == ["b"]
    assert lines.feed(b"", final=True) == ["c"]


def test_the_sync_facade_has_them_too() -> None:
    assert sync_resource("Grüße".encode("latin-1"), "text/plain; charset=latin-1"
                         ).text() == "Grüße"
    assert sync_resource(b'{"a": 1}').json() == {"a": 1}
    assert list(sync_resource(b"a\r\nb\rc").iter_lines()) == ["a", "b", "c"]
    with pytest.raises(FileSizeExceeded):
        sync_resource(b"x" * 11).read(limit=10)


def test_sync_open_of_a_file_url(tmp_path: Path) -> None:
    path = tmp_path / "lines.txt"
    path.write_bytes(b"first\nsecond\n")
    with anyurl.open(path.as_uri()) as res:
        assert list(res.iter_lines()) == ["first", "second"]
    with anyurl.open(path.as_uri()) as res:
        assert res.text() == "first\nsecond\n"
