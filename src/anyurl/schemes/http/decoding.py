"""Content codings (``--compressed``): gzip and deflate, decoded as chunks arrive.

A decoder never holds more than zlib's window and the chunk at hand; the decoded size
is bounded by the downloader's ``--max-filesize``, so a compression bomb stops there.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Any

__all__ = ["DECODED_CHUNK", "Decoder", "decode_chunks", "decoder_for"]

Decoder = Any  # zlib.Decompress: not exposed as a type by typeshed

#: The most decoded bytes one step yields: a bomb (1 GiB from 1 MB) comes out in pieces
#: of this size, each checked against --max-filesize, never at once.
DECODED_CHUNK = 256 << 10


def decode_chunks(decoder: Decoder, data: bytes) -> Iterator[bytes]:
    """``data`` decoded in pieces of at most :data:`DECODED_CHUNK` bytes."""
    while data:
        out = decoder.decompress(data, DECODED_CHUNK)
        data = decoder.unconsumed_tail
        if out:
            yield out
        elif data:  # no progress with input left: the stream is broken or over
            return


def decoder_for(encoding: str) -> Decoder | None:
    """A decoder for a ``Content-Encoding`` value, or None for one not decoded."""
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return _DeflateDecoder()
    return None


class _DeflateDecoder:
    """``deflate`` is meant to be zlib-wrapped, but some servers send raw deflate."""

    def __init__(self) -> None:
        self._first = True
        self._obj = zlib.decompressobj()

    def decompress(self, data: bytes, max_length: int = 0) -> bytes:
        if self._first:
            self._first = False
            try:
                return self._obj.decompress(data, max_length)
            except zlib.error:
                self._obj = zlib.decompressobj(-zlib.MAX_WBITS)
        return self._obj.decompress(data, max_length)

    @property
    def unconsumed_tail(self) -> bytes:
        return self._obj.unconsumed_tail

    def flush(self) -> bytes:
        return self._obj.flush()
