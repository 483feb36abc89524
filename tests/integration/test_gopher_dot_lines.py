"""Issue 29: a real file holding lone "." lines, served by the real gophernicus.

gophernicus sends a document as it is stored: no "." at its end, no doubled dots. Debian's
``socat.html`` has dozens of lines holding only "." (the first one 12 KB in); anyurl used
to stop at the first, saving 12,288 of its 242,152 bytes, marked done. Here the file is
fetched with ``get`` and copied with ``mirror`` on both anyio backends, byte for byte,
and a refresh of that mirror finds it unchanged (STYLE 30: data nobody here wrote).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from anyurl.mirror.engine import MANIFEST_NAME

pytestmark = [pytest.mark.integration]

SRC = Path(__file__).resolve().parents[2] / "src"
#: socat is installed with the gophernicus peer (gophernicus runs under it).
REAL_FILE = Path("/usr/share/doc/socat/socat.html")
BACKENDS = ["asyncio", "trio"]


def anyurl(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               NETRC=os.devnull)
    return subprocess.run([sys.executable, "-m", "anyurl", *args], capture_output=True,
                          text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)


def real_document() -> Path:
    """socat.html, or else another stored document with a lone "." line in its middle."""
    candidates = [REAL_FILE] if REAL_FILE.is_file() else sorted(
        p for p in Path("/usr/share/doc").rglob("*") if p.suffix in (".html", ".txt", ".md")
        and p.is_file() and not p.is_symlink())
    for path in candidates:
        blob = path.read_bytes()
        lines = blob.split(b"\n")
        if b"." in lines[:-2] and b"\r" not in blob:
            return path
    pytest.fail("no document in /usr/share/doc has a lone '.' line: install socat "
                "(scripts/install-peers.sh does)", pytrace=False)


@pytest.fixture
def served(peers: Any) -> Iterator[tuple[Path, str, str]]:
    """A directory of gophernicus's data root holding the real document: (the copy
    served, the directory's menu URL, the document's URL). Removed after the test."""
    peer = peers["gophernicus"]
    name = f"dots-{uuid.uuid4().hex[:8]}"
    root = peer.data_root / name
    root.mkdir()
    os.chmod(root, 0o755)  # gophernicus reads as an unprivileged user
    try:
        source = real_document()
        copy = root / source.name
        shutil.copyfile(source, copy)
        os.chmod(copy, 0o644)
        # An .html file is an "h" item: gophernicus sends it as stored (no CR LF).
        gtype = "h" if source.suffix == ".html" else "0"
        yield copy, peer.url(f"1/{name}/"), peer.url(f"{gtype}/{name}/{source.name}")
    finally:
        shutil.rmtree(root)


@pytest.mark.parametrize("backend", BACKENDS)
def test_get_keeps_every_byte_after_dot_lines(served: tuple[Path, str, str], tmp_path: Path,
                                              backend: str) -> None:
    copy, _, url = served
    expected = copy.read_bytes()
    assert b"\n.\n" in expected[:len(expected) // 2]  # the case: a "." line, then more
    out = tmp_path / "got.html"
    r = anyurl("get", "--backend", backend, "-o", str(out), url)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_mirror_is_exact_and_a_refresh_finds_it_unchanged(
        served: tuple[Path, str, str], tmp_path: Path, backend: str) -> None:
    copy, menu, url = served
    out = tmp_path / "out"
    first = anyurl("mirror", "--wait", "0", "--backend", backend, "-o", str(out), menu)
    assert first.returncode == 0, first.stderr
    entries = {e["url"]: e for e in map(json.loads,
                                        (out / MANIFEST_NAME).read_text().splitlines())}
    saved = out / entries[url]["file"]
    assert saved.read_bytes() == copy.read_bytes()
    assert entries[url]["size"] == copy.stat().st_size
    second = anyurl("mirror", "--wait", "0", "--backend", backend, "-o", str(out), menu)
    assert second.returncode == 0, second.stderr
    assert "refreshed: 0 new, 0 changed, 2 unchanged" in second.stderr  # menu and file
    assert saved.read_bytes() == copy.read_bytes()
