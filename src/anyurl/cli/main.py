"""Entry point of the ``anyurl`` command: subcommands, and ``anyurl URL`` as ``get``.

``anyurl --version`` answers before anything else is imported: this module imports only
``os`` and ``sys`` (which Python has at start) and the package's version; the argument
parser, ``logging``, the error tree and each command are imported by the functions that
use them (``tests/unit/test_startup.py`` keeps it so).
"""

from __future__ import annotations

import os
import sys

from anyurl import __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads it so)
if TYPE_CHECKING:
    import argparse
    import typing
    from collections.abc import Sequence

    from anyurl.cli.common import Parser

__all__ = ["main"]

TOP_LEVEL = ("-h", "--help", "--version", "--completion", "--man")


def build_parser(only: str | None = None, *, plugins: bool = True) -> Parser:
    """The ``anyurl`` argument parser with every subcommand, or ``only`` that one.

    Each subcommand's module is imported only when it is registered: ``anyurl get``
    does not pay for the mirror's or the demo's imports, ``--version`` for none. The
    schemes' own flags are their descriptors' (:func:`~anyurl.cli.scheme_options.add_scheme_flags`);
    the installed plug-ins' are read from their entry points with ``plugins``:
    :func:`main` leaves them out until a flag is not known without them.
    """
    import importlib

    from anyurl.cli.common import COMMANDS, HelpFormatter, Parser

    parser = Parser(
        prog="anyurl", formatter_class=HelpFormatter,
        description="Fetch any RFC 1738 URL by speaking its scheme's own protocol.",
        epilog="'anyurl URL' is short for 'anyurl get URL'. "
        "Exit codes follow curl: 3 malformed URL, 1 unsupported scheme, 6 host not "
        "resolved, 7 cannot connect, 28 timeout, 22 a web server's error status (as "
        "curl -f), 67 login denied, 78 remote file not found, 18 partial transfer.",
    )
    parser.add_argument("--version", action="version", version=f"anyurl {__version__}")
    parser.add_argument("--completion", choices=("bash", "zsh", "fish"), metavar="SHELL",
                        help="print a completion script for the shell (anyurl.cli.completion)")
    parser.add_argument("--man", action="store_true", help="print the man page anyurl(1)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        if only is None or name == only:
            importlib.import_module(f"anyurl.cli.{name}_cmd").add_parser(sub)
    for fetching in ("get", "mirror", "serve"):  # the commands that fetch: each scheme's
        if fetching in sub.choices:                # flags, built-in and plug-in alike
            from anyurl.cli.scheme_options import add_scheme_flags

            add_scheme_flags(sub.choices[fetching], fetching, installed=plugins)
    parser.commands = sub.choices
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; the exit status (``anyurl URL`` is ``anyurl get URL``)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list == ["--version"]:  # before any import: a version costs no parser
        print(f"anyurl {__version__}")
        return 0
    import argparse

    from anyurl.cli.common import COMMANDS, print_error
    from anyurl.errors import Aborted, OptionError

    if args_list and args_list[0] not in COMMANDS and args_list[0] not in TOP_LEVEL:
        meant = _meant(args_list[0])
        if meant is not None:  # a mistyped command: not fetched as a URL
            print_error(OptionError(f"{args_list[0]!r} is neither a command nor a URL",
                                    hint=f"Did you mean '{meant}'?"))
            return OptionError.exit_code
        args_list.insert(0, "get")  # anyurl [-s] URL, as curl [-s] URL
    if args_list[:1] in (["--completion"], ["--man"]):
        from anyurl.cli.completion import run

        return run(args_list, build_parser())
    install_log_handler()
    args_list = _join_dash_values(args_list)
    only = args_list[0] if args_list and args_list[0] in COMMANDS else None
    helped = any(a in ("-h", "--help") for a in args_list)
    parser = build_parser(only, plugins=helped)
    args, rest = parser.parse_known_args(args_list)
    if not helped and any(r.startswith("-") and r != "-" for r in rest):
        parser = build_parser(only)  # a plug-in's flag? read the entry points' flags
        args, rest = parser.parse_known_args(args_list)
    if rest and getattr(args, "urls", None) is not None \
            and not any(r.startswith("-") and r != "-" for r in rest):
        # URLs after options that came after URLs (curl's 'URL -H X URL'): argparse takes
        # one run of positionals only; the commands never write to their namespace
        args = argparse.Namespace(**{**vars(args), "urls": [*args.urls, *rest]})
    elif rest:
        _unrecognized(parser, args, rest)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        from anyurl.cli.common import require_extras

        require_extras(args)
        status: int = args.func(args)
    except KeyboardInterrupt:
        print_error(Aborted("interrupted"))
        return Aborted.exit_code
    except (Exception, BaseExceptionGroup) as exc:  # never a traceback for a user
        if os.environ.get("ANYURL_DEBUG"):
            raise
        return _report_unexpected(exc)
    return status


def _unrecognized(parser: Parser, args: argparse.Namespace,
                  rest: list[str]) -> typing.NoReturn:
    """The usage error for options no parser knows, said by the command's own parser
    (``Try 'anyurl get --help'``), with the option probably meant (``--retyr``:
    ``--retry``), as git and curl's own suggestions do."""
    import difflib

    own = parser.commands.get(args.command, parser)
    message = f"unrecognized arguments: {' '.join(rest)}"
    unknown = next((r for r in rest if r.startswith("--")), None)
    if unknown is not None:
        known = [flag for action in own._actions for flag in action.option_strings
                 if flag.startswith("--")]
        close = difflib.get_close_matches(unknown.partition("=")[0], known, n=1, cutoff=0.7)
        if close:
            message += f" (did you mean {close[0]}?)"
    own.error(message)


#: Options whose value often begins with "-" as curl users write it (``--proto -file``);
#: argparse would take such a value for an option of its own.
_DASH_VALUED = frozenset({"--proto"})


#: curl's ``-Z``/``--parallel`` takes no value (its ``--parallel-max``, 50 by default,
#: says how many): here ``-Z N`` gives the number, and ``-Z`` before anything but digits
#: means curl's 50, so that ``anyurl -Z URL URL`` works as ``curl -Z URL URL`` does.
_PARALLEL = frozenset({"-Z", "--parallel"})
CURL_PARALLEL_MAX = 50


def _join_dash_values(args: list[str]) -> list[str]:
    """``--proto -file`` as ``--proto=-file``, so argparse takes the value as curl does;
    a bare ``-Z`` as ``--parallel=50`` (:data:`_PARALLEL`)."""
    joined: list[str] = []
    i = 0
    while i < len(args):
        if args[i] in _DASH_VALUED and i + 1 < len(args) and args[i + 1] != "--":
            joined.append(f"{args[i]}={args[i + 1]}")
            i += 2
            continue
        if args[i] in _PARALLEL and (i + 1 == len(args) or not _a_count(args[i + 1])):
            joined.append(f"--parallel={CURL_PARALLEL_MAX}")
            i += 1
            continue
        if args[i] == "--":
            joined.extend(args[i:])
            break
        joined.append(args[i])
        i += 1
    return joined


def _a_count(word: str) -> bool:
    """Whether ``word`` is a value for ``-Z`` (digits, maybe mistyped ones: the option's
    own parser says what is wrong with ``-Z ٣`` or ``-Z 0``)."""
    return word[:1].isdigit() or (word[:1] in "+-" and word[1:2].isdigit())


def _meant(first: str) -> str | None:
    """What a first word that is no command and no URL meant: ``anyurl mirror`` for
    ``mirorr``, ``anyurl get --plan`` for ``plan``; None for a URL or no close match."""
    import argparse

    from anyurl.cli.common import COMMANDS, HelpFormatter
    from anyurl.cli.suggest import looks_like_a_word, suggest

    if not looks_like_a_word(first):
        return None  # a URL, an option: 'anyurl URL' is 'anyurl get URL'
    from anyurl.cli.get_cmd import add_arguments

    parser = argparse.ArgumentParser(add_help=False, formatter_class=HelpFormatter)
    add_arguments(parser)
    return suggest(first, COMMANDS, tuple(o for a in parser._actions for o in a.option_strings))


def install_log_handler() -> None:
    """Show the package's warnings on stderr: the library is silent (a NullHandler), a
    command-line user still sees what the resolver and handlers warn about (once)."""
    import logging

    from anyurl.cli.common import WarningLine

    logger = logging.getLogger("anyurl")
    if not any(isinstance(h, WarningLine) for h in logger.handlers):
        handler = WarningLine(logging.WARNING)
        logger.addHandler(handler)


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _report_unexpected(exc: BaseException) -> int:
    """One line for an exception that escaped a command: ours if there is one inside."""
    from anyurl.cli.common import print_error
    from anyurl.errors import Aborted, AnyURLError

    leaves = _leaves(exc)
    for leaf in leaves:
        if isinstance(leaf, AnyURLError):
            return print_error(leaf)
    first = leaves[0] if leaves else exc
    if isinstance(first, KeyboardInterrupt):
        return print_error(Aborted("interrupted"))
    detail = str(first) or type(first).__name__
    return print_error(AnyURLError(
        f"internal error: {type(first).__name__}: {detail}",
        hint="This is a bug in anyurl; please report it with the command you ran "
        "(set ANYURL_DEBUG=1 to see the traceback)."))
