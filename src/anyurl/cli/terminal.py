"""Whether the terminal wants progress bars; kept apart so ``anyurl`` starts without rich."""

from __future__ import annotations

import sys
from typing import TextIO

__all__ = ["wanted"]


def wanted(*, silent: bool, stderr: TextIO | None = None, stdout: TextIO | None = None,
           body_to_stdout: bool = False) -> bool:
    """Whether to draw bars: stderr is a terminal, not ``-s``, and no body goes to a terminal.

    A body written to a terminal and bars redrawn on the same screen would garble each
    other, so then (as curl does) there are none.
    """
    err = stderr or sys.stderr
    out = stdout or sys.stdout
    if silent or not _isatty(err):
        return False
    return not (body_to_stdout and _isatty(out))


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False
