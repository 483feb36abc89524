"""`anyurl get` end to end with file: URLs (every scheme's own tests add their own)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.peers import data

SRC = Path(__file__).resolve().parents[2] / "src"
BACKENDS = [pytest.param("asyncio", id="asyncio"), pytest.param("trio", id="trio")]


def _env(**extra: str) -> dict[str, str]:
    """This checkout's sources first, whatever `pip install -e` points at."""
    return dict(os.environ, PYTHONPATH=f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
                **extra)


def anyurl(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "anyurl", *args], capture_output=True,
                          timeout=60, cwd=cwd, env=_env(), stdin=subprocess.DEVNULL)


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


def test_missing_file_exit_37_and_no_output_file(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    r = anyurl("get", "-o", str(out), f"file://{tmp_path}/missing.txt")
    assert r.returncode == 37  # curl's FILE_COULDNT_READ_FILE
    assert not out.exists()
    assert len(r.stderr.decode().strip().splitlines()) == 1


def test_first_failure_sets_exit_code_and_summary(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"a")
    r = anyurl("get", f"file://{tmp_path}/nope", "x-nope:q", f"file://{tmp_path}/a.txt")
    assert r.returncode == 37
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


# -- many URLs, progress, --json ------------------------------------------------------------


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    src = tmp_path / "src"
    src.mkdir()
    urls = []
    for i in range(3):
        (src / f"f{i}.bin").write_bytes(bytes([i]) * (200_000 + i))
        urls.append(f"file://{src}/f{i}.bin")
    return urls


def test_progress_is_off_when_stderr_is_piped(files: list[str], tmp_path: Path) -> None:
    r = anyurl("get", "-O", "--output-dir", str(tmp_path), *files)
    assert r.returncode == 0
    assert r.stderr == b""  # no bars, no escape codes
    assert r.stdout == b""
    assert (tmp_path / "f2.bin").stat().st_size == 200_002


def _run_on_a_terminal(args: list[str]) -> tuple[int, bytes]:
    """Run anyurl with stderr on a pseudo-terminal; its return code and what it drew."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "anyurl", *args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=slave,
                            env=_env(TERM="xterm", COLUMNS="120"))
    os.close(slave)
    drawn = bytearray()

    def drain() -> None:
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the last writer has gone
                return
            if not chunk:
                return
            drawn.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    proc.wait(timeout=60)
    reader.join(timeout=10)
    os.close(master)
    return proc.returncode, bytes(drawn)


def test_progress_is_drawn_on_a_terminal_and_not_with_s(files: list[str],
                                                         tmp_path: Path) -> None:
    code, drawn = _run_on_a_terminal(["get", "-O", "--output-dir", str(tmp_path), *files])
    assert code == 0
    assert b"total 3/3" in drawn
    assert b"\x1b[" in drawn  # drawn with terminal escapes
    code, drawn = _run_on_a_terminal(["get", "-s", "--clobber", "-O", "--output-dir",
                                      str(tmp_path), *files])
    assert (code, drawn) == (0, b"")


def test_json_lines_only_when_writing_files(files: list[str], tmp_path: Path) -> None:
    r = anyurl("get", "--json", "-O", "--output-dir", str(tmp_path), *files)
    lines = [json.loads(line) for line in r.stdout.decode().splitlines()]
    assert sorted(line["url"] for line in lines) == sorted(files)
    assert {line["status"] for line in lines} == {"ok"}
    # Bodies on stdout: --json keeps its meaning for menus, the body is untouched.
    r = anyurl("get", "--json", files[0])
    assert r.stdout == bytes([0]) * 200_000


def test_input_file_and_create_dirs(files: list[str], tmp_path: Path) -> None:
    listing = tmp_path / "mail.txt"
    listing.write_text(f"Hello,\nthe files are at <URL:{files[0]}> and\n{files[1]}.\n")
    out = tmp_path / "deep" / "er"
    r = anyurl("get", "-O", "-i", str(listing), "--output-dir", str(out), "--create-dirs")
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["f0.bin", "f1.bin"]


def test_summary_of_every_failure(files: list[str], tmp_path: Path) -> None:
    r = anyurl("get", "-O", "--output-dir", str(tmp_path), "-Z", "2", files[0],
               f"file://{tmp_path}/nope", "x-nope:q", files[1])
    assert r.returncode == 37  # the first failure in the order given
    err = r.stderr.decode()
    assert "2 of 4 URLs failed:" in err
    assert f"file://{tmp_path}/nope: exit 37" in err and "x-nope:q: exit 1" in err
    assert (tmp_path / "f0.bin").exists() and (tmp_path / "f1.bin").exists()


def test_no_url_is_a_usage_error() -> None:
    r = anyurl("get")
    assert r.returncode == 2
    assert b"no URL" in r.stderr


# -- against the real peers -----------------------------------------------------------------

MIXED_PEERS = ["vsftpd", "nginx", "pygopherd"]


@pytest.mark.integration
@pytest.mark.parametrize("backend", BACKENDS)
def test_parallel_mixed_scheme_run(peers: Any, files: list[str], tmp_path: Path,
                                   backend: str) -> None:
    ftp, http, gopher = (peers[name] for name in MIXED_PEERS)
    wanted = {
        ftp.url("pub/readme.txt"): ("readme.txt", data.expected_bytes("pub/readme.txt")),
        ftp.url("many/file007.txt;type=i"): ("file007.txt",
                                             data.expected_bytes("many/file007.txt")),
        http.url("many/file001.txt"): ("file001.txt", data.expected_bytes("many/file001.txt")),
        http.url("pub/with%20space.txt"): ("with space.txt",
                                           data.expected_bytes("pub/with space.txt")),
        gopher.url("9/bin1k.dat"): ("bin1k.dat", data.expected_bytes("bin1k.dat")),
        files[0]: ("f0.bin", bytes([0]) * 200_000),
    }
    missing = http.url("no/such/file.txt")
    out = tmp_path / "out"
    r = anyurl("get", "--backend", backend, "-s", "-O", "-Z", "4", "--json", "-v",
               "--output-dir", str(out), "--create-dirs", *wanted, missing)
    lines = {line["url"]: line for line in map(json.loads, r.stdout.decode().splitlines())}
    assert set(lines) == {*wanted, missing}
    for url, (name, content) in wanted.items():
        assert lines[url]["status"] == "ok", lines[url]
        assert (out / name).read_bytes() == content, url
    assert lines[missing]["status"] == "failed"
    assert r.returncode == lines[missing]["exit_code"] != 0
    assert sorted(p.name for p in out.iterdir()) == sorted(n for n, _ in wanted.values())
    # -v: every transfer's dialogue, each line tagged with its URL's position.
    err = r.stderr.decode()
    assert "[1] > USER anonymous" in err and "[1] > CWD pub" in err, err
    assert "[3] > GET /many/file001.txt" in err


@pytest.mark.integration
def test_json_menu_on_stdout_but_json_lines_with_files(peers: Any, tmp_path: Path) -> None:
    menu = peers["pygopherd"].url("1/pub")
    r = anyurl("get", "-s", "--json", menu)
    assert r.returncode == 0, r.stderr
    items = json.loads(r.stdout)
    assert isinstance(items, list | dict)
    r = anyurl("get", "-s", "--json", "-o", str(tmp_path / "menu.txt"), menu)
    [line] = [json.loads(x) for x in r.stdout.decode().splitlines()]
    assert (line["status"], line["file"]) == ("ok", str(tmp_path / "menu.txt"))
    assert (tmp_path / "menu.txt").read_bytes().lstrip()[:1] not in (b"[", b"{")


@pytest.mark.integration
@pytest.mark.parametrize("backend", BACKENDS)
def test_ftp_resume_with_c(peers: Any, tmp_path: Path, backend: str) -> None:
    content = data.expected_bytes("bin1k.dat")
    out = tmp_path / "bin1k.dat"
    (tmp_path / "bin1k.dat.part").write_bytes(content[:300])
    r = anyurl("get", "--backend", backend, "-s", "-v", "-C", "-o", str(out),
               peers["vsftpd"].url("bin1k.dat"))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == content
    assert b"> REST 300" in r.stderr


@pytest.mark.integration
def test_a_gopher_menu_is_saved_as_sent_and_rendered_on_request(peers: Any,
                                                                 tmp_path: Path) -> None:
    """Files and pipes get the menu as the server framed it; --render gives the text."""
    menu = peers["pygopherd"].url("1/pub")
    piped = anyurl("get", "-s", menu)
    assert piped.returncode == 0, piped.stderr
    lines = piped.stdout.splitlines()
    assert lines and all(b"\t" in line for line in lines if line[:1] != b"i")
    assert not piped.stdout.rstrip().endswith(b"\n.")  # the terminator is removed
    saved = tmp_path / "menu"
    assert anyurl("get", "-s", "-o", str(saved), menu).returncode == 0
    assert saved.read_bytes() == piped.stdout
    rendered = anyurl("get", "-s", "--render", menu)
    assert b"<gopher://" in rendered.stdout and b"\t" not in rendered.stdout


def test_a_non_default_port_is_a_note_shown_with_v_only(tmp_path: Path) -> None:
    """Port 8080 is common: the note appears with -v, never as a warning otherwise."""
    url = "http://127.0.0.1:9/"  # refused: nothing listens on the discard port
    quiet = anyurl("get", "--allow-port", "9", url)
    assert b"uses port" not in quiet.stderr
    loud = anyurl("get", "-v", "--allow-port", "9", url)
    assert b"uses port 9, not the http default 80" in loud.stderr


def test_a_url_without_a_scheme_is_guessed_as_curl_does() -> None:
    r = anyurl("get", "--plan", "ftp.example.org/pub/README")
    assert r.returncode == 0, r.stderr
    assert b"no scheme; fetching ftp://ftp.example.org/pub/README" in r.stderr
    assert b"RETR README" in r.stdout
    r = anyurl("get", "--plan", "www.example.org/index.html")
    assert b"fetching http://www.example.org/index.html" in r.stderr
    assert b"GET /index.html HTTP/1.1" in r.stdout


def test_a_typoed_scheme_gets_a_did_you_mean() -> None:
    r = anyurl("get", "htpp://example.org/")
    assert r.returncode == 1
    assert b"Did you mean http:?" in r.stderr
