"""Progress on the terminal: one bar per running transfer and a total (rich).

A transfer whose size is known shows bytes, rate and time left; one whose size is
not (a menu, a listing, a chunked HTTP body) shows a spinner and the bytes so far.
A transfer's row goes when it ends, the total row stays and counts the transfers
done apart from the failed ones. At the end of a run of several URLs a summary table
lists each one (as aria2 prints it): its file or URL, OK or its exit code and why,
the bytes, the time and the rate, in at most 80 columns. Sizes and rates are in one unit
system everywhere, the binary one of ``--limit-rate`` and the mirror's report (KiB, MiB:
:func:`~anyurl.cli.common.human_bytes`). The bars and the table are drawn on stderr, and only
when stderr is a terminal (:func:`wanted`): in a pipe, a log or with ``-s`` nothing is
drawn and nothing changes in the output.

Lines printed to stderr while the bars are up (warnings, errors, ``-v``) appear
above them: rich's live display takes over ``sys.stderr`` for that time.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Column, Table
from rich.text import Text

from anyurl.cli.common import escape_controls, human_bytes
from anyurl.cli.terminal import wanted
from anyurl.downloads.downloader import DownloadEvents, Job, TransferResult
from anyurl.resource import ResourceInfo

__all__ = ["TransferProgress", "wanted"]


class _SpinnerWhenUnknown(ProgressColumn):
    """A spinner while the size is unknown, nothing once it is known."""

    def __init__(self) -> None:
        self._spinner = SpinnerColumn()
        super().__init__()

    def render(self, task: Task) -> Text:
        if task.total is None and not task.finished:
            rendered = self._spinner.render(task)
            return rendered if isinstance(rendered, Text) else Text("~")
        return Text(" ")


class _BytesColumn(ProgressColumn):
    """``3.0 MiB/8.0 MiB`` (or the bytes so far): the units of the summary and the mirror."""

    def render(self, task: Task) -> Text:
        done = human_bytes(task.completed)
        if task.total is None:
            return Text(done)
        return Text(f"{done}/{human_bytes(task.total)}")


class _RateColumn(ProgressColumn):
    """``1.2 MiB/s``, in the same units."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("?" if speed is None else f"{human_bytes(speed)}/s")


#: The summary table's width: it fits an 80-column terminal (names are shortened).
SUMMARY_WIDTH = 80


@dataclass
class _Row:
    task: TaskID
    done: int = 0
    total: int | None = None
    started: bool = False


class TransferProgress(DownloadEvents):
    """Download events drawn as rich progress bars; use as a context manager."""

    def __init__(self, count: int, console: Console | None = None):
        self.count = count
        self.console = console or Console(file=sys.stderr)
        self.bars = Progress(
            _SpinnerWhenUnknown(),
            TextColumn("{task.description}",
                       table_column=Column(no_wrap=True, overflow="ellipsis", max_width=36)),
            BarColumn(),
            _BytesColumn(),
            _RateColumn(),
            TimeRemainingColumn(),
            console=self.console,
            redirect_stdout=False,
            redirect_stderr=True,
        )
        self.rows: dict[int, _Row] = {}
        self.finished_count = 0
        self.failed_count = 0
        self.finished_bytes = 0
        self.results: list[TransferResult] = []
        self.total_task = self.bars.add_task(self._total_label(), total=None)

    def _total_label(self) -> str:
        done = self.finished_count - self.failed_count
        failed = f", {self.failed_count} failed" if self.failed_count else ""
        return f"total {done}/{self.count}{failed}"

    def _row(self, job: Job) -> _Row:
        row = self.rows.get(job.index)
        if row is None:
            label = job.target.name if job.target is not None else job.shown
            row = self.rows[job.index] = _Row(self.bars.add_task(label, total=None))
        return row

    def _update_total(self) -> None:
        done = self.finished_bytes + sum(r.done for r in self.rows.values())
        started = sum(1 for r in self.rows.values() if r.started)
        total: int | None = None
        if started + self.finished_count == self.count and all(
                r.total is not None for r in self.rows.values()):
            total = self.finished_bytes + sum(r.total or 0 for r in self.rows.values())
        self.bars.update(self.total_task, completed=done, total=total,
                             description=self._total_label())

    # -- DownloadEvents ------------------------------------------------------------

    def started(self, job: Job, info: ResourceInfo, have: int) -> None:
        """Add a bar for ``job`` (a known size, or a spinner)."""
        row = self._row(job)
        row.started = True
        row.done = have
        row.total = info.total_size if info.total_size is not None else (
            None if info.size is None else have + info.size)
        self.bars.reset(row.task, total=row.total, completed=have)
        self._update_total()

    def progress(self, job: Job, done: int, total: int | None) -> None:
        """Advance ``job``'s bar to ``done`` bytes."""
        row = self._row(job)
        row.done, row.total = done, total
        self.bars.update(row.task, completed=done, total=total)
        self._update_total()

    def finished(self, result: TransferResult) -> None:
        """Close ``job``'s bar and count it in the total (done or failed)."""
        row = self.rows.pop(result.job.index, None)
        if row is not None:
            self.bars.remove_task(row.task)
        self.finished_count += 1
        self.results.append(result)
        if result.ok:  # a failed transfer counts neither in what is done nor in the total
            self.finished_bytes += result.resumed_from + result.bytes
        else:
            self.failed_count += 1
        self._update_total()

    def summary(self) -> Table:
        """One row per transfer, in the order of the URLs: what a run of many left.

        One line per transfer in at most :data:`SUMMARY_WIDTH` columns (a long name is
        shortened with an ellipsis, never wrapped). A failure shows its exit code only:
        its message was printed when it happened, just above.
        """
        table = Table(title=f"{self.finished_count - self.failed_count} of {self.count} "
                      f"done" + (f", {self.failed_count} failed" if self.failed_count else ""),
                      title_justify="left", box=None, pad_edge=False,
                      width=min(SUMMARY_WIDTH, self.console.width))
        table.add_column("#", justify="right", no_wrap=True)
        table.add_column("file or URL", overflow="ellipsis", no_wrap=True, ratio=1)
        table.add_column("result", no_wrap=True)
        table.add_column("bytes", justify="right", no_wrap=True)
        table.add_column("time", justify="right", no_wrap=True)
        table.add_column("rate", justify="right", no_wrap=True)
        for r in sorted(self.results, key=lambda r: r.job.index):
            name = str(r.job.target) if r.job.target is not None else r.job.shown
            if r.ok:
                outcome = Text("OK", style="green")
            else:
                outcome = Text(f"exit {r.exit_code}", style="red")
            rate = human_bytes(r.bytes / r.seconds) + "/s" if r.seconds > 0 and r.bytes else ""
            table.add_row(str(r.job.index + 1), escape_controls(name), outcome,
                          human_bytes(r.resumed_from + r.bytes), f"{r.seconds:.2f}s", rate)
        return table

    def __enter__(self) -> TransferProgress:
        self.bars.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.bars.stop()
        if self.count > 1 and self.results and exc_type is None:
            self.console.print(self.summary())

