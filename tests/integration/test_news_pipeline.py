"""NNTP pipelining: NewsHandler.open_batch against leafnode and the loopback server.

open_batch sends a group's ARTICLE commands pipelined on one connection [RFC 3977 3.5].
These tests check what a caller sees (every URL once, in order, each with its article or
its own error) and what reached the server, including servers that close after N
commands, throw away pipelined commands, mis-answer, or close in the middle of an article.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import pytest

from anyurl import Resolver
from anyurl.errors import (
    AnyURLError,
    ConnectionLost,
    PartialTransfer,
    ProtocolError,
    RemoteFileNotFound,
    StreamClosed,
    URLError,
)
from anyurl.resource import Resource
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.news.handler import NewsHandler
from anyurl.schemes.news.loopback import (
    SAMPLE_GROUP,
    NNTPServerConfig,
    generated_articles,
)
from tests.integration import test_news
from tests.integration.test_news import Backend, loopback
from tests.peers.table import NEWS_GROUP

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

# The servers of test_news.py: leafnode and the loopback server.
backend_name = test_news.backend_name
serving = test_news.serving

Outcome = tuple[str, bytes | type[AnyURLError]]


async def batch(r: Resolver, texts: Sequence[str], options: FetchOptions | None = None,
                ) -> list[Outcome]:
    """open_batch over ``texts``: (url, body or error class) per URL, in order."""
    urls = [r.admit(t) for t in texts]
    handler = r.handler_for(urls[0])
    assert isinstance(handler, NewsHandler)
    out: list[Outcome] = []
    async for url, outcome in handler.open_batch(urls, options or FetchOptions()):
        assert url is urls[len(out)]  # in order, the object as given
        if isinstance(outcome, Resource):
            try:
                out.append((str(url), await outcome.read()))
            except AnyURLError as exc:
                out.append((str(url), type(exc)))
        else:
            out.append((str(url), type(outcome)))
    return out


def many(count: int) -> NNTPServerConfig:
    return NNTPServerConfig(articles=generated_articles(count))


def text(backend: Backend, number: int) -> bytes:
    assert backend.server is not None
    article = backend.server.config.articles[number - 1]
    return b"\n".join(article.lines()) + b"\n"


# -- both servers ---------------------------------------------------------------------------


async def test_batch_in_order_with_a_missing_article_and_a_listing(
        serving: Callable[[], Any]) -> None:
    async with serving() as backend, Resolver(backend.config()) as r:
        texts = [backend.nntp(f"{NEWS_GROUP}/{n}") for n in (1, 2, 99, 3)]
        texts += ["news:article2@anyurl.test", backend.nntp(NEWS_GROUP),
                  "news:missing@anyurl.test", backend.nntp(f"{NEWS_GROUP}/1")]
        got = await batch(r, texts)
    assert [u for u, _ in got] == [str(r.admit(t)) for t in texts]
    outcomes = [o for _, o in got]
    assert outcomes[:5] == [backend.expected(1), backend.expected(2), RemoteFileNotFound,
                            backend.expected(3), backend.expected(2)]
    assert isinstance(outcomes[5], bytes) and b"Third article" in outcomes[5]  # the listing
    assert outcomes[6:] == [RemoteFileNotFound, backend.expected(1)]


async def test_batch_raw_articles_are_the_wire_form(serving: Callable[[], Any]) -> None:
    async with serving() as backend, Resolver(backend.config()) as r:
        got = await batch(r, [backend.nntp(f"{NEWS_GROUP}/{n}") for n in (1, 2, 3)],
                          FetchOptions(raw=True))
    assert [o for _, o in got] == [backend.expected(n).replace(b"\n", b"\r\n")
                                   for n in (1, 2, 3)]


async def test_batch_of_a_refused_group_fails_its_urls_only(
        serving: Callable[[], Any]) -> None:
    async with serving() as backend, Resolver(backend.config()) as r:
        got = await batch(r, [backend.nntp("no.such.group/1"), backend.nntp("no.such.group/2"),
                              backend.nntp(f"{NEWS_GROUP}/3")])
    assert [o for _, o in got] == [RemoteFileNotFound, RemoteFileNotFound,
                                   backend.expected(3)]


# -- the loopback server: pipelining seen from the server -------------------------------------


async def test_articles_are_pipelined_on_one_connection() -> None:
    async with loopback(many(60)) as backend, Resolver(backend.config()) as r:
        got = await batch(r, [backend.nntp(f"{SAMPLE_GROUP}/{n}") for n in range(1, 61)])
        assert [o for _, o in got] == [text(backend, n) for n in range(1, 61)]
        server = backend.server
        assert server is not None
        assert server.connections == 1
        assert server.pipelined > 0  # commands arrived before the previous answer
        commands = [c for c in server.received if c.startswith(("GROUP", "ARTICLE"))]
        assert commands == [f"GROUP {SAMPLE_GROUP}"] + [f"ARTICLE {n}" for n in range(1, 61)]
        assert server.received[-1] == "QUIT"


async def test_server_closing_after_n_commands_gets_the_rest_on_new_connections() -> None:
    config = many(30)
    config.close_after = 7  # CAPABILITIES, GROUP, then five articles per connection
    async with loopback(config) as backend, Resolver(backend.config()) as r:
        got = await batch(r, [backend.nntp(f"{SAMPLE_GROUP}/{n}") for n in range(1, 31)])
        assert [o for _, o in got] == [text(backend, n) for n in range(1, 31)]
        assert backend.server is not None and backend.server.connections == 6


async def test_server_closing_before_any_article_fails_the_urls_without_looping() -> None:
    config = many(5)
    config.close_after = 2  # CAPABILITIES and GROUP only
    async with loopback(config) as backend, Resolver(backend.config()) as r:
        got = await batch(r, [backend.nntp(f"{SAMPLE_GROUP}/{n}") for n in range(1, 6)])
        assert backend.server is not None and backend.server.connections == 1
    assert [o for _, o in got] == [ConnectionLost] * 5
    assert len({u for u, _ in got}) == 5


async def test_server_dropping_pipelined_commands_is_served_one_at_a_time() -> None:
    config = many(40)
    config.discard_pipelined = True  # RFC 3977 3.5's servers that throw text away
    warnings: list[str] = []
    async with loopback(config) as backend, \
            Resolver(backend.config(read_timeout=2.0), warn=warnings.append) as r:
        texts = [backend.nntp(f"{SAMPLE_GROUP}/{n}") for n in range(1, 41)]
        got = await batch(r, texts)
        assert [o for _, o in got] == [text(backend, n) for n in range(1, 41)]
        assert len(warnings) == 1 and "pipelining with it is off" in warnings[0]
        server = backend.server
        assert server is not None
        connections, pipelined = server.connections, server.pipelined
        # remembered: the next batch to that server sends one command at a time
        assert [o for _, o in await batch(r, texts[:10])] == [text(backend, n)
                                                               for n in range(1, 11)]
        assert server.connections == connections + 1
        assert server.pipelined == pipelined
        assert len(warnings) == 1


async def test_reading_a_resource_after_the_batch_moved_on_is_refused() -> None:
    async with loopback(many(3)) as backend, Resolver(backend.config()) as r:
        urls = [r.admit(backend.nntp(f"{SAMPLE_GROUP}/{n}")) for n in (1, 2, 3)]
        handler = r.handler_for(urls[0])
        assert isinstance(handler, NewsHandler)
        kept: list[Resource] = []
        bodies = []
        async for _url, outcome in handler.open_batch(urls, FetchOptions()):
            assert isinstance(outcome, Resource)
            kept.append(outcome)
            if len(kept) == 2:
                bodies.append(await outcome.read())  # the first is left unread
        assert bodies == [text(backend, 2)]
        with pytest.raises(StreamClosed):
            await kept[0].read()


async def test_a_bad_url_in_a_batch_fails_alone() -> None:
    async with loopback() as backend, Resolver(backend.config()) as r:
        # The gate refuses this URL (section 6); built past it, the core refuses it too.
        with pytest.raises(URLError):
            r.admit("news:a%0D%0AQUIT@x")
        urls = [r.admit(backend.nntp(f"{SAMPLE_GROUP}/1")),
                r.admit("news:a@x").replace(opaque="a%0D%0AQUIT@x"),
                r.admit(backend.nntp(f"{SAMPLE_GROUP}/2"))]
        handler = r.handler_for(urls[0])
        assert isinstance(handler, NewsHandler)
        got = [(u, o if isinstance(o, AnyURLError) else await o.read())
               async for u, o in handler.open_batch(urls, FetchOptions())]
    assert [u for u, _ in got] == urls
    assert isinstance(got[1][1], URLError)
    assert [got[0][1], got[2][1]] == [text(backend, 1), text(backend, 2)]


# -- scripted servers: what no packaged server does on demand -------------------------------


Script = Callable[[int, anyio.abc.SocketStream, list[bytes]], Awaitable[None]]


@asynccontextmanager
async def scripted(script: Script) -> AsyncIterator[int]:
    """A server whose answers to ARTICLE n are ``script(connection, stream, numbers)``;
    it greets, refuses CAPABILITIES and MODE READER (500) and accepts any GROUP."""
    connections = 0

    async def handle(stream: anyio.abc.SocketStream) -> None:
        nonlocal connections
        connections += 1
        async with stream:
            with suppress(anyio.BrokenResourceError, _Close):
                await converse(connections, stream)

    async def converse(number: int, stream: anyio.abc.SocketStream) -> None:
        await stream.send(b"200 scripted\r\n")
        buffer = b""
        numbers: list[bytes] = []
        while True:
            while b"\r\n" not in buffer:
                try:
                    buffer += await stream.receive()
                except (anyio.EndOfStream, anyio.BrokenResourceError):
                    return
            line, _, buffer = buffer.partition(b"\r\n")
            verb, _, arg = line.partition(b" ")
            if verb == b"GROUP":
                await stream.send(b"211 9 1 9 " + arg + b"\r\n")
            elif verb == b"ARTICLE":
                numbers.append(arg)
                await script(number, stream, numbers)
            elif verb == b"QUIT":
                await stream.send(b"205 bye\r\n")
                return
            else:
                await stream.send(b"500 what?\r\n")

    listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
    async with listener, anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, handle)
        yield listener.extra(anyio.abc.SocketAttribute.local_port)
        tg.cancel_scope.cancel()


class _Close(Exception):
    """The script closes the connection."""


def article(number: bytes, body: bytes = b"body") -> bytes:
    return b"220 " + number + b" <a" + number + b"@x>\r\nSubject: s\r\n\r\n" + body + b"\r\n.\r\n"


async def scripted_batch(port: int, count: int, **config: Any) -> list[Outcome]:
    from anyurl.config import Config

    async with Resolver(Config(allowed_ports=frozenset({port}), **config),
                        warn=lambda _: None) as r:
        return await batch(r, [f"nntp://127.0.0.1:{port}/g/{n}" for n in range(1, count + 1)])


async def test_close_in_the_middle_of_an_article_fails_it_and_resends_the_rest() -> None:
    async def script(conn: int, stream: anyio.abc.SocketStream, numbers: list[bytes]) -> None:
        if conn == 1 and numbers[-1] == b"2":
            await stream.send(b"220 2 <a2@x>\r\nSubject: s\r\n\r\npart of")
            raise _Close
        await stream.send(article(numbers[-1]))

    async with scripted(script) as port:
        got = await scripted_batch(port, 6)
    assert [o for _, o in got] == [b"Subject: s\n\nbody\n", PartialTransfer] + [
        b"Subject: s\n\nbody\n"] * 4


async def test_a_mis_answering_server_is_served_one_at_a_time() -> None:
    # The first connection answers each ARTICLE with the article after it (it lost one);
    # the second answers right.
    async def script(conn: int, stream: anyio.abc.SocketStream, numbers: list[bytes]) -> None:
        n = numbers[-1]
        if conn == 1 and n != b"1":
            n = str(int(n) + 1).encode()
        await stream.send(article(n, b"body " + n))

    async with scripted(script) as port:
        got = await scripted_batch(port, 8)
    assert [o for _, o in got] == [b"Subject: s\n\nbody %d\n" % n for n in range(1, 9)]


async def test_a_server_mis_answering_one_at_a_time_fails_that_url() -> None:
    async def script(conn: int, stream: anyio.abc.SocketStream, numbers: list[bytes]) -> None:
        n = numbers[-1]
        await stream.send(article(b"7" if n == b"3" else n))

    async with scripted(script) as port:
        got = await scripted_batch(port, 5)
    outcomes = [o for _, o in got]
    assert outcomes[2] is ProtocolError
    assert outcomes[:2] == outcomes[3:] == [b"Subject: s\n\nbody\n"] * 2


# -- the downloader's batches (issue 21): anyurl get of a group's articles ----------------


async def test_downloader_pipelines_a_groups_articles_into_files(tmp_path: Path) -> None:
    from anyurl.downloads.downloader import Downloader, DownloadPolicy, Job

    async with loopback(many(40)) as backend, Resolver(backend.config()) as r:
        jobs = [Job(backend.nntp(f"{SAMPLE_GROUP}/{n}"), tmp_path / f"a{n}")
                for n in range(1, 41)]
        results = await Downloader(r, DownloadPolicy(per_host=1)).run(jobs)
        server = backend.server
        assert server is not None
        assert server.connections == 1
        assert server.pipelined > 0  # the downloader handed them over as one batch
    assert all(res.ok for res in results), [res.error for res in results if not res.ok]
    for n in range(1, 41):
        assert (tmp_path / f"a{n}").read_bytes() == text(backend, n)
