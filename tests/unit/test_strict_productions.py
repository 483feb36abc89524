"""Strict mode accepts in each part exactly what section 5's production for it allows.

Issue 29 found one part (a search) checked against a looser rule than its production.
This table holds each production of RFC 1738 section 5 once, as the set of character
classes of section 2.2 it allows, and feeds every character of every class into that
part of a URL that is otherwise valid: strict parsing must accept the character (and
read it as part of that very part) exactly when the production allows it, and when it
refuses, name the character's position (or, for a character that breaks the URL's
structure rather than the part's alphabet, a position no later than the character).

The sets are written here from the RFC's text, not imported from
:mod:`anyurl.url.charset`, so that a slip there cannot hide a slip in the parser.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from anyurl.errors import URLSyntaxError
from anyurl.schemes.ftp.view import split_ftp_path
from anyurl.schemes.gopher.view import split_gopher_path
from anyurl.url import URL, parse
from anyurl.url.charset import decode

# -- section 2.2 and 5: the character classes -------------------------------------------

LOWALPHA = "abcdefghijklmnopqrstuvwxyz"
ALPHA = frozenset(LOWALPHA + LOWALPHA.upper())
DIGIT = frozenset("0123456789")
SAFE = frozenset("$-_.+")
EXTRA = frozenset("!*'(),")
RESERVED = frozenset(";/?:@&=")
#: Stands for a well-formed ``escape = "%" hex hex`` in a production's set.
ESCAPE = "%hex hex"
UNRESERVED = ALPHA | DIGIT | SAFE | EXTRA
UCHAR = UNRESERVED | {ESCAPE}
XCHAR = UNRESERVED | RESERVED | {ESCAPE}

#: What is fed into each part: every member of each class of section 2.2 (and samples
#: of the classes too large to list), each a token of the URL's text.
CLASSES: dict[str, tuple[str, ...]] = {
    "alpha": tuple(sorted(ALPHA)),
    "digit": tuple(sorted(DIGIT)),
    "safe": tuple(sorted(SAFE)),
    "extra": tuple(sorted(EXTRA)),
    "national": tuple("{}|\\^~[]`"),
    "punctuation": tuple('<>#%"'),
    "reserved": tuple(";/?:@=&"),
    "escape": ("%41", "%7e", "%2F", "%3f", "%20"),
    "bad escape": ("%zz", "%4g", "%g1", "%%"),
    "unsafe": (" ",),  # with the national and punctuation characters above
    "controls": tuple(chr(c) for c in [*range(0x20), 0x7F] if chr(c) not in "\r\n"),
    # non-ASCII letters and digits that str.isalpha/isdigit/lower would let pass
    "non-ASCII": ("\u00e9", "\u4e2d", "\u0663", "\u00b2", "\uff41", "\uff11", "\u212a",
                  "\u0130", "\u00a0", "\x85", "\udcff"),
}


def token_class(token: str) -> str:
    """The member of a production's set that ``token`` stands for."""
    if len(token) == 3 and token[0] == "%" and all(c in "0123456789abcdefABCDEF"
                                                   for c in token[1:]):
        return ESCAPE
    return token


@dataclass(frozen=True)
class Production:
    """A part of a URL: section 5's production, where it sits, and how to read it back.

    ``template`` is a strictly valid URL with ``{}`` where the fed token goes (between
    ``before`` and ``after`` of the part under test); ``part`` reads that part back,
    raw, from the parsed URL; ``want`` is what it must read when the token was taken
    as part of it. ``structural`` lists the characters a refusal of which is a
    structural error, reported at the start of the structure they break.
    """

    name: str
    allowed: frozenset[str]
    template: str
    part: Callable[[URL], str | None]
    before: str = "a"
    after: str = "b"
    structural: str = ""
    decoded: bool = False
    #: The part is refused as a whole, its error naming where it starts (an nntp
    #: article that is no number: tests/unit/test_url_parse.py's nntp-article).
    whole: bool = False

    def want(self, piece: str) -> str:
        """What the part reads when ``piece`` was taken whole into it."""
        return decode(piece) if self.decoded else piece


def _path(url: URL) -> str:
    return url.path or ""


def _gopher(i: int) -> Callable[[URL], str | None]:
    return lambda url: split_gopher_path(url.path)[i]


def _wais_piece(i: int) -> Callable[[URL], str | None]:
    def read(url: URL) -> str | None:
        pieces = _path(url).split("?")[0].split("/", 2)
        return pieces[i] if len(pieces) > i else None
    return read


HOSTNAME = ALPHA | DIGIT | {"-", "."}  # a character inside a label: alphadigit | "-" (and ".")
GROUP = ALPHA | DIGIT | frozenset("-.+_")
LOGIN = UCHAR | frozenset(";?&=")  # user = password = *[ uchar | ";" | "?" | "&" | "=" ]
FSEGMENT = UCHAR | frozenset("?:@&=")
HSEGMENT = UCHAR | frozenset(";:@&=")
SEARCH = UCHAR | frozenset(";:@&=")
ARTICLE = UCHAR | frozenset(";/?:&=")
FIELD = UCHAR | frozenset("?:@&")

PRODUCTIONS = [
    Production("user", LOGIN, "ftp://{}@h.example/f", lambda u: u.user, decoded=True,
               structural="/"),
    Production("password", LOGIN, "ftp://u:{}@h.example/f", lambda u: u.password,
               decoded=True, structural="/"),
    Production("hostname", HOSTNAME, "ftp://{}.example/f",
               lambda u: (u.host or "").removesuffix(".example"), structural=":"),
    Production("hostnumber", DIGIT, "ftp://10.0.0.{}/f",
               lambda u: (u.host or "").removeprefix("10.0.0."), before="1", after="2",
               structural="".join(sorted(ALPHA)) + ".-@"),
    Production("port", DIGIT, "http://h.example:{}/", lambda u: str(u.port), before="8",
               after="0", structural="@"),
    Production("ftp fsegment (name)", FSEGMENT, "ftp://h.example/d/{}",
               lambda u: split_ftp_path(u.path)[0].split("/")[-1]),
    Production("ftp fsegment (cwd)", FSEGMENT, "ftp://h.example/{}/f",
               lambda u: split_ftp_path(u.path)[0].split("/")[0]),
    Production("ftptype", frozenset("AIDaid"), "ftp://h.example/f;type={}",
               lambda u: _path(u).rpartition(";type=")[2], before="", after="",
               structural=";/"),
    Production("http hsegment", HSEGMENT, "http://h.example/d/{}?q",
               lambda u: _path(u).partition("?")[0].split("/")[-1], structural="?"),
    Production("http search", SEARCH, "http://h.example/p?{}",
               lambda u: _path(u).partition("?")[2]),
    Production("gopher gtype", XCHAR, "gopher://h.example/{}sel", _gopher(0),
               before="", after=""),
    Production("gopher selector", XCHAR, "gopher://h.example/0{}%09q", _gopher(1)),
    Production("gopher search", SEARCH, "gopher://h.example/7sel%09{}", _gopher(2)),
    Production("gopher+_string", XCHAR, "gopher://h.example/7sel%09q%09{}", _gopher(3)),
    Production("mailto encoded822addr", XCHAR, "mailto:{}@h.example",
               lambda u: (u.opaque or "").rpartition("@")[0] or u.opaque),
    Production("news group", GROUP, "news:{}",
               lambda u: None if "@" in (u.opaque or "") else u.opaque),
    Production("news group (first character)", ALPHA, "news:{}", before="",
               part=lambda u: None if "@" in (u.opaque or "") else u.opaque),
    Production("news article", ARTICLE, "news:{}@h.example",
               lambda u: (u.opaque or "").rpartition("@")[0]),
    Production("nntp group", GROUP, "nntp://h.example/{}/1",
               lambda u: _path(u).partition("/")[0], structural="/"),
    Production("nntp digits", DIGIT, "nntp://h.example/grp/{}",
               lambda u: _path(u).partition("/")[2], before="1", after="2", whole=True),
    Production("telnet (nothing after '/')", frozenset(), "telnet://h.example/{}",
               lambda u: u.path, before="", after=""),
    Production("wais database", UCHAR, "wais://h.example/{}", _wais_piece(0),
               structural="/"),
    Production("wais wtype", UCHAR, "wais://h.example/db/{}/doc", _wais_piece(1),
               structural="/?"),
    Production("wais wpath", UCHAR, "wais://h.example/db/TEXT/{}", _wais_piece(2),
               structural="/?"),
    Production("wais search", SEARCH, "wais://h.example/db?{}",
               lambda u: _path(u).partition("?")[2]),
    Production("file fsegment", FSEGMENT, "file://localhost/d/{}",
               lambda u: _path(u).split("/")[-1]),
    Production("prospero psegment", FSEGMENT, "prospero://h.example/d/{}",
               lambda u: _path(u).partition(";")[0].split("/")[-1], structural=";"),
    Production("prospero fieldname", FIELD, "prospero://h.example/p;{}=v",
               lambda u: _path(u).split(";")[1].partition("=")[0],
               structural=";="),
    Production("prospero fieldvalue", FIELD, "prospero://h.example/p;n={}",
               lambda u: _path(u).split(";")[1].partition("=")[2], structural=";"),
]


def outcome(prod: Production, token: str) -> tuple[bool, str]:
    """Whether strict mode took ``token`` into the part, and what to say if wrong."""
    piece = prod.before + token + prod.after
    text = prod.template.format(piece)
    part_start = prod.template.index("{}")
    at = part_start + len(prod.before)
    try:
        url = parse(text, strict=True)
    except URLSyntaxError as err:
        if err.position == at or (prod.whole and err.position == part_start):
            return False, ""
        # a structural refusal names where the structure broke: inside the scheme part,
        # never past the piece fed ('#' ends the URL proper, so it is structural too)
        structural = token[0] in prod.structural + "#"
        if structural and text.index(":") < err.position <= part_start + len(piece):
            return False, ""
        return False, f"{text!r}: refused at {err.position} ({err.problem}), not {at}"
    return prod.part(url) == prod.want(piece), ""


@pytest.mark.parametrize("prod", PRODUCTIONS, ids=[p.name for p in PRODUCTIONS])
def test_strict_accepts_exactly_the_production(prod: Production) -> None:
    wrong = []
    for cls, tokens in CLASSES.items():
        for token in tokens:
            taken, position_problem = outcome(prod, token)
            if position_problem:
                wrong.append(f"[{cls}] {position_problem}")
            expected = token_class(token) in prod.allowed
            if taken != expected:
                verb = "accepts" if taken else "refuses"
                wrong.append(f"[{cls}] strict {verb} {token!r} in {prod.name}")
    assert wrong == []


def test_the_table_feeds_every_class_of_section_2_2() -> None:
    """Each class reaches the test (a class left empty would make its cases vacuous)."""
    assert all(CLASSES.values())
    fed = {token_class(t) for tokens in CLASSES.values() for t in tokens}
    assert ALPHA | DIGIT | SAFE | EXTRA | RESERVED | {ESCAPE} <= fed


def test_a_part_that_takes_everything_would_fail() -> None:
    """The check can fail: a production that allowed nothing disagrees with ftp's name."""
    loose = Production("ftp name, wrongly empty", frozenset(), "ftp://h.example/d/{}",
                       lambda u: split_ftp_path(u.path)[0].split("/")[-1])
    assert outcome(loose, "x") == (True, "")
    assert outcome(loose, " ")[0] is False


@pytest.mark.parametrize(("text", "written", "words"), [
    ("gopher://h/7sel%09a/b?c%09x/y?", "gopher://h/7sel%09a%2Fb%3Fc%09x/y?", "a/b?c"),
    ("wais://h/db?a/b?c", "wais://h/db?a%2Fb%3Fc", "a/b?c"),
    ("gopher://h/7s/e?l", "gopher://h/7s/e?l", None),  # a selector is *xchar: kept
    ("http://h/p?a/b?c", "http://h/p?a/b?c", "a/b?c"),  # sent still encoded: as written
])
def test_lenient_writes_a_search_strict_mode_accepts(text: str, written: str,
                                                     words: str | None) -> None:
    """Lenient mode stays lenient, and its output reads the same in strict mode.

    A gopher or wais search reaches the server decoded, so its ``/`` and ``?`` are
    written ``%2F`` and ``%3F`` (the same words); an http search is sent as written,
    so lenient mode may not touch it (and strict mode refuses what it holds).
    """
    url = parse(text)
    assert str(url) == written
    assert url.parts.search == words  # type: ignore[union-attr]
    if url.scheme == "http":
        with pytest.raises(URLSyntaxError):
            parse(written, strict=True)
    else:
        assert parse(written, strict=True) == url
