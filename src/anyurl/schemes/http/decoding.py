"""Content codings (``--compressed``): gzip, deflate, br and zstd, decoded as chunks arrive.

gzip and deflate come with Python (zlib); ``br`` needs the ``brotli`` package (1.1 or
later: the first to stop at an output size), ``zstd`` the ``zstandard`` package, or the
standard library's ``compression.zstd`` on Python 3.14 and later. A coding is offered in
``Accept-Encoding`` only when its package is there (:func:`accepted_codings`), so a server
never sends one anyurl cannot decode: ``pip install 'anyurl[compression]'`` adds both.

Output-bounded: whatever the ratio, one step yields a bounded piece, so a compression
bomb (a few KiB that inflate to GiB) never makes memory grow with its output; the
downloader's ``--max-filesize`` (``Config.max_filesize``) counts the decoded bytes and
stops it. zlib and brotli stop at :data:`DECODED_CHUNK` of output (``max_length``,
``output_buffer_limit``). The zstandard package cannot stop at an output size, so it is
fed :data:`ZSTD_STEP` bytes of input at a time: a zstd block (at most 128 KiB of output)
takes at least 4 bytes, so one step makes at most ``(ZSTD_STEP / 4 + 1) * 128 KiB``
(about 1.1 MiB); its window is limited to 8 MiB, as RFC 9659 asks of HTTP decoders.

Stacked codings (``Content-Encoding: gzip, br``: gzip applied first) are undone in
reverse order, each decoder feeding the next as it goes. A stream that does not decode,
or ends before its coding's end, raises :class:`CodingError` naming the coding; the
handler turns it into :class:`~anyurl.errors.BadContentEncoding` (61) naming the URL.
"""

from __future__ import annotations

import functools
import importlib
import sys
import zlib
from collections.abc import Iterator
from typing import Any, Protocol

__all__ = [
    "DECODED_CHUNK",
    "MAX_CODINGS",
    "ZSTD_STEP",
    "CodingError",
    "Decoder",
    "accept_encoding",
    "accepted_codings",
    "decode_chunks",
    "decoder_for",
]

#: The most decoded bytes one zlib or brotli step yields (brotli may pass it by one
#: buffer's growth): a bomb (1 GiB from 1 MB) comes out in pieces of about this size,
#: each checked against --max-filesize, never at once.
DECODED_CHUNK = 256 << 10

#: Input bytes given to the zstandard package per step (it has no output limit):
#: at most 9 zstd blocks, 1.1 MiB, come out of one step.
ZSTD_STEP = 32

#: The most codings one ``Content-Encoding`` may stack (urllib3 allows 5): more is an
#: error rather than a chain of decoders a server chose the length of.
MAX_CODINGS = 4

#: zstd's largest window accepted (RFC 9659: HTTP decoders need no more than 8 MiB).
ZSTD_MAX_WINDOW = 8 << 20


class CodingError(ValueError):
    """A body that does not decode as its ``coding`` says (``reason`` tells why)."""

    def __init__(self, coding: str, reason: str):
        self.coding = coding
        self.reason = reason
        super().__init__(f"{coding}: {reason}")


class Decoder(Protocol):
    """One content coding undone as the body arrives."""

    #: The coding's name as ``Content-Encoding`` gives it (``"gzip"``, ``"br"`` ...).
    name: str

    def decode(self, data: bytes) -> Iterator[bytes]:
        """``data`` decoded, in bounded pieces; :class:`CodingError` if it is corrupt."""
        ...

    def finish(self) -> Iterator[bytes]:
        """What is left at the end of the body; :class:`CodingError` if the coded
        stream has not ended."""
        ...


def decode_chunks(decoder: Decoder, data: bytes) -> Iterator[bytes]:
    """``data`` decoded in bounded pieces (:meth:`Decoder.decode`); ``b""`` for the end
    of the body (:meth:`Decoder.finish`)."""
    return decoder.decode(data) if data else decoder.finish()


# -- which codings are there ---------------------------------------------------------


@functools.cache
def _brotli() -> Any | None:
    """The brotli module (``brotli`` or ``brotlicffi``) if it can stop at an output size."""
    for name in ("brotli", "brotlicffi"):
        try:
            module = importlib.import_module(name)
            probe = module.Decompressor()
            probe.process(b"", output_buffer_limit=1)
            probe.can_accept_more_data()
        except (ImportError, AttributeError, TypeError):
            continue  # missing, or older than brotli 1.1: it could not bound a bomb
        return module
    return None


@functools.cache
def _zstd() -> tuple[str, Any] | None:
    """``("stdlib", compression.zstd)`` on Python 3.14+, ``("zstandard", zstandard)``
    with that package, else None."""
    if sys.version_info >= (3, 14):
        try:
            return ("stdlib", importlib.import_module("compression.zstd"))
        except ImportError:
            pass
    try:
        return ("zstandard", importlib.import_module("zstandard"))
    except ImportError:
        return None


def accepted_codings() -> tuple[str, ...]:
    """The codings anyurl decodes here, in curl's order: ``deflate``, ``gzip``, then
    ``br`` and ``zstd`` when their packages are installed."""
    codings = ["deflate", "gzip"]
    if _brotli() is not None:
        codings.append("br")
    if _zstd() is not None:
        codings.append("zstd")
    return tuple(codings)


def accept_encoding() -> str:
    """The ``Accept-Encoding`` value of ``--compressed`` (curl 7.88 with all its
    libraries sends ``deflate, gzip, br, zstd``)."""
    return ", ".join(accepted_codings())


def decoder_for(content_encoding: str) -> Decoder | None:
    """A decoder for a ``Content-Encoding`` value, or None when nothing is to be decoded
    or a coding is one anyurl cannot decode here (the body is then kept as sent).

    ``"gzip, br"`` gives a chain that undoes ``br`` first, then ``gzip``. More than
    :data:`MAX_CODINGS` codings raise :class:`CodingError`.
    """
    names = [c.strip().lower() for c in content_encoding.split(",")]
    names = [c for c in names if c and c != "identity"]
    if not names:
        return None
    if len(names) > MAX_CODINGS:
        raise CodingError(", ".join(names), f"more than {MAX_CODINGS} codings stacked")
    decoders = []
    for name in reversed(names):
        one = _one_decoder(name)
        if one is None:
            return None
        decoders.append(one)
    return decoders[0] if len(decoders) == 1 else _Chain(decoders)


def _one_decoder(name: str) -> Decoder | None:
    if name in ("gzip", "x-gzip"):
        return _Gzip(name)
    if name == "deflate":
        return _Deflate()
    if name == "br":
        brotli = _brotli()
        return None if brotli is None else _Brotli(brotli)
    if name == "zstd":
        found = _zstd()
        if found is None:
            return None
        kind, module = found
        return _StdlibZstd(module) if kind == "stdlib" else _Zstandard(module)
    return None


# -- the decoders ----------------------------------------------------------------------


class _Gzip:
    """gzip (RFC 1952): one member after another, each zlib-inflated with ``max_length``.

    What follows the last member and is no member (trailing junk) is ignored, as zlib's
    gunzip and curl ignore it.
    """

    #: Members after the first: a stream may end between them (deflate has one).
    members = True

    def __init__(self, name: str = "gzip"):
        self.name = name
        self._obj = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._later = False  # a member after the first
        self._started = False  # the current member has decoded something
        self._ended = False

    def decode(self, data: bytes) -> Iterator[bytes]:
        while data and not self._ended:
            try:
                out = self._obj.decompress(data, DECODED_CHUNK)
            except zlib.error as exc:
                if self._later and not self._started:
                    self._ended = True  # junk after the last member
                    return
                raise CodingError(self.name, str(exc)) from None
            tail = self._obj.unconsumed_tail
            if out:
                self._started = True
                yield out
            if self._obj.eof:
                data = self._obj.unused_data + tail
                if not self.members:
                    self._ended = True
                    return
                self._obj = zlib.decompressobj(16 + zlib.MAX_WBITS)
                self._later, self._started = True, False
            elif not out and tail == data:
                raise CodingError(self.name, "the stream makes no progress")
            else:
                data = tail

    def finish(self) -> Iterator[bytes]:
        if self._ended:
            return
        try:
            while True:  # what zlib still holds (a match copy cut off by max_length)
                out = self._obj.decompress(b"", DECODED_CHUNK)
                if not out:
                    break
                self._started = True
                yield out
        except zlib.error as exc:
            raise CodingError(self.name, str(exc)) from None
        if not self._obj.eof and (self._started or not self._later):
            raise CodingError(self.name, "the body ends before the end of the stream")


class _Deflate(_Gzip):
    """``deflate`` is meant to be zlib-wrapped (RFC 9110), but some servers send raw
    deflate: the first chunk tells."""

    members = False

    def __init__(self) -> None:
        super().__init__("deflate")
        self._obj = zlib.decompressobj()
        self._head: bytes | None = b""  # the first bytes, until the header tells

    def decode(self, data: bytes) -> Iterator[bytes]:
        if self._head is not None:
            data = self._head + data
            if len(data) < 2:
                self._head = data
                return iter(())
            self._head = None
            try:
                zlib.decompressobj().decompress(data[:2])  # zlib's header check
            except zlib.error:
                self._obj = zlib.decompressobj(-zlib.MAX_WBITS)
        return super().decode(data)

    def finish(self) -> Iterator[bytes]:
        if self._head:
            raise CodingError(self.name, "the body ends before the end of the stream")
        return super().finish()


class _Brotli:
    """br (RFC 7932) with brotli 1.1's ``output_buffer_limit``."""

    name = "br"

    def __init__(self, module: Any):
        self._error: type[Exception] = getattr(module, "error", Exception)
        self._obj = module.Decompressor()

    def _step(self, data: bytes) -> bytes:
        try:
            return bytes(self._obj.process(data, output_buffer_limit=DECODED_CHUNK))
        except self._error as exc:
            raise CodingError(self.name, str(exc) or "the stream is corrupt") from None

    def decode(self, data: bytes) -> Iterator[bytes]:
        if self._obj.is_finished():
            return  # data after the end of the stream: ignored, as for gzip
        out = self._step(data)
        if out:
            yield out
        while not self._obj.can_accept_more_data():
            out = self._step(b"")
            if not out:
                break
            yield out

    def finish(self) -> Iterator[bytes]:
        while not self._obj.is_finished():
            out = self._step(b"")
            if not out:
                raise CodingError(self.name, "the body ends before the end of the stream")
            yield out


class _Zstandard:
    """zstd (RFC 8878) with the zstandard package, fed :data:`ZSTD_STEP` bytes a step
    (it has no output limit); frames follow one another as in ``zstd -d``."""

    name = "zstd"

    def __init__(self, module: Any):
        self._module = module
        self._error: type[Exception] = module.ZstdError
        self._obj = self._new()
        self._pending = False  # a frame started and not ended

    def _new(self) -> Any:
        return self._module.ZstdDecompressor(max_window_size=ZSTD_MAX_WINDOW).decompressobj()

    def decode(self, data: bytes) -> Iterator[bytes]:
        view = memoryview(data)
        pieces: list[bytes] = []
        size = 0
        pos = 0
        try:
            while pos < len(view):
                step = view[pos:pos + ZSTD_STEP]
                pos += len(step)
                out = self._obj.decompress(step)
                self._pending = True
                if self._obj.eof:
                    self._pending = False
                    rest = self._obj.unused_data
                    self._obj = self._new()
                    if rest:
                        pos -= len(rest)
                if out:
                    pieces.append(out)
                    size += len(out)
                    if size >= DECODED_CHUNK:
                        yield b"".join(pieces)
                        pieces, size = [], 0
        except self._error as exc:
            raise CodingError(self.name, str(exc)) from None
        if pieces:
            yield b"".join(pieces)

    def finish(self) -> Iterator[bytes]:
        if self._pending:
            raise CodingError(self.name, "the body ends before the end of the stream")
        return iter(())


class _StdlibZstd:
    """zstd with Python 3.14's ``compression.zstd``, which stops at ``max_length``."""

    name = "zstd"

    def __init__(self, module: Any):
        self._module = module
        self._error: type[Exception] = module.ZstdError
        self._obj = self._new()
        self._pending = False

    def _new(self) -> Any:
        window_log = ZSTD_MAX_WINDOW.bit_length() - 1
        return self._module.ZstdDecompressor(
            options={self._module.DParameter.window_log_max: window_log})

    def decode(self, data: bytes) -> Iterator[bytes]:
        try:
            while True:
                if data:
                    self._pending = True
                out = self._obj.decompress(data, DECODED_CHUNK)
                data = b""
                if self._obj.eof:
                    self._pending = False
                    data = self._obj.unused_data
                    self._obj = self._new()
                if out:
                    yield out
                if not data and self._obj.needs_input:
                    return
        except self._error as exc:
            raise CodingError(self.name, str(exc)) from None

    def finish(self) -> Iterator[bytes]:
        if self._pending or not self._obj.needs_input:
            yield from self.decode(b"")
        if self._pending:
            raise CodingError(self.name, "the body ends before the end of the stream")


class _Chain:
    """Stacked codings: each decoder's pieces go to the next (the last applied first)."""

    def __init__(self, decoders: list[Decoder]):
        self._decoders = decoders
        self.name = ", ".join(reversed([d.name for d in decoders]))

    def _through(self, level: int, pieces: Iterator[bytes]) -> Iterator[bytes]:
        if level == len(self._decoders):
            yield from pieces
            return
        decoder = self._decoders[level]
        for piece in pieces:
            yield from self._through(level + 1, decoder.decode(piece))

    def decode(self, data: bytes) -> Iterator[bytes]:
        return self._through(0, iter((data,)))

    def finish(self) -> Iterator[bytes]:
        for level, decoder in enumerate(self._decoders):
            yield from self._through(level + 1, decoder.finish())
