"""``progress`` is called at a steady rate, through the async and the sync API.

docs/api.md promises it at least every 4 MiB (``anyurl.net.bulk.REPORT_EVERY``) or 0.1 s of
a transfer, and at its end; a loopback moves the peers' 16 MiB file in one pump slice,
which used to report it once or twice. Counted calls, never times.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import anyurl
from anyurl.net.bulk import REPORT_EVERY
from tests.peers import data

pytestmark = [pytest.mark.integration]


@pytest.mark.parametrize("peer_name", ["nginx", "vsftpd", "gophernicus"])
def test_the_sync_download_reports_steadily(peers: Any, tmp_path: Path,
                                            peer_name: str) -> None:
    peer = peers[peer_name]
    url = peer.url(f"9/{data.LARGE_NAME}") if peer_name == "gophernicus" \
        else peer.url(data.LARGE_NAME)
    calls: list[tuple[int, int | None]] = []
    result = anyurl.download(url, tmp_path / "large.dat",
                             progress=lambda done, total: calls.append((done, total)))
    size = peers.large_size
    assert result.bytes == size
    assert len(calls) >= size // REPORT_EVERY, calls
    done = [d for d, _ in calls]
    assert done == sorted(done) and done[-1] == size
    steps = [b - a for a, b in zip([0, *done], done, strict=False)]
    assert max(steps) <= REPORT_EVERY + (1 << 20), steps  # a slice's last splice at most
