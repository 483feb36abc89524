"""robots.txt: a file that refuses nothing spares the per-URL match (mirror.robots)."""

from __future__ import annotations

import subprocess
import sys
import urllib.robotparser

import pytest
from hypothesis import given
from hypothesis import strategies as st

from anyurl.mirror.robots import USER_AGENT, _rules_of, refuses_nothing


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


@pytest.mark.parametrize("text", ["", "\n", " \r\n\t\n"])
@pytest.mark.parametrize("path", ["/", "/a", "/b/c?q=1"])
def test_a_file_without_lines_is_read_as_the_parser_reads_it(text: str, path: str) -> None:
    """A site without robots.txt (a 4xx is read as "") gets the rules the standard
    parser makes of an empty file, without importing it (urllib.request, http.client and
    email come with it)."""
    parser = urllib.robotparser.RobotFileParser()
    parser.parse(text.splitlines())
    rules = _rules_of(text)
    assert not isinstance(rules, urllib.robotparser.RobotFileParser)
    assert rules.can_fetch(USER_AGENT, f"http://h{path}") \
        is parser.can_fetch(USER_AGENT, f"http://h{path}") is True
    assert rules.crawl_delay(USER_AGENT) is parser.crawl_delay(USER_AGENT) is None


def test_a_mirror_of_a_site_without_robots_txt_does_not_import_urllib_request() -> None:
    """Importing the crawl's robots module costs no parser (2.2 MiB of the peak)."""
    code = ("import sys, anyurl.mirror.robots as r; r._rules_of(''); "
            "print(sorted({'urllib.robotparser', 'urllib.request', 'http.client'} "
            "& set(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"
