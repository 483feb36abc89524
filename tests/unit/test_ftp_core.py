"""The sans-I/O FTP core, fed bytes one at a time and in one chunk (framing bugs show at once)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from anyurl.protocols.common import LocalProtocolError, RemoteProtocolError
from anyurl.protocols.ftp import (
    NEED_DATA,
    TRANSITIONS,
    ASCIIDecoder,
    Command,
    ConnectionClosed,
    FTPClient,
    FTPCommandError,
    FTPCoreError,
    FTPReplyError,
    Reply,
    ReplyReader,
    Retrieval,
    State,
    format_eprt,
    format_port,
    guess_type,
    parse_213_size,
    parse_227,
    parse_229,
    parse_257,
    retrieval_commands,
    retrieval_for,
)
from anyurl.protocols.replies import Grammar
from anyurl.url import FTPPath, parse


def whole(data: bytes) -> list[bytes]:
    return [data]


def bytewise(data: bytes) -> list[bytes]:
    return [data[i : i + 1] for i in range(len(data))]


def halves(data: bytes) -> list[bytes]:
    return [data[: len(data) // 2], data[len(data) // 2 :]]


FEEDS = [
    pytest.param(whole, id="one-chunk"),
    pytest.param(bytewise, id="byte-by-byte"),
    pytest.param(halves, id="two-halves"),
]

Feed = Callable[[bytes], list[bytes]]


def replies(data: bytes, feed: Feed, *, eof: bool = False) -> list[Reply | ConnectionClosed]:
    reader = ReplyReader(Grammar.FREE_TEXT)
    out: list[Reply | ConnectionClosed] = []
    pieces = feed(data) + ([b""] if eof else [])
    for piece in pieces:
        reader.receive_data(piece)
        while True:
            event = reader.next_event()
            if event is NEED_DATA:
                break
            assert isinstance(event, (Reply, ConnectionClosed))
            out.append(event)
            if isinstance(event, ConnectionClosed):
                return out
    return out


# -- reply framing ------------------------------------------------------------------------


@pytest.mark.parametrize("feed", FEEDS)
def test_single_line_reply(feed: Feed) -> None:
    assert replies(b"220 Service ready\r\n", feed) == [Reply(220, ("220 Service ready",))]


@pytest.mark.parametrize("feed", FEEDS)
def test_multi_line_reply_rfc959_example(feed: Feed) -> None:
    # RFC 959 4.2: inner lines may start with digits, even the same code with a hyphen.
    data = (
        b"123-First line\r\n"
        b"Second line\r\n"
        b"  234 A line beginning with numbers\r\n"
        b"123-The same code with a hyphen is still text\r\n"
        b"456 Another code with a space is text too\r\n"
        b"123 The last line\r\n"
    )
    [reply] = replies(data, feed)
    assert isinstance(reply, Reply)
    assert reply.code == 123
    assert reply.lines == (
        "123-First line",
        "Second line",
        "  234 A line beginning with numbers",
        "123-The same code with a hyphen is still text",
        "456 Another code with a space is text too",
        "123 The last line",
    )
    assert reply.line == "123 The last line"
    assert reply.all_text.splitlines()[0] == "First line"
    assert reply.all_text.splitlines()[-1] == "The last line"


@pytest.mark.parametrize("feed", FEEDS)
def test_several_replies_in_one_stream_and_bare_lf(feed: Feed) -> None:
    data = b"220-pure-ftpd\r\n220-welcome\r\n220 ok\r\n331 need password\n230 logged in\r\n"
    got = replies(data, feed)
    assert [r.code for r in got if isinstance(r, Reply)] == [220, 331, 230]
    assert isinstance(got[0], Reply) and got[0].lines[0] == "220-pure-ftpd"
    assert isinstance(got[1], Reply) and got[1].lines == ("331 need password",)


@pytest.mark.parametrize("feed", FEEDS)
def test_code_alone_is_a_single_line_reply_but_not_an_end(feed: Feed) -> None:
    # RFC 959 4.2: a multi-line reply ends only with "ddd<SP>" of its own code; a bare
    # "211" inside is text (ending there would leave every later reply one behind).
    got = replies(b"250\r\n211-Features\r\n SIZE\r\n211\r\n211 End\r\n", feed)
    assert got == [Reply(250, ("250",)),
                   Reply(211, ("211-Features", " SIZE", "211", "211 End"))]


@pytest.mark.parametrize("feed", FEEDS)
def test_lines_with_other_codes_inside_a_reply_are_text(feed: Feed) -> None:
    data = b"230-Welcome\r\n230\r\n331 not an end\r\n230-still text\r\n230 in\r\n257 \"/\"\r\n"
    got = replies(data, feed)
    assert [r.code for r in got if isinstance(r, Reply)] == [230, 257]
    assert isinstance(got[0], Reply) and len(got[0].lines) == 5


@pytest.mark.parametrize("feed", FEEDS)
def test_telnet_sequences_are_dropped(feed: Feed) -> None:
    data = b"\xff\xfb\x01220 ready \xff\xffhere\xff\xf4\r\n"
    assert replies(data, feed) == [Reply(220, ("220 ready \udcffhere",))]


@pytest.mark.parametrize("feed", FEEDS)
def test_non_utf8_text_round_trips(feed: Feed) -> None:
    [reply] = replies(b'257 "/caf\xe9" is current\r\n', feed)
    assert isinstance(reply, Reply)
    directory = parse_257(reply)
    assert directory is not None
    assert Command("CWD", directory).wire() == b"CWD /caf\xe9\r\n"


@pytest.mark.parametrize("feed", FEEDS)
def test_eof_mid_reply_is_connection_closed(feed: Feed) -> None:
    got = replies(b"220-hello\r\n220 wor", feed, eof=True)
    assert got == [ConnectionClosed(expected=False, partial=len(b"220-hello220 wor"))]


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"hello\r\n", id="no-code"),
        pytest.param(b"22 short\r\n", id="two-digits"),
        pytest.param(b"2200 long\r\n", id="four-digits"),
        pytest.param(b"abc text\r\n", id="letters"),
    ],
)
def test_garbage_is_a_core_error(data: bytes) -> None:
    reader = ReplyReader(Grammar.FREE_TEXT)
    reader.receive_data(data)
    with pytest.raises(RemoteProtocolError):
        reader.next_event()


def test_endless_line_is_a_core_error() -> None:
    reader = ReplyReader(Grammar.FREE_TEXT)
    reader.receive_data(b"220 " + b"x" * (70 * 1024))
    with pytest.raises(RemoteProtocolError, match="longer"):
        reader.next_event()


def test_a_bad_reply_is_the_ftp_cores_own_error() -> None:
    client = FTPClient()
    client.receive_data(b"hello\r\n")
    with pytest.raises(FTPReplyError, match="not a reply line"):
        client.next_event()
    client = FTPClient()
    client.receive_data(b"")
    with pytest.raises(FTPCommandError, match="after the end"):
        client.receive_data(b"220 late\r\n")


def test_data_after_eof_is_refused() -> None:
    reader = ReplyReader(Grammar.FREE_TEXT)
    reader.receive_data(b"")
    with pytest.raises(LocalProtocolError):
        reader.receive_data(b"220 late\r\n")


# -- the client state machine ------------------------------------------------------------


def client_after_greeting() -> FTPClient:
    client = FTPClient()
    client.receive_data(b"220 ready\r\n")
    assert client.next_event() == Reply(220, ("220 ready",))
    assert client.state is State.IDLE
    return client


def test_greeting_120_then_220() -> None:
    client = FTPClient()
    client.receive_data(b"120 in 5 minutes\r\n")
    assert isinstance(client.next_event(), Reply)
    assert client.state is State.AWAIT_GREETING
    assert client.next_event() is NEED_DATA
    client.receive_data(b"220 now\r\n")
    client.next_event()
    assert client.state is State.IDLE


def test_cannot_send_before_the_greeting_or_while_a_reply_is_owed() -> None:
    client = FTPClient()
    with pytest.raises(FTPCoreError, match="await-greeting"):
        client.send(Command("USER", "x"))
    client = client_after_greeting()
    assert client.send(Command("USER", "anonymous")) == b"USER anonymous\r\n"
    with pytest.raises(FTPCoreError, match="await-reply"):
        client.send(Command("PASS", "x"))


@pytest.mark.parametrize("feed", FEEDS)
def test_transfer_preliminary_then_final(feed: Feed) -> None:
    client = client_after_greeting()
    client.send(Command("RETR", "f"))
    events = []
    for piece in feed(b"150 opening\r\n226 done\r\n"):
        client.receive_data(piece)
        while (event := client.next_event()) is not NEED_DATA:
            events.append((event, client.state))
    assert [(e.code, s) for e, s in events if isinstance(e, Reply)] == [
        (150, State.AWAIT_TRANSFER_END),
        (226, State.IDLE),
    ]


def test_preliminary_reply_to_a_non_transfer_command_keeps_waiting() -> None:
    client = client_after_greeting()
    client.send(Command("CWD", "x"))
    client.receive_data(b"110 restart marker\r\n250 ok\r\n")
    client.next_event()
    assert client.state is State.AWAIT_REPLY
    client.next_event()
    assert client.state is State.IDLE


def test_421_closes_from_any_state() -> None:
    client = client_after_greeting()
    client.receive_data(b"421 Timeout.\r\n")
    event = client.next_event()
    assert isinstance(event, Reply) and event.code == 421
    assert client.state is State.CLOSED
    with pytest.raises(FTPCoreError):
        client.send(Command("NOOP"))


def test_unsolicited_reply_is_an_error() -> None:
    client = client_after_greeting()
    client.receive_data(b"200 surprise\r\n")
    with pytest.raises(FTPCoreError, match="nobody asked"):
        client.next_event()


def test_second_preliminary_reply_is_an_error() -> None:
    client = client_after_greeting()
    client.send(Command("RETR", "f"))
    client.receive_data(b"150 a\r\n150 b\r\n")
    client.next_event()
    with pytest.raises(FTPCoreError):
        client.next_event()


def test_eof_closes() -> None:
    client = client_after_greeting()
    client.send(Command("PWD"))
    client.receive_data(b"")
    assert client.next_event() == ConnectionClosed(expected=False)  # PWD's reply was owed
    assert client.state is State.CLOSED


def test_eof_while_idle_is_expected() -> None:
    client = client_after_greeting()
    client.receive_data(b"")
    assert client.next_event() == ConnectionClosed(expected=True, partial=0)


def test_abort_closes_for_reuse() -> None:
    client = client_after_greeting()
    client.send(Command("RETR", "f"))
    assert client.send_abort() == b"ABOR\r\n"
    assert client.state is State.CLOSED


def test_transition_table_covers_every_reply_category_after_a_command() -> None:
    for category in (1, 2, 3, 4, 5):
        assert (State.AWAIT_REPLY, category) in TRANSITIONS
    assert all(nxt is not State.AWAIT_REPLY for nxt in TRANSITIONS.values())


# -- commands -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "wire", "shown"),
    [
        pytest.param(Command("PWD"), b"PWD\r\n", "PWD", id="no-argument"),
        pytest.param(Command("CWD", ""), b"CWD \r\n", "CWD ", id="null-argument"),
        pytest.param(Command("CWD", "/etc"), b"CWD /etc\r\n", "CWD /etc", id="slash"),
        pytest.param(Command("RETR", "a b;c"), b"RETR a b;c\r\n", "RETR a b;c", id="space"),
        pytest.param(Command("PASS", "s3cret"), b"PASS s3cret\r\n", "PASS ****", id="pass"),
        pytest.param(Command("ACCT", "acc"), b"ACCT acc\r\n", "ACCT ****", id="acct"),
        pytest.param(Command("RETR", "caf\u00e9"), b"RETR caf\xc3\xa9\r\n", "RETR caf\u00e9",
                     id="utf8"),
    ],
)
def test_command_wire_and_display(command: Command, wire: bytes, shown: str) -> None:
    assert command.wire() == wire
    assert command.display() == shown


@pytest.mark.parametrize("argument", ["a\r\nDELE x", "a\n", "\r"])
def test_command_refuses_line_ends(argument: str) -> None:
    with pytest.raises(FTPCoreError, match="CR or LF"):
        Command("RETR", argument).wire()


def test_command_refuses_a_bad_verb() -> None:
    with pytest.raises(FTPCoreError):
        Command("RE TR", "x").wire()


# -- reply parsers ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("227 Entering Passive Mode (127,0,0,1,117,48).", ("127.0.0.1", 30000)),
        ("227 Entering Passive Mode 10,1,2,3,4,5", ("10.1.2.3", 1029)),
        ("227 =192,168,0,1,0,21", ("192.168.0.1", 21)),
    ],
)
def test_parse_227(line: str, expected: tuple[str, int]) -> None:
    assert parse_227(Reply(227, (line,))) == expected


@pytest.mark.parametrize("line", ["227 nothing", "227 (1,2,3,4,5)", "227 (300,1,1,1,1,1)"])
def test_parse_227_rejects(line: str) -> None:
    with pytest.raises(FTPCoreError):
        parse_227(Reply(227, (line,)))


@pytest.mark.parametrize(
    ("line", "port"),
    [
        ("229 Entering Extended Passive Mode (|||6446|)", 6446),
        ("229 Extended Passive mode OK (|||30029|)", 30029),
        ("229 (!!!21!)", 21),
    ],
)
def test_parse_229(line: str, port: int) -> None:
    assert parse_229(Reply(229, (line,))) == port


@pytest.mark.parametrize("line", ["229 (|||0|)", "229 (||1|5|)", "229 (|||70000|)", "229 ok"])
def test_parse_229_rejects(line: str) -> None:
    with pytest.raises(FTPCoreError):
        parse_229(Reply(229, (line,)))


@pytest.mark.parametrize(
    ("line", "directory"),
    [
        ('257 "/" is the current directory', "/"),
        ('257 "/home/a ""quoted"" dir" ok', '/home/a "quoted" dir'),
        ('257 "/pub"', "/pub"),
        ("257 /no/quotes", None),
        ('257 "unterminated', None),
    ],
)
def test_parse_257(line: str, directory: str | None) -> None:
    assert parse_257(Reply(257, (line,))) == directory


def test_parse_213_size() -> None:
    assert parse_213_size(Reply(213, ("213 1073741824",))) == 1 << 30
    assert parse_213_size(Reply(213, ("213 20240101000000.5",))) is None


def test_format_port_and_eprt() -> None:
    assert format_port("132.235.1.2", 6275) == "132,235,1,2,24,131"
    assert format_eprt("132.235.1.2", 6275) == "|1|132.235.1.2|6275|"
    assert format_eprt("1080::8:800:200C:417A", 5282) == "|2|1080::8:800:200C:417A|5282|"


# -- TYPE A ---------------------------------------------------------------------------------


@pytest.mark.parametrize("feed", FEEDS)
@pytest.mark.parametrize(
    ("wire", "local"),
    [
        (b"one\r\ntwo\r\n", b"one\ntwo\n"),
        (b"bare\rcr\r\n", b"bare\rcr\n"),
        (b"ends with cr\r", b"ends with cr\r"),
        (b"\r\r\n\r\n", b"\r\n\n"),
        (b"no line ends", b"no line ends"),
    ],
)
def test_ascii_decoder(feed: Feed, wire: bytes, local: bytes) -> None:
    decoder = ASCIIDecoder()
    out = b"".join(decoder.feed(piece) for piece in feed(wire)) + decoder.flush()
    assert out == local


# -- the RFC 1738 program ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "mode"),
    [
        ("readme.txt", "A"), ("README.TXT", "A"), ("index.html", "A"), ("main.c", "A"),
        ("archive.tar.gz", "I"), ("bin1k.dat", "I"), ("README", "I"), ("motd", "I"),
        ("image.png", "I"), ("dir.txt/x", "I"),
    ],
)
def test_guess_type(name: str, mode: str) -> None:
    assert guess_type(name) == mode


def program(url: str, **kwargs: int) -> list[str]:
    parts = parse(url).parts
    assert isinstance(parts, FTPPath)
    return [c.display() for c in retrieval_commands(retrieval_for(parts), **kwargs)]


@pytest.mark.parametrize(
    ("url", "commands"),
    [
        pytest.param("ftp://myname@host.dom/%2Fetc/motd",
                     ["CWD /etc", "TYPE I", "SIZE motd", "EPSV", "RETR motd"],
                     id="rfc-absolute-cwd"),
        pytest.param("ftp://myname@host.dom/etc/motd",
                     ["CWD etc", "TYPE I", "SIZE motd", "EPSV", "RETR motd"],
                     id="rfc-relative-cwd"),
        pytest.param("ftp://myname@host.dom//etc/motd",
                     ["CWD ", "CWD etc", "TYPE I", "SIZE motd", "EPSV", "RETR motd"],
                     id="rfc-null-cwd"),
        pytest.param("ftp://h/pub/readme.txt;type=a",
                     ["CWD pub", "TYPE A", "EPSV", "RETR readme.txt"], id="type-a"),
        pytest.param("ftp://h/pub/readme.txt;type=i",
                     ["CWD pub", "TYPE I", "SIZE readme.txt", "EPSV", "RETR readme.txt"],
                     id="type-i"),
        pytest.param("ftp://h/pub/nested;type=d", ["CWD pub", "EPSV", "NLST nested"],
                     id="type-d-name"),
        pytest.param("ftp://h/pub/;type=d", ["CWD pub", "EPSV", "NLST"], id="type-d-empty"),
        pytest.param("ftp://h/pub/", ["CWD pub", "EPSV", "NLST"], id="trailing-slash"),
        pytest.param("ftp://h", ["EPSV", "NLST"], id="no-path"),
        pytest.param("ftp://h/a%2Fb/c%3Bd.bin",
                     ["CWD a/b", "TYPE I", "SIZE c;d.bin", "EPSV", "RETR c;d.bin"],
                     id="encoded-slash-and-semicolon"),
        pytest.param("ftp://h/a//b/with%20space.txt",
                     ["CWD a", "CWD ", "CWD b", "TYPE I", "SIZE with space.txt", "EPSV",
                      "RETR with space.txt"],
                     id="empty-middle-segment"),
        pytest.param("ftp://h/per%25cent.dat",
                     ["TYPE I", "SIZE per%cent.dat", "EPSV", "RETR per%cent.dat"],
                     id="percent"),
    ],
)
def test_rfc1738_program(url: str, commands: list[str]) -> None:
    assert program(url) == commands


def program_with(url: str, ascii: str, **kwargs: int) -> list[str]:
    parts = parse(url).parts
    assert isinstance(parts, FTPPath)
    return [c.display() for c in retrieval_commands(retrieval_for(parts, ascii), **kwargs)]


def test_text_names_are_fetched_in_image_type_by_default() -> None:
    # Issue 19: a .txt name guessed TYPE A had its CR LF turned into LF, so the archive
    # (file, manifest digest, WARC record) was not the server's file.
    assert program("ftp://h/pub/readme.txt") == [
        "CWD pub", "TYPE I", "SIZE readme.txt", "EPSV", "RETR readme.txt"]
    # ... and a resume of one is a REST, not a refetch of the whole file.
    assert program("ftp://h/x.txt", offset=100) == [
        "TYPE I", "SIZE x.txt", "EPSV", "REST 100", "RETR x.txt"]


@pytest.mark.parametrize(
    ("url", "ascii", "mode"),
    [
        ("ftp://h/readme.txt", "on", "A"),
        ("ftp://h/linux.tar.gz", "on", "A"),
        ("ftp://h/readme.txt", "guess", "A"),
        ("ftp://h/linux.tar.gz", "guess", "I"),
        ("ftp://h/motd", "guess", "I"),
        ("ftp://h/readme.txt;type=a", "off", "A"),
        ("ftp://h/readme.txt;type=i", "on", "I"),
        ("ftp://h/readme.txt;type=i", "guess", "I"),
        ("ftp://h/pub/", "on", "list"),
    ],
)
def test_ascii_modes(url: str, ascii: str, mode: str) -> None:
    parts = parse(url).parts
    assert isinstance(parts, FTPPath)
    assert retrieval_for(parts, ascii).mode == mode


def test_ascii_mode_names_are_checked() -> None:
    with pytest.raises(FTPCommandError):
        retrieval_for(FTPPath((), "x", None), "binary")


def test_resume_adds_rest_right_before_retr() -> None:
    assert program("ftp://h/x.bin", offset=100) == [
        "TYPE I", "SIZE x.bin", "EPSV", "REST 100", "RETR x.bin"]
    # In ASCII type a byte offset means nothing (RFC 3659 5.1): no REST.
    assert program("ftp://h/x.txt;type=a", offset=100) == ["TYPE A", "EPSV", "RETR x.txt"]


def test_retrieval_flags_guesses() -> None:
    assert retrieval_for(FTPPath(("a",), "x.txt", None)) == Retrieval(("a",), "x.txt", "I", True)
    assert retrieval_for(FTPPath(("a",), "x.txt", None), "guess") == Retrieval(
        ("a",), "x.txt", "A", True)
    assert retrieval_for(FTPPath((), "x.txt", "i")) == Retrieval((), "x.txt", "I", False)
    assert retrieval_for(FTPPath((), "", "d")).mode == "list"


@pytest.mark.parametrize(
    "parts",
    [FTPPath(("a\r\nDELE x",), "f", None), FTPPath((), "f\n", "i")],
)
def test_retrieval_refuses_line_ends(parts: FTPPath) -> None:
    with pytest.raises(FTPCoreError):
        retrieval_for(parts)


def test_mlsd_size_and_modify_facts_read_as_numbers() -> None:
    from anyurl.protocols.ftp import fact_size, fact_time, parse_mlsd

    entries = parse_mlsd(b"type=file;size=6;modify=20240102030405; a.txt\r\n"
                         b"type=file;size=x;modify=2024; b\r\n"
                         b"type=file;modify=20240102030405.5; c\r\n")
    assert fact_size(entries[0]) == 6 and fact_size(entries[1]) is None
    assert fact_time(entries[0]) == 1704164645.0
    assert fact_time(entries[1]) is None
    assert fact_time(entries[2]) == 1704164645.5
