"""Public API hygiene: every public name of the package is in __all__, once, and importable."""

from __future__ import annotations

import anyurl


def test_all_is_complete() -> None:
    public = {name for name in dir(anyurl) if not name.startswith("_")}
    modules = {"cli", "config", "errors", "ports", "protocols", "resolver", "resource",
               "schemes", "sync", "testing", "transport", "url"}
    assert public - modules - {"annotations"} == set(anyurl.__all__) - {"__version__"}
    assert len(anyurl.__all__) == len(set(anyurl.__all__))
    for name in anyurl.__all__:
        assert getattr(anyurl, name) is not None
