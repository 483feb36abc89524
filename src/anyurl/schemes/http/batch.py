"""A route's pipelined batch: many GET (or HEAD) requests written ahead of the answers.

The handler's ``open_batch`` hands a route's URLs here (:func:`pipelined`) when the
batch does not speak HTTP/2. The connection and its strict response reader are
:mod:`.pipeline`'s; here is the loop over one route's URLs (:class:`PipelineRun`): how
wide a window opens, what is held until a window is answered (a small body, an error),
what a close, a timeout or bytes nobody asked for mean, and when a route is served one
request at a time from then on. The requests are written as a single request's
(:func:`prepare`, with the headers the handler builds), and what a response means is
the handler's (:attr:`.seam.HandlerSeam.answer`), reached through the seam it hands
in, never by importing it.
"""

from __future__ import annotations

import dataclasses
import time
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator
from contextlib import aclosing
from functools import partial
from typing import Any

import anyio
import h11

from anyurl.errors import AnyURLError, OptionError, TransferTimeout
from anyurl.resource import Resource
from anyurl.schemes.base import FetchOptions, Trace
from anyurl.schemes.http.http11 import HTTP11Connection
from anyurl.schemes.http.interfaces import Connection, Response
from anyurl.schemes.http.options import HTTPOptions
from anyurl.schemes.http.pipeline import (
    FAR,
    MAX_DEPTH,
    NEAR_DEPTH,
    Exchange,
    Malformed,
    PipelinedConnection,
    keeps_alive,
    moved_on,
)
from anyurl.schemes.http.responses import small_resource
from anyurl.schemes.http.routes import Route, mask_header, masked_target, request_target
from anyurl.schemes.http.seam import HandlerSeam
from anyurl.url import URL

__all__ = ["Outcome", "PipelineRun", "Step", "Template", "end_pipe", "mis_answered", "open_pipe",
           "pipelined", "prepare", "release_held"]


@dataclasses.dataclass
class Step:
    """One URL of a pipelined batch: its request bytes once written, or its error."""

    url: URL
    data: bytes | None = None
    headers: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    error: AnyURLError | None = None
    #: Sent while another request was unanswered (pipelined).
    behind: bool = False
    #: The headers as printed (passwords masked), when a template made them.
    masked: list[tuple[str, str]] | None = None
    #: The request-target as printed, when a template made the request.
    shown_target: str | None = None


@dataclasses.dataclass
class Template:
    """A route's request for one ``Host``, built once: the bytes before and after the
    target, and the headers (as sent and masked). Only for requests whose headers do
    not vary by URL (no login in the URL, no netrc, no cookie jar)."""

    head: bytes
    tail: bytes
    headers: list[tuple[str, str]]
    masked: list[tuple[str, str]]


#: What a batch hands over for each URL, in order.
Outcome = tuple[URL, Resource | AnyURLError]


class PipelineRun:
    """One route's pipelined batch (:func:`pipelined`): the state of its loop, and each
    turn of the loop cut where it decides something.

    Every hand-over is a ``yield`` of an async generator the loop yields on at once,
    so the caller sees the outcomes in the same order and at the same moments as
    from one function: a streamed body is read before the connection moves past it,
    and :func:`release_held` withdraws a body in memory only once the caller moved on.
    """

    def __init__(self, seam: HandlerSeam, route: Route, urls: list[URL],
                 options: FetchOptions, method: str):
        self.seam = seam
        self.route = route
        self.options = options
        self.http = options.get(HTTPOptions)
        self.trace = options.trace
        self.method = method
        self.todo: deque[Step] = deque(Step(url) for url in urls)
        self.inflight: deque[Step] = deque()
        self.pipe: PipelinedConnection | None = None
        self.depth = 1
        self.cap = NEAR_DEPTH  # until a round trip shows a long path
        self.sent_at: float | None = None
        self.keep = False
        self.templates: dict[tuple[str, str | None, int | None], Template | None] = {}
        # The window's outcomes not handed over yet: a small body or an error is held
        # until the window is answered with nothing after it (see the handler's
        # open_batch).
        self.held: deque[tuple[Step, Resource | AnyURLError]] = deque()

    def prepare(self, step: Step) -> None:
        """``step``'s request bytes, or its error (:func:`prepare`)."""
        prepare(step, self.route, self.options, self.http, self.method, self.seam.headers,
                self.templates)

    def mis_answered(self, why: str) -> None:
        """The route is served one request at a time from now on."""
        mis_answered(self.seam.serial_routes, self.route, self.trace, why)

    def ask_again(self) -> None:
        """What the window answered, and what it still owes, goes back to be asked."""
        self.todo.extendleft(reversed([*(s for s, _ in self.held), *self.inflight]))
        self.held.clear()
        self.inflight.clear()

    async def drop_pipe(self) -> None:
        """Close the connection; the next turn opens another."""
        if self.pipe is not None:
            await self.pipe.aclose()
            self.pipe = None

    async def serially(self) -> AsyncGenerator[Outcome, None]:
        """The route mis-answered: the window's URLs and the rest, one request at a time."""
        await self.drop_pipe()
        self.ask_again()
        while self.todo:
            step = self.todo.popleft()
            yield step.url, await _open_one(self.seam, step.url, self.options)

    async def turn(self) -> AsyncGenerator[Outcome, None]:
        """Connect if need be, send a window, read its first answer and act on it."""
        if self.pipe is None:
            failed = await self.connect()
            if failed is not None:
                step = self.todo.popleft()
                yield step.url, failed  # the next URL tries its own connection
                return
        pipe = self.pipe
        assert pipe is not None
        step, wire = self.window()
        pipe.stream.url = step.url
        try:
            response = await self.head(pipe, step, wire)
        except Malformed as exc:
            self.mis_answered(f"its bytes are not a response ({exc})")
            return
        except TransferTimeout as exc:
            if step.behind or len(self.inflight) > 1:
                self.mis_answered("it did not answer pipelined requests")
                return
            self.inflight.popleft()
            await self.drop_pipe()
            for item in release_held(self.held):
                yield item
            yield step.url, exc
            return
        except AnyURLError as exc:  # closed or broken before this response
            async with aclosing(self.broken(pipe, exc)) as items:
                async for item in items:
                    yield item
            return
        if response is None:  # a request that could not be written
            self.inflight.popleft()
            assert step.error is not None
            self.held.append((step, step.error))
            return
        async with aclosing(self.answered(pipe, step, response)) as items:
            async for item in items:
                yield item

    async def connect(self) -> AnyURLError | None:
        """A connection to pipeline on, or why the first URL's connection failed."""
        first = self.todo[0]
        if first.data is None and first.error is None:
            # Before connecting, as open() does (its warnings come first).
            self.prepare(first)
        try:
            self.pipe = await self.seam.pipe(self.route, first.url, self.trace)
        except AnyURLError as exc:
            return exc
        self.depth = 1
        return None

    def window(self) -> tuple[Step, bytearray]:
        """The window's requests as one write, and the step whose answer comes first.

        A new window only when the last is answered: a server that drops a request it
        received along with another (it reads one per read) then stays silent and is
        caught by the read timeout; had more requests followed, their answers would
        have been taken for the dropped one's.
        """
        wire = bytearray()
        while self.todo and (not self.inflight or wire) and len(self.inflight) < self.depth:
            step = self.todo.popleft()
            if step.data is None:
                self.prepare(step)
            self.inflight.append(step)
            step.behind = len(self.inflight) > 1
            if step.error is None:
                wire += step.data or b""
                if self.trace:
                    self.trace(f"> {self.method} {masked_target(step.url, self.route)} "
                               f"HTTP/1.1{' (pipelined)' if step.behind else ''}")
        return self.inflight[0], wire

    async def head(self, pipe: PipelinedConnection, step: Step,
                   wire: bytearray) -> Response | None:
        """Send ``wire``, read ``step``'s response head (None: ``step`` was not sent).

        A window's first answer measures the path's round trip, which sets how wide
        windows may open.
        """
        if wire:
            await pipe.stream.send(bytes(wire))
            self.sent_at = time.monotonic()
        if step.error is not None:
            return None
        response = await pipe.head()
        if self.sent_at is not None and not step.behind:
            far = time.monotonic() - self.sent_at >= FAR
            self.cap = MAX_DEPTH if far else NEAR_DEPTH
        self.sent_at = None
        return response

    async def broken(self, pipe: PipelinedConnection,
                     exc: AnyURLError) -> AsyncGenerator[Outcome, None]:
        """The connection closed or broke before a response: what came before stands;
        the window is sent again on a new one if this one answered anything, else
        its first URL has the error."""
        answered = pipe.answered or pipe.cycles
        await self.drop_pipe()
        for item in release_held(self.held):  # what came before the close stands
            yield item
        self.todo.extendleft(reversed(self.inflight))
        self.inflight.clear()
        if answered:
            if self.trace:
                self.trace("* the server closed the connection with requests "
                           "unanswered; sending them again on a new one")
            return
        step = self.todo.popleft()
        yield step.url, exc

    async def answered(self, pipe: PipelinedConnection, step: Step,
                       response: Response) -> AsyncGenerator[Outcome, None]:
        """``step``'s response: held (a small body, an error) or handed over (a
        stream); then the window's end is checked for bytes nobody asked for."""
        whole, index, reused = self.small_body(pipe, response)
        exchange: Exchange | None = None
        if whole is None:
            try:
                exchange = pipe.exchange(response, self.method, step.url)
            except Malformed as exc:
                self.mis_answered(f"its framing is ambiguous ({exc})")
                return
        self.inflight.popleft()
        self.read_keep_alive(step, response)
        sent = self.sent(step)
        if whole is not None:
            self.held.append((step, small_resource(step.url, response, index, whole,
                                                   reused, sent)))
        else:
            assert exchange is not None
            # (an Exchange is a Connection but for request()'s annotation: pipeline's
            # Exchange.request says ``body: bytes | None`` and never sends a body)
            outcome = await self.seam.answer(step.url, exchange, response,  # type: ignore[arg-type]
                                             self.options, self.method, sent)
            if isinstance(outcome, Resource):  # a stream: handed over now
                for item in release_held(self.held):
                    yield item
                yield step.url, outcome
            await pipe.drain()
            if not isinstance(outcome, Resource):
                self.held.append((step, outcome))
        if not pipe.finished and (not self.inflight or not self.keep) and pipe.out_of_step():
            # Bytes with no request outstanding: this window's answers may each be the
            # one before's. Asked again one at a time (the next turn).
            self.mis_answered("it sent a response nobody asked for")
            self.ask_again()
            return
        if not self.inflight or not self.keep or pipe.finished:
            for item in release_held(self.held):
                yield item
        if not self.keep or pipe.finished:
            await self.drop_pipe()
            self.todo.extendleft(reversed(self.inflight))
            self.inflight.clear()

    def small_body(self, pipe: PipelinedConnection,
                   response: Response) -> tuple[bytes | None, dict[str, str], bool]:
        """A plain 200's whole body when it is small and already read, the head as a
        dict, and whether the connection was reused; (None, {}, False) otherwise.

        Taken out of the read buffer only with no content coding to undo (none sent,
        or decoding off); a name given twice goes the general way (the reader decides
        what two lengths mean).
        """
        if response.status != 200 or self.method != "GET":
            return None, {}, False
        index = dict(response.headers)
        if (len(index) != len(response.headers) or "transfer-encoding" in index
                or (self.http.decode_content and index.get("content-encoding"))):
            return None, index, False
        reused = pipe.cycles > 0
        return pipe.whole_body(index.get("content-length")), index, reused

    def read_keep_alive(self, step: Step, response: Response) -> None:
        """Keep-alive opens the window; HTTP/1.0 ends pipelining on the route.

        Once a request sent behind another was answered rightly, the server
        pipelines: the window opens wide (a round trip per window is what a long path
        costs); until then, it doubles.
        """
        self.keep = keeps_alive(response)
        if self.keep:
            self.depth = self.cap if step.behind else min(self.cap, self.depth * 2)
        elif response.http_version != "1.1":
            self.seam.serial_routes.add(self.route)  # HTTP/1.0: nothing to pipeline
        if self.trace:
            self.trace(f"< {response.status_line}")
            for k, v in response.headers:
                self.trace(f"< {k}: {v}")

    def sent(self, step: Step) -> dict[str, Any]:
        """The request as the resource's metadata shows it (passwords masked)."""
        return {"method": self.method,
                "target": step.shown_target or masked_target(step.url, self.route),
                "http_version": "1.1",
                "headers": list(step.masked) if step.masked is not None else
                [(k, mask_header(k, v)) for k, v in step.headers],
                "body": None}


async def pipelined(
    seam: HandlerSeam, route: Route, urls: list[URL], options: FetchOptions, method: str
) -> AsyncGenerator[Outcome, None]:
    """One route's URLs over a pipelined connection (see the handler's ``open_batch``).

    The loop's state and each of its turns are :class:`PipelineRun`'s; here are the
    loop and the end that gives the connection back (to the pool when it stands clean
    between responses) however the caller leaves.
    """
    run = PipelineRun(seam, route, urls, options, method)
    try:
        while run.todo or run.inflight:
            turn = run.serially() if route in seam.serial_routes else run.turn()
            async with aclosing(turn) as items:
                async for item in items:
                    yield item
        for item in release_held(run.held):
            yield item
    finally:
        if run.pipe is not None:
            with anyio.CancelScope(shield=True):
                await end_pipe(seam.keep, run.pipe, clean=run.keep and not run.inflight)


async def open_pipe(
    connect: Callable[[Route, URL, Trace | None, bool, bool], Awaitable[Connection]],
    route: Route, url: URL, trace: Trace | None,
) -> PipelinedConnection:
    """A pooled HTTP/1.1 connection (at a clean boundary) or a new one, to pipeline on."""
    while True:
        conn = await connect(route, url, trace, False, False)
        if isinstance(conn, HTTP11Connection) and not conn.h11.trailing_data[0] \
                and conn.h11.our_state is h11.IDLE:
            return PipelinedConnection(conn.stream, route, conn.cycles)
        await conn.aclose()  # pragma: no cover - the pool keeps clean ones only


async def end_pipe(keep: Callable[[Connection], Awaitable[None]],
                   pipe: PipelinedConnection, *, clean: bool) -> None:
    """Back to the pool as an h11 connection when it stands between responses."""
    current = pipe.current
    if (clean and not pipe.finished and (current is None or current.done)
            and not pipe.reader.eof and not pipe.out_of_step()):
        conn = HTTP11Connection(pipe.stream, pipe.key)
        conn.cycles = pipe.cycles
        await keep(conn)
    else:
        await pipe.aclose()


def mis_answered(serial_routes: set[Route], route: Route, trace: Trace | None,
                 why: str) -> None:
    """Remember ``route`` as one to serve one request at a time."""
    serial_routes.add(route)
    if trace:
        trace(f"* {route.host}:{route.port} mis-answered pipelined requests ({why}); "
              "one at a time from now on")


#: A request's headers, credentials included (:attr:`.seam.HandlerSeam.headers`).
HeaderBuilder = Callable[[URL, Route, FetchOptions], list[tuple[str, str]]]


def prepare(step: Step, route: Route, options: FetchOptions, http: HTTPOptions,
            method: str, headers_for: HeaderBuilder,
            templates: dict[tuple[str, str | None, int | None], Template | None]
            | None = None) -> None:
    """The request bytes of ``step`` (as h11 would write them), or its error.

    With ``templates`` (the batch's, by what ``Host`` is made of), a URL whose headers
    cannot differ from its neighbours' (no login in it, no netrc, no cookie jar) has its
    target put into a request built once; anything the template cannot write as this
    function would goes the general way below, which names the error.
    """
    current = step.url.without_fragment()
    if (templates is not None and current.user is None and not http.netrc
            and http.cookies is None and _templated(step, current, route, options, method,
                                                     headers_for, templates)):
        return
    try:
        headers = headers_for(current, route, options)
        target = request_target(current, route)
        lines = [f"{method} {target} HTTP/1.1", *(f"{k}: {v}" for k, v in headers)]
        text = "\r\n".join(lines)
        if any(c in text for c in "\0") or " " in target or "\n" in target or any(
                "\r" in k + v or "\n" in k + v for k, v in headers):
            raise OptionError(f"the request for {current.masked()} cannot be written")
        step.data = (text + "\r\n\r\n").encode("latin-1")
        step.headers = headers
    except UnicodeEncodeError:
        step.error = OptionError(
            f"the request for {current.masked()} has a header that is not Latin-1")
    except AnyURLError as exc:
        step.error = exc


def _templated(step: Step, current: URL, route: Route, options: FetchOptions, method: str,
               headers_for: HeaderBuilder,
               templates: dict[tuple[str, str | None, int | None], Template | None]) -> bool:
    """Whether ``step``'s request was written from its host's template (see
    :func:`prepare`): False when there is none or the target does not fit in one."""
    key = (current.scheme, current.host, current.port)
    template = templates.get(key)
    if template is None and key not in templates:
        template = templates[key] = _template(current, route, options, method, headers_for)
    if template is None:
        return False
    target = request_target(current, route)
    if "\0" in target or " " in target or "\n" in target:
        return False
    try:
        step.data = template.head + target.encode("latin-1") + template.tail
    except UnicodeEncodeError:
        return False
    step.headers = template.headers
    step.masked = template.masked
    if not route.absolute_form:  # else the URL, its password masked
        step.shown_target = target
    return True


def _template(url: URL, route: Route, options: FetchOptions, method: str,
              headers_for: HeaderBuilder) -> Template | None:
    """The request of ``url``'s route and host with the target left out (see
    :func:`prepare`); None when its headers cannot be written (then each URL goes the
    general way, which names the error). ``url`` has no login and no netrc applies,
    so its headers carry no credentials that another URL's would not."""
    try:
        headers = headers_for(url, route, options)
    except AnyURLError:
        return None
    lines = "\r\n".join(f"{k}: {v}" for k, v in headers)
    if "\0" in lines or any("\r" in k + v or "\n" in k + v for k, v in headers):
        return None
    try:
        tail = f" HTTP/1.1\r\n{lines}\r\n\r\n".encode("latin-1")
        head = f"{method} ".encode("latin-1")
    except UnicodeEncodeError:
        return None
    return Template(head, tail, headers, [(k, mask_header(k, v)) for k, v in headers])


def release_held(held: deque[tuple[Step, Resource | AnyURLError]]) -> Iterator[Outcome]:
    """Hand ``held`` over in order, emptying it; a body in memory not read by the time
    the next is asked for is withdrawn, as a stream's is."""
    while held:
        step, outcome = held.popleft()
        yield step.url, outcome
        if isinstance(outcome, Resource):
            outcome.withdraw(partial(moved_on, step.url))


async def _open_one(seam: HandlerSeam, url: URL,
                    options: FetchOptions) -> Resource | AnyURLError:
    """The handler's ``open``, its error returned."""
    try:
        return await seam.open(url, options)
    except AnyURLError as exc:
        return exc
