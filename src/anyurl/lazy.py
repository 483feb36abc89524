"""Names of a package imported on first use (PEP 562), one implementation for all.

A package that re-exports names from modules not every command needs (the HTTP
package's, the schemes' options and views) says where each lives, in a table or by a
function that finds it (``anyurl.options`` asks the registry), and hands its
``__getattr__`` and ``__dir__`` to :func:`lazy_names`: ``import anyurl.options`` then
costs no options module until one is asked for. Imports nothing of anyurl's, so any
layer may use it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(package: str, namespace: dict[str, Any],
               table: Mapping[str, str] | Callable[[str], str | None],
               listed: Callable[[], Iterable[str]] | None = None,
               ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package`` whose ``namespace`` (its globals)
    gains each name of ``table`` (name -> module) from its module when first asked.

    ``table`` may be a function giving a name's module (None: no such name), and then
    ``listed`` gives the names ``dir()`` shows."""

    def getattr_(name: str) -> Any:
        if name.startswith("__"):  # what introspection probes for (__path__, __wrapped__)
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = table(name) if callable(table) else table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        names = table if not callable(table) else listed() if listed else ()
        return sorted({*namespace, *names})

    return getattr_, dir_
