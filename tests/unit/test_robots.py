"""robots.txt: a file that refuses nothing spares the per-URL match (mirror.robots)."""

from __future__ import annotations

import urllib.robotparser

import pytest
from hypothesis import given
from hypothesis import strategies as st

from anyurl.mirror.robots import USER_AGENT, refuses_nothing


@pytest.mark.parametrize(("text", "expected"), [
    ("", True),
    ("User-agent: *\nDisallow:\n", True),
    ("User-agent: *\nAllow: /\n", True),
    ("User-agent: *\n# Disallow: /private\n", True),
    ("User-agent: *\nDisallow: /private\n", False),
    ("User-agent: other\nDisallow: /\n", False),  # kept to the parser: not ours to judge
    ("user-agent: *\nDISALLOW :/x # no\n", False),
    ("User-agent: *\nCrawl-delay: 2\n", True),
])
def test_refuses_nothing(text: str, expected: bool) -> None:
    assert refuses_nothing(text) is expected


LINES = st.sampled_from([
    "User-agent: *", "User-agent: anyurl", "User-agent: other", "Disallow:",
    "Disallow: /a", "Allow: /", "Allow: /a/b", "Crawl-delay: 1", "# Disallow: /", "",
    "Sitemap: http://h/s.xml", "disallow:/b",
])


@given(st.lists(LINES, max_size=8), st.sampled_from(["/", "/a", "/a/b", "/b/c?q=1", "/x"]))
def test_a_file_that_refuses_nothing_lets_the_parser_fetch_everything(
        lines: list[str], path: str) -> None:
    """The shortcut agrees with the parser it skips: where it says nothing is refused,
    ``can_fetch`` allows every path."""
    text = "\n".join(lines)
    if refuses_nothing(text):
        rules = urllib.robotparser.RobotFileParser()
        rules.parse(text.splitlines())
        assert rules.can_fetch(USER_AGENT, f"http://h{path}")
