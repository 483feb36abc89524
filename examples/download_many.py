"""Download many URLs at once, with a progress bar each, retries and a summary.

    python examples/download_many.py                  # sample files it makes itself
    python examples/download_many.py URL URL ...      # your URLs, into ./downloads

The bars need rich: ``pip install 'anyurl[cli]'``.

The engine is anyurl.downloads.downloader.Downloader (what ``anyurl get -O -Z N`` runs); the
bars are drawn by a DownloadEvents subclass, so any UI can take their place.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import anyio
from rich.progress import BarColumn, DownloadColumn, Progress, TaskID, TransferSpeedColumn

from anyurl import Resolver
from anyurl.downloads.downloader import (
    Downloader,
    DownloadEvents,
    DownloadPolicy,
    Job,
    TransferResult,
)
from anyurl.resource import ResourceInfo


class Bars(DownloadEvents):
    """One rich bar per transfer (a pulsing one while the size is unknown)."""

    def __init__(self, progress: Progress):
        self.bars = progress
        self.tasks: dict[int, TaskID] = {}

    def started(self, job: Job, info: ResourceInfo, have: int) -> None:
        name = job.target.name if job.target else job.shown
        self.tasks[job.index] = self.bars.add_task(name, total=info.total_size,
                                                       completed=have)

    def progress(self, job: Job, done: int, total: int | None) -> None:
        self.bars.update(self.tasks[job.index], completed=done, total=total)

    def retrying(self, job: Job, error: Exception, retry: int, delay: float,
                 resume_at: int) -> None:
        self.bars.console.print(f"retry {retry} of {job.shown} at byte {resume_at}: {error}")

    def finished(self, result: TransferResult) -> None:
        mark = "ok" if result.ok else f"failed ({result.error})"
        self.bars.console.print(f"{result.job.shown}: {mark}")


def sample_urls(directory: Path) -> list[str]:
    """A few local files of different sizes, as file: URLs."""
    urls = []
    for i, size in enumerate((300_000, 2_000_000, 50_000)):
        path = directory / f"sample{i}.bin"
        path.write_bytes(os.urandom(size))
        urls.append(path.as_uri())
    return urls


async def main(urls: list[str], out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    jobs = [Job(url, out / (url.rstrip("/").rsplit("/", 1)[-1] or f"index{i}"))
            for i, url in enumerate(urls)]
    policy = DownloadPolicy(parallel=4, per_host=2, retry=3, retry_delay=0.5,
                            stall_timeout=30, clobber=True)
    columns = ("{task.description}", BarColumn(), DownloadColumn(), TransferSpeedColumn())
    with Progress(*columns) as progress:
        async with Resolver() as resolver:
            downloader = Downloader(resolver, policy, events=Bars(progress))
            results = await downloader.run(jobs)
    failed = [r for r in results if not r.ok]
    total = sum(r.bytes for r in results)
    print(f"{len(results) - len(failed)} of {len(results)} downloaded, {total} bytes, "
          f"into {out}")
    return failed[0].exit_code if failed else 0


if __name__ == "__main__":
    if len(sys.argv) > 1:
        sys.exit(anyio.run(main, sys.argv[1:], Path("downloads")))
    with tempfile.TemporaryDirectory() as tmp:
        urls = sample_urls(Path(tmp))
        sys.exit(anyio.run(main, urls, Path(tmp) / "downloads"))
