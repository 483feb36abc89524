"""The sans-I/O SMTP core: reply framing, dot-stuffing, the submission dialogue.

Server replies are fed whole and one byte at a time (STYLE.md rule 3).
"""

from __future__ import annotations

import pytest

from anyurl.protocols.common import RemoteProtocolError
from anyurl.protocols.replies import Grammar
from anyurl.protocols.smtp import (
    NEED_DATA,
    TRANSITIONS,
    Command,
    ConnectionClosed,
    Delivered,
    Envelope,
    Event,
    Failed,
    Finished,
    NeedData,
    Reply,
    ReplyReader,
    ReplyReceived,
    SMTPCoreError,
    SMTPReplyError,
    Step,
    Submission,
    Transmit,
    check_address,
    ehlo_extensions,
    encode_message,
)


@pytest.fixture(params=[False, True], ids=["whole", "bytewise"])
def bytewise(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


def read_replies(data: bytes, bytewise: bool) -> list[Reply]:
    reader = ReplyReader(Grammar.CODED_LINES)
    replies: list[Reply] = []
    for chunk in ([data[i : i + 1] for i in range(len(data))] if bytewise else [data]):
        reader.receive_data(chunk)
        while isinstance(event := reader.next_event(), Reply):
            replies.append(event)
    return replies


REPLY_CASES = [
    pytest.param(b"220 ready\r\n", [Reply(220, ("220 ready",))], id="single"),
    pytest.param(
        b"250-mx.example\r\n250-SIZE 1000\r\n250-8BITMIME\r\n250 HELP\r\n",
        [Reply(250, ("250-mx.example", "250-SIZE 1000", "250-8BITMIME", "250 HELP"))],
        id="multi-line-ehlo",
    ),
    pytest.param(b"250\r\n", [Reply(250, ("250",))], id="bare-code"),
    pytest.param(b"221 bye\n", [Reply(221, ("221 bye",))], id="bare-lf"),
    pytest.param(
        b"250 ok\r\n354 go ahead\r\n",
        [Reply(250, ("250 ok",)), Reply(354, ("354 go ahead",))],
        id="two-replies-one-read",
    ),
]


@pytest.mark.parametrize(("wire", "expected"), REPLY_CASES)
def test_reply_framing(wire: bytes, expected: list[Reply], bytewise: bool) -> None:
    assert read_replies(wire, bytewise) == expected


def test_reply_properties() -> None:
    reply = read_replies(b"250-mx says hi\r\n250-size 1000\r\n250 8BITMIME\r\n", False)[0]
    assert reply.category == 2
    assert ehlo_extensions(reply) == frozenset({"SIZE", "8BITMIME"})
    assert reply.text == "mx says hi"
    assert reply.all_text == "mx says hi\nsize 1000\n8BITMIME"
    assert str(reply) == "250-mx says hi / 250-size 1000 / 250 8BITMIME"


@pytest.mark.parametrize(
    "wire",
    [
        pytest.param(b"hello\r\n", id="no-code"),
        pytest.param(b"25 x\r\n", id="short-code"),
        pytest.param(b"250x\r\n", id="bad-separator"),
        pytest.param(b"250-a\r\n354 b\r\n", id="code-changes"),
        pytest.param(b"650 x\r\n", id="category-6"),
    ],
)
def test_bad_replies(wire: bytes) -> None:
    with pytest.raises(RemoteProtocolError):
        read_replies(wire, False)


def test_a_bad_reply_is_the_smtp_cores_own_error() -> None:
    submission = Submission(envelope())
    with pytest.raises(SMTPReplyError, match="not a reply line"):
        submission.receive_data(b"hello\r\n")


def test_reply_line_limit() -> None:
    with pytest.raises(RemoteProtocolError, match="longer"):
        read_replies(b"2" * (70 * 1024), False)


# -- commands and message ------------------------------------------------------------------------


def test_command_refuses_line_breaks() -> None:
    assert Command("RCPT", "TO:<a@b>").wire() == b"RCPT TO:<a@b>\r\n"
    with pytest.raises(SMTPCoreError):
        Command("RCPT", "TO:<a@b>\r\nDATA").wire()


@pytest.mark.parametrize(
    "address",
    ["a@b\r\nRCPT TO:<c@d>", "a@b\nx", "a\x00@b", "a>@b", "<a@b", "a@b\t", " a@b"],
)
def test_check_address_refuses(address: str) -> None:
    with pytest.raises(SMTPCoreError):
        check_address(address)


def test_check_address_accepts_quoted_local_part() -> None:
    assert check_address('"john doe"@example.org') == '"john doe"@example.org'


MESSAGE_CASES = [
    pytest.param(b"hi\n", b"hi\r\n.\r\n", id="lf-to-crlf"),
    pytest.param(b"hi", b"hi\r\n.\r\n", id="final-line-end-added"),
    pytest.param(b".\n", b"..\r\n.\r\n", id="lone-dot-stuffed"),
    pytest.param(b"a\n.hidden\nb\n", b"a\r\n..hidden\r\nb\r\n.\r\n", id="leading-dot-doubled"),
    pytest.param(b"a\r\n\r\n.\r\n", b"a\r\n\r\n..\r\n.\r\n", id="crlf-dot-crlf-inside"),
    pytest.param(b"", b".\r\n", id="empty"),
    pytest.param(b"x\ry\r\n", b"x\r\ny\r\n.\r\n", id="bare-cr-is-a-line-end"),
]


@pytest.mark.parametrize(("message", "wire"), MESSAGE_CASES)
def test_encode_message(message: bytes, wire: bytes) -> None:
    assert encode_message(message) == wire


# -- the dialogue ----------------------------------------------------------------------------


def envelope(**changes: object) -> Envelope:
    values: dict[str, object] = {
        "helo": "client.example",
        "sender": "me@example.org",
        "recipients": ("you@example.net",),
        "message": b"Subject: hi\r\n\r\n.dot\r\n",
    }
    values.update(changes)
    return Envelope(**values)  # type: ignore[arg-type]


def run(submission: Submission, server: list[bytes], bytewise: bool) -> tuple[
    list[str], list[Event]
]:
    """Play ``server`` replies (one per client turn); return what was sent and the events."""
    sent: list[str] = []
    events: list[Event] = []
    for chunk in server:
        pieces = [chunk[i : i + 1] for i in range(len(chunk))] if bytewise else [chunk]
        if chunk == b"":
            pieces = [b""]
        for piece in pieces:
            submission.receive_data(piece)
            while not isinstance(event := submission.next_event(), NeedData):
                events.append(event)
                if isinstance(event, Transmit):
                    sent.append(event.data.decode())
    assert submission.next_event() is NEED_DATA
    return sent, events


HAPPY = [
    b"220 mx ESMTP\r\n",
    b"250-mx\r\n250 8BITMIME\r\n",
    b"250 sender ok\r\n",
    b"250 rcpt ok\r\n",
    b"354 go\r\n",
    b"250 queued as 42\r\n",
    b"221 bye\r\n",
]


def test_happy_dialogue(bytewise: bool) -> None:
    sub = Submission(envelope())
    sent, events = run(sub, HAPPY, bytewise)
    assert sent == [
        "EHLO client.example\r\n",
        "MAIL FROM:<me@example.org>\r\n",
        "RCPT TO:<you@example.net>\r\n",
        "DATA\r\n",
        "Subject: hi\r\n\r\n..dot\r\n.\r\n",
        "QUIT\r\n",
    ]
    assert Delivered(Reply(250, ("250 queued as 42",))) in events
    assert events[-1] == Finished()
    assert sub.extensions == frozenset({"8BITMIME"})
    assert sub.step is Step.DONE
    assert len([e for e in events if isinstance(e, ReplyReceived)]) == 7


def test_plan_matches_happy_dialogue() -> None:
    sub = Submission(envelope())
    assert sub.plan() == [
        "EHLO client.example",
        "MAIL FROM:<me@example.org>",
        "RCPT TO:<you@example.net>",
        "DATA",
        "<message: 3 lines, 22 bytes>",
        ".",
        "QUIT",
    ]


def test_helo_fallback(bytewise: bool) -> None:
    server = [b"220 old\r\n", b"502 what?\r\n", *HAPPY[1:]]
    sent, _ = run(Submission(envelope()), server, bytewise)
    assert sent[:3] == ["EHLO client.example\r\n", "HELO client.example\r\n",
                        "MAIL FROM:<me@example.org>\r\n"]


def test_two_recipients() -> None:
    server = [*HAPPY[:4], b"251 will forward\r\n", *HAPPY[4:]]
    sent, events = run(Submission(envelope(recipients=("a@x", "b@y"))), server, False)
    assert sent[2:5] == ["RCPT TO:<a@x>\r\n", "RCPT TO:<b@y>\r\n", "DATA\r\n"]
    assert any(isinstance(e, Delivered) for e in events)


@pytest.mark.parametrize(
    ("server", "step", "code"),
    [
        pytest.param([b"554 go away\r\n"], Step.GREETING, 554, id="greeting-refused"),
        pytest.param([HAPPY[0], b"554 no\r\n"], Step.EHLO, 554, id="ehlo-554-no-helo"),
        pytest.param([*HAPPY[:3], b"550 no such user\r\n"], Step.RCPT, 550, id="rcpt-refused"),
        pytest.param([*HAPPY[:2], b"451 try later\r\n"], Step.MAIL, 451, id="mail-transient"),
        pytest.param([*HAPPY[:4], b"503 bad sequence\r\n"], Step.DATA, 503, id="data-refused"),
        pytest.param([*HAPPY[:5], b"552 too big\r\n"], Step.MESSAGE, 552, id="message-refused"),
    ],
)
def test_failure_then_quit(server: list[bytes], step: Step, code: int, bytewise: bool) -> None:
    sub = Submission(envelope())
    sent, events = run(sub, [*server, b"221 bye\r\n"], bytewise)
    failed = [e for e in events if isinstance(e, Failed)]
    assert [(f.step, f.reply.code) for f in failed] == [(step, code)]
    assert sent[-1] == "QUIT\r\n"
    assert not any(isinstance(e, Delivered) for e in events)
    assert events[-1] == Finished()


def test_421_ends_without_quit() -> None:
    sent, events = run(Submission(envelope()), [HAPPY[0], b"421 shutting down\r\n"], False)
    assert sent == ["EHLO client.example\r\n"]
    assert events[-2:] == [Failed(Step.EHLO, Reply(421, ("421 shutting down",))), Finished()]


def test_close_mid_dialogue() -> None:
    submission = Submission(envelope())
    _, events = run(submission, [*HAPPY[:3], b""], False)
    assert events[-1] == ConnectionClosed(expected=False)
    assert submission.closed_during is Step.RCPT


def test_close_after_quit_is_finished() -> None:
    _, events = run(Submission(envelope()), [*HAPPY[:6], b""], False)
    assert events[-1] == Finished()


@pytest.mark.parametrize(
    "changes",
    [
        {"recipients": ()},
        {"recipients": ("a@b\r\nRCPT TO:<c@d>",)},
        {"sender": "x>@y"},
        {"helo": "two words"},
    ],
)
def test_envelope_refuses(changes: dict[str, object]) -> None:
    with pytest.raises(SMTPCoreError):
        envelope(**changes)


def test_transitions_table_covers_the_dialogue() -> None:
    steps = {s for s, _ in TRANSITIONS} | set(TRANSITIONS.values())
    assert steps == set(Step) - {Step.DONE}
