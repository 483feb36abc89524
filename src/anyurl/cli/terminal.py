"""Whether the terminal wants progress bars; kept apart so ``anyurl`` starts without rich."""

from __future__ import annotations

import importlib.util
import sys
from typing import TextIO

__all__ = ["rich_installed", "wanted"]


def wanted(*, silent: bool, stderr: TextIO | None = None, stdout: TextIO | None = None,
           body_to_stdout: bool = False) -> bool:
    """Whether to draw bars: stderr is a terminal, not ``-s``, no body goes to a terminal,
    and rich (the ``cli`` extra) is installed.

    A body written to a terminal and bars redrawn on the same screen would garble each
    other, so then (as curl does) there are none. rich is optional so that a library
    user's install stays lean; without it the command works and draws no bars.
    """
    err = stderr or sys.stderr
    out = stdout or sys.stdout
    if silent or not _isatty(err) or not rich_installed():
        return False
    return not (body_to_stdout and _isatty(out))


def rich_installed() -> bool:
    """Whether the progress bars' package is importable (``pip install 'anyurl[cli]'``)."""
    return importlib.util.find_spec("rich") is not None


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False
