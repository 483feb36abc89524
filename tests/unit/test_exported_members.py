"""Public API hygiene: every public name of the package is in __all__, once, and importable."""

from __future__ import annotations

import inspect

import anyurl


def test_all_is_complete() -> None:
    public = {
        name for name in dir(anyurl)
        if not name.startswith("_") and not inspect.ismodule(getattr(anyurl, name))
    }
    assert public == set(anyurl.__all__) - {"__version__"}
    assert len(anyurl.__all__) == len(set(anyurl.__all__))
    for name in anyurl.__all__:
        assert getattr(anyurl, name) is not None
