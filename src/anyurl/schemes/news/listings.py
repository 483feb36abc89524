"""Group listings (GROUP and OVER) and the newsgroup list (LIST): fetched, rendered, linked.

A group listing is rendered as readable text (number, subject, From, Date and each
article's ``nntp:`` and ``news:`` URLs), or as JSON with ``FetchOptions.format ==
"json"``; ``raw`` gives the server's OVER/LIST lines as sent (CRLF, unstuffed).
``NewsOptions.limit`` caps a group listing to the newest N articles (default
:data:`DEFAULT_LISTING_LIMIT`, 0 for all). Both stream: memory does not grow with the
number of articles or groups a server sends (but ``news:*`` as JSON, written whole).

:func:`listing_links` reads the raw listings back into URLs for a recursive mirror (a
group's articles, and ``news:*``'s groups); :func:`render_listing` renders a raw listing
as ``anyurl get`` shows it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from anyurl.errors import ProtocolError
from anyurl.links import FILE, PAGE, Link, checked
from anyurl.numbers import is_ascii_digits
from anyurl.protocols.common import RemoteProtocolError
from anyurl.protocols.nntp import (
    ActiveEntry,
    Command,
    GroupInfo,
    OverviewEntry,
    parse_active_line,
    parse_overview_line,
)
from anyurl.resource import Resource, ResourceExtra, ResourceInfo
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.news.options import NewsOptions
from anyurl.schemes.news.session import Session, error, request, select_group
from anyurl.schemes.news.target import DEFAULT_PORT, Target
from anyurl.schemes.news.view import NewsPart, NNTPPath
from anyurl.url import URL, quote
from anyurl.url.charset import UCHAR_PLAIN, display

__all__ = ["DEFAULT_LISTING_LIMIT", "group_listing", "list_groups", "listing_links",
           "render_listing"]

#: A group listing shows at most this many of the newest articles unless told otherwise.
DEFAULT_LISTING_LIMIT = 1000


def _limit(options: FetchOptions) -> int:
    return max(0, options.get(NewsOptions).limit)


async def group_listing(session: Session, options: FetchOptions) -> Resource:
    """``news:group``: GROUP, then OVER (XOVER) of the newest articles, streamed as
    the overview arrives (rendered, JSON, or raw)."""
    target, url = session.target, session.url
    group = await select_group(session, options)
    limit = _limit(options)
    low = group.low
    if limit and group.high - low + 1 > limit:
        low = group.high - limit + 1
    fmt = options.format
    base_info: ResourceExtra = {
        "server": target.hostport, "group": group.name or target.group,
        "count": group.count, "low": group.low, "high": group.high}
    info = ResourceInfo(
        url=url,
        content_type="text/plain" if options.raw else (
            "application/json" if fmt == "json" else "text/plain; charset=utf-8"),
        filename=target.group,
        kind="directory",
        extra=base_info.copy(),
    )
    if group.empty:
        chunks = _single(b"" if options.raw else _render_group(
            target, group, [], fmt, low))
        await session.goodbye()
        return Resource(info, chunks)
    reply = await request(
        session, options, Command.of(session.over_verb, f"{low}-{group.high}")
    )
    if reply.code in (500, 501) and session.over_verb == "OVER":
        session.over_verb = "XOVER"
        reply = await request(
            session, options, Command.of("XOVER", f"{low}-{group.high}")
        )
    if reply.code in (420, 423):  # no articles in that range: an empty listing
        chunks = _single(b"" if options.raw else _render_group(
            target, group, [], fmt, low))
        return Resource(info, chunks, on_close=session.goodbye)
    if reply.code != 224:
        raise error(session, reply, f"{session.over_verb} {low}-{group.high}")
    if options.raw:
        return Resource(info, session.blocks(), on_close=session.goodbye)
    return Resource(info, _stream_group(session, group, fmt, low),
                    on_close=session.goodbye)


async def _stream_group(
    session: Session, group: GroupInfo, fmt: str, low: int
) -> AsyncIterator[bytes]:
    target = session.target
    if fmt == "json":
        # The same document _render_group builds, written as the overview arrives:
        # memory does not grow with the number of articles a server sends.
        head = _render_group(target, group, [], fmt, low).decode(
            "utf-8", "surrogateescape")
        cut = head.rindex('"articles": []') + len('"articles": [')
        yield head[:cut].encode("utf-8", "surrogateescape")
        first = True
        async for chunk in session.blocks():
            for e in _overview(session, chunk):
                item = {**e.to_json(), "url": _article_url(target, e.number),
                        "news_url": _news_url(e.message_id)}
                text = json.dumps(item, indent=2, ensure_ascii=False).replace(
                    "\n", "\n    ")
                yield (("\n    " if first else ",\n    ") + text).encode(
                    "utf-8", "surrogateescape")
                first = False
        yield ("\n  " if not first else "").encode() + head[cut:].encode(
            "utf-8", "surrogateescape")
        return
    yield _group_header(target, group, low).encode("utf-8", "surrogateescape")
    async for chunk in session.blocks():
        out = "".join(_render_entry(target, e) for e in _overview(session, chunk))
        if out:
            yield out.encode("utf-8", "surrogateescape")


def _overview(session: Session, chunk: bytes) -> list[OverviewEntry]:
    entries = []
    for line in chunk.split(b"\r\n"):
        if not line:
            continue
        try:
            entries.append(parse_overview_line(line))
        except RemoteProtocolError as exc:
            raise ProtocolError(f"{session.what()}: {exc} for {session.url.masked()}",
                                url=session.url) from exc
    return entries


def _render_group(target: Target, group: GroupInfo, entries: list[OverviewEntry],
                  fmt: str, low: int) -> bytes:
    if fmt == "json":
        doc = {
            "server": target.hostport, "group": group.name or target.group,
            "count": group.count, "low": group.low, "high": group.high,
            "articles": [
                {**e.to_json(), "url": _article_url(target, e.number),
                 "news_url": _news_url(e.message_id)}
                for e in entries
            ],
        }
        return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode(
            "utf-8", "surrogateescape")
    text = _group_header(target, group, low) + "".join(
        _render_entry(target, e) for e in entries)
    return text.encode("utf-8", "surrogateescape")


async def list_groups(session: Session, options: FetchOptions) -> Resource:
    """``news:*``: LIST, streamed as it arrives (rendered, JSON, or raw)."""
    target, url = session.target, session.url
    reply = await request(session, options, Command.of("LIST"))
    if reply.code != 215:
        raise error(session, reply, "LIST")
    fmt = options.format
    info = ResourceInfo(
        url=url,
        content_type="text/plain" if options.raw else (
            "application/json" if fmt == "json" else "text/plain; charset=utf-8"),
        filename="active",
        kind="directory",
        extra={"server": target.hostport},
    )
    if options.raw:
        return Resource(info, session.blocks(), on_close=session.goodbye)
    return Resource(info, _stream_list(session, fmt), on_close=session.goodbye)


async def _stream_list(session: Session, fmt: str) -> AsyncIterator[bytes]:
    target = session.target
    entries: list[ActiveEntry] = []
    if fmt == "text":
        yield f"Newsgroups on {target.hostport}:\n\n".encode()
    async for chunk in session.blocks():
        batch = []
        for line in chunk.split(b"\r\n"):
            if not line:
                continue
            try:
                batch.append(parse_active_line(line))
            except RemoteProtocolError as exc:
                raise ProtocolError(
                    f"{session.what()}: {exc} for {session.url.masked()}",
                    url=session.url) from exc
        if fmt == "json":
            entries += batch
            continue
        out = "".join(_render_active(target, e) for e in batch)
        if out:
            yield out.encode("utf-8", "surrogateescape")
    if fmt == "json":
        doc = {"server": target.hostport, "groups": [
            {**e.to_json(), "url": _group_url(target, e.group)} for e in entries]}
        yield (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode(
            "utf-8", "surrogateescape")


def listing_links(info: ResourceInfo, body: bytes) -> list[Link]:
    """A raw group listing's articles, or a raw ``news:*`` listing's groups.

    Each article of an ``OVER`` listing is one ``"file"`` link, labelled with its
    subject, in the form of the URL that listed it: from ``nntp://host/group`` the
    article number, ``nntp://host/group/n`` (RFC 1738 3.7); from ``news:group`` the
    message-id, ``news:<id>`` (3.6), which the same server (the one ``news:`` URLs
    are sent to) answers, with the host kept for ``news://host/group``. An article
    whose message-id no URL can carry gets the nntp form on the server that listed
    it (``info.extra["server"]``). Each group of ``news:*`` is a ``"page"``:
    ``news:group`` (``news://host/group``). A rendered listing has no links: fetch
    with ``raw`` to read them.
    """
    if info.kind != "directory" or info.content_type != "text/plain":
        return []  # a rendering (its type carries a charset, or is JSON)
    url, parts = info.url, info.url.parts
    server = str(info.extra.get("server") or "")
    lines = [line for line in body.split(b"\n") if line.strip()]
    links = []
    if isinstance(parts, NewsPart) and parts.group == "*":
        for line in lines:
            try:
                name = parse_active_line(line.rstrip(b"\r")).group
            except RemoteProtocolError:
                continue
            text = _news_form(url, quote(name, _GROUP_SAFE))
            links.append(Link(text, PAGE, display(name)))
        return checked(links)
    group = info.extra.get("group")
    if not isinstance(group, str) or not group or not server:
        return []
    for line in lines:
        try:
            entry = parse_overview_line(line)
        except RemoteProtocolError:
            continue
        path = f"{quote(group, _GROUP_SAFE)}/{entry.number}"
        article: str | None = None
        if isinstance(parts, NNTPPath):
            article = str(url.replace(path=path, fragment=None))
        elif (mid := _news_url(entry.message_id)) is not None:
            article = _news_form(url, mid.removeprefix("news:"))
        if article is None:
            article = f"nntp://{server}/{path}"
        links.append(Link(article, FILE, display(entry.subject.strip()) or None))
    return checked(links)


def render_listing(info: ResourceInfo, body: bytes) -> str | None:
    """A raw group listing (``OVER``) or ``news:*`` listing (``LIST``) as ``anyurl get``
    shows it: the group's line, then each article's number, subject, sender, date and
    URLs; or each group with its range, status and URL. None for anything else."""
    if info.kind != "directory" or info.content_type != "text/plain":
        return None
    server = str(info.extra.get("server") or "")
    host, _, port = server.rpartition(":") if is_ascii_digits(server.rpartition(":")[2]) \
        else (server, "", "")
    if not host:
        return None
    lines = [line.rstrip(b"\r") for line in body.split(b"\n") if line.strip()]
    parts = info.url.parts
    if isinstance(parts, NewsPart) and parts.group == "*":
        target = Target("list", host.strip("[]"), int(port or DEFAULT_PORT), "listing")
        out = [f"Newsgroups on {target.hostport}:\n\n"]
        for line in lines:
            try:
                out.append(_render_active(target, parse_active_line(line)))
            except RemoteProtocolError:
                continue
        return "".join(out)
    group = info.extra.get("group")
    if not isinstance(group, str) or not group:
        return None
    target = Target("group", host.strip("[]"), int(port or DEFAULT_PORT), "listing",
                     group=group)
    entries = []
    for line in lines:
        try:
            entries.append(parse_overview_line(line))
        except RemoteProtocolError:
            continue
    extra = info.extra
    numbers = [e.number for e in entries]
    group_info = GroupInfo(count=int(extra.get("count") or len(entries)),
                           low=int(extra.get("low") or min(numbers, default=0)),
                           high=int(extra.get("high") or max(numbers, default=0)),
                           name=group)
    low = min(numbers, default=group_info.low)
    return _group_header(target, group_info, max(low, group_info.low)) + "".join(
        _render_entry(target, e) for e in entries)


async def _single(data: bytes) -> AsyncIterator[bytes]:
    if data:
        yield data


_GROUP_SAFE = UCHAR_PLAIN - frozenset("/")
_ID_SAFE = UCHAR_PLAIN | frozenset(";/?:&=@")


def _group_url(target: Target, group: str) -> str:
    return f"nntp://{target.hostport}/{quote(group, _GROUP_SAFE)}"


def _article_url(target: Target, number: int) -> str:
    assert target.group is not None
    return f"{_group_url(target, target.group)}/{number}"


def _news_url(message_id: str) -> str | None:
    mid = message_id.strip()
    if not (mid.startswith("<") and mid.endswith(">") and "@" in mid):
        return None
    return "news:" + quote(mid[1:-1], _ID_SAFE)


def _news_form(url: URL, grouppart: str) -> str:
    """``news:<grouppart>``, or ``news://host/<grouppart>`` when ``url`` names a host."""
    if url.host is None:
        return f"news:{grouppart}"
    return str(url.replace(path=grouppart, fragment=None))


def _group_header(target: Target, group: GroupInfo, low: int) -> str:
    name = group.name or target.group
    if group.empty:
        return f"{name} on {target.hostport}: no articles\n"
    shown = "" if low == group.low else f", showing {low}-{group.high}"
    return (f"{name} on {target.hostport}: {group.count} articles, numbers "
            f"{group.low}-{group.high}{shown}\n")


def _render_entry(target: Target, entry: OverviewEntry) -> str:
    lines = [f"\n{entry.number}  {entry.subject}",
             f"    From: {entry.from_}",
             f"    Date: {entry.date}",
             f"    {_article_url(target, entry.number)}"]
    news = _news_url(entry.message_id)
    if news:
        lines.append(f"    {news}")
    return "\n".join(lines) + "\n"


def _render_active(target: Target, entry: ActiveEntry) -> str:
    status = {"y": "posting", "n": "read-only", "m": "moderated"}.get(entry.status,
                                                                       entry.status)
    return (f"{entry.group}  {entry.low}-{entry.high}  {status}  "
            f"{_group_url(target, entry.group)}\n")
