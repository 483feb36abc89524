"""Prospero messages: quoting, the exact request lines, reply parsing, access methods -> URLs."""

from __future__ import annotations

import pytest

from anyurl.config import Config
from anyurl.errors import URLError
from anyurl.protocols.prospero import (
    AccessMethod,
    Attribute,
    Authenticated,
    ErrorLine,
    Failure,
    Forwarded,
    Link,
    NoneFound,
    ProsperoCoreError,
    UnknownLine,
    Unresolved,
    VersionNotSupported,
    Warning_,
    access_method_url,
    build_message,
    collect,
    contents_text,
    directory_request,
    object_info_request,
    parse_line,
    parse_reply,
    qsprintf_token,
    quote_token,
    reply_lines,
    request_preamble,
    split_host_port,
    tokenize,
)
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.prospero.handler import ProsperoHandler
from anyurl.url import parse

# -- tokens -------------------------------------------------------------------------------


@pytest.mark.parametrize("line", ["'a b'c", "a' 'bc", "'a bc'"], ids=["q-start", "q-mid", "q-all"])
def test_quotes_anywhere_make_the_same_token(line: str) -> None:
    assert tokenize(line) == ["a bc"]


@pytest.mark.parametrize(
    ("line", "tokens"),
    [
        pytest.param("''", [""], id="empty-token"),
        pytest.param("'it''s'", ["it's"], id="doubled-quote"),
        pytest.param("A\tB  C", ["A", "B", "C"], id="tabs-and-spaces"),
        pytest.param("LINK L FILE '' X", ["LINK", "L", "FILE", "", "X"], id="empty-in-middle"),
    ],
)
def test_tokenize(line: str, tokens: list[str]) -> None:
    assert tokenize(line) == tokens


def test_unterminated_quote_raises() -> None:
    with pytest.raises(ProsperoCoreError):
        tokenize("ERROR 'oops")


@pytest.mark.parametrize(
    ("token", "quoted"),
    [
        pytest.param("plain", "plain", id="plain"),
        pytest.param("", "''", id="empty"),
        pytest.param("a b", "'a b'", id="space"),
        pytest.param("/pub", "'/pub'", id="slash"),
        pytest.param("a+b", "'a+b'", id="plus"),
        pytest.param("a,b", "'a,b'", id="comma"),
        pytest.param("it's", "'it''s'", id="quote"),
        pytest.param("a\tb", "'a\tb'", id="tab-is-quoted-not-a-delimiter"),
    ],
)
def test_quote_token(token: str, quoted: str) -> None:
    assert quote_token(token) == quoted
    assert tokenize(quoted) == [token]


@pytest.mark.parametrize("bad", ["a\nb", "a\rb", "a\x00b"], ids=["lf", "cr", "nul"])
def test_quote_token_refuses_line_breaks_and_nul(bad: str) -> None:
    with pytest.raises(ProsperoCoreError):
        quote_token(bad)


# -- requests -----------------------------------------------------------------------------


def test_object_info_request_matches_the_spec_example() -> None:
    lines = [*request_preamble("anonymous"), object_info_request("/pros/name")]
    assert build_message(lines) == (
        b"VERSION 5 anyurl\n"
        b"AUTHENTICATE '' UNAUTHENTICATED anonymous\n"
        b"GET-OBJECT-INFO #ALL ASCII '/pros/name' 0\n"
    )


def test_hsoname_is_always_quoted_and_quotes_doubled() -> None:
    assert object_info_request("AFTP", version="3") == "GET-OBJECT-INFO #ALL ASCII 'AFTP' 3"
    assert object_info_request("it's") == "GET-OBJECT-INFO #ALL ASCII 'it''s' 0"


def test_directory_request_as_the_53_client_sends_it() -> None:
    assert directory_request("/path") == [
        "DIRECTORY ASCII '/path' 0",
        "LIST ATTRIBUTES COMPONENTS",
    ]
    assert directory_request("/p", options="", components=("a*",))[1] == (
        "LIST '' COMPONENTS a*")


def test_raw_octets_of_the_url_reach_the_wire() -> None:
    hsoname = b"/caf\xe9".decode("utf-8", "surrogateescape")  # %E9 in the URL: not UTF-8
    assert b"'/caf\xe9'" in build_message([object_info_request(hsoname)])


# -- replies ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        pytest.param(
            "LINK L DIRECTORY pub INTERNET-D PROSPERO.ISI.EDU(1525) ASCII '/pub' 0",
            Link("L", "DIRECTORY", "pub", "INTERNET-D", "PROSPERO.ISI.EDU(1525)", "ASCII",
                 "/pub", "0"),
            id="link"),
        pytest.param(
            "LINK U FILE 'a b' INTERNET-D h ASCII x 0 DEST-EXP 19931231235959Z",
            Link("U", "FILE", "a b", "INTERNET-D", "h", "ASCII", "x", "0",
                 dest_exp="19931231235959Z"),
            id="union-link-dest-exp"),
        pytest.param(
            "ATTRIBUTE OBJECT FIELD ACCESS-METHOD AFTP INTERNET-D H ASCII /p TEXT",
            Attribute("OBJECT", "FIELD", "ACCESS-METHOD", None,
                      ("AFTP", "INTERNET-D", "H", "ASCII", "/p", "TEXT")),
            id="field-short-form"),
        pytest.param(
            "ATTRIBUTE LINK FIELD NEW-FIELD SEQUENCE a 'b c'",
            Attribute("LINK", "FIELD", "NEW-FIELD", "SEQUENCE", ("a", "b c")),
            id="field-with-type"),
        pytest.param(
            "ATTRIBUTE CACHED APPLICATION ICON LINK L FILE '' INTERNET-D h ASCII /i 0",
            Attribute("CACHED", "APPLICATION", "ICON", "LINK",
                      ("L", "FILE", "", "INTERNET-D", "h", "ASCII", "/i", "0")),
            id="application-link-valued"),
        pytest.param(
            "ATTRIBUTE>> OBJECT FIELD OWNER x",
            Attribute("OBJECT", "FIELD", "OWNER", None, ("x",), depth=2),
            id="sub-attribute"),
        pytest.param(
            "FORWARDED INTERNET-D NEW.HOST(1600) ASCII '/moved' 0",
            Forwarded("INTERNET-D", "NEW.HOST(1600)", "ASCII", "/moved", "0",
                      raw="FORWARDED INTERNET-D NEW.HOST(1600) ASCII '/moved' 0"),
            id="forwarded"),
        pytest.param("FAILURE NOT-FOUND OBJECT can't find it",
                     Failure("NOT-FOUND OBJECT", "can't find it",
                             "NOT-FOUND OBJECT can't find it"),
                     id="failure-with-apostrophe"),
        pytest.param("FAILURE NOT-AUTHORIZED", Failure("NOT-AUTHORIZED", "", "NOT-AUTHORIZED"),
                     id="failure-bare"),
        pytest.param("WARNING OUT-OF-DATE cache is old", Warning_("OUT-OF-DATE", "cache is old"),
                     id="warning"),
        pytest.param("ERROR unknown command FOO", ErrorLine("unknown command FOO"), id="error"),
        pytest.param("NONE-FOUND", NoneFound(), id="none-found"),
        pytest.param("UNRESOLVED b c", Unresolved(("b", "c")), id="unresolved"),
        pytest.param("VERSION-NOT-SUPPORTED TRY 1-5", VersionNotSupported("TRY 1-5"),
                     id="version-not-supported"),
        pytest.param("AUTHENTICATED h 1", Authenticated("h 1"), id="authenticated"),
        pytest.param("ID something new", UnknownLine("ID something new"), id="unknown"),
        pytest.param("LINK L 'unterminated", UnknownLine("LINK L 'unterminated"),
                     id="bad-quote"),
    ],
)
def test_parse_line(line: str, expected: object) -> None:
    assert parse_line(line) == expected


def test_parse_reply_accepts_lf_cr_and_crlf() -> None:
    reply = parse_reply(b"NONE-FOUND\r\nNONE-FOUND\rNONE-FOUND\n\n")
    assert reply == [NoneFound(), NoneFound(), NoneFound()]


def test_collect_sorts_a_reply() -> None:
    info = collect(parse_reply(
        b"ATTRIBUTE OBJECT FIELD BASE-TYPE DIRECTORY\n"
        b"ATTRIBUTE OBJECT FIELD ACCESS-METHOD LOCAL '' '' ASCII /x\n"
        b"WARNING MESSAGE hello\n"
        b"LINK L FILE a INTERNET-D h ASCII /a 0\n"))
    assert info.is_directory and info.base_type == "DIRECTORY"
    assert info.values("ACCESS-METHOD") == [("LOCAL", "", "", "ASCII", "/x")]
    assert [w.code for w in info.warnings] == ["MESSAGE"]
    assert [link.name for link in info.links] == ["a"]


# -- access methods -------------------------------------------------------------------------


def method(*values: str) -> AccessMethod:
    found = AccessMethod.from_values(values, default_host="LINK.HOST",
                                     default_hsoname="/link/hso")
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("values", "url"),
    [
        pytest.param(("AFTP", "INTERNET-D", "PROSPERO.ISI.EDU", "ASCII",
                      "/pub/prospero/README-prospero-documents", "TEXT"),
                     "ftp://prospero.isi.edu/pub/prospero/README-prospero-documents;type=a",
                     id="aftp-text-spec-example"),
        pytest.param(("AFTP", "INTERNET-D", "H(2121)", "ASCII", "pub/a b;c", "BINARY"),
                     "ftp://h:2121/pub/a%20b%3Bc;type=i", id="aftp-binary-port-escapes"),
        pytest.param(("GOPHER", "INTERNET-D", "MERMAID.MICRO.UMN.EDU(150)", "ASCII",
                      "1/Fun Stuff/Pyrotechnics/PyroGuide 1"),
                     "gopher://mermaid.micro.umn.edu:150/11/Fun%20Stuff/Pyrotechnics/"
                     "PyroGuide%201", id="gopher-spec-example"),
        pytest.param(("GOPHER", "INTERNET-D", "g.host", "ASCII", "/pub/readme.txt", "0"),
                     "gopher://g.host/0/pub/readme.txt", id="gopher-type-given"),
        pytest.param(("TELNET", "INTERNET-D", "t.host(2323)", "ASCII", ""),
                     "telnet://t.host:2323/", id="telnet"),
        pytest.param(("LOCAL", "", "", "ASCII", "/auto/gum/README"),
                     "file:///auto/gum/README", id="local"),
        pytest.param(("AFS", "DUMMY", "DUMMY", "ASCII", "/grand.central.org/doc/README"),
                     "file:///afs/grand.central.org/doc/README", id="afs"),
        pytest.param(("AFTP", "", "", "", "", "TEXT"),
                     "ftp://link.host/link/hso;type=a", id="defaults-from-the-link"),
    ],
)
def test_access_method_urls(values: tuple[str, ...], url: str) -> None:
    assert access_method_url(method(*values)).url == url


@pytest.mark.parametrize(
    "values",
    [
        ("FTP", "INTERNET-D", "H", "ASCII", "/ftp/pub/x", "TEXT"),
        ("NFS", "INTERNET-D", "H", "ASCII", "ftp/pub/x", "/auto/gum/gum"),
        ("WAIS", "", "", "", ""),
        ("PROSPERO-CONTENTS", "INTERNET-D", "H", "ASCII", "/x"),
        ("CARRIER-PIGEON", "INTERNET-D", "H", "ASCII", "/x"),
    ],
    ids=["ftp-needs-login", "nfs", "wais", "prospero-contents", "unknown"],
)
def test_unmappable_access_methods_say_why(values: tuple[str, ...]) -> None:
    result = access_method_url(method(*values))
    assert result.url is None and result.reason


def test_access_method_needs_five_elements() -> None:
    assert AccessMethod.from_values(("AFTP", "X"), default_host="h", default_hsoname="/") is None


def test_split_host_port() -> None:
    assert split_host_port("MERMAID.MICRO.UMN.EDU(150)") == ("MERMAID.MICRO.UMN.EDU", 150)
    assert split_host_port("plain.host") == ("plain.host", None)


# -- the handler's URL checks (no I/O) ------------------------------------------------------------


def test_plan_shows_the_exact_lines() -> None:
    handler = ProsperoHandler(Config())
    url = parse("prospero://h.dom//pros/name;OBJECT-VERSION=3")
    assert handler.plan(url, FetchOptions()) == [
        "VERSION 5 anyurl",
        "AUTHENTICATE '' UNAUTHENTICATED anonymous",
        "GET-OBJECT-INFO #ALL ASCII '/pros/name' 3",
    ]


@pytest.mark.parametrize(
    "url",
    ["prospero://h/a%0Ab", "prospero://h/a%0Db", "prospero://h/a%00b",
     "prospero://h/x;OBJECT-VERSION=1%0A2"],
    ids=["lf", "cr", "nul", "lf-in-field"],
)
def test_line_breaks_from_the_url_are_refused_before_connecting(url: str) -> None:
    with pytest.raises(URLError):
        ProsperoHandler(Config()).plan(parse(url), FetchOptions())


def test_user_in_a_prospero_url_is_refused() -> None:
    with pytest.raises(URLError):
        ProsperoHandler(Config()).plan(parse("prospero://u:pw@h/x"), FetchOptions())


def test_unknown_fields_warn() -> None:
    warnings: list[str] = []
    handler = ProsperoHandler(Config(), warn=warnings.append)
    handler.plan(parse("prospero://h/x;COLOUR=blue"), FetchOptions())
    assert warnings and "COLOUR" in warnings[0]


# -- contents that span lines (issue 19.2) -------------------------------------------------


def test_contents_of_a_file_with_newlines_as_dirsrv_sends_it() -> None:
    """Prospero 5.3's dirsrv sends a file as one quoted token over several lines."""
    payload = b"ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE DATA nested' file\n'\n"
    info = collect(parse_reply(payload))
    assert contents_text(info) == "nested file\n"


@pytest.mark.parametrize(
    "text",
    ["nested file\n", "a\r\nb\r\n", "it's\n''\n", "\n\n", "plain", "", "x\ry",
     "ERROR can't\nWARNING x\n", "tab\there/slash"],
)
def test_qsprintf_token_round_trips_through_the_reply_reader(text: str) -> None:
    line = "ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE DATA " + qsprintf_token(text)
    payload = f"{line}\nSUCCESS done\n".encode()
    responses = parse_reply(payload)
    assert contents_text(collect(responses)) == text
    assert responses[-1] == parse_line("SUCCESS done")


def test_qsprintf_quotes_from_the_first_special_character() -> None:
    assert qsprintf_token("nested file\n") == "nested' file\n'"
    assert qsprintf_token("it's") == "it'''s'"
    assert qsprintf_token("plain") == "plain"
    assert qsprintf_token("") == "''"


def test_free_text_lines_open_no_quote() -> None:
    text = "FAILURE NOT-FOUND can't find it\nATTRIBUTE OBJECT FIELD OWNER bob\r\nSUCCESS\r"
    assert reply_lines(text) == [
        "FAILURE NOT-FOUND can't find it", "ATTRIBUTE OBJECT FIELD OWNER bob", "SUCCESS"]


def test_an_unterminated_quote_is_one_unknown_line() -> None:
    responses = parse_reply(b"ATTRIBUTE OBJECT FIELD X 'open\nmore\n")
    assert responses == [UnknownLine("ATTRIBUTE OBJECT FIELD X 'open\nmore\n")]
