"""A real site mirrored side by side with ``wget -m -np -p`` (issue 30's "done when").

The whole of Debian's python3-doc (Python's documentation: 1,065 files of which wget saves 555,
Sphinx's CSS ``@import`` chain above the start directory) is served by the nginx peer.
wget and anyurl each mirror it from the start page; then:

- every file wget saved is in anyurl's tree with the same bytes (anyurl may hold more:
  requisites wget does not find);
- anyurl's WARC passes ``warcio check``, and every request nginx logged during anyurl's
  run has its record in it (a response, or a revisit for an alias answered 304), the
  404s included.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_mirror import mirror
from tests.integration.test_mirror_requisites import _python_docs

pytestmark = [pytest.mark.integration]

#: A line of nginx's combined log: the request's method and target, and the status.
_LOGGED = re.compile(r'"(GET|HEAD) (\S+) HTTP/1\.[01]" (\d{3}) ')


def _tree(root: Path, query: str = "@") -> dict[str, bytes]:
    """Relative name -> bytes; a query's ``?`` in a name (wget's on Unix) written as
    anyurl writes it, ``@`` (as wget does with ``--restrict-file-names=windows``)."""
    return {p.relative_to(root).as_posix().replace("?", query): p.read_bytes()
            for p in root.rglob("*") if p.is_file()}


def _records(warc: Path) -> Counter[tuple[str, str]]:
    from warcio.archiveiterator import ArchiveIterator

    kinds: Counter[tuple[str, str]] = Counter()
    with warc.open("rb") as f:
        for record in ArchiveIterator(f):
            uri = record.rec_headers.get_header("WARC-Target-URI")
            if uri:
                kinds[(record.rec_type, uri)] += 1
    return kinds


@pytest.fixture
def site(peers: Any) -> Any:
    """The documentation copied under the nginx peer's root: its URL path."""
    name = f"pydoc-{uuid.uuid4().hex[:8]}"
    root = peers["nginx"].data_root / name
    shutil.copytree(_python_docs(), root)  # (symbolic links followed)
    try:
        yield name
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_python_docs_hold_every_file_wget_saves_and_every_request_is_archived(
        peers: Any, site: str, tmp_path: Path) -> None:
    peer = peers["nginx"]
    start = peer.url(f"{site}/")
    ours, theirs = tmp_path / "anyurl", tmp_path / "wget"
    done = subprocess.run(["wget", "-q", "-m", "-np", "-p", "-P", str(theirs), start],
                          capture_output=True, timeout=600)
    assert done.returncode in (0, 8), done.stderr  # 8: the site's own broken links (404)
    log = Path(peer.logs["access"])
    before = log.stat().st_size
    warc = tmp_path / "site.warc.gz"
    r = mirror("-o", str(ours), "--warc", str(warc), start, timeout=600)
    assert r.returncode in (0, 22), r.stderr  # 22: the same 404s, as curl -f says them

    wget_files = _tree(theirs / f"{peer.host}:{peer.port}" / site)
    our_files = _tree(ours / "http" / f"{peer.host}_{peer.port}" / site)
    assert len(wget_files) > 500  # 555 on Debian 12
    missing = sorted(set(wget_files) - set(our_files))
    assert not missing, missing[:20]
    differ = sorted(p for p in wget_files if our_files[p] != wget_files[p])
    assert not differ, differ[:20]

    check = subprocess.run([sys.executable, "-m", "warcio.cli", "check", str(warc)],
                           capture_output=True, text=True, timeout=300)
    assert check.returncode == 0, check.stdout + check.stderr
    with log.open("rb") as f:
        f.seek(before)
        logged = [m.groups() for m in map(_LOGGED.search, f.read().decode().splitlines())
                  if m]
    assert len(logged) > 500
    records = _records(warc)
    base = f"http://{peer.host}:{peer.port}"
    unrecorded = [(target, status) for method, target, status in logged
                  if not any(records[(kind, base + target)]
                             for kind in ("response", "revisit"))]
    assert not unrecorded, unrecorded[:20]
    errors = [(target, status) for _, target, status in logged if status.startswith("4")]
    assert all(records[("response", base + target)] for target, _ in errors)
