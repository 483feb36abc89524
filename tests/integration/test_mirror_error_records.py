"""Error responses are archives too: a 404 gets its request and response records.

wget, wpull and Heritrix write every exchange, whatever its status; a replay of the
archive then answers a dead link as the site did. The manifest says which URLs were
error answers (``"kind": "error"``, their status, no file).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from warcio.archiveiterator import ArchiveIterator

from anyurl.mirror.engine import MANIFEST_NAME
from tests.integration.test_mirror_refresh import run_mirror

pytestmark = [pytest.mark.integration]

GONE = ["gone-1.html", "gone-2.html", "gone-3.html"]


@pytest.fixture
def site(peers: Any) -> Iterator[str]:
    peer = peers["nginx"]
    name = f"errors-{uuid.uuid4().hex[:8]}"
    root = peer.data_root / name
    root.mkdir()
    links = "".join(f"<a href='{g}'>x</a>" for g in GONE)
    try:
        (root / "index.html").write_text(f"<html><body>{links}<a href='ok.txt'>ok</a>"
                                          "</body></html>\n")
        (root / "ok.txt").write_text("fine\n")
        yield peer.url(f"{name}/")
    finally:
        shutil.rmtree(root)


@pytest.mark.parametrize("wait", ["0", "0.01"], ids=["pipelined", "one-at-a-time"])
def test_a_404_is_archived_and_listed_as_an_error(site: str, tmp_path: Path,
                                                  wait: str) -> None:
    out = tmp_path / "out"
    warc = out / "site.warc.gz"
    r = run_mirror("--wait", wait, "-o", str(out), "--warc", str(warc), site)
    assert r.returncode == 22, r.stderr  # as before: the crawl had failures
    check = subprocess.run([sys.executable, "-m", "warcio.cli", "check", str(warc)],
                           capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    responses: dict[str, tuple[str, bytes]] = {}
    requests: set[str] = set()
    with open(warc, "rb") as f:
        for record in ArchiveIterator(f):
            uri = record.rec_headers.get_header("WARC-Target-URI")
            if record.rec_type == "response":
                assert record.http_headers is not None
                responses[uri] = (record.http_headers.get_statuscode(),
                                  record.content_stream().read())
            elif record.rec_type == "request":
                requests.add(uri)
    for gone in GONE:
        status, body = responses[site + gone]
        assert status == "404" and b"404" in body  # nginx's own error page, as sent
        assert site + gone in requests
    entries = [json.loads(line) for line in (out / MANIFEST_NAME).read_text().splitlines()]
    errors = {e["url"]: e for e in entries if e["kind"] == "error"}
    assert set(errors) == {site + g for g in GONE}
    assert all(e["status"] == 404 and e["file"] is None for e in errors.values())
    assert (next(out.glob("http/*/errors-*/ok.txt"))).read_text() == "fine\n"
