"""``anyurl mirror`` run again: exact bytes, then only what changed (issue 19).

An FTP tree of awkward names (spaces, ``;``, ``%``, ``#``, ``?``, non-ASCII), CR LF text
files and empty files is served by pyftpdlib (which answers ``MLSD``, so the listing's
``size`` and ``modify`` facts decide what changed) and mirrored byte for byte with its
WARC file; the tree then changes, and the second run must fetch exactly the new and
changed files (counted in the protocol dialogue of ``-v``), record revisits for nothing
it did not fetch, report the deleted file, and keep the server's times on the files.
A site on the nginx peer is refreshed with conditional requests: ``304`` for what did
not change, revisit records in the WARC, a CDXJ index beside it.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from warcio.archiveiterator import ArchiveIterator

from anyurl.mirror.engine import MANIFEST_NAME
from anyurl.schemes.ftp.loopback import running_ftp_server

pytestmark = [pytest.mark.integration]

SRC = Path(__file__).resolve().parents[2] / "src"

TREE: dict[str, bytes] = {
    "crlf.txt": b"a\r\nb\r\n",
    "dos notes.txt": b"line one\r\nline two\r\n",
    "semi;colon.txt": b"semi\n",
    "per%cent.txt": b"per cent\n",
    "hash#mark.txt": b"hash\n",
    "what?.txt": b"question\n",
    "caf\u00e9 \u00fcber.txt": b"non-ASCII name\n",
    "empty.txt": b"",
    "sub dir/empty.bin": b"",
    "sub dir/data.bin": bytes(range(256)) * 4,
    "sub dir/deeper/readme": b"deeper\r\n",
}


def run_mirror(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               NETRC=os.devnull)
    return subprocess.run([sys.executable, "-m", "anyurl", "mirror", "--wait", "0", *args],
                          capture_output=True, text=True, timeout=120, env=env,
                          stdin=subprocess.DEVNULL)


def write_tree(root: Path, tree: dict[str, bytes]) -> None:
    for name, blob in tree.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(blob)
        os.utime(path, (1_600_000_000, 1_600_000_000))


def mirrored(base: Path) -> dict[str, bytes]:
    return {p.relative_to(base).as_posix(): p.read_bytes() for p in base.rglob("*")
            if p.is_file() and p.name != ".listing"}


def retrieved(stderr: str) -> list[str]:
    """The names RETR asked for, in the -v dialogue."""
    return sorted(m.group(1) for m in re.finditer(r"^> RETR (.*)$", stderr, re.MULTILINE))


def records(path: Path) -> list[tuple[str, str]]:
    with open(path, "rb") as f:
        return [(r.rec_type, r.rec_headers.get_header("WARC-Target-URI") or "")
                for r in ArchiveIterator(f)]


@pytest.fixture
def ftp_tree(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    served = tmp_path / "served"
    write_tree(served, TREE)
    with running_ftp_server(served) as port:
        yield served, f"ftp://127.0.0.1:{port}/"


def test_ftp_mirror_is_exact_then_a_refresh_fetches_only_what_changed(
        ftp_tree: tuple[Path, str], tmp_path: Path) -> None:
    served, url = ftp_tree
    out = tmp_path / "out"
    warc = out / "tree.warc.gz"
    first = run_mirror("-v", "-o", str(out), "--warc", str(warc), "--warc-cdx", url)
    assert first.returncode == 0, first.stderr
    base = next((out / "ftp").iterdir())
    assert mirrored(base) == TREE  # byte for byte: CR LF kept, empty files, every name
    assert len(retrieved(first.stderr)) == len(TREE)
    assert "TYPE A" not in first.stderr
    check = subprocess.run([sys.executable, "-m", "warcio.cli", "check", str(warc)],
                           capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    # the server's modification times are kept
    assert (base / "crlf.txt").stat().st_mtime == 1_600_000_000

    time.sleep(1.1)  # MLSD's modify fact has whole seconds
    (served / "crlf.txt").write_bytes(b"a\r\nb\r\nc\r\n")                  # changed
    (served / "semi;colon.txt").write_bytes(b"SEMI\n")                     # same size
    (served / "sub dir" / "new file.txt").write_bytes(b"new\r\n")          # new
    (served / "what?.txt").unlink()                                        # deleted
    second = run_mirror("-v", "-o", str(out), "--warc", str(warc), "--warc-cdx", url)
    assert second.returncode == 0, second.stderr
    assert retrieved(second.stderr) == ["crlf.txt", "new file.txt", "semi;colon.txt"]
    assert "refreshed: 1 new, " in second.stderr
    assert "what%3F.txt" in second.stderr and "no longer listed" in second.stderr
    now = mirrored(base)
    assert now["crlf.txt"] == b"a\r\nb\r\nc\r\n"
    assert now["semi;colon.txt"] == b"SEMI\n"
    assert now["sub dir/new file.txt"] == b"new\r\n"
    assert now["what?.txt"] == b"question\n"  # kept
    kinds = [kind for kind, _ in records(warc)]
    assert kinds.count("warcinfo") == 1
    resources = [uri for kind, uri in records(warc) if kind == "resource"]
    # again: the 2 changed files and the 2 listings that changed; the new file is new
    assert len(resources) - len(set(resources)) == 4
    assert [uri for kind, uri in records(warc) if kind == "revisit"] == [
        url + "sub%20dir/deeper/"]  # the listing fetched again, unchanged
    index = (out / "tree.cdxj").read_text().splitlines()
    assert any('"url": "' + url + 'sub%20dir/new%20file.txt"' in line for line in index)

    third = run_mirror("-v", "-o", str(out), url)
    assert third.returncode == 0, third.stderr
    assert retrieved(third.stderr) == []  # nothing changed: only listings were read
    manifest = [json.loads(line) for line in (out / MANIFEST_NAME).read_text().splitlines()]
    assert {e["outcome"] for e in manifest} == {"new", "changed"}


@pytest.fixture
def site(peers: Any) -> Iterator[tuple[Path, str]]:
    """A directory of the nginx peer's data root that this test may change."""
    peer = peers["nginx"]
    name = f"refresh-{uuid.uuid4().hex[:8]}"
    root = peer.data_root / name
    root.mkdir()
    try:
        for n in range(5):
            (root / f"page{n}.txt").write_bytes(f"page {n}\n".encode())
        yield root, peer.url(f"{name}/")
    finally:
        shutil.rmtree(root)


def test_http_refresh_asks_conditionally_and_records_revisits(
        site: tuple[Path, str], tmp_path: Path) -> None:
    root, url = site
    out = tmp_path / "out"
    warc = out / "site.warc.gz"
    first = run_mirror("-o", str(out), "--warc", str(warc), url)
    assert first.returncode == 0, first.stderr
    (root / "page3.txt").write_bytes(b"page three, changed\n")
    os.utime(root / "page3.txt", (1_700_000_000, 1_700_000_000))
    second = run_mirror("-v", "-o", str(out), "--warc", str(warc), "--warc-cdx", url)
    assert second.returncode == 0, second.stderr
    assert second.stderr.count("> If-None-Match:") >= 5
    assert second.stderr.count("< HTTP/1.1 304") == 4  # every page but the changed one
    # A 304 ends at its head (RFC 9112 6.3): the connection is kept for the next request
    # (before, each 304 cost a new one). At most --per-host connections, plus one a
    # robots.txt or a listing may open.
    assert second.stderr.count("* connecting to ") <= 3, second.stderr
    assert "0 new, 2 changed, 4 unchanged" in second.stderr  # the index page changed too
    assert "(2 now, 4 not modified)" in second.stderr  # bodies fetched; 304s apart
    saved = next(out.glob("http/*/refresh-*/page3.txt"))
    assert saved.read_bytes() == b"page three, changed\n"
    assert saved.stat().st_mtime == 1_700_000_000  # Last-Modified kept
    with open(warc, "rb") as f:
        revisits = [r for r in ArchiveIterator(f) if r.rec_type == "revisit"]
    assert len(revisits) == 4
    for record in revisits:
        assert record.rec_headers.get_header("WARC-Profile").endswith(
            "/revisit/identical-payload-digest")
        assert record.rec_headers.get_header("WARC-Refers-To-Target-URI") == \
            record.rec_headers.get_header("WARC-Target-URI")
        assert record.http_headers is not None
        assert record.http_headers.get_statuscode() == "304"
    lines = (out / "site.cdxj").read_text().splitlines()
    assert sum('"mime": "warc/revisit"' in line for line in lines) == 4
    with gzip.open(warc) as f:
        assert f.read(4) == b"WARC"


def test_a_killed_crawl_leaves_one_record_set_per_url(peers: Any, tmp_path: Path) -> None:
    """A record written after the last one the state committed (a kill in between) is
    cut off on resume, so the URL fetched again is archived once."""
    import sqlite3

    peer = peers["vsftpd"]
    out = tmp_path / "out"
    warc = out / "w.warc"
    first = run_mirror("-o", str(out), "--warc", str(warc), peer.url("pub/"))
    assert first.returncode == 0, first.stderr
    with open(warc, "rb") as f:
        it = ArchiveIterator(f)
        last = [(it.get_record_offset(), r.rec_headers.get_header("WARC-Target-URI"))
                for r in it if r.rec_type == "resource"][-1]
    # What a kill leaves after the last record was written but before the state noted
    # it (the row and the WARC end are one transaction): the URL still running, never
    # done, and the state's WARC end before its records.
    db = sqlite3.connect(out / ".anyurl-mirror.sqlite")
    with db:
        db.execute("UPDATE urls SET status = 'running', kind = NULL, file = NULL, "
                   "sha256 = NULL, size = NULL, warc_id = NULL, warc_uri = NULL, "
                   "warc_date = NULL, warc_digest = NULL WHERE url = ?", (last[1],))
        db.execute("UPDATE settings SET value = ? WHERE key = 'warc_end'",
                   (json.dumps([str(warc), last[0]]),))
    db.close()
    second = run_mirror("-o", str(out), "--warc", str(warc))
    assert second.returncode == 0, second.stderr
    uris = [uri for kind, uri in records(warc) if kind == "resource"]
    assert len(uris) == len(set(uris)) and last[1] in uris
    check = subprocess.run([sys.executable, "-m", "warcio.cli", "check", str(warc)],
                           capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
