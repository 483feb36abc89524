"""The parser against RFC 1738's own examples and section 5's BNF, case by case."""

from __future__ import annotations

from typing import Any

import pytest

from anyurl.errors import URLSyntaxError
from anyurl.url import URL, mask, parse, unwrap

# (text, expected subset of URL.to_json()) — every example URL the RFC gives is here.
RFC_EXAMPLES = [
    pytest.param(
        "ftp://myname@host.dom/%2Fetc/motd",
        {"user": "myname", "password": None, "host": "host.dom", "port": 21,
         "path": "%2Fetc/motd",
         "parts": {"cwd": ["/etc"], "name": "motd", "typecode": None}},
        id="rfc-3.2.2-cwd-absolute",
    ),
    pytest.param(
        "ftp://myname@host.dom/etc/motd",
        {"parts": {"cwd": ["etc"], "name": "motd", "typecode": None}},
        id="rfc-3.2.2-cwd-relative",
    ),
    pytest.param(
        "ftp://myname@host.dom//etc/motd",
        {"path": "/etc/motd", "parts": {"cwd": ["", "etc"], "name": "motd", "typecode": None}},
        id="rfc-3.2.2-cwd-null-then-etc",
    ),
    pytest.param("ftp://@host.com/", {"user": "", "password": None, "host": "host.com"},
                 id="rfc-3.1-empty-user"),
    pytest.param("ftp://host.com/", {"user": None, "password": None}, id="rfc-3.1-no-user"),
    pytest.param("ftp://foo:@host.com/", {"user": "foo", "password": ""},
                 id="rfc-3.1-empty-password"),
    pytest.param(
        "<URL:ftp://info.cern.ch/pub/www/doc;\n      type=d>",
        {"url": "ftp://info.cern.ch/pub/www/doc;type=d",
         "parts": {"cwd": ["pub", "www"], "name": "doc", "typecode": "d"}},
        id="rfc-appendix-wrapped-typecode",
    ),
    pytest.param(
        "<URL:ftp://ds.in\n  ternic.net/rfc>",
        {"url": "ftp://ds.internic.net/rfc", "host": "ds.internic.net"},
        id="rfc-appendix-folded-host",
    ),
    pytest.param(
        "<URL:http://ds.internic.\n  net/instructions/overview.html#WARNING>",
        {"url": "http://ds.internic.net/instructions/overview.html#WARNING",
         "fragment": "WARNING",
         "parts": {"hpath": "instructions/overview.html", "search": None}},
        id="rfc-appendix-fragment",
    ),
    pytest.param(
        "<URL:ftp://ds.internic.net/rfc/rfc1436.txt;type=a>",
        {"parts": {"cwd": ["rfc"], "name": "rfc1436.txt", "typecode": "a"}},
        id="rfc-references-typecode-a",
    ),
    pytest.param(
        "<URL:ftp://boombox.micro.umn.edu/pub/gopher/gopher_protocol\n"
        "/Gopher+/Gopher+.txt>",
        {"parts": {"cwd": ["pub", "gopher", "gopher_protocol", "Gopher+"],
                   "name": "Gopher+.txt", "typecode": None}},
        id="rfc-references-folded-path",
    ),
    pytest.param(
        "<URL:ftp://info.cern.ch/pub/www/doc/http-spec.txt.Z>",
        {"parts": {"cwd": ["pub", "www", "doc"], "name": "http-spec.txt.Z",
                   "typecode": None}},
        id="rfc-references-http-spec",
    ),
    pytest.param(
        "<URL:ftp://ds.internic.net/internet-drafts\n/draft-ietf-uri-irl-fun-req-02.txt>",
        {"parts": {"cwd": ["internet-drafts"], "name": "draft-ietf-uri-irl-fun-req-02.txt",
                   "typecode": None}},
        id="rfc-references-draft",
    ),
    pytest.param(
        "<URL:ftp://prospero.isi.edu/pub/prospero/doc\n/prospero-protocol.PS.Z>",
        {"url": "ftp://prospero.isi.edu/pub/prospero/doc/prospero-protocol.PS.Z"},
        id="rfc-references-prospero-doc",
    ),
    pytest.param("<URL:ftp://uu.psi.com/wp/nir.txt>", {"host": "uu.psi.com"},
                 id="rfc-references-nir"),
    pytest.param(
        "file://vms.host.edu/disk$user/my/notes/note12345.txt",
        {"host": "vms.host.edu", "port": None,
         "parts": {"path": "/disk$user/my/notes/note12345.txt"}},
        id="rfc-3.10-vms",
    ),
    pytest.param("news:*", {"host": None, "port": None, "path": None,
                            "parts": {"group": "*", "message_id": None}}, id="rfc-3.6-all"),
    pytest.param(
        "news:comp.infosystems.www.misc",
        {"parts": {"group": "comp.infosystems.www.misc", "message_id": None}},
        id="rfc-3.6-group",
    ),
    pytest.param(
        "prospero://host.dom//pros/name",
        {"port": 1525, "parts": {"hsoname": "/pros/name", "fields": []}},
        id="rfc-3.11-hsoname",
    ),
    pytest.param(
        "gopher://gopher.example.org/1application/postscript%09%09"
        "+application/postscript%20Es_ES",
        {"parts": {"gophertype": "1", "selector": "application/postscript", "search": "",
                   "gopher_plus": "+application/postscript Es_ES"}},
        id="rfc-3.4.8-view",
    ),
    pytest.param(
        "gopher://h/0sel%09%09!+ABSTRACT%20+SMELL",
        {"parts": {"gophertype": "0", "selector": "sel", "search": "",
                   "gopher_plus": "!+ABSTRACT +SMELL"}},
        id="rfc-3.4.7-attributes",
    ),
    pytest.param(
        "gopher://h/0sel%09%09+%091%0D%0A+-1%0D%0Avalue1%0D%0Avalue2%0D%0A.%0D%0A",
        {"parts": {"gophertype": "0", "selector": "sel", "search": "",
                   "gopher_plus": "+\t1\r\n+-1\r\nvalue1\r\nvalue2\r\n.\r\n"}},
        id="rfc-3.4.9-ask-block",
    ),
]


@pytest.mark.parametrize(("text", "expected"), RFC_EXAMPLES)
def test_rfc_examples(text: str, expected: dict[str, Any]) -> None:
    data = parse(text).to_json()
    for key, value in expected.items():
        assert data[key] == value, key


@pytest.mark.parametrize(("text", "expected"), RFC_EXAMPLES)
def test_rfc_examples_are_strictly_valid(text: str, expected: dict[str, Any]) -> None:
    assert parse(text, strict=True) == parse(text)


SCHEMES = [
    pytest.param("ftp://h/a/b;type=I", {"typecode": "i", "cwd": ["a"], "name": "b"},
                 id="ftp-typecode-uppercase"),
    pytest.param("ftp://h/a%2Fb/c", {"cwd": ["a/b"], "name": "c"}, id="ftp-encoded-slash"),
    pytest.param("ftp://h/a//b/", {"cwd": ["a", "", "b"], "name": ""},
                 id="ftp-empty-segments-kept"),
    pytest.param("ftp://h", {"cwd": [], "name": "", "typecode": None}, id="ftp-no-path"),
    pytest.param("ftp://h/with%20space%3Bsemi.txt", {"name": "with space;semi.txt"},
                 id="ftp-space-and-semicolon"),
    pytest.param("http://h/p/q?x=1&y=2", {"hpath": "p/q", "search": "x=1&y=2"},
                 id="http-search"),
    pytest.param("http://h", {"hpath": None, "search": None}, id="http-no-path"),
    pytest.param("http://h/?", {"hpath": "", "search": ""}, id="http-empty-search"),
    pytest.param("gopher://h", {"gophertype": "1", "selector": "", "search": None,
                                "gopher_plus": None}, id="gopher-empty-path"),
    pytest.param("gopher://h/", {"gophertype": "1", "selector": ""}, id="gopher-slash-only"),
    pytest.param("gopher://h/00/file", {"gophertype": "0", "selector": "0/file"},
                 id="gopher-type-repeated-in-selector"),
    pytest.param("gopher://h/7search%09rfc%201738",
                 {"gophertype": "7", "selector": "search", "search": "rfc 1738",
                  "gopher_plus": None}, id="gopher-search"),
    pytest.param("gopher://h/1sel%09%09$", {"search": "", "gopher_plus": "$"},
                 id="gopher-plus-dollar"),
    pytest.param("mailto:user%25host@example.org", {"address": "user%host@example.org"},
                 id="mailto-percent"),
    pytest.param("news:1234@news.example.org",
                 {"group": None, "message_id": "1234@news.example.org"}, id="news-message-id"),
    pytest.param("nntp://h/alt.test/12", {"group": "alt.test", "article": 12},
                 id="nntp-article"),
    pytest.param("nntp://h/alt.test", {"group": "alt.test", "article": None},
                 id="nntp-group"),
    pytest.param("telnet://user:pw@h:2323/", {}, id="telnet"),
    pytest.param("wais://h/db", {"database": "db", "search": None, "wtype": None,
                                 "wpath": None}, id="wais-database"),
    pytest.param("wais://h/db?some%20words", {"database": "db", "search": "some words"},
                 id="wais-index"),
    pytest.param("wais://h/db/TEXT/0%202%20%2Fx", {"database": "db", "wtype": "TEXT",
                                                 "wpath": "0 2 /x"}, id="wais-doc"),
    pytest.param("file:///etc/motd", {"path": "/etc/motd"}, id="file-empty-host"),
    pytest.param("file://localhost/etc/motd", {"path": "/etc/motd"}, id="file-localhost"),
    pytest.param("prospero://h/a/b;OBJECT-VERSION=3;x=y",
                 {"hsoname": "a/b", "fields": [["OBJECT-VERSION", "3"], ["x", "y"]]},
                 id="prospero-fields"),
    pytest.param("x-foo:bar/baz?q", {"schemepart": "bar/baz?q"}, id="generic-opaque"),
    pytest.param("x-foo://u@h:9/p", {"schemepart": "//u@h:9/p"}, id="generic-ip"),
]


@pytest.mark.parametrize(("text", "parts"), SCHEMES)
def test_scheme_views(text: str, parts: dict[str, Any]) -> None:
    data = parse(text).to_json()["parts"]
    for key, value in parts.items():
        assert data[key] == value, key


def test_file_host_and_port_fields() -> None:
    data = parse("file:///etc/motd").to_json()
    assert (data["host"], data["port"], data["path"]) == ("", None, "etc/motd")


def test_generic_ip_fields() -> None:
    data = parse("x-foo://u:p@h:9/p").to_json()
    assert (data["user"], data["password"], data["host"], data["port"]) == ("u", "p", "h", 9)


@pytest.mark.parametrize(
    ("scheme", "port"),
    [("ftp", 21), ("http", 80), ("gopher", 70), ("nntp", 119), ("telnet", 23),
     ("wais", 210), ("prospero", 1525)],
)
def test_default_ports(scheme: str, port: int) -> None:
    path = "" if scheme == "telnet" else "x"  # nothing may follow a telnet URL's "/"
    assert parse(f"{scheme}://h/{path}").to_json()["port"] == port
    assert parse(f"{scheme}://h:8/{path}").to_json()["port"] == 8


def test_scheme_is_case_insensitive() -> None:
    assert parse("FTP://h/x") == parse("ftp://h/x")
    assert str(parse("HtTp://h/")) == "http://h/"


def test_fragment_kept_apart() -> None:
    url = parse("http://h/a#frag")
    assert url.fragment == "frag"
    assert url.path == "a"
    assert str(url.without_fragment()) == "http://h/a"


def test_encoded_slash_stays_in_its_segment_and_round_trips() -> None:
    url = parse("ftp://h/a%2Fb/c")
    assert str(url) == "ftp://h/a%2Fb/c"


def test_lenient_escapes_unsafe_characters() -> None:
    url = parse("http://h/~user/a b.html")
    assert str(url) == "http://h/%7Euser/a%20b.html"
    assert parse(str(url), strict=True) == url


def test_lenient_escapes_semicolon_in_ftp_name() -> None:
    url = parse("ftp://h/pub/semi;colon.txt")
    assert str(url) == "ftp://h/pub/semi%3Bcolon.txt"
    assert url.parts.to_json()["name"] == "semi;colon.txt"


def test_lenient_bad_escape_becomes_percent_25() -> None:
    assert str(parse("ftp://h/100%")) == "ftp://h/100%25"


def test_lenient_non_ascii_is_utf8_escaped() -> None:
    assert str(parse("http://h/caf\u00e9")) == "http://h/caf%C3%A9"


def test_non_utf8_octets_survive_to_the_wire() -> None:
    from anyurl.url import encode_wire

    url = parse("ftp://h/caf%E9")
    name = url.parts.name  # type: ignore[union-attr]
    assert encode_wire(name) == b"caf\xe9"
    assert url.to_json()["parts"]["name"] == "caf\u00e9"


ERRORS = [
    # (text, strict, problem substring, position)
    pytest.param("", False, "empty URL", 0, id="empty"),
    pytest.param("no-colon-here", False, "missing scheme", 0, id="no-scheme"),
    pytest.param("://host/", False, "missing scheme", 0, id="empty-scheme"),
    pytest.param("ht tp://h/", False, "scheme", 2, id="space-in-scheme"),
    pytest.param("ftp:host/x", False, "expected '//'", 4, id="ftp-without-slashes"),
    pytest.param("ftp:///x", False, "missing host", 6, id="ftp-empty-host"),
    pytest.param("ftp://h:99999/", False, "out of range", 8, id="port-range"),
    pytest.param("ftp://h:2x/", False, "decimal digits", 9, id="port-digits"),
    pytest.param("ftp://h:0/", False, "out of range", 8, id="port-zero"),
    pytest.param("ftp://a..b/", False, "empty label", 8, id="host-empty-label"),
    pytest.param("ftp://ho$t/", False, "'$' is not allowed in a host name", 8,
                 id="host-bad-char"),
    pytest.param("ftp://h/x;type=q", False, "typecode", 15, id="ftp-bad-typecode"),
    pytest.param("ftp://h/a%0D%0ADELE%20x", False, "(%0D) in the ftp path", 9,
                 id="ftp-crlf-path"),
    pytest.param("ftp://u%0Ax:p@h/", False, "(%0A) in the user name or password", 7,
                 id="ftp-crlf-user"),
    pytest.param("gopher://h/1sel%0D%0Ax", False, "(%0D) in the gopher type", 15,
                 id="gopher-crlf"),
    pytest.param("nntp://h/alt.test/12x", False, "decimal number", 18, id="nntp-article"),
    pytest.param("mailto:", False, "needs an address", 7, id="mailto-empty"),
    pytest.param("news:", False, "news URL needs", 5, id="news-empty"),
    pytest.param("news:1bad", False, "newsgroup", 5, id="news-bad-group"),
    # strict only
    pytest.param("http://h/~u", True, "'~' must be %-escaped", 9, id="strict-tilde"),
    pytest.param("http://h/a b", True, "a space must be %-escaped", 10, id="strict-space"),
    pytest.param("http://u:p@h/", True, "http URLs have no user", 7, id="strict-http-login"),
    pytest.param("ftp://h/a;b", True, "';' must be %-escaped", 9, id="strict-ftp-semicolon"),
    pytest.param("ftp://h/100%", True, "'%' not followed", 11, id="strict-bad-escape"),
    pytest.param("ftp://h_1/", True, "'_' is not allowed", 7, id="strict-underscore-host"),
    pytest.param("ftp://1.2.3/", True, "four decimal groups", 6, id="strict-hostnumber"),
    pytest.param("ftp://256.1.1.1/", True, "not an octet", 6, id="strict-octet"),
    pytest.param("ftp://h.9x/", True, "last label", 8, id="strict-toplabel-digit"),
    pytest.param("ftp://h:/", True, "empty port", 8, id="strict-empty-port"),
    pytest.param("file:/etc/motd", True, "expected '//'", 5, id="strict-file-one-slash"),
    pytest.param("telnet://h/x", True, "nothing after", 11, id="strict-telnet-path"),
    pytest.param("x-a:b c", True, "a space", 5, id="strict-generic-space"),
    pytest.param("wais://h/a/b", True, "wais URL is", 9, id="strict-wais-two-parts"),
    pytest.param("prospero://h/a;b", True, "without '='", 15, id="strict-prospero-field"),
    pytest.param("http://h/\u00e9", True, "non-ASCII", 9, id="strict-8bit"),
]


@pytest.mark.parametrize(("text", "strict", "problem", "position"), ERRORS)
def test_errors_name_problem_and_position(
    text: str, strict: bool, problem: str, position: int
) -> None:
    with pytest.raises(URLSyntaxError) as info:
        parse(text, strict=strict)
    assert problem in info.value.problem
    assert info.value.position == position
    assert info.value.exit_code == 3


def test_error_position_counts_in_the_input_with_wrapper() -> None:
    with pytest.raises(URLSyntaxError) as info:
        parse("  <URL:ftp://h:9x/>")
    assert info.value.position == 16


def test_lenient_accepts_what_strict_refuses() -> None:
    for text in ("http://h/~u", "http://h/a b", "ftp://h/a;b", "file:/etc/motd", "ftp://h_1/"):
        parse(text)


def test_unwrap() -> None:
    assert unwrap("<URL:ftp://h/a-\n  b>") == "ftp://h/a-b"
    assert unwrap("<http://h/>") == "http://h/"
    assert unwrap("URL:http://h/") == "http://h/"


def test_password_masked() -> None:
    url = parse("ftp://user:secret@h/x")
    assert "secret" not in url.masked()
    assert "secret" not in repr(url)
    assert url.masked() == "ftp://user:****@h/x"
    assert mask("ftp://user:secret@h/x") == "ftp://user:****@h/x"
    assert mask("not a url") == "not a url"


def test_url_is_immutable_and_hashable() -> None:
    url = parse("ftp://h/x")
    with pytest.raises(AttributeError):
        url.host = "other"  # type: ignore[misc]
    assert {url: 1}[parse("ftp://h/x")] == 1
    assert isinstance(url, URL)


def test_news_message_id_starting_with_slashes_is_not_a_host() -> None:
    # schemepart = *xchar | ip-schemepart: "//0/@a" is no login and host, but it is an
    # article of section 5's BNF; news://host/group (a later form) still works.
    assert parse("news://0/@a").parts == parse("news://0/@a", strict=True).parts
    assert parse("news://0/@a").to_json()["parts"]["message_id"] == "//0/@a"
    assert parse("news://news.example.org/comp.lang").to_json()["parts"]["group"] == "comp.lang"


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize(
    "text",
    ["http://h/\ud800", "ftp://u\ud800:p@h/x", "mailto:\udfff", "x-y://h:\ud800/",
     "gopher://h/1\udbff"],
)
def test_a_lone_surrogate_is_a_syntax_error_not_a_crash(text: str, strict: bool) -> None:
    with pytest.raises(URLSyntaxError, match="lone surrogate"):
        parse(text, strict=strict)


@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict"])
@pytest.mark.parametrize(
    ("text", "words", "position"),
    [
        pytest.param("http://-bad.org/", "start and end", 7, id="label-starts-with-dash"),
        pytest.param("http://bad-.org/", "start and end", 10, id="label-ends-with-dash"),
        pytest.param("http://host.9org/", "last label", 12, id="top-label-digit"),
        pytest.param("file://h:21/etc", "no port", 8, id="file-port"),
        pytest.param("file://h", "'/' after the host", 8, id="file-no-slash"),
        pytest.param("news:comp.lang~x", "newsgroup", 14, id="news-group-tilde"),
        pytest.param("news:9group", "newsgroup", 5, id="news-group-digit"),
        pytest.param("nntp://h", "newsgroup", 8, id="nntp-no-group"),
        pytest.param("nntp://h/", "newsgroup", 9, id="nntp-empty-group"),
        pytest.param("nntp://h/a~b/1", "newsgroup", 10, id="nntp-group-tilde"),
        pytest.param("telnet://h/x", "nothing after", 11, id="telnet-path"),
        pytest.param("wais://h/db/TEXT", "wais URL is", 9, id="wais-two-parts"),
        pytest.param("wais://h/db/T/x?s", "search follows", 11, id="wais-doc-and-search"),
        pytest.param("prospero://h/p;novalue", "without '='", 15, id="prospero-field"),
        pytest.param("URL:URL:x:y", "prefix", 4, id="url-prefix-twice"),
        pytest.param("news:id@", "host after '@'", 8, id="message-id-no-host"),
    ],
)
def test_structural_errors_are_refused_in_both_modes(
    text: str, words: str, position: int, strict: bool
) -> None:
    with pytest.raises(URLSyntaxError) as info:
        parse(text, strict=strict)
    assert words in info.value.problem
    assert info.value.position == position


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("ftp://y/\n7", "ftp://y/7", id="lf-in-path"),
        pytest.param("ftp://y/a\r\nb;type=a", "ftp://y/ab;type=a", id="crlf-in-path"),
        pytest.param("http://ex\nample.org/", "http://example.org/", id="lf-in-host"),
        pytest.param("http://example.org./x", "http://example.org/x", id="root-dot"),
        pytest.param("wais://h/db/TEXT/105/x", "wais://h/db/TEXT/105/x", id="wais-cern-length"),
    ],
)
def test_line_breaks_are_removed_and_slips_normalised(text: str, expected: str) -> None:
    url = parse(text)
    assert str(url) == expected
    assert parse(str(url)) == url
