"""The downloader's per-file bookkeeping (issue 21): what costs nothing when unused."""

from __future__ import annotations

import anyio
import pytest

from anyurl.downloader import Job, _Watch
from anyurl.errors import TransferTimeout

pytestmark = pytest.mark.anyio


async def test_no_limits_no_cancel_scope() -> None:
    watch = _Watch(Job("http://127.0.0.1/x"), None, None)
    assert watch.scope is None
    with watch:
        watch.touch()
        await anyio.sleep(0)


async def test_a_stall_limit_still_cancels_and_names_the_job() -> None:
    with (pytest.raises(TransferTimeout, match="stalled"),
          _Watch(Job("http://127.0.0.1/x"), None, 0.05) as watch):
        watch.touch()
        await anyio.sleep(5)


async def test_a_time_limit_still_cancels() -> None:
    with (pytest.raises(TransferTimeout, match="time limit"),
          _Watch(Job("http://127.0.0.1/x"), 0.05, None)):
        await anyio.sleep(5)
