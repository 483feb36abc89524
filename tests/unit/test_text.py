"""URLs in free text (RFC 1738 Appendix)."""

from __future__ import annotations

from collections.abc import Callable
from types import FrameType

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


# -- linear work (issue 29: a 600 KB Gopher menu took 55 s) -----------------------------------


def rendered_menu(items: int) -> str:
    """A Gopher menu as the gateway renders it: each line a wrapped URL (and, inside it,
    the bare match the finder must skip), some lines a bare URL of their own."""
    lines = []
    for i in range(items):
        lines.append(f"(TXT)  file {i} of the hole  <gopher://host.example/0/dir/file{i}.txt>")
        if i % 3 == 0:
            lines.append(f"       see also ftp://host.example/pub/file{i}.txt, or (x)).")
    return "\n".join(lines) + "\n"


def lines_run(text: str) -> int:
    """How many lines of anyurl.url.text run while finding the URLs of ``text``: the
    finder's work, counted without a clock (the parser's own lines are not counted)."""
    import sys

    import anyurl.url.text as module

    count = 0

    def tracer(frame: FrameType, event: str, arg: object) -> Callable[..., object] | None:
        nonlocal count
        if frame.f_code.co_filename != module.__file__:
            return None
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        find_urls(text)
    finally:
        sys.settrace(None)
    return count


def test_the_finders_work_grows_linearly_with_the_text() -> None:
    """Four times the menu is four times the work: each bare match used to be compared
    with every wrapped URL before it, sixteen times the work (structural, no timing)."""
    small, large = lines_run(rendered_menu(400)), lines_run(rendered_menu(1600))
    assert large < 4.5 * small, (small, large)


def test_a_trailing_run_of_parentheses_is_cut_to_the_urls_own() -> None:
    [found] = find_urls("(see http://h/(a)" + ")" * 50 + ".")
    assert found.url == "http://h/(a)"  # the URL's own parenthesis kept, the others cut


def test_a_600_kb_menu_finds_every_url_once() -> None:
    text = rendered_menu(7000)
    assert len(text) > 600_000
    found = find_urls(text)
    wrapped = [f.url for f in found if f.wrapped]
    bare = [f.url for f in found if not f.wrapped]
    assert wrapped == [f"gopher://host.example/0/dir/file{i}.txt" for i in range(7000)]
    assert bare == [f"ftp://host.example/pub/file{i}.txt" for i in range(0, 7000, 3)]
    assert [f.start for f in found] == sorted(f.start for f in found)
