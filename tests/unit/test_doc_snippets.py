"""Every runnable snippet of the docs runs as written.

A ```python block of README.md or docs/**/*.md preceded by the line `<!-- run -->` is run
(the others are signatures or need a server of your own, and say so). A block may use
`await` and `async with` at top level, as the docs' async examples do: it is compiled with
top-level await and run on asyncio. Each block runs in a fresh interpreter in a temporary
directory, so that files it writes land there.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MARKER = "<!-- run -->"
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.M | re.S)

RUNNER = """
import ast, asyncio, inspect, sys
source = sys.stdin.read()
code = compile(source, sys.argv[1], "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
namespace = {"__name__": "__main__"}
result = eval(code, namespace)
if inspect.iscoroutine(result):
    asyncio.run(result)
"""


def snippets() -> list[tuple[str, str, bool]]:
    """``(where, code, marked)`` for every python block of the docs."""
    found = []
    for path in [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]:
        text = path.read_text()
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
            found.append((f"{path.relative_to(REPO)}:{line}", match.group(1),
                          before == MARKER))
    return found


RUNNABLE = [(where, code) for where, code, marked in snippets() if marked]


def test_the_marker_is_used():
    wheres = [where for where, _ in RUNNABLE]
    assert any(w.startswith("README.md") for w in wheres)
    assert any(w.startswith("docs/api.md") for w in wheres)


def test_a_marker_always_precedes_a_python_block():
    for path in [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]:
        lines = path.read_text().splitlines()
        for number, line in enumerate(lines[:-1]):
            if line.strip() == MARKER:
                assert lines[number + 1].startswith("```python"), f"{path}:{number + 1}"


@pytest.mark.parametrize(("where", "code"), RUNNABLE, ids=[w for w, _ in RUNNABLE])
def test_the_snippet_runs(where: str, code: str, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    result = subprocess.run([sys.executable, "-c", RUNNER, where], input=code, text=True,
                            capture_output=True, cwd=tmp_path, env=env, timeout=120)
    assert result.returncode == 0, f"{where} fails as written:\n{result.stderr[-3000:]}"
