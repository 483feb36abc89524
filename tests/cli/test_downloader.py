"""The downloader: limits, retries that resume, stalls, rate cap, cancellation, order.

In-process tests drive :class:`anyurl.downloads.downloader.Downloader` with small ``x-`` scheme
handlers that misbehave on cue (on asyncio and trio). End-to-end tests run
``anyurl get`` against :class:`CutServer`, an HTTP/1.1 server in a thread that cuts
transfers, answers 503, stalls or trickles on purpose, and records every request so
a test can check that a retry asked for ``Range`` (with ``If-Range``) instead of
starting over.
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import socketserver
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import anyio
import pytest

from anyurl import Resolver
from anyurl.cli.get_cmd import parse_rate, read_url_list
from anyurl.downloads import downloader as downloader_module
from anyurl.downloads.downloader import (
    Downloader,
    DownloadEvents,
    DownloadPolicy,
    Job,
    TransferResult,
    _Pace,
    is_transient,
)
from anyurl.downloads.names import remote_name, safe_name
from anyurl.errors import (
    AnyURLError,
    ConnectFailed,
    ConnectionLost,
    FileExists,
    HostNotResolved,
    LoginDenied,
    PartialTransfer,
    RemoteFileNotFound,
    ResumeFailed,
    ServerError,
    TransferTimeout,
)
from anyurl.resource import Resource, ResourceInfo
from anyurl.schemes.base import FetchOptions, SchemeHandler
from anyurl.url import URL, parse

SRC = Path(__file__).resolve().parents[2] / "src"
DATA = bytes(range(256)) * 400  # 102400 bytes
CUT = 40000


def anyurl(*args: str, cwd: Path | None = None, timeout: float = 60,
           ) -> subprocess.CompletedProcess[bytes]:
    """``python -m anyurl ARGS`` with this checkout's sources first on the path."""
    env = dict(os.environ, PYTHONPATH=f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    return subprocess.run([sys.executable, "-m", "anyurl", *args], capture_output=True,
                          timeout=timeout, cwd=cwd, env=env, stdin=subprocess.DEVNULL)


# -- x- handlers that misbehave on cue ------------------------------------------------------


@dataclass
class Script:
    """What the x-script handler does, attempt by attempt, and what it saw."""

    #: Per attempt: "ok", "cut" (CUT bytes then ConnectionLost), "stall" (CUT bytes, then
    #: nothing), "missing" (RemoteFileNotFound), "refuse-resume" (ResumeFailed if offset).
    plan: list[str] = field(default_factory=list)
    honour_offset: bool = True
    offsets: list[int] = field(default_factory=list)
    if_ranges: list[str | None] = field(default_factory=list)
    closed: int = 0
    chunk: int = 8192
    gate: anyio.Event | None = None


SCRIPTS: dict[str, Script] = {}


class ScriptHandler(SchemeHandler):
    """``x-script:NAME``: serves DATA as SCRIPTS[NAME] says."""

    schemes = ("x-script",)

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        script = SCRIPTS[url.opaque or ""]
        attempt = len(script.offsets)
        script.offsets.append(options.offset)
        script.if_ranges.append(options.if_range)
        what = script.plan[attempt] if attempt < len(script.plan) else "ok"
        if what == "missing":
            raise RemoteFileNotFound(f"{url.masked()} is not there", url=url)
        if what == "refuse-resume" and options.offset:
            raise ResumeFailed(f"{url.masked()} cannot resume", url=url)
        offset = options.offset if script.honour_offset else 0
        info = ResourceInfo(url=url, size=len(DATA) - offset, total_size=len(DATA),
                            offset=offset, validator='"v1"')

        async def chunks() -> AsyncIterator[bytes]:
            pos = offset
            stop = CUT if what in ("cut", "stall") else len(DATA)
            while pos < stop:
                end = min(pos + script.chunk, stop)
                yield DATA[pos:end]
                pos = end
                await anyio.sleep(0)
            if what == "cut":
                raise ConnectionLost(f"{url.masked()}: connection reset")
            if what == "stall":
                if script.gate is not None:
                    script.gate.set()
                await anyio.sleep_forever()

        async def on_close() -> None:
            script.closed += 1

        return Resource(info, chunks(), on_close=on_close)


class CountingHandler(SchemeHandler):
    """``x-count://HOST/N``: holds each transfer for a while, counting who runs at once."""

    schemes = ("x-count",)
    active: ClassVar[dict[str, int]] = {}
    peak: ClassVar[dict[str, int]] = {}
    peak_total: ClassVar[int] = 0

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        cls = CountingHandler
        host = url.host or ""
        cls.active[host] = cls.active.get(host, 0) + 1
        cls.peak[host] = max(cls.peak.get(host, 0), cls.active[host])
        cls.peak_total = max(cls.peak_total, sum(cls.active.values()))

        async def chunks() -> AsyncIterator[bytes]:
            for _ in range(int(url.path or 0) + 2):  # longer for a larger N
                await anyio.sleep(0.01)
            yield url.path.encode()

        async def on_close() -> None:
            cls.active[host] -= 1

        return Resource(ResourceInfo(url=url), chunks(), on_close=on_close)


class Recorder(DownloadEvents):
    def __init__(self) -> None:
        self.retries: list[tuple[str, int, float, int]] = []
        self.finished_order: list[int] = []
        self.last_progress: dict[int, tuple[int, int | None]] = {}

    def retrying(self, job: Job, error: AnyURLError, retry: int, delay: float,
                 resume_at: int) -> None:
        self.retries.append((type(error).__name__, retry, delay, resume_at))

    def progress(self, job: Job, done: int, total: int | None) -> None:
        self.last_progress[job.index] = (done, total)

    def finished(self, result: TransferResult) -> None:
        self.finished_order.append(result.job.index)


def script(name: str, *plan: str, **kwargs: object) -> str:
    SCRIPTS[name] = Script(list(plan), **kwargs)  # type: ignore[arg-type]
    return f"x-script:{name}"


async def run_jobs(jobs: list[Job], sink: io.BytesIO | None = None,
                   events: DownloadEvents | None = None, **policy: object
                   ) -> list[TransferResult]:
    async with Resolver() as resolver:
        resolver.register("x-script", ScriptHandler)
        resolver.register("x-count", CountingHandler)
        downloader = Downloader(resolver, DownloadPolicy(**policy),  # type: ignore[arg-type]
                                events=events, sink=sink)
        return await downloader.run(jobs)


# -- in-process: retries, resume, limits ----------------------------------------------------


@pytest.mark.anyio
async def test_retry_resumes_a_cut_file_where_it_stopped(tmp_path: Path) -> None:
    url = script("cut-once", "cut")
    events = Recorder()
    [result] = await run_jobs([Job(url, tmp_path / "out.bin")], events=events,
                              retry=2, retry_delay=0.001, retry_jitter="none")
    assert result.ok, result.error
    assert (tmp_path / "out.bin").read_bytes() == DATA
    assert not (tmp_path / "out.bin.part").exists()
    assert SCRIPTS["cut-once"].offsets == [0, CUT]
    assert SCRIPTS["cut-once"].if_ranges == [None, '"v1"']  # the validator of attempt 1
    assert (result.attempts, result.bytes) == (2, len(DATA))
    assert events.retries == [("ConnectionLost", 1, 0.001, CUT)]
    assert events.last_progress[0] == (len(DATA), len(DATA))


@pytest.mark.anyio
async def test_retry_to_the_sink_skips_what_was_sent_when_the_server_restarts() -> None:
    url = script("restart", "cut", honour_offset=False)
    sink = io.BytesIO()
    [result] = await run_jobs([Job(url)], sink=sink, retry=1, retry_delay=0.001)
    assert result.ok, result.error
    assert sink.getvalue() == DATA  # no byte twice
    assert SCRIPTS["restart"].offsets == [0, CUT]


@pytest.mark.anyio
async def test_without_retry_a_cut_leaves_only_the_part_file(tmp_path: Path) -> None:
    url = script("cut-no-retry", "cut")
    [result] = await run_jobs([Job(url, tmp_path / "out.bin")])
    assert isinstance(result.error, ConnectionLost)
    assert result.exit_code == 56
    assert not (tmp_path / "out.bin").exists()
    assert (tmp_path / "out.bin.part").read_bytes() == DATA[:CUT]
    # -C later continues it.
    [again] = await run_jobs([Job(script("cut-no-retry-2"), tmp_path / "out.bin")], resume=True)
    assert again.ok and again.resumed_from == CUT and again.bytes == len(DATA) - CUT
    assert (tmp_path / "out.bin").read_bytes() == DATA


@pytest.mark.anyio
async def test_a_stale_part_is_not_resumed_without_c(tmp_path: Path) -> None:
    (tmp_path / "out.bin.part").write_bytes(b"stale" * 100)
    [result] = await run_jobs([Job(script("fresh"), tmp_path / "out.bin")])
    assert result.ok
    assert SCRIPTS["fresh"].offsets == [0]
    assert (tmp_path / "out.bin").read_bytes() == DATA


@pytest.mark.anyio
async def test_own_resume_refused_starts_over(tmp_path: Path) -> None:
    url = script("no-resume", "cut", "refuse-resume")
    [result] = await run_jobs([Job(url, tmp_path / "out.bin")], retry=3, retry_delay=0.001)
    assert result.ok, result.error
    assert SCRIPTS["no-resume"].offsets == [0, CUT, 0]
    assert (tmp_path / "out.bin").read_bytes() == DATA


@pytest.mark.anyio
async def test_permanent_errors_are_not_retried(tmp_path: Path) -> None:
    url = script("missing", "missing", "ok")
    [result] = await run_jobs([Job(url, tmp_path / "x")], retry=5, retry_delay=0.001)
    assert isinstance(result.error, RemoteFileNotFound)
    assert result.attempts == 1
    assert not (tmp_path / "x").exists() and not (tmp_path / "x.part").exists()


@pytest.mark.anyio
async def test_retries_run_out(tmp_path: Path) -> None:
    url = script("always-cut", "cut", "cut", "cut", honour_offset=False)
    [result] = await run_jobs([Job(url, tmp_path / "x")], retry=2, retry_delay=0.001)
    assert isinstance(result.error, ConnectionLost)
    assert result.attempts == 3


@pytest.mark.anyio
async def test_stall_timeout_fails_with_28_then_retry_resumes(tmp_path: Path) -> None:
    # The stall timeout must fire on the stall and never between the chunks before it or
    # on the retry: 2 s, not 0.2 s, for a loaded machine's pauses (it costs 2 s a stall).
    url = script("stall", "stall")
    [failed] = await run_jobs([Job(url, tmp_path / "a")], stall_timeout=2.0)
    assert isinstance(failed.error, TransferTimeout) and failed.exit_code == 28
    assert "stalled" in str(failed.error)
    assert SCRIPTS["stall"].closed == 1  # the connection was closed, not left hanging
    url = script("stall-2", "stall")
    [result] = await run_jobs([Job(url, tmp_path / "b")], stall_timeout=2.0, retry=1,
                              retry_delay=0.001)
    assert result.ok, result.error
    assert SCRIPTS["stall-2"].offsets == [0, CUT]
    assert (tmp_path / "b").read_bytes() == DATA


@pytest.mark.anyio
async def test_max_time_fails_with_28(tmp_path: Path) -> None:
    [result] = await run_jobs([Job(script("slow-max", "stall"), tmp_path / "a")], max_time=0.2)
    assert isinstance(result.error, TransferTimeout)
    assert "time limit of 0.2 seconds" in str(result.error)
    assert isinstance(result.error, TimeoutError)  # as a program catches any timeout
    assert "--" not in str(result.error)  # the library speaks of max_time, not the CLI
    assert result.error.remedy == ("max_time",)


@pytest.mark.anyio
async def test_cancelling_leaves_no_file_under_its_final_name(tmp_path: Path) -> None:
    gate = anyio.Event()
    url = script("cancel", "stall", gate=gate)
    target = tmp_path / "final.bin"
    async with Resolver() as resolver:
        resolver.register("x-script", ScriptHandler)
        downloader = Downloader(resolver, DownloadPolicy())
        async with anyio.create_task_group() as tg:
            tg.start_soon(downloader.run, [Job(url, target)])
            await gate.wait()
            tg.cancel_scope.cancel()
    assert not target.exists()
    assert (tmp_path / "final.bin.part").read_bytes() == DATA[:CUT]
    assert SCRIPTS["cancel"].closed == 1


@pytest.mark.anyio
async def test_limit_rate_paces_every_byte(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # The transfer goes through the pace: every byte counted against the cap, and
    # sleeps asked for (the arithmetic is checked on a virtual clock below; no wall time).
    paces: list[_Pace] = []

    class Recorded(_Pace):
        def __init__(self, rate: float | None) -> None:
            super().__init__(rate)
            paces.append(self)

    monkeypatch.setattr(downloader_module, "_Pace", Recorded)
    rate = 400_000
    [result] = await run_jobs([Job(script("paced"), tmp_path / "a")], limit_rate=rate)
    assert result.ok
    assert [p.rate for p in paces] == [rate] and paces[0].count == len(DATA)


@pytest.mark.anyio
@pytest.mark.parametrize(("arrival", "rate"), [(0.0, 1000.0), (0.0005, 1000.0),
                                               (0.002, 1000.0)],
                         ids=["instant", "slower-than-cap-half", "slower-than-cap"])
async def test_pace_keeps_the_average_under_the_cap(arrival: float, rate: float) -> None:
    """On a virtual clock: chunks of 1 byte arriving ``arrival`` seconds apart. After
    each chunk the pace has waited until ``count / rate`` seconds have passed, and it
    never sleeps when the source is already slower than the cap."""
    now = [0.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    pace = _Pace(rate, clock=lambda: now[0], sleep=sleep)
    for _ in range(100):
        now[0] += arrival
        await pace(1)
        assert now[0] >= pace.count / rate - 1e-9
    if arrival >= 1 / rate:
        assert slept == []
    else:
        assert now[0] == pytest.approx(100 / rate)


@pytest.mark.anyio
async def test_parallel_and_per_host_limits_hold() -> None:
    CountingHandler.active.clear()
    CountingHandler.peak.clear()
    CountingHandler.peak_total = 0
    urls = [f"x-count://h{i % 2}/{i}" for i in range(12)]
    results = await run_jobs([Job(u) for u in urls], sink=io.BytesIO(), parallel=3,
                             per_host=1)
    assert all(r.ok for r in results)
    assert max(CountingHandler.peak.values()) == 1
    assert CountingHandler.peak_total <= 3
    results = await run_jobs([Job(u, None) for u in urls[:1]], sink=io.BytesIO())
    assert results[0].ok


@pytest.mark.anyio
async def test_files_run_in_parallel_and_sink_jobs_keep_their_order(tmp_path: Path) -> None:
    CountingHandler.active.clear()
    CountingHandler.peak.clear()
    CountingHandler.peak_total = 0
    jobs = [Job(f"x-count://h{i}/{i}", tmp_path / f"f{i}") for i in range(6)]
    sink_jobs = [Job(f"x-count://s{i}/{6 - 2 * i}") for i in range(4)]  # slowest first
    sink = io.BytesIO()
    results = await run_jobs(jobs + sink_jobs, sink=sink, parallel=4, per_host=2)
    assert all(r.ok for r in results)
    assert CountingHandler.peak_total == 4  # files fill the slots at once
    assert sink.getvalue() == b"6420"  # the sink in the order given, not as they finish
    assert [r.job.index for r in results] == list(range(10))


@pytest.mark.anyio
async def test_two_urls_for_one_file_are_refused(tmp_path: Path) -> None:
    target = tmp_path / "same"
    results = await run_jobs([Job(script("dup-a"), target), Job(script("dup-b"), target)])
    assert results[0].ok
    assert isinstance(results[1].error, FileExists)
    assert SCRIPTS["dup-b"].offsets == []  # never opened
    assert target.read_bytes() == DATA


@pytest.mark.anyio
async def test_clobber_protection_and_create_dirs(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.write_bytes(b"mine")
    # the shared default: a remote-chosen name is kept, a name the caller gave replaced
    [refused] = await run_jobs([Job(script("clob"), mine, named_by_user=False)])
    assert isinstance(refused.error, FileExists) and refused.exit_code == 73
    assert mine.read_bytes() == b"mine"
    [kept] = await run_jobs([Job(script("clob-1"), mine)], clobber=False)
    assert isinstance(kept.error, FileExists) and mine.read_bytes() == b"mine"
    [ok] = await run_jobs([Job(script("clob-2"), mine, named_by_user=False)], clobber=True)
    assert ok.ok and mine.read_bytes() == DATA
    mine.write_bytes(b"mine")
    [named] = await run_jobs([Job(script("clob-3"), mine)])
    assert named.ok and mine.read_bytes() == DATA
    deep = tmp_path / "a" / "b" / "c.bin"
    [no_dir] = await run_jobs([Job(script("nodir"), deep)])
    assert no_dir.exit_code == 23
    [made] = await run_jobs([Job(script("mkdir"), deep)], create_dirs=True)
    assert made.ok and deep.read_bytes() == DATA


def test_backoff_doubles_up_to_the_cap() -> None:
    policy = DownloadPolicy(retry_delay=1, retry_max_delay=5, retry_jitter="none")
    assert [policy.backoff(n) for n in range(1, 6)] == [1, 2, 4, 5, 5]


def _url(text: str) -> URL:
    return parse(text)


@pytest.mark.parametrize(
    ("error", "url", "transient"),
    [
        pytest.param(TransferTimeout("t"), None, True, id="timeout"),
        pytest.param(ConnectionLost("c"), None, True, id="connection-lost"),
        pytest.param(ConnectFailed("c"), None, True, id="connection-refused"),
        pytest.param(PartialTransfer("p"), None, True, id="short-transfer"),
        pytest.param(HostNotResolved("h"), None, False, id="dns"),
        pytest.param(LoginDenied("l"), None, False, id="login"),
        pytest.param(RemoteFileNotFound("r"), None, False, id="missing"),
        pytest.param(ServerError("s", status=503), "http://h/", True, id="http-503"),
        pytest.param(ServerError("s", status=429), "http://h/", True, id="http-429"),
        pytest.param(ServerError("s", status=403), "http://h/", False, id="http-403"),
        pytest.param(ServerError("s", status=421), "ftp://h/", True, id="ftp-421"),
        pytest.param(ServerError("s", status=550), "ftp://h/", False, id="ftp-550"),
    ],
)
def test_what_is_transient(error: AnyURLError, url: str | None, transient: bool) -> None:
    assert is_transient(error, _url(url) if url else None) is transient


def test_an_error_may_say_it_is_transient() -> None:
    error = LoginDenied("busy")
    error.transient = True  # type: ignore[attr-defined]
    assert is_transient(error)


# -- names, rates, URL lists ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "name"),
    [
        pytest.param("http://h/a/..%2F..%2Fetc%2Fpasswd", "_.._etc_passwd", id="http-escaped-up"),
        pytest.param("ftp://h/..%2F..%2Fetc%2Fpasswd", "_.._etc_passwd", id="ftp-escaped-up"),
        pytest.param("ftp://h/%2E%2E", "h", id="ftp-dotdot"),
        pytest.param("http://h/..", "h", id="http-dotdot"),
        pytest.param("http://h/.bashrc", "bashrc", id="no-hidden-file"),
        pytest.param("http://h/a%0D%0Ab", "a__b", id="crlf"),
        pytest.param("http://h/a%00b", "a_b", id="nul"),
        pytest.param("http://h/a%5Cb", "a_b", id="backslash"),
        pytest.param("ftp://h/pub/file.tar;type=i", "file.tar", id="ftp-typecode"),
        pytest.param("gopher://h/0/pub/file.txt", "file.txt", id="gopher-type-dropped"),
        pytest.param("news:<123@host.example>", "123_at_host.example", id="message-id"),
        pytest.param("http://h/", "h", id="empty-path"),
        pytest.param("file:///", "file", id="root"),
    ],
)
def test_remote_names_are_safe(url: str, name: str) -> None:
    assert remote_name(parse(url)) == name


def test_safe_name_is_one_component_of_at_most_255_bytes() -> None:
    name = safe_name("é" * 300)
    assert len(name.encode()) <= 255 and "/" not in name
    assert safe_name("") == "index"


@pytest.mark.parametrize(
    ("text", "rate"),
    [("500", 500), ("500K", 512000), ("2M", 2 * 1024**2), ("1.5k", 1536), ("1G", 1024**3)],
)
def test_parse_rate(text: str, rate: float) -> None:
    assert parse_rate(text) == rate


def test_url_list_one_per_line_or_free_text() -> None:
    assert read_url_list("# mine\nftp://h/a\n\nx-nope:b\n") == ["ftp://h/a", "x-nope:b"]
    prose = ("See <URL:ftp://h/pub/very-\n  long.txt> and also gopher://g/0/x. "
             "Thanks!\n")
    assert read_url_list(prose) == ["ftp://h/pub/very-long.txt", "gopher://g/0/x"]


# -- a misbehaving HTTP server --------------------------------------------------------------


@dataclass
class Seen:
    path: str
    range: str | None
    if_range: str | None


class CutServer:
    """An HTTP/1.1 server in a thread that misbehaves by path.

    ``/cut/NAME`` sends CUT of DATA's bytes and closes the connection the first time,
    then honours ``Range``; ``/flaky/NAME`` answers 503 once; ``/stall/NAME`` sends CUT
    bytes and then nothing (until the server stops) the first time; ``/slow/NAME``
    trickles; anything else is DATA. Every request is recorded in ``seen``.
    """

    def __init__(self) -> None:
        self.seen: list[Seen] = []
        self.stop = threading.Event()
        outer = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                outer._handle(self.rfile, self.wfile)

        socketserver.ThreadingTCPServer.allow_reuse_address = True
        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path}"

    def count(self, path: str) -> int:
        return sum(1 for s in self.seen if s.path == "/" + path)

    def _handle(self, rfile: io.BufferedIOBase, wfile: io.BufferedIOBase) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            line = rfile.readline()
            if not line:
                return
            head += line
        lines = head.decode("latin-1").split("\r\n")
        path = lines[0].split(" ")[1]
        headers = {k.strip().lower(): v.strip() for k, _, v in
                   (line.partition(":") for line in lines[1:] if ":" in line)}
        first = not any(s.path == path for s in self.seen)
        self.seen.append(Seen(path, headers.get("range"), headers.get("if-range")))
        kind = path.split("/")[1]
        if kind == "flaky" and first:
            wfile.write(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                        b"Connection: close\r\n\r\n")
            return
        start = 0
        m = re.fullmatch(r"bytes=(\d+)-", headers.get("range", ""))
        if m and headers.get("if-range", '"v1"') == '"v1"':
            start = int(m.group(1))
        common = (f"Content-Length: {len(DATA) - start}\r\nETag: \"v1\"\r\n"
                  "Accept-Ranges: bytes\r\nConnection: close\r\n")
        if start:
            status = "206 Partial Content"
            common += f"Content-Range: bytes {start}-{len(DATA) - 1}/{len(DATA)}\r\n"
        else:
            status = "200 OK"
        wfile.write(f"HTTP/1.1 {status}\r\n{common}\r\n".encode())
        try:
            if kind in ("cut", "stall") and first:
                wfile.write(DATA[:CUT])
                wfile.flush()
                if kind == "stall":
                    self.stop.wait(60)
                return
            if kind == "slow":
                for i in range(start, len(DATA), 1024):
                    wfile.write(DATA[i:i + 1024])
                    wfile.flush()
                    if self.stop.wait(0.05):
                        return
                return
            wfile.write(DATA[start:])
        except OSError:
            pass

    def __enter__(self) -> CutServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def cut_server() -> Iterator[CutServer]:
    with CutServer() as server:
        yield server


BACKENDS = [pytest.param("asyncio", id="asyncio"), pytest.param("trio", id="trio")]


@pytest.mark.parametrize("backend", BACKENDS)
def test_cli_resume_after_the_server_cuts_the_transfer(
        cut_server: CutServer, tmp_path: Path, backend: str) -> None:
    out = tmp_path / "out.bin"
    r = anyurl("get", "--backend", backend, "-o", str(out), cut_server.url("cut/a"))
    assert r.returncode in (18, 56), r.stderr  # short transfer / connection lost
    assert not out.exists()
    assert (tmp_path / "out.bin.part").read_bytes() == DATA[:CUT]
    r = anyurl("get", "--backend", backend, "-C", "-o", str(out), cut_server.url("cut/a"))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == DATA
    assert cut_server.seen[-1] == Seen("/cut/a", f"bytes={CUT}-", None)


@pytest.mark.parametrize("backend", BACKENDS)
def test_cli_retry_resumes_with_range_and_if_range(
        cut_server: CutServer, tmp_path: Path, backend: str) -> None:
    out = tmp_path / "out.bin"
    r = anyurl("get", "--backend", backend, "--retry", "2", "--retry-delay", "0.01",
               "-o", str(out), cut_server.url("cut/b"))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == DATA
    assert cut_server.seen == [Seen("/cut/b", None, None),
                               Seen("/cut/b", f"bytes={CUT}-", '"v1"')]
    assert b"retry 1 of 2" in r.stderr and f"from byte {CUT}".encode() in r.stderr


@pytest.mark.parametrize("backend", BACKENDS)
def test_cli_retry_on_503_and_json_lines(
        cut_server: CutServer, tmp_path: Path, backend: str) -> None:
    r = anyurl("get", "--backend", backend, "-s", "-O", "--json", "--retry", "1",
               "--retry-delay", "0.01", "--output-dir", str(tmp_path),
               cut_server.url("flaky/one.bin"), "x-nope:q", cut_server.url("plain/two.bin"))
    lines = [json.loads(line) for line in r.stdout.decode().splitlines()]
    by_url = {line["url"]: line for line in lines}
    assert set(by_url) == {cut_server.url("flaky/one.bin"), cut_server.url("plain/two.bin"),
                           "x-nope:q"}
    one = by_url[cut_server.url("flaky/one.bin")]
    assert (one["status"], one["bytes"], one["attempts"]) == ("ok", len(DATA), 2)
    assert one["file"] == str(tmp_path / "one.bin") and one["error"] is None
    assert set(one) >= {"url", "status", "bytes", "seconds", "file", "error"}
    assert (tmp_path / "one.bin").read_bytes() == DATA == (tmp_path / "two.bin").read_bytes()
    nope = by_url["x-nope:q"]
    assert (nope["status"], nope["exit_code"], nope["file"]) == ("failed", 1, None)
    assert "x-nope" in nope["error"]
    assert r.returncode == 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_cli_stall_timeout_then_retry(
        cut_server: CutServer, tmp_path: Path, backend: str) -> None:
    out = tmp_path / "out.bin"
    r = anyurl("get", "--backend", backend, "--stall-timeout", "0.5", "-o", str(out),
               cut_server.url("stall/a"))
    assert r.returncode == 28, r.stderr
    assert b"stalled" in r.stderr and not out.exists()
    r = anyurl("get", "--backend", backend, "--stall-timeout", "0.5", "--retry", "1",
               "--retry-delay", "0.01", "-o", str(out), cut_server.url("stall/b"))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == DATA
    assert cut_server.seen[-1].range == f"bytes={CUT}-"


@pytest.mark.parametrize("backend", BACKENDS)
def test_cli_ctrl_c_keeps_only_the_part_file(
        cut_server: CutServer, tmp_path: Path, backend: str) -> None:
    out = tmp_path / "slow.bin"
    env = dict(os.environ, PYTHONPATH=str(SRC))
    proc = subprocess.Popen(
        [sys.executable, "-m", "anyurl", "get", "--backend", backend, "-s", "-o", str(out),
         cut_server.url("slow/x")], stderr=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    part = tmp_path / "slow.bin.part"
    deadline = time.monotonic() + 30
    while (not part.exists() or part.stat().st_size == 0) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert part.exists()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 42, err
    assert not out.exists()
    assert 0 < part.stat().st_size < len(DATA)
    assert b"interrupted" in err and b"-C" in err
    # ... and -C finishes it.
    r = anyurl("get", "--backend", backend, "-s", "-C", "-o", str(out), cut_server.url("plain/x"))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == DATA


def test_cli_hostile_remote_name_stays_in_the_output_dir(
        cut_server: CutServer, tmp_path: Path) -> None:
    dest = tmp_path / "a" / "b"
    dest.mkdir(parents=True)
    r = anyurl("get", "-s", "-O", "--output-dir", str(dest),
               cut_server.url("x/..%2F..%2Fetc%2Fpasswd"), cut_server.url("x/.profile"))
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in dest.iterdir()) == ["_.._etc_passwd", "profile"]
    assert sorted(p.name for p in tmp_path.rglob("*")) == [
        "_.._etc_passwd", "a", "b", "profile"]



# -- the progress bars, drawn into a string -------------------------------------------------


def test_progress_bars_with_known_and_unknown_sizes(tmp_path: Path) -> None:
    from rich.console import Console

    from anyurl.cli.progress import TransferProgress

    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=120)
    known, unknown = Job("file:///a", tmp_path / "a.bin", index=0), Job("gopher://h/1/", index=1)
    with TransferProgress(2, console=console) as bars:
        bars.started(known, ResourceInfo(url=parse("file:///a"), size=1000, total_size=1000), 0)
        bars.started(unknown, ResourceInfo(url=parse("gopher://h/1/"), kind="menu"), 0)
        assert bars.bars.tasks[0].total is None  # the total waits for every size
        bars.progress(known, 500, 1000)
        bars.progress(unknown, 300, None)
        bars.bars.refresh()
        drawn = screen.getvalue()
        assert "a.bin" in drawn and "gopher://h/1/" in drawn and "total 0/2" in drawn
        bars.finished(TransferResult(known, bytes=1000))
        bars.finished(TransferResult(unknown, bytes=300))
        assert len(bars.bars.tasks) == 1  # finished rows go, the total stays
        assert (bars.bars.tasks[0].completed, bars.bars.tasks[0].total) == (1300, 1300)
    assert "total 2/2" in screen.getvalue()


def test_total_counts_failures_apart_and_a_summary_table_ends_the_run(tmp_path: Path) -> None:
    from rich.console import Console

    from anyurl.cli.progress import TransferProgress
    from anyurl.errors import RemoteFileNotFound

    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=140)
    good, bad = Job("file:///a", tmp_path / "a.bin", index=0), Job("ftp://h/missing", index=1)
    with TransferProgress(2, console=console) as bars:
        bars.started(good, ResourceInfo(url=parse("file:///a"), size=2048), 0)
        bars.finished(TransferResult(good, bytes=2048, seconds=0.5))
        bars.finished(TransferResult(bad, error=RemoteFileNotFound("ftp://h/missing: 550")))
        assert bars._total_label() == "total 1/2, 1 failed"
    table = screen.getvalue()
    assert "1 of 2 done, 1 failed" in table
    assert "a.bin" in table and "OK" in table and "2.0 KiB" in table and "4.0 KiB/s" in table
    assert "ftp://h/missing" in table and "exit 78" in table


def test_write_buffers_are_sized_to_the_body_and_shared_among_transfers() -> None:
    from anyurl.downloads.downloader import WRITE_BUFFER_BUDGET, _PartWriter

    assert _PartWriter.capacity_for(16 << 10, parallel=1) == 16 << 10
    assert _PartWriter.capacity_for(None, parallel=1) == _PartWriter.BATCH
    assert _PartWriter.capacity_for(None, parallel=400) == _PartWriter.MIN_BATCH
    for parallel in (1, 4, 16, 64, 200, 400):
        share = _PartWriter.capacity_for(1 << 30, parallel)
        assert share * parallel <= max(WRITE_BUFFER_BUDGET, _PartWriter.MIN_BATCH * parallel)
