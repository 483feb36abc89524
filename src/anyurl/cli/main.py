"""Entry point of the ``anyurl`` command: subcommands, and ``anyurl URL`` as ``get``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from anyurl import __version__
from anyurl.cli import demo_cmd, extract_cmd, get_cmd, parse_cmd

__all__ = ["main"]

COMMANDS = ("parse", "extract", "get", "demo")
TOP_LEVEL = ("-h", "--help", "--version")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="anyurl",
        description="Fetch any RFC 1738 URL by speaking its scheme's own protocol.",
        epilog="'anyurl URL' is short for 'anyurl get URL'. "
        "Exit codes follow curl: 3 malformed URL, 1 unsupported scheme, 6 host not "
        "resolved, 7 cannot connect, 28 timeout, 67 login denied, 78 remote file not "
        "found, 18 partial transfer.",
    )
    parser.add_argument("--version", action="version", version=f"anyurl {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parse_cmd.add_parser(sub)
    extract_cmd.add_parser(sub)
    get_cmd.add_parser(sub)
    demo_cmd.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] not in COMMANDS and args_list[0] not in TOP_LEVEL:
        args_list.insert(0, "get")  # anyurl [-s] URL, as curl [-s] URL
    parser = build_parser()
    args = parser.parse_args(args_list)
    if args.command is None:
        parser.print_help()
        return 2
    status: int = args.func(args)
    return status
