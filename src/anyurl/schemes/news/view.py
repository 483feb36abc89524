"""The news and nntp views (RFC 1738 3.6, 3.7): a group, a message-id, an article.

Imported when the view is first asked for (:mod:`anyurl.url.views`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from anyurl.numbers import ascii_int
from anyurl.url.charset import decode, display

#: RFC 3977 6.1.1: an article number is below 2**63, at most 19 digits.
ARTICLE_DIGITS = 19

__all__ = ["NNTPPath", "NewsPart", "news_part", "nntp_path"]


@dataclass(frozen=True)
class NewsPart:
    """``news:<group>``, ``news:<message-id>`` or ``news:*`` of section 3.6."""

    group: str | None
    message_id: str | None

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        return {"group": display(self.group), "message_id": display(self.message_id)}


def news_part(grouppart: str) -> NewsPart:
    """The :class:`NewsPart` of a raw grouppart: a message-id if it holds ``@``."""
    if "@" in grouppart:
        return NewsPart(None, decode(grouppart))
    return NewsPart(decode(grouppart), None)


@dataclass(frozen=True)
class NNTPPath:
    """``<newsgroup-name>/<article-number>`` of section 3.7."""

    group: str | None
    article: int | None

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        return {"group": display(self.group), "article": self.article}


def nntp_path(path: str | None) -> NNTPPath:
    """The :class:`NNTPPath` of a raw nntp url-path (a non-numeric article: None)."""
    if not path:
        return NNTPPath(None, None)
    group, sep, article = path.partition("/")
    number = ascii_int(article, max_digits=ARTICLE_DIGITS) if sep else None
    return NNTPPath(decode(group), number)
