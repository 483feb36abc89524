"""ARDP v0 core: headers of every length, fragmenting, reassembly, ACKs, the timer schedule."""

from __future__ import annotations

import struct

import pytest

from anyurl.protocols import ardp
from anyurl.protocols.ardp import (
    MAX_SERVER_WAIT,
    NEED_DATA,
    ARDPClient,
    ARDPReplyError,
    ConnectionIDs,
    GaveUp,
    MessageReceived,
    PacketIgnored,
    Redirected,
    Refused,
    SetTimer,
    State,
    Transmit,
    WaitCapped,
    WaitDeadline,
    ack_packet,
    build_header,
    fragment,
    parse_packet,
)

CID = 0x1234


def events(client: ARDPClient) -> list[object]:
    out = []
    while (event := client.next_event()) is not NEED_DATA:
        out.append(event)
    return out


def reply_packets(message: bytes, cid: int = CID, size: int = 1250) -> list[bytes]:
    pieces = [message[i:i + size] for i in range(0, len(message), size)] or [b""]
    return [build_header(cid=cid, seq=n, total=len(pieces)) + p
            for n, p in enumerate(pieces, start=1)]


# -- headers --------------------------------------------------------------------------------


def test_fragment_uses_nine_octet_headers_and_1250_octet_payloads() -> None:
    packets = fragment(b"x" * 3000, CID)
    assert [len(p) for p in packets] == [9 + 1250, 9 + 1250, 9 + 500]
    assert packets[0][:9] == bytes.fromhex("09 1234 0001 0003 0000")
    assert packets[2][:9] == bytes.fromhex("09 1234 0003 0003 0000")


def test_fragment_of_an_empty_message_is_one_packet() -> None:
    assert fragment(b"", CID) == [bytes.fromhex("09 1234 0001 0001 0000")]


def test_fragment_stamps_received_through() -> None:
    assert fragment(b"a", CID, received_through=5)[0][7:9] == b"\x00\x05"


def test_ack_packet_bytes() -> None:
    assert ack_packet(CID, 7) == bytes.fromhex("09 1234 0000 0000 0007")


@pytest.mark.parametrize(
    ("fields", "length"),
    [
        pytest.param({}, 7, id="data-7"),
        pytest.param({"received_through": 2}, 9, id="ack-9"),
        pytest.param({"received_through": 2, "wait": 5}, 11, id="wait-11"),
        pytest.param({"received_through": 0, "wait": 0, "flags": 0x80}, 12, id="flags-12"),
        pytest.param({"option": 1}, 13, id="option-13"),
    ],
)
def test_build_header_picks_the_shortest_form(fields: dict[str, int], length: int) -> None:
    header = build_header(cid=CID, seq=3, total=4, **fields)
    assert len(header) == length and header[0] == length
    parsed, payload = parse_packet(header + b"data")
    assert (parsed.cid, parsed.seq, parsed.total, payload) == (CID, 3, 4, b"data")


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        pytest.param(b"\x01", (0, 1, 1, None, None, 0, 0), id="len1-bare-reply"),
        pytest.param(b"\x03\x12\x34", (CID, 1, 1, None, None, 0, 0), id="len3-cid-only"),
        pytest.param(b"\x05\x12\x34\x00\x02", (CID, 2, 0, None, None, 0, 0), id="len5-seq"),
        pytest.param(bytes.fromhex("07 1234 0002 0005"), (CID, 2, 5, None, None, 0, 0),
                     id="len7"),
        pytest.param(bytes.fromhex("09 1234 0002 0005 0001"), (CID, 2, 5, 1, None, 0, 0),
                     id="len9"),
        pytest.param(bytes.fromhex("0b 1234 0000 0000 0001 001e"), (CID, 0, 0, 1, 30, 0, 0),
                     id="len11-wait"),
        pytest.param(bytes.fromhex("0c 1234 0005 0005 0001 0000 80"),
                     (CID, 5, 5, 1, 0, 0x80, 0), id="len12-ack-requested"),
        pytest.param(bytes.fromhex("0d 1234 0000 0000 0000 0000 00 01"),
                     (CID, 0, 0, 0, 0, 0, 1), id="len13-refused"),
    ],
)
def test_parse_every_header_length(header: bytes, expected: tuple[object, ...]) -> None:
    h, payload = parse_packet(header + b"PAYLOAD")
    assert (h.cid, h.seq, h.total, h.received_through, h.wait, h.flags, h.option) == expected
    assert payload == b"PAYLOAD"


def test_parse_window_flag_field() -> None:
    h, _ = parse_packet(bytes.fromhex("0f 1234 0001 0001 0000 0000 08 00 0020"))
    assert h.window == 32


@pytest.mark.parametrize(
    "datagram",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"VERSION 1 old-format reply", id="old-format-text"),
        pytest.param(b"\x81" + bytes(12), id="ardp-v1"),
        pytest.param(b"\x09\x12\x34", id="header-longer-than-datagram"),
        pytest.param(b"\x00abc", id="zero-length"),
    ],
)
def test_parse_rejects(datagram: bytes) -> None:
    with pytest.raises(ARDPReplyError):
        parse_packet(datagram)


def test_connection_ids_skip_zero() -> None:
    ids = ConnectionIDs(start=0xFFFF)
    assert [ids.next(), ids.next(), ids.next()] == [0xFFFF, 1, 2]


# -- the client state machine ----------------------------------------------------------------


def test_start_sends_the_request_and_arms_the_default_timer() -> None:
    client = ARDPClient(CID, b"VERSION 5 anyurl\n")
    client.start()
    assert events(client) == [
        Transmit((bytes.fromhex("09 1234 0001 0001 0000") + b"VERSION 5 anyurl\n",),
                 "request"),
        SetTimer(ardp.DEFAULT_TIMEOUT),
    ]
    assert client.state is State.WAITING


@pytest.mark.parametrize("order", ["in-order", "reversed", "duplicated"])
def test_reassembly_in_any_order(order: str) -> None:
    message = bytes(range(256)) * 20  # 5120 octets: 5 packets
    packets = reply_packets(message)
    if order == "reversed":
        packets = packets[::-1]
    elif order == "duplicated":
        packets = [p for p in packets for _ in range(2)]
    client = ARDPClient(CID, b"x")
    client.start()
    events(client)
    received: list[MessageReceived] = []
    for packet in packets:
        client.receive_datagram(packet)
        received += [e for e in events(client) if isinstance(e, MessageReceived)]
    assert received == [MessageReceived(message, 5)]
    assert client.state is State.DONE


@pytest.mark.parametrize("cut", [0, 1, 5, 17, 1249, 1250, 2000])
def test_payload_split_anywhere_reassembles(cut: int) -> None:
    message = "ATTRIBUTE OBJECT FIELD OWNER 'é'\n".encode() * 70
    first, second = message[:cut], message[cut:]
    client = ARDPClient(CID, b"x")
    client.start()
    events(client)
    client.receive_datagram(build_header(cid=CID, seq=2, total=2) + second)
    client.receive_datagram(build_header(cid=CID, seq=1, total=2) + first)
    assert [e for e in events(client) if isinstance(e, MessageReceived)] == [
        MessageReceived(message, 2)]


def test_packet_of_another_connection_is_ignored() -> None:
    client = ARDPClient(CID, b"x")
    client.start()
    events(client)
    client.receive_datagram(build_header(cid=CID + 1, seq=1, total=1) + b"NONE-FOUND\n")
    assert [type(e) for e in events(client)] == [PacketIgnored]
    assert client.state is State.WAITING


def test_ack_requested_mid_message_is_answered_at_once() -> None:
    client = ARDPClient(CID, b"x")
    client.start()
    events(client)
    client.receive_datagram(build_header(cid=CID, seq=1, total=3) + b"a")
    client.receive_datagram(
        build_header(cid=CID, seq=2, total=3, received_through=1, wait=0, flags=0x80) + b"b")
    out = events(client)
    assert Transmit((ack_packet(CID, 2),), "ack") in out
    client.receive_datagram(build_header(cid=CID, seq=3, total=3) + b"c")
    assert [e for e in events(client) if isinstance(e, MessageReceived)] == [
        MessageReceived(b"abc", 3)]


def test_ack_requested_on_the_final_packet_is_sent_before_completion() -> None:
    client = ARDPClient(CID, b"x")
    client.start()
    events(client)
    client.receive_datagram(
        build_header(cid=CID, seq=1, total=1, received_through=1, wait=0, flags=0x80) + b"z")
    assert events(client) == [Transmit((ack_packet(CID, 1),), "ack"), MessageReceived(b"z", 1)]


def test_retransmission_schedule_doubles_then_gives_up() -> None:
    client = ARDPClient(CID, b"GET\n")
    client.start()
    assert events(client)[-1] == SetTimer(4.0)
    waits = []
    for _ in range(3):
        client.timer_expired()
        out = events(client)
        assert isinstance(out[0], Transmit) and out[0].reason == "retransmission"
        assert out[0].datagrams == tuple(fragment(b"GET\n", CID))
        assert isinstance(out[1], SetTimer)
        waits.append(out[1].seconds)
    assert waits == [8.0, 16.0, 32.0]
    client.timer_expired()
    assert events(client) == [GaveUp(attempts=4, received_packets=0, total_packets=0)]
    assert client.state is State.FAILED


def test_retransmission_carries_received_through() -> None:
    client = ARDPClient(CID, b"GET\n", timeout=0.5)
    client.start()
    events(client)
    client.receive_datagram(build_header(cid=CID, seq=1, total=3) + b"a")
    client.receive_datagram(build_header(cid=CID, seq=3, total=3) + b"c")
    events(client)
    client.timer_expired()
    transmit = events(client)[0]
    assert isinstance(transmit, Transmit)
    assert parse_packet(transmit.datagrams[0])[0].received_through == 1


def test_progress_resets_the_retry_count() -> None:
    client = ARDPClient(CID, b"GET\n", retries=1)
    client.start()
    events(client)
    client.timer_expired()
    events(client)
    client.receive_datagram(build_header(cid=CID, seq=1, total=2) + b"a")
    events(client)
    client.timer_expired()  # would give up without the reset
    assert client.state is State.WAITING


def test_wait_raises_the_timeout_and_resets_retries() -> None:
    client = ARDPClient(CID, b"GET\n", timeout=0.2, retries=0)
    client.start()
    events(client)
    client.receive_datagram(build_header(cid=CID, seq=0, total=0, received_through=1, wait=30))
    assert events(client) == [WaitDeadline(ardp.MAX_SERVER_WAIT), SetTimer(30.0)]
    assert client.retries_left == 0 and client.timeout == 30.0
    client.receive_datagram(build_header(cid=CID, seq=0, total=0, received_through=1, wait=0))
    assert events(client) == [SetTimer(0.2)]


def test_the_waits_of_a_request_share_one_deadline() -> None:
    """Issue 29: each wait is capped, and resets the retries; a server answering every
    retransmission with a wait must still not hold the request past one deadline."""
    client = ARDPClient(CID, b"GET\n", timeout=0.2, retries=1, max_wait=3.0)
    client.start()
    events(client)
    deadlines = []
    for _ in range(5):  # each retransmission answered with the longest wait
        client.receive_datagram(build_header(cid=CID, seq=0, total=0, received_through=1,
                                             wait=65535))
        deadlines += [e for e in events(client) if isinstance(e, WaitDeadline)]
        client.timer_expired()
        assert client.state is State.WAITING and client.retries_left == 0
        events(client)
    assert deadlines == [WaitDeadline(3.0)]  # set once, never extended
    client.wait_deadline_passed()
    gave_up = events(client)
    assert len(gave_up) == 1 and isinstance(gave_up[0], GaveUp)
    assert gave_up[0].waited == 3.0 and gave_up[0].attempts == 6
    assert client.state is State.FAILED


def test_a_reply_packet_lifts_the_waits_deadline() -> None:
    client = ARDPClient(CID, b"GET\n", timeout=0.2, max_wait=3.0)
    client.start()
    events(client)
    client.receive_datagram(build_header(cid=CID, seq=0, total=0, received_through=1, wait=2))
    assert WaitDeadline(3.0) in events(client)
    client.receive_datagram(build_header(cid=CID, seq=1, total=3) + b"a")
    assert WaitDeadline(None) in events(client)
    client.wait_deadline_passed()  # a deadline the driver had not yet forgotten: nothing
    assert events(client) == [] and client.state is State.WAITING
    # The last packet of a window carries "wait 0" with its data: progress, no deadline.
    client.receive_datagram(build_header(cid=CID, seq=2, total=3, received_through=1, wait=0,
                                         flags=ardp.FLAG_ACK_REQUESTED) + b"b")
    assert not any(isinstance(e, WaitDeadline) for e in events(client))


def test_refused_option_fails_the_request() -> None:
    client = ARDPClient(CID, b"GET\n")
    client.start()
    events(client)
    client.receive_datagram(build_header(cid=CID, seq=0, total=0, option=1))
    assert events(client) == [Refused()]
    assert client.state is State.FAILED


def test_redirect_option_resends_to_the_new_address() -> None:
    client = ARDPClient(CID, b"GET\n")
    client.start()
    events(client)
    extra = bytes([10, 0, 0, 7]) + struct.pack(">H", 1526)
    client.receive_datagram(build_header(cid=CID, seq=0, total=0, option=4, extra=extra))
    out = events(client)
    assert out[0] == Redirected("10.0.0.7", 1526, permanent=False)
    assert isinstance(out[1], Transmit) and out[1].reason == "retransmission"


def test_large_request_is_sent_within_the_peer_window() -> None:
    message = b"L" * (1250 * 20)
    client = ARDPClient(CID, message)
    client.start()
    first = events(client)[0]
    assert isinstance(first, Transmit) and len(first.datagrams) == ardp.DEFAULT_WINDOW
    client.receive_datagram(build_header(cid=CID, seq=0, total=0, received_through=16))
    rest = events(client)[0]
    assert isinstance(rest, Transmit) and len(rest.datagrams) == 4
    assert parse_packet(rest.datagrams[0])[0].seq == 17


def test_datagram_after_completion_is_ignored() -> None:
    client = ARDPClient(CID, b"x")
    client.start()
    events(client)
    client.receive_datagram(reply_packets(b"done\n")[0])
    events(client)
    client.receive_datagram(reply_packets(b"done\n")[0])
    assert [type(e) for e in events(client)] == [PacketIgnored]


def test_a_server_wait_is_capped() -> None:
    """Issue 20: one packet with wait=65535 must not hold the transfer for 18 hours."""
    client = ARDPClient(CID, b"GET\n", timeout=0.2, retries=0, max_wait=60.0)
    client.start()
    events(client)
    client.receive_datagram(
        build_header(cid=CID, seq=0, total=0, received_through=1, wait=65535))
    assert events(client) == [WaitCapped(65535, 60.0), WaitDeadline(60.0), SetTimer(60.0)]
    client.timer_expired()
    assert isinstance(events(client)[0], GaveUp)


def test_the_default_cap_is_the_documented_maximum() -> None:
    client = ARDPClient(CID, b"GET\n")
    client.start()
    events(client)
    client.receive_datagram(
        build_header(cid=CID, seq=0, total=0, received_through=1, wait=65535))
    assert events(client) == [WaitCapped(65535, MAX_SERVER_WAIT), WaitDeadline(MAX_SERVER_WAIT),
                              SetTimer(MAX_SERVER_WAIT)]


def numbered_packets(cid: int, total: int, first: int = 1) -> list[bytes]:
    return [build_header(cid=cid, seq=n, total=total) + b"%d;" % n
            for n in range(first, total + 1)]


def test_a_byte_swapped_connection_id_is_our_reply() -> None:
    """Issue 20: after its first window, Prospero 5.3's dirsrv sends the id byte-swapped."""
    assert ardp.swap_cid(CID) == 0x3412
    client = ARDPClient(CID, b"GET\n", timeout=0.2)
    client.start()
    events(client)
    for datagram in numbered_packets(CID, 20)[:16] + numbered_packets(0x3412, 20, first=17):
        client.receive_datagram(datagram)
    got = events(client)
    done = [e for e in got if isinstance(e, MessageReceived)]
    assert done and done[0].payload == b"".join(b"%d;" % n for n in range(1, 21))
    assert client.swapped_packets == 4
    notes = [e for e in got if isinstance(e, PacketIgnored)]
    assert len(notes) == 1 and "byte-swapped" in notes[0].reason


def test_packets_of_another_connection_id_are_reported() -> None:
    client = ARDPClient(CID, b"GET\n", timeout=0.2, retries=0)
    client.start()
    events(client)
    for datagram in numbered_packets(CID, 20)[:16] + numbered_packets(0x7777, 20, first=17):
        client.receive_datagram(datagram)
    events(client)
    client.timer_expired()
    [gave_up] = [e for e in events(client) if isinstance(e, GaveUp)]
    assert gave_up == GaveUp(1, 16, 20, unexpected_packets=4, unexpected_cid=0x7777,
                             unexpected_after=16)


def test_the_message_says_what_happened() -> None:
    from anyurl.schemes.prospero.handler import _gave_up, _Target
    from anyurl.url import parse

    client = ARDPClient(CID, b"GET\n")
    url = parse("prospero://h/x")
    target = _Target("h", 1525, "x", "0")
    text = str(_gave_up(GaveUp(1, 16, 20, 4, 0x7777, 16), client, url, target))
    assert "after 16 of 20 reply packets arrived, 4 came with an unexpected connection id" \
        in text and "0x7777" in text and "0x1234" in text
    assert "16 of 20 reply packets arrived, then nothing" in str(
        _gave_up(GaveUp(3, 16, 20), client, url, target))
    silent = _gave_up(GaveUp(4, 0, 0), client, url, target)
    assert "no reply" in str(silent) and "listening" in (silent.hint or "")
