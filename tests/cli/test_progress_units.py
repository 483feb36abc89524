"""One unit system on the screen, a summary that fits 80 columns and lists each failure
once (issue 23, point 7)."""

from __future__ import annotations

import io
import re
from pathlib import Path

from rich.console import Console

from anyurl.cli.common import human_bytes
from anyurl.cli.progress import TransferProgress
from anyurl.downloads.downloader import Job, TransferResult
from anyurl.errors import RemoteFileNotFound
from anyurl.resource import ResourceInfo
from anyurl.url import parse

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def test_the_bar_speaks_mib_as_the_summary_does(tmp_path: Path) -> None:
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=120)
    size = 8_388_608  # 8.0 MiB, which rich's default column calls "8.4 MB"
    job = Job("file:///big", tmp_path / "big.bin", index=0)
    with TransferProgress(1, console=console) as bars:
        bars.started(job, ResourceInfo(url=parse("file:///big"), size=size), 0)
        bars.progress(job, size // 2, size)
        bars.bars.refresh()
        drawn = ANSI.sub("", screen.getvalue())
    assert "4.0 MiB/8.0 MiB" in drawn
    assert " MB" not in drawn and "kB" not in drawn
    assert human_bytes(size) == "8.0 MiB"


def test_the_summary_fits_80_columns_and_shows_each_failure_once(tmp_path: Path) -> None:
    long_dir = tmp_path / ("a-rather-long-directory-name-" * 3)
    jobs = [Job(f"http://h/{i}", long_dir / f"file-with-a-long-name-{i}.tar.gz", index=i)
            for i in range(3)]
    message = "http://h/2 answered '404 Not Found'. Check the path; the file may have moved."
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=200)  # a wide terminal
    bars = TransferProgress(3, console=console)
    for job in jobs[:2]:
        bars.finished(TransferResult(job, bytes=3 << 20, seconds=1.5))
    bars.finished(TransferResult(jobs[2], error=RemoteFileNotFound(message)))
    console.print(bars.summary())
    table = ANSI.sub("", screen.getvalue())
    rows = [line for line in table.splitlines() if line.strip()]
    assert all(len(line) <= 80 for line in rows), rows
    assert len(rows) == 2 + 3  # title, header, one line per transfer: nothing wrapped
    assert "3.0 MiB" in table and "2.0 MiB/s" in table and "exit 78" in table
    assert "Check the path" not in table  # printed once, when it happened
