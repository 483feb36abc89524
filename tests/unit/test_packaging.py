"""The package a distributor ships: a lean base install, extras that say what they hold,
and a command that works without the optional packages."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]
EXTRAS: dict[str, list[str]] = PROJECT["optional-dependencies"]

# Run Python with some packages made unimportable, as on a machine without the extra.
BLOCK = """
import sys
class _Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, _Block())
"""


def _name(requirement: str) -> str:
    for stop in "<>=[;! ":
        requirement = requirement.split(stop)[0]
    return requirement.lower()


def _expand(extra: str) -> set[str]:
    """The package names an extra pulls in, its `anyurl[...]` references followed."""
    names: set[str] = set()
    for requirement in EXTRAS[extra]:
        if requirement.startswith("anyurl["):
            for inner in requirement[len("anyurl["):-1].split(","):
                names |= _expand(inner)
        else:
            names.add(_name(requirement))
    return names


def _run_without(blocked: set[str], code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    return subprocess.run([sys.executable, "-c", BLOCK.format(blocked=blocked) + code],
                          capture_output=True, text=True, env=env, timeout=60)


def test_the_base_install_is_what_the_library_needs():
    assert sorted(_name(r) for r in PROJECT["dependencies"]) == [
        "anyio", "h11", "lxml", "publicsuffixlist", "selectolax", "socksio", "tinycss2"]


def test_all_is_what_readme_says_and_leaves_the_dask_cluster_out():
    assert _expand("all") == {"rich", "trio", "h2", "warcio", "cdxj-indexer", "pyftpdlib",
                              "starlette", "hypercorn", "brotli", "zstandard"}
    readme = (REPO / "README.md").read_text()
    line = next(x for x in readme.splitlines() if x.startswith("pip install '.[all]'"))
    for word in ("progress bars", "trio", "HTTP/2", "WARC", "br/zstd", "demo", "serve"):
        assert word in line, word
    assert "dask" not in _expand("all") and "distributed" not in _expand("all")


def test_the_test_and_dev_extras_install_every_optional_package():
    everything = set().union(*(_expand(x) for x in EXTRAS if x not in ("test", "dev")))
    assert everything <= _expand("dev")


def test_the_library_imports_none_of_the_optional_packages():
    result = _run_without(set(), (
        "import anyurl, anyurl.resolver, anyurl.downloads.downloader, anyurl.cli.main\n"
        "print(sorted(m for m in ('rich', 'warcio', 'cdxj_indexer', 'dask', 'trio', 'h2',"
        " 'brotli', 'zstandard') if m in sys.modules))"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_command_works_without_rich_and_warcio(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("hello\n")
    target = tmp_path / "out.txt"
    code = ("import sys\nfrom anyurl.cli.main import main\n"
            f"sys.exit(main(['get', '-o', {str(target)!r}, {source.as_uri()!r}]))")
    result = _run_without({"rich", "warcio", "cdxj_indexer"}, code)
    assert result.returncode == 0, result.stderr
    assert target.read_text() == "hello\n"


def test_compressed_without_brotli_and_zstandard_offers_only_gzip_and_deflate():
    code = ("from anyurl.cli.main import main\n"
            "main(['get', '--plan', '--compressed', 'http://example.org/'])")
    result = _run_without({"brotli", "brotlicffi", "zstandard"}, code)
    assert result.returncode == 0, result.stderr
    assert "Accept-Encoding: deflate, gzip\n" in result.stdout
    result = _run_without(set(), code)
    assert "Accept-Encoding: deflate, gzip, br, zstd\n" in result.stdout


def test_no_bars_without_rich(monkeypatch):
    from anyurl.cli import terminal

    class TTY:
        def isatty(self) -> bool:
            return True

    assert terminal.wanted(silent=False, stderr=TTY(), stdout=TTY())  # type: ignore[arg-type]
    monkeypatch.setattr(terminal, "rich_installed", lambda: False)
    assert not terminal.wanted(silent=False, stderr=TTY(), stdout=TTY())  # type: ignore[arg-type]


def test_warc_output_without_warcio_names_the_extra(tmp_path):
    result = _run_without({"warcio"}, (
        "from anyurl.errors import OptionError\n"
        "try:\n    import anyurl.downloads.warc\n"
        "except OptionError as exc:\n    print(exc.exit_code, exc, '|', exc.hint)\n"))
    assert result.returncode == 0, result.stderr
    assert "warcio" in result.stdout and "anyurl[warc]" in result.stdout


@pytest.mark.parametrize("extra", sorted(EXTRAS))
def test_every_extra_is_named_in_the_install_section(extra):
    if extra in ("test", "dev"):
        return
    readme = (REPO / "README.md").read_text()
    assert f"[{extra}]" in readme, f"README's install section does not name [{extra}]"


def test_get_warc_without_warcio_exits_2_and_names_the_extra(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("hello\n")
    code = ("import sys\nfrom anyurl.cli.main import main\n"
            f"sys.exit(main(['get', '-o', {str(tmp_path / 'out')!r}, '--warc',"
            f" {str(tmp_path / 'a.warc.gz')!r}, {source.as_uri()!r}]))")
    result = _run_without({"warcio"}, code)
    assert result.returncode == 2, result.stderr
    assert "anyurl[warc]" in result.stderr and "Traceback" not in result.stderr
