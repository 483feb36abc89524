"""Property: every sans-I/O core fed random or mutated server bytes raises only its
protocol error (a RemoteProtocolError), never another exception, and buffers stay bounded.

A fixed hypothesis budget runs in CI (HYPOTHESIS_PROFILE=ci); ``scripts/fuzz.sh`` runs
longer campaigns with a larger budget.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anyurl.protocols import ardp, wais
from anyurl.protocols.common import NEED_DATA, ConnectionClosed, EndOfData, RemoteProtocolError
from anyurl.protocols.ftp import Command, FTPClient
from anyurl.protocols.gopher import (
    Framing,
    PlusError,
    ResponseReader,
    parse_attributes,
    parse_menu,
)
from anyurl.protocols.nntp import Command as NNTPCommand
from anyurl.protocols.nntp import NNTPClient
from anyurl.protocols.prospero import parse_reply
from anyurl.protocols.replies import MAX_LINE, Grammar, ReplyReader
from anyurl.protocols.smtp import Envelope, Submission
from anyurl.protocols.telnet import TelnetClient

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
        lambda: ReplyReader(Grammar.FTP),
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
@given(SERVER_BYTES, CHUNKINGS, st.sampled_from([Grammar.FTP, Grammar.SMTP]))
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
