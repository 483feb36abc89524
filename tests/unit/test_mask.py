"""``anyurl.mask`` keeps every part of URL text but the password, and a syntax error's
position refers to the text a message shows (issue 29)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anyurl import mask, parse
from anyurl.errors import URLSyntaxError
from anyurl.url.model import masked_position


@pytest.mark.parametrize(("text", "shown"), [
    pytest.param("http://u:pw@host/~a@b", "http://u:****@host/~a@b", id="at-in-path"),
    pytest.param("http://u:pw@exa mple/x@y", "http://u:****@exa mple/x@y",
                 id="unparsable-host-at-in-path"),
    pytest.param("http://u:p@ss@host/x", "http://u:****@host/x", id="at-in-password"),
    pytest.param("ftp://u:p/w@host/x", "ftp://u:****@host/x", id="slash-in-password"),
    pytest.param("http://u:p#w@host/", "http://u:****@host/", id="hash-in-password"),
    pytest.param("http://u:pw@host", "http://u:****@host", id="no-path"),
    pytest.param("http://u:pw@host:8080/p?q=a@b", "http://u:****@host:8080/p?q=a@b",
                 id="port-and-query"),
    pytest.param("http://host/a@b", "http://host/a@b", id="no-login"),
    # an '@' after "host:port/": "80/a" may be a password holding '/' (it is never shown)
    pytest.param("http://host:80/a@b", "http://host:****@b", id="port-or-password"),
    pytest.param("http://[::1]:8/a@b", "http://[::1]:8/a@b", id="ipv6"),
    pytest.param("ftp://user@host/a:b@c", "ftp://user@host/a:b@c", id="user-only"),
    pytest.param("mailto:a@b.example", "mailto:a@b.example", id="no-authority"),
])
def test_mask_keeps_every_part_but_the_password(text: str, shown: str) -> None:
    assert mask(text) == shown


LOGIN = st.text("abcXYZ019-._~", min_size=1, max_size=6)
PATH = st.text("abc019/@:~.-", max_size=10)


@settings(max_examples=200, deadline=None)
@given(user=LOGIN, password=LOGIN, host=st.sampled_from(["h.example", "127.0.0.1"]),
       path=PATH)
def test_mask_agrees_with_the_parser(user: str, password: str, host: str, path: str) -> None:
    """What the parser reads as the password is what is masked, and nothing else."""
    text = f"ftp://{user}:{password}@{host}/{path}"
    url = parse(text)
    assert url.password is not None
    assert mask(text) == f"ftp://{user}:****@{host}/{path}"


def test_an_error_s_position_is_in_the_shown_text() -> None:
    text = "http://u:pw@exa mple/x@y"
    with pytest.raises(URLSyntaxError) as caught:
        parse(text)
    assert text[caught.value.position] == " "
    assert mask(text)[masked_position(text, caught.value.position)] == " "


@pytest.mark.parametrize(("position", "shown"), [(3, 3), (9, 9), (10, 9), (11, 13), (15, 17)])
def test_masked_position(position: int, shown: int) -> None:
    # "http://u:pw@exa mple": the password "pw" is 9-10, "****" is 9-12
    assert masked_position("http://u:pw@exa mple", position) == shown


def test_masked_position_without_a_password() -> None:
    assert masked_position("http://exa mple/", 10) == 10
