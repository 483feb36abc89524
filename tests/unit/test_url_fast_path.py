"""The fast path of :func:`anyurl.url.parse` (plain http/https/ftp URLs) makes exactly
the URL the RFC 1738 parser makes, and leaves everything else to it."""

from __future__ import annotations

import random

import pytest

from anyurl.errors import URLSyntaxError
from anyurl.url import URL, parse
from anyurl.url.parse import _Parser, _plain


def _by_parser(text: str, strict: bool) -> URL | str:
    try:
        return _Parser(text, strict).parse()
    except URLSyntaxError as exc:
        return f"error: {exc}"


def _by_parse(text: str, strict: bool) -> URL | str:
    try:
        return parse(text, strict=strict)
    except URLSyntaxError as exc:
        return f"error: {exc}"


def _random_urls(n: int) -> list[str]:
    rng = random.Random(21)
    schemes = ["http", "https", "ftp", "HTTP", "gopher", "news", "file"]
    hosts = ["127.0.0.1", "example.org", "a-b.example", "h", "1.2.3", "256.1.1.1",
             "-bad.org", "x_y.org", "example.org.", "a..b", "9host", "host.9", "[::1]",
             "xn--bcher-kva.example", "bad-.org", "EXAMPLE.Org"]
    ports = ["", ":80", ":8080", ":0", ":65535", ":65536", ":99999", ":080", ":", ":x"]
    alphabet = "abcXYZ019-._/~%;?#@:=&+ "
    urls = []
    for _ in range(n):
        path = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))
        if rng.random() < 0.6:  # many of the plain shape
            path = "".join(rng.choice("abcXYZ019-._/") for _ in range(rng.randrange(0, 20)))
        sep = "/" if rng.random() < 0.9 else ""
        if rng.random() < 0.4:  # and of the plain scheme, host and port
            scheme, host = rng.choice(schemes[:3]), rng.choice(hosts[:3])
            port = rng.choice(ports[:3])
        else:
            scheme, host, port = rng.choice(schemes), rng.choice(hosts), rng.choice(ports)
        urls.append(f"{scheme}://{host}{port}{sep}{path}")
    return urls


@pytest.mark.parametrize("strict", [False, True])
def test_fast_path_equals_the_parser_over_many_urls(strict: bool) -> None:
    urls = _random_urls(6000)
    fast = 0
    for text in urls:
        expected = _by_parser(text, strict)
        got = _by_parse(text, strict)
        assert got == expected, text
        if isinstance(got, URL):
            assert type(got) is type(expected)
            assert str(got) == str(expected)
        if _plain(text, strict) is not None:
            fast += 1
    # The generator does reach the fast path, and not only it.
    assert 1000 < fast < len(urls)


@pytest.mark.parametrize("text", [
    "http://127.0.0.1:8080/bench/small/f00001",
    "https://example.org/",
    "ftp://ftp.example.org/pub/file-1.0.tar.gz",
    "http://example.org:65535/a//b/",
])
def test_plain_urls_take_the_fast_path(text: str) -> None:
    url = _plain(text, False)
    assert url is not None
    assert url == _Parser(text, False).parse()


@pytest.mark.parametrize("text", [
    "http://example.org",            # no path: the parser decides
    "http://example.org./x",         # the root's dot is dropped by the parser
    "http://example.org:65536/x",    # out of range: the parser names it
    "http://u:p@example.org/x",      # a login
    "ftp://h.example/x;type=a",      # a typecode
    "http://h.example/a%20b",        # an escape
    "http://h.example/a?b",          # a search part
    "http://h.example/a#b",          # a fragment
    "HTTP://h.example/a",            # a scheme to lower-case
    "<URL:http://h.example/a>",      # the Appendix's wrapper
    "http://-h.example/a",           # a host the parser refuses
])
def test_everything_else_goes_to_the_parser(text: str) -> None:
    assert _plain(text, False) is None


def test_a_urls_text_is_made_once_and_follows_its_copies() -> None:
    """``str(url)`` and ``masked()`` are made once per value (a mirror asks a file's URL
    for its text a dozen times); a copy with a field changed has its own text, and a
    pickled URL comes back equal with the same text."""
    import pickle

    url = parse("ftp://u:p%40ss@h.example:2121/a/b.txt")
    assert str(url) == "ftp://u:p%40ss@h.example:2121/a/b.txt"
    assert str(url) is str(url)
    assert url.masked() == "ftp://u:****@h.example:2121/a/b.txt"
    assert url.masked() is url.masked()
    other = url.replace(path="a/c.txt", password=None)
    assert str(other) == "ftp://u@h.example:2121/a/c.txt" == other.masked()
    assert str(url) == "ftp://u:p%40ss@h.example:2121/a/b.txt"
    back = pickle.loads(pickle.dumps(url))
    assert back == url and hash(back) == hash(url) and str(back) == str(url)
    assert repr(url) == "URL('ftp://u:****@h.example:2121/a/b.txt')"
