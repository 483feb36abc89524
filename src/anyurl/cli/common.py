"""What every subcommand shares: printing errors and warnings, and the exit status.

Messages often quote what a server sent (a reply line, a menu's text); a hostile
server could put terminal escape sequences there. Everything printed here passes
:func:`escape_controls`, so no control character from a server reaches the
terminal raw.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import sys
import typing

from anyurl.errors import AnyURLError, OptionError

__all__ = ["COMMANDS", "EXTRAS", "HelpFormatter", "RawDescriptionHelpFormatter", "WarningLine",
           "error_line", "error_text", "escape_controls", "human_bytes", "late_help",
           "print_error", "print_warning", "require_extras", "shown_help", "terminal_columns"]

PROG = "anyurl"
#: The subcommands; any other first word is a URL (``anyurl URL`` is ``anyurl get URL``).
COMMANDS = ("parse", "extract", "get", "mirror", "demo", "serve")

#: Options that need an extra, checked before a command runs (:func:`require_extras`):
#: (the namespace's attribute, the value that needs it or None for any, the module to
#: import, the extra that brings it, the option as the user wrote it). ``--warc``,
#: ``serve`` and ``--http2`` ask where they import (the same OptionError.missing_extra).
EXTRAS = (
    ("backend", "trio", "trio", "trio", "--backend trio"),
    ("dask", None, "distributed", "dask", "--dask"),
)

def terminal_columns() -> int:
    """The columns ``shutil.get_terminal_size().columns`` gives (``COLUMNS``, else
    stdout's terminal, else 80), without importing shutil and its bz2, lzma and zlib."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's, as wide as it makes it, with the width read by
    :func:`terminal_columns`: argparse makes a formatter for every ``add_argument``, and
    its own width comes from shutil, an import a run that prints no help need not pay."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         terminal_columns() - 2 if width is None else width)


#: The help of each argument whose text is made when help is shown (:func:`late_help`).
_LATE_HELP: dict[argparse.Action, typing.Callable[[], str]] = {}


def late_help(action: argparse.Action, make: typing.Callable[[], str]) -> None:
    """Give ``action`` the help ``make()`` says, made only when help is shown: a text
    read from every scheme's descriptor (its names, its examples), which a run that
    shows no help need not load."""
    _LATE_HELP[action] = make


def shown_help(action: argparse.Action) -> str | None:
    """``action``'s help as shown, made now if it is a :func:`late_help`."""
    make = _LATE_HELP.pop(action, None)
    if make is not None:
        action.help = make()
    return action.help


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage error is two lines as curl's is (what is wrong, and
    where the options are), not the whole usage of some forty options."""

    #: The epilog, made when help is shown rather than when the parser is built (examples
    #: read from every scheme's descriptor, which a run need not load).
    late_epilog: typing.Callable[[], str] | None = None
    #: The subcommands' parsers by name (what :func:`~anyurl.cli.main.build_parser`
    #: added), so that an error is said by the command's own parser.
    commands: typing.Mapping[str, argparse.ArgumentParser] = {}

    def format_help(self) -> str:
        """argparse's help, with :attr:`late_epilog` and each :func:`late_help` made now."""
        if self.late_epilog is not None:
            self.epilog, self.late_epilog = self.late_epilog(), None
        for action in self._actions:
            shown_help(action)
            if isinstance(action, argparse._SubParsersAction):  # each command's line
                for choice in action._choices_actions:
                    shown_help(choice)
        return super().format_help()

    def error(self, message: str) -> typing.NoReturn:
        """Say ``message`` and where the options are, and exit 2 (argparse's status)."""
        self.exit(2, f"{self.prog}: error: {message}\n"
                     f"Try '{self.prog} --help' for its options.\n")


class RawDescriptionHelpFormatter(HelpFormatter, argparse.RawDescriptionHelpFormatter):
    """argparse's RawDescriptionHelpFormatter, its width read as :class:`HelpFormatter`
    reads it."""


#: C0 controls, DEL and C1 controls (ESC and CSI start terminal escape sequences).
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def escape_controls(text: str) -> str:
    """``text`` with every control character shown as ``\\xNN`` (one line, inert)."""
    return _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def error_text(exc: AnyURLError) -> str:
    """``<message>. <hint>``, the hint in the command line's words
    (:mod:`anyurl.cli.hints`): never the library's ``keyword=True``."""
    from anyurl.cli.hints import cli_hint

    hint = cli_hint(exc)
    if hint is None:
        return exc.message
    return f"{exc.message.rstrip('.')}. {hint}"


def error_line(exc: AnyURLError) -> str:
    """The one line an error is printed as: ``anyurl: <message>. <hint>`` (controls
    escaped), in the command line's words (:func:`error_text`)."""
    return escape_controls(f"{PROG}: {error_text(exc)}")


def print_error(exc: AnyURLError) -> int:
    """Print ``exc`` as one line on stderr and return its exit code."""
    print(error_line(exc), file=sys.stderr)
    return exc.exit_code


def human_bytes(n: float) -> str:
    """Bytes as people read them: 512 B, 1.5 KiB, 3.2 MiB."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"  # pragma: no cover - the loop returns first


def print_warning(message: str) -> None:
    """Print ``message`` as one ``anyurl: warning:`` line on stderr, controls escaped."""
    print(escape_controls(f"{PROG}: warning: {message}"), file=sys.stderr)


def print_note(message: str) -> None:
    """Print ``message`` as one ``anyurl: note:`` line on stderr, controls escaped: what
    is worth knowing with ``-v`` but is no warning (a non-default port)."""
    print(escape_controls(f"{PROG}: note: {message}"), file=sys.stderr)


class WarningLine(logging.Handler):
    """The package logger's warnings as ``anyurl: warning: ...`` lines on stderr
    (installed by :func:`anyurl.cli.main.install_log_handler`)."""

    def emit(self, record: logging.LogRecord) -> None:
        """Print one record as the command line prints its warnings (controls escaped)."""
        print_warning(record.getMessage())


def require_extras(args: object) -> None:
    """OptionError (exit 2, with the ``pip install`` that helps) when an option of
    ``args`` needs an extra that is not installed: without it, anyio's ``LookupError``
    for a missing trio, or Dask's ``ModuleNotFoundError``, would end the run as an
    internal error, and only after the URLs were read."""
    import importlib

    for attribute, value, module, extra, option in EXTRAS:
        given = getattr(args, attribute, None)
        if given and (value is None or given == value):
            try:
                importlib.import_module(module)
            except ImportError as exc:
                raise OptionError.missing_extra(option, exc.name or module, extra) from None
