"""Many ftp files of one host go to the FTP handler as batches (issue 21): one
``open_batch`` per lane instead of a task, a gate pass and an options copy per file,
with every per-file guarantee kept (``.part`` then rename, ``-R``'s ``MDTM``)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from anyurl.downloads.downloader import Downloader, DownloadPolicy, Job
from anyurl.resolver import Resolver
from anyurl.schemes.ftp.handler import FTPHandler
from tests.integration.batch_sizes import count_batches
from tests.integration.test_ftp import CommandLog, base, config, ftp_peers  # noqa: F401
from tests.peers import data as peer_data

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

NAMES = ["hello.txt", "bin1k.dat", "pub/nested/deeper/file.txt"]


def _digest(name: str) -> str:
    return hashlib.sha256(peer_data.expected_bytes(name)).hexdigest()


async def _download(peers: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                    **policy: Any) -> tuple[list[Any], list[int]]:
    batches = count_batches(monkeypatch, FTPHandler)
    jobs = [Job(base(peers, "pyftpdlib") + name, tmp_path / f"{i}-{Path(name).name}")
            for i, name in enumerate(NAMES)]
    async with Resolver(config(), warn=lambda m: None) as resolver:
        results = await Downloader(resolver, DownloadPolicy(per_host=1, **policy)).run(jobs)
    return results, batches


async def test_a_hosts_files_go_as_one_batch_each_written_via_part(
        ftp_peers: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    log = CommandLog(ftp_peers)
    results, batches = await _download(ftp_peers, tmp_path, monkeypatch)
    assert [r.error for r in results] == [None] * len(NAMES)
    assert batches == [len(NAMES)]
    for i, name in enumerate(NAMES):
        saved = tmp_path / f"{i}-{Path(name).name}"
        assert hashlib.sha256(saved.read_bytes()).hexdigest() == _digest(name)
    assert not list(tmp_path.glob("*.part"))
    [session] = log.sessions()
    assert session.count("PASS " + config().anonymous_email) == 1
    assert sum(line.startswith("RETR ") for line in session) == len(NAMES)


async def test_a_batch_keeps_each_small_files_digest_and_gives_it_the_jobs_time(
        ftp_peers: Any, tmp_path: Path) -> None:  # noqa: F811
    """A job that asks (``digest``, as a mirror's) gets the SHA-256 of what was written,
    kept while writing, and its file the job's ``mtime``; one that does not, neither."""
    stamp = 1_000_000_000.0
    jobs = [Job(base(ftp_peers, "pyftpdlib") + name, tmp_path / f"{i}-{Path(name).name}",
                digest=i > 0, mtime=stamp if i > 0 else None)
            for i, name in enumerate(NAMES)]
    async with Resolver(config(), warn=lambda m: None) as resolver:
        results = await Downloader(resolver, DownloadPolicy(per_host=1)).run(jobs)
    assert [r.error for r in results] == [None] * len(NAMES)
    assert results[0].sha256 is None
    assert (tmp_path / f"0-{Path(NAMES[0]).name}").stat().st_mtime != stamp
    for i, name in enumerate(NAMES[1:], 1):
        assert results[i].sha256 == _digest(name)
        assert (tmp_path / f"{i}-{Path(name).name}").stat().st_mtime == stamp


async def test_remote_time_is_asked_per_file_not_batched(
        ftp_peers: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    log = CommandLog(ftp_peers)
    results, batches = await _download(ftp_peers, tmp_path, monkeypatch, remote_time=True)
    assert [r.error for r in results] == [None] * len(NAMES)
    assert batches == []
    commands = [line for session in log.sessions() for line in session]
    assert sum(line.startswith("MDTM ") for line in commands) == len(NAMES)


@pytest.mark.parametrize("per_host", [1, 2])
async def test_a_sink_batch_borrows_the_hosts_spare_slots(ftp_peers: Any,  # noqa: F811
                                                           per_host: int) -> None:
    """Files to one output (stdout) are written in order; the batch uses the host's
    spare slots as control connections (``FetchOptions.connections``), and no more."""
    import io

    names = [f"many/file{i:03d}.txt" for i in range(10)]
    sink = io.BytesIO()
    jobs = [Job(base(ftp_peers, "vsftpd") + name) for name in names]
    async with Resolver(config(), warn=lambda m: None) as resolver:
        handler = resolver.handler_for(resolver.admit(jobs[0].url))
        assert isinstance(handler, FTPHandler)
        results = await Downloader(resolver, DownloadPolicy(per_host=per_host),
                                   sink=sink).run(jobs)
        assert handler.stats["connections"] == per_host
    assert [r.error for r in results] == [None] * len(names)
    assert sink.getvalue() == b"".join(peer_data.expected_bytes(n) for n in names)
