"""A binary body is not written to a terminal, as curl refuses it ("Binary output can mess
up your terminal"); ``-o -`` writes it anyway, a pipe or a file always (issue 23, point 5).
Run side by side with curl, stdout on a pseudo-terminal."""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_curl_options import _env, anyurl
from tests.integration.test_http import ScriptedServer, fixed

pytestmark = pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")

BINARY = bytes(range(256)) * 8000  # 2 MB: large enough for the kernel-move path


@pytest.fixture
def server() -> ScriptedServer:
    srv = ScriptedServer()
    srv.routes["/bin"] = fixed(BINARY)
    srv.routes["/text"] = fixed(b"plain text\n")
    yield srv  # type: ignore[misc]
    srv.close()


def on_a_terminal(argv: list[str]) -> tuple[int, bytes, bytes]:
    """Run ``argv`` with stdout on a pseudo-terminal: (status, what the terminal got, stderr)."""
    leader, follower = pty.openpty()
    try:
        proc = subprocess.Popen(argv, stdout=follower, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, env=_env())
        os.close(follower)
        seen = bytearray()
        while True:
            try:
                more = os.read(leader, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not more:
                break
            seen += more
        _, err = proc.communicate(timeout=60)
    finally:
        os.close(leader)
    return proc.returncode, bytes(seen), err


def ours(*args: str) -> list[str]:
    return [sys.executable, "-m", "anyurl", "get", *args]


def test_binary_to_a_terminal_is_refused_as_curl_refuses_it(server: ScriptedServer) -> None:
    url = server.url("/bin")
    status, shown, err = on_a_terminal(["curl", "-sS", url])
    assert status == 23 and shown == b""
    status, shown, err = on_a_terminal(ours("-sS", url))
    assert (status, shown) == (23, b""), err
    assert b"binary, which can mess up your terminal" in err
    assert b"-o FILE" in err and b"-o -" in err


def test_dash_o_dash_and_text_still_reach_the_terminal(server: ScriptedServer) -> None:
    for argv in (["curl", "-sS", "-o", "-"], ours("-sS", "-o", "-")):
        status, shown, _ = on_a_terminal([*argv, server.url("/bin")])
        assert status == 0 and len(shown) >= len(BINARY), argv[0]
    for argv in (["curl", "-sS"], ours("-sS")):
        status, shown, _ = on_a_terminal([*argv, server.url("/text")])
        assert (status, shown) == (0, b"plain text\r\n"), argv[0]  # the terminal's CR LF


def test_a_pipe_or_a_file_takes_binary(server: ScriptedServer, tmp_path: Path) -> None:
    r = anyurl("-sS", server.url("/bin"))
    assert (r.returncode, r.stdout) == (0, BINARY)
    r = anyurl("-sS", "-o", str(tmp_path / "b"), server.url("/bin"))
    assert r.returncode == 0 and (tmp_path / "b").read_bytes() == BINARY
