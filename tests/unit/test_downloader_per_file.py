"""The downloader's per-file bookkeeping (issue 21): what costs nothing when unused,
and what a run of many files does once."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from anyurl.downloads.downloader import Job, _Watch
from anyurl.errors import LocalWriteError, TransferTimeout


@pytest.mark.anyio
async def test_no_limits_no_cancel_scope() -> None:
    watch = _Watch(Job("http://127.0.0.1/x"), None, None)
    assert watch.scope is None
    with watch:
        watch.touch()
        await anyio.sleep(0)


@pytest.mark.anyio
async def test_a_stall_limit_still_cancels_and_names_the_job() -> None:
    with (pytest.raises(TransferTimeout, match="stalled"),
          _Watch(Job("http://127.0.0.1/x"), None, 0.05) as watch):
        watch.touch()
        await anyio.sleep(5)


@pytest.mark.anyio
async def test_a_time_limit_still_cancels() -> None:
    with (pytest.raises(TransferTimeout, match="time limit"),
          _Watch(Job("http://127.0.0.1/x"), 0.05, None)):
        await anyio.sleep(5)


def test_a_runs_directory_is_checked_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from anyurl.downloads import output

    calls: list[Path] = []
    check = output._check_directory

    def counting(directory: Path, create: bool) -> None:
        calls.append(directory)
        check(directory, create)

    monkeypatch.setattr(output, "_check_directory", counting)
    checked: set[tuple[Path, bool]] = set()
    plans = [output.plan_target(tmp_path / f"f{i}", named_by_user=False, clobber=None,
                                checked=checked) for i in range(3)]
    assert calls == [tmp_path]
    assert plans[1].part is plans[1].part  # computed once, for the open and the rename
    assert plans[1].part == tmp_path / "f1.part"
    # A directory not yet found writable is still checked, and refused when missing.
    with pytest.raises(LocalWriteError, match="does not exist"):
        output.plan_target(tmp_path / "no" / "f", named_by_user=False, clobber=None,
                           checked=checked)
