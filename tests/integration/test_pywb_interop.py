"""The WARC file and CDXJ index ``anyurl mirror --warc --warc-cdx`` writes replay in pywb.

pywb (Webrecorder's replay) is run as it is: ``wb-manager init`` and ``add`` (pywb reads
and indexes the WARC file itself), and a second collection that uses anyurl's own CDXJ
index in place of pywb's; pywb's WSGI application then answers in-process (werkzeug's test
client, in pywb's interpreter) for the page, its stylesheets and its image: 200, the
archived bytes, the archived content types (``id_``, pywb's "as archived"), and the page
rewritten by pywb (``mp_``).

pywb cannot share anyurl's environment: it pins old releases (werkzeug, redis) and its
``brotlipy`` installs a ``brotli`` module over Google's Brotli, which anyurl's
``--compressed`` needs. So it lives in a virtual environment of its own, made once per
pywb version and Python under ``~/.cache/anyurl-tests`` (``$XDG_CACHE_HOME``) with pip
from the package index, as CI installs the dev extra.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.site_fixture import LOGO, SITE_CSS, THEME_CSS, Site, mirrored_site

pytestmark = [pytest.mark.integration]

PYWB = "pywb==2.10.0"


@pytest.fixture(scope="module")
def pywb_bin() -> Path:
    """The bin directory of a virtual environment with pywb, made on first use."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    version = f"py{sys.version_info.major}.{sys.version_info.minor}"
    home = cache / "anyurl-tests" / f"{PYWB.replace('==', '-')}-{version}"
    if not (home / "bin" / "wb-manager").exists():
        building = home.with_name(home.name + ".building")
        shutil.rmtree(building, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(building)], check=True, timeout=120)
        done = subprocess.run([str(building / "bin" / "pip"), "install", "-q", PYWB],
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"pip install {PYWB}: {done.stderr[-2000:]}"
        shutil.rmtree(home, ignore_errors=True)
        # a venv's scripts name its path: make it where it is used, then fix the name
        building.rename(home)
        for script in (home / "bin").iterdir():
            if script.is_file() and not script.is_symlink():
                text = script.read_bytes()
                if text.startswith(b"#!") and str(building).encode() in text:
                    script.write_bytes(text.replace(str(building).encode(), str(home).encode()))
        (home / "pyvenv.cfg").write_text((home / "pyvenv.cfg").read_text().replace(
            str(building), str(home)))
    return home / "bin"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    yield from mirrored_site(tmp_path_factory.mktemp("site"))


_ASK = """
import base64, json, sys
from pywb.apps.frontendapp import FrontEndApp
from werkzeug.test import Client
client = Client(FrontEndApp())
found = {}
for path in json.loads(sys.argv[1]):
    resp = client.get(path)
    found[path] = [resp.status_code, resp.headers.get("Content-Type"),
                   base64.b64encode(resp.get_data()).decode()]
print(json.dumps(found))
"""


def _ask(bin_: Path, where: Path, paths: list[str]) -> dict[str, tuple[int, str, bytes]]:
    """pywb's answers to ``paths``, from its WSGI application run in ``where``."""
    done = subprocess.run([str(bin_ / "python"), "-c", _ASK, json.dumps(paths)], cwd=where,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    answers = json.loads(done.stdout.strip().splitlines()[-1])
    return {p: (s, t, base64.b64decode(b)) for p, (s, t, b) in answers.items()}


def _manager(bin_: Path, where: Path, *args: str) -> None:
    done = subprocess.run([str(bin_ / "wb-manager"), *args], cwd=where,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]


def test_pywb_replays_the_mirrors_warc(pywb_bin: Path, site: Site, tmp_path: Path) -> None:
    cdxj = site.warc.with_name("site.cdxj")
    stamp = re.search(r" (\d{14}) .*/index\.html\"", cdxj.read_text())
    assert stamp
    ts = stamp.group(1)
    _manager(pywb_bin, tmp_path, "init", "added")
    _manager(pywb_bin, tmp_path, "add", "added", str(site.warc))
    # A collection read through anyurl's own index rather than pywb's.
    _manager(pywb_bin, tmp_path, "init", "ours")
    shutil.copy(site.warc, tmp_path / "collections" / "ours" / "archive" / site.warc.name)
    shutil.copy(cdxj, tmp_path / "collections" / "ours" / "indexes" / "index.cdxj")
    expected = {"index.html": (None, "text/html"), "css/site.css": (SITE_CSS, "text/css"),
                "css/theme.css": (THEME_CSS, "text/css"), "img/logo.png": (LOGO, "image/png")}
    paths = [f"/{coll}/{ts}id_/{site.url(p)}" for coll in ("added", "ours") for p in expected]
    paths.append(f"/added/{ts}mp_/{site.url('index.html')}")
    got = _ask(pywb_bin, tmp_path, paths)
    html = (site.root / "index.html").read_bytes()
    for coll in ("added", "ours"):
        for path, (blob, ctype) in expected.items():
            status, content_type, body = got[f"/{coll}/{ts}id_/{site.url(path)}"]
            assert (status, content_type) == (200, ctype), (coll, path)
            assert body == (html if blob is None else blob), (coll, path)
    status, _, page = got[f"/added/{ts}mp_/{site.url('index.html')}"]
    assert status == 200
    # pywb's own rewriting: its banner inserted, an absolute link kept in the collection
    # (a relative one stays relative: it resolves inside pywb's address as it is).
    assert b"<!-- WB Insert -->" in page
    assert f"/added/{ts}mp_/http://archived.invalid/never.html".encode() in page
