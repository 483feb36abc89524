"""Property: every sans-I/O core fed random or mutated server bytes raises only its
protocol error (a RemoteProtocolError), never another exception; and buffers stay bounded:
a line that never ends (``test_a_line_without_end_is_bounded``) is the core's protocol error
or held within the core's documented limit, never memory.

A fixed hypothesis budget runs in CI (HYPOTHESIS_PROFILE=ci); ``scripts/fuzz.sh`` runs
longer campaigns with a larger budget.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anyurl.protocols import ardp, wais
from anyurl.protocols.common import NEED_DATA, ConnectionClosed, EndOfData, RemoteProtocolError
from anyurl.protocols.ftp import Command, FTPClient, FTPReplyError
from anyurl.protocols.gopher import (
    Framing,
    GopherReplyError,
    MenuParser,
    PlusError,
    ResponseReader,
    parse_attributes,
    parse_menu,
)
from anyurl.protocols.gopher.framing import _MAX_ERROR_BODY
from anyurl.protocols.gopher.menus import MAX_MENU_LINE
from anyurl.protocols.nntp import MAX_DATA_LINE, MAX_RESPONSE_LINE, NNTPClient, NNTPReplyError
from anyurl.protocols.nntp import Command as NNTPCommand
from anyurl.protocols.prospero import parse_reply
from anyurl.protocols.replies import MAX_LINE, Grammar, ReplyReader
from anyurl.protocols.smtp import Envelope, SMTPReplyError, Submission
from anyurl.protocols.telnet import (
    IAC,
    MAX_SUBNEGOTIATION,
    SB,
    TTYPE,
    TelnetClient,
    TelnetReplyError,
)

# Server-like bytes: reply codes, line ends, dots, Telnet IAC, Gopher+ headers, and noise.
TOKENS = [b"220", b"230-", b"230 ", b"211", b"-", b" ", b"\r\n", b"\n", b"\r", b".", b"..",
          b"+-1\r\n", b"+12\r\n", b"--2\r\n", b"\xff", b"\xff\xfb\x01", b"\xff\xfa", b"\t",
          b"1", b"0Menu\tsel\thost\t70\r\n", b"\x00", b"+INFO: ", b"+ASK:", b"\xe9",
          b"200 ok\r\n", b"211 1 1 1 g\r\n", b"\x9b"]
SERVER_BYTES = st.one_of(
    st.binary(max_size=400),
    st.lists(st.sampled_from(TOKENS), max_size=60).map(b"".join),
)
CHUNKINGS = st.lists(st.integers(1, 64), min_size=1, max_size=8)


def _chunks(data: bytes, sizes: list[int]) -> list[bytes]:
    out, i, k = [], 0, 0
    while i < len(data):
        n = sizes[k % len(sizes)]
        out.append(data[i : i + n])
        i += n
        k += 1
    return out


def _drain(next_event: Callable[[], object], limit: int = 10_000) -> bool:
    """Take events until more data is needed (False) or the stream is over (True)."""
    for _ in range(limit):
        event = next_event()
        if event is NEED_DATA:
            return False
        if isinstance(event, ConnectionClosed | EndOfData | PlusError):
            return True
    return False


class _Core(Protocol):
    def receive_data(self, data: bytes) -> None: ...
    def next_event(self) -> object: ...


@pytest.mark.parametrize(
    "make",
    [
        lambda: ReplyReader(Grammar.FREE_TEXT),
        FTPClient,
        NNTPClient,
        lambda: TelnetClient(terminal_type="DUMB"),
        lambda: Submission(Envelope("c.example", "a@b.example", ("c@d.example",), b"x\r\n")),
        wais.WAISConnection,
        lambda: ResponseReader(Framing.CLOSE, gopher_plus=False),
    ],
    ids=["replies", "ftp", "nntp", "telnet", "smtp", "wais", "gopher"],
)
def test_every_core_ends_with_a_shared_event(make: Callable[[], _Core]) -> None:
    """The end of the stream is common's ConnectionClosed or EndOfData in every core,
    so one isinstance check (``_drain``) sees it whatever the core."""
    core = make()
    core.receive_data(b"")
    assert _drain(core.next_event)


@settings(max_examples=300, deadline=None)
@given(SERVER_BYTES, CHUNKINGS, st.sampled_from([Grammar.FREE_TEXT, Grammar.CODED_LINES]))
def test_reply_reader(data: bytes, sizes: list[int], grammar: Grammar) -> None:
    reader = ReplyReader(grammar)
    try:
        for chunk in [*_chunks(data, sizes), b""]:
            reader.receive_data(chunk)
            _drain(reader.next_event)
    except RemoteProtocolError:
        return
    assert len(reader._buffer) <= MAX_LINE + 64


@settings(max_examples=200, deadline=None)
@given(SERVER_BYTES, CHUNKINGS)
def test_ftp_client(data: bytes, sizes: list[int]) -> None:
    client = FTPClient()
    try:
        for chunk in _chunks(data, sizes):
            client.receive_data(chunk)
            _drain(client.next_event)
            if client.state.value == "idle":
                client.send(Command("PWD"))
        client.receive_data(b"")
        _drain(client.next_event)
    except RemoteProtocolError:
        pass


@settings(max_examples=200, deadline=None)
@given(SERVER_BYTES, CHUNKINGS)
def test_nntp_client(data: bytes, sizes: list[int]) -> None:
    client = NNTPClient()
    try:
        for chunk in _chunks(data, sizes):
            client.receive_data(chunk)
            _drain(client.next_event)
            if client.state.value == "idle":
                client.send(NNTPCommand("ARTICLE", ("1",)))
        client.receive_data(b"")
        _drain(client.next_event)
    except RemoteProtocolError:
        pass


@settings(max_examples=200, deadline=None)
@given(SERVER_BYTES, CHUNKINGS, st.sampled_from([Framing.DOT, Framing.CLOSE]), st.booleans())
def test_gopher_reader(data: bytes, sizes: list[int], framing: Framing, plus: bool) -> None:
    reader = ResponseReader(framing, gopher_plus=plus)
    try:
        for chunk in [*_chunks(data, sizes), b""]:
            reader.receive_data(chunk)
            if _drain(reader.next_event):
                return
    except RemoteProtocolError:
        pass


@settings(max_examples=200, deadline=None)
@given(SERVER_BYTES)
def test_gopher_menus_and_attributes_never_raise(data: bytes) -> None:
    parse_menu(data)
    try:
        parse_attributes(data)
    except RemoteProtocolError:
        pass


@settings(max_examples=200, deadline=None)
@given(SERVER_BYTES, CHUNKINGS)
def test_telnet_client(data: bytes, sizes: list[int]) -> None:
    client = TelnetClient(terminal_type="DUMB")
    try:
        for chunk in _chunks(data, sizes):
            client.receive_data(chunk)
            _drain(client.next_event)
            client.data_to_send()
        client.receive_data(b"")
        _drain(client.next_event)
    except RemoteProtocolError:
        pass


@settings(max_examples=200, deadline=None)
@given(SERVER_BYTES, CHUNKINGS)
def test_smtp_submission(data: bytes, sizes: list[int]) -> None:
    submission = Submission(Envelope("client.example", "a@b.example", ("c@d.example",),
                                     b"Subject: x\r\n\r\nbody\r\n"))
    try:
        for chunk in [*_chunks(data, sizes), b""]:
            submission.receive_data(chunk)
            _drain(submission.next_event)
    except RemoteProtocolError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=600), CHUNKINGS)
def test_wais_connection(data: bytes, sizes: list[int]) -> None:
    conn = wais.WAISConnection(max_message=1 << 16)
    try:
        for chunk in [*_chunks(data, sizes), b""]:
            conn.receive_data(chunk)
            _drain(conn.next_event)
    except RemoteProtocolError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_wais_apdu_parser(data: bytes) -> None:
    try:
        wais.parse_apdu(data)
    except RemoteProtocolError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_ardp_datagrams(data: bytes) -> None:
    client = ardp.ARDPClient(1, b"VERSION 5\n")
    client.start()
    try:
        client.receive_datagram(data)
        _drain(client.next_event)
    except RemoteProtocolError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_prospero_replies(data: bytes) -> None:
    try:
        parse_reply(data)
    except RemoteProtocolError:
        pass



# -- the bound: a line that never ends is an error or a bounded buffer, never memory ----------

#: Fed to every core after its set-up: more than any limit below, in 1 KiB chunks.
LONG = 300 * 1024
CHUNK = 1024


@dataclass(frozen=True)
class _Bounded:
    """A core set up to read a line (``make``), the bytes it holds (``held``, read off its
    buffer attributes), the most it may hold (``limit``: the core's documented constant)
    and the error it raises instead of holding more."""

    make: Callable[[], Any]
    held: Callable[[Any], int]
    limit: int
    error: type[RemoteProtocolError]


def _reply_held(reader: ReplyReader) -> int:
    return len(reader._buffer) + reader._size


def _replies() -> ReplyReader:
    reader = ReplyReader(Grammar.FREE_TEXT)
    reader.receive_data(b"230-first line\r\n230-")  # inside a multi-line reply
    return reader


def _ftp() -> FTPClient:
    client = FTPClient()
    client.receive_data(b"220 ")
    return client


def _smtp() -> Submission:
    submission = Submission(Envelope("c.example", "a@b.example", ("c@d.example",), b"x\r\n"))
    submission.receive_data(b"220 ")
    return submission


def _nntp_greeting() -> NNTPClient:
    client = NNTPClient()
    client.receive_data(b"200 ")
    return client


def _nntp_block() -> NNTPClient:
    client = NNTPClient()
    client.receive_data(b"200 ready\r\n")
    _drain(client.next_event)
    client.send(NNTPCommand("ARTICLE", ("1",)))
    client.receive_data(b"220 1 <a@b.example> article\r\n")
    _drain(client.next_event)
    return client


def _telnet_held(client: TelnetClient) -> int:
    return len(client._sb) + len(client._data) + len(client._out)


def _telnet_subnegotiation() -> TelnetClient:
    client = TelnetClient(terminal_type="DUMB")
    client.receive_data(bytes((IAC, SB, TTYPE)))  # and no IAC SE, ever
    return client


def _wais() -> wais.WAISConnection:
    conn = wais.WAISConnection(max_message=1 << 16)
    conn.receive_data(wais.wais_header(1 << 20))  # announces more than it may hold
    return conn


def _gopher_held(reader: ResponseReader) -> int:
    return len(reader._buf) + sum(map(len, reader._chunks)) + len(reader._held)


def _gopher_error() -> ResponseReader:
    reader = ResponseReader(Framing.DOT, gopher_plus=True)
    reader.receive_data(b"--1\r\n")  # a Gopher+ error whose text never ends
    return reader


class _Menu:
    """:class:`MenuParser` (``feed``) as a core: what it completes are its events."""

    def __init__(self) -> None:
        self.parser = MenuParser()

    def receive_data(self, data: bytes) -> None:
        self.parser.feed(data)

    def next_event(self) -> object:
        return NEED_DATA


#: A Gopher body passes on as it comes: it holds back at most a possible ``.\r\n``.
GOPHER_TERMINATOR = len(b".\r\n")

BOUNDED = {
    "replies": _Bounded(_replies, _reply_held, MAX_LINE, RemoteProtocolError),
    "ftp": _Bounded(_ftp, lambda c: _reply_held(c._reader), MAX_LINE, FTPReplyError),
    "smtp": _Bounded(_smtp, lambda s: _reply_held(s._reader), MAX_LINE, SMTPReplyError),
    "nntp-response": _Bounded(_nntp_greeting, lambda c: len(c._buffer), MAX_RESPONSE_LINE,
                              NNTPReplyError),
    "nntp-block": _Bounded(_nntp_block, lambda c: len(c._buffer), MAX_DATA_LINE,
                           NNTPReplyError),
    "telnet-data": _Bounded(lambda: TelnetClient(terminal_type="DUMB"), _telnet_held,
                            MAX_SUBNEGOTIATION, TelnetReplyError),
    "telnet-subnegotiation": _Bounded(_telnet_subnegotiation, _telnet_held,
                                      MAX_SUBNEGOTIATION, TelnetReplyError),
    "wais": _Bounded(_wais, lambda c: len(c._buf), wais.HEADER_LENGTH + (1 << 16),
                     wais.WAISReplyError),
    "gopher-body": _Bounded(lambda: ResponseReader(Framing.DOT), _gopher_held,
                            GOPHER_TERMINATOR, GopherReplyError),
    "gopher-close": _Bounded(lambda: ResponseReader(Framing.CLOSE), _gopher_held,
                             GOPHER_TERMINATOR, GopherReplyError),
    "gopher-error": _Bounded(_gopher_error, _gopher_held, _MAX_ERROR_BODY, GopherReplyError),
    "gopher-menu": _Bounded(_Menu, lambda m: len(m.parser._buf), MAX_MENU_LINE,
                            GopherReplyError),
}


@pytest.mark.parametrize("case", BOUNDED.values(), ids=BOUNDED.keys())
def test_a_line_without_end_is_bounded(case: _Bounded) -> None:
    """A line that never ends (more than the core's limit, in 1 KiB chunks, events
    drained after each) ends in the core's protocol error, or the core holds no more
    than its limit however much came."""
    core = case.make()
    chunk = b"a" * CHUNK
    fed = 0
    try:
        while fed < max(LONG, case.limit + 16 * CHUNK):
            core.receive_data(chunk)
            fed += CHUNK
            _drain(core.next_event)
            assert case.held(core) <= case.limit, f"{case.held(core)} held after {fed} fed"
    except case.error:
        return
    assert fed > case.limit  # the feed went past the limit, and the core kept within it
