"""The sans-I/O Telnet core: parsing, NVT line ends, Q-method negotiation, sub-negotiation.

Every parsing case is fed whole and one byte at a time (STYLE.md rule 3).
"""

from __future__ import annotations

import pytest

from anyurl.protocols.telnet import (
    BINARY,
    DO,
    DONT,
    ECHO,
    GA,
    IAC,
    LINEMODE,
    NAWS,
    NEED_DATA,
    NOP,
    SB,
    SE,
    SGA,
    TTYPE,
    WILL,
    WONT,
    CommandReceived,
    ConnectionClosed,
    Data,
    Event,
    NeedData,
    Negotiation,
    QState,
    Subnegotiation,
    TelnetClient,
    TelnetCoreError,
    encode_nvt,
)


def drain(client: TelnetClient) -> list[Event]:
    events: list[Event] = []
    while True:
        event = client.next_event()
        if isinstance(event, NeedData):
            assert event is NEED_DATA
            return events
        events.append(event)


def merged(events: list[Event]) -> list[Event]:
    """Adjacent Data events joined (one-byte feeding splits data into pieces)."""
    out: list[Event] = []
    for event in events:
        if isinstance(event, Data) and out and isinstance(out[-1], Data):
            out[-1] = Data(out[-1].data + event.data)
        else:
            out.append(event)
    return out


def feed(data: bytes, *, bytewise: bool, eof: bool = False, **kwargs: object) -> tuple[
    list[Event], bytes
]:
    client = TelnetClient(**kwargs)  # type: ignore[arg-type]
    events: list[Event] = []
    sent = b""
    chunks = [data[i : i + 1] for i in range(len(data))] if bytewise else [data]
    for chunk in chunks:
        client.receive_data(chunk)
        events += drain(client)
        sent += client.data_to_send()
    if eof:
        client.receive_data(b"")
        events += drain(client)
    return merged(events), sent


@pytest.fixture(params=[False, True], ids=["whole", "bytewise"])
def bytewise(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


PARSE_CASES = [
    pytest.param(b"hello", [Data(b"hello")], id="plain"),
    pytest.param(b"a\r\nb", [Data(b"a\nb")], id="crlf-is-newline"),
    pytest.param(b"a\r\x00b", [Data(b"a\rb")], id="cr-nul-is-cr"),
    pytest.param(b"a\nb", [Data(b"a\nb")], id="bare-lf-accepted"),
    pytest.param(b"a\rb", [Data(b"a\rb")], id="bare-cr-kept"),
    pytest.param(b"a\r\r\nb", [Data(b"a\r\nb")], id="cr-cr-lf"),
    pytest.param(b"x\xff\xffy", [Data(b"x\xffy")], id="iac-iac-is-255"),
    pytest.param(b"a\xff\xf9b", [Data(b"a"), CommandReceived(GA), Data(b"b")], id="ga-splits-data"),
    pytest.param(b"\xff\xf1", [CommandReceived(NOP)], id="nop"),
    pytest.param(b"\xff\xf0x", [Data(b"x")], id="stray-se-ignored"),
    pytest.param(b"\xff\x07x", [CommandReceived(7), Data(b"x")], id="unknown-command"),
    pytest.param(b"a\r\xff\xf9", [Data(b"a\r"), CommandReceived(GA)], id="cr-then-command"),
]


@pytest.mark.parametrize(("wire", "expected"), PARSE_CASES)
def test_parse(wire: bytes, expected: list[Event], bytewise: bool) -> None:
    events, _ = feed(wire, bytewise=bytewise)
    assert events == expected


def test_cr_at_end_of_stream_is_kept(bytewise: bool) -> None:
    events, _ = feed(b"prompt\r", bytewise=bytewise, eof=True)
    assert events == [Data(b"prompt\r"), ConnectionClosed()]


def test_cr_waits_for_next_byte() -> None:
    client = TelnetClient()
    client.receive_data(b"ab\r")
    assert drain(client) == [Data(b"ab")]
    client.receive_data(b"\n")
    assert drain(client) == [Data(b"\n")]


def test_unterminated_subnegotiation_discarded_at_eof(bytewise: bool) -> None:
    events, _ = feed(b"x\xff\xfa\x18\x01abc", bytewise=bytewise, eof=True)
    assert events == [Data(b"x"), ConnectionClosed()]


def test_receive_after_close_is_an_error() -> None:
    client = TelnetClient()
    client.receive_data(b"")
    with pytest.raises(TelnetCoreError):
        client.receive_data(b"x")
    client.receive_data(b"")  # a second EOF is harmless


# -- negotiation ------------------------------------------------------------------------------

NEGOTIATION_CASES = [
    pytest.param(WILL, ECHO, DO, id="will-echo-accepted"),
    pytest.param(WILL, SGA, DO, id="will-sga-accepted"),
    pytest.param(WILL, BINARY, DONT, id="will-binary-refused"),
    pytest.param(WILL, 200, DONT, id="will-unknown-refused"),
    pytest.param(DO, SGA, WILL, id="do-sga-accepted"),
    pytest.param(DO, ECHO, WONT, id="do-echo-refused"),
    pytest.param(DO, LINEMODE, WONT, id="do-linemode-refused"),
    pytest.param(DO, TTYPE, WONT, id="do-ttype-refused-without-a-type"),
    pytest.param(DO, NAWS, WONT, id="do-naws-refused-without-a-size"),
    pytest.param(WONT, ECHO, None, id="wont-when-off-unanswered"),
    pytest.param(DONT, SGA, None, id="dont-when-off-unanswered"),
]


@pytest.mark.parametrize(("verb", "option", "reply"), NEGOTIATION_CASES)
def test_negotiation_policy(verb: int, option: int, reply: int | None, bytewise: bool) -> None:
    events, sent = feed(bytes((IAC, verb, option)), bytewise=bytewise)
    assert events == [Negotiation(verb, option, reply)]
    assert sent == (b"" if reply is None else bytes((IAC, reply, option)))


def test_no_loop_on_repeated_requests() -> None:
    """RFC 854 rule 3: a request for the state we are already in is not answered.

    A refused request is refused each time it is made (RFC 1143: every request that
    would change the state gets an answer), but we never make a request ourselves.
    """
    client = TelnetClient()
    for _ in range(3):
        client.receive_data(bytes((IAC, WILL, ECHO)))
    client.receive_data(bytes((IAC, DO, LINEMODE)) * 2)
    assert client.data_to_send() == bytes((IAC, DO, ECHO)) + bytes((IAC, WONT, LINEMODE)) * 2
    assert client.him(ECHO) is QState.YES


def test_disable_is_always_accepted() -> None:
    client = TelnetClient()
    client.receive_data(bytes((IAC, WILL, ECHO)))
    client.data_to_send()
    client.receive_data(bytes((IAC, WONT, ECHO)))
    assert client.data_to_send() == bytes((IAC, DONT, ECHO))
    assert client.him(ECHO) is QState.NO
    client.receive_data(bytes((IAC, WONT, ECHO)))  # already off: silence
    assert client.data_to_send() == b""


def test_our_request_acknowledged_is_not_answered() -> None:
    client = TelnetClient()
    client.request_server(SGA, True)
    assert client.data_to_send() == bytes((IAC, DO, SGA))
    assert client.him(SGA) is QState.WANTYES
    client.receive_data(bytes((IAC, WILL, SGA)))
    assert client.data_to_send() == b""
    assert client.him(SGA) is QState.YES


def test_our_request_refused() -> None:
    client = TelnetClient()
    client.request_server(ECHO, True)
    client.data_to_send()
    client.receive_data(bytes((IAC, WONT, ECHO)))
    assert client.data_to_send() == b""
    assert client.him(ECHO) is QState.NO


def test_queued_opposite_request() -> None:
    """RFC 1143: changing our mind while a request is pending queues, not re-sends."""
    client = TelnetClient()
    client.request_server(SGA, True)
    client.request_server(SGA, False)  # queued: OPPOSITE
    assert client.data_to_send() == bytes((IAC, DO, SGA))
    client.receive_data(bytes((IAC, WILL, SGA)))  # acknowledgement arrives
    assert client.data_to_send() == bytes((IAC, DONT, SGA))
    assert client.him(SGA) is QState.WANTNO
    client.receive_data(bytes((IAC, WONT, SGA)))
    assert client.data_to_send() == b""
    assert client.him(SGA) is QState.NO


def test_request_us_unimplemented_refused() -> None:
    with pytest.raises(TelnetCoreError):
        TelnetClient().request_us(NAWS, True)


def test_ttype_negotiation_and_send(bytewise: bool) -> None:
    wire = bytes((IAC, DO, TTYPE, IAC, SB, TTYPE, 1, IAC, SE)) * 1
    wire += bytes((IAC, SB, TTYPE, 1, IAC, SE))
    events, sent = feed(wire, bytewise=bytewise, terminal_type="dumb")
    assert events == [
        Negotiation(DO, TTYPE, WILL),
        Subnegotiation(TTYPE, b"\x01", answered=True),
        Subnegotiation(TTYPE, b"\x01", answered=True),
    ]
    answer = bytes((IAC, SB, TTYPE, 0)) + b"DUMB" + bytes((IAC, SE))
    assert sent == bytes((IAC, WILL, TTYPE)) + answer + answer


def test_ttype_send_without_agreement_is_not_answered() -> None:
    events, sent = feed(bytes((IAC, SB, TTYPE, 1, IAC, SE)), bytewise=False,
                        terminal_type="DUMB")
    assert events == [Subnegotiation(TTYPE, b"\x01", answered=False)]
    assert sent == b""


def test_naws_reports_size_with_doubled_255(bytewise: bool) -> None:
    events, sent = feed(bytes((IAC, DO, NAWS)), bytewise=bytewise, window_size=(255, 24))
    assert events == [Negotiation(DO, NAWS, WILL)]
    assert sent == bytes((IAC, WILL, NAWS, IAC, SB, NAWS, 0, 255, 255, 0, 24, IAC, SE))


def test_naws_resize() -> None:
    client = TelnetClient(window_size=(80, 24))
    client.set_window_size(100, 30)
    assert client.data_to_send() == b""  # not agreed yet
    client.receive_data(bytes((IAC, DO, NAWS)))
    assert client.data_to_send() == bytes((IAC, WILL, NAWS, IAC, SB, NAWS, 0, 100, 0, 30, IAC, SE))
    client.set_window_size(80, 24)
    assert client.data_to_send() == bytes((IAC, SB, NAWS, 0, 80, 0, 24, IAC, SE))


def test_subnegotiation_undoubles_iac(bytewise: bool) -> None:
    events, _ = feed(bytes((IAC, SB, 42, 1, IAC, IAC, 2, IAC, SE)) + b"z", bytewise=bytewise)
    assert events == [Subnegotiation(42, b"\x01\xff\x02"), Data(b"z")]


def test_subnegotiation_missing_se_ends_at_next_command(bytewise: bool) -> None:
    events, _ = feed(bytes((IAC, SB, 42, 7, IAC, GA)) + b"z", bytewise=bytewise)
    assert events == [Subnegotiation(42, b"\x07"), CommandReceived(GA), Data(b"z")]


def test_inetutils_telnetd_opening(bytewise: bool) -> None:
    """The first bytes inetutils telnetd sends, as captured from the real server."""
    wire = b"\xff\xfb%\xff\xfb&\xff\xfd\x18\xff\xfd \xff\xfd#\xff\xfd'\xff\xfd$"
    events, sent = feed(wire, bytewise=bytewise, terminal_type="DUMB")
    assert [e.reply for e in events if isinstance(e, Negotiation)] == [
        DONT, DONT, WILL, WONT, WONT, WONT, WONT
    ]
    assert sent == b"\xff\xfe%\xff\xfe&\xff\xfb\x18\xff\xfc \xff\xfc#\xff\xfc'\xff\xfc$"


# -- output -----------------------------------------------------------------------------------

ENCODE_CASES = [
    pytest.param(b"ls\n", b"ls\r\n", id="lf-to-crlf"),
    pytest.param(b"ls\r\n", b"ls\r\n", id="crlf-kept"),
    pytest.param(b"a\rb", b"a\r\x00b", id="lone-cr-to-cr-nul"),
    pytest.param(b"\xff", b"\xff\xff", id="iac-doubled"),
    pytest.param(b"a\r", b"a\r\x00", id="trailing-cr"),
]


@pytest.mark.parametrize(("data", "wire"), ENCODE_CASES)
def test_encode_nvt(data: bytes, wire: bytes) -> None:
    assert encode_nvt(data) == wire
    client = TelnetClient()
    client.send_data(data)
    assert client.data_to_send() == wire


def test_send_command() -> None:
    client = TelnetClient()
    client.send_command(NOP)
    assert client.data_to_send() == bytes((IAC, NOP))
    with pytest.raises(TelnetCoreError):
        client.send_command(WILL)


def test_round_trip_of_our_encoding(bytewise: bool) -> None:
    data = b"line one\nline\xfftwo\rx"
    events, _ = feed(encode_nvt(data), bytewise=bytewise)
    assert events == [Data(data)]


def test_bad_terminal_type() -> None:
    with pytest.raises(ValueError):
        TelnetClient(terminal_type="A\r\nB")
