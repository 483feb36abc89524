"""URLs in free text (RFC 1738 Appendix)."""

from __future__ import annotations

from anyurl.url.text import find_urls


def test_wrapped_url_with_hyphen_at_line_break_keeps_hyphen_and_offers_alternative() -> None:
    [found] = find_urls("see <URL:http://h.org/long-\n   name.html> now")
    assert found.url == "http://h.org/long-name.html"
    assert found.alternatives == ("http://h.org/longname.html",)
    assert found.wrapped


def test_bare_urls_lose_sentence_punctuation() -> None:
    urls = [f.url for f in find_urls("Try ftp://h/a.txt, or (http://h/b). Done: news:*.")]
    assert urls == ["ftp://h/a.txt", "http://h/b", "news:*"]


def test_angle_brackets_without_url_prefix() -> None:
    assert [f.url for f in find_urls("at <gopher://h/00/x> and <not a url>")] == [
        "gopher://h/00/x"
    ]


def test_positions_point_into_the_text() -> None:
    text = "a <URL:ftp://h/x> b"
    [found] = find_urls(text)
    assert text[found.start : found.end] == "<URL:ftp://h/x>"
