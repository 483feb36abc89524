"""URLs in free text: the Appendix of RFC 1738.

In mail, news and print a URL is best written inside ``<URL:...>`` (or at least
``<...>``); inside the wrapper, whitespace and line breaks were added only to fold a
long URL and are removed. A line break right after a hyphen is ambiguous, since a
typesetter may have added the hyphen: the URL keeps it, and ``FoundURL.alternatives``
offers the reading without it. Bare URLs of the known schemes (the registry's: built-in
and plug-in) are found too, less the punctuation that ends a sentence.

The work is linear in the text: a rendered Gopher menu of 600 KB holds 10,000 wrapped URLs
and as many bare matches inside them, and ``anyurl serve`` links every one on a page.
Wrapped spans are found in order and bare matches come in order, so one walk over both
says which bare match lies inside a wrapper (comparing each with every span found before
took 55 s there).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from anyurl.errors import URLSyntaxError
from anyurl.registry import names
from anyurl.url.parse import parse

__all__ = ["FoundURL", "find_urls"]

_WRAPPER = re.compile(r"<\s*(?:URL\s*:\s*)?([^<>]*)>", re.IGNORECASE)
_LOOKS_LIKE_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:\S")
_HYPHEN_BREAK = re.compile(r"-[ \t]*\r?\n\s*")
_TRAILING = ".,;:!?'\""


@dataclass(frozen=True)
class FoundURL:
    """A URL found in text: normalised ``url``, where it was, and how it was written."""

    url: str
    start: int
    end: int
    wrapped: bool
    #: Other readings (a hyphen at a line break may not belong to the URL).
    alternatives: tuple[str, ...] = ()


@functools.lru_cache(maxsize=4)
def _bare(known: tuple[str, ...]) -> re.Pattern[str]:
    """A bare URL of one of the ``known`` schemes (longest names first: https before http)."""
    alternation = "|".join(re.escape(n) for n in sorted(known, key=len, reverse=True))
    return re.compile(rf"(?<![\w.+-])(?:URL:)?(?:{alternation}):[^\s<>\"]+", re.IGNORECASE)


def _normalise(candidate: str) -> str | None:
    try:
        return str(parse(candidate))
    except URLSyntaxError:
        return None


def _trim(bare: str) -> str:
    """``bare`` less the punctuation that ends a sentence, and a ``)`` that closes a
    parenthesis opened before the URL; the parentheses are counted once, not per cut."""
    opened, closed = bare.count("("), bare.count(")")
    end = len(bare)
    while end:
        last = bare[end - 1]
        if last == ")" and opened < closed:
            closed -= 1
        elif last not in _TRAILING:
            break
        end -= 1
    return bare[:end]


def _outside(spans: list[tuple[int, int]],
             matches: Iterator[re.Match[str]]) -> Iterator[re.Match[str]]:
    """The ``matches`` that start in none of ``spans``; both are in order of their start
    (spans do not overlap), so one pointer walks the spans once for all matches."""
    i = 0
    for m in matches:
        start = m.start()
        while i < len(spans) and spans[i][1] <= start:
            i += 1
        if i < len(spans) and spans[i][0] <= start:
            continue
        yield m


def find_urls(text: str) -> list[FoundURL]:
    """Every URL in ``text``, in order: wrapped ones first-class, bare ones too."""
    found: list[FoundURL] = []
    taken: list[tuple[int, int]] = []
    for m in _WRAPPER.finditer(text):
        inner = m.group(1)
        compact = re.sub(r"\s+", "", inner)
        explicit = re.match(r"\s*URL\s*:", text[m.start() + 1 : m.end()], re.IGNORECASE)
        if not explicit and not _LOOKS_LIKE_URL.match(compact):
            continue
        url = _normalise(compact)
        if url is None:
            continue
        alternatives: tuple[str, ...] = ()
        if _HYPHEN_BREAK.search(inner):
            alt = _normalise(re.sub(r"\s+", "", _HYPHEN_BREAK.sub("", inner)))
            if alt is not None and alt != url:
                alternatives = (alt,)
        found.append(FoundURL(url, m.start(), m.end(), True, alternatives))
        taken.append((m.start(), m.end()))
    for m in _outside(taken, _bare(tuple(names())).finditer(text)):
        bare = _trim(m.group(0))
        url = _normalise(bare)
        if url is not None:
            found.append(FoundURL(url, m.start(), m.start() + len(bare), False))
    found.sort(key=lambda f: f.start)
    return found
