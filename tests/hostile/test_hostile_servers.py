"""The hostile-server suite: `anyurl get` against anyurl.testing.hostile on both backends.

For each misbehaviour: the documented exit code, one line on stderr and no traceback,
no raw control character from the server on the terminal, peak memory bounded
(:data:`RSS_LIMIT`), and nothing left under the final file name after a failure.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from anyurl.testing.hostile import BEHAVIOURS, HostileServer
from tests.cli.test_get_cli import _env

#: 64 MiB plus what the interpreter and its imports take on this machine (about 35 MiB).
RSS_LIMIT = (64 + 40) << 20
BACKENDS = ["asyncio", "trio"]

CASES = [
    # behaviour, extra arguments, expected exit code
    pytest.param("ftp-endless-reply", [], 8, id="ftp-endless-reply"),
    pytest.param("ftp-endless-line", [], 8, id="ftp-endless-line"),
    pytest.param("ftp-size-digits", [], 8, id="ftp-size-digits"),
    pytest.param("ftp-pasv-refused-port", [], 7, id="ftp-pasv-refused-port",
                 marks=pytest.mark.words(b"port 25")),
    pytest.param("ftp-escapes", [], 9, id="ftp-escapes"),
    pytest.param("http-lying-length", [], 18, id="http-lying-length"),
    pytest.param("http-endless-header", [], 8, id="http-endless-header"),
    pytest.param("http-endless-body", ["--max-filesize", "1M"], 63, id="http-endless-body"),
    pytest.param("http-gzip-bomb", ["--compressed", "--max-filesize", "10M"], 63,
                 id="http-gzip-bomb"),
    pytest.param("http-br-bomb", ["--compressed", "--max-filesize", "10M"], 63,
                 id="http-br-bomb"),
    pytest.param("http-zstd-bomb", ["--compressed", "--max-filesize", "10M"], 63,
                 id="http-zstd-bomb"),
    pytest.param("http-redirect-refused-port", [], 7, id="http-redirect-refused-port",
                 marks=pytest.mark.words(b"refusing to connect to port 25")),
    pytest.param("http-redirect-file", [], 1, id="http-redirect-file"),
    pytest.param("http-escapes", [], 22, id="http-escapes"),
    pytest.param("http-slowloris", ["--max-time", "1.5"], 28, id="http-slowloris"),
    pytest.param("https-plain", [], 35, id="https-plain"),
    pytest.param("gopher-endless-menu", ["--max-filesize", "5M"], 63,
                 id="gopher-endless-menu"),
    pytest.param("gopher-endless-line", [], 8, id="gopher-endless-line"),
    pytest.param("gopher-escapes", ["-o", "-", "--render"], 0, id="gopher-escapes-rendered"),
    pytest.param("nntp-endless-article", ["--max-filesize", "5M"], 63,
                 id="nntp-endless-article"),
]


#: Runs the command as its only child and reports that child's peak RSS on stderr.
_MEASURE = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
            "sys.stderr.write('\\nRSS=%d\\n' % "
            "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(r.returncode)")


def _run(argv: list[str]) -> tuple[int, bytes, bytes, int]:
    """Run anyurl; (exit code, stdout, stderr, peak RSS in bytes) of that process alone."""
    r = subprocess.run([sys.executable, "-c", _MEASURE, sys.executable, "-m", "anyurl", *argv],
                       capture_output=True, stdin=subprocess.DEVNULL, env=_env(), timeout=120)
    err, _, last = r.stderr.rstrip().rpartition(b"\n")
    assert last.startswith(b"RSS="), r.stderr
    return r.returncode, r.stdout, err, int(last[4:]) * 1024


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("name", "extra", "code"), CASES)
def test_hostile_server(request: pytest.FixtureRequest, tmp_path: Path, backend: str,
                        name: str, extra: list[str], code: int) -> None:
    target = tmp_path / "out.bin"
    with HostileServer(BEHAVIOURS[name]) as server:
        returncode, out, err, rss = _run(
            ["get", "--backend", backend, "--allow-port", str(server.port),
             "--connect-timeout", "5", "--max-time", "60", *extra,
             *([] if "-o" in extra else ["-o", str(target)]), server.url])
    assert returncode == code, err.decode(errors="replace")
    for mark in request.node.iter_markers("words"):
        assert mark.args[0] in err, err
    assert b"Traceback" not in err
    assert b"\x1b" not in err and b"\x07" not in err, err
    if name == "gopher-escapes":  # a rendered menu on stdout carries no raw escape either
        assert b"\x1b" not in out and b"\\x1b" in out, out
    assert len(err.strip().splitlines()) <= 2, err  # the error, perhaps a warning
    assert not target.exists(), "a failed transfer left a file under the final name"
    assert rss < RSS_LIMIT, f"peak RSS {rss >> 20} MiB"
