"""Every program of examples/ runs as written (file: URLs and servers it starts itself)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

#: example -> text its output must contain.
EXPECTED = {
    "fetch_one.py": "bytes from file://",
    "download_many.py": "3 of 3 downloaded, 2350000 bytes",
    "asyncio_app.py": "while the service answered b'pong\\n'",
    "trio_app.py": "downloaded: ['file0.txt', 'file1.txt', 'file2.txt', 'file3.txt', "
                   "'file4.txt'] all ok",
    "custom_scheme.py": "Uryyb, jbeyq",
    "mirror_archive.py": "WARC records: request, response, warcinfo (11 in all)",
}


def test_every_example_is_tested() -> None:
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_runs(name: str, tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=f"{ROOT / 'src'}{os.pathsep}"
               f"{os.environ.get('PYTHONPATH', '')}")
    r = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True,
                       timeout=120, cwd=tmp_path, env=env, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr.decode()
    output = (r.stdout + r.stderr).decode()
    assert EXPECTED[name] in output, output
    assert "Traceback" not in output
    assert list(tmp_path.iterdir()) == []  # nothing left in the working directory
