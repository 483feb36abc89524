"""What every subcommand shares: printing errors and warnings, and the exit status."""

from __future__ import annotations

import sys

from anyurl.errors import AnyURLError

__all__ = ["error_line", "print_error", "print_warning"]

PROG = "anyurl"


def error_line(exc: AnyURLError) -> str:
    return f"{PROG}: {exc}"


def print_error(exc: AnyURLError) -> int:
    """Print ``exc`` as one line on stderr and return its exit code."""
    print(error_line(exc), file=sys.stderr)
    return exc.exit_code


def print_warning(message: str) -> None:
    print(f"{PROG}: warning: {message}", file=sys.stderr)
