"""The NNTP core: response framing, data blocks with dot-stuffing, states, commands.

Every dialogue is fed twice: in one chunk and one byte at a time (framing bugs show up
at once when a terminator is split).
"""

from __future__ import annotations

import pytest

from anyurl.protocols.nntp import (
    MAX_COMMAND,
    NEED_DATA,
    Command,
    ConnectionClosed,
    Data,
    EndOfData,
    NNTPClient,
    NNTPCoreError,
    Response,
    State,
    message_id_argument,
    parse_active_line,
    parse_article_reply,
    parse_capabilities,
    parse_group,
    parse_overview_line,
)

FEEDS = [pytest.param(False, id="whole"), pytest.param(True, id="bytewise")]


def drain(client: NNTPClient, data: bytes, bytewise: bool) -> list[object]:
    """Feed ``data`` and collect events until the core needs more or the stream ends."""
    events: list[object] = []
    pieces = [data[i : i + 1] for i in range(len(data))] if bytewise else [data]
    for piece in pieces:
        client.receive_data(piece)
        while (event := client.next_event()) is not NEED_DATA:
            events.append(event)
            if isinstance(event, ConnectionClosed):
                return events
    return events


def block_bytes(events: list[object]) -> bytes:
    return b"".join(e.data for e in events if isinstance(e, Data))


def greeted(newline: bytes = b"\r\n") -> NNTPClient:
    client = NNTPClient(newline=newline)
    client.receive_data(b"200 news.example ready\r\n")
    event = client.next_event()
    assert isinstance(event, Response) and event.code == 200
    return client


# -- greeting -------------------------------------------------------------------------------


@pytest.mark.parametrize("bytewise", FEEDS)
@pytest.mark.parametrize(
    ("line", "code", "state"),
    [
        pytest.param(b"200 posting ok\r\n", 200, State.IDLE, id="200"),
        pytest.param(b"201 no posting\r\n", 201, State.IDLE, id="201"),
        pytest.param(b"400 busy\r\n", 400, State.CLOSED, id="400-closes"),
        pytest.param(b"502 go away\r\n", 502, State.CLOSED, id="502-closes"),
        pytest.param(b"200 lf only\n", 200, State.IDLE, id="bare-lf"),
    ],
)
def test_greeting(bytewise: bool, line: bytes, code: int, state: State) -> None:
    client = NNTPClient()
    events = drain(client, line, bytewise)
    response = events[0]
    assert isinstance(response, Response)
    assert response.code == code and not response.has_block
    assert client.state is state
    # After a closing greeting the core reports the (expected) close and nothing else.
    assert events[1:] == ([ConnectionClosed(expected=True)] if state is State.CLOSED else [])


def test_no_command_before_greeting() -> None:
    with pytest.raises(NNTPCoreError, match="greeting"):
        NNTPClient().send(Command.of("GROUP", "a.b"))


def test_garbage_response_is_an_error() -> None:
    client = NNTPClient()
    client.receive_data(b"HELLO there\r\n")
    with pytest.raises(NNTPCoreError, match="not an NNTP response"):
        client.next_event()


def test_eof_before_greeting() -> None:
    client = NNTPClient()
    client.receive_data(b"")
    assert client.next_event() == ConnectionClosed(expected=False)
    assert client.state is State.CLOSED


# -- single-line responses and states -----------------------------------------------------


@pytest.mark.parametrize("bytewise", FEEDS)
def test_group_single_line(bytewise: bool) -> None:
    client = greeted()
    assert client.send(Command.of("GROUP", "comp.lang.python")) == b"GROUP comp.lang.python\r\n"
    assert client.state is State.AWAITING_RESPONSE
    events = drain(client, b"211 1234 3000234 3002322 comp.lang.python\r\n", bytewise)
    assert len(events) == 1
    response = events[0]
    assert isinstance(response, Response) and not response.has_block
    assert client.state is State.IDLE
    info = parse_group(response)
    assert (info.count, info.low, info.high, info.name) == (
        1234, 3000234, 3002322, "comp.lang.python")
    assert not info.empty


@pytest.mark.parametrize(
    "line", [b"211 0 4000 3999 g", b"211 0 0 0 g", b"211 0 4000 4321 g"],
    ids=["high-below-low", "zeros", "count-zero"],
)
def test_empty_group_forms(line: bytes) -> None:
    client = greeted()
    client.send(Command.of("GROUP", "g"))
    client.receive_data(line + b"\r\n")
    response = client.next_event()
    assert isinstance(response, Response)
    assert parse_group(response).empty


def test_second_command_while_response_owed_is_refused() -> None:
    client = greeted()
    client.send(Command.of("GROUP", "a.b"))
    with pytest.raises(NNTPCoreError, match="awaiting response"):
        client.send(Command.of("ARTICLE", "1"))


@pytest.mark.parametrize("bytewise", FEEDS)
def test_error_codes_are_single_line(bytewise: bool) -> None:
    client = greeted()
    client.send(Command.of("ARTICLE", "<nope@x>"))
    events = drain(client, b"430 No article with that message-id\r\n", bytewise)
    response = events[0]
    assert isinstance(response, Response)
    assert (response.code, response.category, response.has_block) == (430, 4, False)
    assert response.text == "No article with that message-id"
    assert client.state is State.IDLE


@pytest.mark.parametrize("bytewise", FEEDS)
def test_quit_then_close_is_expected(bytewise: bool) -> None:
    client = greeted()
    client.send(Command.of("QUIT"))
    events = drain(client, b"205 bye\r\n", bytewise)
    assert isinstance(events[0], Response) and events[0].code == 205
    assert client.state is State.CLOSED
    client.receive_data(b"")
    assert client.next_event() == ConnectionClosed(expected=True)


def test_eof_while_response_owed_is_unexpected() -> None:
    client = greeted()
    client.send(Command.of("GROUP", "a.b"))
    client.receive_data(b"211 1 1")
    assert client.next_event() is NEED_DATA
    client.receive_data(b"")
    assert client.next_event() == ConnectionClosed(expected=False, partial=len(b"211 1 1"))


def test_400_to_a_command_closes() -> None:
    client = greeted()
    client.send(Command.of("GROUP", "a.b"))
    client.receive_data(b"400 shutting down\r\n")
    assert isinstance(client.next_event(), Response)
    assert client.state is State.CLOSED


# -- data blocks --------------------------------------------------------------------------

ARTICLE_WIRE = (
    b"220 2 <article2@anyurl.test> article follows\r\n"
    b"Subject: Dots\r\n"
    b"Message-ID: <article2@anyurl.test>\r\n"
    b"\r\n"
    b"A body with dots:\r\n"
    b"..a line starting with a dot\r\n"
    b"...two dots\r\n"
    b"..\r\n"
    b"end\r\n"
    b".\r\n"
)
ARTICLE_LF = (
    b"Subject: Dots\n"
    b"Message-ID: <article2@anyurl.test>\n"
    b"\n"
    b"A body with dots:\n"
    b".a line starting with a dot\n"
    b"..two dots\n"
    b".\n"
    b"end\n"
)


@pytest.mark.parametrize("bytewise", FEEDS)
@pytest.mark.parametrize(
    ("newline", "expected"),
    [
        pytest.param(b"\n", ARTICLE_LF, id="lf"),
        pytest.param(b"\r\n", ARTICLE_LF.replace(b"\n", b"\r\n"), id="crlf"),
    ],
)
def test_article_block_unstuffed(bytewise: bool, newline: bytes, expected: bytes) -> None:
    client = greeted(newline)
    client.send(Command.of("ARTICLE", "2"))
    events = drain(client, ARTICLE_WIRE, bytewise)
    response = events[0]
    assert isinstance(response, Response) and response.has_block
    reply = parse_article_reply(response)
    assert (reply.number, reply.message_id) == (2, "<article2@anyurl.test>")
    assert events[-1] == EndOfData(received=len(expected))
    assert sum(isinstance(e, EndOfData) for e in events) == 1
    assert block_bytes(events) == expected
    assert client.state is State.IDLE


@pytest.mark.parametrize("bytewise", FEEDS)
def test_block_with_bare_lf_line_ends(bytewise: bool) -> None:
    client = greeted(b"\n")
    client.send(Command.of("BODY", "1"))
    events = drain(client, b"222 1 <a@b>\nline one\n..dot\n.\n", bytewise)
    assert block_bytes(events) == b"line one\n.dot\n"
    assert isinstance(events[-1], EndOfData)


@pytest.mark.parametrize("bytewise", FEEDS)
def test_empty_block(bytewise: bool) -> None:
    client = greeted()
    client.send(Command.of("LIST"))
    events = drain(client, b"215 list follows\r\n.\r\n", bytewise)
    assert [type(e) for e in events] == [Response, EndOfData]
    assert events[-1] == EndOfData(received=0)


def test_a_line_of_two_dots_is_data_not_the_end() -> None:
    client = greeted(b"\n")
    client.send(Command.of("BODY", "1"))
    client.receive_data(b"222 1 <a@b>\r\n..\r\n")
    events = drain(client, b"", False)[:-1]  # the last event is the EOF report
    assert block_bytes(events) == b".\n"
    assert client.state is State.CLOSED  # EOF inside the block


def test_eof_inside_a_block_is_unexpected() -> None:
    client = greeted()
    client.send(Command.of("ARTICLE", "1"))
    events = drain(client, b"220 1 <a@b>\r\nSubject: x\r\n\r\nbody", False)
    assert block_bytes(events) == b"Subject: x\r\n\r\n"
    client.receive_data(b"")
    assert client.next_event() == ConnectionClosed(expected=False, partial=len(b"body"))


def test_data_after_the_block_waits_for_the_next_command() -> None:
    client = greeted()
    client.send(Command.of("LIST"))
    events = drain(client, b"215 x\r\na.b 2 1 y\r\n.\r\n205 unsolicited\r\n", False)
    assert block_bytes(events) == b"a.b 2 1 y\r\n"
    assert client.state is State.IDLE
    assert client.next_event() is NEED_DATA


def test_response_code_decides_the_block() -> None:
    client = greeted()
    client.send(Command.of("GROUP", "a.b"))
    client.receive_data(b"211 2 1 2 a.b\r\n")
    event = client.next_event()
    assert isinstance(event, Response) and not event.has_block
    client.send(Command.of("LISTGROUP", "a.b"))
    events = drain(client, b"211 2 1 2 a.b list follows\r\n1\r\n2\r\n.\r\n", False)
    assert isinstance(events[0], Response) and events[0].has_block
    assert block_bytes(events) == b"1\r\n2\r\n"


@pytest.mark.parametrize("bytewise", FEEDS)
def test_capabilities_block(bytewise: bool) -> None:
    client = greeted()
    client.send(Command.of("CAPABILITIES"))
    wire = (b"101 Capability list:\r\nVERSION 2\r\nREADER\r\nmode-reader\r\n"
            b"LIST ACTIVE NEWSGROUPS\r\nOVER MSGID\r\n.\r\n")
    events = drain(client, wire, bytewise)
    caps = parse_capabilities(block_bytes(events).splitlines())
    assert caps["VERSION"] == ("2",)
    assert "MODE-READER" in caps and "READER" in caps
    assert caps["LIST"] == ("ACTIVE", "NEWSGROUPS")
    assert caps["OVER"] == ("MSGID",)


def test_too_long_line_is_an_error() -> None:
    client = greeted()
    client.send(Command.of("GROUP", "a.b"))
    client.receive_data(b"2" * 70000)
    with pytest.raises(NNTPCoreError, match="longer than"):
        client.next_event()


# -- commands ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(Command.of("ARTICLE", "<a\r\nQUIT@b>"), id="crlf-in-message-id"),
        pytest.param(Command.of("GROUP", "a\nb"), id="lf-in-group"),
        pytest.param(Command.of("GROUP", "a\rb"), id="cr-in-group"),
        pytest.param(Command.of("GROUP", "a\0b"), id="nul"),
        pytest.param(Command.of("GROUP", "a b"), id="space-in-group"),
        pytest.param(Command.of("GROUP", "a\tb"), id="tab-in-group"),
        pytest.param(Command.of("GROUP", ""), id="empty-argument"),
        pytest.param(Command.of("AUTHINFO", "PASS", "se\r\ncret"), id="crlf-in-password"),
    ],
)
def test_unsafe_commands_are_refused(command: Command) -> None:
    with pytest.raises(NNTPCoreError) as info:
        command.wire()
    assert "cret" not in str(info.value)  # a password never appears in the message


def test_command_line_limit_is_512_octets_with_crlf() -> None:
    fits = Command.of("GROUP", "g" * (MAX_COMMAND - len("GROUP ") - 2))
    assert len(fits.wire()) == MAX_COMMAND
    too_long = Command.of("GROUP", "g" * (MAX_COMMAND - len("GROUP ") - 1))
    with pytest.raises(NNTPCoreError, match="512"):
        too_long.wire()


def test_password_is_masked_in_display_and_allowed_spaces() -> None:
    command = Command.of("AUTHINFO", "PASS", "flint stone")
    assert command.wire() == b"AUTHINFO PASS flint stone\r\n"
    assert command.display() == "AUTHINFO PASS ****"
    assert Command.of("AUTHINFO", "USER", "fred").display() == "AUTHINFO USER fred"


def test_non_ascii_arguments_go_out_as_their_octets() -> None:
    assert Command.of("GROUP", "de.talk.b\xe4r").wire() == "GROUP de.talk.bär\r\n".encode()


@pytest.mark.parametrize(
    ("given", "sent"),
    [("a@b", "<a@b>"), ("<a@b>", "<a@b>"), ("x.y@host.example", "<x.y@host.example>")],
)
def test_message_id_argument(given: str, sent: str) -> None:
    assert message_id_argument(given) == sent


# -- block line parsers -----------------------------------------------------------------


def test_overview_line() -> None:
    line = (b"2\tDots\tAnyurl <t@x>\tSat, 01 Jan 2000 00:00:02 +0000\t<article2@anyurl.test>"
            b"\t<ref@x>\t342\t5\tXref: h anyurl.test:2")
    entry = parse_overview_line(line)
    assert (entry.number, entry.subject, entry.from_) == (2, "Dots", "Anyurl <t@x>")
    assert entry.message_id == "<article2@anyurl.test>" and entry.references == "<ref@x>"
    assert (entry.bytes, entry.lines) == (342, 5)
    assert entry.extra == ("Xref: h anyurl.test:2",)


def test_overview_line_with_missing_trailing_fields() -> None:
    entry = parse_overview_line("7\tShort")
    assert (entry.number, entry.subject, entry.from_, entry.bytes) == (7, "Short", "", None)


def test_overview_line_without_number_is_an_error() -> None:
    with pytest.raises(NNTPCoreError):
        parse_overview_line(b"x\tSubject")


def test_active_line_has_high_before_low() -> None:
    entry = parse_active_line(b"comp.lang.python 3002322 3000234 y")
    assert (entry.group, entry.high, entry.low, entry.status) == (
        "comp.lang.python", 3002322, 3000234, "y")
    with pytest.raises(NNTPCoreError):
        parse_active_line(b"broken")


@pytest.mark.parametrize("bytewise", FEEDS)
@pytest.mark.parametrize(
    ("newline", "expected"),
    [(b"\n", b".first\nmixed\nends\n.\n"), (b"\r\n", b".first\r\nmixed\r\nends\r\n.\r\n")],
    ids=["lf", "crlf"],
)
def test_stuffed_first_line_and_mixed_line_ends(
    bytewise: bool, newline: bytes, expected: bytes
) -> None:
    client = greeted(newline)
    client.send(Command.of("BODY", "1"))
    events = drain(client, b"222 1 <a@b>\r\n..first\r\nmixed\nends\r\n..\n.\r\n", bytewise)
    assert block_bytes(events) == expected
    assert isinstance(events[-1], EndOfData) and client.state is State.IDLE


def test_block_split_exactly_before_the_terminator() -> None:
    client = greeted(b"\n")
    client.send(Command.of("BODY", "1"))
    events = drain(client, b"222 1 <a@b>\r\nline\r\n", False)
    events += drain(client, b".\r\n", False)
    assert block_bytes(events) == b"line\n"
    assert isinstance(events[-1], EndOfData)


# -- pipelining [RFC 3977 3.5] ---------------------------------------------------------------


def article_answer(number: int, body: bytes = b"body") -> bytes:
    return (f"220 {number} <a{number}@x>\r\n".encode() + b"Subject: s\r\n\r\n" + body
            + b"\r\n.\r\n")


def answers(events: list[object]) -> list[tuple[int, str, bytes]]:
    """(code, first argument, block) per response, in order."""
    out: list[tuple[int, str, bytes]] = []
    for event in events:
        if isinstance(event, Response):
            out.append((event.code, (event.arguments or [""])[0], b""))
        elif isinstance(event, Data) and out:
            code, arg, block = out[-1]
            out[-1] = (code, arg, block + event.data)
    return out


@pytest.mark.parametrize("bytewise", FEEDS)
def test_pipelined_responses_match_commands_in_order(bytewise: bool) -> None:
    client = greeted(b"\n")
    wire = b"".join(client.pipeline(Command.of("ARTICLE", str(n))) for n in (1, 2, 3))
    assert wire == b"ARTICLE 1\r\nARTICLE 2\r\nARTICLE 3\r\n"
    assert [c.args[0] for c in client.owed] == ["1", "2", "3"]
    # the middle one is missing: one line, no block, and the third still matches
    events = drain(client, article_answer(1, b"..one") + b"423 no such article\r\n"
                   + article_answer(3), bytewise)
    assert answers(events) == [(220, "1", b"Subject: s\n\n.one\n"), (423, "no", b""),
                               (220, "3", b"Subject: s\n\nbody\n")]
    ends = [e for e in events if isinstance(e, EndOfData)]
    assert ends == [EndOfData(len(b"Subject: s\n\n.one\n")),
                    EndOfData(len(b"Subject: s\n\nbody\n"))]
    assert client.state is State.IDLE and not client.owed and client.command is None


def test_pipeline_refills_while_a_block_is_read() -> None:
    client = greeted()
    client.pipeline(Command.of("ARTICLE", "1"))
    client.receive_data(b"220 1 <a1@x>\r\nline\r\n")
    assert isinstance(client.next_event(), Response)
    assert client.state is State.IN_BLOCK
    client.pipeline(Command.of("ARTICLE", "2"))  # while article 1 streams
    assert client.state is State.IN_BLOCK and len(client.owed) == 2
    events = drain(client, b".\r\n" + article_answer(2), False)
    assert answers(events)[-1][:2] == (220, "2")
    assert client.state is State.IDLE


def test_send_still_refuses_while_a_response_is_owed() -> None:
    client = greeted()
    client.pipeline(Command.of("ARTICLE", "1"))
    with pytest.raises(NNTPCoreError, match="cannot send ARTICLE"):
        client.send(Command.of("ARTICLE", "2"))


@pytest.mark.parametrize("verb", ["GROUP", "MODE", "AUTHINFO", "QUIT"])
def test_nothing_is_pipelined_after_a_barrier(verb: str) -> None:
    client = greeted()
    args = {"GROUP": ("misc.test",), "MODE": ("READER",), "AUTHINFO": ("USER", "u"),
            "QUIT": ()}[verb]
    client.pipeline(Command.of("ARTICLE", "1"))
    client.pipeline(Command.of(verb, *args))  # a barrier may end a pipeline
    assert not client.can_pipeline()
    with pytest.raises(NNTPCoreError, match=f"{verb} is not answered yet"):
        client.pipeline(Command.of("ARTICLE", "2"))
    if verb == "QUIT":
        return
    reply = {"GROUP": b"211 3 1 3 misc.test\r\n", "MODE": b"201 ok\r\n",
             "AUTHINFO": b"381 more\r\n"}[verb]
    drain(client, article_answer(1) + reply, False)
    assert client.state is State.IDLE and client.can_pipeline()
    client.pipeline(Command.of("ARTICLE", "2"))


def test_pipeline_depth_is_bounded() -> None:
    from anyurl.protocols.nntp import MAX_PIPELINE

    client = greeted()
    for n in range(MAX_PIPELINE):
        client.pipeline(Command.of("ARTICLE", str(n + 1)))
    assert not client.can_pipeline()
    with pytest.raises(NNTPCoreError, match=f"{MAX_PIPELINE} commands are owed"):
        client.pipeline(Command.of("STAT", "1"))


def test_pipeline_refused_before_the_greeting() -> None:
    with pytest.raises(NNTPCoreError, match="greeting"):
        NNTPClient().pipeline(Command.of("ARTICLE", "1"))


@pytest.mark.parametrize("bytewise", FEEDS)
def test_close_mid_pipeline_lists_the_unanswered(bytewise: bool) -> None:
    client = greeted()
    for n in (1, 2, 3, 4):
        client.pipeline(Command.of("ARTICLE", str(n)))
    events = drain(client, article_answer(1) + b"220 2 <a2@x>\r\npart of two\r\n", bytewise)
    client.receive_data(b"")
    while (event := client.next_event()) is not NEED_DATA:
        events.append(event)
        if isinstance(event, ConnectionClosed):
            break
    assert events[-1] == ConnectionClosed(expected=False)
    # article 2 was answered in part (the caller saw that); 3 and 4 never were
    assert [c.args[0] for c in client.unanswered()] == ["3", "4"]


def test_close_before_any_answer_lists_every_command() -> None:
    client = greeted()
    for n in (1, 2):
        client.pipeline(Command.of("ARTICLE", str(n)))
    client.receive_data(b"")
    assert client.next_event() == ConnectionClosed(expected=False)
    assert [c.args[0] for c in client.unanswered()] == ["1", "2"]


def test_400_mid_pipeline_closes_and_leaves_the_rest_unanswered() -> None:
    client = greeted()
    for n in (1, 2, 3):
        client.pipeline(Command.of("ARTICLE", str(n)))
    events = drain(client, article_answer(1) + b"400 going down\r\n", False)
    assert answers(events)[-1][:1] == (400,)
    assert client.state is State.CLOSED
    assert [c.args[0] for c in client.unanswered()] == ["3"]
