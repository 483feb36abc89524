"""`anyurl get` end to end with file: URLs (every scheme's own tests add their own)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def anyurl(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "anyurl", *args], capture_output=True,
                          timeout=60, cwd=cwd)


def test_get_to_stdout(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"hello\n")
    r = anyurl("get", f"file://{tmp_path}/a.txt")
    assert (r.returncode, r.stdout) == (0, b"hello\n")


def test_bare_url_means_get(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"hello\n")
    assert anyurl(f"file://{tmp_path}/a.txt").stdout == b"hello\n"


def test_get_output_file(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"hello\n")
    out = tmp_path / "copy.txt"
    r = anyurl("get", "-o", str(out), f"file://{tmp_path}/a.txt")
    assert r.returncode == 0
    assert out.read_bytes() == b"hello\n"
    assert not (tmp_path / "copy.txt.part").exists()


def test_remote_name_is_safe(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "x.txt").write_bytes(b"x")
    dest = tmp_path / "dest"
    dest.mkdir()
    r = anyurl("get", "-O", "--output-dir", str(dest), f"file://{tmp_path}/src/x.txt")
    assert r.returncode == 0, r.stderr
    assert (dest / "x.txt").read_bytes() == b"x"
    r = anyurl("get", "-O", "--output-dir", str(dest), f"file://{tmp_path}/src/x.txt")
    assert r.returncode == 73  # exists, not clobbered


def test_unsupported_scheme_exit_1_names_scheme() -> None:
    r = anyurl("get", "x-nope:thing")
    assert r.returncode == 1
    assert b"x-nope" in r.stderr
    assert r.stdout == b""


def test_malformed_url_exit_3() -> None:
    r = anyurl("get", "ftp://h:99999/")
    assert r.returncode == 3
    assert b"out of range" in r.stderr


def test_missing_file_exit_78_and_no_output_file(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    r = anyurl("get", "-o", str(out), f"file://{tmp_path}/missing.txt")
    assert r.returncode == 78
    assert not out.exists()
    assert len(r.stderr.decode().strip().splitlines()) == 1


def test_first_failure_sets_exit_code_and_summary(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"a")
    r = anyurl("get", f"file://{tmp_path}/nope", "x-nope:q", f"file://{tmp_path}/a.txt")
    assert r.returncode == 78
    assert r.stdout == b"a"
    assert b"2 of 3 URLs failed" in r.stderr


def test_plan_does_not_touch_anything(tmp_path: Path) -> None:
    r = anyurl("get", "--plan", f"file://{tmp_path}/a.txt")
    assert r.returncode == 0
    assert str(tmp_path / "a.txt").encode() in r.stdout


def test_password_never_printed_in_errors() -> None:
    r = anyurl("get", "x-nope://user:hunter2@h/")
    assert b"hunter2" not in r.stderr
    assert b"****" in r.stderr
