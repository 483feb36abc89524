"""``anyurl extract [FILE]``: print every URL found in free text, one per line."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from anyurl.url.text import find_urls

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    """Add ``anyurl extract`` to the subcommands."""
    p = sub.add_parser(
        "extract",
        help="find URLs in text (<URL:...> wrappers and bare URLs)",
        description="Print every URL in FILE (or stdin), one per line, as the Appendix of "
        "RFC 1738 reads them: wrappers and folding whitespace removed.",
    )
    p.add_argument("file", nargs="?", help="a text file; stdin when omitted or -")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """``anyurl extract``: print the URLs found in text, one a line (RFC 1738 Appendix)."""
    if args.file in (None, "-"):
        text = sys.stdin.read()
    else:
        try:
            with open(args.file, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
        except OSError as exc:
            print(f"anyurl: cannot read {args.file!r}: {exc.strerror}", file=sys.stderr)
            return 2
    for found in find_urls(text):
        print(found.url)
    return 0
