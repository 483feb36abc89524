"""The reply reader's one-step path for one-line replies gives what the grammar gives.

``ReplyReader._one_line`` takes a ``ddd text`` reply whole (issue 21: most replies of
a small file's dialogue); the line-by-line grammar is the truth. Every stream here is
read by both, whole and in pieces, and the events (or the error) must be the same.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from anyurl.protocols.common import NeedData, RemoteProtocolError
from anyurl.protocols.replies import Grammar, ReplyReader

LINES = st.sampled_from([
    b"213 1024", b"229 Entering Extended Passive Mode (|||4242|)", b"150 here", b"226 ",
    b"220-wel", b"220 come", b"220", b"2200 x", b"22 x", b"abc x", b"230-a", b" 230 b",
    b"230 b", b"211-\xff\xfb\x01x", b"211 end\xff\xff", b"500 \xc3\xa9t\xe9", b"421 bye",
    b"", b"150 \r", b"999 odd", b"100 early",
])


def _events(data: list[bytes], grammar: Grammar, fast: bool, eof: bool) -> list[Any]:
    reader = ReplyReader(grammar, max_line=64, max_reply=256)
    if not fast:
        reader._one_line = lambda: None  # type: ignore[method-assign]
    out: list[Any] = []
    try:
        for piece in [*data, *([b""] if eof else [])]:
            reader.receive_data(piece)
            while not isinstance(event := reader.next_event(), NeedData):
                out.append(event)
                if type(event).__name__ == "ConnectionClosed":
                    return out
    except RemoteProtocolError as exc:
        out.append(("error", str(exc)))
    return out


@given(lines=st.lists(LINES, max_size=12), ends=st.lists(st.sampled_from([b"\r\n", b"\n"]),
       min_size=12, max_size=12), cut=st.integers(1, 7), eof=st.booleans(),
       long=st.booleans())
@pytest.mark.parametrize("grammar", [Grammar.FREE_TEXT, Grammar.CODED_LINES])
def test_one_line_replies_read_as_the_grammar_reads_them(
        grammar: Grammar, lines: list[bytes], ends: list[bytes], cut: int, eof: bool,
        long: bool) -> None:
    stream = b"".join(line + end for line, end in zip(lines, ends, strict=False))
    if long:
        stream += b"213 " + b"9" * 80 + b"\r\n"  # over max_line: the grammar's error
    whole = [stream] if stream else []
    pieces = [stream[i:i + cut] for i in range(0, len(stream), cut)]
    expected = _events(whole, grammar, fast=False, eof=eof)
    assert _events(whole, grammar, fast=True, eof=eof) == expected
    assert _events(pieces, grammar, fast=True, eof=eof) == _events(
        pieces, grammar, fast=False, eof=eof)
