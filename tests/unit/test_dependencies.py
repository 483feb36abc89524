"""The dependency floors keep known vulnerabilities out (issue 20, point 7)."""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]


def _requirement(name: str) -> Requirement:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return next(r for r in map(Requirement, project["dependencies"]) if r.name == name)


def test_h11_floor_excludes_cve_2025_43859() -> None:
    # h11 before 0.16.0 accepts malformed chunked-encoding trailers (CVE-2025-43859):
    # no version the requirement admits may be one of them.
    spec = _requirement("h11").specifier
    assert not spec.contains(Version("0.15.0"))
    assert spec.contains(Version("0.16.0"))


def test_installed_h11_is_fixed() -> None:
    assert Version(version("h11")) >= Version("0.16.0")
