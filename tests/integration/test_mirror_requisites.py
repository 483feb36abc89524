"""Page requisites against nginx: every form a page names them in is fetched, byte for byte.

A small site in the nginx peer's data root has a page naming a requisite in every form
(issue 30): style sheets and their ``@import`` chain, ``url()`` in a ``<style>`` block, a
``style=`` attribute and a style sheet (quoted, unquoted, escaped; ``data:`` left alone),
``srcset``, ``poster``, media sources, ``<object>``, ``<embed>``, an ``<iframe>`` with an
image of its own, icons and preloads, ``<meta http-equiv=refresh>``, an image button. A
style sheet lies above the start directory and an image beyond the depth limit: both
are fetched, unless ``--no-page-requisites``. Then real pages: a part of Python's
documentation (Debian's python3-doc, installed by scripts/install-peers.sh) whose
``_static`` CSS chain, ``pydoctheme.css`` -> ``default.css`` -> ``classic.css`` ->
``basic.css``, lies above the start directory.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_mirror import manifest, mirror

pytestmark = [pytest.mark.integration]

PAGE = """<!doctype html><html><head><title>every requisite</title>
<link rel="stylesheet" href="../static/top.css">
<link rel="icon" href="favicon.ico">
<link rel="preload" href="preload.js" as="script">
<link rel="modulepreload" href="module.js">
<link rel="manifest" href="app.webmanifest">
<meta http-equiv="refresh" content="600; url=refreshed.html">
<style>
@import url(css/inline-import.css);
body { background: url("img/style-block.png") }
i { background: url(data:image/gif;base64,R0lGODlhAQABAAAAACw=) }
</style>
<script src="script.js"></script>
</head><body style="background-image: url('img/style-attr.png')">
<img src="img/plain.png" srcset="img/one-x.png 1x, img/two-x.png 2x" alt="img">
<picture><source srcset="img/picture.webp" type="image/webp"><img src="img/fallback.png"></picture>
<video src="media/video.mp4" poster="img/poster.png"><source src="media/video.webm"></video>
<audio src="media/audio.ogg"></audio>
<object data="media/object.svg"></object>
<embed src="media/embed.bin">
<iframe src="frames/frame.html"></iframe>
<input type="image" src="img/button.png" alt="go">
<a href="deeper.html">a page at depth 1</a>
</body></html>
"""

#: Relative path under the site -> bytes (the HTML, the CSS, the rest binary-ish).
SITE: dict[str, bytes] = {
    "start/index.html": PAGE.encode(),
    "static/top.css": (b'@import "deep/imported.css";\n'
                       b"h1 { background: url(../img/above.png) }\n"),
    "static/deep/imported.css": (b"@font-face { font-family: F; src: url('font.woff2') }\n"
                                 rb"p { background: url(esc\ aped\(1\).png) }" b"\n"
                                 b'q { background: url("data:image/png;base64,iVBO") }\n'),
    "static/deep/font.woff2": b"wOF2 a font\x00\xff",
    "static/deep/esc aped(1).png": b"\x89PNG escaped name",
    "img/above.png": b"\x89PNG above the start directory",
    "start/css/inline-import.css": b"a { background: url(../img/from-import.png) }\n",
    "start/frames/frame.html": b'<html><body><img src="in-frame.png"></body></html>',
    "start/frames/in-frame.png": b"\x89PNG in a frame",
    "start/deeper.html": (b'<html><body><img src="img/beyond-depth.png">'
                          b'<a href="deepest.html">depth 2</a></body></html>'),
    "start/deepest.html": b"<html><body>never fetched with --depth 1</body></html>",
}
for name in ("favicon.ico", "preload.js", "module.js", "app.webmanifest", "refreshed.html",
             "script.js", "img/style-block.png", "img/style-attr.png", "img/plain.png",
             "img/one-x.png", "img/two-x.png", "img/picture.webp", "img/fallback.png",
             "img/poster.png", "media/video.mp4", "media/video.webm", "media/audio.ogg",
             "media/object.svg", "media/embed.bin", "img/button.png", "img/from-import.png",
             "img/beyond-depth.png"):
    SITE[f"start/{name}"] = f"the bytes of {name}\n".encode() + bytes(range(256))
#: What is fetched only because it is a requisite: above start/, or past --depth 1 (the
#: requisites of a page, a frame or a style sheet at depth 1).
ONLY_AS_REQUISITES = {"static/top.css", "static/deep/imported.css", "static/deep/font.woff2",
                      "static/deep/esc aped(1).png", "img/above.png",
                      "start/img/beyond-depth.png", "start/frames/in-frame.png",
                      "start/img/from-import.png"}


def _write(root: Path, files: dict[str, bytes]) -> None:
    for rel, blob in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(blob)


@pytest.fixture
def site(peers: Any) -> Iterator[tuple[Path, str, str]]:
    """The site in the nginx peer's data root: its directory, name and start URL."""
    peer = peers["nginx"]
    name = f"requisites-{uuid.uuid4().hex[:8]}"
    root = peer.data_root / name
    _write(root, SITE)
    try:
        yield root, f"http/{peer.host}_{peer.port}/{name}", peer.url(f"{name}/start/")
    finally:
        shutil.rmtree(root)


def _saved(out: Path, tree: str) -> dict[str, bytes]:
    base = out / tree
    return {p.relative_to(base).as_posix(): p.read_bytes()
            for p in base.rglob("*") if p.is_file()}


def test_every_requisite_form_is_fetched_byte_identical(
        site: tuple[Path, str, str], tmp_path: Path) -> None:
    _, tree, start = site
    r = mirror("-o", str(tmp_path), "--depth", "1", "--no-robots", start)
    assert r.returncode == 0, r.stderr
    saved = _saved(tmp_path, tree)
    assert saved == {rel: blob for rel, blob in SITE.items() if rel != "start/deepest.html"}
    assert not any(e["url"].startswith("data:") for e in manifest(tmp_path))


def test_no_page_requisites_keeps_to_the_directory_and_the_depth(
        site: tuple[Path, str, str], tmp_path: Path) -> None:
    _, tree, start = site
    r = mirror("-o", str(tmp_path), "--depth", "1", "--no-robots", "--no-page-requisites",
               start)
    assert r.returncode == 0, r.stderr
    saved = _saved(tmp_path, tree)
    assert set(saved) == set(SITE) - ONLY_AS_REQUISITES - {"start/deepest.html"}


def _python_docs() -> Path:
    """Debian's python3-doc (``/usr/share/doc/python3.X/html``)."""
    for html in sorted(Path("/usr/share/doc").glob("python3*/html")):
        if (html / "_static" / "pydoctheme.css").is_file():
            return html
    pytest.fail("python3-doc is not installed: run scripts/install-peers.sh", pytrace=False)


def test_the_css_import_chain_of_python_docs_is_followed(peers: Any, tmp_path: Path) -> None:
    docs = _python_docs()
    peer = peers["nginx"]
    name = f"pydoc-{uuid.uuid4().hex[:8]}"
    root = peer.data_root / name
    try:
        # the tutorial's pages and the _static directory they all use, one level up
        shutil.copytree(docs / "tutorial", root / "tutorial")
        shutil.copytree(docs / "_static", root / "_static")  # (symbolic links followed)
        r = mirror("-o", str(tmp_path), "--depth", "1", "--no-robots",
                   peer.url(f"{name}/tutorial/"))
        assert r.returncode == 0, r.stderr
        saved = _saved(tmp_path, f"http/{peer.host}_{peer.port}/{name}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    static = docs / "_static"
    chain = ["default.css", "classic.css", "basic.css", "file.png", "caret-down.svg"]
    for file in chain:
        assert saved.get(f"_static/{file}") == (static / file).read_bytes(), file
    # the first of the chain is named with its query (pydoctheme.css?2022.1)
    themes = [rel for rel in saved if rel.startswith("_static/pydoctheme.css")]
    assert len(themes) == 1
    assert saved[themes[0]] == (static / "pydoctheme.css").read_bytes()
    assert saved["tutorial/index.html"] == (docs / "tutorial" / "index.html").read_bytes()
    assert not any(rel.startswith(("library/", "whatsnew/")) for rel in saved)
