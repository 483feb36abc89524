"""Numbers on the wire are ASCII (docs/architecture.md, "Numbers"): every number field of
every core and parser, fed another script's digits, a sign, an underscore or a space,
gives its own clean error or no number, never ValueError or a number ``int()`` made up.

Each row of :data:`FIELDS` reads one field from a text and returns the number it took
(or None); the property runs every row over ASCII digits (the number must come back),
and over digits mixed with what ``int()`` or ``isdigit()`` also accept (it must not).
"""

from __future__ import annotations

import argparse
import urllib.robotparser
from collections.abc import Callable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from anyurl import parse
from anyurl.cli import numbers as cli_numbers
from anyurl.cli.scheme_options import byte_range
from anyurl.errors import AnyURLError, URLSyntaxError
from anyurl.mirror.robots import _ascii_numbers
from anyurl.numbers import ascii_decimal, ascii_int, byte_rate, byte_size, is_ascii_digits
from anyurl.protocols import ftp, nntp, prospero, wais
from anyurl.protocols.common import NEED_DATA, RemoteProtocolError
from anyurl.protocols.gopher import parse_menu_line
from anyurl.protocols.replies import Grammar, Reply, ReplyReader
from anyurl.schemes.http.handler import retry_after_seconds
from anyurl.schemes.http.http2 import response_head
from anyurl.schemes.http.interfaces import Response
from anyurl.schemes.http.pipeline import Malformed, ResponseReader, parse_head
from anyurl.schemes.mailto.handler import _parse_relay
from anyurl.schemes.news.target import _split_server
from anyurl.schemes.news.view import nntp_path
from anyurl.serve.replay import _cdxj_offset

#: What int() or str.isdigit() take that no protocol writes as a number.
NOT_ASCII = ["²", "٣", "１", "߀", "𝟗", "৪", "+", "-", "_", " ", "\t", "\u00a0", "\u2007"]
DIGITS = st.text("0123456789", min_size=1, max_size=4)
#: A text that looks numeric and holds at least one character that is not 0-9.
HOSTILE = st.builds(
    lambda head, bad, tail: head + bad + tail,
    st.text("0123456789", max_size=3), st.sampled_from(NOT_ASCII),
    st.text("0123456789" + "".join(NOT_ASCII), max_size=3),
)

#: A field's own errors: what its caller turns into a protocol or usage error.
CLEAN = (RemoteProtocolError, AnyURLError, argparse.ArgumentTypeError)


def _gopher_port(text: str) -> int | None:
    item = parse_menu_line(f"1Menu\t/sel\thost\t{text}".encode())
    return None if item.type == "i" else item.port


def _ftp_reply(text: str) -> int | None:
    reader = ReplyReader(Grammar.FREE_TEXT)
    reader.receive_data(f"{text} ok\r\n".encode())
    event = reader.next_event()
    return None if event is NEED_DATA else event.code  # type: ignore[union-attr]


def _nntp_code(text: str) -> int | None:
    client = nntp.NNTPClient()
    client.receive_data(f"{text} hello\r\n".encode())
    event = client.next_event()
    return event.code  # type: ignore[union-attr]


def _wais_length(text: str) -> int | None:
    conn = wais.WAISConnection()
    digits = text.encode()[:10].rjust(10, b"0")
    conn.receive_data(digits + b"z" + b"0" * (wais.HEADER_LENGTH - 11) + b"x" * 20)
    event = conn.next_event()
    return None if event is NEED_DATA else len(event.apdu)  # type: ignore[union-attr]


def _url_port(text: str) -> int | None:
    return parse(f"http://example.org:{text}/").port


def _url_octet(text: str) -> int | None:
    url = parse(f"http://{text}.1.2.3/")
    return int(url.host.split(".")[0]) if url.host and url.host[0].isdigit() else None


def _pipeline_status(text: str) -> int | None:
    return parse_head(f"HTTP/1.1 {text} OK\r\nContent-Length: 0".encode()).status


def _pipeline_length(text: str) -> int | None:
    reader = ResponseReader()
    head = parse_head(f"HTTP/1.1 200 OK\r\nContent-Length: {text}".encode())
    reader.start_body(head, "GET")
    return reader.left


def _robots(text: str) -> int | None:
    rules = urllib.robotparser.RobotFileParser()
    rules.parse(_ascii_numbers(f"User-agent: *\nCrawl-delay: {text}\nDisallow: /x\n"))
    delay = rules.crawl_delay("anyurl")
    return None if delay is None else int(delay)


def _arg(parse_type: Callable[[str], float]) -> Callable[[str], int | None]:
    return lambda text: int(parse_type(text))


def _first(pair: tuple[object, int | None] | None) -> int | None:
    return None if pair is None else pair[1]


def _list_size(text: str) -> int | None:
    """The size column of an ``ls -l`` line; a blank inside makes two columns, a line
    of another shape, so only one column is tried."""
    if len(text.split()) != 1:
        return None
    entries = ftp.parse_list(f"-rw-r--r-- 1 u g {text.strip()} Jan  1  2020 f\r\n".encode())
    return entries[0].size if entries else None


FIELDS: dict[str, Callable[[str], int | None]] = {
    "helper": ascii_int,
    "gopher-menu-port": _gopher_port,
    "ftp-reply-code": _ftp_reply,
    "ftp-size": lambda t: ftp.parse_213_size(Reply(213, (f"213 {t}",))),
    "ftp-mlsd-size": lambda t: ftp.fact_size(ftp.ListEntry("f", False, (("size", t),))),
    "ftp-mlsd-modify": lambda t: (None if ftp.fact_time(ftp.ListEntry(
        "f", False, (("modify", f"20240101000000.{t}"),))) is None else 0),
    "ftp-list-size": _list_size,
    "ftp-epsv": lambda t: ftp.parse_229(Reply(229, (f"229 Entering (|||{t}|)",))),
    "ftp-pasv": lambda t: ftp.parse_227(Reply(227, (f"227 Entering (1,2,3,4,{t},1)",)))[1],
    "nntp-code": _nntp_code,
    "nntp-group": lambda t: nntp.parse_group(
        nntp.Response(211, f"{t} 1 2 g", f"211 {t} 1 2 g")).count,
    "nntp-article": lambda t: nntp.parse_article_reply(
        nntp.Response(220, f"{t} <a@b>", f"220 {t} <a@b>")).number or None,
    "nntp-overview": lambda t: nntp.parse_overview_line(f"{t}\tsubject").number,
    "nntp-overview-bytes": lambda t: nntp.parse_overview_line(f"1\ts\tf\td\t<m>\t\t{t}").bytes,
    "nntp-active": lambda t: nntp.parse_active_line(f"g {t} 1 y").high,
    "wais-header": _wais_length,
    "prospero-host": lambda t: prospero.split_host_port(f"HOST({t})")[1],
    "url-port": _url_port,
    "url-host-octet": _url_octet,
    "url-nntp-article": lambda t: nntp_path(f"group/{t}").article,
    "http-pipeline-status": _pipeline_status,
    "http-pipeline-length": _pipeline_length,
    "http2-status": lambda t: response_head([(":status", t.rjust(3, "0"))]).status,
    "http-content-length": lambda t: Response(
        200, "OK", "1.1", [("content-length", t)]).content_length,
    "http-retry-after": lambda t: (None if (s := retry_after_seconds(t)) is None else int(s)),
    "news-server": lambda t: _split_server(f"news.example:{t}")[1],
    "mailto-relay": lambda t: _parse_relay(f"relay.example:{t}")[1],
    "robots-crawl-delay": _robots,
    "cdxj-offset": _cdxj_offset,
    "cli-range": lambda t: byte_range(f"{t}-")[0],  # type: ignore[index]
    "cli-count": _arg(cli_numbers.non_negative_int),
    "cli-seconds": _arg(cli_numbers.seconds),
    "cli-size": _arg(cli_numbers.parse_size),
    "cli-port": _arg(cli_numbers.listen_port),
}
#: Fields whose own error for a non-number is ValueError, caught by their one caller:
#: http2's stream reader and the news server setting (both say so in their docstrings),
#: the CDXJ reader (a line it skips) and ``-r`` (a usage error).
RAISES_VALUE_ERROR = {"http2-status", "news-server", "cdxj-offset", "cli-range"}


def _outcome(name: str, text: str) -> int | None:
    allowed = CLEAN + (Malformed,) + ((ValueError,) if name in RAISES_VALUE_ERROR else ())
    try:
        return FIELDS[name](text)
    except allowed:
        return None


@pytest.mark.parametrize("name", sorted(FIELDS))
@settings(max_examples=60, deadline=None)
@given(text=HOSTILE)
@example(text="²")
@example(text="2²0")
@example(text="٣")
@example(text="+5")
@example(text="5_0")
@example(text=" 5 ")
def test_a_number_field_takes_no_other_digits(name: str, text: str) -> None:
    number = _outcome(name, text)
    # Blank space around a field is its separator (as a protocol splits its line); the
    # token a number is taken from is ASCII digits, or no number is taken.
    token = (text.split() or [""])[0]
    assert number is None or is_ascii_digits(token), (name, text, number)


@pytest.mark.parametrize("name", sorted(FIELDS))
@settings(max_examples=30, deadline=None)
@given(text=DIGITS)
def test_a_number_field_reads_ascii_digits(name: str, text: str) -> None:
    """The other side: the field is not refusing everything (that too would pass above)."""
    if name == "url-host-octet" and int(text) > 255:
        text = "255"
    if name in ("url-port", "cli-port", "mailto-relay", "news-server") and int(text) == 0:
        text = "1"
    if name == "ftp-pasv":
        text = str(int(text) % 256)
    if name == "ftp-epsv" and int(text) == 0:
        text = "21"
    if name == "wais-header":
        text = str(int(text) % 20)
    if name in ("http2-status", "http-pipeline-status", "nntp-code") and len(text) != 3:
        text = text.rjust(3, "1")[:3]
    if name == "ftp-reply-code":
        text = text.rjust(3, "1")[:3].replace("0", "2", 1)
    if name == "nntp-group" or name == "nntp-article":
        text = str(int(text) or 1)
    number = _outcome(name, text)
    assert number is not None, (name, text)
    if name in ("ftp-mlsd-modify", "wais-header", "ftp-pasv"):
        return  # the field's number is not the text's: the parse took it, that is all
    assert number == int(text), (name, text, number)


# -- the helper itself -------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["0", "7", "65535", "007", b"42", bytearray(b"9")])
def test_ascii_int_reads_digits(text: str | bytes) -> None:
    assert ascii_int(text) == int(text)


@pytest.mark.parametrize("text", ["", "²", "٣", "１", "߀", "+5", "-5", " 5", "5 ", "5_0",
                                  "0x1", "1e3", b"", b"+1", b" 1", "\u00b2".encode()])
def test_ascii_int_refuses_the_rest(text: str | bytes) -> None:
    assert ascii_int(text) is None and not is_ascii_digits(text)


def test_ascii_int_bounds_the_length() -> None:
    assert ascii_int("12345", max_digits=5) == 12345
    assert ascii_int("123456", max_digits=5) is None
    assert ascii_int("1" * 10_000) is None  # past int()'s limit: no ValueError


@pytest.mark.parametrize(("text", "value"), [("1", 1.0), ("2.5", 2.5), ("0.01", 0.01),
                                             ("inf", None), ("nan", None), ("1e3", None),
                                             ("٣", None), ("-1", None), (".5", None),
                                             ("1" * 19, None)])
def test_ascii_decimal(text: str, value: float | None) -> None:
    assert ascii_decimal(text) == value


@pytest.mark.parametrize(("text", "size"), [("500", 500), ("2M", 2 * 1024**2),
                                            ("1.5k", 1536), ("1G", 1024**3), ("3mb", 3 << 20),
                                            ("٣M", None), ("2X", None), ("1" * 400, None),
                                            ("-1", None), ("inf", None)])
def test_byte_size(text: str, size: int | None) -> None:
    assert byte_size(text) == size


def test_byte_rate_is_above_zero() -> None:
    assert byte_rate("0") is None and byte_rate("1K") == 1024.0


def test_a_url_port_of_thousands_of_digits_is_a_syntax_error() -> None:
    with pytest.raises(URLSyntaxError, match="out of range"):
        parse("http://h:" + "1" * 5000 + "/")
    with pytest.raises(URLSyntaxError, match="not an octet"):
        parse("http://" + "1" * 5000 + ".1.1.1/")
