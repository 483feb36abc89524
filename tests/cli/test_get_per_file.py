"""What ``anyurl get`` does per file (issue 21): per-file state only for the options that
read it, and one ``FetchOptions`` for all URLs when no trace hook differs among them."""

from __future__ import annotations

from typing import Any

import pytest

from anyurl.cli import get_cmd
from anyurl.cli.get_request import GetRequest, read_request
from anyurl.cli.main import build_parser
from anyurl.downloads.downloader import Job, TransferResult
from anyurl.resource import ResourceInfo
from anyurl.url import parse


def _request(*argv: str) -> GetRequest:
    request = read_request(build_parser("get").parse_args(["get", *argv]))
    assert isinstance(request, GetRequest)
    return request


def test_no_clock_per_file_without_write_out() -> None:
    events = get_cmd.CLIEvents(_request("-s", "http://h/x"), None)
    events.stdout = get_cmd._Stdout()
    for i in range(100):
        job = Job(parse(f"http://h/{i}"), None, index=i)
        events.started(job, ResourceInfo(url=job.url), 0)
        events.finished(TransferResult(job))
    assert events.began == {}  # it grew by one entry a file for the whole run
    assert events.stdout.current == ""  # read only by the terminal's binary refusal


def test_write_out_still_times_each_file() -> None:
    events = get_cmd.CLIEvents(_request("-s", "-w", "%{time_starttransfer}", "http://h/x"),
                               None)
    job = Job(parse("http://h/1"), None, index=1)
    events.started(job, ResourceInfo(url=job.url), 0)
    assert list(events.began) == [1]


@pytest.mark.parametrize(("extra", "shared"), [((), True), (("-v",), False)])
def test_urls_share_their_options_unless_traced(monkeypatch: pytest.MonkeyPatch,
                                                extra: tuple[str, ...],
                                                shared: bool) -> None:
    seen: list[Job] = []

    async def run(self: Any, jobs: list[Job]) -> list[TransferResult]:
        seen.extend(jobs)
        return [TransferResult(job) for job in jobs]

    monkeypatch.setattr(get_cmd.Downloader, "run", run)
    urls = [f"http://127.0.0.1:9/{i}" for i in range(3)]
    args = build_parser("get").parse_args(["get", "-s", *extra, *urls])
    assert get_cmd.run(args) == 0
    assert len(seen) == 3
    assert (len({id(job.options) for job in seen}) == 1) is shared
