"""Content codings (``--compressed``): every coding at every chunk boundary, bombs that stay
bounded, corrupt and cut-short streams, stacked codings, and what Accept-Encoding offers
when a package is missing."""

from __future__ import annotations

import gzip
import sys
import zlib
from collections.abc import Callable, Iterator

import brotli
import pytest
import zstandard

from anyurl.schemes.http import decoding
from anyurl.schemes.http.decoding import (
    DECODED_CHUNK,
    MAX_CODINGS,
    ZSTD_STEP,
    CodingError,
    accept_encoding,
    accepted_codings,
    decoder_for,
)

#: Text and bytes that do not compress, so a stream has both kinds of blocks.
BODY = bytes(range(256)) * 64 + b"the quick brown fox " * 2000 + bytes(
    (i * 7919) % 251 for i in range(30000))


def _raw_deflate(data: bytes) -> bytes:
    obj = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return obj.compress(data) + obj.flush()


def _zstd(data: bytes) -> bytes:
    return zstandard.ZstdCompressor().compress(data)


ENCODERS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress,
    "x-gzip": gzip.compress,
    "deflate": zlib.compress,
    "br": brotli.compress,
    "zstd": _zstd,
}


def decode(coding: str, body: bytes, step: int | None = None) -> Iterator[bytes]:
    """The pieces a decoder yields for ``body`` arriving ``step`` bytes at a time."""
    decoder = decoder_for(coding)
    assert decoder is not None
    step = step or len(body) or 1
    for i in range(0, len(body), step):
        yield from decoder.decode(body[i:i + step])
    yield from decoder.finish()


@pytest.fixture(autouse=True)
def _fresh_package_lookup() -> Iterator[None]:
    """The package lookups are cached: each test sees the packages as they are."""
    decoding._brotli.cache_clear()
    decoding._zstd.cache_clear()
    yield
    decoding._brotli.cache_clear()
    decoding._zstd.cache_clear()


@pytest.mark.parametrize("coding", sorted(ENCODERS))
@pytest.mark.parametrize("step", [1, 3, 4096, None])
def test_every_coding_at_every_boundary(coding: str, step: int | None) -> None:
    packed = ENCODERS[coding](BODY)
    assert b"".join(decode(coding, packed, step)) == BODY


def test_raw_deflate_is_decoded_too() -> None:
    # RFC 9110's deflate is zlib-wrapped; some servers send it raw.
    for step in (1, 2, None):
        assert b"".join(decode("deflate", _raw_deflate(BODY), step)) == BODY


def test_gzip_members_follow_one_another_and_junk_after_them_is_ignored() -> None:
    packed = gzip.compress(BODY[:1000]) + gzip.compress(BODY[1000:]) + b"junk\n"
    for step in (1, None):
        assert b"".join(decode("gzip", packed, step)) == BODY


def test_zstd_frames_follow_one_another() -> None:
    packed = _zstd(BODY[:1000]) + _zstd(BODY[1000:])
    for step in (1, 5, None):
        assert b"".join(decode("zstd", packed, step)) == BODY


@pytest.mark.parametrize("step", [1, 7, None])
def test_stacked_codings_are_undone_last_first(step: int | None) -> None:
    # Content-Encoding lists codings in the order they were applied.
    packed = brotli.compress(gzip.compress(BODY))
    assert b"".join(decode("gzip, br", packed, step)) == BODY
    packed = zlib.compress(_zstd(brotli.compress(BODY)))
    assert b"".join(decode("br, zstd, deflate", packed, step)) == BODY
    assert b"".join(decode("identity, gzip", gzip.compress(BODY), step)) == BODY


def test_more_codings_than_allowed_is_an_error() -> None:
    with pytest.raises(CodingError, match=f"more than {MAX_CODINGS} codings"):
        decoder_for(", ".join(["gzip"] * (MAX_CODINGS + 1)))


def test_an_unknown_coding_anywhere_leaves_the_body_as_sent() -> None:
    assert decoder_for("compress") is None
    assert decoder_for("gzip, compress") is None
    assert decoder_for("identity") is None


#: 256 MiB of zeros, packed by each coding into a few hundred KiB or less.
BOMB_SIZE = 256 << 20


@pytest.fixture(scope="module")
def bombs() -> dict[str, bytes]:
    zeros = bytes(BOMB_SIZE)
    gz = zlib.compressobj(9, zlib.DEFLATED, 31)
    return {
        "gzip": gz.compress(zeros) + gz.flush(),
        "br": brotli.compress(zeros, quality=5),
        "zstd": zstandard.ZstdCompressor(level=3).compress(zeros),
    }


#: The most one piece may be: zlib's max_length; brotli may pass its limit by one
#: buffer's growth; zstandard is fed ZSTD_STEP bytes, a block (128 KiB) per 4 of them.
BOUND = {
    "gzip": DECODED_CHUNK,
    "br": 2 * DECODED_CHUNK,
    "zstd": DECODED_CHUNK + (ZSTD_STEP // 4 + 1) * (128 << 10),
}


@pytest.mark.parametrize("coding", ["gzip", "br", "zstd"])
def test_a_bomb_comes_out_in_bounded_pieces(coding: str, bombs: dict[str, bytes]) -> None:
    packed = bombs[coding]
    assert len(packed) < BOMB_SIZE // 1000
    total = 0
    for piece in decode(coding, packed, 64 << 10):
        assert 0 < len(piece) <= BOUND[coding]
        total += len(piece)
    assert total == BOMB_SIZE


@pytest.mark.parametrize("coding", ["gzip", "br", "zstd"])
def test_a_bomb_can_be_stopped_after_the_first_piece(coding: str,
                                                     bombs: dict[str, bytes]) -> None:
    # What --max-filesize does: stop reading; nothing beyond one piece was made.
    decoder = decoder_for(coding)
    assert decoder is not None
    first = next(iter(decoder.decode(bombs[coding])))
    assert len(first) <= BOUND[coding]


@pytest.mark.parametrize("coding", sorted(ENCODERS))
def test_a_stream_cut_short_is_an_error_naming_the_coding(coding: str) -> None:
    packed = ENCODERS[coding](BODY)
    with pytest.raises(CodingError) as caught:
        b"".join(decode(coding, packed[:len(packed) // 2]))
    assert caught.value.coding == coding
    assert "ends before the end of the stream" in caught.value.reason


@pytest.mark.parametrize("coding", sorted(ENCODERS))
def test_a_corrupt_stream_is_an_error_naming_the_coding(coding: str) -> None:
    with pytest.raises(CodingError) as caught:
        b"".join(decode(coding, b"\x1f\x8b\x08\x00" + b"this is not compressed" * 40))
    assert caught.value.coding == coding


def test_a_corrupt_gzip_checksum_is_an_error() -> None:
    packed = bytearray(gzip.compress(BODY))
    packed[-6] ^= 0xFF  # the CRC-32
    with pytest.raises(CodingError, match="gzip"):
        b"".join(decode("gzip", bytes(packed), 1000))


def test_accept_encoding_offers_what_is_installed_in_curls_order() -> None:
    assert accepted_codings() == ("deflate", "gzip", "br", "zstd")
    assert accept_encoding() == "deflate, gzip, br, zstd"  # curl 7.88 --compressed


def test_a_missing_package_is_not_offered_nor_decoded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "brotli", None)  # import brotli fails
    monkeypatch.setitem(sys.modules, "brotlicffi", None)
    assert accept_encoding() == "deflate, gzip, zstd"
    assert decoder_for("br") is None
    monkeypatch.setitem(sys.modules, "zstandard", None)
    monkeypatch.setitem(sys.modules, "compression.zstd", None)
    decoding._zstd.cache_clear()
    assert accept_encoding() == "deflate, gzip"
    assert decoder_for("zstd") is None
    assert decoder_for("gzip, zstd") is None


def test_a_brotli_that_cannot_stop_at_a_size_is_not_offered(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # brotli before 1.1 (and brotlicffi) decode a whole chunk at once: a bomb unbounded.
    class OldDecompressor:
        def process(self, data: bytes) -> bytes:
            return data

    class OldBrotli:
        Decompressor = OldDecompressor

    monkeypatch.setitem(sys.modules, "brotli", OldBrotli)
    monkeypatch.setitem(sys.modules, "brotlicffi", None)
    assert "br" not in accepted_codings()
