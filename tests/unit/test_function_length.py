"""No function in src/ grows over 80 lines (the code standard), counted from its ``def``
line to the last line of its body.

The functions over the limit when the rule was first checked are listed in
:data:`ALLOWED` with their length then: each may shrink, none may grow, and an entry
whose function is split (or gone) must leave the list, so the list only shrinks.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
LIMIT = 80

#: ``path::qualified.name`` -> its length when the rule was first checked.
ALLOWED: dict[str, int] = {
}


def function_lengths(source: str) -> dict[str, int]:
    """Every function's and method's qualified name (nested ones too) -> its lines."""
    lengths: dict[str, int] = {}

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = prefix + child.name
                assert child.end_lineno is not None
                lengths[name] = child.end_lineno - child.lineno + 1
                walk(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(ast.parse(source), "")
    return lengths


def all_lengths() -> dict[str, int]:
    """:func:`function_lengths` of every module under src/, keyed ``path::name``."""
    out: dict[str, int] = {}
    for path in sorted(SRC.rglob("*.py")):
        where = path.relative_to(SRC).as_posix()
        for name, length in function_lengths(path.read_text(encoding="utf-8")).items():
            out[f"{where}::{name}"] = length
    return out


def test_no_function_is_over_the_limit() -> None:
    lengths = all_lengths()
    too_long = {name: n for name, n in lengths.items()
                if n > LIMIT and n > ALLOWED.get(name, LIMIT)}
    assert too_long == {}, (
        f"functions over {LIMIT} lines (or longer than their ALLOWED entry): split them")


def test_the_allowed_list_only_shrinks() -> None:
    """An entry whose function is gone or now within the limit leaves the list."""
    lengths = all_lengths()
    stale = [name for name in ALLOWED if lengths.get(name, 0) <= LIMIT]
    assert stale == [], "remove these from ALLOWED: they are within the limit now"


def test_lengths_count_from_def_to_the_end_of_the_body() -> None:
    """The measure sees a long function, a method, a nested one and a decorator's
    lines not counted, so the checks above can fail."""
    body = "".join(f"    x{i} = {i}\n" for i in range(LIMIT))
    source = (f"@decorator\ndef long():\n{body}\n"
              f"class C:\n    async def m(self):\n        def inner():\n"
              f"            pass\n        return 1\n")
    lengths = function_lengths(source)
    assert lengths == {"long": LIMIT + 1, "C.m": 4, "C.m.inner": 2}
    assert lengths["long"] > LIMIT
