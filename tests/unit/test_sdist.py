"""The sdist carries what a distribution needs to build, test and document anyurl.

Built with `python -m build --sdist` (the `dev` extra installs build) and listed: the tests
with their peers launcher, the docs, the examples and the scripts and compose file the tests
read, besides the sources; nothing generated (caches, bytecode).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def members(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    assert importlib.util.find_spec("build") is not None, (
        "the build frontend is not installed: pip install -e '.[dev]' (or: pip install build)")
    out = tmp_path_factory.mktemp("dist")
    result = subprocess.run([sys.executable, "-m", "build", "--sdist", "--outdir", str(out),
                             str(REPO)], capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    (archive,) = out.glob("anyurl-*.tar.gz")
    with tarfile.open(archive) as tar:
        names = tar.getnames()
    top = names[0].split("/")[0]
    return {name[len(top) + 1:] for name in names if name != top}


@pytest.mark.parametrize("path", [
    "src/anyurl/__init__.py", "src/anyurl/py.typed", "README.md", "LICENSE", "pyproject.toml",
    "tests/conftest.py", "tests/unit/test_sdist.py", "tests/peers/table.py",
    "tests/integration", "tests/cli", "tests/hostile",
    "docs/api.md", "docs/cli.md", "docs/schemes",
    "examples/fetch_one.py", "examples/trio_app.py",
    "scripts/install-peers.sh", "scripts/run-tests.sh",
    "docker/docker-compose.yml", "docker/Dockerfile", "bench/README.md",
])
def test_the_sdist_ships(members: set[str], path: str) -> None:
    assert path in members


def test_every_test_doc_and_example_is_in_the_sdist(members: set[str]) -> None:
    # walked rather than `git ls-files`, so that this runs from an unpacked sdist too
    present = [path.relative_to(REPO).as_posix()
               for top in ("tests", "docs", "examples") for path in (REPO / top).rglob("*")
               if path.is_file() and "__pycache__" not in path.parts
               and path.suffix not in (".pyc", ".part")]
    missing = [path for path in present if path not in members]
    assert not missing, missing


def test_the_sdist_holds_nothing_generated(members: set[str]) -> None:
    generated = [name for name in members
                 if "__pycache__" in name or name.endswith((".pyc", ".part"))
                 or name.startswith(".peers")]
    assert not generated, generated


def test_the_classifiers_name_the_versions_the_tests_run_on() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    versions = {c.rsplit(":: ", 1)[1] for c in project["classifiers"]
                if c.startswith("Programming Language :: Python :: 3.")}
    assert versions == {"3.11", "3.12", "3.13"}
    assert project["requires-python"] == ">=3.11"
