"""The news and nntp views (RFC 1738 3.6, 3.7): a group, a message-id, an article.

Imported when the view is first asked for (:mod:`anyurl.url.views`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from anyurl.numbers import ascii_int, is_ascii_digits
from anyurl.url.charset import ALPHA, DIGIT, UCHAR_PLAIN, decode, display
from anyurl.url.grammar import Grammar, Reader
from anyurl.url.model import URL
from anyurl.url.parse import host_error

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


# -- its grammar (section 5), which the parser asks for (anyurl.url.grammar) ----------


_NEWS_GROUP = re.compile(r"[A-Za-z][A-Za-z0-9\-.+_]*\Z")


def _group_error(group: str) -> int:
    """The offset of the first character ``group = alpha *[ alpha | digit | ...]`` refuses."""
    return next((i for i, c in enumerate(group)
                 if (i == 0 and c not in ALPHA) or c not in ALPHA | DIGIT | frozenset("-.+_")),
                0)


def _nntp_path(reader: Reader, url: URL, start: int, end: int) -> URL:
    """``group [ "/" digits ]``."""
    raw = reader.s[start:end]
    group, sep, article = raw.partition("/")
    if group == "":
        raise reader.fail("an nntp URL needs a newsgroup name", start)
    if not _NEWS_GROUP.match(group):
        raise reader.fail(f"{group!r} is not a newsgroup name", start + _group_error(group))
    if sep and not is_ascii_digits(article):
        raise reader.fail("the article must be a decimal number", start + len(group) + 1)
    reader.check_chars(start, end, UCHAR_PLAIN | frozenset("/"), "the nntp path")
    return url.replace(path=reader.norm(raw))


def _news_opaque(reader: Reader, scheme: str, start: int, end: int,
                 fragment: str | None) -> URL:
    """``grouppart = "*" | group | article`` (``article = 1*[...] "@" host``)."""
    raw = reader.s[start:end]
    if raw == "":
        raise reader.fail("a news URL needs a newsgroup, a message-id or '*'", start)
    if not reader.strict and raw.startswith("<") and raw.endswith(">") and "@" in raw:
        raw = raw[1:-1]  # news:<id@host>, as people paste Message-IDs
        start += 1
        end -= 1
    if raw == "*":
        pass
    elif "@" in raw:
        at = raw.rfind("@")
        if at == 0:  # article = 1*[ uchar | ";" | "/" | "?" | ":" | "&" | "=" ] "@" host
            raise reader.fail("a message-id needs a part before '@'", start)
        reader.check_chars(start, start + at, UCHAR_PLAIN | frozenset(";/?:&="),
                           "the message-id")
        host = raw[at + 1 :]
        err = host_error(host, reader.strict)
        if host == "":
            err = ("a message-id needs a host after '@'", 0)
        if err is not None:
            raise reader.fail(err[0], start + at + 1 + err[1])
    elif not _NEWS_GROUP.match(raw):
        raise reader.fail(f"{raw!r} is not a newsgroup name", start + _group_error(raw))
    opaque = reader.norm(raw)
    if not reader.strict and "@" in opaque:
        # an '@' of the message-id's own is no article character: written %40, the
        # last '@' alone separates the host (the message-id decodes the same)
        local, _, host = opaque.rpartition("@")
        opaque = local.replace("@", "%40") + "@" + host
    return URL(scheme, opaque=opaque, fragment=fragment)


#: Section 3.6's newsurl (no ``//`` in strict mode: news://host/group is a later form)
#: and 3.7's nntpurl; snews and nntps are read as news and nntp.
GRAMMARS = {
    "news": Grammar(part="the newsgroup or message-id", slashes="lenient",
                    opaque=_news_opaque),
    "nntp": Grammar(ip=True, part="the nntp group or article", path=_nntp_path,
                    needs_path="an nntp URL needs a newsgroup name"),
}
