"""Retries as curl, wget and httpx users expect (issue 23): a server's ``Retry-After``
honoured on 429 and 503 (capped by the longest wait), jitter in the backoff (predictable
through an injected random source), and ``--retry-all-errors``, side by side with curl."""

from __future__ import annotations

import itertools
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from anyurl import Resolver
from anyurl.config import Config
from anyurl.downloads.downloader import Downloader, DownloadEvents, DownloadPolicy, Job
from anyurl.errors import AnyURLError, OptionError
from anyurl.schemes.http.handler import retry_after_seconds
from tests.cli.test_curl_options import anyurl, curl
from tests.integration.test_http import Reply, Request, ScriptedServer


@pytest.fixture
def server() -> ScriptedServer:
    srv = ScriptedServer()
    yield srv  # type: ignore[misc]
    srv.close()


def first_then_ok(*first: Reply) -> Callable[[Request], Reply]:
    """A route answering ``first`` in turn, then 200 with a body."""
    answers = itertools.chain(first, itertools.repeat(Reply(body=b"at last\n")))
    return lambda request: next(answers)


# -- the wait ----------------------------------------------------------------------------

def test_jitter_is_predictable_with_a_seeded_source() -> None:
    def waits(kind: str) -> list[float]:
        policy = DownloadPolicy(retry_delay=1, retry_max_delay=5, retry_jitter=kind,
                                random=random.Random(7).random)
        return [policy.backoff(n) for n in range(1, 6)]

    assert waits("equal") == waits("equal")
    base = [1, 2, 4, 5, 5]
    draws = [random.Random(7).random() for _ in range(1)]
    assert waits("equal")[0] == pytest.approx(0.5 + 0.5 * draws[0])
    assert all(w / 2 <= got <= w for w, got in zip(base, waits("equal"), strict=True))
    assert all(0 <= got <= w for w, got in zip(base, waits("full"), strict=True))
    assert waits("full") != base and waits("equal") != base
    assert waits("none") == base


def test_retry_after_is_a_floor_capped_by_the_longest_wait() -> None:
    policy = DownloadPolicy(retry_delay=1, retry_max_delay=30, retry_jitter="full",
                            random=lambda: 0.0)
    assert policy.backoff(1) == 0.0
    assert policy.backoff(1, retry_after=12) == 12
    assert policy.backoff(1, retry_after=86400) == 30  # a server cannot park the run
    assert policy.backoff(6, retry_after=0) == 0.0


def test_an_unknown_jitter_is_refused() -> None:
    with pytest.raises(OptionError, match="retry_jitter='gaussian'"):
        DownloadPolicy(retry_jitter="gaussian").backoff(1)


def test_the_config_carries_jitter_and_all_errors() -> None:
    policy = DownloadPolicy.from_config(Config(retry_jitter="none", retry_all_errors=True))
    assert policy.retry_jitter == "none" and policy.retry_all_errors


def test_retry_after_values() -> None:
    now = 784111777.0  # Sun, 06 Nov 1994 08:49:37 GMT
    assert retry_after_seconds("120") == 120
    assert retry_after_seconds(" 0 ") == 0
    assert retry_after_seconds("Sun, 06 Nov 1994 08:51:37 GMT", now=now) == 120
    assert retry_after_seconds("Sun, 06 Nov 1994 08:48:37 GMT", now=now) == 0
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds("-5") is None
    assert retry_after_seconds(None) is None


# -- the library -------------------------------------------------------------------------

@pytest.mark.anyio
async def test_the_error_carries_retry_after_and_the_downloader_waits_it(
        server: ScriptedServer) -> None:
    server.routes["/busy"] = first_then_ok(
        Reply(503, "Service Unavailable", headers=[("Retry-After", "7")]),
        Reply(429, "Too Many Requests", headers=[("Retry-After", "not a number")]))
    waits: list[tuple[float, float | None]] = []

    class Events(DownloadEvents):
        def retrying(self, job: Job, error: AnyURLError, retry: int, delay: float,
                     resume_at: int) -> None:
            waits.append((delay, error.retry_after))

    slept: list[float] = []
    real_sleep = anyio.sleep

    async def no_sleep(delay: float) -> None:  # the waits are checked, not waited
        slept.append(delay)
        await real_sleep(0)

    policy = DownloadPolicy(retry=2, retry_delay=0.25, retry_max_delay=10,
                            random=lambda: 0.5, per_host=1)
    sink = _Bytes()
    async with Resolver() as resolver:
        downloader = Downloader(resolver, policy, events=Events(), sink=sink)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(anyio, "sleep", no_sleep)
            [result] = await downloader.run([Job(server.url("/busy"))])
    assert result.ok and sink.data == b"at last\n"
    # 503 asked for 7 s (more than the jittered 0.1875 s); the 429's value is not a number.
    assert waits == [(7.0, 7.0), (pytest.approx(0.375), None)]
    assert slept[:2] == [7.0, pytest.approx(0.375)]


class _Bytes:
    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> int:
        self.data += data
        return len(data)

    def flush(self) -> None:
        pass


# -- the command line, side by side with curl --------------------------------------------

needs_curl = pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")


@needs_curl
def test_retry_after_of_a_503_as_curl(server: ScriptedServer, tmp_path: Path) -> None:
    busy = Reply(503, "Service Unavailable", headers=[("Retry-After", "1")])
    server.routes["/ours"] = first_then_ok(busy)
    server.routes["/theirs"] = first_then_ok(busy)
    ours = anyurl("--retry", "1", "--retry-delay", "0.01", "--retry-jitter", "none",
                  server.url("/ours"))
    theirs = curl("-sS", "--retry", "1", server.url("/theirs"))
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout == b"at last\n"
    assert b"retry 1 of 1 in 1s (the server asked for 1s)" in ours.stderr
    assert len([r for r in server.requests if r.path == "/ours"]) == 2


@needs_curl
def test_retry_after_is_capped_by_the_longest_wait(server: ScriptedServer) -> None:
    server.routes["/x"] = first_then_ok(
        Reply(429, "Too Many Requests", headers=[("Retry-After", "86400")]))
    ours = anyurl("--retry", "1", "--retry-max-delay", "0.05", server.url("/x"))
    assert ours.returncode == 0, ours.stderr
    assert b"in 0.05s (the server asked for 8.64e+04s)" in ours.stderr


@needs_curl
def test_retry_all_errors_as_curl(server: ScriptedServer) -> None:
    missing = Reply(404, "Not Found", body=b"no")
    for name in ("plain", "all", "curl_plain", "curl_all"):
        server.routes[f"/{name}"] = first_then_ok(missing)
    plain = anyurl("-sS", "--retry", "2", "--retry-delay", "0.01", server.url("/plain"))
    every = anyurl("-sS", "--retry", "2", "--retry-delay", "0.01", "--retry-all-errors",
                   server.url("/all"))
    curl_plain = curl("-sSf", "--retry", "2", server.url("/curl_plain"))
    curl_every = curl("-sSf", "--retry", "2", "--retry-all-errors", server.url("/curl_all"))
    assert plain.returncode == curl_plain.returncode == 22  # a 404 is not transient
    assert every.returncode == curl_every.returncode == 0, every.stderr
    assert every.stdout == curl_every.stdout == b"at last\n"
    count = {name: len([r for r in server.requests if r.path == f"/{name}"])
             for name in ("plain", "all", "curl_plain", "curl_all")}
    assert count == {"plain": 1, "all": 2, "curl_plain": 1, "curl_all": 2}


@needs_curl
def test_retry_all_errors_does_not_retry_a_bad_url() -> None:
    ours = anyurl("-sS", "--retry", "3", "--retry-all-errors", "http://[::1/")
    assert ours.returncode == 3 and b"retry" not in ours.stderr
