"""Property: the pipelined batch's own response reader (``schemes/http/pipeline.py``'s
:class:`ResponseReader` and :func:`parse_head`), fed random or mutated server bytes in any
chunking, raises only what it documents (:class:`Malformed`; :class:`EOFError` for a body
cut by the close), never another exception, and holds at most :data:`MAX_HEAD` bytes once
it asks for more.

A fixed hypothesis budget runs in CI (HYPOTHESIS_PROFILE=ci).
"""

from __future__ import annotations

from itertools import cycle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anyurl.schemes.http.pipeline import END, MAX_HEAD, Malformed, ResponseReader, parse_head
from tests.unit.test_core_fuzz import CHUNKINGS, _chunks

#: Pieces of responses: status lines, framing headers, chunk lines, line ends, noise.
TOKENS = [b"HTTP/1.1 200 OK\r\n", b"HTTP/1.0 200 OK\r\n", b"HTTP/1.1 100 Continue\r\n",
          b"HTTP/1.1 204 No Content\r\n", b"HTTP/1.1 304 Not Modified\r\n",
          b"HTTP/1.1 101 Switching\r\n", b"HTTP/1.1 404 Not Found\r\n",
          b"Content-Length: 5\r\n", b"Content-Length: 0\r\n", b"Content-Length: x\r\n",
          b"Transfer-Encoding: chunked\r\n", b"Transfer-Encoding: gzip\r\n",
          b"Connection: close\r\n", b" folded\r\n", b"X: y\r\n", b"\r\n", b"\n", b"\r",
          b"5\r\nhello\r\n", b"0\r\n\r\n", b"0\r\nT: v\r\n\r\n", b"ffffffffffffffff\r\n",
          b"5;ext=1\r\n", b"hello", b":", b" ", b"\x00", b"\xff", b"1", b"HTTP/1.1 "]
METHODS = st.lists(st.sampled_from(["GET", "HEAD"]), min_size=1, max_size=4)


@st.composite
def _responses(draw: st.DrawFn) -> bytes:
    """Well-formed pipelined responses (counted, chunked, empty, 1xx first)."""
    out = b""
    for _ in range(draw(st.integers(1, 4))):
        body = draw(st.binary(max_size=40))
        if draw(st.booleans()):
            out += b"HTTP/1.1 100 Continue\r\n\r\n"
        status = draw(st.sampled_from([b"200 OK", b"404 Not Found", b"204 No Content"]))
        if status.startswith(b"204"):  # no body, whatever its headers say
            out += b"HTTP/1.1 " + status + b"\r\nX: y\r\n\r\n"
        elif draw(st.booleans()):
            sizes = draw(st.lists(st.integers(1, 16), max_size=3))
            chunks, i = b"", 0
            for n in sizes:
                piece, i = body[i : i + n], i + n
                if piece:
                    chunks += b"%x\r\n" % len(piece) + piece + b"\r\n"
            out += (b"HTTP/1.1 " + status + b"\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + chunks + b"0\r\n\r\n")
        else:
            out += (b"HTTP/1.1 " + status + b"\r\nContent-Length: %d\r\n\r\n" % len(body)
                    + body)
    return out


@st.composite
def _mutated(draw: st.DrawFn) -> bytes:
    """A well-formed stream with some bytes replaced, inserted or removed, or cut short."""
    data = bytearray(draw(_responses()))
    for _ in range(draw(st.integers(1, 6))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        op = draw(st.sampled_from(["set", "insert", "delete", "token", "cut"]))
        if op == "set":
            data[at] = draw(st.integers(0, 255))
        elif op == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete":
            del data[at : at + draw(st.integers(1, 8))]
        elif op == "token":
            data[at:at] = draw(st.sampled_from(TOKENS))
        else:
            del data[at:]
    return bytes(data)


#: Numbers where the reader expects ASCII digits (a status code, a Content-Length, a chunk
#: size): a few bytes, often digits, sometimes what ``int()`` reads and the wire may not
#: carry (``1_0``, `` 5``, ``+5``, Latin-1's ``\xb2``).
_NUMBER = st.one_of(st.binary(min_size=1, max_size=4),
                    st.sampled_from([b"200", b"1_0", b" 5", b"+5", b"\xb200", b"-1", b"0x5",
                                     b"\xb9", b"5 ", b"99999999999999999999"]))


@st.composite
def _numbers(draw: st.DrawFn) -> bytes:
    """A response whose status code, Content-Length or chunk size is any few bytes."""
    status = draw(st.one_of(st.just(b"200"), _NUMBER))
    head = b"HTTP/1.1 " + status + b" X\r\n"
    if draw(st.booleans()):
        return head + b"Content-Length: " + draw(_NUMBER) + b"\r\n\r\n" + b"hello"
    return (head + b"Transfer-Encoding: chunked\r\n\r\n" + draw(_NUMBER) + b"\r\nhello\r\n"
            + b"0\r\n\r\n")


SERVER_BYTES = st.one_of(
    st.binary(max_size=400),
    st.lists(st.sampled_from(TOKENS), max_size=40).map(b"".join),
    _responses(),
    _mutated(),
    _numbers(),
)


def _drive(reader: ResponseReader, methods: cycle[str]) -> None:
    """Take heads and body pieces as the batch does, until the reader wants more bytes
    (or the stream is over)."""
    for _ in range(10_000):
        if reader.body_done:
            head = reader.next_head()
            if head is None:
                return
            reader.start_body(head, next(methods))
        elif reader.next_piece() is None:
            return
    pytest.fail("the reader never asked for more bytes")


def _read(data: bytes, sizes: list[int], methods: list[str]) -> ResponseReader:
    """Feed ``data`` in ``sizes`` chunks, then the close; the reader's buffer stays
    within MAX_HEAD each time it asks for more."""
    reader = ResponseReader()
    order = cycle(methods)
    for chunk in [*_chunks(data, sizes), b""]:
        reader.receive_data(chunk)
        _drive(reader, order)
        assert len(reader.buffer) <= MAX_HEAD
    return reader


@settings(max_examples=400, deadline=None)
@given(SERVER_BYTES, CHUNKINGS, METHODS)
def test_pipeline_reader_raises_only_its_errors(data: bytes, sizes: list[int],
                                                methods: list[str]) -> None:
    try:
        _read(data, sizes, methods)
    except (Malformed, EOFError):
        pass


@settings(max_examples=200, deadline=None)
@given(_responses(), CHUNKINGS)
def test_well_formed_responses_are_read_whole(data: bytes, sizes: list[int]) -> None:
    """The generator's streams are responses: read to their end with nothing left, so
    the mutations above start from bytes the reader accepts."""
    reader = _read(data, sizes, ["GET"])
    assert reader.body_done and not reader.buffer


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.binary(max_size=300),
                 st.lists(st.sampled_from(TOKENS), max_size=30).map(b"".join),
                 _numbers().map(lambda data: data.partition(b"\r\n\r\n")[0])))
def test_parse_head_raises_only_malformed(head: bytes) -> None:
    try:
        parse_head(head)
    except Malformed:
        pass


@pytest.mark.parametrize(
    ("start", "limit"),
    [
        (b"HTTP/1.1 200 OK\r\nX: ", MAX_HEAD),  # a head that never ends
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 4096),  # a chunk line
    ],
    ids=["head", "chunk-line"],
)
def test_a_line_without_end_is_malformed(start: bytes, limit: int) -> None:
    """300 KiB without a line end, in 1 KiB chunks: Malformed once past the limit, and
    never more than the limit held when the reader asks for more."""
    reader = ResponseReader()
    order = cycle(["GET"])
    reader.receive_data(start)
    fed = 0
    with pytest.raises(Malformed):
        while fed < 300 * 1024:
            reader.receive_data(b"a" * 1024)
            fed += 1024
            _drive(reader, order)
            assert len(reader.buffer) <= limit
    assert fed <= limit + 1024


def test_end_is_the_empty_piece() -> None:
    """``_drive`` relies on an ended body reading as END and setting body_done."""
    reader = ResponseReader()
    reader.receive_data(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    head = reader.next_head()
    assert head is not None
    reader.start_body(head, "GET")
    assert reader.next_piece() == END and reader.body_done
