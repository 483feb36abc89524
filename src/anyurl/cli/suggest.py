"""Did you mean: a word on the command line that is neither a command nor a URL.

``anyurl URL`` is short for ``anyurl get URL``, so a mistyped command (``anyurl mirorr``)
or an option typed without its dashes (``anyurl plan URL``) would otherwise reach the URL
parser and end in "missing scheme at position 0", naming nothing. These functions name
the word and suggest what was probably meant, as git does.
"""

from __future__ import annotations

import re

__all__ = ["JSON_DATA", "looks_like_a_word", "suggest"]

#: A bare word: no scheme, no host with a dot, no path: it cannot be meant as a URL.
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")
#: Text that starts as JSON data does (curl's ``--json DATA``, ``-d '{...}'``).
JSON_DATA = re.compile(r"\s*[\[{]")


def looks_like_a_word(text: str) -> bool:
    """Whether ``text`` is a bare word (``mirorr``, ``plan``) rather than a URL."""
    return bool(_WORD.match(text))


def suggest(word: str, commands: tuple[str, ...], options: tuple[str, ...] = ()) -> str | None:
    """What ``word`` probably meant: ``anyurl mirror`` for ``mirorr``, ``anyurl get
    --plan`` for ``plan`` (one of ``options``, the long options of ``get``); None if
    nothing is close."""
    if not looks_like_a_word(word):
        return None
    import difflib  # a mistyped word only: not paid by every start

    lowered = word.lower()
    close = difflib.get_close_matches(lowered, commands, n=1, cutoff=0.6)
    if close:
        return f"anyurl {close[0]}"
    names = {option[2:]: option for option in options if option.startswith("--")}
    if lowered in names:
        return f"anyurl get {names[lowered]}"
    close = difflib.get_close_matches(lowered, list(names), n=1, cutoff=0.8)
    if close:
        return f"anyurl get {names[close[0]]}"
    return None
