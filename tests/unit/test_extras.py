"""An option whose extra is not installed is an OptionError naming the pip command
(anyurl.cli.common.require_extras), checked before the command runs."""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path

import pytest

from anyurl.cli.common import EXTRAS, require_extras
from anyurl.errors import OptionError

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


@pytest.mark.parametrize(("attribute", "value", "module", "extra", "option"), EXTRAS)
def test_a_missing_module_names_its_extra(monkeypatch: pytest.MonkeyPatch, attribute: str,
                                          value: str | None, module: str, extra: str,
                                          option: str) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # import raises ImportError
    args = argparse.Namespace(**{attribute: value or "tcp://127.0.0.1:8786"})
    with pytest.raises(OptionError) as caught:
        require_extras(args)
    assert caught.value.exit_code == 2
    assert f"{option} needs {module}" in str(caught.value)
    assert caught.value.hint == f"pip install 'anyurl[{extra}]'"


def test_nothing_is_asked_of_an_option_not_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "trio", None)
    monkeypatch.setitem(sys.modules, "distributed", None)
    require_extras(argparse.Namespace(backend="asyncio", dask=None))
    require_extras(argparse.Namespace())  # a command without either option


def test_every_extra_named_is_in_pyproject() -> None:
    extras = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]
    assert {row[3] for row in EXTRAS} <= set(extras)
