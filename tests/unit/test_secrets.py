"""Passwords never printed, whatever they hold; server text never reaches a terminal raw."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from anyurl.cli.common import error_line, escape_controls
from anyurl.errors import AnyURLError
from anyurl.url import mask, parse


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("ftp://u:pa?ss@127.0.0.1:9999/x", id="question-mark"),
        pytest.param("ftp://u:pa#ss@127.0.0.1:9999/x", id="hash"),
        pytest.param("ftp://u:pa/ss@127.0.0.1:9999/x", id="slash"),
        pytest.param("http://u:p@ss@h/", id="at-sign"),
        pytest.param("ftp://u:pa?s/s#x@h/x@y", id="everything"),
        pytest.param("nntp://u:pa ss@h/g", id="space"),
    ],
)
def test_mask_hides_passwords_that_do_not_even_parse(text: str) -> None:
    secret = text.split(":", 2)[2].rsplit("@", 1)[0]
    assert secret not in mask(text)
    assert "****" in mask(text)


@given(st.text(alphabet=string.ascii_letters + string.digits + "?#/;:&=%+$-_.!*'(),~ ",
               min_size=4, max_size=20).filter(lambda s: "@" not in s))
def test_no_password_survives_masking(password: str) -> None:
    text = f"ftp://user:{password}@host.example/pub/file"
    shown = mask(text)
    assert password not in shown or password in "ftp://user:@host.example/pub/file"


def test_parsed_urls_are_masked_from_the_parse() -> None:
    url = parse("ftp://u:pa?ss@h/x")
    assert url.password == "pa?ss"
    assert "pa?ss" not in url.masked() and "pa?ss" not in mask(url)


def test_control_characters_are_escaped_in_printed_lines() -> None:
    assert escape_controls("a\x1b[31mred\x07\x9b\n") == "a\\x1b[31mred\\x07\\x9b\\x0a"
    assert escape_controls("plain é ünïcode") == "plain é ünïcode"
    line = error_line(AnyURLError("server said '\x1b]0;owned\x07'"))
    assert "\x1b" not in line and "\x07" not in line and "\\x1b" in line
