"""Content codings (``--compressed``): gzip and deflate, decoded as chunks arrive.

A decoder never holds more than zlib's window and the chunk at hand; the decoded size
is bounded by the downloader's ``--max-filesize``, so a compression bomb stops there.
"""

from __future__ import annotations

import zlib
from typing import Any

__all__ = ["Decoder", "decoder_for"]

Decoder = Any  # zlib.Decompress: not exposed as a type by typeshed


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

    def decompress(self, data: bytes) -> bytes:
        if self._first:
            self._first = False
            try:
                return self._obj.decompress(data)
            except zlib.error:
                self._obj = zlib.decompressobj(-zlib.MAX_WBITS)
        return self._obj.decompress(data)

    def flush(self) -> bytes:
        return self._obj.flush()
