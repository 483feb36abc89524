"""URLs in free text: the Appendix of RFC 1738.

In mail, news and print a URL is best written inside ``<URL:...>`` (or at least
``<...>``); inside the wrapper, whitespace and line breaks were added only to fold a
long URL and are removed. A line break right after a hyphen is ambiguous, since a
typesetter may have added the hyphen: the URL keeps it, and ``FoundURL.alternatives``
offers the reading without it. Bare URLs of the known schemes (the registry's: built-in
and plug-in) are found too, less the punctuation that ends a sentence.
"""

from __future__ import annotations

import functools
import re
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
    while bare and (bare[-1] in _TRAILING or (bare[-1] == ")" and bare.count("(") <
                                                bare.count(")"))):
        bare = bare[:-1]
    return bare


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
    for m in _bare(tuple(names())).finditer(text):
        if any(a <= m.start() < b for a, b in taken):
            continue
        bare = _trim(m.group(0))
        url = _normalise(bare)
        if url is not None:
            found.append(FoundURL(url, m.start(), m.start() + len(bare), False))
    found.sort(key=lambda f: f.start)
    return found
