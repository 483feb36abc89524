"""Every public name of the package says what it is and why: modules, classes, functions
and the public methods of public classes (STYLE: docstrings that stay true).

Methods that implement a protocol documented on its class or base (``open``, ``plan``,
``aclose``, ``receive``, ``send``, ``__call__``, ``decompress``, ``flush``, ``check``,
``links``, ``render``) may leave it to them.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "anyurl"
INHERITED = {"open", "plan", "aclose", "receive", "send", "__call__", "decompress", "flush",
             "check", "links", "render"}


def _undocumented() -> list[str]:
    missing = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text())
        where = path.relative_to(SRC.parent)
        if ast.get_docstring(tree) is None:
            missing.append(f"{where}: module")
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            if node.name.startswith("_"):
                continue
            if ast.get_docstring(node) is None:
                missing.append(f"{where}:{node.lineno} {node.name}")
            if isinstance(node, ast.ClassDef):
                for sub in node.body:
                    if (isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef)
                            and not sub.name.startswith("_") and sub.name not in INHERITED
                            and ast.get_docstring(sub) is None
                            and not any(isinstance(d, ast.Attribute) and d.attr == "setter"
                                        for d in sub.decorator_list)):
                        missing.append(f"{where}:{sub.lineno} {node.name}.{sub.name}")
    return missing


def test_every_public_name_has_a_docstring() -> None:
    assert _undocumented() == []
