"""``anyurl mirror`` against the real peers: complete and exact trees, resume, WARC.

Each test mirrors one peer's copy of the data root (tests/peers/data.py) and compares
the mirrored files with the data root byte for byte: an FTP tree from vsftpd, a Gopher
hole from pygopherd, a site from nginx (autoindex pages), a newsgroup from leafnode.
Then: a crawl killed with SIGKILL resumes without fetching a completed URL again, and the
WARC file passes ``warcio check`` with HTTP records that replay the bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from anyurl.mirror.engine import MANIFEST_NAME, STATE_NAME
from tests.peers import data

pytestmark = [pytest.mark.integration]

SRC = Path(__file__).resolve().parents[2] / "src"
#: What a mirror writes besides the files themselves.
INDEXES = {".listing", "gophermap", "index.html", ".group"}


def mirror(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONPATH=f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               NETRC=os.devnull)
    return subprocess.run([sys.executable, "-m", "anyurl", "mirror", "--wait", "0", *args],
                          capture_output=True, timeout=timeout, env=env,
                          stdin=subprocess.DEVNULL)


def files_under(root: Path) -> dict[str, bytes]:
    """Relative path -> bytes of every mirrored file (not the listings and menus)."""
    found = {}
    for path in root.rglob("*"):
        if path.is_file() and path.name not in INDEXES:
            found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found


def expected_tree(peers: Any, under: str = "") -> dict[str, str]:
    """Relative path -> sha256 of the data root's files under ``under``."""
    return {path[len(under):]: meta["sha256"] for path, meta in peers.files.items()
            if path.startswith(under) and not path.startswith(".")}


def sha(blob: bytes) -> str:
    return hashlib.sha256(blob).hexdigest()


def manifest(root: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (root / MANIFEST_NAME).read_text().splitlines()]


def test_ftp_tree_is_copied_completely_and_exactly(peers: Any, tmp_path: Path) -> None:
    peer = peers["vsftpd"]
    r = mirror("-o", str(tmp_path), peer.url("pub/"))
    assert r.returncode == 0, r.stderr
    base = tmp_path / "ftp" / f"{peer.host}_{peer.port}" / "pub"
    got = {k: sha(v) for k, v in files_under(base).items()}
    assert got == expected_tree(peers, "pub/")
    entries = manifest(tmp_path)
    assert len({e["url"] for e in entries}) == len(entries)  # each URL once
    for entry in entries:
        blob = (tmp_path / entry["file"]).read_bytes()
        assert (entry["size"], entry["sha256"]) == (len(blob), sha(blob))


def test_whole_ftp_server_with_a_depth_limit(peers: Any, tmp_path: Path) -> None:
    peer = peers["vsftpd"]
    r = mirror("-o", str(tmp_path), "--depth", "2", "--exclude", "*large.dat", peer.url())
    assert r.returncode == 0, r.stderr
    base = tmp_path / "ftp" / f"{peer.host}_{peer.port}"
    got = set(files_under(base))
    assert "hello.txt" in got and "pub/readme.txt" in got
    assert "pub/nested/deeper/file.txt" not in got  # four links deep
    assert data.LARGE_NAME not in got  # excluded


def test_gopher_hole_is_copied_completely_and_exactly(peers: Any, tmp_path: Path) -> None:
    peer = peers["pygopherd"]
    r = mirror("-o", str(tmp_path), "--render", peer.url("1/pub"))
    assert r.returncode == 0, r.stderr
    base = tmp_path / "gopher" / f"{peer.host}_{peer.port}" / "pub"
    got = {k: sha(v) for k, v in files_under(base).items() if not k.endswith("gophermap.txt")}
    assert got == expected_tree(peers, "pub/")
    assert (base / "gophermap").is_file()  # the menu, as the server sent it
    rendered = (base / "gophermap.txt").read_text()  # and, asked for, a rendering beside it
    assert "gopher://" in rendered and "readme.txt" in rendered


def test_site_is_copied_from_nginx(peers: Any, tmp_path: Path) -> None:
    peer = peers["nginx"]
    r = mirror("-o", str(tmp_path), peer.url("pub/"))
    assert r.returncode == 0, r.stderr
    base = tmp_path / "http" / f"{peer.host}_{peer.port}" / "pub"
    got = {k: sha(v) for k, v in files_under(base).items()}
    assert got == expected_tree(peers, "pub/")


def test_newsgroup_is_copied_from_leafnode(peers: Any, tmp_path: Path) -> None:
    peer = peers["leafnode"]
    group = "anyurl.test"
    r = mirror("-o", str(tmp_path), f"nntp://{peer.host}:{peer.port}/{group}")
    assert r.returncode == 0, r.stderr
    articles = [e for e in manifest(tmp_path) if e["kind"] == "article"]
    assert len(articles) == len(data.NEWS_ARTICLES)
    bodies = [(tmp_path / e["file"]).read_bytes() for e in articles]
    for (subject, body), _ in zip(data.NEWS_ARTICLES, bodies, strict=True):
        assert any(subject.encode() in b and body.replace(b"\n", b"\r\n")[:20] in
                   b.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n") for b in bodies)


def test_a_killed_crawl_resumes_without_fetching_a_completed_url_again(
        peers: Any, tmp_path: Path) -> None:
    peer = peers["vsftpd"]
    env = dict(os.environ, PYTHONPATH=f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    # Slow and one at a time, so that the kill lands in the middle of the crawl.
    argv = [sys.executable, "-m", "anyurl", "mirror", "-s", "-o", str(tmp_path), "-Z", "1",
            "--wait", "0.2", peer.url("many/")]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    state = tmp_path / STATE_NAME
    deadline = time.monotonic() + 60
    done = 0
    while time.monotonic() < deadline and proc.poll() is None:
        if state.exists():
            try:
                with sqlite3.connect(state) as db:
                    done = db.execute(
                        "SELECT COUNT(*) FROM urls WHERE status = 'done'").fetchone()[0]
            except sqlite3.Error:
                done = 0
        if done >= 5:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the crawl ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    before = manifest(tmp_path)
    assert 5 <= len(before) < data.MANY_COUNT + 1
    r = mirror("-o", str(tmp_path), timeout=300)  # no URL: the crawl kept in the directory
    assert r.returncode == 0, r.stderr
    entries = manifest(tmp_path)
    urls = [e["url"] for e in entries]
    assert len(urls) == len(set(urls)) == data.MANY_COUNT + 1  # each once: no refetch
    base = tmp_path / "ftp" / f"{peer.host}_{peer.port}" / "many"
    got = {k: sha(v) for k, v in files_under(base).items()}
    assert got == expected_tree(peers, "many/")


def test_warc_passes_warcio_check_and_replays(peers: Any, tmp_path: Path) -> None:
    from warcio.archiveiterator import ArchiveIterator

    warc = tmp_path / "site.warc.gz"
    nginx, ftp = peers["nginx"], peers["vsftpd"]
    r = mirror("-o", str(tmp_path / "m"), "--warc", str(warc), nginx.url("pub/"),
               ftp.url("pub/nested/"))
    assert r.returncode == 0, r.stderr
    check = subprocess.run(["warcio", "check", str(warc)], capture_output=True)
    assert check.returncode == 0, check.stdout + check.stderr
    index = subprocess.run(["warcio", "index", str(warc)], capture_output=True)
    assert index.returncode == 0 and b'"warc-type": "response"' in index.stdout
    seen: dict[tuple[str, str], bytes] = {}
    with open(warc, "rb") as f:
        for record in ArchiveIterator(f):
            uri = record.rec_headers.get_header("WARC-Target-URI")
            seen[(record.rec_type, uri)] = record.content_stream().read()
    readme = nginx.url("pub/readme.txt")
    assert seen[("response", readme)] == data.expected_bytes("pub/readme.txt")
    assert ("request", readme) in seen
    deeper = ftp.url("pub/nested/deeper/file.txt")
    assert seen[("resource", deeper)] == data.expected_bytes("pub/nested/deeper/file.txt")
    dialogue = seen[("metadata", deeper)].decode()
    assert "RETR file.txt" in dialogue  # the protocol dialogue, for the archive
    assert all(line.endswith("PASS ****") for line in dialogue.splitlines() if "PASS" in line)
    assert ("warcinfo", None) in seen


def test_get_warc_records_every_scheme_and_replays(peers: Any, tmp_path: Path) -> None:
    from warcio.archiveiterator import ArchiveIterator

    warc = tmp_path / "get.warc.gz"
    env = dict(os.environ, PYTHONPATH=f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               NETRC=os.devnull)
    urls = [peers["nginx"].url("hello.txt"), peers["vsftpd"].url("pub/readme.txt"),
            peers["pygopherd"].url("0/pub/nested/deeper/file.txt")]
    for extra in ([], ["-O", "--output-dir", str(tmp_path / "files")]):
        warc.unlink(missing_ok=True)
        r = subprocess.run([sys.executable, "-m", "anyurl", "get", "-sS", "--create-dirs",
                            "--warc", str(warc), *extra, *urls], capture_output=True,
                           timeout=60, env=env, stdin=subprocess.DEVNULL)
        assert r.returncode == 0, r.stderr
        assert subprocess.run(["warcio", "check", str(warc)]).returncode == 0
        with open(warc, "rb") as f:
            bodies = {(rec.rec_type, rec.rec_headers.get_header("WARC-Target-URI")):
                      rec.content_stream().read() for rec in ArchiveIterator(f)}
        assert bodies[("response", urls[0])] == data.expected_bytes("hello.txt")
        assert bodies[("resource", urls[1])] == data.expected_bytes("pub/readme.txt")
        assert ("metadata", urls[1]) in bodies
        assert bodies[("resource", urls[2])].replace(b"\r\n", b"\n") == \
            data.expected_bytes("pub/nested/deeper/file.txt")
    again = subprocess.run([sys.executable, "-m", "anyurl", "get", "-sS", "--warc", str(warc),
                            urls[0]], capture_output=True, timeout=60, env=env)
    assert again.returncode == 73  # an archive is never overwritten


def test_gopher_plus_views_where_asked(peers: Any, tmp_path: Path) -> None:
    """--gopher-views: each Gopher+ item's attribute block and its alternate views,
    beside the item (NAME.attributes, NAME@VIEW), the views as documents."""
    peer = peers["gopherplus"]
    r = mirror("-o", str(tmp_path), "--gopher-views", "--include", "*hello.txt*",
               peer.url("1/"))
    assert r.returncode == 0, r.stderr
    base = tmp_path / "gopher" / f"{peer.host}_{peer.port}"
    names = {p.name for p in base.iterdir()}
    assert {"gophermap", "hello.txt", "hello.txt.attributes", "hello.txt@text_plain De_DE",
            "hello.txt@application_json"} <= names
    assert b"+VIEWS" in (base / "hello.txt.attributes").read_bytes()
    german = (base / "hello.txt@text_plain De_DE").read_bytes()
    assert german.startswith(b"Hallo") and b"+-1" not in german
    without = tmp_path / "plain"
    r = mirror("-o", str(without), "--include", "*hello.txt*", peer.url("1/"))
    assert r.returncode == 0, r.stderr
    assert not list(without.rglob("*.attributes"))  # only where asked


@pytest.mark.parametrize("peer_name", ["vsftpd", "pure-ftpd"])
def test_a_listing_resumes_into_the_directory_a_killed_run_made(
        peers: Any, tmp_path: Path, peer_name: str) -> None:
    # A listing named without its '/' (a symlink in LIST, a start URL typed so) is saved
    # at its name, then moved into its directory as '.listing' once it is known to be
    # a listing; a run killed after the move (children already written below it) left
    # that directory where the URL's file would go. The resumed run saves into it.
    peer = peers[peer_name]
    base = tmp_path / "ftp" / f"{peer.host}_{peer.port}"
    (base / "pub" / "nested").mkdir(parents=True)
    r = mirror("-o", str(tmp_path), peer.url("pub"))
    assert r.returncode == 0, r.stderr
    got = {k: sha(v) for k, v in files_under(base / "pub").items()}
    assert got == expected_tree(peers, "pub/")
    assert (base / "pub" / ".listing").is_file()
    urls = [e["url"] for e in manifest(tmp_path)]
    assert len(urls) == len(set(urls))


@pytest.mark.parametrize("peer_name", ["vsftpd", "pure-ftpd"])
def test_each_ftp_file_keeps_its_own_dialogue_in_the_warc(
        peers: Any, tmp_path: Path, peer_name: str) -> None:
    # Files of one FTP host are opened side by side on the host's spare connections
    # (--per-host 4): each file's SIZE/RETR/150 must land in its own metadata record,
    # never in the record of the file opened beside it.
    from warcio.archiveiterator import ArchiveIterator

    warc = tmp_path / "ftp.warc.gz"
    peer = peers[peer_name]
    r = mirror("-o", str(tmp_path / "m"), "--per-host", "4", "-Z", "4",
               "--warc", str(warc), peer.url("pub/"))
    assert r.returncode == 0, r.stderr
    resources: set[str] = set()
    dialogues: dict[str, str] = {}
    with open(warc, "rb") as f:
        for record in ArchiveIterator(f):
            uri = record.rec_headers.get_header("WARC-Target-URI")
            if record.rec_type == "resource":
                resources.add(uri)
            elif record.rec_type == "metadata":
                dialogues[uri] = record.content_stream().read().decode()
    by_name = {unquote(u): u for u in resources}
    files = [by_name[peer.url("pub/" + path)] for path in expected_tree(peers, "pub/")]
    for uri in files:
        name = unquote(uri.rsplit("/", 1)[1])
        retrs = [line for line in dialogues.get(uri, "").splitlines() if "RETR " in line]
        assert retrs and all(line.endswith(f"RETR {name}") for line in retrs), (uri, retrs)


def test_the_mirror_runs_on_trio_too(peers: Any, tmp_path: Path) -> None:
    # Issue 33: mirror, serve and the Dask path ran on asyncio only in the tests.
    peer = peers["vsftpd"]
    r = mirror("--backend", "trio", "-o", str(tmp_path), peer.url("pub/"))
    assert r.returncode == 0, r.stderr
    base = tmp_path / "ftp" / f"{peer.host}_{peer.port}" / "pub"
    assert {k: sha(v) for k, v in files_under(base).items()} == expected_tree(peers, "pub/")
