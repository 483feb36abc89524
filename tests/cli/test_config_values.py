"""A config file with a value of the wrong type stops ``get`` and ``mirror`` with exit 2,
naming the file, the key and the type, before any connection (issue 29)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.cli.test_get_cli import anyurl


@pytest.mark.parametrize("line", ['limit_rate = "fast"', 'max_filesize = "2 apples"',
                                  'parallel = "four"', 'retry = "3"',
                                  'retry_jitter = "bogus"', 'ftp_passive = "no"'])
@pytest.mark.parametrize("command", ["get", "mirror"])
def test_exit_2_before_any_connection(tmp_path: Path, line: str, command: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(line + "\n")
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(0.2)
        port = listener.getsockname()[1]
        out = ["-o", str(tmp_path / "out")]
        r = anyurl(command, "--config", str(config), "--allow-port", str(port), *out,
                   f"http://127.0.0.1:{port}/x")
        with pytest.raises(TimeoutError):
            listener.accept()  # nobody connected
    key = line.split(" =")[0]
    assert r.returncode == 2, r.stderr
    assert str(config).encode() in r.stderr and f"{key} = ".encode() in r.stderr
    assert b"internal error" not in r.stderr and b" is not " in r.stderr


def test_the_command_line_s_sizes_are_the_file_s(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"x" * 3000)
    config = tmp_path / "config.toml"
    config.write_text('max_filesize = "2K"\nlimit_rate = "1M"\n')
    r = anyurl("get", "--config", str(config), "-o", str(tmp_path / "out"),
               (tmp_path / "a.txt").as_uri())
    assert r.returncode == 63, r.stderr  # bigger than 2K: FileSizeExceeded, as --max-filesize
