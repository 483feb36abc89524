"""The references of a style sheet: what a browser loads to apply it.

A style sheet names other resources in two ways: ``@import`` (another style sheet,
``@import "x.css"``, ``@import url(x.css)``) and ``url()`` anywhere in a value
(background images, ``@font-face`` sources, cursors, list markers), including the
strings of ``image-set()``. They are found with tinycss2, a tokenizer of CSS Syntax
Level 3, not with a pattern: comments, strings that merely contain ``url(``, escapes
(``url(a\\ b.png)``, ``"a\\"b.png"``), nested blocks (``@media``, ``@supports``) and an
unclosed ``url(`` at the end of a file are the tokenizer's business, as they are a
browser's. A pattern would take ``content: "url(x)"`` for a reference and miss
``url(a\\).png)``.

Only references are returned, as written (escapes undone): resolving them (against the
style sheet's URL, or a page's base for a ``<style>`` block) and refusing ``data:`` and
other schemes a mirror must not follow is the caller's (:mod:`.html_links`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import tinycss2

__all__ = ["css_references", "declared_charset", "style_references"]

#: Functions whose string arguments are image URLs (CSS Images 4), besides ``url()``.
_IMAGE_SETS = frozenset({"image-set", "-webkit-image-set"})


def css_references(text: str) -> list[str]:
    """The references of a whole style sheet (a CSS file, a ``<style>`` block), in the
    order written: ``@import`` targets and ``url()`` values, each once."""
    if "(" not in text and "@" not in text:
        return []  # (see style_references: an @import starts with an "@" as written)
    return _once(_walk(tinycss2.parse_component_value_list(text, skip_comments=True)))


def style_references(text: str) -> list[str]:
    """The references of a ``style=`` attribute (a declaration list: no ``@import``).

    None without a ``(``: a ``url()`` ends its name with one as written, even when the
    name is escaped (``\\75rl(``), and most attributes (``width: 50%``) have none, so
    they are not tokenized at all (2,379 on python3-doc's pages)."""
    if "(" not in text:
        return []
    return _once(_walk(tinycss2.parse_component_value_list(text, skip_comments=True),
                       imports=False))


def declared_charset(head: bytes) -> str | None:
    """The encoding an ``@charset "name";`` rule at the very start of a style sheet
    declares (CSS Syntax 3.2: exactly those bytes, double quotes), or None."""
    prefix = b'@charset "'
    if not head.startswith(prefix):
        return None
    end = head.find(b'";', len(prefix), len(prefix) + 64)
    if end < 0:
        return None
    return head[len(prefix):end].decode("ascii", "replace").strip().lower() or None


def _once(references: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(r for r in references if r))


def _walk(tokens: Iterable[Any], *, imports: bool = True) -> Iterator[str]:
    """References in ``tokens`` and the blocks nested in them, in document order.

    An ``@import`` names a style sheet by its first token after the keyword: a string
    or a ``url()``; every other reference is a ``url()`` (an unquoted one is one
    ``url`` token, a quoted one a ``url`` function holding a string)."""
    after_import = False
    for token in tokens:
        kind = token.type
        if kind in ("whitespace", "comment"):
            continue
        if after_import and kind == "string":
            yield token.value
        after_import = False
        if kind == "url":
            yield token.value
        elif kind == "at-keyword":
            after_import = imports and token.lower_value == "import"
        elif kind == "function":
            name = token.lower_name
            if name in ("url", "src"):
                yield from _strings(token.arguments, first=True)
            elif name in _IMAGE_SETS:
                yield from _strings(token.arguments, first=False)
            yield from _walk(token.arguments, imports=False)
        elif kind in ("{} block", "[] block", "() block"):
            yield from _walk(token.content, imports=False)  # @import is top-level only


def _strings(arguments: Iterable[Any], *, first: bool) -> Iterator[str]:
    """The string arguments of a function: its first only (``url("x")``), or each
    (``image-set("a.png" 1x, "b.png" 2x)``, whose ``url()`` values the walk finds)."""
    for token in arguments:
        if token.type in ("whitespace", "comment"):
            continue
        if token.type == "string":
            yield token.value
        if first:
            return
