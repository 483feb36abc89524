"""A Gopher hole with non-ASCII names, served by the real gophernicus (issue 30).

gophernicus names a directory's menu ``/uni/#346#227#245#346#234#254/`` (each byte over
0x7F as ``#`` and three octal digits) but the files in it ``/uni/日本/a.txt``: the mirror
used to save the menu under ``#346#227#245.../`` and the files under ``日本/``. One naming
rule (the gopher descriptor's tree path) puts a menu and its items in one directory.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from anyurl.registry import spec_for
from anyurl.url import parse
from tests.integration.test_gopher_dot_lines import anyurl

pytestmark = [pytest.mark.integration]

NAMES = ["日本", "café", "#346 literal"]  # the last: a '#' that is the name's own


@pytest.fixture
def hole(peers: Any) -> Iterator[tuple[str, str]]:
    peer = peers["gophernicus"]
    name = f"names-{uuid.uuid4().hex[:8]}"
    root = peer.data_root / name
    try:
        for directory in NAMES:
            (root / directory).mkdir(parents=True)
            (root / directory / "a.txt").write_text(f"in {directory}\n")
        for path in [root, *root.rglob("*")]:
            os.chmod(path, 0o755 if path.is_dir() else 0o644)  # gophernicus reads as nobody
        yield name, peer.url(f"1/{name}/")
    finally:
        shutil.rmtree(root)


def test_a_menu_and_its_items_land_in_one_directory(hole: tuple[str, str],
                                                    tmp_path: Path) -> None:
    name, url = hole
    r = anyurl("mirror", "--wait", "0", "-o", str(tmp_path), url)
    assert r.returncode == 0, r.stderr
    base = next((tmp_path / "gopher").iterdir()) / name
    found = sorted(p.relative_to(base).as_posix() for p in base.rglob("*") if p.is_file())
    expected = sorted([f"{d}/{leaf}" for d in NAMES for leaf in ("a.txt", "gophermap")]
                      + ["gophermap"])
    assert found == expected
    assert (base / "日本" / "a.txt").read_text() == "in 日本\n"


@pytest.mark.parametrize(("path", "segment"), [
    ("1/%23346%23227%23245%23346%23234%23254/", "日本"),
    ("1/%23043346%23040literal/", "#346 literal"),
    ("1/%23346/", "#346"),       # one byte alone is not UTF-8: kept as written
    ("1/a%23b%23101/", "a#b#101"),  # not every '#' an escape: written so by the server
    ("0/%23346%23227%23245%23346%23234%23254/x", "#346#227#245#346#234#254"),  # a file's
])
def test_the_naming_rule(path: str, segment: str) -> None:
    spec = spec_for("gopher")
    assert spec is not None and spec.crawl is not None
    segments, _ = spec.crawl.tree_path(parse(f"gopher://h/{path}"))
    assert segment in segments
