"""``d/`` and ``d/index.html``: one file under two names, fetched in full once.

nginx serves a directory's ``index.html`` for ``d/`` too. A site whose pages link to
both (the Python documentation does) used to be fetched twice in full and listed twice
in the manifest; the second name is now asked for with the first's validators, and
nginx's ``304`` says it is the same file: listed once, archived as a revisit.
"""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from warcio.archiveiterator import ArchiveIterator

from anyurl.mirror.engine import MANIFEST_NAME
from tests.integration.test_mirror_refresh import run_mirror

pytestmark = [pytest.mark.integration]

INDEX = (b"<html><body><a href='./'>here</a> <a href='index.html'>again</a> "
         b"<a href='page.html'>page</a></body></html>\n")
PAGE = b"<html><body><a href='./'>up</a> <a href='index.html'>up again</a></body></html>\n"


@pytest.fixture
def site(peers: Any) -> Iterator[str]:
    peer = peers["nginx"]
    name = f"alias-{uuid.uuid4().hex[:8]}"
    root = peer.data_root / name
    root.mkdir()
    try:
        (root / "index.html").write_bytes(INDEX)
        (root / "page.html").write_bytes(PAGE)
        yield peer.url(f"{name}/")
    finally:
        shutil.rmtree(root)


@pytest.mark.parametrize("wait", ["0", "0.01"], ids=["batched", "one-at-a-time"])
def test_a_directory_and_its_index_are_one_file(site: str, tmp_path: Path,
                                                wait: str) -> None:
    out = tmp_path / "out"
    warc = out / "site.warc.gz"
    r = run_mirror("-v", "--wait", wait, "-o", str(out), "--warc", str(warc), site)
    assert r.returncode == 0, r.stderr
    entries = [json.loads(line) for line in (out / MANIFEST_NAME).read_text().splitlines()]
    files = [e["file"] for e in entries]
    assert len(files) == len(set(files)) == 2, entries  # index.html and page.html, once
    assert r.stderr.count("< HTTP/1.1 200") == 2  # each body fetched once
    assert r.stderr.count("< HTTP/1.1 304") == 1  # the alias, asked conditionally
    saved = next(out.glob("http/*/alias-*/index.html"))
    assert saved.read_bytes() == INDEX
    with open(warc, "rb") as f:
        kinds = [(rec.rec_type, rec.rec_headers.get_header("WARC-Target-URI"))
                 for rec in ArchiveIterator(f)]
    assert ("revisit", site + "index.html") in kinds
    assert ("response", site) in kinds
