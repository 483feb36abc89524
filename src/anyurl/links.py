"""Links: the URLs a fetched resource points to, as a recursive mirror follows them.

Which URLs a resource names depends on its scheme (a Gopher menu's items, an FTP
listing's names, an HTML page's ``href``), so each handler reads its own resources
(:meth:`anyurl.schemes.base.SchemeHandler.links`) and nothing here knows a scheme's
format. This module holds only what the handlers' answers have in common: the
:class:`Link` value, and :func:`checked`, so that every handler returns each URL once and
only URLs that parse (a server's listing may name what no URL can carry: a file name with
a line end, a group name with a space).

It imports no handler, so a program can hold links without loading protocol code.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from anyurl.errors import URLError
from anyurl.registry import spec_for
from anyurl.url import parse

__all__ = ["FILE", "PAGE", "Link", "checked", "retrievable", "unique", "written"]

#: ``Link.kind`` of something that itself has links: a directory, a menu, an HTML page,
#: a newsgroup. A mirror fetches it and asks for its links in turn.
PAGE: Final = "page"
#: ``Link.kind`` of everything else: a leaf the mirror saves and does not read.
FILE: Final = "file"

def retrievable(scheme: str) -> bool:
    """Whether a link found in a document (an HTML page, a Gopher ``URL:`` item) may lead
    to ``scheme``: one a mirror can fetch, as its descriptor says
    (:attr:`~anyurl.registry.spec.SchemeSpec.followable`). ``mailto:`` sends mail and
    ``telnet:`` opens a session, so a mirror must never follow them; ``file:`` is left to
    the handlers, which allow it only from a local document (a remote page must not make
    a mirror read this machine's files); an unknown scheme cannot be fetched.
    """
    spec = spec_for(scheme)
    return spec is not None and spec.followable


@dataclass(frozen=True)
class Link:
    """One URL a resource points to.

    ``url`` is absolute URL text as RFC 1738 writes it (escaped, no fragment), ready for
    :func:`anyurl.parse`. ``kind`` is :data:`PAGE` for what has links of its own (a
    directory, a menu, an HTML page, a group) and :data:`FILE` otherwise: a hint from
    the listing, which the mirror confirms with the fetched resource's ``info.kind``.
    ``text`` is the label the resource shows for it (a menu item's display string, an
    anchor's text, an article's subject), or None.
    """

    url: str
    kind: str = FILE
    text: str | None = None
    #: URLs that describe this one further and are fetched only when asked (a Gopher+
    #: item's attribute block, whose views are its alternate forms: ``--gopher-views``).
    more: tuple[str, ...] = ()
    #: What the listing says of the target, when it says it (an FTP ``MLSD`` line's
    #: ``size`` and ``modify`` facts): its size in bytes and its modification time (POSIX
    #: seconds). A refreshed mirror compares them with what it saved last time and
    #: fetches only what changed; the time is given to the saved file, as ``wget -N``.
    size: int | None = None
    modified: float | None = None
    #: What the resource needs to be shown: a style sheet, an image, a script or a frame
    #: of an HTML page, what a style sheet imports or paints (wget's page requisites). A
    #: mirror fetches it even above its start directory or past its depth limit, so that
    #: the saved page renders (``--no-page-requisites`` turns that off).
    requisite: bool = False
    #: A symbolic link's target as the listing names it (an FTP ``LIST`` line's ``name
    #: -> target``): the URL is the link, which a mirror records rather than fetches
    #: (a link to a directory would copy that directory again under a second name, a
    #: dangling one fails). ``size`` and ``modified`` are then the link's own.
    target: str | None = None


def unique(links: Iterable[Link]) -> list[Link]:
    """``links`` with each URL once, in the order first seen.

    A URL named twice (an image and an anchor to the same address, the same item in
    two places of a menu) is a :data:`PAGE` if any mention says so, a requisite if any
    mention needs it to render, and keeps the first label given.
    """
    seen: dict[str, Link] = {}
    for link in links:
        before = seen.get(link.url)
        if before is None:
            seen[link.url] = link
            continue
        kind = PAGE if PAGE in (before.kind, link.kind) else before.kind
        text = before.text if before.text else link.text
        requisite = before.requisite or link.requisite
        if (kind, text, requisite) != (before.kind, before.text, before.requisite):
            seen[link.url] = dataclasses.replace(before, kind=kind, text=text,
                                                 requisite=requisite)
    return list(seen.values())


def checked(links: Iterable[Link]) -> list[Link]:
    """:func:`unique` of ``links`` that parse, each URL as the parser writes it.

    A URL built from a server's listing that does not parse (an ftp name holding a CR,
    which no CWD or RETR could send; a newsgroup name with a character RFC 1738 3.6 does
    not allow) is left out rather than handed to a mirror that could not fetch it.
    """
    kept = []
    for link in links:
        url = written(link.url)
        if url is None:
            continue
        kept.append(link if url == link.url else dataclasses.replace(link, url=url))
    return unique(kept)


@functools.lru_cache(maxsize=2048)  # the pages of a site name the same few URLs
def written(text: str) -> str | None:
    """``text`` parsed and written again as RFC 1738 writes a URL, without its fragment;
    None when it does not parse."""
    try:
        return str(parse(text).without_fragment())
    except URLError:
        return None
