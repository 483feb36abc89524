"""The layering of src/anyurl, read from the source: what the architecture promises.

* no import cycles between anyurl's modules (lazy imports inside functions count too:
  a cycle hidden in a function is still a cycle);
* the sans-I/O cores (``protocols/``) import no I/O, no handler and no transport;
* handlers reach other URLs through the resolver's gate only: no handler imports the
  resolver or the built-in registry;
* every core shares one vocabulary (``protocols/common.py``): one ``NEED_DATA``, one
  pair of error sides.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "anyurl"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(name: str) -> set[str]:
    """Every anyurl module ``name`` imports, at any depth of its code."""
    path = MODULES[name]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            targets = [module]
            # ``from anyurl.schemes import base`` imports the module anyurl.schemes.base
            targets += [f"{module}.{alias.name}" for alias in node.names]
        for target in targets:
            if target in MODULES and target != name:
                found.add(target)
    return found


GRAPH: dict[str, set[str]] = {name: _imports(name) for name in MODULES}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    result: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                result.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return result


def _without_package_inits(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    # A package's __init__ re-exporting its submodules is not a cycle with them: Python
    # imports the parent first whatever the submodule says. Edges *to* a package that
    # only re-exports are kept, edges from a package __init__ to its own children go.
    out: dict[str, set[str]] = {}
    for name, targets in graph.items():
        if MODULES[name].name == "__init__.py":
            targets = {t for t in targets if not t.startswith(name + ".")}
        out[name] = targets
    return out


def test_the_import_graph_was_read() -> None:
    assert "anyurl.resolver" in GRAPH
    assert "anyurl.schemes.base" in GRAPH["anyurl.resolver"]


def test_no_import_cycles() -> None:
    assert _cycles(_without_package_inits(GRAPH)) == []


def test_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


CORES = sorted(n for n in MODULES if n.startswith("anyurl.protocols."))
IO_MODULES = {"anyio", "socket", "ssl", "asyncio", "trio", "selectors"}


def _top_level_foreign_imports(name: str) -> set[str]:
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("core", CORES)
def test_cores_import_no_io_and_no_handler(core: str) -> None:
    assert not (_top_level_foreign_imports(core) & IO_MODULES)
    for target in GRAPH[core]:
        assert target.startswith(("anyurl.protocols", "anyurl.url")), (core, target)


HANDLERS = sorted(n for n in MODULES if n.startswith("anyurl.schemes.")
                  and n not in ("anyurl.schemes.base",))


@pytest.mark.parametrize("handler", HANDLERS)
def test_handlers_go_through_the_gate(handler: str) -> None:
    """A handler never reads the registry or builds another handler from it."""
    assert "anyurl.resolver" not in GRAPH[handler]
    source = MODULES[handler].read_text(encoding="utf-8")
    assert "BUILTIN_HANDLERS" not in source
    assert "_load(" not in source


@pytest.mark.parametrize(
    "core", [c for c in CORES if c not in ("anyurl.protocols", "anyurl.protocols.common")]
)
def test_cores_share_one_sentinel(core: str) -> None:
    source = MODULES[core].read_text(encoding="utf-8")
    assert "class NeedData" not in source, f"{core} defines its own NEED_DATA type"
    assert "NEED_DATA = " not in source and "NEED_DATA: Final" not in source


def test_downloader_does_not_depend_on_the_resolver() -> None:
    assert "anyurl.resolver" not in GRAPH["anyurl.downloader"]
