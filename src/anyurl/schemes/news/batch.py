"""Batches of articles: many ARTICLE commands pipelined on one connection [RFC 3977 3.5].

:func:`run_batch` runs one server's article URLs (grouped by :func:`batch_key`) over one
:class:`~.session.Session`, replacing it when the server closes, and falling back to one
command at a time for a server that mis-answers; ``NewsHandler.open_batch``'s docstring
is the contract. The steps are planned (a GROUP wherever the group changes), checked
against their answers, and each article streams from the shared connection
(:class:`_Body`) until the batch moves on.
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable
from contextlib import aclosing
from dataclasses import dataclass
from typing import Protocol

from anyurl.errors import (
    AnyURLError,
    ConnectionLost,
    LoginDenied,
    PartialTransfer,
    ProtocolError,
    StreamClosed,
    TransferTimeout,
)
from anyurl.protocols.nntp import (
    Command,
    Data,
    EndOfData,
    Response,
    State,
    message_id_argument,
    parse_article_reply,
)
from anyurl.resource import Resource, ResourceInfo
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.news.session import Session, authenticate, error
from anyurl.schemes.news.target import Target
from anyurl.url import URL

__all__ = ["MAX_DEPTH", "Connect", "batch_key", "run_batch"]

#: The most ARTICLE commands a batch keeps in flight on one connection (open_batch).
MAX_DEPTH = 32


class Connect(Protocol):
    """How a batch opens a connection: the handler's, greeted, set up and (``login``)
    logged in before anything is pipelined."""

    async def __call__(self, url: URL, target: Target, options: FetchOptions, *,
                       login: bool = False) -> Session: ...


@dataclass
class _Step:
    """One command of a batch: a GROUP (``url`` None) or an article's ARTICLE."""

    command: Command
    url: URL | None = None
    target: Target | None = None
    group: str | None = None  # the group a GROUP selects, or an ARTICLE n reads
    number: int | None = None  # ARTICLE n's number
    refused: Response | None = None  # its group's refusal, answered without sending


def batch_key(target: Target) -> tuple[str, int, str | None, str | None]:
    """Article URLs with the same key can share one connection."""
    return target.host, target.port, target.user, target.password


def _plan(items: Iterable[tuple[URL, Target]]) -> deque[_Step]:
    """The commands for ``items`` in order, a GROUP wherever the group changes."""
    steps: deque[_Step] = deque()
    group: str | None = None
    for url, target in items:
        if target.kind == "article-number":
            assert target.group is not None
            if target.group != group:
                group = target.group
                steps.append(_Step(Command.of("GROUP", group), group=group))
            steps.append(_Step(Command.of("ARTICLE", str(target.number)), url, target,
                               group=group, number=target.number))
        else:
            assert target.message_id is not None
            steps.append(_Step(Command.of("ARTICLE", message_id_argument(target.message_id)),
                               url, target))
    return steps


def _replan(steps: Iterable[_Step]) -> deque[_Step]:
    """:func:`_plan` again for the article steps of ``steps`` (on a new connection)."""
    return _plan([(s.url, s.target) for s in steps
                  if s.url is not None and s.target is not None])


def _answers(step: _Step, reply: Response) -> bool:
    """Whether ``reply`` can be the answer to ``step``: a 220 (to 223) names the
    article asked for.

    RFC 3977 6.2.1.2 puts in a 220 the number asked for (or, asked by message-id, 0 or
    the number in the group) and the message-id (asked by it: the one asked for). A
    pipelined answer naming another article, or none, means the server lost count of
    our commands, or sent one answer more than asked (STYLE 26): the article numbers
    and message-ids tie a response to its command, not its position. What cannot be
    told: an unasked 220 that names exactly the next article asked for, and codes
    that name nothing (a 423, a 430)."""
    if step.url is None:  # GROUP: a 211 names the group
        args = reply.arguments
        return reply.code != 211 or len(args) < 4 or args[3] == step.group
    if reply.code not in (220, 221, 222, 223):
        return True
    info = parse_article_reply(reply)
    if step.number is not None:
        return info.number == step.number
    assert step.target is not None and step.target.message_id is not None
    return info.message_id == message_id_argument(step.target.message_id)


def _for_url(error: AnyURLError, url: URL) -> AnyURLError:
    """``error`` for ``url``: the same class and words, naming that URL instead."""
    shown = url.masked()
    if error.url is None or error.url == shown:
        return error
    clone = copy.copy(error)
    clone.args = tuple(a.replace(error.url, shown) if isinstance(a, str) else a
                       for a in error.args)
    clone.message = error.message.replace(error.url, shown)
    clone.url = shown
    return clone


class _Body:
    """An article streamed from a batch's connection, valid until the batch moves on."""

    def __init__(self, session: Session, url: URL):
        self.session = session
        self.url = url
        self.done = False  # its terminating "." was read
        self.broken = False  # the connection failed in it
        self.detached = False  # the batch moved on: reading now would read another's

    async def chunks(self) -> AsyncIterator[bytes]:
        """The article's lines as they arrive (the resource's stream)."""
        session = self.session
        while self.detached or not self.done:
            if self.detached:
                raise StreamClosed(
                    f"the article {self.url.masked()} was read after its batch moved on",
                    url=self.url,
                    hint="Read each resource of open_batch before asking for the next.",
                )
            try:
                event = await session._event()
            except ConnectionLost:
                self.broken = True
                raise PartialTransfer(
                    f"{session.what()} closed the connection in the middle of "
                    f"{self.url.masked()}",
                    url=self.url,
                    hint="Try again; the server may have been restarted.",
                ) from None
            if isinstance(event, EndOfData):
                self.done = True
                if session.trace is not None:
                    session.trace("< .")
            elif isinstance(event, Data):
                yield event.data

    async def finish(self) -> bool:
        """Read and drop what the caller left of the article; False if the connection
        broke in it (so the batch needs a new one)."""
        self.detached = True
        while not (self.done or self.broken):
            try:
                event = await self.session._event()
            except AnyURLError:  # closed, timed out, or not NNTP: the connection is done
                self.broken = True
                break
            self.done = isinstance(event, EndOfData)
        return not self.broken


async def run_batch(
    items: list[tuple[URL, Target]], options: FetchOptions, *, connect: Connect,
    serial: set[tuple[str, int]], warn: Callable[[str], None],
) -> AsyncGenerator[tuple[URL, Resource | AnyURLError], None]:
    """One server's articles over one pipelined connection (replaced as
    ``NewsHandler.open_batch`` says): ``connect`` opens one, ``serial`` holds the servers
    served one command at a time (the handler's, for its life), ``warn`` says so.

    The loop's state and each of its turns are :class:`_Batch`'s; here are the loop
    and the goodbye on the connection however the caller leaves."""
    if not items:
        return
    batch = _Batch(items, options, connect, serial, warn)
    try:
        while batch.todo or batch.inflight:
            async with aclosing(batch.turn()) as outcomes:
                async for item in outcomes:
                    yield item
    finally:
        if batch.session is not None:
            await batch.session.goodbye()


_Outcome = tuple[URL, Resource | AnyURLError]


class _Batch:
    """The state of :func:`run_batch`'s loop, and each turn of it cut where it decides.

    Every hand-over is a ``yield`` of an async generator the loop yields on at once, so
    the caller sees the outcomes in the same order and at the same moments as from one
    function: an article streams from the connection until the caller asks for the
    next outcome, and only then is the rest of it read and dropped.
    """

    def __init__(self, items: list[tuple[URL, Target]], options: FetchOptions,
                 connect: Connect, serial: set[tuple[str, int]],
                 warn: Callable[[str], None]):
        self.first_url, self.first = items[0]
        self.key = (self.first.host, self.first.port)
        self.options = options
        self.connect = connect
        self.serial = serial
        self.warn = warn
        self.todo = _plan(items)
        self.inflight: deque[_Step] = deque()
        self.failed_groups: dict[str, tuple[Response, URL]] = {}
        self.session: Session | None = None
        self.login = False
        self.answered = 0  # answers on the current connection (0: it answered nothing)
        self.depth = 1
        self.newline = b"\r\n" if options.raw else b"\n"

    def give_up(self) -> None:
        """Nothing more to ask: the loop ends."""
        self.todo.clear()
        self.inflight.clear()

    async def drop_session(self) -> list[_Step]:
        """Say goodbye on the connection; the article steps still owed an answer."""
        left = [s for s in (*self.inflight, *self.todo) if s.url is not None]
        if self.session is not None:
            await self.session.goodbye()
            self.session = None
        self.inflight.clear()
        return left

    async def turn(self) -> AsyncGenerator[_Outcome, None]:
        """Connect if need be, send a window, read its first answer and act on it."""
        if self.session is None:
            try:
                self.session = await self.connect(self.first_url, self.first, self.options,
                                                  login=self.login)
            except AnyURLError as exc:
                for step in (*self.inflight, *self.todo):
                    if step.url is not None:
                        yield step.url, exc
                self.give_up()
                return
            self.session.core.set_newline(self.newline)
            self.answered = 0
            self.depth = 1
        session = self.session
        if not self.inflight and self.answered and (session.core.unsolicited
                                                    or session.stream.bytes_waiting()):
            await self.out_of_step(session)
            return
        wire = self.fill(session)
        if not self.inflight:
            return
        step = self.inflight[0]
        session.url = step.url or session.url
        lost, reply = await self.first_reply(session, step, wire)
        if lost is None and step.refused is not None:
            self.inflight.popleft()  # answered here: its group was refused
            assert step.url is not None
            yield step.url, error(session, step.refused, f"GROUP {step.group}")
            return
        if reply is not None and reply.code == 400:  # the server is leaving
            lost = error(session, reply, step.command.display())
        if reply is not None and lost is None and reply.code == 480 \
                and not session.authenticated:
            lost = await self.login_demanded(session)
            if lost is None:
                self.todo.appendleft(self.inflight.popleft())  # asked again, logged in
                return
        if reply is not None and lost is None and not _answers(step, reply):
            lost = self.another_article(session, step, reply)
            if self.key in self.serial:  # even one at a time: that URL fails
                self.inflight.popleft()
                assert step.url is not None
                yield step.url, lost
            else:  # lost count of what we pipelined: one at a time from now on
                self.serial.add(self.key)
                self.warn(f"{session.what()} answered {step.command.display()} "
                          f"with {reply.line!r}; pipelining with it is off")
            self.answered += 1
        self.silent(session, lost)
        if lost is not None:
            async with aclosing(self.lose(lost)) as outcomes:
                async for item in outcomes:
                    yield item
            return
        assert reply is not None
        async with aclosing(self.answer(session, step, reply)) as outcomes:
            async for item in outcomes:
                yield item

    async def out_of_step(self, session: Session) -> None:
        """Bytes with no command owed answer nothing: the connection is out of step.
        What is left goes on a new one, one command at a time."""
        if self.key not in self.serial:
            self.serial.add(self.key)
            self.warn(f"{session.what()} sent a response nobody asked for; "
                      "pipelining with it is off")
        await session.goodbye()
        self.session = None
        self.todo = _replan(self.todo)

    def fill(self, session: Session) -> bytearray:
        """Fill the window: one write for all the commands it takes (a GROUP refused
        before is not sent again, and its articles are answered with its refusal)."""
        window = 1 if self.key in self.serial else self.depth
        wire = bytearray()
        while self.todo and len(self.inflight) < window and session.core.can_pipeline():
            step = self.todo.popleft()
            failed = self.failed_groups.get(step.group or "")
            if failed is not None and step.url is None:
                continue  # that group's GROUP was refused: nothing to select
            if failed is not None and step.number is not None:
                step.refused = failed[0]
            else:
                wire += session.core.pipeline(step.command)
                if session.trace is not None:
                    session.trace(f"> {step.command.display()}")
            self.inflight.append(step)
        return wire

    @staticmethod
    async def first_reply(session: Session, step: _Step,
                          wire: bytearray) -> tuple[AnyURLError | None, Response | None]:
        """Send ``wire`` and read ``step``'s reply (none for a step its group's
        refusal answers), or how the connection failed."""
        try:
            if wire:
                await session.stream.send(bytes(wire))
            if step.refused is None:
                return None, await session.response()
        except AnyURLError as exc:  # closed, timed out, or not NNTP
            return exc, None
        return None, None

    async def login_demanded(self, session: Session) -> AnyURLError | None:
        """A 480: log in now if nothing else is owed (None: logged in, ask again),
        else the error that sends the batch to a new connection that logs in first."""
        if len(self.inflight) == 1 and session.core.state is State.IDLE:
            try:
                await authenticate(session, self.options, proactive=False)
            except AnyURLError as exc:
                return exc
            return None
        # Pipelined commands met a login demand: a new connection logs in first
        # (progress of a kind: the next connection differs).
        self.login, self.answered = True, self.answered + 1
        return LoginDenied(f"{session.what()} asked for a login in the middle of a "
                           f"batch, at {session.url.masked()}", url=session.url)

    @staticmethod
    def another_article(session: Session, step: _Step, reply: Response) -> ProtocolError:
        """The error of a reply that names another article than ``step`` asked for."""
        return ProtocolError(f"{session.what()} answered {step.command.display()} for "
                             f"{session.url.masked()} with another article: {reply.line}",
                             url=session.url)

    def silent(self, session: Session, lost: AnyURLError | None) -> None:
        """Silence with commands pipelined: a server that throws away what follows a
        command (RFC 3977 3.5 warns of them). One at a time from now on."""
        if isinstance(lost, TransferTimeout) and len(session.core.owed) > 1 \
                and self.key not in self.serial:
            self.serial.add(self.key)
            self.warn(f"{session.what()} did not answer pipelined commands; "
                      "pipelining with it is off")
            self.answered += 1

    async def lose(self, lost: AnyURLError) -> AsyncGenerator[_Outcome, None]:
        """The connection is done: what is left goes on a new one, unless this one
        answered nothing (then every URL left has the error)."""
        left = await self.drop_session()
        if self.answered == 0:  # nothing came back on that connection: give up
            for s in left:
                assert s.url is not None
                yield s.url, _for_url(lost, s.url)
            self.give_up()
            return
        self.todo = _replan(left)

    async def answer(self, session: Session, step: _Step,
                     reply: Response) -> AsyncGenerator[_Outcome, None]:
        """``step``'s reply: a GROUP's remembered if refused, an error handed over, an
        article streamed from the connection until the caller moves on."""
        self.inflight.popleft()
        if step.url is None:  # GROUP
            if reply.code != 211:
                self.failed_groups[step.group or ""] = (reply, session.url)
            return
        self.answered += 1
        if reply.code != 220:
            yield step.url, error(session, reply, step.command.display())
            return
        self.depth = min(MAX_DEPTH, self.depth * 2)
        body = _Body(session, step.url)
        yield step.url, Resource(_article_info(step, reply), body.chunks())
        if not await body.finish():  # the connection broke in (or after) it
            self.todo = _replan(await self.drop_session())


def _article_info(step: _Step, reply: Response) -> ResourceInfo:
    """What an article's resource says about it (as ``NewsHandler._article`` does)."""
    target = step.target
    assert step.url is not None and target is not None
    info = parse_article_reply(reply)
    if target.kind == "article-number":
        filename = f"{target.group}.{target.number}"
    else:
        filename = (target.message_id or "article").replace("/", "_")
    return ResourceInfo(
        url=step.url,
        content_type="message/rfc822",
        filename=filename,
        kind="article",
        extra={"server": target.hostport, "message_id": info.message_id,
               "number": info.number or target.number, "group": target.group},
    )
