"""A plug-in scheme is equal to a built-in one: examples/finger_plugin, installed.

The example package is built and installed (``pip install --target``) into a temporary
directory, which the ``anyurl`` commands below get on their ``PYTHONPATH``, so anyurl
finds it the way it finds any installed plug-in: through the ``anyurl.schemes`` entry
point. Its scheme, ``x-finger``, then gets parsing with section 6's checks, its default
port and the port policy, ``-O`` names, ``get``, ``mirror`` with a WARC, ``--plan`` and a
case in ``anyurl demo``, from its descriptor alone.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "examples" / "finger_plugin"

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("site")
    # built from a copy: setuptools writes build/ and *.egg-info beside the sources
    source = tmp_path_factory.mktemp("build") / PLUGIN.name
    shutil.copytree(PLUGIN, source, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__"))
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
         "--target", str(target), str(source)],
        check=True, capture_output=True,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    assert (next(target.glob("anyurl_finger-*.dist-info")) / "entry_points.txt").exists()
    return target


def _env(site: Path) -> dict[str, str]:
    path = os.pathsep.join([str(site), str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path}


@pytest.fixture(scope="module")
def finger(installed: Path) -> Iterator[int]:
    proc = subprocess.Popen([sys.executable, "-m", "anyurl_finger.server", "--port", "0"],
                            stdout=subprocess.PIPE, text=True, env=_env(installed))
    try:
        assert proc.stdout is not None
        yield int(proc.stdout.readline())
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _anyurl(site: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "anyurl", *args], capture_output=True,
                          text=True, env=_env(site), cwd=cwd, timeout=60)


def test_get_speaks_the_plugins_protocol(installed: Path, finger: int) -> None:
    done = _anyurl(installed, "get", f"x-finger://127.0.0.1:{finger}/alice")
    assert done.returncode == 0, done.stderr
    assert "Name: Alice Liddell" in done.stdout


def test_the_descriptor_gives_the_default_port(installed: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import anyurl; u = anyurl.parse('x-finger://h/alice');"
         "print(u.effective_port, anyurl.url.DEFAULT_PORTS['x-finger'])"],
        capture_output=True, text=True, env=_env(installed), check=True)
    assert done.stdout.split() == ["79", "79"]


def test_section_6_applies_to_a_plugin_scheme(installed: Path) -> None:
    crlf = _anyurl(installed, "parse", "x-finger://h/alice%0d%0aroot")
    assert crlf.returncode == 3
    assert "encoded CR, LF or NUL (%0D)" in crlf.stderr
    smtp = _anyurl(installed, "get", "x-finger://127.0.0.1:25/alice")
    assert smtp.returncode == 7
    assert "refusing to connect to port 25" in smtp.stderr


def test_dash_o_names_the_file_from_the_descriptor(installed: Path, finger: int,
                                                   tmp_path: Path) -> None:
    done = _anyurl(installed, "get", "-O", f"x-finger://127.0.0.1:{finger}/bob", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "bob").read_bytes().startswith(b"Login: bob")


def test_mirror_and_warc(installed: Path, finger: int, tmp_path: Path) -> None:
    done = _anyurl(installed, "mirror", f"x-finger://127.0.0.1:{finger}/alice", "-o",
                   str(tmp_path / "m"), "--warc", str(tmp_path / "a.warc.gz"))
    assert done.returncode == 0, done.stderr
    saved = tmp_path / "m" / "x-finger" / f"127.0.0.1_{finger}" / "alice"
    assert b"Alice Liddell" in saved.read_bytes()
    warc = gzip.decompress((tmp_path / "a.warc.gz").read_bytes())
    assert f"WARC-Target-URI: x-finger://127.0.0.1:{finger}/alice".encode() in warc
    assert b"Alice Liddell" in warc


def test_plan_and_demo_come_from_the_plugin(installed: Path) -> None:
    plan = _anyurl(installed, "get", "--plan", "x-finger://127.0.0.1/alice")
    assert plan.returncode == 0, plan.stderr
    assert plan.stdout.strip().endswith("alice")
    cases = subprocess.run(
        [sys.executable, "-c", "from anyurl.cli.demo_cmd import _cases;"
         "print([c.url for c in _cases()])"],
        capture_output=True, text=True, env=_env(installed), check=True)
    assert "x-finger://127.0.0.1:{port}/alice" in cases.stdout


def test_extract_finds_a_bare_plugin_url(installed: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "anyurl", "extract"], capture_output=True,
                          text=True, env=_env(installed), timeout=60,
                          input="Ask x-finger://example.org/alice, or mail her.\n")
    assert done.returncode == 0, done.stderr
    assert "x-finger://example.org/alice" in done.stdout.split()
