"""The write path (anyurl.downloads.output): nothing on disk is destroyed, no link is followed
where a remote name is concerned, and refusals come before connecting.

Device targets are device nodes made with os.mknod in a temporary directory (the null
device's numbers), never a real system path.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from anyurl.downloads.output import Placement, open_part, part_size, plan_target
from anyurl.errors import FileExists, LocalWriteError
from tests.cli.test_get_cli import _env, anyurl

BODY = b"the body of the file\n" * 100


@pytest.fixture
def source(tmp_path: Path) -> str:
    src = tmp_path / "src"
    src.mkdir()
    (src / "doc.txt").write_bytes(BODY)
    return f"file://{src}/doc.txt"


def _null_node(directory: Path) -> Path:
    node = directory / "null-node"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    return node


# -- plan_target, unit by unit ---------------------------------------------------------


def test_a_new_or_regular_target_goes_through_a_part_file(tmp_path: Path) -> None:
    plan = plan_target(tmp_path / "new", named_by_user=True, clobber=None)
    assert plan.placement is Placement.PART_AND_RENAME
    assert plan.part == tmp_path / "new.part"


def test_one_overwrite_default_user_names_replaced_remote_names_kept(tmp_path: Path) -> None:
    existing = tmp_path / "there"
    existing.write_bytes(b"mine")
    assert plan_target(existing, named_by_user=True, clobber=None).path == existing
    with pytest.raises(FileExists):
        plan_target(existing, named_by_user=False, clobber=None)
    with pytest.raises(FileExists):
        plan_target(existing, named_by_user=True, clobber=False)
    assert plan_target(existing, named_by_user=False, clobber=True).path == existing
    assert plan_target(existing, named_by_user=False, clobber=None, resume=True)


def test_a_device_named_by_the_user_is_written_in_place(tmp_path: Path) -> None:
    node = _null_node(tmp_path)
    plan = plan_target(node, named_by_user=True, clobber=None)
    assert plan.placement is Placement.IN_PLACE
    with pytest.raises(FileExists):  # a remote name never writes into a device
        plan_target(node, named_by_user=False, clobber=True)


def test_links_through_dev_are_written_in_place(tmp_path: Path) -> None:
    link = tmp_path / "out"
    link.symlink_to("/dev/stdout")
    plan = plan_target(link, named_by_user=True, clobber=None)
    assert plan.placement is Placement.IN_PLACE


def test_a_user_named_link_to_a_file_replaces_the_file_and_keeps_the_link(
    tmp_path: Path,
) -> None:
    real = tmp_path / "real.txt"
    real.write_bytes(b"old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    plan = plan_target(link, named_by_user=True, clobber=None)
    assert plan.placement is Placement.PART_AND_RENAME
    assert plan.path == real and plan.part == tmp_path / "real.txt.part"


def test_a_remote_name_that_is_a_link_is_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"keep")
    out = tmp_path / "out"
    out.mkdir()
    (out / "doc.txt").symlink_to(outside)
    with pytest.raises(FileExists):
        plan_target(out / "doc.txt", named_by_user=False, clobber=None)
    plan = plan_target(out / "doc.txt", named_by_user=False, clobber=True)
    assert plan.path == out / "doc.txt"  # the link itself is what gets replaced


def test_directories_are_checked_before_connecting(tmp_path: Path) -> None:
    with pytest.raises(LocalWriteError, match="is a directory"):
        plan_target(tmp_path, named_by_user=True, clobber=None)
    with pytest.raises(LocalWriteError, match="create_dirs=True") as info:
        plan_target(tmp_path / "a" / "b" / "f", named_by_user=True, clobber=None)
    assert info.value.exit_code == 23
    assert info.value.remedy == ("create_dirs",)  # the command line says --create-dirs
    plan = plan_target(tmp_path / "a" / "b" / "f", named_by_user=True, clobber=None,
                       create_dirs=True)
    assert plan.path.parent.is_dir()


def test_a_part_file_that_is_a_link_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "victim"
    outside.write_bytes(b"keep")
    part = tmp_path / "f.part"
    part.symlink_to(outside)
    with pytest.raises(LocalWriteError, match="symbolic link"):
        part_size(part)
    with pytest.raises(LocalWriteError, match="symbolic link"):
        open_part(part, 0)
    with pytest.raises(LocalWriteError, match="symbolic link"):
        open_part(part, 2)
    assert outside.read_bytes() == b"keep"


def test_a_part_file_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    part = tmp_path / "f.part"
    os.mkfifo(part)
    with pytest.raises(LocalWriteError, match="not a regular file"):
        part_size(part)


# -- the command, end to end -------------------------------------------------------------


@pytest.mark.parametrize("extra", [[], ["--clobber"]], ids=["default", "clobber"])
def test_a_device_target_stays_a_device(tmp_path: Path, source: str, extra: list[str]) -> None:
    node = _null_node(tmp_path)
    r = anyurl("get", "-sS", *extra, "-o", str(node), source)
    assert r.returncode == 0, r.stderr
    assert stat.S_ISCHR(os.lstat(node).st_mode)
    assert not (tmp_path / "null-node.part").exists()


def test_a_fifo_target_is_written_in_place(tmp_path: Path, source: str) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as f:
            got.append(f.read())

    reader = threading.Thread(target=read)
    reader.start()
    r = anyurl("get", "-sS", "-o", str(fifo), source)
    reader.join(10)
    assert r.returncode == 0, r.stderr
    assert got == [BODY]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_fifo_without_a_reader_fails_at_once(tmp_path: Path, source: str) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    r = anyurl("get", "-sS", "-o", str(fifo), source)
    assert r.returncode == 23
    assert b"nothing is reading" in r.stderr


def test_dash_o_dash_is_stdout(source: str, tmp_path: Path) -> None:
    r = anyurl("get", "-sS", "-o", "-", source, cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, BODY)
    assert not (tmp_path / "-").exists()


def test_dash_o_replaces_an_existing_file_and_dash_O_does_not(
    tmp_path: Path, source: str
) -> None:
    mine = tmp_path / "mine.txt"
    mine.write_bytes(b"mine")
    assert anyurl("get", "-sS", "-o", str(mine), source).returncode == 0
    assert mine.read_bytes() == BODY
    mine.write_bytes(b"mine")
    assert anyurl("get", "-sS", "--no-clobber", "-o", str(mine), source).returncode == 73
    assert mine.read_bytes() == b"mine"
    out = tmp_path / "out"
    out.mkdir()
    (out / "doc.txt").write_bytes(b"mine")
    r = anyurl("get", "-sS", "-O", "--output-dir", str(out), source)
    assert r.returncode == 73
    assert (out / "doc.txt").read_bytes() == b"mine"


def test_links_planted_in_the_output_directory_lead_nowhere(
    tmp_path: Path, source: str
) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep")
    out = tmp_path / "out"
    out.mkdir()
    (out / "doc.txt.part").symlink_to(victim)
    for extra in ([], ["-C", "-"], ["--clobber"]):
        r = anyurl("get", "-sS", *extra, "-O", "--output-dir", str(out), source)
        assert r.returncode == 23, (extra, r.stderr)
        assert b"symbolic link" in r.stderr
    assert victim.read_bytes() == b"keep"
    (out / "doc.txt.part").unlink()
    (out / "doc.txt").symlink_to(victim)
    assert anyurl("get", "-sS", "-O", "--output-dir", str(out), source).returncode == 73
    r = anyurl("get", "-sS", "--clobber", "-O", "--output-dir", str(out), source)
    assert r.returncode == 0, r.stderr
    assert victim.read_bytes() == b"keep"
    assert not (out / "doc.txt").is_symlink() and (out / "doc.txt").read_bytes() == BODY


def test_a_user_named_link_is_followed_and_kept(tmp_path: Path, source: str) -> None:
    real = tmp_path / "real.txt"
    real.write_bytes(b"old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    r = anyurl("get", "-sS", "-o", str(link), source)
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and real.read_bytes() == BODY


def test_refusals_come_before_any_transfer(tmp_path: Path) -> None:
    # the URL's host does not resolve: a refusal that waited for the connection would
    # exit 6, not 23
    url = "http://host.invalid/doc.txt"
    r = anyurl("get", "-sS", "-o", str(tmp_path), url)
    assert r.returncode == 23 and b"is a directory" in r.stderr
    r = anyurl("get", "-sS", "-o", str(tmp_path / "no" / "such" / "f"), url)
    assert r.returncode == 23 and b"--create-dirs" in r.stderr


def test_a_long_remote_name_is_shortened_to_fit_with_its_part(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    name = "n" * 246 + ".txt"  # 250 bytes: NAME.part would be 255, the limit
    (src / name).write_bytes(b"x")
    out = tmp_path / "out"
    out.mkdir()
    r = anyurl("get", "-sS", "-O", "--output-dir", str(out), f"file://{src}/{name}")
    assert r.returncode == 0, r.stderr
    longer = "m" * 251 + ".txt"
    (src / longer[:255]).write_bytes(b"y")
    r = anyurl("get", "-sS", "-O", "--output-dir", str(out), f"file://{src}/{longer[:255]}")
    assert r.returncode == 0, r.stderr
    saved = sorted(p.name for p in out.iterdir())
    assert all(len(n.encode()) <= 250 and n.endswith(".txt") for n in saved), saved


# -- file: reads that used to crash or hang ------------------------------------------------


@pytest.mark.parametrize("extra", [[], ["--plan"]], ids=["get", "plan"])
def test_a_nul_byte_in_a_file_url_is_a_malformed_url(extra: list[str]) -> None:
    r = anyurl("get", *extra, "file:///etc/passwd%00.txt")
    assert r.returncode == 3, r.stderr
    assert b"Traceback" not in r.stderr and b"NUL" in r.stderr


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_a_fifo_with_no_writer_honours_max_time(tmp_path: Path, backend: str) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    started = time.monotonic()
    r = anyurl("get", "--backend", backend, "--max-time", "0.5", f"file://{fifo}")
    assert r.returncode == 28, r.stderr
    assert time.monotonic() - started < 10


def _get_fifo(fifo: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "anyurl", "get", *args, f"file://{fifo}"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=_env())


def _await_wait_on(proc: subprocess.Popen[bytes], fifo: Path) -> None:
    """Return once ``proc`` holds ``fifo`` open and its main thread waits in the event
    loop's poll: its wait for the writer, read off /proc (not guessed with a sleep)."""
    fds, wchan = Path(f"/proc/{proc.pid}/fd"), Path(f"/proc/{proc.pid}/wchan")
    deadline = time.monotonic() + 30  # a hang guard only
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            opened = any(os.readlink(fd) == str(fifo) for fd in fds.iterdir())
            polling = "poll" in wchan.read_text()
        except OSError:  # an fd closed while we looked: look again
            opened = polling = False
        if opened and polling:
            return
        threading.Event().wait(0.01)
    pytest.fail(f"anyurl never waited on the FIFO (exit {proc.poll()})")


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_a_fifo_is_read_once_its_writer_comes(tmp_path: Path, backend: str) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    proc = _get_fifo(fifo, "--backend", backend)
    try:
        _await_wait_on(proc, fifo)  # the writer comes after the reader waits for it
        with open(fifo, "wb") as f:
            f.write(b"late\n")
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert (proc.returncode, out) == (0, b"late\n"), err


def test_ctrl_c_ends_a_wait_on_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    proc = _get_fifo(fifo)
    try:
        _await_wait_on(proc, fifo)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)  # a hang guard: the signal ends the wait
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 42, err
    assert b"Traceback" not in err


@pytest.mark.parametrize("where", ["stdout", "file"])
def test_max_filesize_stops_an_endless_body(tmp_path: Path, where: str) -> None:
    target = tmp_path / "zero"
    out = ["-o", str(target)] if where == "file" else []
    r = anyurl("get", "-sS", "--max-filesize", "100K", *out, "file:///dev/zero")
    assert r.returncode == 63, r.stderr
    assert not target.exists()
    assert len(r.stdout) <= 100 << 10


def test_max_filesize_refuses_an_announced_size_before_writing(tmp_path: Path,
                                                               source: str) -> None:
    target = tmp_path / "doc"
    r = anyurl("get", "-sS", "--max-filesize", "1K", "-o", str(target), source)
    assert r.returncode == 63, r.stderr
    assert not target.exists() and not (tmp_path / "doc.part").exists()
    assert anyurl("get", "-sS", "--max-filesize", "1M", "-o", str(target), source).returncode == 0


def test_a_wais_document_is_saved_under_its_own_name() -> None:
    from anyurl.downloads.names import remote_name
    from anyurl.protocols import wais
    from anyurl.url import parse

    docid = (b"\x01\x0b127.0.0.1:5\x02\x09/srv/demo"
             b"\x03\x1e0 98 /srv/demo/docs/gopher.txt\x07\x01\x00")
    url = parse("wais://h/demo/TEXT/" + wais.docid_to_wpath(docid))
    assert remote_name(url) == "gopher.txt"
    assert remote_name(parse("wais://h/demo/TEXT/plain-id")) == "plain-id"
