"""A real FTP archive mirrored from vsftpd, which has no ``MLSD`` (issue 30).

vsftpd is listed with ``LIST -a``, read for types, sizes, times and link targets: a
symbolic link (to a directory, to a file, to nothing) is recorded in the manifest with
its target and walked as nothing, so no directory is copied twice under an alias;
dotfiles are listed and kept by their names (only a remote ``.listing``, the mirror's own
name, is escaped); each file gets the listing's time; no ``SIZE`` precedes a ``RETR``;
and a refresh after two files changed fetches those two and nothing else.

Two trees: one built here (the cases named above, on purpose), and a copy of a part of
this machine's real ``/usr/share/doc`` (Debian packages' doc directories, with the links
``dpkg`` made: ``libcc1-0 -> gcc-12-base``, ``python3/html -> ../python3.11-doc/html``,
absolute links into ``/usr/share/javascript``, fish's ``.buildinfo``), which nobody here
wrote (STYLE.md item 30).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from anyurl.mirror.engine import MANIFEST_NAME
from tests.integration.test_mirror_refresh import run_mirror

pytestmark = [pytest.mark.integration]

DOC = Path("/usr/share/doc")
#: Package doc directories of the real /usr/share/doc, and links among them.
PACKAGES = ("python3", "gcc-12-base", "libcc1-0", "leafnode", "perl", "fish")
#: 2020-01-02 00:00 UTC: older than six months, so vsftpd lists it with its year and
#: the listing's time is exact.
OLD = 1_577_923_200


def _built(root: Path) -> None:
    files = {
        "real/a.txt": b"a\n",
        "real/deeper/b.bin": bytes(range(256)),
        ".hidden": b"dotfile\n",
        ".dotdir/inner.txt": b"inside a dot directory\n",
        ".listing": b"a remote file named as the mirror's listing\n",
        "with  two spaces.txt": b"spaces\n",
    }
    for name, blob in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(blob)
        os.utime(path, (OLD, OLD))
    os.symlink("real", root / "alias")              # a directory, a second time
    os.symlink("real/a.txt", root / "file-alias")   # a file, a second time
    os.symlink("nowhere", root / "dangling")        # nothing at all
    os.symlink("..", root / "real" / "up")          # a loop, for a walker of links


@pytest.fixture
def archive(peers: Any) -> Iterator[tuple[Path, str]]:
    """A directory of the vsftpd peer's data root: the built tree and the doc copy."""
    peer = peers["vsftpd"]
    name = f"archive-{uuid.uuid4().hex[:8]}"
    root = peer.data_root / name
    try:
        _built(root / "built")
        for package in PACKAGES:
            source = DOC / package
            if source.is_symlink():
                (root / "doc").mkdir(parents=True, exist_ok=True)
                os.symlink(os.readlink(source), root / "doc" / package)
            else:
                shutil.copytree(source, root / "doc" / package, symlinks=True)
        yield root, peer.url(f"{name}/")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _served(root: Path) -> tuple[dict[str, Path], dict[str, str]]:
    """The served tree's regular files and symbolic links, by path, links unfollowed."""
    files: dict[str, Path] = {}
    links: dict[str, str] = {}
    for directory, dirs, names in os.walk(root):
        for name in dirs + names:
            path = Path(directory) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                links[rel] = os.readlink(path)
            elif path.is_file():
                files[rel] = path
    return files, links


def _escaped(rel: str) -> str:
    """Where the mirror keeps a served path: a ``.listing`` file's dot as ``%2E``."""
    return "/".join("%2Elisting" if part == ".listing" else part for part in rel.split("/"))


def _verbs(stderr: str, verb: str) -> list[str]:
    return re.findall(rf"^> {verb}(?: (.*))?$", stderr, re.MULTILINE)


def test_a_real_archive_from_vsftpd(archive: tuple[Path, str], tmp_path: Path) -> None:
    root, url = archive
    files, links = _served(root)
    assert len(links) >= 10 and any(rel.startswith("doc/fish/.") for rel in files)
    out = tmp_path / "out"
    first = run_mirror("-v", "-o", str(out), url)
    assert first.returncode == 0, first.stderr[-3000:]
    assert _verbs(first.stderr, "SIZE") == []  # the listing gave every size
    assert _verbs(first.stderr, "NLST") == []
    assert len(_verbs(first.stderr, "RETR")) == len(files)  # each file once, no alias

    base = out / "ftp" / next(p.name for p in (out / "ftp").iterdir()) / root.name
    saved = {p.relative_to(base).as_posix(): p for p in base.rglob("*")
             if p.is_file() and p.name != ".listing"}
    assert set(saved) == {_escaped(rel) for rel in files}  # dotfiles too; no duplicates
    for rel, path in files.items():
        mine = saved[_escaped(rel)]
        assert mine.read_bytes() == path.read_bytes(), rel
        served = int(path.stat().st_mtime)
        # the listing's time: to the minute, or the day for a file over six months old
        assert served - 86_400 < mine.stat().st_mtime <= served, rel
    assert (base / "built" / ".hidden").stat().st_mtime == OLD

    manifest = [json.loads(line) for line in (out / MANIFEST_NAME).read_text().splitlines()]
    recorded = {line["url"][len(url):]: line["target"] for line in manifest
                if line["kind"] == "symlink"}
    assert {u.replace("%20", " ").replace("%2B", "+"): t for u, t in recorded.items()} \
        == links
    assert not any(line["kind"] == "error" for line in manifest)

    (root / "built" / "real" / "a.txt").write_bytes(b"a, changed\n")
    (root / "doc" / "perl" / "copyright").write_bytes(b"changed too\n")
    second = run_mirror("-v", "-o", str(out), url)
    assert second.returncode == 0, second.stderr[-3000:]
    assert sorted(_verbs(second.stderr, "RETR")) == ["a.txt", "copyright"]
    assert (base / "built" / "real" / "a.txt").read_bytes() == b"a, changed\n"
    assert "refreshed: 0 new, " in second.stderr


def test_retr_symlinks_fetches_what_links_name(archive: tuple[Path, str],
                                               tmp_path: Path) -> None:
    """wget's ``--retr-symlinks``: a link to a file is fetched as that file; a link to a
    directory is listed once and not walked (no alias copy, no loop through ``up``);
    a dangling one cannot be fetched and fails."""
    root, url = archive
    out = tmp_path / "out"
    done = run_mirror("-v", "--retr-symlinks", "-o", str(out), url + "built/")
    assert done.returncode == 78, done.stderr[-3000:]  # the dangling link, and only it
    assert "built/dangling" in done.stderr and "1 failed" in done.stderr
    base = out / "ftp" / next(p.name for p in (out / "ftp").iterdir()) / root.name / "built"
    assert (base / "file-alias").read_bytes() == b"a\n"
    assert (base / "alias" / ".listing").is_file()
    assert not (base / "alias" / "a.txt").exists()
    assert not (base / "real" / "up" / "real").exists()
