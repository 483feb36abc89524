"""Names of a package imported on first use (PEP 562), one implementation for all.

A package that re-exports names from modules not every command needs (the scheme
options, the HTTP package) lists where each lives and hands its ``__getattr__`` and
``__dir__`` to :func:`lazy_names`: ``import anyurl.options`` then costs no options
module until one is asked for. Imports nothing of anyurl's, so any layer may use it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(package: str, namespace: dict[str, Any], table: Mapping[str, str]
               ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package`` whose ``namespace`` (its globals)
    gains each name of ``table`` (name -> module) from its module when first asked."""

    def getattr_(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted({*namespace, *table})

    return getattr_, dir_
