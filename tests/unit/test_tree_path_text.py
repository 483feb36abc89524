"""The path texts a mirror's per-file steps make without pathlib (the held directories'
keys, a saved file's name relative to the root) are those pathlib makes."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from anyurl.downloads.output import _joined, held_directories, open_directory
from anyurl.mirror.engine import _relative

TOPS = ["site", ".", "/", "/tmp/x", "a/b", "..", "./s"]
PARTS = [(), ("a",), ("a", "b"), (".hidden", "x y", "%2E")]


@pytest.mark.parametrize("top", TOPS)
def test_held_keys_are_the_paths_text(top: str) -> None:
    for parts in PARTS:
        assert _joined(os.fspath(Path(top)), parts) == os.fspath(Path(top).joinpath(*parts))


@pytest.mark.parametrize("top", TOPS)
def test_relative_text_is_relative_to(top: str) -> None:
    root = Path(top)
    for parts in PARTS[1:]:
        path = root.joinpath(*parts)
        assert _relative(root, path) == os.fsdecode(path.relative_to(root))


def test_a_held_walk_reuses_its_directories(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Within held_directories, the second file of a deep directory is reached from the
    kept descriptor (no walk from the root: no open of its components again), also in
    a tree named ``.``."""
    monkeypatch.chdir(tmp_path)
    real = os.open
    for top, tree in (("a", tmp_path), ("z", Path("."))):
        deep = tree / top / "b" / "c"
        with held_directories():
            os.close(open_directory(tree, deep, create=True))
            opened: list[object] = []
            monkeypatch.setattr(os, "open", _noting(opened, real))
            os.close(open_directory(tree, deep))
            os.close(open_directory(tree, tree / top / "b" / "d", create=True))
            monkeypatch.setattr(os, "open", real)
        # c was kept; d is tried, made and opened from b's kept descriptor: nothing
        # of the walk from the root is opened again
        assert opened == ["d", "d"]
        assert (tmp_path / top / "b" / "d").is_dir()


def _noting(opened: list[object], real: Callable[..., int]) -> Callable[..., int]:
    def noted(*args: Any, **kwargs: Any) -> int:
        opened.append(args[0])
        return real(*args, **kwargs)
    return noted
