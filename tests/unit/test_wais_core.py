"""WAIS core against the bytes of specs/wais.md section 9 (a real freeWAIS-sf exchange)."""

from __future__ import annotations

import pytest

from anyurl.config import Config
from anyurl.errors import URLError
from anyurl.protocols import wais
from anyurl.protocols.wais import (
    NEED_DATA,
    ConnectionClosed,
    Diagnostic,
    DocumentHeader,
    DocumentText,
    InitRequest,
    InitResponse,
    Message,
    Operator,
    QueryTerm,
    SearchRequest,
    SearchResponse,
    WAISConnection,
    WAISReplyError,
    decode_compressed_int,
    encode_compressed_int,
    parse_apdu,
)
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.wais.handler import WAISHandler, _parse
from anyurl.url import parse


def record(kind: int, value: bytes) -> bytes:
    return bytes([kind, len(value)]) + value


# The docid the freeWAIS-sf server returned (section 6 and 9): records 1-7, 141 octets.
LOCAL = b"0 105 /srv/waisdemo/docs/gopher.txt"
DOCID = (record(1, b"vm:210") + record(2, b"/srv/waisdemo/idx/test") + record(3, LOCAL)
         + record(4, b"vm:210") + record(5, b"/srv/waisdemo/idx/test") + record(6, LOCAL)
         + bytes.fromhex("07 01 00"))

SEARCH_MESSAGE = bytes.fromhex(
    "30303030303030303430 7a32 77616973202020202020 202030"
    "0016 16 00001e 001388 00001e 01 1100 120474657374 140133"
    "630e 6a06676f70686572 6f0101 72010a"
)

HEADLINE = b"gopher.txt   /srv/waisdemo/docs/"
HEADER_GROUP = (
    bytes.fromhex("8116 8165") + bytes.fromhex("74 810d") + DOCID
    + bytes.fromhex("7602 01e0 770100 780169 81030102 810407 8105 04") + b"TEXT"
    + bytes.fromhex("79 16") + b"/srv/waisdemo/idx/test" + bytes.fromhex("7a0130")
    + bytes.fromhex("7b 20") + HEADLINE
)
SEARCH_RESPONSE_APDU = (
    bytes.fromhex("000e 17 01 000000 000001 000000 1b0100 638169") + HEADER_GROUP
)
TEXT = b"The gopher protocol was designed at the "


def test_docid_is_the_141_octets_of_the_spec() -> None:
    assert len(DOCID) == 141


# -- primitives -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "octets"),
    [(0, "00"), (127, "7f"), (128, "8100"), (150, "8116"), (229, "8165"), (233, "8169"),
     (16383, "ff7f"), (16384, "818000")],
)
def test_compressed_integers(value: int, octets: str) -> None:
    assert encode_compressed_int(value) == bytes.fromhex(octets)
    assert decode_compressed_int(bytes.fromhex(octets), 0) == (value, len(octets) // 2)


@pytest.mark.parametrize(("value", "octets"), [(0, "00"), (480, "01e0"), (5000, "1388"),
                                               (100000, "0186a0"), (-1, "ffffffff")])
def test_numbers_are_minimal_big_endian(value: int, octets: str) -> None:
    assert wais.num_bytes(value) == bytes.fromhex(octets)


def test_header_layout() -> None:
    assert wais.wais_header(40) == b"0000000040z2wais        0"
    assert len(wais.wais_header(0)) == wais.HEADER_LENGTH


# -- requests, byte for byte ---------------------------------------------------------------------


def test_search_message_matches_the_one_freewais_accepted() -> None:
    message = WAISConnection().send(wais.search_apdu(b"test", b"gopher", max_documents=10))
    assert message == SEARCH_MESSAGE
    assert len(message) == 65


def test_retrieval_apdu_matches_the_spec() -> None:
    apdu = wais.retrieval_apdu(b"test", DOCID, b"TEXT", 0, 40)
    assert len(apdu) == 292
    standard = (bytes.fromhex("002d 16 00000a 000010 00000f 01 1103") + b"FOO"
                + bytes.fromhex("1204") + b"test" + bytes.fromhex("1401") + b"1"
                + bytes.fromhex("130f 20 1f") + b"Document Text" + bytes.fromhex("0201") + b"3")
    query = (bytes.fromhex("2c11") + b"un re ig ig ig ig" + bytes.fromhex("2d810d") + DOCID
             + bytes.fromhex("2c11") + b"wt re ig ig ig ig" + bytes.fromhex("2d04") + b"TEXT"
             + bytes.fromhex("2e01") + b"a"
             + bytes.fromhex("2c11") + b"wb ro ig ig ig ig" + bytes.fromhex("2d01") + b"0"
             + bytes.fromhex("2e01") + b"a"
             + bytes.fromhex("2c11") + b"wb rl ig ig ig ig" + bytes.fromhex("2d02") + b"40"
             + bytes.fromhex("2e01") + b"a")
    assert apdu == standard + bytes.fromhex("158172") + query


def test_whole_document_query_has_no_byte_terms() -> None:
    terms = wais.retrieval_terms(DOCID, None, None, None)
    assert terms == [QueryTerm(b"un re ig ig ig ig", DOCID)]


def test_init_apdu_uses_msb_first_bitmaps() -> None:
    apdu = wais.init_apdu(message_size=100000)
    assert apdu[2] == 20
    assert bytes.fromhex("030180 040180") in apdu
    request = parse_apdu(apdu)
    assert request == InitRequest(100000, 100000, b"\x80")


# -- responses --------------------------------------------------------------------------------


def test_parse_the_freewais_search_response() -> None:
    assert len(SEARCH_RESPONSE_APDU) == 252
    reply = parse_apdu(SEARCH_RESPONSE_APDU)
    assert isinstance(reply, SearchResponse)
    assert (reply.status, reply.result_count, reply.records_returned) == (1, 0, 1)
    assert reply.present_status == 0
    assert reply.headers == (DocumentHeader(
        docid=DOCID, score=480, best_match=0, length=105, lines=2, types=("TEXT",),
        source="/srv/waisdemo/idx/test", date="0", headline=HEADLINE.decode()),)


def test_document_header_encodes_as_freewais_does() -> None:
    reply = parse_apdu(SEARCH_RESPONSE_APDU)
    assert isinstance(reply, SearchResponse)
    assert reply.headers[0].encode() == HEADER_GROUP


def test_retrieval_answer_text_group() -> None:
    group = (bytes.fromhex("8119 813d 74810d") + DOCID + bytes.fromhex("750100 7f28") + TEXT)
    apdu = (bytes.fromhex("0011 17 00 000000 000001 000000 1b0100 020133 638141") + group)
    reply = parse_apdu(apdu)
    assert isinstance(reply, SearchResponse)
    assert reply.texts == (DocumentText(DOCID, TEXT, 0),)
    assert reply.reference_id == b"3"
    assert wais.search_response_apdu(texts=(DocumentText(DOCID, TEXT, 0),),
                                     reference_id=b"3") == apdu


def test_diagnostic_record_layout() -> None:
    diag = Diagnostic("S1", "The following database is not available: nodb")
    octets = diag.encode()
    text = b"The following database is not available: nodb"
    assert octets == (bytes.fromhex("1c") + (3 + len(text)).to_bytes(2, "big") + b"S1" + text
                      + bytes.fromhex("00 1d"))
    reply = parse_apdu(wais.search_response_apdu(diagnostics=(diag,)))
    assert isinstance(reply, SearchResponse) and reply.diagnostics == (diag,)


def test_init_response_round_trip() -> None:
    reply = parse_apdu(wais.init_response_apdu(message_size=30000))
    assert isinstance(reply, InitResponse)
    assert reply.accepted and reply.maximum_record_size == 30000


def test_search_request_round_trip_for_the_server() -> None:
    request = parse_apdu(wais.search_apdu(b"a\x1fb", b"seed words", max_documents=7))
    assert isinstance(request, SearchRequest)
    assert request.databases == (b"a", b"b")
    assert (request.query_type, request.seed_words, request.max_documents) == (
        b"3", b"seed words", 7)
    retrieval = parse_apdu(wais.retrieval_apdu(b"test", b"ID", None, 5, 9))
    assert isinstance(retrieval, SearchRequest)
    assert retrieval.terms == (
        QueryTerm(b"un re ig ig ig ig", b"ID"),
        QueryTerm(b"wb ro ig ig ig ig", b"5"), Operator(b"a"),
        QueryTerm(b"wb rl ig ig ig ig", b"9"), Operator(b"a"),
    )


@pytest.mark.parametrize(
    "apdu",
    [b"\x00", bytes.fromhex("0050 17 00"), bytes.fromhex("0001 63"),
     bytes.fromhex("000e 17 01 000000 000001 000000 1b0100 63 8169 00")],
    ids=["too-short", "indicator-too-big", "unknown-pdu", "user-info-cut-short"],
)
def test_bad_apdus_raise(apdu: bytes) -> None:
    with pytest.raises(WAISReplyError):
        parse_apdu(apdu)


# -- framing ------------------------------------------------------------------------------------


def messages(conn: WAISConnection) -> list[object]:
    out = []
    while (event := conn.next_event()) is not NEED_DATA:
        out.append(event)
        if isinstance(event, ConnectionClosed):
            break
    return out


@pytest.mark.parametrize("bytewise", [False, True], ids=["whole", "bytewise"])
def test_framing(bytewise: bool) -> None:
    answer = wais.wais_header(len(SEARCH_RESPONSE_APDU)) + SEARCH_RESPONSE_APDU
    stream = b"\r\n" + answer + answer  # junk before the first '0' is skipped
    conn = WAISConnection()
    got: list[object] = []
    for piece in ([stream[i:i + 1] for i in range(len(stream))] if bytewise else [stream]):
        conn.receive_data(piece)
        got += messages(conn)
    assert [m.apdu for m in got if isinstance(m, Message)] == [SEARCH_RESPONSE_APDU] * 2
    assert conn.skipped == 2
    conn.receive_data(b"")
    assert conn.next_event() == ConnectionClosed(expected=True, partial=0)


def test_eof_inside_a_message() -> None:
    conn = WAISConnection()
    conn.receive_data(SEARCH_MESSAGE[:30])
    assert conn.next_event() is NEED_DATA
    conn.receive_data(b"")
    assert conn.next_event() == ConnectionClosed(expected=False, partial=30)


def test_header_without_digits_raises() -> None:
    conn = WAISConnection()
    conn.receive_data(b"0000ABCDEFz2wais        0")
    with pytest.raises(WAISReplyError):
        conn.next_event()


# -- document ids in URLs ----------------------------------------------------------------------


def test_wpath_round_trip_escapes_everything_but_unreserved() -> None:
    wpath = wais.docid_to_wpath(DOCID)
    assert "/" not in wpath and ";" not in wpath
    assert wais.wpath_to_docid(wpath) == DOCID


def test_lynx_record_form_is_understood() -> None:
    lynx = ("1=vm:210;2=/srv/waisdemo/idx/test;3=0%20105%20/srv/waisdemo/docs/gopher.txt;"
            "4=vm:210;5=/srv/waisdemo/idx/test;6=0%20105%20/srv/waisdemo/docs/gopher.txt;"
            "7=%00;")
    assert wais.wpath_to_docid(lynx) == DOCID


def test_lynx_record_longer_than_127_gets_a_two_octet_length() -> None:
    assert wais.wpath_to_docid("3=" + "x" * 200 + ";") == b"\x03\x81\x48" + b"x" * 200


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        pytest.param("wais://h/db", ("db", None, None, None, None), id="database"),
        pytest.param("wais://h/db?gopher+minnesota", ("db", "gopher+minnesota", None, None, None),
                     id="search-plus-as-written"),
        pytest.param("wais://h/db?gopher%20minnesota",
                     ("db", "gopher minnesota", None, None, None), id="search-space"),
        pytest.param("wais://h/db?a%2Bb", ("db", "a+b", None, None, None), id="escaped-plus"),
        pytest.param("wais://h/db/TEXT/%01%02ab", ("db", None, "TEXT", b"\x01\x02ab", None),
                     id="document"),
        pytest.param("wais://h/db/TEXT/105/%01%02ab", ("db", None, "TEXT", b"\x01\x02ab", 105),
                     id="cern-length-segment"),
        pytest.param("wais://h/db/TEXT/a%2Fb", ("db", None, "TEXT", b"a/b", None),
                     id="escaped-slash-in-docid"),
    ],
)
def test_url_forms(url: str, expected: tuple[object, ...]) -> None:
    r = _parse(parse(url))
    assert (r.database, r.search, r.wtype, r.docid, r.length) == expected


@pytest.mark.parametrize("url", ["wais://h/", "wais://h/db/TEXT", "wais://h/db/TEXT/",
                                 "wais://h/a%1Fb"])
def test_bad_wais_urls(url: str) -> None:
    with pytest.raises(URLError):
        WAISHandler(Config()).plan(parse(url), FetchOptions())


def test_plan() -> None:
    lines = WAISHandler(Config()).plan(parse("wais://h/db?x"), FetchOptions())
    assert lines[0].startswith("Init") and "seed words 'x'" in lines[1]


@pytest.mark.parametrize(("lead", "wrong"), [
    (b"", b"\xb5"), (b"0", b"\x06"), (b"\r\n\x00 0000000001", b"y"), (b"\r\n000", b"x"),
    (b"", b"HTTP/1.0")])
def test_a_start_that_is_no_wais_header_raises_before_the_header_is_whole(
        lead: bytes, wrong: bytes) -> None:
    """Issue 29: a short answer of another protocol is not waited on for 25 octets;
    padding and a header's possible start still wait for the rest, octet by octet."""
    conn = WAISConnection()
    for octet in lead:
        conn.receive_data(bytes([octet]))
        assert conn.next_event() is NEED_DATA
    conn.receive_data(wrong)
    with pytest.raises(WAISReplyError):
        conn.next_event()
