"""The news: and nntp: schemes (RFC 1738 sections 3.6 and 3.7) over NNTP.

The dialogue lives in the sans-I/O core :mod:`anyurl.protocols.nntp`; this module is what
a URL means: it picks the server (:mod:`.target`), connects (:mod:`.session`), and reads
an article, a listing (:mod:`.listings`) or a batch of articles (:mod:`.batch`).

What each URL sends, after the greeting (200/201; 400 and 502 end the attempt)::

    CAPABILITIES                      learn READER / MODE-READER / OVER
    MODE READER                       when CAPABILITIES lists MODE-READER, or is unknown (500)
    AUTHINFO USER u / AUTHINFO PASS   at once when credentials were given, else on a 480
    news:<id@host>       ARTICLE <id@host>
    news:group           GROUP group, then OVER low-high (XOVER when OVER is unknown)
    news:*               LIST
    nntp://h/group/n     GROUP group, then ARTICLE n
    nntp://h/group       as news:group, on that host (an extension: RFC 1738 has no such form)
    QUIT                 when the resource is closed, also after an error or a cancel

The server a ``news:`` URL goes to is chosen by :func:`~.target.news_server`; credentials
and how responses map to errors are in :mod:`.session`; rendering and the
``NewsOptions.limit`` of listings in :mod:`.listings`.

Output: an article streams as it arrives, dot-stuffing undone, lines ended with ``\\n``
(``FetchOptions.raw``: CRLF, the wire form).

:meth:`NewsHandler.links` reads raw listings (``FetchOptions.raw``) back into URLs for a
recursive mirror: a group's articles, and ``news:*``'s groups.
:meth:`NewsHandler.open_batch` then fetches many of them over one connection, their
ARTICLE commands pipelined [RFC 3977 3.5] (its docstring is the contract); a group
listing is one OVER and needs no pipelining.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Iterable
from contextlib import aclosing
from typing import ClassVar

from anyurl.config import Config
from anyurl.errors import AnyURLError, URLError
from anyurl.links import Link
from anyurl.net.transport import DIRECT, Dialer
from anyurl.protocols.common import LocalProtocolError
from anyurl.protocols.nntp import Command, message_id_argument, parse_article_reply
from anyurl.resource import Resource, ResourceInfo
from anyurl.schemes.base import FetchOptions, Gate, Presentation, SchemeHandler
from anyurl.schemes.news.batch import MAX_DEPTH, batch_key, run_batch
from anyurl.schemes.news.listings import (
    DEFAULT_LISTING_LIMIT,
    group_listing,
    list_groups,
    listing_links,
    render_listing,
)
from anyurl.schemes.news.options import NewsOptions
from anyurl.schemes.news.session import (
    Logins,
    Session,
    connect,
    error,
    request,
    select_group,
)
from anyurl.schemes.news.target import DEFAULT_PORT, DEFAULT_SERVER, Kind, Target, news_server
from anyurl.schemes.news.view import NewsPart, NNTPPath
from anyurl.url import URL

__all__ = ["DEFAULT_LISTING_LIMIT", "DEFAULT_PORT", "DEFAULT_SERVER", "MAX_DEPTH",
           "NewsHandler", "news_server"]


class NewsHandler(SchemeHandler):
    """``news:`` and ``nntp:`` URLs: RFC 1738 3.6 and 3.7 over NNTP (RFC 3977)."""

    schemes = ("news", "nntp", "snews", "nntps")
    options_type = NewsOptions
    batches: ClassVar[bool] = True

    def __init__(
        self,
        config: Config,
        *,
        warn: Callable[[str], None] | None = None,
        gate: Gate | None = None,
        dialer: Dialer = DIRECT,
    ) -> None:
        super().__init__(config, warn=warn, gate=gate, dialer=dialer)
        self._logins = Logins(self.config, self.warn)
        #: Servers (host, port) that mis-answered pipelined commands: one at a time.
        self._serial: set[tuple[str, int]] = set()

    # -- what the URL asks for ---------------------------------------------------------

    def _target(self, url: URL, options: FetchOptions) -> Target:
        parts = url.parts
        given = options.get(NewsOptions)
        user = url.user if url.user is not None else given.user
        password = url.password if url.password is not None else given.password
        if isinstance(parts, NewsPart):
            host, port, source = news_server(url, options, self.config)
            if parts.message_id is not None:
                target = Target("article-id", host, port, source,
                                 message_id=parts.message_id, user=user, password=password)
            elif parts.group == "*":
                target = Target("list", host, port, source, user=user, password=password)
            elif parts.group:
                target = Target("group", host, port, source, group=parts.group,
                                 user=user, password=password)
            else:
                raise URLError(f"{url.masked()} names no newsgroup or message-id", url=url)
        elif isinstance(parts, NNTPPath):
            if not url.host:
                raise URLError(f"{url.masked()} names no host", url=url)
            if not parts.group:
                raise URLError(
                    f"{url.masked()} names no newsgroup",
                    url=url,
                    hint="Write nntp://host/group/number (RFC 1738 3.7), or news:* for all "
                    "groups.",
                )
            host, port = url.connect_host, url.effective_port or DEFAULT_PORT
            kind: Kind = "group" if parts.article is None else "article-number"
            if url.path and "/" in url.path and parts.article is None:
                raise URLError(f"{url.masked()}: the article must be a decimal number",
                               url=url)
            target = Target(kind, host, port, "the URL", group=parts.group,
                             number=parts.article, user=user, password=password)
        else:
            raise URLError(f"{url.masked()} is not a news: or nntp: URL", url=url)
        self._check(url, target)
        return target

    def _check(self, url: URL, target: Target) -> None:
        """Refuse, before connecting, anything that cannot go on the wire as one line."""
        commands = target.main_commands()
        if target.user is not None:
            commands.append(Command.of("AUTHINFO", "USER", target.user))
        if target.password is not None:
            commands.append(Command.of("AUTHINFO", "PASS", target.password))
        for command in commands:
            if command.args and command.args[-1] == "<low>-<high>":
                continue
            try:
                command.check()
            except LocalProtocolError as exc:
                raise URLError(f"refusing {url.masked()}: {exc}", url=url,
                               hint="RFC 1738 section 6: a decoded CR or LF must not reach "
                               "the server as a line end.") from exc

    def is_listing(self, info: ResourceInfo) -> bool:
        """A group's articles and the list of groups (``news:*``) are listings."""
        return info.kind == "directory"

    def presentation(self, info: ResourceInfo) -> Presentation:
        """An article is read in the page, as a newsreader shows it."""
        if info.kind == "article":
            return Presentation.TEXT
        return super().presentation(info)

    def links(self, info: ResourceInfo, body: bytes) -> list[Link]:
        """A raw group listing's articles, or a raw ``news:*`` listing's groups
        (:func:`~.listings.listing_links`)."""
        return listing_links(info, body)

    def render(self, info: ResourceInfo, body: bytes) -> str | None:
        """A raw group or ``news:*`` listing as ``anyurl get`` shows it
        (:func:`~.listings.render_listing`)."""
        return render_listing(info, body)

    def plan(self, url: URL, options: FetchOptions) -> list[str]:
        target = self._target(url, options)
        lines = ["CAPABILITIES", "MODE READER"]
        if target.user is not None:
            lines += [f"AUTHINFO USER {target.user}", "AUTHINFO PASS ****"]
        lines += [c.display() for c in target.main_commands()]
        lines.append("QUIT")
        return lines

    # -- opening -----------------------------------------------------------------------

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        target = self._target(url, options)
        session = await self._connect(url, target, options)
        try:
            if target.kind == "list":
                return await list_groups(session, options)
            if target.kind == "group":
                return await group_listing(session, options)
            return await self._article(session, options)
        except BaseException:
            await session.goodbye()
            raise

    async def _connect(self, url: URL, target: Target, options: FetchOptions,
                       *, login: bool = False) -> Session:
        """A connection to ``target``'s server, greeted, set up and (``login``, or with
        credentials) logged in; closed again if any of that fails."""
        return await connect(self.dialer, self.config, self._logins, url, target, options,
                             login=login)

    # -- articles -----------------------------------------------------------------------

    async def _article(self, session: Session, options: FetchOptions) -> Resource:
        target, url = session.target, session.url
        if target.kind == "article-number":
            await select_group(session, options)
            command = Command.of("ARTICLE", str(target.number))
        else:
            assert target.message_id is not None
            command = Command.of("ARTICLE", message_id_argument(target.message_id))
        session.core.set_newline(b"\r\n" if options.raw else b"\n")
        reply = await request(session, options, command)
        if reply.code != 220:
            raise error(session, reply, command.display())
        info = parse_article_reply(reply)
        if target.kind == "article-number":
            filename = f"{target.group}.{target.number}"
        else:
            filename = (target.message_id or "article").replace("/", "_")
        resource_info = ResourceInfo(
            url=url,
            content_type="message/rfc822",
            filename=filename,
            kind="article",
            extra={"server": target.hostport, "message_id": info.message_id,
                   "number": info.number or target.number, "group": target.group},
        )
        return Resource(resource_info, session.blocks(), on_close=session.goodbye)

    # -- batches of articles (pipelined) --------------------------------------------------

    async def open_batch(
        self, urls: Iterable[URL], options: FetchOptions
    ) -> AsyncGenerator[tuple[URL, Resource | AnyURLError], None]:
        """Open many ``news:``/``nntp:`` URLs, pipelining the articles of one server.

        The contract, for a caller holding many URLs (a mirror of a group, ``get`` of
        many articles):

        * ``urls`` are URLs the resolver's gate admitted and routed to this handler
          (``Resolver.admit``, ``Resolver.handler_for``); ``options`` apply to all.
        * One ``(url, outcome)`` is yielded per URL, **in the order given**, the URL
          object itself as given. ``outcome`` is an open :class:`Resource` (as
          :meth:`open` returns) or the :class:`AnyURLError` that URL met: a missing
          article (423/430, or its group refused with 411) fails that URL only. Only
          cancellation and errors that are bugs propagate.
        * Consecutive article URLs (``nntp://host/group/n``, ``news:id``) on the same
          server and with the same credentials go over **one connection**, their
          ``ARTICLE`` commands pipelined [RFC 3977 3.5]: after a ``GROUP`` (sent when
          the group changes, and answered before anything follows it) up to
          :data:`MAX_DEPTH` commands are in flight; the window opens at 1 on each
          connection and doubles with each article answered, so an ``AUTHINFO`` the
          server asks for (480) is met before anything is pipelined. Any other URL (a
          group listing, ``news:*``) is opened with :meth:`open` on a connection of
          its own, at its place in the order.
        * Articles stream from the shared connection, so the caller reads (or
          closes) each yielded resource before asking for the next item; asking for
          the next item reads and drops what is left unread of the previous article;
          reading that resource afterwards raises :class:`StreamClosed`.
        * When the server closes (or answers 400) with commands unanswered, those are
          sent again on a new connection, set up from the start. A connection that
          answered none of them is not replaced: the URLs left get its error. An
          article whose body was cut is not sent again; its resource raises
          :class:`PartialTransfer` while being read.
        * A server that mis-answers (a 220 that does not name the article number or
          message-id asked for, bytes arriving with no command owed, or silence past
          the read timeout with commands pipelined) is remembered for this handler's
          life and served one command at a time from then on, starting with a new
          connection; an article already handed over was named by its 220.
        * Closing the iterator early (``aclose``, ``break``) sends QUIT and closes the
          connection; resources already yielded and not read must not be read after.
        """
        pending: list[tuple[URL, Target]] = []
        for url in urls:
            try:
                target = self._target(url, options)
            except AnyURLError as exc:
                async with aclosing(self._batch_run(pending, options)) as run:
                    async for outcome in run:
                        yield outcome
                pending = []
                yield url, exc
                continue
            if target.kind not in ("article-id", "article-number"):
                async with aclosing(self._batch_run(pending, options)) as run:
                    async for outcome in run:
                        yield outcome
                pending = []
                try:
                    resource: Resource | AnyURLError = await self.open(url, options)
                except AnyURLError as exc:
                    resource = exc
                yield url, resource
                if isinstance(resource, Resource):
                    await resource.aclose()
                continue
            if pending and batch_key(pending[0][1]) != batch_key(target):
                async with aclosing(self._batch_run(pending, options)) as run:
                    async for outcome in run:
                        yield outcome
                pending = []
            pending.append((url, target))
        async with aclosing(self._batch_run(pending, options)) as run:
            async for outcome in run:
                yield outcome

    def _batch_run(
        self, items: list[tuple[URL, Target]], options: FetchOptions
    ) -> AsyncGenerator[tuple[URL, Resource | AnyURLError], None]:
        """One server's articles over one pipelined connection (:func:`~.batch.run_batch`)."""
        return run_batch(items, options, connect=self._connect, serial=self._serial,
                         warn=self.warn)
